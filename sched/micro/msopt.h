/*
 * msopt: Derm's allocation problem and its solver, shared by the derm and static_worst
 * policies: choose containers n_k per service to minimize sum n_k subject to
 *
 *     sum_c p_c P(E_c <= SLA) >= q        (the q-quantile of the mixture within the SLA)
 *
 * where chain c (a graph type, or a worst case) makes calls[k] calls of service k per request
 * and E_c is, as Derm models it, a hypoexponential: one stage per service it calls, of rate
 * rate_k(w_k) / calls[k] and shift calls[k] s_k (its calls merged into one exponential of the
 * same mean, Derm's artifact's a/n, b/n and s n), w_k = gamma_k / n_k the load per container.
 * With paths "all" a chain is every call of its graph, parallel branches included (Derm's
 * artifact sums every microservice of a chain: an upper bound); with "critical" it is the
 * calls on the graph's critical path (at each stage the child whose subtree has the largest
 * mean latency), found at the loads of the current solution and the problem solved again
 * until the paths hold (at most 4 rounds): for graphs that fan out widely, where the sum
 * of every call says nothing of the latency.
 *
 * Ownership: the problem's arrays are the caller's; msopt_solve writes n (nservices).
 */
#ifndef HETSIM_MSOPT_H
#define HETSIM_MSOPT_H

#include "../../sim/micro/micro_view.h"

struct msopt_chain {
    const double *calls;        /* [nservices] calls per request (paths "all") */
    double        weight;       /* its probability (normalized over the chains) */
    int           graph;        /* paths "critical": the app graph whose critical path it
                                   is, or MSOPT_UNION: the most calls of each service over
                                   every graph's critical path */
};

enum { MSOPT_UNION = -1 };
enum msopt_paths { MSOPT_ALL, MSOPT_CRITICAL };

struct msopt_problem {
    const struct micro_app   *app;
    const double             *gamma;        /* [nservices] calls/s to provision for */
    const struct msopt_chain *chain;
    int                       nchains;
    double                    sla_s, quantile;
    double                    cap_cpus;     /* the containers' cores at most (0: no cap) */
    int                       iterations;   /* Lagrangian iterations */
    int                       trim;         /* remove containers one by one while feasible */
    int                       paths;        /* enum msopt_paths */
};

struct msopt_result {
    int    feasible;        /* the allocation meets the constraint by the model */
    double prob;            /* sum_c p_c P(E_c <= SLA) at the allocation */
    long long total;        /* sum n_k */
    int    feasible_iterates;   /* Lagrangian iterates that were feasible */
};

/* The model's sum_c p_c P(E_c <= x) under allocation n (paths "all": the chains' calls). */
double msopt_prob(const struct msopt_problem *p, const int *n, double x);
/* The model's sum_c p_c P(E_c <= SLA) with every service at no load (the fastest any
 * allocation can be), by the problem's paths. */
double msopt_prob_idle(const struct msopt_problem *p);
/* The calls per service on graph g's critical path at loads per container w. */
void   msopt_path_calls(const struct micro_app *a, int g, const double *w, double *calls);
/* The smallest n_k each service may have: 1, and enough to keep its load within its fit. */
int    msopt_floor(const struct msopt_problem *p, int k);

/* One Lagrangian iteration's move (msopt.c): at loads w, where the constraint's value is G
 * and its gradient g (g_k = -dG/dw_k; services with g_k <= 0 stay where they are), the
 * multiplier mu at which the loads w_k(mu) = sqrt(gamma_k / (mu g_k)), each within
 * (0, max_load], meet the constraint to first order, G - sum_k g_k (w_k(mu) - w_k) = q;
 * w then moves half way to w(mu).  wm: scratch of nservices.  Returns mu. */
double msopt_step(const struct msopt_problem *p, double G, const double *g, double *w,
                  double *wm);

/* Solve; 0 (with res->feasible 0 when no allocation within the cap meets the SLA: then n is
 * the fastest allocation found), -1 out of memory. */
int msopt_solve(const struct msopt_problem *p, int *n, struct msopt_result *res,
                struct errbuf *err);

#endif
