/*
 * test_summary: summary metrics against hand-computed values — mean and interpolated
 * percentiles of JCT, queueing delay, finish-time fairness figures, Jain's index,
 * utilization and cost, the measurement window's throughput and utilization, the
 * steady-state window of jobs, and metrics left out when there is no data.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../sim/base/stats.h"
#include "../sim/train/summary.h"

static double get(const struct metric *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return m[i].value;
    return NAN;
}

Test(summary, figures_by_hand)
{
    summary *s = summary_create(-1, -1);
    /* JCTs 10, 20, ..., 100; queue delays 0..9; rho 0.5 for odd, 2 for even jobs */
    for (int i = 1; i <= 10; i++)
        cr_assert_eq(summary_job(s, i - 1, 10.0 * i, i - 1.0, i % 2 ? 0.5 : 2.0), 0);
    cr_assert_eq(summary_job(s, 10, -1, -1, -1), 0);     /* never ran */
    struct summary_run r = { .makespan_s = 200, .horizon_s = 200, .preemptions = 3, .migrations = 1,
                         .solver_calls = 4, .solver_total_s = 2, .solver_max_s = 1.5, .ntypes = 2,
                         .type_name = { "V100-16GB", "T4" }, .type_count = { 4, 2 },
                         .type_busy_s = { 400, 100 }, .type_price_hr = { 3.6, 0.36 },
                         .window_from_s = 20, .window_to_s = 120, .window_norm_s = 150,
                         .type_window_busy_s = { 300, 50 } };
    struct metric m[64];
    size_t n = summary_finish(s, &r, m, 64);
    cr_assert_float_eq(get(m, n, "jobs_total"), 11, 0);
    cr_assert_float_eq(get(m, n, "jobs_done"), 10, 0);
    cr_assert_float_eq(get(m, n, "jobs_unfinished"), 1, 0);
    cr_assert_float_eq(get(m, n, "jct_mean"), 55, 1e-12);
    /* linear interpolation between order statistics: position (n-1) p */
    cr_assert_float_eq(get(m, n, "jct_p50"), 55, 1e-12);
    cr_assert_float_eq(get(m, n, "jct_p95"), 95.5, 1e-12);
    cr_assert_float_eq(get(m, n, "jct_p99"), 99.1, 1e-12);
    cr_assert_float_eq(get(m, n, "queue_delay_mean"), 4.5, 1e-12);
    cr_assert_float_eq(get(m, n, "ftf_mean"), 1.25, 1e-12);
    cr_assert_float_eq(get(m, n, "ftf_max"), 2, 0);
    cr_assert_float_eq(get(m, n, "ftf_unfair_frac"), 0.5, 0);
    /* Jain over 1/rho = {2, 0.5} x 5: (12.5)^2 / (10 x 21.25) */
    cr_assert_float_eq(get(m, n, "jain_index"), 156.25 / 212.5, 1e-12);
    cr_assert_float_eq(get(m, n, "util_V100-16GB"), 400.0 / (4 * 200), 1e-12);
    cr_assert_float_eq(get(m, n, "util_T4"), 100.0 / (2 * 200), 1e-12);
    cr_assert_float_eq(get(m, n, "util_total"), 500.0 / (6 * 200), 1e-12);
    cr_assert_float_eq(get(m, n, "cost_usd"), 400.0 / 3600 * 3.6 + 100.0 / 3600 * 0.36, 1e-12);
    cr_assert_float_eq(get(m, n, "solver_time_mean"), 0.5, 1e-12);
    cr_assert_float_eq(get(m, n, "solver_time_max"), 1.5, 0);
    cr_assert_float_eq(get(m, n, "preemptions"), 3, 0);
    /* the window [20, 120]: 150 job-seconds at full speed in 100 s; 300 + 50 GPU-s granted */
    cr_assert_float_eq(get(m, n, "window_start_s"), 20, 0);
    cr_assert_float_eq(get(m, n, "window_end_s"), 120, 0);
    cr_assert_float_eq(get(m, n, "throughput_norm_window"), 1.5, 1e-12);
    cr_assert_float_eq(get(m, n, "util_V100-16GB_window"), 300.0 / (4 * 100), 1e-12);
    cr_assert_float_eq(get(m, n, "util_T4_window"), 50.0 / (2 * 100), 1e-12);
    cr_assert_float_eq(get(m, n, "util_total_window"), 350.0 / (6 * 100), 1e-12);
    /* the whole-horizon "throughput" is gone: once all jobs finish it is a constant over the
     * makespan, the same for every policy */
    cr_assert(isnan(get(m, n, "throughput_norm")));
    /* no steady-state window asked for: no _steady figures */
    cr_assert(isnan(get(m, n, "jct_mean_steady")));
    cr_assert(isnan(get(m, n, "jobs_steady")));
    summary_destroy(s);
}

Test(summary, steady_state_window_of_jobs)
{
    /* jobs 0..9 with JCTs 10, 20, ..., 100; the window is jobs 2..5 (JCT 30..60), and job 4
     * is unfinished: JCTs 30, 40, 60 */
    summary *s = summary_create(2, 5);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(summary_job(s, i, i == 4 ? -1 : 10.0 * (i + 1), 1.0 * i,
                                 i == 4 ? -1 : 0.5 + 0.25 * i), 0);
    struct summary_run r = { .makespan_s = 100, .horizon_s = 100 };
    struct metric m[96];
    size_t n = summary_finish(s, &r, m, 96);
    cr_assert_float_eq(get(m, n, "jobs_steady"), 4, 0);
    cr_assert_float_eq(get(m, n, "jobs_done_steady"), 3, 0);
    cr_assert_float_eq(get(m, n, "jobs_unfinished_steady"), 1, 0);
    cr_assert_float_eq(get(m, n, "jct_mean_steady"), 130.0 / 3, 1e-12);
    cr_assert_float_eq(get(m, n, "jct_p50_steady"), 40, 1e-12);
    cr_assert_float_eq(get(m, n, "queue_delay_mean_steady"), (2 + 3 + 4 + 5) / 4.0, 1e-12);
    /* rho 1.0, 1.25, 1.75 */
    cr_assert_float_eq(get(m, n, "ftf_mean_steady"), 4.0 / 3, 1e-12);
    cr_assert_float_eq(get(m, n, "ftf_max_steady"), 1.75, 1e-12);
    cr_assert_float_eq(get(m, n, "ftf_unfair_frac_steady"), 2.0 / 3, 1e-12);
    /* the whole-trace figures beside them are unchanged by the window */
    cr_assert_float_eq(get(m, n, "jct_mean"), (550.0 - 50) / 9, 1e-12);
    cr_assert_float_eq(get(m, n, "jobs_total"), 10, 0);
    /* no measurement window of time (zero length): no window figures */
    cr_assert(isnan(get(m, n, "throughput_norm_window")));
    summary_destroy(s);
}

Test(summary, no_finished_jobs_leaves_jct_out)
{
    summary *s = summary_create(-1, -1);
    summary_job(s, 0, -1, 5, -1);
    struct summary_run r = { .makespan_s = 0, .horizon_s = 100, .ntypes = 0 };
    struct metric m[64];
    size_t n = summary_finish(s, &r, m, 64);
    cr_assert(isnan(get(m, n, "jct_mean")));
    cr_assert(isnan(get(m, n, "ftf_mean")));
    cr_assert(isnan(get(m, n, "solver_time_mean")));
    cr_assert_float_eq(get(m, n, "jobs_done"), 0, 0);
    summary_destroy(s);
}

Test(summary, jain_index)
{
    double eq[] = { 3, 3, 3, 3 }, one[] = { 1, 0, 0, 0 };
    cr_assert_float_eq(stats_jain(eq, 4), 1, 1e-12);
    cr_assert_float_eq(stats_jain(one, 4), 0.25, 1e-12);
}
