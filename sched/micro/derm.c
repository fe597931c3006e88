/*
 * derm: Derm (Chen et al., ISCA 2024) — containers per microservice for dynamic call graphs
 * under a P95 end-to-end SLA (shared/PAPERS.md, section 6).
 *
 * Every interval: predict the next graph-type mix from the recent ones (Derm's LSTM is replaced
 * by a documented rule, models/mixpred.h: by default the last mix, the most accurate of the
 * rules on Derm's own graph-mix sequences, whose mixes hold and then jump — mean L1 error
 * 0.0064 against 0.012 for an EWMA of weight 0.5 and 0.51 for the long-run mean,
 * tests/test_mixpred.c; "ewma" of weight `alpha` or a "window" mean on request), take the
 * request rate of the last interval as the next one's, and minimize the total containers
 * subject to the predicted mixture of graph types meeting the SLA: sum_g p_g P(E_g <= SLA) >=
 * q, each E_g hypoexponential over the services graph g calls, with rates lambda_k = a_k w_k +
 * b_k conditioned on the load per container w_k (sched/micro/msopt.c: the Lagrangian iteration
 * over w, keeping the cheapest feasible iterate; then `trim`, a local search the paper does not
 * describe).
 *
 * Assumptions the paper leaves open, documented: (1) each graph is modelled as a chain of all
 * its calls, parallel branches included (as Derm's artifact sums every microservice of a
 * chain): an upper bound on a parallel stage, so Derm over-provisions where graphs fan out —
 * or, with "paths": "critical", of the calls on its critical path (msopt.h), for graphs that
 * fan out so widely that the sum says nothing; (2) a service's calls within a graph are one
 * exponential stage of the same mean (the artifact's a/n, b/n); (3) the rate is not predicted
 * (last interval's); (4) before any interval has been measured it provisions for the workload's
 * declared peak rate with the application's graph weights (every policy is offered the same).
 * Parameters: predictor ("last", "ewma", "window"), alpha (0.5), window (10), iterations
 * (30, Derm's), trim (true), paths ("all", "critical").
 */
#include <stdlib.h>
#include <string.h>

#include "../../models/mixpred.h"
#include "../policy.h"
#include "msopt.h"

struct derm {
    struct mixpred pred;
    int64_t        iterations;
    int            trim;
    int            paths;       /* enum msopt_paths */
};

static int derm_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)env;
    static const char *const kinds[] = { "last", "ewma", "window", NULL };
    static const char *const paths[] = { "all", "critical", NULL };
    struct derm *d = calloc(1, sizeof *d);
    if (d == NULL)
        return err_run(err, "out of memory");
    d->pred = (struct mixpred){ MIXPRED_LAST, 0.5, 10 };
    d->iterations = 30;
    d->trim = 1;
    int64_t window = 10;
    if (jobj_enum(params, "predictor", JOPT, kinds, &d->pred.kind, err) < 0 ||
        jobj_num(params, "alpha", JOPT, 1e-6, 1, &d->pred.alpha, err) < 0 ||
        jobj_int(params, "window", JOPT, 1, MICRO_HISTORY, &window, err) < 0 ||
        jobj_int(params, "iterations", JOPT, 1, 10000, &d->iterations, err) < 0 ||
        jobj_bool(params, "trim", JOPT, &d->trim, err) < 0 ||
        jobj_enum(params, "paths", JOPT, paths, &d->paths, err) < 0) {
        free(d);
        return -1;
    }
    d->pred.window = (int)window;
    *self = d;
    return 0;
}

static void derm_destroy(void *self)
{
    free(self);
}

static int derm_decide(void *self, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct derm *d = self;
    const struct micro_app *a = v->app;
    int S = a->nservices, G = a->ngraphs;
    double rate = v->have_last ? v->rate : v->peak_rate;
    if (!(rate > 0))
        return 0;               /* nothing known yet: keep what runs */
    double *p = calloc((size_t)G, sizeof *p), *gamma = calloc((size_t)S, sizeof *gamma);
    struct msopt_chain *ch = calloc((size_t)G, sizeof *ch);
    if (p == NULL || gamma == NULL || ch == NULL) {
        free(p), free(gamma), free(ch);
        return err_run(err, "out of memory");
    }
    if (v->have_last) {
        mixpred_predict(&d->pred, v->hist_mix, v->nhist, G, p);
    } else {
        double t = 0;
        for (int g = 0; g < G; g++)
            t += a->graph[g].weight;
        for (int g = 0; g < G; g++)
            p[g] = t > 0 ? a->graph[g].weight / t : 1.0 / G;
    }
    for (int g = 0; g < G; g++) {
        ch[g] = (struct msopt_chain){ a->graph[g].calls_per_service, p[g], g };
        for (int k = 0; k < S; k++)
            gamma[k] += rate * p[g] * a->graph[g].calls_per_service[k];
    }
    struct msopt_problem pr = { .app = a, .gamma = gamma, .chain = ch, .nchains = G,
                                .sla_s = v->sla_s, .quantile = v->quantile,
                                .cap_cpus = v->capacity_cpus,
                                .iterations = (int)d->iterations, .trim = d->trim,
                                .paths = d->paths };
    struct msopt_result res;
    int rc = msopt_solve(&pr, out, &res, err);
    free(p), free(gamma), free(ch);
    return rc;
}

static const char *const derm_params[] = { "predictor", "alpha", "window", "iterations", "trim",
                                           "paths", NULL };
static const struct micro_hooks derm_hooks = { .decide = derm_decide };

const struct policy_ops policy_derm = {
    .name = "derm",
    .domain = "micro",
    .summary = "predicted graph mix, hypoexponential P95 of the mixture, Lagrangian container "
               "minimization under the SLA",
    .params = derm_params,
    .create = derm_create,
    .destroy = derm_destroy,
    .micro = &derm_hooks,
};
