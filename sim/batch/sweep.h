/*
 * sweep: many runs from one file.  A sweep names a base experiment, fixed overrides ("set"),
 * and axes over any experiment field — "policy" and "seed" included — either crossed as a
 * grid ("grid") or varied together as lists of equal length ("zip", one axis of the grid).
 *
 *   { "name": "load", "experiment": "default",
 *     "set":  { "workload.max_jobs": 200 },
 *     "grid": { "policy": ["fifo", "srtf"], "seed": [1, 2, 3],
 *               "workload.arrival_scale": [0.5, 1, 2] },
 *     "zip":  { "cluster": ["mixed_small", "gavel_48"], "sim.restore_fixed_s": [10, 30] } }
 *
 * The grid expands to points in a fixed order (axes in file order, the last varying fastest,
 * the zip axis after the grid axes); each point is one experiment, loaded when the sweep is
 * loaded.  Every axis value is also opened the way a run opens it (cluster, models,
 * workload, policies), so a bad value is reported before anything runs; what only shows
 * while a run simulates (a job larger than the cluster) fails that run alone.  A task is one run: a
 * point and one of its policies.  Its content hash is the config_hash its run will carry in
 * the database (the experiment as run, FNV-1a 64), so a task whose run is already there can be
 * skipped: that is how an interrupted sweep resumes, and how a failed run (which leaves
 * nothing) is retried.
 *
 * Ownership: sweep_load allocates; sweep_free frees the sweep and every experiment in it.
 */
#ifndef HETSIM_SWEEP_H
#define HETSIM_SWEEP_H

#include <stddef.h>

#include "../../results/db.h"
#include "../run/experiment.h"

typedef struct sweep sweep;

struct sweep_task {
    int   point;            /* its point */
    int   policy;           /* index of its policy in the point's experiment */
    char  hash[17];         /* the run's config_hash */
    char *config;           /* the run's config_json */
    int   done;             /* a run with this config is already in the database */
};

/* Load the sweep at `path` (a file, or the name of a shipped sweep in workloads/sweeps/);
 * `sets` ("key=value") apply to every point, after the sweep's own.  Every point's experiment
 * is loaded, so every axis value is checked. */
int  sweep_load(sweep **out, const char *path, char *const *sets, int nsets,
                struct errbuf *err);
void sweep_free(sweep *s);

const char *sweep_name(const sweep *s);
int         sweep_npoints(const sweep *s);
const struct experiment *sweep_experiment(const sweep *s, int point);
/* The number of values of the sweep's "seed" axis (1 without one). */
int         sweep_nseeds(const sweep *s);

/* The swept fields of a point, in axis order (key "policy", "seed" or a field path; value as
 * JSON text), as stored in the run_params table. */
int sweep_params(const sweep *s, int point, const struct db_param **out);

size_t             sweep_ntasks(const sweep *s);
struct sweep_task *sweep_task(sweep *s, size_t i);

/* "policy=fifo seed=2 workload.arrival_scale=0.5" (the policy's label when it is not swept). */
void sweep_task_label(const sweep *s, const struct sweep_task *t, char *out, size_t cap);

/* Mark the tasks whose run is already in the database at db_path (a missing file holds
 * none).  *ndone receives how many this call marked (it may be called for several files). */
int sweep_mark_done(sweep *s, const char *db_path, size_t *ndone, struct errbuf *err);

#endif
