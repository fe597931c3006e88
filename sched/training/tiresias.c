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
 *    (the plan starts from an empty cluster, or under a broker from the GPUs another
 *    tenant holds: the view's base, capacity it does not have), otherwise it is skipped and
 *    later jobs may still fit (work-conserving, as the simulator's "continue").
 *    So a job of a higher queue preempts running jobs of lower queues, and jobs inside a
 *    queue are never preempted by later arrivals of the same queue.
 *  - Starvation guard ("promote_knob": the paper's PROMOTEKNOB, the simulator's
 *    solve_starvation): let run_j = s_j / workers (seconds it has run since it
 *    last entered Q0) and wait_j the seconds it has spent waiting (queued or preempted) since
 *    then, counted only once run_j > 0.  A waiting job in a queue below Q0 with run_j > 0 and
 *    wait_j >= knob * run_j goes back to Q0 with b_j = a_j, run_j = wait_j = 0.  knob = 0
 *    disables the guard.
 *  - Placement (heterogeneity-agnostic, like fifo): a running job that keeps running stays
 *    on its type and keeps its very GPUs (no restart).  Any other job goes to
 *    the type with the most GPUs that are free *and* not held by a lower-priority running
 *    job (so starting it preempts nobody when it can), ties to the larger free count, then
 *    catalog order; types where the job cannot run (rate 0) are skipped.  Speeds are never
 *    compared.  Newcomers are packed on the fewest nodes, on the occupancy a from-empty plan
 *    has after re-taking the GPUs of the jobs that stay in (queue, id) order (plan_commit's
 *    keepers first, then occ_alloc), which is what this file first did.
 *  - The list it returns is DELTA: only the jobs that start, move or are preempted, in the
 *    order the world's apply would keep from that FULL list of every pick (the placements in
 *    pick order, then the preemptions in the world's running order), so that the world
 *    changes in the very same steps.
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
 * Cost per decision: what changed, not the A active jobs.  The running jobs are kept between
 * decisions: their GPUs (and in sched/keepocc.h, the keepers' occupancy with the node order a
 * from-empty replay would give), their GPU counts by (queue, type) in Fenwick trees over
 * positions in job-id order, and two heaps, of predicted threshold crossings and predicted ends.  A decision then
 *  - drops the jobs that finished: those predicted to end by now + 1 s (the running count
 *    tells whether any did; a scan of the R jobs believed running only if one was missed);
 *  - demotes the running jobs predicted to cross by now + 1 ms (computed exactly at now;
 *    others are more than 1 ms x their GPUs of service away, far beyond rounding): each
 *    costs O(log), rekeying its nodes O(GPUs per node + log nodes);
 *  - brings the W waiting jobs' clocks up to date and sorts them, O(W log W);
 *  - walks only the waiting jobs when no type gets more newcomers than it has free GPUs
 *    (then every running job provably keeps its count and stays): O(W T log N) for T types
 *    and N job ids, the counts before each waiting job coming from the trees.  Otherwise it
 *    walks all A jobs in (queue, id) order (a stable split of the active list, which is in id
 *    order), O(A) plus O(T) rate look-ups per job that does not stay: a decision that
 *    preempts or moves someone;
 *  - places the k newcomers, O(k (GPUs per node + log nodes)), and asks for the next
 *    wake-up from the crossings within 1 ms of the earliest and, with the guard, the W
 *    waiting jobs.
 * Memory: O(A + GPUs); the trees take (K x T) ints per position, sized at each rebuild to
 * fewer than four positions per active job (fw_reserve).
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
    int64_t pos;                /* its position in the Fenwick trees, -1: none yet */
};

struct thold {                  /* per slot: what the policy granted the job, while it runs */
    int64_t  id;                /* -1: none */
    int32_t  at;                /* its index in tiresias.held */
    int32_t  hx[2];             /* its index in the crossing and finish heaps, -1: not there */
    int32_t  n, cap;
    int32_t  ts, q;             /* the type slot and queue it is counted under */
    int64_t  pos;               /* ... at this position of the trees */
    double   key[2];            /* seconds: when it reaches its queue's threshold (CROSS),
                                   about when it finishes (FINISH) */
    int     *gpus;
};

struct tpick {                  /* a job chosen to run: its type, GPU count, and whether it
                                   simply stays where it runs */
    const struct train_job *job;
    int                     gpu_type, n, stays;
};

struct wjob {                   /* a waiting job, to be sorted by (queue, id) */
    int64_t id;
    int32_t q, slot;
};

enum { CROSS, FINISH };

struct theap {                  /* running jobs (slots) by thold.key[which], a min-heap */
    int32_t *a;
    size_t   n, cap;
    int      which;
};

struct tiresias {
    keepocc          *keep;     /* what the FULL plan holds after its keepers (keepocc.h) */
    double            thr[TIRESIAS_MAX_QUEUES - 1];
    int               nthr;
    double            knob;
    int               nt;       /* cluster types */
    const int        *types;
    int               cap[CLUSTER_MAX_TYPES];      /* GPUs it may use per type slot: the
                                                      cluster's less the denied */
    uint8_t          *denied;   /* per GPU: another tenant's (the view's base), held in keep */
    int              *dids;     /* scratch: GPU ids that changed hands */
    uint64_t          epoch;    /* the view's base_epoch its picture was last synced with */
    struct tstate    *st;
    size_t            stcap;
    int32_t          *order;    /* the active slots by (queue, id), for a full walk */
    int32_t          *byq;      /* their queues, in active-list order */
    size_t            ocap, bcap;
    struct tpick     *picks;
    size_t            pcap;
    struct thold     *hold;     /* by slot */
    size_t            hcap;
    int32_t          *held;     /* slots of the jobs it believes running */
    size_t            nheld, heldcap;
    struct theap      heap[2];  /* [CROSS]: those below the last queue; [FINISH]: all */
    int32_t          *fw;       /* Fenwick trees by (queue, type slot) over positions, which
                                   follow job ids (fw_reserve): GPUs held by running jobs */
    int64_t           fwn;      /* positions each tree covers (a power of two) */
    int64_t           npos;     /* positions handed out since the trees were built */
    int               tot[TIRESIAS_MAX_QUEUES][CLUSTER_MAX_TYPES];  /* the same, in total */
    int               used[CLUSTER_MAX_TYPES];     /* GPUs held, by type slot */
    struct wjob      *wl;       /* the waiting jobs by (queue, id) */
    int32_t          *cand, *gone;         /* crossing candidates, jobs to preempt */
    size_t            wlcap, candcap, gonecap;
    int              *ids;      /* a placement's GPUs */
    size_t            idcap;
    int              *tslot;    /* catalog GPU id -> cluster type slot (-1: not here) */
    uint64_t          decision; /* decisions taken, the stamp of tstate.granted */
};

/* service comparisons tolerate float accumulation of microsecond steps */
static const double EPS = 1e-6;
/* Crossing times are predicted from a job's service when its grant or queue last changed;
 * what the decision computes at `now` differs from the prediction by float rounding only
 * (~1e-8 s at these magnitudes).  Jobs predicted within SLACK_S of an instant are computed
 * exactly; the others cannot cross there (they are SLACK_S x their GPUs away in service). */
static const double SLACK_S = 1e-3;
/* The same for completions, predicted from a job's rate: a job predicted to end more than
 * this after now is still running (the world ends it at its own, microsecond-rounded time). */
static const double FINISH_SLACK_S = 1;

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
    t->heap[FINISH].which = FINISH;
    t->nt = cluster_types(env->cl, &t->types);
    int ng = 0;
    for (int i = 0; i < t->nt; i++) {
        t->cap[i] = cluster_type_count(env->cl, t->types[i]);
        if (t->types[i] + 1 > ng)
            ng = t->types[i] + 1;
    }
    size_t ngpus = (size_t)cluster_ngpus(env->cl);
    t->denied = calloc(ngpus + 1, 1);
    t->dids = malloc((ngpus + 1) * sizeof *t->dids);
    if ((t->tslot = malloc((size_t)ng * sizeof *t->tslot)) == NULL || t->denied == NULL ||
        t->dids == NULL) {
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
    free(t->denied);
    free(t->dids);
    for (size_t s = 0; s < t->hcap; s++)
        free(t->hold[s].gpus);
    free(t->hold);
    free(t->held);
    free(t->heap[CROSS].a);
    free(t->heap[FINISH].a);
    free(t->fw);
    free(t->wl);
    free(t->cand);
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
                              .granted = 0, .pos = -1 };
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


/* ---- the running jobs: their GPUs, their counts by (queue, type, id), their crossings ---- */

/* Grow array *a (capacity *cap) to hold n; -1 on no memory. */
static int room(int32_t **a, size_t *cap, size_t n)
{
    int failed = 0;
    *a = plan_grow(*a, cap, n, sizeof **a, &failed);
    return failed ? -1 : 0;
}

static int32_t *fw_tree(struct tiresias *t, int q, int ts)
{
    return t->fw + ((size_t)q * (size_t)t->nt + (size_t)ts) * (size_t)t->fwn;
}

static void fw_add(struct tiresias *t, int q, int ts, int64_t pos, int d)
{
    int32_t *f = fw_tree(t, q, ts);
    for (int64_t i = pos + 1; i <= t->fwn; i += i & -i)
        f[i - 1] += d;
    t->tot[q][ts] += d;
    t->used[ts] += d;
}

/* GPUs of type slot ts held by running jobs of queue q at positions below pos (ids below the
 * job's at pos). */
static int fw_below(struct tiresias *t, int q, int ts, int64_t pos)
{
    if (t->fwn == 0)
        return 0;
    const int32_t *f = fw_tree(t, q, ts);
    int sum = 0;
    for (int64_t i = pos < t->fwn ? pos : t->fwn; i > 0; i -= i & -i)
        sum += f[i - 1];
    return sum;
}

/* Room for nnew more positions.  A job's position follows its id among the jobs the policy
 * knows: the known jobs keep theirs, and new ones, whose ids are above every known job's
 * (jobs arrive in id order), take the next ones.  When the trees are full they are rebuilt:
 * the known active jobs renumbered densely in id order (the active list's order), the size the
 * least power of two of at least 64 and twice the active jobs, and the running jobs' GPUs
 * counted again.  So memory follows the live jobs, not the trace, and a rebuild, O(A + R log
 * A) for A active and R running jobs, comes once per A or so new positions. */
static int fw_reserve(struct tiresias *t, const struct train_view *v, size_t nnew)
{
    if (t->npos + (int64_t)nnew <= t->fwn)
        return 0;
    int64_t n = 64;
    while (n < 2 * (int64_t)v->n_active)
        n *= 2;
    size_t len = (size_t)(t->nthr + 1) * (size_t)t->nt * (size_t)n;
    int32_t *f = calloc(len, sizeof *f);
    if (f == NULL)
        return -1;
    free(t->fw);
    t->fw = f;
    t->fwn = n;
    t->npos = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        struct tstate *s = &t->st[j->slot];
        if (s->id == j->id && s->pos >= 0)
            s->pos = t->npos++;
    }
    memset(t->tot, 0, sizeof t->tot);
    memset(t->used, 0, sizeof t->used);
    for (size_t k = 0; k < t->nheld; k++) {
        struct thold *h = &t->hold[t->held[k]];
        h->pos = t->st[t->held[k]].pos;
        fw_add(t, h->q, h->ts, h->pos, h->n);
    }
    return 0;
}

static double hkey(const struct tiresias *t, const struct theap *h, int32_t s)
{
    return t->hold[s].key[h->which];
}

static void heap_put(struct tiresias *t, struct theap *h, size_t i, int32_t s)
{
    h->a[i] = s;
    t->hold[s].hx[h->which] = (int32_t)i;
}

static void heap_sift(struct tiresias *t, struct theap *h, size_t i)
{
    int32_t s = h->a[i];
    double k = hkey(t, h, s);
    while (i > 0 && k < hkey(t, h, h->a[(i - 1) / 2])) {
        heap_put(t, h, i, h->a[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && hkey(t, h, h->a[c + 1]) < hkey(t, h, h->a[c]))
            c++;
        if (!(hkey(t, h, h->a[c]) < k))
            break;
        heap_put(t, h, i, h->a[c]);
        i = c;
    }
    heap_put(t, h, i, s);
}

static void heap_drop(struct tiresias *t, struct theap *h, int32_t s)
{
    int32_t i = t->hold[s].hx[h->which];
    if (i < 0)
        return;
    t->hold[s].hx[h->which] = -1;
    int32_t last = h->a[--h->n];
    if (last != s) {
        heap_put(t, h, (size_t)i, last);
        heap_sift(t, h, (size_t)i);
    }
}

/* (Re)file slot s with key k (room reserved by run_add). */
static void heap_file(struct tiresias *t, struct theap *h, int32_t s, double k)
{
    heap_drop(t, h, s);
    t->hold[s].key[h->which] = k;
    h->a[h->n] = s;
    t->hold[s].hx[h->which] = (int32_t)h->n++;
    heap_sift(t, h, h->n - 1);
}

/* Slot s's crossing time, given its service now; not filed in the last queue. */
static void file_cross(struct tiresias *t, const struct train_view *v, int32_t s, double served)
{
    struct thold *h = &t->hold[s];
    if (h->q >= t->nthr)
        heap_drop(t, &t->heap[CROSS], s);
    else
        heap_file(t, &t->heap[CROSS], s, sim_to_sec(v->now) + (t->thr[h->q] - served) / h->n);
}

/* The slots whose key is at most `limit` into t->cand; how many. */
static size_t heap_upto(struct tiresias *t, const struct theap *h, double limit)
{
    size_t n = 0;
    if (h->n == 0 || hkey(t, h, h->a[0]) > limit)
        return 0;
    /* a walk down the heap: below an entry later than limit, every entry is later too */
    t->cand[n++] = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)t->cand[k];
        for (size_t c = 2 * i + 1; c <= 2 * i + 2 && c < h->n; c++)
            if (hkey(t, h, h->a[c]) <= limit)
                t->cand[n++] = (int32_t)c;
    }
    for (size_t k = 0; k < n; k++)
        t->cand[k] = h->a[t->cand[k]];
    return n;
}

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
        t->hold[k] = (struct thold){ .id = -1, .at = -1, .hx = { -1, -1 } };
    return 0;
}

/* Job j runs on ids[0..n) of type slot ts from this decision on. */
static int run_add(struct tiresias *t, const struct train_view *v, const struct train_job *j,
                   const int *ids, int n, int ts)
{
    if (hold_cover(t, j->slot) < 0 ||
        room(&t->held, &t->heldcap, t->nheld + 1) < 0 ||
        room(&t->heap[CROSS].a, &t->heap[CROSS].cap, t->nheld + 1) < 0 ||
        room(&t->heap[FINISH].a, &t->heap[FINISH].cap, t->nheld + 1) < 0 ||
        room(&t->cand, &t->candcap, t->nheld + 1) < 0)
        return -1;
    struct thold *h = &t->hold[j->slot];
    if (n > h->cap) {
        int *g = realloc(h->gpus, (size_t)n * sizeof *g);
        if (g == NULL)
            return -1;
        h->gpus = g;
        h->cap = n;
    }
    const struct tstate *s = &t->st[j->slot];
    h->id = j->id;
    h->pos = s->pos;
    h->at = (int32_t)t->nheld;
    t->held[t->nheld++] = j->slot;
    memcpy(h->gpus, ids, (size_t)n * sizeof *ids);
    h->n = n;
    h->ts = ts;
    h->q = s->q;
    fw_add(t, h->q, ts, h->pos, n);
    file_cross(t, v, j->slot, train_view_attained(j, v->now) - s->base);
    /* its rate is known once the world has granted it: look at it at the next decision */
    heap_file(t, &t->heap[FINISH], j->slot, -INFINITY);
    return 0;
}

/* Slot s holds nothing any more. */
static void run_remove(struct tiresias *t, int32_t s)
{
    struct thold *h = &t->hold[s];
    keepocc_free(t->keep, h->gpus, h->n);
    fw_add(t, h->q, h->ts, h->pos, -h->n);
    heap_drop(t, &t->heap[CROSS], s);
    heap_drop(t, &t->heap[FINISH], s);
    int32_t last = t->held[--t->nheld];
    t->held[h->at] = last;
    t->hold[last].at = h->at;
    h->id = -1;
    h->at = -1;
    h->n = 0;
}

/* Forget the jobs that finished since the last decision (the world released their GPUs).
 * Completions are the only way a job stops running between decisions, so the count tells
 * whether any did.  Candidates are the jobs predicted to end by now + FINISH_SLACK_S (and the
 * ones granted at the last decision, whose rate was unknown then); one still running is filed
 * again at its prediction from the view.  Should a completion be missed (a rate that changed
 * without a grant), every job believed running is looked at. */
static int drop_finished(struct tiresias *t, const struct train_view *v, struct errbuf *err)
{
    if (t->nheld == (size_t)v->n_running)
        return 0;
    double now = sim_to_sec(v->now);
    size_t n = heap_upto(t, &t->heap[FINISH], now + FINISH_SLACK_S);
    for (size_t k = 0; k < n; k++) {
        int32_t s = t->cand[k];
        const struct train_job *j = &v->jobs[s];
        if (j->id != t->hold[s].id || j->state != JOB_RUNNING) {
            run_remove(t, s);
            continue;
        }
        double from = sim_to_sec(j->run_from > v->now ? j->run_from : v->now);
        double left = j->work - train_view_done(j, v->now);
        heap_file(t, &t->heap[FINISH], s, j->rate > 0 ? from + left / j->rate : INFINITY);
    }
    for (size_t k = 0; k < t->nheld && t->nheld != (size_t)v->n_running;) {
        int32_t s = t->held[k];
        const struct train_job *j = &v->jobs[s];
        if (j->id == t->hold[s].id && j->state == JOB_RUNNING)
            k++;
        else
            run_remove(t, s);   /* moves the last one to k */
    }
    if (t->nheld != (size_t)v->n_running)
        return err_run(err, "tiresias: %d jobs run, not the %zu it granted", v->n_running,
                       t->nheld);
    return 0;
}

/* Running jobs that reach their queue's threshold by now move down: their counts, their
 * nodes' keys (keepocc) and their next crossing.  Only jobs predicted to cross by now are
 * looked at (SLACK_S). */
static void demote_running(struct tiresias *t, const struct train_view *v)
{
    size_t n = heap_upto(t, &t->heap[CROSS], sim_to_sec(v->now) + SLACK_S);
    for (size_t k = 0; k < n; k++) {
        int32_t s = t->cand[k];
        struct thold *h = &t->hold[s];
        const struct train_job *j = &v->jobs[s];
        int q = update(t, v, j);
        if (q == h->q)
            continue;
        fw_add(t, h->q, h->ts, h->pos, -h->n);
        h->q = q;
        fw_add(t, q, h->ts, h->pos, h->n);
        keepocc_rekey(t->keep, h->gpus, h->n, q, j->id);
        file_cross(t, v, s, train_view_attained(j, v->now) - t->st[s].base);
    }
}

/* ---- another tenant's GPUs ---- */

/* Bring the picture up to the view's base when it changed (a broker withheld or gave GPUs):
 * the capacity per type, the denied GPUs held in keep, and the running jobs the world shrank
 * onto fewer GPUs when some of theirs were withheld (elastic jobs above their minimum; the
 * others were preempted, and drop_finished has forgotten them): each is refiled on the GPUs
 * it holds now, and *reshaped says that some job runs on fewer than its workers, so the full
 * walk must decide (walk_waiting's premise fails).  O(GPUs + R) when base changed, else O(1).
 * -1 on no memory. */
static int sync_base(struct tiresias *t, const struct train_view *v, int *reshaped)
{
    *reshaped = 0;
    if (v->base_epoch == t->epoch)
        return 0;
    t->epoch = v->base_epoch;
    for (int i = 0; i < t->nt; i++)
        t->cap[i] = train_view_type_cap(v, t->types[i]);
    size_t nshrunk = 0;
    for (size_t k = 0; k < t->nheld; k++) {
        int32_t s = t->held[k];
        if (v->jobs[s].ngpu != t->hold[s].n)
            t->cand[nshrunk++] = s;
    }
    for (size_t k = 0; k < nshrunk; k++) {
        int32_t s = t->cand[k];
        const struct train_job *j = &v->jobs[s];
        int ts = t->hold[s].ts;
        run_remove(t, s);
        if (run_add(t, v, j, j->gpus, j->ngpu, ts) < 0)
            return -1;
        keepocc_rekey(t->keep, j->gpus, j->ngpu, t->st[s].q, j->id);
        *reshaped = 1;
    }
    int ng = cluster_ngpus(v->cl);
    for (int deny = 0; deny <= 1; deny++) {  /* first the GPUs given back, then the withheld */
        int n = 0;
        for (int g = 0; g < ng; g++)
            if (t->denied[g] != deny && (v->base != NULL && occ_used(v->base, g) > 0) == deny)
                t->dids[n++] = g;
        for (int i = 0; i < n; i++)
            t->denied[t->dids[i]] = (uint8_t)deny;
        if (n > 0 && deny)
            keepocc_deny(t->keep, t->dids, n);
        else if (n > 0)
            keepocc_free(t->keep, t->dids, n);
    }
    return 0;
}

/* ---- one decision ---- */

/* The type a job that does not stay gets: among types with w GPUs left by count where it can
 * run, the most left that no later running job holds (so that it preempts nobody when it
 * can), ties to the most left, then catalog order; -1 if none. */
static int best_type(const struct tiresias *t, const struct train_view *v,
                     const struct train_job *j, const int *freec, const int *held)
{
    int w = j->workers, best = -1;
    for (int i = 0; i < t->nt; i++) {
        if (freec[i] < w || !(train_view_rate(v, j, t->types[i], w) > 0))
            continue;
        if (best < 0 || freec[i] - held[i] > freec[best] - held[best] ||
            (freec[i] - held[i] == freec[best] - held[best] && freec[i] > freec[best]))
            best = i;
    }
    return best;
}

static int by_queue_id(const void *a, const void *b)
{
    const struct wjob *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The picks when nobody is preempted: every running job stays where it is, and the waiting
 * jobs, in (queue, id) order, go where the full walk would send them.  At a waiting job the
 * walk has cap - (GPUs of running jobs before it) - (newcomers before it) left of type i by
 * count, and running jobs after it hold used - (GPUs of running jobs before it); the Fenwick
 * trees give the running jobs' GPUs before it.  That is the full walk's answer if no type
 * gets more newcomers than it has free GPUs: a running job then still finds its own count (it
 * is left cap - (GPUs of running jobs up to itself) - (newcomers before it) >= its workers),
 * so it stays (every running job holds its `workers` whole GPUs: the only grants this policy
 * makes).  Returns the number of picks, or -1 when some type would be over-subscribed (the
 * full walk decides then). */
static int walk_waiting(struct tiresias *t, const struct train_view *v, size_t nw)
{
    int np = 0, newc[CLUSTER_MAX_TYPES] = { 0 };
    for (size_t k = 0; k < nw; k++) {
        const struct wjob *wj = &t->wl[k];
        const struct train_job *j = &v->jobs[wj->slot];
        int freec[CLUSTER_MAX_TYPES], held[CLUSTER_MAX_TYPES];
        for (int i = 0; i < t->nt; i++) {
            int before = fw_below(t, wj->q, i, t->st[wj->slot].pos);
            for (int q = 0; q < wj->q; q++)
                before += t->tot[q][i];
            freec[i] = t->cap[i] - before - newc[i];
            held[i] = t->used[i] - before;
        }
        int best = best_type(t, v, j, freec, held);
        if (best < 0)
            continue;
        newc[best] += j->workers;
        t->picks[np++] = (struct tpick){ j, t->types[best], j->workers, 0 };
    }
    for (int i = 0; i < t->nt; i++)
        if (newc[i] > t->cap[i] - t->used[i])
            return -1;
    return np;
}

/* The full walk over every active job in (queue, id) order: each gets `workers` GPUs of one
 * type by count if some type still has them (a running job first its own type, where it
 * stays), from an empty cluster.  The active list is in arrival order, which is id order, so
 * a stable split by queue is the (queue, id) order.  Returns the number of picks; *nnew of
 * them do not stay, *nrun were running.  -1 on no memory. */
static int walk_all(struct tiresias *t, const struct train_view *v, int *nnew, int *nrun)
{
    if (room(&t->order, &t->ocap, (size_t)v->n_active) < 0 ||
        room(&t->byq, &t->bcap, (size_t)v->n_active) < 0)
        return -1;
    int start[TIRESIAS_MAX_QUEUES + 1] = { 0 };
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        int q = t->st[j->slot].q;
        t->byq[n++] = q;
        start[q + 1]++;
    }
    for (int q = 0; q < t->nthr; q++)
        start[q + 1] += start[q];
    size_t at = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        t->order[start[t->byq[at++]]++] = j->slot;

    int freec[CLUSTER_MAX_TYPES], held[CLUSTER_MAX_TYPES];
    for (int i = 0; i < t->nt; i++) {
        freec[i] = t->cap[i];
        held[i] = t->used[i];
    }
    int np = 0;
    *nnew = *nrun = 0;
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[t->order[k]];
        int w = j->workers, cur = -1, best, stays = 0;
        if (j->state == JOB_RUNNING) {
            cur = t->tslot[j->gpu_type];
            held[cur] -= j->ngpu;       /* from here on its GPUs count as its own */
        }
        if (cur >= 0 && j->ngpu == w && j->share == OCC_WHOLE && freec[cur] >= w) {
            best = cur;
            stays = 1;
        } else {
            best = best_type(t, v, j, freec, held);
        }
        if (best < 0)
            continue;
        freec[best] -= w;
        t->picks[np++] = (struct tpick){ j, t->types[best], w, stays };
        t->st[j->slot].granted = t->decision;
        *nnew += !stays;
        *nrun += cur >= 0;
    }
    return np;
}

/* Write the DELTA list of what changes: the jobs that start or move, placed in pick order,
 * then the running jobs left out, preempted in the world's running order.  That is the very
 * list of changed grants the world's apply keeps from the FULL list of every pick (keepers
 * first, then the placements, then the preemptions it adds), so the world changes in the same
 * steps.  The placements see the occupancy a FULL plan sees after its keepers: t->keep, once
 * the GPUs of the running jobs that do not stay are freed.  *ngone: jobs preempted (t->gone). */
static int write_delta(struct tiresias *t, const struct train_view *v, int np, int nnew,
                       int nrun, struct grant_list *out, size_t *ngone, struct errbuf *err)
{
    *ngone = 0;
    if (nrun < v->n_running) {          /* some running job is not picked */
        if (room(&t->gone, &t->gonecap, (size_t)v->n_running) < 0)
            return err_run(err, "out of memory");
        for (const struct train_job *j = train_view_first_running(v); j; j = train_view_next_running(v, j))
            if (t->st[j->slot].granted != t->decision) {
                t->gone[(*ngone)++] = j->slot;
                t->st[j->slot].last = v->now;       /* it waits from now on */
                run_remove(t, j->slot);
            }
    }
    if (nnew > 0) {
        for (int k = 0; k < np; k++)        /* the running jobs that move */
            if (!t->picks[k].stays && t->picks[k].job->state == JOB_RUNNING)
                run_remove(t, t->picks[k].job->slot);
        for (int k = 0; k < np; k++) {
            const struct tpick *pk = &t->picks[k];
            const struct train_job *j = pk->job;
            if (pk->stays)
                continue;
            int failed = 0, ts = t->tslot[pk->gpu_type];
            t->ids = plan_grow(t->ids, &t->idcap, (size_t)pk->n, sizeof *t->ids, &failed);
            if (failed)
                return err_run(err, "out of memory");
            if (keepocc_place(t->keep, ts, pk->n, t->st[j->slot].q, j->id, t->ids) < 0)
                return err_run(err, "tiresias: %d GPUs for job %lld do not fit; the picks "
                                    "exceed the free count", pk->n, (long long)j->id);
            if (grant_add(out, j->slot, t->ids, pk->n, OCC_WHOLE) < 0 ||
                run_add(t, v, j, t->ids, pk->n, ts) < 0)
                return err_run(err, "out of memory");
        }
        keepocc_settle(t->keep);
    }
    for (size_t k = 0; k < *ngone; k++)
        if (grant_preempt(out, t->gone[k]) < 0)
            return err_run(err, "out of memory");
    return 0;
}

/* When the next demotion (a job granted now reaching its queue's threshold) or promotion (a
 * waiting job's starvation clock reaching knob x its running time) happens, so the world wakes
 * the policy exactly then; 0 if none is coming.  The demotion is the least of (threshold -
 * service) / GPUs over the jobs granted now, computed at `now` for those whose predicted
 * crossing is within SLACK_S of the earliest (no other can be less); the promotion is looked
 * for among the jobs left waiting: the waiting ones not picked and the ones preempted now. */
static simtime next_change(struct tiresias *t, const struct train_view *v, size_t ngone)
{
    double soonest = INFINITY;
    const struct theap *h = &t->heap[CROSS];
    size_t n = h->n ? heap_upto(t, h, hkey(t, h, h->a[0]) + SLACK_S) : 0;
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[t->cand[k]];
        const struct tstate *s = &t->st[j->slot];
        double served = train_view_attained(j, v->now) - s->base;
        double speed = t->hold[j->slot].n * (OCC_WHOLE / 1000.0);  /* GPU-seconds per second */
        soonest = fmin(soonest, (t->thr[s->q] - served) / speed);
    }
    if (t->knob > 0) {
        const struct train_job *j = train_view_first_waiting(v);
        for (size_t k = 0; j != NULL || k < ngone;) {
            const struct train_job *x = j != NULL ? j : &v->jobs[t->gone[k++]];
            if (j != NULL)
                j = train_view_next_waiting(v, j);
            const struct tstate *s = &t->st[x->slot];
            double served = train_view_attained(x, v->now) - s->base;
            if (s->granted == t->decision || s->q == 0 || served <= EPS)
                continue;
            soonest = fmin(soonest, t->knob * served / x->workers - s->wait_s);
        }
    }
    if (!isfinite(soonest))
        return 0;
    return v->now + (soonest > 1e-6 ? sim_from_sec_ceil(soonest) : 1);
}

static int tiresias_train(void *self, const struct train_view *v, struct grant_list *out,
                          struct errbuf *err)
{
    struct tiresias *t = self;
    int failed = 0;
    t->picks = plan_grow(t->picks, &t->pcap, (size_t)v->n_active, sizeof *t->picks, &failed);
    t->wl = plan_grow(t->wl, &t->wlcap, (size_t)v->n_waiting, sizeof *t->wl, &failed);
    if (failed)
        return err_run(err, "out of memory");
    t->decision++;
    if (drop_finished(t, v, err) < 0)
        return -1;
    int reshaped;
    if (sync_base(t, v, &reshaped) < 0)
        return err_run(err, "out of memory");
    demote_running(t, v);
    /* the waiting jobs: starvation clocks, promotions, and their (queue, id) order */
    size_t nw = 0;
    for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j)) {
        if (cover(t, j->slot) < 0)
            return err_run(err, "out of memory");
        t->wl[nw++] = (struct wjob){ j->id, update(t, v, j), j->slot };
    }
    if (nw > 1)
        qsort(t->wl, nw, sizeof *t->wl, by_queue_id);
    /* the jobs seen for the first time take the next positions, in id order */
    size_t nnew_jobs = 0;
    for (size_t k = 0; k < nw; k++)
        nnew_jobs += t->st[t->wl[k].slot].pos < 0;
    if (fw_reserve(t, v, nnew_jobs) < 0)
        return err_run(err, "out of memory");
    for (size_t k = 0; k < nw; k++)
        if (t->st[t->wl[k].slot].pos < 0)
            t->st[t->wl[k].slot].pos = t->npos++;
    int np = reshaped ? -1 : walk_waiting(t, v, nw), nnew = np, nrun = v->n_running;
    if (np >= 0) {
        for (int k = 0; k < np; k++)
            t->st[t->picks[k].job->slot].granted = t->decision;
    } else if ((np = walk_all(t, v, &nnew, &nrun)) < 0) {
        return err_run(err, "out of memory");
    }
    size_t ngone;
    if (write_delta(t, v, np, nnew, nrun, out, &ngone, err) < 0)
        return -1;
    out->wake_at = next_change(t, v, ngone);
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
