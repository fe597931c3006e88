/*
 * test_hexgen: asymmetric TP and PP — stages are TP groups of one node with their own
 * degrees, layers follow speed within what memory holds, and the search finds nothing worse
 * than the plain deployments it contains (one replica per node, one pipeline of whole
 * nodes): its objective (reference requests a second) is at least theirs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sched/route.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

static const char testbed[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"P100\", \"gpus_per_node\": 4, \"intra\": \"pcie3\" } ] }";

Test(hexgen, stages_of_one_node_layers_by_speed_never_worse_than_plain)
{
    catalog *cat = th_catalog();
    llm_catalog *lc = th_llm(cat);
    cluster *cl = th_cluster(cat, testbed);
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct errbuf err;
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "hexgen", NULL, &env, &err), 0, "%s", err.msg);
    const struct serve_decider *dec = policy_decider(p);
    struct serve_deployment *d = calloc(1, sizeof *d), *plain = calloc(1, sizeof *plain);
    struct route_ref ref = { 1024, 128 };
    const char *const models[] = { "llama-2-13b", "llama-2-70b", "opt-30b" };
    for (int m = 0; m < 3; m++) {
        struct serve_env_view v = { cl, lc, llm_find(lc, models[m]), &cfg.set };
        cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), 0, "%s", err.msg);
        char msg[512];
        cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), 0, "%s: %s", models[m],
                     msg);
        for (int i = 0; i < d->n; i++)
            for (int s = 0; s < d->inst[i].nstages; s++) {
                const struct serve_stage *st = &d->inst[i].stages[s];
                for (int k = 1; k < st->ngpu; k++)
                    cr_assert_eq(cluster_gpu_node(cl, st->gpus[k]),
                                 cluster_gpu_node(cl, st->gpus[0]), "a stage on one node");
            }
        double mine = route_total_rate(&v, d, &ref);
        cr_assert_gt(mine, 0);
        /* one pipeline of the three nodes (TP 4 each), layers by memory */
        unsigned char all[ROUTE_MAX_TYPES] = { 0 };
        const int *types;
        int nt = cluster_types(cl, &types);
        for (int t = 0; t < nt; t++)
            all[types[t]] = 1;
        plain->n = 0;
        if (route_replicas(&v, all, 4, &ref, plain, &err) == 0)
            cr_assert_geq(mine, route_total_rate(&v, plain, &ref) * (1 - 1e-9), "%s",
                          models[m]);
        /* a faster stage never holds fewer layers per GPU-speed than a slower one: in a
         * pipeline mixing A100 and P100 stages, the A100 stages hold more layers */
        for (int i = 0; i < d->n; i++) {
            int a100 = 0, p100 = 0, la = 0, lp = 0;
            for (int s = 0; s < d->inst[i].nstages; s++) {
                const struct serve_stage *st = &d->inst[i].stages[s];
                int type = cluster_gpu_type(cl, st->gpus[0]);
                if (type == catalog_gpu_find(cat, "A100-80GB") && st->ngpu == 4) {
                    a100++;
                    la += st->layers;
                } else if (type == catalog_gpu_find(cat, "P100") && st->ngpu == 4) {
                    p100++;
                    lp += st->layers;
                }
            }
            if (a100 && p100)
                cr_assert_gt(la * p100, lp * a100, "%s", models[m]);
        }
    }
    free(d);
    free(plain);
    policy_close(p);
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}
