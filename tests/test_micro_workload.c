/*
 * test_micro_workload: the microservice workload formats.  micro_poisson: as many requests as
 * the rate integrates to (within four standard deviations), shaped over time as its knots
 * say, graph types in the shares of its mix, a mix that switches regimes (and the same
 * regimes for the same seed), batches whose counts are the same process's, the declared peak
 * on every spec, rates and mixes from CSV files; micro_trace: requests as written, ids by
 * row, its checks.  Bad workloads are rows of tests/test_inputs.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/jsonf.h"
#include "../sim/micro/micro.h"
#include "../workloads/workload.h"
#include "helpers.h"

TestSuite(micro_workload, .init = th_models_init, .fini = th_models_fini);

struct tally {
    long   n, specs;
    double first_half, by_graph[4], peak;
    double last_arrival;
    long   changes;
};

/* drain a workload object given as JSON text; graphs are counted by name a, b, c, d */
static struct tally drain(const char *json, uint64_t seed)
{
    jsonf *doc;
    struct errbuf err = { 0 };
    char *name = th_write("wl.json", json);     /* the document's folder is the base dir */
    cr_assert_eq(jsonf_parse(&doc, name, json, strlen(json), &err), 0, "%s", err.msg);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    workload *w;
    struct workload_env env = { th_m, seed, th_tmpdir() };
    cr_assert_eq(workload_open(&w, &root, &env, &err), 0, "%s", err.msg);
    cr_assert_str_eq(workload_domain(w), "micro");
    struct entity_source *src = workload_source(w);
    struct micro_request r;
    struct tally t = { 0 };
    int rc;
    const char *prev = NULL;
    double last = -1;
    while ((rc = src->next(src->ctx, &r, &err)) > 0) {
        double at = sim_to_sec(r.arrival);
        cr_assert_geq(at, last);
        last = at;
        t.specs++;
        t.n += r.count;
        if (at < 1800)
            t.first_half += r.count;
        if (r.graph != NULL) {
            t.by_graph[r.graph[0] - 'a'] += r.count;
            if (prev != NULL && r.graph != prev)
                t.changes++;
            prev = r.graph;
        }
        t.peak = r.peak_rate;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    t.last_arrival = last;
    workload_close(w);
    jsonf_destroy(doc);
    free(name);
    return t;
}

static void near(double x, double mean, const char *what)
{
    cr_assert(fabs(x - mean) <= 4 * sqrt(mean) + 1, "%s: %g, expected %g", what, x, mean);
}

Test(micro_workload, rate_shape_and_mix)
{
    /* 3600 s of 10 requests/s times a shape rising from 1 (at 0) to 3 (at 1800 s) and back:
     * the shape averages 2 over each half */
    struct tally t = drain("{ \"format\": \"micro_poisson\", \"duration_s\": 3600, "
                           "\"rate_per_s\": 10, \"rate_shape\": [1, 3], "
                           "\"mix\": { \"a\": 3, \"b\": 1 } }", 1);
    near((double)t.n, 3600 * 10 * 2, "requests");
    near(t.first_half, 1800 * 10 * 2, "first half");
    near(t.by_graph[0], 0.75 * t.n, "graph a");
    cr_assert_float_eq(t.peak, 30, 1e-12);
    cr_assert_lt(t.last_arrival, 3600);
    cr_assert_eq(t.specs, t.n, "one spec per request");
}

Test(micro_workload, mix_regimes_and_seeds)
{
    const char *json = "{ \"format\": \"micro_poisson\", \"duration_s\": 3600, "
                       "\"rate_per_s\": 20, \"mix\": { \"a\": 1, \"b\": 1 }, "
                       "\"mix_change\": { \"every_s\": 300, \"concentration\": 2, "
                       "\"step_s\": 60 }, \"batch_s\": 60 }";
    struct tally t1 = drain(json, 1), t1b = drain(json, 1), t2 = drain(json, 2);
    cr_assert_eq(t1.n, t1b.n);
    cr_assert_float_eq(t1.by_graph[0], t1b.by_graph[0], 0);
    cr_assert(t1.n != t2.n || t1.by_graph[0] != t2.by_graph[0], "another seed, other requests");
    near((double)t1.n, 72000, "requests");
    /* batches: at most one spec per graph and minute */
    cr_assert_leq(t1.specs, 2 * 60);
}

Test(micro_workload, regimes_move_the_mix)
{
    /* the share of graph a per 10-minute block varies far beyond its Poisson noise */
    const char *json = "{ \"format\": \"micro_poisson\", \"duration_s\": 36000, "
                       "\"rate_per_s\": 5, \"mix\": { \"a\": 1, \"b\": 1 }, \"batch_s\": 600, "
                       "\"mix_change\": { \"every_s\": 1200, \"concentration\": 2, "
                       "\"step_s\": 600 } }";
    jsonf *doc;
    struct errbuf err = { 0 };
    cr_assert_eq(jsonf_parse(&doc, "r.json", json, strlen(json), &err), 0);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    workload *w;
    struct workload_env env = { th_m, 3, th_tmpdir() };
    cr_assert_eq(workload_open(&w, &root, &env, &err), 0, "%s", err.msg);
    struct entity_source *src = workload_source(w);
    struct micro_request r;
    double a[60] = { 0 }, tot[60] = { 0 };
    while (src->next(src->ctx, &r, &err) > 0) {
        int b = (int)(sim_to_sec(r.arrival) / 600);
        tot[b] += r.count;
        if (r.graph[0] == 'a')
            a[b] += r.count;
        cr_assert_eq(r.span, sim_from_sec(600));
    }
    double lo = 1, hi = 0;
    for (int b = 0; b < 60; b++) {
        double s = a[b] / tot[b];
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    cr_assert_gt(hi - lo, 0.5, "shares from %g to %g", lo, hi);
    workload_close(w);
    jsonf_destroy(doc);
}

Test(micro_workload, files_for_rate_and_mix)
{
    free(th_write("rate.csv", "workload\n1\n3\n"));
    free(th_write("mix.csv", "step,ta,tb\n0,1,0\n1,0,1\n"));
    /* knots 1 and 3 every 600 s (period 1200): mean 2; mixes alternate every 600 s */
    struct tally t = drain("{ \"format\": \"micro_poisson\", \"duration_s\": 2400, "
                           "\"rate_per_s\": 10, \"rate_file\": \"rate.csv\", \"rate_step_s\": 600, "
                           "\"mix_file\": \"mix.csv\", \"mix_step_s\": 600, "
                           "\"mix_columns\": { \"a\": \"ta\", \"b\": \"tb\" } }", 1);
    near((double)t.n, 2400 * 20, "requests");
    /* a in [0, 600) and [1200, 1800): the halves of the rate's period where it rises from 1
     * to 3 — as many as b's, which fall from 3 to 1 */
    near(t.by_graph[0], t.n / 2.0, "graph a");
    cr_assert_float_eq(t.peak, 30, 1e-12);
}

Test(micro_workload, trace)
{
    free(th_write("req.csv", "# requests\narrival_s,graph,id\n0,a,7\n0.5,b,3\n2,a,9\n"));
    struct tally t = drain("{ \"format\": \"micro_trace\", \"trace\": \"req.csv\" }", 1);
    cr_assert_eq(t.n, 3);
    cr_assert_float_eq(t.by_graph[0], 2, 0);
    cr_assert_float_eq(t.peak, 0, 0);
    cr_assert_float_eq(t.last_arrival, 2, 0);
}
