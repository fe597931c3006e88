/*
 * goodput: Pollux's fitted throughput model, its fit from observed steps, statistical
 * efficiency, and the batch-size optimisation that picks a job's atomic batch and gradient
 * accumulation for a placement (Qiao et al., Pollux, OSDI 2021, section 3; the form of
 * petuum/adaptdl osdi21-artifact @c793c70, simulator/goodput.py, read, not copied).
 *
 * Throughput model (PerfParams), for n nodes, r replicas, atomic (per GPU) batch m:
 *   T_compute(m)   = alpha_c + beta_c m                      (one forward/backward pass)
 *   T_network(n,r) = alpha_n + beta_n max(r - 2, 1e-8)       if n > 1 (inter-node)
 *                  = alpha_r + beta_r max(r - 2, 1e-8)       if n = 1 and r > 1
 *                  = 1e-8 (1 + max(r - 2, 1e-8))             if r = 1 (no network)
 *   T_step         = (T_compute^gamma + T_network^gamma)^(1/gamma)     (gamma in [1, 10]:
 *                    1 = no overlap of compute and network, large = full overlap)
 *   T_iter(s)      = s T_compute + T_step                   (s accumulation steps repeat
 *                                                           the compute, not the sync)
 *   throughput     = r m (s + 1) / T_iter                   (samples per second)
 * Statistical efficiency at global batch B (init batch B0, gradient statistics sqr, var):
 *   scale = B / B0, gain = elastic_gain(sqr, var, scale) (the formula Pollux mode uses), or 1
 *   when its denominator is not positive; efficiency = gain / scale; goodput = throughput x
 *   efficiency (samples at B0 per second).
 *
 * Fit (goodput_fit): from observations (n, r, m, step, sync), with compute = step - sync.
 * Pollux minimises RMSLE(compute) + RMSLE(step) + 1e-3 (gamma - 1)^2 + 1e-2 ((beta_n /
 * alpha_n)^2 + (beta_r / alpha_r)^2) with L-BFGS-B within bounds (alphas, betas >= 1e-8,
 * gamma in [1, 10]) from (0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001), fixing alpha_c at half the
 * mean compute time when one atomic batch was seen, alpha_n and beta_n at 1e-8 without a
 * multi-node observation, alpha_r and beta_r without a one-node multi-GPU one, both betas
 * without more than two replicas, and then raising alpha_n, beta_n to at least 1.1 x
 * alpha_r, beta_r when no multi-node step was seen.  hetsim keeps the start, the fixed
 * parameters and the final rule, and replaces the optimiser (documented alternative): GSL's
 * multifit_nlinear (Levenberg-Marquardt with geodesic acceleration off, finite-difference
 * Jacobian) on the least-squares form of the same terms — the residuals are the log errors
 * divided by sqrt(count), so the sum of squares is MSLE(compute) + MSLE(step) + the two
 * regularisers — in unconstrained coordinates (each alpha/beta = 1e-8 + exp(u), gamma = 1 +
 * 9 / (1 + exp(-u))), so the bounds hold without a bounded solver.  Squared errors instead
 * of their square roots weigh the regularisers more when the fit is good (both reach the
 * same optimum on exact data without regularisation).  Deterministic: no seed, a fixed
 * start, a fixed iteration cap (200).  Cost: O(iterations x 7 x observations).
 *
 * Batch optimisation (goodput_optimize), Pollux's GoodputFunction.optimize: 50 global
 * batches geometric from max(B0, min_atomic r) to max_batch; for each, local = B / r, with
 * accumulation s = ceil(local / max_atomic - 1e-8) - 1 (at least 1 when r = 1 and local >
 * B0, as Pollux: one atomic batch gives bad gradient statistics), else s = 0; atomic =
 * ceil(local / (s + 1) - 1e-8); candidates whose atomic batch is outside [min_atomic,
 * max_atomic] score 0; the first best wins.  tests/test_goodput.c compares it with a
 * brute-force scan of every (atomic, s).  O(50).
 *
 * Everything is a pure function of its arguments.
 */
#ifndef HETSIM_GOODPUT_H
#define HETSIM_GOODPUT_H

struct goodput_perf {
    double alpha_c, beta_c;     /* compute: alpha_c + beta_c * atomic batch */
    double alpha_n, beta_n;     /* inter-node network: alpha_n + beta_n * (replicas - 2) */
    double alpha_r, beta_r;     /* intra-node network */
    double gamma;               /* overlap, [1, 10] */
};

struct goodput_grad {
    double sqr, var;            /* gradient statistics (Pollux's grad_sqr, grad_var) */
};

/* One observed configuration: the step (and its sync part) at an atomic batch. */
struct goodput_obs {
    int    nodes, replicas;
    double atomic, step, sync;
};

struct goodput_limits {
    int init_bsz, max_bsz;          /* B0 and the largest global batch */
    int min_atomic, max_atomic;     /* per GPU */
    int accumulation;               /* 1: gradient accumulation allowed */
};

struct goodput_choice {
    double goodput;             /* 0 when no candidate is valid */
    int    atomic, accum;
};

double goodput_compute_time(const struct goodput_perf *p, double atomic);
double goodput_network_time(const struct goodput_perf *p, int nodes, int replicas);
/* T_step: one step with its sync. */
double goodput_step_time(const struct goodput_perf *p, int nodes, int replicas, double atomic);
/* T_iter: one optimizer step with `accum` accumulation steps. */
double goodput_iter_time(const struct goodput_perf *p, int nodes, int replicas, double atomic,
                         int accum);
double goodput_throughput(const struct goodput_perf *p, int nodes, int replicas, double atomic,
                          int accum);
double goodput_efficiency(const struct goodput_grad *g, int init_bsz, double bsz);
double goodput_eval(const struct goodput_perf *p, const struct goodput_grad *g, int init_bsz,
                    int nodes, int replicas, double atomic, int accum);

/* Pollux's batch choice at (nodes, replicas): 1 <= nodes <= replicas. */
void goodput_optimize(const struct goodput_perf *p, const struct goodput_grad *g,
                      const struct goodput_limits *l, int nodes, int replicas,
                      struct goodput_choice *out);

/* Fit the model to n >= 1 observations (step > sync >= 0); `regularize` 0 drops the two
 * regularisers (tests).  0, or -1 when the solver fails or an observation is unusable
 * (*out is then the start, a valid model).  *rmsle (may be NULL) gets goodput_fit_error. */
int goodput_fit(const struct goodput_obs *obs, int n, int regularize,
                struct goodput_perf *out, double *rmsle);

/* (RMSLE(compute) + RMSLE(step)) / 2 of p over the observations. */
double goodput_fit_error(const struct goodput_perf *p, const struct goodput_obs *obs, int n);

#endif
