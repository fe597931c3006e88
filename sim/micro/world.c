/*
 * world: the microservice world behind the world interface (sim/core/world.h) — its fields
 * of the experiment (the application, the SLA, the mode), the check of every request, and
 * one run (msim.c) in either mode.
 *
 * Fields: "app" (app.h), "sla_ms" (the end-to-end latency bound), "sla_quantile" (0.95: the
 * SLA holds when that quantile of the end-to-end latency is within it), "mode"
 * ("requests": every request followed; "analytical": interval distributions computed),
 * "truth" (what a request's latency is in the requests mode: "queueing", the default, calls
 * queue at containers that are FIFO servers, mqueue.h; "fit", every call's latency drawn
 * from the fit at its interval's load; the analytical mode computes the fit's distribution,
 * so its truth is the fit by definition and "queueing" there is an error), "routing"
 * ("random", the default, "round_robin" or "jsq": how the queueing truth spreads a
 * service's calls over its containers), "interference" ({"cpu": cores, "mem_mb": MiB}: the interference Erms fits
 * are read at); sim.interval_s (decisions, 60 s), sim.startup_s (a new container's delay,
 * 5 s), sim.request_sample (share of requests kept as rows, per graph type, 1),
 * sim.lattice_points (the analytical mode's resolution, 1024), sim.load_window_s (the time
 * constant of the load the queueing truth's service rates follow, 10 s).
 *
 * The SLA is checked against the application when read: an SLA below a graph type's
 * minimum latency (the shifts along its slowest path: no number of containers gets under
 * it) names that graph, its path and the bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/world.h"
#include "app.h"
#include "micro.h"
#include "mqueue.h"
#include "msim.h"

enum { TRUTH_QUEUEING, TRUTH_FIT };

struct config {
    struct app *app;
    double      sla_s, quantile;
    int         analytical;
    int         truth, routing;     /* TRUTH_*, enum mqueue_routing */
    double      load_window_s;
    double      interval_s, startup_s, request_sample;
    int64_t     lattice_points;
};

static const char *const top_keys[] = { "app", "sla_ms", "sla_quantile", "mode", "truth",
                                        "routing", "interference", NULL };
static const char *const sim_keys[] = { "interval_s", "startup_s", "request_sample",
                                        "lattice_points", "load_window_s", NULL };
static const char *const truths[] = { "queueing", "fit", NULL };
static const char *const routings[] = { "random", "round_robin", "jsq", NULL };
/* a handful, so that a table fits 100 columns: the rest with --columns or --all */
static const char *const report_columns[] = { "containers_mean", "sla_violation_prob",
                                              "e2e_p95", "e2e_p99", NULL };
static const char *const bar_metrics[] = { "containers_mean", "cpu_seconds",
                                           "sla_violation_prob", "e2e_p95", "e2e_p99", NULL };
static const char *const sweep_metrics[] = { "containers_mean", "sla_violation_prob",
                                             "e2e_p95", NULL };
static const struct display_cdf cdfs[] = {
    { "e2e_cdf", "requests", "e2e_s", "end-to-end latency (log scale)", "end-to-end latency CDF",
      1, 0 },
};
static const struct display display = {
    .entity = "requests",
    .report_columns = report_columns,
    .bar_metrics = bar_metrics,
    .sweep_metrics = sweep_metrics,
    .cdfs = cdfs,
    .ncdfs = sizeof cdfs / sizeof cdfs[0],
    .util_panels = 0,
    .queue_series = "containers_total",
    .queue_label = "containers allocated",
    .entity_one = "service",
    .resource_one = "container",
};

static void free_config(void *p)
{
    struct config *c = p;
    if (c == NULL)
        return;
    app_free(c->app);
    free(c);
}

static double min_lat(const struct micro_app *a, const struct micro_graph *g, int i)
{
    const struct micro_call *c = &g->calls[i];
    double t = c->count * a->svc[c->service].lat.shift;
    for (int st = g->stage_off[i]; st < g->stage_off[i + 1]; st++) {
        double m = 0;
        for (int j = g->child_off[st]; j < g->child_off[st + 1]; j++) {
            double v = min_lat(a, g, g->child[j]);
            m = v > m ? v : m;
        }
        t += m;
    }
    return t;
}

/* the slowest path of shifts from call i, as "svc 1.2 ms + svc x3 0.9 ms + ..." */
static void slow_path(const struct micro_app *a, const struct micro_graph *g, int i, char *buf,
                      size_t cap)
{
    size_t used = strlen(buf);
    const struct micro_call *c = &g->calls[i];
    const struct micro_service *s = &a->svc[c->service];
    if (used + 1 < cap)
        snprintf(buf + used, cap - used, "%s%s%s %.3g ms", used ? " + " : "", s->name,
                 c->count > 1 ? " (all its calls)" : "", 1e3 * c->count * s->lat.shift);
    for (int st = g->stage_off[i]; st < g->stage_off[i + 1]; st++) {
        int best = -1;
        double m = -1;
        for (int j = g->child_off[st]; j < g->child_off[st + 1]; j++) {
            double v = min_lat(a, g, g->child[j]);
            if (v > m) {
                m = v;
                best = g->child[j];
            }
        }
        if (best >= 0)
            slow_path(a, g, best, buf, cap);
    }
}

static int read_config(void **out, const struct jobj *root, const struct jobj *sim,
                       const char *base_dir, struct errbuf *err)
{
    static const char *const modes[] = { "requests", "analytical", NULL };
    static const char *const ikeys[] = { "cpu", "mem_mb", "note", NULL };
    struct config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    c->quantile = 0.95;
    c->interval_s = 60;
    c->startup_s = 5;
    c->request_sample = 1;
    c->lattice_points = 1024;
    c->truth = -1;
    c->routing = MQUEUE_RANDOM;
    c->load_window_s = 10;
    double sla_ms = 0;
    struct jobj inter;
    struct app_opts o = { 0, 0 };
    if (jobj_num(root, "sla_ms", JREQ, 1e-6, 1e9, &sla_ms, err) < 0 ||
        jobj_num(root, "sla_quantile", JOPT, 0.5, 0.9999, &c->quantile, err) < 0 ||
        jobj_enum(root, "mode", JOPT, modes, &c->analytical, err) < 0 ||
        jobj_enum(root, "truth", JOPT, truths, &c->truth, err) < 0 ||
        jobj_enum(root, "routing", JOPT, routings, &c->routing, err) < 0 ||
        jobj_obj(&inter, root, "interference", JOPT, err) < 0 ||
        (inter.node != NULL &&
         (jobj_known(&inter, ikeys, err) < 0 ||
          jobj_num(&inter, "cpu", JOPT, 0, 1e4, &o.cpu_inter, err) < 0 ||
          jobj_num(&inter, "mem_mb", JOPT, 0, 1e9, &o.mem_inter, err) < 0)) ||
        jobj_num(sim, "interval_s", JOPT, 1e-3, 1e7, &c->interval_s, err) < 0 ||
        jobj_num(sim, "startup_s", JOPT, 0, 1e7, &c->startup_s, err) < 0 ||
        jobj_num(sim, "request_sample", JOPT, 0, 1, &c->request_sample, err) < 0 ||
        jobj_int(sim, "lattice_points", JOPT, 64, 1 << 20, &c->lattice_points, err) < 0 ||
        jobj_num(sim, "load_window_s", JOPT, 1e-3, 1e6, &c->load_window_s, err) < 0)
        goto fail;
    if (c->truth == TRUTH_QUEUEING && c->analytical) {
        jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(root->node, "truth"),
                    JOBJ_FIELD(root, "truth"), err, "the analytical mode computes the fit's "
                    "latency distribution, so its truth is \"fit\" by definition: the queueing "
                    "truth needs \"mode\": \"requests\"");
        goto fail;
    }
    if (c->truth < 0)
        c->truth = c->analytical ? TRUTH_FIT : TRUTH_QUEUEING;
    if (sim->node != NULL && cJSON_GetObjectItemCaseSensitive(sim->node, "measure_jobs")) {
        jsonf_error(sim->doc, cJSON_GetObjectItemCaseSensitive(sim->node, "measure_jobs"),
                    JOBJ_FIELD(sim, "measure_jobs"), err, "the microservice world measures "
                    "over time: use sim.measure_window");
        goto fail;
    }
    c->sla_s = sla_ms * 1e-3;
    if (app_load(&c->app, root, "app", base_dir, &o, err) < 0)
        goto fail;
    /* an SLA no allocation can meet */
    const struct micro_app *a = &c->app->view;
    for (int g = 0; g < a->ngraphs; g++) {
        const struct micro_graph *gr = &a->graph[g];
        if (gr->min_latency_s > c->sla_s) {
            char path[700];
            path[0] = '\0';
            slow_path(a, gr, 0, path, sizeof path);
            jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(root->node, "sla_ms"),
                        JOBJ_FIELD(root, "sla_ms"), err, "%g ms is below the minimum latency "
                        "of graph type '%s', %.6g ms, which no number of containers shortens "
                        "(the shifts along its slowest path: %s)", sla_ms, gr->name,
                        1e3 * gr->min_latency_s, path);
            goto fail;
        }
    }
    *out = c;
    return 0;
fail:
    free_config(c);
    return -1;
}

static int check_policy(const void *config, const void *decider, char *msg, size_t cap)
{
    (void)config;
    const struct micro_decider *d = decider;
    if (d == NULL) {
        snprintf(msg, cap, "has no decisions for the microservice world");
        return -1;
    }
    if (d->round != 0) {
        snprintf(msg, cap, "takes no round_s: microservice policies decide every "
                 "sim.interval_s (set that instead)");
        return -1;
    }
    return 0;
}

static int check_source(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    const struct config *c = env->config;
    struct entity_source *src = env->source;
    struct micro_request r;
    int rc;
    simtime last = 0;
    *count = 0;
    if (env->cl != NULL && msim_check_cluster(c->app, env->cl, err) < 0)
        return -1;
    if (list != NULL)
        fprintf(list, "id,arrival_s,graph\n");
    while ((rc = src->next(src->ctx, &r, err)) > 0) {
        if (r.arrival < last) {
            rc = err_input(err, r.origin, r.line, "arrival", "arrivals must not decrease");
            break;
        }
        last = r.arrival;
        if (r.count < 1) {
            rc = err_input(err, r.origin, r.line, "count", "a spec stands for at least one "
                           "request");
            break;
        }
        int g = msim_spec_graph(c->app, &r, err);
        if (g < 0) {
            rc = -1;
            break;
        }
        *count += r.count;
        if (list == NULL)
            continue;
        /* spread as a run would not (that draws from the run's stream): evenly */
        for (int64_t q = 0; q < r.count; q++) {
            double t = sim_to_sec(r.arrival) +
                       (r.count > 1 ? sim_to_sec(r.span) * ((double)q + 0.5) / (double)r.count
                                    : 0);
            fprintf(list, "%lld,%.6f,%s\n", (long long)(r.id + q), t, c->app->graph[g].name);
        }
    }
    return rc < 0 ? -1 : 0;
}

static int create(void **out, const struct world_env *env, struct errbuf *err)
{
    const struct config *c = env->config;
    struct msim_config mc = {
        .app = c->app, .sla_s = c->sla_s, .quantile = c->quantile, .analytical = c->analytical,
        .interval_s = c->interval_s, .startup_s = c->startup_s,
        .request_sample = c->request_sample, .lattice_points = (int)c->lattice_points,
        .seed = env->seed, .sample_s = sim_to_sec(env->sim->sample_period),
        .until = env->sim->until, .max_events = env->sim->max_events,
        .measure = env->sim->measure,
        .timeline = env->sim->timeline && env->out->row != NULL,
        .queueing = c->truth == TRUTH_QUEUEING, .routing = c->routing,
        .smooth_s = c->load_window_s,
    };
    msim *m;
    if (msim_create(&m, &mc, env->cl, env->source, env->decider, env->out, err) < 0)
        return -1;
    *out = m;
    return 0;
}

static int run(void *world, struct world_totals *out, struct errbuf *err)
{
    return msim_run(world, out, err);
}

static void destroy(void *world)
{
    msim_destroy(world);
}

static int attach(void *world, struct engine *e, struct errbuf *err)
{
    return msim_attach(world, e, err);
}

static int finish(void *world, int stop, struct world_totals *out, struct errbuf *err)
{
    return msim_finish(world, stop, out, err);
}

/* Tenancy (world.h): the ids are its CPU nodes (a cluster_cpu_part's: the host parts of GPU
 * nodes, which a broker moves), free at once. */
static int take(void *world, const int *nodes, int n, int64_t *affected, struct errbuf *err)
{
    return msim_take(world, nodes, n, affected, err) < 0 ? -1 : 1;
}

static int give(void *world, const int *nodes, int n, struct errbuf *err)
{
    return msim_give(world, nodes, n, err);
}

static int uses_seed(const void *config, const void *decider)
{
    (void)decider;
    const struct config *c = config;
    /* the per-request latencies (or service times) are drawn; the analytical mode draws
     * nothing */
    return !c->analytical;
}

static void describe(const void *config, char *buf, size_t cap)
{
    const struct config *c = config;
    if (c->analytical)
        snprintf(buf, cap, "truth: the fit (the analytical mode computes its distribution, "
                 "the fit by definition)");
    else if (c->truth == TRUTH_FIT)
        snprintf(buf, cap, "truth: the fit (each call's latency drawn at its interval's "
                 "load; routing and sim.load_window_s unused)");
    else
        snprintf(buf, cap, "truth: queueing (containers are FIFO servers, calls routed %s, "
                 "service rates following a %g s load window)",
                 c->routing == MQUEUE_JSQ           ? "to the shortest queue"
                 : c->routing == MQUEUE_ROUND_ROBIN ? "round robin"
                                                    : "to a container drawn at random",
                 c->load_window_s);
}

const struct world_ops micro_world = {
    .domain = "micro",
    .summary = "requests over microservice call graphs: containers per service under an "
               "end-to-end latency SLA; per-request or analytical",
    .entity = "requests",
    .top_keys = top_keys,
    .sim_keys = sim_keys,
    .display = &display,
    .read = read_config,
    .free_config = free_config,
    .check_policy = check_policy,
    .uses_seed = uses_seed,
    .describe = describe,
    .check_source = check_source,
    .create = create,
    .run = run,
    .destroy = destroy,
    .attach = attach,
    .finish = finish,
    .take = take,
    .give = give,
};
