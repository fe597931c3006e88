/*
 * goodput: Pollux's throughput model, its least-squares fit and the batch optimisation
 * (goodput.h gives the equations and where hetsim's fit differs from Pollux's).  Pure:
 * the fit's only state is its GSL workspace, allocated and freed inside the call.
 */
#include "goodput.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>

#include "elastic.h"

enum { NPAR = 7, MAX_ITER = 200, NCAND = 50 };

static const double LO = 1e-8;      /* Pollux's lower bound of every alpha and beta */

double goodput_compute_time(const struct goodput_perf *p, double atomic)
{
    return p->alpha_c + p->beta_c * atomic;
}

double goodput_network_time(const struct goodput_perf *p, int nodes, int replicas)
{
    /* the most significant link the replicas cross: between nodes, inside one, or none */
    double a = 1e-8, b = 1e-8;
    if (nodes > 1) {
        a = p->alpha_n;
        b = p->beta_n;
    } else if (replicas > 1) {
        a = p->alpha_r;
        b = p->beta_r;
    }
    return a + b * fmax(replicas - 2, 1e-8);
}

/* log T_step, in log space as Pollux computes it */
static double log_step(double gamma, double compute, double network)
{
    return log(pow(compute, gamma) + pow(network, gamma)) / gamma;
}

double goodput_step_time(const struct goodput_perf *p, int nodes, int replicas, double atomic)
{
    return exp(log_step(p->gamma, goodput_compute_time(p, atomic),
                        goodput_network_time(p, nodes, replicas)));
}

double goodput_iter_time(const struct goodput_perf *p, int nodes, int replicas, double atomic,
                         int accum)
{
    return accum * goodput_compute_time(p, atomic) +
           goodput_step_time(p, nodes, replicas, atomic);
}

double goodput_throughput(const struct goodput_perf *p, int nodes, int replicas, double atomic,
                          int accum)
{
    return replicas * atomic * (accum + 1) / goodput_iter_time(p, nodes, replicas, atomic, accum);
}

double goodput_efficiency(const struct goodput_grad *g, int init_bsz, double bsz)
{
    double scale = bsz / init_bsz;
    double denom = g->var / scale + g->sqr;
    double gain = denom > 0 ? elastic_gain(g->sqr, g->var, scale) : 1.0;
    return gain / scale;
}

double goodput_eval(const struct goodput_perf *p, const struct goodput_grad *g, int init_bsz,
                    int nodes, int replicas, double atomic, int accum)
{
    double bsz = (double)replicas * atomic * (accum + 1);
    return goodput_throughput(p, nodes, replicas, atomic, accum) *
           goodput_efficiency(g, init_bsz, bsz);
}

void goodput_optimize(const struct goodput_perf *p, const struct goodput_grad *g,
                      const struct goodput_limits *l, int nodes, int replicas,
                      struct goodput_choice *out)
{
    const double eps = 1e-8;
    double lo = fmax(l->init_bsz, (double)l->min_atomic * replicas), hi = l->max_bsz;
    *out = (struct goodput_choice){ 0, 0, 0 };
    int have = 0;
    for (int i = 0; i < NCAND; i++) {
        /* numpy's geomspace: exact endpoints, geometric in between */
        double bsz = i == 0 ? lo : i == NCAND - 1 ? hi
                                 : lo * exp(log(hi / lo) * i / (NCAND - 1));
        double local = bsz / replicas;
        int accum = 0;
        if (l->accumulation) {
            accum = (int)ceil(local / l->max_atomic - eps) - 1;
            if (replicas == 1 && local > l->init_bsz + eps && accum < 1)
                accum = 1;
            if (accum < 0)
                accum = 0;
        }
        int atomic = (int)ceil(local / (accum + 1) - eps);
        double gp = 0;
        if (atomic >= l->min_atomic && atomic <= l->max_atomic)
            gp = goodput_eval(p, g, l->init_bsz, nodes, replicas, atomic, accum);
        /* argmax: the first of equal values */
        if (!have || gp > out->goodput) {
            *out = (struct goodput_choice){ gp, atomic, accum };
            have = 1;
        }
    }
}

/* ---- the fit ---- */

struct fitdata {
    const struct goodput_obs *obs;
    int    n, regularize, nres;
    int    free_idx[NPAR], nfree;
    double fixed[NPAR];         /* the values of every parameter not fitted */
};

static void to_perf(const double *v, struct goodput_perf *p)
{
    *p = (struct goodput_perf){ v[0], v[1], v[2], v[3], v[4], v[5], v[6] };
}

/* unconstrained u -> bounded parameter k (alphas, betas >= 1e-8; gamma in [1, 10], MINUIT's
 * sine transform, whose slope does not vanish near the start 1.001 as a logistic's would) */
static double from_u(int k, double u)
{
    return k == 6 ? 1 + 4.5 * (sin(u) + 1) : LO + exp(u);
}

static double to_u(int k, double v)
{
    if (k == 6) {
        double s = (v - 1) / 4.5 - 1;
        return asin(s < -1 ? -1 : s > 1 ? 1 : s);
    }
    return log(fmax(v - LO, 1e-300));
}

static void params_of(const struct fitdata *d, const gsl_vector *x, double *v)
{
    for (int k = 0; k < NPAR; k++)
        v[k] = d->fixed[k];
    for (int i = 0; i < d->nfree; i++)
        v[d->free_idx[i]] = from_u(d->free_idx[i], gsl_vector_get(x, (size_t)i));
}

static int residuals(const gsl_vector *x, void *arg, gsl_vector *f)
{
    const struct fitdata *d = arg;
    double v[NPAR];
    params_of(d, x, v);
    struct goodput_perf p;
    to_perf(v, &p);
    double w = 1 / sqrt((double)d->n);
    int r = 0;
    for (int i = 0; i < d->n; i++) {
        const struct goodput_obs *o = &d->obs[i];
        double c = goodput_compute_time(&p, o->atomic);
        double net = goodput_network_time(&p, o->nodes, o->replicas);
        gsl_vector_set(f, (size_t)r++, w * (log(c) - log(o->step - o->sync)));
        gsl_vector_set(f, (size_t)r++, w * (log_step(p.gamma, c, net) - log(o->step)));
    }
    if (d->regularize) {
        gsl_vector_set(f, (size_t)r++, sqrt(1e-3) * (p.gamma - 1));
        gsl_vector_set(f, (size_t)r++, sqrt(1e-2) * p.beta_n / p.alpha_n);
        gsl_vector_set(f, (size_t)r++, sqrt(1e-2) * p.beta_r / p.alpha_r);
    }
    /* padding so that GSL has at least as many residuals as parameters */
    while (r < d->nres)
        gsl_vector_set(f, (size_t)r++, 0);
    return GSL_SUCCESS;
}

double goodput_fit_error(const struct goodput_perf *p, const struct goodput_obs *obs, int n)
{
    double e1 = 0, e2 = 0;
    for (int i = 0; i < n; i++) {
        const struct goodput_obs *o = &obs[i];
        double c = goodput_compute_time(p, o->atomic);
        double d1 = log(c) - log(o->step - o->sync);
        double d2 = log_step(p->gamma, c, goodput_network_time(p, o->nodes, o->replicas)) -
                    log(o->step);
        e1 += d1 * d1;
        e2 += d2 * d2;
    }
    return n > 0 ? (sqrt(e1 / n) + sqrt(e2 / n)) / 2 : 0;
}

int goodput_fit(const struct goodput_obs *obs, int n, int regularize,
                struct goodput_perf *out, double *rmsle)
{
    /* Pollux's start, bounds and fixed parameters */
    double v[NPAR] = { 1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1.0 + 1e-3 };
    int fixed[NPAR] = { 0 };
    int many_bsz = 0, multi_node = 0, one_node_multi = 0, over2 = 0;
    double mean_c = 0;
    for (int i = 0; i < n; i++) {
        const struct goodput_obs *o = &obs[i];
        if (!(o->step > o->sync && o->sync >= 0 && o->atomic > 0 && o->nodes >= 1 &&
              o->replicas >= o->nodes)) {
            to_perf(v, out);
            return -1;
        }
        many_bsz |= o->atomic != obs[0].atomic;
        multi_node |= o->nodes > 1;
        one_node_multi |= o->nodes == 1 && o->replicas > 1;
        over2 |= o->replicas > 2;
        mean_c += (o->step - o->sync) / n;
    }
    if (n < 1) {
        to_perf(v, out);
        return -1;
    }
    if (!many_bsz) {
        v[0] = mean_c / 2;      /* optimistic about larger batches, as Pollux */
        fixed[0] = 1;
    }
    if (!multi_node) {
        v[2] = v[3] = LO;
        fixed[2] = fixed[3] = 1;
    }
    if (!one_node_multi) {
        v[4] = v[5] = LO;
        fixed[4] = fixed[5] = 1;
    }
    if (!over2) {
        v[3] = v[5] = LO;
        fixed[3] = fixed[5] = 1;
    }
    struct fitdata d = { .obs = obs, .n = n, .regularize = regularize };
    for (int k = 0; k < NPAR; k++) {
        d.fixed[k] = v[k];
        if (!fixed[k])
            d.free_idx[d.nfree++] = k;
    }
    d.nres = 2 * n + (regularize ? 3 : 0);
    if (d.nres < d.nfree)
        d.nres = d.nfree;
    int rc = 0;
    if (d.nfree > 0) {
        gsl_multifit_nlinear_fdf fdf = { .f = residuals, .df = NULL, .fvv = NULL,
                                         .n = (size_t)d.nres, .p = (size_t)d.nfree,
                                         .params = &d };
        gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
        gsl_multifit_nlinear_workspace *ws =
            gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, (size_t)d.nres,
                                       (size_t)d.nfree);
        gsl_vector *x = gsl_vector_alloc((size_t)d.nfree);
        if (ws == NULL || x == NULL) {
            rc = -1;
        } else {
            for (int i = 0; i < d.nfree; i++)
                gsl_vector_set(x, (size_t)i, to_u(d.free_idx[i], v[d.free_idx[i]]));
            /* GSL reports a failed solve by its error handler, which aborts by default */
            gsl_error_handler_t *old = gsl_set_error_handler_off();
            int info;
            int st = gsl_multifit_nlinear_init(x, &fdf, ws);
            if (st == GSL_SUCCESS)
                st = gsl_multifit_nlinear_driver(MAX_ITER, 1e-10, 1e-10, 0.0, NULL, NULL,
                                                 &info, ws);
            gsl_set_error_handler(old);
            /* a run out of iterations still improved on the start: keep it, as Pollux keeps
             * L-BFGS-B's answer whatever its status */
            if (st != GSL_SUCCESS && st != GSL_EMAXITER && st != GSL_ENOPROG) {
                rc = -1;
            } else {
                double w[NPAR];
                params_of(&d, gsl_multifit_nlinear_position(ws), w);
                int finite = 1;
                for (int k = 0; k < NPAR; k++)
                    finite &= isfinite(w[k]);
                if (finite)
                    for (int k = 0; k < NPAR; k++)
                        v[k] = w[k];
                else
                    rc = -1;
            }
        }
        gsl_vector_free(x);
        if (ws != NULL)
            gsl_multifit_nlinear_free(ws);
    }
    if (!multi_node) {
        /* prior: crossing nodes costs at least what staying inside one does */
        v[2] = fmax(v[2], v[4] * 1.1);
        v[3] = fmax(v[3], v[5] * 1.1);
    }
    to_perf(v, out);
    if (rmsle != NULL)
        *rmsle = goodput_fit_error(out, obs, n);
    return rc;
}
