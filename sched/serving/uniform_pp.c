/*
 * uniform_pp: one pipeline over every GPU of the cluster, layers split evenly (the
 * "uniform pipeline" baseline of Hetis, SC'25): stage s is one GPU ("stages": "gpu", the
 * default) or one whole node tensor-parallel ("stages": "node"), in the cluster's GPU order,
 * each with floor(L / S) layers and the first L mod S stages one more.  Blind to speed and
 * memory, which is the point of the baseline: a small GPU holding as many layers as a large
 * one limits the KV cache of the whole pipeline, a slow one its pace.  With more stages than
 * layers, the first L GPUs (or nodes) serve.  One batch per stage in flight (vLLM's virtual
 * engines).  Routing: sched/route.h (one instance: trivial).
 * Assumptions the paper leaves open: stage order is the cluster's; no replicas.
 */
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "../route.h"

struct upp {
    struct route route;
    int          by_node;
};

static int upp_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    (void)env;
    static const char *const kinds[] = { "gpu", "node", NULL };
    struct upp *u = calloc(1, sizeof *u);
    if (u == NULL)
        return err_run(err, "out of memory");
    if (route_read(&u->route, params, err) < 0 ||
        jobj_enum(params, "stages", JOPT, kinds, &u->by_node, err) < 0) {
        free(u);
        return -1;
    }
    *self = u;
    return 0;
}

static void upp_destroy(void *self)
{
    free(self);
}

static int upp_deploy(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                      struct errbuf *err)
{
    struct upp *u = self;
    const cluster *cl = v->cl;
    int L = v->arch->layers;
    struct serve_instance *in = &out->inst[0];
    memset(in, 0, sizeof *in);
    in->role = SERVE_UNIFIED;
    int S = u->by_node ? cluster_nnodes(cl) : cluster_ngpus(cl);
    if (S > L)
        S = L;
    if (S > SERVE_MAX_STAGES)
        return err_input(err, NULL, 0, NULL, "%d stages: a pipeline has at most %d (use "
                         "\"stages\": \"node\")", S, SERVE_MAX_STAGES);
    for (int s = 0; s < S; s++) {
        int layers = L / S + (s < L % S);
        if (u->by_node) {
            int32_t ids[1024];
            int n = route_node_gpus(cl, s, ids);
            if (n > SERVE_MAX_TP)
                n = SERVE_MAX_TP;
            in->stages[s] = route_stage(ids, n, layers);
        } else {
            int32_t id = s;
            in->stages[s] = route_stage(&id, 1, layers);
        }
    }
    in->nstages = S;
    out->n = 1;
    return 0;
}

static int upp_route(void *self, const struct serve_view *v, const struct serve_req_view *r,
                     int32_t *inst, struct errbuf *err)
{
    struct upp *u = self;
    return route_pick(&u->route, v, r, inst, err);
}

static const char *const params[] = { "routing", "stages", NULL };

static const struct serve_hooks hooks = {
    .deploy = upp_deploy,
    .route = upp_route,
};

const struct policy_ops policy_uniform_pp = {
    .name = "uniform_pp",
    .domain = "serving",
    .summary = "one pipeline over every GPU, layers split evenly whatever the GPU",
    .params = params,
    .create = upp_create,
    .destroy = upp_destroy,
    .serve = &hooks,
};
