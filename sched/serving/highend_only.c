/*
 * highend_only: the model on the cluster's high-end GPUs only (the baseline of Hetis, SC'25,
 * and of HexGen): the type with the highest fp16 FLOP/s, tensor-parallel inside a node, as
 * many replicas as those GPUs make; every other GPU idles.
 *
 * Deployment (route_replicas, sched/route.h): for each TP degree t in 1, 2, 4, 8 that
 * divides the nodes' GPU counts, every high-end node is cut into groups of t GPUs; the degree
 * whose replicas together serve the most reference requests a second (serve_view_rate;
 * "prompt" and "output" tokens, defaults 1024 and 128) wins, a smaller t on ties.  When no group inside a node holds the
 * model, k whole nodes form a pipeline (TP inside each node), k as small as holds it.  "tp"
 * forces the degree.  Routing: sched/route.h.
 * Assumptions the papers leave open: the replica count is what the GPUs allow (no spare
 * GPUs kept); the choice of t maximizes modelled decode throughput, not latency.
 */
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "../route.h"

struct hi {
    struct route route;
    int64_t      tp;
    struct route_ref ref;
};

static int hi_create(void **self, const struct jobj *params, const struct policy_env *env,
                     struct errbuf *err)
{
    (void)env;
    struct hi *h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_run(err, "out of memory");
    if (route_read(&h->route, params, err) < 0 ||
        jobj_int(params, "tp", JOPT, 0, SERVE_MAX_TP, &h->tp, err) < 0 ||
        route_read_ref(&h->ref, params, err) < 0) {
        free(h);
        return -1;
    }
    *self = h;
    return 0;
}

static void hi_destroy(void *self)
{
    free(self);
}

static int hi_deploy(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                     struct errbuf *err)
{
    struct hi *h = self;
    unsigned char mask[ROUTE_MAX_TYPES] = { 0 };
    mask[route_high_type(v->cl)] = 1;
    return route_replicas(v, mask, h->tp, &h->ref, out, err);
}

static int hi_route(void *self, const struct serve_view *v, const struct serve_req_view *r,
                    int32_t *inst, struct errbuf *err)
{
    struct hi *h = self;
    return route_pick(&h->route, v, r, inst, err);
}

static const char *const params[] = { "routing", "tp", "prompt", "output", NULL };

static const struct serve_hooks hooks = {
    .deploy = hi_deploy,
    .route = hi_route,
};

const struct policy_ops policy_highend_only = {
    .name = "highend_only",
    .domain = "serving",
    .summary = "the model on the high-end GPUs only, tensor-parallel inside a node, replicated",
    .params = params,
    .create = hi_create,
    .destroy = hi_destroy,
    .serve = &hooks,
};
