/*
 * test_xfer: the ports a transfer crosses and how long it holds each (sim/serve/xfer.h),
 * against a hand count on a small cluster — three machines over 100 GbE, the primaries'
 * machine with a local worker — and, for random bytes, the property that no port carries
 * more bytes a second than its link's bandwidth: every byte to a worker on another machine
 * crosses both machines' network links and the worker's and primaries' links into their
 * machines, the primaries' network link carrying every remote worker's bytes together.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "../sim/serve/xfer.h"
#include "helpers.h"

static catalog *cat;
static llm_catalog *lc;
static cluster *cl;

/* node 0: 3 A100 (GPUs 0-2), node 1: 2 RTX 3090 (3, 4), node 2: 2 P100 (5, 6) */
static const char three[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 3, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 2, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"P100\", \"gpus_per_node\": 2, \"intra\": \"pcie3\" } ] }";

static void setup(void)
{
    cat = th_catalog();
    lc = th_llm(cat);
    cl = th_cluster(cat, three);
}

static void teardown(void)
{
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}

TestSuite(xfer, .init = setup, .fini = teardown);

/* The bytes each port should carry, by (dir, id): 7 GPUs, 3 nodes. */
struct want {
    double gpu_out[7], gpu_in[7], net_out[3], net_in[3];
};

static double *slot(struct want *w, int dir, int id)
{
    return dir == LINKBOOK_GPU_OUT ? &w->gpu_out[id] : dir == LINKBOOK_GPU_IN ? &w->gpu_in[id]
           : dir == LINKBOOK_NET_OUT ? &w->net_out[id] : &w->net_in[id];
}

/* Every port returned holds for exactly its expected bytes at its link's rate, no port
 * twice, none missing, and none carries more than its bandwidth. */
static void check_ports(const struct linkbook_port *p, int n, struct want *w)
{
    int seen[4][7] = { { 0 } };
    for (int i = 0; i < n; i++) {
        cr_assert_eq(seen[p[i].dir][p[i].id]++, 0, "port %d/%d twice", p[i].dir, p[i].id);
        double bytes = *slot(w, p[i].dir, p[i].id);
        int node = p[i].dir <= LINKBOOK_GPU_IN ? cluster_gpu_node(cl, p[i].id) : p[i].id;
        const struct cluster_node *nd = cluster_node(cl, node);
        int link = p[i].dir <= LINKBOOK_GPU_IN ? nd->intra : nd->net;
        cr_assert_eq(p[i].dur, xfer_dur(lc, link, bytes), "port %d/%d: %lld us for %g B",
                     p[i].dir, p[i].id, (long long)p[i].dur, bytes);
        if (bytes > 0)
            cr_assert_leq(bytes / sim_to_sec(p[i].dur), catalog_link(cat, link)->bw_gbs * 1e9,
                          "port %d/%d beats its link", p[i].dir, p[i].id);
        *slot(w, p[i].dir, p[i].id) = -1;       /* seen */
    }
    for (int g = 0; g < 7; g++)
        cr_assert(w->gpu_out[g] <= 0 && w->gpu_in[g] <= 0, "GPU %d's port missing", g);
    for (int k = 0; k < 3; k++)
        cr_assert(w->net_out[k] <= 0 && w->net_in[k] <= 0, "node %d's port missing", k);
}

Test(xfer, hetis_ports_by_hand)
{
    /* primaries GPUs 0 and 1; workers: GPU 2 (their machine), 3 and 4 (the 3090s), 5 (a
       P100) */
    const int32_t prim[] = { 0, 1 };
    struct serve_attn_dev dev[5] = { { .gpu = 0 }, { .gpu = 2 }, { .gpu = 3 }, { .gpu = 4 },
                                     { .gpu = 5 } };
    const double in[5] = { 0, 1e6, 2e6, 3e6, 4e6 }, out[5] = { 0, 5e5, 6e5, 7e5, 8e5 };
    struct linkbook_port p[XFER_MAX_PORTS];
    int n = xfer_hetis_ports(cl, lc, prim, 2, dev, 5, out, in, p);
    struct want w;
    memset(&w, 0, sizeof w);
    for (int d = 1; d < 5; d++) {
        w.gpu_in[dev[d].gpu] = in[d];
        w.gpu_out[dev[d].gpu] = out[d];
    }
    /* the primaries share all of it; the 3090 machine carries both its workers' bytes, the
       P100 machine its one's, the primaries' machine every remote worker's */
    w.gpu_out[0] = w.gpu_out[1] = (1e6 + 2e6 + 3e6 + 4e6) / 2;
    w.gpu_in[0] = w.gpu_in[1] = (5e5 + 6e5 + 7e5 + 8e5) / 2;
    w.net_in[1] = 2e6 + 3e6;
    w.net_out[1] = 6e5 + 7e5;
    w.net_in[2] = 4e6;
    w.net_out[2] = 8e5;
    w.net_out[0] = 2e6 + 3e6 + 4e6;
    w.net_in[0] = 6e5 + 7e5 + 8e5;
    check_ports(p, n, &w);
    cr_assert_eq(n, 8 + 4 + 4 + 2);
    /* 9 MB out of the primaries' machine over 12.5 GB/s: at least 720 us */
    for (int i = 0; i < n; i++)
        if (p[i].dir == LINKBOOK_NET_OUT && p[i].id == 0)
            cr_assert_geq(p[i].dur, 720);
}

Test(xfer, group_ports_by_hand)
{
    /* KV of a TP-2 stage on A100s to a TP-2 stage on 3090s: each GPU its half, and all of it
       over both machines' network links */
    const int32_t a[] = { 0, 1 }, b[] = { 3, 4 };
    struct linkbook_port p[XFER_MAX_PORTS];
    int n = xfer_group_ports(cl, lc, a, 2, b, 2, 8e6, p);
    struct want w;
    memset(&w, 0, sizeof w);
    w.gpu_out[0] = w.gpu_out[1] = w.gpu_in[3] = w.gpu_in[4] = 4e6;
    w.net_out[0] = w.net_in[1] = 8e6;
    check_ports(p, n, &w);
    /* one machine: its GPUs' links only */
    const int32_t c[] = { 2 };
    n = xfer_group_ports(cl, lc, a, 2, c, 1, 8e6, p);
    memset(&w, 0, sizeof w);
    w.gpu_out[0] = w.gpu_out[1] = 4e6;
    w.gpu_in[2] = 8e6;
    check_ports(p, n, &w);
    cr_assert_eq(n, 3);
}

Test(xfer, no_port_beats_its_link)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    for (int trial = 0; trial < 2000; trial++) {
        /* primaries: one or two of GPUs 0-1; workers: a random subset of the others */
        int np = 1 + (int)gsl_rng_uniform_int(rng, 2), ndev = 1;
        const int32_t prim[] = { 0, 1 };
        struct serve_attn_dev dev[8] = { { .gpu = 0 } };
        double in[8] = { 0 }, out[8] = { 0 };
        for (int g = np; g < 7; g++)
            if (gsl_rng_uniform(rng) < 0.6) {
                dev[ndev].gpu = g;
                in[ndev] = gsl_rng_uniform(rng) < 0.2 ? 0 : pow(10, 9 * gsl_rng_uniform(rng));
                out[ndev] = gsl_rng_uniform(rng) < 0.2 ? 0 : pow(10, 9 * gsl_rng_uniform(rng));
                ndev++;
            }
        struct linkbook_port p[XFER_MAX_PORTS];
        int n = xfer_hetis_ports(cl, lc, prim, np, dev, ndev, out, in, p);
        struct want w;
        memset(&w, 0, sizeof w);
        double rin = 0, rout = 0, tin = 0, tout = 0;
        for (int d = 1; d < ndev; d++) {
            int g = dev[d].gpu, nd = cluster_gpu_node(cl, g);
            w.gpu_in[g] = in[d];
            w.gpu_out[g] = out[d];
            tin += in[d];
            tout += out[d];
            if (nd != 0) {
                w.net_in[nd] += in[d];
                w.net_out[nd] += out[d];
                rin += in[d];
                rout += out[d];
            }
        }
        for (int q = 0; q < np; q++) {
            w.gpu_out[q] = tin / np;
            w.gpu_in[q] = tout / np;
        }
        w.net_out[0] = rin;
        w.net_in[0] = rout;
        check_ports(p, n, &w);
    }
    gsl_rng_free(rng);
}

/* A route looked up once and its holds computed with a memo give what xfer_group_ports gives
 * each time, over routes of every kind (within a node, across nodes, groups of several GPUs)
 * and byte counts that repeat and change, the memo shared by them all. */
Test(xfer, a_route_with_a_memo_gives_the_group_s_ports)
{
    static const int32_t groups[][3] = { { 0, 1, 2 }, { 3, 4, -1 }, { 5, 6, -1 }, { 1, -1, -1 },
                                         { 6, -1, -1 } };
    static const int sizes[] = { 3, 2, 2, 1, 1 };
    static const double bytes[] = { 1e3, 65536, 1e3, 3.5e7, 65536, 1 };
    struct xfer_memo memo = { 0 };
    for (int b = 0; b < 6; b++)
        for (int s = 0; s < 5; s++)
            for (int d = 0; d < 5; d++) {
                if (s == d)
                    continue;
                struct linkbook_port want[XFER_MAX_PORTS], got[XFER_MAX_PORTS];
                int n = xfer_group_ports(cl, lc, groups[s], sizes[s], groups[d], sizes[d],
                                         bytes[b], want);
                struct xfer_route r;
                xfer_group_route(cl, groups[s], sizes[s], groups[d], sizes[d], &r);
                cr_assert_eq(xfer_route_ports(lc, &r, bytes[b], &memo, got), n);
                for (int i = 0; i < n; i++)
                    cr_assert(got[i].dir == want[i].dir && got[i].id == want[i].id &&
                                  got[i].dur == want[i].dur,
                              "group %d -> %d, %g bytes, port %d: (%d, %d, %lld) vs "
                              "(%d, %d, %lld)", s, d, bytes[b], i, got[i].dir, got[i].id,
                              (long long)got[i].dur, want[i].dir, want[i].id,
                              (long long)want[i].dur);
            }
    cr_assert_gt(memo.n, 1, "the memo kept several links' holds");
}
