/*
 * loan: the solvers of the broker policies that share one cluster between an LLM serving
 * tenant and a training tenant — Lyra's capacity loaning (Li et al., EuroSys 2023) and the
 * heterogeneous variant of hetsim's `hetero_loan`.  Pure functions of what the tenants report:
 * a broker policy decides with them, the co-simulation applies its decision.
 *
 * The unit of a loan is a server (a node of the cluster), as in Lyra: a node is held by one
 * tenant at a time.  The three decisions:
 *
 *   lend     serving holds nodes whose serving capacity (requests, tokens or GPUs: one unit
 *            for all) exceeds what its load needs, with a headroom; lend the nodes it can spare
 *            so that what it keeps still covers need * (1 + headroom).  Nodes are offered in
 *            the order of a score (highest first): Lyra's `loan` offers them in a fixed order
 *            (its servers are alike), `hetero_loan` by training's gain per unit of serving
 *            capacity lost on the node's GPU type (loan_type_scores).  A node is lent when
 *            what remains after lending it still covers the target: greedy in score order, so
 *            a later node of smaller capacity may still go when an earlier one could not.
 *   reclaim  serving's load rose above what it holds: take back loaned nodes whose capacity
 *            covers the deficit at the least preemption cost.  Lyra picks the servers whose
 *            jobs cost least to preempt; with each node's cost the sum of what reclaiming it
 *            costs its jobs (a job on several nodes counted on each: an over-estimate when two
 *            of its nodes are reclaimed together), the choice is a covering knapsack —
 *            minimize sum cost_i subject to sum cap_i >= deficit — solved exactly by dynamic
 *            programming over integer capacities.  Ties: fewer nodes, then lower node indices.
 *   grow     the GPUs on loan are allocated to elastic jobs by a multiple-choice knapsack, as
 *            Lyra allocates its loaned servers: job j may take x_j in [0, extra_j] more GPUs
 *            with value value_j(x_j) (its throughput gain, value_j(0) = 0); maximize the sum
 *            subject to sum x_j <= G.  Exact DP, O(jobs * G * max extra).
 *
 * hetero_loan's scores (loan_type_scores): for each GPU type, training's gain per GPU (a
 * normalized throughput: what a training job gets on that type relative to its best type)
 * over serving's capacity per GPU of that type (relative to serving's best type); lend the
 * types with the highest ratio first, keep for serving the types it is relatively best on.
 *
 * Ownership: the caller owns every array; the functions allocate only scratch, freed before
 * they return.
 */
#ifndef HETSIM_LOAN_H
#define HETSIM_LOAN_H

#include "../sim/base/err.h"
#include "../sim/colocate/colo_view.h"

/* One node serving holds, as lend sees it. */
struct loan_offer {
    double cap;         /* its serving capacity (> 0), in the unit of `need` */
    double score;       /* lend higher scores first; ties: lower index first */
};

/* Which of the n nodes to lend: lent[i] = 1 or 0; returns how many.  Serving keeps at least
 * need * (1 + headroom) of capacity (need >= 0, headroom >= 0). */
int loan_lend(const struct loan_offer *nodes, int n, double need, double headroom,
                int *lent /* out */);

/* One loaned node, as reclaim sees it. */
struct loan_loaned {
    int    cap;         /* serving capacity it would give back, integer units (>= 0) */
    double cost;        /* the preemption cost of taking it from training (>= 0) */
};

/* The least-cost set of the n loaned nodes whose capacity sums to at least `deficit`
 * (take[i] = 1 or 0).  Returns the number taken; when even all of them fall short, takes them
 * all.  -1 with a message in err when out of memory. */
int loan_reclaim(const struct loan_loaned *nodes, int n, int deficit, int *take /* out */,
                   double *cost /* out, may be NULL */, struct errbuf *err);

/* The multiple-choice knapsack of loaned GPUs to elastic jobs: value[j][x] for x in
 * [0, extra[j]] (value[j][0] is the baseline, usually 0); best x[j] with sum x <= gpus.
 * Returns the total value gained over all-zero, or NAN with a message in err (out of
 * memory). */
double loan_grow(const double *const *value, const int *extra, int njobs, int gpus,
                   int *x /* out */, struct errbuf *err);

/* hetero_loan's score of each GPU type: train_gain[t] / serve_cap[t], each first normalized
 * by its largest over the types (a type serving cannot use, serve_cap 0, scores +infinity:
 * lend it first; a type training gains nothing on scores 0). */
void loan_type_scores(const double *train_gain, const double *serve_cap, int ntypes,
                        double *score /* out */);

/* A broker policy's decision, Lyra's way (sched/colocate/lyra.c, hetero_loan.c): when
 * serving's held capacity falls below demand * (1 + headroom), reclaim the least-cost cover
 * of the deficit among its loaned nodes (loan_reclaim, capacities in units of 1/2,000 of the
 * loaned capacity, at least 1 token/s); otherwise, while training has waiting jobs, lend
 * serving's nodes in order of type_score[type] (highest first; ties: lower node first) as
 * loan_lend allows, until the GPUs lent cover what training waits for (with lend_spare,
 * every node loan_lend spares, whether or not training waits), never lending
 * serving's last pack whose instances take requests.  Every decision is by pack (colo_view.h:
 * the nodes serving's instances tie together move whole): a pack's capacity and cost are its
 * nodes' sums, its score their GPU-weighted mean, so the decision passes colo_check_moves.
 * move[k] as struct colo_decider says.  0, or -1 with err (out of memory). */
struct loan_params {
    double headroom;        /* >= 0 */
    int    lend_spare;      /* 1: lend every node serving can spare, training waiting or not
                               (its elastic jobs may grow onto them); 0: only while jobs wait,
                               as many GPUs as they ask for */
};
int loan_plan(const struct colo_view *v, const struct loan_params *p, const double *type_score,
              int *move /* out */, struct errbuf *err);
/* loan_plan on a belief of serving's capacity cap_factor (in (0, 1]) times the modelled one:
 * every node's serve_cap and serve_held are scaled by it before the plan, so a factor below 1
 * lends less and, when serve_held x cap_factor falls below demand x (1 + headroom), reclaims
 * the cover of the larger deficit, in the scaled capacities.  loan_plan is cap_factor 1. */
int loan_plan_scaled(const struct colo_view *v, const struct loan_params *p,
                     const double *type_score, double cap_factor, int *move /* out */,
                     struct errbuf *err);

/* The SLO guard: hetsim's addition to the loaning policies, not Lyra's.  The modelled full-load
 * capacity is a belief; queueing at partial load (bursts, long prompts) can miss serving's
 * TTFT objective while the broker believes there is room.  The guard watches what a
 * production broker can observe, the fraction of serving's first tokens over the last period
 * that missed the objective (colo_view.serve_slo_miss), and keeps a factor f on the modelled
 * capacity by AIMD, as TCP keeps its window:
 *
 *   a period with no first token, or serving without an objective (miss < 0), is empty:
 *     f stays;
 *   miss > threshold  (missed):  f <- max(f x decrease, LOAN_GUARD_FMIN)
 *   otherwise         (clean):   f <- min(1, f + increase)
 *
 * f starts at 1; the policy plans on f x the modelled capacity (loan_plan_scaled).  Off
 * (threshold < 0) it never moves from 1.  The policy owns one (it lives as long as a run). */
#define LOAN_GUARD_FMIN 1e-3
struct loan_guard {
    double threshold;       /* "slo_guard": a period's miss fraction above which it is
                               missed, in [0, 1); < 0: off */
    double decrease;        /* "slo_decrease": f's factor on a missed period, in (0, 1) */
    double increase;        /* "slo_increase": f's step toward 1 on a clean one, in (0, 1] */
    double f;               /* in [LOAN_GUARD_FMIN, 1] */
    /* over the run, for the policy's metrics */
    int64_t decisions, periods, missed;     /* updates; of them not empty; of those missed */
    double  f_sum, f_min;                   /* f after each update */
};
enum loan_guard_period { LOAN_GUARD_EMPTY, LOAN_GUARD_CLEAN, LOAN_GUARD_MISSED };
/* Off, with the defaults (decrease 0.8, increase 0.05) and f = 1. */
void loan_guard_init(struct loan_guard *g);
/* Is it on ("slo_guard" given)?  Then it watches serving's TTFT objective, which the
 * experiment must give (colo_hooks.watches_slo). */
static inline int loan_guard_on(const struct loan_guard *g) { return g->threshold >= 0; }
/* One period's observation (miss fraction, -1 for none; seen first tokens): updates f as
 * above and returns the period's kind (enum loan_guard_period; always EMPTY when off). */
int loan_guard_update(struct loan_guard *g, double miss, int64_t seen);
/* A loaning policy's guard parameters from its params: "slo_guard" (turns it on, in [0, 1]),
 * "slo_decrease" (in [0.01, 0.99]) and "slo_increase" (in [0.001, 1]), the last two only
 * with the first.  0, or -1 with the field named in err. */
struct jobj;
int loan_guard_read(struct loan_guard *g, const struct jobj *params, struct errbuf *err);
/* The guard's figures over the run, when on: slo_guard_periods (decisions that saw first
 * tokens), slo_guard_missed (of them missed), slo_guard_f_min, slo_guard_f_mean (f after
 * each decision, mean over decisions). */
struct policy_metric_sink;
int loan_guard_metrics(const struct loan_guard *g, const struct policy_metric_sink *out,
                       struct errbuf *err);

#endif
