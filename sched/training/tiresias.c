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

#include "../keepocc.h"
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

struct thold {                  /* per slot: the GPUs the policy granted the job, while it runs */
    int64_t  id;                /* -1: none */
    int32_t  at;                /* its index in tiresias.held */
    int32_t  n, cap;
    int     *gpus;
};

struct tpick {                  /* a job chosen to run: its type, GPU count, and whether it
                                   simply stays where it runs */
    const struct train_job *job;
    int                     gpu_type, n, stays;
};

struct tiresias {
    keepocc          *keep;     /* what the FULL plan holds after its keepers (keepocc.h) */
    double            thr[TIRESIAS_MAX_QUEUES - 1];
    int               nthr;
    double            knob;
    struct tstate    *st;
    size_t            stcap;
    int32_t          *order;    /* this decision's active slots by (queue, id) */
    int32_t          *byq;      /* their queues, in active-list order */
    size_t            ocap, bcap;
    struct tpick     *picks;
    size_t            pcap;
    struct thold     *hold;     /* by slot */
    size_t            hcap;
    int32_t          *held;     /* slots of the jobs it believes running */
    size_t            nheld, heldcap;
    int32_t          *gone;     /* scratch: slots to preempt */
    size_t            gcap;
    int              *ids;      /* scratch: a placement's GPUs */
    size_t            idcap;
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
        (t->keep = keepocc_create(env->cl)) == NULL) {
        keepocc_destroy(t->keep);
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
    keepocc_destroy(t->keep);
    free(t->st);
    free(t->order);
    free(t->byq);
    free(t->picks);
    free(t->tslot);
    for (size_t s = 0; s < t->hcap; s++)
        free(t->hold[s].gpus);
    free(t->hold);
    free(t->held);
    free(t->gone);
    free(t->ids);
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
                           const struct tpick *picks, int np)
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

/* ---- the jobs it believes running, and the GPUs it granted them ---- */

static int hold_cover(struct tiresias *t, int32_t s)
{
    if ((size_t)s < t->hcap)
        return 0;
    size_t old = t->hcap;
    int failed = 0;
    t->hold = plan_grow(t->hold, &t->hcap, (size_t)s + 1, sizeof *t->hold, &failed);
    if (failed)
        return -1;
    for (size_t k = old; k < t->hcap; k++)
        t->hold[k] = (struct thold){ .id = -1, .at = -1 };
    return 0;
}

/* Job j runs on ids[0..n) from this decision on. */
static int hold_set(struct tiresias *t, const struct train_job *j, const int *ids, int n)
{
    int failed = 0;
    if (hold_cover(t, j->slot) < 0)
        return -1;
    struct thold *h = &t->hold[j->slot];
    if (n > h->cap) {
        int *g = realloc(h->gpus, (size_t)n * sizeof *g);
        if (g == NULL)
            return -1;
        h->gpus = g;
        h->cap = n;
    }
    if (h->id != j->id) {
        t->held = plan_grow(t->held, &t->heldcap, t->nheld + 1, sizeof *t->held, &failed);
        if (failed)
            return -1;
        h->id = j->id;
        h->at = (int32_t)t->nheld;
        t->held[t->nheld++] = j->slot;
    }
    memcpy(h->gpus, ids, (size_t)n * sizeof *ids);
    h->n = n;
    return 0;
}

/* Slot s holds nothing any more: its GPUs are free in the keepers' occupancy. */
static void hold_drop(struct tiresias *t, int32_t s)
{
    struct thold *h = &t->hold[s];
    keepocc_free(t->keep, h->gpus, h->n);
    int32_t last = t->held[--t->nheld];
    t->held[h->at] = last;
    t->hold[last].at = h->at;
    h->id = -1;
    h->at = -1;
    h->n = 0;
}

/* Forget the jobs that finished since the last decision (the world released their GPUs):
 * they are the ones believed running that the view no longer has running. */
static int drop_finished(struct tiresias *t, const struct train_view *v, struct errbuf *err)
{
    if (t->nheld == (size_t)v->n_running)
        return 0;
    for (size_t k = 0; k < t->nheld;) {
        int32_t s = t->held[k];
        const struct train_job *j = &v->jobs[s];
        if (j->id == t->hold[s].id && j->state == JOB_RUNNING)
            k++;
        else
            hold_drop(t, s);    /* moves the last one to k */
    }
    if (t->nheld != (size_t)v->n_running)
        return err_run(err, "tiresias: %d jobs run, not the %zu it granted", v->n_running,
                       t->nheld);
    return 0;
}

/* Write the DELTA list of what changes: the jobs that start or move, placed in pick order,
 * then the running jobs left out, preempted in the world's running order.  That is the very
 * list of changed grants the world's apply keeps from the FULL list of every pick (keepers
 * first, then the placements, then the preemptions it adds), so the world changes in the same
 * steps.  The placements see the occupancy a FULL plan sees after its keepers: t->keep, once
 * the GPUs of the running jobs that do not stay are freed. */
static int write_delta(struct tiresias *t, const struct train_view *v, int np, int nnew,
                       int nrun, struct grant_list *out, struct errbuf *err)
{
    size_t ngone = 0;
    if (nrun < v->n_running) {          /* some running job is not picked */
        int failed = 0;
        t->gone = plan_grow(t->gone, &t->gcap, (size_t)v->n_running, sizeof *t->gone, &failed);
        if (failed)
            return err_run(err, "out of memory");
        for (const struct train_job *j = train_view_first_running(v); j; j = train_view_next_running(v, j))
            if (t->st[j->slot].granted != t->decision) {
                t->gone[ngone++] = j->slot;
                hold_drop(t, j->slot);
            }
    }
    if (nnew > 0) {
        for (int k = 0; k < np; k++) {      /* the running jobs that move */
            const struct train_job *j = t->picks[k].job;
            if (!t->picks[k].stays && j->state == JOB_RUNNING) {
                struct thold *h = &t->hold[j->slot];
                keepocc_free(t->keep, h->gpus, h->n);
                h->n = 0;
            }
        }
        for (int k = 0; k < np; k++) {
            const struct tpick *pk = &t->picks[k];
            const struct train_job *j = pk->job;
            if (pk->stays)
                continue;
            int failed = 0;
            t->ids = plan_grow(t->ids, &t->idcap, (size_t)pk->n, sizeof *t->ids, &failed);
            if (failed)
                return err_run(err, "out of memory");
            if (keepocc_place(t->keep, t->tslot[pk->gpu_type], pk->n, t->st[j->slot].q, j->id,
                              t->ids) < 0)
                return err_run(err, "tiresias: %d GPUs for job %lld do not fit; the picks "
                                    "exceed the free count", pk->n, (long long)j->id);
            if (grant_add(out, j->slot, t->ids, pk->n, OCC_WHOLE) < 0 ||
                hold_set(t, j, t->ids, pk->n) < 0)
                return err_run(err, "out of memory");
        }
        keepocc_settle(t->keep);
    }
    for (size_t k = 0; k < ngone; k++)
        if (grant_preempt(out, t->gone[k]) < 0)
            return err_run(err, "out of memory");
    return 0;
}

static int tiresias_train(void *self, const struct train_view *v, struct grant_list *out,
                          struct errbuf *err)
{
    struct tiresias *t = self;
    int failed = 0;
    t->picks = plan_grow(t->picks, &t->pcap, (size_t)v->n_active, sizeof *t->picks, &failed);
    t->order = plan_grow(t->order, &t->ocap, (size_t)v->n_active, sizeof *t->order, &failed);
    t->byq = plan_grow(t->byq, &t->bcap, (size_t)v->n_active, sizeof *t->byq, &failed);
    if (failed)
        return err_run(err, "out of memory");
    t->decision++;
    if (drop_finished(t, v, err) < 0)
        return -1;
    /* one walk over the active jobs: queues and the GPUs running jobs hold.  The active list
     * is in arrival order, which is id order, so a stable split by queue is the (queue, id)
     * order */
    int held[CLUSTER_MAX_TYPES] = { 0 }, start[TIRESIAS_MAX_QUEUES + 1] = { 0 };
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        if (cover(t, j->slot) < 0)
            return err_run(err, "out of memory");
        int was = t->st[j->slot].id == j->id ? t->st[j->slot].q : -1, q = update(t, v, j);
        t->byq[n++] = q;
        start[q + 1]++;
        if (j->state == JOB_RUNNING) {
            held[t->tslot[j->gpu_type]] += j->ngpu;
            if (q != was)       /* demoted while running: its nodes' keys change */
                keepocc_rekey(t->keep, t->hold[j->slot].gpus, t->hold[j->slot].n, q, j->id);
        }
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
        int w = j->workers, cur = -1, best = -1, stays = 0;
        if (j->state == JOB_RUNNING) {
            cur = t->tslot[j->gpu_type];
            held[cur] -= j->ngpu;       /* from here on its GPUs count as its own */
        }
        if (cur >= 0 && j->ngpu == w && j->share == OCC_WHOLE && freec[cur] >= w) {
            best = cur;
            stays = 1;
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
        t->picks[np++] = (struct tpick){ j, types[best], w, stays };
        t->st[j->slot].granted = t->decision;
        nnew += !stays;
        nrun += cur >= 0;
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
