/*
 * train: the training world — DL jobs arrive, ask a policy for GPUs, progress at the rate
 * the throughput model gives for their placement, and leave when their work is done.
 *
 * The world owns its jobs and its event handlers; it reads jobs from a job_source (streamed,
 * so memory follows the active jobs, not the trace), asks a decider (the policy dispatch
 * layer) for grants, and reports each finished job and each periodic sample to a sink.
 *
 * Ownership: train_create allocates; train_destroy frees the world and the engine train_run
 * made (an engine given to train_attach is the caller's).  The
 * cluster, model, source, decider and sink are borrowed and must outlive the world.
 */
#ifndef HETSIM_TRAIN_H
#define HETSIM_TRAIN_H

#include "../base/window.h"
#include "../core/engine.h"
#include "../core/entity.h"
#include "speed.h"
#include "train_view.h"

/* One job as a trace or generator describes it. */
struct job_spec {
    int64_t     id;             /* trace's job id */
    simtime     arrival;
    int32_t     jtype;
    int32_t     workers;        /* GPUs it asks for */
    int32_t     min_workers;    /* elastic jobs: the range of GPU counts it can run on; */
    int32_t     max_workers;    /*   0 (rigid): both are `workers` */
    int32_t     batch;          /* its batch size; 0: its job type's */
    double      work;           /* iterations */
    int32_t     user;
    double      weight;
    const char *origin;         /* file the job came from, for error messages (may be NULL) */
    long        line;           /* its line there, 0 if none */
    const char *field;          /* where its worker count came from, for error messages
                                   (NULL: the trace's "workers" column) */
    /* an elastic application's job (the pollux format): its application and name, NULL
     * otherwise; they live until the source's next call.  `workers` is then the GPUs it asks
     * for and `batch` its global batch size. */
    const char *app;
    const char *name;
};

/* Jobs come from a struct entity_source (sim/core/entity.h) whose `out` is a job_spec. */

/* A job leaving the world: finished, or still unfinished when the run stopped. */
struct train_record {
    const struct train_job *job;
    int64_t       trace_id;
    simtime       finish;       /* -1 if unfinished */
    double        n_avg;        /* average number of active jobs during its life */
    double        t_iso;        /* completion time alone on a 1/n_avg share, seconds */
    double        rho;          /* finish-time fairness (finish - arrival) / t_iso; -1 unfinished */
    const double *gpu_s;        /* GPU-seconds by cluster type slot (cluster_types order) */
    double        best_rate;    /* its throughput on its fastest type (normalizes throughput) */
    const char   *type_name;    /* its job_type column; NULL: the model's name of its jtype
                                   (an elastic job names its application) */
    int           elastic;      /* 1: its trace gave it a range of GPU counts (job_spec
                                   min_workers or max_workers, or an elastic application's
                                   job): the jobs row carries the range and its batch */
};

/* One interval of a job's timeline (sim/core/timeline.h): [from, to) on its `ngpu` GPUs (none
 * while queued), in a state and with the causes that began and ended it (enum
 * timeline_state, enum timeline_cause). */
struct train_segment {
    int64_t    trace_id;
    const int *gpus;
    int        ngpu;
    double     share;           /* of each GPU, (0, 1] */
    simtime    from, to;
    int        state, cause, ends;
};

struct train_sink {
    void *ctx;
    int (*job)(void *ctx, const struct train_record *r, struct errbuf *err);
    int (*sample)(void *ctx, simtime t, const char *name, double value, struct errbuf *err);
    /* The job timeline (sim.timeline); NULL: none is kept, and none is computed. */
    int (*segment)(void *ctx, const struct train_segment *s, struct errbuf *err);
    /* Now and then (after a decision, a round): the clock and the events so far (may be
     * NULL). */
    void (*tick)(void *ctx, simtime t, uint64_t events);
};

struct train_config {
    double   restore_delay_s;   /* >= 0: every restart costs this; < 0: from the checkpoint */
    double   restore_fixed_s;   /* with a checkpoint-based delay: fixed part (process start) */
    double   storage_gbs;       /* with a checkpoint-based delay: read bandwidth */
    simtime  sample_period;     /* 0: no samples */
    int      round_samples;     /* 1: after every round's decision, samples of the allocation */
    simtime  until;             /* SIM_NEVER: run until every job is done */
    struct window measure;      /* the measurement window of time-averaged figures, seconds;
                                   to <= from (a zeroed config): first to last arrival */
    const struct train_speed *speed;    /* jobs' rates from their grants (NULL: rigid) */
    const double *restore_by_type;      /* by job type: its restart delay, seconds, where
                                           >= 0, over the rule above (NULL: none; Sia's
                                           per-model restart penalties) */
    uint64_t max_events;        /* 0: no limit */
};

struct train_totals {
    simtime  end;               /* clock when the run stopped */
    simtime  makespan;          /* last completion (0 if none) */
    int64_t  jobs_in, jobs_done;
    int64_t  preemptions, migrations;
    uint64_t events, decisions;
    double   busy_gpu_s[CLUSTER_MAX_TYPES];  /* granted GPU-seconds by type slot */
    /* over the measurement window (window.to is the last arrival when that is its end) */
    struct window window;
    double   window_norm_s;     /* integral of sum_j rate_j(t) / best_rate_j: seconds of jobs
                                   progressing at their fastest type's speed */
    double   window_busy_gpu_s[CLUSTER_MAX_TYPES];   /* granted GPU-seconds by type slot */
    int      stop;              /* enum engine_stop */
};

typedef struct train train;

/* Check one job as the world will take it (a known job type, a GPU type of the cluster with
 * that many GPUs, work > 0): 0, or -1 with the message naming the job's file, line and field.
 * The world checks every job it reads with this; `hetsim validate` checks them all upfront
 * with the same function, so that both accept exactly the same jobs. */
int train_job_check(const cluster *cl, const tput *model, const struct job_spec *s,
                    struct errbuf *err);

int  train_create(train **out, const cluster *cl, const tput *model,
                  const struct train_config *cfg, struct entity_source *src,
                  const struct train_decider *dec, const struct train_sink *sink,
                  struct errbuf *err);
void train_destroy(train *w);

/* Run to the end (or a limit) on an engine of its own: train_attach, engine_advance under
 * cfg's until and max_events, train_finish.  Returns 0 or -1 with the message in err. */
int  train_run(train *w, struct train_totals *out, struct errbuf *err);

/* On an engine it does not own (co-simulation): attach its handler and hook to e as a client
 * and read its first job; whoever owns e advances it; then finish with why e stopped (enum
 * engine_stop): the unfinished jobs' records and the totals, as train_run ends.  `events` in
 * the totals are this world's own.  0, or -1 with the message in err (ENGINE_FAILED: the
 * message is already there). */
int  train_attach(train *w, engine *e, struct errbuf *err);
int  train_finish(train *w, int stop, struct train_totals *out, struct errbuf *err);

/* Tenancy (co-simulation, after train_attach): a broker withholds GPUs from the world and
 * gives them back.  Withholding preempts every job on them, or shrinks it onto the rest of
 * its GPUs when it is elastic and stays at or above its minimum; either way it pays its
 * restore when it runs again, as after a preemption or resize by its policy.  The withheld
 * GPUs are then held whole by no job: the live occupancy and the view's `base` (where a plan
 * from an empty cluster starts) show them taken, so the policy never grants them.  Both ask
 * the policy to decide again at the end of the instant.  *affected: the jobs preempted or
 * shrunk.  0, or -1 with the message in err (a GPU withheld twice, or given that was not). */
int  train_withhold(train *w, const int *gpus, int n, int64_t *affected, struct errbuf *err);
int  train_give(train *w, const int *gpus, int n, struct errbuf *err);
/* What withholding `gpus` would cost now: the GPU-seconds of restore its jobs pay when they
 * run again (a preempted job at its size, a shrunk one at its smaller size). */
double train_reclaim_cost(train *w, const int *gpus, int n);
/* Training's gain per GPU of each type (cluster_types order): the mean over active jobs of
 * their rate there over their rate on their best type. */
void train_type_gain(const train *w, double *gain /* out */);
/* The GPUs the waiting jobs ask for at least (their minimum sizes). */
int  train_waiting_gpus(const train *w);

#endif
