/*
 * hexgen: asymmetric tensor and pipeline parallelism over mixed GPUs (Jiang et al., "HexGen:
 * Generative Inference of Large Language Model over Heterogeneous Environment", ICML 2024;
 * a baseline of Hetis, SC'25).  Every stage of a pipeline is a TP group of one node with its
 * own degree, stages of one pipeline may differ in GPU type and degree, and each stage gets
 * layers by its speed and memory.
 *
 * The search (documented here because the paper's scheduler, a genetic algorithm over the
 * same space, is stochastic): for every choice of a TP degree per node (divisors of its GPU
 * count up to 8; one degree per GPU type when the per-node choices exceed 256), the groups
 * are listed in node order and dealt round-robin to k pipelines for every k from 1 to the
 * number of groups, so that each pipeline gets a like mix.  In a pipeline, stage s gets
 * layers in proportion to its speed (one over the modelled time of one layer of a decode
 * batch of 64 reference requests — "prompt" and "output" tokens, defaults 1024 and 128 — at
 * their mean context), at least one, and at most what leaves its GPUs room for the KV of
 * max(max_batch_tokens, one reference request) tokens; layers that do not fit go to the
 * stage with the most speed per layer that has room; then one layer at a time moves from the
 * slowest stage (time per microbatch) to another while the pipeline's modelled rate of
 * reference requests (serve_view_rate) improves.  The candidate with the most reference
 * requests a second over its pipelines wins (ties: fewer pipelines, then the earlier degree
 * choice).
 * Exhaustive over that space: for clusters of a few nodes it finds the optimum of the
 * objective the genetic search approximates.  Routing: sched/route.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "../route.h"

enum { MAX_NODES = 64, MAX_GROUPS = 256 };

struct hexgen {
    struct route route;
    struct route_ref ref;
};

static int hx_create(void **self, const struct jobj *params, const struct policy_env *env,
                     struct errbuf *err)
{
    (void)env;
    struct hexgen *h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_run(err, "out of memory");
    if (route_read(&h->route, params, err) < 0 ||
        route_read_ref(&h->ref, params, err) < 0) {
        free(h);
        return -1;
    }
    *self = h;
    return 0;
}

static void hx_destroy(void *self)
{
    free(self);
}

struct group {
    int     node, n;
    int32_t ids[SERVE_MAX_TP];
    double  speed;      /* layers per second of the reference batch */
};

/* Seconds of one layer of the reference batch on a group. */
static double layer_s(const struct serve_env_view *v, const struct group *g,
                      const struct llm_batch *b)
{
    struct llm_stage st = { cluster_gpu_type(v->cl, g->ids[0]), g->n,
                            serve_view_group_link(v->cl, g->ids, g->n), 1, 0, 0 };
    return llm_stage_s(v->llm, v->arch, &st, b);
}

/* The most layers a stage on g holds with room for `reserve` KV tokens. */
static int max_layers(const struct serve_env_view *v, const struct group *g, int first,
                      int last, double reserve)
{
    const struct gpu_spec *gs = catalog_gpu(cluster_catalog(v->cl),
                                            cluster_gpu_type(v->cl, g->ids[0]));
    double room = gs->mem_gb * 1e9 * v->set->mem_util -
                  llm_activation_bytes(v->arch, g->n, v->set->max_batch_tokens,
                                       v->set->max_seqs) -
                  llm_weight_bytes(v->arch, 0, g->n, first, last);
    double per = llm_weight_bytes(v->arch, 1, g->n, 0, 0) + reserve * llm_kv_bytes(v->arch, 1,
                                                                                 g->n);
    double m = floor(room / per);
    return m < 0 ? 0 : m > v->arch->layers ? v->arch->layers : (int)m;
}

/* Layers for a pipeline of stages g[0..S) into in; 0 if it cannot hold the model. */
static int assign(const struct serve_env_view *v, struct group *const *g, int S, double reserve,
                  const struct route_ref *ref, struct serve_instance *in)
{
    int L = v->arch->layers, cap[SERVE_MAX_STAGES], l[SERVE_MAX_STAGES];
    if (S > SERVE_MAX_STAGES || S > L)
        return 0;
    double total = 0;
    for (int s = 0; s < S; s++) {
        cap[s] = max_layers(v, g[s], s == 0, s == S - 1, reserve);
        if (cap[s] < 1)
            return 0;
        total += g[s]->speed;
    }
    /* in proportion to speed, by largest remainder, at least one each */
    int given = 0;
    double rem[SERVE_MAX_STAGES];
    for (int s = 0; s < S; s++) {
        double x = L * g[s]->speed / total;
        l[s] = x < 1 ? 1 : (int)x;
        rem[s] = x - l[s];
        given += l[s];
    }
    while (given > L) {     /* the floors of one are too many: take from the largest */
        int m = 0;
        for (int s = 1; s < S; s++)
            if (l[s] > l[m])
                m = s;
        l[m]--;
        given--;
    }
    while (given < L) {
        int m = 0;
        for (int s = 1; s < S; s++)
            if (rem[s] > rem[m])
                m = s;
        l[m]++;
        rem[m] -= 1;
        given++;
    }
    /* what does not fit goes where there is room and the most speed per layer */
    for (int s = 0; s < S; s++)
        while (l[s] > cap[s]) {
            int to = -1;
            for (int u = 0; u < S; u++)
                if (l[u] < cap[u] &&
                    (to < 0 || g[u]->speed / (l[u] + 1) > g[to]->speed / (l[to] + 1)))
                    to = u;
            if (to < 0)
                return 0;
            l[s]--;
            l[to]++;
        }
    memset(in, 0, sizeof *in);
    in->role = SERVE_UNIFIED;
    in->nstages = S;
    for (int s = 0; s < S; s++)
        in->stages[s] = route_stage(g[s]->ids, g[s]->n, l[s]);
    /* move a layer off the slowest stage while that pays */
    double best = serve_view_rate(v, in, ref->prompt, ref->output);
    if (!(best > 0))
        return 0;
    for (int round = 0; round < 4 * S; round++) {
        int slow = 0;
        for (int s = 1; s < S; s++)
            if (l[s] / g[s]->speed > l[slow] / g[slow]->speed)
                slow = s;
        if (l[slow] <= 1)
            break;
        int improved = 0;
        for (int to = 0; to < S && !improved; to++) {
            if (to == slow || l[to] >= cap[to])
                continue;
            in->stages[slow].layers--;
            in->stages[to].layers++;
            double sp = serve_view_rate(v, in, ref->prompt, ref->output);
            if (sp > best * (1 + 1e-9)) {
                best = sp;
                l[slow]--;
                l[to]++;
                improved = 1;
            } else {
                in->stages[slow].layers++;
                in->stages[to].layers--;
            }
        }
        if (!improved)
            break;
    }
    return 1;
}

/* Every degree choice into tp[]: per node (index `choice` in mixed radix), or per type. */
static int degrees(const cluster *cl, int nn, long choice, int per_type, int *tp)
{
    const int opts[] = { 1, 2, 4, 8 };
    long c = choice;
    int type_tp[ROUTE_MAX_TYPES];
    for (int t = 0; t < ROUTE_MAX_TYPES; t++)
        type_tp[t] = 0;
    for (int n = 0; n < nn; n++) {
        int g = cluster_node(cl, n)->ngpus, type = cluster_node(cl, n)->gpu;
        if (per_type && type < ROUTE_MAX_TYPES && type_tp[type] > 0) {
            tp[n] = type_tp[type];
        } else {
            tp[n] = opts[c % 4];
            c /= 4;
            if (per_type && type < ROUTE_MAX_TYPES)
                type_tp[type] = tp[n];
        }
        if (tp[n] > g || g % tp[n] != 0)
            return 0;
    }
    return 1;
}

static int hx_deploy(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                     struct errbuf *err)
{
    struct hexgen *h = self;
    const cluster *cl = v->cl;
    int nn = cluster_nnodes(cl);
    if (nn > MAX_NODES)
        return err_input(err, NULL, 0, NULL, "hexgen searches clusters of at most %d nodes",
                         MAX_NODES);
    const int *types;
    int nt = cluster_types(cl, &types);
    int per_type = nn > 4;          /* 4^4 = 256 per-node choices at most */
    int choices_of = per_type ? nt : nn;
    long nchoice = 1;
    for (int i = 0; i < choices_of; i++)
        nchoice *= 4;
    struct llm_batch ref = { 0 };
    for (int i = 0; i < 64; i++)
        llm_batch_decode(&ref, h->ref.prompt + h->ref.output / 2);
    double reserve = h->ref.prompt + h->ref.output + v->set->block_tokens;
    if (reserve < (double)v->set->max_batch_tokens)
        reserve = (double)v->set->max_batch_tokens;
    struct group *gr = malloc(MAX_GROUPS * sizeof *gr);
    struct serve_deployment *cand = malloc(sizeof *cand);
    if (gr == NULL || cand == NULL) {
        free(gr);
        free(cand);
        return err_run(err, "out of memory");
    }
    double best = 0;
    int best_k = 0;
    out->n = 0;
    for (long choice = 0; choice < nchoice; choice++) {
        int tp[MAX_NODES], ng = 0;
        if (!degrees(cl, nn, choice, per_type, tp))
            continue;
        for (int n = 0; n < nn; n++) {
            int32_t ids[1024];
            int k = route_node_gpus(cl, n, ids);
            for (int s = 0; s + tp[n] <= k && ng < MAX_GROUPS; s += tp[n]) {
                struct group *g = &gr[ng++];
                g->node = n;
                g->n = tp[n];
                memcpy(g->ids, ids + s, (size_t)tp[n] * sizeof *ids);
                g->speed = 1 / layer_s(v, g, &ref);
            }
        }
        for (int k = 1; k <= ng && k <= SERVE_MAX_INSTANCES; k++) {
            double total = 0;
            cand->n = 0;
            for (int p = 0; p < k; p++) {
                struct group *mine[SERVE_MAX_STAGES];
                int S = 0;
                for (int j = p; j < ng; j += k)
                    if (S < SERVE_MAX_STAGES)
                        mine[S++] = &gr[j];
                if (!assign(v, mine, S, reserve, &h->ref, &cand->inst[cand->n])) {
                    total = 0;
                    break;
                }
                total += serve_view_rate(v, &cand->inst[cand->n++], h->ref.prompt,
                                         h->ref.output);
            }
            if (total > best * (1 + 1e-9)) {
                best = total;
                best_k = k;
                memcpy(out, cand, sizeof *cand);
            }
        }
    }
    free(gr);
    free(cand);
    if (best_k == 0)
        return err_input(err, NULL, 0, NULL, "%s (%.0f GB of fp16 weights) fits no pipeline "
                         "of the cluster's TP groups with room for a request of %g + %g tokens",
                         v->arch->name, llm_weight_bytes(v->arch, v->arch->layers, 1, 1, 1) / 1e9,
                         h->ref.prompt, h->ref.output);
    return 0;
}

static int hx_route(void *self, const struct serve_view *v, const struct serve_req_view *r,
                    int32_t *inst, struct errbuf *err)
{
    struct hexgen *h = self;
    return route_pick(&h->route, v, r, inst, err);
}

static const char *const params[] = { "routing", "prompt", "output", NULL };

static const struct serve_hooks hooks = {
    .deploy = hx_deploy,
    .route = hx_route,
};

const struct policy_ops policy_hexgen = {
    .name = "hexgen",
    .domain = "serving",
    .summary = "asymmetric TP and PP: per-node TP groups as stages, layers by speed and memory",
    .params = params,
    .create = hx_create,
    .destroy = hx_destroy,
    .serve = &hooks,
};
