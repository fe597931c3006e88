/*
 * policy: registry lookup and the thin dispatch layer between the world and a policy.
 * Each decide call is timed with the monotonic clock; these times are the only
 * wall-clock-dependent numbers a run records (solver_time_*).
 */
#define _POSIX_C_SOURCE 200809L
#include "policy.h"

#include "alloc.h"
#include "python/pybridge.h"
#include "../sim/train/elastic_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct policy {
    const struct policy_ops *ops;
    void                    *self;
    simtime                  round;
    struct train_decider     train;     /* the decider of the "training" world */
    struct place_decider     place;     /* the decider of the "placement" world */
    struct serve_decider     serve;     /* the decider of the "serving" world */
    struct micro_decider     micro;     /* the decider of the "micro" world */
    struct colo_decider      colo;      /* the decider of the "colocate" world */
    char                     label[64];
    struct policy_stats      st;
    int                      trace;
};

const struct policy_ops *policy_find(const char *name)
{
    for (int i = 0; policy_registry[i] != NULL; i++)
        if (strcmp(policy_registry[i]->name, name) == 0)
            return policy_registry[i];
    return NULL;
}

int policy_is_python(const char *name)
{
    return strncmp(name, PYBRIDGE_PREFIX, strlen(PYBRIDGE_PREFIX)) == 0;
}

const char *policy_hint(const char *name, char *buf, size_t cap)
{
    const char *names[128];
    int n = 0;
    for (; policy_registry[n] != NULL && n < 127; n++)
        names[n] = policy_registry[n]->name;
    names[n] = NULL;
    const char *close = jsonf_suggest(name, names);
    if (close == NULL)
        return "";
    snprintf(buf, cap, " (did you mean '%s'?)", close);
    return buf;
}

int policy_open(policy **out, const char *name, const struct jobj *params,
                const struct policy_env *env, struct errbuf *err)
{
    *out = NULL;
    /* a Python module describes itself (its domain, hooks and parameters) when it loads */
    int py = policy_is_python(name);
    const struct policy_ops *ops = NULL;
    if (py && pybridge_load(&ops, name + strlen(PYBRIDGE_PREFIX), env, err) < 0)
        return -1;
    if (!py)
        ops = policy_find(name);
    if (ops == NULL) {          /* experiments check names when they load; this is a backstop */
        char hint[96];
        return err_input(err, NULL, 0, "policy", "unknown policy '%s'%s (see `hetsim list "
                         "policies`)", name, policy_hint(name, hint, sizeof hint));
    }
    /* accepted keys: the policy's own plus the common ones */
    const char *known[64];
    int nk = 0;
    known[nk++] = "name";
    known[nk++] = "round_s";
    known[nk++] = "label";
    if (ops->colo != NULL)
        known[nk++] = "tenants";    /* a broker's tenants' policies: the experiment reads them */
    for (int i = 0; ops->params != NULL && ops->params[i] != NULL && nk < 63; i++)
        known[nk++] = ops->params[i];
    known[nk] = NULL;
    struct jobj none = { 0 };
    if (params == NULL || params->node == NULL)
        params = &none;
    double round_s = ops->train ? ops->train->round_s : ops->serve ? ops->serve->redispatch_s : 0;
    const char *label = ops->name;
    policy *p = NULL;
    if ((params->node != NULL &&
         (jobj_known(params, known, err) < 0 ||
          jobj_num(params, "round_s", JOPT, ops->serve ? 0 : 1e-3, 1e9, &round_s, err) < 0 ||
          jobj_str(params, "label", JOPT, &label, err) < 0)) ||
        (p = calloc(1, sizeof *p)) == NULL) {
        if (py)
            pybridge_unload(ops);
        return err->code ? -1 : err_run(err, "out of memory");
    }
    p->ops = ops;
    p->round = sim_from_sec(round_s);
    snprintf(p->label, sizeof p->label, "%s", label);
    p->trace = getenv("HETSIM_TRACE") != NULL;
    /* a Python module's instance is the one pybridge_load made: create gives it its
     * parameters and generator */
    if (py ? pybridge_create(ops, &p->self, params, env, err) < 0
           : ops->create(&p->self, params, env, err) < 0) {
        if (py)
            pybridge_unload(ops);
        free(p);
        return -1;
    }
    if (ops->train != NULL)
        p->train = (struct train_decider){
            .ctx = p, .decide = ops->train->decide ? policy_train_decide : NULL,
            .wake = ops->train->wake,
            .round = p->round, .allocate = ops->train->allocate ? policy_allocate : NULL,
            .agnostic = !!(ops->flags & POLICY_AGNOSTIC), .fifo = !!(ops->flags & POLICY_FIFO),
            .elastic = ops->train->elastic ? policy_elastic : NULL,
            .adaptive_batch = ops->train->adaptive_batch,
        };
    if (ops->place != NULL)
        p->place = (struct place_decider){ .ctx = p, .decide = policy_place_decide };
    if (ops->serve != NULL)
        p->serve = (struct serve_decider){
            .ctx = p, .cl = env->cl, .deploy = policy_serve_deploy, .route = policy_serve_route,
            .dispatch = ops->serve->dispatch ? policy_serve_dispatch : NULL,
            .redispatch_s = round_s,
        };
    if (ops->micro != NULL)
        p->micro = (struct micro_decider){ .ctx = p, .decide = policy_micro_decide,
                                           .round = p->round };
    if (ops->colo != NULL)
        p->colo = (struct colo_decider){
            .ctx = p, .decide = policy_colo_decide,
            .watches_slo = ops->colo->watches_slo != NULL && ops->colo->watches_slo(p->self),
        };
    *out = p;
    return 0;
}

void policy_close(policy *p)
{
    if (p == NULL)
        return;
    p->ops->destroy(p->self);
    if (policy_is_python(p->ops->name))
        pybridge_unload(p->ops);
    free(p);
}

const struct policy_ops *policy_ops_of(const policy *p) { return p->ops; }
const char *policy_label(const policy *p) { return p->label; }
simtime policy_round(const policy *p) { return p->round; }
void policy_get_stats(const policy *p, struct policy_stats *out) { *out = p->st; }

int policy_metrics(const policy *p, const struct policy_metric_sink *out, struct errbuf *err)
{
    return p->ops->metrics != NULL ? p->ops->metrics(p->self, out, err) : 0;
}

const void *policy_decider(const policy *p)
{
    if (p->ops->place != NULL)
        return &p->place;
    if (p->ops->micro != NULL)
        return &p->micro;
    if (p->ops->colo != NULL)
        return &p->colo;
    return p->ops->train != NULL   ? (const void *)&p->train
           : p->ops->serve != NULL ? (const void *)&p->serve
                                   : NULL;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One timed call of a policy hook, begun at t0: its count and time in the policy's stats. */
static void timed(policy *p, double t0)
{
    double dt = mono_s() - t0;
    p->st.calls++;
    p->st.time_total_s += dt;
    if (dt > p->st.time_max_s)
        p->st.time_max_s = dt;
}

int policy_allocate(void *ctx, const struct alloc_problem *prob, double *x, struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->train->allocate(p->self, prob, x, err);
    timed(p, t0);
    if (rc == 0 && alloc_check(prob, x, 1e-6, err) < 0)
        rc = -1;
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: allocation: ", p->label, sim_to_sec(prob->now));
    if (p->trace)
        fprintf(stderr, "trace: t=%.6f %s allocation over %d jobs\n", sim_to_sec(prob->now),
                p->label, prob->njobs);
    return rc;
}

int policy_train_decide(void *ctx, const struct train_view *v, struct grant_list *out,
                        struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->train->decide(p->self, v, out, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: ", p->label, sim_to_sec(v->now));
    if (p->trace)
        fprintf(stderr, "trace: t=%.6f %s reason=%u active=%d waiting=%d running=%d grants=%zu%s\n",
                sim_to_sec(v->now), p->label, v->reason, v->n_active, v->n_waiting,
                v->n_running, out->n, out->full ? " full" : "");
    return rc;
}

int policy_serve_deploy(void *ctx, const struct serve_env_view *v, struct serve_deployment *out,
                        struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    memset(out, 0, sizeof *out);
    int rc = p->ops->serve->deploy(p->self, v, out, err);
    timed(p, t0);
    if (p->trace && rc == 0) {
        static const char *const roles[] = { "unified", "prefill", "decode" };
        const catalog *cat = cluster_catalog(v->cl);
        fprintf(stderr, "trace: %s deployment: %d instances\n", p->label, out->n);
        for (int i = 0; i < out->n; i++) {
            const struct serve_instance *in = &out->inst[i];
            fprintf(stderr, "trace:   instance %d (%s):", i,
                    in->role >= 0 && in->role <= 2 ? roles[in->role] : "?");
            for (int s = 0; s < in->nstages && s < SERVE_MAX_STAGES; s++)
                fprintf(stderr, " [%d x %s, %d layers]", in->stages[s].ngpu,
                        catalog_gpu(cat, cluster_gpu_type(v->cl, in->stages[s].gpus[0]))->name,
                        in->stages[s].layers);
            if (in->nattn > 0)
                fprintf(stderr, " + %d attention workers", in->nattn);
            fprintf(stderr, "; KV %.0f tokens, %.3g requests/s of 1024 + 128 tokens\n",
                    serve_view_kv_tokens(v, in), serve_view_rate(v, in, 1024, 128));
        }
    }
    return rc;
}

int policy_serve_route(void *ctx, const struct serve_view *v, const struct serve_req_view *r,
                       int32_t *inst, struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->serve->route(p->self, v, r, inst, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: routing: ", p->label, sim_to_sec(v->now));
    if (p->trace)
        fprintf(stderr, "trace: t=%.6f %s route request %lld (%d tokens, %s) -> %d\n",
                sim_to_sec(v->now), p->label, (long long)r->id, r->prompt,
                r->want_role == SERVE_DECODE ? "decode" : "prompt", *inst);
    return rc;
}

int policy_serve_dispatch(void *ctx, struct serve_dispatch *d, struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->serve->dispatch(p->self, d, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: dispatch: ", p->label, sim_to_sec(d->now));
    if (p->trace)
        fprintf(stderr, "trace: t=%.6f %s dispatch instance %d: %d requests%s, layer attention "
                "%.6f s\n", sim_to_sec(d->now), p->label, d->inst, d->nreq,
                d->rebalance == SERVE_REBALANCE ? " (rebalance)"
                : d->rebalance == SERVE_REPLACE ? " (place anew)" : "", d->layer_attn_s);
    return rc;
}

int policy_elastic(void *ctx, const struct elastic_view *v, struct elastic_alloc *out,
                   struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->train->elastic(p->self, v, out, err);
    timed(p, t0);
    /* every list names real nodes, no node holds more than it has */
    if (rc == 0 && out->njobs != (size_t)v->njobs)
        rc = err_run(err, "answered for %zu of %d jobs", out->njobs, v->njobs);
    if (rc == 0) {
        int32_t used[4096];
        int32_t *u = v->nnodes <= 4096 ? used : calloc((size_t)v->nnodes, sizeof *u);
        if (u == NULL)
            rc = err_run(err, "out of memory");
        else
            memset(u, 0, (size_t)v->nnodes * sizeof *u);
        for (size_t k = 0; rc == 0 && k < out->n; k++) {
            int32_t nd = out->nodes[k];
            if (nd < 0 || nd >= v->nnodes)
                rc = err_run(err, "allocated node %d of %d", nd, v->nnodes);
            else if (++u[nd] > v->node_gpus[nd])
                rc = err_run(err, "allocated more than node %d's %d GPUs", nd, v->node_gpus[nd]);
        }
        if (u != NULL && u != used)
            free(u);
    }
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: ", p->label, v->now_s);
    if (p->trace)
        fprintf(stderr, "trace: t=%.6f %s elastic over %d jobs, %zu GPUs granted\n", v->now_s,
                p->label, v->njobs, out->n);
    return rc;
}

int policy_place_decide(void *ctx, const struct place_view *v, const struct place_pod *pod,
                        struct place_choice *out, struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->place->decide(p->self, v, pod, out, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s, pod %lld (%s): ", p->label, (long long)v->seq, pod->name);
    if (p->trace)
        fprintf(stderr, "trace: pod %lld %s %s node=%d gpus=%d\n", (long long)v->seq,
                p->label, pod->name, out->node, out->ngpus);
    return rc;
}

int policy_micro_decide(void *ctx, const struct micro_view *v, int *containers,
                        struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->micro->decide(p->self, v, containers, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: ", p->label, sim_to_sec(v->now));
    if (p->trace) {
        int total = 0;
        for (int k = 0; k < v->app->nservices; k++)
            total += containers[k];
        fprintf(stderr, "trace: t=%.6f %s interval=%lld rate=%.3f q=%.6f containers=%d\n",
                sim_to_sec(v->now), p->label, (long long)v->interval, v->rate, v->e2e_q_s,
                total);
    }
    return rc;
}

int policy_colo_decide(void *ctx, const struct colo_view *v, int *move, struct errbuf *err)
{
    policy *p = ctx;
    double t0 = mono_s();
    int rc = p->ops->colo->decide(p->self, v, move, err);
    timed(p, t0);
    if (rc < 0)
        err_prefix(err, "policy %s at t=%.6f s: ", p->label, sim_to_sec(v->now));
    if (p->trace) {
        int moved = 0;
        for (int k = 0; k < v->nnodes; k++)
            moved += move[k] != 0;
        fprintf(stderr, "trace: t=%.6f %s demand=%.1f held=%.1f waiting=%d moved=%d\n",
                sim_to_sec(v->now), p->label, v->serve_demand, v->serve_held,
                v->train_waiting, moved);
    }
    return rc;
}
