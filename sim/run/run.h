/*
 * run: one simulation run from an experiment — load the models and cluster once per
 * experiment (run_env), then for each policy open the workload and the policy, run the world,
 * and write the run, its jobs, samples and metrics into the database in one transaction.
 *
 * Ownership: run_env_open loads into a caller-owned struct, run_env_close frees what it
 * loaded.  A run_result is filled by value.
 */
#ifndef HETSIM_RUN_H
#define HETSIM_RUN_H

#include <stdio.h>

#include "experiment.h"
#include "../../results/db.h"
#include "../../results/summary.h"

struct run_env {
    catalog *cat;
    tput    *model;
    cluster *cl;
};

int  run_env_open(struct run_env *env, const struct experiment *e, struct errbuf *err);
void run_env_close(struct run_env *env);

struct run_opts {
    db         *db;             /* NULL: simulate without writing (validate) */
    int         progress;       /* print a progress line on stderr */
    const char *sweep;          /* for runs of a sweep: its name and swept fields, stored */
    const struct db_param *params;      /* with the run (run_params); else NULL, 0 */
    int         nparams;
};

enum { RUN_MAX_METRICS = 64 };

struct run_result {
    int64_t             run_id;
    const char         *policy;     /* its label; valid while the experiment lives */
    struct train_totals tot;
    double              wall_s;
    double              commit_s;   /* of which: copying the run into the file, under its
                                       write lock (the part concurrent writers serialize on) */
    struct metric       metrics[RUN_MAX_METRICS];
    size_t              nmetrics;
};

int run_training(const struct experiment *e, int policy_index, const struct run_env *env,
                 const struct run_opts *o, struct run_result *res, struct errbuf *err);

/* The value of metric `name` in r, or NAN. */
double run_metric(const struct run_result *r, const char *name);

/* Everything a run checks when it opens, for every policy of e, before any run starts (a bad
 * second policy must not leave the first one's run behind): the workload's fields, files and
 * header (no job is read), each policy's parameters, its domain, and in Gavel-compatible mode
 * its allocation rule.  `hetsim run`, `validate` and `sweep` all call this. */
int run_check(const struct experiment *e, const struct run_env *env, struct errbuf *err);

/* 1 when e's seed changes its runs (the workload draws with it, or a policy does); else 0
 * with the reason, for the note `run --seed` and a sweep's seed axis print. */
int run_seed_matters(const struct experiment *e, char *why, size_t cap);

/* Open the workload of e and drain it, checking every job as the world will (arrival order,
 * train_job_check or gavel_job_check), and return the job count (validation, `hetsim
 * workload`).  With out != NULL the jobs are written as hetsim CSV. */
int run_list_jobs(const struct experiment *e, const struct run_env *env, FILE *out,
                  int64_t *njobs, struct errbuf *err);

#endif
