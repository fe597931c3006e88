/*
 * hypoexp: the hypoexponential distribution — the sum of independent exponential stages with
 * rates rate[0..m) — and mixtures of shifted chains of such stages, as Derm models the
 * end-to-end latency of a call graph (a chain of shifted exponential microservice latencies,
 * one chain per graph type, mixed by the graph types' probabilities).
 *
 * Any rates are accepted: distinct, equal (Erlang blocks) or nearly equal.  Where the partial
 * fractions sum_i C_i exp(-rate_i x) would lose digits to cancellation (close rates make the
 * C_i large and of both signs), the survival function is computed as e_1' exp(T x) 1 for the
 * chain's bidiagonal sub-generator T, whose first row holds divided differences of exp at
 * the points -rate_i x: by a series of nonnegative terms within clusters of close points and
 * Newton's recurrence between clusters (about 5e-15 relative), or, when a cluster spans too
 * wide for the series, by scaling and squaring of the matrix (about 1e-14 to 1e-12
 * absolute).  Cost: O(m^2) by partial fractions, O(m (span + 40) + m^2) by divided
 * differences, O(m^3 log(rate_max x)) by the matrix.
 *
 * Pure functions; no allocation (m <= HYPOEXP_MAX).
 */
#ifndef HETSIM_HYPOEXP_H
#define HETSIM_HYPOEXP_H

enum { HYPOEXP_MAX = 64 };

/* P(X > x) for X = sum of m exponential stages (rates > 0); 1 for x <= 0 when m > 0; for
 * m = 0, X = 0. */
double hypoexp_sf(const double *rate, int m, double x);
double hypoexp_cdf(const double *rate, int m, double x);
/* The two paths hypoexp_sf takes where partial fractions lose digits, for tests and
 * comparisons: the chain's matrix exponential (any rates), and divided differences of exp
 * (returns -1, leaving *sf, when a cluster of close rates spans more than 24 / x or the
 * rates are out of range; then the matrix form is used). */
double hypoexp_sf_expm(const double *rate, int m, double x);
int    hypoexp_sf_divdiff(const double *rate, int m, double x, double *sf /* out */);

/* One component of a mixture: shift + a chain of m stages, with probability `weight`. */
struct hypoexp_chain {
    const double *rate;
    int           m;
    double        shift;
    double        weight;
};

/* P(Y <= x) for Y the mixture of n chains (weights need not sum to 1: they are normalized). */
double hypoexp_mix_cdf(const struct hypoexp_chain *c, int n, double x);
/* The q-quantile of the mixture (0 < q < 1): the smallest x with mix_cdf(x) >= q, by
 * bisection to within rel_tol relative (and 1e-12 absolute). */
double hypoexp_mix_quantile(const struct hypoexp_chain *c, int n, double q, double rel_tol);

#endif
