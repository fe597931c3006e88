/*
 * summary: keeps the JCTs (8 bytes per finished job: percentiles need them all) and running
 * sums for everything else (queueing delay, finish-time fairness, Jain's index), then sorts
 * the JCTs once at the end.  O(n log n) at finish.
 */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

struct vec {
    double *v;
    size_t  n, cap;
};

struct summary {
    struct vec jct;
    long       total;
    double     min_s;
    long       nqueue;
    double     queue_sum;
    long       nrho, unfair;
    double     rho_sum, rho_max, inv_sum, inv_sq;     /* Jain over 1 / rho */
};

static int vec_push(struct vec *v, double x)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        double *p = realloc(v->v, nc * sizeof *p);
        if (p == NULL)
            return -1;
        v->v = p;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return 0;
}

summary *summary_create(void)
{
    return calloc(1, sizeof(summary));
}

void summary_destroy(summary *s)
{
    if (s == NULL)
        return;
    free(s->jct.v);
    free(s);
}

int summary_job(summary *s, double jct_s, double queue_s, double rho, double min_s)
{
    s->total++;
    if (min_s > 0)
        s->min_s += min_s;
    if (jct_s >= 0 && vec_push(&s->jct, jct_s) < 0)
        return -1;
    if (queue_s >= 0) {
        s->nqueue++;
        s->queue_sum += queue_s;
    }
    if (jct_s >= 0 && rho >= 0) {
        s->nrho++;
        s->rho_sum += rho;
        s->rho_max = rho > s->rho_max ? rho : s->rho_max;
        s->unfair += rho > 1;
        double inv = rho > 0 ? 1.0 / rho : 0;
        s->inv_sum += inv;
        s->inv_sq += inv * inv;
    }
    return 0;
}

double summary_jain(const double *x, size_t n)
{
    if (n == 0)
        return 0;
    double a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        a += x[i];
        b += x[i] * x[i];
    }
    return b > 0 ? a * a / ((double)n * b) : 0;
}

static void put(struct metric *out, size_t cap, size_t *n, const char *name, double v)
{
    if (*n < cap) {
        snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
        out[*n].value = v;
        (*n)++;
    }
}

size_t summary_finish(summary *s, const struct summary_run *r, struct metric *out, size_t cap)
{
    size_t n = 0;
    put(out, cap, &n, "jobs_total", (double)s->total);
    put(out, cap, &n, "jobs_done", (double)s->jct.n);
    put(out, cap, &n, "jobs_unfinished", (double)(s->total - (long)s->jct.n));
    if (s->jct.n > 0) {
        gsl_sort(s->jct.v, 1, s->jct.n);
        put(out, cap, &n, "jct_mean", gsl_stats_mean(s->jct.v, 1, s->jct.n));
        put(out, cap, &n, "jct_p50", gsl_stats_quantile_from_sorted_data(s->jct.v, 1, s->jct.n, 0.50));
        put(out, cap, &n, "jct_p95", gsl_stats_quantile_from_sorted_data(s->jct.v, 1, s->jct.n, 0.95));
        put(out, cap, &n, "jct_p99", gsl_stats_quantile_from_sorted_data(s->jct.v, 1, s->jct.n, 0.99));
    }
    put(out, cap, &n, "makespan", r->makespan_s);
    if (s->nqueue > 0)
        put(out, cap, &n, "queue_delay_mean", s->queue_sum / (double)s->nqueue);
    if (s->nrho > 0) {
        put(out, cap, &n, "ftf_mean", s->rho_sum / (double)s->nrho);
        put(out, cap, &n, "ftf_max", s->rho_max);
        put(out, cap, &n, "ftf_unfair_frac", (double)s->unfair / (double)s->nrho);
        /* Jain over normalized throughput: a job's share of its isolated speed is 1 / rho */
        put(out, cap, &n, "jain_index",
            s->inv_sq > 0 ? s->inv_sum * s->inv_sum / ((double)s->nrho * s->inv_sq) : 0);
    }
    double busy = 0, count = 0, cost = 0;
    for (int i = 0; i < r->ntypes; i++) {
        char name[48];
        snprintf(name, sizeof name, "util_%s", r->type_name[i]);
        double u = r->horizon_s > 0 ? r->type_busy_s[i] / (r->type_count[i] * r->horizon_s) : 0;
        put(out, cap, &n, name, u);
        busy += r->type_busy_s[i];
        count += r->type_count[i];
        cost += r->type_busy_s[i] / 3600 * r->type_price_hr[i];
    }
    put(out, cap, &n, "util_total", r->horizon_s > 0 ? busy / (count * r->horizon_s) : 0);
    put(out, cap, &n, "gpu_hours", busy / 3600);
    if (r->horizon_s > 0)
        put(out, cap, &n, "throughput_norm", s->min_s / r->horizon_s);
    put(out, cap, &n, "cost_usd", cost);
    put(out, cap, &n, "preemptions", (double)r->preemptions);
    put(out, cap, &n, "migrations", (double)r->migrations);
    if (r->solver_calls > 0) {
        put(out, cap, &n, "solver_time_mean", r->solver_total_s / (double)r->solver_calls);
        put(out, cap, &n, "solver_time_max", r->solver_max_s);
    }
    return n;
}
