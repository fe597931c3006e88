/*
 * test_alibaba: call trees from Alibaba call-graph traces — trees rebuilt from traceid and
 * rpcid (rows in any order, an rpc logged on both sides kept once, with its known callee),
 * siblings in parallel when they overlap in time, identical trees one graph type weighted by
 * its traces, rt <= 0 rows cleaned and counted, the 2021 and the 2022 column sets read alike
 * by header name, a trace cut mid-way (no root) given one, service latencies from the median
 * exclusive time; and the 999-row sample of the 2021 release (../shared; skipped without
 * it): 21 call trees, 506 rows cleaned.
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

static struct app *load(const char *path, const char *extra, struct errbuf *err, int *rc)
{
    char text[1500];
    snprintf(text, sizeof text, "{ \"app\": { \"alibaba\": \"%s\"%s } }", path, extra);
    jsonf *doc;
    cr_assert_eq(jsonf_parse(&doc, "t.json", text, strlen(text), err), 0, "%s", err->msg);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, err), 0);
    struct app *a = NULL;
    struct app_opts o = { 0, 0 };
    *rc = app_load(&a, &root, "app", HETSIM_DATADIR, &o, err);
    jsonf_destroy(doc);
    return a;
}

/* T1 and T2 are one tree (front calls back-end and cache in parallel, then the store; the
 * back-end calls the disk, an rt of 0); T3 calls only the back-end.  T1's cache call is logged
 * twice, once with an unknown callee; rows are out of order. */
static const char v2021[] =
    ",traceid,timestamp,rpcid,um,rpctype,dm,interface,rt\n"
    "0,T1,100,0,,http,frontfrontA,x,20\n"
    "1,T1,101,0.1,frontfrontA,rpc,backendbkB,x,5\n"
    "2,T2,201,0.2,frontfrontA,rpc,backendbkB,x,6\n"
    "3,T1,101,0.2,frontfrontA,mc,(?),,1\n"
    "4,T1,101,0.2,frontfrontA,mc,cachecach1,,2\n"
    "5,T1,110,0.3,frontfrontA,db,storestor9,,4\n"
    "6,T1,102,0.1.1,backendbkB,db,diskdiskdk,,0\n"
    "7,T2,200,0,,http,frontfrontA,x,30\n"
    "8,T2,201,0.1,frontfrontA,mc,cachecach1,,2\n"
    "9,T2,212,0.3,frontfrontA,db,storestor9,,6\n"
    "10,T2,203,0.2.1,backendbkB,db,diskdiskdk,,-3\n"
    "11,T3,300,0,,http,frontfrontA,x,9\n"
    "12,T3,301,0.1,frontfrontA,rpc,backendbkB,x,4\n";

/* the same calls in the 2022 release's columns and order */
static char *v2022(void)
{
    static char out[4096];
    char buf[sizeof v2021];
    memcpy(buf, v2021, sizeof v2021);
    size_t o = (size_t)snprintf(out, sizeof out, ",timestamp,traceid,service,rpcid,rpctype,um,"
                                "uminstanceid,interface,dm,dminstanceid,rt\n");
    char *save, *line = strtok_r(buf, "\n", &save);
    for (line = strtok_r(NULL, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *f[9];
        int n = 0;
        for (char *p = line; n < 9; n++) {
            f[n] = p;
            char *c = strchr(p, ',');
            if (c == NULL)
                break;
            *c = '\0';
            p = c + 1;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s,%s,%s,S_1,%s,%s,%s,%s_POD,%s,%s,%s_POD,%s\n",
                              f[0], f[2], f[1], f[3], f[5], f[4], f[4], f[7], f[6], f[6], f[8]);
    }
    return out;
}

static void check_app(const struct app *a)
{
    const struct micro_app *v = &a->view;
    cr_assert_eq(a->traces, 3);
    cr_assert_eq(a->cleaned, 2, "rt 0 and -3");
    cr_assert_eq(v->ngraphs, 2);
    const struct micro_graph *g0 = &v->graph[0], *g1 = &v->graph[1];
    cr_assert_str_eq(g0->name, "g0");
    cr_assert_float_eq(g0->weight, 2, 0);
    cr_assert_float_eq(g1->weight, 1, 0);
    cr_assert_eq(g0->ncalls, 5);
    cr_assert_eq(g1->ncalls, 2);
    /* the root: front, then [back-end (disk), cache] in parallel, then the store */
    cr_assert_str_eq(v->svc[g0->calls[0].service].name, "frontfront");
    cr_assert_eq(g0->stage_off[1] - g0->stage_off[0], 2);
    int s = g0->stage_off[0];
    cr_assert_eq(g0->child_off[s + 1] - g0->child_off[s], 2);
    cr_assert_eq(g0->child_off[s + 2] - g0->child_off[s + 1], 1);
    int store = g0->child[g0->child_off[s + 1]];
    cr_assert_str_eq(v->svc[g0->calls[store].service].name, "storestor9");
    /* five services, named by 10 characters ("unknown" never kept: the known callee wins) */
    cr_assert_eq(v->nservices, 5);
    for (int k = 0; k < v->nservices; k++)
        cr_assert_eq(strlen(v->svc[k].name), 10, "%s", v->svc[k].name);
    /* latencies: the front's exclusive times are 20 - 5 - 4 = 11 (T1), 30 - 6 - 6 = 18 (T2) and
     * 9 - 4 = 5 (T3): median 11 ms, half of it the shift; the disk has no valid rt: default */
    int front = g0->calls[0].service;
    cr_assert_float_eq(v->svc[front].lat.shift, 5.5e-3, 1e-12);
    cr_assert_float_eq(1 / v->svc[front].lat.b, 5.5e-3, 1e-12);
    for (int k = 0; k < v->nservices; k++)
        if (strcmp(v->svc[k].name, "diskdiskdk") == 0)
            cr_assert_float_eq(v->svc[k].lat.shift + 1 / v->svc[k].lat.b, 1e-3, 1e-12);
}

Test(alibaba, trees_types_cleaning_2021)
{
    char *p = th_write("ali2021.csv", v2021);
    struct errbuf err = { 0 };
    int rc;
    struct app *a = load(p, "", &err, &rc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    check_app(a);
    app_free(a);
    free(p);
}

Test(alibaba, same_app_from_the_2022_columns)
{
    char *p = th_write("ali2022.csv", v2022());
    struct errbuf err = { 0 };
    int rc;
    struct app *a = load(p, "", &err, &rc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    check_app(a);
    app_free(a);
    free(p);
}

Test(alibaba, max_graphs_keeps_the_frequent)
{
    char *p = th_write("ali_max.csv", v2021);
    struct errbuf err = { 0 };
    int rc;
    struct app *a = load(p, ", \"max_graphs\": 1", &err, &rc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(a->view.ngraphs, 1);
    cr_assert_float_eq(a->view.graph[0].weight, 2, 0);
    cr_assert_eq(a->view.nservices, 5);
    app_free(a);
    free(p);
}

Test(alibaba, cut_trace_gets_a_root)
{
    /* no rpcid 0: two calls whose parent 0.1 is missing hang under one call to their caller */
    char *p = th_write("ali_cut.csv", ",traceid,timestamp,rpcid,um,rpctype,dm,interface,rt\n"
                                      "0,T,1,0.1.1,midmidmidm,rpc,leafleafl1,x,2\n"
                                      "1,T,5,0.1.2,midmidmidm,rpc,leafleafl2,x,3\n");
    struct errbuf err = { 0 };
    int rc;
    struct app *a = load(p, "", &err, &rc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    const struct micro_graph *g = &a->view.graph[0];
    cr_assert_eq(g->ncalls, 3);
    cr_assert_str_eq(a->view.svc[g->calls[0].service].name, "midmidmidm");
    /* sequential: the second starts after the first ended (1 + 2 < 5) */
    cr_assert_eq(g->stage_off[1] - g->stage_off[0], 2);
    app_free(a);
    free(p);
}

Test(alibaba, shared_sample)
{
    char path[700];
    snprintf(path, sizeof path, "%s/alibaba_microservices/v2021_MSCallGraph_sample_999rows.csv",
             th_shared_dir("traces"));
    struct stat st;
    if (stat(path, &st) != 0)
        cr_skip_test("the Alibaba sample is not in ../shared");
    struct errbuf err = { 0 };
    int rc;
    struct app *a = load(path, ", \"max_graphs\": 100", &err, &rc);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(a->traces, 21);
    cr_assert_eq(a->cleaned, 506);
    int calls = 0;
    for (int g = 0; g < a->view.ngraphs; g++)
        calls += a->view.graph[g].ncalls * (int)a->view.graph[g].weight;
    cr_log_info("Alibaba sample: %lld traces, %d graph types, %d services, %d calls, %lld rows "
                "cleaned", (long long)a->traces, a->view.ngraphs, a->view.nservices, calls,
                (long long)a->cleaned);
    cr_assert_leq(a->view.ngraphs, 21);
    cr_assert_gt(a->view.ngraphs, 5);
    app_free(a);
}
