/*
 * stateff: statistical efficiency, batch-time scaling, PD and memory (see the header).
 * O(1) each; the candidate list O(cap).
 */
#include "stateff.h"

double stateff_eff(double gns, double m0, double m)
{
    return (gns + m0) / (gns + m);
}

double stateff_time_ratio(const struct stateff_job *j, double m)
{
    return j->overhead + (1 - j->overhead) * m / j->m0;
}

double stateff_progress(const struct stateff_job *j, double m, double ns)
{
    double e = stateff_eff(j->gns, j->m0, m);
    return ns * (m / j->m0) * e / stateff_time_ratio(j, m);
}

double stateff_pd(double t_co, double t_m0, double m0, double m, double e)
{
    return (t_co / t_m0) * (m0 / m) / e;
}

double stateff_mem_gb(const struct stateff_job *j, double m)
{
    return j->fixed_gb + j->per_sample_gb * m;
}

int stateff_candidates(int m, int *out, int cap)
{
    if (m < 1 || cap < 1)
        return 0;
    int lo = (m + 1) / 2, hi = m + m / 2;       /* [ceil(m/2), 1.5 m) */
    if (hi <= lo)
        hi = lo + 1;
    int step = (hi - lo + cap - 1) / cap;       /* at most cap values */
    if (step < 1)
        step = 1;
    int n = 0, have_m = 0;
    for (int b = lo; b < hi && n < cap; b += step) {
        if (b == m)
            have_m = 1;
        out[n++] = b;
    }
    if (!have_m) {                              /* the untuned point is always a candidate */
        int k = n < cap ? n++ : n - 1;
        out[k] = m;
        for (; k > 0 && out[k - 1] > out[k]; k--) {
            int t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    }
    return n;
}
