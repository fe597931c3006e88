/*
 * test_micro_policies: the microservice policies against their properties, through the policy
 * layer and hand-made views.  static_worst ignores what it measures (static) and provisions
 * more for a higher peak; erms' containers are ceil(a gamma / (T - b)) on a one-call graph,
 * worked by hand, and grow with the load; firm scales out the hot service of the critical path
 * after a violation, scales idle services in when comfortably within the SLA, and leaves the
 * allocation alone in between; derm meets the SLA by its own model for the mix it predicts
 * (the last one), follows the mix and the rate, and keeps what runs before anything is known.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/hypoexp.h"
#include "../sched/micro/msopt.h"
#include "../sched/policy.h"
#include "../sim/base/jsonf.h"
#include "../sim/micro/app.h"
#include "helpers.h"

static struct app *app_from(const char *json)
{
    char *p = th_write("pol_app.json", json);
    char text[700];
    snprintf(text, sizeof text, "{ \"app\": \"%s\" }", p);
    jsonf *doc;
    struct errbuf err = { 0 };
    cr_assert_eq(jsonf_parse(&doc, "t.json", text, strlen(text), &err), 0);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    struct app *a;
    struct app_opts o = { 0, 0 };
    cr_assert_eq(app_load(&a, &root, "app", "/", &o, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);
    free(p);
    return a;
}

/* front -> [cache, db] in parallel (read), front -> db x3 -> cache (write) */
static const char tiny[] =
    "{ \"services\": [\n"
    "  { \"name\": \"front\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2.0, \"shift_ms\": 0.5, \"max_load\": 150 } },\n"
    "  { \"name\": \"db\", \"latency\": { \"model\": \"derm\", \"a\": -0.02, \"b\": 1.0, \"shift_ms\": 1.0, \"max_load\": 40 } },\n"
    "  { \"name\": \"cache\", \"latency\": { \"model\": \"derm\", \"a\": -0.005, \"b\": 4.0, \"shift_ms\": 0.1, \"max_load\": 300 } } ],\n"
    "  \"graphs\": [\n"
    "  { \"name\": \"read\", \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "      { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\" }, { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\" } ] },\n"
    "  { \"name\": \"write\", \"calls\": [ { \"id\": \"f\", \"service\": \"front\" },\n"
    "      { \"id\": \"d\", \"service\": \"db\", \"parent\": \"f\", \"count\": 3 },\n"
    "      { \"id\": \"c\", \"service\": \"cache\", \"parent\": \"f\", \"stage\": 1 } ] } ] }\n";

struct world {
    struct app *a;
    int    cont[3], ready[3];
    double mix[2], load[3], cmean[3], gq[2], hrate[4], hmix[8];
    struct micro_view v;
};

/* a view of `rate` requests/s with read share `pr` in the last interval */
static void view(struct world *w, double rate, double pr, double q_s)
{
    const struct micro_app *a = &w->a->view;
    w->mix[0] = pr;
    w->mix[1] = 1 - pr;
    for (int k = 0; k < 3; k++) {
        w->load[k] = 0;
        for (int g = 0; g < 2; g++)
            w->load[k] += rate * w->mix[g] * a->graph[g].calls_per_service[k];
        w->cmean[k] = mslat_mean(&a->svc[k].lat, w->load[k] / w->cont[k]);
        w->ready[k] = w->cont[k];
    }
    for (int t = 0; t < 4; t++) {
        w->hrate[t] = rate;
        w->hmix[2 * t] = pr;
        w->hmix[2 * t + 1] = 1 - pr;
    }
    w->gq[0] = w->gq[1] = q_s;
    w->v = (struct micro_view){
        .now = sim_from_sec(600), .interval = 10, .interval_s = 60, .sla_s = 0.025,
        .quantile = 0.95, .app = a, .containers = w->cont, .ready = w->ready, .startup_s = 5,
        .capacity_cpus = 1000, .capacity_memory_gb = 1e5, .peak_rate = 400, .have_last = 1,
        .rate = rate, .mix = w->mix, .load = w->load, .call_mean_s = w->cmean,
        .graph_p95_s = w->gq, .e2e_q_s = q_s, .miss_frac = 0, .nhist = 4,
        .hist_rate = w->hrate, .hist_mix = w->hmix };
}

static void decide(const char *name, const char *params, const struct micro_view *v, int *out)
{
    policy *p;
    struct errbuf err = { 0 };
    struct policy_env env = { 1, NULL, NULL, NULL, 0 };
    jsonf *doc = NULL;
    struct jobj po = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "p.json", params, strlen(params), &err), 0);
        cr_assert_eq(jobj_root(&po, doc, &err), 0);
    }
    cr_assert_eq(policy_open(&p, name, params ? &po : NULL, &env, &err), 0, "%s", err.msg);
    const struct micro_decider *d = policy_decider(p);
    cr_assert_not_null(d);
    for (int k = 0; k < v->app->nservices; k++)
        out[k] = v->containers[k];
    cr_assert_eq(d->decide(d->ctx, v, out, &err), 0, "%s", err.msg);
    policy_close(p);
    jsonf_destroy(doc);
}

static int total(const int *n)
{
    return n[0] + n[1] + n[2];
}

Test(micro_policies, static_worst_is_static)
{
    struct world w = { .a = app_from(tiny), .cont = { 4, 4, 4 } };
    int a[3], b[3], c[3];
    view(&w, 100, 0.9, 0.01);
    decide("static_worst", NULL, &w.v, a);
    view(&w, 300, 0.1, 0.05);
    decide("static_worst", NULL, &w.v, b);
    cr_assert_arr_eq(a, b, sizeof a, "what it measures changes nothing");
    w.v.peak_rate = 800;
    decide("static_worst", NULL, &w.v, c);
    for (int k = 0; k < 3; k++)
        cr_assert_geq(c[k], a[k]);
    cr_assert_gt(total(c), total(a));
    /* at the peak's worst-case loads the slowest type (write) meets the SLA by the model */
    double gamma[3];
    for (int k = 0; k < 3; k++)
        gamma[k] = 400 * fmax(w.a->view.graph[0].calls_per_service[k],
                              w.a->view.graph[1].calls_per_service[k]);
    struct msopt_chain ch = { w.a->view.graph[1].calls_per_service, 1, 1 };
    struct msopt_problem pr = { .app = &w.a->view, .gamma = gamma, .chain = &ch, .nchains = 1,
                                .sla_s = 0.025, .quantile = 0.95 };
    cr_assert_geq(msopt_prob(&pr, a, 0.025), 0.95);
    app_free(w.a);
}

Test(micro_policies, erms_by_hand)
{
    /* one service, one call: P95 = 0.5 ms/(call/s) w + 10 ms; SLA 60 ms; gamma 300:
     * n = ceil(0.5e-3 * 300 / (0.060 - 0.010)) = ceil(3) = 3 */
    struct app *a = app_from("{ \"services\": [ { \"name\": \"s\", \"latency\": { \"model\": "
                             "\"erms\", \"max_load\": 1000, \"inflection\": 500, \"before\": "
                             "{ \"slope\": 0.5, \"intercept\": 10 } } } ], \"graphs\": [ { "
                             "\"name\": \"g\", \"calls\": [ { \"id\": \"x\", \"service\": \"s\" "
                             "} ] } ] }");
    int cont[1] = { 1 }, ready[1] = { 1 }, out[1];
    double mix[1] = { 1 }, load[1] = { 300 }, cm[1] = { 0.01 }, gq[1] = { 0.02 };
    double hr[1] = { 300 }, hm[1] = { 1 };
    struct micro_view v = { .interval_s = 60, .sla_s = 0.060, .quantile = 0.95,
                            .app = &a->view, .containers = cont, .ready = ready,
                            .capacity_cpus = 100, .have_last = 1, .rate = 300, .mix = mix,
                            .load = load, .call_mean_s = cm, .graph_p95_s = gq, .nhist = 1,
                            .hist_rate = hr, .hist_mix = hm };
    decide("erms", NULL, &v, out);
    cr_assert_eq(out[0], 3);
    v.rate = load[0] = 301;
    decide("erms", NULL, &v, out);
    cr_assert_eq(out[0], 4);
    /* 3000 calls/s: the target needs ceil(0.5e-3 * 3000 / 0.05) = 30 containers, more than
     * the 6 that keep the load below the inflection (500 per container) */
    v.rate = load[0] = 3000;
    decide("erms", NULL, &v, out);
    cr_assert_eq(out[0], 30);
    app_free(a);
}

/* Erms' latency-target split (sched/micro/erms.c) on graphs worked by hand.  Profiles
 * (P95 = a w + b, ms and calls/s): A 0.04 w + 1, B 0.09 w + 2, C 0.16 w + 1; inflections
 * far away.
 *   fan: A, then B and C in parallel; 1000 requests/s; SLA 20 ms.  Weights sqrt(a rate):
 *     A 0.2, B 0.3, C 0.4; the parallel stage merges to sqrt(0.3^2 + 0.4^2) = 0.5 with
 *     intercept max(2, 1) = 2 ms; the graph: weight 0.7, intercepts 3 ms, slack 17 ms.
 *     A's target 1 + 0.2 * 17 / 0.7 = 5.857 ms: ceil(0.04 * 1000 / 4.857) = 9 containers;
 *     the stage's 2 + 0.5 * 17 / 0.7 = 14.143 ms, whole to each branch: B ceil(90 / 12.143)
 *     = 8, C ceil(160 / 13.143) = 13.  (Merging the stage by its heaviest branch, 0.4,
 *     would give A 8; by the sum, 0.7, A 11.)
 *   shared: "solo" calls B alone, "pair" calls A then B; 1000 requests/s, half each.  In
 *     pair, weights sqrt(0.04 * 500) = 0.1414 and sqrt(0.09 * 500) = 0.2121: B's target
 *     2 + 0.2121 * 17 / 0.3536 = 12.2 ms, A's 1 + 0.1414 * 17 / 0.3536 = 7.8 ms; in solo
 *     B's is 20 ms.  B is shared: its shortest target at the summed 1000 calls/s,
 *     ceil(0.09 * 1000 / 10.2) = 9; A ceil(0.04 * 500 / 6.8) = 3.  (Weighing B by its
 *     load from both types, 1000, would give B's target 13.55 ms and 8 containers.) */
Test(micro_policies, erms_targets_split_by_hand)
{
#define PROF(n, a, b) "{ \"name\": \"" n "\", \"latency\": { \"model\": \"erms\", \"shift_ms\": " \
    "0.1, \"max_load\": 100000, \"inflection\": 100000, \"before\": { \"slope\": " a ", " \
    "\"intercept\": " b " } } }"
    struct app *fan = app_from("{ \"services\": [ " PROF("A", "0.04", "1") ", "
                               PROF("B", "0.09", "2") ", " PROF("C", "0.16", "1") " ], "
                               "\"graphs\": [ { \"name\": \"fan\", \"calls\": [ { \"id\": \"a\", "
                               "\"service\": \"A\" }, { \"id\": \"b\", \"service\": \"B\", "
                               "\"parent\": \"a\" }, { \"id\": \"c\", \"service\": \"C\", "
                               "\"parent\": \"a\" } ] } ] }");
    int cont[3] = { 1, 1, 1 }, out[3];
    double mix[2] = { 1, 0 }, load[3] = { 1000, 1000, 1000 }, cm[3] = { 0 }, gq[2] = { 0 };
    double hr[1] = { 1000 }, hm[2] = { 1, 0 };
    struct micro_view v = { .interval_s = 60, .sla_s = 0.020, .quantile = 0.95,
                            .app = &fan->view, .containers = cont, .ready = cont,
                            .capacity_cpus = 1000, .have_last = 1, .rate = 1000, .mix = mix,
                            .load = load, .call_mean_s = cm, .graph_p95_s = gq, .nhist = 1,
                            .hist_rate = hr, .hist_mix = hm };
    decide("erms", NULL, &v, out);
    cr_assert_eq(out[0], 9);
    cr_assert_eq(out[1], 8);
    cr_assert_eq(out[2], 13);
    app_free(fan);
    struct app *sh = app_from("{ \"services\": [ " PROF("A", "0.04", "1") ", "
                              PROF("B", "0.09", "2") " ], \"graphs\": [ { \"name\": \"solo\", "
                              "\"calls\": [ { \"id\": \"b\", \"service\": \"B\" } ] }, { "
                              "\"name\": \"pair\", \"calls\": [ { \"id\": \"a\", \"service\": "
                              "\"A\" }, { \"id\": \"b\", \"service\": \"B\", \"parent\": \"a\" "
                              "} ] } ] }");
#undef PROF
    mix[0] = mix[1] = 0.5;
    v.app = &sh->view;
    decide("erms", NULL, &v, out);
    cr_assert_eq(out[0], 3);
    cr_assert_eq(out[1], 9);
    app_free(sh);
}

Test(micro_policies, erms_grows_with_load)
{
    struct world w = { .a = app_from(tiny), .cont = { 4, 4, 4 } };
    int a[3], b[3];
    view(&w, 100, 0.5, 0.01);
    decide("erms", NULL, &w.v, a);
    view(&w, 300, 0.5, 0.01);
    decide("erms", NULL, &w.v, b);
    for (int k = 0; k < 3; k++)
        cr_assert_geq(b[k], a[k]);
    cr_assert_gt(total(b), total(a));
    app_free(w.a);
}

Test(micro_policies, firm_reacts)
{
    struct world w = { .a = app_from(tiny), .cont = { 2, 2, 8 } };
    int out[3];
    /* 200 req/s: the db is at 0.5 * 200 + 0.5 * 600 = 400 calls/s over 2 containers, far past
     * its 40; the front at 100 per container of 150; the cache at 25 of 300 */
    view(&w, 200, 0.5, 0.100);
    decide("firm", NULL, &w.v, out);
    cr_assert_gt(out[1], 2, "the hot db scales out");
    cr_assert_eq(out[2], 8, "the cold cache is left alone after a violation");
    /* within the SLA by a margin: idle services scale in, busy ones stay */
    view(&w, 200, 0.5, 0.010);
    decide("firm", NULL, &w.v, out);
    cr_assert_lt(out[2], 8, "the idle cache scales in");
    cr_assert_eq(out[1], 2, "the busy db stays");
    /* close to the SLA, within it: nothing moves */
    view(&w, 200, 0.5, 0.024);
    decide("firm", NULL, &w.v, out);
    cr_assert_arr_eq(out, w.cont, sizeof out);
    /* nothing measured yet: nothing moves */
    w.v.have_last = 0;
    w.v.e2e_q_s = 1;
    decide("firm", NULL, &w.v, out);
    cr_assert_arr_eq(out, w.cont, sizeof out);
    app_free(w.a);
}

Test(micro_policies, derm_meets_its_model_and_follows_the_mix)
{
    struct world w = { .a = app_from(tiny), .cont = { 4, 4, 4 } };
    int rd[3], wr[3], hi[3];
    view(&w, 200, 0.9, 0.01);
    decide("derm", NULL, &w.v, rd);
    /* by the model, for the mix it predicts (the last: 0.9 read) */
    double gamma[3] = { 0 };
    for (int k = 0; k < 3; k++)
        for (int g = 0; g < 2; g++)
            gamma[k] += 200 * w.mix[g] * w.a->view.graph[g].calls_per_service[k];
    struct msopt_chain ch[2] = { { w.a->view.graph[0].calls_per_service, 0.9, 0 },
                                 { w.a->view.graph[1].calls_per_service, 0.1, 1 } };
    struct msopt_problem pr = { .app = &w.a->view, .gamma = gamma, .chain = ch, .nchains = 2,
                                .sla_s = 0.025, .quantile = 0.95 };
    cr_assert_geq(msopt_prob(&pr, rd, 0.025), 0.95);
    /* a write-heavy mix calls the db three times as often: more db containers */
    view(&w, 200, 0.1, 0.01);
    decide("derm", NULL, &w.v, wr);
    cr_assert_gt(wr[1], rd[1]);
    /* only the latest mix counts with the default predictor */
    w.hmix[0] = 0.9;
    w.hmix[1] = 0.1;
    int wr2[3];
    decide("derm", NULL, &w.v, wr2);
    cr_assert_arr_eq(wr2, wr, sizeof wr);
    /* an EWMA remembers the older mixes */
    decide("derm", "{ \"predictor\": \"ewma\", \"alpha\": 0.5 }", &w.v, wr2);
    cr_assert_lt(wr2[1], wr[1]);
    /* a higher rate needs more */
    view(&w, 400, 0.9, 0.01);
    decide("derm", NULL, &w.v, hi);
    cr_assert_gt(total(hi), total(rd));
    /* before anything is known and with no declared peak, what runs stays */
    w.v.have_last = 0;
    w.v.peak_rate = 0;
    decide("derm", NULL, &w.v, hi);
    cr_assert_arr_eq(hi, w.cont, sizeof hi);
    app_free(w.a);
}
