/*
 * erms: Erms (Luo et al., ASPLOS 2023) — latency targets split over each call graph by the
 * services' fitted slopes, then containers per service from its latency profile
 * (shared/PAPERS.md, section 6: the baseline of Derm's evaluation).
 *
 * Profile: each service's P95 call latency against its load per container, L(w) = a w + b,
 * below its inflection point.  For a service with an Erms fit this is the fit's own first
 * segment; for a Derm-style fit (P95 = s + ln 20 / (a w + b), convex) it is fitted the way
 * Erms profiles: a two-segment least-squares fit of that curve at `profile_points` loads
 * over [0, max_load], the inflection chosen to minimize the error.
 *
 * The paper's method, per graph type g (Erms' "service"), as its artifact computes it
 * (onlineScaling/Span.py, the Span tree): every call is a span whose workload gamma is
 * g's request rate (one call per request), and a call of c repetitions is c spans in a row;
 * subtrees merge bottom up — in sequence their sqrt(a gamma) weights add and their
 * intercepts add, in parallel (one stage) the weights add in quadrature (a = sum a_i
 * gamma_i / gamma) and the intercept is the largest — and the end-to-end SLA T is split top
 * down: a subtree of weight K and intercepts B given T gives each part b + sqrt(a gamma)
 * (T - B) / K, each child of a parallel stage the stage's whole target.  Containers for a
 * service's target t: ceil(a gamma / (t - b)), gamma its calls/s; a service several graph
 * types call (a shared microservice) gets, by Erms' non-priority scheduling, the shortest
 * of their targets at the summed workload, ceil(a sum_g gamma_g / (min t - b)).
 *
 * Where this differs from the paper, and why:
 *   - Erms can also schedule shared microservices by priority (the graph type with the
 *     shortest target first, each later one provisioned for the workload of those before it
 *     too); that needs containers that serve calls by priority, which neither truth of this
 *     world has (the fit's latency depends on load alone, the queueing truth's containers
 *     are FIFO), so the FIFO variant the artifact also implements is used.
 *   - Erms moves a service to its post-inflection segment when its target allows loads past
 *     the inflection; here containers keep every service at or below its inflection, where
 *     the profile is its first segment (Erms' profiles are poor past it).
 *   - Erms' tail additivity is the paper's: a path's P95 is the sum of its calls' P95s, so a
 *     service called 100 times in a row gets 100 P95 budgets.  That is conservative by
 *     design (the P95 of a sum is far below the sum of P95s) and drives its containers up
 *     on TrainTicket, whose complex chain calls ts-basic-service 100 times; it is Erms'
 *     model, kept.
 * Workload: the request rate and graph mix measured in the last interval (Erms scales with
 * the workload it observes); before any interval has been measured, the declared peak rate
 * with the application's graph weights, as every policy is offered.  Where a graph's SLA
 * is below its summed intercepts (no allocation meets it by this model), its services get
 * containers for a twentieth of their inflection load.  Parameter: profile_points (32).
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
    double                    rate;     /* the graph type's requests/s */
    double                   *K, *B;    /* per call: the subtree's sqrt weight and intercepts */
    double                   *tmin;     /* [nservices] the shortest per-call target so far */
    int                       infeasible;
};

/* a call's own weight: each of its c calls is a span of workload `rate` (one call per
 * request), weight sqrt(a rate); in a row they merge to c sqrt(a rate) */
static double own_weight(const struct split *sp, const struct micro_call *c)
{
    double ag = sp->e->a[c->service] * sp->rate;
    return ag > 0 ? c->count * sqrt(ag) : 0;
}

static void weigh(struct split *sp, int i)
{
    const struct micro_call *c = &sp->g->calls[i];
    double K = own_weight(sp, c), B = c->count * sp->e->b[c->service];
    for (int s = sp->g->stage_off[i]; s < sp->g->stage_off[i + 1]; s++) {
        double kk = 0, bm = 0;
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++) {
            int ch = sp->g->child[j];
            weigh(sp, ch);
            kk += sp->K[ch] * sp->K[ch];    /* parallel: a = sum a_i gamma_i / gamma */
            bm = sp->B[ch] > bm ? sp->B[ch] : bm;
        }
        K += sqrt(kk);
        B += bm;
    }
    sp->K[i] = K;
    sp->B[i] = B;
}

/* give the subtree of call i the budget T: its own part, then each stage's */
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
    double w = own_weight(sp, c);
    double own = c->count * sp->e->b[k] + (sp->K[i] > 0 ? w * slack / sp->K[i] : slack);
    if (w > 0 && own / c->count < sp->tmin[k])
        sp->tmin[k] = own / c->count;
    for (int s = sp->g->stage_off[i]; s < sp->g->stage_off[i + 1]; s++) {
        double kk = 0, bm = 0;
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++) {
            int ch = sp->g->child[j];
            kk += sp->K[ch] * sp->K[ch];
            bm = sp->B[ch] > bm ? sp->B[ch] : bm;
        }
        double Ts = bm + (sp->K[i] > 0 ? sqrt(kk) * slack / sp->K[i] : 0);
        for (int j = sp->g->child_off[s]; j < sp->g->child_off[s + 1]; j++)
            assign(sp, sp->g->child[j], Ts);
    }
}

static int erms_decide(void *self, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct erms *e = self;
    const struct micro_app *a = v->app;
    int S = a->nservices, G = a->ngraphs;
    if (e->a == NULL && profile(e, a, err) < 0)
        return -1;
    /* each graph type's request rate: measured, else the declared peak by the weights */
    double *rg = calloc((size_t)G, sizeof *rg);
    double *total = calloc((size_t)S, sizeof *total), *tmin = calloc((size_t)S, sizeof *tmin);
    int maxc = 0;
    for (int g = 0; g < G; g++)
        maxc = a->graph[g].ncalls > maxc ? a->graph[g].ncalls : maxc;
    double *K = calloc((size_t)maxc, sizeof *K), *B = calloc((size_t)maxc, sizeof *B);
    if (rg == NULL || total == NULL || tmin == NULL || K == NULL || B == NULL) {
        free(rg), free(total), free(tmin), free(K), free(B);
        return err_run(err, "out of memory");
    }
    int known = 1;
    if (v->have_last) {
        for (int g = 0; g < G; g++)
            rg[g] = v->rate * v->mix[g];
    } else if (v->peak_rate > 0) {
        double t = 0;
        for (int g = 0; g < G; g++)
            t += a->graph[g].weight;
        for (int g = 0; g < G; g++)
            rg[g] = v->peak_rate * (t > 0 ? a->graph[g].weight / t : 1.0 / G);
    } else {
        known = 0;      /* nothing known yet: keep what runs */
    }
    for (int g = 0; known && g < G; g++)
        for (int k = 0; k < S; k++)
            total[k] += rg[g] * a->graph[g].calls_per_service[k];
    for (int k = 0; known && k < S; k++) {
        tmin[k] = INFINITY;
        double f = ceil(total[k] / e->infl[k] - 1e-9);
        out[k] = f < 1 ? 1 : (int)f;
    }
    for (int g = 0; known && g < G; g++) {
        if (!(rg[g] > 0))
            continue;
        struct split sp = { &a->graph[g], e, rg[g], K, B, tmin, 0 };
        weigh(&sp, 0);
        assign(&sp, 0, v->sla_s);
        if (sp.infeasible)
            for (int i = 0; i < a->graph[g].ncalls; i++) {
                int k = a->graph[g].calls[i].service;
                double f = ceil(20 * total[k] / e->infl[k]);
                if (f > out[k])
                    out[k] = f > 1e9 ? 1000000000 : (int)f;
            }
    }
    /* shared services: the shortest target at the summed workload (FIFO scheduling) */
    for (int k = 0; known && k < S; k++) {
        if (!isfinite(tmin[k]))
            continue;
        long need = erms_containers(e->a[k], e->b[k], total[k], tmin[k]);
        if (need < 0)
            need = (long)ceil(20 * total[k] / e->infl[k]);
        if (need > out[k])
            out[k] = need > 1000000000 ? 1000000000 : (int)need;
    }
    free(rg), free(total), free(tmin), free(K), free(B);
    return 0;
}

static const char *const erms_params[] = { "profile_points", NULL };
static const struct micro_hooks erms_hooks = { .decide = erms_decide };

const struct policy_ops policy_erms = {
    .name = "erms",
    .domain = "micro",
    .summary = "latency targets split over each call graph by sqrt(a gamma), shared services "
               "at their shortest target, containers ceil(a gamma / (T - b)) from the "
               "observed workload (Erms)",
    .params = erms_params,
    .create = erms_create,
    .destroy = erms_destroy,
    .micro = &erms_hooks,
};
