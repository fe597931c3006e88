/*
 * test_summary: summary metrics against hand-computed values — mean and interpolated
 * percentiles of JCT, queueing delay, finish-time fairness figures, Jain's index,
 * utilization and cost, and metrics left out when there is no data.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../results/summary.h"

static double get(const struct metric *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return m[i].value;
    return NAN;
}

Test(summary, figures_by_hand)
{
    summary *s = summary_create();
    /* JCTs 10, 20, ..., 100; queue delays 0..9; rho 0.5 for odd, 2 for even jobs */
    for (int i = 1; i <= 10; i++)
        cr_assert_eq(summary_job(s, 10.0 * i, i - 1.0, i % 2 ? 0.5 : 2.0, 10.0), 0);
    cr_assert_eq(summary_job(s, -1, -1, -1, 0), 0);     /* never ran */
    struct summary_run r = { .makespan_s = 200, .horizon_s = 200, .preemptions = 3, .migrations = 1,
                         .solver_calls = 4, .solver_total_s = 2, .solver_max_s = 1.5, .ntypes = 2,
                         .type_name = { "V100-16GB", "T4" }, .type_count = { 4, 2 },
                         .type_busy_s = { 400, 100 }, .type_price_hr = { 3.6, 0.36 } };
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
    /* 10 jobs of 10 s minimum each over a 200 s horizon */
    cr_assert_float_eq(get(m, n, "throughput_norm"), 0.5, 1e-12);
    summary_destroy(s);
}

Test(summary, no_finished_jobs_leaves_jct_out)
{
    summary *s = summary_create();
    summary_job(s, -1, 5, -1, 0);
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
    cr_assert_float_eq(summary_jain(eq, 4), 1, 1e-12);
    cr_assert_float_eq(summary_jain(one, 4), 0.25, 1e-12);
}
