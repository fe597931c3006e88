/*
 * heet: Heet (Mo et al., "Heet: Accelerating Elastic Training in Heterogeneous Deep Learning
 * Clusters", ASPLOS'24), as ../shared/PAPERS.md section 3 states it.
 *
 * 1. Scaling efficiency (section 4.1).  Each job type is profiled at a few points — one GPU
 *    of every type and `profiled` more cells (default 2: kmax and 2 workers on its fastest
 *    type) — and the rest of its type x worker-count tensor (n = 1..kmax, default 4, Heet's
 *    hosts of 4 GPUs) is filled by low-rank completion against the other job types'
 *    measurements (models/scaling.h: rank 2 ALS, ridge 0.01, 100 sweeps by default;
 *    tests/test_completion.c bounds its error on held-back measured points).  Once per job
 *    type per run; "oracle": true uses the true rates instead (an ablation).
 * 2. Slot size (section 4.2).  r = total GPUs / active jobs; s = 1 if r <= 1.5, 4 if r >= 3,
 *    else 2 (at most kmax).
 * 3. Matching.  Type i's GPUs make floor(count_i / s) slots.  Job j on a slot of type i
 *    weighs  w_ji = R_j t_i(s)^2 / t_i(1),  R_j its iterations left and t_i(n) = 1 / thr_i(n)
 *    (seconds per iteration, from the estimate).  A minimum-weight full (maximum-cardinality)
 *    matching of slots to jobs (sched/assign.h, exact, tested against brute force) decides
 *    who runs on what type.
 * 4. Opportunistic trading (section 4.3).  While a job is unscheduled: the scheduled job with
 *    more than one GPU (and more than its min_workers) with the lowest p1 = 2 (thr(n) -
 *    thr(n-1)) / thr(n) and the unscheduled job with the highest p2 = thr(1) / thr(s) on the
 *    donor's type; if p1 <= p2 one GPU moves from the first to the second, else it stops.
 *
 * Assumptions the paper leaves open, each a choice made here:
 *  - a job on a slot of size s uses the count n in [min_workers, min(s, max_workers, kmax)]
 *    with the highest estimated throughput (ties: fewer), the rest of the slot stays free for
 *    others: the point of estimating scaling efficiency is not to hand a job GPUs that slow
 *    it down (Heet's batch-64 profiles do); t_i(s) in the weight is at that n.  A job whose
 *    min_workers exceeds s cannot take a slot this round;
 *  - GPUs still free after the matching (slot remainders, unusable slots) first go to
 *    unscheduled jobs in order of least remaining time on their best type, min_workers each,
 *    on the type where that is fastest; after trading, GPUs still free go one at a time to
 *    the running job of that type with the largest gain thr(n+1) - thr(n) > 0, up to its max;
 *  - decisions only at round boundaries (120 s, Heet's prototype); every change of a job's
 *    GPU count or type restarts it (the world's restart delay); a job whose type and count
 *    stay keeps its very GPUs (plan_commit);
 *  - a type the estimate says the job cannot run on has no edge.
 * Cost per round: O(A T K) for the weights, the matching O(min(A, S) (A T + T^3)), trading
 * O(A) per moved GPU; the completion once per job type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/scaling.h"
#include "../assign.h"
#include "../plan.h"
#include "../policy.h"
#include "heet.h"

struct est {                    /* per job type: its estimated rates, once per run */
    int    valid;
    double thr[CLUSTER_MAX_TYPES * (SCALING_MAX_N + 1)];
};

struct hj {                     /* one active job this round */
    const struct train_job *job;
    const double *thr;          /* its est row: thr[i * (kmax + 1) + n] */
    double left;                /* iterations left */
    double left_s;              /* left at its best single-GPU rate */
    int    lo, hi;              /* its worker range, within [1, kmax] */
    int    type, n;             /* decided: cluster type slot (-1 none) and GPU count */
};

struct heet {
    occ              *scratch;
    const tput       *model;
    int               kmax, extra, oracle;
    struct completion_opts co;
    struct est       *est;      /* by job type */
    int               njt;
    struct hj        *j;
    size_t            jcap;
    double           *cost;
    size_t            ccap;
    int              *match;
    size_t            mcap;
    struct plan_pick *picks;
    size_t            pcap;
};

static const char *const heet_params[] = { "max_count", "profiled", "rank", "lambda", "iters",
                                           "oracle", NULL };

static int heet_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    struct heet *h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_run(err, "out of memory");
    int64_t kmax = 4, extra = 2, rank = 2, iters = 100;
    double lambda = 0.01;
    int oracle = 0;
    if (jobj_int(params, "max_count", JOPT, 1, SCALING_MAX_N, &kmax, err) < 0 ||
        jobj_int(params, "profiled", JOPT, 0, 1000, &extra, err) < 0 ||
        jobj_int(params, "rank", JOPT, 1, COMPLETION_MAX_RANK, &rank, err) < 0 ||
        jobj_int(params, "iters", JOPT, 1, 100000, &iters, err) < 0 ||
        jobj_num(params, "lambda", JOPT, 0, 1e6, &lambda, err) < 0 ||
        jobj_bool(params, "oracle", JOPT, &oracle, err) < 0) {
        free(h);
        return -1;
    }
    h->kmax = (int)kmax;
    h->extra = (int)extra;
    h->oracle = oracle;
    h->co = (struct completion_opts){ (int)rank, lambda, (int)iters };
    h->model = env->model;
    h->njt = tput_ntypes(env->model);
    h->est = calloc((size_t)h->njt, sizeof *h->est);
    if (h->est == NULL || (h->scratch = occ_create(env->cl)) == NULL) {
        free(h->est);
        free(h);
        return err_run(err, "out of memory");
    }
    *self = h;
    return 0;
}

static void heet_destroy(void *self)
{
    struct heet *h = self;
    occ_destroy(h->scratch);
    free(h->est);
    free(h->j);
    free(h->cost);
    free(h->match);
    free(h->picks);
    free(h);
}

/* Job j's type's estimated rates, profiled and completed the first time it is seen. */
static const double *estimate(struct heet *h, const struct train_view *v,
                              const struct train_job *j, struct errbuf *err)
{
    struct est *e = &h->est[j->jtype];
    if (e->valid)
        return e->thr;
    const int *types;
    int nt = cluster_types(v->cl, &types), w = h->kmax + 1;
    double prof[CLUSTER_MAX_TYPES * (SCALING_MAX_N + 1)] = { 0 }, thr1[CLUSTER_MAX_TYPES];
    unsigned char mask[CLUSTER_MAX_TYPES * (SCALING_MAX_N + 1)];
    for (int i = 0; i < nt; i++)
        thr1[i] = train_view_rate(v, j, types[i], 1);
    if (h->oracle) {
        for (int i = 0; i < nt; i++)
            for (int n = 1; n <= h->kmax; n++)
                e->thr[i * w + n] = train_view_rate(v, j, types[i], n);
    } else {
        scaling_profile_points(thr1, nt, h->kmax, h->extra, mask);
        for (int i = 0; i < nt; i++)
            for (int n = 1; n <= h->kmax; n++)
                if (mask[i * w + n])        /* profiling: a run on those GPUs */
                    prof[i * w + n] = train_view_rate(v, j, types[i], n);
        if (scaling_estimate(h->model, types, nt, h->kmax, j->jtype, prof, mask, &h->co,
                             e->thr) < 0) {
            err_run(err, "heet: scaling-efficiency completion failed (out of memory)");
            return NULL;
        }
    }
    e->valid = 1;
    return e->thr;
}

static double thr_of(const struct heet *h, const struct hj *x, int type, int n)
{
    return n < 1 ? 0 : x->thr[type * (h->kmax + 1) + (n > h->kmax ? h->kmax : n)];
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* How many GPUs of a slot of size s on type i job x uses: the count in [lo, min(s, hi)]
 * with the highest estimated throughput (ties: fewer), so that a job that slows down on
 * more GPUs (small batches) does not take them. */
static int slot_use(const struct heet *h, const struct hj *x, int i, int s)
{
    int top = clamp(s, x->lo, x->hi), best = x->lo;
    for (int n = x->lo + 1; n <= top; n++)
        if (thr_of(h, x, i, n) > thr_of(h, x, i, best))
            best = n;
    return best;
}

int heet_slot_size(int gpus, int active, int kmax)
{
    int s = 4;
    if (active > 0) {
        double r = (double)gpus / active;
        s = r <= 1.5 ? 1 : r >= 3 ? 4 : 2;
    }
    return s > kmax ? kmax : s;
}

double heet_weight(double left, double thr1, double thr_s)
{
    if (!(thr1 > 0) || !(thr_s > 0))
        return INFINITY;
    /* R t(s)^2 / t(1) with t = 1 / thr */
    return left * thr1 / (thr_s * thr_s);
}

double heet_price_donor(double thr_n, double thr_n1)
{
    return thr_n > 0 ? 2 * (thr_n - thr_n1) / thr_n : 0;
}

double heet_price_taker(double thr1, double thr_s)
{
    return thr1 / thr_s;
}

/* Trading (step 4): one GPU at a time from the cheapest donor to the dearest waiting job. */
static void trade(struct heet *h, size_t n, int s)
{
    for (;;) {
        int d = -1, r = -1;
        double p1 = 0, p2 = 0;
        for (size_t k = 0; k < n; k++) {
            const struct hj *x = &h->j[k];
            if (x->type < 0 || x->n <= 1 || x->n <= x->lo)
                continue;
            double p = heet_price_donor(thr_of(h, x, x->type, x->n),
                                        thr_of(h, x, x->type, x->n - 1));
            if (d < 0 || p < p1) {
                d = (int)k;
                p1 = p;
            }
        }
        if (d < 0)
            return;
        int t = h->j[d].type;
        for (size_t k = 0; k < n; k++) {
            const struct hj *x = &h->j[k];
            if (x->type >= 0 || x->lo > 1)
                continue;
            double one = thr_of(h, x, t, 1), at_s = thr_of(h, x, t, clamp(s, 1, x->hi));
            if (!(one > 0) || !(at_s > 0))
                continue;
            double p = heet_price_taker(one, at_s);
            if (r < 0 || p > p2) {
                r = (int)k;
                p2 = p;
            }
        }
        if (r < 0 || p1 > p2)
            return;
        h->j[d].n--;
        h->j[r].type = t;
        h->j[r].n = 1;
    }
}

static int heet_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct heet *h = self;
    const int *types;
    int nt = cluster_types(v->cl, &types), failed = 0, total = 0, count[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        total += count[i] = train_view_type_cap(v, types[i]);
    size_t na = (size_t)v->n_active;
    h->j = plan_grow(h->j, &h->jcap, na, sizeof *h->j, &failed);
    h->cost = plan_grow(h->cost, &h->ccap, na * nt, sizeof *h->cost, &failed);
    h->match = plan_grow(h->match, &h->mcap, na, sizeof *h->match, &failed);
    h->picks = plan_grow(h->picks, &h->pcap, na, sizeof *h->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");

    int s = heet_slot_size(total, v->n_active, h->kmax);
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        struct hj *x = &h->j[n];
        if ((x->thr = estimate(h, v, j, err)) == NULL)
            return -1;
        x->job = j;
        x->left = j->work - train_view_done(j, v->now);
        x->lo = j->min_workers;
        x->hi = j->max_workers < h->kmax ? j->max_workers : h->kmax;
        if (x->hi < x->lo)          /* beyond the tensor: its last column stands for it */
            x->hi = x->lo;
        x->type = -1;
        x->n = 0;
        double b1 = 0;
        for (int i = 0; i < nt; i++)
            if (thr_of(h, x, i, 1) > b1)
                b1 = thr_of(h, x, i, 1);
        x->left_s = b1 > 0 ? x->left / b1 : INFINITY;
        for (int i = 0; i < nt; i++) {
            int size = slot_use(h, x, i, s);
            double t1 = thr_of(h, x, i, 1), ts = thr_of(h, x, i, size);
            h->cost[n * nt + i] = x->lo > s || x->lo > x->hi ? INFINITY
                                                             : heet_weight(x->left, t1, ts);
        }
        n++;
    }
    int cap[CLUSTER_MAX_TYPES], freec[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        cap[i] = count[i] / s;
    double weight;
    if (assign_solve(h->cost, (int)n, nt, cap, h->match, &weight) < 0)
        return err_run(err, "heet: matching failed (out of memory)");
    memcpy(freec, count, sizeof freec);
    for (size_t k = 0; k < n; k++) {
        struct hj *x = &h->j[k];
        if (h->match[k] < 0)
            continue;
        x->type = h->match[k];
        x->n = slot_use(h, x, x->type, s);
        freec[x->type] -= x->n;
    }
    /* free GPUs to unscheduled jobs, least remaining time first (an assumption, header) */
    for (;;) {
        int pick = -1, pt = -1;
        for (size_t k = 0; k < n; k++) {
            const struct hj *x = &h->j[k];
            if (x->type >= 0 || x->lo > x->hi || (pick >= 0 && !(x->left_s < h->j[pick].left_s)))
                continue;
            int bt = -1;
            for (int i = 0; i < nt; i++)
                if (freec[i] >= x->lo && thr_of(h, x, i, x->lo) > 0 &&
                    (bt < 0 || thr_of(h, x, i, x->lo) > thr_of(h, x, bt, x->lo)))
                    bt = i;
            if (bt >= 0) {
                pick = (int)k;
                pt = bt;
            }
        }
        if (pick < 0)
            break;
        h->j[pick].type = pt;
        h->j[pick].n = h->j[pick].lo;
        freec[pt] -= h->j[pick].lo;
    }
    trade(h, n, s);
    for (int i = 0; i < nt; i++) {     /* what trading freed nobody: grow by marginal gain */
        int used = 0;
        for (size_t k = 0; k < n; k++)
            if (h->j[k].type == i)
                used += h->j[k].n;
        freec[i] = count[i] - used;
        while (freec[i] > 0) {
            int best = -1;
            double bg = 0;
            for (size_t k = 0; k < n; k++) {
                const struct hj *x = &h->j[k];
                if (x->type != i || x->n >= x->hi)
                    continue;
                double g = thr_of(h, x, i, x->n + 1) - thr_of(h, x, i, x->n);
                if (g > bg) {
                    bg = g;
                    best = (int)k;
                }
            }
            if (best < 0)
                break;
            h->j[best].n++;
            freec[i]--;
        }
    }
    int npicks = 0;
    for (size_t k = 0; k < n; k++)
        if (h->j[k].type >= 0 && h->j[k].n > 0)
            h->picks[npicks++] = (struct plan_pick){ h->j[k].job, types[h->j[k].type],
                                                     h->j[k].n };
    struct plan p;
    plan_begin(&p, v, h->scratch, out, PLAN_FULL);
    return plan_commit(&p, h->picks, npicks, err);
}

static const struct train_hooks heet_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 120,
    .decide = heet_train,
};

const struct policy_ops policy_heet = {
    .name = "heet",
    .domain = "training",
    .summary = "Heet (ASPLOS'24): completed scaling-efficiency tensor, slot matching, GPU "
               "trading at two prices",
    .params = heet_params,
    .create = heet_create,
    .train = &heet_hooks,
    .destroy = heet_destroy,
};
