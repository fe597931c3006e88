/*
 * world: the training world behind the world interface (sim/core/world.h) — its fields of
 * the experiment, which policies it can run, the check of every job, and one run in one of
 * its three mechanisms: native (train.c: event-driven, placement-aware, restores cost their
 * checkpoint delay), Gavel-compatible (gavel.c: Gavel's round mechanism, "mode": "gavel") or
 * Pollux-compatible (pollux.c: Pollux's 60 s ticks over elastic applications' measured
 * profiles, "mode": "pollux", whose applications come from models.elastic).
 *
 * Its rows: one `jobs` row per job that arrived and one `job_gpu_seconds` row per (job, GPU
 * type it used), written as each job leaves; its time series through the samples; its
 * summary (summary.c) when the run ends.  Memory follows the active jobs: a finished job
 * leaves only its JCT (for percentiles) behind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/elastic.h"
#include "../base/path.h"
#include "../core/timeline.h"
#include "../core/world.h"
#include "gavel.h"
#include "pollux.h"
#include "share.h"
#include "summary.h"
#include "train.h"

enum mode { MODE_NATIVE, MODE_GAVEL, MODE_POLLUX };

struct restore_entry {                  /* one entry of sim.restore_by_type */
    char   name[JT_NAME_MAX];
    double seconds;
    char   file[256];
    long   line;
};

struct config {
    int                 mode;           /* enum mode */
    struct train_config train;          /* the native world's settings (restores, rounds) */
    double              min_realloc_s;  /* Gavel mode: minimum time between recomputes */
    double              tick_s;         /* Pollux mode: the fixed interval, 60 s */
    double              restart_s;      /* Pollux mode: the penalty of every reallocation */
    char                elastic_path[PATH_MAX_LEN];     /* models.elastic (applications.json) */
    struct share_config mux;            /* "multiplex": shared GPUs (share.h) */
    char                restore_at[192];    /* its path ("sim.restore_by_type", a tenant's
                                               "tenants.training.sim.restore_by_type") */
    struct restore_entry *restore;      /* sim.restore_by_type, resolved against the model
                                           when a run starts */
    int                 nrestore;
};

static const char *const top_keys[] = { "mode", "multiplex", NULL };
static const char *const sim_keys[] = { "restore_delay_s", "restore_fixed_s", "storage_gbs",
                                        "round_samples", "min_realloc_s", "tick_s",
                                        "restart_s", "restore_by_type", NULL };
static const char *const model_keys[] = { "elastic", NULL };
static const char default_elastic[] = "models/data/pollux/applications.json";
/* a handful, so that a table fits 100 columns: the rest with --columns or --all */
static const char *const report_columns[] = { "jobs_done", "jct_mean", "jct_p99", "makespan",
                                              "ftf_mean", NULL };
static const char *const bar_metrics[] = { "jct_mean", "jct_p99", "makespan", "ftf_mean",
                                           "ftf_max", "throughput_norm_window", "util_total",
                                           NULL };
static const char *const sweep_metrics[] = { "jct_mean", "ftf_mean", "makespan", NULL };
static const struct display_cdf cdfs[] = {
    { "jct_cdf", "jobs", "jct_s", "job completion time (log scale)", "job completion time CDF",
      1, 0 },
    { "ftf_cdf", "jobs", "ftf_rho",
      "finish-time fairness rho = JCT / isolated JCT (log scale; <= 1 is fair)",
      "finish-time fairness CDF", 0, 1 },
};
static const struct display display = {
    .entity = "jobs",
    .report_columns = report_columns,
    .bar_metrics = bar_metrics,
    .sweep_metrics = sweep_metrics,
    .cdfs = cdfs,
    .ncdfs = sizeof cdfs / sizeof cdfs[0],
    .util_panels = 1,
    .queue_series = "queue_len",
    .queue_label = "jobs waiting",
    .entity_one = "job",
    .resource_one = "GPU",
};

static void free_config(void *config)
{
    struct config *c = config;
    if (c != NULL)
        free(c->restore);
    free(c);
}

/* sim.restore_by_type: { "job type": seconds >= 0, ... }, kept with each entry's place so
 * that a name the model does not know is reported there when a run resolves it. */
static int read_restores(struct config *c, const struct jobj *sim, struct errbuf *err)
{
    struct jobj o;
    const cJSON *node = sim->node != NULL
                            ? cJSON_GetObjectItemCaseSensitive(sim->node, "restore_by_type") : NULL;
    if (node == NULL)
        return 0;
    if (jobj_obj(&o, sim, "restore_by_type", JREQ, err) < 0)
        return -1;
    snprintf(c->restore_at, sizeof c->restore_at, "%s", o.path);
    int n = cJSON_GetArraySize(o.node);
    c->restore = calloc((size_t)(n > 0 ? n : 1), sizeof *c->restore);
    if (c->restore == NULL)
        return err_run(err, "out of memory");
    for (const cJSON *e = o.node->child; e != NULL; e = e->next) {
        struct restore_entry *r = &c->restore[c->nrestore++];
        double v;
        if (jobj_num(&o, e->string, JREQ, 0, 1e7, &v, err) < 0)
            return -1;
        if (strlen(e->string) >= sizeof r->name)
            return jsonf_error(o.doc, e, o.path, err, "job type name too long");
        snprintf(r->name, sizeof r->name, "%s", e->string);
        r->seconds = v;
        const char *file;
        jsonf_where(o.doc, e, &file, &r->line);
        snprintf(r->file, sizeof r->file, "%s", file != NULL ? file : "");
    }
    return 0;
}

/* The per-type restart delays of a run (NULL when none are given): -1 where not given. */
static int resolve_restores(const struct config *c, const tput *m, double **out,
                            struct errbuf *err)
{
    *out = NULL;
    if (c->nrestore == 0)
        return 0;
    double *by = malloc(sizeof *by * (size_t)tput_ntypes(m));
    if (by == NULL)
        return err_run(err, "out of memory");
    for (int t = 0; t < tput_ntypes(m); t++)
        by[t] = -1;
    for (int i = 0; i < c->nrestore; i++) {
        int t = tput_find(m, c->restore[i].name);
        if (t < 0) {
            free(by);
            char field[JT_NAME_MAX + 224];
            snprintf(field, sizeof field, "%s.%s", c->restore_at, c->restore[i].name);
            return err_input(err, c->restore[i].file, c->restore[i].line, field,
                             "unknown job type '%s' (hetsim list models)", c->restore[i].name);
        }
        by[t] = c->restore[i].seconds;
    }
    *out = by;
    return 0;
}

static int read_config(void **out, const struct jobj *root, const struct jobj *sim,
                       const char *base_dir, struct errbuf *err)
{
    static const char *const modes[] = { "native", "gavel", "pollux", NULL };
    struct config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    c->train = (struct train_config){ .restore_delay_s = -1, .restore_fixed_s = 10,
                                      .storage_gbs = 2.0, .round_samples = 1 };
    c->min_realloc_s = 1920;
    c->tick_s = 60;
    c->restart_s = 30;
    struct jobj models;
    const char *profiles_name = NULL;
    if (jobj_enum(root, "mode", JOPT, modes, &c->mode, err) < 0 ||
        jobj_num(sim, "restore_delay_s", JOPT, -1, 1e7, &c->train.restore_delay_s, err) < 0 ||
        jobj_num(sim, "restore_fixed_s", JOPT, 0, 1e7, &c->train.restore_fixed_s, err) < 0 ||
        jobj_num(sim, "storage_gbs", JOPT, 0, 1e6, &c->train.storage_gbs, err) < 0 ||
        jobj_num(sim, "min_realloc_s", JOPT, 0, 1e9, &c->min_realloc_s, err) < 0 ||
        jobj_num(sim, "tick_s", JOPT, 1, 1e7, &c->tick_s, err) < 0 ||
        jobj_num(sim, "restart_s", JOPT, 0, 1e7, &c->restart_s, err) < 0 ||
        jobj_bool(sim, "round_samples", JOPT, &c->train.round_samples, err) < 0 ||
        jobj_obj(&models, root, "models", JOPT, err) < 0 ||
        (models.node != NULL && jobj_str(&models, "elastic", JOPT, &profiles_name, err) < 0) ||
        share_read(&c->mux, root, base_dir, err) < 0 ||
        read_restores(c, sim, err) < 0)
        goto fail;
    if (c->mode == MODE_POLLUX && c->tick_s != floor(c->tick_s)) {
        jsonf_error(sim->doc, cJSON_GetObjectItemCaseSensitive(sim->node, "tick_s"),
                    JOBJ_FIELD(sim, "tick_s"),
                    err, "Pollux's interval is a whole number of seconds, not %g", c->tick_s);
        goto fail;
    }
    /* only Pollux mode needs the profiles; a path given is checked in every mode */
    if ((c->mode == MODE_POLLUX || profiles_name != NULL) &&
        path_resolve(c->elastic_path, sizeof c->elastic_path, profiles_name ? base_dir : NULL,
                     profiles_name ? profiles_name : default_elastic) < 0) {
        if (profiles_name != NULL)
            jsonf_error(models.doc, cJSON_GetObjectItemCaseSensitive(models.node, "elastic"),
                        JOBJ_FIELD(&models, "elastic"), err, "file '%s' not found (looked next "
                        "to the experiment, in the current directory and under %s)",
                        profiles_name, path_data_root());
        else
            err_input(err, default_elastic, 0, NULL, "shipped profiles missing under %s (set "
                      "HETSIM_DATA?)", path_data_root());
        goto fail;
    }
    if (c->mode == MODE_POLLUX && models.node != NULL &&
        cJSON_GetObjectItemCaseSensitive(models.node, "elastic_sia") != NULL) {
        jsonf_error(models.doc, cJSON_GetObjectItemCaseSensitive(models.node, "elastic_sia"),
                    JOBJ_FIELD(&models, "elastic_sia"), err, "Sia's profiles are for the native "
                    "mode (one job type per application and batch); Pollux-compatible mode "
                    "reads its one GPU type from models.elastic");
        goto fail;
    }
    if (c->mux.on && c->mode != MODE_NATIVE) {
        jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(root->node, "multiplex"),
                    JOBJ_FIELD(root, "multiplex"), err, "shared GPUs need the native mode: %s "
                    "mechanism gives every job whole GPUs", c->mode == MODE_GAVEL ? "Gavel's" : "Pollux's");
        goto fail;
    }
    *out = c;
    return 0;
fail:
    free_config(c);
    return -1;
}

static int check_policy(const void *config, const void *decider, char *msg, size_t cap)
{
    const struct config *c = config;
    const struct train_decider *d = decider;
    if (c->mode == MODE_POLLUX && d->elastic == NULL) {
        snprintf(msg, cap, "has no elastic allocation rule, which Pollux-compatible mode "
                 "(\"mode\": \"pollux\") needs (pollux_tiresias, optimus and the other "
                 "policies of sched/elastic/ have one)");
        return -1;
    }
    if (c->mode != MODE_POLLUX && d->decide == NULL) {
        snprintf(msg, cap, "is an elastic policy of Pollux's interface: it runs only in "
                 "Pollux-compatible mode (\"mode\": \"pollux\", with a \"pollux\" workload)");
        return -1;
    }
    if (c->mode == MODE_GAVEL && d->allocate == NULL) {
        snprintf(msg, cap, "has no allocation rule, which Gavel-compatible mode "
                 "(\"mode\": \"gavel\") needs (fifo_perf, gavel_las, gavel_las_perf, gavel_ftf "
                 "and the other round-based policies have one)");
        return -1;
    }
    return 0;
}

static int uses_seed(const void *config, const void *decider)
{
    const struct config *c = config;
    const struct train_decider *d = decider;
    /* Gavel shuffles an agnostic policy's type order every round with it */
    return c->mode == MODE_GAVEL && d != NULL && d->agnostic;
}

/* Pollux mode's jobs: each an application with a profile on the cluster's one GPU type;
 * listed in Pollux's own format. */
static int check_pollux(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    const struct config *c = env->config;
    elastic *apps;
    if (elastic_load(&apps, cluster_catalog(env->cl), c->elastic_path, err) < 0)
        return -1;
    int gpu = pollux_cluster_gpu(env->cl, apps, err), rc = gpu < 0 ? -1 : 1;
    struct job_spec js;
    simtime last = 0;
    if (list != NULL && rc > 0)
        fprintf(list, "name,time,application,num_replicas,batch_size\n");
    while (rc > 0 && (rc = env->source->next(env->source->ctx, &js, err)) > 0) {
        if (js.arrival < last) {
            rc = err_input(err, js.origin, js.line, "time", "submissions must not decrease");
            break;
        }
        last = js.arrival;
        if (pollux_job_check(env->cl, apps, gpu, &js, err) < 0) {
            rc = -1;
            break;
        }
        (*count)++;
        if (list != NULL)
            fprintf(list, "%s,%.17g,%s,%d,%d\n", js.name, sim_to_sec(js.arrival), js.app,
                    js.workers, js.batch);
    }
    elastic_destroy(apps);
    return rc < 0 ? -1 : 0;
}

static int check_source(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    const struct config *c = env->config;
    struct entity_source *src = env->source;
    struct job_spec js;
    int rc;
    simtime last = 0;
    *count = 0;
    if (c->mode == MODE_POLLUX)
        return check_pollux(env, list, count, err);
    if (c->mux.on) {                    /* the interference tables, as a run reads them */
        share *sh;
        if (share_open(&sh, &c->mux, env->model, err) < 0)
            return -1;
        share_destroy(sh);
    }
    double *by;
    if (resolve_restores(c, env->model, &by, err) < 0)
        return -1;
    free(by);
    if (list != NULL)
        fprintf(list, "id,arrival_s,job_type,workers,iterations,user,weight\n");
    while ((rc = src->next(src->ctx, &js, err)) > 0) {
        if (js.arrival < last) {
            rc = err_input(err, js.origin, js.line, "arrival", "arrivals must not decrease");
            break;
        }
        last = js.arrival;
        /* the world's own check of every job it reads */
        if ((c->mode == MODE_GAVEL ? gavel_job_check : train_job_check)(env->cl, env->model,
                                                                          &js, err) < 0) {
            rc = -1;
            break;
        }
        (*count)++;
        if (list != NULL)
            fprintf(list, "%lld,%.6f,\"%s\",%d,%.17g,%d,%.17g\n", (long long)js.id,
                    sim_to_sec(js.arrival), tput_type(env->model, js.jtype)->name, js.workers,
                    js.work, js.user, js.weight);
    }
    return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- one run */

extern const struct world_ops train_world;

struct world {
    const struct world_env *env;
    const struct config    *cfg;
    summary                *sum;
    int64_t                 done;
    elastic                *apps;           /* Pollux mode's applications */
    /* the native mode's run (attach to finish) */
    train                  *t;
    share                  *sh;             /* multiplex: the shared-GPU speed hook */
    double                 *restore_by;     /* sim.restore_by_type by job type, or NULL */
};

static const char *const job_cols[] = {
    "job_id", "user", "job_type", "workers", "work", "arrival_s", "first_start_s",
    "finish_s", "jct_s", "queue_delay_s", "n_avg", "t_iso_s", "ftf_rho", "attained_gpu_s",
    "preemptions", "migrations" };
enum { NJOB_COLS = sizeof job_cols / sizeof job_cols[0] };
/* an elastic job's row: the same and its range of GPU counts and batch (NULL for a rigid
 * job: its row leaves them out, so that it is what it was before they existed) */
static const char *const elastic_job_cols[] = {
    "job_id", "user", "job_type", "workers", "work", "arrival_s", "first_start_s",
    "finish_s", "jct_s", "queue_delay_s", "n_avg", "t_iso_s", "ftf_rho", "attained_gpu_s",
    "preemptions", "migrations", "min_workers", "max_workers", "batch" };
enum { NELASTIC_COLS = sizeof elastic_job_cols / sizeof elastic_job_cols[0] };
static const char *const gpu_cols[] = { "job_id", "gpu_type", "gpu_s" };

static int on_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    struct world *w = ctx;
    const struct world_writer *out = w->env->out;
    const struct train_job *j = r->job;
    double arrival = sim_to_sec(j->arrival);
    double first = j->first_start >= 0 ? sim_to_sec(j->first_start) : -1;
    double finish = r->finish >= 0 ? sim_to_sec(r->finish) : -1;
    if (summary_job(w->sum, j->id, finish >= 0 ? finish - arrival : -1,
                    first >= 0 ? first - arrival : -1, r->rho) < 0)
        return err_run(err, "out of memory");
    if (((++w->done) & 1023) == 0 && out->progress != NULL && out->progress_events == NULL)
        out->progress(out->ctx, finish >= 0 ? r->finish : j->arrival, w->done);
    if (out->row == NULL)
        return 0;
    struct row_value v[NELASTIC_COLS] = {
        row_int(r->trace_id), row_int(j->user),
        row_text(r->type_name ? r->type_name : tput_type(w->env->model, j->jtype)->name),
        row_int(j->workers), row_real(j->work), row_real(arrival), row_opt(first),
        row_opt(finish), row_opt(finish < 0 ? -1 : finish - arrival),
        row_opt(first < 0 ? -1 : first - arrival), row_real(r->n_avg), row_opt(r->t_iso),
        row_opt(r->rho), row_real(train_view_attained(j, j->updated)),
        row_int(j->preemptions), row_int(j->migrations),
        row_int(j->min_workers), row_int(j->max_workers), row_int(j->batch),
    };
    if (!(j->batch > 0))
        v[NELASTIC_COLS - 1] = row_null();
    if (r->elastic ? out->row(out->ctx, "jobs", elastic_job_cols, v, NELASTIC_COLS, err) < 0
                   : out->row(out->ctx, "jobs", job_cols, v, NJOB_COLS, err) < 0)
        return -1;
    const int *types;
    int nt = cluster_types(w->env->cl, &types);
    for (int i = 0; i < nt; i++) {
        if (!(r->gpu_s[i] > 0))
            continue;
        struct row_value g[3] = {
            row_int(r->trace_id),
            row_text(catalog_gpu(cluster_catalog(w->env->cl), types[i])->name),
            row_real(r->gpu_s[i]) };
        if (out->row(out->ctx, "job_gpu_seconds", gpu_cols, g, 3, err) < 0)
            return -1;
    }
    return 0;
}

static int on_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    struct world *w = ctx;
    return w->env->out->sample(w->env->out->ctx, t, name, v, err);
}

/* One interval of a job's timeline: a row per GPU it held (one row while queued). */
static int on_segment(void *ctx, const struct train_segment *sg, struct errbuf *err)
{
    struct world *w = ctx;
    return timeline_gpus(w->env->out, w->env->cl, sg->trace_id, sg->gpus, sg->ngpu, sg->from,
                         sg->to, sg->state, sg->share, sg->cause, sg->ends, err);
}

static void on_tick(void *ctx, simtime t, uint64_t events)
{
    struct world *w = ctx;
    const struct world_writer *out = w->env->out;
    out->progress_events(out->ctx, t, w->done, events);
}

static int create(void **out, const struct world_env *env, struct errbuf *err)
{
    struct world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->env = env;
    w->cfg = env->config;
    w->sum = summary_create(env->sim->steady_first, env->sim->steady_last);
    if (w->sum == NULL) {
        free(w);
        return err_run(err, "out of memory");
    }
    if (w->cfg->mode == MODE_POLLUX &&
        elastic_load(&w->apps, cluster_catalog(env->cl), w->cfg->elastic_path, err) < 0) {
        summary_destroy(w->sum);
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

static void destroy(void *world)
{
    struct world *w = world;
    if (w == NULL)
        return;
    summary_destroy(w->sum);
    elastic_destroy(w->apps);
    train_destroy(w->t);
    share_destroy(w->sh);
    free(w->restore_by);
    free(w);
}

/* The summary of the run into the writer's metrics. */
static int write_summary(struct world *w, const struct train_totals *tot, double gavel_util,
                         struct errbuf *err)
{
    const struct world_env *env = w->env;
    const int *types;
    struct summary_run sr = {
        .makespan_s = sim_to_sec(tot->makespan),
        .horizon_s = tot->jobs_done == tot->jobs_in ? sim_to_sec(tot->makespan)
                                                    : sim_to_sec(tot->end),
        .preemptions = tot->preemptions, .migrations = tot->migrations,
        .ntypes = cluster_types(env->cl, &types),
        .window_from_s = tot->window.from, .window_to_s = tot->window.to,
        .window_norm_s = tot->window_norm_s,
    };
    for (int i = 0; i < sr.ntypes; i++) {
        const struct gpu_spec *g = catalog_gpu(cluster_catalog(env->cl), types[i]);
        sr.type_name[i] = g->name;
        sr.type_count[i] = cluster_type_count(env->cl, types[i]);
        sr.type_busy_s[i] = tot->busy_gpu_s[i];
        sr.type_price_hr[i] = g->price_hr;
        sr.type_window_busy_s[i] = tot->window_busy_gpu_s[i];
    }
    struct metric m[SUMMARY_MAX_METRICS];
    size_t n = summary_finish(w->sum, &sr, m, SUMMARY_MAX_METRICS);
    for (size_t i = 0; i < n; i++)
        if (env->out->metric(env->out->ctx, m[i].name, m[i].value, err) < 0)
            return -1;
    /* Gavel's own utilization figure (micro-task time from the round start), for comparison
     * with Gavel's simulator; util_total is hetsim's busy-GPU measure */
    if (gavel_util >= 0 &&
        env->out->metric(env->out->ctx, "gavel_utilization", gavel_util, err) < 0)
        return -1;
    return 0;
}

static struct train_sink sink_of(struct world *w)
{
    const struct world_env *env = w->env;
    return (struct train_sink){
        w, on_job, on_sample,
        env->sim->timeline && env->out->row != NULL ? on_segment : NULL,
        env->out->progress_events != NULL ? on_tick : NULL,
    };
}

/* The native mode on an engine it does not own (world.h's attach); Gavel's rounds and
 * Pollux's ticks own their loops. */
static int attach(void *world, engine *e, struct errbuf *err)
{
    struct world *w = world;
    const struct world_env *env = w->env;
    if (w->cfg->mode != MODE_NATIVE)
        return err_run(err, "the training world shares an engine only in its native mode, "
                       "not in %s-compatible mode", w->cfg->mode == MODE_GAVEL ? "Gavel"
                                                                               : "Pollux");
    if (w->t != NULL)
        return err_run(err, "training world attached twice");
    struct train_config tc = w->cfg->train;
    if (resolve_restores(w->cfg, env->model, &w->restore_by, err) < 0)
        return -1;
    tc.restore_by_type = w->restore_by;
    tc.sample_period = env->sim->sample_period;
    tc.until = env->sim->until;
    tc.max_events = env->sim->max_events;
    tc.measure = env->sim->measure;
    if (w->cfg->mux.on) {
        if (share_open(&w->sh, &w->cfg->mux, env->model, err) < 0)
            return -1;
        tc.speed = share_speed(w->sh);
    }
    struct train_sink sink = sink_of(w);
    if (train_create(&w->t, env->cl, env->model, &tc, env->source, env->decider, &sink,
                     err) < 0)
        return -1;
    return train_attach(w->t, e, err);
}

static int finish(void *world, int stop, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    struct train_totals tot;
    if (train_finish(w->t, stop, &tot, err) < 0)
        return -1;
    *out = (struct world_totals){ .end = tot.end, .stop = tot.stop, .events = tot.events,
                                  .decisions = tot.decisions, .entities_in = tot.jobs_in,
                                  .entities_done = tot.jobs_done };
    for (int i = 0; i < CLUSTER_MAX_TYPES; i++)
        out->busy_gpu_s[i] = tot.busy_gpu_s[i];
    return write_summary(w, &tot, -1, err);
}

static int run(void *world, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    const struct world_env *env = w->env;
    const struct train_decider *dec = env->decider;
    if (w->cfg->mode == MODE_NATIVE)
        return world_run_alone(&train_world, w, env->sim, out, err);
    struct train_sink sink = sink_of(w);
    struct train_totals tot;
    double gavel_util = -1;
    if (w->cfg->mode == MODE_GAVEL) {
        struct gavel_config gc = { env->seed, dec->round, w->cfg->min_realloc_s,
                                   env->sim->sample_period, w->cfg->train.round_samples,
                                   env->sim->max_events, env->sim->measure };
        struct gavel_totals gt;
        if (gavel_run(env->cl, env->model, &gc, env->source, dec, &sink, &gt, err) < 0)
            return -1;
        tot = gt.t;
        gavel_util = gt.utilization;
    } else {
        struct pollux_config pc = {
            .tick = sim_from_sec(w->cfg->tick_s), .restart_s = w->cfg->restart_s,
            .sample_period = env->sim->sample_period, .until = env->sim->until,
            .max_events = env->sim->max_events, .measure = env->sim->measure,
        };
        if (pollux_run(env->cl, w->apps, &pc, env->source, dec, &sink, &tot, err) < 0)
            return -1;
    }
    *out = (struct world_totals){ .end = tot.end, .stop = tot.stop, .events = tot.events,
                                  .decisions = tot.decisions, .entities_in = tot.jobs_in,
                                  .entities_done = tot.jobs_done };
    return write_summary(w, &tot, gavel_util, err);
}

/* ---------------------------------------------------------------- tenancy (train.h) */

static int take(void *world, const int *gpus, int n, int64_t *affected, struct errbuf *err)
{
    struct world *w = world;
    return train_withhold(w->t, gpus, n, affected, err) < 0 ? -1 : 1;
}

static int give(void *world, const int *gpus, int n, struct errbuf *err)
{
    struct world *w = world;
    return train_give(w->t, gpus, n, err);
}

static double take_cost(void *world, const int *gpus, int n)
{
    struct world *w = world;
    return train_reclaim_cost(w->t, gpus, n);
}

static void load(void *world, struct world_load *out)
{
    struct world *w = world;
    *out = (struct world_load){ .waiting = train_waiting_gpus(w->t), .slo_miss = -1 };
    train_type_gain(w->t, out->gain);
}

const struct world_ops train_world = {
    .domain = "training",
    .summary = "DL training jobs on GPU clusters: rounds of allocation, preemption, "
               "migration; native, Gavel- or Pollux-compatible",
    .entity = "jobs",
    .top_keys = top_keys,
    .sim_keys = sim_keys,
    .model_keys = model_keys,
    .display = &display,
    .read = read_config,
    .free_config = free_config,
    .check_policy = check_policy,
    .uses_seed = uses_seed,
    .check_source = check_source,
    .create = create,
    .run = run,
    .destroy = destroy,
    .attach = attach,
    .finish = finish,
    .take = take,
    .give = give,
    .take_cost = take_cost,
    .load = load,
};
