/*
 * erms: Erms (Luo et al., ASPLOS 2023) — latency targets split over a call graph, then
 * containers per service from its latency profile (shared/PAPERS.md, section 6: the baseline
 * of Derm's evaluation).
 *
 * Profile: each service's P95 call latency against its load per container, L(w) = a w + b,
 * below its inflection point (Erms keeps services there).  For a service with an Erms fit
 * this is the fit's own first segment; for a Derm-style fit (P95 = s + ln 20 / (a w + b),
 * convex) it is fitted the way Erms profiles: a two-segment least-squares fit of that curve
 * at `profile_points` loads over [0, max_load], the inflection chosen to minimize the error.
 * Targets: a call of c repetitions of service k takes c (a_k gamma_k / n_k + b_k); for a
 * chain Erms' split gives each part b + sqrt(a gamma) (T - sum b) / sum sqrt(a gamma); a
 * parallel stage gets one budget, which each of its branches receives whole, and weighs in
 * its parent's split by its heaviest branch (Erms' merging of parallel microservices,
 * as we read it).  Containers: n_k = ceil(a_k gamma_k / (t_k - b_k)) with t_k the per-call
 * target, the largest over every call of every graph type, and at least enough to stay
 * below the inflection.  gamma_k is the service's load measured in the last interval (Erms
 * scales with the workload it observes; it assumes the graph it profiled, not a mix).
 * Where a graph's SLA is below its summed intercepts (no allocation meets it by this
 * model), its services get containers for a twentieth of their inflection load.
 * Before any interval has been measured: the declared peak rate with the application's
 * graph weights, as every policy is offered.  Parameter: profile_points (32).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/erms.h"
#include "../policy.h"

struct erms {
    int64_t points;
    int     S;
    double *a, *b, *infl;       /* per service: the profile's first segment and its end */
};

static int erms_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)env;
    struct erms *e = calloc(1, sizeof *e);
    if (e == NULL)
        return err_run(err, "out of memory");
    e->points = 32;
    if (jobj_int(params, "profile_points", JOPT, 4, 100000, &e->points, err) < 0) {
        free(e);
        return -1;
    }
    *self = e;
    return 0;
}

static void erms_destroy(void *self)
{
    struct erms *e = self;
    free(e->a);
    free(e->b);
    free(e->infl);
    free(e);
}

/* least squares of y on x over [i0, i1) */
static void line(const double *x, const double *y, int i0, int i1, double *a, double *b,
                 double *sse)
{
    double n = i1 - i0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = i0; i < i1; i++) {
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    }
    double d = n * sxx - sx * sx;
    *a = d != 0 ? (n * sxy - sx * sy) / d : 0;
    *b = (sy - *a * sx) / n;
    *sse = 0;
    for (int i = i0; i < i1; i++) {
        double r = y[i] - (*a * x[i] + *b);
        *sse += r * r;
    }
}

static int profile(struct erms *e, const struct micro_app *app, struct errbuf *err)
{
    int S = app->nservices, P = (int)e->points;
    e->S = S;
    e->a = calloc((size_t)S, sizeof *e->a);
    e->b = calloc((size_t)S, sizeof *e->b);
    e->infl = calloc((size_t)S, sizeof *e->infl);
    double *x = calloc((size_t)P, sizeof *x), *y = calloc((size_t)P, sizeof *y);
    if (!e->a || !e->b || !e->infl || !x || !y) {
        free(x), free(y);
        return err_run(err, "out of memory");
    }
    for (int k = 0; k < S; k++) {
        const struct mslat *m = &app->svc[k].lat;
        if (m->kind == MSLAT_ERMS) {
            const struct erms_segment *s = &m->erms.before;
            e->a[k] = s->slope + s->cpu_slope * m->cpu + s->mem_slope * m->mem;
            e->b[k] = s->intercept;
            e->infl[k] = m->erms.inflection < m->max_load ? m->erms.inflection : m->max_load;
            continue;
        }
        for (int i = 0; i < P; i++) {
            x[i] = m->max_load * i / (P - 1);
            y[i] = mslat_p95(m, x[i]);
        }
        double best = INFINITY;
        for (int c = 2; c <= P - 2; c++) {
            double a1, b1, e1, a2, b2, e2;
            line(x, y, 0, c, &a1, &b1, &e1);
            line(x, y, c, P, &a2, &b2, &e2);
            if (e1 + e2 < best) {
                best = e1 + e2;
                e->a[k] = a1;
                e->b[k] = b1;
                e->infl[k] = x[c - 1];
            }
        }
        if (e->a[k] < 1e-15)
            e->a[k] = 1e-15;    /* a flat profile still needs one container per load step */
    }
    free(x), free(y);
    return 0;
}

struct split {
    const struct micro_graph *g;
    const struct erms        *e;
    const double             *gamma;
    double                   *K, *B;    /* per call: the subtree's sqrt weight and intercepts */
    int                      *n;
    int                       infeasible;
};

static void weigh(struct split *sp, int i)
{
    const struct micro_call *c = &sp->g->calls[i];
    int k = c->service;
    double ag = c->count * sp->e->a[k] * sp->gamma[k];
    double K = ag > 0 ? sqrt(ag) : 0, B = c->count * sp->e->b[k];
    for (int s = sp->g->stage_off[i]; s < sp->g->stage_off[i + 1]; s++) {
        double km = 0, bm = 0;
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++) {
            int ch = sp->g->child[j];
            weigh(sp, ch);
            km = sp->K[ch] > km ? sp->K[ch] : km;
            bm = sp->B[ch] > bm ? sp->B[ch] : bm;
        }
        K += km;
        B += bm;
    }
    sp->K[i] = K;
    sp->B[i] = B;
}

/* give the subtree of call i the budget T */
static void assign(struct split *sp, int i, double T)
{
    const struct micro_call *c = &sp->g->calls[i];
    int k = c->service;
    double slack = T - sp->B[i];
    /* a subtree whose latency does not grow with load needs no slack, the others some */
    if (slack < -1e-12 * T || (!(slack > 0) && sp->K[i] > 0)) {
        sp->infeasible = 1;
        return;
    }
    if (slack < 0)
        slack = 0;
    double ag = c->count * sp->e->a[k] * sp->gamma[k];
    double own = c->count * sp->e->b[k] +
                 (sp->K[i] > 0 ? (ag > 0 ? sqrt(ag) : 0) * slack / sp->K[i] : slack);
    /* a service whose latency does not grow with load needs one container */
    long need = ag > 0 ? erms_containers(sp->e->a[k], sp->e->b[k], sp->gamma[k],
                                         own / c->count) : 1;
    if (need < 0)
        sp->infeasible = 1;
    else if (need > sp->n[k])
        sp->n[k] = need > 1000000000 ? 1000000000 : (int)need;
    for (int s = sp->g->stage_off[i]; s < sp->g->stage_off[i + 1]; s++) {
        double km = 0, bm = 0;
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++) {
            int ch = sp->g->child[j];
            km = sp->K[ch] > km ? sp->K[ch] : km;
            bm = sp->B[ch] > bm ? sp->B[ch] : bm;
        }
        double Ts = bm + (sp->K[i] > 0 ? km * slack / sp->K[i] : 0);
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++)
            assign(sp, sp->g->child[j], Ts);
    }
}

static int erms_decide(void *self, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct erms *e = self;
    const struct micro_app *a = v->app;
    int S = a->nservices;
    if (e->a == NULL && profile(e, a, err) < 0)
        return -1;
    double *gamma = calloc((size_t)S, sizeof *gamma);
    if (gamma == NULL)
        return err_run(err, "out of memory");
    if (v->have_last) {
        memcpy(gamma, v->load, (size_t)S * sizeof *gamma);
    } else if (v->peak_rate > 0) {
        double t = 0;
        for (int g = 0; g < a->ngraphs; g++)
            t += a->graph[g].weight;
        for (int g = 0; g < a->ngraphs; g++)
            for (int k = 0; k < S; k++)
                gamma[k] += v->peak_rate * (t > 0 ? a->graph[g].weight / t : 1.0 / a->ngraphs) *
                            a->graph[g].calls_per_service[k];
    } else {
        free(gamma);
        return 0;
    }
    for (int k = 0; k < S; k++) {
        double f = ceil(gamma[k] / e->infl[k] - 1e-9);
        out[k] = f < 1 ? 1 : (int)f;
    }
    int maxc = 0;
    for (int g = 0; g < a->ngraphs; g++)
        maxc = a->graph[g].ncalls > maxc ? a->graph[g].ncalls : maxc;
    double *K = calloc((size_t)maxc, sizeof *K), *B = calloc((size_t)maxc, sizeof *B);
    if (K == NULL || B == NULL) {
        free(gamma), free(K), free(B);
        return err_run(err, "out of memory");
    }
    for (int g = 0; g < a->ngraphs; g++) {
        struct split sp = { &a->graph[g], e, gamma, K, B, out, 0 };
        weigh(&sp, 0);
        assign(&sp, 0, v->sla_s);
        if (sp.infeasible)
            for (int i = 0; i < a->graph[g].ncalls; i++) {
                int k = a->graph[g].calls[i].service;
                double f = ceil(20 * gamma[k] / e->infl[k]);
                if (f > out[k])
                    out[k] = f > 1e9 ? 1000000000 : (int)f;
            }
    }
    free(gamma), free(K), free(B);
    return 0;
}

static const char *const erms_params[] = { "profile_points", NULL };
static const struct micro_hooks erms_hooks = { .decide = erms_decide };

const struct policy_ops policy_erms = {
    .name = "erms",
    .domain = "micro",
    .summary = "latency targets split by sqrt(a gamma) over the call graph, containers "
               "ceil(a gamma / (T - b)) from the observed load (Erms)",
    .params = erms_params,
    .create = erms_create,
    .destroy = erms_destroy,
    .micro = &erms_hooks,
};
