/*
 * test_app: microservice applications as the world reads them — a JSON application's
 * services (units: ms and 1/ms to seconds), its call trees (breadth-first order, children
 * grouped into stages, calls per service, the minimum latency along the slowest path, worked
 * by hand), the shipped socialnet and trainticket applications, and Derm's fit file turned
 * into the four TrainTicket graph types (with the shared copy of Derm's data; skipped
 * without it).  Bad applications are rows of tests/test_inputs.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../sim/base/jsonf.h"
#include "../sim/micro/app.h"
#include "helpers.h"

/* load {"app": path} as the world does */
static struct app *load(const char *path)
{
    char text[1200];
    snprintf(text, sizeof text, "{ \"app\": \"%s\" }", path);
    jsonf *doc;
    struct errbuf err = { 0 };
    cr_assert_eq(jsonf_parse(&doc, "t.json", text, strlen(text), &err), 0, "%s", err.msg);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    struct app *a;
    struct app_opts o = { 0, 0 };
    int rc = app_load(&a, &root, "app", HETSIM_DATADIR, &o, &err);
    jsonf_destroy(doc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    return a;
}

static const char tree_app[] =
    "{ \"name\": \"t\", \"services\": [\n"
    "  { \"name\": \"a\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 1, \"max_load\": 100 } },\n"
    "  { \"name\": \"b\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 2, \"max_load\": 100 } },\n"
    "  { \"name\": \"c\", \"cpus\": 0.5, \"containers\": 3, \"latency\": { \"model\": \"erms\", \"shift_ms\": 4, \"max_load\": 50,\n"
    "      \"inflection\": 20, \"before\": { \"slope\": 0.1, \"intercept\": 5 } } } ],\n"
    "  \"graphs\": [ { \"name\": \"g\", \"calls\": [\n"
    /* listed children first: the reader orders them */
    "    { \"id\": \"leaf\", \"service\": \"c\", \"parent\": \"y\" },\n"
    "    { \"id\": \"x\", \"service\": \"b\", \"parent\": \"r\", \"stage\": 3 },\n"
    "    { \"id\": \"y\", \"service\": \"b\", \"parent\": \"r\", \"stage\": 3, \"count\": 2 },\n"
    "    { \"id\": \"z\", \"service\": \"c\", \"parent\": \"r\", \"stage\": 7 },\n"
    "    { \"id\": \"r\", \"service\": \"a\" } ] } ] }\n";

Test(app, json_tree_by_hand)
{
    char *p = th_write("tree_app.json", tree_app);
    struct app *a = load(p);
    const struct micro_app *v = &a->view;
    cr_assert_eq(v->nservices, 3);
    cr_assert_eq(v->ngraphs, 1);
    /* units: a = -0.01 per ms per (call/s) is -10 per s; shift 1 ms; the default container */
    cr_assert_float_eq(v->svc[0].lat.a, -10, 1e-9);
    cr_assert_float_eq(v->svc[0].lat.b, 2000, 1e-9);
    cr_assert_float_eq(v->svc[0].lat.shift, 1e-3, 1e-15);
    cr_assert_float_eq(v->svc[0].cpus, 0.2, 0);
    cr_assert_eq(v->svc[0].init, 1);
    cr_assert_float_eq(v->svc[2].cpus, 0.5, 0);
    cr_assert_eq(v->svc[2].init, 3);
    cr_assert_eq(v->svc[2].lat.kind, MSLAT_ERMS);
    cr_assert_float_eq(v->svc[2].lat.erms.before.slope, 1e-4, 1e-15);
    /* no "after": the before segment all the way */
    cr_assert_float_eq(v->svc[2].lat.erms.after.intercept, 5e-3, 1e-15);
    const struct micro_graph *g = &v->graph[0];
    cr_assert_eq(g->ncalls, 5);
    /* breadth first: r, then x and y (stage 3, in file order), then z (stage 7), then leaf */
    cr_assert_eq(g->calls[0].service, 0);
    cr_assert_eq(g->calls[0].parent, -1);
    cr_assert_eq(g->stage_off[1] - g->stage_off[0], 2, "the root has two stages");
    int s0 = g->stage_off[0];
    cr_assert_eq(g->child_off[s0 + 1] - g->child_off[s0], 2, "x and y in parallel");
    cr_assert_eq(g->child_off[s0 + 2] - g->child_off[s0 + 1], 1, "then z");
    int y = g->child[g->child_off[s0] + 1];
    cr_assert_eq(g->calls[y].count, 2);
    cr_assert_eq(g->calls[y].parent, 0);
    cr_assert_eq(g->stage_off[y + 1] - g->stage_off[y], 1, "y has one stage, the leaf");
    /* calls per request */
    cr_assert_float_eq(g->calls_per_service[0], 1, 0);
    cr_assert_float_eq(g->calls_per_service[1], 3, 0);
    cr_assert_float_eq(g->calls_per_service[2], 2, 0);
    /* slowest path of shifts: a 1 + max(b 2, b 2 x 2 + c 4) + c 4 = 1 + 8 + 4 = 13 ms */
    cr_assert_float_eq(g->min_latency_s, 13e-3, 1e-12);
    app_free(a);
    free(p);
}

Test(app, shipped_socialnet)
{
    struct app *a = load("workloads/micro/socialnet.json");
    const struct micro_app *v = &a->view;
    cr_assert_eq(v->nservices, 12);
    cr_assert_eq(v->ngraphs, 7);
    int g = app_graph_find(a, "compose_post");
    cr_assert_geq(g, 0);
    const struct micro_graph *cp = &v->graph[g];
    /* nginx -> compose-post -> [text (url, mention), user, media, unique-id], post-storage,
     * [user-timeline, home-timeline (social-graph)] */
    cr_assert_eq(cp->ncalls, 12);
    cr_assert_str_eq(v->svc[cp->calls[0].service].name, "nginx-thrift");
    int compose = cp->child[cp->child_off[cp->stage_off[0]]];
    cr_assert_str_eq(v->svc[cp->calls[compose].service].name, "compose-post-service");
    int st = cp->stage_off[compose];
    cr_assert_eq(cp->stage_off[compose + 1] - st, 3);
    cr_assert_eq(cp->child_off[st + 1] - cp->child_off[st], 4);
    cr_assert_eq(cp->child_off[st + 2] - cp->child_off[st + 1], 1);
    cr_assert_eq(cp->child_off[st + 3] - cp->child_off[st + 2], 2);
    for (int k = 0; k < v->nservices; k++)
        cr_assert_eq(v->svc[k].lat.kind, MSLAT_ERMS);
    cr_assert_eq(app_graph_find(a, "login") >= 0, 1);
    cr_assert_eq(app_graph_find(a, "logout"), -1);
    app_free(a);
}

Test(app, shipped_trainticket_chains)
{
    struct app *a = load("workloads/micro/trainticket.json");
    const struct micro_app *v = &a->view;
    cr_assert_eq(v->nservices, 12);
    cr_assert_eq(v->ngraphs, 4);
    /* the high-speed class calls ts-travel-service, the ordinary one ts-travel2 */
    const struct micro_graph *sh = &v->graph[app_graph_find(a, "simple_highspeed")];
    const struct micro_graph *sn = &v->graph[app_graph_find(a, "simple_normal")];
    cr_assert_float_eq(sh->calls_per_service[4], 26, 0);
    cr_assert_float_eq(sh->calls_per_service[3], 0, 0);
    cr_assert_float_eq(sn->calls_per_service[3], 26, 0);
    cr_assert_float_eq(sn->calls_per_service[4], 0, 0);
    /* a chain: the root's children are all single-call stages */
    for (int s = sh->stage_off[0]; s < sh->stage_off[1]; s++)
        cr_assert_eq(sh->child_off[s + 1] - sh->child_off[s], 1);
    app_free(a);
}

Test(app, derm_fit_file)
{
    char path[700];
    snprintf(path, sizeof path, "%s/derm/all_pars.csv", th_shared_dir("traces"));
    struct stat st;
    if (stat(path, &st) != 0)
        cr_skip_test("Derm's fits are not in ../shared/traces/derm");
    struct app *a = load(path);
    const struct micro_app *v = &a->view;
    cr_assert_eq(v->nservices, 12);
    cr_assert_eq(v->ngraphs, 4);
    cr_assert_str_eq(v->svc[0].name, "ts-basic-service");
    /* ts-basic: a1 = -0.0587 per ms, b1 = 6.63 per ms, s = 0.3 ms; cut where the rate is 0.8 */
    cr_assert_float_eq(v->svc[0].lat.a, -0.05869141323390111e3, 1e-9);
    cr_assert_float_eq(v->svc[0].lat.b, 6.628786775986482e3, 1e-9);
    cr_assert_float_eq(v->svc[0].lat.shift, 0.3e-3, 1e-15);
    cr_assert_float_eq(mslat_rate(&v->svc[0].lat, v->svc[0].lat.max_load), 800, 1e-6);
    /* pod_num: the containers it starts with */
    cr_assert_eq(v->svc[0].init, 17);
    /* the complex chain calls ts-basic 100 times, the simple one 22 */
    cr_assert_float_eq(v->graph[app_graph_find(a, "complex_normal")].calls_per_service[0], 100, 0);
    cr_assert_float_eq(v->graph[app_graph_find(a, "simple_normal")].calls_per_service[0], 22, 0);
    /* complex_normal moved ts-travel's 113 calls to ts-travel2, ts-order's 18 to order-other */
    const struct micro_graph *cn = &v->graph[app_graph_find(a, "complex_normal")];
    cr_assert_float_eq(cn->calls_per_service[3], 113, 0);
    cr_assert_float_eq(cn->calls_per_service[7], 18, 0);
    cr_assert_float_eq(cn->calls_per_service[6], 0, 0);
    app_free(a);
}
