/*
 * app: the microservice application — services with their latency fits and container sizes,
 * graph types as call trees — read from one of three sources (micro.h):
 *
 *   a JSON file   {"name", "container": {"cpus", "memory_gb"}, "services": [...],
 *                  "graphs": [...]} (doc/microservices.md), units ms and calls/s;
 *   Derm's fits   its all_pars.csv (columns found by name: chain, ms, n, a1, b1, s): the 12
 *                 TrainTicket services, lambda = a1 w + b1 per call (1/ms), shift s, each
 *                 fit used up to Derm's cut-off rate 0.8/ms (its resourceAllocation.py); its
 *                 two chains (1 simple, 2 complex) each in two train classes, the four graph
 *                 types of the derm_trainticket experiment (below);
 *   Alibaba       {"alibaba": FILE, ...}: call trees rebuilt from a call-graph trace
 *                 (alibaba.c).
 *
 * Checks: services named once, fits whose rate is positive over the loads they are used at
 * (mslat_check), containers that are not empty; graphs named once with exactly one root
 * call, parents that exist, no cycle, known services.  Every error names file:line:field.
 *
 * The four TrainTicket graph types: Derm's simple chain calls ts-travel2 and
 * ts-order-other (the services of ordinary trains), its complex chain ts-travel and ts-order
 * (high-speed trains); each chain is also run in the other train class by moving those calls
 * to the other pair, which gives simple_highspeed, simple_normal, complex_highspeed and
 * complex_normal — in that order, the four types of Derm's graph-mix sequences (an
 * assumption: Derm does not name them).
 */
#define _POSIX_C_SOURCE 200809L
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/path.h"
#include "../base/tio.h"
#include "alibaba.h"
#include "calltree.h"

enum { MAX_SERVICES = 4096, MAX_GRAPHS = 4096, MAX_CALLS = 100000 };

void app_free(struct app *a)
{
    if (a == NULL)
        return;
    for (int g = 0; g < a->view.ngraphs; g++)
        calltree_free(&a->graph[g]);
    free(a->graph);
    free(a->svc);
    free(a);
}

int app_graph_find(const struct app *a, const char *name)
{
    for (int g = 0; g < a->view.ngraphs; g++)
        if (strcmp(a->graph[g].name, name) == 0)
            return g;
    return -1;
}

static int service_find(const struct app *a, const char *name)
{
    for (int k = 0; k < a->view.nservices; k++)
        if (strcmp(a->svc[k].name, name) == 0)
            return k;
    return -1;
}

/* ---------------------------------------------------------------- JSON */

static int ms_num(const struct jobj *o, const char *key, int flags, double lo, double hi,
                  double *out, double scale, struct errbuf *err)
{
    double v = *out / scale;
    if (jobj_num(o, key, flags, lo, hi, &v, err) < 0)
        return -1;
    *out = v * scale;
    return 0;
}

static int read_segment(const struct jobj *lat, const char *key, struct erms_segment *s,
                        struct errbuf *err)
{
    static const char *const keys[] = { "slope", "intercept", "cpu_slope", "mem_slope", NULL };
    struct jobj o;
    if (jobj_obj(&o, lat, key, JREQ, err) < 0 || jobj_known(&o, keys, err) < 0 ||
        ms_num(&o, "slope", JREQ, -1e9, 1e9, &s->slope, 1e-3, err) < 0 ||
        ms_num(&o, "intercept", JREQ, -1e9, 1e9, &s->intercept, 1e-3, err) < 0 ||
        ms_num(&o, "cpu_slope", JOPT, -1e9, 1e9, &s->cpu_slope, 1e-3, err) < 0 ||
        ms_num(&o, "mem_slope", JOPT, -1e9, 1e9, &s->mem_slope, 1e-3, err) < 0)
        return -1;
    return 0;
}

/* the latency fit at svc.latency; a rate that is not positive over [0, max_load] is an error */
static int read_latency(const struct jobj *svc, struct mslat *m, const struct app_opts *o,
                        struct errbuf *err)
{
    static const char *const models[] = { "derm", "erms", NULL };
    static const char *const dkeys[] = { "model", "a", "b", "shift_ms", "max_load", "note",
                                         NULL };
    static const char *const ekeys[] = { "model", "shift_ms", "max_load", "inflection",
                                         "before", "after", "note", NULL };
    struct jobj lat;
    int kind = 0;
    if (jobj_obj(&lat, svc, "latency", JREQ, err) < 0 ||
        jobj_enum(&lat, "model", JREQ, models, &kind, err) < 0 ||
        jobj_known(&lat, kind == MSLAT_DERM ? dkeys : ekeys, err) < 0)
        return -1;
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->cpu = o->cpu_inter;
    m->mem = o->mem_inter;
    if (ms_num(&lat, "shift_ms", JOPT, 0, 1e7, &m->shift, 1e-3, err) < 0 ||
        jobj_num(&lat, "max_load", JREQ, 1e-9, 1e12, &m->max_load, err) < 0)
        return -1;
    if (kind == MSLAT_DERM) {
        if (ms_num(&lat, "a", JREQ, -1e9, 1e9, &m->a, 1e3, err) < 0 ||
            ms_num(&lat, "b", JREQ, 1e-12, 1e12, &m->b, 1e3, err) < 0)
            return -1;
    } else {
        m->erms.inflection = m->max_load;
        if (jobj_num(&lat, "inflection", JOPT, 0, 1e12, &m->erms.inflection, err) < 0 ||
            read_segment(&lat, "before", &m->erms.before, err) < 0)
            return -1;
        m->erms.after = m->erms.before;
        if (cJSON_GetObjectItemCaseSensitive(lat.node, "after") != NULL &&
            read_segment(&lat, "after", &m->erms.after, err) < 0)
            return -1;
    }
    double at, rate;
    if (mslat_check(m, &at, &rate) < 0) {
        char p[256];
        snprintf(p, sizeof p, "%s.latency", svc->path);
        if (kind == MSLAT_DERM)
            return jsonf_error(lat.doc, lat.node, p, err, "the rate a*w + b is %.6g per ms at "
                               "load %.6g, not positive: a fit must hold at every load it is "
                               "used at, 0 to max_load %.6g (lower max_load or refit)",
                               rate / 1e3, at, m->max_load);
        return jsonf_error(lat.doc, lat.node, p, err, "the P95 latency at load %.6g is %.6g ms, "
                           "not above the shift %.6g ms (no exponential has that 95th "
                           "percentile): a fit must hold at every load it is used at, 0 to "
                           "max_load %.6g", at, 1e3 * erms_latency(&m->erms, at, m->cpu, m->mem),
                           1e3 * m->shift, m->max_load);
    }
    return 0;
}

static int read_services(struct app *a, const struct jobj *root, const struct app_opts *o,
                         struct errbuf *err)
{
    static const char *const keys[] = { "name", "latency", "containers", "cpus", "memory_gb",
                                        "concurrency", "note", NULL };
    static const char *const ckeys[] = { "cpus", "memory_gb", "note", NULL };
    struct jobj cont;
    double cpus = 0.2, mem = 1.0;
    const cJSON *arr;
    if (jobj_obj(&cont, root, "container", JOPT, err) < 0 ||
        (cont.node != NULL && (jobj_known(&cont, ckeys, err) < 0 ||
                               jobj_num(&cont, "cpus", JOPT, 1e-4, 1e4, &cpus, err) < 0 ||
                               jobj_num(&cont, "memory_gb", JOPT, 1e-4, 1e5, &mem, err) < 0)) ||
        jobj_arr(root, "services", JREQ, &arr, err) < 0)
        return -1;
    int n = cJSON_GetArraySize(arr);
    if (n == 0 || n > MAX_SERVICES)
        return jsonf_error(root->doc, arr, "services", err, "give 1 to %d services",
                           MAX_SERVICES);
    a->svc = calloc((size_t)n, sizeof *a->svc);
    if (a->svc == NULL)
        return err_run(err, "out of memory");
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj s;
        struct micro_service *sv = &a->svc[i];
        const char *name;
        int64_t init = 1, conc = 1;
        sv->cpus = cpus;
        sv->memory_gb = mem;
        if (jobj_elem(&s, root, "services", e, i, err) < 0 || jobj_known(&s, keys, err) < 0 ||
            jobj_str(&s, "name", JREQ, &name, err) < 0 ||
            jobj_int(&s, "containers", JOPT, 1, 1000000, &init, err) < 0 ||
            jobj_int(&s, "concurrency", JOPT, 1, 100000, &conc, err) < 0 ||
            jobj_num(&s, "cpus", JOPT, 1e-4, 1e4, &sv->cpus, err) < 0 ||
            jobj_num(&s, "memory_gb", JOPT, 1e-4, 1e5, &sv->memory_gb, err) < 0)
            return -1;
        char p[256];
        snprintf(p, sizeof p, "%s.name", s.path);
        const cJSON *nn = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (name[0] == '\0' || strlen(name) >= MICRO_NAME_MAX)
            return jsonf_error(s.doc, nn, p, err, "a service name of 1 to %d characters",
                               MICRO_NAME_MAX - 1);
        a->view.nservices = i;
        if (service_find(a, name) >= 0)
            return jsonf_error(s.doc, nn, p, err, "service '%s' is named twice", name);
        snprintf(sv->name, sizeof sv->name, "%s", name);
        sv->init = (int)init;
        sv->concurrency = (int)conc;
        if (read_latency(&s, &sv->lat, o, err) < 0)
            return -1;
    }
    a->view.nservices = n;
    return 0;
}

static int read_graphs(struct app *a, const struct jobj *root, struct errbuf *err)
{
    static const char *const gkeys[] = { "name", "weight", "calls", "note", NULL };
    static const char *const ckeys[] = { "id", "service", "parent", "stage", "count", "note",
                                         NULL };
    const cJSON *arr;
    if (jobj_arr(root, "graphs", JREQ, &arr, err) < 0)
        return -1;
    int n = cJSON_GetArraySize(arr);
    if (n == 0 || n > MAX_GRAPHS)
        return jsonf_error(root->doc, arr, "graphs", err, "give 1 to %d graph types",
                           MAX_GRAPHS);
    a->graph = calloc((size_t)n, sizeof *a->graph);
    if (a->graph == NULL)
        return err_run(err, "out of memory");
    const char **names = calloc((size_t)a->view.nservices + 1, sizeof *names);
    if (names == NULL)
        return err_run(err, "out of memory");
    for (int k = 0; k < a->view.nservices; k++)
        names[k] = a->svc[k].name;
    int gi = 0, rc = -1;
    struct micro_call *raw = NULL;
    const char **ids = NULL;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, gi++) {
        struct jobj g;
        struct micro_graph *gr = &a->graph[gi];
        const char *name;
        const cJSON *calls;
        gr->weight = 1;
        if (jobj_elem(&g, root, "graphs", e, gi, err) < 0 || jobj_known(&g, gkeys, err) < 0 ||
            jobj_str(&g, "name", JREQ, &name, err) < 0 ||
            jobj_num(&g, "weight", JOPT, 0, 1e12, &gr->weight, err) < 0 ||
            jobj_arr(&g, "calls", JREQ, &calls, err) < 0)
            goto out;
        char p[300];
        snprintf(p, sizeof p, "%s.name", g.path);
        const cJSON *nn = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (name[0] == '\0' || strlen(name) >= MICRO_NAME_MAX) {
            jsonf_error(g.doc, nn, p, err, "a graph name of 1 to %d characters",
                        MICRO_NAME_MAX - 1);
            goto out;
        }
        a->view.ngraphs = gi;
        if (app_graph_find(a, name) >= 0) {
            jsonf_error(g.doc, nn, p, err, "graph type '%s' is named twice", name);
            goto out;
        }
        snprintf(gr->name, sizeof gr->name, "%s", name);
        int nc = cJSON_GetArraySize(calls);
        snprintf(p, sizeof p, "%s.calls", g.path);
        if (nc == 0 || nc > MAX_CALLS) {
            jsonf_error(g.doc, calls, p, err, "give 1 to %d calls", MAX_CALLS);
            goto out;
        }
        free(raw);
        free(ids);
        raw = calloc((size_t)nc, sizeof *raw);
        ids = calloc((size_t)nc, sizeof *ids);
        if (raw == NULL || ids == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        const char **parents = calloc((size_t)nc, sizeof *parents);
        if (parents == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        int ci = 0, bad = 0;
        for (const cJSON *c = calls->child; c != NULL && !bad; c = c->next, ci++) {
            struct jobj co;
            const char *id, *svc, *parent = NULL;
            int64_t stage = 0, count = 1;
            if (jobj_elem(&co, &g, "calls", c, ci, err) < 0 || jobj_known(&co, ckeys, err) < 0 ||
                jobj_str(&co, "id", JREQ, &id, err) < 0 ||
                jobj_str(&co, "service", JREQ, &svc, err) < 0 ||
                jobj_str(&co, "parent", JOPT, &parent, err) < 0 ||
                jobj_int(&co, "stage", JOPT, 0, 1000000, &stage, err) < 0 ||
                jobj_int(&co, "count", JOPT, 1, 1000000, &count, err) < 0) {
                bad = 1;
                break;
            }
            char cp[360];
            for (int k = 0; k < ci; k++)
                if (strcmp(ids[k], id) == 0) {
                    snprintf(cp, sizeof cp, "%s.id", co.path);
                    jsonf_error(co.doc, cJSON_GetObjectItemCaseSensitive(c, "id"), cp, err,
                                "call id '%s' is used twice in graph '%s'", id, name);
                    bad = 1;
                    break;
                }
            if (bad)
                break;
            int k = service_find(a, svc);
            if (k < 0) {
                const char *hint = jsonf_suggest(svc, names);
                snprintf(cp, sizeof cp, "%s.service", co.path);
                jsonf_error(co.doc, cJSON_GetObjectItemCaseSensitive(c, "service"), cp, err,
                            "a call to an unknown service '%s'%s%s%s (the services are the "
                            "application's \"services\")", svc, hint ? " (did you mean '" : "",
                            hint ? hint : "", hint ? "'?)" : "");
                bad = 1;
                break;
            }
            ids[ci] = id;
            parents[ci] = parent;
            raw[ci] = (struct micro_call){ k, (int)count, -1, (int)stage };
        }
        /* parents by id, once every id is known */
        for (int c = 0; c < nc && !bad; c++) {
            if (parents[c] == NULL)
                continue;
            int pk = -1;
            for (int k = 0; k < nc; k++)
                if (strcmp(ids[k], parents[c]) == 0)
                    pk = k;
            const cJSON *cn = cJSON_GetArrayItem(calls, c);
            char cp[360];
            snprintf(cp, sizeof cp, "%s[%d].parent", p, c);
            if (pk < 0) {
                jsonf_error(g.doc, cJSON_GetObjectItemCaseSensitive(cn, "parent"), cp, err,
                            "no call of graph '%s' has the id '%s'", name, parents[c]);
                bad = 1;
            } else if (pk == c) {
                jsonf_error(g.doc, cJSON_GetObjectItemCaseSensitive(cn, "parent"), cp, err,
                            "call '%s' names itself as its parent (a cycle)", ids[c]);
                bad = 1;
            }
            raw[c].parent = pk;
        }
        free(parents);
        if (bad)
            goto out;
        const char *file;
        long line;
        jsonf_where(g.doc, calls, &file, &line);
        if (calltree_build(gr, a->svc, a->view.nservices, raw, nc, file, line, p, err) < 0) {
            /* name the calls of a cycle by their ids */
            goto out;
        }
        a->view.ngraphs = gi + 1;
    }
    a->view.ngraphs = n;
    rc = 0;
out:
    free(raw);
    free(ids);
    free(names);
    return rc;
}

static int load_json(struct app *a, const char *path, const struct app_opts *o,
                     struct errbuf *err)
{
    static const char *const keys[] = { "name", "note", "source", "container", "services",
                                        "graphs", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    const char *name = "app", *text;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, keys, err) < 0 ||
        jobj_str(&root, "name", JOPT, &name, err) < 0 ||
        jobj_str(&root, "note", JOPT, &text, err) < 0 ||
        jobj_str(&root, "source", JOPT, &text, err) < 0 ||
        read_services(a, &root, o, err) < 0 || read_graphs(a, &root, err) < 0)
        goto out;
    snprintf(a->view.name, sizeof a->view.name, "%s", name);
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

/* ---------------------------------------------------------------- Derm's fits */

static const char *const tt_services[12] = {
    "ts-basic-service", "ts-seat-service", "ts-ticketinfo-service", "ts-travel2-service",
    "ts-travel-service", "ts-config-service", "ts-order-service", "ts-order-other-service",
    "ts-price-service", "ts-route-service", "ts-station-service", "ts-train-service" };
enum { TT_TRAVEL2 = 3, TT_TRAVEL = 4, TT_ORDER = 6, TT_ORDER_OTHER = 7 };

/* Derm keeps each fit to rates above 0.8 per ms (cutoffLambda) */
#define DERM_CUT_PER_MS 0.8

/* one chain of Derm's as a graph: the services with calls, in id order, each a sequential
 * stage of the first */
static int derm_graph(struct app *a, int gi, const char *name, const int *n, const char *file,
                      struct errbuf *err)
{
    struct micro_graph *g = &a->graph[gi];
    struct micro_call raw[12];
    int nc = 0;
    snprintf(g->name, sizeof g->name, "%s", name);
    g->weight = 1;
    for (int k = 0; k < 12; k++)
        if (n[k] > 0) {
            raw[nc] = (struct micro_call){ k, n[k], nc == 0 ? -1 : 0, nc };
            nc++;
        }
    if (nc == 0)
        return err_input(err, file, 0, "n", "chain '%s' calls no service", name);
    return calltree_build(g, a->svc, a->view.nservices, raw, nc, file, 0, name, err);
}

static int load_derm(struct app *a, const char *path, struct errbuf *err)
{
    enum { C_CHAIN, C_MS, C_N, C_A1, C_B1, C_S, C_NUM };
    static const char *const need[C_NUM] = { "chain", "ms", "n", "a1", "b1", "s" };
    int pods_at = -1;
    int pods[12] = { 0 };
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *line, *f[64];
    size_t len;
    int pos[C_NUM], rc = -1, nf;
    for (int i = 0; i < C_NUM; i++)
        pos[i] = -1;
    long seen[12] = { 0 };
    int calls[2][12] = { { 0 } };
    double a1[12], b1[12], s[12];
    if (tio_next(r, &line, &len, err) <= 0) {
        if (err->code == 0)
            err_input(err, path, 1, NULL, "empty file: a Derm fit file starts with a header");
        goto out;
    }
    nf = tio_split(line, ',', f, 64);
    if (nf < 0 || nf > 64) {
        err_input(err, path, 1, NULL, "header: unterminated quote or more than 64 columns");
        goto out;
    }
    for (int i = 0; i < nf; i++) {
        for (int c = 0; c < C_NUM; c++)
            if (strcmp(f[i], need[c]) == 0)
                pos[c] = i;
        if (strcmp(f[i], "pod_num") == 0)
            pods_at = i;
    }
    for (int c = 0; c < C_NUM; c++)
        if (pos[c] < 0) {
            err_input(err, path, 1, need[c], "column missing (a Derm fit file, all_pars.csv, "
                      "has chain, ms, n, a1, b1 and s)");
            goto out;
        }
    int got;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        long ln = tio_lineno(r);
        if (tio_skippable(line))
            continue;
        nf = tio_split(line, ',', f, 64);
        if (nf < 0) {
            err_input(err, path, ln, NULL, "unterminated quote");
            goto out;
        }
        double v[C_NUM];
        for (int c = 0; c < C_NUM; c++) {
            if (pos[c] >= nf || tio_double(f[pos[c]], &v[c]) < 0 || !isfinite(v[c])) {
                err_input(err, path, ln, need[c], "'%s' is not a number",
                          pos[c] < nf ? f[pos[c]] : "");
                goto out;
            }
        }
        /* ranges first: a cast of a value beyond int is undefined (found by fuzz_microapp) */
        if (v[C_CHAIN] != 1 && v[C_CHAIN] != 2) {
            err_input(err, path, ln, "chain", "%s: Derm's chains are 1 (simple) and 2 "
                      "(complex)", f[pos[C_CHAIN]]);
            goto out;
        }
        if (v[C_MS] != floor(v[C_MS]) || v[C_MS] < 0 || v[C_MS] > 11) {
            err_input(err, path, ln, "ms", "%s: TrainTicket's services are 0 to 11",
                      f[pos[C_MS]]);
            goto out;
        }
        int chain = (int)v[C_CHAIN], ms = (int)v[C_MS];
        if (v[C_N] != floor(v[C_N]) || v[C_N] < 1 || v[C_N] > 1e6) {
            err_input(err, path, ln, "n", "%s: calls per request, an integer >= 1",
                      f[pos[C_N]]);
            goto out;
        }
        if (v[C_S] < 0) {
            err_input(err, path, ln, "s", "%s: the shift is a latency >= 0 ms", f[pos[C_S]]);
            goto out;
        }
        if (calls[chain - 1][ms] > 0) {
            err_input(err, path, ln, "ms", "chain %d lists service %d twice", chain, ms);
            goto out;
        }
        if (seen[ms] && (a1[ms] != v[C_A1] || b1[ms] != v[C_B1] || s[ms] != v[C_S])) {
            err_input(err, path, ln, "a1", "service %d's fit differs from line %ld's (one fit "
                      "per service)", ms, seen[ms]);
            goto out;
        }
        if (pods_at >= 0) {
            double pn;
            if (pods_at >= nf || tio_double(f[pods_at], &pn) < 0 || pn != floor(pn) || pn < 1 ||
                pn > 1e6) {
                err_input(err, path, ln, "pod_num", "'%s' is not a container count >= 1",
                          pods_at < nf ? f[pods_at] : "");
                goto out;
            }
            pods[ms] = (int)pn;
        }
        calls[chain - 1][ms] = (int)v[C_N];
        a1[ms] = v[C_A1];
        b1[ms] = v[C_B1];
        s[ms] = v[C_S];
        if (!seen[ms])
            seen[ms] = ln;
    }
    if (got < 0)
        goto out;
    a->svc = calloc(12, sizeof *a->svc);
    a->graph = calloc(4, sizeof *a->graph);
    if (a->svc == NULL || a->graph == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    for (int k = 0; k < 12; k++) {
        struct micro_service *sv = &a->svc[k];
        snprintf(sv->name, sizeof sv->name, "%s", tt_services[k]);
        sv->cpus = 0.2;
        sv->memory_gb = 1;
        sv->init = pods[k] > 0 ? pods[k] : 1;
        sv->concurrency = 1;
        if (!seen[k])
            continue;       /* no call reaches it: a placeholder fit */
        sv->lat = (struct mslat){ .kind = MSLAT_DERM, .shift = s[k] * 1e-3, .a = a1[k] * 1e3,
                                  .b = b1[k] * 1e3 };
        sv->lat.max_load = a1[k] < 0 ? (DERM_CUT_PER_MS - b1[k]) / a1[k] : 1e12;
        double at, rate;
        if (!(b1[k] > DERM_CUT_PER_MS) || mslat_check(&sv->lat, &at, &rate) < 0) {
            err_input(err, path, seen[k], "b1", "service %d: the rate at no load, %.6g per ms, "
                      "is not above Derm's cut-off %.3g per ms: the fit holds at no load", k,
                      b1[k], DERM_CUT_PER_MS);
            goto out;
        }
    }
    for (int k = 0; k < 12; k++)
        if (!seen[k])
            a->svc[k].lat = (struct mslat){ .kind = MSLAT_DERM, .shift = 0, .a = 0, .b = 1e3,
                                            .max_load = 1e12 };
    a->view.nservices = 12;
    /* the four graph types: each chain in its own train class and the other */
    int g4[4][12];
    memcpy(g4[1], calls[0], sizeof g4[1]);     /* simple, ordinary trains */
    memcpy(g4[2], calls[1], sizeof g4[2]);     /* complex, high-speed */
    memcpy(g4[0], calls[0], sizeof g4[0]);
    g4[0][TT_TRAVEL] += g4[0][TT_TRAVEL2], g4[0][TT_TRAVEL2] = 0;
    g4[0][TT_ORDER] += g4[0][TT_ORDER_OTHER], g4[0][TT_ORDER_OTHER] = 0;
    memcpy(g4[3], calls[1], sizeof g4[3]);
    g4[3][TT_TRAVEL2] += g4[3][TT_TRAVEL], g4[3][TT_TRAVEL] = 0;
    g4[3][TT_ORDER_OTHER] += g4[3][TT_ORDER], g4[3][TT_ORDER] = 0;
    static const char *const gnames[4] = { "simple_highspeed", "simple_normal",
                                           "complex_highspeed", "complex_normal" };
    for (int g = 0; g < 4; g++) {
        if (derm_graph(a, g, gnames[g], g4[g], path, err) < 0)
            goto out;
        a->view.ngraphs = g + 1;
    }
    snprintf(a->view.name, sizeof a->view.name, "trainticket (Derm's fits)");
    rc = 0;
out:
    tio_close(r);
    return rc;
}

/* ---------------------------------------------------------------- the field */

static int is_derm_file(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".csv") == 0;
}

int app_load(struct app **out, const struct jobj *root, const char *key, const char *base_dir,
             const struct app_opts *o, struct errbuf *err)
{
    *out = NULL;
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(root->node, key);
    if (node == NULL)
        return jsonf_error(root->doc, root->node, JOBJ_FIELD(root, key), err, "required field "
                           "is missing (the application: a JSON file of services and graph "
                           "types, a Derm fit file, or {\"alibaba\": FILE})");
    struct app *a = calloc(1, sizeof *a);
    if (a == NULL)
        return err_run(err, "out of memory");
    char path[PATH_MAX_LEN];
    int rc = -1;
    if (cJSON_IsString(node)) {
        if (path_resolve(path, sizeof path, base_dir, node->valuestring) < 0) {
            jsonf_error(root->doc, node, JOBJ_FIELD(root, key), err, "file '%s' not found "
                        "(looked next to the experiment, in the current directory and under %s)",
                        node->valuestring, path_data_root());
            goto out;
        }
        snprintf(a->source, sizeof a->source, "%s", path);
        rc = is_derm_file(path) ? load_derm(a, path, err) : load_json(a, path, o, err);
    } else if (cJSON_IsObject(node)) {
        struct jobj obj;
        if (jobj_obj(&obj, root, key, JREQ, err) < 0)
            goto out;
        struct alibaba_app t;
        rc = alibaba_load(&t, &obj, base_dir, err);
        /* its tables are the app's now, built or half built (app_free frees them) */
        a->svc = t.svc;
        a->graph = t.graph;
        a->view.nservices = t.nservices;
        a->view.ngraphs = t.ngraphs;
        a->cleaned = t.cleaned;
        a->traces = t.traces;
        snprintf(a->source, sizeof a->source, "%s", t.source);
        snprintf(a->view.name, sizeof a->view.name, "alibaba");
    } else {
        jsonf_error(root->doc, node, JOBJ_FIELD(root, key), err, "must be a file name or an object "
                    "{\"alibaba\": FILE, ...}");
    }
out:
    if (rc < 0) {
        app_free(a);
        return -1;
    }
    a->view.svc = a->svc;
    a->view.graph = a->graph;
    *out = a;
    return 0;
}
