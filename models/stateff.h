/*
 * stateff: batch size and progress of a data-parallel job — statistical efficiency, iteration
 * time at another batch, IADeep's degradation PD, and a job's GPU-memory footprint.
 *
 * Units: a job's work is counted in iterations at its original batch m0, so that changing
 * the batch changes how fast it progresses, not how much it must do.  With gradient noise
 * scale GNS (samples), one sample at batch m is worth E = (GNS + m0) / (GNS + m) samples at
 * m0 (McCandlish et al. 2018, as Pollux, OSDI 2021, uses it); one iteration at m is worth
 * (m / m0) E iterations at m0.
 *
 * Everything here is a pure function of its arguments.
 */
#ifndef HETSIM_STATEFF_H
#define HETSIM_STATEFF_H

/* How a job's iteration time and memory grow with its batch (one job type). */
struct stateff_job {
    int    m0;              /* the original batch (per worker) */
    double gns;             /* gradient noise scale, samples (> 0) */
    double overhead;        /* share of the iteration at m0 that does not grow with the batch,
                               [0, 1): t(m) = t(m0) (overhead + (1 - overhead) m / m0) */
    double fixed_gb;        /* memory that does not depend on the batch: weights, gradients,
                               optimizer state, CUDA context */
    double per_sample_gb;   /* activations per sample of the batch */
};

/* E = (GNS + m0) / (GNS + m). */
double stateff_eff(double gns, double m0, double m);

/* t(m) / t(m0). */
double stateff_time_ratio(const struct stateff_job *j, double m);

/* Progress per second at batch m relative to running alone at m0, given the job's
 * normalized speed `ns` on its GPU (1 alone; iteration time t_co = t(m) / ns):
 * (m / m0) E / (t_co / t_m0). */
double stateff_progress(const struct stateff_job *j, double m, double ns);

/* IADeep's degradation PD from its parts: (t_co / t_m0) (m0 / m) / E — the time the job
 * needs, co-located at batch m, to make the training progress it makes alone at m0 in one
 * unit of time.  Derivation: alone at m0 it processes m0 / t_m0 samples a second, each worth
 * one sample at m0; co-located at m it processes m / t_co samples a second, and with the
 * gradient noise scale GNS a sample at batch m is worth E = (GNS + m0) / (GNS + m) samples at
 * m0 (McCandlish et al. 2018: reaching a given loss takes E_min (1 + m / GNS) samples at
 * batch m, so samples at m over samples at m0 = (GNS + m) / (GNS + m0) = 1 / E; smaller
 * batches are more sample-efficient, E > 1 for m < m0).  Progress per second relative to
 * solo is therefore (m / t_co) E / (m0 / t_m0), and the time to the same progress is its
 * inverse, PD = (t_co / t_m0) (m0 / m) / E = 1 / stateff_progress.  PAPERS.md section 4
 * writes the last factor as "* E": with E as defined there (below 1 for m > m0) that would
 * count a larger batch as better twice — once for its extra samples per iteration and again
 * for needing more of them — and make PD = 1 at no slowdown only at m = m0; "* E" is right
 * only for the reciprocal E' = (GNS + m) / (GNS + m0), the sample-cost ratio. */
double stateff_pd(double t_co, double t_m0, double m0, double m, double e);

/* GPU memory (GB) at batch m: fixed_gb + per_sample_gb m. */
double stateff_mem_gb(const struct stateff_job *j, double m);

/* The batch-size candidates in [m/2, 1.5 m) that IADeep's tuner tries: `n` evenly spaced
 * integers from ceil(m/2) by step max(1, m/n), ascending, distinct, always containing m.
 * Returns how many were written (at most cap). */
int stateff_candidates(int m, int *out, int cap);

#endif
