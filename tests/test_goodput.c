/*
 * test_goodput: Pollux's throughput model (models/goodput.h) against hand-computed values,
 * its fit (a known model recovered from its own points; Pollux's fixed-parameter rules; the
 * fit error on the shipped Pollux profiles, printed), and the batch optimisation against a
 * brute-force scan of every (atomic batch, accumulation steps).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/goodput.h"
#include "../sim/base/path.h"

#define NEAR(a, b, tol) (fabs((a) - (double)(b)) <= (tol) * fmax(1, fabs((double)(b))))

static const struct goodput_perf P1 = { 0.1, 0.01, 0.2, 0.02, 0.05, 0.005, 1.0 };

Test(goodput, times_by_hand)
{
    /* compute 0.1 + 0.01 * 10 = 0.2; inter-node 0.2 + 0.02 * (8 - 2) = 0.32 */
    cr_assert(NEAR(goodput_compute_time(&P1, 10), 0.2, 1e-12));
    cr_assert(NEAR(goodput_network_time(&P1, 2, 8), 0.32, 1e-12));
    /* intra-node 0.05 + 0.005 * 2; two replicas: the retrogression is 1e-8 of beta */
    cr_assert(NEAR(goodput_network_time(&P1, 1, 4), 0.06, 1e-12));
    cr_assert(NEAR(goodput_network_time(&P1, 1, 2), 0.05 + 0.005e-8, 1e-12));
    /* one replica: no network, 1e-8 (1 + 1e-8) */
    cr_assert(goodput_network_time(&P1, 1, 1) < 2e-8);
    /* gamma 1: no overlap, 0.2 + 0.32 */
    cr_assert(NEAR(goodput_step_time(&P1, 2, 8, 10), 0.52, 1e-12));
    /* two accumulation steps repeat the compute: 0.52 + 2 * 0.2 */
    cr_assert(NEAR(goodput_iter_time(&P1, 2, 8, 10, 2), 0.92, 1e-12));
    cr_assert(NEAR(goodput_throughput(&P1, 2, 8, 10, 2), 8 * 10 * 3 / 0.92, 1e-12));
    /* gamma 2: sqrt(0.2^2 + 0.32^2) */
    struct goodput_perf p2 = P1;
    p2.gamma = 2;
    cr_assert(NEAR(goodput_step_time(&p2, 2, 8, 10), sqrt(0.04 + 0.1024), 1e-12));
    /* large gamma tends to the max */
    p2.gamma = 10;
    cr_assert(goodput_step_time(&p2, 2, 8, 10) < 0.33 && goodput_step_time(&p2, 2, 8, 10) > 0.32);
}

Test(goodput, efficiency_by_hand)
{
    /* sqr 1, var 3, B0 100, B 400: scale 4, gain 4 / (0.75 + 1), efficiency gain / 4 */
    struct goodput_grad g = { 1, 3 };
    cr_assert(NEAR(goodput_efficiency(&g, 100, 400), (4 / 1.75) / 4, 1e-12));
    cr_assert(NEAR(goodput_efficiency(&g, 100, 100), 1, 1e-12));
    /* goodput = throughput x efficiency */
    double t = goodput_throughput(&P1, 1, 4, 100, 0);
    cr_assert(NEAR(goodput_eval(&P1, &g, 100, 1, 4, 100, 0), t * (4 / 1.75) / 4, 1e-12));
    /* no statistics yet (both 0): gain 1 */
    struct goodput_grad z = { 0, 0 };
    cr_assert(NEAR(goodput_efficiency(&z, 100, 400), 0.25, 1e-12));
}

/* the points of a known model over a spread of configurations */
static int synth(const struct goodput_perf *p, struct goodput_obs *o)
{
    static const int cfg[][2] = { { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 }, { 2, 2 }, { 2, 4 },
                                  { 2, 8 }, { 3, 12 }, { 4, 16 } };
    static const double m[] = { 16, 32, 64, 128 };
    int n = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            double step = goodput_step_time(p, cfg[c][0], cfg[c][1], m[k]);
            o[n++] = (struct goodput_obs){ cfg[c][0], cfg[c][1], m[k], step,
                                           step - goodput_compute_time(p, m[k]) };
        }
    return n;
}

Test(goodput, fit_recovers_known_params)
{
    struct goodput_perf truth = { 0.03, 0.0015, 0.25, 0.004, 0.04, 0.002, 1.6 };
    struct goodput_obs o[64];
    int n = synth(&truth, o);
    struct goodput_perf f;
    double e;
    cr_assert_eq(goodput_fit(o, n, 0, &f, &e), 0);
    const double *a = &truth.alpha_c, *b = &f.alpha_c;
    for (int k = 0; k < 7; k++)
        cr_assert(NEAR(b[k], a[k], 1e-4), "parameter %d: fitted %.9g, true %.9g", k, b[k],
                  a[k]);
    cr_assert_lt(e, 1e-6);
    /* Pollux's regularisers bias the parameters a little; predictions stay within 2% */
    cr_assert_eq(goodput_fit(o, n, 1, &f, &e), 0);
    for (int i = 0; i < n; i++)
        cr_assert(NEAR(goodput_step_time(&f, o[i].nodes, o[i].replicas, o[i].atomic),
                       o[i].step, 0.02));
    cr_assert_lt(e, 0.02);
}

Test(goodput, fit_pollux_rules_on_one_point)
{
    /* one point on one GPU: alpha_c fixed at half the compute time, the network terms at
     * their bounds, then the inter-node ones raised to 1.1 x the intra-node ones */
    struct goodput_obs o = { 1, 1, 64, 0.4, 0.0004 };
    struct goodput_perf f;
    cr_assert_eq(goodput_fit(&o, 1, 1, &f, NULL), 0);
    cr_assert(NEAR(f.alpha_c, 0.1998, 1e-12));
    cr_assert(NEAR(f.alpha_r, 1e-8, 1e-12) && NEAR(f.beta_r, 1e-8, 1e-12));
    cr_assert(f.alpha_n >= 1.1 * f.alpha_r * (1 - 1e-12));
    /* the compute it was shown: 0.1998 + 64 beta_c = 0.3996 (and the step, 0.4, which on
     * one GPU is all compute) */
    cr_assert(NEAR(goodput_compute_time(&f, 64), 0.3998, 1e-3), "compute %g",
              goodput_compute_time(&f, 64));
    cr_assert(f.gamma >= 1 && f.gamma <= 10);
    /* bad observations are refused */
    struct goodput_obs bad = { 1, 1, 64, 0.1, 0.5 };
    cr_assert_eq(goodput_fit(&bad, 1, 1, &f, NULL), -1);
}

/* placements.csv of a shipped Pollux application as observations */
static int read_profile(const char *app, struct goodput_obs **out)
{
    char rel[128], p[PATH_MAX_LEN];
    snprintf(rel, sizeof rel, "models/data/pollux/%s/placements.csv", app);
    cr_assert_eq(path_resolve(p, sizeof p, NULL, rel), 0);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    char line[256];
    int n = 0, cap = 0;
    struct goodput_obs *o = NULL;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char place[32];
        double m, step, sync;
        if (sscanf(line, "%31[0-9],%lf,%lf,%lf", place, &m, &step, &sync) != 4)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            o = realloc(o, (size_t)cap * sizeof *o);
            cr_assert_not_null(o);
        }
        int r = 0;
        for (const char *c = place; *c; c++)
            r += *c - '0';
        o[n++] = (struct goodput_obs){ (int)strlen(place), r, m, step, sync };
    }
    fclose(f);
    *out = o;
    return n;
}

Test(goodput, fit_error_on_pollux_profiles)
{
    static const char *const apps[] = { "bert", "cifar10", "deepspeech2", "imagenet", "ncf",
                                        "yolov3" };
    for (size_t a = 0; a < sizeof apps / sizeof apps[0]; a++) {
        struct goodput_obs *o;
        int n = read_profile(apps[a], &o);
        struct goodput_perf f;
        double e;
        cr_assert_eq(goodput_fit(o, n, 1, &f, &e), 0, "%s", apps[a]);
        /* the start's error, to show the fit did something */
        struct goodput_perf s = { 0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001 };
        double e0 = goodput_fit_error(&s, o, n);
        printf("goodput fit %-12s %4d points: (RMSLE compute + RMSLE step) / 2 = %.4f "
               "(start %.4f); alpha_c %.3g beta_c %.3g alpha_n %.3g beta_n %.3g alpha_r %.3g "
               "beta_r %.3g gamma %.3f\n", apps[a], n, e, e0, f.alpha_c, f.beta_c, f.alpha_n,
               f.beta_n, f.alpha_r, f.beta_r, f.gamma);
        cr_assert_lt(e, e0, "%s", apps[a]);
        cr_assert_lt(e, 0.35, "%s: fit error %.3f", apps[a], e);
        free(o);
    }
}

/* brute force: every atomic batch and accumulation count within the limits */
static double brute(const struct goodput_perf *p, const struct goodput_grad *g,
                    const struct goodput_limits *l, int nodes, int r)
{
    double best = 0;
    for (int s = 0; s <= (l->accumulation ? l->max_bsz : 0); s++)
        for (int m = l->min_atomic; m <= l->max_atomic; m++) {
            double b = (double)r * m * (s + 1);
            if (b < l->init_bsz || b > l->max_bsz)
                continue;
            /* Pollux's rule: one replica above B0 accumulates */
            if (l->accumulation && r == 1 && s == 0 && b > l->init_bsz)
                continue;
            double gp = goodput_eval(p, g, l->init_bsz, nodes, r, m, s);
            if (gp > best)
                best = gp;
        }
    return best;
}

Test(goodput, optimize_vs_brute_force)
{
    static const struct goodput_perf perf[] = {
        { 0.03, 0.0015, 0.25, 0.004, 0.04, 0.002, 1.6 },
        { 0.2, 0.0005, 0.05, 0.001, 0.01, 0.0005, 3.0 },
        { 0.01, 0.002, 0.5, 0.02, 0.1, 0.01, 1.0 } };
    static const struct goodput_grad grad[] = { { 1, 0.5 }, { 1, 20 }, { 0.01, 5 } };
    static const struct goodput_limits lim[] = { { 128, 4096, 16, 256, 1 },
                                                 { 128, 4096, 16, 256, 0 },
                                                 { 32, 640, 8, 32, 1 } };
    static const int cfg[][2] = { { 1, 1 }, { 1, 2 }, { 1, 4 }, { 2, 5 }, { 2, 8 }, { 4, 16 } };
    double worst = 1;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t c = 0; c < 3; c++)
                for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
                    struct goodput_choice ch;
                    goodput_optimize(&perf[a], &grad[b], &lim[c], cfg[k][0], cfg[k][1], &ch);
                    double bf = brute(&perf[a], &grad[b], &lim[c], cfg[k][0], cfg[k][1]);
                    if (bf == 0) {
                        cr_assert(ch.goodput >= 0);
                        continue;
                    }
                    /* the choice is what it claims */
                    cr_assert(NEAR(ch.goodput, goodput_eval(&perf[a], &grad[b], lim[c].init_bsz,
                                                            cfg[k][0], cfg[k][1], ch.atomic,
                                                            ch.accum), 1e-12));
                    cr_assert(ch.atomic >= lim[c].min_atomic && ch.atomic <= lim[c].max_atomic);
                    double ratio = ch.goodput / bf;
                    if (ratio < worst)
                        worst = ratio;
                    /* 50 geometric batches a factor q = (max / min)^(1/49) apart: goodput
                     * changes by less than the batch's ratio between neighbours (throughput
                     * grows slower than the batch, efficiency falls slower than 1 / batch),
                     * so the grid is within q of the best; it is above it only by the
                     * rounding up of the atomic batch past max_batch */
                    double lo = fmax(lim[c].init_bsz, (double)lim[c].min_atomic * cfg[k][1]);
                    double q = pow(lim[c].max_bsz / lo, 1.0 / 49);
                    cr_assert(ratio >= 1 / q - 1e-12 && ratio < 1.03, "perf %zu grad %zu lim "
                              "%zu cfg %zu: %.6g vs brute force %.6g (q %.4f)", a, b, c, k,
                              ch.goodput, bf, q);
                }
    printf("goodput_optimize: worst ratio to brute force %.5f over 162 cases\n", worst);
    cr_assert_gt(worst, 0.9);
}
