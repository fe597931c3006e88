/*
 * test_serve: the serving world (sim/serve) — one request's timeline against the latency
 * model step by step (admission delay, iteration overhead, prefill, each decode step at its
 * context), requests batched together, chunked and whole prompts, pipelines keeping one
 * batch per stage in flight, the KV transfer of a disaggregated deployment and two of them
 * sharing the network (one after the other, never both at its full rate), preemption by
 * recompute and drops when the KV cache is small (never above its room: the world asserts
 * it, the samples show it), every request finishing or counted as dropped or unfinished for
 * every serving policy, the deployment checks, and the same rows from the same run.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../models/llm_fit.h"
#include "../sched/policy.h"
#include "../sim/base/rng.h"
#include "../sim/core/engine.h"
#include "../sim/serve/serve.h"
#include "../sim/serve/xfer.h"
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

TestSuite(serve, .init = setup, .fini = teardown, .timeout = 60);

static const char one_a100[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1, \"intra\": \"pcie4\" } ] }";
static const char two_a100[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 2, \"intra\": \"pcie4\" } ] }";
static const char a100_and_3090[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 1, \"intra\": \"pcie4\" } ] }";
static const char testbed[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"P100\", \"gpus_per_node\": 4, \"intra\": \"pcie3\" } ] }";

static struct request_spec req(int64_t id, double t, int prompt, int output)
{
    return (struct request_spec){ .id = id, .arrival = sim_from_sec(t), .prompt = prompt,
                                  .output = output };
}

/* What the world charges for an iteration of b on one stage: overhead, then the stage. */
static simtime iteration(const struct llm_arch *a, const struct llm_stage *st,
                         const struct llm_batch *b)
{
    return sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3) +
           sim_from_sec_ceil(llm_stage_s(lc, a, st, b));
}

static simtime admit_delay(void)
{
    return sim_from_sec(llm_fit_of(lc)->first_ms * 1e-3);
}

Test(serve, one_request_by_hand)
{
    cluster *cl = th_cluster(cat, one_a100);
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q = req(7, 0, 100, 3);
    struct th_serve r = th_serve_run(cl, "llama-2-7b", &q, 1, "highend_only", NULL, &cfg);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    int gpu = catalog_gpu_find(cat, "A100-80GB");
    struct llm_stage st = { gpu, 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 }, d1 = { 0 }, d2 = { 0 };
    llm_batch_prefill(&pre, 100, 0, 1);
    llm_batch_decode(&d1, 101);     /* the first output token's KV goes in */
    llm_batch_decode(&d2, 102);
    simtime t0 = admit_delay(), t1 = t0 + iteration(a, &st, &pre);
    simtime t2 = t1 + iteration(a, &st, &d1), t3 = t2 + iteration(a, &st, &d2);
    cr_assert_eq(r.n, 1);
    const struct serve_record *x = th_serve_find(&r, 7);
    cr_assert_eq(sim_from_sec(x->start), t0);
    cr_assert_eq(sim_from_sec(x->first), t1, "first %f, want %f", x->first, sim_to_sec(t1));
    cr_assert_eq(sim_from_sec(x->finish), t3, "finish %f, want %f", x->finish, sim_to_sec(t3));
    cr_assert_eq(x->generated, 3);
    cr_assert_eq(x->dropped, 0);
    cr_assert_eq(r.iterations, 3);
    cr_assert_eq(r.tokens_out, 3);
    th_serve_free(&r);
    cluster_destroy(cl);
}

/* The default measurement window ends at the last arrival: the tokens of the steps that end
 * after it, before its event (admit_delay later) tells the world the source is empty, are
 * not in it.  A alone from 0, B (the last) at 1 s: A's tokens by 1 s are the window's. */
Test(serve, the_default_window_ends_at_the_last_arrival)
{
    cluster *cl = th_cluster(cat, one_a100);
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[2] = { req(0, 0, 100, 400), req(1, 1, 10, 1) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "highend_only", NULL, &cfg);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct llm_stage st = { catalog_gpu_find(cat, "A100-80GB"), 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 };
    llm_batch_prefill(&pre, 100, 0, 1);
    simtime t = admit_delay() + iteration(a, &st, &pre), last = sim_from_sec(1);
    int in_window = 0, after = 0;
    for (int k = 1; t <= last + admit_delay(); k++) {  /* A alone until B is routed */
        in_window += t <= last;
        after += t > last;
        struct llm_batch d = { 0 };
        llm_batch_decode(&d, 100 + k);
        t += iteration(a, &st, &d);
    }
    cr_assert_gt(after, 0, "the case: A has steps between B's arrival and its event");
    cr_assert_eq(r.window_tokens, in_window, "%g tokens in the window, by hand %d",
                 r.window_tokens, in_window);
    th_serve_free(&r);
    cluster_destroy(cl);
}

Test(serve, requests_arriving_together_share_iterations)
{
    cluster *cl = th_cluster(cat, one_a100);
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[2] = { req(0, 1, 300, 2), req(1, 1, 500, 2) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "highend_only", NULL, &cfg);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct llm_stage st = { catalog_gpu_find(cat, "A100-80GB"), 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 }, dec = { 0 };
    llm_batch_prefill(&pre, 300, 0, 1);
    llm_batch_prefill(&pre, 500, 0, 1);
    llm_batch_decode(&dec, 301);
    llm_batch_decode(&dec, 501);
    simtime t1 = sim_from_sec(1) + admit_delay() + iteration(a, &st, &pre);
    simtime t2 = t1 + iteration(a, &st, &dec);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sim_from_sec(th_serve_find(&r, i)->first), t1);
        cr_assert_eq(sim_from_sec(th_serve_find(&r, i)->finish), t2);
    }
    cr_assert_eq(r.iterations, 2);
    th_serve_free(&r);
    cluster_destroy(cl);
}

Test(serve, chunked_and_whole_prompts)
{
    cluster *cl = th_cluster(cat, one_a100);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct llm_stage st = { catalog_gpu_find(cat, "A100-80GB"), 1, -1, 32, 1, 1 };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.set.max_batch_tokens = 1024;
    struct request_spec q = req(0, 0, 3000, 1);
    struct th_serve r = th_serve_run(cl, "llama-2-7b", &q, 1, "highend_only", NULL, &cfg);
    /* chunks of 1024, 1024, 952 tokens, each after the ones before */
    struct llm_batch c1 = { 0 }, c2 = { 0 }, c3 = { 0 };
    llm_batch_prefill(&c1, 1024, 0, 0);
    llm_batch_prefill(&c2, 1024, 1024, 0);
    llm_batch_prefill(&c3, 952, 2048, 1);
    simtime want = admit_delay() + iteration(a, &st, &c1) + iteration(a, &st, &c2) +
                   iteration(a, &st, &c3);
    cr_assert_eq(r.iterations, 3);
    cr_assert_eq(sim_from_sec(r.r[0].first), want);
    cr_assert_eq(sim_from_sec(r.r[0].finish), want, "a one-token output ends with its prompt");
    th_serve_free(&r);
    /* without chunking the prompt goes in whole, in one iteration of a large budget */
    cfg.set.chunked_prefill = 0;
    cfg.set.max_batch_tokens = 4096;
    r = th_serve_run(cl, "llama-2-7b", &q, 1, "highend_only", NULL, &cfg);
    struct llm_batch w = { 0 };
    llm_batch_prefill(&w, 3000, 0, 1);
    cr_assert_eq(r.iterations, 1);
    cr_assert_eq(sim_from_sec(r.r[0].first), admit_delay() + iteration(a, &st, &w));
    th_serve_free(&r);
    cluster_destroy(cl);
}

Test(serve, a_pipeline_keeps_one_batch_per_stage_in_flight)
{
    cluster *cl = th_cluster(cat, two_a100);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    int gpu = catalog_gpu_find(cat, "A100-80GB"), pcie4 = catalog_link_find(cat, "pcie4");
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.set.max_seqs = 1;       /* one request a batch: the second waits for stage 0 */
    struct request_spec q[2] = { req(0, 0, 200, 1), req(1, 0, 200, 1) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "uniform_pp", NULL, &cfg);
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 200, 0, 1);
    struct llm_stage s0 = { gpu, 1, -1, 16, 1, 0 }, s1 = { gpu, 1, -1, 16, 0, 1 };
    simtime iter = sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3);
    /* stage 0 computes, then its activations hold its GPU's link out and the next's in */
    simtime x0 = sim_from_sec_ceil(llm_stage_s(lc, a, &s0, &b)) +
                 sim_from_sec_ceil(llm_send_s(lc, pcie4, 2 * 200.0 * 4096));
    simtime x1 = sim_from_sec_ceil(llm_stage_s(lc, a, &s1, &b));
    simtime t0 = admit_delay();
    simtime first_a = t0 + iter + x0 + x1;
    /* the second batch starts once stage 0 is free, and its stage 1 once the first left */
    simtime b0 = t0 + iter + x0 + iter + x0;
    simtime first_b = (b0 > first_a ? b0 : first_a) + x1;
    cr_assert_eq(sim_from_sec(th_serve_find(&r, 0)->first), first_a);
    cr_assert_eq(sim_from_sec(th_serve_find(&r, 1)->first), first_b, "%f vs %f",
                 th_serve_find(&r, 1)->first, sim_to_sec(first_b));
    /* one after the other would have taken a whole iteration more */
    cr_assert_lt(first_b, first_a + iter + x0 + x1);
    th_serve_free(&r);
    cluster_destroy(cl);
}

/* Both stages busy (R0's decode batch in stage 1, R1's long prompt in stage 0): R0's batch
 * ends before stage 0 is free, and R0's next batch starts when it is, not when the prompt's
 * batch ends.  It then waits for stage 1 behind the prompt, and finishes one stage-1 time
 * after the prompt's first token (a start at that first token would take a whole iteration). */
Test(serve, a_pipeline_relaunches_when_its_first_stage_frees)
{
    cluster *cl = th_cluster(cat, two_a100);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    int gpu = catalog_gpu_find(cat, "A100-80GB"), pcie4 = catalog_link_find(cat, "pcie4");
    struct llm_stage s0 = { gpu, 1, -1, 16, 1, 0 }, s1 = { gpu, 1, -1, 16, 0, 1 };
    simtime iter = sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3);
    struct llm_batch pre = { 0 }, d17 = { 0 }, d18 = { 0 };
    llm_batch_prefill(&pre, 16, 0, 1);
    llm_batch_decode(&d17, 17);
    llm_batch_decode(&d18, 18);
    /* R0's prompt batch, then its first decode batch: when it leaves stage 0, and its end */
    simtime e1 = admit_delay() + iter + sim_from_sec_ceil(llm_stage_s(lc, a, &s0, &pre)) +
                 sim_from_sec_ceil(llm_send_s(lc, pcie4, 2 * 16.0 * 4096)) +
                 sim_from_sec_ceil(llm_stage_s(lc, a, &s1, &pre));
    simtime left0 = e1 + iter + sim_from_sec_ceil(llm_stage_s(lc, a, &s0, &d17)) +
                    sim_from_sec_ceil(llm_send_s(lc, pcie4, 2 * 4096.0));
    simtime e2 = left0 + sim_from_sec_ceil(llm_stage_s(lc, a, &s1, &d17));
    cr_assert_gt(e2 - left0, 2);
    /* R1 reaches the router while R0's decode batch is in stage 1 */
    struct request_spec q[2] = { req(0, 0, 16, 3), req(1, 0, 2000, 1) };
    q[1].arrival = left0 + (e2 - left0) / 2 - admit_delay();
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "uniform_pp", NULL, &cfg);
    const struct serve_record *r0 = th_serve_find(&r, 0), *r1 = th_serve_find(&r, 1);
    cr_assert_eq(sim_from_sec(r0->first), e1);
    simtime stage1 = sim_from_sec_ceil(llm_stage_s(lc, a, &s1, &d18));
    cr_assert_eq(sim_from_sec(r0->finish), sim_from_sec(r1->first) + stage1,
                 "R0 finished %.6f s after R1's first token; stage 1 takes %.6f s",
                 r0->finish - r1->first, sim_to_sec(stage1));
    th_serve_free(&r);
    cluster_destroy(cl);
}

/* A pipeline of two shapes (an A100 stage, then an RTX 3090 stage on another node): each
 * stage is timed as its own GPU's, and the activations cross the network. */
Test(serve, a_pipeline_of_two_gpu_types_times_each_stage_as_its_own)
{
    cluster *cl = th_cluster(cat, a100_and_3090);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    int a100 = catalog_gpu_find(cat, "A100-80GB"), rtx = catalog_gpu_find(cat, "RTX3090");
    int pcie4 = catalog_link_find(cat, "pcie4"), net = catalog_link_find(cat, "ethernet-100g");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[1] = { req(0, 0, 200, 1) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 1, "uniform_pp", NULL, &cfg);
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 200, 0, 1);
    struct llm_stage s0 = { a100, 1, -1, 16, 1, 0 }, s1 = { rtx, 1, -1, 16, 0, 1 };
    double bytes = 2 * 200.0 * 4096;
    simtime gpu_link = sim_from_sec_ceil(llm_send_s(lc, pcie4, bytes)),
            node_link = sim_from_sec_ceil(llm_send_s(lc, net, bytes));
    simtime first = admit_delay() + sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3) +
                    sim_from_sec_ceil(llm_stage_s(lc, a, &s0, &b)) +
                    (gpu_link > node_link ? gpu_link : node_link) +
                    sim_from_sec_ceil(llm_stage_s(lc, a, &s1, &b));
    cr_assert_neq(llm_stage_s(lc, a, &s0, &b), llm_stage_s(lc, a, &s1, &b));
    cr_assert_eq(sim_from_sec(th_serve_find(&r, 0)->first), first, "%f vs %f",
                 th_serve_find(&r, 0)->first, sim_to_sec(first));
    th_serve_free(&r);
    cluster_destroy(cl);
}

Test(serve, disaggregated_kv_moves_by_hand)
{
    cluster *cl = th_cluster(cat, a100_and_3090);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q = req(0, 0, 1000, 2);
    struct th_serve r = th_serve_run(cl, "llama-2-7b", &q, 1, "splitwise", NULL, &cfg);
    int a100 = catalog_gpu_find(cat, "A100-80GB"), g3090 = catalog_gpu_find(cat, "RTX3090");
    int net = catalog_link_find(cat, "ethernet-100g");
    struct llm_stage sp = { a100, 1, -1, 32, 1, 1 }, sd = { g3090, 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 }, dec = { 0 };
    llm_batch_prefill(&pre, 1000, 0, 1);
    llm_batch_decode(&dec, 1001);
    simtime first = admit_delay() + iteration(a, &sp, &pre);
    /* the KV of 1,000 tokens over the network, streamed under the prefill: what remains is
     * the larger of one layer's share and what the prefill did not cover */
    double xfer = llm_send_s(lc, net, 1000 * llm_kv_bytes(a, 32, 1));
    double left = xfer - llm_stage_s(lc, a, &sp, &pre) * 31 / 32;
    if (left < xfer / 32)
        left = xfer / 32;
    simtime finish = first + sim_from_sec_ceil(left) + iteration(a, &sd, &dec);
    const struct serve_record *x = th_serve_find(&r, 0);
    cr_assert_eq(sim_from_sec(x->first), first);
    cr_assert_eq(sim_from_sec(x->finish), finish, "%f vs %f", x->finish, sim_to_sec(finish));
    cr_assert_float_eq(r.kv_moved_bytes, 1000 * llm_kv_bytes(a, 32, 1), 1);
    th_serve_free(&r);
    cluster_destroy(cl);
}

Test(serve, concurrent_kv_moves_share_the_network)
{
    /* two prompts prefilled in one batch on the A100: their KV leaves for the 3090 over
     * one 100 GbE link, so the second's arrives one transfer after the first's (at full
     * rate each, both would arrive as if alone) */
    cluster *cl = th_cluster(cat, a100_and_3090);
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[2] = { req(0, 0, 1000, 2), req(1, 0, 600, 2) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "splitwise", NULL, &cfg);
    int a100 = catalog_gpu_find(cat, "A100-80GB"), g3090 = catalog_gpu_find(cat, "RTX3090");
    int net = catalog_link_find(cat, "ethernet-100g");
    struct llm_stage sp = { a100, 1, -1, 32, 1, 1 }, sd = { g3090, 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 }, da = { 0 }, db = { 0 };
    llm_batch_prefill(&pre, 1000, 0, 1);
    llm_batch_prefill(&pre, 600, 0, 1);
    llm_batch_decode(&da, 1001);
    llm_batch_decode(&db, 601);
    const struct serve_record *x = th_serve_find(&r, 0), *y = th_serve_find(&r, 1);
    simtime now = sim_from_sec(x->first);
    cr_assert_eq(sim_from_sec(y->first), now, "prefilled together");
    double c = llm_stage_s(lc, a, &sp, &pre);
    simtime xa = sim_from_sec_ceil(llm_send_s(lc, net, 1000 * llm_kv_bytes(a, 32, 1)));
    simtime xb = sim_from_sec_ceil(llm_send_s(lc, net, 600 * llm_kv_bytes(a, 32, 1)));
    double lead = c < sim_to_sec(xa) ? c : sim_to_sec(xa);
    simtime end_a = now - (simtime)floor(lead * 31 / 32 * 1e6) + xa;
    simtime end_b = end_a + xb;     /* the link is the first's until then */
    simtime it_a = sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3) +
                   sim_from_sec_ceil(llm_stage_s(lc, a, &sd, &da));
    simtime it_b = sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3) +
                   sim_from_sec_ceil(llm_stage_s(lc, a, &sd, &db));
    cr_assert_eq(sim_from_sec(x->finish), end_a + it_a, "%f vs %f", x->finish,
                 sim_to_sec(end_a + it_a));
    /* the second decodes when its KV is in and the first's step is done */
    simtime from_b = end_b > end_a + it_a ? end_b : end_a + it_a;
    cr_assert_eq(sim_from_sec(y->finish), from_b + it_b, "%f vs %f (its KV in at %f)",
                 y->finish, sim_to_sec(from_b + it_b), sim_to_sec(end_b));
    cr_assert_gt(end_b, end_a + it_a, "the case meant: its KV arrives after the first's step");
    th_serve_free(&r);
    cluster_destroy(cl);
}

/* mem_util that leaves exactly `blocks` KV blocks (and a half) on one A100 for Llama-2-7B */
static double util_for_blocks(double blocks)
{
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    double w = llm_weight_bytes(a, 32, 1, 1, 1), act = llm_activation_bytes(a, 1, 2048, 256);
    return (w + act + (blocks + 0.5) * 16 * llm_kv_bytes(a, 32, 1)) / 80e9;
}

Test(serve, small_kv_preempts_and_drops_but_never_overflows)
{
    cluster *cl = th_cluster(cat, one_a100);
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.set.mem_util = util_for_blocks(40);     /* 640 tokens of KV */
    cfg.sample_period = sim_from_sec(0.05);
    struct request_spec q[6] = { req(0, 0, 100, 200), req(1, 0, 100, 200), req(2, 0, 100, 200),
                                 req(3, 0, 100, 200), req(4, 0.5, 700, 5),
                                 req(5, 0.6, 500, 300) };
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 6, "highend_only",
                                     "{\"prompt\": 100, \"output\": 100}", &cfg);
    cr_assert_eq(r.n, 6);
    cr_assert_gt(r.preemptions, 0, "4 x 300 tokens in 640: someone gives way");
    for (int i = 0; i < 4; i++) {
        const struct serve_record *x = th_serve_find(&r, i);
        cr_assert(x->finish >= 0 && x->generated == 200 && !x->dropped, "request %d", i);
    }
    /* a prompt larger than the whole cache never starts */
    const struct serve_record *big = th_serve_find(&r, 4);
    cr_assert(big->dropped && big->start < 0 && big->generated == 0);
    /* one that outgrows the cache alone is dropped on the way */
    const struct serve_record *grow = th_serve_find(&r, 5);
    cr_assert(grow->dropped && grow->first >= 0 && grow->generated > 0 &&
              grow->generated < 300, "generated %d", grow->generated);
    cr_assert_gt(r.nsamples, 10);
    cr_assert_leq(r.samples_kv_max, 1.0);
    cr_assert_gt(r.samples_kv_max, 0.9, "the cache was full at times: %f", r.samples_kv_max);
    th_serve_free(&r);
    cluster_destroy(cl);
}

static struct request_spec *random_requests(int n, unsigned long seed, double rate,
                                            int max_prompt)
{
    gsl_rng *g = rng_stream(seed, "test-requests");
    struct request_spec *q = calloc((size_t)n, sizeof *q);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(g, 1 / rate);
        int p = 1 + (int)(gsl_rng_uniform(g) * max_prompt);
        int o = 1 + (int)gsl_ran_exponential(g, 150);
        if (o > 900)
            o = 900;
        q[i] = req(i, t, p, o);
    }
    gsl_rng_free(g);
    return q;
}

/* Every serving policy: every request finishes or is dropped, the KV never overflows (the
 * world asserts it after every allocation), and decode tokens add up. */
Test(serve, every_policy_finishes_or_drops_every_request, .timeout = 120)
{
    cluster *cl = th_cluster(cat, testbed);
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.sample_period = sim_from_sec(1);
    enum { N = 400 };
    struct request_spec *q = random_requests(N, 3, 20, 3000);
    for (int i = 0; policy_registry[i] != NULL; i++) {
        const struct policy_ops *ops = policy_registry[i];
        if (strcmp(ops->domain, "serving") != 0)
            continue;
        struct th_serve r = th_serve_run(cl, "llama-2-13b", q, N, ops->name, NULL, &cfg);
        cr_assert_eq(r.n, N, "%s: %d of %d left", ops->name, r.n, N);
        double tokens = 0;
        for (int k = 0; k < r.n; k++) {
            const struct serve_record *x = &r.r[k];
            cr_assert(x->dropped || (x->finish >= x->first && x->first >= x->start &&
                                     x->start >= x->arrival && x->generated == x->output),
                      "%s: request %lld", ops->name, (long long)x->id);
            tokens += x->generated;
        }
        /* a preempted request recomputes, it does not produce its tokens twice */
        cr_assert_eq(tokens, r.tokens_out, "%s", ops->name);
        cr_assert_leq(r.samples_kv_max, 1.0, "%s", ops->name);
        th_serve_free(&r);
    }
    free(q);
    cluster_destroy(cl);
}

/* An overload of long prompts on a cache that holds few of them: chunked prompts half done
 * must make room too (a Hetis run of OPT-30B once stalled with every request admitted and
 * none able to grow), and every request still leaves. */
Test(serve, an_overload_of_long_prompts_never_stalls, .timeout = 120)
{
    cluster *cl = th_cluster(cat, testbed);
    struct serve_config cfg;
    th_serve_config(&cfg);
    enum { N = 300 };
    struct request_spec *q = random_requests(N, 11, 200, 2000);
    for (int i = 0; i < N; i++)
        if (q[i].prompt + q[i].output > 2048)
            q[i].output = 2048 - q[i].prompt;
    static const char *const pols[] = { "hetis", "highend_only", "hexgen", "splitwise" };
    for (int k = 0; k < 4; k++) {
        struct th_serve r = th_serve_run(cl, "opt-30b", q, N, pols[k], NULL, &cfg);
        cr_assert_eq(r.n, N, "%s", pols[k]);
        th_serve_free(&r);
    }
    free(q);
    cluster_destroy(cl);
}

Test(serve, a_time_limit_leaves_requests_unfinished)
{
    cluster *cl = th_cluster(cat, one_a100);
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.until = sim_from_sec(5);
    struct request_spec *q = random_requests(200, 5, 40, 2000);
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 200, "highend_only", NULL, &cfg);
    int done = 0, unfinished = 0, arrived = 0;
    for (int k = 0; k < r.n; k++) {
        done += r.r[k].finish >= 0;
        unfinished += r.r[k].finish < 0 && !r.r[k].dropped;
    }
    for (int k = 0; k < 200; k++)
        arrived += q[k].arrival + admit_delay() <= cfg.until;
    cr_assert_eq(r.n, arrived, "every request that arrived leaves a record");
    cr_assert_gt(done, 0);
    cr_assert_gt(unfinished, 0);
    free(q);
    th_serve_free(&r);
    cluster_destroy(cl);
}

/* What a policy believes an iteration of a pipeline costs (serve_view_iter_s): the overhead,
 * then every stage and the activations' send to the next, summed in stage order; stages of
 * one GPU type but other TP degrees or links are timed each as their own (one layer's time
 * is shared by stages of one shape alone).  By hand over the testbed: A100 TP 2, A100 TP 1,
 * A100 TP 1 (the same shape as the one before), RTX 3090 TP 2 on another node. */
Test(serve, a_pipeline_s_iteration_is_its_stages_summed_by_hand)
{
    cluster *cl = th_cluster(cat, testbed);
    const struct llm_arch *a = llm_find(lc, "llama-2-13b");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    struct serve_instance in = { .role = SERVE_UNIFIED, .nstages = 4 };
    in.stages[0] = (struct serve_stage){ 2, { 0, 1 }, 10 };
    in.stages[1] = (struct serve_stage){ 1, { 2 }, 10 };
    in.stages[2] = (struct serve_stage){ 1, { 3 }, 10 };
    in.stages[3] = (struct serve_stage){ 2, { 4, 5 }, 10 };
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 300, 0, 1);
    llm_batch_decode(&b, 700);
    double want = llm_iter_s(lc, &b);
    for (int s = 0; s < 4; s++) {
        const struct serve_stage *st = &in.stages[s];
        struct llm_stage ls = { cluster_gpu_type(cl, st->gpus[0]), st->ngpu,
                                serve_view_group_link(cl, st->gpus, st->ngpu), st->layers,
                                s == 0, s == 3 };
        want += llm_stage_s(lc, a, &ls, &b);
        if (s < 3)
            want += llm_send_s(lc, serve_view_pair_link(cl, st->gpus[0], in.stages[s + 1].gpus[0]),
                               2 * b.tokens * a->hidden);
    }
    double got = serve_view_iter_s(&v, &in, &b);
    cr_assert(fabs(got - want) <= 1e-12 * want, "%.15g s, by hand %.15g s", got, want);
    cluster_destroy(cl);
}

/* The checks of a deployment: each broken rule named. */
Test(serve, deployment_checks)
{
    cluster *cl = th_cluster(cat, testbed);
    const struct llm_arch *a = llm_find(lc, "llama-2-13b");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    struct serve_deployment *d = calloc(1, sizeof *d);
    char msg[512];
    d->n = 1;
    d->inst[0] = (struct serve_instance){ .role = SERVE_UNIFIED, .nstages = 1 };
    d->inst[0].stages[0] = (struct serve_stage){ .ngpu = 1, .gpus = { 0 }, .layers = 40 };
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), 0, "%s", msg);
    d->inst[0].stages[0].layers = 39;
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "puts 39 layers in its stages; llama-2-13b has 40") != NULL, "%s", msg);
    d->inst[0].stages[0] = (struct serve_stage){ .ngpu = 2, .gpus = { 3, 4 }, .layers = 40 };
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "mixes GPU types (A100-80GB and RTX3090)") != NULL, "%s", msg);
    /* 26 GB of weights do not fit one P100 of 16 GB */
    d->inst[0].stages[0] = (struct serve_stage){ .ngpu = 1, .gpus = { 8 }, .layers = 40 };
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "cannot hold llama-2-13b: instance 0 stage 0 puts 40 layers on 1 x "
                          "P100, 26.0 GB of weights") != NULL, "%s", msg);
    d->n = 2;
    d->inst[0].stages[0] = (struct serve_stage){ .ngpu = 1, .gpus = { 0 }, .layers = 40 };
    d->inst[1] = d->inst[0];
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "instance 1 stage 0: GPU 0 is used twice") != NULL, "%s", msg);
    d->n = 1;
    d->inst[0].role = SERVE_PREFILL;
    cr_assert_eq(serve_check_deployment(&v, d, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "a prefill-only instance and no decode-only one") != NULL, "%s", msg);
    free(d);
    cluster_destroy(cl);
}

Test(serve, request_checks)
{
    const struct llm_arch *a = llm_find(lc, "opt-30b");
    struct errbuf err;
    struct request_spec q = { .prompt = 2000, .output = 100, .origin = "t.csv", .line = 9 };
    err_clear(&err);
    cr_assert_eq(serve_request_check(a, SERVE_OVERLONG_ERROR, &q, &err), -1);
    cr_assert(strstr(err.msg, "t.csv:9: prompt_tokens: 2000 prompt + 100 output tokens exceed "
                              "the context of opt-30b (2048 tokens") != NULL, "%s", err.msg);
    cr_assert_eq(serve_request_check(a, SERVE_OVERLONG_TRUNCATE, &q, &err), 0);
    cr_assert(q.prompt == 1948 && q.output == 100);
    q = (struct request_spec){ .prompt = 10, .output = 5000 };
    cr_assert_eq(serve_request_check(a, SERVE_OVERLONG_TRUNCATE, &q, &err), 0);
    cr_assert(q.prompt == 1 && q.output == 2047);
    q = (struct request_spec){ .prompt = 0, .output = 5, .origin = "t.csv", .line = 3 };
    err_clear(&err);
    cr_assert_eq(serve_request_check(a, SERVE_OVERLONG_TRUNCATE, &q, &err), -1);
    cr_assert(strstr(err.msg, "t.csv:3: prompt_tokens: 0: a request needs at least one prompt "
                              "token") != NULL, "%s", err.msg);
}

/* Through the command line: sim.engine chooses the engine profile whose overheads every
 * iteration and first token pay.  A fit file with the shipped factors and one more engine,
 * 50 ms slower an iteration, 2 ms a sequence and 100 ms a first token: one request's first
 * token comes 100 + 50 + 2 ms later, its second token 52 ms after that. */
Test(serve, the_experiment_chooses_the_engine, .timeout = 60)
{
    llm_catalog *c = th_llm(cat);
    struct llm_engine slow = *llm_engine_in_use(c);
    snprintf(slow.name, sizeof slow.name, "slow");
    slow.iter_ms += 50;
    slow.seq_ms += 2;
    slow.first_ms += 100;
    cr_assert_eq(llm_set_engine(c, &slow), 0);
    char *fit = th_write("engines_fit.json", "");
    FILE *f = fopen(fit, "w");
    cr_assert_eq(llm_fit_write(f, c, NULL, 0, "test"), 0);
    fclose(f);
    char *rq = th_write("engines_r.csv", "arrival_s,prompt_tokens,output_tokens\n0,300,2\n");
    char *exp = th_write("engines.json",
        "{ \"name\": \"e\", \"domain\": \"serving\", \"model\": \"llama-2-7b\",\n"
        "  \"cluster\": { \"network\": \"ib-100g\", \"groups\": [ { \"count\": 1, \"gpu\": "
        "\"A100-80GB\", \"gpus_per_node\": 1 } ] },\n"
        "  \"workload\": { \"format\": \"requests\", \"trace\": \"engines_r.csv\" },\n"
        "  \"models\": { \"llm_fit\": \"engines_fit.json\" },\n"
        "  \"policies\": [\"highend_only\"] }\n");
    char *db = th_write("engines.db", "");
    remove(db);
    const char *plain[] = { "run", exp, "--db", db, "-q", NULL };
    const char *chosen[] = { "run", exp, "--db", db, "-q", "--set", "sim.engine=\"slow\"", NULL };
    for (int k = 0; k < 2; k++) {
        struct th_out o = th_hetsim(k ? chosen : plain);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    double ttft = th_db_value(db, "SELECT (SELECT ttft_s FROM requests WHERE run_id = 2) - "
                                  "(SELECT ttft_s FROM requests WHERE run_id = 1)");
    double tpot = th_db_value(db, "SELECT (SELECT tpot_s FROM requests WHERE run_id = 2) - "
                                  "(SELECT tpot_s FROM requests WHERE run_id = 1)");
    cr_assert(fabs(ttft - 0.152) < 3e-6, "first token %g s later", ttft);
    cr_assert(fabs(tpot - 0.052) < 3e-6, "second token %g s later", tpot);
    llm_destroy(c);
    free(fit);
    free(rq);
    free(exp);
    free(db);
}

/* Through the command line: the same experiment and seed give the same rows, and the rows
 * are what the summary says. */
Test(serve, same_run_same_rows_through_the_cli, .timeout = 120)
{
    char *db1 = th_write("s1.db", ""), *db2 = th_write("s2.db", "");
    remove(db1);
    remove(db2);
    const char *set[] = { "--set", "workload.max_jobs=400", NULL };
    for (int k = 0; k < 2; k++) {
        const char *args[] = { "run", "hetis_testbed", "--db", k ? db2 : db1, "-q", set[0],
                               set[1], NULL };
        struct th_out o = th_hetsim(args);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    char *a = th_db_dump(db1), *b = th_db_dump(db2);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    /* 400 requests a run, each once, and the summary's counts are the rows' */
    for (int run = 1; run <= 5; run++) {
        char q[512];
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db1, q), 400, "run %d", run);
        snprintf(q, sizeof q, "SELECT (SELECT value FROM metrics WHERE run_id = %d AND name = "
                 "'requests_done') - (SELECT count(*) FROM requests WHERE run_id = %d AND "
                 "finish_s IS NOT NULL)", run, run);
        cr_assert_eq(th_db_value(db1, q), 0, "run %d", run);
        snprintf(q, sizeof q, "SELECT abs((SELECT value FROM metrics WHERE run_id = %d AND name "
                 "= 'ttft_mean') - (SELECT avg(ttft_s) FROM requests WHERE run_id = %d AND "
                 "finish_s IS NOT NULL))", run, run);
        cr_assert_lt(th_db_value(db1, q), 1e-9, "run %d", run);
    }
    free(db1);
    free(db2);
}

/* ---- the world's shortcuts: the hops of pipeline boundaries that no other transfer
 * crosses are left out of the link book (book_route in serve.c), decode attention is kept by
 * context (decode_attn) and the last stage's head by logits count (stage_head).  Worlds
 * where HexGen's pipelines share network links (deep_mix: 6 A100 and 3 H100 servers,
 * Llama-2-70B), KV moves between instances (Splitwise; a migrating drain of a pipeline),
 * Hetis traffic, and replicas batching many requests at once (high-end only): every
 * request's times are those of a world that takes no shortcut, while some hops are left out
 * and others shared (booked). */
static const char deep_mix[] =
    "{ \"network\": \"ib-200g\", \"groups\": ["
    " { \"count\": 6, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 8, \"intra\": \"nvswitch\" },"
    " { \"count\": 3, \"gpu\": \"H100\", \"gpus_per_node\": 8, \"intra\": \"nvswitch4\" } ] }";

static void same_records(const struct th_serve *a, const struct th_serve *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s", what);
    cr_assert_eq(a->iterations, b->iterations, "%s", what);
    for (int k = 0; k < a->n; k++) {
        const struct serve_record *x = &a->r[k], *y = &b->r[k];
        cr_assert(x->id == y->id && x->start == y->start && x->first == y->first &&
                      x->finish == y->finish && x->generated == y->generated &&
                      x->preemptions == y->preemptions && x->dropped == y->dropped,
                  "%s: request %lld: first %.9f vs %.9f, finish %.9f vs %.9f", what,
                  (long long)x->id, x->first, y->first, x->finish, y->finish);
    }
}

Test(serve, shortcuts_change_no_time, .timeout = 240)
{
    static const struct {
        const char *cluster, *model, *policy;
        double rate;
    } runs[] = {
        { deep_mix, "llama-2-70b", "hexgen", 30 },
        { deep_mix, "llama-2-13b", "highend_only", 60 },
        { deep_mix, "llama-2-70b", "splitwise", 10 },
        { testbed, "llama-2-13b", "hetis", 20 },
        { testbed, "llama-2-13b", "uniform_pp", 20 },
    };
    enum { N = 400 };
    int shared = 0, alone = 0;
    for (size_t c = 0; c < sizeof runs / sizeof *runs; c++) {
        cluster *cl = th_cluster(cat, runs[c].cluster);
        struct serve_config cfg;
        th_serve_config(&cfg);
        struct request_spec *q = random_requests(N, 17, runs[c].rate, 1500);
        for (int i = 0; i < N; i++)
            if (q[i].output > 500)
                q[i].output = 500;
        th_serve_no_shortcuts = 1;
        struct th_serve all = th_serve_run(cl, runs[c].model, q, N, runs[c].policy, NULL, &cfg);
        th_serve_no_shortcuts = 0;
        struct th_serve cut = th_serve_run(cl, runs[c].model, q, N, runs[c].policy, NULL, &cfg);
        same_records(&all, &cut, runs[c].policy);
        shared += cut.hops - cut.hops_alone;
        alone += cut.hops_alone;
        th_serve_free(&all);
        th_serve_free(&cut);
        free(q);
        cluster_destroy(cl);
    }
    cr_assert_gt(shared, 0);
    cr_assert_gt(alone, 0);
    /* one request per pipeline, all at once: their batches reach the network links the
       pipelines share together, and one waits for the other (the wait shows in its finish,
       as no later stage is busy) */
    cluster *cl = th_cluster(cat, deep_mix);
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[16];
    for (int i = 0; i < 16; i++)
        q[i] = req(i, 0, 1000, 20);
    th_serve_no_shortcuts = 1;
    struct th_serve all = th_serve_run(cl, "llama-2-70b", q, 16, "hexgen", NULL, &cfg);
    th_serve_no_shortcuts = 0;
    struct th_serve cut = th_serve_run(cl, "llama-2-70b", q, 16, "hexgen", NULL, &cfg);
    same_records(&all, &cut, "at once");
    int waited = 0;
    for (int k = 1; k < cut.n; k++)
        waited += cut.r[k].finish != cut.r[0].finish;
    cr_assert_gt(waited, 0, "no pipeline waited for a shared link");
    th_serve_free(&all);
    th_serve_free(&cut);
    cluster_destroy(cl);
}

/* A run whose instance `inst` has its GPUs taken at take_s under a migrating drain: its
 * requests' KV leaves its last stage for the others' first stages.  Every record, the KV moved
 * and the boundaries' hops (all; no one else's). */
struct taken_run {
    struct serve_record r[400];
    int n, hops, alone;
    double moved;
};

static int keep_taken(void *ctx, const struct serve_record *r, struct errbuf *err)
{
    (void)err;
    struct taken_run *t = ctx;
    cr_assert_lt(t->n, 400);
    t->r[t->n++] = *r;
    return 0;
}

static void taken_run(const cluster *cl, const struct serve_decider *dec, const char *model,
                      const struct request_spec *q, int n, double take_s, int inst,
                      int book_all, struct taken_run *t)
{
    struct errbuf err;
    err_clear(&err);
    t->n = 0;
    struct th_array src = { q, sizeof *q, n, 0 };
    struct entity_source es = { &src, th_array_next };
    struct serve_sink sink = { .ctx = t, .request = keep_taken };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.drain = SERVE_DRAIN_MIGRATE;
    serve *w;
    cr_assert_eq(serve_create(&w, cl, lc, llm_find(lc, model), &cfg, &es, dec, &sink, &err), 0,
                 "%s", err.msg);
    if (book_all)
        serve_no_shortcuts(w);
    t->alone = serve_hops_alone(w, &t->hops);
    engine *e = engine_create(0);
    cr_assert_eq(serve_attach(w, e, &err), 0, "%s", err.msg);
    struct engine_limits lim = { sim_from_sec(take_s), 0 };
    cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_UNTIL, "%s", err.msg);
    const struct serve_instance *sp = &serve_deployment_of(w)->inst[inst];
    int gpus[SERVE_MAX_STAGES * SERVE_MAX_TP], ng = 0;
    for (int s = 0; s < sp->nstages; s++)
        for (int g = 0; g < sp->stages[s].ngpu; g++)
            gpus[ng++] = sp->stages[s].gpus[g];
    int64_t drained;
    cr_assert_eq(serve_take(w, gpus, ng, &drained, &err), 0, "%s", err.msg);
    cr_assert_eq(drained, 1);
    lim.until = SIM_NEVER;
    int stop = engine_advance(e, &lim, &err);
    cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
    struct serve_totals tot;
    cr_assert_eq(serve_finish(w, stop, &tot, &err), 0, "%s", err.msg);
    t->moved = tot.kv_moved_bytes;
    engine_destroy(e);
    serve_destroy(w);
}

/* The same requests left at the same times, with the same KV moved. */
static void same_taken(const struct taken_run *a, const struct taken_run *b, const char *what)
{
    cr_assert_eq(a->moved, b->moved, "%s", what);
    cr_assert_eq(a->n, b->n, "%s", what);
    for (int k = 0; k < a->n; k++)
        cr_assert(a->r[k].id == b->r[k].id && a->r[k].first == b->r[k].first &&
                      a->r[k].finish == b->r[k].finish,
                  "%s: request %lld: finish %.9f vs %.9f", what, (long long)a->r[k].id,
                  a->r[k].finish, b->r[k].finish);
}

/* HexGen on deep_mix, each of three instances drained at 20 s: its KV crosses network links
 * the other pipelines' boundaries use. */
Test(serve, a_drain_s_kv_moves_see_the_boundaries_they_share, .timeout = 240)
{
    enum { N = 400 };
    struct request_spec *q = random_requests(N, 23, 40, 1500);
    cluster *cl = th_cluster(cat, deep_mix);
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    struct errbuf err;
    policy *p;
    cr_assert_eq(policy_open(&p, "hexgen", NULL, &env, &err), 0, "%s", err.msg);
    static struct taken_run all, cut;
    for (int inst = 0; inst < 3; inst++) {
        char what[64];
        snprintf(what, sizeof what, "instance %d drained", inst);
        taken_run(cl, policy_decider(p), "llama-2-70b", q, N, 20, inst, 1, &all);
        cr_assert_gt(all.moved, 0, "instance %d: nothing moved", inst);
        taken_run(cl, policy_decider(p), "llama-2-70b", q, N, 20, inst, 0, &cut);
        same_taken(&all, &cut, what);
    }
    policy_close(p);
    cluster_destroy(cl);
    free(q);
}

/* A handmade deployment of Llama-2-13B in two stages on four servers of two A100s (GPU g on
 * node g / 2): A = GPU 0 then 2 (node 0 to 1), B = GPU 4 then 1 (node 2 to 0), C = GPU 6
 * then 7 (node 3).  B's last stage sits on node 0, whose network link out A's boundary
 * crosses; A's first stage on node 0, whose link in B's boundary crosses.  Requests go to
 * instance id mod 3, or to C when that one is not up. */
static int hand_deploy(void *ctx, const struct serve_env_view *v, struct serve_deployment *out,
                       struct errbuf *err)
{
    (void)ctx, (void)v, (void)err;
    static const int32_t gpus[3][2] = { { 0, 2 }, { 4, 1 }, { 6, 7 } };
    out->n = 3;
    for (int i = 0; i < 3; i++) {
        out->inst[i] = (struct serve_instance){ .role = SERVE_UNIFIED, .nstages = 2 };
        for (int s = 0; s < 2; s++)
            out->inst[i].stages[s] = (struct serve_stage){ 1, { gpus[i][s] }, 20 };
    }
    return 0;
}

static int hand_route(void *ctx, const struct serve_view *v, const struct serve_req_view *r,
                      int32_t *inst, struct errbuf *err)
{
    (void)ctx, (void)err;
    *inst = (int32_t)(r->id % 3);
    if (!v->load[*inst].up)
        *inst = 2;
    return 0;
}

/* The hops a KV move may cross are booked: of the ten, A's way out of node 0 (B's last stage
 * is there) and B's way into node 0 (A's first stage is there) are; the other eight, no
 * one else's, are not.  And a migrating drain of B at 4 s (300 requests at 30 a second),
 * whose moves leave node 0 for C on node 0's link out, waits for A's sends as it would in a
 * world that books everything. */
Test(serve, a_kv_move_waits_for_the_boundaries_whose_links_it_crosses, .timeout = 120)
{
    cluster *cl = th_cluster(cat, "{ \"network\": \"ethernet-100g\", \"groups\": ["
                                  " { \"count\": 4, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 2,"
                                  "   \"intra\": \"pcie4\" } ] }");
    struct serve_decider dec = { NULL, cl, hand_deploy, hand_route, NULL, 0 };
    struct request_spec *q = random_requests(300, 29, 30, 1500);
    static struct taken_run all, cut;
    taken_run(cl, &dec, "llama-2-13b", q, 300, 4, 1, 1, &all);
    taken_run(cl, &dec, "llama-2-13b", q, 300, 4, 1, 0, &cut);
    cr_assert_eq(cut.hops, 10);
    cr_assert_eq(cut.alone, 8, "alone %d", cut.alone);
    cr_assert_gt(cut.moved, 0);
    cr_assert_eq(cut.n, 300);
    same_taken(&all, &cut, "B drained");
    free(q);
    cluster_destroy(cl);
}

/* A handmade Hetis instance: Llama-2-13B's layers on GPU 0, one attention worker on GPU 1
 * of the same node; every request admitted with 30 of its 40 KV heads on the primaries and
 * 10 on the worker, never moved. */
static int hetis_deploy(void *ctx, const struct serve_env_view *v, struct serve_deployment *out,
                        struct errbuf *err)
{
    (void)ctx, (void)err;
    out->n = 1;
    out->inst[0] = (struct serve_instance){ .role = SERVE_UNIFIED, .nstages = 1, .nattn = 1,
                                            .attn = { 1 } };
    out->inst[0].stages[0] = (struct serve_stage){ 1, { 0 }, v->arch->layers };
    return 0;
}

static int hetis_route(void *ctx, const struct serve_view *v, const struct serve_req_view *r,
                       int32_t *inst, struct errbuf *err)
{
    (void)ctx, (void)v, (void)r, (void)err;
    *inst = 0;
    return 0;
}

static int hetis_split(void *ctx, struct serve_dispatch *d, struct errbuf *err)
{
    (void)ctx, (void)err;
    for (int k = 0; k < d->nreq && d->rebalance == SERVE_PLACE; k++) {
        d->req[k].heads[0] = 30;
        d->req[k].heads[1] = 10;
    }
    return 0;
}

/* Its decode step by hand: the overhead, then the larger of the primaries' layers (decode
 * attention split 30 : 10 heads between the two devices at the request's context) and the
 * step's traffic with the worker (each layer its queries and new K/V out, outputs back) on
 * free links. */
Test(serve, a_hetis_decode_step_by_hand)
{
    cluster *cl = th_cluster(cat, two_a100);
    const struct llm_arch *a = llm_find(lc, "llama-2-13b");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct serve_decider dec = { NULL, cl, hetis_deploy, hetis_route, hetis_split, 0 };
    struct serve_deployment dep;
    struct serve_env_view v = { cl, lc, a, &cfg.set };
    struct errbuf err;
    cr_assert_eq(hetis_deploy(NULL, &v, &dep, &err), 0);
    struct serve_attn_dev dev[SERVE_MAX_DEV];
    int ndev;
    serve_view_attn_devices(&v, &dep.inst[0], dev, &ndev);
    cr_assert_eq(ndev, 2);
    /* the step after a 200-token prompt: context 201 */
    struct llm_batch b = { 0 };
    llm_batch_decode(&b, 201);
    double heads[2] = { 30, 10 }, ctx[2] = { 201 * 30.0, 201 * 10.0 };
    double attn = serve_view_attn_split_s(&v, ndev, dev, ctx, heads);
    simtime compute = sim_from_sec_ceil(serve_view_hetis_s(&v, &dep.inst[0], &b, NULL, attn));
    double group = (double)a->heads / a->kv_heads, hd = a->head_dim, L = a->layers;
    double out[2] = { 0, L * 2 * group * hd * 10 },
           in[2] = { 0, L * 2 * (group * hd + 2 * hd) * 10 };
    struct linkbook_port p[XFER_MAX_PORTS];
    int np = xfer_hetis_ports(cl, lc, dep.inst[0].stages[0].gpus, 1, dev, ndev, out, in, p);
    simtime traffic = 0;
    for (int k = 0; k < np; k++)
        if (p[k].dur > traffic)
            traffic = p[k].dur;
    simtime step = sim_from_sec_ceil(llm_iter_s(lc, &b)) + (compute > traffic ? compute : traffic);
    struct request_spec q = req(0, 0, 200, 2);
    struct th_array src = { &q, sizeof q, 1, 0 };
    struct entity_source es = { &src, th_array_next };
    static struct taken_run t;
    t.n = 0;
    struct serve_sink sink = { .ctx = &t, .request = keep_taken };
    serve *w;
    cr_assert_eq(serve_create(&w, cl, lc, a, &cfg, &es, &dec, &sink, &err), 0, "%s", err.msg);
    struct serve_totals tot;
    cr_assert_eq(serve_run(w, &tot, &err), 0, "%s", err.msg);
    cr_assert_eq(t.n, 1);
    cr_assert_eq(sim_from_sec(t.r[0].finish) - sim_from_sec(t.r[0].first), step,
                 "step %.6f s, by hand %.6f s", t.r[0].finish - t.r[0].first, sim_to_sec(step));
    serve_destroy(w);
    cluster_destroy(cl);
}

/* ---- sim.request_sample: a share of the requests kept as rows, every metric unchanged ---- */

/* The request ids of db's `requests` rows in the order they were written (they leave). */
static int64_t *row_ids(const char *db, int *n)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT request_id FROM requests ORDER BY rowid", -1,
                                    &st, NULL), SQLITE_OK);
    int64_t *ids = NULL;
    *n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        ids = realloc(ids, (size_t)(*n + 1) * sizeof *ids);
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(d);
    return ids;
}

/* serving_a100_h100 under highend_only, every row and a tenth of them: the tenth keeps the
 * 10th, 20th, ... request to leave (a systematic sample of its one class, "code"), the same
 * rows, and every metric but the solver's wall time is the same. */
Test(serve, request_sample_keeps_every_tenth_row_and_every_metric, .timeout = 120)
{
    char all[512], tenth[512];
    snprintf(all, sizeof all, "%s/all.db", th_tmpdir());
    snprintf(tenth, sizeof tenth, "%s/tenth.db", th_tmpdir());
    struct th_out o1 = th_hetsim((const char *const[]){ "run", "serving_a100_h100", "--policy",
                                                        "highend_only", "--db", all, "-q",
                                                        NULL });
    struct th_out o2 = th_hetsim((const char *const[]){ "run", "serving_a100_h100", "--policy",
                                                        "highend_only", "--db", tenth, "-q",
                                                        "--set", "sim.request_sample=0.1",
                                                        NULL });
    cr_assert_eq(o1.status, 0, "%s", o1.err);
    cr_assert_eq(o2.status, 0, "%s", o2.err);
    int na, nt;
    int64_t *a = row_ids(all, &na), *t = row_ids(tenth, &nt);
    cr_assert_gt(na, 1000);
    cr_assert_eq(nt, na / 10);
    for (int k = 0; k < nt; k++)
        cr_assert_eq(t[k], a[10 * k + 9], "row %d: request %lld, the 10th is %lld", k,
                     (long long)t[k], (long long)a[10 * k + 9]);
    static const char *const names[] = { "ttft_p50", "ttft_p99", "tpot_mean", "e2e_p99",
                                         "slo_attainment", "tokens_per_s", "requests_done",
                                         "util_total", "iterations" };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        cr_assert_eq(th_db_metric(all, 1, names[k]), th_db_metric(tenth, 1, names[k]), "%s",
                     names[k]);
    free(a);
    free(t);
    th_out_free(&o1);
    th_out_free(&o2);
}
