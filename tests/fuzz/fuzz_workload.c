/*
 * fuzz_workload: the workload readers through workload_open / workload_source — hetsim CSV, Gavel and
 * Philly traces, Pollux/Sia workloads, and the synthetic generator — with the shipped models;
 * and the microservice formats (micro_poisson, micro_trace), whose specs are requests.  The
 * placement domain's format (openb pod lists) is opened, not drained: its entities are
 * neither (fuzz_openb drains them).
 *
 * Input: WORKLOAD JSON \0 TRACE.  The JSON is the "workload" object of an experiment (its
 * "format" picks the reader); its "trace" is set (jsonf_set) to the TRACE bytes written to the
 * scratch directory, so the readers never open anything else.  At most 2,000 jobs are drained
 * and skip_jobs is lowered to 1,000, to keep an execution short (a synthetic "jobs" may be
 * 2^40).  Every job must be sane: a known job type, workers >= 1, work and weight finite > 0;
 * every request too: a count >= 1, a span >= 0, a named graph or a pick in [0, 1), a finite
 * peak >= 0, arrivals that do not decrease.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/micro/micro.h"
#include "../../sim/train/train.h"
#include "../../workloads/workload.h"
#include "fuzzutil.h"

enum { DRAIN_CAP = 2000, SKIP_CAP = 1000 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t jlen, tlen;
    const uint8_t *json = fz_cut(&data, &size, 0, &jlen);
    const uint8_t *trace = data;
    tlen = size;
    char jpath[4096], tpath[4096];
    fz_write(jpath, sizeof jpath, "workload.json", json, jlen);
    fz_write(tpath, sizeof tpath, "trace", trace, tlen);

    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    struct jobj cfg;
    int rc = jsonf_load(&d, jpath, &err);
    fz_check_err(rc, &err, "jsonf_load");
    if (rc < 0)
        return 0;
    err_clear(&err);
    if (jobj_root(&cfg, d, &err) < 0 || jsonf_set(d, "trace", tpath, &err) < 0) {
        jsonf_destroy(d);
        return 0;
    }
    const cJSON *skip = cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "skip_jobs");
    if (cJSON_IsNumber(skip) && skip->valuedouble > SKIP_CAP &&
        jsonf_set(d, "skip_jobs", "1000", &err) < 0)
        fz_fail("capping skip_jobs: %s", err.msg);

    const tput *m = fz_models();
    struct workload_env env = { m, 1, fz_dir() };
    workload *w = NULL;
    rc = workload_open(&w, &cfg, &env, &err);
    fz_check_err(rc, &err, "workload_open");
    if (rc == 0 && strcmp(workload_domain(w), "training") != 0 &&
        strcmp(workload_domain(w), "micro") != 0) {
        workload_close(w);      /* another domain's entities: fuzz_openb drains pod lists */
    } else if (rc == 0) {
        struct entity_source *src = workload_source(w);
        int micro = strcmp(workload_domain(w), "micro") == 0;
        union {
            struct job_spec      js;
            struct micro_request mr;
        } spec;
        simtime last = 0;
        for (int n = 0; n < DRAIN_CAP; n++) {
            err_clear(&err);
            rc = src->next(src->ctx, &spec, &err);
            fz_check_err(rc, &err, "job_source next");
            if (rc <= 0)
                break;
            if (micro) {
                const struct micro_request *r = &spec.mr;
                if (r->count < 1 || r->span < 0 || r->arrival < last ||
                    (r->graph != NULL && r->graph[0] == '\0') ||
                    (r->graph == NULL && !(r->pick >= 0 && r->pick < 1)) ||
                    !(r->peak_rate >= 0) || !isfinite(r->peak_rate))
                    fz_fail("request %lld (line %ld): count %lld, span %lld, arrival %lld after "
                            "%lld, pick %g, peak %g", (long long)r->id, r->line,
                            (long long)r->count, (long long)r->span, (long long)r->arrival,
                            (long long)last, r->pick, r->peak_rate);
                last = r->arrival;
                continue;
            }
            const struct job_spec js = spec.js;
            /* an elastic application's job (the pollux format; fuzz_pollux runs them) */
            if (js.app != NULL) {
                if (js.name == NULL || js.name[0] == '\0' || js.app[0] == '\0' ||
                    js.workers < 1 || js.batch < 1 || js.arrival < 0)
                    fz_fail("elastic job %lld (line %ld): %d GPUs, batch %d", (long long)js.id,
                            js.line, js.workers, js.batch);
                continue;
            }
            if (js.jtype < 0 || js.jtype >= tput_ntypes(m) || js.workers < 1 ||
                !(js.work > 0) || !isfinite(js.work) || !(js.weight > 0) ||
                !isfinite(js.weight) || js.user < 0)
                fz_fail("job %lld (line %ld): type %d, %d workers, work %g, weight %g, user %d",
                        (long long)js.id, js.line, js.jtype, js.workers, js.work, js.weight,
                        js.user);
        }
        workload_close(w);
    } else if (w != NULL) {
        fz_fail("workload_open failed but returned a workload");
    }
    jsonf_destroy(d);
    return 0;
}
