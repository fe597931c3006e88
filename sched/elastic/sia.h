/*
 * sia: the integer program of Sia's per-round allocation (sched/elastic/sia.c says what it
 * models) and the configurations it chooses among, exposed so that tests can hold the
 * answer against brute force and the values against hand-computed ones.
 *
 * Ownership: the caller owns every array; sia_solve and sia_configs keep nothing between
 * calls.
 */
#ifndef HETSIM_SIA_H
#define HETSIM_SIA_H

#include <stddef.h>
#include <stdint.h>

#include "../../sim/base/err.h"
#include "../../sim/train/train_view.h"

/* One configuration of one job: `n` GPUs of type slot `type`, worth `v` (> 0).  A job's
 * configurations are consecutive in the array (same `job`). */
struct sia_cfg {
    int32_t job;
    int     type, n;
    double  v;
};

enum sia_method {
    SIA_ILP,            /* branch and bound from the rounding (the default) */
    SIA_ROUNDING        /* the LP relaxation and the deterministic rounding only */
};

struct sia_how {
    int     method;     /* enum sia_method */
    int64_t node_limit; /* branch-and-bound nodes before it stops with the best found (> 0) */
};

struct sia_result {
    double  obj;            /* the objective of the answer */
    double  rounded_obj;    /* the objective of the rounding (= obj when nothing beats it) */
    double  lp_obj;         /* the LP relaxation's optimum, an upper bound */
    int64_t nodes;          /* branch-and-bound nodes (0: the rounding was already optimal) */
    int     branched;       /* 1: branch and bound ran */
    int     limit_hit;      /* 1: it stopped at node_limit, with the best integer answer found */
};

/* Choose at most one configuration per job so that the GPUs of each type t taken are at most
 * count[t] (nt types), maximizing the sum of the chosen values.  pick[k] (out, nc entries)
 * is 1 for the chosen configurations.  0, or -1 with err set (a GLPK failure, no memory). */
int sia_solve(const struct sia_cfg *c, size_t nc, int nt, const int *count,
              const struct sia_how *how, unsigned char *pick, struct sia_result *res,
              struct errbuf *err);

/* The configurations of every active job of the view and their values (sia.c's header):
 * v_jc = (G_jc / G_j0)^p x (c is the job's current (type, count) ? 1 : max(0.05, 1 - r_j /
 * T)), T the view's round (60 s when it has none), r_j train_view_restore_s.  Written to
 * *c (grown as plan_grow grows, capacity *cap), *nc of them, each job's consecutive; type is
 * the cluster's type slot.  0, or -1 when out of memory. */
int sia_configs(const struct train_view *v, double p, struct sia_cfg **c, size_t *cap,
                size_t *nc);

#endif
