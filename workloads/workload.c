/*
 * workload: reads the "workload" object, resolves the trace path, prepares the common
 * settings (reference GPU, job-type mix, arrival scale, job limit) and wraps the chosen reader
 * as a job_source.  Arrival scaling and the job limit are applied here, once, for all readers.
 */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/paths.h"
#include "wl_int.h"

struct workload {
    struct wl_common  c;
    struct wl_reader  r;
    struct job_source src;
};

double wl_work_from_duration(const tput *m, int jtype, int gpu, int workers, double duration_s)
{
    const struct gpu_spec *g = cat_gpu(tput_catalog(m), gpu);
    struct placement p = { .gpu = gpu, .workers = workers, .nodes = 1, .link = -1 };
    if (workers > 1)
        p.link = g->nvlink >= 0 ? g->nvlink : g->pcie;
    return duration_s * tput_rate(m, jtype, &p);
}

int wl_jobtype(const tput *m, const char *name, const char *file, long line, const char *field,
               struct errbuf *err)
{
    int id = tput_find(m, name);
    if (id >= 0)
        return id;
    int n = tput_ntypes(m);
    const char **names = malloc((size_t)(n + 1) * sizeof *names);
    const char *hint = NULL;
    if (names != NULL) {
        for (int i = 0; i < n; i++)
            names[i] = tput_type(m, i)->name;
        names[n] = NULL;
        hint = jsonf_suggest(name, names);
    }
    err_input(err, file, line, field, "unknown job type '%s'%s%s%s (see `hetsim list models`)",
              name, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    free(names);
    return -1;
}

void *wl_mix_table(const struct wl_common *c)
{
    return gsl_ran_discrete_preproc((size_t)c->nmix, c->mix_weights);
}

void wl_mix_table_free(void *table)
{
    if (table != NULL)
        gsl_ran_discrete_free(table);
}

int wl_mix_draw(const struct wl_common *c, gsl_rng *r, void *table)
{
    return c->mix_types[gsl_ran_discrete(r, table)];
}

int idset_add(struct idset *s, int64_t id)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        int64_t *k = calloc(nc, sizeof *k);
        uint8_t *u = calloc(nc, 1);
        if (k == NULL || u == NULL) {
            free(k);
            free(u);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                size_t j = ((uint64_t)s->keys[i] * 0x9e3779b97f4a7c15ULL >> 17) & (nc - 1);
                while (u[j])
                    j = (j + 1) & (nc - 1);
                k[j] = s->keys[i];
                u[j] = 1;
            }
        free(s->keys);
        free(s->used);
        s->keys = k;
        s->used = u;
        s->cap = nc;
    }
    size_t j = ((uint64_t)id * 0x9e3779b97f4a7c15ULL >> 17) & (s->cap - 1);
    while (s->used[j]) {
        if (s->keys[j] == id)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->keys[j] = id;
    s->used[j] = 1;
    s->n++;
    return 1;
}

void idset_free(struct idset *s)
{
    free(s->keys);
    free(s->used);
    memset(s, 0, sizeof *s);
}

static int src_next(void *ctx, struct job_spec *out, struct errbuf *err)
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
    if (w->c.emitted == 0 && w->c.rebase < 0)
        w->c.rebase = out->arrival;
    if (w->c.rebase > 0)
        out->arrival -= w->c.rebase;
    if (w->c.arrival_scale != 1.0)
        out->arrival = sim_from_sec(sim_to_sec(out->arrival) * w->c.arrival_scale);
    w->c.emitted++;
    return 1;
}

int wl_read_mix(const struct jobj *cfg, const char *key, const tput *model, int **types,
                double **weights, int *n_out, struct errbuf *err)
{
    struct jobj mix;
    *n_out = 0;
    if (jobj_obj(&mix, cfg, key, JOPT, err) < 0)
        return -1;
    if (mix.node == NULL)
        return 0;
    int n = cJSON_GetArraySize(mix.node);
    if (n == 0)
        return jsonf_error(cfg->doc, mix.node, mix.path, err, "needs at least one job type");
    *types = calloc((size_t)n, sizeof **types);
    *weights = calloc((size_t)n, sizeof **weights);
    if (*types == NULL || *weights == NULL)
        return err_run(err, "out of memory");
    int i = 0;
    for (const cJSON *e = mix.node->child; e != NULL; e = e->next, i++) {
        char p[320];
        snprintf(p, sizeof p, "%s.%s", mix.path, e->string);
        const char *file;
        long line;
        jsonf_where(cfg->doc, e, &file, &line);
        if (((*types)[i] = wl_jobtype(model, e->string, file, line, p, err)) < 0)
            return -1;
        if (jobj_num(&mix, e->string, JREQ, 0, 1e12, &(*weights)[i], err) < 0)
            return -1;
    }
    double sum = 0;
    for (i = 0; i < n; i++)
        sum += (*weights)[i];
    if (!(sum > 0))
        return jsonf_error(cfg->doc, mix.node, mix.path, err, "weights must not all be zero");
    *n_out = n;
    return 0;
}

static const char *const formats[] = { "hetsim", "gavel", "philly", "synthetic", NULL };
enum { FMT_HETSIM, FMT_GAVEL, FMT_PHILLY, FMT_SYNTH };

int wl_open(workload **out, const struct jobj *cfg, const struct wl_env *env,
            struct errbuf *err)
{
    static const char *const keys[] = {
        "format", "trace", "reference_gpu", "job_types", "max_jobs", "skip_jobs", "arrival_scale",
        /* philly */ "vc", "max_workers", "min_duration_s",
        /* synthetic */ "jobs", "rate_per_hour", "workers", "duration", "users", "tenants",
        "note", NULL };
    *out = NULL;
    workload *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    struct wl_common *c = &w->c;
    c->model = env->model;
    c->seed = env->seed;
    c->arrival_scale = 1.0;
    c->rebase = 0;
    int fmt = -1;
    const char *trace = NULL, *ref = "V100";
    if (jobj_known(cfg, keys, err) < 0 || jobj_enum(cfg, "format", JREQ, formats, &fmt, err) < 0 ||
        jobj_str(cfg, "trace", fmt == FMT_SYNTH ? JOPT : JREQ, &trace, err) < 0 ||
        jobj_str(cfg, "reference_gpu", JOPT, &ref, err) < 0 ||
        jobj_int(cfg, "max_jobs", JOPT, 0, INT64_C(1) << 40, &c->max_jobs, err) < 0 ||
        jobj_int(cfg, "skip_jobs", JOPT, 0, INT64_C(1) << 40, &c->skip_jobs, err) < 0 ||
        jobj_num(cfg, "arrival_scale", JOPT, 1e-9, 1e9, &c->arrival_scale, err) < 0 ||
        wl_read_mix(cfg, "job_types", c->model, &c->mix_types, &c->mix_weights, &c->nmix,
                    err) < 0)
        goto fail;
    c->ref_gpu = cat_gpu_find(tput_catalog(env->model), ref);
    if (c->ref_gpu < 0) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "reference_gpu"),
                    "workload.reference_gpu", err, "unknown GPU type '%s'", ref);
        goto fail;
    }
    if (c->skip_jobs > 0)
        c->rebase = -1;         /* the first job kept sets it */
    if (trace != NULL && path_resolve(c->path, sizeof c->path, env->base_dir, trace) < 0) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "trace"),
                    "workload.trace", err, "trace file '%s' not found (looked next to the "
                    "experiment, in the current directory and under %s)", trace,
                    path_data_root());
        goto fail;
    }
    if ((fmt == FMT_PHILLY || fmt == FMT_SYNTH) && c->nmix == 0 &&
        !(fmt == FMT_SYNTH && cJSON_GetObjectItemCaseSensitive(cfg->node, "tenants") != NULL)) {
        jsonf_error(cfg->doc, cfg->node, "workload.job_types", err,
                    "the %s format needs a job-type mix: {\"name\": weight, ...}", formats[fmt]);
        goto fail;
    }
    int rc;
    switch (fmt) {
    case FMT_HETSIM: rc = wl_hetsim_open(&w->r, c, err); break;
    case FMT_GAVEL:  rc = wl_gavel_open(&w->r, c, err); break;
    case FMT_PHILLY: rc = wl_philly_open(&w->r, c, cfg, err); break;
    default:         rc = wl_synth_open(&w->r, c, cfg, err); break;
    }
    if (rc < 0)
        goto fail;
    w->src = (struct job_source){ w, src_next };
    *out = w;
    return 0;
fail:
    wl_close(w);
    return -1;
}

void wl_close(workload *w)
{
    if (w == NULL)
        return;
    if (w->r.close != NULL)
        w->r.close(w->r.st);
    free(w->c.mix_types);
    free(w->c.mix_weights);
    free(w);
}

struct job_source *wl_source(workload *w)
{
    return &w->src;
}
