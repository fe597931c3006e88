/*
 * mslat: a call's latency model (mslat.h).
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
