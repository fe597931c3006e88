/*
 * train_view: what a training policy sees and what it returns.
 *
 * A policy reads a train_view — a read-only snapshot of the training world at one instant —
 * and fills a grant_list (grant.h).  It never changes the world itself: the world applies the
 * grants, charging the checkpoint-restore delay to every job whose GPUs change.  The world
 * calls it through a train_decider (the end of this file), bound by the policy layer.
 *
 * A grant is (job, GPU ids, share): the job runs on those GPUs, each at `share` thousandths
 * (OCC_WHOLE = 1000 = the whole GPU).  One representation carries the three kinds of jobs:
 * rigid jobs get their requested worker count of whole GPUs; elastic jobs get any count;
 * multiplexed jobs get shares of GPUs that other jobs also hold (shares on a GPU sum to at
 * most 1000).  A grant with no GPUs preempts the job; FULL and DELTA lists: grant.h.
 *
 * Ownership: everything reachable from a view belongs to the world and is valid only during
 * the decide call.  The grant_list belongs to the caller of decide; the policy appends to it.
 */
#ifndef HETSIM_TRAIN_VIEW_H
#define HETSIM_TRAIN_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "../core/cluster.h"
#include "../core/occ.h"
#include "../base/simtime.h"
#include "../../models/tput.h"
#include "grant.h"

enum train_state {
    JOB_QUEUED,         /* arrived, never run */
    JOB_RUNNING,        /* holds GPUs (possibly still restoring) */
    JOB_PREEMPTED,      /* ran before, holds nothing now */
    JOB_DONE
};

/* Why the policy is being asked (a bit set: several things may happen at one instant). */
enum train_wake {
    WAKE_ARRIVAL    = 1u << 0,
    WAKE_COMPLETION = 1u << 1,
    WAKE_ROUND      = 1u << 2,
    WAKE_TIMER      = 1u << 3   /* the time the policy asked for with grant_list.wake_at */
};

struct train_job {
    int64_t  id;            /* unique, in arrival order */
    int32_t  slot;          /* index in view->jobs (reused after the job leaves) */
    int32_t  jtype;         /* job type id (tput) */
    int32_t  workers;       /* requested workers d_j */
    int32_t  min_workers, max_workers;  /* the GPU counts it can run on (rigid: workers) */
    int32_t  batch;         /* its batch size (0: its job type's) */
    int32_t  user;          /* tenant */
    double   weight;        /* priority weight */
    simtime  arrival;
    double   work;          /* total iterations W_j */
    int      state;         /* enum train_state */
    simtime  first_start;   /* -1 until it first runs */
    int32_t  preemptions, migrations;
    /* the current grant */
    int32_t  ngpu;
    int32_t  gpu_type;      /* type of its first GPU, -1 when it holds none */
    uint16_t share;
    uint8_t  sliced;        /* its GPUs are time-sliced among their holders (grant.h) */
    const int *gpus;
    double   rate;          /* iterations/s while it runs (0 while restoring counts as rate) */
    simtime  run_from;      /* progress accrues from here (after the restore delay) */
    /* progress, exact as of `updated`; use train_view_done() for "now" */
    simtime  updated;
    double   done;          /* iterations completed */
    double   attained;      /* GPU-seconds of service received */
    simtime  last_grant;    /* when the current grant (or preemption) took effect */
};

struct rate_memo;
struct train_speed;

struct train_view {
    simtime  now;
    unsigned reason;                    /* enum train_wake bits */
    const cluster *cl;
    const occ     *occ;                 /* live occupancy: what is granted right now */
    const tput    *model;
    struct rate_memo *rates;            /* the world's memo of train_view_rate (rate_memo.h);
                                           NULL: computed at each call */
    const struct train_job *jobs;       /* by slot; only slots on the lists are meaningful */
    int32_t  active_head;               /* all arrived, unfinished jobs, in arrival order */
    int32_t  waiting_head;              /* queued + preempted, in order of entering the queue */
    int32_t  running_head;              /* running, most recently started first */
    int32_t  n_active, n_waiting, n_running;
    const int32_t *next_active, *next_waiting, *next_running;   /* by slot; -1 ends a list */
    simtime  round;                     /* round length for WAKE_ROUND policies, else 0 */
    int64_t  round_index;               /* rounds begun so far */
    /* what a restart costs (the world's settings; use train_view_restore_s) */
    double   restore_delay_s, restore_fixed_s, storage_gbs;
    const struct train_speed *speed;    /* the world's speed hook (sim/train/mux_view.h asks
                                           it about shared GPUs) */
    const double *restore_by_type;      /* by job type, where >= 0 (NULL: none) */
    const occ     *base;                /* co-simulation: the GPUs another tenant holds, taken
                                           whole (they are in occ too); a plan from an empty
                                           cluster starts from this.  NULL: none */
    uint64_t       base_epoch;          /* changes whenever base does (a policy that keeps
                                           its own picture of the cluster re-reads base then) */
};

/* Iterate: for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j)) */
static inline const struct train_job *train_view_job_at(const struct train_view *v, int32_t slot)
{
    return slot < 0 ? NULL : &v->jobs[slot];
}
#define TRAIN_VIEW_LIST(which)                                                                      \
    static inline const struct train_job *train_view_first_##which(const struct train_view *v)      \
    {                                                                                       \
        return train_view_job_at(v, v->which##_head);                                               \
    }                                                                                       \
    static inline const struct train_job *train_view_next_##which(const struct train_view *v,       \
                                                          const struct train_job *j)        \
    {                                                                                       \
        return train_view_job_at(v, v->next_##which[j->slot]);                                      \
    }
TRAIN_VIEW_LIST(active)
TRAIN_VIEW_LIST(waiting)
TRAIN_VIEW_LIST(running)
#undef TRAIN_VIEW_LIST

/* Iterations done by `now`, counting the current run since the last update. */
static inline double train_view_done(const struct train_job *j, simtime now)
{
    double d = j->done;
    if (j->state == JOB_RUNNING) {
        simtime from = j->run_from > j->updated ? j->run_from : j->updated;
        if (now > from)
            d += j->rate * sim_to_sec(now - from);
    }
    return d < j->work ? d : j->work;
}

/* GPU-seconds of service received by `now`. */
static inline double train_view_attained(const struct train_job *j, simtime now)
{
    double a = j->attained;
    if (j->state == JOB_RUNNING && now > j->updated)
        a += j->ngpu * (j->share / 1000.0) * sim_to_sec(now - j->updated);
    return a;
}

/* GPUs of gpu_type this policy may use at this decision: the type's count in the cluster
 * less those another tenant holds (base).  A policy sizes its plan by this, never by
 * cluster_type_count: the denied GPUs are capacity it does not have, not jobs. */
int train_view_type_cap(const struct train_view *v, int gpu_type);

/* Throughput (iterations/s) of job j with n workers of `gpu_type`, placed as well as the
 * cluster allows (fewest nodes, best links); 0 when it cannot run there.  It depends only on
 * (j's job type, n, gpu_type): O(1) from the view's memo, else a placement search. */
double train_view_rate(const struct train_view *v, const struct train_job *j, int gpu_type, int n);
/* Throughput on these exact GPUs (what the world will charge if granted them). */
double train_view_rate_on(const struct train_view *v, const struct train_job *j, const int *ids, int n);
/* Seconds job j loses when it is restarted (resumed after preemption, moved or resized). */
double train_view_restore_s(const struct train_view *v, const struct train_job *j);
/* The same from the settings: `delay_s` when >= 0, else fixed_s + checkpoint / gbs. */
double train_view_restore_for(const tput *m, int jtype, double delay_s, double fixed_s,
                              double gbs);

/* ---- the decider: what the world calls, a policy behind the dispatch layer ---- */

struct alloc_problem;
struct elastic_view;
struct elastic_alloc;

struct train_decider {
    void    *ctx;
    int    (*decide)(void *ctx, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err);
    unsigned wake;              /* enum train_wake bits */
    simtime  round;             /* round length when wake has WAKE_ROUND */
    /* an allocation rule (sim/train/alloc_view.h), which Gavel-compatible mode needs; NULL
     * for policies that only grant */
    int    (*allocate)(void *ctx, const struct alloc_problem *p, double *x, struct errbuf *err);
    int      agnostic;          /* heterogeneity-agnostic: Gavel shuffles its type order */
    int      fifo;              /* Gavel never picks a job whose priority is 0 */
    /* an elastic allocation rule (sim/train/elastic_view.h: per-node GPU lists of elastic
     * jobs), which Pollux-compatible mode needs; NULL for policies without one.  decide is
     * NULL for policies that have only this rule. */
    int    (*elastic)(void *ctx, const struct elastic_view *v, struct elastic_alloc *out,
                      struct errbuf *err);
    /* Pollux-compatible mode: 1 when the jobs choose their own batch and accumulation from
     * their fitted model (Pollux's agent, sim/train/pollux.c), 0 when they keep the trace's */
    int      adaptive_batch;
};

#endif
