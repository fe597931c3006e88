/*
 * test_llm: the LLM latency model (models/llm.h) against hand-computed values — parameter
 * counts, weights and KV bytes, the roofline of one GEMM and one elementwise kernel, the
 * ring all-reduce and a point-to-point send, decode and prefill attention, a whole stage,
 * the engine's overheads — with toy factors whose arithmetic is easy to follow; that no
 * collective or send carries more bytes a second over a link than its bandwidth, whatever
 * the link, size, group and factors; then properties of the shipped fit (README's roofline
 * sanity bounds, more GPUs never slower per token at large batches, which GPU types are
 * calibrated on what, the engine profiles) and the loader's checks of both data files.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../models/llm.h"
#include "../sim/base/path.h"
#include "helpers.h"

static catalog *cat;
static llm_catalog *lc;     /* the shipped architectures and fit */
static llm_catalog *toy;    /* no architectures, toy factors on every GPU */
static int a100, h100, p100, pcie4, nvsw;

/* eta 0.5 everywhere, p = 1 (compute + memory), no fixed times: sums a hand can check */
static const struct llm_fit toy_fit = {
    .dflt = { .eta_compute = 0.5, .eta_mem = 0.5, .p = 1, .kernel_us = 0,
              .eta_elem = { 0.25, 0.25, 0.25, 0.25 }, .elem_us = 0 },
    .eta_attn = 0.5, .iter_ms = 1, .first_ms = 2, .eta_link = 0.5, .lat_factor = 1,
    .coll_us = 10,
};

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char ap[PATH_MAX_LEN], fp[PATH_MAX_LEN];
    path_resolve(ap, sizeof ap, NULL, llm_default_models);
    path_resolve(fp, sizeof fp, NULL, llm_default_fit);
    cr_assert_eq(llm_load(&lc, cat, ap, fp, &err), 0, "%s", err.msg);
    toy = llm_create(cat, &toy_fit);
    cr_assert_not_null(toy);
    a100 = catalog_gpu_find(cat, "A100-80GB");
    h100 = catalog_gpu_find(cat, "H100");
    p100 = catalog_gpu_find(cat, "P100");
    pcie4 = catalog_link_find(cat, "pcie4");
    nvsw = catalog_link_find(cat, "nvswitch");
    cr_assert(a100 >= 0 && h100 >= 0 && p100 >= 0 && pcie4 >= 0 && nvsw >= 0);
}

static void teardown(void)
{
    llm_destroy(toy);
    llm_destroy(lc);
    catalog_destroy(cat);
}

TestSuite(llm, .init = setup, .fini = teardown);

static const struct llm_arch *arch(const char *name)
{
    const struct llm_arch *a = llm_find(lc, name);
    cr_assert_not_null(a, "%s", name);
    return a;
}

#define NEAR(x, want, rel)                                                                  \
    cr_assert(fabs((x) - (want)) <= (rel) * fabs(want), "%s = %.10g, want %.10g", #x,     \
              (double)(x), (double)(want))

Test(llm, parameter_counts_by_hand)
{
    /* Llama-2-7B: a layer is QKV 4096 x 12288, O 4096 x 4096, gate/up/down 3 x 4096 x 11008
     * and two RMSNorm vectors; untied embedding and head of 32000 x 4096 and a final norm */
    double layer = 4096.0 * 12288 + 4096.0 * 4096 + 3 * 4096.0 * 11008 + 2 * 4096.0;
    cr_assert_eq(layer, 202383360.0);
    NEAR(llm_params(arch("llama-2-7b")), 32 * layer + 2 * 32000.0 * 4096 + 4096, 1e-12);
    /* Llama-2-70B: grouped-query attention, 8 KV heads of 128 */
    double l70 = 8192.0 * (8192 + 2 * 1024) + 8192.0 * 8192 + 3 * 8192.0 * 28672 + 2 * 8192.0;
    NEAR(llm_params(arch("llama-2-70b")), 80 * l70 + 2 * 32000.0 * 8192 + 8192, 1e-12);
    /* OPT-30B: biases, LayerNorm weight and bias, tied head, 2050 learned positions */
    double h = 7168, f = 28672;
    double lopt = 4 * h * h + 4 * h + 2 * h * f + f + h + 4 * h;
    NEAR(llm_params(arch("opt-30b")), 48 * lopt + 50272 * h + 2050 * h + 2 * h, 1e-12);
    /* every shipped architecture's stated size matches its shape (the loader checks 0.5%) */
    for (int i = 0; i < llm_narch(lc); i++) {
        const struct llm_arch *a = llm_arch_at(lc, i);
        NEAR(llm_params(a) / 1e9, a->params_b, 0.005);
    }
}

Test(llm, weights_and_kv_bytes_by_hand)
{
    const struct llm_arch *a = arch("llama-2-13b");
    double h = 5120, f = 13824, V = 32000;
    double layer = h * 3 * h + h * h + 3 * h * f + 2 * h;
    /* the whole model on one GPU: 2 bytes a parameter */
    NEAR(llm_weight_bytes(a, 40, 1, 1, 1), 2 * llm_params(a), 1e-12);
    /* TP 2: layers, embedding and head halved; the final norm is replicated */
    NEAR(llm_weight_bytes(a, 40, 2, 1, 1), 2 * (40 * layer / 2 + V * h / 2 + V * h / 2 + h),
         1e-12);
    /* a middle stage of 10 layers holds neither embedding nor head */
    NEAR(llm_weight_bytes(a, 10, 1, 0, 0), 2 * 10 * layer, 1e-12);
    /* OPT's tied head is held twice when first and last stages differ */
    const struct llm_arch *o = arch("opt-30b");
    double emb = 50272.0 * 7168;
    NEAR(llm_weight_bytes(o, 0, 1, 0, 1) - llm_weight_bytes(o, 0, 1, 0, 0),
         2 * (emb + 2 * 7168.0), 1e-12);
    NEAR(llm_weight_bytes(o, 0, 1, 1, 1), 2 * (emb + 2050 * 7168.0 + 2 * 7168.0), 1e-12);
    /* KV: 2 vectors x head_dim x 2 bytes per head per layer; 70B has 8 KV heads */
    const struct llm_arch *b = arch("llama-2-70b");
    cr_assert_eq(llm_kv_head_bytes(b), 512.0);
    cr_assert_eq(llm_kv_bytes(b, 80, 1), 80 * 8 * 512.0);
    cr_assert_eq(llm_kv_bytes(b, 80, 4), 80 * 2 * 512.0);
    /* beyond 8 GPUs a KV head is replicated, not split */
    cr_assert_eq(llm_kv_bytes(b, 80, 16), 80 * 1 * 512.0);
    /* Llama-2-7B, MHA: 32 x 2 x 4096 x 2 bytes = 512 KiB a token */
    cr_assert_eq(llm_kv_bytes(arch("llama-2-7b"), 32, 1), 524288.0);
}

Test(llm, gemm_roofline_by_hand)
{
    /* 1 x 4096 by 4096 x 4096 on A100-80GB at eta 0.5, p = 1: compute + memory */
    double flops = 2.0 * 4096 * 4096, bytes = 2.0 * (4096.0 * 4096 + 4096 + 4096);
    double c = flops / (312e12 * 0.5), m = bytes / (2039e9 * 0.5);
    NEAR(llm_gemm_s(toy, a100, 1, 4096, 4096), c + m, 1e-12);
    /* p = 2 and a kernel time: sqrt(c^2 + m^2) + kernel */
    struct llm_gpu_fit g = toy_fit.dflt;
    g.p = 2;
    g.kernel_us = 3;
    llm_set_gpu_fit(toy, a100, &g);
    flops = 2.0 * 4096 * 4096 * 4096;
    bytes = 2.0 * 3 * 4096 * 4096;
    c = flops / (312e12 * 0.5);
    m = bytes / (2039e9 * 0.5);
    NEAR(llm_gemm_s(toy, a100, 4096, 4096, 4096), sqrt(c * c + m * m) + 3e-6, 1e-12);
    /* a large p is the plain roofline max(c, m) */
    g.p = 64;
    g.kernel_us = 0;
    llm_set_gpu_fit(toy, a100, &g);
    NEAR(llm_gemm_s(toy, a100, 4096, 4096, 4096), c, 1e-9);
    NEAR(llm_gemm_s(toy, a100, 1, 4096, 4096), 2.0 * (4096.0 * 4096 + 8192) / (2039e9 * 0.5),
         1e-9);
    /* no tokens, no kernel */
    cr_assert_eq(llm_gemm_s(toy, a100, 0, 4096, 4096), 0);
    /* elementwise: bytes at a quarter of the bandwidth */
    NEAR(llm_elem_s(toy, p100, LLM_ELEM_NORM, 1e6), 1e6 / (732e9 * 0.25), 1e-12);
}

Test(llm, collectives_by_hand)
{
    /* 4 GPUs on PCIe 4 (31.5 GB/s a direction, 5 us): 10 us + 6 steps x 5 us, and 6/4 of
     * 1 MB over every link of the ring one way, at half its bandwidth */
    NEAR(llm_allreduce_s(toy, pcie4, 4, 1e6), 10e-6 + 30e-6 + 1.5 * 1e6 / (31.5e9 * 0.5),
         1e-12);
    /* two GPUs: each sends the other half the message twice, the whole of it */
    NEAR(llm_allreduce_s(toy, nvsw, 2, 4e6), 10e-6 + 2 * 3e-6 + 4e6 / (300e9 * 0.5), 1e-12);
    cr_assert_eq(llm_allreduce_s(toy, pcie4, 1, 1e6), 0);
    /* a send: one latency and the bytes one way */
    NEAR(llm_send_s(toy, pcie4, 1e6), 5e-6 + 1e6 / (31.5e9 * 0.5), 1e-12);
}

/* The bytes a second one link carries, against its bandwidth (bytes/s), for factors f. */
static void check_rates(const struct llm_fit *f, const char *what)
{
    llm_catalog *c = llm_create(cat, f);
    cr_assert_not_null(c);
    int checked = 0;
    for (int l = 0; l < catalog_nlinks(cat); l++) {
        double bw = catalog_link(cat, l)->bw_gbs * 1e9;
        for (double bytes = 1; bytes <= 4e9; bytes *= 2) {
            /* a send carries its bytes over its link */
            double t = llm_send_s(c, l, bytes);
            cr_assert(bytes / t <= bw * (1 + 1e-12), "%s: a send of %g B over %s: %g B/s, "
                      "the link carries %g", what, bytes, catalog_link(cat, l)->name,
                      bytes / t, bw);
            for (int n = 2; n <= 8; n++) {
                /* a ring all-reduce: 2 (n-1)/n of the message over every link, one way */
                double per_link = 2.0 * (n - 1) / n * bytes;
                t = llm_allreduce_s(c, l, n, bytes);
                cr_assert(per_link / t <= bw * (1 + 1e-12), "%s: an all-reduce of %g B on %d "
                          "GPUs over %s: %g B/s a link, the link carries %g", what, bytes, n,
                          catalog_link(cat, l)->name, per_link / t, bw);
                checked++;
            }
        }
    }
    cr_assert_gt(checked, 1000);
    llm_destroy(c);
}

Test(llm, no_collective_or_send_beats_its_link)
{
    /* the shipped factors, the toy's, and the fastest the file may state: every link at its
     * full bandwidth with no latency or call overhead at all */
    check_rates(llm_fit_of(lc), "shipped");
    check_rates(&toy_fit, "toy");
    struct llm_fit edge = toy_fit;
    edge.eta_link = 1;
    edge.lat_factor = 0;
    edge.coll_us = 0;
    check_rates(&edge, "eta_link 1, no latency");
}

Test(llm, attention_by_hand)
{
    const struct llm_arch *a = arch("llama-2-7b");
    struct llm_batch b = { 0 };
    llm_batch_decode(&b, 1000);
    llm_batch_decode(&b, 3000);
    cr_assert_eq(b.tokens, 2);
    cr_assert_eq(b.decode_ctx, 4000);
    /* decode on 8 of the 32 heads: K and V of 4000 tokens x 8 heads x 512 bytes, plus q and
     * o of 8 heads x 128 values for 2 requests; FLOPs 4 x 4000 x 128 x 8 */
    double bytes = 4000.0 * 8 * 512 + 2 * 2 * 2 * 128.0 * 8;
    double flops = 4.0 * 4000 * 128 * 8;
    NEAR(llm_attn_decode_s(toy, a100, a, 8, 8, &b), flops / (312e12 * 0.5) +
         bytes / (2039e9 * 0.5), 1e-12);
    /* a prefill chunk of 100 tokens after 50 cached: 100 x (50 + 101/2) causal pairs */
    struct llm_batch p = { 0 };
    llm_batch_prefill(&p, 100, 50, 1);
    cr_assert_eq(p.prefill_pairs, 100 * (50 + 50.5));
    cr_assert_eq(p.logits, 1);
    flops = 4 * 100 * 100.5 * 128 * 32;
    bytes = 2 * (2 * 100.0 * 128 * 32 + 2 * 150.0 * 128 * 32);
    NEAR(llm_attn_prefill_s(toy, a100, a, 32, 32, &p), flops / (312e12 * 0.5) +
         bytes / (2039e9 * 0.5), 1e-12);
    /* a chunk that does not end its prompt produces no logits */
    llm_batch_prefill(&p, 10, 150, 0);
    cr_assert_eq(p.logits, 1);
}

Test(llm, stage_is_the_sum_of_its_terms)
{
    const struct llm_arch *a = arch("llama-2-13b");
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 512, 0, 1);
    llm_batch_decode(&b, 700);
    struct llm_stage s = { a100, 2, nvsw, 10, 0, 0 };
    double heads = 40 / 2.0, kvh = 40 / 2.0;
    double layer = llm_layer_dense_s(toy, a100, a, 2, &b) +
                   llm_attn_prefill_s(toy, a100, a, heads, kvh, &b) +
                   llm_attn_decode_s(toy, a100, a, heads, kvh, &b) +
                   2 * llm_allreduce_s(toy, nvsw, 2, 2 * b.tokens * 5120);
    NEAR(llm_stage_s(toy, a, &s, &b), 10 * layer, 1e-12);
    /* the dense part: four GEMMs, two norms, rope, activation, two adds */
    double T = b.tokens, h = 5120, f = 13824;
    double dense = llm_gemm_s(toy, a100, T, h, 3 * h / 2) + llm_gemm_s(toy, a100, T, h / 2, h) +
                   llm_gemm_s(toy, a100, T, h, 2 * f / 2) + llm_gemm_s(toy, a100, T, f / 2, h) +
                   2 * 4 * T * h / (2039e9 * 0.25) + 4 * T * 2 * h / 2 / (2039e9 * 0.25) +
                   2 * T * 3 * f / 2 / (2039e9 * 0.25) + 2 * 6 * T * h / (2039e9 * 0.25);
    NEAR(llm_layer_dense_s(toy, a100, a, 2, &b), dense, 1e-12);
    /* the last stage adds the final norm, the LM head over 2 logits and the vocabulary
     * gather; the first the embedding */
    struct llm_stage last = s;
    last.last = 1;
    double head = 2 * 2 * 2 * h / (2039e9 * 0.25) + llm_gemm_s(toy, a100, 2, h, 16000) +
                  0.5 * llm_allreduce_s(toy, nvsw, 2, 2 * 2 * 32000.0);
    NEAR(llm_stage_s(toy, a, &last, &b) - llm_stage_s(toy, a, &s, &b), head, 1e-9);
}

Test(llm, stage_in_parts_is_bit_identical)
{
    /* the serving world keeps llm_layer_part by token count: a layer from its parts is
     * bit-identical to the sum of its terms in their order, and so is the stage (with and
     * without the ends and tensor parallelism);
     * a given decode-attention time replaces the stage's own; the ends alone are the
     * embedding, final norm, head and vocabulary gather */
    const struct llm_arch *a = arch("llama-2-13b");
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 300, 0, 1);
    llm_batch_decode(&b, 900);
    llm_batch_decode(&b, 45);
    static const struct llm_stage st[] = { { 0, 1, -1, 40, 1, 1 }, { 0, 2, 0, 13, 0, 1 },
                                           { 0, 4, 0, 7, 1, 0 } };
    for (size_t k = 0; k < sizeof st / sizeof st[0]; k++) {
        struct llm_stage s = st[k];
        s.gpu = a100;
        s.link = s.link < 0 ? -1 : nvsw;
        struct llm_layer_part p = llm_layer_part(toy, a, &s, b.tokens);
        double whole = llm_stage_s(toy, a, &s, &b);
        cr_assert(whole == llm_stage_with_s(toy, a, &s, &b, &p), "stage %zu", k);
        double heads = 40.0 / s.tp;
        double own = llm_attn_decode_s(toy, a100, a, heads, heads, &b);
        /* the stage's own decode attention is its TP share of the heads' */
        cr_assert(llm_stage_attn_decode_s(toy, a, &s, &b) == own, "stage %zu", k);
        double layer = llm_layer_with_s(toy, a, &s, &b, &p, -1);
        /* summed in the order of the whole formula, so that cached parts move no result */
        double ref = llm_layer_dense_s(toy, a100, a, s.tp, &b) +
                     llm_attn_prefill_s(toy, a100, a, heads, heads, &b) + own +
                     2 * llm_allreduce_s(toy, s.link, s.tp, 2 * b.tokens * 5120);
        cr_assert(layer == ref, "stage %zu: %.17g vs %.17g", k, layer, ref);
        NEAR(llm_layer_with_s(toy, a, &s, &b, &p, own + 1e-3) - layer, 1e-3, 1e-12);
        NEAR(whole - s.layers * layer, llm_stage_ends_s(toy, a, &s, &b), 1e-12);
        /* a last stage's head given (as the serving world keeps it by count) moves nothing */
        cr_assert(llm_stage_of_layer_head_s(toy, a, &s, &b, layer,
                                            llm_stage_head_s(toy, a, &s, b.logits)) ==
                      llm_stage_of_layer_s(toy, a, &s, &b, layer),
                  "stage %zu", k);
        double h = 5120, ends = s.first ? 2 * 2 * b.tokens * h / (2039e9 * 0.25) : 0;
        if (s.last)     /* three logits: the prompt's last token and two decodes */
            ends += 2 * 2 * 3 * h / (2039e9 * 0.25) + llm_gemm_s(toy, a100, 3, h, 32000.0 / s.tp) +
                    (s.tp > 1 ? 0.5 * llm_allreduce_s(toy, nvsw, s.tp, 2 * 3 * 32000.0) : 0);
        NEAR(llm_stage_ends_s(toy, a, &s, &b), ends, 1e-12);
    }
    /* and over many batches (one order may round alike on a few), on the fitted catalog */
    int differ = 0;
    for (int n = 1; n <= 300; n++) {
        struct llm_batch m = { 0 };
        if (n % 3 == 0)
            llm_batch_prefill(&m, 17 * n, 0, 1);
        for (int r = 0; r < n % 40 + 1; r++)
            llm_batch_decode(&m, 100 + 37 * n + 11 * r);
        for (size_t k = 0; k < sizeof st / sizeof st[0]; k++) {
            struct llm_stage s = st[k];
            s.gpu = k == 2 ? h100 : a100;
            s.link = s.link < 0 ? -1 : nvsw;
            double heads = 40.0 / s.tp;
            struct llm_layer_part p = llm_layer_part(lc, a, &s, m.tokens);
            double ref = llm_layer_dense_s(lc, s.gpu, a, s.tp, &m) +
                         llm_attn_prefill_s(lc, s.gpu, a, heads, heads, &m) +
                         llm_attn_decode_s(lc, s.gpu, a, heads, heads, &m) +
                         2 * llm_allreduce_s(lc, s.link, s.tp, 2 * m.tokens * 5120);
            differ += llm_layer_with_s(lc, a, &s, &m, &p, -1) != ref ||
                      llm_layer_with_s(lc, a, &s, &m, &p,
                                       llm_stage_attn_decode_s(lc, a, &s, &m)) != ref ||
                      llm_stage_of_layer_head_s(lc, a, &s, &m, ref,
                                                llm_stage_head_s(lc, a, &s, m.logits)) !=
                          llm_stage_of_layer_s(lc, a, &s, &m, ref);
        }
    }
    cr_assert_eq(differ, 0, "%d of 900 layers differ from the sum in order", differ);
    struct llm_batch none = { 0 };
    struct llm_layer_part p0 = llm_layer_part(toy, a, &st[0], 0);
    cr_assert(llm_stage_with_s(toy, a, &st[0], &none, &p0) == 0 &&
              llm_stage_ends_s(toy, a, &st[0], &none) == 0);
}

Test(llm, engine_overhead_is_fixed_plus_per_sequence)
{
    /* toy: 1 ms an iteration, 2 ms a first token; add 0.25 ms a sequence */
    struct llm_fit f = toy_fit;
    f.seq_ms = 0.25;
    llm_catalog *c = llm_create(cat, &f);
    struct llm_batch b = { 0 };
    cr_assert_eq(llm_iter_s(c, &b), 1e-3);
    llm_batch_prefill(&b, 100, 0, 0);
    llm_batch_prefill(&b, 20, 100, 1);     /* a chunk is a sequence, finished or not */
    llm_batch_decode(&b, 50);
    cr_assert_eq(b.seqs, 3);
    NEAR(llm_iter_s(c, &b), (1 + 3 * 0.25) * 1e-3, 1e-12);
    /* a what-if pays it once per iteration: 3 prompts, then a step of 3 decodes */
    const struct llm_arch *a = arch("llama-2-7b");
    struct llm_whatif w = { .gpu = a100, .tp = 1, .pp = 1, .link = nvsw, .stage_link = nvsw,
                            .batch = 3, .prompt = 100, .context = 200 };
    double pre, dec, pre0, dec0;
    struct errbuf err;
    cr_assert_eq(llm_whatif_s(c, a, &w, &pre, &dec, &err), 0);
    cr_assert_eq(llm_whatif_s(toy, a, &w, &pre0, &dec0, &err), 0);
    NEAR(pre - pre0, 3 * 0.25e-3, 1e-9);
    NEAR(dec - dec0, 3 * 0.25e-3, 1e-9);
    llm_destroy(c);
}

Test(llm, engine_profiles_of_the_shipped_fit)
{
    /* lmdeploy is the shipped file's first (so the default) profile, with a source and a
     * licence; using it sets the catalog's overheads, an unknown name is refused */
    cr_assert_geq(llm_nengines(lc), 1);
    const struct llm_engine *e = llm_engine_in_use(lc);
    cr_assert_not_null(e);
    cr_assert_str_eq(e->name, "lmdeploy");
    cr_assert(strstr(e->source, "lmdeploy") != NULL && strlen(e->licence) > 0, "%s / %s",
              e->source, e->licence);
    const struct llm_fit *f = llm_fit_of(lc);
    cr_assert(f->iter_ms == e->iter_ms && f->seq_ms == e->seq_ms && f->first_ms == e->first_ms);
    cr_assert_eq(llm_use_engine(lc, "no-such-engine"), -1);
    cr_assert_eq(llm_engine_in_use(lc), e);
    /* a profile added by name replaces its namesake and, in use, moves the overheads */
    struct llm_engine mine = *e;
    mine.iter_ms = 5;
    mine.seq_ms = 0.5;
    snprintf(mine.name, sizeof mine.name, "mine");
    llm_catalog *c = llm_create(cat, f);
    cr_assert_null(llm_engine_in_use(c));
    cr_assert_eq(llm_set_engine(c, &mine), 0);
    cr_assert_eq(llm_use_engine(c, "mine"), 0);
    cr_assert(llm_fit_of(c)->iter_ms == 5 && llm_fit_of(c)->seq_ms == 0.5);
    mine.iter_ms = 7;
    cr_assert_eq(llm_set_engine(c, &mine), 0);
    cr_assert(llm_nengines(c) == 1 && llm_fit_of(c)->iter_ms == 7);
    llm_destroy(c);
}

Test(llm, calibrated_types_and_what_the_others_borrow)
{
    /* A100-80GB, H100, A10 and T4 have kernel profiles (Vidur's, named); every other type
     * borrows the default, fitted on those four, and holds its factors */
    static const char *const calibrated[] = { "A100-80GB", "H100", "A10", "T4" };
    static const char *const file[] = { "a100_", "h100_", "a10_", "t4_" };
    for (int k = 0; k < 4; k++) {
        int g = catalog_gpu_find(cat, calibrated[k]), fitted;
        llm_gpu_fit(lc, g, &fitted);
        const char *data = llm_gpu_data(lc, g);
        cr_assert(fitted && data != NULL && strstr(data, "Vidur") != NULL &&
                  strstr(data, file[k]) != NULL, "%s: %s", calibrated[k], data ? data : "-");
    }
    cr_assert_str_eq(llm_default_from(lc), "A100-80GB, H100, A10, T4");
    for (int g = 0; g < catalog_ngpus(cat); g++) {
        int fitted, cal = 0;
        for (int k = 0; k < 4; k++)
            cal |= g == catalog_gpu_find(cat, calibrated[k]);
        const struct llm_gpu_fit *f = llm_gpu_fit(lc, g, &fitted);
        cr_assert_eq(fitted, cal, "%s", catalog_gpu(cat, g)->name);
        if (!cal) {
            cr_assert_null(llm_gpu_data(lc, g));
            cr_assert(memcmp(f, &llm_fit_of(lc)->dflt, sizeof *f) == 0, "%s",
                      catalog_gpu(cat, g)->name);
        }
    }
    /* the low-end types' own GEMMs reach a smaller share of peak than the A100's (SOURCE's
     * 65 of 125 TF on the A10, 27 of 65 on the T4) */
    double a100c = llm_gpu_fit(lc, a100, NULL)->eta_compute;
    cr_assert_lt(llm_gpu_fit(lc, catalog_gpu_find(cat, "A10"), NULL)->eta_compute, a100c);
    cr_assert_lt(llm_gpu_fit(lc, catalog_gpu_find(cat, "T4"), NULL)->eta_compute, a100c);
}

Test(llm, whatif_adds_the_iteration_and_first_token_overheads)
{
    const struct llm_arch *a = arch("llama-2-7b");
    struct llm_whatif w = { .gpu = a100, .tp = 1, .pp = 2, .link = nvsw, .stage_link = pcie4,
                            .batch = 3, .prompt = 100, .context = 200 };
    double pre, dec;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(llm_whatif_s(toy, a, &w, &pre, &dec, &err), 0, "%s", err.msg);
    struct llm_batch pb = { 0 }, db = { 0 };
    for (int i = 0; i < 3; i++) {
        llm_batch_prefill(&pb, 100, 0, 1);
        llm_batch_decode(&db, 200);
    }
    struct llm_stage s0 = { a100, 1, nvsw, 16, 1, 0 }, s1 = { a100, 1, nvsw, 16, 0, 1 };
    NEAR(pre, llm_stage_s(toy, a, &s0, &pb) + llm_stage_s(toy, a, &s1, &pb) +
         llm_send_s(toy, pcie4, 2 * 300.0 * 4096) + 3e-3, 1e-12);
    NEAR(dec, llm_stage_s(toy, a, &s0, &db) + llm_stage_s(toy, a, &s1, &db) +
         llm_send_s(toy, pcie4, 2 * 3.0 * 4096) + 1e-3, 1e-12);
    /* a prompt beyond the context is refused */
    w.prompt = 4096;
    cr_assert_eq(llm_whatif_s(toy, a, &w, &pre, &dec, &err), -1);
    cr_assert(strstr(err.msg, "exceed the context") != NULL, "%s", err.msg);
}

Test(llm, shipped_fit_respects_the_rooflines)
{
    /* README's sanity checks: batch-1 decode of Llama-2-7B on A100-80GB cannot beat the
     * weights over the bandwidth (6.6 ms), nor a 2,048-token prefill 88 ms at peak */
    const struct llm_arch *a = arch("llama-2-7b");
    struct llm_whatif w = { .gpu = a100, .tp = 1, .pp = 1, .link = nvsw, .stage_link = nvsw,
                            .batch = 1, .prompt = 2048, .context = 2048 };
    double pre, dec;
    struct errbuf err;
    cr_assert_eq(llm_whatif_s(lc, a, &w, &pre, &dec, &err), 0);
    cr_assert_gt(dec, llm_weight_bytes(a, 32, 1, 1, 1) / 2039e9);
    cr_assert_gt(pre, 2 * llm_params(a) * 2048 / 312e12);
    /* and an H100 is faster than an A100, which is faster than a P100, at every size */
    for (int batch = 1; batch <= 256; batch *= 4) {
        double pa, da, ph, dh, pp, dp;
        w.batch = batch;
        w.prompt = 512;
        w.context = 1024;
        w.gpu = a100;
        llm_whatif_s(lc, a, &w, &pa, &da, &err);
        w.gpu = h100;
        llm_whatif_s(lc, a, &w, &ph, &dh, &err);
        w.gpu = p100;
        w.link = catalog_link_find(cat, "nvlink1");
        llm_whatif_s(lc, a, &w, &pp, &dp, &err);
        w.link = nvsw;
        cr_assert(ph < pa && pa < pp && dh < da && da < dp, "batch %d", batch);
    }
}

Test(llm, tensor_parallelism_pays_for_big_batches_on_fast_links)
{
    /* a 4,096-token prefill of Llama-2-13B: TP 2 on NVSwitch is faster than one GPU, and
     * TP 2 over PCIe 4 is slower than TP 2 on NVSwitch */
    const struct llm_arch *a = arch("llama-2-13b");
    struct llm_batch b = { 0 };
    llm_batch_prefill(&b, 4096, 0, 1);
    struct llm_stage one = { a100, 1, -1, 40, 1, 1 }, two = { a100, 2, nvsw, 40, 1, 1 };
    struct llm_stage slow = { a100, 2, pcie4, 40, 1, 1 };
    double t1 = llm_stage_s(lc, a, &one, &b), t2 = llm_stage_s(lc, a, &two, &b);
    double t3 = llm_stage_s(lc, a, &slow, &b);
    cr_assert(t2 < t1 && t2 < t3, "%g %g %g", t1, t2, t3);
}

/* pieces of a fit file */
#define DEFAULT_FROM(from) "{ \"eta_compute\": 0.7, \"eta_mem\": 0.7, \"p\": 2, \"kernel_us\": 1, " \
    "\"eta_elem\": { \"norm\": 0.5, \"rope\": 0.5, \"act\": 0.5, \"add\": 0.5 }, \"elem_us\": 1, " \
    "\"from\": [" from "] }"
#define DEFAULT "{ \"eta_compute\": 0.7, \"eta_mem\": 0.7, \"p\": 2, \"kernel_us\": 1, " \
    "\"eta_elem\": { \"norm\": 0.5, \"rope\": 0.5, \"act\": 0.5, \"add\": 0.5 }, \"elem_us\": 1 }"
#define ENGINES "  \"engines\": { \"e\": { \"iter_ms\": 1, \"seq_ms\": 0, \"first_ms\": 1, " \
    "\"source\": \"s\", \"licence\": \"l\" } }"

Test(llm, loader_checks_both_files)
{
    struct errbuf err;
    llm_catalog *c;
    char fp[PATH_MAX_LEN];
    path_resolve(fp, sizeof fp, NULL, llm_default_fit);
    char *bad = th_write("bad_llms.json",
        "{ \"models\": [\n"
        "  { \"name\": \"m\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32, \"kv_heads\": 32,\n"
        "    \"intermediate\": 11008, \"vocab\": 32000, \"max_context\": 4096,\n"
        "    \"mlp\": \"silu_gated\", \"params_b\": 7.5 } ] }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, bad, fp, &err), -1);
    cr_assert(strstr(err.msg, "bad_llms.json:4: models[0].params_b: 7.5 billion, but the "
                              "fields imply 6.738 billion") != NULL, "%s", err.msg);
    free(bad);
    bad = th_write("bad_heads.json",
        "{ \"models\": [\n"
        "  { \"name\": \"m\", \"layers\": 32, \"hidden\": 4096, \"heads\": 32, \"kv_heads\": 12,\n"
        "    \"intermediate\": 11008, \"vocab\": 32000, \"max_context\": 4096,\n"
        "    \"mlp\": \"silu_gated\", \"params_b\": 6.7 } ] }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, bad, fp, &err), -1);
    cr_assert(strstr(err.msg, "models[0].kv_heads: must divide heads") != NULL, "%s", err.msg);
    free(bad);
    char ap[PATH_MAX_LEN];
    path_resolve(ap, sizeof ap, NULL, llm_default_models);
    bad = th_write("bad_fit.json",
        "{ \"default\": { \"eta_compute\": 0.7, \"eta_mem\": 0.7, \"p\": 2, \"kernel_us\": 1,\n"
        "    \"eta_elem\": { \"norm\": 0.5, \"rope\": 0.5, \"act\": 0.5, \"add\": 0.5 },\n"
        "    \"elem_us\": 1 },\n"
        "  \"gpus\": { \"A200\": { } },\n"
        "  \"system\": { \"eta_attn\": 0.6, \"eta_link\": 0.7, \"lat_factor\": 1, \"coll_us\": 10 },\n"
        ENGINES " }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, ap, bad, &err), -1);
    cr_assert(strstr(err.msg, "bad_fit.json:4: gpus.A200: unknown GPU type 'A200'") != NULL,
              "%s", err.msg);
    free(bad);
    bad = th_write("bad_eta.json",
        "{ \"default\": { \"eta_compute\": 1.5, \"eta_mem\": 0.7, \"p\": 2, \"kernel_us\": 1,\n"
        "    \"eta_elem\": { \"norm\": 0.5, \"rope\": 0.5, \"act\": 0.5, \"add\": 0.5 },\n"
        "    \"elem_us\": 1 },\n"
        "  \"system\": { \"eta_attn\": 0.6, \"eta_link\": 0.7, \"lat_factor\": 1, \"coll_us\": 10 },\n"
        ENGINES " }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, ap, bad, &err), -1);
    cr_assert(strstr(err.msg, "bad_eta.json:1: default.eta_compute: 1.5 is out of range") !=
              NULL, "%s", err.msg);
    free(bad);
    /* the engines' overheads are profiles now, not system terms */
    bad = th_write("old_fit.json",
        "{ \"default\": " DEFAULT ",\n"
        "  \"system\": { \"eta_attn\": 0.6, \"iter_ms\": 1, \"eta_link\": 0.7, \"lat_factor\": 1,\n"
        "    \"coll_us\": 10 },\n"
        ENGINES " }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, ap, bad, &err), -1);
    cr_assert(strstr(err.msg, "old_fit.json:2: system.iter_ms: an engine's overhead: it belongs "
                              "under \"engines\"") != NULL, "%s", err.msg);
    free(bad);
    /* the default is borrowed from calibrated types: every one it names has its factors */
    bad = th_write("from_fit.json",
        "{ \"default\": " DEFAULT_FROM("\"A100-80GB\", \"T4\"") ",\n"
        "  \"gpus\": { \"A100-80GB\": " DEFAULT " },\n"
        "  \"system\": { \"eta_attn\": 0.6, \"eta_link\": 0.7, \"lat_factor\": 1, \"coll_us\": 10 },\n"
        ENGINES " }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, ap, bad, &err), -1);
    cr_assert(strstr(err.msg, "from_fit.json:1: default.from[1]: 'T4' has no factors of its own "
                              "under \"gpus\"") != NULL, "%s", err.msg);
    free(bad);
    /* an engine states its source and licence */
    bad = th_write("eng_fit.json",
        "{ \"default\": " DEFAULT ",\n"
        "  \"system\": { \"eta_attn\": 0.6, \"eta_link\": 0.7, \"lat_factor\": 1, \"coll_us\": 10 },\n"
        "  \"engines\": { \"e\": { \"iter_ms\": 1, \"seq_ms\": 0, \"first_ms\": 1,\n"
        "    \"source\": \"s\" } } }\n");
    err_clear(&err);
    cr_assert_eq(llm_load(&c, cat, ap, bad, &err), -1);
    cr_assert(strstr(err.msg, "eng_fit.json:3: engines.e.licence: required field is missing") !=
              NULL, "%s", err.msg);
    free(bad);
}
