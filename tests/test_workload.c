/*
 * test_workload: every workload reader through workload_open + workload_source — hetsim CSV, Gavel traces
 * (7 and 10 fields, real lines and the real files), the Philly job list (the real 20,000-row
 * extract and small hand-made files) and the synthetic generator (determinism, stream
 * independence, sample means within a few standard errors) — plus the common options and
 * reader_work_from_duration.  Every error must name the file, the line and the field.
 *
 * Expected values come from the trace files (counted with awk/python while writing the tests)
 * and from models/data/profiles/gavel.csv.  The shared traces are looked for under
 * $HETSIM_TRACES, default /work/shared/traces.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/rng.h"
#include "../sim/train/train.h"
#include "../workloads/reader.h"
#include "../workloads/synth.h"
#include "helpers.h"

/* measured 1- and 2-worker rates (iterations/s) from models/data/profiles/gavel.csv */
#define R50_V100_1 4.394774823323071      /* "ResNet-50 (batch size 64)",V100-16GB,1 */
#define R50_V100_2 7.9220543675975046     /* "ResNet-50 (batch size 64)",V100-16GB,2,consolidated */
#define R50_K80_1  0.61902822022465731    /* "ResNet-50 (batch size 64)",K80,1 */
#define R18_V100_1 24.093231895382736     /* "ResNet-18 (batch size 64)",V100-16GB,1 */
#define R50 "ResNet-50 (batch size 64)"
#define R18 "ResNet-18 (batch size 64)"

static const char *traces_dir(void)
{
    const char *e = getenv("HETSIM_TRACES");
    return e != NULL && *e != '\0' ? e : th_shared_dir("traces");
}

static char *real_trace(const char *rel)
{
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/%s", traces_dir(), rel);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "shared trace %s not found (set HETSIM_TRACES)", p);
    fclose(f);
    return p;
}

/* ---- fixture: catalog, models, the config document and the workload ---- */

struct fx {
    catalog  *cat;
    tput     *model;
    jsonf    *doc;
    workload *w;
};

static void fx_init(struct fx *f)
{
    f->cat = th_catalog();
    f->model = th_models(f->cat);
    f->doc = NULL;
    f->w = NULL;
}

static void fx_close(struct fx *f)
{
    workload_close(f->w);
    jsonf_destroy(f->doc);
    f->w = NULL;
    f->doc = NULL;
}

static void fx_fini(struct fx *f)
{
    fx_close(f);
    tput_destroy(f->model);
    catalog_destroy(f->cat);
}

/* workload_open on {"workload": <json>} from "exp.json"; relative traces resolve in the tmp dir. */
static int fx_open(struct fx *f, const char *json, uint64_t seed, struct errbuf *err)
{
    fx_close(f);
    size_t n = strlen(json) + 32;
    char *text = malloc(n);
    snprintf(text, n, "{\"workload\": %s}", json);
    err_clear(err);
    cr_assert_eq(jsonf_parse(&f->doc, "exp.json", text, strlen(text), err), 0, "%s", err->msg);
    free(text);
    struct jobj root, cfg;
    cr_assert_eq(jobj_root(&root, f->doc, err), 0);
    cr_assert_eq(jobj_obj(&cfg, &root, "workload", JREQ, err), 0, "%s", err->msg);
    struct workload_env env = { .model = f->model, .seed = seed, .base_dir = th_tmpdir() };
    int rc = workload_open(&f->w, &cfg, &env, err);
    if (rc < 0)
        cr_assert_null(f->w, "no workload on failure");
    return rc;
}

struct jobs {
    struct job_spec *v;
    size_t           n, cap;
};

/* Read every job; returns 0 at the end, -1 on an error (jobs read so far kept). */
static int drain(workload *w, struct jobs *js, struct errbuf *err)
{
    struct entity_source *src = workload_source(w);
    js->n = 0;
    for (;;) {
        if (js->n == js->cap) {
            js->cap = js->cap ? 2 * js->cap : 256;
            js->v = realloc(js->v, js->cap * sizeof *js->v);
        }
        int rc = src->next(src->ctx, &js->v[js->n], err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return 0;
        js->n++;
    }
}

/* Open and read the whole workload, which must succeed. */
static void load_all(struct fx *f, const char *json, uint64_t seed, struct jobs *js)
{
    struct errbuf err;
    cr_assert_eq(fx_open(f, json, seed, &err), 0, "workload_open: %s", err.msg);
    cr_assert_eq(drain(f->w, js, &err), 0, "reading jobs: %s", err.msg);
}

/* Open and read; the first error (at open or while reading, after `before` good jobs) must
 * start with `want`. */
static void expect_error(struct fx *f, const char *json, size_t before, const char *want)
{
    struct errbuf err;
    struct jobs js = { 0 };
    int rc = fx_open(f, json, 1, &err);
    if (rc == 0) {
        rc = drain(f->w, &js, &err);
        cr_assert_eq(rc, -1, "accepted (%zu jobs); expected: %s", js.n, want);
        cr_assert_eq(js.n, before, "%zu good jobs before the error, want %zu (%s)", js.n,
                     before, err.msg);
    } else {
        cr_assert_eq(before, 0, "failed at open: %s", err.msg);
    }
    cr_assert_eq(err.code, ERR_INPUT, "%s", err.msg);
    cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "\n got  %s\n want %s...", err.msg,
              want);
    free(js.v);
}

static int jt(const struct fx *f, const char *name)
{
    int id = tput_find(f->model, name);
    cr_assert_geq(id, 0, "job type %s", name);
    return id;
}

static void close_rel(double got, double want, double rel, const char *what)
{
    cr_assert(fabs(got - want) <= rel * fabs(want), "%s: %.17g, want %.17g", what, got, want);
}

/* ======================= reader_work_from_duration ======================= */

Test(workload, work_from_duration_by_hand)
{
    struct fx f;
    fx_init(&f);
    int v100 = catalog_gpu_find(f.cat, "V100"), k80 = catalog_gpu_find(f.cat, "K80");
    int r50 = jt(&f, R50);
    /* 1 h on one V100 at the measured 4.3947... it/s */
    close_rel(reader_work_from_duration(f.model, r50, v100, 1, 3600), 3600 * R50_V100_1, 1e-12,
              "1 x V100, 3600 s");
    cr_assert_float_eq(reader_work_from_duration(f.model, r50, v100, 1, 3600), 15821.189363963056,
                       1e-6);
    /* two V100s on NVLink: the consolidated measurement */
    close_rel(reader_work_from_duration(f.model, r50, v100, 2, 100), 100 * R50_V100_2, 1e-12,
              "2 x V100, 100 s");
    close_rel(reader_work_from_duration(f.model, r50, k80, 1, 3600), 3600 * R50_K80_1, 1e-12,
              "1 x K80, 3600 s");
    cr_assert_eq(reader_work_from_duration(f.model, r50, v100, 1, 0), 0);
    /* Gavel measured 0 for ResNet-50 (batch size 128) on 2 K80s: it cannot run there */
    cr_assert_eq(reader_work_from_duration(f.model, jt(&f, "ResNet-50 (batch size 128)"), k80, 2,
                                       100), 0);
    fx_fini(&f);
}

/* ======================= hetsim CSV ======================= */

static void csv_job(const struct job_spec *j, int64_t id, double arrival_s, int jtype,
                    int workers, double work, int user, double weight, long line)
{
    cr_assert_eq(j->id, id, "id %lld, want %lld", (long long)j->id, (long long)id);
    cr_assert_eq(j->arrival, (simtime)llround(arrival_s * 1e6), "job %lld arrival %lld",
                 (long long)id, (long long)j->arrival);
    cr_assert_eq(j->jtype, jtype, "job %lld type", (long long)id);
    cr_assert_eq(j->workers, workers, "job %lld workers", (long long)id);
    close_rel(j->work, work, 1e-12, "work");
    cr_assert_eq(j->user, user, "job %lld user", (long long)id);
    cr_assert_eq(j->weight, weight, "job %lld weight", (long long)id);
    cr_assert_eq(j->line, line, "job %lld line %ld, want %ld", (long long)id, j->line, line);
}

Test(workload, hetsim_columns_in_any_order)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("hs_order.csv",
                       "# a comment before the header\n"
                       "workers,job_type,arrival_s,iterations\n"
                       "2,ResNet-50 (batch size 64),0,1000\n"
                       "\n"
                       "   # comment and blank lines are skipped\n"
                       "\t\n"
                       "1,\"ResNet-18 (batch size 16)\",5.5,200\n"
                       "4,Transformer (batch size 64),5.5,3e4\n");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_order.csv\"}", 1, &js);
    cr_assert_eq(js.n, 3);
    csv_job(&js.v[0], 0, 0, jt(&f, R50), 2, 1000, 0, 1, 3);
    csv_job(&js.v[1], 1, 5.5, jt(&f, "ResNet-18 (batch size 16)"), 1, 200, 0, 1, 7);
    csv_job(&js.v[2], 2, 5.5, jt(&f, "Transformer (batch size 64)"), 4, 30000, 0, 1, 8);
    cr_assert_str_eq(js.v[0].origin, p, "origin is the resolved trace path");
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, hetsim_optional_columns_bom_crlf)
{
    struct fx f;
    fx_init(&f);
    /* job_type last: a CR left on the line would make it unknown */
    char *p = th_write("hs_opt.csv",
                       "\xEF\xBB\xBFid,arrival_s,workers,iterations,user,weight,job_type\r\n"
                       "17,0,1,100,3,2.5,ResNet-50 (batch size 64)\r\n"
                       "# ids need not be sorted\r\n"
                       "5,10,8,50,0,1,A3C\r\n"
                       "\r\n"
                       "6,10.25,1,7.5,1000000000,0.001,a3c");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_opt.csv\"}", 1, &js);
    cr_assert_eq(js.n, 3);
    csv_job(&js.v[0], 17, 0, jt(&f, R50), 1, 100, 3, 2.5, 2);
    csv_job(&js.v[1], 5, 10, jt(&f, "A3C"), 8, 50, 0, 1, 4);
    csv_job(&js.v[2], 6, 10.25, jt(&f, "A3C"), 1, 7.5, 1000000000, 0.001, 6);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, hetsim_duration_column)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("hs_dur.csv", "arrival_s,job_type,workers,duration_s\n"
                                     "0,ResNet-50 (batch size 64),1,3600\n"
                                     "10,ResNet-50 (batch size 64),2,100\n");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_dur.csv\"}", 1, &js);
    cr_assert_eq(js.n, 2);
    /* default reference GPU: V100 (= V100-16GB) */
    csv_job(&js.v[0], 0, 0, jt(&f, R50), 1, 3600 * R50_V100_1, 0, 1, 2);
    csv_job(&js.v[1], 1, 10, jt(&f, R50), 2, 100 * R50_V100_2, 0, 1, 3);
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_dur.csv\", \"reference_gpu\": \"k80\"}",
             1, &js);
    close_rel(js.v[0].work, 3600 * R50_K80_1, 1e-12, "on the K80");
    free(js.v);
    free(p);
    fx_fini(&f);
}

/* write `text` as NAME and expect "<tmp>/NAME:<rest>" after `before` good jobs */
static void csv_fails(struct fx *f, const char *name, const char *text, size_t before,
                      const char *rest)
{
    char *p = th_write(name, text);
    char json[512], want[1536];
    snprintf(json, sizeof json, "{\"format\": \"hetsim\", \"trace\": \"%s\"}", name);
    snprintf(want, sizeof want, "%s%s", p, rest);
    expect_error(f, json, before, want);
    free(p);
}

Test(workload, hetsim_header_errors)
{
    static const struct {
        const char *text, *rest;
    } cases[] = {
        { "arival_s,job_type,workers,iterations\n0,A3C,1,1\n",
          ":1: arival_s: unknown column (did you mean 'arrival_s'?)" },
        { "# comment\n\njob_type,arrival_s,workers,iterations,usr\n",
          ":3: usr: unknown column (did you mean 'user'?)" },
        { "job_type,arrival_s,workers,iterations,gpu_type\n", ":1: gpu_type: unknown column" },
        { "arrival_s,job_type,iterations\n0,A3C,1\n", ":1: workers: required column is missing" },
        { "job_type,workers,iterations\n", ":1: arrival_s: required column is missing" },
        { "arrival_s,workers,duration_s\n", ":1: job_type: required column is missing" },
        { "arrival_s,job_type,workers,iterations,duration_s\n",
          ":1: iterations: give exactly one of the columns iterations and duration_s" },
        { "\xEF\xBB\xBF" "arrival_s,job_type,workers\r\n",
          ":1: iterations: give exactly one of the columns iterations and duration_s" },
        { "arrival_s,job_type,workers,iterations,workers\n",
          ":1: workers: column given twice (columns 3 and 5)" },
        { "arrival_s,job_type,workers,iterations,\n0,A3C,1,1,\n",
          ":1: header: column 5 has no name (a trailing comma?)" },
        { "arrival_s,,job_type,workers,iterations\n", ":1: header: column 2 has no name" },
        { "arrival_s,job_type, ,workers,iterations\n", ":1: header: column 3 has no name" },
        { ",arrival_s,job_type,workers,iterations\n", ":1: header: column 1 has no name" },
        { "arrival_s,job_type,workers,iterations,\"\"\n",
          ":1: header: column 5 has no name (a trailing comma?)" },
        { "arrival_s,job_type,workers,iterations,tenant\n",
          ":1: tenant: unknown column (the columns are arrival_s, job_type, workers, "
          "iterations or duration_s, id, user, weight, min_workers, max_workers, batch)" },
        { "", ": empty file: expected a header line" },
        { "# only a comment\n\n", ": empty file: expected a header line" },
        { "arrival_s,\"job_type,workers,iterations\n", ":1: header: unterminated quote" },
    };
    struct fx f;
    fx_init(&f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "hs_head_%zu.csv", i);
        csv_fails(&f, name, cases[i].text, 0, cases[i].rest);
    }
    fx_fini(&f);
}

Test(workload, hetsim_row_errors)
{
    /* line 1 header, line 2 a good row, line 3 a comment, line 4 the bad row */
    static const char *const head = "id,arrival_s,job_type,workers,iterations,user,weight\n"
                                    "0,0,A3C,1,10,0,1\n"
                                    "# the next row is bad\n";
    static const struct {
        const char *row, *rest;
    } cases[] = {
        { "1,5,A3C,0,10,0,1", ":4: workers: '0' is not a GPU count >= 1" },
        { "1,5,A3C,1.5,10,0,1", ":4: workers: '1.5' is not a GPU count >= 1" },
        { "1,5,A3C,,10,0,1", ":4: workers: '' is not a GPU count >= 1" },
        { "1,5,A3C,two,10,0,1", ":4: workers: 'two' is not a GPU count >= 1" },
        { "1,5,A3C,-2,10,0,1", ":4: workers: '-2' is not a GPU count >= 1" },
        { "1,-1,A3C,1,10,0,1", ":4: arrival_s: '-1' is not a time >= 0" },
        { "1,nan,A3C,1,10,0,1", ":4: arrival_s: 'nan' is not a time >= 0" },
        { "1,1e999,A3C,1,10,0,1", ":4: arrival_s: '1e999' is not a time >= 0" },
        { "1,5 s,A3C,1,10,0,1", ":4: arrival_s: '5 s' is not a time >= 0" },
        { "1,5,A3C,1,0,0,1", ":4: iterations: '0' is not a number > 0" },
        { "1,5,A3C,1,-5,0,1", ":4: iterations: '-5' is not a number > 0" },
        { "1,5,A3C,1,inf,0,1", ":4: iterations: 'inf' is not a number > 0" },
        { "1.5,5,A3C,1,10,0,1", ":4: id: '1.5' is not an integer" },
        { "x,5,A3C,1,10,0,1", ":4: id: 'x' is not an integer" },
        { "-1,5,A3C,1,10,0,1", ":4: id: '-1' is not an integer >= 0" },
        { "1,5,A3C,1,10,,1", ":4: user: empty: give a user number >= 0 or a tenant name" },
        { "1,5,A3C,1,10, ,1", ":4: user: empty" },
        { "1,5,A3C,1,10,2.5,1", ":4: user: '2.5' is not a user number >= 0" },
        { "1,5,A3C,1,10,alice,1", ":4: user: 'alice' is not a user number >= 0 (line 2 gives "
                                 "numbers, so names cannot follow)" },
        { "1,5,A3C,1,10,-1,1", ":4: user: '-1' is not a user number >= 0" },
        { "1,5,A3C,1,10,u1,1", ":4: user: 'u1' is not a user number >= 0" },
        { "1,5,A3C,1,10,1e999,1", ":4: user: '1e999' is not a user number >= 0" },
        { "1,5,A3C,1,10,0,0", ":4: weight: '0' is not a weight > 0" },
        { "1,5,A3C,1,10,0,-2", ":4: weight: '-2' is not a weight > 0" },
        { "1,5,ResNet-50 (batch size 65),1,10,0,1",
          ":4: job_type: unknown job type 'ResNet-50 (batch size 65)' (did you mean "
          "'ResNet-50 (batch size 64)'?)" },
        { "1,5,GPT-5,1,10,0,1", ":4: job_type: unknown job type 'GPT-5' (see" },
        { "1,5,A3C,1,10,0", ":4: expected 7 fields, found 6" },
        { "1,5,A3C,1,10,0,1,extra", ":4: expected 7 fields, found 8" },
        { "1,5,\"A3C,1,10,0,1", ":4: unterminated quote" },
        { "0,5,A3C,1,10,0,1", ":4: id: job id 0 appears twice" },
    };
    struct fx f;
    fx_init(&f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], text[512];
        snprintf(name, sizeof name, "hs_row_%zu.csv", i);
        snprintf(text, sizeof text, "%s%s\n", head, cases[i].row);
        csv_fails(&f, name, text, 1, cases[i].rest);
    }
    fx_fini(&f);
}

Test(workload, hetsim_duration_that_cannot_run)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("hs_norun.csv", "arrival_s,job_type,workers,duration_s\n"
                                       "0,ResNet-50 (batch size 128),1,60\n"
                                       "1,ResNet-50 (batch size 128),2,60\n");
    char want[1200];
    snprintf(want, sizeof want, "%s:3: duration_s: job type 'ResNet-50 (batch size 128)' cannot "
             "run on 2 x K80 (the reference GPU)", p);
    expect_error(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_norun.csv\", "
                     "\"reference_gpu\": \"K80\"}", 1, want);
    csv_fails(&f, "hs_baddur.csv", "arrival_s,job_type,workers,duration_s\n0,A3C,1,0\n", 0,
              ":2: duration_s: '0' is not a number > 0");
    free(p);
    fx_fini(&f);
}

Test(workload, hetsim_duplicate_ids_among_many)
{
    /* 3000 distinct ids (the id set grows several times), then a repeat of an early one */
    size_t cap = 3100 * 32, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "id,arrival_s,job_type,workers,iterations\n");
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(text + n, cap - n, "%d,%d,A3C,1,10\n", 7 * i + 3, i);
    n += (size_t)snprintf(text + n, cap - n, "%d,3000,A3C,1,10\n", 7 * 1234 + 3);
    struct fx f;
    fx_init(&f);
    char want[64];
    snprintf(want, sizeof want, ":3002: id: job id %d appears twice", 7 * 1234 + 3);
    csv_fails(&f, "hs_dupmany.csv", text, 3000, want);
    free(text);
    fx_fini(&f);
}

Test(workload, hetsim_tenant_names)
{
    /* names are numbered 0, 1, ... by first appearance in the file, whatever skip_jobs */
    struct fx f;
    fx_init(&f);
    char *p = th_write("hs_names.csv", "arrival_s,job_type,workers,iterations,user\n"
                                       "0,A3C,1,10,vision\n"
                                       "1,A3C,1,10,nlp\n"
                                       "2,A3C,1,10,vision\n"
                                       "3,A3C,1,10,\"rl, gan\"\n"
                                       "4,A3C,1,10,Vision\n"
                                       "5,A3C,1,10,nlp\n"
                                       "6,A3C,1,10,u2\n");
    static const int32_t users[] = { 0, 1, 0, 2, 3, 1, 4 };
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_names.csv\"}", 1, &js);
    cr_assert_eq(js.n, 7);
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].user, users[i], "job %zu: user %d, want %d", i, js.v[i].user,
                     users[i]);
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_names.csv\", \"skip_jobs\": 3}", 1,
             &js);
    cr_assert_eq(js.n, 4);
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].user, users[i + 3], "after skipping 3, job %zu: user %d", i,
                     js.v[i].user);
    /* many names: the table grows several times and keeps every number */
    size_t cap = 5000 * 40, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "arrival_s,job_type,workers,iterations,user\n");
    for (int i = 0; i < 4000; i++)
        n += (size_t)snprintf(text + n, cap - n, "%d,A3C,1,10,tenant-%d\n", i, (i * 7) % 1000);
    char *q = th_write("hs_many_names.csv", text);
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_many_names.csv\"}", 1, &js);
    cr_assert_eq(js.n, 4000);
    /* tenant-(7i mod 1000) first appears at row i for i < 1000 (7 is invertible mod 1000) */
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].user, (int32_t)(i % 1000), "row %zu: user %d", i, js.v[i].user);
    free(js.v);
    free(text);
    free(p);
    free(q);
    fx_fini(&f);
}

Test(workload, hetsim_users_numbers_or_names_not_both)
{
    struct fx f;
    fx_init(&f);
    csv_fails(&f, "hs_mix1.csv", "arrival_s,job_type,workers,iterations,user\n"
                                 "0,A3C,1,10,alice\n# a comment\n1,A3C,1,10,3\n", 1,
              ":4: user: '3' is a number, but line 2 names a tenant: a trace gives every user "
              "as a number or every user as a name");
    csv_fails(&f, "hs_mix2.csv", "arrival_s,job_type,workers,iterations,user\n"
                                 "0,A3C,1,10,7\n1,A3C,1,10,bob\n", 1,
              ":3: user: 'bob' is not a user number >= 0 (line 2 gives numbers, so names "
              "cannot follow)");
    csv_fails(&f, "hs_mix3.csv", "arrival_s,job_type,workers,iterations,user\n"
                                 "0,A3C,1,10, alice\n", 0,
              ":2: user: tenant name ' alice' begins or ends with a blank");
    csv_fails(&f, "hs_mix4.csv", "arrival_s,job_type,workers,iterations,user\n"
                                 "0,A3C,1,10,alice\t\n", 0,
              ":2: user: tenant name 'alice\t' begins or ends with a blank");
    char name[300], text[512];
    memset(name, 'n', 256);
    name[256] = '\0';
    snprintf(text, sizeof text, "arrival_s,job_type,workers,iterations,user\n0,A3C,1,10,%s\n",
             name);
    csv_fails(&f, "hs_longname.csv", text, 0, ":2: user: tenant name longer than 255 characters");
    name[255] = '\0';
    snprintf(text, sizeof text, "arrival_s,job_type,workers,iterations,user\n0,A3C,1,10,%s\n",
             name);
    char *p = th_write("hs_name255.csv", text);
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_name255.csv\"}", 1, &js);
    cr_assert_eq(js.n, 1);
    cr_assert_eq(js.v[0].user, 0);
    free(js.v);
    free(p);
    fx_fini(&f);
}

/* ======================= Gavel ======================= */

/* the first three lines of msr_philly_vc_6214e9_seed0.trace (7 fields), verbatim */
static const char *const gavel7 =
    "Transformer (batch size 128)\tcd %s/gpusched/workloads/pytorch/translation && python3 "
    "train.py -data %s/data/translation/multi30k.atok.low.pt -batch_size 128 "
    "-proj_share_weight\t-step\t1\t20851471\t0.000000\t1\n"
    "Recommendation (batch size 8192)\tcd %s/gpusched/workloads/pytorch/recommendation/scripts/"
    "ml-20m && python3 train.py --data_dir %s/data/ml-20m/pro_sg/ --batch_size 8192\t-n\t1\t"
    "2337035\t266564.000000\t1\n"
    "Transformer (batch size 256)\tcd %s/gpusched/workloads/pytorch/translation && python3 "
    "train.py -data %s/data/translation/multi30k.atok.low.pt -batch_size 256 "
    "-proj_share_weight\t-step\t1\t6619155\t266566.000000\t1\n";

/* the first three lines of physical_cluster_artifact_evaluation.trace (10 fields), verbatim */
static const char *const gavel10 =
    "ResNet-50 (batch size 64)\tpython3 main.py -j 2 -a resnet50 -b 64 %s/imagenet/\t"
    "image_classification/imagenet\t--num_minibatches\t1\t2931\t1\t1\t-1.000000\t0\n"
    "Transformer (batch size 16)\tpython3 train.py -data %s/translation/multi30k.atok.low.pt "
    "-batch_size 16 -proj_share_weight\ttranslation\t-step\t1\t11005\t2\t1\t-1.000000\t0\n"
    "ResNet-18 (batch size 128)\tpython3 main.py --data_dir=%s/cifar10 --batch_size 128\t"
    "image_classification/cifar10\t--num_steps\t1\t36030\t1\t1\t-1.000000\t0\n";

static void gavel_job(const struct job_spec *j, int64_t id, int jtype, double steps,
                      double arrival_s, int workers, double weight, long line)
{
    cr_assert_eq(j->id, id, "id %lld, want %lld", (long long)j->id, (long long)id);
    cr_assert_eq(j->jtype, jtype, "job %lld type", (long long)id);
    cr_assert_eq(j->work, steps, "job %lld work %.17g", (long long)id, j->work);
    cr_assert_eq(j->arrival, (simtime)llround(arrival_s * 1e6), "job %lld arrival",
                 (long long)id);
    cr_assert_eq(j->workers, workers, "job %lld workers", (long long)id);
    cr_assert_eq(j->weight, weight, "job %lld weight", (long long)id);
    cr_assert_eq(j->line, line, "job %lld line", (long long)id);
}

Test(workload, gavel_7_field_lines)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("gv7.trace", gavel7);
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv7.trace\"}", 1, &js);
    cr_assert_eq(js.n, 3);
    gavel_job(&js.v[0], 0, jt(&f, "Transformer (batch size 128)"), 20851471, 0, 1, 1, 1);
    gavel_job(&js.v[1], 1, jt(&f, "Recommendation (batch size 8192)"), 2337035, 266564, 1, 1, 2);
    gavel_job(&js.v[2], 2, jt(&f, "Transformer (batch size 256)"), 6619155, 266566, 1, 1, 3);
    cr_assert_str_eq(js.v[2].origin, p);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, gavel_10_field_lines)
{
    struct fx f;
    fx_init(&f);
    /* the three real lines, then one with every used field changed (the real ones all have
     * weight 1 and arrival 0), CRLF-terminated */
    size_t n = strlen(gavel10) + 256;
    char *text = malloc(n);
    snprintf(text, n, "%s\nA3C\tpython3 main.py\trl\t--max-steps\t0\t777\t4.000000\t2.5\t"
                      "-1.000000\t120.5\r\n", gavel10);
    char *p = th_write("gv10.trace", text);
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv10.trace\"}", 1, &js);
    cr_assert_eq(js.n, 4);
    gavel_job(&js.v[0], 0, jt(&f, R50), 2931, 0, 1, 1, 1);
    gavel_job(&js.v[1], 1, jt(&f, "Transformer (batch size 16)"), 11005, 0, 2, 1, 2);
    gavel_job(&js.v[2], 2, jt(&f, "ResNet-18 (batch size 128)"), 36030, 0, 1, 1, 3);
    gavel_job(&js.v[3], 3, jt(&f, "A3C"), 777, 120.5, 4, 2.5, 5);
    free(js.v);
    free(text);
    free(p);
    fx_fini(&f);
}

Test(workload, gavel_real_msr_trace)
{
    struct fx f;
    fx_init(&f);
    char *p = real_trace("gavel/msr_philly_vc_6214e9_seed0.trace");
    char json[1200];
    snprintf(json, sizeof json, "{\"format\": \"gavel\", \"trace\": \"%s\"}", p);
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 2000);
    double steps = 0, workers = 0, arrivals = 0;
    int eight = 0, r50 = 0;
    for (size_t i = 0; i < js.n; i++) {
        cr_assert_eq(js.v[i].id, (int64_t)i);
        cr_assert_eq(js.v[i].line, (long)i + 1);
        if (i > 0)
            cr_assert_geq(js.v[i].arrival, js.v[i - 1].arrival, "arrivals sorted at %zu", i);
        cr_assert_eq(js.v[i].weight, 1);
        steps += js.v[i].work;
        workers += js.v[i].workers;
        arrivals += sim_to_sec(js.v[i].arrival);
        eight += js.v[i].workers == 8;
        r50 += js.v[i].jtype == jt(&f, R50);
    }
    /* sums over the file, by python */
    cr_assert_eq(steps, 17063947829.0, "total steps %.0f", steps);
    cr_assert_eq(workers, 2214, "total GPUs");
    cr_assert_float_eq(arrivals, 7842418857.0, 1e-3, "sum of arrivals %.3f", arrivals);
    cr_assert_eq(eight, 13, "8-GPU jobs");
    cr_assert_eq(r50, 61, "ResNet-50 (batch size 64) jobs");
    gavel_job(&js.v[0], 0, jt(&f, "Transformer (batch size 128)"), 20851471, 0, 1, 1, 1);
    gavel_job(&js.v[999], 999, jt(&f, "Transformer (batch size 256)"), 22455, 4062845, 1, 1,
              1000);
    gavel_job(&js.v[1999], 1999, jt(&f, "ResNet-50 (batch size 16)"), 62738, 4184082, 1, 1,
              2000);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, gavel_real_physical_trace)
{
    struct fx f;
    fx_init(&f);
    char *p = real_trace("gavel/physical_cluster_artifact_evaluation.trace");
    char json[1200];
    snprintf(json, sizeof json, "{\"format\": \"gavel\", \"trace\": \"%s\"}", p);
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 15);
    static const int sf[15] = { 1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 1 };
    double steps = 0;
    for (size_t i = 0; i < js.n; i++) {
        cr_assert_eq(js.v[i].workers, sf[i], "job %zu scale factor", i);
        cr_assert_eq(js.v[i].arrival, 0);
        cr_assert_eq(js.v[i].weight, 1);
        steps += js.v[i].work;
    }
    cr_assert_eq(steps, 304697, "total steps");
    gavel_job(&js.v[0], 0, jt(&f, R50), 2931, 0, 1, 1, 1);
    gavel_job(&js.v[13], 13, jt(&f, "CycleGAN"), 7626, 0, 1, 1, 14);
    gavel_job(&js.v[14], 14, jt(&f, "A3C"), 8857, 0, 1, 1, 15);
    free(js.v);
    free(p);
    fx_fini(&f);
}

static void gavel_fails(struct fx *f, const char *name, const char *text, size_t before,
                        const char *rest)
{
    char *p = th_write(name, text);
    char json[512], want[1536];
    snprintf(json, sizeof json, "{\"format\": \"gavel\", \"trace\": \"%s\"}", name);
    snprintf(want, sizeof want, "%s%s", p, rest);
    expect_error(f, json, before, want);
    free(p);
}

Test(workload, gavel_errors)
{
    static const struct {
        const char *text;
        size_t      before;
        const char *rest;
    } cases[] = {
        { "A3C\tcmd\t-n\t1\t100\t0\t1\nA3C\tcmd\t-n\t1\t100\t0\t1\textra\n", 1,
          ":2: a Gavel trace line has 7 or 10 tab-separated fields, this one has 8" },
        { "A3C\tcmd\t-n\t1\t100\t0\nA3C\n", 0,
          ":1: a Gavel trace line has 7 or 10 tab-separated fields, this one has 6" },
        { "A3C,cmd,-n,1,100,0,1\n", 0,
          ":1: a Gavel trace line has 7 or 10 tab-separated fields, this one has 1" },
        { "A3C\tcmd\t-n\t1\t100\t0\t1\n"
          "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\t0\n", 1,
          ":2: 10 fields here but 7 on earlier lines" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\t0\n\n"
          "A3C\tcmd\t-n\t1\t100\t0\t1\n", 1,
          ":3: 7 fields here but 10 on earlier lines" },
        { "A3C\tcmd\t-n\t1\t100\t0\t0\n", 0, ":1: scale_factor: '0' is not a GPU count >= 1" },
        { "A3C\tcmd\t-n\t1\t100\t0\tx\n", 0, ":1: scale_factor: 'x' is not a GPU count >= 1" },
        { "A3C\tcmd\t-n\t1\t100\t0\t1.5\n", 0,
          ":1: scale_factor: '1.5' is not a GPU count >= 1" },
        { "A3C\tcmd\t-n\t1\t100\t0\t\n", 0, ":1: scale_factor: '' is not a GPU count >= 1" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t-4\t1\t-1\t0\n", 0,
          ":1: scale_factor: '-4' is not a GPU count >= 1" },
        { "A3C\tcmd\t-n\t1\t0\t0\t1\n", 0, ":1: total_steps: '0' is not a step count >= 1" },
        { "A3C\tcmd\t-n\t1\t10.5\t0\t1\n", 0,
          ":1: total_steps: '10.5' is not a step count >= 1" },
        { "A3C\tcmd\t-n\t1\t100\t-3\t1\n", 0, ":1: arrival_time: '-3' is not a time >= 0" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\tsoon\n", 0,
          ":1: arrival_time: 'soon' is not a time >= 0" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t0\t-1\t0\n", 0,
          ":1: priority_weight: '0' is not a weight > 0" },
        { "A3C\tcmd\t-n\t1\t100\t0\t1\nResNet-50 (batch size 63)\tcmd\t-n\t1\t100\t0\t1\n", 1,
          ":2: job_type: unknown job type 'ResNet-50 (batch size 63)' (did you mean "
          "'ResNet-50 (batch size 64)'?)" },
        { "", 0, ": empty trace: no jobs" },
        { "# nothing\n\n", 0, ": empty trace: no jobs" },
        /* the fields no policy reads are checked too */
        { "A3C\t\t-n\t1\t100\t0\t1\n", 0, ":1: command: empty: Gavel runs this command" },
        { "A3C\tcmd\t-n\t1\t100\t0\t1\nA3C\t  \t-n\t1\t100\t0\t1\n", 1, ":2: command: empty" },
        { "A3C\tcmd\t\t-n\t1\t100\t1\t1\t-1\t0\n", 0,
          ":1: working_directory: empty: the directory the command runs in" },
        { "A3C\tcmd\tn\t1\t100\t0\t1\n", 0,
          ":1: num_steps_arg: 'n' is not a command-line flag such as -n or --num_steps" },
        { "A3C\tcmd\t-\t1\t100\t0\t1\n", 0, ":1: num_steps_arg: '-' is not a command-line flag" },
        { "A3C\tcmd\t---n\t1\t100\t0\t1\n", 0,
          ":1: num_steps_arg: '---n' is not a command-line flag" },
        { "A3C\tcmd\t-5\t1\t100\t0\t1\n", 0, ":1: num_steps_arg: '-5' is not a command-line flag" },
        { "A3C\tcmd\t--num steps\t1\t100\t0\t1\n", 0,
          ":1: num_steps_arg: '--num steps' is not a command-line flag" },
        { "A3C\tcmd\tdir\t100\t1\t100\t1\t1\t-1\t0\n", 0,
          ":1: num_steps_arg: '100' is not a command-line flag" },
        { "A3C\tcmd\t-n\t2\t100\t0\t1\n", 0,
          ":1: needs_data_dir: '2' is not 0, 1, True or False" },
        { "A3C\tcmd\t-n\ttrue\t100\t0\t1\n", 0,
          ":1: needs_data_dir: 'true' is not 0, 1, True or False" },
        { "A3C\tcmd\t-n\t\t100\t0\t1\n", 0, ":1: needs_data_dir: '' is not 0, 1, True or False" },
        { "A3C\tcmd\tdir\t-n\t1.0\t100\t1\t1\t-1\t0\n", 0,
          ":1: needs_data_dir: '1.0' is not 0, 1, True or False" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t0\t0\n", 0,
          ":1: SLO: '0' is not an SLO: a factor > 0 of the job's duration, or < 0 (-1) for none" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\tnone\t0\n", 0, ":1: SLO: 'none' is not an SLO" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t\t0\n", 0, ":1: SLO: '' is not an SLO" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\tinf\t0\n", 0, ":1: SLO: 'inf' is not an SLO" },
        { "A3C\tcmd\tdir\t-n\t1\t100\t1\t1e10\t-1\t0\n", 0,
          ":1: priority_weight: '1e10' is not a weight > 0" },
    };
    struct fx f;
    fx_init(&f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "gv_bad_%zu.trace", i);
        gavel_fails(&f, name, cases[i].text, cases[i].before, cases[i].rest);
    }
    fx_fini(&f);
}

Test(workload, gavel_integer_fields_written_as_decimals)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("gv_dec.trace", "\n# header comment\nA3C\tcmd\t-n\t1\t100.000000\t"
                                       "7.250000\t2.000000\n");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv_dec.trace\"}", 1, &js);
    cr_assert_eq(js.n, 1);
    gavel_job(&js.v[0], 0, jt(&f, "A3C"), 100, 7.25, 2, 1, 3);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, gavel_field_forms_accepted)
{
    /* needs_data_dir as Gavel writes it (%d of a bool) and as Python prints a bool; flags
     * of every shape in Gavel's job table; SLO none (-1 or any negative) and real factors */
    struct fx f;
    fx_init(&f);
    char *p = th_write("gv_forms.trace",
                       "A3C\tcmd\tdir\t-n\t0\t10\t1\t1\t-1.000000\t0\n"
                       "A3C\tcmd\tdir\t--num_steps\t1\t11\t1\t1\t-0.5\t1\n"
                       "A3C\tcmd\tdir\t--max-steps\tTrue\t12\t1\t5\t1.2\t2\n"
                       "A3C\tcmd\tdir\t-step\tFalse\t13\t2\t1\t10\t3\n"
                       "A3C\tcmd\tdir\t--n_steps\t1\t14\t1\t1\t2.0\t4\n");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv_forms.trace\"}", 1, &js);
    cr_assert_eq(js.n, 5);
    int a3c = jt(&f, "A3C");
    gavel_job(&js.v[0], 0, a3c, 10, 0, 1, 1, 1);
    gavel_job(&js.v[2], 2, a3c, 12, 2, 1, 5, 3);
    gavel_job(&js.v[3], 3, a3c, 13, 3, 2, 1, 4);
    gavel_job(&js.v[4], 4, a3c, 14, 4, 1, 1, 5);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, gavel_real_converted_trace)
{
    /* the 10-field conversion of the msr trace: priority 1.000000 and SLO -1.000000 on every
     * line, seven num_steps_arg flags, needs_data_dir 0 and 1 */
    struct fx f;
    fx_init(&f);
    char *p = real_trace("gavel/msr_philly_vc_6214e9_seed0.converted.trace");
    char json[1200];
    snprintf(json, sizeof json, "{\"format\": \"gavel\", \"trace\": \"%s\"}", p);
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 2000);
    double steps = 0, workers = 0, arrivals = 0;
    for (size_t i = 0; i < js.n; i++) {
        steps += js.v[i].work;
        workers += js.v[i].workers;
        arrivals += sim_to_sec(js.v[i].arrival);
        cr_assert_eq(js.v[i].weight, 1);
    }
    /* by python: the 15 scale factors set to 1 take 43 GPUs off the original's 2,214 */
    cr_assert_eq(steps, 17063947829.0, "total steps %.0f", steps);
    cr_assert_eq(workers, 2171, "total GPUs");
    cr_assert_float_eq(arrivals, 7842418857.0, 1e-3, "sum of arrivals %.3f", arrivals);
    gavel_job(&js.v[999], 999, jt(&f, "Transformer (batch size 256)"), 22455, 4062845, 1, 1,
              1000);
    free(js.v);
    free(p);
    fx_fini(&f);
}

/* ======================= Philly ======================= */

#define PHILLY_MIX "\"job_types\": {\"" R18 "\": 1, \"" R50 "\": 1}"

static void philly_json(char *out, size_t cap, const char *trace, const char *extra)
{
    snprintf(out, cap, "{\"format\": \"philly\", \"trace\": \"%s\", " PHILLY_MIX "%s}", trace,
             extra);
}

/* properties every Philly job list must have: sorted from 0, users by first appearance */
static void philly_props(const struct jobs *js)
{
    cr_assert_gt(js->n, 0);
    cr_assert_eq(js->v[0].arrival, 0, "the first arrival is 0");
    int32_t next_user = 0;
    for (size_t i = 0; i < js->n; i++) {
        if (i > 0)
            cr_assert_geq(js->v[i].arrival, js->v[i - 1].arrival, "sorted at %zu", i);
        cr_assert_eq(js->v[i].arrival % SIM_SEC, 0, "whole seconds");
        cr_assert_leq(js->v[i].user, next_user, "user %d appears before user %d at %zu",
                      js->v[i].user, next_user, i);
        if (js->v[i].user == next_user)
            next_user++;
        cr_assert_eq(js->v[i].weight, 1);
    }
}

Test(workload, philly_real_file)
{
    struct fx f;
    fx_init(&f);
    char *p = real_trace("philly/sia_philly_jobs_first20000.csv");
    char json[1400];
    philly_json(json, sizeof json, p, "");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 20000);
    philly_props(&js);
    double users = 0, gpus = 0, ids = 0, arr = 0;
    int maxu = 0;
    for (size_t i = 0; i < js.n; i++) {
        users += js.v[i].user;
        gpus += js.v[i].workers;
        ids += (double)js.v[i].id;
        arr += (double)(js.v[i].arrival / SIM_SEC);
        if (js.v[i].user > maxu)
            maxu = js.v[i].user;
        cr_assert_eq(js.v[i].line, (long)js.v[i].id + 2, "line = data row + 2");
    }
    /* computed with python from the file: sorted by (time, line), VCs numbered in that order */
    cr_assert_eq(maxu, 11, "12 virtual clusters");
    cr_assert_eq(users, 34233);
    cr_assert_eq(gpus, 24679);
    cr_assert_eq(ids, 199990000, "every row once");
    cr_assert_eq(arr, 84071614946.0);
    /* the earliest submission: 2017-09-07 09:57:50, row 1984 (line 1986), VC 6214e9, 1 GPU,
     * 2643038 s */
    const struct job_spec *a = &js.v[0], *z = &js.v[js.n - 1];
    cr_assert_eq(a->id, 1984);
    cr_assert_eq(a->workers, 1);
    cr_assert_eq(a->user, 0);
    close_rel(a->work, reader_work_from_duration(f.model, a->jtype, catalog_gpu_find(f.cat, "V100"), 1,
                                             2643038), 1e-12, "first job's work");
    close_rel(a->work, 2643038 * (a->jtype == jt(&f, R50) ? R50_V100_1 : R18_V100_1), 1e-12,
              "first job's work by hand");
    /* the latest: row 15896, 8028262 s later, VC 11cb48 (4th VC to appear), 67 s */
    cr_assert_eq(z->id, 15896);
    cr_assert_eq(z->arrival, (simtime)8028262 * SIM_SEC);
    cr_assert_eq(z->user, 3);
    close_rel(z->work, reader_work_from_duration(f.model, z->jtype, catalog_gpu_find(f.cat, "V100"), 1,
                                             67), 1e-12, "last job's work");
    cr_assert_str_eq(z->origin, p);
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, philly_filters)
{
    struct fx f;
    fx_init(&f);
    char *p = real_trace("philly/sia_philly_jobs_first20000.csv");
    static const struct {
        const char *extra;
        size_t      n;
        double      users, ids;
        int         maxw;
        int64_t     last_arrival_s;
    } cases[] = {
        { ", \"vc\": \"6214e9\"", 10861, 0, 87033078, 8, 8010942 },
        { ", \"max_workers\": 1", 18869, 23252, 186797371, 1, 8028262 },
        { ", \"max_workers\": 4", 19677, 20819, 196607110, 4, 8028262 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char json[1400];
        philly_json(json, sizeof json, p, cases[c].extra);
        struct jobs js = { 0 };
        load_all(&f, json, 1, &js);
        cr_assert_eq(js.n, cases[c].n, "%s: %zu jobs", cases[c].extra, js.n);
        philly_props(&js);
        double users = 0, ids = 0;
        int maxw = 0;
        for (size_t i = 0; i < js.n; i++) {
            users += js.v[i].user;
            ids += (double)js.v[i].id;
            if (js.v[i].workers > maxw)
                maxw = js.v[i].workers;
        }
        cr_assert_eq(users, cases[c].users, "%s: users", cases[c].extra);
        cr_assert_eq(ids, cases[c].ids, "%s: ids (rows kept)", cases[c].extra);
        cr_assert_eq(maxw, cases[c].maxw, "%s: largest job", cases[c].extra);
        cr_assert_eq(js.v[js.n - 1].arrival, cases[c].last_arrival_s * SIM_SEC, "%s",
                     cases[c].extra);
        free(js.v);
    }
    free(p);
    fx_fini(&f);
}

Test(workload, philly_job_type_draws)
{
    struct fx f;
    fx_init(&f);
    char *p = real_trace("philly/sia_philly_jobs_first20000.csv");
    char json[1400];
    snprintf(json, sizeof json, "{\"format\": \"philly\", \"trace\": \"%s\", \"job_types\": "
             "{\"" R18 "\": 1, \"" R50 "\": 3}}", p);
    struct jobs a = { 0 }, b = { 0 }, c = { 0 };
    load_all(&f, json, 7, &a);
    load_all(&f, json, 7, &b);
    load_all(&f, json, 8, &c);
    cr_assert_eq(a.n, 20000);
    cr_assert_eq(b.n, a.n);
    cr_assert_eq(c.n, a.n);
    int r50 = jt(&f, R50), r18 = jt(&f, R18);
    size_t same = 0, n50 = 0;
    for (size_t i = 0; i < a.n; i++) {
        cr_assert_eq(a.v[i].jtype, b.v[i].jtype, "same seed, same draw at %zu", i);
        cr_assert_eq(a.v[i].work, b.v[i].work);
        cr_assert_eq(a.v[i].id, c.v[i].id, "the seed changes job types only");
        cr_assert_eq(a.v[i].arrival, c.v[i].arrival);
        cr_assert(a.v[i].jtype == r50 || a.v[i].jtype == r18);
        same += a.v[i].jtype == c.v[i].jtype;
        n50 += a.v[i].jtype == r50;
    }
    /* independent draws agree with probability 0.25^2 + 0.75^2 = 0.625; sd of the count is
     * sqrt(n p (1-p)) = 68.5, so 5 sd = 342 */
    cr_assert(fabs((double)same - 0.625 * 20000) < 342, "seeds 7 and 8 agree on %zu draws", same);
    /* P(ResNet-50) = 3/4: 15000 +- 5 sd (sd = 61.2) */
    cr_assert(fabs((double)n50 - 15000) < 306, "%zu ResNet-50 draws of 20000", n50);
    free(a.v);
    free(b.v);
    free(c.v);
    free(p);
    fx_fini(&f);
}

Test(workload, philly_small_file_by_hand)
{
    struct fx f;
    fx_init(&f);
    char *p = th_write("ph_small.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                       "2017-10-01 00:01:40,100,1,100,b\n"
                                       "2017-10-01 00:00:50,200,2,400,a\n"
                                       "# a comment\n"
                                       "\n"
                                       "2017-10-01 00:01:40,300.0,1,300,a\n"
                                       "2017-10-01 00:00:50,400,4,1600,c\n");
    char json[600];
    philly_json(json, sizeof json, "ph_small.csv", "");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 4);
    /* by time, ties by line; users a=0, c=1, b=2 by first appearance in that order */
    static const struct {
        int64_t id;
        long    line;
        int64_t arrival_s;
        int     workers, user;
        double  duration;
    } want[] = {
        { 1, 3, 0, 2, 0, 200 }, { 3, 7, 0, 4, 1, 400 }, { 0, 2, 50, 1, 2, 100 },
        { 2, 6, 50, 1, 0, 300 },
    };
    int v100 = catalog_gpu_find(f.cat, "V100");
    for (size_t i = 0; i < 4; i++) {
        const struct job_spec *j = &js.v[i];
        cr_assert_eq(j->id, want[i].id, "job %zu id %lld", i, (long long)j->id);
        cr_assert_eq(j->line, want[i].line, "job %zu", i);
        cr_assert_eq(j->arrival, want[i].arrival_s * SIM_SEC, "job %zu", i);
        cr_assert_eq(j->workers, want[i].workers, "job %zu", i);
        cr_assert_eq(j->user, want[i].user, "job %zu", i);
        close_rel(j->work, reader_work_from_duration(f.model, j->jtype, v100, j->workers,
                                                 want[i].duration), 1e-12, "work");
    }
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, philly_calendar)
{
    /* leap day, month and year ends (seconds from python's calendar.timegm) */
    struct fx f;
    fx_init(&f);
    char *p = th_write("ph_cal.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2018-01-01 00:00:00,1,1,1,x\n"
                                     "2016-02-28 12:00:00,1,1,1,x\n"
                                     "2017-12-31 23:59:59,1,1,1,x\n"
                                     "2016-03-01 12:00:00,1,1,1,x\n"
                                     "2000-02-29 00:00:00,1,1,1,x\n"
                                     "1999-12-31 00:00:00,1,1,1,x\n");
    char json[600];
    philly_json(json, sizeof json, "ph_cal.csv", "");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 6);
    static const int64_t epoch[] = { 946598400, 951782400, 1456660800, 1456833600, 1514764799,
                                     1514764800 };
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(js.v[i].arrival, (epoch[i] - epoch[0]) * SIM_SEC, "job %zu: %lld s", i,
                     (long long)(js.v[i].arrival / SIM_SEC));
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, philly_long_vc_names)
{
    /* VC names are free text; a long one must still be one user */
    struct fx f;
    fx_init(&f);
    char *p = th_write("ph_longvc.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                        "2017-10-01 00:00:00,10,1,10,research-vision-team-east\n"
                                        "2017-10-01 00:00:10,10,1,10,research-vision-team-east\n"
                                        "2017-10-01 00:00:20,10,1,10,research-vision-team-west\n"
                                        "2017-10-01 00:00:30,10,1,10,research-vision-team-east\n");
    char json[600];
    philly_json(json, sizeof json, "ph_longvc.csv", "");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 4);
    static const int users[] = { 0, 0, 1, 0 };
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(js.v[i].user, users[i], "job %zu: user %d, want %d", i, js.v[i].user,
                     users[i]);
    free(js.v);
    free(p);
    fx_fini(&f);
}

static void philly_fails(struct fx *f, const char *name, const char *text, const char *extra,
                         const char *rest)
{
    char *p = th_write(name, text);
    char json[1024], want[1536];
    philly_json(json, sizeof json, name, extra);
    snprintf(want, sizeof want, "%s%s", p, rest);
    expect_error(f, json, 0, want);
    free(p);
}

Test(workload, philly_errors)
{
    static const char *const head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                    "2017-10-09 07:01:55,66.0,1,66.0,a\n";
    static const struct {
        const char *row, *rest;
    } cases[] = {
        { "2017-13-09 07:01:55,66,1,66,a",
          ":3: timestamp: '2017-13-09 07:01:55' is not YYYY-MM-DD HH:MM:SS" },
        { "2017/10/09 07:01:55,66,1,66,a",
          ":3: timestamp: '2017/10/09 07:01:55' is not YYYY-MM-DD HH:MM:SS" },
        { "2017-10-09,66,1,66,a", ":3: timestamp: '2017-10-09' is not YYYY-MM-DD HH:MM:SS" },
        { "2017-10-09 24:00:00,66,1,66,a",
          ":3: timestamp: '2017-10-09 24:00:00' is not YYYY-MM-DD HH:MM:SS" },
        { "2017-10-09 07:01:55 UTC,66,1,66,a",
          ":3: timestamp: '2017-10-09 07:01:55 UTC' is not YYYY-MM-DD HH:MM:SS" },
        { "1507532515,66,1,66,a", ":3: timestamp: '1507532515' is not YYYY-MM-DD HH:MM:SS" },
        { ",66,1,66,a", ":3: timestamp: '' is not YYYY-MM-DD HH:MM:SS" },
        { "2017-10-09 07:01:55,0,1,0,a", ":3: duration: '0' is not a duration in (0, 1e9] s" },
        { "2017-10-09 07:01:55,-5,1,0,a", ":3: duration: '-5' is not a duration in (0, 1e9] s" },
        { "2017-10-09 07:01:55,long,1,0,a", ":3: duration: 'long' is not a duration in (0, 1e9] s" },
        { "2017-10-09 07:01:55,66,0,0,a", ":3: num_gpus: '0' is not a GPU count >= 1" },
        { "2017-10-09 07:01:55,66,1.5,66,a", ":3: num_gpus: '1.5' is not a GPU count >= 1" },
        { "2017-10-09 07:01:55,66,1,66", ":3: expected 5 fields, found 4" },
        { "2017-10-09 07:01:55,66,1,66,a,b", ":3: expected 5 fields, found 6" },
        { "2017-10-09 07:01:55,66,2,66,a",
          ":3: gpu_time: 66 GPU-seconds, but duration x num_gpus = 66 x 2 = 132" },
        { "2017-10-09 07:01:55,66,1,3600,a",
          ":3: gpu_time: 3600 GPU-seconds, but duration x num_gpus = 66 x 1 = 66" },
        { "2017-10-09 07:01:55,66,1,-66,a",
          ":3: gpu_time: '-66' is not a number of GPU-seconds >= 0" },
        { "2017-10-09 07:01:55,66,1,,a", ":3: gpu_time: '' is not a number of GPU-seconds >= 0" },
        { "2017-10-09 07:01:55,66,1,a,66", ":3: gpu_time: 'a' is not a number of GPU-seconds" },
        { "2017-10-09 07:01:55,66,1,nan,a", ":3: gpu_time: 'nan' is not a number of GPU-seconds" },
        { "2017-10-09 07:01:55,66,1,66,", ":3: cluster: empty: the virtual cluster's name" },
        { "2017-10-09 07:01:55,66,1,66,  ", ":3: cluster: empty" },
    };
    struct fx f;
    fx_init(&f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], text[512];
        snprintf(name, sizeof name, "ph_bad_%zu.csv", i);
        snprintf(text, sizeof text, "%s%s\n", head, cases[i].row);
        philly_fails(&f, name, text, "", cases[i].rest);
    }
    philly_fails(&f, "ph_hdr1.csv", "time,duration,num_gpus,gpu_time,cluster\n", "",
                 ":1: header must be: timestamp,duration,num_gpus,gpu_time,cluster");
    philly_fails(&f, "ph_hdr2.csv", "# comment\ntimestamp,duration,num_gpus,cluster\n", "",
                 ":2: header must be: timestamp,duration,num_gpus,gpu_time,cluster");
    philly_fails(&f, "ph_hdr4.csv", "timestamp,duration,num_gpus,gpu_seconds,cluster\n", "",
                 ":1: header must be: timestamp,duration,num_gpus,gpu_time,cluster");
    philly_fails(&f, "ph_hdr5.csv", "timestamp,duration,num_gpus,gpu_time,cluster,\n", "",
                 ":1: header: column 6 has no name (a trailing comma?); the header must be: "
                 "timestamp,duration,num_gpus,gpu_time,cluster");
    philly_fails(&f, "ph_hdr6.csv", "timestamp,,num_gpus,gpu_time,cluster\n", "",
                 ":1: header: column 2 has no name; the header must be");
    philly_fails(&f, "ph_hdr3.csv", "2017-10-09 07:01:55,66.0,1,66.0,a\n", "",
                 ":1: header must be: timestamp,duration,num_gpus,gpu_time,cluster");
    philly_fails(&f, "ph_empty.csv", "", "", ": empty file: expected a header line");
    philly_fails(&f, "ph_novc.csv", head, ", \"vc\": \"zzz\"",
                 ": no jobs left after the vc/size filters");
    fx_fini(&f);
}

Test(workload, philly_rows_left_out_are_checked_too)
{
    /* a filter drops a row after reading it, so a bad row of another VC, a bigger job or a
     * shorter one is still an error */
    static const char *const head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                    "2017-10-09 07:01:55,66.0,1,66.0,a\n";
    static const struct {
        const char *row, *extra, *rest;
    } cases[] = {
        { "2017-10-09 07:01:56,66,1,67.5,b", ", \"vc\": \"a\"",
          ":3: gpu_time: 67.5 GPU-seconds, but duration x num_gpus = 66 x 1 = 66" },
        { "2017-10-09 07:01:56,66,8,66,a", ", \"max_workers\": 1",
          ":3: gpu_time: 66 GPU-seconds, but duration x num_gpus = 66 x 8 = 528" },
        { "2017-10-09 07:01:56,6,1,6,", ", \"min_duration_s\": 60", ":3: cluster: empty" },
        { "2017-10-09 07:01:56,66,1,66,", ", \"vc\": \"a\"", ":3: cluster: empty" },
    };
    struct fx f;
    fx_init(&f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], text[512];
        snprintf(name, sizeof name, "ph_left_%zu.csv", i);
        snprintf(text, sizeof text, "%s%s\n", head, cases[i].row);
        philly_fails(&f, name, text, cases[i].extra, cases[i].rest);
    }
    fx_fini(&f);
}

Test(workload, philly_gpu_time_within_rounding)
{
    /* gpu_time rounded to whole seconds is duration x num_gpus within 1 s; a long job within
     * 1e-6 of it */
    struct fx f;
    fx_init(&f);
    char *p = th_write("ph_round.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                       "2017-10-01 00:00:00,60.4,2,121,a\n"
                                       "2017-10-01 00:00:01,60.4,2,120,a\n"
                                       "2017-10-01 00:00:02,3000000,8,24000020,a\n"
                                       "2017-10-01 00:00:03,1,1,0,a\n");
    char json[600];
    philly_json(json, sizeof json, "ph_round.csv", "");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 4);
    free(js.v);
    /* 1.2 s off a 120.8 GPU-second job, and 25 s off 24,000,000 (1e-6 allows 24) */
    char *q = th_write("ph_round_bad.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                           "2017-10-01 00:00:00,60.4,2,122,a\n");
    char want[1200];
    snprintf(want, sizeof want, "%s:2: gpu_time: 122 GPU-seconds, but duration x num_gpus = "
             "60.4 x 2 = 120.8", q);
    philly_json(json, sizeof json, "ph_round_bad.csv", "");
    expect_error(&f, json, 0, want);
    char *r = th_write("ph_round_bad2.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                            "2017-10-01 00:00:00,3000000,8,24000025,a\n");
    snprintf(want, sizeof want, "%s:2: gpu_time: 24000025 GPU-seconds", r);
    philly_json(json, sizeof json, "ph_round_bad2.csv", "");
    expect_error(&f, json, 0, want);
    free(p);
    free(q);
    free(r);
    fx_fini(&f);
}

Test(workload, philly_big_job_that_cannot_run)
{
    /* drawn job types must run on num_gpus reference GPUs; the error names the row */
    struct fx f;
    fx_init(&f);
    char *p = th_write("ph_norun.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                       "2017-10-09 07:01:55,66,2,132,a\n");
    char want[1200];
    snprintf(want, sizeof want, "%s:2: num_gpus: job type 'ResNet-50 (batch size 128)' (drawn "
             "from the mix) cannot run on 2 x K80", p);
    expect_error(&f, "{\"format\": \"philly\", \"trace\": \"ph_norun.csv\", \"reference_gpu\": "
                     "\"K80\", \"job_types\": {\"ResNet-50 (batch size 128)\": 1}}", 0, want);
    free(p);
    fx_fini(&f);
}

/* ======================= synthetic ======================= */

static void synth_json(char *out, size_t cap, int jobs, const char *workers, const char *mix,
                       const char *duration, const char *extra)
{
    snprintf(out, cap,
             "{\"format\": \"synthetic\", \"jobs\": %d, \"rate_per_hour\": 12,\n"
             " \"job_types\": %s,\n \"workers\": %s,\n \"duration\": %s%s}",
             jobs, mix, workers, duration, extra);
}

#define MIX_13 "{\"" R18 "\": 1, \"" R50 "\": 3}"
#define WORKERS_532 "{\"1\": 0.5, \"2\": 0.3, \"4\": 0.2}"
#define DUR_EXP "{\"dist\": \"exponential\", \"mean_s\": 3600}"

Test(workload, synthetic_deterministic_per_seed)
{
    struct fx f;
    fx_init(&f);
    char json[1024];
    synth_json(json, sizeof json, 500, WORKERS_532, MIX_13, DUR_EXP, ", \"users\": 3");
    struct jobs a = { 0 }, b = { 0 }, c = { 0 };
    load_all(&f, json, 42, &a);
    load_all(&f, json, 42, &b);
    load_all(&f, json, 43, &c);
    cr_assert_eq(a.n, 500);
    cr_assert_eq(b.n, 500);
    cr_assert_eq(c.n, 500);
    size_t diff_arr = 0, diff_type = 0, diff_work = 0;
    for (size_t i = 0; i < a.n; i++) {
        cr_assert_eq(a.v[i].id, (int64_t)i);
        cr_assert_eq(a.v[i].arrival, b.v[i].arrival, "job %zu", i);
        cr_assert_eq(a.v[i].jtype, b.v[i].jtype, "job %zu", i);
        cr_assert_eq(a.v[i].workers, b.v[i].workers, "job %zu", i);
        cr_assert_eq(a.v[i].work, b.v[i].work, "job %zu", i);
        cr_assert_eq(a.v[i].user, b.v[i].user, "job %zu", i);
        diff_arr += a.v[i].arrival != c.v[i].arrival;
        diff_type += a.v[i].jtype != c.v[i].jtype;
        diff_work += a.v[i].work != c.v[i].work;
    }
    cr_assert_eq(a.v[0].arrival, 0, "the first job arrives at 0");
    cr_assert_eq(c.v[0].arrival, 0);
    cr_assert_eq(diff_arr, 499, "another seed gives other arrivals (all but the first)");
    cr_assert_gt(diff_type, 100, "another seed gives other job types (%zu differ)", diff_type);
    cr_assert_gt(diff_work, 490, "another seed gives other durations (%zu differ)", diff_work);
    free(a.v);
    free(b.v);
    free(c.v);
    fx_fini(&f);
}

Test(workload, synthetic_statistics)
{
    enum { N = 20000 };
    struct fx f;
    fx_init(&f);
    char json[1024];
    synth_json(json, sizeof json, N, WORKERS_532, MIX_13, DUR_EXP, ", \"users\": 4");
    struct jobs js = { 0 };
    load_all(&f, json, 3, &js);
    cr_assert_eq(js.n, N);
    int v100 = catalog_gpu_find(f.cat, "V100"), r50 = jt(&f, R50);
    double long_gaps = 0, dur_sum = 0;
    size_t w[5] = { 0 }, n50 = 0, users[4] = { 0 };
    for (size_t i = 0; i < js.n; i++) {
        const struct job_spec *j = &js.v[i];
        if (i > 0) {
            cr_assert_geq(j->arrival, js.v[i - 1].arrival);
            long_gaps += sim_to_sec(j->arrival - js.v[i - 1].arrival) > 300;
        }
        cr_assert(j->workers == 1 || j->workers == 2 || j->workers == 4, "workers %d",
                  j->workers);
        w[j->workers]++;
        n50 += j->jtype == r50;
        cr_assert(j->user >= 0 && j->user < 4, "user %d", j->user);
        users[j->user]++;
        dur_sum += j->work / reader_work_from_duration(f.model, j->jtype, v100, j->workers, 1.0);
    }
    /* Exponential gaps of mean 3600/12 = 300 s: the mean of N-1 gaps has sd 300/sqrt(N-1)
     * = 2.12 s; allow 5 sd. */
    double mean_gap = sim_to_sec(js.v[N - 1].arrival) / (N - 1);
    cr_assert(fabs(mean_gap - 300) < 5 * 300 / sqrt(N - 1), "mean gap %.3f s", mean_gap);
    /* and exponential, not e.g. constant: P(gap > mean) = 1/e, binomial sd 0.0034 */
    double frac = long_gaps / (N - 1);
    cr_assert(fabs(frac - exp(-1)) < 5 * sqrt(exp(-1) * (1 - exp(-1)) / (N - 1)),
              "P(gap > mean) = %.4f", frac);
    /* worker mix 0.5/0.3/0.2: binomial sd sqrt(N p (1-p)) = 70.7, 64.8, 56.6 */
    cr_assert(fabs((double)w[1] - 0.5 * N) < 5 * sqrt(N * 0.5 * 0.5), "1 GPU: %zu", w[1]);
    cr_assert(fabs((double)w[2] - 0.3 * N) < 5 * sqrt(N * 0.3 * 0.7), "2 GPUs: %zu", w[2]);
    cr_assert(fabs((double)w[4] - 0.2 * N) < 5 * sqrt(N * 0.2 * 0.8), "4 GPUs: %zu", w[4]);
    cr_assert_eq(w[3], 0);
    /* job types 1:3 */
    cr_assert(fabs((double)n50 - 0.75 * N) < 5 * sqrt(N * 0.75 * 0.25), "ResNet-50: %zu", n50);
    /* users uniform over 4 */
    for (int u = 0; u < 4; u++)
        cr_assert(fabs((double)users[u] - 0.25 * N) < 5 * sqrt(N * 0.25 * 0.75), "user %d: %zu",
                  u, users[u]);
    /* exponential durations of mean 3600 s (clamping at 1 s moves the mean by < 0.001 s):
     * sd of the mean 3600/sqrt(N) = 25.5 s */
    double mean_dur = dur_sum / N;
    cr_assert(fabs(mean_dur - 3600) < 5 * 3600 / sqrt(N), "mean duration %.1f s", mean_dur);
    free(js.v);
    fx_fini(&f);
}

Test(workload, synthetic_duration_distributions)
{
    enum { N = 20000 };
    struct fx f;
    fx_init(&f);
    int v100 = catalog_gpu_find(f.cat, "V100");
    static const struct {
        const char *dur;
        double      lo, hi;         /* every duration within */
        double      split, below;   /* P(duration < split) */
    } cases[] = {
        { "{\"dist\": \"uniform\", \"min_s\": 100, \"max_s\": 200}", 100, 200, 125, 0.25 },
        { "{\"dist\": \"lognormal\", \"median_s\": 300, \"sigma\": 0.5}", 1, 1e9, 300, 0.5 },
        /* clamped: the P(d < 200.001) = Phi(ln(200.001/300)) = 0.3426 of a lognormal(300, 1)
         * below the clamp are lifted to 200, none exceed 500 */
        { "{\"dist\": \"lognormal\", \"median_s\": 300, \"sigma\": 1, \"clamp_min_s\": 200, "
          "\"clamp_max_s\": 500}", 200, 500, 200.001, 0.3426 },
        /* P(d < 59.999) = 1 - exp(-59.999/60) = 0.6321; the rest is clamped to 60 */
        { "{\"dist\": \"exponential\", \"mean_s\": 60, \"clamp_max_s\": 60}", 1, 60, 59.999,
          0.6321 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char json[1024];
        synth_json(json, sizeof json, N, "{\"1\": 1, \"8\": 1}", MIX_13, cases[c].dur, "");
        struct jobs js = { 0 };
        load_all(&f, json, 11, &js);
        cr_assert_eq(js.n, N);
        double below = 0;
        for (size_t i = 0; i < js.n; i++) {
            const struct job_spec *j = &js.v[i];
            double d = j->work / reader_work_from_duration(f.model, j->jtype, v100, j->workers, 1.0);
            cr_assert(d >= cases[c].lo * (1 - 1e-12) && d <= cases[c].hi * (1 + 1e-12),
                      "%s: duration %.6f outside [%g, %g]", cases[c].dur, d, cases[c].lo,
                      cases[c].hi);
            below += d < cases[c].split;
        }
        double p = cases[c].below, sd = sqrt(p * (1 - p) / N);
        cr_assert(fabs(below / N - p) < 5 * sd, "%s: P(d < %g) = %.4f, want %.4f", cases[c].dur,
                  cases[c].split, below / N, p);
        free(js.v);
    }
    fx_fini(&f);
}

Test(workload, synthetic_streams_are_independent)
{
    enum { N = 300 };
    struct fx f;
    fx_init(&f);
    char json[1024];
    struct jobs base = { 0 }, other = { 0 };
    synth_json(json, sizeof json, N, WORKERS_532, MIX_13, DUR_EXP, ", \"users\": 5");
    load_all(&f, json, 5, &base);

    /* another worker mix: arrivals, job types and users unchanged */
    synth_json(json, sizeof json, N, "{\"8\": 1}", MIX_13, DUR_EXP, ", \"users\": 5");
    load_all(&f, json, 5, &other);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(other.v[i].arrival, base.v[i].arrival, "arrival %zu moved", i);
        cr_assert_eq(other.v[i].jtype, base.v[i].jtype, "job type %zu changed", i);
        cr_assert_eq(other.v[i].user, base.v[i].user, "user %zu changed", i);
        cr_assert_eq(other.v[i].workers, 8);
    }
    /* another job-type mix: arrivals and workers unchanged */
    synth_json(json, sizeof json, N, WORKERS_532, "{\"A3C\": 1}", DUR_EXP, ", \"users\": 5");
    load_all(&f, json, 5, &other);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(other.v[i].arrival, base.v[i].arrival, "arrival %zu moved", i);
        cr_assert_eq(other.v[i].workers, base.v[i].workers, "workers %zu changed", i);
    }
    /* another duration law: arrivals, types and workers unchanged */
    synth_json(json, sizeof json, N, WORKERS_532, MIX_13,
               "{\"dist\": \"uniform\", \"min_s\": 1, \"max_s\": 2}", ", \"users\": 5");
    load_all(&f, json, 5, &other);
    for (size_t i = 0; i < N; i++) {
        cr_assert_eq(other.v[i].arrival, base.v[i].arrival, "arrival %zu moved", i);
        cr_assert_eq(other.v[i].jtype, base.v[i].jtype);
        cr_assert_eq(other.v[i].workers, base.v[i].workers);
    }
    /* a different rate scales the same gaps: arrivals x 12/24 */
    char fast[1100];
    synth_json(json, sizeof json, N, WORKERS_532, MIX_13, DUR_EXP, ", \"users\": 5");
    char *at = strstr(json, "\"rate_per_hour\": 12");
    cr_assert_not_null(at);
    snprintf(fast, sizeof fast, "%.*s\"rate_per_hour\": 24%s", (int)(at - json), json,
             at + strlen("\"rate_per_hour\": 12"));
    load_all(&f, fast, 5, &other);
    for (size_t i = 0; i < N; i++)
        cr_assert(llabs(other.v[i].arrival * 2 - base.v[i].arrival) <= 2 * (int64_t)i + 2,
                  "arrival %zu: %lld vs %lld / 2", i, (long long)other.v[i].arrival,
                  (long long)base.v[i].arrival);
    free(base.v);
    free(other.v);
    fx_fini(&f);
}

/* E[min(max(D, lo), hi)], by hand:
 *   exponential, mean 600, on [60, 1200]: 60 + 600 (e^-0.1 - e^-2) = 521.7011...
 *   uniform [0.001, 100] on [20, 50]: (20 x 19.999 + (50^2 - 20^2) / 2 + 50 x 50) / 99.999
 *   lognormal, median 300, sigma 1, unclamped: 300 e^(1/2);  sigma 0: the median, clamped
 * and the pai_scale law (lognormal 888 s, sigma 2.04, on [60, 172800]) against the mean of
 * 10^6 clamped GSL draws, within 5 standard errors. */
Test(workload, synthetic_clamped_mean)
{
    close_rel(synth_clamped_mean(SYNTH_EXPONENTIAL, 600, 0, 60, 1200),
              60 + 600 * (exp(-0.1) - exp(-2)), 1e-12, "exponential");
    close_rel(synth_clamped_mean(SYNTH_UNIFORM, 0.001, 100, 20, 50),
              (20 * 19.999 + (2500.0 - 400) / 2 + 50 * 50) / 99.999, 1e-12, "uniform");
    close_rel(synth_clamped_mean(SYNTH_UNIFORM, 30, 30, 1, 20), 20, 1e-15, "uniform, a point");
    close_rel(synth_clamped_mean(SYNTH_LOGNORMAL, 300, 1, 1e-9, 1e12), 300 * exp(0.5), 1e-9,
              "lognormal");
    close_rel(synth_clamped_mean(SYNTH_LOGNORMAL, 300, 0, 1, 200), 200, 1e-15,
              "lognormal, sigma 0");
    gsl_rng *r = rng_stream(7, "test");
    double sum = 0, sq = 0;
    enum { N = 1000000 };
    for (int i = 0; i < N; i++) {
        double d = fmin(fmax(gsl_ran_lognormal(r, log(888), 2.04), 60), 172800);
        sum += d;
        sq += d * d;
    }
    gsl_rng_free(r);
    double mean = sum / N, se = sqrt((sq / N - mean * mean) / N);
    double want = synth_clamped_mean(SYNTH_LOGNORMAL, 888, 2.04, 60, 172800);
    cr_assert(fabs(mean - want) < 5 * se, "pai_scale's law: sampled %.2f, closed form %.2f, "
              "se %.2f", mean, want, se);
}

/* The stationary start: 10 arrivals a second of uniform [20, 100] s jobs.  In the
 * infinite-server queue, the jobs in progress are Poisson of mean 10 x 60 = 600; their
 * remaining durations follow the equilibrium density (1 - F(x)) / E[D]: 1/60 below 20, then
 * (100 - x) / 4800, so P(R < 20) = 1/3 and E[R] = E[D^2] / (2 E[D]) = (12400 / 3) / 120 =
 * 34.44 s (sd 23.4 s), none above 100.  They all arrive at 0, and the Poisson arrivals that
 * follow are those of the empty start, job for job. */
Test(workload, synthetic_stationary_start)
{
    enum { N = 3000, SEEDS = 4 };
    struct fx f;
    fx_init(&f);
    int v100 = catalog_gpu_find(f.cat, "V100");
    const char *law = "{\"dist\": \"uniform\", \"min_s\": 20, \"max_s\": 100}";
    char empty[1024], stat[1024];
    snprintf(empty, sizeof empty, "{\"format\": \"synthetic\", \"jobs\": %d, "
             "\"rate_per_hour\": 36000, \"job_types\": " MIX_13 ", \"duration\": %s}", N, law);
    snprintf(stat, sizeof stat, "{\"format\": \"synthetic\", \"jobs\": %d, "
             "\"rate_per_hour\": 36000, \"start\": \"stationary\", \"job_types\": " MIX_13
             ", \"duration\": %s}", N, law);
    double r_sum = 0, below = 0, count = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct jobs a = { 0 }, b = { 0 };
        load_all(&f, empty, seed, &a);
        load_all(&f, stat, seed, &b);
        cr_assert_eq(b.n, N, "the jobs in progress count towards jobs");
        size_t n0 = 0;
        while (n0 < b.n && b.v[n0].arrival == 0)
            n0++;
        n0--;                           /* the first Poisson arrival is at 0 too */
        cr_assert(fabs((double)n0 - 600) < 5 * sqrt(600.0), "seed %llu: %zu in progress",
                  (unsigned long long)seed, n0);
        for (size_t i = 0; i < n0; i++) {
            const struct job_spec *j = &b.v[i];
            double d = j->work / reader_work_from_duration(f.model, j->jtype, v100, j->workers,
                                                           1.0);
            cr_assert(d > 0 && d <= 100 * (1 + 1e-12), "remaining %.6f s", d);
            r_sum += d;
            below += d < 20;
            count++;
        }
        for (size_t i = n0; i < b.n; i++)
            cr_assert_eq(b.v[i].arrival, a.v[i - n0].arrival, "arrival %zu", i);
        free(a.v);
        free(b.v);
    }
    double mean = r_sum / count;
    cr_assert(fabs(mean - 12400.0 / 360) < 5 * 23.4 / sqrt(count), "E[R] %.3f s", mean);
    cr_assert(fabs(below / count - 1.0 / 3) < 5 * sqrt(2.0 / 9 / count), "P(R < 20) %.4f",
              below / count);
    fx_fini(&f);
}

Test(workload, synthetic_defaults)
{
    /* no "workers": all 1 GPU; no "users": all user 0 */
    struct fx f;
    fx_init(&f);
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"synthetic\", \"jobs\": 50, \"rate_per_hour\": 1, \"job_types\": "
                 "{\"A3C\": 1}, \"duration\": {\"dist\": \"exponential\", \"mean_s\": 10}}",
             1, &js);
    cr_assert_eq(js.n, 50);
    for (size_t i = 0; i < js.n; i++) {
        cr_assert_eq(js.v[i].workers, 1);
        cr_assert_eq(js.v[i].user, 0);
        cr_assert_eq(js.v[i].jtype, jt(&f, "A3C"));
        /* without "workers", errors about a job's size point at the workload object */
        cr_assert_eq(js.v[i].line, 1);
        cr_assert_null(js.v[i].field);
    }
    free(js.v);
    fx_fini(&f);
}

Test(workload, config_errors)
{
    /* each config is the "workload" object of exp.json, whose line 1 is `{"workload": {` */
    static const struct {
        const char *json, *want;
    } cases[] = {
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1}}",
          "exp.json:1: workload.duration: required field is missing" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"1\": 1,\n  \"0\": 1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:4: workload.workers.0: keys must be GPU counts >= 1" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"two\": 1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.workers.two: keys must be GPU counts >= 1" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"1\": 0, \"2\": 0},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.workers: weights must not all be zero" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"1\": -1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.workers.1: -1 is out of range [0, 1e+12]" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\n  \"dist\": \"lognormall\"}}",
          "exp.json:4: workload.duration.dist: 'lognormall' is not one of: lognormal, "
          "exponential, uniform (did you mean 'lognormal'?)" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\"dist\": \"lognormal\",\n"
          "  \"median\": 5}}",
          "exp.json:4: workload.duration.median: unknown field (did you mean 'median_s'?" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\"dist\": \"lognormal\",\n"
          "  \"median_s\": 5}}",
          "exp.json:3: workload.duration.sigma: required field is missing" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n"
          " \"duration\": {\"dist\": \"uniform\", \"min_s\": 5, \"max_s\": 4}}",
          "exp.json:3: workload.duration: max_s must be >= min_s" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\"dist\": \"exponential\", "
          "\"mean_s\": 5,\n  \"clamp_min_s\": 10, \"clamp_max_s\": 2}}",
          "exp.json:3: workload.duration: clamp_max_s must be >= clamp_min_s" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"job_types\": {\"A3C\": 1},\n"
          " \"rate_per_hour\": 0}",
          "exp.json:2: workload.rate_per_hour: 0 is out of range [1e-06, 1e+09]" },
        { "{\"format\": \"synthetic\", \"job_types\": {\"A3C\": 1},\n \"jobs\": 0, "
          "\"rate_per_hour\": 1}",
          "exp.json:2: workload.jobs: 0 is out of range [1, 1099511627776]" },
        { "{\"format\": \"synthetic\", \"job_types\": {\"A3C\": 1},\n \"jobs\": 2.5, "
          "\"rate_per_hour\": 1}",
          "exp.json:2: workload.jobs: must be an integer" },
        { "{\"format\": \"synthetic\", \"jobs\": 5,\n \"rate_per_hr\": 1}",
          "exp.json:2: workload.rate_per_hr: unknown field (did you mean 'rate_per_hour'?" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:1: workload.job_types: the synthetic format needs a job-type mix" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1,\n  \"ResNet-51 (batch size 64)\": 1}}",
          "exp.json:3: workload.job_types.ResNet-51 (batch size 64): unknown job type "
          "'ResNet-51 (batch size 64)' (did you mean 'ResNet-50 (batch size 64)'?)" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1,\n  \"CycleGAN\": -1}}",
          "exp.json:3: workload.job_types.CycleGAN: -1 is out of range [0, 1e+12]" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 0}}",
          "exp.json:2: workload.job_types: weights must not all be zero" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {}}",
          "exp.json:2: workload.job_types: needs at least one job type" },
        { "{\n \"format\": \"synthetc\"}",
          "exp.json:2: workload.format: 'synthetc' is not one of: hetsim, gavel, philly, "
          "pollux, synthetic, openb, azure_llm, requests, llm_synthetic, micro_poisson, "
          "micro_trace (did you mean 'synthetic'?)" },
        { "{\"trace\": \"x.csv\"}", "exp.json:1: workload.format: required field is missing" },
        { "{\"format\": \"hetsim\"}", "exp.json:1: workload.trace: required field is missing" },
        { "{\"format\": \"hetsim\",\n \"trace\": \"no_such_trace.csv\"}",
          "exp.json:2: workload.trace: trace file 'no_such_trace.csv' not found" },
        { "{\"format\": \"hetsim\", \"trace\": \"cfg_any.csv\",\n"
          " \"reference_gpu\": \"V200\"}",
          "exp.json:2: workload.reference_gpu: unknown GPU type 'V200'" },
        /* a field of another format is not silently ignored: Gavel traces give steps, not
         * durations, so a reference GPU would change nothing */
        { "{\"format\": \"gavel\", \"trace\": \"cfg_any.csv\",\n"
          " \"reference_gpu\": \"K80\"}",
          "exp.json:2: workload.reference_gpu: unknown field" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"vc\": \"x\"}", "exp.json:2: workload.vc: unknown field" },
        { "{\"format\": \"hetsim\", \"trace\": \"cfg_any.csv\",\n"
          " \"vc\": 4}", "exp.json:2: workload.vc: unknown field" },
        { "{\"format\": \"gavel\", \"trace\": \"x\",\n \"max_jobs\": -1}",
          "exp.json:2: workload.max_jobs: -1 is out of range [0, 1099511627776]" },
        { "{\"format\": \"gavel\", \"trace\": \"x\",\n \"skip_jobs\": 1.5}",
          "exp.json:2: workload.skip_jobs: must be an integer" },
        { "{\"format\": \"gavel\", \"trace\": \"x\",\n \"arrival_scale\": 0}",
          "exp.json:2: workload.arrival_scale: 0 is out of range [1e-09, 1e+09]" },
        { "{\"format\": \"philly\", \"trace\": \"cfg_any.csv\",\n \"vc\": 5}",
          "exp.json:1: workload.job_types: the philly format needs a job-type mix" },
        { "{\"format\": \"philly\", \"trace\": \"cfg_any.csv\", \"job_types\": "
          "{\"A3C\": 1},\n \"max_workers\": 0}",
          "exp.json:2: workload.max_workers: 0 is out of range [1, 1000000]" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"reference_gpu\": \"K80\", \"job_types\": {\"ResNet-50 (batch size 128)\": 1},\n"
          " \"workers\": {\"2\": 1}, \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json: workload.job_types: job type 'ResNet-50 (batch size 128)' cannot "
          "run on 2 x K80 (the reference GPU)" },
        /* every field: nothing given is silently ignored */
        { "{\"format\": \"hetsim\", \"trace\": \"cfg_any.csv\",\n \"note\": 5}",
          "exp.json:2: workload.note: must be a string" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1,\n  \"a3c\": 2},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.job_types.a3c: job type 'A3C' is in the mix twice" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1,\n  \"A3C\": 2},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.job_types.A3C: job type 'A3C' is in the mix twice" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"1\": 1,\n  \"08\": 1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:4: workload.workers.08: keys must be GPU counts >= 1, written plainly "
          "(\"8\", not \"08\")" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"+2\": 1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.workers.+2: keys must be GPU counts >= 1" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\" 2\": 1},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:3: workload.workers. 2: keys must be GPU counts >= 1" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"workers\": {\"2\": 1,\n  \"2\": 3},\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 1}}",
          "exp.json:4: workload.workers.2: 2 GPUs given twice" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\"dist\": \"exponential\", "
          "\"mean_s\": 5,\n  \"median_s\": 10}}",
          "exp.json:4: workload.duration.median_s: not a parameter of the exponential "
          "distribution (it takes mean_s)" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\"dist\": \"lognormal\", "
          "\"median_s\": 5, \"sigma\": 1,\n  \"max_s\": 10}}",
          "exp.json:4: workload.duration.max_s: not a parameter of the lognormal distribution "
          "(it takes median_s and sigma)" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"job_types\": {\"A3C\": 1},\n \"duration\": {\n  \"sigma\": 2, \"dist\": "
          "\"uniform\", \"min_s\": 5, \"max_s\": 10}}",
          "exp.json:4: workload.duration.sigma: not a parameter of the uniform distribution "
          "(it takes min_s and max_s)" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 5},\n \"users\": 3,\n"
          " \"tenants\": [{\"name\": \"a\", \"job_types\": {\"A3C\": 1}}]}",
          "exp.json:3: workload.users: give either users or tenants, not both" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 5},\n \"tenants\": [\n"
          "  {\"name\": \"a\", \"job_types\": {\"A3C\": 1}},\n"
          "  {\"name\": \"b\", \"job_types\": {\"A3C\": 1}},\n"
          "  {\"job_types\": {\"A3C\": 1},\n   \"name\": \"a\"}]}",
          "exp.json:7: workload.tenants[2].name: two tenants are named 'a'" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 5},\n \"tenants\": [\n"
          "  {\"name\": 1, \"job_types\": {\"A3C\": 1}}]}",
          "exp.json:4: workload.tenants[0].name: must be a string" },
        { "{\"format\": \"synthetic\", \"jobs\": 5, \"rate_per_hour\": 1,\n"
          " \"duration\": {\"dist\": \"exponential\", \"mean_s\": 5},\n \"tenants\": [\n"
          "  {\"note\": [], \"job_types\": {\"A3C\": 1}}]}",
          "exp.json:4: workload.tenants[0].note: must be a string" },
        { "{\"format\": \"philly\", \"trace\": \"cfg_any.csv\", \"job_types\": "
          "{\"A3C\": 1},\n \"vc\": \"\"}",
          "exp.json:2: workload.vc: must not be empty" },
    };
    struct fx f;
    fx_init(&f);
    char *any = th_write("cfg_any.csv", "an existing file\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_error(&f, cases[i].json, 0, cases[i].want);
    free(any);
    fx_fini(&f);
}

/* ======================= common options ======================= */

static const char *const five_rows = "arrival_s,job_type,workers,iterations\n"
                                     "0,A3C,1,10\n"
                                     "10,A3C,1,11\n"
                                     "20,A3C,1,12\n"
                                     "30.5,A3C,1,13\n"
                                     "40,A3C,1,14\n";

Test(workload, options_on_a_trace)
{
    static const struct {
        const char *opts;
        size_t      n;
        int64_t     first_id;
        double      arrivals[5];
    } cases[] = {
        { "", 5, 0, { 0, 10, 20, 30.5, 40 } },
        { ", \"max_jobs\": 3", 3, 0, { 0, 10, 20 } },
        { ", \"max_jobs\": 0", 5, 0, { 0, 10, 20, 30.5, 40 } },      /* 0 = all */
        { ", \"max_jobs\": 99", 5, 0, { 0, 10, 20, 30.5, 40 } },
        { ", \"skip_jobs\": 2", 3, 2, { 0, 10.5, 20 } },            /* restart at 0 */
        { ", \"skip_jobs\": 1, \"max_jobs\": 2", 2, 1, { 0, 10 } },
        { ", \"skip_jobs\": 5", 0, 0, { 0 } },
        { ", \"skip_jobs\": 50", 0, 0, { 0 } },
        { ", \"arrival_scale\": 0.5", 5, 0, { 0, 5, 10, 15.25, 20 } },
        { ", \"arrival_scale\": 3", 5, 0, { 0, 30, 60, 91.5, 120 } },
        { ", \"skip_jobs\": 2, \"arrival_scale\": 0.5", 3, 2, { 0, 5.25, 10 } },
    };
    struct fx f;
    fx_init(&f);
    char *p = th_write("opt5.csv", five_rows);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char json[256];
        snprintf(json, sizeof json, "{\"format\": \"hetsim\", \"trace\": \"opt5.csv\"%s}",
                 cases[c].opts);
        struct jobs js = { 0 };
        load_all(&f, json, 1, &js);
        cr_assert_eq(js.n, cases[c].n, "[%s]: %zu jobs", cases[c].opts, js.n);
        for (size_t i = 0; i < js.n; i++) {
            cr_assert_eq(js.v[i].id, cases[c].first_id + (int64_t)i, "[%s] job %zu",
                         cases[c].opts, i);
            cr_assert_eq(js.v[i].arrival, (simtime)llround(cases[c].arrivals[i] * 1e6),
                         "[%s] job %zu arrives at %lld us", cases[c].opts, i,
                         (long long)js.v[i].arrival);
            cr_assert_eq(js.v[i].work, 10 + cases[c].first_id + (double)i, "[%s]",
                         cases[c].opts);
        }
        free(js.v);
    }
    free(p);
    fx_fini(&f);
}

Test(workload, options_on_synthetic_and_gavel)
{
    struct fx f;
    fx_init(&f);
    char json[1200];
    struct jobs all = { 0 }, part = { 0 };
    synth_json(json, sizeof json, 40, WORKERS_532, MIX_13, DUR_EXP, "");
    load_all(&f, json, 9, &all);
    synth_json(json, sizeof json, 40, WORKERS_532, MIX_13, DUR_EXP,
               ", \"skip_jobs\": 10, \"max_jobs\": 5, \"arrival_scale\": 2");
    load_all(&f, json, 9, &part);
    cr_assert_eq(part.n, 5);
    for (size_t i = 0; i < 5; i++) {
        const struct job_spec *a = &all.v[10 + i], *b = &part.v[i];
        cr_assert_eq(b->id, a->id, "the skipped jobs are the first ones");
        cr_assert_eq(b->jtype, a->jtype);
        cr_assert_eq(b->work, a->work);
        cr_assert(llabs(b->arrival - 2 * (a->arrival - all.v[10].arrival)) <= 1,
                  "job %zu: %lld, want 2 x (%lld - %lld)", i, (long long)b->arrival,
                  (long long)a->arrival, (long long)all.v[10].arrival);
    }
    /* Gavel: the second and third real lines, rebased on the second */
    char *p = th_write("gv_opt.trace", gavel7);
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv_opt.trace\", \"skip_jobs\": 1}", 1,
             &part);
    cr_assert_eq(part.n, 2);
    cr_assert_eq(part.v[0].arrival, 0);
    cr_assert_eq(part.v[1].arrival, 2 * SIM_SEC, "266566 - 266564");
    cr_assert_eq(part.v[0].id, 1);
    load_all(&f, "{\"format\": \"gavel\", \"trace\": \"gv_opt.trace\", \"arrival_scale\": 0.25}",
             1, &part);
    cr_assert_eq(part.n, 3);
    cr_assert_eq(part.v[1].arrival, 66641 * SIM_SEC);
    cr_assert_eq(part.v[2].arrival, (simtime)66641500000, "266566 / 4 s");
    free(p);
    free(all.v);
    free(part.v);
    fx_fini(&f);
}

Test(workload, options_on_the_philly_slice)
{
    /* workloads/experiments/philly_slice.json's selection: sorted rows of <= 16 GPUs (19981),
     * from the 8828th on, 300 jobs; by python: rows 15836 .. 15706, 8344 s apart */
    struct fx f;
    fx_init(&f);
    char *p = real_trace("philly/sia_philly_jobs_first20000.csv");
    char json[1400];
    philly_json(json, sizeof json, p, ", \"max_workers\": 16, \"skip_jobs\": 8827, "
                                      "\"max_jobs\": 300");
    struct jobs js = { 0 };
    load_all(&f, json, 1, &js);
    cr_assert_eq(js.n, 300);
    cr_assert_eq(js.v[0].arrival, 0);
    cr_assert_eq(js.v[0].id, 15836);
    cr_assert_eq(js.v[0].workers, 4);
    cr_assert_eq(js.v[299].id, 15706);
    cr_assert_eq(js.v[299].arrival, (simtime)8344 * SIM_SEC);
    double ids = 0, users = 0;
    for (size_t i = 0; i < js.n; i++) {
        ids += (double)js.v[i].id;
        users += js.v[i].user;
    }
    cr_assert_eq(ids, 4709755);
    cr_assert_eq(users, 1161, "users keep the numbering of the whole list");
    free(js.v);
    free(p);
    fx_fini(&f);
}

Test(workload, hetsim_job_types_draw_keeps_the_duration)
{
    /* with a workload.job_types mix each job's type is drawn anew, and its work is the same
     * duration on the reference GPU in the new type's iterations */
    struct fx f;
    fx_init(&f);
    char *p = th_write("hs_draw.csv", "arrival_s,job_type,workers,iterations\n"
                                      "0,ResNet-50 (batch size 64),1,4000\n"
                                      "10,ResNet-50 (batch size 64),2,100\n");
    struct jobs js = { 0 };
    load_all(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_draw.csv\", "
                 "\"job_types\": {\"A3C\": 1}}", 1, &js);
    cr_assert_eq(js.n, 2);
    int a3c = jt(&f, "A3C"), v100 = catalog_gpu_find(f.cat, "V100");
    cr_assert_eq(js.v[0].jtype, a3c);
    cr_assert_eq(js.v[1].jtype, a3c);
    /* 4000 iterations of ResNet-50 at R50_V100_1 it/s: that many seconds of A3C */
    close_rel(js.v[0].work, 4000 / R50_V100_1 * reader_work_from_duration(f.model, a3c, v100, 1, 1),
              1e-12, "the same V100 duration");
    close_rel(js.v[1].work, 100 / R50_V100_2 * reader_work_from_duration(f.model, a3c, v100, 2, 1),
              1e-12, "on two V100s");
    /* the seed draws: two seeds give other types to some of 40 jobs, the same seed the same */
    char rows[4096] = "arrival_s,job_type,workers,iterations\n";
    for (int i = 0; i < 40; i++)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows),
                 "%d,ResNet-50 (batch size 64),1,1000\n", i);
    char *q = th_write("hs_draw40.csv", rows);
    const char *mix = "{\"format\": \"hetsim\", \"trace\": \"hs_draw40.csv\", \"job_types\": "
                      "{\"A3C\": 1, \"CycleGAN\": 1}}";
    struct jobs a = { 0 }, b = { 0 }, c = { 0 };
    load_all(&f, mix, 1, &a);
    load_all(&f, mix, 2, &b);
    load_all(&f, mix, 1, &c);
    int differ = 0, same = 1;
    for (size_t i = 0; i < 40; i++) {
        differ += a.v[i].jtype != b.v[i].jtype;
        same &= a.v[i].jtype == c.v[i].jtype && a.v[i].work == c.v[i].work;
    }
    cr_assert_gt(differ, 0, "seeds 1 and 2 draw the same 40 types");
    cr_assert(same, "seed 1 twice draws differently");
    /* a drawn type that cannot run on the reference GPU: the job's line says so */
    char *r = th_write("hs_draw_k80.csv", "arrival_s,job_type,workers,iterations\n"
                                          "0,A3C,2,100\n");
    char want[1200];
    snprintf(want, sizeof want, "%s:2: job_type: job type 'ResNet-50 (batch size 128)' (drawn "
             "from workload.job_types for 'A3C') cannot run on 2 x K80", r);
    expect_error(&f, "{\"format\": \"hetsim\", \"trace\": \"hs_draw_k80.csv\", \"reference_gpu\": "
                     "\"K80\", \"job_types\": {\"ResNet-50 (batch size 128)\": 1}}", 0, want);
    free(a.v);
    free(b.v);
    free(c.v);
    free(js.v);
    free(p);
    free(q);
    free(r);
    fx_fini(&f);
}

/* ---- llm_synthetic over a day's rate envelope */

#include "../sim/serve/request.h"

/* Requests per hour of the day over the first `days` whole days of the workload. */
static void hourly_counts(struct fx *f, const char *json, int days, double *count, double *total)
{
    struct errbuf err;
    cr_assert_eq(fx_open(f, json, 7, &err), 0, "workload_open: %s", err.msg);
    struct entity_source *src = workload_source(f->w);
    struct request_spec q;
    for (int h = 0; h < 24; h++)
        count[h] = 0;
    *total = 0;
    simtime last = 0;
    int rc;
    while ((rc = src->next(src->ctx, &q, &err)) > 0 && q.arrival < sim_from_sec(86400.0 * days)) {
        cr_assert_geq(q.arrival, last, "arrivals must not decrease");
        last = q.arrival;
        count[(int)(sim_to_sec(q.arrival) / 3600) % 24]++;
        (*total)++;
    }
    cr_assert_geq(rc, 0, "%s", err.msg);
    cr_assert_gt(rc, 0, "the workload ended before %d days", days);
}

/* The sine envelope: each hour of the day gets rate * its integral of 1 + a cos(...), within
 * five standard deviations of a Poisson count, and the day's mean rate is rate_per_s. */
Test(workload, llm_day_sine_envelope_shapes_the_hours)
{
    struct fx f;
    fx_init(&f);
    double c[24], total, rate = 0.5, r = 3, a = (r - 1) / (r + 1), peak = 14, days = 10;
    hourly_counts(&f, "{ \"format\": \"llm_synthetic\", \"requests\": 1000000, \"rate_per_s\": "
                      "0.5, \"day\": { \"peak_to_trough\": 3 } }", (int)days, c, &total);
    for (int h = 0; h < 24; h++) {
        double w = 2 * 3.14159265358979323846 / 24;
        double integral = 3600 + a * 3600 / (w) * (sin(w * (h + 1 - peak)) - sin(w * (h - peak)));
        double want = rate * days * integral;
        cr_assert(fabs(c[h] - want) < 5 * sqrt(want), "hour %d: %g requests, expected %g", h,
                  c[h], want);
    }
    double want = rate * 86400 * days;
    cr_assert(fabs(total - want) < 5 * sqrt(want), "%g requests in %g days, expected %g", total,
              days, want);
    /* the busiest hour is around the peak, the quietest twelve hours away */
    int hi = 0, lo = 0;
    for (int h = 1; h < 24; h++) {
        hi = c[h] > c[hi] ? h : hi;
        lo = c[h] < c[lo] ? h : lo;
    }
    cr_assert(hi == 13 || hi == 14, "busiest hour %d", hi);
    cr_assert(lo == 1 || lo == 2, "quietest hour %d", lo);
    fx_fini(&f);
}

/* A rate series of uneven steps, the first after midnight: rate 2 from 03:00, 0 from 07:30, 5
 * from 09:00 and 1 from 20:00 until 03:00 the next day.  By hand: the time-weighted mean is
 * (2 x 4.5 + 0 x 1.5 + 5 x 11 + 1 x 7) / 24 = 71/24, so f = rate x 24/71 per step.  Each hour
 * of the day gets rate_per_s x days x its integral of f: every hour within five standard
 * deviations of that Poisson count, the 24 counts together within a chi-square of 24 degrees
 * of freedom at p = 0.001 (51.18), the hour 08:00-09:00 wholly in the zero step empty. */
static const double series_h[] = { 3, 7.5, 9, 20 }, series_r[] = { 2, 0, 5, 1 };

static double series_f(double hour)             /* f at an hour of the day, by the steps */
{
    int k = 3;                                  /* before 03:00: the last step, wrapped */
    for (int i = 0; i < 4; i++)
        if (hour >= series_h[i])
            k = i;
    return series_r[k] * 24 / 71;
}

Test(workload, llm_day_rates_file_follows_its_steps)
{
    struct fx f;
    fx_init(&f);
    free(th_write("day_series.csv", "hour,rate\n3,2\n7.5,0\n9,5\n20,1\n"));
    double c[24], total, rate = 0.5, days = 10, chi2 = 0;
    hourly_counts(&f, "{ \"format\": \"llm_synthetic\", \"requests\": 1000000, \"rate_per_s\": "
                      "0.5, \"day\": { \"rates_file\": \"day_series.csv\" } }", (int)days, c,
                  &total);
    for (int h = 0; h < 24; h++) {
        double integral = 0;                    /* seconds x f, on a quarter-hour grid (the */
        for (int q = 0; q < 4; q++)             /* steps start on quarter hours) */
            integral += 900 * series_f(h + q / 4.0);
        double want = rate * days * integral;
        if (want == 0) {
            cr_assert_eq(c[h], 0, "hour %d lies in the zero step: %g requests", h, c[h]);
            continue;
        }
        cr_assert(fabs(c[h] - want) < 5 * sqrt(want), "hour %d: %g requests, expected %g", h,
                  c[h], want);
        chi2 += (c[h] - want) * (c[h] - want) / want;
    }
    cr_assert_lt(chi2, 51.18, "chi-square %g over the hours (p = 0.001 bound 51.18)", chi2);
    double want = rate * 86400 * days;
    cr_assert(fabs(total - want) < 5 * sqrt(want), "%g requests in %g days, expected %g", total,
              days, want);
    fx_fini(&f);
}

/* A rate series naming hours 0, 1, ..., 23 is the "hourly" list of its rates: the same
 * requests, arrival for arrival, token for token. */
Test(workload, llm_day_rates_file_equals_hourly)
{
    static const char *const rates[] = { "0.2", "0.1", "0.1", "0", "0.3", "0.5", "1", "2", "3",
                                         "3.5", "4", "4", "3.75", "3", "3", "2.5", "2", "2",
                                         "1.5", "1", "0.8", "0.6", "0.4", "0.3" };
    char csv[1024] = "hour,rate\n", list[512] = "", json[1024];
    for (int h = 0; h < 24; h++) {
        size_t n = strlen(csv), m = strlen(list);
        snprintf(csv + n, sizeof csv - n, "%d,%s\n", h, rates[h]);
        snprintf(list + m, sizeof list - m, "%s%s", h ? ", " : "", rates[h]);
    }
    free(th_write("day_hours.csv", csv));
    struct fx a, b;
    fx_init(&a);
    fx_init(&b);
    struct errbuf err;
    snprintf(json, sizeof json, "{ \"format\": \"llm_synthetic\", \"requests\": 200000, "
             "\"rate_per_s\": 2, \"day\": { \"hourly\": [%s], \"start_hour\": 5 } }", list);
    cr_assert_eq(fx_open(&a, json, 11, &err), 0, "%s", err.msg);
    cr_assert_eq(fx_open(&b, "{ \"format\": \"llm_synthetic\", \"requests\": 200000, "
                             "\"rate_per_s\": 2, \"day\": { \"rates_file\": \"day_hours.csv\", "
                             "\"start_hour\": 5 } }", 11, &err), 0, "%s", err.msg);
    struct entity_source *sa = workload_source(a.w), *sb = workload_source(b.w);
    struct request_spec qa, qb;
    int n = 0, ra, rb, at3 = 0;
    while ((ra = sa->next(sa->ctx, &qa, &err)) > 0) {
        at3 += (int)(sim_to_sec(qa.arrival) / 3600) % 24 == 22;
        rb = sb->next(sb->ctx, &qb, &err);
        cr_assert_eq(rb, 1, "the rate series ended at request %d: %s", n, err.msg);
        cr_assert(qa.arrival == qb.arrival && qa.prompt == qb.prompt && qa.output == qb.output,
                  "request %d: hourly %lld us %d+%d, series %lld us %d+%d", n,
                  (long long)qa.arrival, qa.prompt, qa.output, (long long)qb.arrival, qb.prompt,
                  qb.output);
        n++;
    }
    cr_assert_eq(ra, 0, "%s", err.msg);
    cr_assert_eq(sb->next(sb->ctx, &qb, &err), 0, "the rate series has more requests");
    cr_assert_eq(n, 200000);
    /* the hour of rate 0 (03:00, clock hour 22 from a 05:00 start) got none: the two agree
     * on the shape, not only with each other */
    cr_assert_eq(at3, 0, "%d requests in the hour of rate 0", at3);
    fx_fini(&a);
    fx_fini(&b);
}

/* Hourly rates: an hour of rate 0 gets no request, the others their share; start_hour moves
 * the day under the clock. */
Test(workload, llm_day_hourly_rates)
{
    struct fx f;
    fx_init(&f);
    /* 12 two-hour bins: 0 for the first 4 hours of the day, then 1, 1, ..., 3 in the last */
    double c[24], total;
    hourly_counts(&f, "{ \"format\": \"llm_synthetic\", \"requests\": 1000000, \"rate_per_s\": "
                      "0.4, \"day\": { \"hourly\": [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3], "
                      "\"start_hour\": 2 } }", 8, c, &total);
    /* the clock starts at 02:00: its hours h are the day's h + 2; the bins' mean is 1 */
    for (int h = 0; h < 24; h++) {
        int tod = (h + 2) % 24, bin = tod / 2;
        double fb = bin < 2 ? 0 : bin == 11 ? 3 : 1;
        double want = 0.4 * 3600 * 8 * fb;
        if (want == 0)
            cr_assert_eq(c[h], 0, "clock hour %d (day hour %d): %g requests", h, tod, c[h]);
        else
            cr_assert(fabs(c[h] - want) < 5 * sqrt(want), "clock hour %d: %g, expected %g", h,
                      c[h], want);
    }
    fx_fini(&f);
}
