/*
 * summary: the training world's summary metrics.  Keeps the JCTs (8 bytes per finished job:
 * percentiles need them all; sim/base/stats.h) and running sums for everything else (queueing delay, finish-time fairness, Jain's index), once for all
 * jobs and once for the steady-state window, then sorts the JCTs once at the end.
 * O(n log n) at finish.
 */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/stats.h"

/* the per-job figures of a set of jobs */
struct jobstats {
    struct stats_vec jct;
    long       total;
    long       nqueue;
    double     queue_sum;
    long       nrho, unfair;
    double     rho_sum, rho_max, inv_sum, inv_sq;     /* Jain over 1 / rho */
};

struct summary {
    struct jobstats all, steady;
    int64_t         steady_first, steady_last;
};

summary *summary_create(int64_t steady_first, int64_t steady_last)
{
    summary *s = calloc(1, sizeof *s);
    if (s != NULL) {
        s->steady_first = steady_first;
        s->steady_last = steady_last;
    }
    return s;
}

void summary_destroy(summary *s)
{
    if (s == NULL)
        return;
    stats_vec_fini(&s->all.jct);
    stats_vec_fini(&s->steady.jct);
    free(s);
}

static int add_job(struct jobstats *st, double jct_s, double queue_s, double rho)
{
    st->total++;
    if (jct_s >= 0 && stats_vec_push(&st->jct, jct_s) < 0)
        return -1;
    if (queue_s >= 0) {
        st->nqueue++;
        st->queue_sum += queue_s;
    }
    if (jct_s >= 0 && rho >= 0) {
        st->nrho++;
        st->rho_sum += rho;
        st->rho_max = rho > st->rho_max ? rho : st->rho_max;
        st->unfair += rho > 1;
        double inv = rho > 0 ? 1.0 / rho : 0;
        st->inv_sum += inv;
        st->inv_sq += inv * inv;
    }
    return 0;
}

int summary_job(summary *s, int64_t index, double jct_s, double queue_s, double rho)
{
    if (add_job(&s->all, jct_s, queue_s, rho) < 0)
        return -1;
    if (s->steady_first >= 0 && index >= s->steady_first && index <= s->steady_last)
        return add_job(&s->steady, jct_s, queue_s, rho);
    return 0;
}

struct out {
    struct metric *m;
    size_t         n, cap;
    const char    *suffix;      /* appended to every name put */
};

static void put(struct out *o, const char *name, double v)
{
    if (o->n < o->cap) {
        snprintf(o->m[o->n].name, sizeof o->m[o->n].name, "%s%s", name, o->suffix);
        o->m[o->n].value = v;
        o->n++;
    }
}

/* The per-job figures of st; jobs_total is `count_name`. */
static void put_jobs(struct out *o, struct jobstats *st, const char *count_name)
{
    const char *suffix = o->suffix;
    o->suffix = "";
    put(o, count_name, (double)st->total);
    o->suffix = suffix;
    put(o, "jobs_done", (double)st->jct.n);
    put(o, "jobs_unfinished", (double)(st->total - (long)st->jct.n));
    if (st->jct.n > 0) {
        stats_vec_sort(&st->jct);
        put(o, "jct_mean", stats_vec_mean(&st->jct));
        put(o, "jct_p50", stats_vec_quantile(&st->jct, 0.50));
        put(o, "jct_p95", stats_vec_quantile(&st->jct, 0.95));
        put(o, "jct_p99", stats_vec_quantile(&st->jct, 0.99));
    }
    if (st->nqueue > 0)
        put(o, "queue_delay_mean", st->queue_sum / (double)st->nqueue);
    if (st->nrho > 0) {
        put(o, "ftf_mean", st->rho_sum / (double)st->nrho);
        put(o, "ftf_max", st->rho_max);
        put(o, "ftf_unfair_frac", (double)st->unfair / (double)st->nrho);
        /* Jain over normalized throughput: a job's share of its isolated speed is 1 / rho */
        put(o, "jain_index",
            st->inv_sq > 0 ? st->inv_sum * st->inv_sum / ((double)st->nrho * st->inv_sq) : 0);
    }
}

size_t summary_finish(summary *s, const struct summary_run *r, struct metric *out, size_t cap)
{
    struct out o = { out, 0, cap, "" };
    put_jobs(&o, &s->all, "jobs_total");
    put(&o, "makespan", r->makespan_s);
    double busy = 0, count = 0, cost = 0, wbusy = 0;
    double wlen = r->window_to_s - r->window_from_s;
    char name[48];
    for (int i = 0; i < r->ntypes; i++) {
        snprintf(name, sizeof name, "util_%s", r->type_name[i]);
        put(&o, name, r->horizon_s > 0 ? r->type_busy_s[i] / (r->type_count[i] * r->horizon_s)
                                       : 0);
        busy += r->type_busy_s[i];
        wbusy += r->type_window_busy_s[i];
        count += r->type_count[i];
        cost += r->type_busy_s[i] / 3600 * r->type_price_hr[i];
    }
    put(&o, "util_total", r->horizon_s > 0 ? busy / (count * r->horizon_s) : 0);
    put(&o, "gpu_hours", busy / 3600);
    put(&o, "cost_usd", cost);
    if (wlen > 0) {
        put(&o, "window_start_s", r->window_from_s);
        put(&o, "window_end_s", r->window_to_s);
        put(&o, "throughput_norm_window", r->window_norm_s / wlen);
        for (int i = 0; i < r->ntypes; i++) {
            snprintf(name, sizeof name, "util_%s_window", r->type_name[i]);
            put(&o, name, r->type_window_busy_s[i] / (r->type_count[i] * wlen));
        }
        put(&o, "util_total_window", wbusy / (count * wlen));
    }
    put(&o, "preemptions", (double)r->preemptions);
    put(&o, "migrations", (double)r->migrations);
    if (r->solver_calls > 0) {
        put(&o, "solver_time_mean", r->solver_total_s / (double)r->solver_calls);
        put(&o, "solver_time_max", r->solver_max_s);
    }
    if (s->steady_first >= 0) {
        o.suffix = "_steady";
        put_jobs(&o, &s->steady, "jobs_steady");
    }
    return o.n;
}
