/*
 * workload: reads the "workload" object, finds its format in the registry
 * (workloads/registry.c), checks that the object holds only the shared fields and the
 * format's own, resolves the trace path, prepares the shared settings (reference GPU,
 * job-type mix, arrival scale, job limit) and wraps the format's reader as an entity_source.
 * Arrival scaling and the job limit are applied here, once, for all readers.
 */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/path.h"
#include "reader.h"

struct workload {
    struct reader_common  c;
    struct reader         r;
    struct entity_source     src;
    const struct workload_format *format;
};

static int src_next(void *ctx, void *out, struct errbuf *err)
{
    workload *w = ctx;
    if (w->c.max_jobs > 0 && w->c.emitted >= w->c.max_jobs)
        return 0;
    int rc;
    while (w->c.skip_jobs > 0) {
        if ((rc = w->r.next(w->r.st, &w->c, out, err)) <= 0)
            return rc;
        w->c.skip_jobs--;
    }
    rc = w->r.next(w->r.st, &w->c, out, err);
    if (rc <= 0)
        return rc;
    simtime *arrival = (simtime *)((char *)out + w->format->arrival_at);
    if (w->c.emitted == 0 && w->c.rebase < 0)
        w->c.rebase = *arrival;
    if (w->c.rebase > 0)
        *arrival -= w->c.rebase;
    if (w->c.arrival_scale != 1.0)
        *arrival = sim_from_sec(sim_to_sec(*arrival) * w->c.arrival_scale);
    w->c.emitted++;
    return 1;
}

const struct workload_format *workload_format_find(const char *name)
{
    for (int i = 0; workload_registry[i] != NULL; i++)
        if (strcmp(workload_registry[i]->name, name) == 0)
            return workload_registry[i];
    return NULL;
}

/* The fields of every workload object, then the format's own. */
static const char *const common_keys[] = { "format", "max_jobs", "skip_jobs", "arrival_scale",
                                           "note", NULL };

static int check_keys(const struct jobj *cfg, const struct workload_format *f,
                      struct errbuf *err)
{
    const char *known[64];
    int n = 0;
    for (int i = 0; common_keys[i] != NULL; i++)
        known[n++] = common_keys[i];
    if (f->flags & FORMAT_TRACE)
        known[n++] = "trace";
    if (f->flags & FORMAT_DURATIONS)
        known[n++] = "reference_gpu";
    if (f->flags & FORMAT_MIX)
        known[n++] = "job_types";
    for (int i = 0; f->keys != NULL && f->keys[i] != NULL && n < 63; i++)
        known[n++] = f->keys[i];
    known[n] = NULL;
    return jobj_known(cfg, known, err);
}

static int read_format(const struct jobj *cfg, const struct workload_format **out,
                       struct errbuf *err)
{
    const char *names[32];
    int n = 0, i = -1;
    for (; workload_registry[n] != NULL && n < 31; n++)
        names[n] = workload_registry[n]->name;
    names[n] = NULL;
    if (jobj_enum(cfg, "format", JREQ, names, &i, err) < 0)
        return -1;
    *out = workload_registry[i];
    return 0;
}

int workload_seeded(const struct jobj *cfg)
{
    const struct workload_format *f;
    struct errbuf err = { 0 };
    if (read_format(cfg, &f, &err) < 0)
        return 0;
    return f->seeded_by ? f->seeded_by(cfg) : !!(f->flags & FORMAT_SEEDED);
}

int workload_open(workload **out, const struct jobj *cfg, const struct workload_env *env,
                  struct errbuf *err)
{
    *out = NULL;
    const struct workload_format *f;
    if (read_format(cfg, &f, err) < 0 || check_keys(cfg, f, err) < 0)
        return -1;
    workload *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    struct reader_common *c = &w->c;
    c->model = env->model;
    c->seed = env->seed;
    c->base_dir = env->base_dir;
    c->arrival_scale = 1.0;
    c->rebase = 0;
    const char *trace = NULL, *ref = "V100", *note;
    if (jobj_str(cfg, "note", JOPT, &note, err) < 0 ||
        jobj_str(cfg, "trace", (f->flags & FORMAT_TRACE) ? JREQ : JOPT, &trace, err) < 0 ||
        jobj_str(cfg, "reference_gpu", JOPT, &ref, err) < 0 ||
        jobj_int(cfg, "max_jobs", JOPT, 0, INT64_C(1) << 40, &c->max_jobs, err) < 0 ||
        jobj_int(cfg, "skip_jobs", JOPT, 0, INT64_C(1) << 40, &c->skip_jobs, err) < 0 ||
        jobj_num(cfg, "arrival_scale", JOPT, 1e-9, 1e9, &c->arrival_scale, err) < 0 ||
        reader_read_mix(cfg, "job_types", c->model, &c->mix_types, &c->mix_weights, &c->nmix,
                        err) < 0)
        goto fail;
    c->ref_gpu = catalog_gpu_find(tput_catalog(env->model), ref);
    if (c->ref_gpu < 0) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "reference_gpu"),
                    JOBJ_FIELD(cfg, "reference_gpu"), err,
                    "unknown GPU type '%s'", ref);
        goto fail;
    }
    if (c->skip_jobs > 0)
        c->rebase = -1;         /* the first job kept sets it */
    if (trace != NULL && path_resolve(c->path, sizeof c->path, env->base_dir, trace) < 0) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "trace"),
                    JOBJ_FIELD(cfg, "trace"), err, "trace file '%s' not found (looked next to the "
                    "experiment, in the current directory and under %s)", trace,
                    path_data_root());
        goto fail;
    }
    w->format = f;
    if (f->open(&w->r, c, cfg, err) < 0)
        goto fail;
    w->src = (struct entity_source){ w, src_next };
    *out = w;
    return 0;
fail:
    workload_close(w);
    return -1;
}

void workload_close(workload *w)
{
    if (w == NULL)
        return;
    if (w->r.close != NULL)
        w->r.close(w->r.st);
    free(w->c.mix_types);
    free(w->c.mix_weights);
    free(w);
}

struct entity_source *workload_source(workload *w)
{
    return &w->src;
}

const char *workload_domain(const workload *w)
{
    return w->format->domain;
}
