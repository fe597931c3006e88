/*
 * test_reqstats: the serving summary (sim/serve/reqstats.c) — counts of done, dropped and
 * unfinished requests, SLO attainment over every request that arrived, exact percentiles
 * (interpolated between order statistics) for small runs, and within 0.1% once a run has
 * more requests than it keeps exactly; the steady-state window by arrival index.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/serve/reqstats.h"

static double metric(const struct reqstats_metric *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return m[i].value;
    return NAN;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(reqstats, counts_slo_and_exact_percentiles)
{
    reqstats *s = reqstats_create(1.0, 0.1, 1, 2);
    /* index, dropped, ttft, tpot, e2e, queue, out */
    cr_assert_eq(reqstats_add(s, 0, 0, 0.5, 0.05, 2.0, 0.1, 10), 1);
    cr_assert_eq(reqstats_add(s, 1, 0, 1.5, 0.05, 3.0, 0.2, 10), 0);   /* TTFT missed */
    cr_assert_eq(reqstats_add(s, 2, 0, 0.7, 0.20, 4.0, 0.3, 10), 0);   /* TPOT missed */
    cr_assert_eq(reqstats_add(s, 3, 0, 0.9, -1, 1.0, 0.0, 1), 1);      /* one token: no TPOT */
    cr_assert_eq(reqstats_add(s, 4, 1, -1, -1, -1, -1, 10), 0);        /* dropped */
    cr_assert_eq(reqstats_add(s, 5, 0, 0.3, -1, -1, 0.1, 10), 0);      /* unfinished */
    struct reqstats_metric m[REQSTATS_MAX_METRICS];
    size_t n = reqstats_finish(s, 10, m, REQSTATS_MAX_METRICS);
    cr_assert_eq(metric(m, n, "requests_total"), 6);
    cr_assert_eq(metric(m, n, "requests_done"), 4);
    cr_assert_eq(metric(m, n, "requests_dropped"), 1);
    cr_assert_eq(metric(m, n, "requests_unfinished"), 1);
    cr_assert_float_eq(metric(m, n, "slo_attainment"), 2.0 / 6, 1e-12);
    cr_assert_float_eq(metric(m, n, "slo_goodput_per_s"), 0.2, 1e-12);
    /* finished TTFTs 0.5, 1.5, 0.7, 0.9: the median interpolates 0.7 and 0.9 */
    cr_assert_float_eq(metric(m, n, "ttft_p50"), 0.8, 1e-12);
    cr_assert_float_eq(metric(m, n, "ttft_mean"), 0.9, 1e-12);
    cr_assert_float_eq(metric(m, n, "e2e_mean"), 2.5, 1e-12);
    cr_assert_float_eq(metric(m, n, "e2e_per_token_mean"), (0.2 + 0.3 + 0.4 + 1.0) / 4, 1e-12);
    cr_assert_float_eq(metric(m, n, "tpot_p99"), 0.05 + 0.98 * (0.20 - 0.05), 1e-12);
    cr_assert_float_eq(metric(m, n, "queue_mean"), 0.7 / 5, 1e-12);
    /* the steady window, requests 1 and 2: both missed */
    cr_assert_eq(metric(m, n, "requests_steady"), 2);
    cr_assert_eq(metric(m, n, "slo_attainment_steady"), 0);
    cr_assert_float_eq(metric(m, n, "ttft_p50_steady"), 1.1, 1e-12);
    reqstats_destroy(s);
    /* without SLOs there is no attainment */
    s = reqstats_create(-1, -1, -1, -1);
    cr_assert_eq(reqstats_add(s, 0, 0, 0.5, 0.05, 2.0, 0.1, 10), 1);
    n = reqstats_finish(s, 10, m, REQSTATS_MAX_METRICS);
    cr_assert(isnan(metric(m, n, "slo_attainment")) && isnan(metric(m, n, "ttft_p50_steady")));
    reqstats_destroy(s);
}

Test(reqstats, long_runs_keep_bounded_memory_within_a_tenth_of_a_percent)
{
    /* 300,000 requests: more than are kept exactly; TTFT spread over four decades */
    enum { N = 300000 };
    reqstats *s = reqstats_create(-1, -1, -1, -1);
    double *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) {
        v[i] = 1e-3 * pow(10, 4.0 * (double)(((int64_t)i * 7919) % N) / N);
        cr_assert_geq(reqstats_add(s, i, 0, v[i], -1, 2 * v[i], 0, 1), 0);
    }
    struct reqstats_metric m[REQSTATS_MAX_METRICS];
    size_t n = reqstats_finish(s, 10, m, REQSTATS_MAX_METRICS);
    /* the exact quantiles of the same values */
    qsort(v, N, sizeof *v, cmp);
    static const struct { const char *name; double p; } qs[] = {
        { "ttft_p50", 0.5 }, { "ttft_p95", 0.95 }, { "ttft_p99", 0.99 } };
    for (int k = 0; k < 3; k++) {
        double pos = qs[k].p * (N - 1), lo = floor(pos);
        double exact = v[(int)lo] + (pos - lo) * (v[(int)lo + 1] - v[(int)lo]);
        cr_assert_float_eq(metric(m, n, qs[k].name), exact, 1e-3 * exact, "%s: %g vs %g",
                           qs[k].name, metric(m, n, qs[k].name), exact);
    }
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i];
    cr_assert_float_eq(metric(m, n, "ttft_mean"), sum / N, 1e-9 * sum / N, "means stay exact");
    free(v);
    reqstats_destroy(s);
}
