/*
 * world: the colocate domain — one cluster shared by an LLM serving tenant and a training
 * tenant, with a broker that owns the GPUs (issue 25; Lyra, EuroSys 2023, is the mechanism
 * its `loan` policy reproduces).  The tenants are worlds of their own domains, created by the
 * driver from the experiment's "tenants" and handed over in world_env.tenants; this world runs
 * them on one engine (world.h's attach and finish) and moves nodes between them through their
 * tenancy hooks (take, give), never touching their state otherwise.
 *
 * A third tenant, "microservices" (the micro domain), may run beside them, or beside training
 * alone: on the cluster's CPU node groups and the host parts of its GPU nodes ("host_cpus",
 * "host_memory_gb"; tenant_cluster: cluster_cpu_part), attached to the same engine and
 * finished with the others.  The broker lends GPU nodes between serving and training only;
 * a GPU node's host part is the microservices' while serving holds the node (an inference
 * server leaves its host cores idle, training's data loaders use them): taken from them at 0
 * on training's nodes, when a loan arrives (hand_to_training) and given back at a
 * reclaim.  The tenants are training with serving, microservices or both (read_config says
 * so); without serving every node is training's and the broker does not decide.
 *
 * Its fields: "serving_groups" (the cluster's node groups serving holds when nothing is lent;
 * every other group is training's) and "broker": { "period_s" } (how often the policy
 * decides, default 300 s).  Serving runs on its groups alone (tenant_cluster: a cluster of
 * its own, so its policy deploys only there; the world maps its node and GPU ids to the
 * cluster's), training on the whole cluster, denied serving's nodes at time 0; from then on a
 * node is held by exactly one tenant at every moment:
 * a loan is serving's until its instances have drained, then training's; a reclaim is
 * training's jobs preempted or shrunk at once and the node serving's (its weights loading).
 *
 * The broker is a client of the engine: a decision every period while the tenants have
 * events pending (the last one, with nothing pending, still decides once: a loan may be
 * what lets waiting jobs start); the policy sees a struct colo_view (colo_view.h) and names
 * the nodes to move; the world checks its rules (colo_check_moves, rules.c: among them, the
 * nodes serving's instances tie together, its ties, move whole as a pack) and applies them.
 *
 * Its rows: the tenants' (requests, jobs) as they write them; their metrics and samples with
 * the tenant's name and "_" before them (serving_ttft_p99, training_jct_mean), written by
 * the driver's writers; its own metrics: gpu_hours_serving, gpu_hours_training (GPU-hours
 * held, summing to the cluster's GPUs times the run), gpu_hours_loaned (serving's home
 * nodes held by training), loans, reclaims, reclaim_preemptions (training jobs preempted or
 * shrunk by reclaims), decisions; util_total and util_<GPU type>, the cluster's GPU-seconds
 * busy (by either tenant, each as it measures busy alone) over its GPU-seconds in [0, end];
 * with sim.timeline, one timeline row per node and holding: entity 0 serving, 1 training, on
 * each of the node's GPUs, so a trace shows the loans.
 *
 * Invariants: nd[k].holder is the tenant that may use node k; nd[k].pending > 0 only while
 * serving drains it for a loan (moving); held_s sums, over tenants, to GPUs x elapsed time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/forest.h"
#include "../core/engine.h"
#include "../core/timeline.h"
#include "../core/world.h"
#include "colo_view.h"

enum { MAX_SERVING_GROUPS = 64 };
enum ev_kind { EV_DECIDE = 1 };

struct group_ref {
    char  name[64];
    char  file[256];
    long  line;
};

struct config {
    struct group_ref serving[MAX_SERVING_GROUPS];
    int              nserving;
    double           period_s;
    struct group_ref micro;         /* tenants.microservices, where it was given */
    int              serve_ttft;    /* 1: tenants.serving gives slo.ttft_s (its world reads
                                       it; a broker that watches the SLO needs it) */
};

static const char *const top_keys[] = { "serving_groups", "broker", "tenants", NULL };
static const char *const sim_keys[] = { NULL };
static const char *const model_keys[] = { NULL };
static const char *const tenant_names[] = { "serving", "training", "microservices", NULL };
static const char *const tenant_domains[] = { "serving", "training", "micro", NULL };
static const char *const report_columns[] = { "serving_ttft_p99", "serving_slo_attainment",
                                              "training_jct_mean", "gpu_hours_loaned",
                                              "reclaims", NULL };
static const char *const bar_metrics[] = { "serving_ttft_p99", "serving_slo_attainment",
                                           "training_jct_mean", "training_queue_delay_mean",
                                           "gpu_hours_loaned", NULL };
static const char *const sweep_metrics[] = { "training_jct_mean", "serving_ttft_p99",
                                             "gpu_hours_loaned", NULL };
static const struct display display = {
    .entity = "tenants",
    .report_columns = report_columns,
    .bar_metrics = bar_metrics,
    .sweep_metrics = sweep_metrics,
    .entity_one = "tenant",
    .resource_one = "GPU",
    .timeline_held = "GPUs held",
};

static int read_config(void **out, const struct jobj *root, const struct jobj *sim,
                       const char *base_dir, struct errbuf *err)
{
    (void)sim;
    (void)base_dir;
    static const char *const broker_keys[] = { "period_s", "note", NULL };
    struct config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    c->period_s = 300;
    const cJSON *arr;
    struct jobj broker, tenants, training, serving, micro;
    /* which tenants: training, with serving, microservices or both (the driver reads each) */
    if (jobj_obj(&tenants, root, "tenants", JREQ, err) < 0 ||
        jobj_obj(&training, &tenants, "training", JREQ, err) < 0 ||
        jobj_obj(&serving, &tenants, "serving", JOPT, err) < 0 ||
        jobj_obj(&micro, &tenants, "microservices", JOPT, err) < 0 ||
        jobj_obj(&broker, root, "broker", JOPT, err) < 0 ||
        (broker.node != NULL && (jobj_known(&broker, broker_keys, err) < 0 ||
                                 jobj_num(&broker, "period_s", JOPT, 1, 1e7, &c->period_s,
                                          err) < 0)))
        goto fail;
    if (serving.node == NULL && micro.node == NULL) {
        jsonf_error(root->doc, tenants.node, "tenants", err, "training shares the cluster with "
                    "\"serving\", \"microservices\" or both: give one of them");
        goto fail;
    }
    if (micro.node != NULL) {
        const char *file;
        jsonf_where(root->doc, micro.node, &file, &c->micro.line);
        snprintf(c->micro.file, sizeof c->micro.file, "%s", file != NULL ? file : "");
    }
    if (serving.node == NULL) {     /* every GPU node is training's */
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(root->node, "serving_groups");
        if (g != NULL) {
            jsonf_error(root->doc, g, "serving_groups", err, "there is no serving tenant "
                        "(\"tenants\": { \"serving\" }) to hold them");
            goto fail;
        }
        *out = c;
        return 0;
    }
    const cJSON *slo = cJSON_GetObjectItemCaseSensitive(serving.node, "slo");
    c->serve_ttft = cJSON_GetObjectItemCaseSensitive(slo, "ttft_s") != NULL;
    if (jobj_arr(root, "serving_groups", JREQ, &arr, err) < 0)
        goto fail;
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        char field[64];
        snprintf(field, sizeof field, "serving_groups[%d]", i);
        if (i == MAX_SERVING_GROUPS) {
            jsonf_error(root->doc, e, field, err, "at most %d groups", MAX_SERVING_GROUPS);
            goto fail;
        }
        if (!cJSON_IsString(e) || e->valuestring[0] == '\0' ||
            strlen(e->valuestring) >= sizeof c->serving[0].name) {
            jsonf_error(root->doc, e, field, err, "must be the name of a node group of the "
                        "cluster");
            goto fail;
        }
        struct group_ref *g = &c->serving[c->nserving++];
        snprintf(g->name, sizeof g->name, "%s", e->valuestring);
        const char *file;
        jsonf_where(root->doc, e, &file, &g->line);
        snprintf(g->file, sizeof g->file, "%s", file != NULL ? file : "");
    }
    if (c->nserving == 0) {
        jsonf_error(root->doc, arr, "serving_groups", err, "name at least one node group "
                    "(the nodes serving holds when nothing is lent)");
        goto fail;
    }
    *out = c;
    return 0;
fail:
    free(c);
    return -1;
}

/* The groups of cl serving holds at home: keep[g] = 1; an unknown name is an input error at
 * its place in the experiment. */
static int serving_groups(const struct config *c, const cluster *cl, int *keep,
                          struct errbuf *err)
{
    for (int g = 0; g < cluster_ngroups(cl); g++)
        keep[g] = 0;
    for (int i = 0; i < c->nserving; i++) {
        int found = 0;
        for (int g = 0; g < cluster_ngroups(cl); g++)
            if (strcmp(cluster_group_name(cl, g), c->serving[i].name) == 0)
                keep[g] = found = 1;
        if (found)
            continue;
        char names[512], field[64];
        size_t len = 0;
        names[0] = '\0';
        for (int g = 0; g < cluster_ngroups(cl) && len < sizeof names - 80; g++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", g ? ", " : "",
                                    cluster_group_name(cl, g));
        snprintf(field, sizeof field, "serving_groups[%d]", i);
        return err_input(err, c->serving[i].file, c->serving[i].line, field, "no node group "
                         "'%s' in cluster '%s' (it has %s)", c->serving[i].name,
                         cluster_name(cl), names);
    }
    return 0;
}

static int tenant_cluster(const void *config, const char *name, const cluster *cl,
                          cluster **sub, struct errbuf *err)
{
    const struct config *c = config;
    *sub = NULL;
    if (strcmp(name, "microservices") == 0) {       /* the CPU nodes, never a GPU node */
        if (cluster_ncpu_groups(cl) == 0)
            return err_input(err, c->micro.file, c->micro.line, "tenants.microservices",
                             "cluster '%s' has no CPU node groups, where the microservice "
                             "tenant's containers run (a group with \"count\", \"cpus\" and "
                             "\"memory_gb\" and no \"gpu\")", cluster_name(cl));
        return cluster_cpu_part(sub, cl, err);
    }
    if (strcmp(name, "serving") != 0)
        return 0;               /* training may be lent any of serving's nodes */
    int *keep = calloc((size_t)cluster_ngroups(cl) + 1, sizeof *keep);
    if (keep == NULL)
        return err_run(err, "out of memory");
    int rc = serving_groups(config, cl, keep, err);
    if (rc == 0)
        rc = cluster_subset(sub, cl, keep, err);
    free(keep);
    return rc;
}

static int check_source(const struct world_env *env, FILE *list, int64_t *count,
                        struct errbuf *err)
{
    (void)env;
    (void)list;
    *count = 0;
    return err_run(err, "a colocate experiment has a workload per tenant: the driver checks "
                   "each");
}

/* ---------------------------------------------------------------- one run */

struct node {
    int     home, holder, moving;
    int     pending;                /* GPUs serving has still to release (a loan) */
    simtime since;                  /* its holding began (the timeline) */
    int     cause;                  /* what began it (enum timeline_cause) */
};

struct world {
    const struct world_env *env;
    const struct config    *cfg;
    const struct world_tenant *t[COLO_NTENANTS];
    const struct colo_decider *dec;
    engine          *e;
    uint32_t         tag;
    int              nnodes;
    struct node     *nd;
    int             *serve_node;    /* by node: its index in serving's cluster, -1: none */
    const struct world_tenant *micro;   /* the microservices, NULL: none */
    int             *host;          /* by node: the micro tenant's CPU node of its host part,
                                       -1: none */
    int             *full_node;     /* by serving's node: the cluster's */
    int              serve_slot[CLUSTER_MAX_TYPES];     /* serving's type slots in ours */
    struct colo_node *vn;           /* the view's nodes */
    int             *move;
    int             *sunit;         /* by serving's GPU: serving's ties (world_ops.ties) */
    unsigned char   *sup;
    simtime          period;
    simtime          acct;          /* held_s is accounted up to here */
    double           held_s[COLO_NTENANTS];     /* GPU-seconds held */
    double           loaned_s;      /* GPU-seconds of serving's home nodes held by training */
    double           last_arrived;
    simtime          last_decide;
    int64_t          loans, reclaims, reclaim_preemptions, decisions;
    int              failed;        /* a tenancy call from a callback failed (message in msg) */
    struct errbuf    msg;
};

enum { NODE_MAX_GPUS = 64 };       /* the cluster's gpus_per_node limit */

/* The GPU ids of node k into ids; returns how many. */
static int node_gpus(const struct world *w, int k, int *ids)
{
    const struct cluster_node *cn = cluster_node(w->env->cl, k);
    for (int i = 0; i < cn->ngpus; i++)
        ids[i] = cn->first + i;
    return cn->ngpus;
}

/* The same in serving's cluster (node k is one of serving's home nodes). */
static int serve_gpus(const struct world *w, int k, int *ids)
{
    const struct cluster_node *cn = cluster_node(w->t[COLO_SERVING]->cl, w->serve_node[k]);
    for (int i = 0; i < cn->ngpus; i++)
        ids[i] = cn->first + i;
    return cn->ngpus;
}

static void account(struct world *w, simtime t)
{
    if (t <= w->acct)
        return;
    double dt = sim_to_sec(t - w->acct);
    for (int k = 0; k < w->nnodes; k++) {
        double g = cluster_node(w->env->cl, k)->ngpus * dt;
        w->held_s[w->nd[k].holder] += g;
        if (w->nd[k].home == COLO_SERVING && w->nd[k].holder == COLO_TRAINING)
            w->loaned_s += g;
    }
    w->acct = t;
}

/* Close node k's holding interval at t (sim.timeline), ended by `ends`. */
static int tl_close(struct world *w, int k, simtime t, int ends, struct errbuf *err)
{
    struct node *n = &w->nd[k];
    if (!w->env->sim->timeline || w->env->out->row == NULL || t <= n->since) {
        n->since = t;
        return 0;
    }
    int ids[NODE_MAX_GPUS], ng = node_gpus(w, k, ids);
    int rc = timeline_gpus(w->env->out, w->env->cl, n->holder, ids, ng, n->since, t,
                           n->moving ? TL_RESTORING : TL_RUNNING, 1, n->cause, ends, err);
    n->since = t;
    return rc;
}

/* Node k's host part to the micro tenant (give) or from it (take), if it has one. */
static int host_move(struct world *w, int k, int give, struct errbuf *err)
{
    if (w->host[k] < 0)
        return 0;
    const struct world_tenant *m = w->micro;
    int64_t evicted;
    if (give)
        return m->ops->give(m->world, &w->host[k], 1, err);
    return m->ops->take(m->world, &w->host[k], 1, &evicted, err) < 0 ? -1 : 0;
}

/* Node k is training's now: the loan arrives. */
static int hand_to_training(struct world *w, int k, struct errbuf *err)
{
    struct node *n = &w->nd[k];
    simtime t = engine_now(w->e);
    if (host_move(w, k, 0, err) < 0)
        return -1;
    account(w, t);
    if (tl_close(w, k, t, TL_MIGRATE, err) < 0)
        return -1;
    int ids[NODE_MAX_GPUS], ng = node_gpus(w, k, ids);
    n->holder = COLO_TRAINING;
    n->moving = 0;
    n->pending = 0;
    n->cause = TL_MIGRATE;
    return w->t[COLO_TRAINING]->ops->give(w->t[COLO_TRAINING]->world, ids, ng, err);
}

/* Serving's GPUs (its cluster's ids) that are free now. */
static void on_released(void *ctx, const int *gpus, int n, simtime t)
{
    struct world *w = ctx;
    (void)t;
    for (int i = 0; i < n && !w->failed; i++) {
        int k = w->full_node[cluster_gpu_node(w->t[COLO_SERVING]->cl, gpus[i])];
        struct node *nd = &w->nd[k];
        if (!nd->moving || nd->pending <= 0)
            continue;       /* the initial partition: nothing waits for it */
        if (--nd->pending == 0 && hand_to_training(w, k, &w->msg) < 0)
            w->failed = 1;
    }
}

/* Take node k from its holder for the other tenant. */
static int move_node(struct world *w, int k, struct errbuf *err)
{
    struct node *n = &w->nd[k];
    int ids[NODE_MAX_GPUS], ng = node_gpus(w, k, ids), sids[NODE_MAX_GPUS];
    serve_gpus(w, k, sids);
    int64_t affected = 0;
    if (n->holder == COLO_SERVING) {            /* a loan */
        const struct world_tenant *s = w->t[COLO_SERVING];
        account(w, engine_now(w->e));
        if (tl_close(w, k, engine_now(w->e), TL_MIGRATE, err) < 0)
            return -1;
        n->moving = 1;
        n->pending = ng;
        n->cause = TL_MIGRATE;
        w->loans++;
        int rc = s->ops->take(s->world, sids, ng, &affected, err);
        if (rc < 0)
            return -1;
        return rc == 1 && n->moving ? hand_to_training(w, k, err) : 0;
    }
    /* a reclaim: training lets go at once */
    const struct world_tenant *tr = w->t[COLO_TRAINING];
    if (tr->ops->take(tr->world, ids, ng, &affected, err) < 0)
        return -1;
    account(w, engine_now(w->e));
    if (tl_close(w, k, engine_now(w->e), TL_PREEMPT, err) < 0)
        return -1;
    n->holder = COLO_SERVING;
    n->cause = TL_PREEMPT;
    w->reclaims++;
    w->reclaim_preemptions += affected;
    const struct world_tenant *s = w->t[COLO_SERVING];
    if (s->ops->give(s->world, sids, ng, err) < 0)
        return -1;
    return host_move(w, k, 1, err);
}

/* The view's packs and loading flags from serving's ties (colo_view.h): nodes whose GPUs
 * one unit of serving's work binds are one pack, named by its lowest node. */
static void packs(struct world *w)
{
    const struct world_tenant *s = w->t[COLO_SERVING];
    int *pack = w->move;            /* scratch until the policy fills it */
    forest_init(pack, w->nnodes);
    for (int k = 0; k < w->nnodes; k++)
        w->vn[k].loading = 0;
    if (s->ops->ties != NULL) {
        s->ops->ties(s->world, w->sunit, w->sup);
        for (int g = 0; g < cluster_ngpus(s->cl); g++) {
            int a = w->full_node[cluster_gpu_node(s->cl, g)];
            int b = w->full_node[cluster_gpu_node(s->cl, w->sunit[g])];
            forest_join(pack, a, b);
            const struct node *n = &w->nd[a];
            if (!w->sup[g] && n->holder == COLO_SERVING && !n->moving)
                w->vn[a].loading = 1;
        }
    }
    for (int k = 0; k < w->nnodes; k++)
        w->vn[k].pack = forest_root(pack, k);
}

static int decide(struct world *w, struct errbuf *err)
{
    const struct world_tenant *s = w->t[COLO_SERVING], *tr = w->t[COLO_TRAINING];
    simtime now = engine_now(w->e);
    struct world_load sl, tl;
    s->ops->load(s->world, &sl);
    tr->ops->load(tr->world, &tl);
    const int *types;
    struct colo_view v = { .now = now, .cl = w->env->cl, .nnodes = w->nnodes, .node = w->vn,
                           .train_waiting = tl.waiting, .serve_slo_seen = sl.slo_seen,
                           .serve_slo_miss = sl.slo_miss,
                           .ntypes = cluster_types(w->env->cl, &types) };
    double dt = sim_to_sec(now - w->last_decide);
    v.serve_demand = dt > 0 ? (sl.arrived - w->last_arrived) / dt : 0;
    w->last_arrived = sl.arrived;
    w->last_decide = now;
    const int *stypes;
    int nst = cluster_types(s->cl, &stypes);
    for (int i = 0; i < v.ntypes; i++)
        v.train_gain[i] = tl.gain[i];
    for (int i = 0; i < nst; i++)
        v.serve_gain[w->serve_slot[i]] = sl.gain[i];
    for (int k = 0; k < w->nnodes; k++) {
        const struct node *n = &w->nd[k];
        int ids[NODE_MAX_GPUS], ng = node_gpus(w, k, ids), sids[NODE_MAX_GPUS];
        int serves = w->serve_node[k] >= 0 && s->ops->capacity != NULL;
        if (serves)
            serve_gpus(w, k, sids);
        struct colo_node *c = &w->vn[k];
        *c = (struct colo_node){
            .type = cluster_type_slot(w->env->cl, cluster_node(w->env->cl, k)->gpu),
            .gpus = ng, .home = n->home, .holder = n->holder, .moving = n->moving,
            .serve_cap = serves ? s->ops->capacity(s->world, sids, ng) : 0,
            .take_cost = n->holder == COLO_TRAINING && tr->ops->take_cost != NULL
                             ? tr->ops->take_cost(tr->world, ids, ng) : 0,
        };
        if (n->holder == COLO_SERVING && !n->moving)
            v.serve_held += c->serve_cap;
    }
    packs(w);
    for (int k = 0; k < w->nnodes; k++)
        w->move[k] = 0;
    w->decisions++;
    if (w->dec->decide(w->dec->ctx, &v, w->move, err) < 0)
        return -1;
    struct errbuf why;
    err_clear(&why);
    if (colo_check_moves(&v, w->move, &why) < 0)
        return err_run(err, "broker at t=%.3f s: %s", sim_to_sec(now), why.msg);
    for (int k = 0; k < w->nnodes; k++)
        if (w->move[k] && move_node(w, k, err) < 0)
            return -1;
    return w->failed ? err_run(err, "%s", w->msg.msg) : 0;
}

static int handle(void *ctx, const struct evq_event *ev, struct errbuf *err)
{
    struct world *w = ctx;
    (void)ev;
    if (decide(w, err) < 0)
        return ENGINE_FAIL;
    /* go on while the tenants have something to happen */
    if (engine_queued(w->e) > 0 &&
        engine_at(w->e, engine_now(w->e) + w->period, EV_DECIDE | w->tag, 0, NULL) < 0) {
        err_run(err, "out of memory");
        return ENGINE_FAIL;
    }
    return ENGINE_CONTINUE;
}

/* The tenants' callbacks may fail inside the engine loop (a give on a loan that arrives
 * while serving's instant ends): the broker's hook reports it at the end of that instant. */
static int instant_end(void *ctx, struct errbuf *err)
{
    struct world *w = ctx;
    if (!w->failed)
        return ENGINE_CONTINUE;
    err_run(err, "%s", w->msg.msg);
    return ENGINE_FAIL;
}

static void destroy(void *world)
{
    struct world *w = world;
    if (w == NULL)
        return;
    engine_destroy(w->e);
    free(w->serve_node);
    free(w->host);
    free(w->full_node);
    free(w->nd);
    free(w->vn);
    free(w->move);
    free(w->sunit);
    free(w->sup);
    free(w);
}

static int create(void **out, const struct world_env *env, struct errbuf *err)
{
    const struct config *c = env->config;
    struct world *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->env = env;
    w->cfg = c;
    w->dec = env->decider;
    for (int i = 0; i < env->ntenants; i++) {      /* the GPU nodes' holders */
        if (strcmp(env->tenants[i].name, "serving") == 0)
            w->t[COLO_SERVING] = &env->tenants[i];
        else if (strcmp(env->tenants[i].name, "training") == 0)
            w->t[COLO_TRAINING] = &env->tenants[i];
        else if (strcmp(env->tenants[i].name, "microservices") == 0)
            w->micro = &env->tenants[i];
    }
    if (w->t[COLO_TRAINING] == NULL) {
        free(w);
        return err_run(err, "the colocate world needs its training tenant");
    }
    w->nnodes = cluster_nnodes(env->cl);
    w->nd = calloc((size_t)w->nnodes + 1, sizeof *w->nd);
    w->vn = calloc((size_t)w->nnodes + 1, sizeof *w->vn);
    w->move = calloc((size_t)w->nnodes + 1, sizeof *w->move);
    w->host = calloc((size_t)w->nnodes + 1, sizeof *w->host);
    w->e = engine_create(1024);
    if (w->nd == NULL || w->vn == NULL || w->move == NULL || w->host == NULL || w->e == NULL) {
        destroy(w);
        return err_run(err, "out of memory");
    }
    /* the host parts of the GPU nodes: the micro tenant's CPU nodes, numbered group by group
     * (cluster_cpu_part) */
    for (int k = 0; k < w->nnodes; k++)
        w->host[k] = -1;
    for (int i = 0, nd = 0; w->micro != NULL && i < cluster_ncpu_groups(w->micro->cl); i++) {
        const struct cluster_cpu_group *g = cluster_cpu_group(w->micro->cl, i);
        for (int q = 0; q < g->count; q++, nd++)
            if (g->gpu_node >= 0)
                w->host[g->gpu_node + q] = nd;
    }
    w->period = sim_from_sec(c->period_s);
    /* the home of each node: serving's groups by name; serving's own node numbers */
    int *keep = calloc((size_t)cluster_ngroups(env->cl) + 1, sizeof *keep);
    w->serve_node = calloc((size_t)w->nnodes + 1, sizeof *w->serve_node);
    w->full_node = calloc((size_t)w->nnodes + 1, sizeof *w->full_node);
    if (keep == NULL || w->serve_node == NULL || w->full_node == NULL) {
        free(keep);
        destroy(w);
        return err_run(err, "out of memory");
    }
    if (serving_groups(c, env->cl, keep, err) < 0) {
        free(keep);
        destroy(w);
        return -1;
    }
    int ns = 0;
    for (int k = 0; k < w->nnodes; k++) {
        int home = keep[cluster_node(env->cl, k)->group];
        w->nd[k] = (struct node){ .home = home ? COLO_SERVING : COLO_TRAINING,
                                  .holder = home ? COLO_SERVING : COLO_TRAINING,
                                  .cause = TL_START };
        w->serve_node[k] = home ? ns : -1;
        if (home)
            w->full_node[ns++] = k;
    }
    free(keep);
    if (w->t[COLO_SERVING] == NULL) {       /* nothing to lend: every node is training's */
        *out = w;
        return 0;
    }
    const cluster *scl = w->t[COLO_SERVING]->cl;
    if (cluster_nnodes(scl) != ns) {
        destroy(w);
        return err_run(err, "serving's cluster has %d nodes, not its %d home nodes",
                       cluster_nnodes(scl), ns);
    }
    const int *stypes;
    int nst = cluster_types(scl, &stypes);
    for (int i = 0; i < nst; i++)
        w->serve_slot[i] = cluster_type_slot(env->cl, stypes[i]);
    w->sunit = calloc((size_t)cluster_ngpus(scl) + 1, sizeof *w->sunit);
    w->sup = calloc((size_t)cluster_ngpus(scl) + 1, sizeof *w->sup);
    if (w->sunit == NULL || w->sup == NULL) {
        destroy(w);
        return err_run(err, "out of memory");
    }
    *out = w;
    return 0;
}

/* The cluster's utilization over the run [0, end]: util_<type>, the GPU-seconds busy on the
 * type's GPUs, whichever tenant holds them, over its GPUs x end; util_total, the same over all
 * GPUs (so the GPU-weighted mean of the types').  Busy is each tenant's own measure (training:
 * GPUs granted to a running job; serving: GPUs of an instance computing a batch); a GPU is
 * one tenant's at a time, so the two never count the same GPU-second. */
static int util_metrics(struct world *w, const struct world_totals *tot, struct errbuf *err)
{
    const struct world_writer *o = w->env->out;
    const cluster *cl = w->env->cl;
    double horizon = sim_to_sec(tot->end);
    if (horizon <= 0)
        return 0;
    const int *types;
    int nt = cluster_types(cl, &types);
    double busy = 0;
    for (int s = 0; s < nt; s++) {
        char name[64];
        snprintf(name, sizeof name, "util_%s", catalog_gpu(cluster_catalog(cl), types[s])->name);
        if (o->metric(o->ctx, name, tot->busy_gpu_s[s] /
                                    (cluster_type_count(cl, types[s]) * horizon), err) < 0)
            return -1;
        busy += tot->busy_gpu_s[s];
    }
    return o->metric(o->ctx, "util_total", busy / (cluster_ngpus(cl) * horizon), err);
}

static int cluster_metrics(struct world *w, const struct world_totals *tot, struct errbuf *err)
{
    const struct world_writer *o = w->env->out;
    struct { const char *name; double v; } m[] = {
        { "gpu_hours_serving", w->held_s[COLO_SERVING] / 3600 },
        { "gpu_hours_training", w->held_s[COLO_TRAINING] / 3600 },
        { "gpu_hours_loaned", w->loaned_s / 3600 },
        { "loans", (double)w->loans },
        { "reclaims", (double)w->reclaims },
        { "reclaim_preemptions", (double)w->reclaim_preemptions },
        { "broker_decisions", (double)w->decisions },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (o->metric(o->ctx, m[i].name, m[i].v, err) < 0)
            return -1;
    return util_metrics(w, tot, err);
}

static int run(void *world, struct world_totals *out, struct errbuf *err)
{
    struct world *w = world;
    const struct world_env *env = w->env;
    err_clear(&w->msg);
    for (int i = 0; i < env->ntenants; i++) {      /* serving, training, microservices */
        const struct world_tenant *t = &env->tenants[i];
        if (t->ops->attach(t->world, w->e, err) < 0) {
            char at[96];            /* a field of its section names it already */
            snprintf(at, sizeof at, ": tenants.%s.", t->name);
            if (strstr(err->msg, at) == NULL)
                err_prefix(err, "tenant %s: ", t->name);
            return -1;
        }
        if (t->ops->tenancy != NULL && (t == w->t[COLO_SERVING] || t == w->t[COLO_TRAINING]))
            t->ops->tenancy(t->world, &(struct world_tenancy){ w, on_released });
    }
    if (engine_attach(w->e, handle, instant_end, w, &w->tag) < 0)
        return err_run(err, "too many worlds on one engine");
    /* time 0: training is denied serving's nodes (serving's cluster has no others) */
    for (int k = 0; k < w->nnodes; k++) {
        if (w->nd[k].home != COLO_SERVING)
            continue;
        int ids[NODE_MAX_GPUS], ng = node_gpus(w, k, ids);
        int64_t affected;
        const struct world_tenant *tr = w->t[COLO_TRAINING];
        if (tr->ops->take(tr->world, ids, ng, &affected, err) < 0)
            return -1;
    }
    /* time 0: the host parts of training's nodes are its data loaders', not the micro
     * tenant's (taken before its first decision: its deployment starts without them) */
    for (int k = 0; k < w->nnodes; k++)
        if (w->nd[k].holder == COLO_TRAINING && host_move(w, k, 0, err) < 0)
            return -1;
    if (w->t[COLO_SERVING] != NULL &&      /* else nothing to move */
        engine_at(w->e, w->period, EV_DECIDE | w->tag, 0, NULL) < 0)
        return err_run(err, "out of memory");
    struct engine_limits lim = { env->sim->until, env->sim->max_events };
    int stop = engine_advance(w->e, &lim, err);
    if (stop == ENGINE_FAILED)
        return -1;
    simtime end = engine_now(w->e);
    account(w, end);
    for (int k = 0; k < w->nnodes; k++)
        if (tl_close(w, k, end, TL_STOP, err) < 0)
            return -1;
    *out = (struct world_totals){ .end = end, .stop = stop };
    double busy[CLUSTER_MAX_TYPES] = { 0 };
    for (int i = 0; i < env->ntenants; i++) {
        const struct world_tenant *t = &env->tenants[i];
        struct world_totals tt;
        if (t->ops->finish(t->world, stop, &tt, err) < 0)
            return -1;
        if (tt.stop == ENGINE_STALLED)
            out->stop = ENGINE_STALLED;
        out->events += tt.events;
        out->decisions += tt.decisions;
        out->entities_in += tt.entities_in;
        out->entities_done += tt.entities_done;
        /* its type slots are its cluster's: into the whole cluster's */
        const int *types;
        int nt = cluster_types(t->cl, &types);
        for (int s = 0; s < nt; s++)
            busy[cluster_type_slot(env->cl, types[s])] += tt.busy_gpu_s[s];
    }
    out->events += (uint64_t)w->decisions;
    out->decisions += (uint64_t)w->decisions;
    for (int s = 0; s < CLUSTER_MAX_TYPES; s++)
        out->busy_gpu_s[s] = busy[s];
    return cluster_metrics(w, out, err);
}

static int check_policy(const void *config, const void *decider, char *msg, size_t cap)
{
    const struct config *c = config;
    const struct colo_decider *d = decider;
    if (d == NULL || d->decide == NULL) {
        snprintf(msg, cap, "is not a broker policy");
        return -1;
    }
    if (d->watches_slo && !c->serve_ttft) {
        snprintf(msg, cap, "watches serving's TTFT objective (slo_guard), but tenants.serving "
                 "gives none (\"slo\": { \"ttft_s\" }): no first token could ever miss");
        return -1;
    }
    return 0;
}

const struct world_ops colocate_world = {
    .domain = "colocate",
    .summary = "one cluster shared by an LLM serving tenant and a training tenant (and "
               "microservices on its CPU nodes), with a broker that lends serving's idle nodes "
               "to training and takes them back",
    .entity = "requests and jobs",
    .top_keys = top_keys,
    .sim_keys = sim_keys,
    .model_keys = model_keys,
    .tenants = tenant_names,
    .tenant_domains = tenant_domains,
    .display = &display,
    .read = read_config,
    .free_config = free,
    .check_policy = check_policy,
    .check_source = check_source,
    .tenant_cluster = tenant_cluster,
    .create = create,
    .run = run,
    .destroy = destroy,
};
