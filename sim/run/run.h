/*
 * run: the domain-neutral driver.  It loads the models and cluster once per experiment
 * (run_env); for each policy it opens the workload and the policy, finds the world of the
 * experiment's domain (sim/run/world_registry.h), runs it, and writes the run — the world's
 * rows, time series and summary, and the policy's solver times — into the database in one
 * transaction.  It knows no world by name: everything domain-specific is behind world_ops.
 *
 * Ownership: run_env_open loads into a caller-owned struct, run_env_close frees what it
 * loaded.  A run_result is filled by value.
 */
#ifndef HETSIM_RUN_H
#define HETSIM_RUN_H

#include <stdio.h>

#include "../../results/db.h"
#include "../base/progress.h"
#include "experiment.h"

struct run_env {
    catalog *cat;
    tput    *model;
    cluster *cl;
};

int  run_env_open(struct run_env *env, const struct experiment *e, struct errbuf *err);
void run_env_close(struct run_env *env);

struct run_opts {
    db         *db;             /* NULL: simulate without writing (validate) */
    int         progress;       /* print a progress line on stderr, redrawn 4 times a second
                                   by a thread of its own, cleared when the run ends */
    const char *sweep;          /* for runs of a sweep: its name and swept fields, stored */
    const struct db_param *params;      /* with the run (run_params); else NULL, 0 */
    int         nparams;
    int64_t     total;          /* the entities the run will read, when known (0: not) */
    /* Called whenever the world reports progress (often: after each decision), with what
     * the run has done so far; may be NULL.  It should be cheap (a sweep's worker throttles
     * what it sends to the parent). */
    void      (*on_progress)(void *ctx, const struct progress_run *p);
    void       *progress_ctx;
};

enum { RUN_MAX_METRICS = 160 };

struct run_metric {
    char   name[48];
    double value;
};

struct run_result {
    int64_t             run_id;
    const char         *policy;     /* its label; valid while the experiment lives */
    struct world_totals tot;
    double              wall_s;
    double              commit_s;   /* of which: copying the run into the file, under its
                                       write lock (the part concurrent writers serialize on) */
    struct run_metric   metrics[RUN_MAX_METRICS];
    size_t              nmetrics;
};

/* One run: policy `policy_index` of e.  Returns 0, or -1 with the message in err (the run
 * then leaves nothing in the database). */
int run_one(const struct experiment *e, int policy_index, const struct run_env *env,
            const struct run_opts *o, struct run_result *res, struct errbuf *err);

/* The value of metric `name` in r, or NAN. */
double run_metric(const struct run_result *r, const char *name);

/* Everything a run checks when it opens, for every policy of e, before any run starts (a bad
 * second policy must not leave the first one's run behind): the workload's fields, files and
 * header (no entity is read), each policy's parameters, its domain, and what its world asks
 * of it (Gavel-compatible mode: an allocation rule).  `hetsim run`, `validate` and `sweep`
 * all call this. */
int run_check(const struct experiment *e, const struct run_env *env, struct errbuf *err);

/* 1 when e's seed changes its runs (the workload draws with it, a policy does, or its
 * world's own mechanism does); else 0 with the reason, for the note `run --seed` and a
 * sweep's seed axis print. */
int run_seed_matters(const struct experiment *e, const struct run_env *env, char *why,
                     size_t cap);

/* Open the workload of e and drain it, checking every entity as its world will, and return
 * the count (validation, `hetsim workload`).  With out != NULL the entities are written in
 * the world's trace format (hetsim CSV for training). */
int run_list(const struct experiment *e, const struct run_env *env, FILE *out,
             int64_t *count, struct errbuf *err);

#endif
