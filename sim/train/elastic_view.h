/*
 * elastic_view: what an elastic allocation policy sees and returns — Pollux's interface
 * (simulator.py's JobInfo / NodeInfo and policy.optimize), so that its policies (Tiresias
 * and Optimus as its simulator runs them, and Pollux's own) are one file each.
 *
 * The policy reads the active jobs (arrived, unfinished, in arrival order) with their
 * application's profile, progress and current GPUs, and the nodes' GPU counts; it returns,
 * for each job, the node of each GPU it should hold (Pollux's allocation list: [3, 3, 5] is
 * two GPUs on node 3 and one on node 5; an empty list preempts).  The world compares each
 * list with the job's current one and restarts the job (its restart penalty) only when they
 * differ, so a policy keeps a job in place by returning its list unchanged.
 *
 * Ownership: everything reachable from a view belongs to the world and is valid during the
 * call only; the elastic_alloc belongs to the caller (elastic_alloc_init / _fini), which
 * sizes it for the view (elastic_alloc_begin) before the policy fills it.
 */
#ifndef HETSIM_ELASTIC_VIEW_H
#define HETSIM_ELASTIC_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "../../models/elastic.h"
#include "../../models/goodput.h"
#include "../base/err.h"

struct elastic_job {
    int64_t            id;              /* unique, in arrival order */
    const char        *name;            /* the trace's job name */
    int32_t            app;             /* application index in view->apps */
    const elastic_app *prof;            /* its profile on the cluster's GPU type */
    double             submit_s, age_s;
    double             attained_s;      /* GPU-seconds held so far, restarts included */
    int32_t            target_replicas; /* the trace's num_replicas */
    int32_t            target_bsz;      /* the trace's batch_size; under a policy whose jobs
                                           choose their batch (adaptive_batch), the batch the
                                           application fixes (ncf: 32768), else 0 */
    int32_t            epoch;           /* epochs completed */
    double             progress;
    int32_t            restarts;        /* reallocations after the first start */
    int32_t            nalloc;          /* GPUs it holds */
    const int32_t     *alloc;           /* the node of each, in the order granted */
    /* what the job's agent has learnt (policies with adaptive_batch; Pollux's JobInfo):
     * has_perf 0 until its first step was observed */
    int32_t             has_perf;
    struct goodput_perf perf;           /* its fitted throughput model */
    struct goodput_grad grad;           /* its latest gradient statistics */
    int32_t             max_profiled;   /* most replicas it has been observed on, 0: none */
    int32_t             batch, accum;   /* its global batch and accumulation steps now (0
                                           without GPUs) */
};

struct elastic_view {
    double                    now_s;
    int32_t                   nnodes;
    const int32_t            *node_gpus;    /* GPUs of each node */
    const int32_t            *node_type;    /* catalog GPU type of each node */
    const elastic            *apps;         /* every application's profiles */
    int32_t                   njobs;
    const struct elastic_job *jobs;
};

/* The answer: job k (index in view->jobs) holds nodes[off[k] .. off[k + 1]). */
struct elastic_alloc {
    int32_t *off, *nodes;
    size_t   njobs, n, cap_jobs, cap;
};

void elastic_alloc_init(struct elastic_alloc *a);
void elastic_alloc_fini(struct elastic_alloc *a);
/* Empty it for `njobs` jobs; 0 or -1 (out of memory). */
int  elastic_alloc_begin(struct elastic_alloc *a, size_t njobs);
/* Append job k's list; jobs in order 0, 1, ..., each once (an empty list preempts). */
int  elastic_alloc_set(struct elastic_alloc *a, size_t k, const int32_t *nodes, size_t n);

/* Pollux's placement of a job that needs `n` GPUs (tiresias.py and optimus.py): take the node
 * with the most free GPUs (Counter.most_common: ties to the lowest index), as many of its GPUs
 * as the job still needs, and repeat.  free[] (per node) is decreased; out gets the n nodes,
 * grouped by node.  The caller makes sure the free GPUs add up to n.  O(n * nnodes). */
void elastic_view_most_free(int32_t *free_gpus, int32_t nnodes, int32_t n, int32_t *out);

#endif
