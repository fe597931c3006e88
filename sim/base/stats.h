/*
 * stats: the summary statistics every domain's figures are made of — a growable vector of
 * values with its mean and interpolated quantiles, Jain's fairness index, and the half-width
 * of a 95% Student-t confidence interval.  Pure functions over their inputs.
 *
 * Quantiles interpolate linearly between order statistics (position (n-1) p, GSL's
 * gsl_stats_quantile_from_sorted_data), so p50 of {1, 2, 3, 4} is 2.5.
 *
 * Ownership: a stats_vec is embedded by its user (zero it to start); stats_vec_fini frees.
 */
#ifndef HETSIM_STATS_H
#define HETSIM_STATS_H

#include <stddef.h>

struct stats_vec {
    double *v;
    size_t  n, cap;
};

int    stats_vec_push(struct stats_vec *s, double x);       /* 0, or -1 out of memory */
void   stats_vec_fini(struct stats_vec *s);
void   stats_vec_sort(struct stats_vec *s);                  /* before quantiles */
double stats_vec_mean(const struct stats_vec *s);            /* NAN when empty */
double stats_vec_quantile(const struct stats_vec *s, double p);  /* sorted; NAN when empty */

/* Jain's fairness index of x[0..n): (sum x)^2 / (n sum x^2); 1 when all are equal, 0 when
 * n = 0 or all are 0. */
double stats_jain(const double *x, size_t n);

/* Half-width of the 95% confidence interval of a mean of n values with sample standard
 * deviation sd: t(0.975, n - 1) sd / sqrt(n); NAN when n < 2. */
double stats_ci95(double sd, size_t n);

/* Mean, sample standard deviation and 95% CI half-width of x[0..n) (sd and half NAN below
 * two values, mean NAN when n = 0); sd may be NULL. */
void stats_mean_ci(const double *x, size_t n, double *mean, double *sd, double *half);

#endif
