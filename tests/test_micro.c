/*
 * test_micro: the microservice world end to end through the command line and the database it
 * writes — the two modes agree on the end-to-end P95 (and mean, and SLA misses) within the
 * per-request mode's sampling error; same seed, same rows; another seed, other rows; the
 * summary agrees with the requests rows and the time series (containers_mean and cpu_seconds
 * integrate the allocation, sla_met is e2e_s <= SLA); a start-up delay delays the new
 * containers; a cluster too small for a decision caps it; the measurement window; every
 * policy on every shipped experiment; report, plot, validate, workload and list domains.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

static char *tmp(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

/* A small application: a front end, a cache and a store; "read" calls cache and store in
 * parallel, "write" calls the store three times and then the cache; a Derm fit and an Erms
 * fit. */
static const char app_json[] =
    "{ \"name\": \"tiny\", \"container\": { \"cpus\": 0.2, \"memory_gb\": 1 },\n"
    "  \"services\": [\n"
    "    { \"name\": \"front\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2.0, "
    "\"shift_ms\": 0.5, \"max_load\": 150 } },\n"
    "    { \"name\": \"db\", \"latency\": { \"model\": \"derm\", \"a\": -0.02, \"b\": 1.0, "
    "\"shift_ms\": 1.0, \"max_load\": 40 } },\n"
    "    { \"name\": \"cache\", \"latency\": { \"model\": \"erms\", \"shift_ms\": 0.1, "
    "\"max_load\": 300, \"inflection\": 200, \"before\": { \"slope\": 0.002, \"intercept\": 0.5 },"
    " \"after\": { \"slope\": 0.02, \"intercept\": -3.1 } } } ],\n"
    "  \"graphs\": [\n"
    "    { \"name\": \"read\", \"weight\": 3, \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "        { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\" },\n"
    "        { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\" } ] },\n"
    "    { \"name\": \"write\", \"weight\": 1, \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "        { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\", \"count\": 3 },\n"
    "        { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\", \"stage\": 1 } ] } ] }\n";

/* The same services; every graph's root call is the front end's, once or twice: the
 * analytical mode keeps a root's first lattice for the rest of its segment. */
static const char shared_root_json[] =
    "{ \"name\": \"shared\", \"container\": { \"cpus\": 0.2, \"memory_gb\": 1 },\n"
    "  \"services\": [\n"
    "    { \"name\": \"front\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2.0, "
    "\"shift_ms\": 0.5, \"max_load\": 150 } },\n"
    "    { \"name\": \"db\", \"latency\": { \"model\": \"derm\", \"a\": -0.02, \"b\": 1.0, "
    "\"shift_ms\": 1.0, \"max_load\": 40 } },\n"
    "    { \"name\": \"cache\", \"latency\": { \"model\": \"derm\", \"a\": -0.005, \"b\": 4.0, "
    "\"shift_ms\": 0.1, \"max_load\": 300 } } ],\n"
    "  \"graphs\": [\n"
    "    { \"name\": \"read\", \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "        { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\" } ] },\n"
    "    { \"name\": \"write\", \"calls\": [ { \"id\": \"f\", \"service\": \"front\", "
    "\"count\": 2 },\n"
    "        { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\" } ] },\n"
    "    { \"name\": \"scan\", \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "        { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\" },\n"
    "        { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\", \"stage\": 1, "
    "\"count\": 2 } ] } ] }\n";

/* the application and mix experiment() writes */
static const char *cur_app = app_json, *cur_mix = "{ \"read\": 3, \"write\": 1 }";

static const char cluster_json[] =
    "{ \"name\": \"cpus\", \"groups\": [ { \"count\": 4, \"cpus\": 16, \"memory_gb\": 64 } ] }\n";

/* an experiment over the tiny app: `policies` and `more` (fields of the top level) */
static char *experiment(const char *name, const char *policies, const char *more)
{
    free(th_write("tiny_app.json", cur_app));
    free(th_write("tiny_cluster.json", cluster_json));
    char text[4096];
    snprintf(text, sizeof text,
             "{ \"name\": \"tiny\", \"domain\": \"micro\", \"seed\": 1,\n"
             "  \"cluster\": \"tiny_cluster.json\", \"app\": \"tiny_app.json\", \"sla_ms\": 25,\n"
             "  \"workload\": { \"format\": \"micro_poisson\", \"duration_s\": 600, "
             "\"rate_per_s\": 200, \"mix\": %s },\n"
             "  \"policies\": %s,\n"
             "  \"sim\": { \"sample_s\": 60 }%s }\n", cur_mix, policies, more);
    return th_write(name, text);
}

/* quantile q of the e2e_s rows of run 1 (every request kept) */
static double row_quantile(const char *db, double q, long *n)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT e2e_s FROM requests WHERE run_id = 1 ORDER BY e2e_s",
                                    -1, &st, NULL), SQLITE_OK);
    size_t cap = 1 << 16, k = 0;
    double *v = malloc(cap * sizeof *v);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (k == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[k++] = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    *n = (long)k;
    double pos = q * (double)(k - 1);
    size_t i = (size_t)pos;
    double x = v[i] + (pos - (double)i) * (v[i + 1 < k ? i + 1 : i] - v[i]);
    free(v);
    return x;
}

/* The analytical mode's P95 is the per-request mode's within its sampling error: the same
 * arrivals (the same seed and generator), so only the latency draws differ.  The standard
 * error of a sample P95 is sqrt(q (1 - q) / n) / f(P95), the density f read off the order
 * statistics around it; the lattice adds a bias of order 1e-3 of the value. */
static void agree(const char *policy, const char *set)
{
    char pol[64];
    snprintf(pol, sizeof pol, "[\"%s\"]", policy);
    char *e = experiment("agree.json", pol, "");
    char *dr = tmp("agree_r.db"), *da = tmp("agree_a.db");
    /* the analytical mode computes the fit's distribution: the fit's truth per request */
    struct th_out o = RUN("run", e, "--db", dr, "-q", "--set", "truth=fit", "--set", set);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", e, "--db", da, "-q", "--set", "mode=analytical", "--set", set);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    long n;
    double p95r = th_db_metric(dr, 1, "e2e_p95"), p95a = th_db_metric(da, 1, "e2e_p95");
    double lo = row_quantile(dr, 0.94, &n), hi = row_quantile(dr, 0.96, &n);
    cr_assert_float_eq(row_quantile(dr, 0.95, &n), p95r, 1e-9 * p95r);
    double f = 0.02 / (hi - lo), se = sqrt(0.95 * 0.05 / (double)n) / f;
    cr_log_info("%s %s: P95 %.6f ms per request, %.6f ms analytical, sampling error %.4f ms "
                "(%ld requests)", policy, set, 1e3 * p95r, 1e3 * p95a, 1e3 * se, n);
    cr_assert(fabs(p95a - p95r) <= 4 * se + 2e-3 * p95r, "P95 %.6g vs %.6g (se %.3g)", p95a,
              p95r, se);
    /* the mean and the share over the SLA, by the same reasoning */
    double mr = th_db_metric(dr, 1, "e2e_mean"), ma = th_db_metric(da, 1, "e2e_mean");
    cr_assert(fabs(ma - mr) <= 0.01 * mr, "mean %.6g vs %.6g", ma, mr);
    double sr = th_db_metric(dr, 1, "sla_miss_frac"), sa = th_db_metric(da, 1, "sla_miss_frac");
    cr_assert(fabs(sa - sr) <= 4 * sqrt(sr * (1 - sr) / (double)n) + 1e-3, "miss %g vs %g", sa, sr);
    /* the same containers */
    cr_assert_float_eq(th_db_metric(dr, 1, "containers_mean"),
                       th_db_metric(da, 1, "containers_mean"), 1e-9);
    free(e);
    free(dr);
    free(da);
}

Test(micro, modes_agree_on_p95, .timeout = 120)
{
    /* a static allocation: the same containers in both modes */
    agree("static_worst", "seed=1");
    /* a loaded one (the SLA tight: more of the latency in the tail), with Erlang blocks */
    agree("static_worst", "sla_ms=12");
}

Test(micro, modes_agree_with_scaling_and_startup, .timeout = 120)
{
    /* the allocation moves every interval and new containers start mid-interval: the
     * analytical mode weighs each stretch of ready containers by its requests */
    agree("erms", "seed=1");
}

Test(micro, modes_agree_when_graphs_share_their_root_call, .timeout = 120)
{
    /* the root's lattice kept within a segment (read and scan) and not taken for another
     * count (write), with the allocation moving and starting containers mid-interval */
    cur_app = shared_root_json;
    cur_mix = "{ \"read\": 2, \"write\": 1, \"scan\": 1 }";
    agree("static_worst", "seed=1");
    agree("erms", "seed=1");
}

Test(micro, same_seed_same_rows_another_seed_other_rows, .timeout = 60)
{
    char *e = experiment("det.json", "[\"derm\", \"firm\"]", "");
    char *a = tmp("det_a.db"), *b = tmp("det_b.db"), *c = tmp("det_c.db");
    struct th_out o = RUN("run", e, "--db", a, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", e, "--db", b, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", e, "--db", c, "-q", "--seed", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *da = th_db_dump(a), *db2 = th_db_dump(b), *dc = th_db_dump(c);
    cr_assert_str_eq(da, db2);
    cr_assert_str_neq(da, dc);
    cr_assert_gt(th_db_value(a, "SELECT count(*) FROM requests"), 200000);
    free(da), free(db2), free(dc), free(e), free(a), free(b), free(c);
}

Test(micro, summary_agrees_with_rows_and_series, .timeout = 60)
{
    char *e = experiment("sum.json", "[\"firm\", \"derm\"]", "");
    char *db = tmp("sum.db");
    /* the fit's truth: its run ends with the workload, ten whole intervals */
    struct th_out o = RUN("run", e, "--db", db, "-q", "--set", "truth=fit");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    for (int r = 1; r <= 2; r++) {
        char q[512];
        /* every request is a row (request_sample 1), sla_met is e2e_s <= 25 ms */
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d", r);
        cr_assert_float_eq(th_db_value(db, q), th_db_metric(db, r, "requests_total"), 0);
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d AND "
                 "sla_met != (e2e_s <= 0.025)", r);
        cr_assert_float_eq(th_db_value(db, q), 0, 0);
        snprintf(q, sizeof q, "SELECT avg(1 - sla_met) FROM requests WHERE run_id = %d", r);
        cr_assert_float_eq(th_db_value(db, q), th_db_metric(db, r, "sla_miss_frac"), 1e-9);
        snprintf(q, sizeof q, "SELECT avg(e2e_s) FROM requests WHERE run_id = %d", r);
        cr_assert_float_eq(th_db_value(db, q), th_db_metric(db, r, "e2e_mean"), 1e-9);
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d AND "
                 "abs(finish_s - arrival_s - e2e_s) > 1e-9", r);
        cr_assert_float_eq(th_db_value(db, q), 0, 0);
        /* the allocation holds for a whole interval (decisions at its start): the mean of the
         * per-interval totals is containers_mean, and each container is 0.2 cores */
        snprintf(q, sizeof q, "SELECT value FROM samples WHERE run_id = %d AND "
                 "name = 'containers_total' ORDER BY t_s DESC LIMIT 1", r);
        double cm = th_db_metric(db, r, "containers_mean"), T = 600;
        cr_assert_float_eq(th_db_metric(db, r, "cpu_seconds"), cm * 0.2 * T, 1e-6 * cm * T);
        cr_assert_leq(cm, th_db_metric(db, r, "containers_max"));
        cr_assert_float_eq(th_db_metric(db, r, "intervals"), 10, 0);
        /* the per-interval violations are a count of the intervals' e2e_q over the SLA */
        snprintf(q, sizeof q, "SELECT avg(value > 0.025) FROM samples WHERE run_id = %d AND "
                 "name = 'e2e_q'", r);
        double viol = th_db_metric(db, r, "sla_violation_prob");
        cr_assert(viol >= 0 && viol <= 1);
    }
    /* firm reacts to violations, so the two policies allocate differently */
    cr_assert_float_neq(th_db_metric(db, 1, "containers_mean"),
                        th_db_metric(db, 2, "containers_mean"), 1e-9);
    free(e);
    free(db);
}

Test(micro, capacity_caps_decisions, .timeout = 60)
{
    /* one node of 2 cores holds 10 containers of 0.2 cores: static_worst wants more */
    char *e = experiment("cap.json", "[\"static_worst\"]", "");
    char *db = tmp("cap.db");
    struct th_out o = RUN("run", e, "--db", db, "-q", "--set",
                          "cluster={\"name\": \"one\", \"groups\": [ { \"count\": 1, "
                          "\"cpus\": 2, \"memory_gb\": 64 } ] }");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_leq(th_db_metric(db, 1, "containers_max"), 10);
    cr_assert_geq(th_db_metric(db, 1, "capacity_capped"), 1);
    cr_assert_geq(th_db_metric(db, 1, "containers_max"), 3);     /* one of each service at least */
    free(e);
    free(db);
}

Test(micro, startup_delay_costs_latency, .timeout = 60)
{
    /* firm scales out after violations; with a start-up as long as the interval the new
     * containers serve one interval later, so more requests miss the SLA */
    char *e = experiment("up.json", "[\"firm\"]", "");
    char *a = tmp("up0.db"), *b = tmp("up60.db");
    struct th_out o = RUN("run", e, "--db", a, "-q", "--set", "sim.startup_s=0");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", e, "--db", b, "-q", "--set", "sim.startup_s=60");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_gt(th_db_metric(b, 1, "sla_miss_frac"), th_db_metric(a, 1, "sla_miss_frac"));
    cr_assert_gt(th_db_metric(a, 1, "scale_outs"), 0);
    free(e), free(a), free(b);
}

Test(micro, measure_window_counts_its_requests, .timeout = 60)
{
    char *e = experiment("win.json", "[\"static_worst\"]", "");
    char *db = tmp("win.db");
    /* the fit's truth counts a request in the interval it arrived in; the queueing truth in
     * the one it completed in (the intervals starting at 120, 180, 240 and 300 s) */
    static const char *const truth[2] = { "truth=fit", "truth=queueing" };
    static const char *const col[2] = { "arrival_s", "finish_s" };
    for (int t = 0; t < 2; t++) {
        struct th_out o = RUN("run", e, "--db", db, "-q", "--set", "sim.measure_window=[120,360]",
                              "--set", truth[t]);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        char q[256];
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d AND %s >= 120 "
                 "AND %s < 360", t + 1, col[t], col[t]);
        cr_assert_float_eq(th_db_metric(db, t + 1, "requests_total"), th_db_value(db, q), 0, "%s",
                           truth[t]);
        snprintf(q, sizeof q, "SELECT avg(e2e_s) FROM requests WHERE run_id = %d AND %s >= 120 "
                 "AND %s < 360", t + 1, col[t], col[t]);
        cr_assert_float_eq(th_db_metric(db, t + 1, "e2e_mean"), th_db_value(db, q), 1e-9, "%s",
                           truth[t]);
    }
    free(e);
    free(db);
}

/* Every policy on each shipped experiment, cut short, through run, report and plot. */
static void shipped(const char *name, const char *const *sets)
{
    char *db = tmp("shipped.db");
    const char *args[32] = { "run", name, "--db", db, "-q" };
    int k = 5;
    for (int i = 0; sets[i] != NULL; i++) {
        args[k++] = "--set";
        args[k++] = sets[i];
    }
    args[k] = NULL;
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s: %s", name, o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 4, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(DISTINCT run_id) FROM metrics WHERE "
                                       "name = 'containers_mean'"), 4, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(DISTINCT domain) FROM runs"), 1, 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM requests"), 100);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM samples WHERE name = "
                                 "'containers_total'"), 1);
    o = RUN("report", "--db", db, "--baseline", "static_worst");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "derm") && strstr(o.out, "\nratios to static_worst (x)") &&
              strstr(o.out, "e2e_p95"), "%s", o.out);
    th_out_free(&o);
    char *out = tmp("plots");
    o = RUN("plot", "--db", db, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char png[700];
    snprintf(png, sizeof png, "%s/%s_e2e_cdf.png", out, name);
    struct stat st;
    cr_assert_eq(stat(png, &st), 0, "%s", png);
    snprintf(png, sizeof png, "%s/%s_summary.png", out, name);
    cr_assert_eq(stat(png, &st), 0, "%s", png);
    /* the HTML report: the runs, the ratios to the baseline and hetsim plot's figures */
    char *html = tmp("report.html");
    o = RUN("report", "--db", db, "--html", html, "--baseline", "static_worst");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "4 runs") != NULL, "%s", o.out);
    th_out_free(&o);
    FILE *f = fopen(html, "r");
    cr_assert_not_null(f, "%s", html);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = '\0';
    cr_assert(strstr(page, "Ratios to static_worst") && strstr(page, "containers_mean/static_worst")
              && strstr(page, ">derm<") && strstr(page, "<svg"), "%s: %.2000s", name, page);
    /* run without the timeline: hetsim trace says so, writes nothing */
    char *json = tmp("trace.json");
    o = RUN("trace", "--db", db, "--run", "2", "--out", json);
    cr_assert_eq(o.status, 2, "%s", o.err);
    cr_assert(strstr(o.err, "has no timeline rows: it ran without sim.timeline"), "%s", o.err);
    cr_assert_neq(stat(json, &st), 0, "%s written", json);
    th_out_free(&o);
    o = RUN("trace", "--db", db, "--out", json);
    cr_assert_eq(o.status, 2, "%s", o.err);
    cr_assert(strstr(o.err, "no run in"), "%s", o.err);
    th_out_free(&o);
    free(json);
    free(html);
    free(out);
    free(db);
}

Test(micro, shipped_experiments_end_to_end, .timeout = 180)
{
    shipped("socialnet", (const char *const[]){ "workload.duration_s=300", NULL });
    shipped("derm_trainticket", (const char *const[]){ "workload.duration_s=1800",
                                                       "sim.request_sample=1", NULL });
    char path[700];
    snprintf(path, sizeof path, "%s/alibaba_microservices/v2021_MSCallGraph_sample_999rows.csv",
             th_shared_dir("traces"));
    struct stat st;
    if (stat(path, &st) == 0)
        shipped("alibaba_graphs", (const char *const[]){ "workload.duration_s=300", NULL });
    else
        cr_log_warn("alibaba_graphs skipped: %s is not there", path);
}

Test(micro, validate_workload_and_list, .timeout = 60)
{
    struct th_out o = RUN("validate", "socialnet");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "requests, cluster 'cpu-10x52' with 10 CPU nodes, 4 policies; the "
                            "seed changes the runs"), "%s", o.out);
    th_out_free(&o);
    o = RUN("list", "domains");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "micro") && strstr(o.out, "derm") && strstr(o.out, "micro_poisson"),
              "%s", o.out);
    th_out_free(&o);
    /* the workload as a micro_trace, which reads back as the same requests */
    char *e = experiment("wl.json", "[\"static_worst\"]", "");
    char *csv = tmp("wl.csv");
    o = RUN("workload", e, "--out", csv);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *db1 = tmp("wl1.db"), *db2 = tmp("wl2.db");
    o = RUN("run", e, "--db", db1, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char set[700];
    snprintf(set, sizeof set, "workload={\"format\": \"micro_trace\", \"trace\": \"%s\"}", csv);
    o = RUN("run", e, "--db", db2, "-q", "--set", set);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db1, "SELECT count(*) FROM requests"),
                       th_db_value(db2, "SELECT count(*) FROM requests"), 0);
    cr_assert_float_eq(th_db_value(db1, "SELECT count(*) FROM requests WHERE class = 'write'"),
                       th_db_value(db2, "SELECT count(*) FROM requests WHERE class = 'write'"), 0);
    /* the analytical mode draws nothing: its seed changes nothing */
    o = RUN("validate", e, "--set", "mode=analytical", "--set", set);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "the seed changes nothing"), "%s", o.out);
    th_out_free(&o);
    free(e), free(csv), free(db1), free(db2);
}

/* An interval's quantile worked by hand, under both truths.  Two graph types whose calls
 * take exactly their shift (a rate of 1e12 per ms: no wait, no service time to speak of):
 * "fast" 10 ms, "slow" 100 ms.  In [0, 60 s) 90 fast and 10 slow requests: sorted, the
 * quantile 0.95 sits at position 0.95 x 99 = 94.05, among the slow ones: 100 ms (their
 * mean would be 19 ms).  In [60, 120 s) 99 fast and 1 slow: position 94.05 is a fast one,
 * 10 ms.  So e2e_q is 0.1 then 0.01. */
Test(micro, interval_quantile_by_hand, .timeout = 60)
{
    static const char app[] =
        "{ \"services\": [\n"
        "  { \"name\": \"f\", \"latency\": { \"model\": \"derm\", \"a\": 0, \"b\": 1e12, "
        "\"shift_ms\": 10, \"max_load\": 1e6 } },\n"
        "  { \"name\": \"s\", \"latency\": { \"model\": \"derm\", \"a\": 0, \"b\": 1e12, "
        "\"shift_ms\": 100, \"max_load\": 1e6 } } ],\n"
        "  \"graphs\": [ { \"name\": \"fast\", \"calls\": [ { \"id\": \"x\", \"service\": \"f\" } ] },\n"
        "    { \"name\": \"slow\", \"calls\": [ { \"id\": \"x\", \"service\": \"s\" } ] } ] }\n";
    free(th_write("hand_app.json", app));
    char csv[8192];
    int len = snprintf(csv, sizeof csv, "id,arrival_s,graph\n");
    for (int i = 0; i < 100; i++)       /* 0.5 s apart from 1 s on */
        len += snprintf(csv + len, sizeof csv - len, "%d,%.1f,%s\n", i, 1 + 0.5 * i,
                        i % 10 == 3 ? "slow" : "fast");
    for (int i = 0; i < 100; i++)
        len += snprintf(csv + len, sizeof csv - len, "%d,%.1f,%s\n", 100 + i, 61 + 0.5 * i,
                        i == 50 ? "slow" : "fast");
    char *trace = th_write("hand_trace.csv", csv);
    char text[2048];
    snprintf(text, sizeof text,
             "{ \"name\": \"hand\", \"domain\": \"micro\", \"cluster\": \"tiny_cluster.json\",\n"
             "  \"app\": \"hand_app.json\", \"sla_ms\": 100,\n"
             "  \"workload\": { \"format\": \"micro_trace\", \"trace\": \"%s\" },\n"
             "  \"policies\": [\"static_worst\"], \"sim\": { \"sample_s\": 60 } }\n", trace);
    free(th_write("tiny_cluster.json", cluster_json));
    char *e = th_write("hand.json", text);
    char *db = tmp("hand.db");
    static const char *const truth[2] = { "truth=fit", "truth=queueing" };
    for (int t = 0; t < 2; t++) {
        struct th_out o = RUN("run", e, "--db", db, "-q", "--set", truth[t]);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        char q[256];
        snprintf(q, sizeof q, "SELECT value FROM samples WHERE run_id = %d AND name = 'e2e_q' "
                 "AND t_s = 60", t + 1);
        cr_assert_float_eq(th_db_value(db, q), 0.1, 1e-6, "%s", truth[t]);
        snprintf(q, sizeof q, "SELECT value FROM samples WHERE run_id = %d AND name = 'e2e_q' "
                 "AND t_s = 120", t + 1);
        cr_assert_float_eq(th_db_value(db, q), 0.01, 1e-6, "%s", truth[t]);
        cr_assert_float_eq(th_db_metric(db, t + 1, "requests_total"), 200, 0, "%s", truth[t]);
        cr_assert_float_eq(th_db_metric(db, t + 1, "e2e_mean"), (189 * 0.01 + 11 * 0.1) / 200, 1e-6,
                           "%s", truth[t]);
    }
    free(e), free(db), free(trace);
}

/* A surge past the containers' capacity, containers held fixed (static_worst provisions
 * once, for a peak of 150 calls/s: 2 containers): under the fit's truth the interval after
 * the surge is back to its latency at once; the queueing truth's backlog spills into it.
 * One service, Derm's form rate = 2000 - 19 w per s (capacity 2000 / 19 = 105 calls/s a
 * container); 60 requests/s, then 300/s from 120 s to 180 s (knots 10 s apart, linear
 * between): some 90 calls/s more than the 210 the pair can take, about 5000 calls behind at
 * 180 s, which at 210 - 60 = 150 calls/s take more than 30 s of the next interval. */
Test(micro, a_surge_queues_only_under_the_queueing_truth, .timeout = 60)
{
    static const char app[] =
        "{ \"services\": [ { \"name\": \"s\", \"containers\": 2, \"latency\": { \"model\": "
        "\"derm\", \"a\": -0.019, \"b\": 2, \"max_load\": 100 } } ],\n"
        "  \"graphs\": [ { \"name\": \"g\", \"calls\": [ { \"id\": \"x\", \"service\": \"s\" } ] } ] }\n";
    free(th_write("surge_app.json", app));
    free(th_write("tiny_cluster.json", cluster_json));
    char *e = th_write("surge.json",
        "{ \"name\": \"surge\", \"domain\": \"micro\", \"cluster\": \"tiny_cluster.json\",\n"
        "  \"app\": \"surge_app.json\", \"sla_ms\": 50,\n"
        "  \"workload\": { \"format\": \"micro_poisson\", \"duration_s\": 360, \"rate_per_s\": 300,\n"
        "                  \"rate_file\": \"surge_rate.csv\", \"rate_step_s\": 10 },\n"
        "  \"policies\": [ { \"name\": \"static_worst\", \"peak_rate\": 150 } ],\n"
        "  \"sim\": { \"sample_s\": 60 } }\n");
    char rates[512];
    int len = snprintf(rates, sizeof rates, "rate\n");
    for (int i = 0; i < 37; i++)
        len += snprintf(rates + len, sizeof rates - len, "%s\n",
                        i >= 12 && i <= 18 ? "1" : "0.2");
    free(th_write("surge_rate.csv", rates));
    char *db = tmp("surge.db");
    for (int t = 0; t < 2; t++) {
        struct th_out o = RUN("run", e, "--db", db, "-q", "--set",
                              t ? "truth=queueing" : "truth=fit");
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    double fit = th_db_value(db, "SELECT value FROM samples WHERE run_id = 1 AND "
                                 "name = 'e2e_q' AND t_s = 240");
    double que = th_db_value(db, "SELECT value FROM samples WHERE run_id = 2 AND "
                                 "name = 'e2e_q' AND t_s = 240");
    double before = th_db_value(db, "SELECT value FROM samples WHERE run_id = 2 AND "
                                    "name = 'e2e_q' AND t_s = 120");
    cr_log_info("P95 of the interval after the surge: fit %.4f s, queueing %.4f s (before the "
                "surge %.4f s)", fit, que, before);
    cr_assert_lt(fit, 0.05, "the fit recovers at once");
    cr_assert_gt(que, 1.0, "the backlog spills over");
    cr_assert_lt(before, 0.05);
    /* the containers never changed, and every request completed */
    cr_assert_float_eq(th_db_metric(db, 2, "containers_mean"), 2, 0);
    cr_assert_float_eq(th_db_metric(db, 2, "requests_total"),
                       th_db_metric(db, 1, "requests_total"), 0);
    free(e), free(db);
}
