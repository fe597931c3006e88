/*
 * reqstats: vectors for the percentiles, sums for the means and counts; the steady-state
 * subset keeps its own vectors.  Goodput is the requests that met the SLOs over the length
 * of the measurement window (by default the span of the arrivals).
 */
#include "reqstats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/stats.h"

/* The values of one figure: exact (a vector) up to EXACT_MAX of them, then a histogram of
 * log-spaced buckets 0.2% wide from 1 us to 10^7 s (quantiles within 0.1%), so that memory
 * stays bounded however long the trace. */
enum { EXACT_MAX = 1 << 16 };
#define HIST_LO 1e-6
#define HIST_GROWTH 1.002
#define HIST_N 15000

struct keep {
    struct stats_vec v;
    uint32_t        *hist;      /* NULL while exact; [0]: at or below HIST_LO */
    int64_t          n;
    double           sum;
};

static int bucket(double x)
{
    if (!(x > HIST_LO))
        return 0;
    int b = 1 + (int)floor(log(x / HIST_LO) / log(HIST_GROWTH));
    return b >= HIST_N ? HIST_N - 1 : b;
}

static int keep_add(struct keep *k, double x)
{
    k->n++;
    k->sum += x;
    if (k->hist == NULL && k->v.n < EXACT_MAX)
        return stats_vec_push(&k->v, x);
    if (k->hist == NULL) {
        if ((k->hist = calloc(HIST_N, sizeof *k->hist)) == NULL)
            return -1;
        for (size_t i = 0; i < k->v.n; i++)
            k->hist[bucket(k->v.v[i])]++;
        stats_vec_fini(&k->v);
    }
    k->hist[bucket(x)]++;
    return 0;
}

static void keep_fini(struct keep *k)
{
    stats_vec_fini(&k->v);
    free(k->hist);
}

/* GSL's running mean while exact (the figures of short runs do not move), the sum after */
static double keep_mean(const struct keep *k)
{
    if (k->hist == NULL)
        return stats_vec_mean(&k->v);
    return k->sum / (double)k->n;
}

/* Interpolated between order statistics while exact; the midpoint (geometric) of the
 * bucket holding rank p (n - 1) once histogrammed. */
static double keep_quantile(struct keep *k, double p)
{
    if (k->n == 0)
        return NAN;
    if (k->hist == NULL) {
        stats_vec_sort(&k->v);
        return stats_vec_quantile(&k->v, p);
    }
    double rank = p * (double)(k->n - 1), seen = 0;
    for (int b = 0; b < HIST_N; b++) {
        seen += k->hist[b];
        if (seen > rank)
            return b == 0 ? HIST_LO : HIST_LO * pow(HIST_GROWTH, b - 0.5);
    }
    return HIST_LO * pow(HIST_GROWTH, HIST_N - 1);
}

struct part {
    struct keep ttft, tpot, e2e;
    int64_t total, met;
};

struct reqstats {
    double  slo_ttft, slo_tpot;
    int64_t steady_first, steady_last;
    struct part all, steady;
    int64_t done, dropped, unfinished;
    double  e2e_sum, per_token_sum, queue_sum;
    int64_t queue_n;
};

reqstats *reqstats_create(double slo_ttft_s, double slo_tpot_s, int64_t steady_first,
                          int64_t steady_last)
{
    reqstats *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->slo_ttft = slo_ttft_s;
    s->slo_tpot = slo_tpot_s;
    s->steady_first = steady_first;
    s->steady_last = steady_last;
    return s;
}

static void part_fini(struct part *p)
{
    keep_fini(&p->ttft);
    keep_fini(&p->tpot);
    keep_fini(&p->e2e);
}

void reqstats_destroy(reqstats *s)
{
    if (s == NULL)
        return;
    part_fini(&s->all);
    part_fini(&s->steady);
    free(s);
}

static int part_add(struct part *p, double ttft, double tpot, double e2e, int met)
{
    p->total++;
    p->met += met;
    if (e2e < 0)
        return 0;
    if (keep_add(&p->ttft, ttft) < 0 || keep_add(&p->e2e, e2e) < 0 ||
        (tpot >= 0 && keep_add(&p->tpot, tpot) < 0))
        return -1;
    return 0;
}

int reqstats_add(reqstats *s, int64_t index, int dropped, double ttft_s, double tpot_s,
                 double e2e_s, double queue_s, int32_t out_tokens)
{
    int finished = e2e_s >= 0;
    int met = finished && (s->slo_ttft < 0 || ttft_s <= s->slo_ttft) &&
              (s->slo_tpot < 0 || tpot_s < 0 || tpot_s <= s->slo_tpot);
    if (dropped)
        s->dropped++;
    else if (finished)
        s->done++;
    else
        s->unfinished++;
    if (queue_s >= 0) {
        s->queue_sum += queue_s;
        s->queue_n++;
    }
    if (finished) {
        s->e2e_sum += e2e_s;
        s->per_token_sum += e2e_s / out_tokens;
    }
    if (part_add(&s->all, ttft_s, tpot_s, e2e_s, met) < 0)
        return -1;
    if (s->steady_first >= 0 && index >= s->steady_first && index <= s->steady_last &&
        part_add(&s->steady, ttft_s, tpot_s, e2e_s, met) < 0)
        return -1;
    return met;
}

static void put(struct reqstats_metric *out, size_t cap, size_t *n, const char *name,
                const char *suffix, double v)
{
    if (*n >= cap || !isfinite(v))
        return;
    snprintf(out[*n].name, sizeof out[*n].name, "%s%s", name, suffix);
    out[*n].value = v;
    (*n)++;
}

static double q(struct keep *k, double p)
{
    return keep_quantile(k, p);
}

size_t reqstats_finish(reqstats *s, double window_s, struct reqstats_metric *out, size_t cap)
{
    size_t n = 0;
    struct part *a = &s->all;
    put(out, cap, &n, "requests_total", "", (double)a->total);
    put(out, cap, &n, "requests_done", "", (double)s->done);
    put(out, cap, &n, "requests_dropped", "", (double)s->dropped);
    put(out, cap, &n, "requests_unfinished", "", (double)s->unfinished);
    put(out, cap, &n, "ttft_mean", "", keep_mean(&a->ttft));
    put(out, cap, &n, "ttft_p50", "", q(&a->ttft, 0.5));
    put(out, cap, &n, "ttft_p95", "", q(&a->ttft, 0.95));
    put(out, cap, &n, "ttft_p99", "", q(&a->ttft, 0.99));
    put(out, cap, &n, "tpot_mean", "", keep_mean(&a->tpot));
    put(out, cap, &n, "tpot_p50", "", q(&a->tpot, 0.5));
    put(out, cap, &n, "tpot_p99", "", q(&a->tpot, 0.99));
    put(out, cap, &n, "e2e_mean", "", s->done > 0 ? s->e2e_sum / (double)s->done : NAN);
    put(out, cap, &n, "e2e_p50", "", q(&a->e2e, 0.5));
    put(out, cap, &n, "e2e_p99", "", q(&a->e2e, 0.99));
    put(out, cap, &n, "e2e_per_token_mean", "",
        s->done > 0 ? s->per_token_sum / (double)s->done : NAN);
    put(out, cap, &n, "queue_mean", "", s->queue_n > 0 ? s->queue_sum / (double)s->queue_n : NAN);
    if (s->slo_ttft >= 0 || s->slo_tpot >= 0) {
        put(out, cap, &n, "slo_attainment", "", a->total > 0 ? (double)a->met / a->total : NAN);
        put(out, cap, &n, "slo_goodput_per_s", "", window_s > 0 ? a->met / window_s : NAN);
    }
    if (s->steady_first >= 0) {
        struct part *p = &s->steady;
        put(out, cap, &n, "requests", "_steady", (double)p->total);
        put(out, cap, &n, "ttft_p50", "_steady", q(&p->ttft, 0.5));
        put(out, cap, &n, "ttft_p99", "_steady", q(&p->ttft, 0.99));
        put(out, cap, &n, "tpot_p50", "_steady", q(&p->tpot, 0.5));
        put(out, cap, &n, "tpot_p99", "_steady", q(&p->tpot, 0.99));
        put(out, cap, &n, "e2e_p99", "_steady", q(&p->e2e, 0.99));
        if (s->slo_ttft >= 0 || s->slo_tpot >= 0)
            put(out, cap, &n, "slo_attainment", "_steady",
                p->total > 0 ? (double)p->met / p->total : NAN);
    }
    return n;
}
