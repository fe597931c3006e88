/*
 * test_route: what the serving policies share (sched/route.c) — round-robin and
 * least-outstanding-work routing by role, the high-end type, and the replica search that
 * picks the TP degree serving the most reference requests, or pipelines of whole nodes when
 * no node holds the model.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/route.h"
#include "../sim/serve/serve.h"
#include "helpers.h"

static catalog *cat;
static llm_catalog *lc;

static void setup(void)
{
    cat = th_catalog();
    lc = th_llm(cat);
}

static void teardown(void)
{
    llm_destroy(lc);
    catalog_destroy(cat);
}

TestSuite(route, .init = setup, .fini = teardown);

Test(route, round_robin_and_least_work_by_role)
{
    struct serve_inst_load load[4] = {
        { .role = SERVE_PREFILL, .pending_prefill = 5000, .speed = 1000, .up = 1 },
        { .role = SERVE_DECODE, .running = 10, .speed = 100, .up = 1 },
        { .role = SERVE_PREFILL, .pending_prefill = 2000, .running = 4, .speed = 1000, .up = 1 },
        { .role = SERVE_DECODE, .running = 3, .speed = 100, .up = 1 },
    };
    struct serve_view v = { .n = 4, .load = load, .mean_output = 500 };
    struct route r = { ROUTE_ROUND_ROBIN, { 0, 0 } };
    struct serve_req_view p = { 1, 100, SERVE_PREFILL, -1 }, d = { 1, 100, SERVE_DECODE, 0 };
    int32_t got[3];
    struct errbuf err;
    err_clear(&err);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(route_pick(&r, &v, &p, &got[k], &err), 0);
    cr_assert(got[0] == 0 && got[1] == 2 && got[2] == 0, "%d %d %d", got[0], got[1], got[2]);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(route_pick(&r, &v, &d, &got[k], &err), 0);
    cr_assert(got[0] == 1 && got[1] == 3 && got[2] == 1);
    /* least work: (5000 + 0) / 1000 = 5 against (2000 + 4 x 500) / 1000 = 4 */
    r.mode = ROUTE_LEAST_WORK;
    cr_assert_eq(route_pick(&r, &v, &p, &got[0], &err), 0);
    cr_assert_eq(got[0], 2);
    /* 10 x 500 / 100 against 3 x 500 / 100 */
    cr_assert_eq(route_pick(&r, &v, &d, &got[0], &err), 0);
    cr_assert_eq(got[0], 3);
    /* before any request finished only prompts count */
    v.mean_output = 0;
    load[0].pending_prefill = 1000;
    cr_assert_eq(route_pick(&r, &v, &p, &got[0], &err), 0);
    cr_assert_eq(got[0], 0);
    /* an instance whose GPUs a broker took is skipped, however idle, in both modes */
    load[0].up = 0;
    cr_assert_eq(route_pick(&r, &v, &p, &got[0], &err), 0);
    cr_assert_eq(got[0], 2);
    r.mode = ROUTE_ROUND_ROBIN;
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(route_pick(&r, &v, &p, &got[k], &err), 0);
        cr_assert_eq(got[k], 2);
    }
    r.mode = ROUTE_LEAST_WORK;
    load[0].up = 1;
    load[1].role = load[3].role = SERVE_PREFILL;
    cr_assert_eq(route_pick(&r, &v, &d, &got[0], &err), -1);
    cr_assert(strstr(err.msg, "no instance serves decoding") != NULL, "%s", err.msg);
}

Test(route, replicas_pick_the_degree_and_fall_back_to_pipelines)
{
    cluster *cl = th_cluster(cat, "{ \"network\": \"ib-100g\", \"groups\": ["
                                  " { \"count\": 2, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4,"
                                  "   \"intra\": \"nvswitch\" },"
                                  " { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 4 } ] }");
    cr_assert_eq(route_high_type(cl), catalog_gpu_find(cat, "A100-80GB"));
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_deployment *d = calloc(1, sizeof *d), *e = calloc(1, sizeof *e);
    struct route_ref ref = { 1024, 128 };
    unsigned char mask[ROUTE_MAX_TYPES] = { 0 };
    mask[catalog_gpu_find(cat, "A100-80GB")] = 1;
    struct errbuf err;
    err_clear(&err);
    /* Llama-2-7B: the chosen degree serves at least as many requests as every other */
    struct serve_env_view v = { cl, lc, llm_find(lc, "llama-2-7b"), &cfg.set };
    cr_assert_eq(route_replicas(&v, mask, 0, &ref, d, &err), 0, "%s", err.msg);
    double best = route_total_rate(&v, d, &ref);
    for (int t = 1; t <= 4; t *= 2) {
        e->n = 0;
        cr_assert_eq(route_replicas(&v, mask, t, &ref, e, &err), 0, "%s", err.msg);
        cr_assert_eq(e->n, 8 / t);
        cr_assert_geq(best, route_total_rate(&v, e, &ref) * (1 - 1e-9), "tp %d", t);
    }
    /* Llama-2-70B on the T4s alone (64 GB): no TP group holds it, nor the node */
    unsigned char t4[ROUTE_MAX_TYPES] = { 0 };
    t4[catalog_gpu_find(cat, "T4")] = 1;
    v.arch = llm_find(lc, "llama-2-70b");
    d->n = 0;
    cr_assert_eq(route_replicas(&v, t4, 0, &ref, d, &err), -1);
    cr_assert(strstr(err.msg, "llama-2-70b (138 GB of fp16 weights) fits no group or pipeline "
                              "of the T4 GPUs") != NULL, "%s", err.msg);
    /* 8 A100-80GB: two TP-4 replicas; at 32 GB a GPU, one pipeline of both nodes */
    d->n = 0;
    cr_assert_eq(route_replicas(&v, mask, 0, &ref, d, &err), 0, "%s", err.msg);
    cr_assert(d->n == 2 && d->inst[0].nstages == 1 && d->inst[0].stages[0].ngpu == 4);
    cfg.set.mem_util = 0.4;
    d->n = 0;
    cr_assert_eq(route_replicas(&v, mask, 0, &ref, d, &err), 0, "%s", err.msg);
    cr_assert(d->n == 1 && d->inst[0].nstages == 2 && d->inst[0].stages[0].layers == 40,
              "%d instances, %d stages", d->n, d->inst[0].nstages);
    free(d);
    free(e);
    cluster_destroy(cl);
}
