/*
 * optimus: Optimus (Peng et al., EuroSys 2018, section 4.2: greedy marginal-gain resource
 * allocation) as Pollux's simulator runs it as a baseline (Qiao et al., Pollux, OSDI 2021,
 * section 5; petuum/adaptdl osdi21-artifact @c793c70, simulator/optimus.py, OptimusPolicy).
 * An elastic policy (sim/train/elastic_view.h) for Pollux-compatible mode: each job keeps
 * the trace's batch size B; the policy chooses its GPU count every tick.
 *
 * Rules as coded (optimus.py's optimize, every tick, with the active jobs in workload order):
 *  - Remaining work: rem_j = iterations(B, c) - iterations(B, e) for its completion epoch c
 *    and its current epoch e (models/elastic.h: the validation traces' iteration counts,
 *    linear in B); 1 once e >= c.  This stands in for Optimus's fitted convergence model:
 *    Pollux's artifact gives Optimus the true remaining iterations.
 *  - Step time t_j(n): the true interpolated time of one optimizer step (elastic_step_time,
 *    elastic_iter_time) on n GPUs packed `pack` per node ((4, 4, 2) for n = 10; pack = 4, as
 *    optimus.py hard-codes), with B's batch rules on n replicas and accumulation forced on
 *    one GPU (ELASTIC_R1_ALWAYS: optimus.py's predict_step_time).  It stands in for
 *    Optimus's fitted speed model (Pollux's artifact computes the fitted one but uses this).
 *  - Greedy (Optimus's marginal gain, equation of section 4.2 with the true models): each
 *    job in order gets one GPU while any is left (0 once none is); a job's gain is
 *    (t(n) - t(n + 1)) x rem, or 0 when n + 1 exceeds its cap or no GPU was left after its
 *    first.  Then, while GPUs are left and the largest gain is > 0, the job with the largest
 *    gain (ties to the earliest in order: Python's max over a dict) gets one more and its gain
 *    is recomputed.  Cap: B / min local batch (integer division), 1 for applications capped
 *    under elastic policies (ncf, models/data/pollux/applications.json).
 *  - Placement: a job whose count is unchanged keeps its GPUs.  The others, in increasing
 *    order of count (stable: ties in workload order), get n GPUs on the most free nodes
 *    (elastic_view_most_free), and so a restart.  Counts never exceed the cluster's GPUs, so
 *    the free GPUs suffice.
 * Open points and assumptions: the paper's online-fitted loss and speed models are replaced
 * by the simulator's true values, as the artifact does; the placement never consults the
 * step time (most-free nodes, as optimus.py); a step time outside the profiles' hull is an
 * error naming the job (optimus.py would stop on an assertion).
 * Cost per call, for A active jobs, G GPUs and N nodes: O(A + G) step-time predictions
 * (memoized by the model), O(G * A) to find the largest gains by scanning (a heap is not
 * worth it at Pollux's scale), O(A^2) worst case for the stable sort, O(G * N) placement.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/grow.h"
#include "../../sim/train/elastic_view.h"
#include "../policy.h"

struct optimus {
    int64_t  pack;              /* GPUs per node in the predicted placement */
    int32_t *n, *order, *off, *placed, *free_gpus;
    double  *gain, *rem;
    size_t   cap, fcap, pcap;
};

static int optimus_create(void **self, const struct jobj *params, const struct policy_env *env,
                          struct errbuf *err)
{
    (void)env;
    struct optimus *o = calloc(1, sizeof *o);
    if (o == NULL)
        return err_run(err, "out of memory");
    o->pack = 4;
    if (jobj_int(params, "pack", JOPT, 1, 9, &o->pack, err) < 0) {
        free(o);
        return -1;
    }
    *self = o;
    return 0;
}

static void optimus_destroy(void *self)
{
    struct optimus *o = self;
    if (o == NULL)
        return;
    free(o->n);
    free(o->order);
    free(o->off);
    free(o->placed);
    free(o->free_gpus);
    free(o->gain);
    free(o->rem);
    free(o);
}

static int reserve(struct optimus *o, const struct elastic_view *v, struct errbuf *err)
{
    int failed = 0;
    size_t gpus = 0;
    for (int32_t n = 0; n < v->nnodes; n++)
        gpus += (size_t)v->node_gpus[n];
    if ((size_t)v->njobs + 1 > o->cap) {
        size_t c = 2 * ((size_t)v->njobs + 1);
        o->n = grow_array(o->n, c, sizeof *o->n, &failed);
        o->order = grow_array(o->order, c, sizeof *o->order, &failed);
        o->off = grow_array(o->off, c, sizeof *o->off, &failed);
        o->gain = grow_array(o->gain, c, sizeof *o->gain, &failed);
        o->rem = grow_array(o->rem, c, sizeof *o->rem, &failed);
        if (!failed)
            o->cap = c;
    }
    if ((size_t)v->nnodes > o->fcap) {
        o->free_gpus = grow_array(o->free_gpus, (size_t)v->nnodes, sizeof *o->free_gpus,
                                  &failed);
        if (!failed)
            o->fcap = (size_t)v->nnodes;
    }
    if (gpus + 1 > o->pcap) {
        o->placed = grow_array(o->placed, gpus + 1, sizeof *o->placed, &failed);
        if (!failed)
            o->pcap = gpus + 1;
    }
    return failed ? err_run(err, "out of memory") : 0;
}

/* optimus.py's predict_step_time: seconds per optimizer step of job j on n GPUs. */
static int predict(const struct optimus *o, const struct elastic_job *j, int n, double *out,
                   struct errbuf *err)
{
    int place[ELASTIC_NODE_CAP + 64], np = 0;
    for (int left = n; left > 0; left -= (int)o->pack) {
        if (np == (int)(sizeof place / sizeof place[0]))
            return err_run(err, "job %s: %d GPUs is more than %d nodes", j->name, n, np);
        place[np++] = left < o->pack ? left : (int)o->pack;
    }
    struct elastic_batch b;
    elastic_batch_fixed(j->prof, j->target_bsz, n, ELASTIC_R1_ALWAYS, &b);
    double step, sync;
    if (elastic_step_time(j->prof, place, np, b.atomic, &step, &sync, err) < 0) {
        err_prefix(err, "job %s on %d GPUs: ", j->name, n);
        return -1;
    }
    *out = elastic_iter_time(step, sync, b.accum);
    return 0;
}

static int cap_of(const struct elastic_job *j)
{
    const struct elastic_limits *l = elastic_limits(j->prof);
    if (l->elastic_max_replicas > 0)
        return l->elastic_max_replicas;
    return j->target_bsz / l->min_local_bsz;
}

/* The gain of job k's next GPU (0 when capped or none was left after its allocation). */
static int gain_of(const struct optimus *o, const struct elastic_job *j, int n, int64_t left,
                   double rem, double *out, struct errbuf *err)
{
    double a, b;
    *out = 0;
    if (n + 1 > cap_of(j) || left < 1)
        return 0;
    if (predict(o, j, n, &a, err) < 0 || predict(o, j, n + 1, &b, err) < 0)
        return -1;
    *out = (a - b) * rem;
    return 0;
}

static int optimus_elastic(void *self, const struct elastic_view *v, struct elastic_alloc *out,
                           struct errbuf *err)
{
    struct optimus *o = self;
    if (reserve(o, v, err) < 0)
        return -1;
    int64_t left = 0;
    for (int32_t n = 0; n < v->nnodes; n++) {
        left += v->node_gpus[n];
        o->free_gpus[n] = v->node_gpus[n];
    }
    for (int32_t k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        int c = elastic_completion_epoch(j->prof, j->target_bsz);
        if (c <= j->epoch) {
            o->rem[k] = 1;
        } else {
            double ic, ie;
            if (elastic_iterations(j->prof, j->target_bsz, c, &ic, err) < 0 ||
                elastic_iterations(j->prof, j->target_bsz, j->epoch, &ie, err) < 0) {
                err_prefix(err, "job %s: ", j->name);
                return -1;
            }
            o->rem[k] = ic - ie;
        }
    }
    for (int32_t k = 0; k < v->njobs; k++) {
        if (left < 1) {
            o->n[k] = 0;
            o->gain[k] = 0;
            continue;
        }
        o->n[k] = 1;
        left--;
        if (gain_of(o, &v->jobs[k], 1, left, o->rem[k], &o->gain[k], err) < 0)
            return -1;
    }
    while (left > 0 && v->njobs > 0) {
        int32_t best = 0;
        for (int32_t k = 1; k < v->njobs; k++)
            if (o->gain[k] > o->gain[best])
                best = k;
        if (!(o->gain[best] > 0))
            break;
        o->n[best]++;
        /* optimus.py tests the GPUs left before taking this one */
        if (gain_of(o, &v->jobs[best], o->n[best], left, o->rem[best], &o->gain[best],
                    err) < 0)
            return -1;
        left--;
    }
    /* unchanged counts keep their GPUs */
    for (int32_t k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        o->off[k] = -1;
        o->order[k] = k;
        if (j->nalloc > 0 && j->nalloc == o->n[k])
            for (int32_t g = 0; g < j->nalloc; g++)
                o->free_gpus[j->alloc[g]]--;
    }
    /* stable by count: an insertion sort keeps ties in workload order */
    for (int32_t i = 1; i < v->njobs; i++) {
        int32_t x = o->order[i], m = i;
        while (m > 0 && o->n[o->order[m - 1]] > o->n[x]) {
            o->order[m] = o->order[m - 1];
            m--;
        }
        o->order[m] = x;
    }
    int32_t used = 0;
    for (int32_t i = 0; i < v->njobs; i++) {
        int32_t k = o->order[i];
        const struct elastic_job *j = &v->jobs[k];
        if (o->n[k] == 0 || (j->nalloc > 0 && j->nalloc == o->n[k]))
            continue;
        o->off[k] = used;
        elastic_view_most_free(o->free_gpus, v->nnodes, o->n[k], o->placed + used);
        used += o->n[k];
    }
    if (elastic_alloc_begin(out, (size_t)v->njobs) < 0)
        return err_run(err, "out of memory");
    for (int32_t k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        int rc;
        if (o->n[k] == 0)
            rc = elastic_alloc_set(out, (size_t)k, NULL, 0);
        else if (o->off[k] < 0)
            rc = elastic_alloc_set(out, (size_t)k, j->alloc, (size_t)j->nalloc);
        else
            rc = elastic_alloc_set(out, (size_t)k, o->placed + o->off[k], (size_t)o->n[k]);
        if (rc < 0)
            return err_run(err, "out of memory");
    }
    return 0;
}

static const char *const optimus_params[] = { "pack", NULL };

static const struct train_hooks optimus_hooks = {
    .elastic = optimus_elastic,
};

const struct policy_ops policy_optimus = {
    .name = "optimus",
    .domain = "training",
    .summary = "Optimus's greedy marginal gain (step time x remaining iterations) as Pollux's "
               "simulator runs it: the trace's batch, elastic GPUs; Pollux-compatible mode",
    .params = optimus_params,
    .create = optimus_create,
    .train = &optimus_hooks,
    .destroy = optimus_destroy,
};
