/*
 * pollux_tiresias: Tiresias (Gu et al., NSDI 2019, section 4: discretized two-dimensional
 * least attained service) as Pollux's simulator runs it as a baseline (Qiao et al., Pollux,
 * OSDI 2021, section 5; petuum/adaptdl osdi21-artifact @c793c70, simulator/tiresias.py,
 * TiresiasPolicy with its defaults).  An elastic policy (sim/train/elastic_view.h) for
 * Pollux-compatible mode: each job runs on exactly the GPUs its trace asks for
 * (num_replicas), with the trace's batch size.
 *
 * Rules as coded (tiresias.py's optimize, called every tick with the active jobs):
 *  - Two queues, Q0 and Q1.  A new job joins the end of Q0 as PENDING.
 *  - Service: at each call, a job that was RUNNING after the previous call adds
 *    int(now) - its last check to its executed time (whole seconds: Python's int() of the
 *    clock); every job's last check becomes int(now).  Executed time is wall time while
 *    RUNNING, the restart penalty included, and not GPU-seconds: it is multiplied by the
 *    job's num_replicas for the demotion test (2D-LAS's GPU time).
 *  - Demotion: a job of Q0 whose executed time x num_replicas reaches the threshold
 *    ("threshold_gpu_s", default 16 GPU-hours = 57,600 s, tiresias.py's _queue_threshold)
 *    moves to the END of Q1, in the order the jobs are visited (workload order); Q1 is thus
 *    in order of demotion, not of arrival (SPEC.md says arrival order; the code appends).
 *    Jobs never move back: the starvation guard (_solve_starvation) is 0, i.e. off.
 *  - Status: walking Q0 then Q1, a job whose num_replicas fit in the GPUs left (a count over
 *    the whole cluster, not per node) is RUNNING and takes them from the count; any other is
 *    PENDING and loses its GPUs (skip-ahead: a later, smaller job may still run).
 *  - Placement: a RUNNING job that holds GPUs keeps them (no restart).  Each other RUNNING job,
 *    again walking Q0 then Q1, is placed by taking the node with the most free GPUs
 *    (Counter.most_common: ties to the lowest node index) as often as needed
 *    (elastic_view_most_free).  The count test guarantees the free GPUs suffice.
 * Open points and assumptions: the paper's K queues, thresholds and starvation knob are
 * those of Pollux's artifact (2 queues, 16 GPU-hours, off), not the paper's defaults; the
 * priority inside a queue is Q's list order as above.
 * Cost per call: O(A * Q) for A active jobs (queue removals are linear, as in Python's
 * list.index) plus O(G * N) placements for G GPUs placed over N nodes; state O(max job id).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/grow.h"
#include "../../sim/train/elastic_view.h"
#include "../policy.h"

enum { ST_NEW, ST_PENDING, ST_RUNNING };

struct jst {                    /* by job id */
    int8_t   status, queue;
    int64_t  executed, last_check;
    uint64_t seen;              /* the call that last saw it active */
    int32_t  k;                 /* its index in that call's view */
};

struct ptir {
    double       threshold;     /* GPU-seconds of Q0 */
    struct jst  *st;
    size_t       nst;
    int64_t     *q0, *q1;       /* job ids */
    int32_t      n0, n1;
    size_t       qcap;
    uint64_t     call;
    int32_t     *free_gpus, *placed, *off;  /* scratch: nodes; GPUs; per job */
    size_t       fcap, pcap, ocap;
};

static int ptir_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)env;
    struct ptir *t = calloc(1, sizeof *t);
    if (t == NULL)
        return err_run(err, "out of memory");
    t->threshold = 3600 * 16;
    if (jobj_num(params, "threshold_gpu_s", JOPT, 0, 1e15, &t->threshold, err) < 0) {
        free(t);
        return -1;
    }
    *self = t;
    return 0;
}

static void ptir_destroy(void *self)
{
    struct ptir *t = self;
    if (t == NULL)
        return;
    free(t->st);
    free(t->q0);
    free(t->q1);
    free(t->free_gpus);
    free(t->placed);
    free(t->off);
    free(t);
}

static int reserve(struct ptir *t, const struct elastic_view *v, struct errbuf *err)
{
    int failed = 0;
    size_t maxid = 0, gpus = 0;
    for (int32_t k = 0; k < v->njobs; k++) {
        if (v->jobs[k].id < 0 || v->jobs[k].id > INT32_MAX)
            return err_run(err, "job id %lld out of range", (long long)v->jobs[k].id);
        if ((size_t)v->jobs[k].id + 1 > maxid)
            maxid = (size_t)v->jobs[k].id + 1;
    }
    for (int32_t n = 0; n < v->nnodes; n++)
        gpus += (size_t)v->node_gpus[n];
    if (maxid > t->nst) {
        size_t c = maxid > 2 * t->nst ? maxid : 2 * t->nst;
        struct jst *s = grow_array(t->st, c, sizeof *s, &failed);
        if (!failed) {
            memset(s + t->nst, 0, (c - t->nst) * sizeof *s);
            t->st = s;
            t->nst = c;
        }
    }
    if ((size_t)v->njobs + 1 > t->qcap) {
        size_t c = 2 * ((size_t)v->njobs + 1);
        t->q0 = grow_array(t->q0, c, sizeof *t->q0, &failed);
        t->q1 = grow_array(t->q1, c, sizeof *t->q1, &failed);
        t->off = grow_array(t->off, c, sizeof *t->off, &failed);
        if (!failed)
            t->qcap = t->ocap = c;
    }
    if ((size_t)v->nnodes > t->fcap) {
        t->free_gpus = grow_array(t->free_gpus, (size_t)v->nnodes, sizeof *t->free_gpus,
                                  &failed);
        if (!failed)
            t->fcap = (size_t)v->nnodes;
    }
    if (gpus + 1 > t->pcap) {
        t->placed = grow_array(t->placed, gpus + 1, sizeof *t->placed, &failed);
        if (!failed)
            t->pcap = gpus + 1;
    }
    return failed ? err_run(err, "out of memory") : 0;
}

/* Drop the jobs that left (completed) from a queue, keeping its order. */
static int32_t prune(const struct ptir *t, int64_t *q, int32_t n)
{
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++)
        if (t->st[q[i]].seen == t->call)
            q[m++] = q[i];
    return m;
}

static int ptir_elastic(void *self, const struct elastic_view *v, struct elastic_alloc *out,
                        struct errbuf *err)
{
    struct ptir *t = self;
    if (reserve(t, v, err) < 0)
        return -1;
    t->call++;
    int64_t now = (int64_t)floor(v->now_s);
    for (int32_t k = 0; k < v->njobs; k++) {
        struct jst *s = &t->st[v->jobs[k].id];
        s->seen = t->call;
        s->k = k;
    }
    t->n0 = prune(t, t->q0, t->n0);
    t->n1 = prune(t, t->q1, t->n1);
    for (int32_t k = 0; k < v->njobs; k++) {
        struct jst *s = &t->st[v->jobs[k].id];
        if (s->status == ST_NEW) {
            s->status = ST_PENDING;
            s->queue = 0;
            t->q0[t->n0++] = v->jobs[k].id;
        }
    }
    /* service and demotion, in workload order */
    for (int32_t k = 0; k < v->njobs; k++) {
        int64_t id = v->jobs[k].id;
        struct jst *s = &t->st[id];
        if (s->status == ST_RUNNING) {
            s->executed += now - s->last_check;
            s->last_check = now;
            double gputime = (double)s->executed * v->jobs[k].target_replicas;
            if (s->queue == 0 && gputime >= t->threshold) {
                int32_t i = 0;
                while (t->q0[i] != id)
                    i++;
                memmove(t->q0 + i, t->q0 + i + 1, (size_t)(t->n0 - i - 1) * sizeof *t->q0);
                t->n0--;
                t->q1[t->n1++] = id;
                s->queue = 1;
            }
        } else {
            s->last_check = now;
        }
    }
    /* statuses by count */
    int64_t left = 0;
    for (int32_t n = 0; n < v->nnodes; n++) {
        left += v->node_gpus[n];
        t->free_gpus[n] = v->node_gpus[n];
    }
    for (int q = 0; q < 2; q++) {
        const int64_t *queue = q == 0 ? t->q0 : t->q1;
        int32_t len = q == 0 ? t->n0 : t->n1;
        for (int32_t i = 0; i < len; i++) {
            struct jst *s = &t->st[queue[i]];
            int32_t want = v->jobs[s->k].target_replicas;
            if (want <= left) {
                s->status = ST_RUNNING;
                left -= want;
            } else {
                s->status = ST_PENDING;
            }
        }
    }
    /* running jobs keep their GPUs; the others are placed on the most free nodes */
    for (int32_t k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        if (t->st[j->id].status == ST_RUNNING)
            for (int32_t g = 0; g < j->nalloc; g++)
                t->free_gpus[j->alloc[g]]--;
    }
    int32_t used = 0;
    for (int32_t k = 0; k < v->njobs; k++)
        t->off[k] = -1;
    for (int q = 0; q < 2; q++) {
        const int64_t *queue = q == 0 ? t->q0 : t->q1;
        int32_t len = q == 0 ? t->n0 : t->n1;
        for (int32_t i = 0; i < len; i++) {
            const struct jst *s = &t->st[queue[i]];
            const struct elastic_job *j = &v->jobs[s->k];
            if (s->status != ST_RUNNING || j->nalloc > 0)
                continue;
            t->off[s->k] = used;
            elastic_view_most_free(t->free_gpus, v->nnodes, j->target_replicas,
                                   t->placed + used);
            used += j->target_replicas;
        }
    }
    if (elastic_alloc_begin(out, (size_t)v->njobs) < 0)
        return err_run(err, "out of memory");
    for (int32_t k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        int rc;
        if (t->st[j->id].status != ST_RUNNING)
            rc = elastic_alloc_set(out, (size_t)k, NULL, 0);
        else if (t->off[k] < 0)
            rc = elastic_alloc_set(out, (size_t)k, j->alloc, (size_t)j->nalloc);
        else
            rc = elastic_alloc_set(out, (size_t)k, t->placed + t->off[k],
                                   (size_t)j->target_replicas);
        if (rc < 0)
            return err_run(err, "out of memory");
    }
    return 0;
}

static const char *const ptir_params[] = { "threshold_gpu_s", NULL };

static const struct train_hooks ptir_hooks = {
    .elastic = ptir_elastic,
};

const struct policy_ops policy_pollux_tiresias = {
    .name = "pollux_tiresias",
    .domain = "training",
    .summary = "Tiresias (2D-LAS, 2 queues at 16 GPU-hours) as Pollux's simulator runs it: "
               "the trace's GPUs and batch; Pollux-compatible mode",
    .params = ptir_params,
    .create = ptir_create,
    .train = &ptir_hooks,
    .destroy = ptir_destroy,
};
