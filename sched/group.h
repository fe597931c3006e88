/*
 * group: numbering the rows of a table by their distinct values, so that a program can hold
 * one block per class of interchangeable jobs instead of one per job.  A row is `width`
 * doubles (ids, sizes and throughputs alike: integers up to 2^53 are exact), rows are equal
 * when every entry compares equal with == (0.0 and -0.0 are one value; a NaN equals nothing,
 * so a row holding one is a group of its own), and groups are numbered 0, 1, ... in the order
 * of their first row, so the numbering depends on the rows alone.
 *
 * Ownership: the caller owns every array; group_rows allocates only scratch, freed on return.
 */
#ifndef HETSIM_GROUP_H
#define HETSIM_GROUP_H

#include "../sim/base/err.h"

/* The group of each of the n rows (rows[i * width .. (i + 1) * width)) into group[i] (out).
 * Returns the number of groups, or -1 with err set when out of memory.  Expected cost
 * O(n width): one open-addressing hash table of at least 2n slots. */
int group_rows(const double *rows, int n, int width, int *group /* out */, struct errbuf *err);

#endif
