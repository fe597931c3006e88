/*
 * test_tput: the throughput model against hand-computed values — table lookups, the
 * analytical compute and ring all-reduce terms, calibration on the nearest measured GPU,
 * link penalties, and the "cannot run" cases.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../models/tput.h"
#include "../sim/core/engine.h"
#include "../sim/train/speed.h"
#include "../sim/train/train.h"
#include "helpers.h"

static const char toy_types[] =
    "{ \"job_types\": [\n"
    "  { \"name\": \"toy-weak\", \"batch\": 32, \"scaling\": \"weak\", \"precision\": \"fp32\",\n"
    "    \"params_m\": 100, \"gflops_per_sample\": 10, \"efficiency\": 0.5, \"mem_gb\": 8 },\n"
    "  { \"name\": \"toy-strong\", \"batch\": 512, \"scaling\": \"strong\", \"precision\": \"fp16\",\n"
    "    \"params_m\": 25, \"gflops_per_sample\": 2, \"efficiency\": 0.25, \"mem_gb\": 4 },\n"
    "  { \"name\": \"toy-big\", \"batch\": 8, \"scaling\": \"weak\", \"precision\": \"fp32\",\n"
    "    \"params_m\": 1000, \"gflops_per_sample\": 100, \"efficiency\": 0.5, \"mem_gb\": 20 },\n"
    "  { \"name\": \"toy-measured\", \"batch\": 64, \"scaling\": \"weak\", \"precision\": \"fp32\",\n"
    "    \"params_m\": 50, \"gflops_per_sample\": 5, \"efficiency\": 0.3, \"mem_gb\": 6 },\n"
    "  { \"name\": \"toy-accum\", \"batch\": 256, \"scaling\": \"strong\", \"precision\": \"fp16\",\n"
    "    \"params_m\": 25, \"gflops_per_sample\": 2, \"efficiency\": 0.25, \"mem_gb\": 4,\n"
    "    \"max_local_batch\": 64 }\n"
    "] }\n";

static const char toy_profile[] =
    "# measured only on V100\n"
    "job_type,gpu,workers,placement,iters_per_s\n"
    "toy-measured,V100,1,consolidated,10\n"
    "toy-measured,V100,2,consolidated,18\n"
    "toy-measured,V100,4,spread,20\n"
    "toy-measured,K80,1,consolidated,0\n";

static catalog *cat;
static tput *m;
static int gv100, ga100, gk80, gt4, pcie3, nvlink2, eth25;

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char *tp = th_write("toy_types.json", toy_types);
    char *pp = th_write("toy_profile.csv", toy_profile);
    cr_assert_eq(tput_create(&m, cat, &err), 0);
    cr_assert_eq(tput_load_types(m, tp, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_load_profile(m, pp, &err), 0, "%s", err.msg);
    free(tp);
    free(pp);
    gv100 = catalog_gpu_find(cat, "V100-16GB");
    ga100 = catalog_gpu_find(cat, "A100-40GB");
    gk80 = catalog_gpu_find(cat, "K80");
    gt4 = catalog_gpu_find(cat, "T4");
    pcie3 = catalog_link_find(cat, "pcie3");
    nvlink2 = catalog_link_find(cat, "nvlink2");
    eth25 = catalog_link_find(cat, "ethernet-25g");
}

static void teardown(void)
{
    tput_destroy(m);
    catalog_destroy(cat);
}

static double rate(const char *jt, int gpu, int n, int nodes, int link)
{
    struct placement p = { gpu, n, nodes, link };
    return tput_rate(m, tput_find(m, jt), &p);
}

TestSuite(tput, .init = setup, .fini = teardown);

Test(tput, analytical_compute_is_flops_over_peak)
{
    /* 32 samples x 10 GFLOP / (15.7 TFLOP/s x 1e3 x 0.5) */
    double want = 32 * 10 / (15.7e3 * 0.5);
    cr_assert_float_eq(tput_compute_s(m, tput_find(m, "toy-weak"), gv100, 1), want, 1e-12);
    cr_assert_float_eq(rate("toy-weak", gv100, 1, 1, -1), 1 / want, 1e-9);
}

Test(tput, ring_allreduce_over_the_slowest_link)
{
    /* 2 (n-1)/n * S / B + 2 (n-1) * lat: S = 100e6 x 4 B = 0.4 GB, pcie3 15.75 GB/s, 5 us */
    double want = 2.0 * 3 / 4 * 0.4 / 15.75 + 2 * 3 * 5e-6;
    cr_assert_float_eq(tput_allreduce_s(m, tput_find(m, "toy-weak"), 4, pcie3), want, 1e-12);
    cr_assert_float_eq(tput_allreduce_s(m, tput_find(m, "toy-weak"), 1, pcie3), 0, 1e-15);
    /* weak scaling: 4 workers each stepping every t_compute + t_allreduce */
    double tc = 32 * 10 / (15.7e3 * 0.5);
    cr_assert_float_eq(rate("toy-weak", gv100, 4, 1, pcie3), 4 / (tc + want), 1e-9);
}

Test(tput, strong_scaling_splits_the_global_batch)
{
    /* fp16 peak of A100: 312 TFLOP/s; 512 samples split over 4 workers */
    int jt = tput_find(m, "toy-strong");
    double tc = 512.0 / 4 * 2 / (312e3 * 0.25);
    cr_assert_float_eq(tput_compute_s(m, jt, ga100, 4), tc, 1e-12);
    double ar = 2.0 * 3 / 4 * 0.1 / 150 + 2 * 3 * 2e-6;     /* 25e6 x 4 B over nvlink2 */
    cr_assert_float_eq(rate("toy-strong", ga100, 4, 1, nvlink2), 1 / (tc + ar), 1e-9);
}

Test(tput, too_little_memory_cannot_run)
{
    /* toy-big needs 20 GB per worker: fits an A100-40GB, not a 16 GB V100 or T4 */
    cr_assert_gt(rate("toy-big", ga100, 1, 1, -1), 0);
    cr_assert_eq(rate("toy-big", gv100, 1, 1, -1), 0);
    cr_assert_eq(rate("toy-big", gt4, 2, 1, pcie3), 0);
}

Test(tput, measured_values_are_used_as_is)
{
    cr_assert_float_eq(rate("toy-measured", gv100, 1, 1, -1), 10, 1e-12);
    cr_assert_float_eq(rate("toy-measured", gv100, 2, 1, nvlink2), 18, 1e-12);
    /* the spread measurement ran on ethernet-25g (the assumed link); a faster IB network
     * does not extrapolate a speed-up beyond what was measured */
    cr_assert_float_eq(rate("toy-measured", gv100, 4, 2, catalog_link_find(cat, "ib-100g")), 20, 1e-12);
    cr_assert_float_eq(tput_measured(m, tput_find(m, "toy-measured"), gv100, 3, 0), -1, 0);
}

Test(tput, a_slower_link_than_measured_pays_the_difference)
{
    /* 2 V100 measured consolidated (assumed on its NVLink2) at 18/s, i.e. 2/18 s per
     * iteration; on PCIe 3 it also pays the all-reduce difference */
    int jt = tput_find(m, "toy-measured");
    double t = 2.0 / 18 + tput_allreduce_s(m, jt, 2, pcie3) - tput_allreduce_s(m, jt, 2, nvlink2);
    cr_assert_float_eq(rate("toy-measured", gv100, 2, 1, pcie3), 2 / t, 1e-9);
    /* by hand: S = 0.2 GB; pcie3 0.2/15.75 + 10us, nvlink2 0.2/150 + 4us */
    double t_hand = 2.0 / 18 + (0.2 / 15.75 + 10e-6) - (0.2 / 150 + 4e-6);
    cr_assert_float_eq(t, t_hand, 1e-12);
}

Test(tput, unmeasured_gpu_is_calibrated_on_the_nearest_measured_one)
{
    /* measured 1-worker rates: V100 10/s (15.7 TF) and K80 0 (cannot run, so not a
     * calibration point).  A100 (19.5 TF): t = 0.1 s x 15.7 / 19.5 */
    int jt = tput_find(m, "toy-measured");
    cr_assert_float_eq(tput_compute_s(m, jt, ga100, 1), 0.1 * 15.7 / 19.5, 1e-12);
    cr_assert_float_eq(rate("toy-measured", ga100, 1, 1, -1), 19.5 / 15.7 / 0.1, 1e-9);
}

Test(tput, zero_in_a_table_means_cannot_run)
{
    cr_assert_eq(rate("toy-measured", gk80, 1, 1, -1), 0);
    cr_assert_eq(rate("toy-measured", gk80, 2, 1, pcie3), 0);
}

Test(tput, other_placement_class_swaps_its_allreduce)
{
    /* V100 x4 measured spread (20/s on assumed ethernet-25g); consolidated on NVLink2 is
     * estimated by swapping the all-reduce terms: 4/20 - ar(eth25) + ar(nvlink2) */
    /* by hand, S = 0.2 GB: ar(eth25) = 1.5 x 0.2 / 3.125 + 6 x 20us = 0.09612 s;
     * 0.2 - 0.09612 = 0.10388 s, above the 0.1 s compute floor (1 / 10 per worker);
     * ar(nvlink2) = 1.5 x 0.2 / 150 + 6 x 2us = 0.002012 s  ->  4 / 0.105892 */
    (void)eth25;
    cr_assert_float_eq(rate("toy-measured", gv100, 4, 1, nvlink2), 4 / 0.105892, 1e-6);
}

Test(tput, shipped_gavel_table)
{
    tput *g = th_models(cat);
    int jt = tput_find(g, "ResNet-50 (batch size 64)");
    cr_assert_geq(jt, 0);
    cr_assert_float_eq(tput_measured(g, jt, gv100, 1, 0), 4.394774823323071, 1e-12);
    cr_assert_float_eq(tput_measured(g, jt, gv100, 4, 1), 11.136430014818272, 1e-12);
    /* Heet's table is not shipped (no licence): its job types have fits instead */
    int vgg = tput_find(g, "VGG-19 CIFAR-10 (batch size 512)");
    cr_assert_eq(tput_measured(g, vgg, gt4, 2, 0), -1);
    cr_assert_not_null(tput_fit_of(g, vgg, gt4));
    tput_destroy(g);
}

Test(tput, restore_time_from_the_checkpoint)
{
    /* ckpt_gb defaults to 12 bytes per parameter: 100e6 x 12 = 1.2 GB; 10 s + 1.2 / 2 */
    cr_assert_float_eq(tput_restore_s(m, tput_find(m, "toy-weak"), 10, 2), 10.6, 1e-12);
}

Test(tput, remembered_rates_follow_new_measurements)
{
    /* A100 is modelled from the V100 measurement (19.5 / 15.7 x 10/s); asking twice gives the
     * same bits, and a profile loaded afterwards that measures it replaces the answer */
    double modelled = rate("toy-measured", ga100, 1, 1, -1);
    cr_assert_float_eq(modelled, 19.5 / 15.7 / 0.1, 1e-9);
    cr_assert_eq(memcmp(&(double){ rate("toy-measured", ga100, 1, 1, -1) }, &modelled,
                        sizeof modelled), 0);
    char *pp = th_write("toy_a100.csv", "job_type,gpu,workers,placement,iters_per_s\n"
                                        "toy-measured,A100-40GB,1,consolidated,7\n");
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(tput_load_profile(m, pp, &err), 0, "%s", err.msg);
    free(pp);
    cr_assert_float_eq(rate("toy-measured", ga100, 1, 1, -1), 7, 1e-12);
    /* and one-worker placements do not depend on the nodes field */
    cr_assert_float_eq(rate("toy-measured", ga100, 1, 2, -1), 7, 1e-12);
}

Test(tput, step_split_is_the_allreduce_and_the_rest)
{
    /* toy-accum on 4 A100 over nvlink2: compute 256 / 4 x 2 GFLOP / (312e3 x 0.25), ring
     * all-reduce of 25e6 x 4 B = 0.1 GB at 150 GB/s, 2 us */
    int jt = tput_find(m, "toy-accum");
    double tc = 256.0 / 4 * 2 / (312e3 * 0.25), ar = 2.0 * 3 / 4 * 0.1 / 150 + 2 * 3 * 2e-6;
    struct placement p = { ga100, 4, 1, nvlink2 };
    double step, sync, fixed;
    cr_assert_eq(tput_step_split(m, jt, &p, &step, &sync, &fixed), 0);
    cr_assert_float_eq(fixed, 0, 1e-15);
    cr_assert_float_eq(step, tc + ar, 1e-12);
    cr_assert_float_eq(sync, ar, 1e-12);
    /* one GPU: nothing to synchronize */
    struct placement one = { ga100, 1, 1, -1 };
    cr_assert_eq(tput_step_split(m, jt, &one, &step, &sync, &fixed), 0);
    cr_assert_float_eq(step, 256.0 * 2 / (312e3 * 0.25), 1e-12);
    cr_assert_float_eq(sync, 0, 1e-15);
    cr_assert_eq(tput_type(m, jt)->max_local_batch, 64);
}

Test(tput, own_batch_accumulates_the_compute_only)
{
    int jt = tput_find(m, "toy-accum");
    double tc = 256.0 / 4 * 2 / (312e3 * 0.25), ar = 2.0 * 3 / 4 * 0.1 / 150 + 2 * 3 * 2e-6;
    struct placement p = { ga100, 4, 1, nvlink2 };
    /* the type's own batch: local 64 = max_local_batch, no accumulation, tput_rate's rate */
    cr_assert_float_eq(train_speed_batch_on(m, jt, 256, &p), 1 / (tc + ar), 1e-9);
    cr_assert_float_eq(train_speed_batch_on(m, jt, 256, &p), tput_rate(m, jt, &p), 1e-9);
    /* 1024: local 256, accum ceil(256 / 64) - 1 = 3, atomic 64: step + 3 x compute */
    cr_assert_float_eq(train_speed_batch_on(m, jt, 1024, &p), 1 / (tc + ar + 3 * tc), 1e-9);
    /* 600: local 150, accum 2, atomic ceil(150 / 3) = 50: 3 x compute(50) + all-reduce */
    cr_assert_float_eq(train_speed_batch_on(m, jt, 600, &p), 1 / (3 * tc * 50 / 64 + ar), 1e-9);
    /* 200: local 50, no accumulation: compute(50) + all-reduce */
    cr_assert_float_eq(train_speed_batch_on(m, jt, 200, &p), 1 / (tc * 50 / 64 + ar), 1e-9);
    /* a type without max_local_batch never accumulates: toy-strong at 1024 on 4 A100 runs
     * local 256, twice its own local 128 */
    int js = tput_find(m, "toy-strong");
    double tcs = 512.0 / 4 * 2 / (312e3 * 0.25);
    cr_assert_float_eq(train_speed_batch_on(m, js, 1024, &p), 1 / (2 * tcs + ar), 1e-9);
}

/* one job, one A100, batch 512 of toy-accum: local 512, accum 7, atomic 64, so one
 * optimizer step is 8 x the compute of 64 samples; 1000 steps (a first start costs no
 * restore; times are whole microseconds) */
Test(tput, a_job_with_its_own_batch_finishes_at_the_accumulated_pace)
{
    cluster *cl = th_cluster(cat, "{\"network\": \"ethernet-25g\", \"groups\": [{\"count\": "
                                  "1, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 1}]}");
    int jt = tput_find(m, "toy-accum");
    struct job_spec jobs[2] = {
        { .id = 0, .arrival = 0, .jtype = jt, .workers = 1, .work = 1000, .weight = 1,
          .batch = 512 },
        { .id = 1, .arrival = 0, .jtype = jt, .workers = 1, .work = 1000, .weight = 1 } };
    struct train_config cfg = { .restore_delay_s = 10, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, m, jobs, 2, "fifo", NULL, &cfg);
    double t64 = 64.0 * 2 / (312e3 * 0.25), t256 = 256.0 * 2 / (312e3 * 0.25);
    /* fifo runs job 0 first, then job 1 (no batch: its type's 256, one step of t256) */
    const struct th_rec *a = th_find(&r, 0), *b = th_find(&r, 1);
    cr_assert_float_eq(a->finish, 1000 * 8 * t64, 2e-6, "%.9f", a->finish);
    cr_assert_float_eq(b->finish, a->finish + 1000 * t256, 2e-6, "%.9f", b->finish);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(tput, a_fit_tells_its_own_sync_and_fixed_compute)
{
    /* a fit of toy-accum on T4 (pcie3): 0.01 s per step, 1 ms per sample, sync 0.05 x 2 (n-1)
     * / n + 2 ms per extra worker, no overlap.  On 2 T4: 128 samples per worker, step 0.01 +
     * 0.128 + 0.052 = 0.19 s, of which 0.052 s sync and 0.01 s fixed */
    int jt = tput_find(m, "toy-accum");
    struct tput_fit f = { .sample_s = 0.001, .step_s = 0.01, .sync_s = 0.05, .worker_s = 0.002,
                          .overlap = 0, .link = pcie3 };
    cr_assert_eq(tput_set_fit(m, jt, gt4, &f), 0);
    struct placement p = { gt4, 2, 1, pcie3 };
    double step, sync, fixed;
    cr_assert_eq(tput_step_split(m, jt, &p, &step, &sync, &fixed), 0);
    cr_assert_float_eq(step, 0.19, 1e-12);
    cr_assert_float_eq(sync, 0.052, 1e-12);
    cr_assert_float_eq(fixed, 0.01, 1e-12);
    /* batch 512 on 2: local 256, accum 3, atomic 64: step(64) = 0.052 + 0.01 + 0.064 =
     * 0.126, and 3 more passes of its compute, 0.074 each */
    cr_assert_float_eq(train_speed_batch_on(m, jt, 512, &p), 1 / (0.126 + 3 * 0.074), 1e-9);
}

/* A copy answers as its source does and then goes its own way: a table entry added to the
 * copy is not in the source, and the source's rates stay as they were. */
Test(tput, a_copy_is_independent_of_its_source)
{
    struct errbuf err;
    err_clear(&err);
    tput *c;
    cr_assert_eq(tput_copy(&c, m, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_ntypes(c), tput_ntypes(m));
    int jt = tput_find(c, "toy-measured");
    cr_assert_eq(jt, tput_find(m, "toy-measured"));
    struct placement p = { gv100, 2, 1, nvlink2 };
    cr_assert_float_eq(tput_rate(c, jt, &p), 18, 1e-12);
    struct placement q = { gt4, 1, 1, -1 };
    double before = tput_rate(m, jt, &q);
    cr_assert_float_eq(tput_rate(c, jt, &q), before, 1e-12);
    cr_assert_eq(tput_put_measured(c, jt, gt4, 1, 0, 3, &err), 0);
    cr_assert_float_eq(tput_rate(c, jt, &q), 3, 1e-12);
    cr_assert_float_eq(tput_rate(m, jt, &q), before, 1e-12);
    cr_assert_lt(tput_measured(m, jt, gt4, 1, 0), 0);
    tput_destroy(c);
}

/* A copy of the shipped model (Gavel's table, Heet's fits, the analytical model) gives every
 * rate the original gives: every job type on every GPU type with 1 to 8 workers, packed and
 * spread. */
Test(tput, a_copy_of_the_shipped_model_answers_as_it_does)
{
    catalog *sc = th_catalog();
    tput *sm = th_models(sc), *c;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(tput_copy(&c, sm, &err), 0, "%s", err.msg);
    int eth = catalog_link_find(sc, "ethernet-25g"), fitted = 0;
    for (int jt = 0; jt < tput_ntypes(sm); jt++)
        for (int g = 0; g < catalog_ngpus(sc); g++) {
            fitted += tput_fit_of(sm, jt, g) != NULL;
            const struct gpu_spec *gs = catalog_gpu(sc, g);
            for (int w = 1; w <= 8; w *= 2)
                for (int nodes = 1; nodes <= 2; nodes++) {
                    struct placement p = { g, w, nodes, -1 };
                    if (w > 1)
                        p.link = nodes > 1 ? eth : gs->nvlink >= 0 ? gs->nvlink : gs->pcie;
                    cr_assert_eq(tput_rate(c, jt, &p), tput_rate(sm, jt, &p), "%s on %d %s",
                                 tput_type(sm, jt)->name, w, gs->name);
                }
        }
    cr_assert_gt(fitted, 0, "the shipped model has fits: the copy must carry them");
    tput_destroy(c);
    tput_destroy(sm);
    catalog_destroy(sc);
}
