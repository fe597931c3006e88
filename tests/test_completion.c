/*
 * test_completion: low-rank completion (models/completion.h) and Heet's scaling estimate
 * (models/scaling.h) — an exactly rank-2 matrix recovered from its known entries; on Heet's
 * own measurements (T4, A10, V100 x 1-4 workers, six job types), each job type estimated
 * from its profiled points and the other five types, with the error on its held-back
 * measured points bounded; and the shipped profile (models/data/profiles/heet.csv) against
 * every row of the source table (../shared/traces/heet/elastic_profiles.csv).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/completion.h"
#include "../models/scaling.h"
#include "helpers.h"

TestSuite(completion, .init = th_models_init, .fini = th_models_fini);

Test(completion, recovers_an_exact_rank_two_matrix)
{
    enum { M = 8, N = 6 };
    double a[M * N], out[M * N];
    unsigned char known[M * N];
    int hidden = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            a[i * N + j] = (1 + 0.3 * i) * (2 - 0.1 * j) + (0.5 - 0.05 * i) * (j % 3);
            known[i * N + j] = (i * 7 + j * 13 + i * j * 5) % 11 >= 3;   /* 9 of 48 hidden */
            hidden += !known[i * N + j];
        }
    cr_assert_eq(hidden, 9);
    /* what is hidden must not be read: give it a wild value */
    double in[M * N];
    for (int k = 0; k < M * N; k++)
        in[k] = known[k] ? a[k] : 1e3;
    struct completion_opts o = { 2, 1e-9, 2000 };
    cr_assert_eq(completion_fit(in, known, M, N, &o, out), 0);
    for (int k = 0; k < M * N; k++)
        cr_assert_float_eq(out[k], a[k], 1e-4, "entry %d: %g, want %g", k, out[k], a[k]);
    /* rank 1 cannot fit it: some hidden entry is off by more than 1% */
    struct completion_opts o1 = { 1, 1e-9, 2000 };
    cr_assert_eq(completion_fit(in, known, M, N, &o1, out), 0);
    double worst = 0;
    for (int k = 0; k < M * N; k++)
        if (fabs(out[k] - a[k]) / a[k] > worst)
            worst = fabs(out[k] - a[k]) / a[k];
    cr_assert_gt(worst, 0.01);
    cr_assert_eq(completion_fit(a, known, M, N, &(struct completion_opts){ 0, 0, 1 }, out), -1);
}

static const char *const heet_types[] = {
    "VGG-19 CIFAR-10 (batch size 64)", "VGG-19 CIFAR-10 (batch size 512)",
    "ResNet-152 CIFAR-10 (batch size 64)", "ResNet-152 CIFAR-10 (batch size 512)",
    "DenseNet-121 CIFAR-10 (batch size 64)", "DenseNet-121 CIFAR-10 (batch size 512)" };

/* Each Heet job type from its T + 2 profiled points and the other types' measurements: the
 * held-back cells' mean relative error, and the worst.  Numbers measured when this was
 * written (rank 2, ridge 0.01, 100 sweeps): 42 cells, mean 0.241, worst 0.775, against 2.13
 * for linear scaling (n times one GPU). */
Test(completion, heet_held_back_points)
{
    int gpus[3] = { catalog_gpu_find(th_cat, "T4"), catalog_gpu_find(th_cat, "A10"),
                    catalog_gpu_find(th_cat, "V100-16GB") };
    enum { K = 4, W = K + 1 };
    struct completion_opts o = { 2, 0.01, 100 };
    double sum = 0, worst = 0, sum_naive = 0;
    int cells = 0;
    for (int t = 0; t < 6; t++) {
        int jt = tput_find(th_m, heet_types[t]);
        cr_assert_geq(jt, 0);
        double thr1[3], prof[3 * W] = { 0 }, est[3 * W];
        unsigned char mask[3 * W];
        for (int i = 0; i < 3; i++)
            thr1[i] = tput_measured(th_m, jt, gpus[i], 1, 0);
        cr_assert_eq(scaling_profile_points(thr1, 3, K, 2, mask), 5);
        for (int i = 0; i < 3; i++)
            for (int n = 1; n <= K; n++)
                if (mask[i * W + n])
                    prof[i * W + n] = tput_measured(th_m, jt, gpus[i], n, 0);
        cr_assert_eq(scaling_estimate(th_m, gpus, 3, K, jt, prof, mask, &o, est), 0);
        for (int i = 0; i < 3; i++)
            for (int n = 1; n <= K; n++) {
                double truth = tput_measured(th_m, jt, gpus[i], n, 0);
                if (mask[i * W + n]) {
                    cr_assert_eq(est[i * W + n], truth, "profiled cells are kept as measured");
                    continue;
                }
                double e = fabs(est[i * W + n] - truth) / truth;
                /* the naive guess: linear scaling, n times one GPU */
                sum_naive += fabs(n * thr1[i] - truth) / truth;
                sum += e;
                worst = e > worst ? e : worst;
                cells++;
            }
    }
    cr_assert_eq(cells, 6 * 7);
    double mean = sum / cells;
    cr_log_info("held-back cells %d: mean relative error %.3f, worst %.3f; linear guess %.3f\n",
                cells, mean, worst, sum_naive / cells);
    cr_assert_lt(mean, 0.3, "mean relative error %.3f", mean);
    cr_assert_lt(worst, 1.0, "worst relative error %.3f", worst);
    cr_assert_lt(mean, 0.5 * sum_naive / cells, "no better than linear scaling");
}

/* The shipped profile holds every source row: iters/s = 1 / batch_time_s (5 digits). */
Test(completion, shipped_profile_matches_the_source_rows)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/heet/elastic_profiles.csv", th_shared_dir("traces"));
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[512];
    int rows = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f) != NULL) {
        char gpu[32], model[32];
        int batch, workers;
        double bt;
        char *c = strrchr(line, ',');
        cr_assert_not_null(c);
        bt = atof(c + 1);
        cr_assert_eq(sscanf(line, "%31[^,],%31[^,],%d,%d", gpu, model, &batch, &workers), 4);
        const char *name = strcmp(model, "vgg19") == 0       ? "VGG-19"
                           : strcmp(model, "resnet152") == 0 ? "ResNet-152"
                                                             : "DenseNet-121";
        char jt[96];
        snprintf(jt, sizeof jt, "%s CIFAR-10 (batch size %d)", name, batch);
        int id = tput_find(th_m, jt), g = catalog_gpu_find(th_cat, gpu);
        cr_assert_geq(id, 0, "%s", jt);
        cr_assert_geq(g, 0, "%s", gpu);
        double want = 1 / bt, got = tput_measured(th_m, id, g, workers, 0);
        cr_assert_float_eq(got, want, 1e-5 * want, "%s on %d x %s: %g, source %g", jt, workers,
                           gpu, got, want);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 96);
}
