/*
 * summary: turns per-job figures into the run's summary metrics (the `metrics` table).
 *
 * Metric names are a stable interface (DESIGN.md): jct_mean, jct_p50, jct_p95, jct_p99,
 * makespan, queue_delay_mean, ftf_mean, ftf_max, ftf_unfair_frac, jain_index, util_<gputype>,
 * util_total, jobs_done, preemptions, migrations, solver_time_mean, solver_time_max, plus
 * jobs_total, jobs_unfinished, gpu_hours, cost_usd and throughput_norm (the mean number of
 * jobs' worth of full-speed progress: sum over jobs of work done / its fastest rate, over the
 * horizon).  Times in seconds, ratios as fractions.
 * Percentiles interpolate linearly between order statistics (GSL's quantile_from_sorted_data).
 * A metric with no data (e.g. jct_* when no job finished) is left out, not written as 0.
 *
 * Ownership: summary_create allocates, summary_destroy frees; names passed in are copied.
 */
#ifndef HETSIM_SUMMARY_H
#define HETSIM_SUMMARY_H

#include <stddef.h>

typedef struct summary summary;

struct metric {
    char   name[48];
    double value;
};

summary *summary_create(void);
void     summary_destroy(summary *s);

/* One job: jct_s < 0 if unfinished, queue_s < 0 if it never started, rho < 0 if unknown;
 * min_s = the seconds its completed work would take on its fastest GPU type (0 if unknown),
 * whose sum over the horizon is the normalized throughput. */
int summary_job(summary *s, double jct_s, double queue_s, double rho, double min_s);

/* Whole-run figures. */
struct summary_run {
    double makespan_s;          /* last completion */
    double horizon_s;           /* utilization is measured over [0, horizon] */
    long   preemptions, migrations;
    long   solver_calls;
    double solver_total_s, solver_max_s;
    int    ntypes;
    const char *type_name[16];
    double type_count[16];      /* GPUs of that type */
    double type_busy_s[16];     /* GPU-seconds granted */
    double type_price_hr[16];
};

/* Compute the metrics into out (room for `cap`); returns how many were written. */
size_t summary_finish(summary *s, const struct summary_run *r, struct metric *out, size_t cap);

/* Jain's fairness index of x[0..n): (sum x)^2 / (n sum x^2); 1 when all equal. */
double summary_jain(const double *x, size_t n);

#endif
