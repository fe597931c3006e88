/*
 * openb: what Alibaba's openb lists (cluster-trace-gpu-v2023: node lists and pod lists, the
 * traces of FGD, ATC 2023) share — CSV files whose header names their columns.  Releases of
 * the family differ in their column sets (the 2023 pod lists have 11 columns, the
 * multi-GPU resamples of FGD's artifact 5), so columns are found by name, in any order; a
 * column without a name, a name given twice or one outside the set is an error, so that a
 * misspelt column is never taken as absent.  Used by the node list (nodes.c) and the pod-list
 * reader (workloads/trace_openb.c).
 *
 * Ownership: fields point into the tio's line buffer and live until its next line.
 */
#ifndef HETSIM_OPENB_H
#define HETSIM_OPENB_H

#include <stdint.h>

#include "../base/err.h"
#include "../base/tio.h"

enum { OPENB_MAX_FIELDS = 32 };

/* A column set: names (NULL-terminated), the bits of the required ones, and how the file
 * is named in messages ("node list"). */
struct openb_cols {
    const char *const *names;
    unsigned           required;
    const char        *what;
};

/* Read the header, skipping blank and '#' lines: pos[i] = the column of names[i], or -1;
 * *ncols = the header's column count. */
int openb_header(tio *r, const char *path, const struct openb_cols *c, int *pos, int *ncols,
                 struct errbuf *err);

/* The next row (blank and '#' lines skipped), cut into f[0..ncols): 1, 0 at the end of the
 * file, -1 on error (a row of another length, an unterminated quote). */
int openb_row(tio *r, const char *path, int ncols, char **f, long *line, struct errbuf *err);

/* The integer in `s` (an empty field, a fraction, a word: an error), in [lo, hi]; `what`
 * says what it must be ("a milli-CPU count >= 0"). */
int openb_int(const char *path, long line, const char *field, const char *s, int64_t lo,
              int64_t hi, const char *what, int64_t *out, struct errbuf *err);

/* A name: not blank, no blank at either end, at most `max` characters. */
int openb_name(const char *path, long line, const char *field, const char *s, size_t max,
               struct errbuf *err);

#endif
