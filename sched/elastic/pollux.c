/*
 * pollux: Pollux's scheduling policy (Qiao et al., "Pollux: Co-adaptive Cluster Scheduling
 * for Goodput-Optimized Deep Learning", OSDI 2021, section 4.2, equations of SPEEDUP and
 * FITNESS; the form of petuum/adaptdl osdi21-artifact @c793c70, simulator/pollux.py and
 * speedup.py, read, not copied).  An elastic policy (sim/train/elastic_view.h) for
 * Pollux-compatible mode whose jobs choose their own batch (adaptive_batch: the world runs
 * Pollux's agent, sim/train/pollux.c, fitting each job's throughput model online).
 *
 * Every tick, over the A active jobs and the N nodes (G GPUs):
 *  - Speedup of job j at n nodes and r replicas (SPEEDUP_j(a) = GOODPUT_j(a) /
 *    GOODPUT_j(a_fair)): goodput_optimize's best goodput (models/goodput.h: its fitted
 *    model and latest gradient statistics, the batch and accumulation chosen within its
 *    application's limits) over that at its fair share, ceil(G / A) replicas on ceil(N / G)
 *    nodes (pollux.py's Problem: one GPU per replica, so the dominant share is 1 / G).  A job
 *    not yet observed has no model; Pollux's prior is then linear scaling, r / ceil(G / A).
 *  - Scaled speedup s_j = speedup x (1 / G) x N, so that one node's worth is 1.
 *  - Restart penalty: a job whose per-node counts differ from its current ones has s_j
 *    multiplied by max(age - restarts x D, 0) / (age + D), D = restart_s (30 s: pollux.py's
 *    delay), age = now - submission.
 *  - Objective (FITNESS): the power mean ((1 / A) sum_j (s_j + 1e-3)^p)^(1 / p) with p =
 *    -1, as the artifact's pollux.py sets it (parameter p; p = 0 is the geometric mean of
 *    max(s_j, 1e-3)).  Pollux's second objective (cluster utility, for autoscaling) only
 *    breaks ties in its Pareto front and is not used: the artifact picks the best mean.
 *  - Constraints (pollux.py's repair): GPUs per node; r_j <= max replicas = min(max(2 x the
 *    most replicas it was observed on, 1), 64, max batch / min local batch), 1 for
 *    applications capped under elastic policies (ncf); at most 16 nodes per job; at most
 *    one distributed (multi-node) job with replicas on any node; min replicas 0.
 * Search (replaces Pollux's NSGA-II genetic algorithm, 100 generations of 100, seeded by the
 * previous tick's population; deterministic here): a steepest-ascent local search over the
 * job x node count matrix, from two starts — the current allocation (repaired: a job whose
 * row breaks a constraint starts empty) and the empty one filled greedily one GPU at a
 * time by the largest gain in the objective (Optimus-style marginal gain; the first A moves
 * give every job its first GPU, as p = -1 wants) — keeping the better end point (ties to the
 * current allocation).  Moves: add a GPU of a job on a node, remove one, move one of a job's
 * GPUs to another node, hand a GPU of a full node from one job to another, put a job back on
 * its current GPUs, and put a job whole on one node with any count that fits there; the best
 * move is taken — a larger objective, or an equal one with fewer node spans summed over the
 * jobs (a compact placement leaves nodes free for multi-node jobs; lexicographic, so the
 * search ends) — ties to the first in job order (attained service, then submission, as
 * pollux.py sorts) and node order, until none improves or 2 (G + A) + 16 moves were made.
 * The end point is a local optimum for these moves, not a proven global one:
 * tests/test_pollux_policy.c compares it with brute force over every allocation of 2-3 jobs
 * on 1-2 nodes of 4 GPUs (48 instances): the optimum in 44, never below 0.962 of it; the
 * misses need two jobs to trade nodes, which no single move improves on.
 * Output: a job whose counts are unchanged keeps its list as it was (no restart); others get
 * their GPUs grouped by node in node order.
 * Open points and assumptions: (1) a fair-share goodput of 0 (no valid batch at ceil(G /
 * A) replicas) would make every speedup infinite; the one-GPU goodput is used instead;
 * (2) the restart delay is the policy's parameter restart_s, which should equal the
 * world's sim.restart_s; (3) Pollux's interference avoidance and autoscaling are off, as
 * in the artifact's runs; (4) ties in the genetic algorithm's population are a matter of
 * its random numbers, so no tie rule of Pollux's exists to copy.
 * Cost per call: speedups memoised per (job, nodes, replicas), each O(50) goodput
 * evaluations, and kept for the next call while a job's model, statistics and fair share
 * are unchanged; per search move O(A N (N + g) + N g A) candidate moves for g GPUs per node,
 * each O(N).  Workload-1 (160 jobs, 64 GPUs, 1,100 ticks): about 4 CPU s, agent fits
 * included.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/goodput.h"
#include "../../sim/base/grow.h"
#include "../../sim/train/elastic_view.h"
#include "../policy.h"
#include "pollux.h"

enum { MAX_NODES_PER_JOB = 16, MAX_R = 64, MEMO_N = MAX_NODES_PER_JOB + 1, MEMO_R = MAX_R + 1 };

struct mkey {
    int64_t             id;
    int32_t             has_perf, fair_r, fair_n;
    struct goodput_perf perf;
    struct goodput_grad grad;
};

struct pollux {
    double   p, restart_s;
    /* per call, sized for the view */
    int32_t *order, *x, *base, *best, *freeg, *ndist, *r, *k, *ndiff, *maxr, *row, *row2;
    double  *term, *factor, *memo, *basegp;
    size_t   jcap, ncap;
    /* the speedups of the previous call, reused for a job whose model, statistics and fair
     * share are unchanged (most ticks: they change at observations and epochs) */
    double        *memo_old;
    struct mkey   *key, *key_old;
    int32_t        nold;
};

static int pollux_create(void **self, const struct jobj *params, const struct policy_env *env,
                         struct errbuf *err)
{
    (void)env;
    struct pollux *o = calloc(1, sizeof *o);
    if (o == NULL)
        return err_run(err, "out of memory");
    o->p = -1;
    o->restart_s = 30;
    if (jobj_num(params, "p", JOPT, -10, 1, &o->p, err) < 0 ||
        jobj_num(params, "restart_s", JOPT, 0, 1e6, &o->restart_s, err) < 0) {
        free(o);
        return -1;
    }
    *self = o;
    return 0;
}

static void pollux_destroy(void *self)
{
    struct pollux *o = self;
    if (o == NULL)
        return;
    free(o->order);
    free(o->x);
    free(o->base);
    free(o->best);
    free(o->freeg);
    free(o->ndist);
    free(o->r);
    free(o->k);
    free(o->ndiff);
    free(o->maxr);
    free(o->row);
    free(o->row2);
    free(o->term);
    free(o->factor);
    free(o->memo);
    free(o->memo_old);
    free(o->key);
    free(o->key_old);
    free(o->basegp);
    free(o);
}

static int reserve(struct pollux *o, size_t J, size_t N, struct errbuf *err)
{
    int failed = 0;
    if (J + 1 > o->jcap || N + 1 > o->ncap) {
        size_t jc = J + 1 > o->jcap ? 2 * (J + 1) : o->jcap;
        size_t nc = N + 1 > o->ncap ? N + 1 : o->ncap;
        o->order = grow_array(o->order, jc, sizeof *o->order, &failed);
        o->x = grow_array(o->x, jc * nc, sizeof *o->x, &failed);
        o->base = grow_array(o->base, jc * nc, sizeof *o->base, &failed);
        o->best = grow_array(o->best, jc * nc, sizeof *o->best, &failed);
        o->freeg = grow_array(o->freeg, nc, sizeof *o->freeg, &failed);
        o->ndist = grow_array(o->ndist, nc, sizeof *o->ndist, &failed);
        o->row = grow_array(o->row, nc, sizeof *o->row, &failed);
        o->row2 = grow_array(o->row2, nc, sizeof *o->row2, &failed);
        o->r = grow_array(o->r, jc, sizeof *o->r, &failed);
        o->k = grow_array(o->k, jc, sizeof *o->k, &failed);
        o->ndiff = grow_array(o->ndiff, jc, sizeof *o->ndiff, &failed);
        o->maxr = grow_array(o->maxr, jc, sizeof *o->maxr, &failed);
        o->term = grow_array(o->term, jc, sizeof *o->term, &failed);
        o->factor = grow_array(o->factor, jc, sizeof *o->factor, &failed);
        o->basegp = grow_array(o->basegp, jc, sizeof *o->basegp, &failed);
        o->memo = grow_array(o->memo, jc * MEMO_N * MEMO_R, sizeof *o->memo, &failed);
        o->memo_old = grow_array(o->memo_old, jc * MEMO_N * MEMO_R, sizeof *o->memo_old,
                                 &failed);
        o->key = grow_array(o->key, jc, sizeof *o->key, &failed);
        o->key_old = grow_array(o->key_old, jc, sizeof *o->key_old, &failed);
        if (failed)
            return err_run(err, "out of memory");
        o->jcap = jc;
        o->ncap = nc;
    }
    return 0;
}

/* The search's state and what it needs of the view. */
struct search {
    struct pollux            *o;
    const struct elastic_view *v;
    int32_t                   J, N, G, fair_r, fair_n;
    double                    total;    /* sum of the jobs' terms */
    int32_t                   spans;    /* sum of the jobs' node counts: the tie-breaker */
};

static struct goodput_limits limits_of(const struct elastic_job *j)
{
    const struct elastic_limits *l = elastic_limits(j->prof);
    return (struct goodput_limits){ l->init_bsz, l->max_bsz, l->min_local_bsz,
                                    l->max_local_bsz, 1 };
}

void pollux_fair_share(int gpus, int nodes, int jobs, int *fair_n, int *fair_r)
{
    int g = gpus > 0 ? gpus : 1;
    *fair_r = jobs > 0 ? (gpus + jobs - 1) / jobs : 1;
    if (*fair_r < 1)
        *fair_r = 1;
    *fair_n = nodes > 0 ? (nodes + g - 1) / g : 1;
    if (*fair_n > *fair_r)
        *fair_n = *fair_r;
}

double pollux_fair_goodput(const struct elastic_job *j, int fair_n, int fair_r)
{
    if (!j->has_perf)
        return 1;
    struct goodput_limits gl = limits_of(j);
    struct goodput_choice c;
    goodput_optimize(&j->perf, &j->grad, &gl, fair_n, fair_r, &c);
    if (!(c.goodput > 0))
        goodput_optimize(&j->perf, &j->grad, &gl, 1, 1, &c);
    return c.goodput > 0 ? c.goodput : 1;
}

double pollux_speedup(const struct elastic_job *j, int n, int r, double fair_goodput,
                      int fair_r)
{
    if (r == 0)
        return 0;
    if (!j->has_perf)
        return (double)r / fair_r;      /* Pollux's prior: linear scaling */
    struct goodput_limits l = limits_of(j);
    struct goodput_choice c;
    goodput_optimize(&j->perf, &j->grad, &l, n, r, &c);
    return c.goodput / fair_goodput;
}

double pollux_restart_factor(double age_s, int restarts, double restart_s)
{
    return fmax(age_s - restarts * restart_s, 0) / (age_s + restart_s);
}

/* SPEEDUP_j(n, r), memoised. */
static double speedup(struct search *s, int32_t j, int32_t n, int32_t r)
{
    if (r == 0)
        return 0;
    /* beyond the caps only while a move is tried: feasible() rejects the state */
    if (n > MAX_NODES_PER_JOB || r > MAX_R)
        return 0;
    double *m = &s->o->memo[((size_t)j * MEMO_N + (size_t)n) * MEMO_R + (size_t)r];
    if (*m < 0)
        *m = pollux_speedup(&s->v->jobs[j], n, r, s->o->basegp[j], s->fair_r);
    return *m;
}

/* the objective's term of one job: larger is better, for any p */
static double term_of(const struct search *s, double scaled)
{
    double p = s->o->p;
    if (p == 0)
        return log(fmax(scaled, 1e-3));
    if (p == -1)
        return -1 / (scaled + 1e-3);
    double t = pow(scaled + 1e-3, p);
    return p < 0 ? -t : t;
}

static double job_term(struct search *s, int32_t j)
{
    struct pollux *o = s->o;
    double sp = speedup(s, j, o->k[j], o->r[j]) * s->N / s->G;
    if (o->ndiff[j] > 0)
        sp *= o->factor[j];
    return term_of(s, sp);
}

/* x[j][n] += d, with every count kept in step (O(N) when j is or becomes distributed). */
static void apply(struct search *s, int32_t j, int32_t n, int32_t d)
{
    struct pollux *o = s->o;
    int32_t N = s->N, *x = o->x + (size_t)j * N, *b = o->base + (size_t)j * N;
    if (o->k[j] > 1)
        for (int32_t m = 0; m < N; m++)
            if (x[m] > 0)
                o->ndist[m]--;
    o->ndiff[j] -= x[n] != b[n];
    s->spans -= o->k[j];
    if (x[n] == 0 && d > 0)
        o->k[j]++;
    x[n] += d;
    if (x[n] == 0 && d < 0)
        o->k[j]--;
    s->spans += o->k[j];
    o->ndiff[j] += x[n] != b[n];
    o->r[j] += d;
    o->freeg[n] -= d;
    if (o->k[j] > 1)
        for (int32_t m = 0; m < N; m++)
            if (x[m] > 0)
                o->ndist[m]++;
    s->total -= o->term[j];
    o->term[j] = job_term(s, j);
    s->total += o->term[j];
}

/* Job j's constraints (the others' hold already); node n's capacity. */
static int feasible(const struct search *s, int32_t j, int32_t n)
{
    const struct pollux *o = s->o;
    if (o->freeg[n] < 0 || o->r[j] > o->maxr[j] || o->k[j] > MAX_NODES_PER_JOB)
        return 0;
    if (o->k[j] > 1) {
        const int32_t *x = o->x + (size_t)j * s->N;
        for (int32_t m = 0; m < s->N; m++)
            if (x[m] > 0 && o->ndist[m] > 1)
                return 0;
    }
    return 1;
}

/* set job j's row to `row`, in place; 1 if the result is feasible */
static int set_row(struct search *s, int32_t j, const int32_t *row)
{
    int32_t *x = s->o->x + (size_t)j * s->N;
    int ok = 1;
    for (int32_t n = 0; n < s->N; n++)
        if (x[n] > row[n])
            apply(s, j, n, row[n] - x[n]);
    for (int32_t n = 0; n < s->N; n++)
        if (x[n] < row[n]) {
            apply(s, j, n, row[n] - x[n]);
            ok &= s->o->freeg[n] >= 0;      /* only an added GPU can overfill a node */
        }
    return ok && feasible(s, j, 0) && s->o->freeg[0] >= 0;
}

enum move_kind { MV_NONE, MV_ADD, MV_REMOVE, MV_MOVE, MV_HAND, MV_BACK, MV_PLACE };
struct move {
    enum move_kind kind;
    int32_t        j, i, n, m;      /* job(s) and node(s); MV_PLACE: m GPUs on node n */
    double         total;
    int32_t        spans;
};

/* better: a larger objective, or the same with fewer node spans (a compact placement
 * leaves nodes to distributed jobs; lexicographic, so the search still terminates) */
static void consider(struct search *s, struct move *best, struct move cand)
{
    double eps = 1e-12 * (1 + fabs(best->total));
    if (s->total > best->total + eps ||
        (s->total >= best->total - eps && s->spans < best->spans)) {
        cand.total = s->total;
        cand.spans = s->spans;
        *best = cand;
    }
}

/* The best move from the current state; kind MV_NONE if none improves.  `adds_only`: the
 * greedy fill (add moves only). */
static void best_move(struct search *s, int adds_only, struct move *best)
{
    struct pollux *o = s->o;
    int32_t N = s->N;
    *best = (struct move){ MV_NONE, -1, -1, -1, -1, s->total, s->spans };
    for (int32_t q = 0; q < s->J; q++) {
        int32_t j = o->order[q];
        int32_t *x = o->x + (size_t)j * N;
        for (int32_t n = 0; n < N; n++) {
            if (o->freeg[n] <= 0)
                continue;
            apply(s, j, n, 1);
            if (feasible(s, j, n))
                consider(s, best, (struct move){ MV_ADD, j, -1, n, -1, 0, 0 });
            apply(s, j, n, -1);
        }
        if (adds_only)
            continue;
        for (int32_t n = 0; n < N; n++) {
            if (x[n] == 0)
                continue;
            apply(s, j, n, -1);
            consider(s, best, (struct move){ MV_REMOVE, j, -1, n, -1, 0, 0 });
            for (int32_t m = 0; m < N; m++) {
                if (m == n || o->freeg[m] <= 0)
                    continue;
                apply(s, j, m, 1);
                if (feasible(s, j, m))
                    consider(s, best, (struct move){ MV_MOVE, j, -1, n, m, 0, 0 });
                apply(s, j, m, -1);
            }
            apply(s, j, n, 1);
        }
        int32_t *keep = o->row;
        memcpy(keep, x, (size_t)N * sizeof *keep);
        if (o->ndiff[j] > 0) {
            if (set_row(s, j, o->base + (size_t)j * N))
                consider(s, best, (struct move){ MV_BACK, j, -1, -1, -1, 0, 0 });
            set_row(s, j, keep);
        }
        /* the whole job on one node, with any count that fits there */
        int32_t *one = o->row2;
        for (int32_t n = 0; n < N; n++) {
            int32_t room = o->freeg[n] + x[n];
            memset(one, 0, (size_t)N * sizeof *one);
            for (int32_t c = 1; c <= room && c <= o->maxr[j]; c++) {
                one[n] = c;
                if (memcmp(one, keep, (size_t)N * sizeof *one) == 0)
                    continue;
                if (set_row(s, j, one))
                    consider(s, best, (struct move){ MV_PLACE, j, -1, n, c, 0, 0 });
                set_row(s, j, keep);
            }
        }
    }
    if (adds_only)
        return;
    /* a full node's GPU from one holder to another job */
    for (int32_t n = 0; n < N; n++) {
        if (o->freeg[n] != 0)
            continue;
        for (int32_t qi = 0; qi < s->J; qi++) {
            int32_t i = o->order[qi];
            if (o->x[(size_t)i * N + n] == 0)
                continue;
            apply(s, i, n, -1);
            for (int32_t qj = 0; qj < s->J; qj++) {
                int32_t j = o->order[qj];
                if (j == i)
                    continue;
                apply(s, j, n, 1);
                if (feasible(s, j, n))
                    consider(s, best, (struct move){ MV_HAND, j, i, n, -1, 0, 0 });
                apply(s, j, n, -1);
            }
            apply(s, i, n, 1);
        }
    }
}

static void do_move(struct search *s, const struct move *mv)
{
    switch (mv->kind) {
    case MV_ADD:
        apply(s, mv->j, mv->n, 1);
        break;
    case MV_REMOVE:
        apply(s, mv->j, mv->n, -1);
        break;
    case MV_MOVE:
        apply(s, mv->j, mv->n, -1);
        apply(s, mv->j, mv->m, 1);
        break;
    case MV_HAND:
        apply(s, mv->i, mv->n, -1);
        apply(s, mv->j, mv->n, 1);
        break;
    case MV_BACK:
        set_row(s, mv->j, s->o->base + (size_t)mv->j * s->N);
        break;
    case MV_PLACE:
        memset(s->o->row2, 0, (size_t)s->N * sizeof *s->o->row2);
        s->o->row2[mv->n] = mv->m;
        set_row(s, mv->j, s->o->row2);
        break;
    case MV_NONE:
        break;
    }
}

/* Reset the state to the all-zero matrix. */
static void clear_state(struct search *s)
{
    struct pollux *o = s->o;
    memset(o->x, 0, (size_t)s->J * (size_t)s->N * sizeof *o->x);
    memset(o->ndist, 0, (size_t)s->N * sizeof *o->ndist);
    s->total = 0;
    s->spans = 0;
    for (int32_t n = 0; n < s->N; n++)
        o->freeg[n] = s->v->node_gpus[n];
    for (int32_t j = 0; j < s->J; j++) {
        o->r[j] = o->k[j] = 0;
        o->ndiff[j] = 0;
        for (int32_t n = 0; n < s->N; n++)
            o->ndiff[j] += o->base[(size_t)j * s->N + n] != 0;
        o->term[j] = job_term(s, j);
        s->total += o->term[j];
    }
}

static void climb(struct search *s, int adds_only, int limit)
{
    struct move mv = { MV_NONE, -1, -1, -1, -1, 0, 0 };
    for (int it = 0; it < limit; it++) {
        best_move(s, adds_only, &mv);
        if (mv.kind == MV_NONE)
            return;
        do_move(s, &mv);
    }
}

/* pollux.py's job order: attained service, then submission, then id */
static int before(const struct elastic_job *x, const struct elastic_job *y)
{
    if (x->attained_s != y->attained_s)
        return x->attained_s < y->attained_s;
    if (x->submit_s != y->submit_s)
        return x->submit_s < y->submit_s;
    return x->id < y->id;
}

static int pollux_elastic(void *self, const struct elastic_view *v, struct elastic_alloc *out,
                          struct errbuf *err)
{
    struct pollux *o = self;
    int32_t J = v->njobs, N = v->nnodes, G = 0;
    for (int32_t n = 0; n < N; n++)
        G += v->node_gpus[n];
    if (reserve(o, (size_t)J, (size_t)N, err) < 0)
        return -1;
    struct search s = { .o = o, .v = v, .J = J, .N = N, .G = G > 0 ? G : 1 };
    pollux_fair_share(G, N, J, &s.fair_n, &s.fair_r);
    /* last call's speedups: both views list jobs in increasing id */
    double *tm = o->memo;
    o->memo = o->memo_old;
    o->memo_old = tm;
    struct mkey *tk = o->key;
    o->key = o->key_old;
    o->key_old = tk;
    for (int32_t j = 0, q = 0; j < J; j++) {
        const struct elastic_job *jb = &v->jobs[j];
        struct mkey k;
        memset(&k, 0, sizeof k);    /* padding too: keys are compared bytewise */
        k.id = jb->id;
        k.has_perf = jb->has_perf;
        k.fair_r = s.fair_r;
        k.fair_n = s.fair_n;
        if (jb->has_perf) {
            k.perf = jb->perf;
            k.grad = jb->grad;
        }
        o->key[j] = k;
        double *row = o->memo + (size_t)j * MEMO_N * MEMO_R;
        while (q < o->nold && o->key_old[q].id < k.id)
            q++;
        if (q < o->nold && memcmp(&o->key_old[q], &k, sizeof k) == 0) {
            memcpy(row, o->memo_old + (size_t)q * MEMO_N * MEMO_R,
                   MEMO_N * MEMO_R * sizeof *row);
        } else {
            for (size_t i = 0; i < MEMO_N * MEMO_R; i++)
                row[i] = -1;
        }
    }
    o->nold = J;
    for (int32_t j = 0; j < J; j++) {
        const struct elastic_job *jb = &v->jobs[j];
        const struct elastic_limits *l = elastic_limits(jb->prof);
        o->order[j] = j;
        int32_t mr = 2 * jb->max_profiled > 1 ? 2 * jb->max_profiled : 1;
        if (mr > MAX_R)
            mr = MAX_R;
        if (l->max_bsz / l->min_local_bsz < mr)
            mr = l->max_bsz / l->min_local_bsz;
        if (l->elastic_max_replicas > 0 && l->elastic_max_replicas < mr)
            mr = l->elastic_max_replicas;
        o->maxr[j] = mr;
        o->factor[j] = pollux_restart_factor(v->now_s - jb->submit_s, jb->restarts,
                                             o->restart_s);
        o->basegp[j] = pollux_fair_goodput(jb, s.fair_n, s.fair_r);
        int32_t *b = o->base + (size_t)j * N;
        memset(b, 0, (size_t)N * sizeof *b);
        for (int32_t g = 0; g < jb->nalloc; g++)
            b[jb->alloc[g]]++;
    }
    /* insertion sort: stable, and A is tens of jobs */
    for (int32_t i = 1; i < J; i++) {
        int32_t t = o->order[i], m = i;
        while (m > 0 && before(&v->jobs[t], &v->jobs[o->order[m - 1]])) {
            o->order[m] = o->order[m - 1];
            m--;
        }
        o->order[m] = t;
    }
    int limit = 2 * (G + J) + 16;

    /* start 1: the current allocation, job by job in order, a row that breaks a constraint
     * left empty */
    clear_state(&s);
    for (int32_t q = 0; q < J; q++) {
        int32_t j = o->order[q];
        int32_t *zero = o->row;
        if (!set_row(&s, j, o->base + (size_t)j * N)) {
            memset(zero, 0, (size_t)N * sizeof *zero);
            set_row(&s, j, zero);
        }
    }
    climb(&s, 0, limit);
    double best_total = s.total;
    memcpy(o->best, o->x, (size_t)J * N * sizeof *o->x);

    /* start 2: empty, filled greedily, then improved */
    clear_state(&s);
    climb(&s, 1, G);
    climb(&s, 0, limit);
    if (s.total > best_total + 1e-12 * (1 + fabs(best_total)))
        memcpy(o->best, o->x, (size_t)J * N * sizeof *o->x);

    if (elastic_alloc_begin(out, (size_t)J) < 0)
        return err_run(err, "out of memory");
    int32_t *list = o->row;
    for (int32_t j = 0; j < J; j++) {
        const struct elastic_job *jb = &v->jobs[j];
        const int32_t *x = o->best + (size_t)j * N, *b = o->base + (size_t)j * N;
        int rc;
        if (memcmp(x, b, (size_t)N * sizeof *x) == 0) {
            rc = elastic_alloc_set(out, (size_t)j, jb->alloc, (size_t)jb->nalloc);
        } else {
            rc = elastic_alloc_set(out, (size_t)j, NULL, 0);
            for (int32_t n = 0; n < N && rc == 0; n++) {
                /* the scratch row holds N entries: append in pieces of at most N */
                for (int32_t left = x[n]; left > 0 && rc == 0;) {
                    int32_t c = left < N ? left : N;
                    for (int32_t g = 0; g < c; g++)
                        list[g] = n;
                    rc = elastic_alloc_set(out, (size_t)j, list, (size_t)c);
                    left -= c;
                }
            }
        }
        if (rc < 0)
            return err_run(err, "out of memory");
    }
    return 0;
}

static const char *const pollux_params[] = { "p", "restart_s", NULL };

static const struct train_hooks pollux_hooks = {
    .elastic = pollux_elastic,
    .adaptive_batch = 1,
};

const struct policy_ops policy_pollux = {
    .name = "pollux",
    .domain = "training",
    .summary = "Pollux's goodput-optimised allocation (OSDI 2021): per-job speedups from the "
               "online-fitted model, power mean p = -1 with the restart penalty, by a "
               "deterministic local search; jobs pick their batch; Pollux-compatible mode",
    .params = pollux_params,
    .create = pollux_create,
    .train = &pollux_hooks,
    .destroy = pollux_destroy,
};
