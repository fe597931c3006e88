/*
 * world: the placement world behind the world interface (sim/core/world.h) — fractional-GPU
 * pods placed on the nodes of an openb node list, FGD's setting (ATC 2023).  Its fields of the
 * experiment: "nodes" (the node list, sim/place/nodes.h) at the top level; sim.order,
 * sim.load, sim.type_share and sim.sample_load (sim/place/place.h).  Every experiment names a
 * cluster; this world's machines are its node list, so its experiments name the shipped
 * placeholder "node_list" (workloads/clusters/node_list.json), and any other cluster is an
 * error saying why.  The generic sim.sample_s, sim.measure_window and sim.measure_jobs mean
 * nothing here (the clock counts pods; the series follow the arrived load) and are errors too;
 * sim.until_s and sim.max_events cut the sequence.
 *
 * Its rows: one `pods` row per pod that arrived, as it is placed or not; its series at every
 * sim.sample_load of arrived GPU load; its summary when the run ends.
 *
 * Its timeline (sim.timeline): the clock counts pods, so time is the arrival sequence: pod k
 * (pods.pod_seq) arrives and is placed at k s, and the run spans [0, N) s for N pods (the
 * last one takes its second; runs.sim_end_s is its arrival, N - 1).  A placed pod holds
 * gpu_milli / 1000 of each of its GPUs from its arrival to the end (start -> stop), running
 * when that is a whole GPU and shared below; a GPU pod left unplaced is queued over the same
 * span (arrival -> stop); a pod asking for no GPU holds none and has no row.  Resources are
 * GPUs numbered node by node in the node list's order, with the node's index and GPU model.
 * A pod never moves, so its rows end only when the run does: the world keeps the pods that
 * asked for GPUs (32 bytes each: sequence, node, share, GPUs) and writes them then.  Cost
 * O(pods) memory with the flag, none without.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/path.h"
#include "../base/grow.h"
#include "../core/timeline.h"
#include "../core/world.h"
#include "place.h"

static const char *const top_keys[] = { "nodes", NULL };
static const char *const sim_keys[] = { "order", "load", "type_share", "sample_load", NULL };
/* a handful, so that a table fits 100 columns: the rest with --columns or --all */
static const char *const report_columns[] = { "gpu_alloc_frac", "milli_alloc_frac",
                                              "frag_frac", "gpus_unallocated", NULL };
static const char *const bar_metrics[] = { "milli_alloc_frac", "gpu_alloc_frac", "frag_frac",
                                           "gpus_unallocated", NULL };
static const char *const sweep_metrics[] = { "milli_alloc_frac", "frag_frac",
                                             "gpus_unallocated", NULL };
/* No CDF and no time series for `hetsim plot`: its CDFs are of per-job durations on a log
 * axis and its series against hours, while this world's curves are against arrived load
 * (scripts/reproduce/fgd.sh draws them from the samples); the summary bars only. */
static const struct display display = {
    .entity = "pods",
    .report_columns = report_columns,
    .bar_metrics = bar_metrics,
    .sweep_metrics = sweep_metrics,
    .entity_one = "pod",
    .resource_one = "GPU",
};

/* The name of the placeholder cluster this world's experiments give. */
static const char placeholder[] = "node_list";

static void free_config(void *config)
{
    struct place_config *c = config;
    if (c == NULL)
        return;
    nodes_free(c->nodes);
    free(c);
}

/* A generic "sim" field this world has no use for, with the reason. */
static int unused(const struct jobj *sim, const char *key, const char *why, struct errbuf *err)
{
    const cJSON *n = sim->node ? cJSON_GetObjectItemCaseSensitive(sim->node, key) : NULL;
    if (n == NULL)
        return 0;
    char field[64];
    snprintf(field, sizeof field, "sim.%s", key);
    return jsonf_error(sim->doc, n, field, err, "not used by the placement domain: %s", why);
}

static int read_config(void **out, const struct jobj *root, const struct jobj *sim,
                       const char *base_dir, struct errbuf *err)
{
    static const char *const orders[] = { "trace", "shuffled", NULL };
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(root->node, "cluster");
    if (cl != NULL && !(cJSON_IsString(cl) && strcmp(cl->valuestring, placeholder) == 0))
        return jsonf_error(root->doc, cl, "cluster", err, "the placement domain places pods "
                           "on the machines of \"nodes\" (an openb node list), not on a "
                           "cluster: write \"cluster\": \"%s\" (a placeholder that is not "
                           "simulated)", placeholder);
    if (unused(sim, "sample_s", "its clock counts pods; the series are taken every "
               "sim.sample_load of arrived GPU load (0: none)", err) < 0 ||
        unused(sim, "measure_window", "nothing leaves, so nothing is averaged over time",
               err) < 0 ||
        unused(sim, "measure_jobs", "its figures are the cluster's when the pods have "
               "arrived; the pods table has each pod", err) < 0)
        return -1;
    struct place_config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    *c = (struct place_config){ .order = PLACE_ORDER_TRACE, .type_share = 0.95,
                                .sample_load = 0.01, .until = SIM_NEVER };
    const char *nodes = NULL;
    char path[PATH_MAX_LEN];
    if (jobj_str(root, "nodes", JREQ, &nodes, err) < 0 ||
        jobj_enum(sim, "order", JOPT, orders, &c->order, err) < 0 ||
        jobj_num(sim, "load", JOPT, 0, 100, &c->load, err) < 0 ||
        jobj_num(sim, "type_share", JOPT, 1e-6, 1, &c->type_share, err) < 0 ||
        jobj_num(sim, "sample_load", JOPT, 0, 100, &c->sample_load, err) < 0)
        goto fail;
    const cJSON *ld = sim->node ? cJSON_GetObjectItemCaseSensitive(sim->node, "load") : NULL;
    if (ld != NULL)
        jsonf_where(sim->doc, ld, &c->load_file, &c->load_line);
    if (path_resolve(path, sizeof path, base_dir, nodes) < 0) {
        jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(root->node, "nodes"), "nodes",
                    err, "node list '%s' not found (looked next to the experiment, in the "
                    "current directory and under %s)", nodes, path_data_root());
        goto fail;
    }
    if (nodes_load(&c->nodes, path, err) < 0)
        goto fail;
    *out = c;
    return 0;
fail:
    free_config(c);
    return -1;
}

static int check_policy(const void *config, const void *decider, char *msg, size_t cap)
{
    (void)config;
    if (decider == NULL) {
        snprintf(msg, cap, "has no placement decision");
        return -1;
    }
    return 0;
}

static int uses_seed(const void *config, const void *decider)
{
    (void)decider;
    const struct place_config *c = config;
    return c->order == PLACE_ORDER_SHUFFLED || c->load > 0;
}

static int check_source(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    place *p;
    *count = 0;
    if (place_create(&p, env->config, env->seed, env->source, err) < 0)
        return -1;
    *count = place_npods(p);
    int rc = list != NULL ? place_list(p, list, err) : 0;
    place_destroy(p);
    return rc;
}

/* ---------------------------------------------------------------- one run */

/* a pod that arrived, kept for its timeline rows */
struct tl_pod {
    int64_t seq;
    int32_t node;                   /* -1: unplaced */
    int16_t milli, ngpus;
    int8_t  gpu[PLACE_MAX_GPUS];
};

struct world {
    const struct world_env *env;
    struct place_config     cfg;        /* the experiment's, with the run's limits */
    int64_t                 done;
    int                     timeline;   /* keep pods for the timeline */
    struct tl_pod          *tl;
    int64_t                 ntl, captl;
    int64_t                *first_gpu;  /* each node's first GPU id */
};

static const char *const pod_cols[] = {
    "pod_seq", "name", "trace_row", "drawn", "cpu_milli", "memory_mib", "num_gpu",
    "gpu_milli", "gpu_spec", "node", "gpus", "placed", "arrived_gpu_frac", "failed_at_load" };
enum { NPOD_COLS = sizeof pod_cols / sizeof pod_cols[0] };

static int keep_pod(struct world *w, const struct place_record *r, struct errbuf *err)
{
    if (w->ntl == w->captl) {
        int failed = 0;
        int64_t cap = w->captl ? 2 * w->captl : 1024;
        w->tl = grow_array(w->tl, (size_t)cap, sizeof *w->tl, &failed);
        if (failed)
            return err_run(err, "out of memory");
        w->captl = cap;
    }
    struct tl_pod *t = &w->tl[w->ntl++];
    *t = (struct tl_pod){ .seq = r->seq, .node = r->node != NULL ? r->node_index : -1,
                          .milli = (int16_t)r->gpu_milli, .ngpus = (int16_t)r->ngpus };
    for (int i = 0; i < r->ngpus; i++)
        t->gpu[i] = (int8_t)r->gpus[i];
    return 0;
}

/* The kept pods' rows, over [arrival, end). */
static int write_timeline(struct world *w, simtime end, struct errbuf *err)
{
    const struct nodes *ns = w->cfg.nodes;
    for (int64_t i = 0; i < w->ntl; i++) {
        const struct tl_pod *t = &w->tl[i];
        simtime from = t->seq * SIM_SEC;
        if (t->node < 0) {
            if (timeline_row(w->env->out, t->seq, -1, -1, NULL, from, end, TL_QUEUED, 0,
                             TL_ARRIVAL, TL_STOP, err) < 0)
                return -1;
            continue;
        }
        double share = (double)t->milli / PLACE_MILLI;
        int state = t->milli < PLACE_MILLI ? TL_SHARED : TL_RUNNING;
        const char *model = ns->models[ns->v[t->node].model];
        for (int g = 0; g < t->ngpus; g++)
            if (timeline_row(w->env->out, t->seq, w->first_gpu[t->node] + t->gpu[g], t->node,
                             model, from, end, state, share, TL_START, TL_STOP, err) < 0)
                return -1;
    }
    return 0;
}

static int on_pod(void *ctx, const struct place_record *r, struct errbuf *err)
{
    struct world *w = ctx;
    const struct world_writer *out = w->env->out;
    if (out->progress != NULL && ((++w->done) & 1023) == 0)
        out->progress(out->ctx, r->seq * SIM_SEC, w->done);
    if (out->row == NULL)
        return 0;
    if (w->timeline && r->num_gpu > 0 && keep_pod(w, r, err) < 0)
        return -1;
    char gpus[16 * PLACE_MAX_GPUS];
    size_t n = 0;
    gpus[0] = '\0';
    for (int i = 0; i < r->ngpus; i++)
        n += (size_t)snprintf(gpus + n, sizeof gpus - n, "%s%d", i ? "-" : "", r->gpus[i]);
    int placed = r->node != NULL;
    struct row_value v[NPOD_COLS] = {
        row_int(r->seq), row_text(r->name), row_int(r->row), row_int(r->drawn),
        row_int(r->cpu_milli), row_int(r->mem_mib), row_int(r->num_gpu),
        row_int(r->gpu_milli), r->gpu_spec[0] ? row_text(r->gpu_spec) : row_null(),
        placed ? row_text(r->node) : row_null(), r->ngpus > 0 ? row_text(gpus) : row_null(),
        row_int(placed), row_real(r->arrived_gpu_frac),
        placed ? row_null() : row_real(r->arrived_gpu_frac),
    };
    return out->row(out->ctx, "pods", pod_cols, v, NPOD_COLS, err);
}

static int on_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    struct world *w = ctx;
    return w->env->out->sample(w->env->out->ctx, t, name, v, err);
}

static int create(void **out, const struct world_env *env, struct errbuf *err)
{
    struct world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->env = env;
    w->cfg = *(const struct place_config *)env->config;
    w->cfg.until = env->sim->until;
    w->cfg.max_events = env->sim->max_events;
    w->timeline = env->sim->timeline && env->out->row != NULL;
    if (w->timeline) {
        const struct nodes *ns = w->cfg.nodes;
        if ((w->first_gpu = malloc((size_t)ns->n * sizeof *w->first_gpu)) == NULL) {
            free(w);
            return err_run(err, "out of memory");
        }
        for (int i = 0, g = 0; i < ns->n; g += ns->v[i++].ngpus)
            w->first_gpu[i] = g;
    }
    *out = w;
    return 0;
}

static void destroy(void *world)
{
    struct world *w = world;
    if (w == NULL)
        return;
    free(w->tl);
    free(w->first_gpu);
    free(w);
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static int write_summary(struct world *w, const struct place_totals *t, struct errbuf *err)
{
    const struct world_writer *out = w->env->out;
    double milli = (double)t->milli_total, idle = milli - (double)t->milli_used;
    static const char *const cat[FRAG_NCAT] = { "idle_q1_lack_both_frac", "idle_q2_lack_gpu_frac",
                                                "idle_q3_satisfied_frac", "idle_q4_lack_cpu_frac",
                                                "idle_xl_satisfied_frac", "idle_xr_lack_cpu_frac",
                                                "idle_no_access_frac" };
    struct { const char *name; double v; } m[] = {
        { "pods_listed", (double)t->pods_listed },
        { "pods_drawn", (double)t->pods_drawn },
        { "pods_dropped", (double)t->pods_dropped },
        { "pods_total", (double)t->pods_total },
        { "pods_placed", (double)t->pods_placed },
        { "pods_unallocated", (double)t->pods_unallocated },
        { "pod_types", (double)t->ntypes },
        { "gpus_total", (double)t->gpus },
        { "arrived_gpu_frac", ratio((double)t->milli_arrived, milli) },
        { "gpu_alloc_frac", ratio((double)t->gpus_used, (double)t->gpus) },
        { "milli_alloc_frac", ratio((double)t->milli_used, milli) },
        { "cpu_alloc_frac", ratio((double)t->cpu_used, (double)t->cpu_total) },
        { "mem_alloc_frac", ratio((double)t->mem_used, (double)t->mem_total) },
        { "frag_frac", ratio(t->frag, idle) },
        { "frag_cluster_frac", ratio(t->frag, milli) },
        { "gpus_unallocated", idle / PLACE_MILLI },
        { "gpus_fragmented", t->frag / PLACE_MILLI },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (out->metric(out->ctx, m[i].name, m[i].v, err) < 0)
            return -1;
    for (int c = 0; c < FRAG_NCAT; c++)
        if (out->metric(out->ctx, cat[c], ratio(t->amount[c], idle), err) < 0)
            return -1;
    return 0;
}

static int run(void *world, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    const struct world_env *env = w->env;
    place *p;
    if (place_create(&p, &w->cfg, env->seed, env->source, err) < 0)
        return -1;
    struct place_sink sink = { w, on_pod, on_sample };
    struct place_totals t;
    int rc = place_run(p, env->decider, &sink, &t, err);
    place_destroy(p);
    if (rc < 0 || (w->timeline && write_timeline(w, t.pods_total * SIM_SEC, err) < 0))
        return -1;
    *out = (struct world_totals){ .end = t.end, .stop = t.stop, .events = (uint64_t)t.pods_total,
                                  .decisions = (uint64_t)t.pods_total,
                                  .entities_in = t.pods_total, .entities_done = t.pods_placed };
    return write_summary(w, &t, err);
}

const struct world_ops place_world = {
    .domain = "placement",
    .summary = "pods asking for fractions of a GPU placed on the nodes of a node list until it "
               "is full (FGD's setting): allocation and fragmentation",
    .entity = "pods",
    .top_keys = top_keys,
    .sim_keys = sim_keys,
    .display = &display,
    .read = read_config,
    .free_config = free_config,
    .check_policy = check_policy,
    .uses_seed = uses_seed,
    .check_source = check_source,
    .create = create,
    .run = run,
    .destroy = destroy,
};
