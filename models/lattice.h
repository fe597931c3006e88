/*
 * lattice: distributions of nonnegative latencies on a lattice of step h — the numerical
 * engine behind the microservice world's analytical mode, where a request's end-to-end
 * latency is built from its calls' shifted exponential (or Erlang) latencies by sums
 * (sequential stages) and maxima (a parallel stage ends with its slowest branch).
 *
 * p[k] is the probability of lattice point k h.  A continuous latency y is split between its
 * two neighbouring points in proportion to its closeness to each (the linear, or triangular,
 * discretization), so that every mean is exact; sums of discretized latencies are exact
 * discrete convolutions and maxima products of cumulative sums.  The error is the spread the
 * splitting adds (at most h^2/4 in variance per call, a few h^2 in a CDF) and, for maxima, an
 * upward bias of order h where two branches are within h of each other.  The CDF between
 * points is read with each point's mass spread evenly over [k - 1/2, k + 1/2] h.  Mass that
 * falls past the last point is kept as `lost` (the tail beyond the lattice).
 *
 * Convolution with a shifted exponential is a first-order recursive filter (its masses two
 * points past the shift are geometric), O(n); with an Erlang block of c calls either c
 * filters or one direct convolution with its exact masses (from the gamma CDF and partial
 * mean), whichever is cheaper; general sums O(n w) over the support w of one operand.
 *
 * Ownership: lattice_init allocates p (n points), lattice_fini frees it.  Operations write
 * their result into their first argument.  Every operation keeps p[k] == 0 outside [lo, hi]
 * and relies on it (each touches only the supports): a caller that writes p itself keeps
 * lo and hi around what it wrote.
 */
#ifndef HETSIM_LATTICE_H
#define HETSIM_LATTICE_H

struct lattice {
    double  h;          /* step, in the caller's time unit */
    int     n;          /* points */
    double *p;          /* p[0..n) */
    int     lo, hi;     /* support: p[k] == 0 outside [lo, hi] */
    double  lost;       /* mass past the last point */
};

int  lattice_init(struct lattice *l, double h, int n);     /* 0, or -1 out of memory */
void lattice_fini(struct lattice *l);
/* The point mass at 0. */
void lattice_delta(struct lattice *l);
void lattice_copy(struct lattice *dst, const struct lattice *src);  /* same h and n */

/* l := l + (shift + Exp(rate)); rate > 0. */
void lattice_add_shexp(struct lattice *l, double shift, double rate);
/* l := l + (calls shift + Gamma(calls, rate)): `calls` sequential calls, each shift +
 * Exp(rate).  `scratch` has l's size. */
void lattice_add_erlang(struct lattice *l, int calls, double shift, double rate,
                        struct lattice *scratch);
/* a := a + b (independent), through scratch (a's size). */
void lattice_add(struct lattice *a, const struct lattice *b, struct lattice *scratch);
/* a := max(a, b) (independent). */
void lattice_max(struct lattice *a, const struct lattice *b);

/* P(X <= x), interpolating linearly inside a cell. */
double lattice_cdf(const struct lattice *l, double x);
/* The q-quantile, interpolated inside its cell; +INFINITY when it lies past the lattice. */
double lattice_quantile(const struct lattice *l, double q);
double lattice_mean(const struct lattice *l);

#endif
