/*
 * splitwise: prefill and decode on different GPUs (Patel et al., "Splitwise: Efficient
 * generative LLM inference using phase splitting", ISCA 2024; the phase-split baseline of
 * Hetis, SC'25).  Prompts run on prefill-only instances on the cluster's high-end GPUs, their
 * tokens on decode-only instances on the other GPUs; a prefilled request's KV cache moves to
 * the decode instance the router picks, over the link between the two (the world streams it
 * layer by layer during the prefill, so only what the prefill did not hide is waited for).
 *
 * Deployment: each pool is cut into replicas by route_replicas (sched/route.h): TP groups
 * inside a node, the degree that serves the most reference requests a second ("prompt"
 * and "output", defaults 1024 and 128 tokens), or pipelines of whole nodes when no node
 * holds the model; "tp_prefill" and
 * "tp_decode" force the degrees.  Routing: least outstanding work (or round robin) among the
 * prefill instances for prompts and among the decode instances for decoding.
 * Assumptions the paper leaves open here: the pools are the GPU types (Splitwise provisions
 * machines per phase; a cluster of one type has no second pool and is refused); the decode
 * pool holds the whole model on its own.
 */
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "../route.h"

struct sw {
    struct route route;
    int64_t      tp_prefill, tp_decode;
    struct route_ref ref;
};

static int sw_create(void **self, const struct jobj *params, const struct policy_env *env,
                     struct errbuf *err)
{
    (void)env;
    struct sw *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (route_read(&s->route, params, err) < 0 ||
        jobj_int(params, "tp_prefill", JOPT, 0, SERVE_MAX_TP, &s->tp_prefill, err) < 0 ||
        jobj_int(params, "tp_decode", JOPT, 0, SERVE_MAX_TP, &s->tp_decode, err) < 0 ||
        route_read_ref(&s->ref, params, err) < 0) {
        free(s);
        return -1;
    }
    *self = s;
    return 0;
}

static void sw_destroy(void *self)
{
    free(self);
}

static int sw_deploy(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                     struct errbuf *err)
{
    struct sw *s = self;
    unsigned char hi[ROUTE_MAX_TYPES] = { 0 }, lo[ROUTE_MAX_TYPES] = { 0 };
    const int *types;
    int nt = cluster_types(v->cl, &types), high = route_high_type(v->cl), nlo = 0;
    for (int i = 0; i < nt; i++)
        if (types[i] != high && types[i] < ROUTE_MAX_TYPES) {
            lo[types[i]] = 1;
            nlo++;
        }
    hi[high] = 1;
    if (nlo == 0)
        return err_input(err, NULL, 0, NULL, "the cluster has one GPU type: no second pool "
                         "to decode on");
    out->n = 0;
    if (route_replicas(v, hi, s->tp_prefill, &s->ref, out, err) < 0)
        return -1;
    int np = out->n;
    if (route_replicas(v, lo, s->tp_decode, &s->ref, out, err) < 0) {
        err_prefix(err, "its decode pool: ");
        return -1;
    }
    for (int i = 0; i < out->n; i++)
        out->inst[i].role = i < np ? SERVE_PREFILL : SERVE_DECODE;
    return 0;
}

static int sw_route(void *self, const struct serve_view *v, const struct serve_req_view *r,
                    int32_t *inst, struct errbuf *err)
{
    struct sw *s = self;
    return route_pick(&s->route, v, r, inst, err);
}

static const char *const params[] = { "routing", "tp_prefill", "tp_decode", "prompt", "output", NULL };

static const struct serve_hooks hooks = {
    .deploy = sw_deploy,
    .route = sw_route,
};

const struct policy_ops policy_splitwise = {
    .name = "splitwise",
    .domain = "serving",
    .summary = "prefill on the high-end GPUs, decode on the others, KV moved between them",
    .params = params,
    .create = sw_create,
    .destroy = sw_destroy,
    .serve = &hooks,
};
