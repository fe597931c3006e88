/*
 * fuzz_requests: the serving workload readers through workload_open / workload_source — the
 * Azure LLM trace, hetsim's request CSV and the synthetic LLM generator — then the serving
 * world's check of every request (serve_request_check, both ways of handling overlong
 * requests) against a shipped architecture.
 *
 * Input: WORKLOAD JSON \0 TRACE, as fuzz_workload's; a workload of a training format is not
 * this harness's (skipped).  At most 2,000 requests are drained.  Every request must be
 * sane: tokens >= 1, arrivals not decreasing, a class; a checked request fits the context.
 */
#include <stdlib.h>
#include <string.h>

#include "../../models/llm.h"
#include "../../sim/base/path.h"
#include "../../sim/serve/serve.h"
#include "../../workloads/reader.h"
#include "../../workloads/workload.h"
#include "fuzzutil.h"

enum { DRAIN_CAP = 2000 };

static llm_catalog *archs(void)
{
    static llm_catalog *c;
    if (c == NULL) {
        char p[4096];
        struct errbuf err;
        err_clear(&err);
        fz_shipped(p, sizeof p, llm_default_models);
        if (llm_load(&c, NULL, p, NULL, &err) < 0)
            fz_fail("loading the shipped architectures: %s", err.msg);
    }
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t jlen;
    const uint8_t *json = fz_cut(&data, &size, 0, &jlen);
    char jpath[4096], tpath[4096];
    fz_write(jpath, sizeof jpath, "workload.json", json, jlen);
    fz_write(tpath, sizeof tpath, "trace", data, size);
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    struct jobj cfg;
    int rc = jsonf_load(&d, jpath, &err);
    fz_check_err(rc, &err, "jsonf_load");
    if (rc < 0)
        return 0;
    err_clear(&err);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "format");
    const struct workload_format *f =
        cJSON_IsString(fmt) ? workload_format_find(fmt->valuestring) : NULL;
    if (jobj_root(&cfg, d, &err) < 0 || f == NULL || strcmp(f->domain, "serving") != 0 ||
        jsonf_set(d, "trace", tpath, &err) < 0) {
        jsonf_destroy(d);
        return 0;
    }
    /* the training formats are fuzz_workload's; the serving ones need no job models */
    struct workload_env env = { fz_models(), 1, fz_dir() };
    workload *w = NULL;
    rc = workload_open(&w, &cfg, &env, &err);
    fz_check_err(rc, &err, "workload_open");
    const struct llm_arch *a = llm_arch_at(archs(), 0);
    if (rc == 0) {
        struct entity_source *src = workload_source(w);
        struct request_spec q;
        simtime last = 0;
        for (int n = 0; n < DRAIN_CAP; n++) {
            err_clear(&err);
            rc = src->next(src->ctx, &q, &err);
            fz_check_err(rc, &err, "request source next");
            if (rc <= 0)
                break;
            if (q.prompt < 1 || q.output < 1 || q.cls == NULL || q.arrival < 0 ||
                (strcmp(f->name, "llm_synthetic") != 0 && q.arrival < last))
                fz_fail("request %lld (line %ld): %d + %d tokens at %lld, class %s",
                        (long long)q.id, q.line, q.prompt, q.output, (long long)q.arrival,
                        q.cls ? q.cls : "(none)");
            last = q.arrival;
            for (int mode = 0; mode < 2; mode++) {
                struct request_spec c = q;
                err_clear(&err);
                rc = serve_request_check(a, mode, &c, &err);
                fz_check_err(rc, &err, "serve_request_check");
                if (rc == 0 && ((int64_t)c.prompt + c.output > a->max_context || c.prompt < 1 ||
                                c.output < 1))
                    fz_fail("checked request %d + %d tokens, context %d", c.prompt, c.output,
                            a->max_context);
            }
        }
        workload_close(w);
    } else if (w != NULL) {
        fz_fail("workload_open failed but returned a workload");
    }
    jsonf_destroy(d);
    return 0;
}
