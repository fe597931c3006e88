/*
 * serve_view: the latency model (models/llm.h) applied to deployments — links of GPU groups,
 * the KV room of a stage, an instance's iteration time and decode speed, and the per-layer
 * decode attention of a Hetis split.  What policies use to judge deployments and what the
 * world charges are the same functions, but for the links: these assume every transfer has
 * its links to itself, while the world makes transfers that overlap share them (serve.c,
 * xfer.h).
 */
#include "serve_view.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* the slower (by bandwidth) of two links, -1 being none */
static int slower(const catalog *cat, int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return catalog_link(cat, a)->bw_gbs <= catalog_link(cat, b)->bw_gbs ? a : b;
}

int serve_view_group_link(const cluster *cl, const int32_t *gpus, int n)
{
    if (n < 2)
        return -1;
    const catalog *cat = cluster_catalog(cl);
    int n0 = cluster_gpu_node(cl, gpus[0]), link = -1, spans = 0;
    for (int i = 0; i < n; i++) {
        const struct cluster_node *nd = cluster_node(cl, cluster_gpu_node(cl, gpus[i]));
        link = slower(cat, link, nd->intra);
        if (cluster_gpu_node(cl, gpus[i]) != n0) {
            spans = 1;
            link = slower(cat, link, nd->net);
        }
    }
    if (spans)
        link = slower(cat, link, cluster_node(cl, n0)->net);
    return link;
}

int serve_view_pair_link(const cluster *cl, int a, int b)
{
    const struct cluster_node *na = cluster_node(cl, cluster_gpu_node(cl, a));
    const struct cluster_node *nb = cluster_node(cl, cluster_gpu_node(cl, b));
    if (na == nb)
        return na->intra;
    return slower(cluster_catalog(cl), na->net, nb->net);
}

double serve_view_stage_room(const struct serve_env_view *v, const struct serve_instance *in,
                             int s)
{
    const struct serve_stage *st = &in->stages[s];
    const struct gpu_spec *g = catalog_gpu(cluster_catalog(v->cl),
                                           cluster_gpu_type(v->cl, st->gpus[0]));
    double w = llm_weight_bytes(v->arch, st->layers, st->ngpu, s == 0, s == in->nstages - 1);
    double act = llm_activation_bytes(v->arch, st->ngpu, v->set->max_batch_tokens,
                                      v->set->max_seqs);
    return g->mem_gb * 1e9 * v->set->mem_util - w - act;
}

/* KV room of one attention worker GPU: no weights, the attention buffers of a batch */
static double worker_room(const struct serve_env_view *v, int gpu)
{
    const struct gpu_spec *g = catalog_gpu(cluster_catalog(v->cl), cluster_gpu_type(v->cl, gpu));
    double bufs = 2.0 * 3 * v->set->max_seqs * v->arch->hidden;     /* q, k/v, o of a batch */
    return g->mem_gb * 1e9 * v->set->mem_util - bufs;
}

double serve_view_kv_tokens(const struct serve_env_view *v, const struct serve_instance *in)
{
    const struct llm_arch *a = v->arch;
    if (in->nattn > 0) {
        double room = serve_view_stage_room(v, in, 0);
        if (room <= 0)
            return 0;
        double heads = room * in->stages[0].ngpu;  /* bytes, then head-tokens */
        for (int i = 0; i < in->nattn; i++) {
            double r = worker_room(v, in->attn[i]);
            if (r > 0)
                heads += r;
        }
        heads /= a->layers * llm_kv_head_bytes(a);
        return heads / a->kv_heads;
    }
    double tokens = INFINITY;
    for (int s = 0; s < in->nstages; s++) {
        double room = serve_view_stage_room(v, in, s);
        if (room <= 0)
            return 0;
        double t = room / llm_kv_bytes(a, in->stages[s].layers, in->stages[s].ngpu);
        if (t < tokens)
            tokens = t;
    }
    return tokens;
}

static struct llm_stage stage_of(const struct serve_env_view *v, const struct serve_instance *in,
                                 int s)
{
    const struct serve_stage *st = &in->stages[s];
    return (struct llm_stage){ cluster_gpu_type(v->cl, st->gpus[0]), st->ngpu,
                               serve_view_group_link(v->cl, st->gpus, st->ngpu), st->layers,
                               s == 0, s == in->nstages - 1 };
}

double serve_view_attn_split_s(const struct serve_env_view *v, int ndev,
                          const struct serve_attn_dev *dev, const double *ctx_heads,
                          const double *req_heads)
{
    const llm_catalog *c = v->llm;
    const struct llm_arch *a = v->arch;
    double group = (double)a->heads / a->kv_heads, d = a->head_dim;
    /* bytes a request-head moves each layer: to the worker its query group and its new K and
       V, back the group's outputs */
    double to = 2 * (group * d + 2 * d), from = 2 * group * d;
    double t = 0, remote_to = 0, remote_from = 0, remote_compute = 0;
    int remote_link = -1;
    for (int i = 0; i < ndev; i++) {
        if (!(ctx_heads[i] > 0))
            continue;
        double comp = llm_attn_decode_heads_s(c, cluster_gpu_type(v->cl, dev[i].gpu), a,
                                              ctx_heads[i] / dev[i].ngpu,
                                              req_heads[i] / dev[i].ngpu);
        if (dev[i].link < 0) {
            if (comp > t)
                t = comp;
        } else if (!dev[i].remote) {
            double x = llm_send_s(c, dev[i].link, to * req_heads[i]) + comp +
                       llm_send_s(c, dev[i].link, from * req_heads[i]);
            if (x > t)
                t = x;
        } else {
            remote_to += to * req_heads[i];
            remote_from += from * req_heads[i];
            remote_link = dev[i].link;
            if (comp > remote_compute)
                remote_compute = comp;
        }
    }
    if (remote_link >= 0) {
        double x = llm_send_s(c, remote_link, remote_to) + remote_compute +
                   llm_send_s(c, remote_link, remote_from);
        if (x > t)
            t = x;
    }
    return t;
}

void serve_view_attn_devices(const struct serve_env_view *v, const struct serve_instance *in,
                        struct serve_attn_dev *dev, int *ndev)
{
    const struct serve_stage *p = &in->stages[0];
    int pnode = cluster_gpu_node(v->cl, p->gpus[0]);
    double room = serve_view_stage_room(v, in, 0);
    dev[0] = (struct serve_attn_dev){ .gpu = p->gpus[0], .ngpu = p->ngpu, .link = -1,
                                      .cap_bytes = room > 0 ? room * p->ngpu : 0 };
    for (int i = 0; i < in->nattn; i++) {
        int g = in->attn[i];
        double r = worker_room(v, g);
        dev[i + 1] = (struct serve_attn_dev){
            .gpu = g, .ngpu = 1, .link = serve_view_pair_link(v->cl, p->gpus[0], g),
            .remote = cluster_gpu_node(v->cl, g) != pnode, .cap_bytes = r > 0 ? r : 0 };
    }
    *ndev = in->nattn + 1;
}

int serve_shape_of(struct serve_shape *s, int *n, const struct llm_stage *st)
{
    int k = 0;
    while (k < *n && (s[k].gpu != st->gpu || s[k].tp != st->tp || s[k].link != st->link))
        k++;
    if (k == *n)
        s[(*n)++] = (struct serve_shape){ st->gpu, st->tp, st->link, -1 };
    return k;
}

/* The stages of b on a pipeline, each shape's layer timed once (llm_stage_of_layer_s: a
 * stage's time from its shape's layer, exactly llm_stage_s's): the whole iteration (the
 * overhead, every stage and the sends between them, summed in stage order) and, in *slowest,
 * its slowest stage. */
static double pipeline_s(const struct serve_env_view *v, const struct serve_instance *in,
                         const struct llm_batch *b, double *slowest)
{
    const llm_catalog *c = v->llm;
    const struct llm_arch *a = v->arch;
    struct serve_shape shape[SERVE_MAX_STAGES];
    int nshape = 0;
    double t = llm_iter_s(c, b);
    *slowest = 0;
    for (int s = 0; s < in->nstages; s++) {
        struct llm_stage st = stage_of(v, in, s);
        int k = serve_shape_of(shape, &nshape, &st);
        if (shape[k].layer_s < 0) {
            struct llm_layer_part part = llm_layer_part(c, a, &st, b->tokens);
            shape[k].layer_s = llm_layer_with_s(c, a, &st, b, &part, -1);
        }
        double x = llm_stage_of_layer_s(c, a, &st, b, shape[k].layer_s);
        if (x > *slowest)
            *slowest = x;
        t += x;
        if (s + 1 < in->nstages)
            t += llm_send_s(c, serve_view_pair_link(v->cl, in->stages[s].gpus[0],
                                                    in->stages[s + 1].gpus[0]),
                            2 * b->tokens * a->hidden);
    }
    return t;
}

double serve_view_iter_s(const struct serve_env_view *v, const struct serve_instance *in,
                         const struct llm_batch *b)
{
    const llm_catalog *c = v->llm;
    const struct llm_arch *a = v->arch;
    if (in->nattn == 0) {
        double slowest;
        return pipeline_s(v, in, b, &slowest);
    }
    double t = llm_iter_s(c, b);
    /* Hetis: the dense part on the primaries, decode attention spread over the devices in
       proportion to their memory bandwidth */
    struct serve_attn_dev dev[SERVE_MAX_DEV];
    int ndev;
    serve_view_attn_devices(v, in, dev, &ndev);
    double ctx[SERVE_MAX_DEV], req[SERVE_MAX_DEV], bw = 0;
    const catalog *cat = cluster_catalog(v->cl);
    for (int i = 0; i < ndev; i++)
        bw += catalog_gpu(cat, cluster_gpu_type(v->cl, dev[i].gpu))->mem_bw_gbs * dev[i].ngpu;
    for (int i = 0; i < ndev; i++) {
        double share = catalog_gpu(cat, cluster_gpu_type(v->cl, dev[i].gpu))->mem_bw_gbs *
                       dev[i].ngpu / bw;
        ctx[i] = b->decode_ctx * a->kv_heads * share;
        req[i] = b->decode_reqs * a->kv_heads * share;
    }
    return t + serve_view_hetis_s(v, in, b, NULL, serve_view_attn_split_s(v, ndev, dev, ctx, req));
}

double serve_view_hetis_s(const struct serve_env_view *v, const struct serve_instance *in,
                          const struct llm_batch *b, const struct llm_layer_part *part,
                          double attn_layer_s)
{
    struct llm_stage st = stage_of(v, in, 0);
    struct llm_layer_part own;
    if (part == NULL) {
        own = llm_layer_part(v->llm, v->arch, &st, b->tokens);
        part = &own;
    }
    return v->arch->layers * llm_layer_with_s(v->llm, v->arch, &st, b, part, attn_layer_s) +
           llm_stage_ends_s(v->llm, v->arch, &st, b);
}

/* One iteration of b on the instance as a pipeline paces it: the slowest stage, or the
 * whole iteration over the stages when that is longer (one batch per stage in flight). */
static double paced_s(const struct serve_env_view *v, const struct serve_instance *in,
                      const struct llm_batch *b)
{
    if (in->nattn > 0 || in->nstages == 1)
        return serve_view_iter_s(v, in, b);
    double slowest, whole = pipeline_s(v, in, b, &slowest);
    return whole / in->nstages > slowest ? whole / in->nstages : slowest;
}

double serve_view_rate(const struct serve_env_view *v, const struct serve_instance *in,
                       double prompt, double output)
{
    double kv = serve_view_kv_tokens(v, in);
    int S = in->nattn > 0 ? 1 : in->nstages;
    double total = floor(kv / (prompt + output)), cap = (double)v->set->max_seqs * S;
    if (total > cap)
        total = cap;
    if (total < 1)
        return 0;
    double n = floor(total / S);
    if (n < 1)
        n = 1;
    /* the prompts: full iterations of the token budget, then the rest */
    double tokens = n * prompt, budget = (double)v->set->max_batch_tokens, t = 0;
    double full = floor(tokens / budget), rest = tokens - full * budget;
    for (int k = 0; k < 2; k++) {
        double c = k == 0 ? budget : rest, count = k == 0 ? full : 1;
        if (c <= 0 || count <= 0)
            continue;
        struct llm_batch b = { 0 };
        if (c >= prompt)
            for (double q = 0; q + prompt <= c; q += prompt)
                llm_batch_prefill(&b, prompt, 0, 1);
        else
            llm_batch_prefill(&b, c, (prompt - c) / 2, 0);
        t += count * paced_s(v, in, &b);
    }
    /* the outputs: decode steps of the n requests at their mean context */
    struct llm_batch d = { 0 };
    for (int i = 0; i < (int)n; i++)
        llm_batch_decode(&d, prompt + output / 2);
    t += (output - 1) * paced_s(v, in, &d);
    return t > 0 ? n / t : 0;
}

int serve_check_deployment(const struct serve_env_view *v, const struct serve_deployment *d,
                           char *msg, size_t cap)
{
    const cluster *cl = v->cl;
    const catalog *cat = cluster_catalog(cl);
    int ng = cluster_ngpus(cl);
    unsigned char *used = calloc((size_t)ng, 1);
    int rc = -1, prefill = 0, decode = 0;
    if (used == NULL) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    if (d->n < 1 || d->n > SERVE_MAX_INSTANCES) {
        snprintf(msg, cap, "deployed %d instances (1 to %d)", d->n, SERVE_MAX_INSTANCES);
        goto out;
    }
    for (int i = 0; i < d->n; i++) {
        const struct serve_instance *in = &d->inst[i];
        if (in->role < SERVE_UNIFIED || in->role > SERVE_DECODE || in->nstages < 1 ||
            in->nstages > SERVE_MAX_STAGES || in->nattn < 0 || in->nattn > SERVE_MAX_ATTN) {
            snprintf(msg, cap, "instance %d is malformed (role %d, %d stages, %d attention "
                     "workers)", i, in->role, in->nstages, in->nattn);
            goto out;
        }
        prefill += in->role != SERVE_DECODE;
        decode += in->role == SERVE_DECODE;
        int layers = 0;
        for (int s = 0; s < in->nstages; s++) {
            const struct serve_stage *st = &in->stages[s];
            if (st->ngpu < 1 || st->ngpu > SERVE_MAX_TP || st->layers < 1) {
                snprintf(msg, cap, "instance %d stage %d has %d GPUs and %d layers", i, s,
                         st->ngpu, st->layers);
                goto out;
            }
            layers += st->layers;
            for (int k = 0; k < st->ngpu; k++) {
                int g = st->gpus[k];
                if (g < 0 || g >= ng || used[g]) {
                    snprintf(msg, cap, "instance %d stage %d: GPU %d is %s", i, s, g,
                             g < 0 || g >= ng ? "not in the cluster" : "used twice");
                    goto out;
                }
                used[g] = 1;
                if (cluster_gpu_type(cl, g) != cluster_gpu_type(cl, st->gpus[0])) {
                    snprintf(msg, cap, "instance %d stage %d mixes GPU types (%s and %s)", i,
                             s, catalog_gpu(cat, cluster_gpu_type(cl, st->gpus[0]))->name,
                             catalog_gpu(cat, cluster_gpu_type(cl, g))->name);
                    goto out;
                }
            }
            double room = serve_view_stage_room(v, in, s);
            double block = (double)v->set->block_tokens *
                           (in->nattn > 0 ? v->arch->layers * llm_kv_head_bytes(v->arch)
                                          : llm_kv_bytes(v->arch, st->layers, st->ngpu));
            if (room < block) {
                const struct gpu_spec *gs = catalog_gpu(cat, cluster_gpu_type(cl, st->gpus[0]));
                double w = llm_weight_bytes(v->arch, st->layers, st->ngpu, s == 0,
                                            s == in->nstages - 1);
                snprintf(msg, cap, "cannot hold %s: instance %d stage %d puts %d layers on "
                         "%d x %s, %.1f GB of weights a GPU beside %.1f GB of activations, "
                         "in %.1f GB usable (sim.mem_util %.2f), leaving no room for the KV "
                         "cache", v->arch->name, i, s, st->layers, st->ngpu, gs->name, w / 1e9,
                         llm_activation_bytes(v->arch, st->ngpu, v->set->max_batch_tokens,
                                              v->set->max_seqs) / 1e9,
                         gs->mem_gb * v->set->mem_util, v->set->mem_util);
                goto out;
            }
        }
        if (layers != v->arch->layers) {
            snprintf(msg, cap, "instance %d puts %d layers in its stages; %s has %d", i,
                     layers, v->arch->name, v->arch->layers);
            goto out;
        }
        if (in->nattn > 0 && in->nstages != 1) {
            snprintf(msg, cap, "instance %d has attention workers and %d stages (a Hetis "
                     "instance has one primary stage)", i, in->nstages);
            goto out;
        }
        if (in->nattn > 0 && in->role != SERVE_UNIFIED) {
            snprintf(msg, cap, "instance %d has attention workers and serves one phase only",
                     i);
            goto out;
        }
        for (int k = 0; k < in->nattn; k++) {
            int g = in->attn[k];
            if (g < 0 || g >= ng || used[g]) {
                snprintf(msg, cap, "instance %d attention worker: GPU %d is %s", i, g,
                         g < 0 || g >= ng ? "not in the cluster" : "used twice");
                goto out;
            }
            used[g] = 1;
        }
    }
    if (prefill == 0) {
        snprintf(msg, cap, "deployed no instance that serves prompts");
        goto out;
    }
    for (int i = 0; i < d->n && decode == 0; i++)
        if (d->inst[i].role == SERVE_PREFILL) {
            snprintf(msg, cap, "deployed a prefill-only instance and no decode-only one");
            goto out;
        }
    rc = 0;
out:
    free(used);
    return rc;
}

int serve_view_route_check(const struct serve_view *v, const struct serve_req_view *r,
                           int32_t inst, struct errbuf *err)
{
    int want = r->want_role == SERVE_DECODE ? SERVE_DECODE : SERVE_PREFILL;
    int ok = inst >= 0 && inst < v->n &&
             (want == SERVE_DECODE ? v->load[inst].role == SERVE_DECODE
                                   : v->load[inst].role != SERVE_DECODE);
    if (!ok)
        return err_run(err, "policy routed request %lld to instance %d, which is not an "
                       "instance serving %s", (long long)r->id, inst,
                       want == SERVE_DECODE ? "decode" : "prompts");
    return 0;
}
