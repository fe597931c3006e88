/*
 * route: request routing and deployment building blocks for the serving policies (route.h).
 * Routing is O(instances) a request.
 */
#include "route.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/serve/serve_view.h"

int route_read(struct route *r, const struct jobj *params, struct errbuf *err)
{
    static const char *const modes[] = { "least_work", "round_robin", NULL };
    r->mode = ROUTE_LEAST_WORK;
    r->next[0] = r->next[1] = 0;
    return jobj_enum(params, "routing", JOPT, modes, &r->mode, err);
}

static int serves(const struct serve_view *v, int i, int want)
{
    int role = v->load[i].role;
    if (!v->load[i].up)
        return 0;
    return want == SERVE_DECODE ? role == SERVE_DECODE : role != SERVE_DECODE;
}

int route_read_ref(struct route_ref *r, const struct jobj *params, struct errbuf *err)
{
    r->prompt = 1024;
    r->output = 128;
    return jobj_num(params, "prompt", JOPT, 1, 1e7, &r->prompt, err) < 0 ||
                   jobj_num(params, "output", JOPT, 1, 1e7, &r->output, err) < 0
               ? -1
               : 0;
}

int route_pick(struct route *r, const struct serve_view *v, const struct serve_req_view *q,
               int32_t *out, struct errbuf *err)
{
    int want = q->want_role == SERVE_DECODE ? SERVE_DECODE : SERVE_PREFILL;
    int k = want == SERVE_DECODE;
    if (r->mode == ROUTE_ROUND_ROBIN) {
        for (int step = 0; step < v->n; step++) {
            int i = (r->next[k] + step) % v->n;
            if (serves(v, i, want)) {
                *out = i;
                r->next[k] = (i + 1) % v->n;
                return 0;
            }
        }
    } else {
        int best = -1;
        double best_score = INFINITY;
        for (int i = 0; i < v->n; i++) {
            if (!serves(v, i, want))
                continue;
            const struct serve_inst_load *l = &v->load[i];
            double work = (double)l->pending_prefill +
                          (double)(l->waiting + l->running) * v->mean_output;
            double score = work / (l->speed > 0 ? l->speed : 1e-9);
            if (score < best_score) {
                best_score = score;
                best = i;
            }
        }
        if (best >= 0) {
            *out = best;
            return 0;
        }
    }
    return err_run(err, "no instance serves %s", want == SERVE_DECODE ? "decoding" : "prompts");
}

int route_high_type(const cluster *cl)
{
    const int *types;
    int nt = cluster_types(cl, &types), best = types[0];
    const catalog *cat = cluster_catalog(cl);
    for (int i = 1; i < nt; i++) {
        const struct gpu_spec *a = catalog_gpu(cat, types[i]), *b = catalog_gpu(cat, best);
        if (a->fp16_tflops > b->fp16_tflops ||
            (a->fp16_tflops == b->fp16_tflops && a->mem_bw_gbs > b->mem_bw_gbs))
            best = types[i];
    }
    return best;
}

int route_node_gpus(const cluster *cl, int n, int32_t *ids)
{
    const struct cluster_node *nd = cluster_node(cl, n);
    for (int i = 0; i < nd->ngpus; i++)
        ids[i] = nd->first + i;
    return nd->ngpus;
}

struct serve_stage route_stage(const int32_t *ids, int n, int layers)
{
    struct serve_stage s = { .ngpu = n, .layers = layers };
    for (int i = 0; i < n && i < SERVE_MAX_TP; i++)
        s.gpus[i] = ids[i];
    return s;
}

double route_total_rate(const struct serve_env_view *v, const struct serve_deployment *d,
                        const struct route_ref *ref)
{
    double s = 0;
    for (int i = 0; i < d->n; i++) {
        double r = serve_view_rate(v, &d->inst[i], ref->prompt, ref->output);
        if (!(r > 0))
            return 0;
        s += r;
    }
    return s;
}

static int in_mask(const cluster *cl, int n, const unsigned char *mask)
{
    int t = cluster_node(cl, n)->gpu;
    return t < ROUTE_MAX_TYPES && mask[t];
}

/* Groups of t GPUs on every masked node into d (from d->n on); 0 when t divides none. */
static int groups(const struct serve_env_view *v, const unsigned char *mask, int t,
                  struct serve_deployment *d)
{
    const cluster *cl = v->cl;
    int32_t ids[1024];
    int base = d->n;
    for (int n = 0; n < cluster_nnodes(cl); n++) {
        if (!in_mask(cl, n, mask))
            continue;
        int k = route_node_gpus(cl, n, ids);
        if (k % t != 0 || k > 1024) {
            d->n = base;
            return 0;
        }
        for (int g = 0; g + t <= k && d->n < SERVE_MAX_INSTANCES; g += t) {
            struct serve_instance *in = &d->inst[d->n++];
            memset(in, 0, sizeof *in);
            in->role = SERVE_UNIFIED;
            in->nstages = 1;
            in->stages[0] = route_stage(ids + g, t, v->arch->layers);
        }
    }
    return d->n - base;
}

/* Pipelines of k consecutive masked nodes, layers by the nodes' memory; 0 if none. */
static int pipelines(const struct serve_env_view *v, const unsigned char *mask, int k,
                     struct serve_deployment *d)
{
    const cluster *cl = v->cl;
    const catalog *cat = cluster_catalog(cl);
    int nodes[4096], nn = 0, L = v->arch->layers, base = d->n;
    for (int n = 0; n < cluster_nnodes(cl) && nn < 4096; n++)
        if (in_mask(cl, n, mask))
            nodes[nn++] = n;
    if (k > SERVE_MAX_STAGES || k > L)
        return 0;
    for (int p = 0; p + k <= nn && d->n < SERVE_MAX_INSTANCES; p += k) {
        struct serve_instance *in = &d->inst[d->n++];
        memset(in, 0, sizeof *in);
        in->role = SERVE_UNIFIED;
        in->nstages = k;
        double mem[SERVE_MAX_STAGES], total = 0;
        for (int s = 0; s < k; s++) {
            const struct cluster_node *nd = cluster_node(cl, nodes[p + s]);
            int g = nd->ngpus > SERVE_MAX_TP ? SERVE_MAX_TP : nd->ngpus;
            mem[s] = catalog_gpu(cat, nd->gpu)->mem_gb * g;
            total += mem[s];
        }
        int given = 0;
        for (int s = 0; s < k; s++) {
            int32_t ids[1024];
            int g = route_node_gpus(cl, nodes[p + s], ids);
            if (g > SERVE_MAX_TP)
                g = SERVE_MAX_TP;
            int l = s + 1 == k ? L - given : (int)(L * mem[s] / total + 0.5);
            if (l < 1)
                l = 1;
            if (given + l > L - (k - s - 1))
                l = L - (k - s - 1) - given;
            given += l;
            in->stages[s] = route_stage(ids, g, l);
        }
    }
    return d->n - base;
}

int route_replicas(const struct serve_env_view *v, const unsigned char *mask, int64_t force_tp,
                   const struct route_ref *ref, struct serve_deployment *out,
                   struct errbuf *err)
{
    struct serve_deployment *d = malloc(sizeof *d);
    if (d == NULL)
        return err_run(err, "out of memory");
    double best = 0;
    int best_t = 0, base = out->n;
    for (int t = 1; t <= SERVE_MAX_TP; t *= 2) {
        if (force_tp > 0 && t != force_tp)
            continue;
        d->n = 0;
        if (groups(v, mask, t, d) == 0)
            continue;
        double s = route_total_rate(v, d, ref);
        if (s > best * (1 + 1e-9)) {
            best = s;
            best_t = t;
        }
    }
    int rc = 0;
    if (best_t > 0) {
        groups(v, mask, best_t, out);
        goto out;
    }
    for (int k = 2; force_tp == 0 && k <= cluster_nnodes(v->cl); k++) {
        d->n = 0;
        if (pipelines(v, mask, k, d) > 0 && route_total_rate(v, d, ref) > 0) {
            pipelines(v, mask, k, out);
            goto out;
        }
    }
    char types[256] = "";
    const catalog *cat = cluster_catalog(v->cl);
    for (int t = 0; t < ROUTE_MAX_TYPES && t < catalog_ngpus(cat); t++)
        if (mask[t]) {
            size_t n = strlen(types);
            snprintf(types + n, sizeof types - n, "%s%s", n ? ", " : "", catalog_gpu(cat, t)->name);
        }
    out->n = base;
    rc = err_input(err, NULL, 0, NULL, "%s (%.0f GB of fp16 weights) fits no %s the %s GPUs "
                   "of the cluster with room for a request of %g + %g tokens", v->arch->name,
                   llm_weight_bytes(v->arch, v->arch->layers, 1, 1, 1) / 1e9,
                   force_tp > 0 ? "TP group of the asked size on" : "group or pipeline of",
                   types, ref->prompt, ref->output);
out:
    free(d);
    return rc;
}
