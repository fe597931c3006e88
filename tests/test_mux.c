/*
 * test_mux: GPU multiplexing — the batch-size model (stateff) and the interference model
 * (interference) against hand-computed values, the factorisation's error on held-back
 * measured pairs, the shared-GPU speed hook inside the training world (re-rating touches
 * only co-runners, batch changes, memory refused), IADeep's tuner never worse than the
 * untuned point, and the multiplexing policies end to end through the CLI and the database
 * (no GPU's share over-committed over random runs, determinism).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../models/interference.h"
#include "../models/stateff.h"
#include "../sched/multiplex/intfpred.h"
#include "../sched/multiplex/mux.h"
#include "../sched/policy.h"
#include "../sim/base/jobj.h"
#include "../sim/base/jsonf.h"
#include "../sim/base/rng.h"
#include "../sim/base/tio.h"
#include "../sim/train/share.h"
#include "../sim/train/train.h"
#include "helpers.h"

double iadeep_tune(struct mux *m, const struct train_view *v, int gpu, int ncand,
                   const intfpred *pred);

/* ---------------------------------------------------------------- stateff */

Test(stateff, hand_computed_values)
{
    /* GNS 100, m0 32, m 64: E = 132 / 164 */
    cr_assert_float_eq(stateff_eff(100, 32, 64), 132.0 / 164.0, 1e-12);
    struct stateff_job j = { .m0 = 32, .gns = 100, .overhead = 0.1, .fixed_gb = 1,
                             .per_sample_gb = 0.05 };
    cr_assert_float_eq(stateff_time_ratio(&j, 64), 0.1 + 0.9 * 2, 1e-12);
    /* progress = ns (m / m0) E / t-ratio = 0.5 x 2 x 0.804878 / 1.9 */
    cr_assert_float_eq(stateff_progress(&j, 64, 0.5), 0.5 * 2 * (132.0 / 164.0) / 1.9, 1e-12);
    cr_assert_float_eq(stateff_progress(&j, 32, 1), 1, 1e-12);
    /* PD = (t_co / t_m0) (m0 / m) / E = 2 x 0.5 / 0.804878 = 1.242424 */
    cr_assert_float_eq(stateff_pd(2, 1, 32, 64, 132.0 / 164.0), 164.0 / 132.0, 1e-12);
    /* PD is the inverse of progress: t_co = t(m) / ns */
    double tco = stateff_time_ratio(&j, 64) / 0.5;
    cr_assert_float_eq(stateff_pd(tco, 1, 32, 64, stateff_eff(100, 32, 64)),
                       1 / stateff_progress(&j, 64, 0.5), 1e-12);
    cr_assert_float_eq(stateff_mem_gb(&j, 64), 1 + 3.2, 1e-12);
}

Test(stateff, candidates_lie_in_half_to_one_and_a_half_m_and_hold_m)
{
    int c[16];
    int n = stateff_candidates(128, c, 8);
    int want[] = { 64, 80, 96, 112, 128, 144, 160, 176 };
    cr_assert_eq(n, 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(c[i], want[i]);
    n = stateff_candidates(5, c, 8);            /* [3, 7): 3 4 5 6 */
    cr_assert_eq(n, 4);
    cr_assert_eq(c[0], 3);
    cr_assert_eq(c[3], 6);
    for (int m = 1; m < 300; m++) {
        n = stateff_candidates(m, c, 8);
        int has = 0;
        for (int i = 0; i < n; i++) {
            cr_assert(2 * c[i] >= m && 2 * c[i] < 3 * m + (m == 1 ? 2 : 0), "m %d: %d", m, c[i]);
            cr_assert(i == 0 || c[i] > c[i - 1], "m %d: not ascending", m);
            has |= c[i] == m;
        }
        cr_assert(has, "m %d missing from its candidates", m);
    }
}

/* ---------------------------------------------------------------- interference */

Test(interference, measured_repeated_additive_and_clamped)
{
    intf *m;
    struct errbuf err;
    cr_assert_eq(intf_create(&m, 3, 2), 0);
    int ab[] = { 0, 1 }, ba[] = { 1, 0 }, aa[] = { 0, 0 }, abc[] = { 2, 0, 1 }, ac[] = { 0, 2 };
    cr_assert_eq(intf_add(m, 0, ab, 2, (double[]){ 0.5, 0.25 }), 0);
    cr_assert_eq(intf_add(m, 0, ba, 2, (double[]){ 0.35, 0.7 }), 0);   /* a 0.6, b 0.3 */
    cr_assert_eq(intf_add(m, 0, aa, 2, (double[]){ -0.1, -0.1 }), 0);
    cr_assert_eq(intf_add(m, 0, ac, 2, (double[]){ 0.2, 0.4 }), 0);
    cr_assert_eq(intf_add(m, 0, abc, 3, (double[]){ 0.9, 1.0, 1.1 }), 0);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_count(m), 4);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1 }, 1), 0.6, 1e-12);    /* mean */
    cr_assert_float_eq(intf_slowdown(m, 0, 1, (int[]){ 0 }, 1), 0.3, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 0 }, 1), 0, 1e-12);      /* clamped */
    /* the measured triple, whatever the order of the others */
    cr_assert_float_eq(intf_slowdown(m, 0, 1, (int[]){ 2, 0 }, 2), 1.1, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, 0, 2, (int[]){ 0, 1 }, 2), 0.9, 1e-12);
    /* an unmeasured triple adds the pairs: a with b and c = 0.6 + 0.2 */
    cr_assert(!intf_measured(m, 0, 0, (int[]){ 1, 2, 2 }, 3));
    double s = intf_slowdown(m, 0, 0, (int[]){ 1, 2 }, 2);
    cr_assert_float_eq(s, 1.0, 1e-12);                  /* (a,b,c) is measured: a = 1.0 */
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1, 1 }, 2), 0.6 + 0.6, 1e-12);
    /* GPU type 1 has no data: it borrows type 0's */
    cr_assert_float_eq(intf_slowdown(m, 1, 0, (int[]){ 1 }, 1), 0.6, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, NULL, 0), 0, 1e-12);
    intf_destroy(m);
}

/* an online predictor adds after a fit: the next fit averages over every measurement */
Test(interference, measurements_after_a_fit_average_with_the_earlier_ones)
{
    intf *m;
    struct errbuf err;
    cr_assert_eq(intf_create(&m, 3, 1), 0);
    cr_assert_eq(intf_add(m, 0, (int[]){ 0, 1 }, 2, (double[]){ 0.6, 0.3 }), 0);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1 }, 1), 0.6, 1e-12);
    cr_assert(!intf_measured(m, 0, 0, (int[]){ 2 }, 1));
    cr_assert_eq(intf_add(m, 0, (int[]){ 1, 0 }, 2, (double[]){ 0.6, 0.3 }), 0);
    cr_assert_eq(intf_add(m, 0, (int[]){ 0, 1 }, 2, (double[]){ 1.2, 0.0 }), 0);
    cr_assert_eq(intf_add(m, 0, (int[]){ 0, 2 }, 2, (double[]){ 0.2, 0.1 }), 0);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1 }, 1), 0, 0, "unfitted: nothing");
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1 }, 1), (0.6 + 0.3 + 1.2) / 3, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, 0, 1, (int[]){ 0 }, 1), (0.3 + 0.6 + 0.0) / 3, 1e-12);
    cr_assert_eq(intf_count(m), 2);
    cr_assert_eq(intf_add(m, 0, (int[]){ 0, 1 }, 2, (double[]){ 0.3, 0.3 }), 0);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0);
    cr_assert_float_eq(intf_slowdown(m, 0, 0, (int[]){ 1 }, 1), (2.1 + 0.3) / 4, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, 0, 2, (int[]){ 0 }, 1), 0.1, 1e-12);
    intf_destroy(m);
}

/* the share law and its inverse by hand */
Test(interference, share_law_and_its_inverse_by_hand)
{
    /* d 0.5, two co-runners of pressures 1.2 and 0.8, share 333: w = 0.667 x 3 / 2 */
    double w = (1 - 0.333) * 3 / 2, ns = 1 / (1 + w * 0.5 * 2.0 / 2);
    cr_assert_float_eq(intf_ns(0.5, 2.0, 2, 333), ns, 1e-15);
    cr_assert_float_eq(intf_unshare(ns, 2.0, 2, 333), 0.5, 1e-12);
    /* one co-runner, even shares: ns = 1 / (1 + d p) */
    cr_assert_float_eq(intf_ns(0.25, 1.5, 1, 500), 1 / (1 + 0.25 * 1.5), 1e-15);
    cr_assert_float_eq(intf_unshare(1 / 1.6, 1.5, 1, 500), 0.4, 1e-12);
    /* a whole share beside others leaves no trace of d: nothing to learn */
    cr_assert_float_eq(intf_ns(3, 1, 1, 1000), 1, 0);
    cr_assert(isnan(intf_unshare(0.9, 1, 1, 1000)));
    cr_assert(isnan(intf_unshare(0, 1, 1, 500)));
    cr_assert_lt(intf_unshare(1.1, 1, 1, 500), 0, "faster than alone: a negative slowdown");
}

Test(interference, factorisation_recovers_a_rank_two_matrix_on_held_back_cells)
{
    /* value(r, c) = 0.5 + u_r . v_c, rank 2; 20% of the cells held back */
    enum { N = 12 };
    struct intf_rating tr[N * N], test[N * N];
    int ntr = 0, nte = 0;
    gsl_rng *g = rng_stream(7, "test_mf");
    double u[N][2], w[N][2];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++) {
            u[i][k] = gsl_rng_uniform(g) - 0.5;
            w[i][k] = gsl_rng_uniform(g) - 0.5;
        }
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            double v = 0.5 + u[r][0] * w[c][0] + u[r][1] * w[c][1];
            if ((r * N + c) % 5 == 0)
                test[nte++] = (struct intf_rating){ r, c, v };
            else
                tr[ntr++] = (struct intf_rating){ r, c, v };
        }
    gsl_rng_free(g);
    struct intf_mf p = { .rank = 2, .lr = 0.02, .reg = 0.0005, .epochs = 3000 };
    struct intf_mf_model fit;
    cr_assert_eq(intf_mf_fit(tr, ntr, N, N, &p, 1, &fit), 0);
    double held = intf_mf_rmse(&fit, test, nte);
    /* the spread of the values around their mean, what predicting the mean would err by */
    double mu = 0, sd = 0;
    for (int i = 0; i < nte; i++)
        mu += test[i].value / nte;
    for (int i = 0; i < nte; i++)
        sd += (test[i].value - mu) * (test[i].value - mu) / nte;
    sd = sqrt(sd);
    cr_assert(held < 0.25 * sd, "held-back RMSE %g vs spread %g", held, sd);
    intf_mf_free(&fit);
    /* same seed, same factors */
    struct intf_mf_model a, b;
    intf_mf_fit(tr, ntr, N, N, &intf_mf_default, 3, &a);
    intf_mf_fit(tr, ntr, N, N, &intf_mf_default, 3, &b);
    cr_assert_eq(memcmp(a.p, b.p, sizeof(double) * N * 2), 0);
    intf_mf_free(&a);
    intf_mf_free(&b);
}

static tput *shipped_models(catalog **cat)
{
    *cat = th_catalog();
    return th_models(*cat);
}

Test(interference, gavel_pairs_with_iadeep_settings_on_held_back_rows)
{
    /* Gavel's V100 pairs, every fifth held back; IADeep's settings (rank 2, lr 2e-4, reg
     * 0.02, 50 epochs) must predict the held-back slowdowns better than their mean does */
    catalog *cat;
    tput *t = shipped_models(&cat);
    intf *m;
    struct errbuf err;
    char path[4096];
    snprintf(path, sizeof path, "%s/models/data/interference/gavel_pairs.csv", getenv("HETSIM_DATA"));
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    cr_assert_eq(intf_load_gavel(m, t, path, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0, "%s", err.msg);
    /* the file's first row: k80, ResNet-18 b16 with b32, norm speeds 0.5297 and 0.4348 */
    int k80 = catalog_gpu_find(cat, "K80"), v100 = catalog_gpu_find(cat, "V100-16GB");
    int r16 = tput_find(t, "ResNet-18 (batch size 16)"), r32 = tput_find(t, "ResNet-18 (batch size 32)");
    cr_assert_float_eq(intf_slowdown(m, k80, r16, &r32, 1), 1 / 0.5297 - 1, 1e-9);
    cr_assert_float_eq(intf_slowdown(m, k80, r32, &r16, 1), 1 / 0.4348 - 1, 1e-9);
    static struct intf_rating all[4096], tr[4096], te[1024];
    int n = intf_pairs(m, v100, all, 4096), ntr = 0, nte = 0;
    cr_assert(n > 500, "%d V100 pairs", n);
    for (int i = 0; i < n; i++) {
        if (i % 5 == 0)
            te[nte++] = all[i];
        else
            tr[ntr++] = all[i];
    }
    struct intf_mf_model fit;
    cr_assert_eq(intf_mf_fit(tr, ntr, tput_ntypes(t), tput_ntypes(t), &intf_mf_default, 1, &fit), 0);
    double held = intf_mf_rmse(&fit, te, nte), mu = 0, base = 0;
    for (int i = 0; i < ntr; i++)
        mu += tr[i].value / ntr;
    for (int i = 0; i < nte; i++)
        base += (te[i].value - mu) * (te[i].value - mu) / nte;
    base = sqrt(base);
    cr_log_info("Gavel V100 pairs: held-back RMSE %.4f (mean predictor %.4f), %d/%d rows",
                held, base, nte, n);
    cr_assert(held < base, "held-back RMSE %g, predicting the mean %g", held, base);
    intf_mf_free(&fit);
    intf_destroy(m);
    tput_destroy(t);
    catalog_destroy(cat);
}

Test(interference, iadeep_combinations_split_their_sum)
{
    const char *dir = th_shared_dir("traces/iadeep");
    if (dir == NULL)
        cr_skip_test("../shared/traces/iadeep is not here");
    catalog *cat;
    tput *t = shipped_models(&cat);
    intf *m;
    struct errbuf err;
    char path[4096];
    snprintf(path, sizeof path, "%s/iadeep-scheduler-extender__online_interference.csv", dir);
    int gpu = catalog_gpu_find(cat, "RTX3090");
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    cr_assert_eq(intf_load_iadeep(m, t, path, gpu, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0, "%s", err.msg);
    int vgg = tput_find(t, "vgg16"), sq = tput_find(t, "squeezenet");
    /* row 3: vgg16 + squeezenet, sum 0.931930155166, split evenly */
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &sq, 1), 0.931930155166 / 2, 1e-9);
    /* row 2: two vgg16 ("10"), sum 0.732301000092 */
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &vgg, 1), 0.732301000092 / 2, 1e-9);
    /* "11": three vgg16, 2.340137424504 */
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, (int[]){ vgg, vgg }, 2), 2.340137424504 / 3,
                       1e-9);
    intf_destroy(m);
    tput_destroy(t);
    catalog_destroy(cat);
}

/* Lucid's reader on invented rows: the rules (fp32 and one GPU only, the batch nearest m0,
 * mapped names, same-type pairs symmetric) by hand */
Test(interference, lucid_rows_by_hand)
{
    catalog *cat;
    tput *t = shipped_models(&cat);
    static const char csv[] =
        ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,"
        "amp2,speed2,gpu_util,gmem_util,gmem\n"
        "0,Alpha,D,1,128,0,0.5,Beta,E,1,64,0,0.8,90,50,4000\n"        /* used */
        "1,Alpha,D,1,32,0,0.1,Beta,E,1,64,0,0.1,90,50,4000\n"         /* 32: not nearest 128 */
        "2,Alpha,D,1,128,1,0.1,Beta,E,1,64,0,0.1,90,50,4000\n"        /* amp */
        "3,Alpha,D,2,128,0,0.1,Beta,E,1,64,0,0.1,90,50,4000\n"        /* two GPUs */
        "4,Alpha,D,1,128,0,0.8,Alpha,D,1,128,0,0.4,90,50,4000\n"      /* same type: mean */
        "5,Alpha,D,1,128,0,0.1,Gamma,F,1,64,0,0.1,90,50,4000\n";      /* Gamma not mapped */
    char *path = th_write("lucid_hand.csv", csv);
    static const char *const map[] = { "Alpha", "vgg16", "Beta", "lstm" };
    intf *m;
    struct errbuf err;
    err_clear(&err);
    int gpu = catalog_gpu_find(cat, "RTX3090"), vgg = tput_find(t, "vgg16"),
        lstm = tput_find(t, "lstm");
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    cr_assert_eq(intf_load_lucid(m, t, path, gpu, map, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_count(m), 2);
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &lstm, 1), 1 / 0.5 - 1, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, gpu, lstm, &vgg, 1), 1 / 0.8 - 1, 1e-12);
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &vgg, 1), (1 / 0.8 + 1 / 0.4) / 2 - 1, 1e-12);
    intf_destroy(m);
    /* without a map the names must be job types */
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    cr_assert_eq(intf_load_lucid(m, t, path, gpu, NULL, 0, &err), -1);
    cr_assert(strstr(err.msg, ":2: model1") != NULL && strstr(err.msg, "'Alpha'") != NULL,
              "%s", err.msg);
    intf_destroy(m);
    free(path);
    tput_destroy(t);
    catalog_destroy(cat);
}

/* Lucid's own file (non-commercial: read from ../shared, never copied): slowdowns read by
 * hand from its rows, fp32, one GPU, at the batch nearest each job type's m0 */
Test(interference, lucid_pairs_from_the_shared_file)
{
    const char *dir = th_shared_dir("traces/gpu_colocation");
    char path[4096];
    FILE *probe = NULL;
    if (dir != NULL) {
        snprintf(path, sizeof path, "%s/lucid_colocate_info.csv", dir);
        probe = fopen(path, "r");
    }
    if (probe == NULL)
        cr_skip_test("../shared/traces/gpu_colocation/lucid_colocate_info.csv is not here");
    fclose(probe);
    catalog *cat;
    tput *t = shipped_models(&cat);
    static const char *const map[] = { "VGG", "vgg16", "LSTM", "lstm", "NeuMF", "neumf",
                                       "ResNet18", "resnet50", "MobileNetV2", "squeezenet" };
    intf *m;
    struct errbuf err;
    err_clear(&err);
    int gpu = catalog_gpu_find(cat, "RTX3090");
    int vgg = tput_find(t, "vgg16"), lstm = tput_find(t, "lstm"), nmf = tput_find(t, "neumf"),
        rn = tput_find(t, "resnet50"), sq = tput_find(t, "squeezenet");
    cr_assert_eq(intf_create(&m, tput_ntypes(t), catalog_ngpus(cat)), 0);
    cr_assert_eq(intf_load_lucid(m, t, path, gpu, map, 5, &err), 0, "%s", err.msg);
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0, "%s", err.msg);
    /* index 1158: VGG 128 (vgg16's m0) 0.78 beside LSTM 64 (lstm's m0) 0.784 */
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &lstm, 1), 1 / 0.78 - 1, 1e-9);
    cr_assert_float_eq(intf_slowdown(m, gpu, lstm, &vgg, 1), 1 / 0.784 - 1, 1e-9);
    /* 1037: VGG 128 with VGG 128, 0.807 and 0.805: the mean */
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &vgg, 1), (1 / 0.807 + 1 / 0.805) / 2 - 1,
                       1e-9);
    /* 560: NeuMF at 128 (nearest its 1024) twice, 0.948 and 0.856 */
    cr_assert_float_eq(intf_slowdown(m, gpu, nmf, &nmf, 1), (1 / 0.948 + 1 / 0.856) / 2 - 1,
                       1e-9);
    /* 865: ResNet18 128 0.689 with VGG 128 0.833; 1110: MobileNetV2 128 0.548 with LSTM 64 */
    cr_assert_float_eq(intf_slowdown(m, gpu, rn, &vgg, 1), 1 / 0.689 - 1, 1e-9);
    cr_assert_float_eq(intf_slowdown(m, gpu, vgg, &rn, 1), 1 / 0.833 - 1, 1e-9);
    cr_assert_float_eq(intf_slowdown(m, gpu, sq, &lstm, 1), 1 / 0.548 - 1, 1e-9);
    /* 11 of the 15 pairs of these 5 types were measured: neumf only beside itself */
    cr_assert_eq(intf_count(m), 11, "%d pairs", intf_count(m));
    cr_assert(!intf_measured(m, gpu, nmf, &vgg, 1));
    intf_destroy(m);
    tput_destroy(t);
    catalog_destroy(cat);
}

Test(interference, pressure_fit_recovers_an_exponent_by_hand)
{
    /* d = a_g r^0.8 exactly over 5 groups x 3 batches: theta 0.8, no error anywhere */
    struct intf_press_obs o[15];
    static const double a[5] = { 0.1, 0.3, 0.05, 0.6, 0.2 }, r[3] = { 0.5, 1, 2 };
    for (int g = 0; g < 5; g++)
        for (int k = 0; k < 3; k++)
            o[3 * g + k] = (struct intf_press_obs){ g, r[k], a[g] * pow(r[k], 0.8) };
    struct intf_press_fit f;
    cr_assert_eq(intf_pressure_fit(o, 15, 0, 4, 0.001, &f), 0);
    cr_assert_float_eq(f.theta, 0.8, 1e-9);
    cr_assert_float_eq(f.rmse, 0, 1e-9);
    cr_assert_float_eq(f.held_rmse, 0, 1e-9);
    cr_assert_eq(f.held, 15);
    cr_assert_eq(f.groups, 5);
    /* theta 0 predicts each held-out row by the group's mean of the other two: hand value
     * for group 0 holding out r = 0.5: mean of 0.1 and 0.1 x 2^0.8 */
    cr_assert_gt(f.held_rmse_0, 0.01);
}

/* multiplex.pressure_exp's shipped default is the least-squares fit on Lucid's pairs
 * (sim/train/share.c says how); refit it from the shared file */
Test(interference, pressure_exp_refit)
{
    const char *dir = th_shared_dir("traces/gpu_colocation");
    char path[4096];
    FILE *probe = NULL;
    if (dir != NULL) {
        snprintf(path, sizeof path, "%s/lucid_colocate_info.csv", dir);
        probe = fopen(path, "r");
    }
    if (probe == NULL)
        cr_skip_test("../shared/traces/gpu_colocation/lucid_colocate_info.csv is not here");
    fclose(probe);
    struct intf_press_obs *o;
    int n;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(intf_lucid_pressure_obs(path, &o, &n, &err), 0, "%s", err.msg);
    struct intf_press_fit f;
    cr_assert_eq(intf_pressure_fit(o, n, 0, 4, 0.001, &f), 0);
    free(o);
    cr_log_info("pressure_exp %.3f (%d slowdowns, %d groups), RMSE %.4f; held-out %.4f "
                "(theta 0: %.4f, 0.5: %.4f)", f.theta, f.n, f.groups, f.rmse, f.held_rmse,
                f.held_rmse_0, f.held_rmse_half);
    cr_assert_float_eq(f.theta, intf_pressure_exp_default, 5e-4, "refit %g, shipped %g",
                       f.theta, intf_pressure_exp_default);
    cr_assert_eq(f.n, 876);
    /* the fit must beat both theta 0 and the former 0.5 on held-out rows */
    cr_assert_lt(f.held_rmse, f.held_rmse_0);
    cr_assert_lt(f.held_rmse, f.held_rmse_half);
}

/* A column of a CSV row by header name (test helper for Tally's files). */
static const char *col(char **h, int nh, char **f, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (strcmp(h[i], name) == 0)
            return f[i];
    cr_assert_fail("no column %s", name);
    return NULL;
}

/* multiplex.slice_overhead's default from Tally's time-slicing pairs (share.c says how) */
Test(interference, slice_overhead_from_tally)
{
    const char *dir = th_shared_dir("traces/gpu_colocation/tally");
    if (dir == NULL)
        cr_skip_test("../shared/traces/gpu_colocation/tally is not here");
    char path[4096], *hb, *fb, *h[64], *f[64];
    size_t len;
    struct errbuf err;
    err_clear(&err);
    /* solo GPU use by workload */
    enum { MAXW = 32 };
    char wname[MAXW][128];
    double wutil[MAXW];
    int nw = 0;
    snprintf(path, sizeof path, "%s/single-job-perf.csv", dir);
    cr_assert_eq(tio_slurp(path, &hb, &len, &err), 0, "%s", err.msg);
    char *line = strtok(hb, "\n");
    int nh = tio_split(line, ',', h, 64);
    while ((line = strtok(NULL, "\n")) != NULL && nw < MAXW) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", line);
        cr_assert_eq(tio_split(copy, ',', f, 64), nh);
        snprintf(wname[nw], sizeof wname[nw], "%s", col(h, nh, f, "exp_key"));
        cr_assert_eq(tio_double(col(h, nh, f, "gpu_util"), &wutil[nw]), 0);
        wutil[nw++] /= 100;
    }
    /* each pair once (its time-slicing figures repeat over Tally's own settings) */
    snprintf(path, sizeof path, "%s/priority-aware-perf.csv", dir);
    cr_assert_eq(tio_slurp(path, &fb, &len, &err), 0, "%s", err.msg);
    char hdr[8192], seen[64][256];
    int nseen = 0, used = 0;
    double sum = 0;
    line = strtok(fb, "\n");
    snprintf(hdr, sizeof hdr, "%s", line);
    char *h2[64];
    int nh2 = tio_split(hdr, ',', h2, 64);
    while ((line = strtok(NULL, "\n")) != NULL) {
        char copy[8192];
        snprintf(copy, sizeof copy, "%s", line);
        cr_assert_eq(tio_split(copy, ',', f, 64), nh2);
        char key[256];
        snprintf(key, sizeof key, "%.120s|%.120s", col(h2, nh2, f, "high_priority_job"),
                 col(h2, nh2, f, "best_effort_job"));
        int k = 0;
        while (k < nseen && strcmp(seen[k], key) != 0)
            k++;
        if (k < nseen || nseen == 64)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", key);
        double uh = -1, ub = -1, th, tb;
        for (int i = 0; i < nw; i++) {
            if (strcmp(wname[i], col(h2, nh2, f, "high_priority_job")) == 0)
                uh = wutil[i];
            if (strcmp(wname[i], col(h2, nh2, f, "best_effort_job")) == 0)
                ub = wutil[i];
        }
        cr_assert(uh >= 0 && ub >= 0, "%s: no solo profile", key);
        if (ub < 0.85)
            continue;                   /* the GPU is not the bottleneck */
        cr_assert_eq(tio_double(col(h2, nh2, f, "high_priority_time_slicing_throughput"), &th), 0);
        cr_assert_eq(tio_double(col(h2, nh2, f, "best_effort_time_slicing_throughput"), &tb), 0);
        sum += uh * th + ub * tb;
        used++;
    }
    free(hb);
    free(fb);
    cr_assert_eq(used, 10);
    double loss = 1 - sum / used;
    cr_log_info("time slicing loses %.4f of the GPU over %d Tally pairs", loss, used);
    cr_assert_float_eq(loss, share_slice_overhead_default, 0.005, "refit %g, shipped %g", loss,
                       share_slice_overhead_default);
}

/* ---------------------------------------------------------------- the world */

static const char types_json[] =
    "{ \"job_types\": [ { \"name\": \"a\", \"batch\": 32, \"scaling\": \"weak\", "
    "\"precision\": \"fp32\", \"params_m\": 10, \"gflops_per_sample\": 1, \"mem_gb\": 6.66 },"
    " { \"name\": \"b\", \"batch\": 64, \"scaling\": \"weak\", "
    "\"precision\": \"fp32\", \"params_m\": 10, \"gflops_per_sample\": 1, \"mem_gb\": 4.66 } ] }";
static const char profile_csv[] =
    "job_type,gpu,workers,placement,iters_per_s\n"
    "a,V100,1,consolidated,10\nb,V100,1,consolidated,20\n";
static const char cluster_json[] =
    "{ \"name\": \"four\", \"network\": \"ethernet-25g\", \"groups\": [\n"
    " { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] }";

static catalog *cat;
static tput *model;
static cluster *cl;
static share *sh;

/* a with b: a slowed by 1.0, b by 0.5; a with a: 0.5 each */
static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char *tp = th_write("mux_types.json", types_json);
    char *pp = th_write("mux_profile.csv", profile_csv);
    cr_assert_eq(tput_create(&model, cat, &err), 0);
    cr_assert_eq(tput_load_types(model, tp, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_load_profile(model, pp, &err), 0, "%s", err.msg);
    free(tp);
    free(pp);
    cl = th_cluster(cat, cluster_json);
    intf *m;
    int v100 = catalog_gpu_find(cat, "V100-16GB");
    cr_assert_eq(intf_create(&m, 2, catalog_ngpus(cat)), 0);
    intf_add(m, v100, (int[]){ 0, 1 }, 2, (double[]){ 1.0, 0.5 });
    intf_add(m, v100, (int[]){ 0, 0 }, 2, (double[]){ 0.5, 0.5 });
    intf_add(m, v100, (int[]){ 1, 1 }, 2, (double[]){ 0.25, 0.25 });
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0);
    /* fixed = 0.5 + 0.16 GB; a: 6 GB of activations over 32 samples, b: 4 over 64 */
    struct share_params p = { .overhead = 0.2, .gns_ratio = 2, .pressure_exp = 0,
                              .context_gb = 0.5, .slice_overhead = 0.1 };
    cr_assert_eq(share_create(&sh, model, m, &p, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    share_destroy(sh);
    cluster_destroy(cl);
    tput_destroy(model);
    catalog_destroy(cat);
}

TestSuite(share, .init = setup, .fini = teardown);

Test(share, rates_and_memory_by_hand)
{
    const struct train_speed *s = share_speed(sh);
    struct train_job a = { .jtype = 0, .workers = 1 }, b = { .jtype = 1, .workers = 1 };
    int g = 0;
    struct train_speed_query q = { .job = &a, .gpus = &g, .ngpu = 1, .share = 1000 };
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10, 1e-9);      /* alone, m0 */
    q.share = 500;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 5, 1e-9);       /* alone, half: MPS limit */
    /* with b at equal shares: ns = 1 / (1 + 1.0) */
    struct train_corunner co = { 1, 0, 0, 500, 0 };
    q.co = &co;
    q.nco = 1;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.5, 1e-9);
    /* beside b and another a, each at 333: d = 1.0 + 0.5 (no triple measured: the pairs
     * add), w = (1 - 0.333) 3 / 2 = 1.0005 */
    struct train_corunner two[2] = { { 1, 0, 0, 333, 0 }, { 0, 0, 0, 333, 0 } };
    q.co = two;
    q.nco = 2;
    q.share = 333;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 / (1 + 1.0005 * 1.5), 1e-9);
    /* a co-runner on another GPU does not count */
    two[1].gpu = 1;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 / (1 + (1 - 0.333) * 2 * 1.0), 1e-9);
    q.co = &co;
    q.nco = 1;
    /* a at 900, b at 100 (AntMan): w = 0.1 x 2 = 0.2, ns = 1 / 1.2 */
    q.share = 900;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 / 1.2, 1e-9);
    /* a at batch 64 with b, equal shares: progress = 0.5 x 2 x E / (0.2 + 0.8 x 2),
     * E = (64 + 32) / (64 + 64) */
    a.batch = 64;
    q.share = 500;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.5 * 2 * (96.0 / 128.0) / 1.8, 1e-9);
    /* memory: 0.66 + 6 / 32 x m */
    cr_assert_float_eq(s->mem_gb(s, model, 0, 0), 6.66, 1e-9);
    cr_assert_float_eq(s->mem_gb(s, model, 0, 64), 0.66 + 12, 1e-9);
    cr_assert_float_eq(s->mem_gb(s, model, 1, 32), 0.66 + 2, 1e-9);
    (void)b;
}

/* ---- a scripted policy in the world ---- */


struct fin {
    double finish[64];
};

static int sink_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    ((struct fin *)ctx)->finish[r->trace_id] = r->finish >= 0 ? sim_to_sec(r->finish) : -1;
    return 0;
}

typedef int (*script_fn)(const struct train_view *v, struct grant_list *out);

static int scripted(void *ctx, const struct train_view *v, struct grant_list *out,
                    struct errbuf *err)
{
    (void)err;
    return ((script_fn)ctx)(v, out);
}

static int rate_calls[16];
static double counting_rate(const struct train_speed *s, const cluster *c, const tput *m,
                            const struct train_speed_query *q)
{
    rate_calls[q->job->id]++;
    const struct train_speed *inner = s->ctx;
    return inner->rate(inner, c, m, q);
}
static double counting_mem(const struct train_speed *s, const tput *m, int jtype, int batch)
{
    const struct train_speed *inner = s->ctx;
    return inner->mem_gb(inner, m, jtype, batch);
}

static int run(const struct job_spec *jobs, int n, script_fn fn, struct fin *f,
               struct errbuf *err)
{
    static struct train_speed counting;
    counting = (struct train_speed){ "counting", 1, counting_rate, share_speed(sh),
                                     counting_mem };
    struct th_array src = { jobs, sizeof *jobs, n, 0 };
    struct entity_source js = { &src, th_array_next };
    struct train_decider dec = { .ctx = (void *)fn, .decide = scripted,
                                 .wake = WAKE_ARRIVAL | WAKE_COMPLETION };
    struct train_sink sk = { .ctx = f, .job = sink_job };
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER, .speed = &counting };
    train *w;
    err_clear(err);
    memset(rate_calls, 0, sizeof rate_calls);
    if (train_create(&w, cl, model, &cfg, &js, &dec, &sk, err) < 0)
        return -1;
    struct train_totals tot;
    int rc = train_run(w, &tot, err);
    train_destroy(w);
    return rc;
}

static struct job_spec job(int64_t id, double arrival_s, int jt, double work)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(arrival_s), .jtype = jt,
                              .workers = 1, .work = work, .weight = 1 };
}

/* job i on GPU i % 4 at half a GPU, job 4 onto GPU 0 */
static int spread_then_gpu0(const struct train_view *v, struct grant_list *out)
{
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        int g = (int)(j->id % 4);
        grant_add(out, j->slot, &g, 1, 500);
    }
    return 0;
}

Test(share, re_rating_touches_only_the_co_runners)
{
    /* jobs 0-3 alone on GPUs 0-3 from time 0 (long), job 4 joins GPU 0 at 10 s and leaves:
     * only jobs 0 and 4 are rated again; 1-3 are rated once, when they start */
    struct job_spec jobs[] = { job(0, 0, 0, 1e4), job(1, 0, 0, 1e4), job(2, 0, 0, 1e4),
                               job(3, 0, 0, 1e4), job(4, 10, 0, 20) };
    struct fin f;
    struct errbuf err;
    cr_assert_eq(run(jobs, 5, spread_then_gpu0, &f, &err), 0, "%s", err.msg);
    for (int i = 1; i <= 3; i++)
        cr_assert_eq(rate_calls[i], 1, "job %d was rated %d times", i, rate_calls[i]);
    cr_assert_eq(rate_calls[0], 3, "job 0: alone, with job 4, alone again (%d)", rate_calls[0]);
    cr_assert_eq(rate_calls[4], 1);
    /* job 4 at a with a: ns = 1 / 1.5 of 5 it/s... both halves: 10 x 0.5 share alone is
     * replaced by 10 / (1 + 0.5) = 6.67 it/s: 20 it take 3 s */
    cr_assert_float_eq(f.finish[4], 13, 1e-5);
}

Test(share, time_sliced_rates_by_hand)
{
    /* kernels take turns: the time share less the switching loss (0.1 here), whoever the
     * co-runners are and however they interfere when space-shared */
    const struct train_speed *s = share_speed(sh);
    struct train_job a = { .jtype = 0, .workers = 1, .sliced = 1 };
    int g = 0;
    struct train_speed_query q = { .job = &a, .gpus = &g, .ngpu = 1, .share = 1000 };
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10, 1e-9);      /* alone: no switching */
    struct train_corunner b = { 1, 0, 0, 500, 1 }, aa = { 0, 0, 0, 500, 1 };
    q.share = 500;
    q.co = &b;
    q.nco = 1;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.5 * 0.9, 1e-9);
    q.co = &aa;                             /* a with a interferes less, and it does not matter */
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.5 * 0.9, 1e-9);
    struct train_corunner three[3] = { { 1, 0, 0, 250, 1 }, { 1, 0, 0, 250, 1 },
                                       { 0, 0, 1, 1000, 1 } };   /* the last on GPU 1 */
    q.co = three;
    q.nco = 3;
    q.share = 250;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.25 * 0.9, 1e-9);
    /* the same job space-shared: the interference model's answer (a beside b: 1 / (1 + 1)) */
    a.sliced = 0;
    q.co = &b;
    q.nco = 1;
    q.share = 500;
    cr_assert_float_eq(s->rate(s, cl, model, &q), 10 * 0.5, 1e-9);
}

/* kernel_slice in the world, every decision checked against its view: shares on a GPU sum
 * to at most 1000, memory fits, every holder of a shared GPU is time-sliced at an even share,
 * and work is conserved (a job left waiting fits on no GPU: each has max_jobs holders or
 * not the memory for it) */
struct ks_watch {
    const struct train_decider *inner;
    int decisions, waited, violations;
    char why[256];
};

static int ks_decide(void *ctx, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err)
{
    struct ks_watch *w = ctx;
    if (w->inner->decide(w->inner->ctx, v, out, err) < 0)
        return -1;
    w->decisions++;
    enum { NG = 4, NS = 64 };
    int holder[NS], gpu_of[NS], shr[NS], sl[NS];
    for (int i = 0; i < NS; i++)
        holder[i] = 0;
    for (const struct train_job *j = train_view_first_running(v); j;
         j = train_view_next_running(v, j)) {
        holder[j->slot] = 1;
        gpu_of[j->slot] = j->gpus[0];
        shr[j->slot] = j->share;
        sl[j->slot] = j->sliced;
    }
    for (size_t k = 0; k < out->n; k++) {
        const struct grant *g = &out->g[k];
        holder[g->slot] = g->ngpu > 0;
        if (g->ngpu > 0) {
            gpu_of[g->slot] = grant_ids(out, g)[0];
            shr[g->slot] = g->share;
            sl[g->slot] = g->sliced;
        }
    }
    double mem[NG] = { 0 };
    int sum[NG] = { 0 }, n[NG] = { 0 };
    for (int i = 0; i < NS; i++)
        if (holder[i]) {
            int gg = gpu_of[i];
            mem[gg] += mux_view_mem_gb(v, v->jobs[i].jtype, 0);
            sum[gg] += shr[i];
            n[gg]++;
        }
    for (int i = 0; i < NS; i++)
        if (holder[i] && n[gpu_of[i]] > 1 && (!sl[i] || shr[i] != 1000 / n[gpu_of[i]])) {
            w->violations++;
            snprintf(w->why, sizeof w->why, "slot %d: share %d sliced %d of %d holders", i,
                     shr[i], sl[i], n[gpu_of[i]]);
        }
    for (int gg = 0; gg < NG; gg++)
        if (sum[gg] > 1000 || mem[gg] > mux_view_gpu_mem_gb(v, gg) + 1e-9) {
            w->violations++;
            snprintf(w->why, sizeof w->why, "GPU %d: shares %d, %g GB", gg, sum[gg], mem[gg]);
        }
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        if (holder[j->slot])
            continue;
        w->waited++;
        for (int gg = 0; gg < NG; gg++)
            if (n[gg] < 4 && mem[gg] + mux_view_mem_gb(v, j->jtype, 0) <=
                                 mux_view_gpu_mem_gb(v, gg) + 1e-9) {
                w->violations++;
                snprintf(w->why, sizeof w->why, "job %lld waits, GPU %d has room",
                         (long long)j->id, gg);
            }
    }
    return 0;
}

Test(share, kernel_slice_keeps_shares_memory_and_work_conservation)
{
    gsl_rng *g = rng_stream(5, "test_kslice");
    for (int trial = 0; trial < 4; trial++) {
        struct job_spec jobs[40];
        double t = 0;
        for (int i = 0; i < 40; i++) {
            t += gsl_rng_uniform(g) * 4;
            jobs[i] = (struct job_spec){ .id = i, .arrival = sim_from_sec(t),
                                         .jtype = (int)gsl_rng_uniform_int(g, 2), .workers = 1,
                                         .work = 50 + gsl_rng_uniform(g) * 500, .weight = 1 };
        }
        struct errbuf err;
        err_clear(&err);
        struct policy_env env = { 1, cl, model, NULL, 0 };
        policy *p;
        cr_assert_eq(policy_open(&p, "kernel_slice", NULL, &env, &err), 0, "%s", err.msg);
        struct ks_watch w = { .inner = policy_decider(p) };
        struct train_decider dec = *w.inner;
        dec.ctx = &w;
        dec.decide = ks_decide;
        struct th_array src = { jobs, sizeof *jobs, 40, 0 };
        struct entity_source js = { &src, th_array_next };
        struct fin f;
        struct train_sink sk = { .ctx = &f, .job = sink_job };
        struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER,
                                    .speed = share_speed(sh) };
        train *world;
        cr_assert_eq(train_create(&world, cl, model, &cfg, &js, &dec, &sk, &err), 0, "%s",
                     err.msg);
        struct train_totals tot;
        cr_assert_eq(train_run(world, &tot, &err), 0, "%s", err.msg);
        train_destroy(world);
        policy_close(p);
        cr_assert_eq(w.violations, 0, "trial %d: %s", trial, w.why);
        cr_assert_gt(w.decisions, 10);
        cr_assert_gt(w.waited, 0, "trial %d: nobody waited: the check checked nothing", trial);
        for (int i = 0; i < 40; i++)
            cr_assert_gt(f.finish[i], 0, "job %d did not finish", i);
    }
    gsl_rng_free(g);
}

/* two a's at batch 64 on GPU 0: 2 x 12.66 GB > 16 GB */
static int overcommit(const struct train_view *v, struct grant_list *out)
{
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        int g = 0;
        grant_add_batch(out, j->slot, &g, 1, 500, 64);
    }
    return 0;
}

/* job 0 alone, at batch 32 until 10 s, then at 64 (a grant that changes only the batch) */
static int rebatch(const struct train_view *v, struct grant_list *out)
{
    int g = 0;
    const struct train_job *j = train_view_first_active(v);
    if (j->state != JOB_RUNNING)
        return grant_add(out, j->slot, &g, 1, 1000);
    out->wake_at = 0;
    return grant_add_batch(out, j->slot, &g, 1, 1000, 64);
}
static int rebatch_at_10(const struct train_view *v, struct grant_list *out)
{
    int rc = rebatch(v, out);
    if (v->now < sim_from_sec(10))
        out->wake_at = v->now == 0 ? sim_from_sec(10) : 0;
    return rc;
}

Test(share, memory_over_commit_is_refused_and_batch_changes_the_rate)
{
    struct job_spec jobs[] = { job(0, 0, 0, 1000), job(1, 0, 0, 1000) };
    struct fin f;
    struct errbuf err;
    cr_assert_eq(run(jobs, 2, overcommit, &f, &err), -1);
    cr_assert(strstr(err.msg, "over-committed GPU 0") != NULL, "%s", err.msg);
    /* 100 it at 10 it/s for 10 s, then 900 it at 10 x 2 x E / t-ratio, E = (64 + 32) / 128,
     * t-ratio 0.2 + 0.8 x 2: 8.333 it/s, 108 s: ends at 118 s */
    struct dec_wake { int x; };
    cr_assert_eq(run(jobs, 1, rebatch_at_10, &f, &err), 0, "%s", err.msg);
    cr_assert_float_eq(f.finish[0], 10 + 900 / (10 * 2 * 0.75 / 1.8), 1e-4);
}

/* ---- IADeep's tuner and predictor on hand-built views ---- */

/* The fixture's table in a model of its own: overhead o, GNS = g x m0, pressure theta. */
static share *fixture_share(double o, double g, double theta)
{
    struct errbuf err;
    intf *m;
    int v100 = catalog_gpu_find(cat, "V100-16GB");
    cr_assert_eq(intf_create(&m, 2, catalog_ngpus(cat)), 0);
    intf_add(m, v100, (int[]){ 0, 1 }, 2, (double[]){ 1.0, 0.5 });
    intf_add(m, v100, (int[]){ 0, 0 }, 2, (double[]){ 0.5, 0.5 });
    intf_add(m, v100, (int[]){ 1, 1 }, 2, (double[]){ 0.25, 0.25 });
    cr_assert_eq(intf_fit(m, &intf_mf_default, 1, &err), 0);
    struct share_params p = { .overhead = o, .gns_ratio = g, .pressure_exp = theta,
                              .context_gb = 0.5, .slice_overhead = 0.1 };
    share *s;
    cr_assert_eq(share_create(&s, model, m, &p, &err), 0, "%s", err.msg);
    return s;
}

/* n one-GPU jobs of types jt[] holding GPU 0 of the fixture's cluster, as a view */
struct hand_view {
    struct train_job jobs[4];
    int32_t next[4];
    int gpu0;
    struct train_view v;
};

static void hand_view(struct hand_view *h, occ *o, const struct train_speed *speed,
                      const int *jt, int n)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < n; i++) {
        h->jobs[i] = (struct train_job){ .id = i, .slot = i, .jtype = jt[i], .workers = 1,
                                         .state = JOB_RUNNING, .ngpu = 1,
                                         .share = (uint16_t)(1000 / n), .gpus = &h->gpu0 };
        h->next[i] = i + 1 < n ? i + 1 : -1;
    }
    h->v = (struct train_view){ .cl = cl, .occ = o, .model = model, .jobs = h->jobs,
                                .active_head = -1, .waiting_head = -1, .running_head = 0,
                                .next_running = h->next, .n_running = n, .speed = speed };
}

/* The candidates of the tuner written out (stateff_candidates, 8 of them): a's m0 is 32,
 * b's 64; and the memory of the fixture's types (0.66 GB fixed + activations) by hand. */
static const int cand[2][8] = { { 16, 20, 24, 28, 32, 36, 40, 44 },
                                { 32, 40, 48, 56, 64, 72, 80, 88 } };
static double mem_by_hand(int jt, int batch)
{
    return 0.66 + (jt == 0 ? 6.0 / 32 : 4.0 / 64) * batch;
}

/* Sum of PD of jobs jt[] at batches b[] sharing GPU 0 evenly, straight from the world's speed
 * hook: rate alone at m0 over rate at b beside the others at their b. */
static double pd_by_hook(const struct train_speed *s, const int *jt, const int *b, int n)
{
    double sum = 0;
    int g = 0;
    for (int i = 0; i < n; i++) {
        struct train_job j = { .jtype = jt[i], .workers = 1, .batch = b[i] };
        struct train_job j0 = { .jtype = jt[i], .workers = 1 };
        struct train_corunner co[3];
        int k = 0;
        for (int x = 0; x < n; x++)
            if (x != i)
                co[k++] = (struct train_corunner){ jt[x], b[x], 0, (uint16_t)(1000 / n), 0 };
        struct train_speed_query q = { &j, &g, 1, (uint16_t)(1000 / n), co, k };
        struct train_speed_query q0 = { &j0, &g, 1, 1000, NULL, 0 };
        sum += s->rate(s, cl, model, &q0) / s->rate(s, cl, model, &q);
    }
    return sum;
}

static intfpred *open_pred(const char *kind, double known, double theta)
{
    struct errbuf err;
    intfpred *p;
    struct policy_env env = { 7, cl, model, NULL, 0 };
    struct intfpred_opts o = { strcmp(kind, "oracle") == 0, known, theta };
    cr_assert_eq(intfpred_create(&p, &o, &env, &err), 0, "%s", err.msg);
    return p;
}

/* A model where larger batches pay (overhead 0.6, GNS 8 m0: alone a job's PD is least at
 * its largest candidate) and co-runners' batches press (theta 0.5), on a 16 GB V100 where
 * two a's at their best batches do not fit: the tuner's choice must be the best point of a
 * brute-force search over every combination that fits — computed here from the world's
 * hook and memory by hand, not through the tuner's code — for the oracle, and for the learned
 * predictor once it has profiled every pair of the GPU (it then predicts the world). */
Test(share, tuner_finds_the_brute_force_optimum_within_memory)
{
    share *big = fixture_share(0.6, 8, 0.5);
    const struct train_speed *s = share_speed(big);
    gsl_rng *g = rng_stream(11, "test_tune");
    struct mux m;
    cr_assert_eq(mux_init(&m, cl), 0);
    occ *o = occ_create(cl);
    struct grant_list out;
    grant_list_init(&out);
    intfpred *oracle = open_pred("oracle", 0, 0);
    int excluded = 0;
    for (int trial = 0; trial < 40; trial++) {
        int n = 1 + (int)gsl_rng_uniform_int(g, 3), jt[3], b[3], idx[3] = { 0 };
        for (int i = 0; i < n; i++)
            jt[i] = (int)gsl_rng_uniform_int(g, 2);
        double best = HUGE_VAL, free_best = HUGE_VAL, free_mem = 0;
        for (;;) {
            double mem = 0;
            for (int i = 0; i < n; i++) {
                b[i] = cand[jt[i]][idx[i]];
                mem += mem_by_hand(jt[i], b[i]);
            }
            double pd = pd_by_hook(s, jt, b, n);
            if (pd < free_best) {
                free_best = pd;
                free_mem = mem;
            }
            if (mem <= 16 && pd < best)
                best = pd;
            int k = 0;
            while (k < n && ++idx[k] == 8)
                idx[k++] = 0;
            if (k == n)
                break;
        }
        excluded += free_mem > 16;
        intfpred *learned = open_pred("learned", 1, 0.5);
        for (int kind = 0; kind < 2; kind++) {
            struct hand_view h;
            struct errbuf err;
            hand_view(&h, o, s, jt, n);
            grant_list_reset(&out);
            mux_load(&m, &h.v, &out);
            intfpred *p = kind == 0 ? oracle : learned;
            cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0, "%s", err.msg);
            double tuned = iadeep_tune(&m, &h.v, 0, 8, p);
            double mem = 0;
            for (int i = 0; i < n; i++) {
                b[i] = m.g[0].batch[i];
                mem += mem_by_hand(jt[i], b[i]);
            }
            cr_assert(mem <= 16 + 1e-9, "trial %d (%s): the tuner left %g GB on a 16 GB GPU",
                      trial, kind ? "learned" : "oracle", mem);
            cr_assert(fabs(tuned - best) <= 1e-9 * best, "trial %d (%s): tuned sum PD %.12g, "
                      "the best that fits %.12g", trial, kind ? "learned" : "oracle", tuned,
                      best);
            double check = pd_by_hook(s, jt, b, n);
            cr_assert(fabs(check - best) <= 1e-9 * best, "trial %d (%s): its batches give %.12g",
                      trial, kind ? "learned" : "oracle", check);
        }
        intfpred_destroy(learned);
    }
    cr_assert_geq(excluded, 5, "memory excluded the best point in %d trials only", excluded);
    intfpred_destroy(oracle);
    grant_list_fini(&out);
    occ_destroy(o);
    mux_fini(&m);
    gsl_rng_free(g);
    share_destroy(big);
}

struct sink_rec {
    int    n;
    char   name[8][32];
    double value[8];
};

static int sink_put(void *ctx, const char *name, double value, struct errbuf *err)
{
    (void)err;
    struct sink_rec *r = ctx;
    snprintf(r->name[r->n], sizeof r->name[0], "%s", name);
    r->value[r->n++] = value;
    return 0;
}

static double sink_get(const struct sink_rec *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->name[i], name) == 0)
            return r->value[i];
    return NAN;
}

/* a beside b at 600 and 400 thousandths, at given batches: the learned predictor knows nothing,
 * predicts no slowdown, is scored by hand when the pair has run, and afterwards predicts
 * the pair at other batches exactly (the share law inverted under the world's theta) */
Test(share, learned_predictor_observes_scores_and_learns_by_hand)
{
    share *th = fixture_share(0.2, 2, 0.5);
    const struct train_speed *s = share_speed(th);
    struct mux m;
    cr_assert_eq(mux_init(&m, cl), 0);
    occ *o = occ_create(cl);
    struct grant_list out;
    grant_list_init(&out);
    intfpred *p = open_pred("learned", 0, 0.5);
    struct hand_view h;
    struct errbuf err;
    hand_view(&h, o, s, (const int[]){ 0, 1 }, 2);
    h.jobs[0].batch = 40;                   /* a at 40, b at m0 = 64 */
    h.jobs[0].share = 600;
    h.jobs[1].share = 400;
    mux_load(&m, &h.v, &out);
    cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0, "%s", err.msg);
    /* nothing known: d = 0, ns = 1: each at its solo rate at its batch */
    for (int i = 0; i < 2; i++)
        cr_assert_float_eq(intfpred_rate(p, &m, &h.v, 0, i),
                           mux_view_solo_at(&h.v, &h.jobs[i], m.g[0].batch[i], 0), 1e-12);
    m.g[0].changed = 1;
    intfpred_commit(p, &m, &h.v);
    /* the world's rates: a slowed by 1.0 x b's pressure 1 x w = (1 - 0.6) 2, b by 0.5 x
     * (40 / 32)^0.5 x (1 - 0.4) 2 */
    for (int i = 0; i < 2; i++)
        h.jobs[i].rate = mux_rate(&m, &h.v, 0, i);
    double real_a = 1 + 0.8 * 1.0, real_b = 1 + 1.2 * 0.5 * sqrt(40.0 / 32);
    cr_assert_float_eq(mux_view_solo_at(&h.v, &h.jobs[0], 40, 0) / h.jobs[0].rate, real_a, 1e-9);
    /* still restoring: not observed */
    h.v.now = sim_from_sec(5);
    h.jobs[0].run_from = h.jobs[1].run_from = sim_from_sec(10);
    uint8_t learned[8];
    cr_assert_eq(intfpred_begin(p, &m, &h.v, learned, &err), 0);
    struct sink_rec r = { 0 };
    cr_assert_eq(intfpred_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err), 0);
    cr_assert_float_eq(sink_get(&r, "pred_scored"), 0, 0);
    cr_assert(isnan(sink_get(&r, "pred_error_mean")), "nothing scored, no error figure");
    /* it has run: observed once, scored by hand, learned */
    h.v.now = sim_from_sec(20);
    cr_assert_eq(intfpred_begin(p, &m, &h.v, learned, &err), 0);
    cr_assert_eq(learned[0], 1, "a new combination was observed");
    cr_assert_eq(intfpred_begin(p, &m, &h.v, learned, &err), 0);
    cr_assert_eq(learned[0], 0, "a configuration is observed once");
    r.n = 0;
    intfpred_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err);
    cr_assert_float_eq(sink_get(&r, "pred_scored"), 2, 0);
    cr_assert_float_eq(sink_get(&r, "pred_observed"), 1, 0);
    cr_assert_float_eq(sink_get(&r, "pred_profiled"), 0, 0);
    double want = (fabs(1 - real_a) / real_a + fabs(1 - real_b) / real_b) / 2;
    cr_assert_float_eq(sink_get(&r, "pred_error_mean"), want, 1e-9, "%.12g, want %.12g",
                       sink_get(&r, "pred_error_mean"), want);
    /* it had measured neither combination when it predicted them */
    cr_assert_float_eq(sink_get(&r, "pred_unseen_scored"), 2, 0);
    cr_assert_float_eq(sink_get(&r, "pred_unseen_error_mean"), want, 1e-9);
    /* the same pair predicted again, now measured: scored, not among the unseen */
    m.g[0].changed = 1;
    intfpred_commit(p, &m, &h.v);
    h.v.now = sim_from_sec(30);
    cr_assert_eq(intfpred_begin(p, &m, &h.v, learned, &err), 0);
    struct sink_rec r2 = { 0 };
    intfpred_metrics(p, &(struct policy_metric_sink){ &r2, sink_put }, &err);
    cr_assert_float_eq(sink_get(&r2, "pred_scored"), 4, 0);
    cr_assert_float_eq(sink_get(&r2, "pred_unseen_scored"), 2, 0);
    /* now at other batches and shares the learned rate is the world's */
    m.g[0].batch[0] = 24;
    m.g[0].batch[1] = 88;
    m.g[0].share[0] = 500;
    m.g[0].share[1] = 500;
    for (int i = 0; i < 2; i++)
        cr_assert_float_eq(intfpred_rate(p, &m, &h.v, 0, i) / mux_rate(&m, &h.v, 0, i), 1,
                           1e-9, "holder %d", i);
    intfpred_destroy(p);
    /* the oracle is scored the same way, and is right */
    p = open_pred("oracle", 0, 0);
    mux_load(&m, &h.v, &out);
    h.v.now = 0;
    h.jobs[0].run_from = h.jobs[1].run_from = 0;
    cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0);
    m.g[0].changed = 1;
    intfpred_commit(p, &m, &h.v);
    h.v.now = sim_from_sec(1);
    cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0);
    r.n = 0;
    intfpred_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err);
    cr_assert_float_eq(sink_get(&r, "pred_scored"), 2, 0);
    cr_assert(sink_get(&r, "pred_error_mean") < 1e-12, "oracle error %g",
              sink_get(&r, "pred_error_mean"));
    cr_assert_float_eq(sink_get(&r, "pred_unseen_scored"), 0, 0);
    cr_assert_float_eq(sink_get(&r, "pred_observed"), 0, 0);
    intfpred_destroy(p);
    grant_list_fini(&out);
    occ_destroy(o);
    mux_fini(&m);
    share_destroy(th);
}

/* Apply a decision's grants to a hand view of jobs on GPU 0 and rate them as the world does. */
static void apply_grants(struct hand_view *h, int n, const struct grant_list *out)
{
    for (size_t k = 0; k < out->n; k++) {
        struct train_job *j = &h->jobs[out->g[k].slot];
        cr_assert_eq(out->g[k].ngpu, 1);
        cr_assert_eq(grant_ids(out, &out->g[k])[0], 0);
        j->share = out->g[k].share;
        if (out->g[k].batch > 0)
            j->batch = out->g[k].batch;
    }
    for (int i = 0; i < n; i++) {
        struct train_corunner co[4];
        int k = 0;
        for (int x = 0; x < n; x++)
            if (x != i)
                co[k++] = (struct train_corunner){ h->jobs[x].jtype, h->jobs[x].batch, 0,
                                                   h->jobs[x].share, 0 };
        h->jobs[i].rate = mux_view_rate(&h->v, &h->jobs[i], h->jobs[i].batch, 0,
                                        h->jobs[i].share, 0, co, k);
    }
}

/* A learned IADeep that profiled nothing tunes a and b on one GPU as though they did not
 * interfere; once the pair has run and it has seen how much they do, it tunes them again
 * (to smaller batches: with pressure_exp 0.655 a smaller batch presses less on the other),
 * and a configuration that teaches it nothing new changes nothing */
Test(share, learned_iadeep_tunes_a_gpu_again_once_it_has_observed_it)
{
    share *th = fixture_share(0.2, 2, 0.655);
    struct errbuf err;
    jsonf *doc;
    struct jobj pj;
    const char *params = "{ \"known_pairs\": 0 }";
    cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0);
    cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    struct policy_env env = { 1, cl, model, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "iadeep", &pj, &env, &err), 0, "%s", err.msg);
    const struct train_decider *d = policy_decider(p);
    occ *o = occ_create(cl);
    struct hand_view h;
    hand_view(&h, o, share_speed(th), (const int[]){ 0, 1 }, 2);
    struct grant_list out;
    grant_list_init(&out);
    cr_assert_eq(d->decide(d->ctx, &h.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.n, 2, "tuned when first seen");
    apply_grants(&h, 2, &out);
    int32_t blind[2] = { h.jobs[0].batch, h.jobs[1].batch };
    h.v.now = sim_from_sec(10);
    grant_list_reset(&out);
    cr_assert_eq(d->decide(d->ctx, &h.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.n, 2, "observed a new combination: tuned again");
    apply_grants(&h, 2, &out);
    cr_assert(h.jobs[0].batch + h.jobs[1].batch < blind[0] + blind[1],
              "batches %d + %d after learning, %d + %d before", h.jobs[0].batch,
              h.jobs[1].batch, blind[0], blind[1]);
    h.v.now = sim_from_sec(20);
    grant_list_reset(&out);
    cr_assert_eq(d->decide(d->ctx, &h.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.n, 0, "nothing new learned, nothing changed");
    policy_close(p);
    jsonf_destroy(doc);
    /* where batches do not press (pressure_exp 0, believed too), what it learns leaves the
     * best batches where they were: tuned again, nothing to grant */
    params = "{ \"known_pairs\": 0, \"pressure_exp\": 0 }";
    cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0);
    cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    cr_assert_eq(policy_open(&p, "iadeep", &pj, &env, &err), 0, "%s", err.msg);
    d = policy_decider(p);
    hand_view(&h, o, share_speed(sh), (const int[]){ 0, 1 }, 2);
    grant_list_reset(&out);
    cr_assert_eq(d->decide(d->ctx, &h.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.n, 2);
    apply_grants(&h, 2, &out);
    h.v.now = sim_from_sec(10);
    grant_list_reset(&out);
    cr_assert_eq(d->decide(d->ctx, &h.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.n, 0, "the same batches granted again");
    grant_list_fini(&out);
    occ_destroy(o);
    policy_close(p);
    jsonf_destroy(doc);
    share_destroy(th);
}

/* profiled pairs: none at 0, every pair of the types seen at 1, and each profiled on every
 * GPU type of the cluster, when its second type first appears */
Test(share, learned_predictor_profiles_the_fraction_it_is_given)
{
    const struct train_speed *s = share_speed(sh);
    struct mux m;
    cr_assert_eq(mux_init(&m, cl), 0);
    occ *o = occ_create(cl);
    struct grant_list out;
    grant_list_init(&out);
    static const double known[] = { 0, 1 };
    static const double want[][2] = { { 0, 0 }, { 1, 3 } };    /* a only; then a and b */
    for (int k = 0; k < 2; k++) {
        intfpred *p = open_pred("learned", known[k], 0);
        struct hand_view h;
        struct errbuf err;
        struct sink_rec r = { 0 };
        hand_view(&h, o, s, (const int[]){ 0 }, 1);
        mux_load(&m, &h.v, &out);
        cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0);
        intfpred_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err);
        cr_assert_float_eq(sink_get(&r, "pred_profiled"), want[k][0], 0);
        /* with nothing profiled a with a is predicted free of interference; profiled, it is
         * the world's 0.5 */
        hand_view(&h, o, s, (const int[]){ 0, 0, 1 }, 3);
        mux_load(&m, &h.v, &out);
        cr_assert_eq(intfpred_begin(p, &m, &h.v, NULL, &err), 0);
        r.n = 0;
        intfpred_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err);
        cr_assert_float_eq(sink_get(&r, "pred_profiled"), want[k][1], 0);
        intfpred_destroy(p);
    }
    grant_list_fini(&out);
    occ_destroy(o);
    mux_fini(&m);
}

/* What a policy asks the world inside its decisions: the speed hook counts the rates it is
 * asked for beside co-runners (the interference truth) while a decision runs.  A learned
 * IADeep asks only in its profiling runs (two a pair, at most), AntMan, Gandiva and the even
 * shares never; the oracle does. */
static int in_decide, truth_reads, decisions_seen;
static double truth_rate(const struct train_speed *s, const cluster *c, const tput *m,
                         const struct train_speed_query *q)
{
    truth_reads += in_decide && q->nco > 0;
    const struct train_speed *inner = s->ctx;
    return inner->rate(inner, c, m, q);
}

static int counted_decide(void *ctx, const struct train_view *v, struct grant_list *out,
                          struct errbuf *err)
{
    const struct train_decider *inner = ctx;
    in_decide = 1;
    int rc = inner->decide(inner->ctx, v, out, err);
    in_decide = 0;
    decisions_seen++;
    return rc;
}

static int truth_reads_of(const char *name, const char *params, int64_t *profiled)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc = NULL;
    struct jobj pj = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0, "%s", err.msg);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    }
    struct policy_env env = { 1, cl, model, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, name, params ? &pj : NULL, &env, &err), 0, "%s", err.msg);
    static struct train_speed counting;
    counting = (struct train_speed){ "truth", 1, truth_rate, share_speed(sh), counting_mem };
    gsl_rng *g = rng_stream(9, "test_truth");
    struct job_spec jobs[40];
    double t = 0;
    for (int i = 0; i < 40; i++) {
        t += gsl_rng_uniform(g) * 4;
        jobs[i] = (struct job_spec){ .id = i, .arrival = sim_from_sec(t),
                                     .jtype = (int)gsl_rng_uniform_int(g, 2), .workers = 1,
                                     .work = 50 + gsl_rng_uniform(g) * 500, .weight = 1 };
    }
    gsl_rng_free(g);
    const struct train_decider *inner = policy_decider(p);
    struct train_decider dec = *inner;
    dec.ctx = (void *)inner;
    dec.decide = counted_decide;
    struct th_array src = { jobs, sizeof *jobs, 40, 0 };
    struct entity_source js = { &src, th_array_next };
    struct fin f;
    struct train_sink sk = { .ctx = &f, .job = sink_job };
    struct train_config cfg = { .restore_delay_s = 1, .until = SIM_NEVER, .speed = &counting };
    train *world;
    truth_reads = decisions_seen = 0;
    cr_assert_eq(train_create(&world, cl, model, &cfg, &js, &dec, &sk, &err), 0, "%s", err.msg);
    struct train_totals tot;
    cr_assert_eq(train_run(world, &tot, &err), 0, "%s", err.msg);
    train_destroy(world);
    struct sink_rec r = { 0 };
    *profiled = 0;
    if (policy_ops_of(p)->metrics != NULL) {
        cr_assert_eq(policy_metrics(p, &(struct policy_metric_sink){ &r, sink_put }, &err), 0);
        *profiled = (int64_t)sink_get(&r, "pred_profiled");
    }
    policy_close(p);
    jsonf_destroy(doc);
    cr_assert_gt(decisions_seen, 20);
    return truth_reads;
}

Test(share, learned_and_measuring_policies_never_read_the_interference_truth)
{
    int64_t prof;
    static const char *const blind[] = { "antman", "gandiva", "mps_even", "kernel_slice",
                                         "exclusive" };
    for (size_t i = 0; i < sizeof blind / sizeof blind[0]; i++)
        cr_assert_eq(truth_reads_of(blind[i], NULL, &prof), 0, "%s", blind[i]);
    cr_assert_eq(truth_reads_of("iadeep", "{ \"known_pairs\": 0 }", &prof), 0);
    cr_assert_eq(prof, 0);
    int n = truth_reads_of("iadeep", "{ \"known_pairs\": 1 }", &prof);
    cr_assert_eq(prof, 3, "a-a, a-b, b-b on the V100s");
    cr_assert_eq(n, 2 * prof, "profiling runs only: %d reads for %lld pairs", n,
                 (long long)prof);
    cr_assert_gt(truth_reads_of("iadeep", "{ \"predictor\": \"oracle\" }", &prof), 100);
}

/* ---------------------------------------------------------------- end to end */

static char *experiment(const char *name, double rate, int jobs)
{
    static char text[4096];
    snprintf(text, sizeof text, "{ \"name\": \"%s\", \"seed\": 1, \"cluster\": { \"name\": \"c\","
               " \"network\": \"ethernet-25g\", \"groups\": ["
               "{ \"count\": 2, \"gpu\": \"RTX3090\", \"gpus_per_node\": 2 } ] },"
               " \"workload\": { \"format\": \"synthetic\", \"jobs\": %d, \"rate_per_hour\": %g,"
               " \"reference_gpu\": \"RTX3090\", \"workers\": { \"1\": 1 },"
               " \"duration\": { \"dist\": \"lognormal\", \"median_s\": 200, \"sigma\": 0.8 },"
               " \"job_types\": { \"vgg16\": 1, \"resnet50\": 1, \"lstm\": 1, \"neumf\": 1,"
               " \"bert\": 1, \"yolov5\": 1 } },"
               " \"multiplex\": { \"interference\": [ { \"format\": \"gavel\", \"path\":"
               " \"models/data/interference/gavel_pairs.csv\" } ] },"
               " \"policies\": [\"iadeep\", \"kernel_slice\", \"mps_even\", \"antman\", \"gandiva\","
               " \"exclusive\"],"
               " \"sim\": { \"timeline\": true, \"sample_s\": 0 } }", name, jobs, rate);
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    return th_write(file, text);
}

/* the largest sum of shares on one GPU at any instant, from the timeline */
static const char max_share_sql[] =
    "with ev as (select run_id r, resource g, start_s t, share d from timeline"
    " where resource is not null union all select run_id, resource, end_s, -share"
    " from timeline where resource is not null),"
    " acc as (select sum(d) over (partition by r, g order by t, d rows unbounded preceding) s"
    " from ev) select coalesce(max(s), 0) from acc";

Test(mux_e2e, random_runs_never_over_commit_a_gpu_and_repeat_exactly)
{
    for (int seed = 1; seed <= 3; seed++) {
        char name[32], db[4096], sset[32];
        snprintf(name, sizeof name, "mux_rand_%d", seed);
        char *exp = experiment(name, 60 + 40 * seed, 40);
        snprintf(db, sizeof db, "%s/%s.db", th_tmpdir(), name);
        snprintf(sset, sizeof sset, "%d", seed);
        struct th_out o = th_hetsim((const char *const[]){ "run", exp, "--seed", sset, "--db",
                                                           db, "--quiet", NULL });
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        cr_assert_eq(th_db_value(db, "select count(*) from runs"), 6);
        cr_assert_eq(th_db_value(db, "select count(*) from jobs where finish_s is null"), 0);
        double mx = th_db_value(db, max_share_sql);
        cr_assert(mx <= 1 + 1e-9, "seed %d: a GPU held %g of itself", seed, mx);
        /* sharing happened: some GPU held two jobs at once under a sharing policy */
        cr_assert(th_db_value(db, "select count(*) from timeline where state = 'shared'") > 0);
        /* the policies differ */
        cr_assert(th_db_value(db, "select count(distinct round(value, 3)) from metrics where"
                                  " name = 'jct_mean'") > 1);
        /* the same run again gives the same rows */
        char db2[4096];
        snprintf(db2, sizeof db2, "%s/%s_again.db", th_tmpdir(), name);
        o = th_hetsim((const char *const[]){ "run", exp, "--seed", sset, "--db", db2, "--quiet",
                                            NULL });
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        char *a = th_db_dump(db), *b = th_db_dump(db2);
        cr_assert_str_eq(a, b);
        free(a);
        free(b);
        free(exp);
    }
}

/* the most jobs on one GPU at once, per policy, from the timeline */
static const char holders_sql[] =
    "with ev as (select run_id r, resource g, start_s t, 1 d from timeline"
    " where resource is not null union all select run_id, resource, end_s, -1"
    " from timeline where resource is not null),"
    " acc as (select r, sum(d) over (partition by r, g order by t, d rows unbounded preceding) s"
    " from ev) select coalesce(max(s), 0) from acc join runs on runs.id = acc.r"
    " where runs.policy = '%s'";

Test(mux_e2e, each_policy_keeps_its_own_limits)
{
    char *exp = experiment("mux_limits", 400, 60);
    char db[4096];
    snprintf(db, sizeof db, "%s/mux_limits.db", th_tmpdir());
    struct th_out o = th_hetsim((const char *const[]){ "run", exp, "--db", db, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(exp);
    static const struct { const char *policy; int most; } lim[] = {
        { "exclusive", 1 }, { "gandiva", 2 }, { "antman", 2 }, { "iadeep", 3 }, { "mps_even", 4 },
        { "kernel_slice", 4 } };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        char q[1024];
        snprintf(q, sizeof q, holders_sql, lim[i].policy);
        double most = th_db_value(db, q);
        cr_assert(most <= lim[i].most, "%s: %g jobs on one GPU", lim[i].policy, most);
        if (lim[i].most > 1)        /* at 400 jobs an hour on 4 GPUs, every sharer shares */
            cr_assert(most >= 2, "%s never shared a GPU", lim[i].policy);
    }
    /* AntMan's shares: the whole GPU, or 900 guaranteed and 100 opportunistic */
    cr_assert_eq(th_db_value(db, "select count(*) from timeline join runs on runs.id = run_id"
                                 " where policy = 'antman' and share is not null and"
                                 " abs(share - 1) > 1e-9 and abs(share - 0.9) > 1e-9 and"
                                 " abs(share - 0.1) > 1e-9"), 0);
    cr_assert(th_db_value(db, "select count(*) from timeline join runs on runs.id = run_id"
                              " where policy = 'antman' and abs(share - 0.1) < 1e-9") > 0);
    /* the guaranteed job (0.9) is the one that held the GPU first, the opportunistic one
     * (0.1) came later */
    static const char pairs[] =
        "select count(*) from timeline a join timeline b on a.run_id = b.run_id and"
        " a.resource = b.resource and a.start_s < b.end_s and b.start_s < a.end_s"
        " join jobs ja on ja.run_id = a.run_id and ja.job_id = a.entity"
        " join jobs jb on jb.run_id = b.run_id and jb.job_id = b.entity"
        " join runs on runs.id = a.run_id where policy = 'antman'"
        " and abs(a.share - 0.9) < 1e-9 and abs(b.share - 0.1) < 1e-9";
    char q2[1200];
    snprintf(q2, sizeof q2, "%s and ja.first_start_s > jb.first_start_s", pairs);
    cr_assert(th_db_value(db, pairs) > 0);
    cr_assert_eq(th_db_value(db, q2), 0, "an opportunistic job held a GPU before its guaranteed one");
    /* MPS: even shares of 1 to 4 holders */
    cr_assert_eq(th_db_value(db, "select count(*) from timeline join runs on runs.id = run_id"
                                 " where policy = 'mps_even' and share is not null and"
                                 " abs(share * round(1 / share) - 1) > 0.002"), 0);
}

/* A and A interfere badly, A and B hardly: where does the second A go? */
static char *pair_experiment(const char *name, const char *policies, double aa)
{
    char table[512];
    snprintf(table, sizeof table,
             "worker_type,job_a,job_b,norm_speed_a,norm_speed_b\n"
             "v100,ResNet-18 (batch size 16),ResNet-18 (batch size 16),%g,%g\n"
             "v100,ResNet-18 (batch size 16),ResNet-50 (batch size 16),0.9,0.9\n"
             "v100,ResNet-50 (batch size 16),ResNet-50 (batch size 16),0.5,0.5\n", aa, aa);
    static const char trace[] =
        "arrival_s,job_type,workers,duration_s\n"
        "0,ResNet-18 (batch size 16),1,3000\n"
        "0,ResNet-50 (batch size 16),1,3000\n"
        "10,ResNet-18 (batch size 16),1,300\n";
    char tname[64];
    snprintf(tname, sizeof tname, "%s_table.csv", name);
    free(th_write(tname, table));
    free(th_write("pair_trace.csv", trace));
    static char text[4096];
    snprintf(text, sizeof text,
             "{ \"name\": \"%s\", \"cluster\": { \"name\": \"two\", \"network\": \"ib-100g\","
             " \"groups\": [ { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 } ] },"
             " \"workload\": { \"format\": \"hetsim\", \"trace\": \"pair_trace.csv\" },"
             " \"multiplex\": { \"interference\": [ { \"format\": \"gavel\","
             " \"path\": \"%s\" } ], \"pressure_exp\": 0 },"
             " \"policies\": %s, \"sim\": { \"timeline\": true, \"restore_fixed_s\": 1 } }",
             name, tname, policies);
    char file[64];
    snprintf(file, sizeof file, "%s.json", name);
    return th_write(file, text);
}

Test(mux_e2e, iadeep_places_by_predicted_degradation_and_gandiva_unpacks_a_bad_pair)
{
    /* A with A at 0.6 each: a PD of 1.67, which IADeep's gate allows (below 2 jobs), so only
     * its ranking keeps job 2 away from A (it profiled every pair); Gandiva's pair is A with
     * A at 0.2 (below) */
    char *exp = pair_experiment("mux_pair", "[{ \"name\": \"iadeep\", \"known_pairs\": 1 },"
                                            " \"mps_even\"]", 0.6);
    char db[4096];
    snprintf(db, sizeof db, "%s/mux_pair.db", th_tmpdir());
    struct th_out o = th_hetsim((const char *const[]){ "run", exp, "--db", db, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(exp);
    /* where job 2 ran first, and beside whom */
    static const char first_gpu[] =
        "select resource from timeline join runs on runs.id = run_id where policy = '%s'"
        " and entity = %d and resource is not null order by start_s limit 1";
    char gdb[4096];
    snprintf(gdb, sizeof gdb, "%s/mux_pair_gandiva.db", th_tmpdir());
    exp = pair_experiment("mux_pair_g", "[{ \"name\": \"gandiva\", \"observe_s\": 60 }]", 0.2);
    o = th_hetsim((const char *const[]){ "run", exp, "--db", gdb, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(exp);
    char q[512];
    double g[3][3];
    static const char *const pol[] = { "iadeep", "mps_even", "gandiva" };
    for (int p = 0; p < 3; p++)
        for (int j = 0; j < 3; j++) {
            snprintf(q, sizeof q, first_gpu, pol[p], j);
            g[p][j] = th_db_value(p < 2 ? db : gdb, q);
        }
    /* IADeep predicts A beside B degrades least: job 2 joins job 1 (B) */
    cr_assert_eq(g[0][2], g[0][1], "iadeep put job 2 on GPU %g (B is on %g)", g[0][2], g[0][1]);
    /* MPS takes the GPU with the least memory used, A's */
    cr_assert_eq(g[1][2], g[1][0], "mps_even put job 2 on GPU %g", g[1][2]);
    cr_assert(th_db_value(db, "select jct_s from jobs join runs on runs.id = run_id where"
                              " policy = 'iadeep' and job_id = 2") <
              th_db_value(db, "select jct_s from jobs join runs on runs.id = run_id where"
                              " policy = 'mps_even' and job_id = 2"));
    /* Gandiva packs it with A, sees 0.2 + 0.2 < 1 after 60 s, unpacks it, and packs it
     * with B instead */
    cr_assert_eq(g[2][2], g[2][0]);
    cr_assert_eq(th_db_value(gdb, "select preemptions from jobs join runs on runs.id = run_id"
                                  " where policy = 'gandiva' and job_id = 2"), 1);
    snprintf(q, sizeof q, "select resource from timeline join runs on runs.id = run_id where"
                          " policy = 'gandiva' and entity = 2 and resource is not null"
                          " order by start_s desc limit 1");
    cr_assert_eq(th_db_value(gdb, q), g[2][1], "gandiva's second try for job 2");
}

/* pred_error_mean in the database: the oracle's is measured and 0, a learned IADeep that
 * profiled nothing errs and one that profiled every pair errs less; what each profiled */
Test(mux_e2e, iadeep_reports_how_wrong_its_predictions_were)
{
    char *exp = experiment("mux_pred", 400, 60);
    char db[4096];
    snprintf(db, sizeof db, "%s/mux_pred.db", th_tmpdir());
    struct th_out o = th_hetsim((const char *const[]){
        "run", exp, "--db", db, "--quiet", "--set",
        "policies=[{\"name\": \"iadeep\", \"label\": \"oracle\", \"predictor\": \"oracle\"},"
        " {\"name\": \"iadeep\", \"label\": \"k0\", \"known_pairs\": 0},"
        " {\"name\": \"iadeep\", \"label\": \"k1\", \"known_pairs\": 1}, \"iadeep\", \"mps_even\"]",
        NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(exp);
    static const char q[] = "select value from metrics join runs on runs.id = run_id where"
                            " policy = '%s' and name = '%s'";
    char sql[256];
#define METRIC(pol, name) (snprintf(sql, sizeof sql, q, pol, name), th_db_value(db, sql))
    static const char *const pol[] = { "oracle", "k0", "k1", "iadeep" };
    for (int i = 0; i < 4; i++)
        cr_assert_gt(METRIC(pol[i], "pred_scored"), 20, "%s scored too few predictions", pol[i]);
    double e_or = METRIC("oracle", "pred_error_mean"), e0 = METRIC("k0", "pred_error_mean"),
           e1 = METRIC("k1", "pred_error_mean"), eh = METRIC("iadeep", "pred_error_mean");
    cr_log_info("pred_error_mean: oracle %g, known_pairs 0 %g, 1 %g, 0.5 %g", e_or, e0, e1, eh);
    cr_assert(e_or >= 0 && e_or < 1e-12, "oracle %g", e_or);
    cr_assert_gt(e0, 1e-3);
    cr_assert_lt(e1, e0);
    /* six job types on one GPU type: 21 pairs; none, all, and some of them profiled */
    cr_assert_eq(METRIC("k0", "pred_profiled"), 0);
    cr_assert_eq(METRIC("k1", "pred_profiled"), 21);
    double half = METRIC("iadeep", "pred_profiled");
    cr_assert(half > 3 && half < 18, "known_pairs 0.5 profiled %g of 21", half);
    cr_assert_eq(METRIC("oracle", "pred_observed"), 0);
    cr_assert_gt(METRIC("k0", "pred_observed"), 5);
    /* the predictions for combinations it had not measured are the uncertain ones: scored
     * apart, they err more; the oracle has none */
    cr_assert_eq(METRIC("oracle", "pred_unseen_scored"), 0);
    cr_assert_gt(METRIC("k0", "pred_unseen_scored"), 5);
    cr_log_info("unseen: known_pairs 0 %g over %g", METRIC("k0", "pred_unseen_error_mean"),
                METRIC("k0", "pred_unseen_scored"));
    cr_assert_gt(METRIC("k0", "pred_unseen_error_mean"), e0);
    /* policies that do not predict write no prediction figures */
    cr_assert_eq(th_db_value(db, "select count(*) from metrics join runs on runs.id = run_id"
                                 " where policy = 'mps_even' and name like 'pred_%'"), 0);
#undef METRIC
}

/* Gandiva measures a packed pair only once both have run: every pair here loses (normalized
 * speed 0.4 each), job 2 is unpacked from beside job 0, and when job 3 arrives it is packed
 * again beside job 1 and restores for over a second; observing after 0.5 s, Gandiva still
 * waits until it has run before it judges (no grant of it ends in an unpack while it
 * restores) */
Test(mux_e2e, gandiva_measures_a_pair_only_once_it_has_run)
{
    static const char table[] =
        "worker_type,job_a,job_b,norm_speed_a,norm_speed_b\n"
        "v100,ResNet-18 (batch size 16),ResNet-18 (batch size 16),0.4,0.4\n"
        "v100,ResNet-18 (batch size 16),ResNet-50 (batch size 16),0.4,0.4\n"
        "v100,ResNet-50 (batch size 16),ResNet-50 (batch size 16),0.4,0.4\n";
    static const char trace[] =
        "arrival_s,job_type,workers,duration_s\n"
        "0,ResNet-18 (batch size 16),1,3000\n"
        "0,ResNet-50 (batch size 16),1,3000\n"
        "10,ResNet-18 (batch size 16),1,300\n"
        "20,ResNet-50 (batch size 16),1,50\n";
    free(th_write("gmeasure_table.csv", table));
    free(th_write("gmeasure_trace.csv", trace));
    char *exp = th_write("gmeasure.json",
        "{ \"name\": \"gmeasure\", \"cluster\": { \"name\": \"two\", \"network\": \"ib-100g\","
        " \"groups\": [ { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 } ] },"
        " \"workload\": { \"format\": \"hetsim\", \"trace\": \"gmeasure_trace.csv\" },"
        " \"multiplex\": { \"interference\": [ { \"format\": \"gavel\","
        " \"path\": \"gmeasure_table.csv\" } ], \"pressure_exp\": 0 },"
        " \"policies\": [{ \"name\": \"gandiva\", \"observe_s\": 0.5 }],"
        " \"sim\": { \"timeline\": true, \"restore_fixed_s\": 1 } }");
    char db[4096];
    snprintf(db, sizeof db, "%s/gmeasure.db", th_tmpdir());
    struct th_out o = th_hetsim((const char *const[]){ "run", exp, "--db", db, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(exp);
    /* job 2 restored beside job 1 after its unpack: the case this test is about */
    cr_assert_eq(th_db_value(db, "select count(*) from timeline a join timeline b on"
                                 " a.resource = b.resource and a.start_s < b.end_s and"
                                 " b.start_s < a.end_s where a.entity = 2 and"
                                 " a.state = 'restoring' and b.entity = 1"), 1);
    cr_assert_eq(th_db_value(db, "select count(*) from timeline where state = 'restoring'"
                                 " and ends = 'preempt'"), 0,
                 "Gandiva unpacked a job that had not run yet");
    cr_assert_eq(th_db_value(db, "select preemptions from jobs where job_id = 2"), 2);
}

Test(mux_e2e, shipped_experiments_run_every_policy, .timeout = 120)
{
    char db[4096];
    snprintf(db, sizeof db, "%s/mux_shipped.db", th_tmpdir());
    struct th_out o = th_hetsim((const char *const[]){ "run", "gavel_colocation", "--set",
                                                       "workload.max_jobs=80", "--db", db,
                                                       "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "select count(*) from runs"), 5);
    cr_assert_eq(th_db_value(db, "select count(*) from jobs where finish_s is null"), 0);
    if (th_shared_dir("traces/iadeep") == NULL)
        cr_skip_test("../shared/traces/iadeep is not here (iadeep_3090 reads it)");
    o = th_hetsim((const char *const[]){ "run", "iadeep_3090", "--set", "workload.jobs=80",
                                        "--db", db, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "select count(*) from runs where experiment = 'iadeep_3090'"), 6);
    cr_assert_eq(th_db_value(db, "select count(*) from jobs where finish_s is null"), 0);
    if (th_shared_dir("traces/gpu_colocation") == NULL)
        cr_skip_test("../shared/traces/gpu_colocation is not here (iadeep_3090_lucid reads it)");
    o = th_hetsim((const char *const[]){ "run", "iadeep_3090_lucid", "--set", "workload.jobs=80",
                                        "--db", db, "--quiet", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "select count(*) from runs where experiment = "
                                 "'iadeep_3090_lucid'"), 6);
    cr_assert_eq(th_db_value(db, "select count(*) from jobs where finish_s is null"), 0);
}
