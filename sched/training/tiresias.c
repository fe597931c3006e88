/*
 * tiresias: discretized two-dimensional least attained service (2D-LAS), heterogeneity-agnostic.
 * Gu et al., Tiresias: A GPU Cluster Manager for Distributed Deep Learning, NSDI 2019, section
 * 4 (Discretized 2D-LAS), and the authors' public simulator (github.com/SymbioticLab/Tiresias,
 * simulator/run_sim.py, schedule "dlas-gpu"), which fixes what the text leaves open.
 *
 * Rules as coded:
 *  - Attained service of job j: a_j = GPU-seconds received (train_view_attained: GPUs held x
 *    seconds held, restore time included, since the GPUs are held).  The priority uses
 *    s_j = a_j - b_j, the service since the job last entered the top queue (b_j = 0 at
 *    arrival, b_j = a_j at a promotion).
 *  - K queues Q0 (highest) .. Q(K-1), thresholds 0 < T_1 < ... < T_(K-1) in GPU-seconds
 *    (parameter "thresholds"): j is in Q_k with k = #{i : s_j >= T_i}.  A job crosses into
 *    a lower queue (demotion) when s_j reaches a threshold.
 *  - Order: by queue, then FIFO by arrival (job id) inside a queue.  Walking that order, each
 *    job gets `workers` whole GPUs of one type if some type still has that many by count
 *    (the plan starts from an empty cluster: every decision is a FULL list), otherwise it is
 *    skipped and later jobs may still fit (work-conserving, as the simulator's "continue").
 *    So a job of a higher queue preempts running jobs of lower queues, and jobs inside a
 *    queue are never preempted by later arrivals of the same queue.
 *  - Starvation guard ("promote_knob": the paper's PROMOTEKNOB, the simulator's
 *    solve_starvation): let run_j = s_j / workers (seconds it has run since it
 *    last entered Q0) and wait_j the seconds it has spent waiting (queued or preempted) since
 *    then, counted only once run_j > 0.  A waiting job in a queue below Q0 with run_j > 0 and
 *    wait_j >= knob * run_j goes back to Q0 with b_j = a_j, run_j = wait_j = 0.  knob = 0
 *    disables the guard.
 *  - Placement (heterogeneity-agnostic, like fifo): a running job that keeps running stays
 *    on its type and keeps its very GPUs (plan_commit, no restart).  Any other job goes to
 *    the type with the most GPUs that are free *and* not held by a lower-priority running
 *    job (so starting it preempts nobody when it can), ties to the larger free count, then
 *    catalog order; types where the job cannot run (rate 0) are skipped.  Speeds are never
 *    compared.  Newcomers are packed on the fewest nodes.
 *
 * Defaults and where they come from:
 *  - "thresholds": [3250] (two queues).  Two queues as asked for this baseline; 3250 GPU-s is
 *    the first queue limit of the public simulator's dlas-gpu (jobs.py: queue_limit =
 *    [3250, 7200, 18000] with num_queue = 3; its README's example uses 2 queues at 3600).
 *    [3250, 7200] reproduces the simulator's three queues.  The paper's own text was not
 *    available here to check which setting its simulations used.
 *  - "promote_knob": 0 (off): the simulator's default "dlas-gpu" run passes no
 *    solve_starvation; its variants dlas-gpu-{0.5,1,2,4,8,10,100,1000} set it.
 *  - Wake-ups: arrivals, completions, and the exact instant of the next demotion or
 *    promotion, which the policy asks for (grant_list.wake_at): (T - s_j) / (GPUs held) ahead
 *    for a running job, knob x run_j - wait_j ahead for a waiting one — as the simulator's
 *    event loop does.  A decision that changes nothing keeps every grant as it is.
 *
 * Assumptions the paper leaves open: FIFO inside a queue is by arrival (the simulator keeps
 * running jobs ahead of pending ones in its lists, which differs only after a promotion or
 * a skip); jobs that do not fit are skipped rather than blocking the queue (simulator); the
 * starvation clock counts wall seconds of waiting against wall seconds of running since the
 * last promotion (simulator: last_pending_time vs executed_time); service accrues while a
 * job restores from a checkpoint (it holds the GPUs).
 *
 * Cost per decision: O(A) for A active jobs, plus O(T) rate look-ups (the view's memo, O(1)
 * each) for every job that does not simply stay where it is, plus placements.  The order by
 * (queue, id) is kept from one decision to the next (sched/rank.h): a job changes queue only
 * when it is demoted or promoted, so repairing the order costs O(A + k log k) for the k jobs
 * that changed queue or arrived.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan.h"
#include "../policy.h"

enum { TIRESIAS_MAX_QUEUES = 16 };

struct tstate {                 /* per slot; id tells whether it still describes the job */
    int64_t id;
    int     q;
    double  base;               /* attained service when it last entered Q0 */
    double  wait_s;             /* waiting since then, after it ran */
    simtime last;               /* when wait_s was last brought up to date */
    uint64_t granted;           /* the decision that last granted it GPUs (next_change) */
};

struct tiresias {
    occ              *scratch;
    double            thr[TIRESIAS_MAX_QUEUES - 1];
    int               nthr;
    double            knob;
    struct tstate    *st;
    size_t            stcap;
    int32_t          *order;    /* this decision's active slots by (queue, id) */
    int32_t          *byq;      /* their queues, in active-list order */
    size_t            ocap, bcap;
    struct plan_pick *picks;
    size_t            pcap;
    int              *tslot;    /* catalog GPU id -> cluster type slot (-1: not here) */
    uint64_t          decision; /* decisions taken, the stamp of tstate.granted */
};

/* service comparisons tolerate float accumulation of microsecond steps */
static const double EPS = 1e-6;

static int read_thresholds(struct tiresias *t, const struct jobj *params, struct errbuf *err)
{
    const cJSON *arr = NULL;
    if (jobj_arr(params, "thresholds", JOPT, &arr, err) < 0)
        return -1;
    if (arr == NULL) {
        t->thr[0] = 3250;
        t->nthr = 1;
        return 0;
    }
    char path[256];
    snprintf(path, sizeof path, "%s%sthresholds", params->path, params->path[0] ? "." : "");
    int n = cJSON_GetArraySize(arr);
    if (n > TIRESIAS_MAX_QUEUES - 1)
        return jsonf_error(params->doc, arr, path, err,
                           "at most %d thresholds (%d queues)", TIRESIAS_MAX_QUEUES - 1,
                           TIRESIAS_MAX_QUEUES);
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(arr, i);
        if (!cJSON_IsNumber(e) || !(e->valuedouble > 0) || e->valuedouble > 1e15 ||
            (i > 0 && !(e->valuedouble > t->thr[i - 1])))
            return jsonf_error(params->doc, e, path, err,
                               "thresholds must be increasing positive GPU-seconds");
        t->thr[i] = e->valuedouble;
    }
    t->nthr = n;
    return 0;
}

static void tiresias_destroy(void *self);

static int tiresias_create(void **self, const struct jobj *params, const struct policy_env *env,
                           struct errbuf *err)
{
    struct tiresias *t = calloc(1, sizeof *t);
    if (t == NULL)
        return err_run(err, "out of memory");
    if (read_thresholds(t, params, err) < 0 ||
        jobj_num(params, "promote_knob", JOPT, 0, 1e9, &t->knob, err) < 0 ||
        (t->scratch = occ_create(env->cl)) == NULL) {
        occ_destroy(t->scratch);
        free(t);
        return err->code ? -1 : err_run(err, "out of memory");
    }
    const int *types;
    int nt = cluster_types(env->cl, &types), ng = 0;
    for (int i = 0; i < nt; i++)
        if (types[i] + 1 > ng)
            ng = types[i] + 1;
    if ((t->tslot = malloc((size_t)ng * sizeof *t->tslot)) == NULL) {
        tiresias_destroy(t);
        return err_run(err, "out of memory");
    }
    for (int g = 0; g < ng; g++)
        t->tslot[g] = cluster_type_slot(env->cl, g);
    *self = t;
    return 0;
}

static void tiresias_destroy(void *self)
{
    struct tiresias *t = self;
    occ_destroy(t->scratch);
    free(t->st);
    free(t->order);
    free(t->byq);
    free(t->picks);
    free(t->tslot);
    free(t);
}

/* Cover slot s in t->st, new entries "nobody" (id -1), as plan_slot_state does but without
 * its own walk over the active jobs; -1 on no memory. */
static int cover(struct tiresias *t, int32_t s)
{
    if ((size_t)s < t->stcap)
        return 0;
    size_t old = t->stcap;
    int failed = 0;
    t->st = plan_grow(t->st, &t->stcap, (size_t)s + 1, sizeof *t->st, &failed);
    if (failed)
        return -1;
    memset(t->st + old, 0xFF, (t->stcap - old) * sizeof *t->st);
    return 0;
}

/* Bring j's queue and starvation clock up to `now`; returns its queue. */
static int update(struct tiresias *t, const struct train_view *v, const struct train_job *j)
{
    struct tstate *s = &t->st[j->slot];
    if (s->id != j->id)
        *s = (struct tstate){ .id = j->id, .q = 0, .base = 0, .wait_s = 0, .last = j->arrival,
                              .granted = 0 };
    double a = train_view_attained(j, v->now), served = a - s->base;
    /* the state it is in now is the one it had since the last decision: grants change only
     * at decisions */
    if (j->state != JOB_RUNNING && served > EPS)
        s->wait_s += sim_to_sec(v->now - s->last);
    s->last = v->now;
    if (t->knob > 0 && s->q > 0 && j->state != JOB_RUNNING && served > EPS) {
        double run_s = served / j->workers;
        if (s->wait_s >= t->knob * run_s - EPS) {
            s->q = 0;
            s->base = a;
            s->wait_s = 0;
            return 0;
        }
    }
    /* q never falls but at a promotion, so counting the thresholds reached may start at q */
    int q = s->q;
    while (q < t->nthr && served >= t->thr[q] - EPS)
        q++;
    s->q = q;
    return q;
}

/* When the next demotion (a job granted now reaching its queue's threshold) or promotion (a
 * waiting job's starvation clock reaching knob x its running time) happens, so the world wakes
 * the policy exactly then; 0 if none is coming.  picks[0..np) are every job granted GPUs now,
 * whether it stays or starts (t->decision stamps them). */
static simtime next_change(struct tiresias *t, const struct train_view *v,
                           const struct plan_pick *picks, int np)
{
    double soonest = INFINITY;
    for (int k = 0; k < np; k++) {
        const struct train_job *j = picks[k].job;
        const struct tstate *s = &t->st[j->slot];
        if (s->q >= t->nthr)
            continue;
        double served = train_view_attained(j, v->now) - s->base;
        double speed = picks[k].n * (OCC_WHOLE / 1000.0);  /* GPU-seconds per second */
        soonest = fmin(soonest, (t->thr[s->q] - served) / speed);
    }
    if (t->knob > 0)
        for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
            const struct tstate *s = &t->st[j->slot];
            double served = train_view_attained(j, v->now) - s->base;
            if (s->granted == t->decision || s->q == 0 || served <= EPS)
                continue;
            soonest = fmin(soonest, t->knob * served / j->workers - s->wait_s);
        }
    if (!isfinite(soonest))
        return 0;
    return v->now + (soonest > 1e-6 ? sim_from_sec_ceil(soonest) : 1);
}

/* 1 if pick pk leaves its job where it runs now (the same GPUs, no restart). */
static int stays(const struct plan_pick *pk)
{
    const struct train_job *j = pk->job;
    return j->state == JOB_RUNNING && j->gpu_type == pk->gpu_type && j->ngpu == pk->n &&
           j->share == OCC_WHOLE;
}

/* Write the DELTA list of what changes: the jobs that start or move, placed in pick order on
 * the scratch, then the running jobs left out, preempted in the world's running order.  That
 * is the very list of changed grants the world's apply keeps from the FULL list of every pick
 * (keepers first, then the placements, then the preemptions it adds), so the world changes in
 * the same steps.  The placements see the scratch exactly as a FULL plan sees it after its
 * keepers: occ_alloc takes the first node of a bucket list, and that order is the history of
 * the takes, so the keepers of each type a newcomer goes to are taken again in pick order
 * (each type's nodes have their own lists; the other types are not read). */
static int write_delta(struct tiresias *t, const struct train_view *v, int np, int nnew,
                       int nrun, struct grant_list *out, struct errbuf *err)
{
    if (nnew > 0) {
        unsigned used_types = 0;            /* cluster type slots that get a newcomer */
        for (int k = 0; k < np; k++)
            if (!stays(&t->picks[k]))
                used_types |= 1u << t->tslot[t->picks[k].gpu_type];
        occ_clear(t->scratch);
        for (int k = 0; k < np; k++) {
            const struct train_job *j = t->picks[k].job;
            if ((used_types >> t->tslot[j->gpu_type] & 1) && stays(&t->picks[k]))
                occ_take(t->scratch, j->gpus, j->ngpu, j->share);
        }
        struct plan p = { .v = v, .occ = t->scratch, .out = out };
        for (int k = 0; k < np; k++) {
            const struct plan_pick *pk = &t->picks[k];
            if (stays(pk))
                continue;
            int rc = plan_place(&p, pk->job, pk->gpu_type, pk->n, OCC_PACK, err);
            if (rc < 0)
                return -1;
            if (rc > 0)
                return err_run(err, "tiresias: %d GPUs for job %lld do not fit; the picks "
                                    "exceed the free count", pk->n, (long long)pk->job->id);
        }
    }
    if (nrun < v->n_running)     /* some running job is not picked */
        for (const struct train_job *j = train_view_first_running(v); j; j = train_view_next_running(v, j))
            if (t->st[j->slot].granted != t->decision && grant_preempt(out, j->slot) < 0)
                return err_run(err, "out of memory");
    return 0;
}

static int tiresias_train(void *self, const struct train_view *v, struct grant_list *out,
                          struct errbuf *err)
{
    struct tiresias *t = self;
    int failed = 0;
    t->picks = plan_grow(t->picks, &t->pcap, (size_t)v->n_active, sizeof *t->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");
    t->decision++;
    /* one walk over the active jobs: queues and the GPUs running jobs hold.  The active list
     * is in arrival order, which is id order, so a stable split by queue is the (queue, id)
     * order */
    t->order = plan_grow(t->order, &t->ocap, (size_t)v->n_active, sizeof *t->order, &failed);
    t->byq = plan_grow(t->byq, &t->bcap, (size_t)v->n_active, sizeof *t->byq, &failed);
    if (failed)
        return err_run(err, "out of memory");
    int held[CLUSTER_MAX_TYPES] = { 0 }, start[TIRESIAS_MAX_QUEUES + 1] = { 0 };
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        if (cover(t, j->slot) < 0)
            return err_run(err, "out of memory");
        int q = update(t, v, j);
        t->byq[n++] = q;
        start[q + 1]++;
        if (j->state == JOB_RUNNING)
            held[t->tslot[j->gpu_type]] += j->ngpu;
    }
    for (int q = 0; q < t->nthr; q++)
        start[q + 1] += start[q];
    size_t at = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        t->order[start[t->byq[at++]]++] = j->slot;

    const int *types;
    int nt = cluster_types(v->cl, &types);
    int freec[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        freec[i] = cluster_type_count(v->cl, types[i]);

    /* the picks by GPU counts, as from an empty cluster; only newcomers need GPU ids */
    int np = 0, nnew = 0, nrun = 0;
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[t->order[k]];
        int w = j->workers, cur = -1;
        if (j->state == JOB_RUNNING) {
            cur = t->tslot[j->gpu_type];
            held[cur] -= j->ngpu;       /* from here on its GPUs count as its own */
        }
        int best = -1;
        if (cur >= 0 && j->ngpu == w && j->share == OCC_WHOLE && freec[cur] >= w) {
            best = cur;
        } else {
            for (int i = 0; i < nt; i++) {
                if (freec[i] < w || !(train_view_rate(v, j, types[i], w) > 0))
                    continue;
                if (best < 0 || freec[i] - held[i] > freec[best] - held[best] ||
                    (freec[i] - held[i] == freec[best] - held[best] && freec[i] > freec[best]))
                    best = i;
            }
        }
        if (best < 0)
            continue;
        freec[best] -= w;
        t->picks[np] = (struct plan_pick){ j, types[best], w };
        t->st[j->slot].granted = t->decision;
        nnew += !stays(&t->picks[np]);
        nrun += cur >= 0;
        np++;
    }
    if (write_delta(t, v, np, nnew, nrun, out, err) < 0)
        return -1;
    out->wake_at = next_change(t, v, t->picks, np);
    return 0;
}

static const char *const tiresias_params[] = { "thresholds", "promote_knob", NULL };

static const struct train_hooks tiresias_hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = tiresias_train,
};

const struct policy_ops policy_tiresias = {
    .name = "tiresias",
    .domain = "training",
    .summary = "Tiresias discretized 2D-LAS: GPU-time priority queues, FIFO inside a queue, "
               "any GPU type",
    .params = tiresias_params,
    .create = tiresias_create,
    .train = &tiresias_hooks,
    .destroy = tiresias_destroy,
};
