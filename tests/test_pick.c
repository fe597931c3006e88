/*
 * test_pick: the scheduling cycle the placement baselines share (sched/placement/pick.c) and
 * the baselines themselves — bestfit, dotprod, clustering and gpupacking scored by hand on
 * three or four nodes, random fit drawing uniformly from the nodes that fit and never from
 * the others, the GPU rules (best fit, random fit, whole GPUs), and ties going to the first
 * node of the seed's order, the same order for every policy of a seed.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
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

/* the node of `name`'s choice for pod on the view */
static int choose(const char *name, const struct place_view *v, const struct place_pod *pod)
{
    policy *p = open_policy(name, 1);
    int n = decide(p, v, pod).node;
    policy_close(p);
    return n;
}

static struct place_node node(int ngpus, const int32_t *free, int64_t cpu_free)
{
    struct place_node n = { .name = "n", .ngpus = ngpus, .cpu_milli = 128000,
                            .mem_mib = 1000, .cpu_free = cpu_free, .mem_free = 1000 };
    for (int g = 0; g < ngpus; g++)
        n.gpu_free[g] = free[g];
    return n;
}

static const int32_t all8[8] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };

/* A: 64 cores, 8 free GPUs; B: 16 cores, 2 of 4 free; C: 8 cores, 1 of 2 free. */
static void three(struct place_node *ns)
{
    static const int32_t b[4] = { 1000, 1000, 0, 0 }, c[2] = { 1000, 0 };
    ns[0] = node(8, all8, 64000);
    ns[1] = node(4, b, 16000);
    ns[2] = node(2, c, 8000);
}

static const struct place_pod one = { .name = "one", .cpu_milli = 4000, .num_gpu = 1,
                                      .gpu_milli = 1000, .tag = 1 };

Test(pick, bestfit_by_hand)
{
    /* raw = (int) 100 (1 - 0.5 (cpu left)/128000 - 0.5 (GPU milli left)/8000):
     * A 1 - 0.234375 - 0.4375 = 32, B 1 - 0.046875 - 0.0625 = 89, C 1 - 0.015625 = 98;
     * normalized A 0, B 86, C 100: C */
    struct place_node ns[3];
    three(ns);
    struct place_view v = { .nodes = ns, .nnodes = 3 };
    cr_assert_eq(choose("bestfit", &v, &one), 2);
    ns[2].cpu_free = 2000;                  /* C cannot take it: B */
    cr_assert_eq(choose("bestfit", &v, &one), 1);
}

Test(pick, dotprod_by_hand)
{
    /* (int) 100 (1 - (cpu free/128000 x 4000/128000 + GPU free/8000 x 1000/8000) / 2):
     * A 1 - (0.5 x 0.03125 + 1 x 0.125)/2 = 92, B 98, C 99: the least aligned, C */
    struct place_node ns[3];
    three(ns);
    struct place_view v = { .nodes = ns, .nnodes = 3 };
    cr_assert_eq(choose("dotprod", &v, &one), 2);
    ns[2].gpu_free[0] = 0;
    cr_assert_eq(choose("dotprod", &v, &one), 1);
}

Test(pick, clustering_by_hand)
{
    /* a pod sharing a GPU: P holds only sharing pods (free 3500: 75 + 25 x 4500/8000 = 89),
     * Q sharing and 1-GPU pods (free 6000: 50 + 6 = 56), R none (25 + 0), S only 2-GPU pods
     * (free 4000: 0 + 12): P */
    static const int32_t p[8] = { 1000, 1000, 1000, 0, 0, 0, 0, 0 },
                         q[8] = { 1000, 1000, 1000, 1000, 1000, 1000, 0, 0 },
                         s[8] = { 1000, 1000, 1000, 1000, 0, 0, 0, 0 };
    struct place_node ns[4] = { node(8, p, 64000), node(8, q, 64000), node(8, all8, 64000),
                                node(8, s, 64000) };
    ns[0].tag_pods[PLACE_TAG_SHARE] = 2;
    ns[0].ntags = 1;
    ns[1].tag_pods[PLACE_TAG_SHARE] = 1;
    ns[1].tag_pods[1] = 1;
    ns[1].ntags = 2;
    ns[3].tag_pods[2] = 2;
    ns[3].ntags = 1;
    /* the shared GPUs must have room for it: give P's a partial GPU */
    ns[0].gpu_free[3] = 500;
    struct place_view v = { .nodes = ns, .nnodes = 4 };
    struct place_pod share = { .name = "s", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 300,
                               .tag = PLACE_TAG_SHARE };
    cr_assert_eq(choose("clustering", &v, &share), 0);
    /* a 2-GPU pod: S holds only its kind (75 + 12 = 87) */
    struct place_pod two = { .name = "t", .cpu_milli = 1000, .num_gpu = 2, .gpu_milli = 1000,
                             .tag = 2 };
    cr_assert_eq(choose("clustering", &v, &two), 3);
    /* a 1-GPU pod: only Q holds it, among others (50 + 6): Q */
    struct place_pod w1 = one;
    cr_assert_eq(choose("clustering", &v, &w1), 1);
}

Test(pick, gpupacking_by_hand)
{
    /* a 300-milli pod: X idle (33 - 8 = 25), Y takes its 400-milli GPU (100 - 40/10 = 96),
     * Z only has a fully free GPU with room (50 - 1 = 49), W its 900-milli GPU (100 - 9):
     * Y, the tightest shared GPU, and there GPU 2 */
    static const int32_t y[4] = { 1000, 1000, 400, 0 }, z[2] = { 1000, 200 },
                         w[2] = { 1000, 900 };
    struct place_node ns[4] = { node(8, all8, 64000), node(4, y, 64000), node(2, z, 64000),
                                node(2, w, 64000) };
    struct place_view v = { .nodes = ns, .nnodes = 4 };
    struct place_pod share = { .name = "s", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 300,
                               .tag = PLACE_TAG_SHARE };
    policy *p = open_policy("gpupacking", 1);
    struct place_choice c = decide(p, &v, &share);
    cr_assert_eq(c.node, 1);
    cr_assert_eq(c.gpus[0], 2);
    /* a whole GPU: Y, Z and W are used nodes taking one free GPU (49 each), X idle (25): a
     * tie of Y, Z and W, the first GPU that is fully free */
    c = decide(p, &v, &one);
    cr_assert(c.node >= 1);
    cr_assert_eq(c.gpus[0], 0);
    policy_close(p);
}

Test(pick, random_fit_is_uniform_over_the_nodes_that_fit)
{
    static const int32_t none[2] = { 0, 0 }, partial[4] = { 1000, 600, 900, 100 };
    struct place_node ns[4] = { node(8, all8, 64000), node(2, none, 64000),
                                node(4, partial, 64000), node(8, all8, 64000) };
    struct place_view v = { .nodes = ns, .nnodes = 4 };
    struct place_pod share = { .name = "s", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 500,
                               .tag = PLACE_TAG_SHARE };
    policy *p = open_policy("random", 9);
    int count[4] = { 0 }, gpu[4] = { 0 };
    for (int i = 0; i < 3000; i++) {
        struct place_choice c = decide(p, &v, &share);
        cr_assert(c.node >= 0 && c.node < 4);
        count[c.node]++;
        if (c.node == 2)
            gpu[c.gpus[0]]++;
    }
    policy_close(p);
    cr_assert_eq(count[1], 0, "node 1 has no room");
    for (int n = 0; n < 4; n += n == 0 ? 2 : 1)
        cr_assert(count[n] > 850 && count[n] < 1150, "node %d: %d of 3000", n, count[n]);
    /* on node 2, GPUs 0 (1000 free), 1 (600) and 2 (900) have room, 3 (100) does not */
    cr_assert_eq(gpu[3], 0);
    for (int g = 0; g < 3; g++)
        cr_assert(gpu[g] > count[2] / 3 - 120 && gpu[g] < count[2] / 3 + 120, "GPU %d: %d", g,
                  gpu[g]);
}

Test(pick, gpu_rules)
{
    /* best fit takes the fitting GPU with the least room, the first of equals; whole GPUs are
     * the first fully free ones */
    static const int32_t g[6] = { 700, 400, 1000, 400, 1000, 1000 };
    struct place_node ns[1] = { node(6, g, 64000) };
    struct place_view v = { .nodes = ns, .nnodes = 1 };
    struct place_pod share = { .name = "s", .cpu_milli = 1000, .num_gpu = 1, .gpu_milli = 300,
                               .tag = PLACE_TAG_SHARE };
    static const char *const best[] = { "bestfit", "dotprod", "clustering", "gpupacking" };
    for (int i = 0; i < 4; i++) {
        policy *p = open_policy(best[i], 1);
        struct place_choice c = decide(p, &v, &share);
        cr_assert_eq(c.gpus[0], 1, "%s", best[i]);
        struct place_pod two = { .name = "t", .cpu_milli = 1000, .num_gpu = 2,
                                 .gpu_milli = 1000, .tag = 2 };
        c = decide(p, &v, &two);
        cr_assert(c.ngpus == 2 && c.gpus[0] == 2 && c.gpus[1] == 4, "%s", best[i]);
        struct place_pod cpu = { .name = "c", .cpu_milli = 1000, .tag = -1 };
        c = decide(p, &v, &cpu);
        cr_assert_eq(c.ngpus, 0);
        policy_close(p);
    }
}

Test(pick, ties_go_to_the_seeds_first_node_for_every_policy)
{
    /* six identical idle nodes: every policy scores them alike */
    struct place_node ns[6];
    for (int i = 0; i < 6; i++)
        ns[i] = node(8, all8, 64000);
    struct place_view v = { .nodes = ns, .nnodes = 6 };
    static const char *const names[] = { "fgd", "bestfit", "dotprod", "clustering",
                                         "gpupacking" };
    struct frag_type t = { 1000, 1000, 1, 0, "", 1 };
    v.types = &t;
    v.ntypes = 1;
    int seen[6] = { 0 };
    for (uint64_t seed = 1; seed <= 12; seed++) {
        int rank[6];
        gsl_rng *r = rng_stream(seed, "place_nodes");
        for (int i = 0; i < 6; i++)
            rank[i] = i;
        gsl_ran_shuffle(r, rank, 6, sizeof *rank);
        gsl_rng_free(r);
        int want = 0;
        for (int i = 1; i < 6; i++)
            if (rank[i] < rank[want])
                want = i;
        seen[want] = 1;
        for (int k = 0; k < 5; k++) {
            policy *p = open_policy(names[k], seed);
            /* the same order on every call of a run */
            for (int i = 0; i < 3; i++)
                cr_assert_eq(decide(p, &v, &one).node, want, "%s seed %llu", names[k],
                             (unsigned long long)seed);
            policy_close(p);
        }
    }
    int distinct = 0;
    for (int i = 0; i < 6; i++)
        distinct += seen[i];
    cr_assert_geq(distinct, 3, "seeds order the nodes differently");
}

Test(pick, nothing_fits_nothing_placed)
{
    static const int32_t none[2] = { 300, 0 };
    struct place_node ns[2] = { node(2, none, 64000), node(8, all8, 500) };
    struct place_view v = { .nodes = ns, .nnodes = 2 };
    static const char *const names[] = { "fgd", "bestfit", "dotprod", "clustering",
                                         "gpupacking", "random" };
    struct frag_type t = { 1000, 1000, 1, 0, "", 1 };
    v.types = &t;
    v.ntypes = 1;
    for (int k = 0; k < 6; k++) {
        policy *p = open_policy(names[k], 1);
        struct place_choice c = decide(p, &v, &one);
        cr_assert_eq(c.node, -1, "%s", names[k]);
        cr_assert_eq(c.ngpus, 0, "%s", names[k]);
        policy_close(p);
    }
}

Test(pick, random_ties_draw_anew_for_each_pod)
{
    struct place_node ns[6];
    for (int i = 0; i < 6; i++)
        ns[i] = node(8, all8, 64000);
    struct frag_type t = { 1000, 1000, 1, 0, "", 1 };
    struct place_view v = { .nodes = ns, .nnodes = 6, .types = &t, .ntypes = 1 };
    jsonf *doc;
    struct errbuf err;
    err_clear(&err);
    const char *json = "{ \"name\": \"fgd\", \"ties\": \"random\" }";
    cr_assert_eq(jsonf_parse(&doc, "p.json", json, strlen(json), &err), 0);
    struct jobj params;
    cr_assert_eq(jobj_root(&params, doc, &err), 0);
    struct policy_env env = { .seed = 1 };
    static const char *const names[] = { "fgd", "bestfit", "gpupacking" };
    for (int k = 0; k < 3; k++) {
        policy *p;
        cr_assert_eq(policy_open(&p, names[k], &params, &env, &err), 0, "%s", err.msg);
        int seen[6] = { 0 }, distinct = 0;
        for (int i = 0; i < 60; i++)
            seen[decide(p, &v, &one).node] = 1;
        for (int i = 0; i < 6; i++)
            distinct += seen[i];
        cr_assert_geq(distinct, 4, "%s: %d nodes over 60 draws", names[k], distinct);
        policy_close(p);
    }
    jsonf_destroy(doc);
    json = "{ \"name\": \"fgd\", \"ties\": \"first\" }";
    cr_assert_eq(jsonf_parse(&doc, "p.json", json, strlen(json), &err), 0);
    cr_assert_eq(jobj_root(&params, doc, &err), 0);
    policy *p;
    cr_assert_eq(policy_open(&p, "fgd", &params, &env, &err), -1);
    cr_assert(strstr(err.msg, "p.json:1: ties: 'first' is not one of: order, random") != NULL,
              "%s", err.msg);
    jsonf_destroy(doc);
}
