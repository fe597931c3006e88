/*
 * report: reads runs and metrics with plain SELECTs and prints them.
 *
 * Selection (report_select): the finished runs of an experiment and a sweep, then an optional
 * SQL expression evaluated once per run.  param() and metric() in that expression read the
 * run's own rows; an SQL function cannot see the row its query stands on, so the run is handed
 * to them through the function's user data before each evaluation.
 *
 * Baselines: a run's baseline run is the latest run (largest id) of the baseline policy with
 * the same experiment, the same seed and the same config apart from the seed and the policy
 * (config_json without "seed" and "policies"; `ctx` below is its hash).  Baseline runs are
 * loaded whether or not they were selected.
 *
 * Groups: runs with equal runs.group_hash (the config without its seed; computed here from
 * config_json for files that lack it).  Within a group each seed counts once, with its latest
 * run.  Per metric: mean over the seeds and the half-width of the 95% confidence interval,
 * t(0.975, n-1) s / sqrt(n).  Grouped ratios are paired: this run / its baseline run per seed,
 * then mean and half-width over the seeds that have a baseline run.
 *
 * Columns: the domains' defaults (their displays), those and every other metric of the
 * selected runs (--all), or --columns (each checked against the metrics table); a ratio for
 * each but utilizations and counts of entities; a run lacking one has an empty cell.  Labels,
 * units and senses come from metric_rules, one table of names and families, with suffix
 * rules that give a metric added later a unit before it has a row.
 *
 * Layout: a table for people has a header of two lines (names, then units) and, with a
 * baseline, its ratios as a second grid below the values with the same row keys, so that
 * each stays within a terminal's 100 columns; its notes are wrapped to that width.  The
 * overrides column is left out for people when empty in every row.
 *
 * Overrides: report_config_diff over the configs of the rows printed (the latest run of each
 * group when grouping), without the name and the sweep axes shown as columns.  It walks the
 * parsed configs together, member by member in the order members first appear, and prints a
 * path wherever the values at it are not all equal (cJSON_Compare).
 *
 * Complexity: O(R x M) lookups and O(R log R) sorting for R runs loaded and M metrics, and
 * O(R x F) for the overrides of R rows over configs of F fields; every cell is held until
 * printed (one row per run or group, not per job).
 */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/stats.h"
#include "db.h"


/* ------------------------------------------------------------------ run selection */

/* what param() and metric() read: the run being tested, and their lookups */
struct filter_ctx {
    sqlite3_stmt *param, *config, *metric;
    int64_t       run;
};

static int prep(sqlite3 *h, const char *sql, sqlite3_stmt **st, struct errbuf *err)
{
    if (sqlite3_prepare_v2(h, sql, -1, st, NULL) != SQLITE_OK)
        return err_run(err, "reading the database: %s", sqlite3_errmsg(h));
    return 0;
}

static int has_table(sqlite3 *h, const char *name)
{
    sqlite3_stmt *q;
    int yes = 0;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                           -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        yes = sqlite3_step(q) == SQLITE_ROW;
    }
    sqlite3_finalize(q);
    return yes;
}

static int has_column(sqlite3 *h, const char *table, const char *col)
{
    sqlite3_stmt *q;
    int yes = 0;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC);
        yes = sqlite3_step(q) == SQLITE_ROW;
    }
    sqlite3_finalize(q);
    return yes;
}

/* A dotted field path as --set takes it ("workload.arrival_scale", "policies.0.backfill") as
 * a JSON path ($."workload"."arrival_scale", $."policies"[0]."backfill"); 0 if it is none. */
static int json_path(const char *key, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "$");
    for (const char *p = key;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0 || memchr(p, '"', len) != NULL)
            return 0;
        int w = strspn(p, "0123456789") == len
                    ? snprintf(out + n, cap - n, "[%.*s]", (int)len, p)
                    : snprintf(out + n, cap - n, ".\"%.*s\"", (int)len, p);
        if (w < 0 || (size_t)w >= cap - n)
            return 0;
        n += (size_t)w;
        if (dot == NULL)
            return 1;
        p = dot + 1;
    }
}

/* param(KEY): the run's value of a sweep axis (run_params), else of the config field at that
 * dotted path ("policy" and "seed" are the runs columns); NULL when it has none */
static void sql_param(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct filter_ctx *x = sqlite3_user_data(c);
    const char *key = (const char *)sqlite3_value_text(argv[0]);
    sqlite3_result_null(c);
    if (key == NULL)
        return;
    if (x->param != NULL) {
        sqlite3_bind_int64(x->param, 1, x->run);
        sqlite3_bind_text(x->param, 2, key, -1, SQLITE_TRANSIENT);
        int found = sqlite3_step(x->param) == SQLITE_ROW;
        if (found)
            sqlite3_result_value(c, sqlite3_column_value(x->param, 0));
        sqlite3_reset(x->param);
        if (found)
            return;
    }
    int col = strcmp(key, "policy") == 0 ? 0 : strcmp(key, "seed") == 0 ? 1 : 2;
    char path[512];
    if (col == 2 && !json_path(key, path, sizeof path))
        return;
    sqlite3_bind_int64(x->config, 1, x->run);
    if (col == 2)
        sqlite3_bind_text(x->config, 2, path, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(x->config, 2);
    if (sqlite3_step(x->config) == SQLITE_ROW)
        sqlite3_result_value(c, sqlite3_column_value(x->config, col));
    sqlite3_reset(x->config);
}

/* metric(NAME): the run's summary figure, NULL if it has none */
static void sql_metric(sqlite3_context *c, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct filter_ctx *x = sqlite3_user_data(c);
    sqlite3_result_null(c);
    sqlite3_bind_int64(x->metric, 1, x->run);
    sqlite3_bind_value(x->metric, 2, argv[0]);
    if (sqlite3_step(x->metric) == SQLITE_ROW)
        sqlite3_result_value(c, sqlite3_column_value(x->metric, 0));
    sqlite3_reset(x->metric);
}

static int bad_where(sqlite3 *h, const char *where, const char *why, struct errbuf *err)
{
    char hint[600] = "";
    if (strncmp(why, "no such column", 14) == 0) {
        /* the usual slip: a string without quotes, or a swept field named as a column */
        size_t n = (size_t)snprintf(hint, sizeof hint, " (columns of runs:");
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(h, "SELECT name FROM pragma_table_info('runs')", -1, &q,
                               NULL) == SQLITE_OK) {
            while (sqlite3_step(q) == SQLITE_ROW && n < sizeof hint)
                n += (size_t)snprintf(hint + n, sizeof hint - n, " %s",
                                      (const char *)sqlite3_column_text(q, 0));
            sqlite3_finalize(q);
        }
        if (n < sizeof hint)
            snprintf(hint + n, sizeof hint - n, "; param('KEY') for a swept or config field, "
                     "metric('NAME') for a metric; 'text' in single quotes)");
    }
    if (strstr(why, "syntax error") != NULL)
        snprintf(hint, sizeof hint, " (it is evaluated as CASE WHEN (EXPR) THEN 1 ELSE 0 END "
                 "on each row of runs)");
    return err_input(err, NULL, 0, "--where", "\"%s\": %s%s", where, why, hint);
}

static int check_sweep(sqlite3 *h, int params, const char *sweep, struct errbuf *err)
{
    char names[512] = "";
    size_t n = 0;
    sqlite3_stmt *q;
    if (params && sqlite3_prepare_v2(h, "SELECT DISTINCT sweep FROM run_params ORDER BY sweep",
                                     -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            const char *s = (const char *)sqlite3_column_text(q, 0);
            if (strcmp(s, sweep) == 0) {
                sqlite3_finalize(q);
                return 0;
            }
            if (n < sizeof names)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", s);
        }
        sqlite3_finalize(q);
    }
    return err_input(err, NULL, 0, "--sweep", "no sweep named '%s' in this database (%s%s)",
                     sweep, n ? "sweeps: " : "it has none", names);
}

int report_open(sqlite3 **h, const char *db_path, struct errbuf *err)
{
    if (db_open_reader(h, db_path) != SQLITE_OK) {
        err_input(err, db_path, 0, NULL, "cannot open database: %s", sqlite3_errmsg(*h));
        sqlite3_close(*h);
        *h = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*h, 10000);
    if (!has_table(*h, "runs")) {
        err_input(err, db_path, 0, NULL, "not a hetsim database (it has no runs table)");
        sqlite3_close(*h);
        *h = NULL;
        return -1;
    }
    return 0;
}

static const char param_sql[] =
    "SELECT json_extract(value, '$') FROM run_params WHERE run_id = ?1 AND key = ?2";

int report_select(sqlite3 *h, const char *experiment, const char *sweep, const char *where,
                  int64_t **ids, size_t *n, struct errbuf *err)
{
    *ids = NULL;
    *n = 0;
    int params = has_table(h, "run_params");
    if (sweep != NULL && check_sweep(h, params, sweep, err) < 0)
        return -1;
    struct filter_ctx x = { 0 };
    sqlite3_stmt *list = NULL, *test = NULL, *test2 = NULL;
    char *sql = NULL;
    size_t cap = 0;
    int rc = -1;
    if (prep(h, sweep ? "SELECT id FROM runs WHERE stop_reason != 'running' AND "
                        "(?1 IS NULL OR experiment = ?1) AND id IN "
                        "(SELECT run_id FROM run_params WHERE sweep = ?2) ORDER BY id"
                      : "SELECT id FROM runs WHERE stop_reason != 'running' AND "
                        "(?1 IS NULL OR experiment = ?1) ORDER BY id", &list, err) < 0)
        goto out;
    sqlite3_bind_text(list, 1, experiment, -1, SQLITE_STATIC);
    if (sweep)
        sqlite3_bind_text(list, 2, sweep, -1, SQLITE_STATIC);
    if (where != NULL) {
        if ((params && prep(h, param_sql, &x.param, err) < 0) ||
            prep(h, "SELECT policy, seed, json_extract(config_json, ?2) FROM runs WHERE id = ?1",
                 &x.config, err) < 0 ||
            prep(h, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &x.metric,
                 err) < 0)
            goto out;
        sqlite3_create_function(h, "param", 1, SQLITE_UTF8, &x, sql_param, NULL, NULL);
        sqlite3_create_function(h, "metric", 1, SQLITE_UTF8, &x, sql_metric, NULL, NULL);
        /* CASE WHEN gives the expression WHERE's truth rules (NULL is false) */
        size_t len = strlen(where) + 96;
        if ((sql = malloc(len)) == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        snprintf(sql, len, "SELECT CASE WHEN (%s) THEN 1 ELSE 0 END FROM runs WHERE id = :run",
                 where);
        const char *tail;
        if (sqlite3_prepare_v2(h, sql, -1, &test, &tail) != SQLITE_OK) {
            bad_where(h, where, sqlite3_errmsg(h), err);
            goto out;
        }
        tail += strspn(tail, " \t\r\n;");
        if (*tail != '\0' || sqlite3_column_count(test) != 1 ||
            sqlite3_bind_parameter_count(test) != 1) {
            bad_where(h, where, "not one boolean expression", err);
            goto out;
        }
        /* `cluster` is either name: the expression is tried again on a row whose cluster is
         * the cluster's own name (runs.cluster_name, schema 3) */
        char cols[2048], *sql2 = NULL;
        if (db_columns(h, "main", "runs", "cluster", "", cols, sizeof cols) == 0 &&
            strstr(cols, "\"cluster_name\"") != NULL) {
            size_t len2 = strlen(where) + strlen(cols) + 160;
            if ((sql2 = malloc(len2)) == NULL) {
                err_run(err, "out of memory");
                goto out;
            }
            snprintf(sql2, len2, "SELECT CASE WHEN (%s) THEN 1 ELSE 0 END FROM (SELECT %s, "
                     "cluster_name AS cluster FROM runs) WHERE id = :run", where, cols);
            int ok = sqlite3_prepare_v2(h, sql2, -1, &test2, NULL) == SQLITE_OK;
            free(sql2);
            if (!ok) {
                bad_where(h, where, sqlite3_errmsg(h), err);
                goto out;
            }
        }
    }
    int s;
    while ((s = sqlite3_step(list)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(list, 0);
        if (test != NULL) {
            x.run = id;
            sqlite3_bind_int64(test, 1, id);
            int t = sqlite3_step(test);
            int keep = t == SQLITE_ROW && sqlite3_column_int(test, 0) != 0;
            if (t != SQLITE_ROW && t != SQLITE_DONE) {
                bad_where(h, where, sqlite3_errmsg(h), err);
                goto out;
            }
            sqlite3_reset(test);
            if (!keep && test2 != NULL) {
                sqlite3_bind_int64(test2, 1, id);
                t = sqlite3_step(test2);
                keep = t == SQLITE_ROW && sqlite3_column_int(test2, 0) != 0;
                if (t != SQLITE_ROW && t != SQLITE_DONE) {
                    bad_where(h, where, sqlite3_errmsg(h), err);
                    goto out;
                }
                sqlite3_reset(test2);
            }
            if (!keep)
                continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *grown = realloc(*ids, cap * sizeof *grown);
            if (grown == NULL) {
                err_run(err, "out of memory");
                goto out;
            }
            *ids = grown;
        }
        (*ids)[(*n)++] = id;
    }
    if (s != SQLITE_DONE)
        err_run(err, "reading runs: %s", sqlite3_errmsg(h));
    else
        rc = 0;
out:
    sqlite3_finalize(list);
    sqlite3_finalize(test);
    sqlite3_finalize(test2);
    sqlite3_finalize(x.param);
    sqlite3_finalize(x.config);
    sqlite3_finalize(x.metric);
    if (where != NULL) {
        /* x dies with this frame: the functions must not outlive it */
        sqlite3_create_function(h, "param", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
        sqlite3_create_function(h, "metric", 1, SQLITE_UTF8, NULL, NULL, NULL, NULL);
    }
    free(sql);
    if (rc < 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

int report_where_add(char **where, const char *expr)
{
    size_t len = strlen(expr) + (*where ? strlen(*where) + 12 : 1);
    char *w = malloc(len);
    if (w == NULL)
        return -1;
    if (*where)
        snprintf(w, len, "(%s) AND (%s)", *where, expr);
    else
        snprintf(w, len, "%s", expr);
    free(*where);
    *where = w;
    return 0;
}

/* ------------------------------------------------------------------ metric names */

enum { EXACT, PREFIX, SUFFIX };

/* Every summary metric a world writes, by name: what a figure, a page or a header calls it,
 * its unit and which way is better.  First match wins: exact names, then families by prefix
 * or suffix (a family's label takes the rest of the name for its "%s": util_A100 is "A100
 * utilization"), then suffixes that give a unit only (label NULL: the key is shown whole).
 * A trailing _window or _steady (the figure over the measurement window of time, or over the
 * steady-state window of jobs) keeps the unit and the sense of the metric it follows and adds
 * to its label.  A new metric is one line here; one the table lacks shows its key, with a unit
 * when a suffix rule knows it.  Units: s (every time is stored in seconds; a figure may show
 * ms, h or days), fraction, ratio, x (a ratio to a baseline), the entities a domain counts
 * (jobs, requests, pods), containers, GPUs, GPU-h, CPU-s, tokens, tokens/s, requests/s, GB,
 * USD, count. */
static const struct metric_rule {
    const char *pat;
    int         kind;
    const char *label;          /* NULL: the key itself */
    const char *unit;
    int         higher;         /* 1: a larger value is better */
} metric_rules[] = {
    /* training */
    { "jct_mean", EXACT, "mean JCT", "s", 0 },
    { "jct_p50", EXACT, "median JCT", "s", 0 },
    { "jct_p95", EXACT, "P95 JCT", "s", 0 },
    { "jct_p99", EXACT, "P99 JCT", "s", 0 },
    { "makespan", EXACT, "makespan", "s", 0 },
    { "queue_delay_mean", EXACT, "mean queueing delay", "s", 0 },
    { "ftf_mean", EXACT, "mean finish-time fairness \xcf\x81", "ratio", 0 },
    { "ftf_max", EXACT, "worst finish-time fairness \xcf\x81", "ratio", 0 },
    { "ftf_unfair_frac", EXACT, "share of jobs with \xcf\x81 > 1", "fraction", 0 },
    { "jain_index", EXACT, "Jain's index over 1/\xcf\x81", "fraction", 1 },
    /* jobs' worth of full-speed progress per unit time, over the window of arrivals */
    { "throughput_norm_window", EXACT, "normalized throughput", "jobs", 1 },
    { "throughput_norm", EXACT, "normalized throughput, whole run", "jobs", 1 },
    { "jobs_done", EXACT, "jobs done", "jobs", 1 },
    { "jobs_total", EXACT, "jobs", "jobs", 0 },
    { "jobs_unfinished", EXACT, "jobs unfinished", "jobs", 0 },
    { "jobs", EXACT, "jobs", "jobs", 0 },               /* jobs_steady: the window's jobs */
    { "gpu_hours", EXACT, "GPU time", "GPU-h", 0 },
    { "cost_usd", EXACT, "cost", "USD", 0 },
    { "preemptions", EXACT, "preemptions", "count", 0 },
    { "drain_moves", EXACT, "requests moved off drained instances", "count", 0 },
    { "migrations", EXACT, "migrations", "count", 0 },
    { "util_total", EXACT, "GPU utilization, all types", "fraction", 1 },
    { "gavel_utilization", EXACT, "utilization (Gavel's definition)", "fraction", 1 },
    { "window_start_s", EXACT, "measurement window start", "s", 0 },
    { "window_end_s", EXACT, "measurement window end", "s", 0 },
    { "sia_rounds", EXACT, "Sia rounds", "count", 0 },
    { "sia_ilp_branched", EXACT, "Sia rounds that branched", "count", 0 },
    { "sia_ilp_limit_hits", EXACT, "Sia rounds not proven optimal", "count", 0 },
    { "sia_ilp_nodes_max", EXACT, "most branch-and-bound nodes of a Sia round", "count", 0 },
    { "sia_rounding_gap_mean", EXACT, "mean rounding gap of a Sia round", "fraction", 0 },
    { "sia_rounding_gap_max", EXACT, "worst rounding gap of a Sia round", "fraction", 0 },
    /* what a policy predicted against what the world measured (multiplexing) */
    { "pred_error_mean", EXACT, "mean prediction error of slowdowns", "fraction", 0 },
    { "pred_unseen_error_mean", EXACT, "mean prediction error, unmeasured combinations",
      "fraction", 0 },
    { "pred_scored", EXACT, "predictions scored", "count", 0 },
    { "pred_unseen_scored", EXACT, "predictions of unmeasured combinations", "count", 0 },
    { "pred_profiled", EXACT, "job-type pairs profiled", "count", 0 },
    { "pred_observed", EXACT, "shared configurations observed", "count", 0 },
    /* colocate: the broker's (its tenants' own are theirs, under the tenant's name) */
    { "gpu_hours_serving", EXACT, "GPU time held by serving", "GPU-h", 0 },
    { "gpu_hours_training", EXACT, "GPU time held by training", "GPU-h", 0 },
    { "gpu_hours_loaned", EXACT, "GPU time lent to training", "GPU-h", 0 },
    { "loans", EXACT, "nodes lent", "count", 0 },
    { "reclaims", EXACT, "nodes reclaimed", "count", 0 },
    { "reclaim_preemptions", EXACT, "jobs preempted by reclaims", "count", 0 },
    { "broker_decisions", EXACT, "broker decisions", "count", 0 },
    /* every world */
    { "solver_time_mean", EXACT, "mean decision time (wall clock)", "s", 0 },
    { "solver_time_max", EXACT, "longest decision time (wall clock)", "s", 0 },
    /* serving */
    { "ttft_mean", EXACT, "mean TTFT", "s", 0 },
    { "ttft_p50", EXACT, "median TTFT", "s", 0 },
    { "ttft_p95", EXACT, "P95 TTFT", "s", 0 },
    { "ttft_p99", EXACT, "P99 TTFT", "s", 0 },
    { "tpot_mean", EXACT, "mean TPOT", "s", 0 },
    { "tpot_p50", EXACT, "median TPOT", "s", 0 },
    { "tpot_p95", EXACT, "P95 TPOT", "s", 0 },
    { "tpot_p99", EXACT, "P99 TPOT", "s", 0 },
    { "e2e_mean", EXACT, "mean end-to-end latency", "s", 0 },
    { "e2e_p50", EXACT, "median end-to-end latency", "s", 0 },
    { "e2e_p95", EXACT, "P95 end-to-end latency", "s", 0 },
    { "e2e_p99", EXACT, "P99 end-to-end latency", "s", 0 },
    { "e2e_per_token_mean", EXACT, "mean latency per output token", "s", 0 },
    { "queue_mean", EXACT, "mean queueing delay", "s", 0 },
    { "tokens_per_s", EXACT, "output throughput", "tokens/s", 1 },
    { "tokens_out", EXACT, "output tokens", "tokens", 0 },
    { "requests_per_s", EXACT, "request throughput", "requests/s", 1 },
    { "slo_attainment", EXACT, "SLO attainment", "fraction", 1 },
    { "slo_goodput_per_s", EXACT, "requests within the SLO", "requests/s", 1 },
    { "requests_total", EXACT, "requests", "requests", 0 },
    { "requests", EXACT, "requests", "requests", 0 },   /* requests_steady */
    { "requests_done", EXACT, "requests done", "requests", 1 },
    { "requests_dropped", EXACT, "requests dropped", "requests", 0 },
    { "requests_unfinished", EXACT, "requests unfinished", "requests", 0 },
    { "kv_used_frac", EXACT, "KV cache in use", "fraction", 0 },
    { "kv_moved_gb", EXACT, "KV cache moved", "GB", 0 },
    { "iterations", EXACT, "iterations", "count", 0 },
    { "rebalances", EXACT, "rebalances", "count", 0 },
    /* microservices */
    { "containers_mean", EXACT, "mean containers", "containers", 0 },
    { "containers_max", EXACT, "most containers", "containers", 0 },
    { "cpu_seconds", EXACT, "CPU time allocated", "CPU-s", 0 },
    { "sla_violation_prob", EXACT, "SLA violation probability", "fraction", 0 },
    { "sla_miss_frac", EXACT, "requests over the SLA", "fraction", 0 },
    { "intervals", EXACT, "decision intervals", "count", 0 },
    { "scale_outs", EXACT, "containers added", "containers", 0 },
    { "scale_ins", EXACT, "containers removed", "containers", 0 },
    { "capacity_capped", EXACT, "decisions cut to fit", "count", 0 },
    { "drain_seconds", EXACT, "time removed containers drained", "container-s", 0 },
    { "app_rt_cleaned", EXACT, "trace calls cleaned", "count", 0 },
    /* placement */
    { "pods_listed", EXACT, "pods in the trace", "pods", 0 },
    { "pods_drawn", EXACT, "pods drawn", "pods", 0 },
    { "pods_dropped", EXACT, "pods left out", "pods", 0 },
    { "pods_total", EXACT, "pods", "pods", 0 },
    { "pods_placed", EXACT, "pods placed", "pods", 1 },
    { "pods_unallocated", EXACT, "pods not placed", "pods", 0 },
    { "pod_types", EXACT, "pod types", "count", 0 },
    { "gpus_total", EXACT, "GPUs", "GPUs", 0 },
    { "gpus_unallocated", EXACT, "idle GPUs", "GPUs", 0 },
    { "gpus_fragmented", EXACT, "fragmented GPUs", "GPUs", 0 },
    { "arrived_gpu_frac", EXACT, "GPU load arrived", "fraction", 0 },
    { "gpu_alloc_frac", EXACT, "GPUs allocated", "fraction", 1 },
    { "milli_alloc_frac", EXACT, "GPU capacity allocated", "fraction", 1 },
    { "cpu_alloc_frac", EXACT, "CPU allocated", "fraction", 1 },
    { "mem_alloc_frac", EXACT, "memory allocated", "fraction", 1 },
    { "frag_frac", EXACT, "fragmented share of idle GPU", "fraction", 0 },
    { "frag_cluster_frac", EXACT, "fragmented share of all GPU", "fraction", 0 },
    { "idle_q1_lack_both_frac", EXACT, "idle GPU, Q-I (pods lack GPU and CPU)", "fraction", 0 },
    { "idle_q2_lack_gpu_frac", EXACT, "idle GPU, Q-II (pods lack GPU)", "fraction", 0 },
    { "idle_q3_satisfied_frac", EXACT, "idle GPU, Q-III (pods fit)", "fraction", 0 },
    { "idle_q4_lack_cpu_frac", EXACT, "idle GPU, Q-IV (pods lack CPU)", "fraction", 0 },
    { "idle_xl_satisfied_frac", EXACT, "idle GPU, x-axis (pods fit)", "fraction", 0 },
    { "idle_xr_lack_cpu_frac", EXACT, "idle GPU, x-axis (pods lack CPU)", "fraction", 0 },
    { "idle_no_access_frac", EXACT, "idle GPU no pod may use", "fraction", 0 },
    /* families */
    { "util_", PREFIX, "%s utilization", "fraction", 1 },
    /* units only: a metric the table lacks keeps its key (these suffixes outrank the
     * prefixes: jobs_per_h is a rate, ftf_late_frac a fraction) */
    { "_frac", SUFFIX, NULL, "fraction", 0 },
    { "_per_s", SUFFIX, NULL, "per s", 0 },
    { "_per_h", SUFFIX, NULL, "per h", 0 },
    { "jct_", PREFIX, NULL, "s", 0 },
    { "ttft_", PREFIX, NULL, "s", 0 },
    { "tpot_", PREFIX, NULL, "s", 0 },
    { "e2e_", PREFIX, NULL, "s", 0 },
    { "queue_", PREFIX, NULL, "s", 0 },
    { "solver_time_", PREFIX, NULL, "s", 0 },
    { "ftf_", PREFIX, NULL, "ratio", 0 },
    { "jobs_", PREFIX, NULL, "jobs", 0 },
    { "requests_", PREFIX, NULL, "requests", 0 },
    { "pods_", PREFIX, NULL, "pods", 0 },
    { "throughput_", PREFIX, NULL, "", 1 },
    { "_s", SUFFIX, NULL, "s", 0 },
    { "_h", SUFFIX, NULL, "h", 0 },
    { "_usd", SUFFIX, NULL, "USD", 0 },
};

/* the qualifiers a name may end with, and what they add to its label */
static const struct { const char *suffix, *label; } qualifiers[] = {
    { "_window", ", window" },
    { "_steady", ", steady state" },
};

/* The first rule for the first n bytes of name (exact: only its exact rows), or NULL. */
static const struct metric_rule *rule_of(const char *name, size_t n, int exact)
{
    for (size_t i = 0; i < sizeof metric_rules / sizeof metric_rules[0]; i++) {
        const struct metric_rule *r = &metric_rules[i];
        size_t k = strlen(r->pat);
        if ((r->kind == EXACT && n == k && strncmp(name, r->pat, k) == 0) ||
            (!exact && r->kind == PREFIX && n > k && strncmp(name, r->pat, k) == 0) ||
            (!exact && r->kind == SUFFIX && n > k && strncmp(name + n - k, r->pat, k) == 0))
            return r;
    }
    return NULL;
}

/* A colocate tenant's metric: its name, "_", and the metric as the tenant's world names it. */
static const char *const tenant_prefixes[] = { "serving_", "training_" };

void report_metric_info(const char *name, struct report_metric *out)
{
    for (size_t i = 0; i < sizeof tenant_prefixes / sizeof tenant_prefixes[0]; i++) {
        size_t k = strlen(tenant_prefixes[i]);
        if (strncmp(name, tenant_prefixes[i], k) != 0 || name[k] == '\0')
            continue;
        report_metric_info(name + k, out);
        if (!out->known)
            break;
        char rest[sizeof out->label];
        memcpy(rest, out->label, sizeof rest);
        snprintf(out->label, sizeof out->label, "%.*s: %.80s", (int)(k - 1), name, rest);
        return;
    }
    size_t n = strlen(name);
    /* a row of its own, else the metric a qualifier follows, else any rule */
    const struct metric_rule *r = rule_of(name, n, 1);
    int q = -1;
    for (size_t i = 0; r == NULL && i < sizeof qualifiers / sizeof qualifiers[0]; i++) {
        size_t k = strlen(qualifiers[i].suffix);
        if (n > k && strcmp(name + n - k, qualifiers[i].suffix) == 0 &&
            (r = rule_of(name, n - k, 0)) != NULL) {
            q = (int)i;
            n -= k;
        }
    }
    if (r == NULL)
        r = rule_of(name, n, 0);
    out->unit = r ? r->unit : "";
    out->higher_better = r ? r->higher : 0;
    out->known = r != NULL && r->label != NULL;
    if (!out->known) {
        snprintf(out->label, sizeof out->label, "%s", name);
        return;
    }
    int len;
    if (r->kind == PREFIX) {
        size_t k = strlen(r->pat);
        char rest[64];
        snprintf(rest, sizeof rest, "%.*s", (int)(n - k), name + k);
        len = snprintf(out->label, sizeof out->label, r->label, rest);
    } else {
        len = snprintf(out->label, sizeof out->label, "%s", r->label);
    }
    if (q >= 0 && len >= 0 && (size_t)len < sizeof out->label)
        snprintf(out->label + len, sizeof out->label - (size_t)len, "%s", qualifiers[q].label);
}

const char *report_metric_unit(const char *name)
{
    struct report_metric m;
    report_metric_info(name, &m);
    return m.unit;
}

int report_metric_higher_better(const char *name)
{
    struct report_metric m;
    report_metric_info(name, &m);
    return m.higher_better;
}

void report_metric_title(const char *name, char *out, size_t cap)
{
    struct report_metric m;
    report_metric_info(name, &m);
    if (*m.unit != '\0')
        snprintf(out, cap, "%s (%s)", m.label, m.unit);
    else
        snprintf(out, cap, "%s", m.label);
}

/* A ratio to the baseline is shown for every metric but utilizations and counts of a domain's
 * entities (jobs_done, requests_unfinished, pods_placed ...), whose differences read better
 * than their ratios. */
static int has_ratio(const char *name)
{
    const char *u = report_metric_unit(name);
    int entities = (strcmp(u, "jobs") == 0 || strcmp(u, "requests") == 0 ||
                    strcmp(u, "pods") == 0) && strncmp(name, u, strlen(u)) == 0;
    return strncmp(name, "util_", 5) != 0 && !entities;
}

/* ------------------------------------------------------------------ configs */

/* a growable string; oom set once an allocation failed */
struct str {
    char  *s;
    size_t n, cap;
    int    oom;
};

static void str_add(struct str *b, const char *t, size_t len)
{
    if (b->oom)
        return;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + len + 1)
            cap *= 2;
        char *g = realloc(b->s, cap);
        if (g == NULL) {
            b->oom = 1;
            return;
        }
        b->s = g;
        b->cap = cap;
    }
    memcpy(b->s + b->n, t, len);
    b->n += len;
    b->s[b->n] = '\0';
}

static void str_puts(struct str *b, const char *t)
{
    str_add(b, t, strlen(t));
}

/* Remove the value at dotted path `key` (array indexes as numbers), if there is one. */
static void remove_path(cJSON *root, const char *key)
{
    cJSON *node = root;
    for (const char *p = key; node != NULL;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char part[256];
        if (len >= sizeof part)
            return;
        memcpy(part, p, len);
        part[len] = '\0';
        int index = len > 0 && strspn(part, "0123456789") == len;
        if (dot == NULL) {
            if (cJSON_IsArray(node) && index)
                cJSON_DeleteItemFromArray(node, atoi(part));
            else if (cJSON_IsObject(node))
                cJSON_DeleteItemFromObjectCaseSensitive(node, part);
            return;
        }
        node = cJSON_IsArray(node) && index ? cJSON_GetArrayItem(node, atoi(part))
               : cJSON_IsObject(node)       ? cJSON_GetObjectItemCaseSensitive(node, part)
                                            : NULL;
        p = dot + 1;
    }
}

/* config text as a JSON object without policies, seed and the excluded paths; NULL when out
 * of memory */
static cJSON *config_parse(const char *config, const char *const *exclude, size_t nexclude)
{
    cJSON *c = config ? cJSON_Parse(config) : NULL;
    if (c != NULL && !cJSON_IsObject(c)) {
        cJSON_Delete(c);
        c = NULL;
    }
    if (c == NULL)
        return cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(c, "policies");
    cJSON_DeleteItemFromObjectCaseSensitive(c, "seed");
    for (size_t i = 0; i < nexclude; i++)
        remove_path(c, exclude[i]);
    return c;
}

int report_config_key(const char *config, const char *const *exclude, size_t nexclude,
                      char out[17])
{
    cJSON *c = config_parse(config, exclude, nexclude);
    char *text = c ? cJSON_PrintUnformatted(c) : NULL;
    cJSON_Delete(c);
    if (text == NULL)
        return -1;
    db_hash_hex(text, out);
    free(text);
    return 0;
}

/* a value as --set takes it: JSON, except a string that would read back as a string anyway */
static void put_setting(struct str *b, const cJSON *v)
{
    if (v == NULL) {
        str_puts(b, "(unset)");
        return;
    }
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        cJSON *as_json = cJSON_ParseWithOpts(s, NULL, 1);
        int plain = *s != '\0' && as_json == NULL && strpbrk(s, " \t\r\n") == NULL &&
                    strcmp(s, "(unset)") != 0;
        cJSON_Delete(as_json);
        if (plain) {
            str_puts(b, s);
            return;
        }
    }
    char *text = cJSON_PrintUnformatted(v);
    if (text == NULL) {
        b->oom = 1;
        return;
    }
    str_puts(b, text);
    free(text);
}

static int diff_at(cJSON *const *v, size_t n, struct str *path, struct str *out);

/* diff_at for the member `name` (or, name NULL, the element `index`) of every value */
static int diff_member(cJSON *const *v, size_t n, const char *name, int index, cJSON **sub,
                       struct str *path, struct str *out)
{
    for (size_t x = 0; x < n; x++)
        sub[x] = v[x] == NULL ? NULL
                 : name       ? cJSON_GetObjectItemCaseSensitive(v[x], name)
                              : cJSON_GetArrayItem(v[x], index);
    size_t at = path->n;
    if (at > 0)
        str_puts(path, ".");
    char num[24];
    snprintf(num, sizeof num, "%d", index);
    str_puts(path, name ? name : num);
    int rc = path->oom ? -1 : diff_at(sub, n, path, out);
    path->n = at;
    if (path->s != NULL)
        path->s[at] = '\0';
    return rc;
}

/* Compare the n values v[] (NULL: absent) at `path`, appending "path=value" to each out[i]
 * where they differ: objects member by member (absent ones as empty), arrays of one length
 * element by element, anything else whole.  Returns -1 when out of memory. */
static int diff_at(cJSON *const *v, size_t n, struct str *path, struct str *out)
{
    int objects = 1, arrays = 1, present = 0, size = -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == NULL)
            continue;
        present = 1;
        objects &= cJSON_IsObject(v[i]);
        arrays &= cJSON_IsArray(v[i]) && (size < 0 || size == cJSON_GetArraySize(v[i]));
        size = cJSON_IsArray(v[i]) ? cJSON_GetArraySize(v[i]) : size;
    }
    if (!present)
        return 0;
    if (objects || (arrays && size > 0)) {
        cJSON **sub = malloc(n * sizeof *sub);
        if (sub == NULL)
            return -1;
        int rc = 0;
        if (objects) {
            /* every member name once, in the order it first appears */
            for (size_t i = 0; rc == 0 && i < n; i++)
                for (cJSON *m = v[i] ? v[i]->child : NULL; rc == 0 && m != NULL; m = m->next) {
                    size_t j = 0;
                    while (j < i && (v[j] == NULL ||
                                     cJSON_GetObjectItemCaseSensitive(v[j], m->string) == NULL))
                        j++;
                    if (j == i)
                        rc = diff_member(v, n, m->string, 0, sub, path, out);
                }
        } else {
            for (int k = 0; rc == 0 && k < size; k++)
                rc = diff_member(v, n, NULL, k, sub, path, out);
        }
        free(sub);
        return rc;
    }
    int same = 1;
    for (size_t i = 1; i < n && same; i++)
        same = (v[i] == NULL && v[0] == NULL) ||
               (v[i] != NULL && v[0] != NULL && cJSON_Compare(v[i], v[0], 1));
    if (same)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i].n > 0)
            str_puts(&out[i], " ");
        str_puts(&out[i], path->s ? path->s : "");
        str_puts(&out[i], "=");
        put_setting(&out[i], v[i]);
        if (out[i].oom)
            return -1;
    }
    return 0;
}

int report_config_diff(const char *const *configs, size_t n, const char *const *exclude,
                       size_t nexclude, char **out)
{
    cJSON **v = calloc(n + 1, sizeof *v);
    struct str *res = calloc(n + 1, sizeof *res);
    struct str path = { 0 };
    int rc = v == NULL || res == NULL ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if ((v[i] = config_parse(configs[i], exclude, nexclude)) == NULL)
            rc = -1;
    if (rc == 0)
        rc = diff_at(v, n, &path, res);
    for (size_t i = 0; i < n; i++) {
        out[i] = NULL;
        if (rc == 0 && (out[i] = res[i].s ? res[i].s : strdup("")) == NULL)
            rc = -1;
        else if (rc == 0)
            res[i].s = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (rc < 0) {
            free(out[i]);
            out[i] = NULL;
        }
        if (v != NULL)
            cJSON_Delete(v[i]);
        if (res != NULL)
            free(res[i].s);
    }
    free(v);
    free(res);
    free(path.s);
    return rc;
}

/* ------------------------------------------------------------------ loading runs */

/* report_opts and report_query in one */
struct ropts {
    int            format;
    const char    *baseline, *experiment, *sweep, *where;
    const int64_t *run_ids;
    int            n_run_ids, group;
    const char *const *columns;     /* as given (comma lists) */
    int            ncolumns;
    display_fn     display_of;      /* the domains' default columns, or NULL */
    int            all;             /* the defaults, then every metric of the runs */
    char         **col;             /* the metrics shown, resolved */
    int            ncol, col_cap;
};

struct row {
    int64_t id, seed;
    char   *experiment, *policy;
    char    group[17];          /* group_hash: the config without its seed */
    char    ctx[17];            /* hash of the config without seed and policies */
    char  **axis;               /* the sweep's axes (text, "" where the run has none) */
    char   *config;             /* config_json */
    char   *overrides;          /* what differs from the other rows shown (shown rows) */
    double *v;                  /* per column; NAN where the run lacks the metric */
    int     shown;              /* selected; else loaded only as a baseline */
};

struct rows {
    struct row *r;
    size_t      n, cap;
    char      **axes;           /* names of the swept fields shown as columns */
    int         naxes;
};

static void rows_free(struct rows *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        free(rs->r[i].experiment);
        free(rs->r[i].policy);
        free(rs->r[i].config);
        free(rs->r[i].overrides);
        free(rs->r[i].v);
        for (int a = 0; rs->r[i].axis != NULL && a < rs->naxes; a++)
            free(rs->r[i].axis[a]);
        free(rs->r[i].axis);
    }
    for (int a = 0; a < rs->naxes; a++)
        free(rs->axes[a]);
    free(rs->axes);
    free(rs->r);
}

static const char *col_text(sqlite3_stmt *q, int i)
{
    const char *s = (const char *)sqlite3_column_text(q, i);
    return s ? s : "";
}

/* Append the rows `q` yields (the columns of cols_sql in load) as runs shown or not. */
static int read_runs(sqlite3 *h, sqlite3_stmt *q, int shown, struct rows *rs,
                     struct errbuf *err)
{
    int s;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        if (rs->n == rs->cap) {
            size_t cap = rs->cap ? 2 * rs->cap : 64;
            struct row *grown = realloc(rs->r, cap * sizeof *grown);
            if (grown == NULL)
                return err_run(err, "out of memory");
            rs->r = grown;
            rs->cap = cap;
        }
        struct row *r = &rs->r[rs->n++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(q, 0);
        r->experiment = strdup(col_text(q, 1));
        r->policy = strdup(col_text(q, 2));
        r->seed = sqlite3_column_int64(q, 3);
        r->shown = shown;
        const char *g = col_text(q, 4);
        if (*g != '\0')
            snprintf(r->group, sizeof r->group, "%s", g);
        else
            db_hash_hex(col_text(q, 5), r->group);     /* as db.c computes group_hash */
        db_hash_hex(col_text(q, 6), r->ctx);
        r->config = strdup(col_text(q, 7));
        if (r->experiment == NULL || r->policy == NULL || r->config == NULL)
            return err_run(err, "out of memory");
    }
    sqlite3_reset(q);
    if (s != SQLITE_DONE)
        return err_run(err, "reading runs: %s", sqlite3_errmsg(h));
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The sweep's axes shown as columns, in the order the sweep wrote them: every swept field but
 * the policy (a column already) and, when grouping, the seed (what a group spans). */
static int load_axes(sqlite3 *h, const struct ropts *o, struct rows *rs,
                     struct errbuf *err)
{
    sqlite3_stmt *q;
    if (prep(h, "SELECT key FROM run_params WHERE sweep = ?1 AND key != 'policy' AND "
                "(?2 = 0 OR key != 'seed') GROUP BY key ORDER BY min(rowid)", &q, err) < 0)
        return -1;
    sqlite3_bind_text(q, 1, o->sweep, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, o->group);
    int cap = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (rs->naxes == cap) {
            cap = cap ? 2 * cap : 8;
            char **grown = realloc(rs->axes, (size_t)cap * sizeof *grown);
            if (grown == NULL) {
                sqlite3_finalize(q);
                return err_run(err, "out of memory");
            }
            rs->axes = grown;
        }
        if ((rs->axes[rs->naxes] = strdup(col_text(q, 0))) == NULL) {
            sqlite3_finalize(q);
            return err_run(err, "out of memory");
        }
        rs->naxes++;
    }
    sqlite3_finalize(q);
    if (rs->naxes == 0)
        return 0;
    if (prep(h, param_sql, &q, err) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < rs->n; i++) {
        struct row *r = &rs->r[i];
        if (!r->shown)
            continue;
        if ((r->axis = calloc((size_t)rs->naxes, sizeof *r->axis)) == NULL)
            rc = err_run(err, "out of memory");
        for (int a = 0; rc == 0 && a < rs->naxes; a++) {
            sqlite3_bind_int64(q, 1, r->id);
            sqlite3_bind_text(q, 2, rs->axes[a], -1, SQLITE_STATIC);
            r->axis[a] = strdup(sqlite3_step(q) == SQLITE_ROW ? col_text(q, 0) : "");
            sqlite3_reset(q);
            if (r->axis[a] == NULL)
                rc = err_run(err, "out of memory");
        }
    }
    sqlite3_finalize(q);
    return rc;
}

/* The selected runs, and the baseline policy's runs, in id order with their metrics. */
static int load(sqlite3 *h, const struct ropts *o, const int64_t *ids, size_t nids,
                struct rows *rs, struct errbuf *err)
{
    const char *gh = has_column(h, "runs", "group_hash") ? "group_hash" : "''";
    char sql[512];
    const char *cols_sql = "SELECT id, experiment, policy, seed, %s, "
                           "json_remove(config_json, '$.seed'), "
                           "json_remove(config_json, '$.seed', '$.policies'), config_json "
                           "FROM runs %s";
    sqlite3_stmt *one = NULL, *base = NULL, *m = NULL;
    int rc = -1;
    snprintf(sql, sizeof sql, cols_sql, gh, "WHERE id = ?1");
    if (prep(h, sql, &one, err) < 0)
        goto out;
    for (size_t i = 0; i < nids; i++) {
        sqlite3_bind_int64(one, 1, ids[i]);
        if (read_runs(h, one, 1, rs, err) < 0)
            goto out;
    }
    if (o->baseline != NULL) {
        snprintf(sql, sizeof sql, cols_sql, gh,
                 "WHERE policy = ?1 AND stop_reason != 'running' ORDER BY id");
        if (prep(h, sql, &base, err) < 0)
            goto out;
        sqlite3_bind_text(base, 1, o->baseline, -1, SQLITE_STATIC);
        size_t before = rs->n;
        if (read_runs(h, base, 0, rs, err) < 0)
            goto out;
        /* drop the ones already selected */
        size_t k = before;
        for (size_t i = before; i < rs->n; i++) {
            if (nids > 0 && bsearch(&rs->r[i].id, ids, nids, sizeof *ids, cmp_id) != NULL) {
                free(rs->r[i].experiment);
                free(rs->r[i].policy);
                free(rs->r[i].config);
            } else {
                rs->r[k++] = rs->r[i];
            }
        }
        rs->n = k;
    }
    if (rs->n > 0)
        qsort(rs->r, rs->n, sizeof *rs->r, by_id);
    if (prep(h, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &m, err) < 0)
        goto out;
    for (size_t i = 0; i < rs->n; i++) {
        if ((rs->r[i].v = malloc(((size_t)o->ncol + 1) * sizeof *rs->r[i].v)) == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        for (int c = 0; c < o->ncol; c++) {
            sqlite3_bind_int64(m, 1, rs->r[i].id);
            sqlite3_bind_text(m, 2, o->col[c], -1, SQLITE_STATIC);
            rs->r[i].v[c] = sqlite3_step(m) == SQLITE_ROW && sqlite3_column_type(m, 0) != SQLITE_NULL
                                ? sqlite3_column_double(m, 0)
                                : NAN;
            sqlite3_reset(m);
        }
    }
    if (o->sweep != NULL && load_axes(h, o, rs, err) < 0)
        goto out;
    rc = 0;
out:
    sqlite3_finalize(one);
    sqlite3_finalize(base);
    sqlite3_finalize(m);
    return rc;
}

/* ------------------------------------------------------------------ baselines and groups */

/* baseline runs ordered by (ctx, experiment, seed, id): the last of a key is the latest */
static int base_key(const struct row *a, const struct row *b)
{
    int c = strcmp(a->ctx, b->ctx);
    if (c == 0)
        c = strcmp(a->experiment, b->experiment);
    if (c == 0)
        c = (a->seed > b->seed) - (a->seed < b->seed);
    return c;
}

static int base_order(const void *a, const void *b)
{
    const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
    int c = base_key(x, y);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static const struct row *find_base(struct row *const *base, size_t nb, const struct row *r)
{
    size_t lo = 0, hi = nb;     /* first with a key above r's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (base_key(base[mid], r) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && base_key(base[lo - 1], r) == 0 ? base[lo - 1] : NULL;
}

/* group_hash alone says "same config but the seed"; experiment and policy are compared too,
 * in case a database was written by something else */
static int group_key(const struct row *x, const struct row *y)
{
    int c = strcmp(x->group, y->group);
    if (c == 0)
        c = strcmp(x->experiment, y->experiment);
    return c ? c : strcmp(x->policy, y->policy);
}

/* group members ordered by (group, seed, id): the last of a seed is its latest run */
static int group_order(const void *a, const void *b)
{
    const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
    int c = group_key(x, y);
    if (c == 0)
        c = (x->seed > y->seed) - (x->seed < y->seed);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

struct group {
    struct row **seed;          /* the latest run of each of its n seeds */
    size_t       n;
    int64_t      first;         /* smallest run id: groups print in the order they began */
    struct row  *latest;        /* names and axes come from the latest run */
};

static int by_first(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}


/* ------------------------------------------------------------------ cells and printing */

struct grid {
    char **cell;                /* row-major, the header first */
    size_t n, cap;
    int    nhead;               /* header rows: 2 in a table (names, units), else 1 */
    int    ncols, nleft;        /* the first nleft columns are text (left-aligned), */
    int    last_text;           /* and the last when set (overrides) */
    int    oom;
};

static void put(struct grid *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct grid *g, const char *fmt, ...)
{
    if (g->oom)
        return;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        char **grown = realloc(g->cell, cap * sizeof *grown);
        if (grown == NULL) {
            g->oom = 1;
            return;
        }
        g->cell = grown;
        g->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (s == NULL) {
        g->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    g->cell[g->n++] = s;
}

static void grid_free(struct grid *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->cell[i]);
    free(g->cell);
}

/* a real for programs: the shortest text (15 to 17 significant digits) that reads back to
 * the same double */
static void put_real(struct grid *g, double v)
{
    char b[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(b, sizeof b, "%.*g", digits, v);
        if (strtod(b, NULL) == v)
            break;
    }
    put(g, "%s", b);
}

/* a metric for people, by its unit: times to 0.1 s (or h), or to 3 digits below a second
 * (microservice latencies are milliseconds), counts whole (a mean that is not: one place, 3
 * below 10), fractions and ratios to 3 places, money to the cent */
static void human(char *b, size_t cap, const char *unit, double v)
{
    if (strcmp(unit, "s") == 0 && v != 0 && fabs(v) < 1)
        snprintf(b, cap, "%.3g", v);
    else if (strcmp(unit, "s") == 0 || strcmp(unit, "h") == 0 || strcmp(unit, "GPU-h") == 0 ||
             strcmp(unit, "CPU-s") == 0)
        snprintf(b, cap, "%.1f", v);
    else if (strcmp(unit, "jobs") == 0 || strcmp(unit, "requests") == 0 ||
             strcmp(unit, "pods") == 0 || strcmp(unit, "containers") == 0 ||
             strcmp(unit, "GPUs") == 0 || strcmp(unit, "tokens") == 0 ||
             strcmp(unit, "count") == 0)
        snprintf(b, cap, v == rint(v) ? "%.0f" : fabs(v) >= 10 ? "%.1f" : "%.3f", v);
    else if (strcmp(unit, "USD") == 0)
        snprintf(b, cap, "%.2f", v);
    else if (strcmp(unit, "fraction") == 0 || strcmp(unit, "ratio") == 0)
        snprintf(b, cap, "%.3f", v);
    else
        snprintf(b, cap, "%.4g", v);
}

/* One value, with its CI half-width when ci (grouped): "mean ± half" for people, two cells
 * at full precision in CSV.  col < 0 is a ratio to the baseline (3 places). */
static void put_value(struct grid *g, const struct ropts *o, int col, double v, int ci,
                      double half)
{
    int format = o->format;
    if (format == REPORT_CSV) {
        isnan(v) ? put(g, "%s", "") : put_real(g, v);
        if (ci)
            isnan(half) ? put(g, "%s", "") : put_real(g, half);
        return;
    }
    char a[64], b[64];
    if (isnan(v) || isinf(v)) {
        put(g, "-");
        return;
    }
    if (col < 0) {
        snprintf(a, sizeof a, "%.3f", v);
        snprintf(b, sizeof b, "%.3f", half);
    } else {
        const char *unit = report_metric_unit(o->col[col]);
        human(a, sizeof a, unit, v);
        human(b, sizeof b, unit, half);
    }
    if (ci && !isnan(half))
        put(g, "%s \u00b1 %s", a, b);
    else
        put(g, "%s", a);
}

/* What a grid holds: the values, the ratios to the baseline, the overrides column.  A table
 * for people (REPORT_TABLE) prints the values and the ratios as two grids, one below the
 * other, so that each fits a terminal; the other formats put them side by side in one. */
enum { PART_VALUES = 1, PART_RATIOS = 2, PART_OVERRIDES = 4 };

/* A header cell.  A table's header has two lines (g->nhead 2): the name, then the unit in
 * parentheses, so that a column is as wide as its name; CSV has the bare name (what programs
 * read); Markdown "name (unit)"; HTML the metric's label and unit, a newline, then the name
 * (print_html sets it as code).  label NULL: a column that is no metric (run, policy, ...). */
static void put_head(struct grid *g, const struct ropts *o, int line, const char *name,
                     const char *label, const char *unit)
{
    if (g->nhead == 2)
        line == 0 ? put(g, "%s", name) : *unit ? put(g, "(%s)", unit) : put(g, "%s", "");
    else if (o->format == REPORT_CSV || *unit == '\0')
        put(g, "%s", name);
    else if (o->format == REPORT_HTML && label != NULL)
        put(g, "%s (%s)\n%s", label, unit, name);
    else
        put(g, "%s (%s)", name, unit);
}

/* Header line `line` (0, or 1 for a table's units) of the given parts. */
static void put_header_line(struct grid *g, const struct ropts *o, const struct rows *rs,
                            int parts, int line)
{
    put_head(g, o, line, o->group ? "group" : "run", NULL, "");
    put_head(g, o, line, "experiment", NULL, "");
    put_head(g, o, line, "policy", NULL, "");
    for (int a = 0; a < rs->naxes; a++)
        put_head(g, o, line, rs->axes[a], NULL, "");
    if (o->group && (parts & PART_VALUES))
        put_head(g, o, line, "n", NULL, "seeds");
    int csv_ci = o->group && o->format == REPORT_CSV;
    for (int c = 0; (parts & PART_VALUES) && c < o->ncol; c++) {
        struct report_metric m;
        report_metric_info(o->col[c], &m);
        put_head(g, o, line, o->col[c], m.label, m.unit);
        if (csv_ci)
            put(g, "%s_ci95", o->col[c]);
    }
    if ((parts & PART_RATIOS) && o->baseline != NULL) {
        /* alone in a table of ratios, a column is its metric's name: the title says the rest */
        int alone = !(parts & PART_VALUES);
        for (int c = 0; c < o->ncol; c++)
            if (has_ratio(o->col[c])) {
                struct report_metric m;
                report_metric_info(o->col[c], &m);
                char name[256], label[256];
                snprintf(name, sizeof name, "%s/%s", o->col[c], o->baseline);
                snprintf(label, sizeof label, "%s / %s", m.label, o->baseline);
                put_head(g, o, line, alone ? o->col[c] : name, label, alone ? "" : "x");
                if (csv_ci)
                    put(g, "%s_ci95", name);
            }
        if (o->group)
            put_head(g, o, line, "n_paired", NULL, "seeds");
    }
    if (parts & PART_OVERRIDES)
        put_head(g, o, line, "overrides", NULL, "");
}

static void put_header(struct grid *g, const struct ropts *o, const struct rows *rs, int parts)
{
    size_t before = g->n;
    for (int line = 0; line < g->nhead; line++)
        put_header_line(g, o, rs, parts, line);
    g->ncols = (int)((g->n - before) / (size_t)g->nhead);
    g->nleft = 3 + rs->naxes;
    g->last_text = (parts & PART_OVERRIDES) != 0;
}

static void put_run(struct grid *g, const struct ropts *o, const struct rows *rs,
                    const struct row *r, struct row *const *base, size_t nb, int parts)
{
    put(g, "%lld", (long long)r->id);
    put(g, "%s", r->experiment);
    put(g, "%s", r->policy);
    for (int a = 0; a < rs->naxes; a++)
        put(g, "%s", r->axis[a]);
    for (int c = 0; (parts & PART_VALUES) && c < o->ncol; c++)
        put_value(g, o, c, r->v[c], 0, NAN);
    if ((parts & PART_RATIOS) && o->baseline != NULL) {
        const struct row *b = find_base(base, nb, r);
        for (int c = 0; c < o->ncol; c++)
            if (has_ratio(o->col[c])) {
                double v = b ? r->v[c] / b->v[c] : NAN;
                put_value(g, o, -1, isinf(v) ? NAN : v, 0, NAN);
            }
    }
    if (parts & PART_OVERRIDES)
        put(g, "%s", r->overrides ? r->overrides : "");
}

static void put_group(struct grid *g, const struct ropts *o, const struct rows *rs,
                      const struct group *gr, struct row *const *base, size_t nb,
                      double *scratch, int parts)
{
    const struct row *r = gr->latest;
    put(g, "%.*s", o->format == REPORT_CSV ? 16 : 8, r->group);
    put(g, "%s", r->experiment);
    put(g, "%s", r->policy);
    for (int a = 0; a < rs->naxes; a++)
        put(g, "%s", r->axis[a]);
    double mean, half;
    if (parts & PART_VALUES)
        put(g, "%zu", gr->n);
    for (int c = 0; (parts & PART_VALUES) && c < o->ncol; c++) {
        size_t k = 0;
        for (size_t i = 0; i < gr->n; i++)
            if (!isnan(gr->seed[i]->v[c]))
                scratch[k++] = gr->seed[i]->v[c];
        stats_mean_ci(scratch, k, &mean, NULL, &half);
        put_value(g, o, c, mean, 1, half);
    }
    if ((parts & PART_RATIOS) && o->baseline != NULL) {
        size_t paired = 0;
        for (size_t i = 0; i < gr->n; i++)
            paired += find_base(base, nb, gr->seed[i]) != NULL;
        for (int c = 0; c < o->ncol; c++) {
            if (!has_ratio(o->col[c]))
                continue;
            size_t k = 0;
            for (size_t i = 0; i < gr->n; i++) {
                const struct row *b = find_base(base, nb, gr->seed[i]);
                double v = b ? gr->seed[i]->v[c] / b->v[c] : NAN;
                if (!isnan(v) && !isinf(v))
                    scratch[k++] = v;
            }
            stats_mean_ci(scratch, k, &mean, NULL, &half);
            put_value(g, o, -1, mean, 1, half);
        }
        put(g, "%zu", paired);
    }
    if (parts & PART_OVERRIDES)
        put(g, "%s", r->overrides ? r->overrides : "");
}

/* display width of UTF-8 text: continuation bytes take no column */
static int width_of(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* RFC 4180: a field with the separator, a quote or a line break is quoted, quotes doubled */
static void put_csv_field(FILE *out, const char *s, char sep)
{
    if (strchr(s, sep) == NULL && strpbrk(s, "\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void report_html_text(FILE *out, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:  fputc(*s, out);
        }
}

/* One paragraph per line of the notes. */
static void html_notes(FILE *out, const char *notes)
{
    while (notes != NULL && *notes) {
        size_t n = strcspn(notes, "\n");
        char *line = strndup(notes, n);
        if (line != NULL) {
            fputs("<p class=\"note\">", out);
            report_html_text(out, line);
            fputs("</p>\n", out);
            free(line);
        }
        notes += n + (notes[n] == '\n');
    }
}

/* 1 when column k of g holds text (left-aligned) */
static int text_col(const struct grid *g, size_t k)
{
    return (int)k < g->nleft || (g->last_text && (int)k + 1 == g->ncols);
}

/* An HTML table: the header row in <thead> (a metric's label, then its name as code),
 * numbers right-aligned (class num), the overrides cell in class settings. */
static void print_html(const struct grid *g, FILE *out)
{
    size_t nc = (size_t)g->ncols, nr = g->n / nc;
    fputs("<div class=\"scroll\"><table class=\"report\">\n", out);
    for (size_t i = 0; i < nr; i++) {
        fputs(i == 0 ? "<thead><tr>" : "<tr>", out);
        for (size_t k = 0; k < nc; k++) {
            const char *s = g->cell[i * nc + k];
            int text = text_col(g, k), settings = g->last_text && k + 1 == nc;
            if (i == 0) {
                size_t n = strcspn(s, "\n");
                char *label = strndup(s, n);
                fputs("<th>", out);
                report_html_text(out, label ? label : "");
                if (s[n] == '\n') {
                    fputs("<br><code>", out);
                    report_html_text(out, s + n + 1);
                    fputs("</code>", out);
                }
                fputs("</th>", out);
                free(label);
                continue;
            }
            fputs(settings ? "<td class=\"settings\">" : text ? "<td>" : "<td class=\"num\">",
                  out);
            report_html_text(out, s);
            fputs("</td>", out);
        }
        fputs(i == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
}

static void print_grid(const struct grid *g, int format, FILE *out)
{
    if (format == REPORT_HTML) {
        print_html(g, out);
        return;
    }
    size_t nc = (size_t)g->ncols, nr = g->n / nc;
    int *w = calloc(nc, sizeof *w);
    for (size_t i = 0; w != NULL && i < g->n; i++) {
        int cw = width_of(g->cell[i]);
        if (cw > w[i % nc])
            w[i % nc] = cw;
    }
    for (size_t i = 0; i < nr; i++) {
        int pending = 0;        /* blanks owed before the next text: none at a line's end */
        for (size_t k = 0; k < nc; k++) {
            const char *s = g->cell[i * nc + k];
            if (format == REPORT_CSV) {
                if (k)
                    fputc(',', out);
                put_csv_field(out, s, ',');
            } else if (format == REPORT_MARKDOWN) {
                fputs("| ", out);
                for (; *s; s++)
                    if (*s == '|')
                        fputs("\\|", out);
                    else
                        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
                fputc(' ', out);
            } else {
                int pad = w ? w[k] - width_of(s) : 0, left = text_col(g, k);
                pending += left ? 0 : pad;
                if (*s != '\0') {
                    fprintf(out, "%*s", pending, "");
                    fputs(s, out);
                    pending = 0;
                }
                pending += (left ? pad : 0) + 2;
            }
        }
        fputs(format == REPORT_MARKDOWN ? "|\n" : "\n", out);
        if (i + 1 == (size_t)g->nhead && format == REPORT_MARKDOWN) {
            for (size_t k = 0; k < nc; k++)
                fputs(text_col(g, k) ? "|---" : "|---:", out);
            fputs("|\n", out);
        }
    }
    free(w);
}

/* ------------------------------------------------------------------ the report */

/* edit distance of a and b (for "did you mean"), capped at 99 for long names */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* --columns NAME no run has: an input error naming the closest metric, or listing them */
static int unknown_column(sqlite3 *h, const char *db_path, const char *name,
                          struct errbuf *err)
{
    sqlite3_stmt *q;
    char best[128] = "", list[512] = "";
    int bestd = 99;
    size_t n = 0;
    if (prep(h, "SELECT DISTINCT name FROM metrics ORDER BY name", &q, err) < 0)
        return -1;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *m = col_text(q, 0);
        int d = distance(name, m);
        if (d < bestd) {
            bestd = d;
            snprintf(best, sizeof best, "%s", m);
        }
        if (n < sizeof list)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", m);
    }
    sqlite3_finalize(q);
    size_t len = strlen(name);
    if (*best != '\0' && bestd <= (len > 6 ? 3 : 2))
        return err_input(err, NULL, 0, "--columns", "no run in %s has a metric '%s' (did "
                         "you mean '%s'?)", db_path, name, best);
    return err_input(err, NULL, 0, "--columns", "no run in %s has a metric '%s' (%s%s)",
                     db_path, name, n ? "metrics: " : "it has none", list);
}

/* Append name to o->col unless it is there. */
static int add_column(struct ropts *o, const char *name, struct errbuf *err)
{
    for (int i = 0; i < o->ncol; i++)
        if (strcmp(o->col[i], name) == 0)
            return 0;
    if (o->ncol + 1 >= o->col_cap) {
        int cap = o->col_cap ? 2 * o->col_cap : 16;
        char **grown = realloc(o->col, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return err_run(err, "out of memory");
        o->col = grown;
        o->col_cap = cap;
    }
    if ((o->col[o->ncol] = strdup(name)) == NULL)
        return err_run(err, "out of memory");
    o->ncol++;
    return 0;
}

/* --all: after the defaults, every other metric some selected run has, by name. */
static int all_columns(sqlite3 *h, struct ropts *o, const int64_t *ids, size_t n,
                       struct errbuf *err)
{
    sqlite3_stmt *q;
    if (prep(h, "SELECT DISTINCT name FROM metrics WHERE run_id IN (SELECT value FROM "
                "json_each(?1)) ORDER BY name", &q, err) < 0)
        return -1;
    /* the ids as a JSON array: one query, however many runs */
    size_t cap = 2 + 21 * (n + 1);
    char *list = malloc(cap);
    if (list == NULL) {
        sqlite3_finalize(q);
        return err_run(err, "out of memory");
    }
    size_t len = (size_t)snprintf(list, cap, "[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(list + len, cap - len, "%s%lld", i ? "," : "",
                                (long long)ids[i]);
    snprintf(list + len, cap - len, "]");
    sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
    int rc = 0, s;
    while (rc == 0 && (s = sqlite3_step(q)) == SQLITE_ROW)
        rc = add_column(o, col_text(q, 0), err);
    if (rc == 0 && s != SQLITE_DONE)
        rc = err_run(err, "reading metrics: %s", sqlite3_errmsg(h));
    sqlite3_finalize(q);
    free(list);
    return rc;
}

/* The default columns: those of the domains of the selected runs (ids, n), in the order the
 * domains first ran, so that a report of training runs shows no placement columns because
 * the file also holds placement runs.  A domain no display describes (a database from a later
 * hetsim) needs --columns. */
static int default_columns(sqlite3 *h, struct ropts *o, const int64_t *ids, size_t n,
                           struct errbuf *err)
{
    int64_t *sorted = malloc((n + 1) * sizeof *sorted);
    if (sorted == NULL)
        return err_run(err, "out of memory");
    if (n > 0)              /* ids is NULL when no run was selected */
        memcpy(sorted, ids, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_id);
    sqlite3_stmt *q;
    if (prep(h, "SELECT min(id), domain FROM runs GROUP BY domain ORDER BY min(id)", &q,
             err) < 0) {
        free(sorted);
        return -1;
    }
    /* the first selected run of each domain orders the domains */
    struct dom { int64_t first; char *name; } *dom = NULL;
    size_t ndom = 0;
    int rc = 0;
    sqlite3_stmt *sel = NULL;
    if (prep(h, "SELECT id FROM runs WHERE domain = ?1 ORDER BY id", &sel, err) < 0)
        rc = -1;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(q, 1);
        sqlite3_bind_text(sel, 1, name, -1, SQLITE_TRANSIENT);
        int64_t first = -1;
        while (first < 0 && sqlite3_step(sel) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(sel, 0);
            if (bsearch(&id, sorted, n, sizeof *sorted, cmp_id) != NULL)
                first = id;
        }
        sqlite3_reset(sel);
        if (first < 0)
            continue;
        struct dom *g = realloc(dom, (ndom + 1) * sizeof *dom);
        char *copy = strdup(name);
        if (g == NULL || copy == NULL) {
            free(copy);
            if (g != NULL)
                dom = g;
            rc = err_run(err, "out of memory");
            break;
        }
        dom = g;
        dom[ndom++] = (struct dom){ first, copy };
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(q);
    free(sorted);
    /* insertion sort by first selected run: a handful of domains */
    for (size_t i = 1; i < ndom; i++)
        for (size_t j = i; j > 0 && dom[j].first < dom[j - 1].first; j--) {
            struct dom t = dom[j];
            dom[j] = dom[j - 1];
            dom[j - 1] = t;
        }
    for (size_t k = 0; rc == 0 && k < ndom; k++) {
        const char *domain = dom[k].name;
        const struct display *d = o->display_of ? o->display_of(domain) : NULL;
        if (d == NULL && o->all)
            continue;           /* its metrics come with the rest */
        if (d == NULL) {
            rc = err_input(err, NULL, 0, "--columns", "the database has runs of the '%s' "
                           "domain, whose metrics this hetsim does not know: name them with "
                           "--columns, or --all", domain);
            break;
        }
        for (int c = 0; rc == 0 && d->report_columns[c] != NULL; c++)
            rc = add_column(o, d->report_columns[c], err);
    }
    for (size_t k = 0; k < ndom; k++)
        free(dom[k].name);
    free(dom);
    return rc;
}

/* o->col from o->columns (comma lists, each name in the database, repeats dropped) or the
 * default columns */
static int resolve_columns(sqlite3 *h, const char *db_path, struct ropts *o,
                           const int64_t *ids, size_t nids, struct errbuf *err)
{
    size_t cap = 16;
    for (int i = 0; i < o->ncolumns; i++)
        cap += strlen(o->columns[i]) / 2 + 1;
    if ((o->col = calloc(cap, sizeof *o->col)) == NULL)
        return err_run(err, "out of memory");
    o->col_cap = (int)cap;
    if (o->ncolumns == 0)
        return default_columns(h, o, ids, nids, err) < 0 ||
                       (o->all && all_columns(h, o, ids, nids, err) < 0)
                   ? -1
                   : 0;
    sqlite3_stmt *q;
    if (prep(h, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", &q, err) < 0)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < o->ncolumns; i++)
        for (const char *item = o->columns[i]; rc == 0;) {
            size_t len = strcspn(item, ",");
            const char *p = item, *end = item + len;
            while (p < end && *p == ' ')
                p++;
            while (end > p && end[-1] == ' ')
                end--;
            if (end == p) {
                rc = err_input(err, NULL, 0, "--columns", "empty metric name in '%s'",
                               o->columns[i]);
                break;
            }
            char *name = strndup(p, (size_t)(end - p));
            if (name == NULL) {
                rc = err_run(err, "out of memory");
                break;
            }
            int dup = 0;
            for (int c = 0; c < o->ncol && !dup; c++)
                dup = strcmp(o->col[c], name) == 0;
            sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
            int known = sqlite3_step(q) == SQLITE_ROW;
            sqlite3_reset(q);
            if (!known)
                rc = unknown_column(h, db_path, name, err);
            if (dup || rc < 0)
                free(name);
            else
                o->col[o->ncol++] = name;
            item += len;
            if (*item == '\0')
                break;
            item++;
        }
    sqlite3_finalize(q);
    return rc;
}

/* The overrides of the rows shown (the latest run of each group, or each run): what differs
 * between their configs, but the name (the experiment column) and the sweep's axes when they
 * are columns. */
static int set_overrides(struct row *const *shown, size_t n, const struct rows *rs,
                         struct errbuf *err)
{
    const char **configs = malloc((n + 1) * sizeof *configs);
    const char **skip = malloc(((size_t)rs->naxes + 1) * sizeof *skip);
    char **diff = calloc(n + 1, sizeof *diff);
    int rc = 0;
    if (configs == NULL || skip == NULL || diff == NULL)
        rc = err_run(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        configs[i] = shown[i]->config;
    for (int a = 0; rc == 0 && a < rs->naxes; a++)
        skip[a] = rs->axes[a];
    if (rc == 0)
        skip[rs->naxes] = "name";
    if (rc == 0 && report_config_diff(configs, n, skip, (size_t)rs->naxes + 1, diff) < 0)
        rc = err_run(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++)
        shown[i]->overrides = diff[i];
    free(configs);
    free(skip);
    free(diff);
    return rc;
}

/* What the ratios are and which way is better, for the ratio columns shown: a table's title
 * of its grid of ratios, a note under the others. */
static void ratio_title(FILE *out, const struct ropts *o)
{
    fprintf(out, o->group
            ? "ratios to %s (x): for each seed, the group's run / the latest %s run of the same "
              "experiment, seed and settings, then their mean over the n_paired seeds\n"
            : "ratios to %s (x): this run / the latest %s run of the same experiment, seed "
              "and settings\n",
            o->baseline, o->baseline);
    int k = 0;
    fprintf(out, "(below 1 is better");
    for (int c = 0; c < o->ncol; c++)
        if (has_ratio(o->col[c]) && report_metric_higher_better(o->col[c]))
            fprintf(out, "%s%s", k++ ? ", " : ", except ", o->col[c]);
    fprintf(out, ")\n");
}

/* The width a table's notes are wrapped to: the terminal columns hetsim's tables fit. */
enum { NOTE_WIDTH = 100 };

/* Each line of text, wrapped at blanks to NOTE_WIDTH columns (a longer word stays whole);
 * continuation lines are indented by two. */
static void put_wrapped(FILE *out, const char *text)
{
    while (text != NULL && *text) {
        const char *p = text, *end = text + strcspn(text, "\n");
        int indent = 0;
        while (p < end) {
            /* the last blank at which the line still fits, or the end when all of it does */
            int room = NOTE_WIDTH - indent, w = 0;
            const char *cut = NULL, *q;
            for (q = p; q < end; q++) {
                if (*q == ' ') {
                    if (w > room)
                        break;
                    cut = q;
                }
                w += ((unsigned char)*q & 0xC0) != 0x80;
            }
            if (q == end && w <= room)
                cut = end;
            if (cut == NULL)        /* one word wider than the line: kept whole */
                cut = memchr(p, ' ', (size_t)(end - p)) ? memchr(p, ' ', (size_t)(end - p)) : end;
            fprintf(out, "%*s%.*s\n", indent, "", (int)(cut - p), p);
            for (p = cut; p < end && *p == ' '; p++)
                ;
            indent = 2;
        }
        text = end + (*end == '\n');
    }
}

/* The header and the rows of a grid: one row per group (o->group) or per shown run. */
static void fill(struct grid *g, const struct ropts *o, const struct rows *rs, int parts,
                 const struct group *grp, size_t ngrp, struct row *const *base, size_t nb,
                 double *scratch)
{
    put_header(g, o, rs, parts);
    if (o->group)
        for (size_t i = 0; i < ngrp; i++)
            put_group(g, o, rs, &grp[i], base, nb, scratch, parts);
    else
        for (size_t i = 0; i < rs->n; i++)
            if (rs->r[i].shown)
                put_run(g, o, rs, &rs->r[i], base, nb, parts);
}

static int print_report(const char *db_path, struct ropts *o, FILE *out, struct errbuf *err)
{
    sqlite3 *h;
    if (report_open(&h, db_path, err) < 0)
        return -1;
    int64_t *ids = NULL;
    size_t nids = 0;
    struct rows rs = { 0 };
    struct grid g = { 0 }, rg = { 0 };     /* the values (all, but in a table), the ratios */
    struct row **base = NULL, **mem = NULL, **pick = NULL;
    struct group *grp = NULL;
    double *scratch = NULL;
    size_t nb = 0, ngrp = 0, nshown = 0;
    int rc = -1;
    if (report_select(h, o->experiment, o->sweep, o->where, &ids, &nids, err) < 0)
        goto out;
    if (o->n_run_ids > 0) {         /* keep the selected runs that were asked for */
        size_t k = 0;
        for (size_t i = 0; i < nids; i++)
            for (int j = 0; j < o->n_run_ids; j++)
                if (o->run_ids[j] == ids[i]) {
                    ids[k++] = ids[i];
                    break;
                }
        nids = k;
    }
    if (resolve_columns(h, db_path, o, ids, nids, err) < 0)
        goto out;
    if (load(h, o, ids, nids, &rs, err) < 0)
        goto out;
    sqlite3_close(h);
    h = NULL;

    base = malloc((rs.n + 1) * sizeof *base);
    mem = malloc((rs.n + 1) * sizeof *mem);
    pick = malloc((rs.n + 1) * sizeof *pick);
    grp = malloc((rs.n + 1) * sizeof *grp);
    scratch = malloc((rs.n + 1) * sizeof *scratch);
    if (base == NULL || mem == NULL || pick == NULL || grp == NULL || scratch == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < rs.n; i++) {
        if (o->baseline != NULL && strcmp(rs.r[i].policy, o->baseline) == 0)
            base[nb++] = &rs.r[i];
        if (rs.r[i].shown)
            mem[nshown++] = &rs.r[i];
    }
    qsort(base, nb, sizeof *base, base_order);
    /* groups: consecutive runs of one group_hash once sorted; the last of each seed counts */
    qsort(mem, nshown, sizeof *mem, group_order);
    size_t multi = 0;               /* groups with several seeds */
    size_t npick = 0;
    for (size_t i = 0, j; i < nshown; i = j) {
        struct group *gr = &grp[ngrp++];
        *gr = (struct group){ .seed = pick + npick, .first = mem[i]->id, .latest = mem[i] };
        for (j = i; j < nshown && group_key(mem[j], mem[i]) == 0; j++) {
            if (mem[j]->id < gr->first)
                gr->first = mem[j]->id;
            if (mem[j]->id > gr->latest->id)
                gr->latest = mem[j];
            if (j + 1 == nshown || group_key(mem[j + 1], mem[i]) != 0 ||
                mem[j + 1]->seed != mem[j]->seed) {
                pick[npick++] = mem[j];
                gr->n++;
            }
        }
        multi += gr->n > 1;
    }
    qsort(grp, ngrp, sizeof *grp, by_first);
    /* the rows as printed: the latest run of each group, or each shown run in id order */
    size_t nrows = 0;
    if (o->group)
        for (size_t i = 0; i < ngrp; i++)
            mem[nrows++] = grp[i].latest;
    else
        for (size_t i = 0; i < rs.n; i++)
            if (rs.r[i].shown)
                mem[nrows++] = &rs.r[i];
    if (set_overrides(mem, nrows, &rs, err) < 0)
        goto out;
    int differ = 0;
    for (size_t i = 0; i < nrows; i++)
        differ |= *mem[i]->overrides != '\0';

    /* a table prints the ratios as a second grid below the values; the overrides only when
     * some row has one (CSV always: programs read a fixed set of columns) */
    int table = o->format == REPORT_TABLE, ratios = o->baseline != NULL && nshown > 0;
    int parts = PART_VALUES | (table ? 0 : PART_RATIOS) |
                (differ || o->format == REPORT_CSV ? PART_OVERRIDES : 0);
    g.nhead = table ? 2 : 1;
    rg.nhead = 1;
    fill(&g, o, &rs, parts, grp, ngrp, base, nb, scratch);
    if (table && ratios)
        fill(&rg, o, &rs, PART_RATIOS, grp, ngrp, base, nb, scratch);
    if (g.oom || rg.oom) {
        err_run(err, "out of memory");
        goto out;
    }
    print_grid(&g, o->format, out);
    if (table && ratios) {
        char *title = NULL;
        size_t ntitle = 0;
        FILE *tf = open_memstream(&title, &ntitle);
        if (tf == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        ratio_title(tf, o);
        fclose(tf);
        fputc('\n', out);
        put_wrapped(out, title);
        free(title);
        print_grid(&rg, o->format, out);
    }
    if (table || o->format == REPORT_HTML) {
        /* HTML: the same notes, each line a paragraph; a table's wrapped to its width */
        char *notes = NULL;
        size_t nnotes = 0;
        FILE *nf = open_memstream(&notes, &nnotes);
        if (nf == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        if (nshown == 0)
            fprintf(nf, "(no runs %s %s)\n",
                    o->where || o->experiment || o->sweep ? "match in" : "in", db_path);
        if (o->group && nshown > 0)
            fprintf(nf, "mean \u00b1 half-width of its 95%% confidence interval over the n "
                    "seeds of a group (Student t, n-1 degrees of freedom); a seed run twice "
                    "counts once, with its latest run\n");
        if (ratios && !table)
            ratio_title(nf, o);
        if (differ)
            fprintf(nf, "overrides: the settings in which a row's experiment differs from the "
                    "other rows' (policy and seed aside%s), as --set takes them\n",
                    rs.naxes > 0 ? ", and the swept fields shown as columns" : "");
        if (o->baseline != NULL && nb == 0 && nshown > 0)
            fprintf(nf, "(no run of policy '%s' to compare with)\n", o->baseline);
        if (!o->group && multi > 0)
            fprintf(nf, "(%zu group%s of runs differ%s only in the seed: --group shows "
                    "mean \u00b1 95%% CI per group)\n", multi, multi == 1 ? "" : "s",
                    multi == 1 ? "s" : "");
        fclose(nf);
        if (table)
            put_wrapped(out, notes);
        else
            html_notes(out, notes);
        free(notes);
    }
    rc = 0;
out:
    sqlite3_close(h);
    free(ids);
    free(base);
    free(mem);
    free(pick);
    free(grp);
    free(scratch);
    grid_free(&g);
    grid_free(&rg);
    rows_free(&rs);
    for (int c = 0; c < o->ncol; c++)
        free(o->col[c]);
    free(o->col);
    return rc;
}

int report_print_query(const char *db_path, const struct report_opts *o,
                       const struct report_query *q, FILE *out, struct errbuf *err)
{
    struct ropts r = { .format = o->format, .baseline = o->baseline,
                       .experiment = o->experiment, .run_ids = o->run_ids,
                       .n_run_ids = o->n_run_ids, .display_of = o->display_of };
    if (q != NULL) {
        r.sweep = q->sweep;
        r.where = q->where;
        r.group = q->group;
        r.columns = q->columns;
        r.ncolumns = q->ncolumns;
        r.all = q->all;
    }
    return print_report(db_path, &r, out, err);
}

int report_print(const char *db_path, const struct report_opts *o, FILE *out,
                 struct errbuf *err)
{
    return report_print_query(db_path, o, NULL, out, err);
}
