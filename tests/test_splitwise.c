/*
 * test_splitwise: prefill on the high-end GPUs, decode on the others — roles by GPU type,
 * prompts routed to prefill instances, tokens decoded on the decode pool after the KV moved
 * (checked through the world: every request's KV crosses once), and a cluster of one type
 * refused.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

Test(splitwise, prefill_on_high_end_decode_on_the_rest)
{
    catalog *cat = th_catalog();
    llm_catalog *lc = th_llm(cat);
    cluster *cl = th_cluster(cat, "{ \"network\": \"ib-200g\", \"groups\": ["
                                  " { \"count\": 1, \"gpu\": \"H100\", \"gpus_per_node\": 8,"
                                  "   \"intra\": \"nvswitch4\" },"
                                  " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 8,"
                                  "   \"intra\": \"nvswitch\" } ] }");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_env_view v = { cl, lc, llm_find(lc, "llama-2-13b"), &cfg.set };
    struct errbuf err;
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "splitwise", NULL, &env, &err), 0, "%s", err.msg);
    const struct serve_decider *dec = policy_decider(p);
    struct serve_deployment *d = calloc(1, sizeof *d);
    cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), 0, "%s", err.msg);
    int h100 = catalog_gpu_find(cat, "H100"), np = 0, nd = 0;
    for (int i = 0; i < d->n; i++) {
        int type = cluster_gpu_type(cl, d->inst[i].stages[0].gpus[0]);
        cr_assert_eq(d->inst[i].role, type == h100 ? SERVE_PREFILL : SERVE_DECODE);
        np += d->inst[i].role == SERVE_PREFILL;
        nd += d->inst[i].role == SERVE_DECODE;
    }
    cr_assert(np > 0 && nd > 0);
    free(d);
    policy_close(p);
    /* through the world: every request's prompt KV moves once */
    struct request_spec q[20];
    double prompts = 0;
    for (int i = 0; i < 20; i++) {
        q[i] = (struct request_spec){ .id = i, .arrival = sim_from_sec(0.1 * i),
                                      .prompt = 200 + 50 * i, .output = 10 };
        prompts += q[i].prompt;
    }
    struct th_serve r = th_serve_run(cl, "llama-2-13b", q, 20, "splitwise", NULL, &cfg);
    cr_assert_eq(r.n, 20);
    const struct llm_arch *a = llm_find(lc, "llama-2-13b");
    cr_assert_float_eq(r.kv_moved_bytes, prompts * llm_kv_bytes(a, a->layers, 1), 1);
    th_serve_free(&r);
    cluster_destroy(cl);
    /* one GPU type: no pool to decode on */
    cl = th_cluster(cat, "{ \"network\": \"ib-200g\", \"groups\": ["
                         " { \"count\": 2, \"gpu\": \"H100\", \"gpus_per_node\": 8 } ] }");
    env.cl = cl;
    cr_assert_eq(policy_open(&p, "splitwise", NULL, &env, &err), 0, "%s", err.msg);
    dec = policy_decider(p);
    v.cl = cl;
    d = calloc(1, sizeof *d);
    err_clear(&err);
    cr_assert_eq(dec->deploy(dec->ctx, &v, d, &err), -1);
    cr_assert(strstr(err.msg, "one GPU type: no second pool") != NULL, "%s", err.msg);
    free(d);
    policy_close(p);
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}
