/*
 * test_hetis: the Hetis policy (sched/serving/hetis.c).  Its per-batch dispatch LP against
 * brute force over every integer split of the KV heads on small cases, judged by the
 * world's own per-layer attention time (serve_view_attn_split_s) and memory rule: the LP's
 * rounded answer is within a few percent of the best split, fits, and places nothing when
 * nothing fits; rebalancing moves heads toward balance and only when it pays; the deployment
 * puts the dense modules on high-end primaries and every other GPU to attention.  The
 * rounding of the LP's reals to whole heads (hetis_round_heads) against hand-computed
 * answers and, on random reals and rooms, against brute force over every whole split: the
 * closest in L1 to the reals, within a head of each, and placed exactly when some split
 * fits.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sched/serving/hetis.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

static catalog *cat;
static llm_catalog *lc;
static cluster *cl;
static struct serve_config cfg;

static const char testbed[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"P100\", \"gpus_per_node\": 4, \"intra\": \"pcie3\" } ] }";

static void setup(void)
{
    cat = th_catalog();
    lc = th_llm(cat);
    cl = th_cluster(cat, testbed);
    th_serve_config(&cfg);
}

static void teardown(void)
{
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}

TestSuite(hetis, .init = setup, .fini = teardown);

static policy *open_hetis(const char *params)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc = NULL;
    struct jobj pj = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "p", params, strlen(params), &err), 0);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    }
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "hetis", params ? &pj : NULL, &env, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);     /* parameters are read at open */
    return p;
}

/* An instance: primaries = 2 A100 (GPUs 0, 1), workers = GPUs listed. */
static void devices(const struct serve_env_view *v, const int32_t *workers, int nw,
                    struct serve_attn_dev *dev, int *ndev)
{
    struct serve_instance in = { .role = SERVE_UNIFIED, .nstages = 1, .nattn = nw };
    in.stages[0] = (struct serve_stage){ .ngpu = 2, .gpus = { 0, 1 }, .layers = v->arch->layers };
    for (int i = 0; i < nw; i++)
        in.attn[i] = workers[i];
    serve_view_attn_devices(v, &in, dev, ndev);
}

static double head_bytes(const struct llm_arch *a, double context)
{
    return ceil(context / 16) * 16 * a->layers * llm_kv_head_bytes(a);
}

/* The world's time of the devices' loads plus requests placed as heads[j][d]. */
static double true_time(const struct serve_env_view *v, const struct serve_dispatch *d,
                        int32_t heads[][SERVE_MAX_DEV], int n)
{
    double ctx[SERVE_MAX_DEV], req[SERVE_MAX_DEV];
    for (int i = 0; i < d->ndev; i++) {
        ctx[i] = d->dev[i].ctx_heads;
        req[i] = d->dev[i].req_heads;
        for (int j = 0; j < n; j++) {
            ctx[i] += d->req[j].context * heads[j][i];
            req[i] += heads[j][i];
        }
    }
    return serve_view_attn_split_s(v, d->ndev, d->dev, ctx, req);
}

static int fits(const struct serve_dispatch *d, const struct llm_arch *a,
                int32_t heads[][SERVE_MAX_DEV], int n)
{
    for (int i = 0; i < d->ndev; i++) {
        double used = d->dev[i].used_bytes;
        for (int j = 0; j < n; j++)
            used += heads[j][i] * head_bytes(a, d->req[j].context);
        if (used > d->dev[i].cap_bytes)
            return 0;
    }
    return 1;
}

/* Best integer split of H heads for n (<= 2) requests over 3 devices, by enumeration. */
static double brute(const struct serve_env_view *v, const struct serve_dispatch *d, int H, int n,
                    int32_t best[][SERVE_MAX_DEV])
{
    double best_t = INFINITY;
    int32_t h[2][SERVE_MAX_DEV] = { { 0 } };
    int lim1 = n > 1 ? H : 0;
    for (int a0 = 0; a0 <= H; a0++)
        for (int a1 = 0; a0 + a1 <= H; a1++)
            for (int b0 = 0; b0 <= lim1; b0++)
                for (int b1 = 0; b0 + b1 <= lim1; b1++) {
                    h[0][0] = a0;
                    h[0][1] = a1;
                    h[0][2] = H - a0 - a1;
                    h[1][0] = b0;
                    h[1][1] = b1;
                    h[1][2] = lim1 - b0 - b1;
                    if (!fits(d, v->arch, h, n))
                        continue;
                    double t = true_time(v, d, h, n);
                    if (t < best_t) {
                        best_t = t;
                        memcpy(best, h, sizeof h);
                    }
                }
    return best_t;
}

static void check_against_brute(const char *model, const int32_t *workers,
                                const double *used_frac, const double *ctx_load,
                                const double *contexts, int n, double tol)
{
    const struct llm_arch *a = llm_find(lc, model);
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    struct serve_attn_dev dev[SERVE_MAX_DEV];
    int ndev;
    devices(&v, workers, 2, dev, &ndev);
    cr_assert_eq(ndev, 3);
    for (int i = 0; i < ndev; i++) {
        dev[i].used_bytes = used_frac[i] * dev[i].cap_bytes;
        dev[i].ctx_heads = ctx_load[i];
        dev[i].req_heads = ctx_load[i] / 4000;
        if (ctx_load[i] < 0) {
            /* -T: the load that takes T seconds on this device alone (bisection) */
            double lo = 0, hi = 1e8, ctx[SERVE_MAX_DEV] = { 0 }, rq[SERVE_MAX_DEV] = { 0 };
            for (int it = 0; it < 100; it++) {
                double mid = (lo + hi) / 2;
                ctx[i] = mid;
                rq[i] = mid / 4000;
                if (serve_view_attn_split_s(&v, ndev, dev, ctx, rq) < -ctx_load[i])
                    lo = mid;
                else
                    hi = mid;
            }
            dev[i].ctx_heads = lo;
            dev[i].req_heads = lo / 4000;
        }
    }
    struct serve_dispatch_req q[2];
    memset(q, 0, sizeof q);
    for (int j = 0; j < n; j++) {
        q[j].id = j;
        q[j].context = contexts[j];
    }
    struct serve_dispatch d = { 0, &v, 0, ndev, dev, n, q, SERVE_PLACE, 0 };
    policy *p = open_hetis("{\"reserve_tokens\": 0}");
    const struct serve_decider *dec = policy_decider(p);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(dec->dispatch(dec->ctx, &d, &err), 0, "%s", err.msg);
    int32_t got[2][SERVE_MAX_DEV] = { { 0 } }, best[2][SERVE_MAX_DEV];
    int placed = 1;
    for (int j = 0; j < n; j++) {
        int sum = 0;
        for (int i = 0; i < ndev; i++) {
            got[j][i] = q[j].heads[i];
            sum += got[j][i];
        }
        cr_assert(sum == a->kv_heads || sum == 0, "request %d: %d heads", j, sum);
        placed &= sum == a->kv_heads;
    }
    double opt = brute(&v, &d, a->kv_heads, n, best);
    if (!isfinite(opt)) {
        cr_assert(!placed, "brute force finds no room, yet the LP placed the heads");
    } else {
        cr_assert(placed, "brute force places them (best %g s), the LP did not", opt);
        cr_assert(fits(&d, a, got, n), "the LP's heads overflow a device");
        double t = true_time(&v, &d, got, n);
        cr_assert_leq(t, opt * (1 + tol), "LP split %d/%d/%d takes %g s, best %d/%d/%d %g s",
                      got[0][0], got[0][1], got[0][2], t, best[0][0], best[0][1], best[0][2],
                      opt);
        /* the LP's own optimum is a lower bound of the relaxed problem */
        cr_assert_gt(d.layer_attn_s, 0);
    }
    policy_close(p);
}

Test(hetis, one_request_on_idle_devices_matches_brute_force)
{
    /* Llama-2-70B: 8 KV heads; a 3090 and a P100 on other machines (over 100 GbE) */
    const int32_t workers[] = { 4, 8 };
    const double used[] = { 0, 0, 0 }, load[] = { 0, 0, 0 }, ctx[] = { 3000 };
    check_against_brute("llama-2-70b", workers, used, load, ctx, 1, 0.05);
}

Test(hetis, two_requests_on_loaded_devices_match_brute_force)
{
    const int32_t workers[] = { 4, 8 };
    const double used[] = { 0.5, 0.2, 0.1 };
    const double load[] = { 2e6, 1e5, 0 };     /* the primaries already read a lot of KV */
    const double ctx[] = { 2500, 800 };
    check_against_brute("llama-2-70b", workers, used, load, ctx, 2, 0.05);
}

Test(hetis, a_long_request_on_busy_devices_is_split)
{
    /* loads near balance, a new request as large as them: where its heads go matters.  The
     * LP prices a head-token at the memory time of its K and V; the world's roofline adds
     * the FLOPs, which on the P100 (18.7 TF of fp16 at the borrowed 60%) lengthen its
     * attention by about a third: the LP's split is 8% (one request) and 14% (two) slower
     * than the best here, the price of its linear model, not of its solution (which
     * hetis/rounding_* checks against the LP's own reals) */
    const int32_t workers[] = { 4, 8 };
    const double used[] = { 0.2, 0.2, 0.2 }, load[] = { 2e5, 4e4, 2e4 }, ctx[] = { 4000 };
    check_against_brute("llama-2-70b", workers, used, load, ctx, 1, 0.10);
    const double ctx2[] = { 4000, 3000 };
    check_against_brute("llama-2-70b", workers, used, load, ctx2, 2, 0.16);
    /* the other two A100s of the primaries' machine, over PCIe: heads spread */
    const int32_t local[] = { 2, 3 };
    const double busy[] = { -80e-6, -80e-6, -80e-6 };  /* 80 us on every device */
    check_against_brute("llama-2-70b", local, used, busy, ctx, 1, 0.02);
    check_against_brute("llama-2-70b", local, used, busy, ctx2, 2, 0.02);
}

Test(hetis, full_primaries_push_heads_to_workers)
{
    const int32_t workers[] = { 4, 5 };        /* two 3090s */
    const double used[] = { 0.999, 0, 0.6 }, load[] = { 1e6, 0, 0 }, ctx[] = { 4000, 4000 };
    check_against_brute("llama-2-70b", workers, used, load, ctx, 2, 0.05);
}

Test(hetis, nothing_fits_nothing_placed)
{
    const int32_t workers[] = { 4, 8 };
    const double used[] = { 1, 0.9999, 0.9999 }, load[] = { 0, 0, 0 }, ctx[] = { 4000 };
    check_against_brute("llama-2-70b", workers, used, load, ctx, 1, 0.05);
}

Test(hetis, rebalancing_moves_toward_balance_only_when_it_pays)
{
    const struct llm_arch *a = llm_find(lc, "llama-2-70b");
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    struct serve_attn_dev dev[SERVE_MAX_DEV];
    int ndev;
    const int32_t workers[] = { 4, 5 };
    devices(&v, workers, 2, dev, &ndev);
    /* eight requests, every head on worker 1: badly unbalanced */
    enum { N = 8 };
    struct serve_dispatch_req q[N];
    memset(q, 0, sizeof q);
    int32_t before[N][SERVE_MAX_DEV];
    for (int j = 0; j < N; j++) {
        q[j].id = j;
        q[j].context = 2000 + 100 * j;
        q[j].heads[1] = a->kv_heads;
        memcpy(before[j], q[j].heads, sizeof before[j]);
    }
    struct serve_dispatch d = { 0, &v, 0, ndev, dev, N, q, SERVE_REBALANCE, 0 };
    policy *p = open_hetis(NULL);
    const struct serve_decider *dec = policy_decider(p);
    struct errbuf err;
    err_clear(&err);
    double t0 = true_time(&v, &d, before, N);
    cr_assert_eq(dec->dispatch(dec->ctx, &d, &err), 0, "%s", err.msg);
    int32_t after[N][SERVE_MAX_DEV] = { { 0 } };
    int moved = 0;
    for (int j = 0; j < N; j++) {
        int sum = 0;
        for (int i = 0; i < ndev; i++) {
            after[j][i] = q[j].heads[i];
            sum += after[j][i];
            moved += after[j][i] != before[j][i];
        }
        cr_assert_eq(sum, a->kv_heads);
    }
    double t1 = true_time(&v, &d, after, N);
    cr_assert_gt(moved, 0);
    cr_assert_lt(t1, 0.7 * t0, "rebalanced %g s, was %g s", t1, t0);
    cr_assert(fits(&d, a, after, N));
    /* balanced already: nothing moves */
    memset(before, 0, sizeof before);
    for (int j = 0; j < N; j++)
        memcpy(before[j], after[j], (size_t)ndev * sizeof after[j][0]);
    err_clear(&err);
    cr_assert_eq(dec->dispatch(dec->ctx, &d, &err), 0, "%s", err.msg);
    for (int j = 0; j < N; j++)
        cr_assert_eq(memcmp(q[j].heads, before[j], sizeof before[j]), 0, "request %d moved: "
                     "%d/%d/%d -> %d/%d/%d (t %g, was %g, z %g)", j, before[j][0], before[j][1],
                     before[j][2], q[j].heads[0], q[j].heads[1], q[j].heads[2], t1, t0,
                     d.layer_attn_s);
    policy_close(p);
}

Test(hetis, deployment_primaries_high_end_workers_everything_else)
{
    const struct llm_arch *a = llm_find(lc, "llama-2-70b");
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    policy *p = open_hetis(NULL);
    const struct serve_decider *dec = policy_decider(p);
    struct serve_deployment *d = calloc(1, sizeof *d);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), 0, "%s", err.msg);
    char msg[512];
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), 0, "%s", msg);
    int a100 = catalog_gpu_find(cat, "A100-80GB"), seen[12] = { 0 };
    for (int i = 0; i < d->n; i++) {
        const struct serve_instance *in = &d->inst[i];
        cr_assert_eq(in->nstages, 1);
        for (int k = 0; k < in->stages[0].ngpu; k++) {
            cr_assert_eq(cluster_gpu_type(cl, in->stages[0].gpus[k]), a100);
            seen[in->stages[0].gpus[k]]++;
        }
        for (int k = 0; k < in->nattn; k++)
            seen[in->attn[k]]++;
    }
    for (int g = 0; g < 12; g++)
        cr_assert_eq(seen[g], 1, "GPU %d in %d places", g, seen[g]);
    /* forcing one primary GPU cannot hold 138 GB of weights */
    policy_close(p);
    p = open_hetis("{\"primaries\": 1}");
    dec = policy_decider(p);
    err_clear(&err);
    cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), -1);
    cr_assert(strstr(err.msg, "fits no group of A100-80GB primaries") != NULL, "%s", err.msg);
    policy_close(p);
    free(d);
}

/* ---------------------------------------------------------------- rounding to heads */

static void round_case(const double *x, int D, int H, double bytes, const double *room0,
                       const int32_t *want, int want_rc)
{
    double room[SERVE_MAX_DEV];
    int32_t heads[SERVE_MAX_DEV];
    memcpy(room, room0, (size_t)D * sizeof *room);
    int rc = hetis_round_heads(x, D, H, bytes, room, heads);
    cr_assert_eq(rc, want_rc, "rc %d, want %d", rc, want_rc);
    if (rc < 0)
        return;
    for (int i = 0; i < D; i++) {
        cr_assert_eq(heads[i], want[i], "device %d: %d heads, want %d (%d/%d/%d)", i, heads[i],
                     want[i], heads[0], heads[1], D > 2 ? heads[2] : -1);
        cr_assert_eq(room[i], room0[i] - want[i] * bytes, "device %d's room", i);
    }
}

Test(hetis, rounding_by_hand)
{
    const double big[] = { 1e9, 1e9, 1e9, 1e9 };
    /* floors 2/3/2 = 7, the eighth head to the largest remainder (.6) */
    round_case((double[]){ 2.6, 3.3, 2.1 }, 3, 8, 1, big, (int32_t[]){ 3, 3, 2 }, 0);
    /* two missing: .7 and .5 get them, not .2 */
    round_case((double[]){ 1.7, 1.2, 5.1 - 0.0, 0 }, 4, 8, 1, big, (int32_t[]){ 2, 1, 5, 0 }, 0);
    round_case((double[]){ 0.5, 2.2, 0.3, 3.0 }, 4, 6, 1, big, (int32_t[]){ 1, 2, 0, 3 }, 0);
    /* a tie goes to the lower device */
    round_case((double[]){ 4.5, 3.5, 0 }, 3, 8, 1, big, (int32_t[]){ 5, 3, 0 }, 0);
    round_case((double[]){ 0, 3.5, 4.5 }, 3, 8, 1, big, (int32_t[]){ 0, 4, 4 }, 0);
    /* the solver's tolerance: a hair below an integer is that integer, below zero is zero */
    round_case((double[]){ 2.9999999995, 5.0000000005, -1e-12 }, 3, 8, 1, big,
               (int32_t[]){ 3, 5, 0 }, 0);
    /* reals summing beyond H whose floors do too: the head too many leaves the smallest
     * remainder (ties: the lower device) */
    round_case((double[]){ 4.2, 4.4, 1 }, 3, 8, 1, big, (int32_t[]){ 4, 4, 0 }, 0);
    round_case((double[]){ 4, 4, 1 }, 3, 8, 1, big, (int32_t[]){ 3, 4, 1 }, 0);
    /* room: device 0 holds 5 heads of 10 bytes; its other 3 go, one at a time, where the
     * most room is left (device 1 until it has no more than device 2 left, then 2) */
    round_case((double[]){ 8, 0, 0 }, 3, 8, 10, (double[]){ 55, 31, 20 },
               (int32_t[]){ 5, 2, 1 }, 0);
    round_case((double[]){ 8, 0, 0 }, 3, 8, 10, (double[]){ 55, 100, 20 },
               (int32_t[]){ 5, 3, 0 }, 0);
    /* exactly full fits; a byte short does not */
    round_case((double[]){ 4, 4 }, 2, 8, 10, (double[]){ 40, 40 }, (int32_t[]){ 4, 4 }, 0);
    round_case((double[]){ 4, 4 }, 2, 8, 10, (double[]){ 40, 39.5 }, NULL, -1);
    /* a device with no room at all gives every head away */
    round_case((double[]){ 1, 1, 6 }, 3, 8, 1, (double[]){ 0, 10, 10 }, (int32_t[]){ 0, 2, 6 },
               0);
}

/* Every split of H heads over D devices: its L1 distance to x; the least, and whether any
 * split fits the rooms. */
static void enumerate(const double *x, int D, int H, double bytes, const double *room,
                      int d, int left, int32_t *h, double *best_l1, int *any_fits)
{
    if (d == D - 1) {
        h[d] = left;
        double l1 = 0;
        int fit = 1;
        for (int i = 0; i < D; i++) {
            l1 += fabs(h[i] - (x[i] < 0 ? 0 : x[i]));
            fit &= h[i] * bytes <= room[i];
        }
        if (l1 < *best_l1)
            *best_l1 = l1;
        *any_fits |= fit;
        return;
    }
    for (int k = 0; k <= left; k++) {
        h[d] = k;
        enumerate(x, D, H, bytes, room, d + 1, left - k, h, best_l1, any_fits);
    }
}

Test(hetis, rounding_matches_brute_force)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    int fitted = 0, refused = 0, moved = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int D = 2 + (int)gsl_rng_uniform_int(rng, 4), H = 1 + (int)gsl_rng_uniform_int(rng, 8);
        /* reals summing to H, some exact integers and zeros among them */
        double x[SERVE_MAX_DEV], w[SERVE_MAX_DEV], sum = 0;
        for (int i = 0; i < D; i++)
            sum += w[i] = gsl_rng_uniform(rng) < 0.2 ? 0 : gsl_rng_uniform(rng);
        if (sum == 0)
            w[0] = sum = 1;
        for (int i = 0; i < D; i++)
            x[i] = H * w[i] / sum;
        if (trial % 7 == 0) {       /* whole numbers */
            int32_t h[SERVE_MAX_DEV];
            double r0[SERVE_MAX_DEV];
            for (int i = 0; i < D; i++)
                r0[i] = 1e9;
            hetis_round_heads(x, D, H, 1, r0, h);
            for (int i = 0; i < D; i++)
                x[i] = h[i];
        }
        double room[SERVE_MAX_DEV], room0[SERVE_MAX_DEV];
        double bytes = 1 + gsl_rng_uniform_int(rng, 3);
        for (int i = 0; i < D; i++)
            room0[i] = room[i] = gsl_rng_uniform(rng) < 0.3 ? 1e9
                                                            : bytes * gsl_rng_uniform(rng) * H;
        int32_t heads[SERVE_MAX_DEV], h[SERVE_MAX_DEV];
        double best_l1 = INFINITY;
        int any_fits = 0;
        enumerate(x, D, H, bytes, room0, 0, H, h, &best_l1, &any_fits);
        /* the rounding alone, with room for everything */
        double free_room[SERVE_MAX_DEV];
        int32_t plain[SERVE_MAX_DEV];
        for (int i = 0; i < D; i++)
            free_room[i] = 1e9;
        cr_assert_eq(hetis_round_heads(x, D, H, bytes, free_room, plain), 0);
        double l1 = 0;
        int total = 0;
        for (int i = 0; i < D; i++) {
            l1 += fabs(plain[i] - x[i]);
            total += plain[i];
            cr_assert_lt(fabs(plain[i] - x[i]), 1, "trial %d: device %d gets %d for %g", trial,
                         i, plain[i], x[i]);
        }
        cr_assert_eq(total, H, "trial %d", trial);
        cr_assert_leq(l1, best_l1 + 1e-9, "trial %d: L1 %g, the closest split %g", trial, l1,
                      best_l1);
        /* with the rooms: placed exactly when some split fits, and then it fits */
        int rc = hetis_round_heads(x, D, H, bytes, room, heads);
        cr_assert_eq(rc == 0, any_fits, "trial %d: rc %d, some split fits: %d", trial, rc,
                     any_fits);
        if (rc < 0) {
            refused++;
            continue;
        }
        fitted++;
        int same = 1;
        total = 0;
        for (int i = 0; i < D; i++) {
            total += heads[i];
            cr_assert_leq(heads[i] * bytes, room0[i], "trial %d: device %d overflows", trial,
                          i);
            cr_assert_eq(room[i], room0[i] - heads[i] * bytes);
            same &= heads[i] == plain[i];
        }
        cr_assert_eq(total, H);
        /* the rounded split is kept when it fits */
        int plain_fits = 1;
        for (int i = 0; i < D; i++)
            plain_fits &= plain[i] * bytes <= room0[i];
        cr_assert(!plain_fits || same, "trial %d: a split that fits was changed", trial);
        moved += !same;
    }
    cr_assert(fitted > 500 && refused > 100 && moved > 100, "fitted %d, refused %d, moved %d",
              fitted, refused, moved);
    gsl_rng_free(rng);
}
