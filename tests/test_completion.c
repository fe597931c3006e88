/*
 * test_completion: low-rank completion (models/completion.h) and Heet's scaling estimate
 * (models/scaling.h) — an exactly rank-2 matrix recovered from its known entries; the
 * scaling-efficiency matrix of Heet's six job types (T4, A10, V100 x 2-4 workers, from the
 * step-time models hetsim ships, models/data/profiles/heet_fit.json) completed with each
 * cell held back in turn; and each job type estimated from its profiled points and the other
 * types, on the measured table (../shared/traces/heet/elastic_profiles.csv, read where it
 * is: hetsim does not ship it; skipped without it) and on the fits.  Every bound on a
 * held-back error is set by a simpler answer computed here from the same data — the column
 * mean (what every other job type does there), "no gain" (n workers as fast as one: what a
 * completion that answers 0 gives Heet's estimate) and linear scaling — not by a constant:
 * a completion that answers 0, or whose least-squares step is wrong, falls to or below them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../models/completion.h"
#include "../models/scaling.h"
#include "../sim/base/path.h"
#include "../sim/run/experiment.h"
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

/* Mean and worst relative error of an estimator over the held-back cells. */
struct err {
    double mean, worst;
};

struct held_back {
    int        cells;
    struct err est;
    struct err linear;              /* n times one GPU */
    struct err nogain;              /* n GPUs as fast as one: a completion answering 0 */
    struct err column;              /* n thr(1) times the other job types' mean efficiency */
};

static void err_add(struct err *e, double x)
{
    e->mean += x;
    e->worst = x > e->worst ? x : e->worst;
}

/* Each Heet job type from its T + 2 profiled points and the other types' profiles in m
 * (tput_profiled: measured cells, else the fits), its held-back cells compared with the
 * same source. */
static struct held_back held_back(const tput *m)
{
    int gpus[3] = { catalog_gpu_find(th_cat, "T4"), catalog_gpu_find(th_cat, "A10"),
                    catalog_gpu_find(th_cat, "V100-16GB") };
    enum { K = 4, W = K + 1 };
    struct completion_opts o = { 2, 0.01, 100 };
    struct held_back h = { 0 };
    for (int t = 0; t < 6; t++) {
        int jt = tput_find(m, heet_types[t]);
        cr_assert_geq(jt, 0);
        double thr1[3], prof[3 * W] = { 0 }, est[3 * W];
        unsigned char mask[3 * W];
        for (int i = 0; i < 3; i++)
            thr1[i] = tput_profiled(m, jt, gpus[i], 1, 0);
        cr_assert_eq(scaling_profile_points(thr1, 3, K, 2, mask), 5);
        for (int i = 0; i < 3; i++)
            for (int n = 1; n <= K; n++)
                if (mask[i * W + n])
                    prof[i * W + n] = tput_profiled(m, jt, gpus[i], n, 0);
        cr_assert_eq(scaling_estimate(m, gpus, 3, K, jt, prof, mask, &o, est), 0);
        for (int i = 0; i < 3; i++)
            for (int n = 1; n <= K; n++) {
                double truth = tput_profiled(m, jt, gpus[i], n, 0);
                cr_assert_gt(truth, 0);
                if (mask[i * W + n]) {
                    cr_assert_eq(est[i * W + n], truth, "profiled cells are kept as profiled");
                    continue;
                }
                double col = 0;
                int ncol = 0;
                for (int r = 0; r < 6; r++) {
                    int rt = tput_find(m, heet_types[r]);
                    double one = tput_profiled(m, rt, gpus[i], 1, 0);
                    double at = tput_profiled(m, rt, gpus[i], n, 0);
                    if (r != t && one > 0 && at > 0) {
                        col += at / (n * one);
                        ncol++;
                    }
                }
                cr_assert_gt(ncol, 0);
                err_add(&h.est, fabs(est[i * W + n] - truth) / truth);
                err_add(&h.linear, fabs(n * thr1[i] - truth) / truth);
                err_add(&h.nogain, fabs(thr1[i] - truth) / truth);
                err_add(&h.column, fabs(n * thr1[i] * col / ncol - truth) / truth);
                h.cells++;
            }
    }
    cr_assert_eq(h.cells, 6 * 7);
    struct err *all[] = { &h.est, &h.linear, &h.nogain, &h.column };
    for (int k = 0; k < 4; k++)
        all[k]->mean /= h.cells;
    return h;
}

static void log_held_back(const char *what, const struct held_back *h)
{
    cr_log_info("%s: held-back cells %d, mean / worst relative error: estimate %.3f / %.3f; "
                "no gain %.3f / %.3f; column mean %.3f / %.3f; linear %.3f / %.3f\n", what,
                h->cells, h->est.mean, h->est.worst, h->nogain.mean, h->nogain.worst,
                h->column.mean, h->column.worst, h->linear.mean, h->linear.worst);
}

/* On the measured table (with Gavel's, as an experiment naming it would load them).
 * Measured when this was written (rank 2, ridge 0.01, 100 sweeps), mean / worst relative
 * error over 42 cells: estimate 0.241 / 0.775; no gain 0.404 / 1.972; column mean 0.571 /
 * 3.234; linear 2.133.  The estimate must beat every simpler answer by a fifth on the mean
 * and the best of them at its worst. */
Test(completion, heet_held_back_points)
{
    char path[1024], j[PATH_MAX_LEN], g[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/heet/elastic_profiles.csv", th_shared_dir("traces"));
    if (access(path, R_OK) != 0)
        cr_skip_test("%s is not here (hetsim does not ship it)", path);
    tput *m = NULL;
    struct errbuf err;
    err_clear(&err);
    path_resolve(j, sizeof j, NULL, experiment_default_jobtypes);
    path_resolve(g, sizeof g, NULL, "models/data/profiles/gavel.csv");
    cr_assert_eq(tput_create(&m, th_cat, &err), 0);
    cr_assert(tput_load_types(m, j, &err) == 0 && tput_load_profile(m, g, &err) == 0 &&
              tput_load_profile(m, path, &err) == 0, "%s", err.msg);
    struct held_back h = held_back(m);
    tput_destroy(m);
    log_held_back("measured", &h);
    const struct err *base[] = { &h.nogain, &h.column, &h.linear };
    for (int k = 0; k < 3; k++) {
        cr_assert_lt(h.est.mean, 0.8 * base[k]->mean, "mean %.3f against %.3f (answer %d)",
                     h.est.mean, base[k]->mean, k);
        cr_assert_lt(h.est.worst, base[k]->worst, "worst %.3f against %.3f (answer %d)",
                     h.est.worst, base[k]->worst, k);
    }
}

/* On the shipped fits, the cluster's truth in Heet's experiments.  Measured when this was
 * written, mean / worst over 42 cells: estimate 0.395 / 2.486; no gain 0.375 / 2.012; column
 * mean 0.546 / 3.079; linear 2.157.  On the fits the estimate is no better than "no gain"
 * (doc/reproduce.md, Heet, says why: the fits scale worse than the table they were fitted to), so its
 * error here cannot tell a working completion from one that answers 0: it must beat the
 * column mean and linear scaling, and stay within 10% of "no gain" on the mean; the
 * completion itself is checked on the same fits by held_back_efficiencies_beat_the_column_
 * means below. */
Test(completion, heet_held_back_points_on_the_fits)
{
    struct held_back h = held_back(th_m);
    log_held_back("fitted", &h);
    cr_assert_lt(h.est.mean, h.column.mean, "mean %.3f", h.est.mean);
    cr_assert_lt(h.est.worst, h.column.worst, "worst %.3f", h.est.worst);
    cr_assert_lt(h.est.mean, 0.5 * h.linear.mean, "no better than linear scaling");
    cr_assert_lt(h.est.mean, 1.1 * h.nogain.mean, "mean %.3f", h.est.mean);
}

/* The completion alone on the fits: the 6 x 9 matrix of Heet's six job types' scaling
 * efficiencies e_i(n) = thr_i(n) / (n thr_i(1)) on T4, A10, V100 at n = 2..4, each cell held
 * back once (five folds: cell k in fold (7k + 3) mod 5), completed with Heet's settings (rank
 * 2, ridge 0.01, 100 sweeps) from the rest.  The column mean of the known cells is the best
 * answer that does not look at the job's own row; a completion must do clearly better, and
 * an answer of 0 (rank 0) errs by 100%.  Measured when this was written: mean relative error
 * 0.195 against the column mean's 0.466; the bound is 0.6 of it. */
Test(completion, held_back_efficiencies_beat_the_column_means)
{
    int gpus[3] = { catalog_gpu_find(th_cat, "T4"), catalog_gpu_find(th_cat, "A10"),
                    catalog_gpu_find(th_cat, "V100-16GB") };
    enum { R = 6, C = 9, K = 4 };
    double a[R * C], out[R * C];
    unsigned char known[R * C];
    for (int r = 0; r < R; r++) {
        int jt = tput_find(th_m, heet_types[r]);
        cr_assert_geq(jt, 0);
        for (int i = 0; i < 3; i++) {
            double one = tput_profiled(th_m, jt, gpus[i], 1, 0);
            for (int n = 2; n <= K; n++) {
                double at = tput_profiled(th_m, jt, gpus[i], n, 0);
                cr_assert(one > 0 && at > 0);
                a[r * C + i * (K - 1) + n - 2] = at / (n * one);
            }
        }
    }
    struct err fit = { 0 }, col = { 0 };
    int held = 0;
    for (int fold = 0; fold < 5; fold++) {
        for (int k = 0; k < R * C; k++)
            known[k] = (7 * k + 3) % 5 != fold;
        struct completion_opts o = { 2, 0.01, 100 };
        cr_assert_eq(completion_fit(a, known, R, C, &o, out), 0);
        for (int k = 0; k < R * C; k++) {
            if (known[k]) {
                cr_assert_eq(out[k], a[k], "known cells are copied");
                continue;
            }
            double cm = 0;
            int cn = 0;
            for (int r = 0; r < R; r++)
                if (known[r * C + k % C]) {
                    cm += a[r * C + k % C];
                    cn++;
                }
            cr_assert_gt(cn, 0);
            err_add(&fit, fabs(out[k] - a[k]) / a[k]);
            err_add(&col, fabs(cm / cn - a[k]) / a[k]);
            held++;
        }
    }
    cr_assert_eq(held, R * C);
    fit.mean /= held;
    col.mean /= held;
    cr_log_info("efficiencies held back: %d cells, mean / worst relative error: completion "
                "%.3f / %.3f, column mean %.3f / %.3f\n", held, fit.mean, fit.worst, col.mean,
                col.worst);
    cr_assert_lt(fit.mean, 0.6 * col.mean, "completion %.3f, column mean %.3f", fit.mean,
                 col.mean);
    cr_assert_lt(fit.worst, col.worst, "completion at worst %.3f, column mean %.3f", fit.worst,
                 col.worst);
}
