/*
 * test_highend_only: the model on the high-end GPUs only — every instance on the fastest
 * type, TP inside a node, every such GPU used, the others idle; "tp" forces the degree.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

static const char mixed[] =
    "{ \"network\": \"ib-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"H100\", \"gpus_per_node\": 8, \"intra\": \"nvswitch4\" },"
    " { \"count\": 2, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 8, \"intra\": \"nvswitch\" } ] }";

static struct serve_deployment *deploy(cluster *cl, llm_catalog *lc, const char *model,
                                       const char *params, struct errbuf *err, int *rc)
{
    jsonf *doc = NULL;
    struct jobj pj = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "p", params, strlen(params), err), 0);
        cr_assert_eq(jobj_root(&pj, doc, err), 0);
    }
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "highend_only", params ? &pj : NULL, &env, err), 0);
    static struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_env_view v = { cl, lc, llm_find(lc, model), &cfg.set };
    const struct serve_decider *dec = policy_decider(p);
    struct serve_deployment *d = calloc(1, sizeof *d);
    *rc = dec->deploy(dec->ctx, &v, d, err);
    char msg[512];
    if (*rc == 0)
        cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), 0, "%s", msg);
    policy_close(p);
    jsonf_destroy(doc);
    return d;
}

Test(highend_only, only_the_fastest_type_every_gpu_of_it)
{
    catalog *cat = th_catalog();
    llm_catalog *lc = th_llm(cat);
    cluster *cl = th_cluster(cat, mixed);
    struct errbuf err;
    err_clear(&err);
    int rc, h100 = catalog_gpu_find(cat, "H100");
    for (int m = 0; m < 2; m++) {
        struct serve_deployment *d = deploy(cl, lc, m ? "llama-2-70b" : "llama-2-13b", NULL,
                                            &err, &rc);
        cr_assert_eq(rc, 0, "%s", err.msg);
        int used = 0;
        for (int i = 0; i < d->n; i++) {
            const struct serve_stage *s = &d->inst[i].stages[0];
            cr_assert(d->inst[i].nstages == 1 && d->inst[i].role == SERVE_UNIFIED &&
                      d->inst[i].nattn == 0);
            for (int k = 0; k < s->ngpu; k++)
                cr_assert_eq(cluster_gpu_type(cl, s->gpus[k]), h100);
            used += s->ngpu;
        }
        cr_assert_eq(used, 8, "every H100, and only them");
        free(d);
    }
    struct serve_deployment *d = deploy(cl, lc, "llama-2-13b", "{\"tp\": 2}", &err, &rc);
    cr_assert(rc == 0 && d->n == 4 && d->inst[0].stages[0].ngpu == 2);
    free(d);
    d = deploy(cl, lc, "llama-2-70b", "{\"tp\": 1}", &err, &rc);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(err.msg, "fits no TP group of the asked size on the H100") != NULL, "%s",
              err.msg);
    free(d);
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}
