/*
 * test_fuzz_regressions: every input the fuzz harnesses (tests/fuzz/) found to crash or to
 * break an invariant, fed through the same library calls as the harness that found it, each
 * expecting a clean outcome: either success with correct results, or an error status with a
 * message — never a sanitizer report, an abort or a wrong position.
 *
 * Reproducers live in tests/fuzz/crashes/HARNESS/ and are read from the data root
 * ($HETSIM_DATA, which make test sets to the repository).  Some reproducers only misbehaved
 * under the sanitizers: `make SANITIZE=address,undefined test` runs these tests there too.
 *
 * A test whose bug is not fixed yet is disabled (.disabled = true) with the bug named in a
 * comment; enable it together with the fix.  The bugs found so far, all fixed in 45bcf86:
 *   J1  sim/base/jsonf.c walk(): the position scanner did not skip what cJSON skips (bytes 0x01-0x1F
 *       as whitespace, a second UTF-8 BOM): nodes got no line or a wrong one, and the scanner
 *       read past the end of the text.
 *   C1  sim/core/cluster.c cluster_from_json() / link_field(): fixed name arrays (128 GPU types,
 *       64 links) overflowed on the stack when a catalog had more entries.
 *   W1  workloads/trace_philly.c pst_next(): (ts - t0) * SIM_SEC overflowed int64 (undefined
 *       behaviour) when submissions were more than ~292,000 years apart.
 *   W2  workloads/trace_philly.c pst_open(): no upper bound on duration, so a job's work
 *       (duration x rate) could be infinite.
 * Found by fuzz_requests, fixed with it:
 *   R1  workloads/trace_requests.c rst_next(): rows out of arrival order were passed on (only
 *       the world's check caught them, without the column's name).
 * Found by fuzz_microapp, fixed with it:
 *   M1  sim/micro/app.c load_derm(): a header of more than 64 columns was indexed past the
 *       field array (tio_split counts every field but stores 64); alibaba.c had the same.
 *   M2  sim/micro/app.c load_derm(): chain and ms were cast to int before their range was
 *       checked (1e66 is beyond int: undefined behaviour).
 * Found by fuzz_pyreturn, fixed with it:
 *   P1  sim/train/grant.c grant_check() (the world's check of a grant list, moved there from
 *       train.c) and train.c apply(): a list of preemptions only has no GPU ids at all
 *       (ids NULL), and `ids + first` on it is undefined behaviour (clang's UBSan: applying
 *       zero offset to null pointer); grant_ids now gives NULL for such a list.
 * Found by fuzz_interference, fixed with it:
 *   I1  models/interference.c intf_load_lucid(): a batch size that is not a number was
 *       refused, but the unset value was cast to long anyway (UBSan: NaN to integer).
 *   I2  models/interference.c binary_count(): IADeep's copy count summed every digit into an
 *       int before refusing more than 8 (overflow at 31; found in CI's 20 s pass).
 * Found by fuzz_dayrate:
 *   D1  workloads/dayrate.c dayrate_steps(): steps scaled to mean 1 in hours, stored in
 *       seconds; a step a rounding wide moved the lookup's mean by 2.4e-9.
 * Found by fuzz_llmfit, fixed with it (models/llm_fit.c):
 *   L1  read_header(): the field count was set before the fields were copied, so a header of
 *       more than 128 columns freed pointers into the line.
 *   L2  an unreadable kernel time was skipped as not measured; a kernel no row timed gave a
 *       residual of 0 points and a NaN median, written into the fit file's JSON.
 *   L3  llm_fit_write(): names written into JSON strings unescaped.
 *   L4  num_tokens unbounded (161e300): the model's time, and the residual, infinite.
 * Found by fuzz_siaprof:
 *   S1  models/elastic.c pandas_number(): an exponent of many digits overflowed an int, and
 *       any exponent above 308 gave HUGE_VAL, even for a zero.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../models/catalog.h"
#include "../models/elastic.h"
#include "../models/interference.h"
#include "../models/llm.h"
#include "../models/llm_fit.h"
#include "../sim/core/cluster.h"
#include "../sim/base/jobj.h"
#include "../sim/base/path.h"
#include "../sim/base/tio.h"
#include "../sim/base/jsonf.h"
#include "../sim/micro/app.h"
#include "../sim/train/grant.h"
#include "../sim/train/train.h"
#include "../sim/train/train_view.h"
#include "../workloads/dayrate.h"
#include "../workloads/workload.h"
#include "helpers.h"

/* tests/fuzz/crashes/REL under the data root, read whole; *len excludes the added NUL. */
static char *repro(const char *rel, size_t *len)
{
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/tests/fuzz/crashes/%s", path_data_root(), rel);
    struct errbuf err;
    err_clear(&err);
    char *buf = NULL;
    cr_assert_eq(tio_slurp(path, &buf, len, &err), 0, "reproducer: %s (set HETSIM_DATA?)",
                 err.msg);
    return buf;
}

/* A reproducer of a SELECTOR FILE harness: the file (the bytes past the selector) written
 * into the test's directory as `name` (caller frees the path), its selector in *sel. */
static char *repro_file(const char *rel, const char *name, int *sel)
{
    size_t len;
    char *buf = repro(rel, &len);
    cr_assert_gt(len, 1);
    *sel = (unsigned char)buf[0];
    char *file = th_write(name, "");
    FILE *f = fopen(file, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(buf + 1, 1, len - 1, f), len - 1);
    fclose(f);
    free(buf);
    return file;
}

/* ---- jsonf (fuzz_jsonf) ---- */

/* fuzz_jsonf's path: the text up to the first NUL, in a buffer of exactly its length. */
static jsonf *parse_exact(const char *bytes, size_t n, struct errbuf *err)
{
    size_t tlen = strnlen(bytes, n);
    char *text = malloc(tlen ? tlen : 1);
    cr_assert_not_null(text);
    memcpy(text, bytes, tlen);
    jsonf *d = NULL;
    int rc = jsonf_parse(&d, "fuzz.json", text, tlen, err);
    free(text);
    if (rc < 0) {
        cr_assert_null(d);
        cr_assert_neq(err->code, ERR_NONE);
        cr_assert_neq(err->msg[0], '\0', "an error without a message");
    }
    return d;
}

/* Every node of a document read from a text of `nlines` lines has a line in [1, nlines]. */
static void lines_in_text(const jsonf *d, const cJSON *n, long nlines)
{
    const char *file;
    long line;
    jsonf_where(d, n, &file, &line);
    cr_assert(line >= 1 && line <= nlines, "a node at line %ld of a %ld-line text", line, nlines);
    for (const cJSON *k = n->child; k != NULL; k = k->next)
        lines_in_text(d, k, nlines);
}

static void jsonf_clean(const char *rel)
{
    size_t n;
    char *bytes = repro(rel, &n);
    struct errbuf err;
    err_clear(&err);
    jsonf *d = parse_exact(bytes, n, &err);
    if (d != NULL) {
        long nlines = 1;
        for (size_t i = 0; i < strnlen(bytes, n); i++)
            nlines += bytes[i] == '\n';
        lines_in_text(d, jsonf_root(d), nlines);
        jsonf_destroy(d);
    }
    free(bytes);
}

/* J1: "\x01{"":""}" — cJSON skips the leading 0x01 as whitespace, the scanner stopped at it and
 * never recorded the member's line. */
Test(fuzz_regressions, jsonf_control_byte_before_document)
{
    jsonf_clean("jsonf/ctrl-ws-no-line");
}

/* J1: "[{\x0c"b":1},2]" — after the form feed the scanner was one quote out of step, ran to
 * the end of the text inside a "string" and then read s[pos] past the end (heap-buffer-
 * overflow under ASan at jsonf.c walk()). */
Test(fuzz_regressions, jsonf_control_byte_overread)
{
    jsonf_clean("jsonf/ctrl-ws-overread");
}

/* J1: a second BOM — jsonf stripped one, cJSON the other, and the scanner saw none of the
 * root's members. */
Test(fuzz_regressions, jsonf_double_bom)
{
    jsonf_clean("jsonf/double-bom-no-line");
}

/* J1, seen in an error message: with a form feed before a string value, the next member was
 * reported one line too early. */
Test(fuzz_regressions, jsonf_control_byte_wrong_line)
{
    static const char text[] = "{\"a\":\x0c\"x\ny\",\n\"b\":1}";
    struct errbuf err;
    err_clear(&err);
    jsonf *d = parse_exact(text, sizeof text - 1, &err);
    if (d == NULL)
        return;     /* rejecting control bytes outside strings is a clean fix too */
    const char *file;
    long line;
    jsonf_where(d, cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "b"), &file, &line);
    cr_assert_eq(line, 3, "\"b\" is on line 3, reported on line %ld", line);
    jsonf_destroy(d);
}

/* ---- catalog (fuzz_catalog) ---- */

/* fuzz_catalog's path: GPUS \0 LINKS written to files, catalog_load, then a cluster naming an
 * unknown link and one naming an unknown GPU type (over the inter-node link `net`), each of
 * which must fail with its message. */
static void catalog_clean(const char *rel, const char *net)
{
    size_t n;
    char *bytes = repro(rel, &n);
    size_t glen = strnlen(bytes, n);
    cr_assert_lt(glen, n, "reproducer has no NUL separator");
    char *g = th_write("fz_gpus.json", bytes);
    char *l = th_write("fz_links.json", bytes + glen + 1);
    struct errbuf err;
    err_clear(&err);
    catalog *c = NULL;
    cr_assert_eq(catalog_load(&c, g, l, &err), 0, "%s", err.msg);
    char text[2][256];
    snprintf(text[0], sizeof text[0], "{\"network\": \"no-such-link\", \"groups\": [{\"count\": "
             "1, \"gpu\": \"%s\", \"gpus_per_node\": 1}]}", catalog_gpu(c, 0)->name);
    snprintf(text[1], sizeof text[1], "{\"network\": \"%s\", \"groups\": [{\"count\": 1, "
             "\"gpu\": \"no-such-gpu\", \"gpus_per_node\": 1}]}", net);
    static const char *const want[] = { "unknown inter-node link 'no-such-link'",
                                        "unknown GPU type 'no-such-gpu'" };
    for (int i = 0; i < 2; i++) {
        jsonf *d = NULL;
        struct jobj root;
        cluster *cl = NULL;
        err_clear(&err);
        cr_assert_eq(jsonf_parse(&d, "cluster.json", text[i], strlen(text[i]), &err), 0, "%s", err.msg);
        cr_assert_eq(jobj_root(&root, d, &err), 0);
        cr_assert_eq(cluster_from_json(&cl, c, &root, &err), -1, "an unknown name was accepted");
        cr_assert_null(cl);
        cr_assert_eq(err.code, ERR_INPUT);
        cr_assert(strstr(err.msg, want[i]) != NULL, "message: %s", err.msg);
        jsonf_destroy(d);
    }
    catalog_destroy(c);
    free(g);
    free(l);
    free(bytes);
}

/* C1: 70 links (one intra, 69 inter) — link_field() listed every link name into names[64]
 * (catalog_link_names writes nlinks + 1 pointers): stack-buffer-overflow at cluster.c:84-87. */
Test(fuzz_regressions, cluster_unknown_link_with_70_links)
{
    catalog_clean("catalog/links70-stack-overflow", "e0");
}

/* C1: 130 GPU types — cluster_from_json() listed every GPU name into names[128] for its
 * did-you-mean: stack-buffer-overflow at cluster.c:150-151. */
Test(fuzz_regressions, cluster_unknown_gpu_with_130_gpu_types)
{
    catalog_clean("catalog/gpus130-stack-overflow", "e");
}

/* ---- workloads (fuzz_workload) ---- */

/* fuzz_workload's path: WORKLOAD JSON \0 TRACE; the trace is written to a file, the JSON's
 * "trace" set to it, and workload_open / the job source drained.  Every job must be sane and the
 * arrivals of a sorted reader must not decrease; returns the status of the first failure
 * (0 if none), whose message must be set. */
static int workload_clean(const char *rel, const char *want)
{
    size_t n;
    char *bytes = repro(rel, &n);
    size_t jlen = strnlen(bytes, n);
    cr_assert_lt(jlen, n, "reproducer has no NUL separator");
    char *trace = th_write("fz_trace", bytes + jlen + 1);
    catalog *c = th_catalog();
    tput *m = th_models(c);
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    struct jobj cfg;
    cr_assert_eq(jsonf_parse(&d, "workload.json", bytes, jlen, &err), 0, "%s", err.msg);
    cr_assert_eq(jobj_root(&cfg, d, &err), 0);
    cr_assert_eq(jsonf_set(d, "trace", trace, &err), 0, "%s", err.msg);
    struct workload_env env = { m, 1, th_tmpdir() };
    workload *w = NULL;
    int rc = workload_open(&w, &cfg, &env, &err);
    if (rc == 0) {
        struct entity_source *src = workload_source(w);
        struct job_spec js;
        simtime last = 0;
        while ((rc = src->next(src->ctx, &js, &err)) > 0) {
            cr_assert(js.arrival >= last, "job %lld arrives at %lld, before %lld",
                      (long long)js.id, (long long)js.arrival, (long long)last);
            cr_assert(isfinite(js.work) && js.work > 0, "job %lld has work %g",
                      (long long)js.id, js.work);
            last = js.arrival;
        }
        workload_close(w);
    }
    if (rc < 0) {
        cr_assert_eq(err.code, ERR_INPUT, "%s", err.msg);
        cr_assert(strstr(err.msg, want) != NULL, "message: %s", err.msg);
    }
    jsonf_destroy(d);
    tput_destroy(m);
    catalog_destroy(c);
    free(trace);
    free(bytes);
    return rc;
}

/* W1: submissions in 2017 and in the year 999999: the arrival in microseconds overflowed
 * int64 (UBSan: signed integer overflow at trace_philly.c pst_next; without UBSan the
 * arrival wrapped negative).  Either the far date is rejected, naming the timestamp, or the
 * arrival is kept in range. */
Test(fuzz_regressions, philly_far_future_timestamp)
{
    workload_clean("workload/philly-year-overflow", "timestamp");
}

/* W2: a Philly job lasting 1e308 s became a job with infinite work, which can never finish.
 * It must be rejected, naming the duration. */
Test(fuzz_regressions, philly_huge_duration)
{
    cr_assert_eq(workload_clean("workload/philly-duration-inf-work", "duration"), -1,
                 "a 1e308 s job was accepted");
}

/* ---- the serving readers (fuzz_requests) ---- */

Test(fuzz_regressions, R1_requests_out_of_order_named_at_their_row)
{
    size_t n;
    char *buf = repro("requests/requests-arrival-decreasing", &n);
    size_t jl = strnlen(buf, n);
    char *jp = th_write("r1.json", buf), *tp = malloc(600);
    snprintf(tp, 600, "%s/r1.csv", th_tmpdir());
    FILE *f = fopen(tp, "wb");
    cr_assert_not_null(f);
    fwrite(buf + jl + 1, 1, n - jl - 1, f);
    fclose(f);
    struct errbuf err;
    err_clear(&err);
    jsonf *d;
    struct jobj cfg;
    cr_assert_eq(jsonf_load(&d, jp, &err), 0, "%s", err.msg);
    cr_assert_eq(jobj_root(&cfg, d, &err), 0);
    cr_assert_eq(jsonf_set(d, "trace", tp, &err), 0);
    tput *m = NULL;
    catalog *cat = th_catalog();
    m = th_models(cat);
    struct workload_env env = { m, 1, th_tmpdir() };
    workload *w;
    cr_assert_eq(workload_open(&w, &cfg, &env, &err), 0, "%s", err.msg);
    struct entity_source *src = workload_source(w);
    char spec[256];
    int rc;
    while ((rc = src->next(src->ctx, spec, &err)) > 0)
        ;
    cr_assert_eq(rc, -1);
    cr_assert(strstr(err.msg, "r1.csv:3: arrival_s: 1.25 is earlier than the row before (1.5)") !=
              NULL, "%s", err.msg);
    workload_close(w);
    jsonf_destroy(d);
    tput_destroy(m);
    catalog_destroy(cat);
    free(jp);
    free(tp);
    free(buf);
}

/* ---- microservice applications (fuzz_microapp) ---- */

/* Load the fuzz_microapp reproducer `name` (a selector byte, then Derm's fit file) as an
 * application: 0 if it loads, else -1 with the message in msg. */
static int load_microapp(const char *name, char *msg, size_t cap)
{
    size_t len;
    char *buf = repro(name, &len);
    cr_assert_gt(len, 1);
    cr_assert_eq(buf[0] % 3, 1, "the selector names Derm's fit file");
    char *file = th_write("pars.csv", "");
    FILE *f = fopen(file, "wb");
    cr_assert_not_null(f);
    fwrite(buf + 1, 1, len - 1, f);
    fclose(f);
    char text[700];
    snprintf(text, sizeof text, "{ \"app\": \"%s\" }", file);
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    cr_assert_eq(jsonf_parse(&doc, "t.json", text, strlen(text), &err), 0);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    struct app *a = NULL;
    struct app_opts o = { 0, 0 };
    int rc = app_load(&a, &root, "app", "/", &o, &err);
    if (rc < 0)
        cr_assert(err.msg[0] != '\0' && a == NULL);
    snprintf(msg, cap, "%s", err.msg);
    app_free(a);
    jsonf_destroy(doc);
    free(file);
    free(buf);
    return rc < 0 ? -1 : 0;
}

/* M1: a Derm fit file whose header has more than 64 columns is an error, not an overread */
Test(fuzz_regressions, microapp_derm_header_65_columns)
{
    char msg[ERR_MSG_MAX];
    load_microapp("microapp/derm-header-65-columns", msg, sizeof msg);
}

/* M2: a chain number beyond int is refused before it is cast (UBSan: a float-to-int
 * conversion out of range) */
Test(fuzz_regressions, microapp_derm_chain_beyond_int)
{
    char msg[ERR_MSG_MAX];
    cr_assert_eq(load_microapp("microapp/derm-chain-beyond-int", msg, sizeof msg), -1);
    cr_assert(strstr(msg, "chain: ") != NULL && strstr(msg, "Derm's chains are 1"), "%s", msg);
}

/* ---- interference tables (fuzz_interference) ---- */

/* An interference table from `file` on the RTX 3090, Lucid's pairs without a model map
 * (lucid) or IADeep's combinations: 0, or -1 with the message in err */
static int load_intf(const char *file, int lucid, struct errbuf *err)
{
    catalog *cat = th_catalog();
    tput *t = th_models(cat);
    intf *m;
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    err_clear(err);
    int gpu = catalog_gpu_find(cat, "RTX3090");
    int rc = lucid ? intf_load_lucid(m, t, file, gpu, NULL, 0, err)
                   : intf_load_iadeep(m, t, file, gpu, err);
    intf_destroy(m);
    tput_destroy(t);
    catalog_destroy(cat);
    return rc;
}

/* I1: Lucid's pairs whose batchsize1 is not a number (the reproducer, selector 3: no model
 * map), or a number beyond its range (1e300: casting it was undefined behaviour, which the
 * clang fuzz build's UBSan reports and gcc's -fsanitize=undefined does not check), are
 * refused at their row and column */
Test(fuzz_regressions, I1_lucid_batch_not_a_number)
{
    int sel;
    char *file = repro_file("interference/lucid-batch-not-a-number", "lucid.csv", &sel);
    cr_assert_eq(sel & 3, 3, "the selector names Lucid's pairs without a map");
    struct errbuf err;
    cr_assert_eq(load_intf(file, 1, &err), -1);
    cr_assert(strstr(err.msg, ":2:") != NULL, "%s", err.msg);
    free(file);
    file = th_write("lucid_big.csv", "model1,speed1,model2,speed2,batchsize1,batchsize2\n"
                                     "vgg16,0.7,lstm,0.8,1e300,64\n");
    cr_assert_eq(load_intf(file, 1, &err), -1);
    cr_assert(strstr(err.msg, ":2:") != NULL && strstr(err.msg, "batchsize1") != NULL, "%s",
              err.msg);
    free(file);
}

/* I2: IADeep's table whose bert_num is a binary count of 98 digits (the reproducer, selector
 * 1).  The reader summed every digit before it refused more than 8, and the 31st overflowed
 * an int (undefined behaviour, found by fuzz_interference in CI).  It is refused at its row
 * and column, and so is a count of 9 digits; 8 digits are read (then refused as more jobs
 * than a GPU holds) */
Test(fuzz_regressions, I2_iadeep_count_of_many_digits)
{
    int sel;
    char *file = repro_file("interference/iadeep-count-of-many-digits", "iadeep.csv", &sel);
    cr_assert_eq(sel & 3, 1, "the selector names IADeep's table");
    struct errbuf err;
    cr_assert_eq(load_intf(file, 0, &err), -1);
    cr_assert(strstr(err.msg, ":2:") != NULL && strstr(err.msg, "bert_num") != NULL &&
              strstr(err.msg, "not a copy count") != NULL, "%s", err.msg);
    free(file);
    static const char *const counts[] = { "000000001", "11111111" };
    static const char *const says[] = { "not a copy count", "more than" };
    for (int i = 0; i < 2; i++) {
        char text[256];
        snprintf(text, sizeof text, "vgg16,vgg16_num,sum_interference\n1,%s,0.5\n", counts[i]);
        file = th_write("iadeep_digits.csv", text);
        cr_assert_eq(load_intf(file, 0, &err), -1, "%s", counts[i]);
        cr_assert(strstr(err.msg, ":2:") != NULL && strstr(err.msg, "vgg16_num") != NULL &&
                  strstr(err.msg, says[i]) != NULL, "%s: %s", counts[i], err.msg);
        free(file);
    }
}

/* ---- a day's rate series (fuzz_dayrate) ---- */

/* D1: a last step that starts 23.99999923 h into the day (2.8 ms wide) at rate 3 after two of
 * rate 0.  The steps were scaled to mean 1 in hours, then stored in seconds: the lookup's day
 * had mean 1 - 2.4e-9 (the harness allows 1e-9).  The scaling now uses the stored starts */
Test(fuzz_regressions, D1_a_step_a_rounding_wide_keeps_the_mean)
{
    size_t len;
    char *buf = repro("dayrate/step-a-rounding-wide", &len);
    cr_assert(strstr(buf, "23.99999923,3") != NULL, "%s", buf);
    char *file = th_write("rates.csv", buf);
    free(buf);
    struct dayrate d;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(dayrate_read(&d, file, &err), 0, "%s", err.msg);
    free(file);
    cr_assert_eq(d.nsteps, 3);
    double area = 0;
    for (int k = 0; k < d.nsteps; k++) {
        double next = k + 1 < d.nsteps ? d.at_s[k + 1] : d.at_s[0] + DAYRATE_DAY_S;
        area += d.f[k] * (next - d.at_s[k]);
    }
    cr_assert_lt(fabs(area / DAYRATE_DAY_S - 1), 1e-12, "mean %.17g", area / DAYRATE_DAY_S);
    cr_assert_eq(dayrate_f(&d, DAYRATE_DAY_S - 1e-3), d.f[2]);
}

/* ---- the readers of `hetsim model fit` (fuzz_llmfit) ---- */

/* The shipped LLM architectures with the shipped fitted factors, or those of the fit file
 * `fit` (which must load) */
static llm_catalog *shipped_llm(const catalog *cat, const char *fit)
{
    char llms[PATH_MAX_LEN], fp[PATH_MAX_LEN];
    snprintf(llms, sizeof llms, "%s/%s", path_data_root(), llm_default_models);
    snprintf(fp, sizeof fp, "%s/%s", path_data_root(), llm_default_fit);
    llm_catalog *c;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, llms, fit != NULL ? fit : fp, &err), 0, "%s", err.msg);
    return c;
}

/* A Vidur profile read for GPU type `gpu`: 0, or -1 with the message in err; with res, its
 * residuals under the shipped factors go there (room for 64), their count in *nres */
static int load_profile(const char *file, int sel, struct llm_resid *res, int *nres,
                        struct errbuf *err)
{
    catalog *cat = th_catalog();
    llm_catalog *c = shipped_llm(cat, NULL);
    llm_fit_data *d = llm_fit_data_create();
    cr_assert_not_null(d);
    err_clear(err);
    int rc = llm_fit_add_profile(d, file, (sel >> 2) % catalog_ngpus(cat), err);
    if (rc == 0 && res != NULL)
        *nres = llm_fit_residuals(d, c, res, 64);
    llm_fit_data_destroy(d);
    llm_destroy(c);
    catalog_destroy(cat);
    return rc;
}

/* L1: a profile whose header has more than 128 columns.  The header reader set the count
 * before it copied the fields, so the caller freed pointers into the line (an invalid free,
 * found by fuzz_llmfit).  It is refused at line 2, naming the limit */
Test(fuzz_regressions, L1_llmfit_header_of_many_columns)
{
    int sel;
    char *file = repro_file("llmfit/header-of-many-columns", "mlp.csv", &sel);
    cr_assert_eq(sel & 3, 0, "the selector names a kernel profile");
    struct errbuf err;
    cr_assert_eq(load_profile(file, sel, NULL, NULL, &err), -1);
    cr_assert(strstr(err.msg, "mlp.csv:2: header: bad quoting or more than 128 columns") != NULL,
              "%s", err.msg);
    free(file);
}

/* L2: a profile whose every row's add.median is unreadable ('0.007;', bytes) was accepted,
 * those fields skipped as not measured; its residuals had a row of 0 points with a median
 * error of NaN, which `hetsim model fit --out` wrote into JSON.  An unreadable time is now
 * refused at its line and column; a kernel left empty on every row (not measured) has no
 * residual row, and every row has points and finite errors */
Test(fuzz_regressions, L2_llmfit_kernel_time_not_a_number)
{
    int sel, n = 0;
    char *file = repro_file("llmfit/kernel-time-not-a-number", "mlp.csv", &sel);
    struct llm_resid res[64];
    struct errbuf err;
    cr_assert_eq(load_profile(file, sel, NULL, NULL, &err), -1);
    cr_assert(strstr(err.msg, "mlp.csv:3: time_stats.add.median: '0.007;' is not a time") !=
                  NULL, "%s", err.msg);
    free(file);
    file = th_write("empty_add.csv",
                    "time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,"
                    "time_stats.mlp_up_proj.median,time_stats.mlp_down_proj.median,"
                    "time_stats.input_layernorm.median,time_stats.post_attention_layernorm."
                    "median,time_stats.attn_rope.median,time_stats.mlp_act.median,"
                    "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,"
                    "use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"
                    "0.07,0.03,0.15,0.08,0.008,0.008,0.009,0.01,,32,32,4096,11008,True,16,1\n"
                    "4.1,1.3,9.2,4.6,0.2,0.2,0.3,0.4, ,32,32,4096,11008,True,1024,1\n");
    cr_assert_eq(load_profile(file, 0, res, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 8, "%d rows: the nine kernels but add", n);
    for (int i = 0; i < n; i++) {
        cr_assert(strstr(res[i].what, " add") == NULL, "%s", res[i].what);
        cr_assert(res[i].n == 2 && isfinite(res[i].err_pct) && isfinite(res[i].max_pct),
                  "%s: %d points, %g%%", res[i].what, res[i].n, res[i].err_pct);
    }
    free(file);
}

/* L4: a profile whose num_tokens is 161e300 was read as that many tokens; the model's time
 * overflowed and the residual was infinite.  num_tokens is a whole number in [1, 2^24] */
Test(fuzz_regressions, L4_llmfit_num_tokens_beyond_range)
{
    int sel;
    char *file = repro_file("llmfit/num-tokens-beyond-range", "mlp.csv", &sel);
    struct errbuf err;
    cr_assert_eq(load_profile(file, sel, NULL, NULL, &err), -1);
    cr_assert(strstr(err.msg, "num_tokens: '161e300' is not a whole number in [1, 16777216]") !=
                  NULL, "%s", err.msg);
    free(file);
}

/* L3: measurements whose source is `oth""ier` (an unquoted field keeps both).  llm_fit_write
 * printed the residual rows' names into JSON strings unescaped, so `hetsim model fit --out`
 * wrote a file llm_load cannot parse.  Every string is escaped now: the file loads, and its
 * row names the source as it was read */
Test(fuzz_regressions, L3_llmfit_source_with_a_quote)
{
    int sel;
    char *file = repro_file("llmfit/source-with-a-quote", "points.csv", &sel);
    cr_assert_eq(sel & 3, 2, "the selector names measurements fitted for lmdeploy");
    catalog *cat = th_catalog();
    llm_catalog *c = shipped_llm(cat, NULL), *back;
    struct errbuf err;
    err_clear(&err);
    llm_fit_data *d = llm_fit_data_create();
    cr_assert_eq(llm_fit_add_points(d, file, c, "lmdeploy", &err), 0, "%s", err.msg);
    struct llm_resid res[16];
    int n = llm_fit_residuals(d, c, res, 16);
    cr_assert_eq(n, 3, "%d rows: a batch's tpot, the other source's ttft and tpot", n);
    char *out = th_write("fit.json", "");
    FILE *f = fopen(out, "w");
    cr_assert_not_null(f);
    cr_assert_eq(llm_fit_write(f, c, res, n, "a \"quoted\" note"), 0);
    cr_assert_eq(fclose(f), 0);
    back = shipped_llm(cat, out);
    char *text = NULL;
    size_t len;
    cr_assert_eq(tio_slurp(out, &text, &len, &err), 0, "%s", err.msg);
    cr_assert(strstr(text, "\"check oth\\\"\\\"ier H100 llama-2-13b") != NULL, "%s", text);
    free(text);
    llm_destroy(back);
    llm_fit_data_destroy(d);
    llm_destroy(c);
    catalog_destroy(cat);
    free(out);
    free(file);
}

/* ---- Sia's per-cluster profiles (fuzz_siaprof) ---- */

/* S1: placements-rtx.csv whose first row's sync_time is 0.00E1 followed by 107 zeros.  The
 * pandas-like number reader summed the exponent's digits into an int (overflow, undefined
 * behaviour) and gave HUGE_VAL for any exponent above 308, even of a zero mantissa, although
 * strtod had checked the value as 0.  The exponent saturates and a zero is 0: the row's sync
 * time is 0 */
Test(fuzz_regressions, S1_siaprof_exponent_of_many_digits)
{
    int sel;
    char dir[PATH_MAX_LEN], sub[PATH_MAX_LEN + 16];
    snprintf(dir, sizeof dir, "%s/sia", th_tmpdir());
    snprintf(sub, sizeof sub, "%s/cifar10", dir);
    cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST);
    cr_assert(mkdir(sub, 0755) == 0 || errno == EEXIST);
    free(repro_file("siaprof/exponent-of-many-digits", "sia/cifar10/placements-rtx.csv", &sel));
    cr_assert_eq(sel & 1, 0, "the selector names placements-rtx.csv");
    free(th_write("sia/cifar10/scalability-rtx.csv",
                  "local_bsz,step_time,sync_time,num_nodes,num_replicas\n32,0.05,0.001,1,1\n"
                  "64,0.06,0.001,1,1\n32,0.2,0.1,2,2\n64,0.3,0.1,2,4\n32,0.4,0.2,3,6\n"
                  "64,0.5,0.2,4,16\n"));
    catalog *cat = th_catalog();
    char apps[PATH_MAX_LEN];
    snprintf(apps, sizeof apps, "%s/models/data/pollux/applications.json", path_data_root());
    elastic *e;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(elastic_load(&e, cat, apps, &err), 0, "%s", err.msg);
    cr_assert_eq(elastic_add_sia(e, dir, "rtx", -1, "test", &err), 0, "%s", err.msg);
    const elastic_app *a = elastic_get(e, elastic_find(e, "cifar10"),
                                       catalog_gpu_find(cat, "RTX2080Ti"));
    cr_assert_not_null(a);
    double step, sync;
    cr_assert_eq(elastic_step_time(a, (int[]){ 1 }, 1, 972, &step, &sync, &err), 0, "%s",
                 err.msg);
    cr_assert(step == 0.05 && sync == 0, "step %g s, sync %g s", step, sync);
    elastic_destroy(e);
    catalog_destroy(cat);
}

/* ---- the check of a training policy's grants (fuzz_pyreturn) ---- */

/* P1: "[(3, [])]" — the answer preempts one job and grants nothing, so its list has no ids. */
Test(fuzz_regressions, P1_a_list_of_preemptions_only_is_checked_cleanly)
{
    size_t n;
    char *bytes = repro("pyreturn/crash-8b23c0e054f01e96d3db514ec0e1771cd34e81f8", &n);
    cr_assert_str_eq(bytes, "[(3, [])]");
    free(bytes);
    struct train_job jobs[4];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 4; i++)
        jobs[i] = (struct train_job){ .id = 10 + i, .slot = i, .workers = 1, .min_workers = 1,
                                      .max_workers = 1, .state = JOB_QUEUED };
    struct grant_list l;
    grant_list_init(&l);
    cr_assert_eq(grant_preempt(&l, 3), 0);
    cr_assert_null(l.ids);
    cr_assert_null(grant_ids(&l, &l.g[0]));
    uint8_t marks[4] = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(grant_check(&l, jobs, 4, 8, marks, &err), 0, "%s", err.msg);
    cr_assert_eq(marks[3], 1);
    grant_check_clear(&l, 4, marks);
    cr_assert_eq(marks[3], 0);
    grant_list_fini(&l);
}
