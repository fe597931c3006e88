/*
 * fuzz_microapp: the microservice application readers through app_load — a JSON application,
 * Derm's fit file (all_pars.csv) and an Alibaba call-graph trace — and the trees they build.
 *
 * Input: SELECTOR FILE.  The selector byte picks the reader (0: JSON, 1: Derm's CSV, 2: an
 * Alibaba trace, by its value mod 3); FILE is written to the scratch directory and named by
 * the app field ("app.json", "pars.csv", or {"alibaba": "ali.csv"}).  A loaded application
 * must be sane: every graph's root is call 0, a parent comes before its children, the stage
 * and child tables are monotone and cover every call but the root once, calls per service
 * add up, the minimum latency is finite and >= 0, and every fit's rate is positive over
 * [0, max_load].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/jsonf.h"
#include "../../sim/micro/app.h"
#include "fuzzutil.h"

static void check(const struct app *a)
{
    const struct micro_app *v = &a->view;
    for (int k = 0; k < v->nservices; k++) {
        const struct mslat *m = &v->svc[k].lat;
        double at, rate;
        if (mslat_check(m, &at, &rate) < 0 || !(mslat_rate(m, 2 * m->max_load) > 0))
            fz_fail("service %d: rate %g at load %g", k, rate, at);
    }
    for (int g = 0; g < v->ngraphs; g++) {
        const struct micro_graph *gr = &v->graph[g];
        if (gr->ncalls < 1 || gr->calls[0].parent != -1)
            fz_fail("graph %d: %d calls, root's parent %d", g, gr->ncalls,
                    gr->ncalls ? gr->calls[0].parent : 0);
        double *per = calloc((size_t)v->nservices + 1, sizeof *per);
        int *seen = calloc((size_t)gr->ncalls, sizeof *seen);
        for (int i = 0; i < gr->ncalls; i++) {
            const struct micro_call *c = &gr->calls[i];
            if (c->service < 0 || c->service >= v->nservices || c->count < 1 ||
                (i > 0 && (c->parent < 0 || c->parent >= i)))
                fz_fail("graph %d call %d: service %d, count %d, parent %d", g, i, c->service,
                        c->count, c->parent);
            per[c->service] += c->count;
            if (gr->stage_off[i] > gr->stage_off[i + 1])
                fz_fail("graph %d: stage_off not monotone at %d", g, i);
            for (int s = gr->stage_off[i]; s < gr->stage_off[i + 1]; s++) {
                if (gr->child_off[s] >= gr->child_off[s + 1])
                    fz_fail("graph %d: empty stage %d", g, s);
                for (int j = gr->child_off[s]; j < gr->child_off[s + 1]; j++) {
                    int ch = gr->child[j];
                    if (ch <= 0 || ch >= gr->ncalls || gr->calls[ch].parent != i || seen[ch]++)
                        fz_fail("graph %d: child %d of call %d", g, ch, i);
                }
            }
        }
        for (int i = 1; i < gr->ncalls; i++)
            if (seen[i] != 1)
                fz_fail("graph %d: call %d is nobody's child", g, i);
        for (int k = 0; k < v->nservices; k++)
            if (per[k] != gr->calls_per_service[k])
                fz_fail("graph %d: service %d has %g calls, the table %g", g, k, per[k],
                        gr->calls_per_service[k]);
        if (!(gr->min_latency_s >= 0) || !isfinite(gr->min_latency_s))
            fz_fail("graph %d: minimum latency %g", g, gr->min_latency_s);
        free(per);
        free(seen);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int kind = data[0] % 3;
    static const char *const names[3] = { "app.json", "pars.csv", "ali.csv" };
    char path[4096];
    fz_write(path, sizeof path, names[kind], data + 1, size - 1);
    char text[4500];
    if (kind == 2)
        snprintf(text, sizeof text, "{ \"app\": { \"alibaba\": \"%s\", \"max_graphs\": 64 } }",
                 path);
    else
        snprintf(text, sizeof text, "{ \"app\": \"%s\" }", path);
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    if (jsonf_parse(&doc, "fuzz.json", text, strlen(text), &err) < 0)
        fz_fail("the harness's own JSON: %s", err.msg);
    struct jobj root;
    if (jobj_root(&root, doc, &err) < 0)
        fz_fail("the harness's own JSON: %s", err.msg);
    struct app *a = NULL;
    struct app_opts o = { 0.5, 100 };
    int rc = app_load(&a, &root, "app", fz_dir(), &o, &err);
    fz_check_err(rc, &err, "app_load");
    if (rc == 0)
        check(a);
    else if (a != NULL)
        fz_fail("app_load failed but returned an application");
    app_free(a);
    jsonf_destroy(doc);
    return 0;
}
