/*
 * test_frag: FGD's fragmentation model (models/frag.h) against hand-computed cases — every
 * category of a node under one pod type, a node's amounts under a mixed distribution, and
 * the typical pods of a list (counts, FGD's tie order, the share cut and its renormalization).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../models/frag.h"

static const int32_t two[2] = { 1000, 300 };   /* a 2-GPU node: one GPU free, one at 300 */
static const struct frag_node node = { .cpu_free = 8000, .model = 0, .ngpus = 2,
                                       .gpu_free = two };

static struct frag_type type(int64_t cpu, int32_t milli, int32_t num, uint64_t models,
                             double p)
{
    return (struct frag_type){ cpu, milli, num, models, "", p };
}

Test(frag, every_category_of_one_node)
{
    struct frag_type t;
    t = type(4000, 0, 0, 0, 1);             /* CPU-only, its CPU there */
    cr_assert_eq(frag_category(&t, &node), FRAG_XL_SATISFIED);
    t = type(9000, 0, 0, 0, 1);             /* CPU-only, too much CPU */
    cr_assert_eq(frag_category(&t, &node), FRAG_XR_LACK_CPU);
    t = type(4000, 500, 1, 0, 1);           /* one GPU at 500: GPU 0 has it */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q3_SATISFIED);
    t = type(10000, 500, 1, 0, 1);          /* ... but not the CPU */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q4_LACK_CPU);
    t = type(4000, 1000, 2, 0, 1);          /* two whole GPUs: only one is free */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q2_LACK_GPU);
    t = type(10000, 1000, 2, 0, 1);         /* ... nor the CPU */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q1_LACK_BOTH);
    t = type(100, 200, 1, UINT64_C(1) << 1, 1);     /* only GPU model 1; the node has 0 */
    cr_assert_eq(frag_category(&t, &node), FRAG_NO_ACCESS);
    t = type(100, 200, 1, UINT64_C(3), 1);          /* model 0 or 1 */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q3_SATISFIED);
    t = type(100, 300, 1, 0, 1);            /* exactly the 300 left on GPU 1 fits too */
    cr_assert_eq(frag_category(&t, &node), FRAG_Q3_SATISFIED);
}

Test(frag, a_mixed_distribution_by_hand)
{
    /* idle = 1300.  A CPU-only type (XL) counts all of it; a 500-milli type can use GPU 0,
     * so only GPU 1's 300 is its fragment (Q2) and 1000 usable (Q3); two whole GPUs: all
     * (Q2); a whole GPU with 10 cores: all (Q4); a type of another model: all (NA). */
    struct frag_type ts[] = {
        type(4000, 0, 0, 0, 0.2),           /* XL 0.2 x 1300 = 260 */
        type(4000, 500, 1, 0, 0.3),         /* Q2 0.3 x 300 = 90, Q3 0.3 x 1000 = 300 */
        type(2000, 1000, 2, 0, 0.1),        /* Q2 0.1 x 1300 = 130 */
        type(10000, 1000, 1, 0, 0.25),      /* Q4 0.25 x 1300 = 325 */
        type(100, 200, 1, 2, 0.15),         /* NA 0.15 x 1300 = 195 */
    };
    double a[FRAG_NCAT];
    double f = frag_node(ts, 5, &node, a);
    cr_assert_float_eq(f, 260 + 90 + 130 + 325 + 195, 1e-9);
    cr_assert_float_eq(a[FRAG_XL_SATISFIED], 260, 1e-9);
    cr_assert_float_eq(a[FRAG_Q2_LACK_GPU], 220, 1e-9);
    cr_assert_float_eq(a[FRAG_Q3_SATISFIED], 300, 1e-9);
    cr_assert_float_eq(a[FRAG_Q4_LACK_CPU], 325, 1e-9);
    cr_assert_float_eq(a[FRAG_NO_ACCESS], 195, 1e-9);
    cr_assert_float_eq(a[FRAG_Q1_LACK_BOTH], 0, 0);
    cr_assert_float_eq(a[FRAG_XR_LACK_CPU], 0, 0);
    double sum = 0;
    for (int c = 0; c < FRAG_NCAT; c++)
        sum += a[c];
    cr_assert_float_eq(sum, 1300, 1e-9, "the split covers the idle milli");
    cr_assert_float_eq(frag_node(ts, 5, &node, NULL), f, 0, "the same without the split");

    /* a full node has nothing idle, so nothing fragmented */
    static const int32_t full[2] = { 0, 0 };
    struct frag_node busy = { 8000, 0, 2, full };
    cr_assert_float_eq(frag_node(ts, 5, &busy, a), 0, 0);
    /* taking 300 of GPU 0: the types that count all the idle milli (shares 0.2 + 0.1 + 0.25
     * + 0.15 = 0.7; the whole-GPU one now lacks GPU and CPU, Q1) lose 300 each, and the
     * 500-milli type, which still fits GPU 0 at 700, keeps its 0.3 x 300 */
    static const int32_t after[2] = { 700, 300 };
    struct frag_node n2 = { 8000, 0, 2, after };
    cr_assert_float_eq(frag_node(ts, 5, &n2, NULL), f - 0.7 * 300, 1e-9);
}

Test(frag, typical_pods_counts_ties_and_share)
{
    struct frag_type pods[10];
    int k = 0;
    for (int i = 0; i < 5; i++)
        pods[k++] = type(1000, 500, 1, 0, 0);                   /* A x5 */
    for (int i = 0; i < 3; i++)
        pods[k++] = type(2000, 0, 0, 0, 0);                     /* B x3, CPU-only */
    pods[k] = type(4000, 1000, 2, 1, 0);                        /* D: "T4" */
    pods[k++].spec = "T4";
    pods[k++] = type(4000, 1000, 2, 0, 0);                      /* C: any model */
    /* a CPU-only pod's models are no part of its request: it is B */
    pods[5].spec = "T4";
    pods[5].models = 1;
    struct frag_type *t;
    int nt;
    cr_assert_eq(frag_types_from_pods(pods, 10, 0.95, &t, &nt), 0);
    /* 9.5 of 10 pods: every type; equal counts put the larger request first ("T4" > "") */
    cr_assert_eq(nt, 4);
    cr_assert_eq(t[0].gpu_milli, 500);
    cr_assert_float_eq(t[0].p, 0.5, 1e-15);
    cr_assert_eq(t[1].gpu_milli, 0);
    cr_assert_eq(t[1].models, 0);
    cr_assert_float_eq(t[1].p, 0.3, 1e-15);
    cr_assert_str_eq(t[2].spec, "T4");
    cr_assert_float_eq(t[2].p, 0.1, 1e-15);
    cr_assert_str_eq(t[3].spec, "");
    cr_assert_float_eq(t[3].p, 0.1, 1e-15);
    free(t);
    /* 80%: A and B reach 8 of 10 exactly, and are renormalized to their share of those */
    cr_assert_eq(frag_types_from_pods(pods, 10, 0.8, &t, &nt), 0);
    cr_assert_eq(nt, 2);
    cr_assert_float_eq(t[0].p, 0.625, 1e-15);
    cr_assert_float_eq(t[1].p, 0.375, 1e-15);
    free(t);
    /* equal counts and equal GPU requests: the larger CPU first */
    struct frag_type q[2] = { type(1000, 100, 1, 0, 0), type(3000, 100, 1, 0, 0) };
    cr_assert_eq(frag_types_from_pods(q, 2, 1, &t, &nt), 0);
    cr_assert_eq(nt, 2);
    cr_assert_eq(t[0].cpu_milli, 3000);
    free(t);
    cr_assert_eq(frag_types_from_pods(q, 0, 1, &t, &nt), -1, "no pods, no distribution");
}

/* Against a direct reading of FGD's definition on random nodes and distributions: the
 * fragment is the idle milli each type could not use, weighted by its share. */
Test(frag, random_nodes_against_the_definition)
{
    srand(7);
    for (int trial = 0; trial < 2000; trial++) {
        int32_t g[8];
        int ng = 1 + rand() % 8;
        int64_t idle = 0;
        for (int i = 0; i < ng; i++)
            idle += g[i] = (int32_t)(rand() % 3 == 0 ? 1000 : rand() % 1001);
        struct frag_node n = { rand() % 32000, rand() % 3, ng, g };
        struct frag_type ts[6];
        double want = 0;
        for (int i = 0; i < 6; i++) {
            int cpu_only = rand() % 4 == 0, whole = rand() % 2;
            ts[i] = type(rand() % 24000, cpu_only ? 0 : whole ? 1000 : 1 + rand() % 999,
                         cpu_only ? 0 : whole ? 1 + rand() % 4 : 1,
                         rand() % 3 == 0 ? UINT64_C(1) << (rand() % 3) : 0, 1.0 / 6);
            int usable = 0, fit = 0;
            int64_t above = 0;
            if (!cpu_only && (ts[i].models == 0 || (ts[i].models >> n.model & 1)) &&
                n.cpu_free >= ts[i].cpu_milli) {
                for (int k = 0; k < ng; k++)
                    if (g[k] >= ts[i].gpu_milli) {
                        fit++;
                        above += g[k];
                    }
                usable = fit >= ts[i].num_gpu;
            }
            want += ts[i].p * (double)(usable ? idle - above : idle);
        }
        double got = frag_node(ts, 6, &n, NULL);
        cr_assert(fabs(got - want) < 1e-6, "trial %d: %g, want %g", trial, got, want);
        cr_assert(got <= (double)idle + 1e-9 && got >= 0);
    }
}

/* What a node offers each type, changed as a pod would change it (k GPUs from `from` to
 * `to` milli free, less CPU), gives the fragment of the changed node, to the bit. */
Test(frag, fits_after_a_change_are_the_changed_node)
{
    srand(9);
    for (int trial = 0; trial < 3000; trial++) {
        int32_t g[8];
        int ng = 1 + rand() % 8;
        for (int i = 0; i < ng; i++)
            g[i] = (int32_t)(rand() % 3 == 0 ? 1000 : rand() % 1001);
        struct frag_node n = { rand() % 32000, rand() % 3, ng, g };
        struct frag_type ts[6];
        for (int i = 0; i < 6; i++) {
            int cpu_only = rand() % 4 == 0, whole = rand() % 2;
            ts[i] = type(rand() % 24000, cpu_only ? 0 : whole ? 1000 : 1 + rand() % 999,
                         cpu_only ? 0 : whole ? 1 + rand() % 4 : 1,
                         rand() % 3 == 0 ? UINT64_C(1) << (rand() % 3) : 0, 1.0 / 6);
        }
        struct frag_fit fits[6];
        frag_fits(ts, 6, &n, fits);
        int64_t idle = 0;
        for (int i = 0; i < ng; i++)
            idle += g[i];
        /* the k GPUs with GPU 0's free milli (or none) take d of it each */
        int32_t from = g[0], to = from - (int32_t)(rand() % (from + 1));
        int k = 0;
        int32_t g2[8];
        for (int i = 0; i < ng; i++) {
            g2[i] = g[i];
            if (g[i] == from && k < 1 + rand() % 3 && rand() % 4 != 0) {
                g2[i] = to;
                k++;
            }
        }
        struct frag_node changed = { n.cpu_free - rand() % 8000, n.model, ng, g2 };
        struct frag_change ch = { changed.cpu_free, k, from, to };
        double a[FRAG_NCAT], b[FRAG_NCAT];
        double want = frag_node(ts, 6, &changed, a);
        double got = frag_of_fits(ts, 6, n.model, idle, fits, &ch, b);
        cr_assert(got == want, "trial %d: %.17g, want %.17g", trial, got, want);
        for (int c = 0; c < FRAG_NCAT; c++)
            cr_assert(a[c] == b[c], "trial %d, category %d", trial, c);
        struct frag_change none = { n.cpu_free, 0, 0, 0 };
        cr_assert(frag_of_fits(ts, 6, n.model, idle, fits, &none, NULL) ==
                  frag_node(ts, 6, &n, NULL), "trial %d: no change", trial);
    }
}
