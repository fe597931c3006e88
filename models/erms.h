/*
 * erms: Erms' latency model and container formulas (Luo et al., ASPLOS 2023).
 *
 * A microservice's P95 latency grows piecewise linearly with its load per container w:
 * L(w) = a1 w + b1 up to the inflection point, a2 w + b2 past it, each slope shifted by the
 * interference its node suffers (a = c + a_cpu cpu + a_mem mem, the form of Erms' fits).
 * Written with gamma the service's load (calls/s) and n its containers, w = gamma / n and
 * L = a gamma / n + b: a latency target T needs n = ceil(a gamma / (T - b)) containers, and
 * the targets of a chain that minimize sum n_i under sum T_i = T are
 * T_i = b_i + sqrt(a_i gamma_i) (T - sum_j b_j) / sum_j sqrt(a_j gamma_j)
 * (the Lagrangian of sum a_i gamma_i / (T_i - b_i)).
 *
 * Pure functions.
 */
#ifndef HETSIM_ERMS_H
#define HETSIM_ERMS_H

/* One segment of a fit: slope (latency per unit of load per container) and intercept, the
 * slope moved by interference (cpu cores, memory MiB) with the fit's coefficients. */
struct erms_segment {
    double slope, intercept;
    double cpu_slope, mem_slope;
};

struct erms_fit {
    double              inflection;     /* load per container where `after` takes over */
    struct erms_segment before, after;
};

/* L(w) at interference (cpu, mem). */
double erms_latency(const struct erms_fit *f, double w, double cpu, double mem);

/* Containers for load gamma to meet target T with profile L = a w + b: ceil(a gamma / (T - b)),
 * at least 1; -1 when T <= b (no number of containers reaches it). */
long erms_containers(double a, double b, double gamma, double target);

/* The targets of a chain of k services (profiles a[i], b[i], loads gamma[i]) for the
 * end-to-end target T; returns -1 when T <= sum b (infeasible), else 0.  A service with
 * a gamma = 0 gets T_i = b_i. */
int erms_split(const double *a, const double *b, const double *gamma, int k, double target,
               double *out);

#endif
