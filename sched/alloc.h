/*
 * alloc: target allocations, the common currency of round-based heterogeneity-aware policies
 * (Gavel's LPs, FFT's ILP, OEF, Themis).  Such a policy solves an alloc_problem — jobs x GPU
 * types with throughputs — into x[j][t], the fraction of time job j should spend on type t
 * (row sums <= 1, sum_j scale_j x[j][t] <= capacity_t).  An integral assignment (FFT) is the
 * special case x in {0, 1}.
 *
 * Two consumers:
 *  - native mode: alloc_train() is the policy's train hook.  Every round it rebuilds the
 *    problem from the view, asks the policy for x (again only when the set of jobs or the
 *    capacity per type changed, unless the policy wants every round), and realizes x as
 *    this round's placement the way
 *    Gavel does: (job, type) pairs by priority = x / (share of rounds received on that type),
 *    never-served pairs first, each job on GPUs of one type, running jobs kept in place,
 *    newcomers packed on the fewest nodes.
 *  - Gavel-compatible mode (sim/train/gavel.c) builds the problem from Gavel's table and runs its own
 *    rounds.
 *
 * Ownership: the policy embeds struct alloc_base as the FIRST member of its state (so that
 * alloc_train can find it from `self`), calls alloc_base_init in create and alloc_base_fini
 * in destroy.  Problem arrays are owned by whoever built the problem.
 */
#ifndef HETSIM_ALLOC_H
#define HETSIM_ALLOC_H

#include "../sim/train/alloc_view.h"
#include "../sim/train/train_view.h"
#include "policy.h"

struct alloc_base {
    alloc_fn  allocate;
    int       every_round;      /* 1: re-solve every round, else only when the job set or a
                                   capacity changes */
    occ      *scratch;
    /* problem buffers, grown as needed */
    size_t    cap;
    int64_t  *id;
    int      *scale, *user, *cur_type, *slot;
    double   *weight, *thr, *work, *remaining, *age_s, *attained_s, *restore_s, *x;
    uint64_t  sig;              /* hash of the capacities and job set x was solved for */
    /* round bookkeeping, by job slot: rounds it has been active, rounds received per type */
    size_t    bcap;
    int64_t  *b_id;
    double   *b_seen;
    double   *b_recv;           /* [slot * CLUSTER_MAX_TYPES + t] */
};

int  alloc_base_init(struct alloc_base *b, const struct policy_env *env, alloc_fn fn,
                     int every_round, struct errbuf *err);
void alloc_base_fini(struct alloc_base *b);

/* The train hook of every allocation policy (self starts with struct alloc_base). */
int alloc_train(void *self, const struct train_view *v, struct grant_list *out,
                struct errbuf *err);

/* Check x against the problem: entries in [0, 1] (small tolerance), row sums <= 1, capacity
 * per type; jobs with thr == 0 on a type get nothing there.  0 ok, -1 with err describing the
 * first violation (used by tests and by the dispatch layer). */
int alloc_check(const struct alloc_problem *p, const double *x, double tol, struct errbuf *err);

#endif
