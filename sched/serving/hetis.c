/*
 * hetis: fine-grained heterogeneous parallelism for LLM serving (Hetis, SC 2025; the
 * formulation of shared PAPERS.md section 5, reconstructed where the paper's text was not
 * available).  Primary workers — a TP group of high-end GPUs — run the dense modules (the
 * projections, the MLP, prefill attention); decode attention and its KV cache are split by
 * KV head over the primaries and every other GPU ("attention workers", low-end ones
 * included), each worker receiving the queries and new K/V of its heads every layer and
 * returning their outputs.
 *
 * Deployment (the primaries' choice: compute against communication): for every TP degree
 * t in 1, 2, 4, 8 inside a high-end node and every instance count k up to the number of
 * such groups, k groups become the primaries of k instances and every other GPU an
 * attention worker, dealt round-robin (in node order) to the instances, at most 31 each;
 * the (t, k) whose instances together serve the most reference requests a second
 * (serve_view_rate, which spreads attention over an instance's devices by memory bandwidth;
 * "prompt" and "output" tokens, defaults 1024 and 128) wins, smaller t and k on ties.  "primaries" and "instances" force
 * t and k.
 *
 * Dispatch, per batch: the requests the batch admits get their KV heads by an LP (GLPK):
 *   minimize z  subject to, for every device d (0 = the primaries, then the workers),
 *     K_d + a_d (ctx_d + sum_j C_j x_jd) + (r_d + c_d) (q_d + sum_j x_jd)      <= z   (local)
 *     K_R + a_d (ctx_d + sum_j C_j x_jd) + r_d (q_d + sum_j x_jd)
 *         + c_R sum_{e remote} (q_e + sum_j x_je)                             <= z   (remote)
 *     sum_d x_jd = H  for every request j,  sum_j x_jd B_j <= room_d,  x >= 0
 *   with H the model's KV heads, C_j a request's context, ctx_d and q_d the head-tokens and
 *   request-heads a device already serves, a_d the seconds a head-token of K/V takes to read
 *   at the device's bandwidth (fitted eta_mem, per GPU of the device), r_d the seconds of a
 *   head's queries and outputs there, c_d the seconds a head's traffic takes over the
 *   device's link to the primaries (its query group and new K/V out, its outputs back; c_R
 *   over the primaries' network link, shared by every worker on another node), K_d the
 *   kernel and link latencies, and B_j the bytes of one head of request j for its context
 *   and `reserve_tokens` (default 256) of growth.  That is the per-layer decode attention
 *   time of serve_view_attn_split_s with the bandwidth-bound roofline made linear.  The LP's
 *   heads are rounded per request by largest remainder, a head that does not fit moving to
 *   the device with the most room; when the requests' KV exceeds the room left, the last
 *   ones wait (heads 0).  Cost: one LP of (requests x devices) columns a batch that admits.
 *
 * Re-dispatch ("round_s", default 2 s; 0: never): the same LP over device shares of every
 * running request's load gives the balanced per-device time z*; when the current time
 * exceeds z* by more than "gain" (default 0.1), heads move, largest contexts first, from
 * devices above their balanced load to those below it with room, until every device is
 * within a head of its target; the world charges the moved KV's transfer.
 *
 * Assumptions the paper leaves open: primaries are one TP group (no PP among them); workers
 * are given to instances once, at deployment; prefill attention stays on the primaries and
 * the prefilled KV of offloaded heads streams to the workers while the primaries compute;
 * the LP is linear in heads (no integrality) and ignores that an idle worker costs nothing.
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lp.h"
#include "../policy.h"
#include "../route.h"
#include "hetis.h"

struct hetis {
    glp_prob    *lp;            /* one program, erased and refilled by every dispatch */
    struct route route;
    int64_t      tp, instances;
    struct route_ref ref;
    double       gain, reserve;
};

static int ht_create(void **self, const struct jobj *params, const struct policy_env *env,
                     struct errbuf *err)
{
    (void)env;
    struct hetis *h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_run(err, "out of memory");
    h->gain = 0.1;
    h->reserve = 256;
    if (route_read(&h->route, params, err) < 0 ||
        jobj_int(params, "primaries", JOPT, 0, SERVE_MAX_TP, &h->tp, err) < 0 ||
        jobj_int(params, "instances", JOPT, 0, SERVE_MAX_INSTANCES, &h->instances, err) < 0 ||
        route_read_ref(&h->ref, params, err) < 0 ||
        jobj_num(params, "gain", JOPT, 0, 100, &h->gain, err) < 0 ||
        jobj_num(params, "reserve_tokens", JOPT, 0, 1e7, &h->reserve, err) < 0) {
        free(h);
        return -1;
    }
    *self = h;
    return 0;
}

static void ht_destroy(void *self)
{
    struct hetis *h = self;
    if (h->lp != NULL)
        glp_delete_prob(h->lp);
    free(h);
}

/* ---------------------------------------------------------------- deployment */

/* k instances with primaries of t high-end GPUs and every other GPU a worker; 0 when the
 * high-end nodes do not make k groups of t. */
static int build(const struct serve_env_view *v, int high, int t, int k,
                 struct serve_deployment *d)
{
    const cluster *cl = v->cl;
    int nn = cluster_nnodes(cl), made = 0;
    unsigned char *primary = calloc((size_t)cluster_ngpus(cl), 1);
    if (primary == NULL)
        return 0;
    memset(d, 0, sizeof *d);
    for (int n = 0; n < nn && made < k; n++) {
        const struct cluster_node *nd = cluster_node(cl, n);
        if (nd->gpu != high || nd->ngpus % t != 0)
            continue;
        int32_t ids[1024];
        int g = route_node_gpus(cl, n, ids);
        for (int s = 0; s + t <= g && made < k; s += t) {
            struct serve_instance *in = &d->inst[made++];
            in->role = SERVE_UNIFIED;
            in->nstages = 1;
            in->stages[0] = route_stage(ids + s, t, v->arch->layers);
            for (int q = 0; q < t; q++)
                primary[ids[s + q]] = 1;
        }
    }
    if (made < k) {
        free(primary);
        return 0;
    }
    d->n = k;
    int next = 0, ok = 1;
    for (int gpu = 0; gpu < cluster_ngpus(cl); gpu++) {
        if (primary[gpu])
            continue;
        struct serve_instance *in = &d->inst[next];
        if (in->nattn == SERVE_MAX_ATTN) {
            ok = 0;
            break;
        }
        in->attn[in->nattn++] = gpu;
        next = (next + 1) % k;
    }
    free(primary);
    return ok;
}

static int ht_deploy(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                     struct errbuf *err)
{
    struct hetis *h = self;
    int high = route_high_type(v->cl);
    struct serve_deployment *d = malloc(sizeof *d);
    if (d == NULL)
        return err_run(err, "out of memory");
    int nhigh = cluster_type_count(v->cl, high);
    double best = 0;
    int bt = 0, bk = 0;
    for (int t = 1; t <= SERVE_MAX_TP; t *= 2) {
        if (h->tp > 0 && t != h->tp)
            continue;
        for (int k = 1; k * t <= nhigh && k <= SERVE_MAX_INSTANCES; k++) {
            if (h->instances > 0 && k != h->instances)
                continue;
            if (!build(v, high, t, k, d))
                continue;
            double s = route_total_rate(v, d, &h->ref);
            if (s > best * (1 + 1e-9)) {
                best = s;
                bt = t;
                bk = k;
            }
        }
    }
    free(d);
    if (bt == 0)
        return err_input(err, NULL, 0, NULL, "%s (%.0f GB of fp16 weights) fits no group of "
                         "%s primaries with room for a request of %g + %g tokens",
                         v->arch->name, llm_weight_bytes(v->arch, v->arch->layers, 1, 1, 1) / 1e9,
                         catalog_gpu(cluster_catalog(v->cl), high)->name, h->ref.prompt,
                         h->ref.output);
    build(v, high, bt, bk, out);
    return 0;
}

static int ht_route(void *self, const struct serve_view *v, const struct serve_req_view *r,
                    int32_t *inst, struct errbuf *err)
{
    struct hetis *h = self;
    return route_pick(&h->route, v, r, inst, err);
}

/* ---------------------------------------------------------------- the linear model */

/* Per-device coefficients of the per-layer attention time. */
struct coef {
    double a;       /* seconds per head-token of K/V read */
    double r;       /* seconds per request-head of queries and outputs at the device */
    double c;       /* seconds per request-head over its link (local workers) */
    double K;       /* constant seconds: kernel and link latencies */
};

static void coefficients(const struct serve_dispatch *d, struct coef *co, double *c_remote,
                         double *K_remote)
{
    const struct serve_env_view *v = d->env;
    const struct llm_arch *a = v->arch;
    const catalog *cat = cluster_catalog(v->cl);
    double group = (double)a->heads / a->kv_heads, hd = a->head_dim;
    double traffic = 2 * (group * hd + 2 * hd) + 2 * group * hd;
    const struct llm_fit *fit = llm_fit_of(v->llm);
    *c_remote = 0;
    *K_remote = 0;
    for (int i = 0; i < d->ndev; i++) {
        int type = cluster_gpu_type(v->cl, d->dev[i].gpu);
        const struct gpu_spec *g = catalog_gpu(cat, type);
        const struct llm_gpu_fit *f = llm_gpu_fit(v->llm, type, NULL);
        double bw = g->mem_bw_gbs * 1e9 * f->eta_mem * d->dev[i].ngpu;
        co[i].a = llm_kv_head_bytes(a) / bw;
        co[i].r = 2 * 2 * group * hd / bw;
        co[i].c = 0;
        co[i].K = f->kernel_us * 1e-6;
        if (d->dev[i].link >= 0) {
            const struct link_spec *l = catalog_link(cat, d->dev[i].link);
            double per = traffic / (l->bw_gbs * 1e9 * fit->eta_link);
            double lat = 2 * l->lat_us * 1e-6 * fit->lat_factor;
            if (d->dev[i].remote) {
                *c_remote = per;
                *K_remote = lat;
            } else {
                co[i].c = per;
                co[i].K += lat;
            }
        }
    }
}

/* The linear model's per-layer time of device loads ctx[] (head-tokens), q[] (heads). */
static double model_time(const struct serve_dispatch *d, const struct coef *co, double cR,
                         double KR, const double *ctx, const double *q)
{
    double t = 0, remote_q = 0;
    for (int i = 0; i < d->ndev; i++)
        if (d->dev[i].remote)
            remote_q += q[i];
    for (int i = 0; i < d->ndev; i++) {
        double x = co[i].K + co[i].a * ctx[i] + (co[i].r + co[i].c) * q[i];
        if (d->dev[i].remote)
            x += KR + cR * remote_q;
        if (x > t)
            t = x;
    }
    return t;
}

/* Bytes one KV head of a request of `context` tokens takes (blocks of the world's size). */
static double head_bytes(const struct serve_dispatch *d, double context)
{
    double bt = d->env->set->block_tokens;
    double tokens = ceil(context / bt) * bt;
    return tokens * d->env->arch->layers * llm_kv_head_bytes(d->env->arch);
}

/* Solve the LP for requests req[0..n); heads out as reals in x[j * ndev + dev].  A head
 * takes head_bytes(context + reserve), or `per_head` bytes when > 0. */
static int solve(struct hetis *h, const struct serve_dispatch *d, int n, double reserve,
                 double per_head, double *x, double *z, struct errbuf *err)
{
    int D = d->ndev, H = d->env->arch->kv_heads;
    struct coef co[SERVE_MAX_DEV];
    double cR, KR;
    coefficients(d, co, &cR, &KR);
    if (h->lp == NULL)
        h->lp = glp_create_prob();
    glp_prob *lp = h->lp;
    glp_erase_prob(lp);
    glp_set_obj_dir(lp, GLP_MIN);
    int nc = n * D + 1;
    glp_add_cols(lp, nc);
    for (int c = 1; c <= n * D; c++)
        glp_set_col_bnds(lp, c, GLP_DB, 0, H);
    glp_set_col_bnds(lp, nc, GLP_LO, 0, 0);     /* z */
    glp_set_obj_coef(lp, nc, 1);
    /* rows: n head sums, D times, D memories */
    glp_add_rows(lp, n + 2 * D);
    int cap = n * D * (D + 2) + 2 * D + 8;
    int *ia = malloc((size_t)(cap + 1) * sizeof *ia), *ja = malloc((size_t)(cap + 1) * sizeof *ja);
    double *ar = malloc((size_t)(cap + 1) * sizeof *ar);
    if (ia == NULL || ja == NULL || ar == NULL) {
        free(ia);
        free(ja);
        free(ar);
        return err_run(err, "out of memory");
    }
    int ne = 0;
#define PUT(r, c, v) (++ne, ia[ne] = (r), ja[ne] = (c), ar[ne] = (v))
    for (int j = 0; j < n; j++) {
        glp_set_row_bnds(lp, j + 1, GLP_FX, H, H);
        for (int i = 0; i < D; i++)
            PUT(j + 1, j * D + i + 1, 1);
    }
    double remote_q = 0;
    for (int i = 0; i < D; i++)
        if (d->dev[i].remote)
            remote_q += d->dev[i].req_heads;
    for (int i = 0; i < D; i++) {
        int row = n + 1 + i;
        double base = co[i].K + co[i].a * d->dev[i].ctx_heads +
                      (co[i].r + co[i].c) * d->dev[i].req_heads;
        if (d->dev[i].remote)
            base += KR + cR * remote_q;
        /* the LP in milliseconds and gigabytes, so that its coefficients are of one scale */
        glp_set_row_bnds(lp, row, GLP_UP, 0, -base * 1e3);
        for (int j = 0; j < n; j++) {
            double C = d->req[j].context;
            /* a remote device's own heads cross the shared link too */
            PUT(row, j * D + i + 1, (co[i].a * C + co[i].r + co[i].c +
                                     (d->dev[i].remote ? cR : 0)) * 1e3);
            if (d->dev[i].remote)
                for (int e = 0; e < D; e++)
                    if (e != i && d->dev[e].remote)
                        PUT(row, j * D + e + 1, cR * 1e3);
        }
        PUT(row, nc, -1);
        int mrow = n + D + 1 + i;
        double room = d->dev[i].cap_bytes - d->dev[i].used_bytes;
        glp_set_row_bnds(lp, mrow, GLP_UP, 0, room > 0 ? room / 1e9 : 0);
        for (int j = 0; j < n; j++)
            PUT(mrow, j * D + i + 1, (per_head > 0 ? per_head
                                                   : head_bytes(d, d->req[j].context + reserve)) /
                                         1e9);
    }
#undef PUT
    glp_load_matrix(lp, ne, ia, ja, ar);
    free(ia);
    free(ja);
    free(ar);
    int rc = lp_solve(lp, "hetis dispatch", err);
    if (rc == 0) {
        for (int c = 0; c < n * D; c++)
            x[c] = glp_get_col_prim(lp, c + 1);
        *z = glp_get_col_prim(lp, nc) / 1e3;
    }
    return rc;
}

int hetis_round_heads(const double *x, int D, int H, double bytes, double *room,
                      int32_t *heads)
{
    int given = 0;
    double rem[SERVE_MAX_DEV];
    for (int i = 0; i < D; i++) {
        double v = x[i] < 0 ? 0 : x[i];
        heads[i] = (int32_t)floor(v + 1e-9);
        rem[i] = v - heads[i];
        given += heads[i];
    }
    while (given < H) {
        int m = 0;
        for (int i = 1; i < D; i++)
            if (rem[i] > rem[m])
                m = i;
        heads[m]++;
        rem[m] = -1;
        given++;
    }
    while (given > H) {
        int m = -1;
        for (int i = 0; i < D; i++)
            if (heads[i] > 0 && (m < 0 || rem[i] < rem[m]))
                m = i;
        heads[m]--;
        given--;
    }
    for (int i = 0; i < D; i++)
        while (heads[i] > 0 && heads[i] * bytes > room[i]) {
            int to = -1;
            for (int e = 0; e < D; e++)
                if (e != i && (heads[e] + 1) * bytes <= room[e] &&
                    (to < 0 || room[e] - heads[e] * bytes > room[to] - heads[to] * bytes))
                    to = e;
            if (to < 0)
                return -1;
            heads[i]--;
            heads[to]++;
        }
    for (int i = 0; i < D; i++)
        room[i] -= heads[i] * bytes;
    return 0;
}

/* Place the requests a batch admits. */
static int place(struct hetis *h, struct serve_dispatch *d, struct errbuf *err)
{
    int D = d->ndev, H = d->env->arch->kv_heads, n = d->nreq;
    double room[SERVE_MAX_DEV], free_total = 0;
    for (int i = 0; i < D; i++) {
        room[i] = d->dev[i].cap_bytes - d->dev[i].used_bytes;
        if (room[i] < 0)
            room[i] = 0;
        free_total += room[i];
    }
    /* with real heads the LP is feasible exactly when the KV fits the total room; on empty
       devices the reserve for growth is waived, or a request longer than the room less the
       reserve would wait forever */
    int empty = 1;
    for (int i = 0; i < D; i++)
        empty &= d->dev[i].used_bytes <= 0;
    double reserve = empty ? 0 : h->reserve, need = 0;
    int fit = 0;
    for (int j = 0; j < n; j++) {
        double b = H * head_bytes(d, d->req[j].context + reserve);
        if (need + b > 0.999 * free_total)
            break;
        need += b;
        fit++;
    }
    for (int j = 0; j < n; j++)
        memset(d->req[j].heads, 0, sizeof d->req[j].heads);
    if (fit == 0)
        return 0;
    double *x = malloc((size_t)fit * D * sizeof *x), z = 0;
    if (x == NULL)
        return err_run(err, "out of memory");
    if (solve(h, d, fit, reserve, 0, x, &z, err) < 0) {
        free(x);
        return -1;
    }
    for (int j = 0; j < fit; j++) {
        double b = head_bytes(d, d->req[j].context);
        int32_t heads[SERVE_MAX_DEV];
        if (hetis_round_heads(x + (size_t)j * D, D, H, b, room, heads) < 0)
            break;      /* it and the later ones wait */
        memcpy(d->req[j].heads, heads, (size_t)D * sizeof *heads);
    }
    d->layer_attn_s = z;
    free(x);
    return 0;
}

/* Rebalance every running request: the balanced shares by the LP over one aggregate
 * request, then moves of single heads toward them. */
static int rebalance(struct hetis *h, struct serve_dispatch *d, struct errbuf *err)
{
    int D = d->ndev, n = d->nreq;
    struct coef co[SERVE_MAX_DEV];
    double cR, KR;
    coefficients(d, co, &cR, &KR);
    double ctx[SERVE_MAX_DEV], q[SERVE_MAX_DEV], used[SERVE_MAX_DEV], W = 0, Q = 0, B = 0;
    for (int i = 0; i < D; i++) {
        ctx[i] = d->dev[i].ctx_heads;
        q[i] = d->dev[i].req_heads;
        used[i] = d->dev[i].used_bytes;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < D; i++) {
            ctx[i] += d->req[j].context * d->req[j].heads[i];
            q[i] += d->req[j].heads[i];
            used[i] += d->req[j].heads[i] * head_bytes(d, d->req[j].context);
            B += d->req[j].heads[i] * head_bytes(d, d->req[j].context);
            W += d->req[j].context * d->req[j].heads[i];
            Q += d->req[j].heads[i];
        }
    double now = model_time(d, co, cR, KR, ctx, q);
    d->layer_attn_s = now;
    if (n == 0 || W <= 0)
        return 0;
    /* the balanced shares: one aggregate request of context W / Q with Q heads, by the LP */
    struct serve_dispatch agg = *d;
    struct serve_dispatch_req one = { .context = W / Q };
    agg.nreq = 1;
    agg.req = &one;
    struct serve_attn_dev dev[SERVE_MAX_DEV];
    memcpy(dev, d->dev, (size_t)D * sizeof *dev);
    agg.dev = dev;
    struct serve_env_view env = *d->env;
    struct llm_arch arch = *env.arch;
    arch.kv_heads = (int)Q;     /* the LP's head sum: every head of every request */
    env.arch = &arch;
    agg.env = &env;
    double *x = malloc((size_t)D * sizeof *x), z;
    if (x == NULL)
        return err_run(err, "out of memory");
    /* the rows count the aggregate's bytes exactly; when even the balanced shares do not fit
       the room (rounding of blocks), nothing moves */
    struct errbuf ignored;
    err_clear(&ignored);
    if (solve(h, &agg, 1, 0, B / Q, x, &z, &ignored) < 0) {
        free(x);
        return 0;
    }
    if (now <= (1 + h->gain) * z) {
        free(x);
        return 0;
    }
    double target[SERVE_MAX_DEV];
    for (int i = 0; i < D; i++)
        target[i] = d->dev[i].ctx_heads + x[i] * W / Q;
    free(x);
    /* move heads of the largest contexts first, from above target to below it */
    for (int pass = 0; pass < 4 * d->env->arch->kv_heads; pass++) {
        int moved = 0;
        for (int j = 0; j < n; j++) {
            struct serve_dispatch_req *r = &d->req[j];
            double b = head_bytes(d, r->context);
            int hi = -1, lo = -1;
            for (int i = 0; i < D; i++) {
                if (r->heads[i] > 0 && ctx[i] - r->context > target[i] - 1e-9 &&
                    (hi < 0 || ctx[i] - target[i] > ctx[hi] - target[hi]))
                    hi = i;
                if (ctx[i] + r->context <= target[i] + r->context / 2 &&
                    used[i] + b <= d->dev[i].cap_bytes &&
                    (lo < 0 || target[i] - ctx[i] > target[lo] - ctx[lo]))
                    lo = i;
            }
            if (hi < 0 || lo < 0 || hi == lo)
                continue;
            r->heads[hi]--;
            r->heads[lo]++;
            ctx[hi] -= r->context;
            ctx[lo] += r->context;
            q[hi]--;
            q[lo]++;
            used[hi] -= b;
            used[lo] += b;
            moved = 1;
        }
        if (!moved)
            break;
    }
    d->layer_attn_s = model_time(d, co, cR, KR, ctx, q);
    return 0;
}

static int ht_dispatch(void *self, struct serve_dispatch *d, struct errbuf *err)
{
    struct hetis *h = self;
    /* a request to place anew is placed as an admission is, where the others leave room */
    return d->rebalance == SERVE_REBALANCE ? rebalance(h, d, err) : place(h, d, err);
}

static const char *const params[] = { "routing", "primaries", "instances", "prompt", "output", "gain",
                                      "reserve_tokens", NULL };

static const struct serve_hooks hooks = {
    .deploy = ht_deploy,
    .route = ht_route,
    .dispatch = ht_dispatch,
    .redispatch_s = 2,
};

const struct policy_ops policy_hetis = {
    .name = "hetis",
    .domain = "serving",
    .summary = "Hetis: dense modules on high-end primaries, decode attention split by KV head "
               "over every GPU by a per-batch LP, rebalanced online",
    .params = params,
    .create = ht_create,
    .destroy = ht_destroy,
    .serve = &hooks,
};
