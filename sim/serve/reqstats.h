/*
 * reqstats: the serving world's summary — per-request figures into the run's metrics, on
 * the helpers of sim/base/stats.h.
 *
 * Names (seconds for times, fractions for ratios; doc/database.md):
 * requests_total, requests_done, requests_dropped (never fit their instance's KV cache),
 * requests_unfinished (in the system when a limit stopped the run); ttft_mean, ttft_p50,
 * ttft_p95, ttft_p99; tpot_mean, tpot_p50, tpot_p99 (requests of two tokens or more);
 * e2e_mean, e2e_p50, e2e_p99; e2e_per_token_mean (end-to-end over output tokens: the
 * normalized latency of vLLM's and Hetis' papers); queue_mean (arrival to first scheduled);
 * slo_attainment (the share of every request that arrived — dropped and unfinished ones
 * included — that met both SLOs, when the experiment sets them) and slo_goodput_per_s (those
 * requests over the measurement window's length).  Over
 * the steady-state window of requests (sim.measure_jobs, by arrival index) the suffix
 * _steady repeats requests, ttft_p50/p99, tpot_p50/p99, e2e_p99 and slo_attainment.  The
 * world adds the window figures (tokens_per_s, requests_per_s) and its counters.  A figure
 * without data is left out.
 *
 * Memory: the percentiles are exact (three doubles per finished request) up to 65,536
 * requests, then within 0.1% (a log-spaced histogram of 15,000 buckets a figure), so that
 * memory follows the requests in flight however long the trace; means are exact sums.
 *
 * Ownership: reqstats_create allocates, reqstats_destroy frees.
 */
#ifndef HETSIM_REQSTATS_H
#define HETSIM_REQSTATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct reqstats reqstats;

struct reqstats_metric {
    char   name[48];
    double value;
};

/* SLOs < 0: none; steady_first < 0: no steady-state window. */
reqstats *reqstats_create(double slo_ttft_s, double slo_tpot_s, int64_t steady_first,
                          int64_t steady_last);
void      reqstats_destroy(reqstats *s);

/* One request leaving: its arrival index and figures (< 0: did not happen); returns 1 if it
 * met its SLOs, 0 if not, -1 out of memory.  tpot_s < 0 for a one-token output. */
int reqstats_add(reqstats *s, int64_t index, int dropped, double ttft_s, double tpot_s,
                 double e2e_s, double queue_s, int32_t out_tokens);

enum { REQSTATS_MAX_METRICS = 40 };

/* The metrics into out (room for cap), with the window's length for the goodput. */
size_t reqstats_finish(reqstats *s, double window_s, struct reqstats_metric *out, size_t cap);

#endif
