/*
 * erms: Erms' formulas (erms.h).  The split follows from minimizing sum a_i g_i / x_i with
 * x_i = T_i - b_i > 0 under sum x_i = T - sum b: the stationarity a_i g_i / x_i^2 = mu gives
 * x_i proportional to sqrt(a_i g_i).
 */
#include "erms.h"

#include <math.h>

static double slope(const struct erms_segment *s, double cpu, double mem)
{
    return s->slope + s->cpu_slope * cpu + s->mem_slope * mem;
}

double erms_latency(const struct erms_fit *f, double w, double cpu, double mem)
{
    const struct erms_segment *s = w <= f->inflection ? &f->before : &f->after;
    return slope(s, cpu, mem) * w + s->intercept;
}

long erms_containers(double a, double b, double gamma, double target)
{
    if (!(target > b))
        return -1;
    double n = ceil(a * gamma / (target - b) - 1e-9);
    return n < 1 ? 1 : (long)n;
}

int erms_split(const double *a, const double *b, const double *gamma, int k, double target,
               double *out)
{
    double sb = 0, sq = 0;
    for (int i = 0; i < k; i++) {
        sb += b[i];
        double ag = a[i] * gamma[i];
        sq += ag > 0 ? sqrt(ag) : 0;
    }
    if (!(target > sb))
        return -1;
    for (int i = 0; i < k; i++) {
        double ag = a[i] * gamma[i];
        out[i] = b[i] + (sq > 0 && ag > 0 ? sqrt(ag) * (target - sb) / sq : 0);
    }
    /* no weight anywhere: share the slack evenly */
    if (sq == 0)
        for (int i = 0; i < k; i++)
            out[i] = b[i] + (target - sb) / k;
    return 0;
}
