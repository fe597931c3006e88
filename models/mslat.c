/*
 * mslat: a call's latency model and the queue it maps onto (mslat.h).
 */
#include "mslat.h"

#include <math.h>

#define LN20 2.995732273553991

/* the fit itself, without the overload extension */
static double fit_rate(const struct mslat *m, double w)
{
    if (m->kind == MSLAT_DERM)
        return m->a * w + m->b;
    double excess = erms_latency(&m->erms, w, m->cpu, m->mem) - m->shift;
    return excess > 0 ? LN20 / excess : 0;
}

double mslat_rate(const struct mslat *m, double w)
{
    if (w <= m->max_load)
        return fit_rate(m, w < 0 ? 0 : w);
    return fit_rate(m, m->max_load) * m->max_load / w;
}

double mslat_mean(const struct mslat *m, double w)
{
    return m->shift + 1.0 / mslat_rate(m, w);
}

double mslat_p95(const struct mslat *m, double w)
{
    return m->shift + LN20 / mslat_rate(m, w);
}

int mslat_check(const struct mslat *m, double *at, double *rate)
{
    double pts[4] = { 0, m->max_load, m->erms.inflection, m->erms.inflection };
    int n = 2;
    if (m->kind == MSLAT_ERMS && m->erms.inflection > 0 && m->erms.inflection < m->max_load) {
        pts[2] = m->erms.inflection;
        /* just past the inflection, on the `after` segment */
        pts[3] = nextafter(m->erms.inflection, INFINITY);
        n = 4;
    }
    for (int i = 0; i < n; i++) {
        double r = fit_rate(m, pts[i]);
        if (!(r > 0) || !isfinite(r)) {
            *at = pts[i];
            *rate = r;
            return -1;
        }
    }
    return 0;
}

/* d rate / d w of the fit at max_load (erms: rate = ln 20 / (L - s), so rate' = -rate L' /
 * (L - s), with L' the slope of the segment max_load is on) */
static double fit_slope(const struct mslat *m)
{
    if (m->kind == MSLAT_DERM)
        return m->a;
    double W = m->max_load;
    const struct erms_segment *s = W <= m->erms.inflection ? &m->erms.before : &m->erms.after;
    double lp = s->slope + s->cpu_slope * m->cpu + s->mem_slope * m->mem;
    double excess = erms_latency(&m->erms, W, m->cpu, m->mem) - m->shift;
    return -fit_rate(m, W) * lp / excess;
}

double mslat_capacity(const struct mslat *m)
{
    double W = m->max_load, r = fit_rate(m, W), d = fit_slope(m);
    return d < -1 ? W + r / -d : r + W;
}

double mslat_queue_rate(const struct mslat *m, double w)
{
    double W = m->max_load;
    if (w <= W)
        return fit_rate(m, w < 0 ? 0 : w) + (w < 0 ? 0 : w);
    double r = fit_rate(m, W), d = fit_slope(m);
    if (!(d < -1))
        return r + W;
    double cap = W + r / -d, v = r + d * (w - W) + w;
    return v > cap ? v : cap;
}

double mslat_erlang_c(double mu, int c, double w)
{
    double a = w / mu, rho = a / c;
    if (!(rho < 1))
        return 1;
    double b = 1;           /* Erlang B by its recurrence, stable for any c */
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    return b / (1 - rho * (1 - b));
}

double mslat_mmc_mean(double mu, int c, double w)
{
    if (!(w < c * mu))
        return INFINITY;
    return 1 / mu + mslat_erlang_c(mu, c, w) / (c * mu - w);
}

double mslat_mmc_sf(double mu, int c, double w, double t)
{
    if (!(w < c * mu))
        return 1;
    /* T = S + W: S ~ Exp(mu); W = 0 with probability 1 - C, else Exp(theta) */
    double C = mslat_erlang_c(mu, c, w), theta = c * mu - w, es = exp(-mu * t);
    double both = fabs(theta - mu) < 1e-12 * mu ? (1 + mu * t) * es
                                                : (theta * es - mu * exp(-theta * t)) /
                                                  (theta - mu);
    return (1 - C) * es + C * both;
}

double mslat_queue_rate_c(const struct mslat *m, int c, double w)
{
    double mu1 = mslat_queue_rate(m, w);
    if (c <= 1)
        return mu1;
    if (w < 0)
        w = 0;
    double cap = mslat_capacity(m);
    if (!(w < cap))
        return cap / c;
    double target = 1 / (mu1 - w);      /* the fit's mean sojourn (past max_load, its extension) */
    /* the mean falls as mu grows: from infinity at w / c to 1 / mu */
    double lo = w / c, hi = 1 / target > lo ? 1 / target : lo;
    if (hi == lo)
        hi = lo > 0 ? 2 * lo : 1;
    while (mslat_mmc_mean(hi, c, w) > target)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (mslat_mmc_mean(mid, c, w) > target)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}
