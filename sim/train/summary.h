/*
 * summary: the training world's summary — per-job figures into the run's summary metrics
 * (the `metrics` table), on top of the generic helpers of sim/base/stats.h.
 *
 * Metric names are a stable interface (DESIGN.md, doc/database.md): jct_mean, jct_p50,
 * jct_p95, jct_p99, makespan, queue_delay_mean, ftf_mean, ftf_max, ftf_unfair_frac,
 * jain_index, util_<gputype>, util_total, jobs_done, preemptions, migrations,
 * solver_time_mean, solver_time_max, plus jobs_total, jobs_unfinished, gpu_hours, cost_usd.
 * Times in seconds, ratios as fractions.
 *
 * Two windows keep figures from hanging on the ends of a trace:
 * - the measurement window of time (the world's: by default from the first arrival to the
 *   last), over which time-averaged figures are taken: throughput_norm_window (the mean over
 *   the window of sum_j rate_j(t) / best_rate_j, i.e. how many jobs' worth of full-speed
 *   progress the cluster makes while jobs keep arriving), util_<gputype>_window,
 *   util_total_window, and window_start_s / window_end_s;
 * - the steady-state window of jobs (`sim.measure_jobs`: the jobs with arrival index in
 *   [first, last], Gavel's practice), over which the per-job figures are repeated with the
 *   suffix _steady (jct_mean_steady, ..., jobs_steady, jobs_done_steady).
 * Percentiles interpolate linearly between order statistics (GSL's
 * quantile_from_sorted_data).  A metric with no data (e.g. jct_* when no job finished, window
 * figures over an empty window) is left out, not written as 0.
 *
 * Ownership: summary_create allocates, summary_destroy frees; names passed in are copied.
 */
#ifndef HETSIM_SUMMARY_H
#define HETSIM_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

typedef struct summary summary;

struct metric {
    char   name[48];
    double value;
};

/* Jobs with arrival index in [steady_first, steady_last] also count in the _steady figures;
 * steady_first < 0: no steady-state window. */
summary *summary_create(int64_t steady_first, int64_t steady_last);
void     summary_destroy(summary *s);

/* One job, by its arrival index (0 for the first job of the run): jct_s < 0 if unfinished,
 * queue_s < 0 if it never started, rho < 0 if unknown. */
int summary_job(summary *s, int64_t index, double jct_s, double queue_s, double rho);

enum { SUMMARY_MAX_TYPES = 16, SUMMARY_MAX_METRICS = 128 };

/* Whole-run figures. */
struct summary_run {
    double makespan_s;          /* last completion */
    double horizon_s;           /* util_* are measured over [0, horizon] */
    long   preemptions, migrations;
    long   solver_calls;
    double solver_total_s, solver_max_s;
    int    ntypes;
    const char *type_name[SUMMARY_MAX_TYPES];
    double type_count[SUMMARY_MAX_TYPES];       /* GPUs of that type */
    double type_busy_s[SUMMARY_MAX_TYPES];      /* GPU-seconds granted */
    double type_price_hr[SUMMARY_MAX_TYPES];
    /* the measurement window of time: [window_from_s, window_to_s] */
    double window_from_s, window_to_s;
    double window_norm_s;       /* integral over it of sum_j rate_j / best_rate_j */
    double type_window_busy_s[SUMMARY_MAX_TYPES];   /* GPU-seconds granted inside it */
};

/* Compute the metrics into out (room for `cap`); returns how many were written. */
size_t summary_finish(summary *s, const struct summary_run *r, struct metric *out, size_t cap);

#endif
