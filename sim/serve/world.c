/*
 * world: the serving world behind the world interface (sim/core/world.h) — its fields of the
 * experiment, the check of a policy (its deployment, made and checked before anything runs),
 * the check of every request, and one run (serve.c).
 *
 * Its fields: "model" (an LLM of the architectures file) and "slo" ({ "ttft_s", "tpot_s" },
 * optional) at the top level; in "sim": max_batch_tokens, max_seqs, block_tokens,
 * chunked_prefill, mem_util (vLLM's scheduler and memory settings), overlong ("error" or
 * "truncate": requests longer than the model's context), drain ("finish" or "migrate": what
 * an instance a co-simulation's broker takes does with its requests, serve.h) and engine (the
 * engine profile whose overheads every iteration and first token pay, default the fit file's
 * first), request_sample (the share of requests kept as `requests` rows, a systematic
 * sample of each class in the order they leave, default 1: every one; the metrics count
 * every request whatever it is); in "models":
 * llm (the architectures, default models/data/llms.json) and llm_fit (the latency model's
 * factors and engine profiles, default models/data/llm_fit.json).
 *
 * Its rows: one `requests` row per request that arrived (request_sample: a share of them),
 * written as it leaves; samples util_<GPU type>, util_total, kv_util, queue_len,
 * running_reqs; the summary of reqstats.h plus tokens_per_s and requests_per_s over the
 * measurement window (by default the first arrival to the last), util_<type> and util_total
 * over the run, and its counters.
 *
 * As a tenant (world.h's tenancy), its load tells a broker the work arrived, its per-type
 * speed and, since the previous load call, how many first tokens came and what fraction of
 * them missed slo.ttft_s (serve_first_tokens' counters, differenced here: O(1) a request).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/path.h"
#include "../core/world.h"
#include "reqstats.h"
#include "serve.h"

struct config {
    char                  arch_path[PATH_MAX_LEN], fit_path[PATH_MAX_LEN];
    struct llm_arch       arch;         /* checked at read */
    char                  engine[LLM_NAME_MAX];     /* "": the fit file's first */
    struct serve_settings set;
    int                   overlong;
    int                   drain;        /* enum serve_drain */
    double                slo_ttft, slo_tpot;   /* < 0: none */
    double                request_sample;       /* share of requests kept as rows */
};

static const char *const top_keys[] = { "model", "slo", NULL };
static const char *const sim_keys[] = { "max_batch_tokens", "max_seqs", "block_tokens",
                                        "chunked_prefill", "mem_util", "overlong", "drain",
                                        "engine", "request_sample", NULL };
static const char *const model_keys[] = { "llm", "llm_fit", NULL };
/* a handful, so that a table fits 100 columns: the rest with --columns or --all */
static const char *const report_columns[] = { "ttft_p50", "ttft_p99", "tpot_p99",
                                              "tokens_per_s", "slo_attainment", NULL };
static const char *const bar_metrics[] = { "ttft_p50", "ttft_p99", "tpot_p50", "e2e_p99",
                                           "tokens_per_s", "slo_attainment", NULL };
static const char *const sweep_metrics[] = { "tokens_per_s", "ttft_p95", "e2e_mean",
                                             "slo_attainment", NULL };
static const struct display_cdf cdfs[] = {
    { "ttft_cdf", "requests", "ttft_s", "time to first token (log scale)",
      "time to first token CDF", 1, 0 },
    { "e2e_cdf", "requests", "e2e_s", "end-to-end latency (log scale)",
      "end-to-end latency CDF", 1, 0 },
    { "tpot_cdf", "requests", "tpot_s", "time per output token (log scale)",
      "time per output token CDF", 1, 0 },
};
static const struct display display = {
    .entity = "requests",
    .report_columns = report_columns,
    .bar_metrics = bar_metrics,
    .sweep_metrics = sweep_metrics,
    .cdfs = cdfs,
    .ncdfs = sizeof cdfs / sizeof cdfs[0],
    .util_panels = 1,
    .queue_series = "queue_len",
    .queue_label = "requests waiting",
    .entity_one = "request",
    .resource_one = "instance",
    .timeline_held = "requests running",
};

/* A file of root's "models" object, resolved against the experiment's folder. */
static int model_file(const struct jobj *root, const char *key, const char *def,
                      const char *base_dir, char *out, struct errbuf *err)
{
    struct jobj m;
    const char *v = NULL;
    if (jobj_obj(&m, root, "models", JOPT, err) < 0 || jobj_str(&m, key, JOPT, &v, err) < 0)
        return -1;
    if (v == NULL) {
        if (path_resolve(out, PATH_MAX_LEN, NULL, def) < 0)
            return err_input(err, def, 0, NULL, "shipped file missing under %s (set "
                             "HETSIM_DATA?)", path_data_root());
        return 0;
    }
    if (path_resolve(out, PATH_MAX_LEN, base_dir, v) < 0) {
        return jsonf_error(m.doc, cJSON_GetObjectItemCaseSensitive(m.node, key),
                           JOBJ_FIELD(&m, key), err,
                           "file '%s' not found (looked next to the experiment, in the current "
                           "directory and under %s)", v, path_data_root());
    }
    return 0;
}

static int read_config(void **out, const struct jobj *root, const struct jobj *sim,
                       const char *base_dir, struct errbuf *err)
{
    static const char *const overlongs[] = { "error", "truncate", NULL };
    static const char *const drains[] = { "finish", "migrate", NULL };
    static const char *const slo_keys[] = { "ttft_s", "tpot_s", "note", NULL };
    struct config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    c->set = (struct serve_settings){ .max_batch_tokens = 2048, .max_seqs = 256,
                                      .block_tokens = 16, .chunked_prefill = 1,
                                      .mem_util = 0.9 };
    c->slo_ttft = c->slo_tpot = -1;
    c->request_sample = 1;
    int64_t block = c->set.block_tokens;
    const char *model = NULL, *note, *engine = NULL;
    struct jobj slo;
    llm_catalog *lc = NULL;
    if (jobj_str(root, "model", JREQ, &model, err) < 0 ||
        jobj_obj(&slo, root, "slo", JOPT, err) < 0 ||
        (slo.node != NULL && (jobj_known(&slo, slo_keys, err) < 0 ||
                              jobj_num(&slo, "ttft_s", JOPT, 1e-6, 1e6, &c->slo_ttft, err) < 0 ||
                              jobj_num(&slo, "tpot_s", JOPT, 1e-6, 1e6, &c->slo_tpot, err) < 0 ||
                              jobj_str(&slo, "note", JOPT, &note, err) < 0)) ||
        jobj_int(sim, "max_batch_tokens", JOPT, 1, INT64_C(1) << 24, &c->set.max_batch_tokens,
                 err) < 0 ||
        jobj_int(sim, "max_seqs", JOPT, 1, 1 << 20, &c->set.max_seqs, err) < 0 ||
        jobj_int(sim, "block_tokens", JOPT, 1, 4096, &block, err) < 0 ||
        jobj_bool(sim, "chunked_prefill", JOPT, &c->set.chunked_prefill, err) < 0 ||
        jobj_num(sim, "mem_util", JOPT, 0.05, 1, &c->set.mem_util, err) < 0 ||
        jobj_enum(sim, "overlong", JOPT, overlongs, &c->overlong, err) < 0 ||
        jobj_enum(sim, "drain", JOPT, drains, &c->drain, err) < 0 ||
        jobj_str(sim, "engine", JOPT, &engine, err) < 0 ||
        jobj_num(sim, "request_sample", JOPT, 0, 1, &c->request_sample, err) < 0 ||
        model_file(root, "llm", llm_default_models, base_dir, c->arch_path, err) < 0 ||
        model_file(root, "llm_fit", llm_default_fit, base_dir, c->fit_path, err) < 0 ||
        llm_load(&lc, NULL, c->arch_path, c->fit_path, err) < 0)
        goto fail;
    if (engine != NULL) {
        if (llm_engine_find(lc, engine) == NULL) {
            char names[256];
            jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(sim->node, "engine"),
                        JOBJ_FIELD(sim, "engine"), err, "no engine profile '%s' in %s (it has: "
                        "%s)", engine, c->fit_path, llm_engine_names(lc, names, sizeof names));
            goto fail;
        }
        snprintf(c->engine, sizeof c->engine, "%s", engine);
    }
    c->set.block_tokens = (int32_t)block;
    const struct llm_arch *a = llm_find(lc, model);
    if (a == NULL) {
        char hint[96];
        jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(root->node, "model"),
                    JOBJ_FIELD(root, "model"),
                    err, "unknown model '%s'%s (see `hetsim list llms`)", model,
                    llm_hint(lc, model, hint, sizeof hint));
        goto fail;
    }
    c->arch = *a;
    if (!c->set.chunked_prefill && c->set.max_batch_tokens < c->arch.max_context) {
        const cJSON *n = sim->node ? cJSON_GetObjectItemCaseSensitive(sim->node,
                                                                      "max_batch_tokens") : NULL;
        jsonf_error(root->doc, n != NULL ? n : root->node,
                    JOBJ_FIELD(sim, "max_batch_tokens"), err,
                    "%lld tokens: without chunked prefill an iteration must hold a whole "
                    "prompt, up to the context of %s (%d tokens)",
                    (long long)c->set.max_batch_tokens, c->arch.name, c->arch.max_context);
        goto fail;
    }
    llm_destroy(lc);
    *out = c;
    return 0;
fail:
    llm_destroy(lc);
    free(c);
    return -1;
}

/* The latency model for a cluster's GPU catalog, and the served model in it. */
static int open_llm(const struct config *c, const cluster *cl, llm_catalog **lc,
                    const struct llm_arch **a, struct errbuf *err)
{
    if (llm_load(lc, cluster_catalog(cl), c->arch_path, c->fit_path, err) < 0)
        return -1;
    *a = llm_find(*lc, c->arch.name);
    if (*a == NULL)         /* the file changed under us */
        return err_input(err, c->arch_path, 0, NULL, "model '%s' is gone", c->arch.name);
    if (c->engine[0] != '\0' && llm_use_engine(*lc, c->engine) < 0)
        return err_input(err, c->fit_path, 0, NULL, "engine '%s' is gone", c->engine);
    return 0;
}

static int check_policy(const void *config, const void *decider, char *msg, size_t cap)
{
    const struct config *c = config;
    const struct serve_decider *d = decider;
    struct errbuf err;
    err_clear(&err);
    llm_catalog *lc = NULL;
    const struct llm_arch *a;
    struct serve_deployment *dep = calloc(1, sizeof *dep);
    int rc = -1;
    if (dep == NULL) {
        snprintf(msg, cap, "cannot be checked: out of memory");
        return -1;
    }
    if (open_llm(c, d->cl, &lc, &a, &err) < 0) {
        snprintf(msg, cap, "cannot be checked: %s", err.msg);
        goto out;
    }
    struct serve_env_view v = { d->cl, lc, a, &c->set };
    if (d->deploy(d->ctx, &v, dep, &err) < 0) {
        snprintf(msg, cap, "finds no deployment: %s", err.msg);
        goto out;
    }
    char why[512];
    if (serve_check_deployment(&v, dep, why, sizeof why) < 0) {
        snprintf(msg, cap, "deploys what cannot run: %s", why);
        goto out;
    }
    rc = 0;
out:
    llm_destroy(lc);
    free(dep);
    return rc;
}

static int check_source(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    const struct config *c = env->config;
    struct entity_source *src = env->source;
    struct request_spec q;
    int rc;
    simtime last = 0;
    *count = 0;
    if (list != NULL)
        fprintf(list, "id,arrival_s,prompt_tokens,output_tokens,class\n");
    while ((rc = src->next(src->ctx, &q, err)) > 0) {
        if (q.arrival < last) {
            rc = err_input(err, q.origin, q.line, "arrival", "arrivals must not decrease");
            break;
        }
        last = q.arrival;
        if (serve_request_check(&c->arch, c->overlong, &q, err) < 0) {
            rc = -1;
            break;
        }
        (*count)++;
        if (list != NULL)
            fprintf(list, "%lld,%.6f,%d,%d,%s\n", (long long)q.id, sim_to_sec(q.arrival),
                    q.prompt, q.output, q.cls != NULL ? q.cls : "default");
    }
    return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- one run */

struct world {
    const struct world_env *env;
    const struct config    *cfg;
    llm_catalog            *lc;
    const struct llm_arch  *arch;
    reqstats               *st;
    int64_t                 done;
    serve                  *s;              /* the run (attach to finish) */
    struct serve_sink       sink;           /* borrowed by s */
    struct world_tenancy    ten;            /* a broker's, in a co-simulation */
    int64_t                 firsts_seen, late_seen; /* serve_first_tokens at the last load */
    struct seen { const char *cls; int64_t n; } *seen;  /* requests left, by class (its
                                                           interned name): request_sample */
    int                     nseen;
};

static const char *const req_cols[] = {
    "request_id", "class", "arrival_s", "start_s", "first_s", "finish_s", "e2e_s", "queue_s",
    "ttft_s", "tpot_s", "in_tokens", "out_tokens", "sla_met" };
enum { NREQ_COLS = sizeof req_cols / sizeof req_cols[0] };

/* Is the next request of class cls (interned: one pointer a class) to leave kept as a row?
 * A systematic sample of each class: the (n + 1)-th is when floor((n + 1) f) passes an
 * integer.  1 or 0; -1 when out of memory. */
static int sampled(struct world *w, const char *cls, struct errbuf *err)
{
    double f = w->cfg->request_sample;
    if (f >= 1)
        return 1;
    int k = 0;
    while (k < w->nseen && w->seen[k].cls != cls)
        k++;
    if (k == w->nseen) {
        struct seen *s = realloc(w->seen, (size_t)(k + 1) * sizeof *s);
        if (s == NULL)
            return err_run(err, "out of memory");
        w->seen = s;
        w->seen[w->nseen++] = (struct seen){ cls, 0 };
    }
    int64_t n = w->seen[k].n++;
    return floor((double)(n + 1) * f) > floor((double)n * f);
}

static int on_request(void *ctx, const struct serve_record *r, struct errbuf *err)
{
    struct world *w = ctx;
    const struct world_writer *out = w->env->out;
    double e2e = r->finish >= 0 ? r->finish - r->arrival : -1;
    double ttft = r->first >= 0 ? r->first - r->arrival : -1;
    double queue = r->start >= 0 ? r->start - r->arrival : -1;
    double tpot = r->finish >= 0 && r->output > 1 ? (r->finish - r->first) / (r->output - 1)
                                                   : -1;
    int met = reqstats_add(w->st, r->index, r->dropped, ttft, tpot, e2e, queue, r->output);
    if (met < 0)
        return err_run(err, "out of memory");
    if (out->progress != NULL && ((++w->done) & 1023) == 0)
        out->progress(out->ctx, sim_from_sec(r->finish >= 0 ? r->finish : r->arrival), w->done);
    int keep = out->row != NULL ? sampled(w, r->cls, err) : 0;
    if (keep <= 0)
        return keep;
    int slo = w->cfg->slo_ttft >= 0 || w->cfg->slo_tpot >= 0;
    struct row_value v[NREQ_COLS] = {
        row_int(r->id), row_text(r->cls), row_real(r->arrival), row_opt(r->start),
        row_opt(r->first), row_opt(r->finish), row_opt(e2e), row_opt(queue), row_opt(ttft),
        row_opt(tpot), row_int(r->prompt), row_int(r->output),
        slo ? row_int(met) : row_null(),
    };
    return out->row(out->ctx, "requests", req_cols, v, NREQ_COLS, err);
}

static int on_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    struct world *w = ctx;
    return w->env->out->sample(w->env->out->ctx, t, name, v, err);
}

static void destroy(void *world)
{
    struct world *w = world;
    if (w == NULL)
        return;
    serve_destroy(w->s);
    reqstats_destroy(w->st);
    llm_destroy(w->lc);
    free(w->seen);
    free(w);
}

static int create(void **out, const struct world_env *env, struct errbuf *err)
{
    struct world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->env = env;
    w->cfg = env->config;
    w->st = reqstats_create(w->cfg->slo_ttft, w->cfg->slo_tpot, env->sim->steady_first,
                            env->sim->steady_last);
    if (w->st == NULL) {
        destroy(w);
        return err_run(err, "out of memory");
    }
    if (open_llm(w->cfg, env->cl, &w->lc, &w->arch, err) < 0) {
        destroy(w);
        return -1;
    }
    *out = w;
    return 0;
}

static int metric(const struct world_env *env, const char *name, double v, struct errbuf *err)
{
    if (!isfinite(v))
        return 0;
    return env->out->metric(env->out->ctx, name, v, err);
}

static int write_summary(struct world *w, const struct serve_totals *t, struct errbuf *err)
{
    const struct world_env *env = w->env;
    double win = t->window.to - t->window.from;
    struct reqstats_metric m[REQSTATS_MAX_METRICS];
    size_t n = reqstats_finish(w->st, win, m, REQSTATS_MAX_METRICS);
    for (size_t i = 0; i < n; i++)
        if (metric(env, m[i].name, m[i].value, err) < 0)
            return -1;
    if (win > 0 && (metric(env, "window_start_s", t->window.from, err) < 0 ||
                    metric(env, "window_end_s", t->window.to, err) < 0 ||
                    metric(env, "tokens_per_s", t->window_tokens / win, err) < 0 ||
                    metric(env, "requests_per_s", t->window_done / win, err) < 0))
        return -1;
    /* utilization over the run, from the first arrival to the end */
    double horizon = sim_to_sec(t->end) - (isfinite(t->window.from) ? t->window.from : 0);
    const int *types;
    int nt = cluster_types(env->cl, &types);
    double busy = 0, gpus = 0;
    for (int k = 0; k < nt && horizon > 0; k++) {
        char name[64];
        int cnt = cluster_type_count(env->cl, types[k]);
        snprintf(name, sizeof name, "util_%s",
                 catalog_gpu(cluster_catalog(env->cl), types[k])->name);
        if (metric(env, name, t->busy_gpu_s[k] / (cnt * horizon), err) < 0)
            return -1;
        busy += t->busy_gpu_s[k];
        gpus += cnt;
    }
    if ((horizon > 0 && metric(env, "util_total", busy / (gpus * horizon), err) < 0) ||
        metric(env, "kv_used_frac", t->kv_util_mean, err) < 0 ||
        metric(env, "preemptions", (double)t->preemptions, err) < 0 ||
        metric(env, "iterations", (double)t->iterations, err) < 0 ||
        metric(env, "tokens_out", t->tokens_out, err) < 0 ||
        metric(env, "kv_moved_gb", t->kv_moved_bytes / 1e9, err) < 0 ||
        metric(env, "rebalances", (double)t->rebalances, err) < 0)
        return -1;
    /* a tenant's instances may be drained (a broker takes their GPUs); alone, never */
    if (w->ten.released != NULL &&
        metric(env, "drain_moves", (double)t->drain_moves, err) < 0)
        return -1;
    return 0;
}

static int attach(void *world, struct engine *e, struct errbuf *err)
{
    struct world *w = world;
    const struct world_env *env = w->env;
    if (w->s != NULL)
        return err_run(err, "serving world attached twice");
    struct serve_config sc = { .set = w->cfg->set, .overlong = w->cfg->overlong,
                               .drain = w->cfg->drain,
                               .sample_period = env->sim->sample_period,
                               .until = env->sim->until, .max_events = env->sim->max_events,
                               .measure = env->sim->measure, .slo_ttft = w->cfg->slo_ttft };
    w->sink = (struct serve_sink){ w, on_request, on_sample,
                                   env->sim->timeline && env->out->row != NULL ? env->out
                                                                               : NULL };
    if (serve_create(&w->s, env->cl, w->lc, w->arch, &sc, env->source, env->decider, &w->sink,
                     err) < 0)
        return -1;
    return serve_attach(w->s, e, err);
}

static int finish(void *world, int stop, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    struct serve_totals t;
    if (serve_finish(w->s, stop, &t, err) < 0)
        return -1;
    *out = (struct world_totals){ .end = t.end, .stop = t.stop, .events = t.events,
                                  .decisions = t.decisions, .entities_in = t.reqs_in,
                                  .entities_done = t.reqs_done };
    for (int i = 0; i < CLUSTER_MAX_TYPES; i++)
        out->busy_gpu_s[i] = t.busy_gpu_s[i];
    return write_summary(w, &t, err);
}

extern const struct world_ops serve_world;

static int run(void *world, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    return world_run_alone(&serve_world, w, w->env->sim, out, err);
}

/* ---------------------------------------------------------------- tenancy (serve.h) */

static void on_released(void *ctx, const int *gpus, int n, simtime t)
{
    const struct world_tenancy *ten = ctx;
    ten->released(ten->ctx, gpus, n, t);
}

static void tenancy(void *world, const struct world_tenancy *t)
{
    struct world *w = world;
    w->ten = *t;
    serve_set_tenancy(w->s, &(struct serve_tenancy){ &w->ten, on_released });
}

static int take(void *world, const int *gpus, int n, int64_t *affected, struct errbuf *err)
{
    struct world *w = world;
    return serve_take(w->s, gpus, n, affected, err);
}

static int give(void *world, const int *gpus, int n, struct errbuf *err)
{
    struct world *w = world;
    return serve_give(w->s, gpus, n, err);
}

static double capacity(void *world, const int *gpus, int n)
{
    struct world *w = world;
    return serve_capacity(w->s, gpus, n);
}

static void ties(void *world, int *unit, unsigned char *up)
{
    struct world *w = world;
    serve_ties(w->s, unit, up);
}

static void load(void *world, struct world_load *out)
{
    struct world *w = world;
    double prompt, mean_out;
    int64_t n;
    serve_demand(w->s, &prompt, &n, &mean_out);
    int64_t firsts, late;
    serve_first_tokens(w->s, &firsts, &late);
    int64_t seen = firsts - w->firsts_seen;
    *out = (struct world_load){ .arrived = prompt + (double)n * mean_out, .slo_seen = seen,
                                .slo_miss = seen > 0 && w->cfg->slo_ttft > 0
                                                ? (double)(late - w->late_seen) / (double)seen
                                                : -1 };
    w->firsts_seen = firsts;
    w->late_seen = late;
    serve_type_speed(w->s, out->gain);
}

const struct world_ops serve_world = {
    .domain = "serving",
    .summary = "LLM inference requests on model instances over mixed GPUs: continuous "
               "batching, paged KV cache, disaggregated prefill and decode, Hetis splits",
    .entity = "requests",
    .top_keys = top_keys,
    .sim_keys = sim_keys,
    .model_keys = model_keys,
    .display = &display,
    .read = read_config,
    .free_config = free,
    .check_policy = check_policy,
    .check_source = check_source,
    .create = create,
    .run = run,
    .destroy = destroy,
    .attach = attach,
    .finish = finish,
    .tenancy = tenancy,
    .take = take,
    .give = give,
    .capacity = capacity,
    .ties = ties,
    .load = load,
};
