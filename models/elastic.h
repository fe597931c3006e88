/*
 * elastic: measured profiles of elastic training applications — step and sync time by
 * placement and local batch, statistical efficiency by batch size and epoch, the batch rules
 * (local batch, gradient accumulation, atomic batch) and goodput — as Pollux's simulator
 * computes them (OSDI 2021 artifact, petuum/adaptdl osdi21-artifact @c793c70,
 * simulator/applications.py and simulator.py's Job).  Pure reads of loaded tables.
 *
 * Data: Pollux's layout (an application's folder with placements.csv, scalability.csv and
 * validation-<batch>.csv, shipped in models/data/pollux/ with applications.json, its
 * constants), and Sia's per-cluster files (placements-<cluster>.csv,
 * scalability-<cluster>.csv, any column order, read from a folder the user names; Sia's
 * statistical-efficiency files are Pollux's, so validation comes from the application's
 * Pollux folder unless the Sia folder has its own).  Sia's clusters: aws = T4,
 * azure = V100-32GB, dgx and dgx-ext = A100-40GB, quad = RTX6000, rtx = RTX2080Ti.
 *
 * Step time (elastic_step_time), Pollux's rules: the placement is its non-zero per-node GPU
 * counts, turned to its lexicographically smallest rotation and named by its digits ((4,2) ->
 * "24").  If placements.csv has that placement: linear interpolation in local batch between
 * its rows (SciPy interp1d: y_lo + (y_hi - y_lo) / (x_hi - x_lo) * (x - x_lo)), an error
 * outside its range (interp1d has no extrapolation).  Otherwise a piecewise-linear
 * interpolation (models/delaunay.h) over the points (num_nodes, num_replicas, local_bsz):
 * placements.csv averaged over those three (pandas' groupby mean: compensated sum in file
 * order, groups in sorted order), then scalability.csv's rows in file order, queried at
 * (min(nodes, 16), replicas, local batch); outside their hull it is an error naming the
 * application, placement and batch (Pollux's simulator would stop on a NaN assertion).
 * Qhull ties: the grid-like points are co-spherical in many places, so the triangulation is
 * not unique; tests/test_delaunay.c checks that Debian's Qhull 2020.2 returns SciPy 1.10's
 * (Qhull 2019.1) simplices, in the same order, and SciPy's interpolated values bit for bit
 * at 3,200 points for each of the six applications' T4 profiles (values SciPy computed,
 * tests/fixtures/pollux/); the Pollux-compatible runs then match Pollux's per-job results.
 *
 * Statistical efficiency (validation files, sorted by batch size):
 *   progress(e)       0 for e = 0, else the smallest progress of row e - 1 over all files;
 *   stats(B, e)       grad_sqr and grad_var of row e, linear in B between the two validated
 *                     sizes around B (the same size when B is validated): ((B - lo) * v_hi +
 *                     (hi - B) * v_lo) / (hi - lo); iterations(B, e) and best_metric(B, e)
 *                     (the best metric of rows 0..e-1, max when the smallest size's metric
 *                     rises, else min) likewise; B outside the validated sizes is an error;
 *   gain              (var + sqr) / (var / scale + sqr), scale = B / init batch;
 *   completion epoch  max_epochs - 1 (no application here has a target metric; Pollux's
 *                     get_completion_epoch never updates its best metric inside its loop, so
 *                     with a target it also returns max_epochs - 1; elastic_target_epoch gives
 *                     the first epoch whose best metric reaches a target, the rule it meant).
 * Batch rules for a fixed global batch B on r replicas (elastic_batch_fixed): local =
 * ceil(B / r - 1e-8); accum = ceil(local / max_local - 1e-8) - 1, at least 1 when r = 1 (Job:
 * only if B > init batch; Optimus's prediction: always); atomic = ceil(local / (accum + 1) -
 * 1e-8), at most floor(max_batch / (r (accum + 1))).  One optimizer step takes step + (step -
 * sync) * accum (the accumulation steps repeat the compute, not the sync); goodput = gain /
 * that time, in progress units per second.
 *
 * Ownership: elastic_load allocates the set, elastic_destroy frees it with its applications;
 * const elastic_app pointers live as long as the set.  elastic_step_time remembers each
 * (placement, batch) it computed, behind the const pointer as models/tput.c does; the answer
 * never changes.  Not thread-safe for that reason (hetsim runs one world per process).
 */
#ifndef HETSIM_ELASTIC_H
#define HETSIM_ELASTIC_H

#include "catalog.h"
#include "../sim/base/err.h"

enum { ELASTIC_NAME_MAX = 64, ELASTIC_MAX_TYPES = 16, ELASTIC_NODE_CAP = 16 };

typedef struct elastic elastic;
typedef struct elastic_app elastic_app;

/* An application's constants: from applications.json, else derived from its files. */
struct elastic_limits {
    int    init_bsz, max_bsz;            /* smallest / largest validated global batch */
    int    min_local_bsz, max_local_bsz; /* per GPU */
    int    max_epochs;
    int    has_target;                   /* 0: completes after max_epochs epochs */
    double target_metric;
    int    pollux_bsz;                   /* Pollux policy's fixed batch (ncf: 32768), 0: none */
    int    elastic_max_replicas;         /* cap under elastic policies (ncf: 1), 0: none */
};

/* Load applications.json (its "gpu" names the GPU type of the Pollux-layout folders beside
 * it); every application's files are read and checked (FILE:LINE: FIELD errors). */
int  elastic_load(elastic **out, const catalog *cat, const char *apps_json, struct errbuf *err);
/* Add Sia's per-cluster profiles from `dir` (dir/<application>/placements-<cluster>.csv,
 * scalability-<cluster>.csv) for every application that has them; gpu < 0: the cluster's
 * type from the table above.  `origin` names where the folder was given, for errors. */
int  elastic_add_sia(elastic *e, const char *dir, const char *cluster, int gpu,
                     const char *origin, struct errbuf *err);
void elastic_destroy(elastic *e);

int         elastic_napps(const elastic *e);
const char *elastic_app_name(const elastic *e, int app);
int         elastic_find(const elastic *e, const char *name);     /* -1 if unknown */
/* " (did you mean 'cifar10'?)" or "" */
const char *elastic_hint(const elastic *e, const char *name, char *buf, size_t cap);
/* Application `app` measured on GPU type `gpu`; NULL if it has no profile there. */
const elastic_app *elastic_get(const elastic *e, int app, int gpu);
/* The GPU type Sia names `cluster` ("aws" -> T4 ...), -1 if none. */
int         elastic_sia_gpu(const catalog *cat, const char *cluster);

/* ---- one application on one GPU type ---- */
const char *elastic_name(const elastic_app *a);
int         elastic_gpu(const elastic_app *a);
const struct elastic_limits *elastic_limits(const elastic_app *a);
int         elastic_nbsz(const elastic_app *a);            /* validated batch sizes */
int         elastic_bsz(const elastic_app *a, int i);      /* ascending */

/* Seconds of one step and its sync part at this placement (per-node GPU counts, zeros
 * ignored, at most 9 per node) and local batch: 0, or -1 with the reason. */
int elastic_step_time(const elastic_app *a, const int *placement, int n, double local_bsz,
                      double *step, double *sync, struct errbuf *err);

/* Progress at the end of epoch e (0 <= e <= max_epochs). */
double elastic_progress(const elastic_app *a, int epoch);
int elastic_grad_stats(const elastic_app *a, double bsz, int epoch, double *sqr, double *var,
                       struct errbuf *err);
int elastic_iterations(const elastic_app *a, double bsz, int epoch, double *out,
                       struct errbuf *err);
/* Best metric before epoch e: 1 with *out set, 0 for e = 0 (none yet), -1 on error. */
int elastic_best_metric(const elastic_app *a, double bsz, int epoch, double *out,
                        struct errbuf *err);
int elastic_completion_epoch(const elastic_app *a, double bsz);
/* First epoch e >= 1 whose best metric before it has crossed `target` from the first
 * epoch's side, or max_epochs - 1 if none: -1 on error. */
int elastic_target_epoch(const elastic_app *a, double bsz, double target, struct errbuf *err);

static inline double elastic_gain(double sqr, double var, double scale)
{
    return (var + sqr) / (var / scale + sqr);
}
static inline double elastic_iter_time(double step, double sync, int accum)
{
    return step + (step - sync) * accum;
}

enum elastic_r1 {
    ELASTIC_R1_ABOVE_INIT,      /* Job.update_local_bsz: accum >= 1 if r = 1 and B > init */
    ELASTIC_R1_ALWAYS,          /* Optimus's predict_step_time: accum >= 1 if r = 1 */
    ELASTIC_R1_NEVER            /* no accumulation forced on one GPU (native elastic jobs) */
};
struct elastic_batch {
    int local, accum, atomic;   /* atomic * (accum + 1) * r is the batch actually run */
};
void elastic_batch_fixed(const elastic_app *a, int bsz, int replicas, int r1_rule,
                         struct elastic_batch *out);
/* The same rules from their numbers (pure; elastic_batch_fixed is this with the
 * application's limits): global batch bsz on `replicas` GPUs, B0 = init_bsz, max_local the
 * largest atomic batch that fits one GPU, max_bsz the cap of replicas * atomic * (accum + 1)
 * (0: none). */
void elastic_batch_rules(int bsz, int replicas, int init_bsz, int max_local, int max_bsz,
                         int r1_rule, struct elastic_batch *out);

#endif
