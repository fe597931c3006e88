/*
 * test_uniform_pp: one pipeline over every GPU in cluster order, layers split evenly
 * whatever the GPU (the first stages taking the remainder); per node with "stages": "node".
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

Test(uniform_pp, every_gpu_a_stage_layers_even)
{
    catalog *cat = th_catalog();
    llm_catalog *lc = th_llm(cat);
    cluster *cl = th_cluster(cat, "{ \"network\": \"ethernet-100g\", \"groups\": ["
                                  " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4 },"
                                  " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 4 },"
                                  " { \"count\": 1, \"gpu\": \"P100\", \"gpus_per_node\": 4,"
                                  "   \"intra\": \"pcie3\" } ] }");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_env_view v = { cl, lc, llm_find(lc, "llama-2-70b"), &cfg.set };
    struct errbuf err;
    for (int by_node = 0; by_node < 2; by_node++) {
        jsonf *doc;
        struct jobj pj;
        const char *text = by_node ? "{\"stages\": \"node\"}" : "{}";
        cr_assert_eq(jsonf_parse(&doc, "p", text, strlen(text), &err), 0);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
        struct policy_env env = { 1, cl, NULL, NULL, 0 };
        policy *p;
        cr_assert_eq(policy_open(&p, "uniform_pp", &pj, &env, &err), 0, "%s", err.msg);
        const struct serve_decider *dec = policy_decider(p);
        struct serve_deployment *d = calloc(1, sizeof *d);
        cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), 0, "%s", err.msg);
        cr_assert_eq(d->n, 1);
        const struct serve_instance *in = &d->inst[0];
        int S = by_node ? 3 : 12, sum = 0;
        cr_assert_eq(in->nstages, S);
        for (int s = 0; s < S; s++) {
            /* 80 layers over 12: 7 for the first 8 stages, 6 after; over 3: 27, 27, 26 */
            int want = 80 / S + (s < 80 % S);
            cr_assert_eq(in->stages[s].layers, want, "stage %d", s);
            cr_assert_eq(in->stages[s].ngpu, by_node ? 4 : 1);
            cr_assert_eq(in->stages[s].gpus[0], by_node ? 4 * s : s, "cluster order");
            sum += in->stages[s].layers;
        }
        cr_assert_eq(sum, 80);
        char msg[512];
        cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), 0, "%s", msg);
        free(d);
        policy_close(p);
        jsonf_destroy(doc);
    }
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}
