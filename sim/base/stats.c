/*
 * stats: GSL does the sorting, the quantiles and the t quantile; the vector doubles its
 * capacity (amortized O(1) per value).
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

int stats_vec_push(struct stats_vec *s, double x)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        double *p = realloc(s->v, nc * sizeof *p);
        if (p == NULL)
            return -1;
        s->v = p;
        s->cap = nc;
    }
    s->v[s->n++] = x;
    return 0;
}

void stats_vec_fini(struct stats_vec *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void stats_vec_sort(struct stats_vec *s)
{
    if (s->n > 1)
        gsl_sort(s->v, 1, s->n);
}

double stats_vec_mean(const struct stats_vec *s)
{
    return s->n > 0 ? gsl_stats_mean(s->v, 1, s->n) : NAN;
}

double stats_vec_quantile(const struct stats_vec *s, double p)
{
    return s->n > 0 ? gsl_stats_quantile_from_sorted_data(s->v, 1, s->n, p) : NAN;
}

double stats_jain(const double *x, size_t n)
{
    if (n == 0)
        return 0;
    double a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        a += x[i];
        b += x[i] * x[i];
    }
    return b > 0 ? a * a / ((double)n * b) : 0;
}

void stats_mean_ci(const double *x, size_t n, double *mean, double *sd, double *half)
{
    *mean = n > 0 ? gsl_stats_mean(x, 1, n) : NAN;
    double s = n >= 2 ? gsl_stats_sd(x, 1, n) : NAN;
    if (sd != NULL)
        *sd = s;
    *half = stats_ci95(s, n);
}

double stats_ci95(double sd, size_t n)
{
    if (n < 2)
        return NAN;
    return gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * sd / sqrt((double)n);
}
