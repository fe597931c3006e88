/*
 * static_worst: the static worst-case baseline of Derm's evaluation (ISCA 2024) —
 * provision every service once for the worst-case graph at peak load, and keep it.
 *
 * Worst case: every service takes the load it would have if every request at the peak rate
 * called it as often as the graph type that calls it most (gamma_k = peak x max_g calls_gk),
 * and the SLA must hold for the worst-case graph, the type least likely to meet it at no load
 * (by Derm's chain model: the slowest type).  The containers are Derm's own minimization
 * (msopt.c) for that one type at those loads, the same solver as derm's, so that the
 * comparison isolates what knowing the graph mix is worth.  When even the worst type alone
 * cannot meet the SLA at any allocation, it gets the fastest allocation the cluster holds.
 * The peak is the `peak_rate` parameter, else the workload's declared peak (micro_poisson
 * declares rate x its largest knot); a workload that declares none (a trace) gives the
 * highest interval rate seen so far, and the allocation is recomputed when that grows.
 * With "paths": "critical" each type is modelled by its critical path (msopt.h), for graphs
 * that fan out widely.
 * Parameters: peak_rate (requests/s), iterations (30), trim (true), paths ("all",
 * "critical").
 */
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "msopt.h"

struct sw {
    double  peak_param, done_for;
    int64_t iterations;
    int     trim, paths;
    int    *alloc;
};

static int sw_create(void **self, const struct jobj *params, const struct policy_env *env,
                     struct errbuf *err)
{
    (void)env;
    static const char *const paths[] = { "all", "critical", NULL };
    struct sw *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->iterations = 30;
    s->trim = 1;
    if (jobj_num(params, "peak_rate", JOPT, 1e-9, 1e12, &s->peak_param, err) < 0 ||
        jobj_int(params, "iterations", JOPT, 1, 10000, &s->iterations, err) < 0 ||
        jobj_bool(params, "trim", JOPT, &s->trim, err) < 0 ||
        jobj_enum(params, "paths", JOPT, paths, &s->paths, err) < 0) {
        free(s);
        return -1;
    }
    *self = s;
    return 0;
}

static void sw_destroy(void *self)
{
    struct sw *s = self;
    free(s->alloc);
    free(s);
}

static int sw_decide(void *self, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct sw *s = self;
    const struct micro_app *a = v->app;
    int S = a->nservices;
    double peak = s->peak_param > 0 ? s->peak_param : v->peak_rate;
    if (s->alloc != NULL && peak <= s->done_for) {
        memcpy(out, s->alloc, (size_t)S * sizeof *out);
        return 0;
    }
    if (!(peak > 0))
        return 0;
    int G = a->ngraphs;
    double *worst = calloc((size_t)S, sizeof *worst), *gamma = calloc((size_t)S, sizeof *gamma);
    struct msopt_chain *ch = calloc((size_t)G, sizeof *ch);
    if (s->alloc == NULL)
        s->alloc = calloc((size_t)S, sizeof *s->alloc);
    if (worst == NULL || gamma == NULL || ch == NULL || s->alloc == NULL) {
        free(worst), free(gamma), free(ch);
        return err_run(err, "out of memory");
    }
    for (int k = 0; k < S; k++) {
        for (int g = 0; g < G; g++)
            if (a->graph[g].calls_per_service[k] > worst[k])
                worst[k] = a->graph[g].calls_per_service[k];
        gamma[k] = peak * worst[k];
    }
    /* the worst-case type: the least likely to meet the SLA at no load */
    int worst_g = 0;
    double worst_p = 2;
    for (int g = 0; g < G; g++) {
        struct msopt_chain one = { a->graph[g].calls_per_service, 1, g };
        struct msopt_problem z = { .app = a, .gamma = gamma, .chain = &one, .nchains = 1,
                                   .sla_s = v->sla_s, .quantile = v->quantile,
                                   .paths = s->paths };
        double pz = msopt_prob_idle(&z);
        if (pz < worst_p) {
            worst_p = pz;
            worst_g = g;
        }
    }
    ch[0] = (struct msopt_chain){ a->graph[worst_g].calls_per_service, 1, worst_g };
    struct msopt_problem pr = { .app = a, .gamma = gamma, .chain = ch, .nchains = 1,
                                .sla_s = v->sla_s, .quantile = v->quantile,
                                .cap_cpus = v->capacity_cpus,
                                .iterations = (int)s->iterations, .trim = s->trim,
                                .paths = s->paths };
    struct msopt_result res;
    int rc = msopt_solve(&pr, s->alloc, &res, err);
    free(worst), free(gamma), free(ch);
    if (rc < 0)
        return -1;
    s->done_for = peak;
    memcpy(out, s->alloc, (size_t)S * sizeof *out);
    return 0;
}

static const char *const sw_params[] = { "peak_rate", "iterations", "trim", "paths", NULL };
static const struct micro_hooks sw_hooks = { .decide = sw_decide };

const struct policy_ops policy_static_worst = {
    .name = "static_worst",
    .domain = "micro",
    .summary = "static: every service provisioned once for the worst-case graph at peak load",
    .params = sw_params,
    .create = sw_create,
    .destroy = sw_destroy,
    .micro = &sw_hooks,
};
