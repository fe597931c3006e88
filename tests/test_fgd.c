/*
 * test_fgd: the fgd placement policy (sched/placement/fgd.c).  Its scores by hand on two
 * nodes (a shared GPU topped up beats a fresh one; a CPU-only pod goes where it strands the
 * fewest GPUs); against brute force on random clusters: the node it picks has the highest
 * score over every node and GPU that fit, the GPU is the first that reaches it, ties go to the
 * first node of the seed's order, and a pod goes unplaced only when nothing fits.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/base/rng.h"

static policy *open_policy(const char *name, uint64_t seed)
{
    struct policy_env env = { .seed = seed };
    policy *p;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_open(&p, name, NULL, &env, &err), 0, "%s", err.msg);
    cr_assert_not_null(policy_decider(p));
    return p;
}

static struct place_choice decide(policy *p, const struct place_view *v,
                                  const struct place_pod *pod)
{
    const struct place_decider *d = policy_decider(p);
    struct place_choice c = { .node = -2 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(d->decide(d->ctx, v, pod, &c, &err), 0, "%s", err.msg);
    return c;
}

static struct place_node node2(const char *name, int32_t g0, int32_t g1, int64_t cpu)
{
    struct place_node n = { .name = name, .model = 0, .ngpus = 2, .cpu_milli = cpu,
                            .mem_mib = 100, .cpu_free = cpu, .mem_free = 100 };
    n.gpu_free[0] = g0;
    n.gpu_free[1] = g1;
    return n;
}

static int64_t score(double before, double after)
{
    return (int64_t)(1.0 / (1.0 + exp(-(before - after) / 1000)) * 100.0);
}

/* The tie order fgd documents: a permutation of the node ranks from the seed's
 * "place_nodes" stream. */
static void ranks(uint64_t seed, int n, int *rank)
{
    gsl_rng *r = rng_stream(seed, "place_nodes");
    for (int i = 0; i < n; i++)
        rank[i] = i;
    gsl_ran_shuffle(r, rank, (size_t)n, sizeof *rank);
    gsl_rng_free(r);
}

/* Types: a whole GPU and a half, one core each, half the pods each.  Node A has both GPUs
 * free, node B one free and one at 500.
 *   a 500-milli pod on A (either GPU): F 0 -> 0.5 x 500 (the whole-GPU type loses a GPU's
 *     half) = 250, score (int) 100 sigmoid(-0.25) = 43;
 *   on B's GPU 1 (500 -> 0): F 250 -> 0, 100 sigmoid(0.25) = 56; on B's GPU 0: F 250 -> 500
 *     (no whole GPU left), 43.
 * So B, GPU 1. */
Test(fgd, scores_by_hand)
{
    struct frag_type ts[2] = { { 1000, 1000, 1, 0, "", 0.5 }, { 1000, 500, 1, 0, "", 0.5 } };
    struct place_node ns[2] = { node2("A", 1000, 1000, 10000), node2("B", 1000, 500, 10000) };
    struct place_view v = { .nodes = ns, .nnodes = 2, .types = ts, .ntypes = 2 };
    policy *p = open_policy("fgd", 1);
    struct place_pod half = { .name = "h", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 500,
                              .tag = PLACE_TAG_SHARE };
    struct place_choice c = decide(p, &v, &half);
    cr_assert_eq(c.node, 1);
    cr_assert_eq(c.ngpus, 1);
    cr_assert_eq(c.gpus[0], 1);
    /* a CPU-only pod of 9.5 cores leaves 0.5: every type then lacks CPU, so all idle milli is
     * fragment: A 0 -> 2000 (score 11), B 250 -> 1500 (22): B */
    struct place_pod cpu = { .name = "c", .cpu_milli = 9500, .tag = -1 };
    c = decide(p, &v, &cpu);
    cr_assert_eq(c.node, 1);
    cr_assert_eq(c.ngpus, 0);
    /* a whole GPU changes neither: A keeps a whole GPU for both types (F 0 -> 0), B's 500
     * was already the whole type's fragment and stays the half type's room (250 -> 250);
     * both score 50, and the tie goes to the first of the seed's node order, GPU 0 */
    struct place_pod one = { .name = "o", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 1000,
                             .tag = 1 };
    int rank[2];
    for (uint64_t seed = 1; seed <= 4; seed++) {
        policy *q = open_policy("fgd", seed);
        ranks(seed, 2, rank);
        c = decide(q, &v, &one);
        cr_assert_eq(c.node, rank[0] < rank[1] ? 0 : 1, "seed %llu", (unsigned long long)seed);
        cr_assert_eq(c.gpus[0], 0);
        policy_close(q);
    }
    /* nothing fits two whole GPUs on B, and A has them */
    struct place_pod two = { .name = "t", .cpu_milli = 1000, .num_gpu = 2, .gpu_milli = 1000,
                             .tag = 2 };
    c = decide(p, &v, &two);
    cr_assert_eq(c.node, 0);
    cr_assert_eq(c.ngpus, 2);
    cr_assert(c.gpus[0] == 0 && c.gpus[1] == 1);
    struct place_pod big = { .name = "b", .cpu_milli = 20000, .tag = -1 };
    c = decide(p, &v, &big);
    cr_assert_eq(c.node, -1, "no node has 20 cores");
    policy_close(p);
}

Test(fgd, the_best_node_and_gpu_by_brute_force)
{
    srand(3);
    int ties = 0;
    for (int trial = 0; trial < 400; trial++) {
        uint64_t seed = 1 + (uint64_t)(trial % 7);
        int nn = 2 + rand() % 6, nt = 1 + rand() % 5;
        struct place_node ns[8];
        struct frag_type ts[5];
        double psum = 0;
        for (int t = 0; t < nt; t++) {
            int kind = rand() % 4;
            ts[t] = (struct frag_type){ .cpu_milli = 1000 * (rand() % 8),
                                        .gpu_milli = kind == 0 ? 0 : kind == 1 ? 1000
                                                                   : 50 * (1 + rand() % 19),
                                        .num_gpu = kind == 0 ? 0 : kind == 1 ? 1 + rand() % 3 : 1,
                                        .models = rand() % 4 == 0 ? 2 : 0, .spec = "",
                                        .p = 1 + rand() % 5 };
            psum += ts[t].p;
        }
        for (int t = 0; t < nt; t++)
            ts[t].p /= psum;
        for (int i = 0; i < nn; i++) {
            struct place_node *n = &ns[i];
            *n = (struct place_node){ .name = "n", .model = rand() % 2, .ngpus = 1 + rand() % 8,
                                      .cpu_milli = 16000, .mem_mib = 100,
                                      .cpu_free = 1000 * (rand() % 17), .mem_free = 100 };
            for (int g = 0; g < n->ngpus; g++)
                n->gpu_free[g] = rand() % 3 == 0 ? 1000 : rand() % 3 == 0 ? 0
                                                                           : 50 * (rand() % 21);
            n->version = (uint64_t)rand();
        }
        int kind = rand() % 3;
        struct place_pod pod = { .name = "p", .cpu_milli = 1000 * (rand() % 6), .mem_mib = 1,
                                 .num_gpu = kind == 0 ? 0 : kind == 1 ? 1 + rand() % 3 : 1,
                                 .gpu_milli = kind == 0 ? 0 : kind == 1 ? 1000
                                                                        : 50 * (1 + rand() % 19),
                                 .models = rand() % 5 == 0 ? 1 : 0 };
        pod.tag = pod.num_gpu == 0 ? -1 : pod.gpu_milli < 1000 ? PLACE_TAG_SHARE : pod.num_gpu;
        struct place_view v = { .nodes = ns, .nnodes = nn, .types = ts, .ntypes = nt };
        /* every node and GPU that fit, scored as FGD defines it */
        int64_t best = INT64_MIN, node_best[8];
        int best_gpu[8];
        for (int i = 0; i < nn; i++) {
            node_best[i] = INT64_MIN;
            best_gpu[i] = -1;
            if (!place_view_fits(&ns[i], &pod))
                continue;
            struct frag_node fn = place_view_frag_node(&ns[i]);
            double before = frag_node(ts, nt, &fn, NULL);
            int32_t g2[PLACE_MAX_GPUS];
            memcpy(g2, ns[i].gpu_free, sizeof g2);
            struct frag_node after = { ns[i].cpu_free - pod.cpu_milli, ns[i].model, ns[i].ngpus,
                                       g2 };
            if (pod.num_gpu == 1 && pod.gpu_milli < 1000) {
                for (int g = 0; g < ns[i].ngpus; g++) {
                    if (ns[i].gpu_free[g] < pod.gpu_milli)
                        continue;
                    g2[g] -= pod.gpu_milli;
                    int64_t s = score(before, frag_node(ts, nt, &after, NULL));
                    g2[g] += pod.gpu_milli;
                    if (s > node_best[i]) {
                        node_best[i] = s;
                        best_gpu[i] = g;
                    }
                }
            } else {
                for (int g = 0, left = pod.num_gpu; g < ns[i].ngpus && left > 0; g++)
                    if (g2[g] == 1000) {
                        g2[g] = 0;
                        left--;
                    }
                node_best[i] = score(before, frag_node(ts, nt, &after, NULL));
            }
            if (node_best[i] > best)
                best = node_best[i];
        }
        policy *p = open_policy("fgd", seed);
        struct place_choice c = decide(p, &v, &pod);
        policy_close(p);
        if (best == INT64_MIN) {
            cr_assert_eq(c.node, -1, "trial %d: placed with no node fitting", trial);
            continue;
        }
        cr_assert(c.node >= 0, "trial %d: unplaced, but a node fits", trial);
        cr_assert_eq(node_best[c.node], best, "trial %d: node %d scores %lld, the best %lld",
                     trial, c.node, (long long)node_best[c.node], (long long)best);
        int rank[8], want = -1, nbest = 0;
        ranks(seed, nn, rank);
        for (int i = 0; i < nn; i++)
            if (node_best[i] == best) {
                nbest++;
                if (want < 0 || rank[i] < rank[want])
                    want = i;
            }
        ties += nbest > 1;
        cr_assert_eq(c.node, want, "trial %d: a tie goes to the first node of the seed's order",
                     trial);
        if (pod.num_gpu == 1 && pod.gpu_milli < 1000)
            cr_assert_eq(c.gpus[0], best_gpu[c.node], "trial %d: GPU %d, want %d", trial,
                         c.gpus[0], best_gpu[c.node]);
        else
            cr_assert_eq(c.ngpus, pod.num_gpu);
    }
    cr_assert_gt(ties, 20, "the trials include ties (%d)", ties);
}
