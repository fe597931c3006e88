/*
 * heet_fit: a step-time model per (model, GPU type) fitted to Heet's published profiles
 * (github.com/mozizhao/elastic, no licence stated: hetsim reads the table from where the
 * user keeps it, ../shared/traces/heet/elastic_profiles.csv on the development machine, and
 * ships only the fitted parameters, models/data/profiles/heet_fit.json).
 *
 * Input: Heet's CSV as models/heet_csv.h reads it (points per GPU type, model, global batch
 * and 1-4 workers on one host).
 *
 * Model: struct tput_fit (models/tput.h), per-worker samples b = B / n,
 *   t(B, n) = step_s + sample_s b + max(0, sync_s 2 (n-1)/n + worker_s (n-1) - overlap sample_s b)
 * five parameters per (model, GPU type), fitted on that pair's points (8 in Heet's table:
 * two batches x 1-4 workers) — fewer parameters than points, so that it is a model of the
 * table and not a re-encoding of it.  The link is the one the host's GPUs share (the GPU's
 * NVLink, else its PCIe: T4 pcie3, A10 pcie4, V100 nvlink2, K80 pcie3).
 *
 * Fit: least squares of the relative residuals (t_model - t) / t, every point weighing the
 * same whatever its size.  For overlap on a grid of 0.01 steps and for each pattern of which
 * multi-worker points expose their all-reduce (2^m for m such points, m <= HEET_FIT_MAX_MULTI),
 * the model is linear in (sample_s, step_s, sync_s, worker_s) and their non-negative least
 * squares is exact (every subset of free parameters solved, the best feasible kept); the
 * answer is the candidate with the smallest error of the full model (ties: the first in grid
 * order, so the fit is deterministic).  Cost per pair: 101 x 2^m x 15 solves of at most 4
 * unknowns.
 *
 * Ownership: everything here is pure.
 */
#ifndef HETSIM_HEET_FIT_H
#define HETSIM_HEET_FIT_H

#include <stdio.h>

#include "catalog.h"
#include "heet_csv.h"
#include "tput.h"

enum { HEET_FIT_NPARAM = 5, HEET_FIT_MAX_MULTI = 12, HEET_FIT_MAX_BATCH = 8 };

struct heet_fit {
    int             gpu, model, points;
    int             batch[HEET_FIT_MAX_BATCH], nbatch;     /* its job types, in row order */
    struct tput_fit f;
    double          median_err, max_err;    /* |relative error| over its points */
};

/* Fit every (model, GPU) pair of the points, in the order of their first row, into out
 * (room for cap); returns how many, or -1 (a pair with no more points than parameters, with
 * more than HEET_FIT_MAX_MULTI multi-worker points or HEET_FIT_MAX_BATCH batch sizes). */
int heet_fit_solve(const catalog *cat, const struct heet_point *p, int n, struct heet_fit *out,
                   int cap, struct errbuf *err);

/* The model's step time for point p under fit f (the fit's own link). */
double heet_fit_time(const struct heet_fit *f, const struct heet_point *p);

/* Write fits as the JSON file of fits tput_load_profile reads (models/data/profiles/). */
int heet_fit_write(FILE *out, const catalog *cat, const struct heet_fit *fits, int n,
                   const char *source);

#endif
