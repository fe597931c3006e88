/*
 * test_elastic: the elastic application profiles (models/elastic.h) and the Delaunay
 * interpolation under them (models/delaunay.h) against hand-computed values — rows of the
 * shipped Pollux files copied here by hand, linear interpolation between two of them, a
 * linear function that any triangulation must reproduce exactly, the batch rules worked
 * through for a few (B, r), the gain formula, and the errors (outside a placement's batch
 * range, outside the hull, a batch outside the validated sizes).
 */
#define _DEFAULT_SOURCE              /* realpath */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../models/delaunay.h"
#include "../models/elastic.h"
#include "../sim/base/path.h"
#include "helpers.h"

/* within 1e-13 of v, relatively: pandas' parser keeps 17 digits, leading zeros included */
#define ULPS(v) (1e-13 * fabs(v))
/* the decimal n * 10^-d as pandas' parser makes it: one division by 10^d (exact, d <= 22) */
#define P(n, d) ((double)(n) / 1e##d)

static catalog *cat;
static elastic *apps;
static const elastic_app *cifar, *ncf;

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char p[PATH_MAX_LEN];
    cr_assert_eq(path_resolve(p, sizeof p, NULL, "models/data/pollux/applications.json"), 0);
    cr_assert_eq(elastic_load(&apps, cat, p, &err), 0, "%s", err.msg);
    int t4 = catalog_gpu_find(cat, "T4");
    cifar = elastic_get(apps, elastic_find(apps, "cifar10"), t4);
    ncf = elastic_get(apps, elastic_find(apps, "ncf"), t4);
    cr_assert_not_null(cifar);
    cr_assert_not_null(ncf);
}

static void teardown(void)
{
    elastic_destroy(apps);
    catalog_destroy(cat);
}

TestSuite(elastic, .init = setup, .fini = teardown);

Test(elastic, limits_come_from_the_json_and_the_files)
{
    const struct elastic_limits *l = elastic_limits(cifar);
    /* validation-128 .. validation-4096; placements.csv's local_bsz 32 .. 1024 */
    cr_assert_eq(l->init_bsz, 128);
    cr_assert_eq(l->max_bsz, 4096);
    cr_assert_eq(l->min_local_bsz, 32);
    cr_assert_eq(l->max_local_bsz, 1024);
    cr_assert_eq(l->max_epochs, 100);
    cr_assert_eq(elastic_completion_epoch(cifar, 128), 99);
    cr_assert_eq(elastic_limits(ncf)->elastic_max_replicas, 1);
    cr_assert_eq(elastic_limits(ncf)->pollux_bsz, 32768);
    cr_assert_eq(elastic_find(apps, "cifar100"), -1);
    char hint[96];
    cr_assert_str_eq(elastic_hint(apps, "cifar100", hint, sizeof hint),
                     " (did you mean 'cifar10'?)");
}

/* applications.json whose limits do not hold are refused where the value came from: at the
 * entry's line (its path naming the field) when the file gave it, at the application's
 * folder when it was derived.
 * cifar10's folder (validated 128-4096, local batch 32-1024, 100 epochs) is linked beside the
 * file in the test's directory. */
Test(elastic, limits_that_do_not_hold_are_refused_where_they_came_from)
{
    char dir[PATH_MAX_LEN], to[PATH_MAX_LEN];
    cr_assert_eq(path_resolve_dir(dir, sizeof dir, NULL, "models/data/pollux/cifar10"), 0);
    char *from = realpath(dir, NULL);
    cr_assert_not_null(from, "%s", dir);
    snprintf(to, sizeof to, "%s/cifar10", th_tmpdir());
    cr_assert(symlink(from, to) == 0 || errno == EEXIST, "%s", strerror(errno));
    free(from);
    static const struct {
        const char *limits, *want;
    } rows[] = {
        { "\"max_epochs\": 101", ":2: applications[0].max_epochs: 101 epochs, but a "
                                "validation file has only 100" },
        { "\"init_batch_size\": 64", ":2: applications[0].init_batch_size: 64 is outside the "
                                     "validated batch sizes (128 to 4096)" },
        { "\"max_batch_size\": 8192", ":2: applications[0].max_batch_size: 8192 is outside "
                                      "the validated batch sizes (128 to 4096)" },
        { "\"pollux_batch_size\": 100", ":2: applications[0].pollux_batch_size: 100 is "
                                        "outside the validated batch sizes (128 to 4096)" },
        { "\"init_batch_size\": 2048, \"max_batch_size\": 1024",
          ":2: applications[0].init_batch_size: 2048 is above max_batch_size 1024" },
        { "\"max_local_bsz\": 16", ":2: applications[0].max_local_bsz: 16 is below "
                                   "min_local_bsz 32" },
        { "\"max_epochs\": 5, \"min_local_bsz\": 64", NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{ \"gpu\": \"T4\", \"applications\": [\n"
                                    "  { \"name\": \"cifar10\",\n    %s }\n] }\n",
                 rows[i].limits);
        char *path = th_write("apps.json", text);
        elastic *e = NULL;
        struct errbuf err;
        err_clear(&err);
        int rc = elastic_load(&e, cat, path, &err);
        if (rows[i].want == NULL) {
            cr_assert_eq(rc, 0, "%s: %s", rows[i].limits, err.msg);
            const struct elastic_limits *l =
                elastic_limits(elastic_get(e, 0, catalog_gpu_find(cat, "T4")));
            cr_assert(l->max_epochs == 5 && l->min_local_bsz == 64 && l->init_bsz == 128,
                      "%d %d %d", l->max_epochs, l->min_local_bsz, l->init_bsz);
        } else {
            cr_assert_eq(rc, -1, "%s", rows[i].limits);
            cr_assert(strstr(err.msg, "apps.json") != NULL &&
                          strstr(err.msg, rows[i].want) != NULL,
                      "%s: %s", rows[i].limits, err.msg);
        }
        elastic_destroy(e);
        free(path);
    }
}

Test(elastic, a_measured_placement_interpolates_in_local_batch)
{
    struct errbuf err;
    err_clear(&err);
    double step, sync;
    int one[] = { 1 };
    /* placements.csv rows "1,32,0.0427886962890625,0.0004995360016822816",
     * "1,45,0.05048525333404541,0.000504022404551506" and
     * "1,64,0.05983335971832275,0.0005080448031425476", read as pandas reads them: 17 digits
     * kept, leading zeros included, then one division by 10^decimals (P below); and
     * interpolated as interp1d does: the interval whose upper end is the first x >= the
     * query, y_lo + slope * dx.  So 32 is exact, 64 is 45's value plus 19 slopes. */
    double s32 = P(427886962890625, 16), y32 = P(4995360016822, 16);
    double s45 = P(504852533340454, 16), y45 = P(5040224045515, 16);
    double s64 = P(598333597183227, 16), y64 = P(5080448031425, 16);
    cr_assert_eq(elastic_step_time(cifar, one, 1, 32, &step, &sync, &err), 0, "%s", err.msg);
    cr_assert_eq(step, s32);
    cr_assert_eq(sync, y32);
    cr_assert_eq(elastic_step_time(cifar, one, 1, 64, &step, &sync, &err), 0, "%s", err.msg);
    cr_assert_eq(step, (s64 - s45) / (64 - 45) * (64 - 45) + s45);
    cr_assert_eq(sync, (y64 - y45) / (64 - 45) * (64 - 45) + y45);
    cr_assert_float_eq(step, 0.05983335971832275, 1e-15);
    cr_assert_eq(elastic_step_time(cifar, one, 1, 50, &step, &sync, &err), 0, "%s", err.msg);
    cr_assert_eq(step, (s64 - s45) / (64 - 45) * (50 - 45) + s45);
    cr_assert_eq(sync, (y64 - y45) / (64 - 45) * (50 - 45) + y45);
    /* (2, 1) turns to its smallest rotation (1, 2): its first row is "12,32,0.1278...,
     * 0.0861..." */
    int two_one[] = { 2, 1 }, one_two[] = { 1, 2 }, zeros[] = { 0, 2, 0, 1 };
    cr_assert_eq(elastic_step_time(cifar, two_one, 2, 32, &step, &sync, &err), 0, "%s",
                 err.msg);
    cr_assert_float_eq(step, 0.12787373065948487, ULPS(0.12787373065948487));
    cr_assert_float_eq(sync, 0.08611848678588867, ULPS(0.08611848678588867));
    double s2, y2;
    cr_assert_eq(elastic_step_time(cifar, one_two, 2, 32, &s2, &y2, &err), 0);
    cr_assert_eq(s2, step);
    cr_assert_eq(elastic_step_time(cifar, zeros, 4, 32, &s2, &y2, &err), 0, "%s", err.msg);
    cr_assert_eq(s2, step, "zeros are not nodes");
    /* interp1d has no extrapolation: 1024 is the largest local batch measured */
    cr_assert_lt(elastic_step_time(cifar, one, 1, 1500, &step, &sync, &err), 0);
    cr_assert(strstr(err.msg, "cifar10") != NULL, "%s", err.msg);
}

Test(elastic, other_placements_go_through_the_triangulation)
{
    struct errbuf err;
    err_clear(&err);
    double step, sync;
    /* 12 nodes of 1 GPU: not in placements.csv; scalability.csv has (12, 12, 32) */
    int twelve[12];
    for (int i = 0; i < 12; i++)
        twelve[i] = 1;
    cr_assert_eq(elastic_step_time(cifar, twelve, 12, 32, &step, &sync, &err), 0, "%s",
                 err.msg);
    cr_assert_float_eq(step, 0.22028796672821044, 1e-12);
    cr_assert_float_eq(sync, 0.17862187805175783, 1e-12);
    /* 16 nodes of 4: (16, 64, 32) */
    int sixteen[16];
    for (int i = 0; i < 16; i++)
        sixteen[i] = 4;
    cr_assert_eq(elastic_step_time(cifar, sixteen, 16, 32, &step, &sync, &err), 0, "%s",
                 err.msg);
    cr_assert_float_eq(step, 0.2692412376403809, 1e-12);
    /* below the smallest local batch: outside the hull, an error naming the placement */
    cr_assert_lt(elastic_step_time(cifar, twelve, 12, 8, &step, &sync, &err), 0);
    cr_assert(strstr(err.msg, "cifar10") != NULL, "%s", err.msg);
}

Test(elastic, gradient_statistics_and_progress)
{
    struct errbuf err;
    err_clear(&err);
    double sqr, var;
    /* validation-128.csv row 0: 391.0,390,0.4455,8.947307535897329,5.066593295150894 */
    cr_assert_eq(elastic_grad_stats(cifar, 128, 0, &sqr, &var, &err), 0, "%s", err.msg);
    cr_assert_float_eq(sqr, 8.947307535897329, ULPS(8.947307535897329));
    cr_assert_float_eq(var, 5.066593295150894, ULPS(5.066593295150894));
    /* 192 is halfway between 128 and 256 (row 0: 17.379458169870425, 13.937760473946334) */
    cr_assert_eq(elastic_grad_stats(cifar, 192, 0, &sqr, &var, &err), 0, "%s", err.msg);
    cr_assert_float_eq(sqr, (8.947307535897329 + 17.379458169870425) / 2, 1e-13);
    cr_assert_float_eq(var, (5.066593295150894 + 13.937760473946334) / 2, 1e-13);
    cr_assert_lt(elastic_grad_stats(cifar, 64, 0, &sqr, &var, &err), 0);
    cr_assert_lt(elastic_grad_stats(cifar, 8192, 0, &sqr, &var, &err), 0);
    /* progress: 0, then the smallest first-row progress of the six files (validation-256) */
    cr_assert_eq(elastic_progress(cifar, 0), 0);
    cr_assert_float_eq(elastic_progress(cifar, 1), 390.71438596642224, ULPS(390.7));
    double it;
    cr_assert_eq(elastic_iterations(cifar, 128, 1, &it, &err), 0, "%s", err.msg);
    cr_assert_eq(it, 781);
    cr_assert_eq(elastic_iterations(cifar, 192, 0, &it, &err), 0, "%s", err.msg);
    cr_assert_float_eq(it, (390 + 300) / 2.0, 1e-12);
    /* (var + sqr) / (var / scale + sqr) */
    cr_assert_float_eq(elastic_gain(1, 3, 2), 4 / 2.5, 1e-15);
    cr_assert_float_eq(elastic_gain(1, 3, 1), 1, 1e-15);
    cr_assert_float_eq(elastic_iter_time(0.5, 0.2, 3), 0.5 + 0.3 * 3, 1e-15);
}

Test(elastic, batch_rules)
{
    struct elastic_batch b;
    /* B = 4096 on 3: local ceil(1365.3) = 1366, accum ceil(1366 / 1024) - 1 = 1, atomic
     * ceil(683) = 683 capped at floor(4096 / 6) = 682 */
    elastic_batch_fixed(cifar, 4096, 3, ELASTIC_R1_ABOVE_INIT, &b);
    cr_assert_eq(b.local, 1366);
    cr_assert_eq(b.accum, 1);
    cr_assert_eq(b.atomic, 682);
    /* one GPU above the initial batch: at least one accumulation step */
    elastic_batch_fixed(cifar, 256, 1, ELASTIC_R1_ABOVE_INIT, &b);
    cr_assert_eq(b.accum, 1);
    cr_assert_eq(b.atomic, 128);
    /* at the initial batch only Optimus's prediction forces it */
    elastic_batch_fixed(cifar, 128, 1, ELASTIC_R1_ABOVE_INIT, &b);
    cr_assert_eq(b.accum, 0);
    cr_assert_eq(b.atomic, 128);
    elastic_batch_fixed(cifar, 128, 1, ELASTIC_R1_ALWAYS, &b);
    cr_assert_eq(b.accum, 1);
    cr_assert_eq(b.atomic, 64);
    /* 2048 on 6: local 342, no accumulation */
    elastic_batch_fixed(cifar, 2048, 6, ELASTIC_R1_ALWAYS, &b);
    cr_assert_eq(b.local, 342);
    cr_assert_eq(b.accum, 0);
    cr_assert_eq(b.atomic, 342);
}

/* ---- the triangulation alone ---- */

static double lin(const double *x)
{
    return 1 + 2 * x[0] + 3 * x[1] + 5 * x[2];
}

Test(elastic, delaunay_reproduces_a_linear_function_on_a_cube)
{
    /* the cube's corners are co-spherical (several triangulations), its centre is inside:
     * any of them interpolates a linear function exactly */
    double pts[9 * 3], vals[9 * 2];
    int n = 0;
    for (int i = 0; i < 8; i++, n++) {
        pts[3 * n] = i & 1;
        pts[3 * n + 1] = (i >> 1) & 1;
        pts[3 * n + 2] = (i >> 2) & 1;
    }
    pts[3 * n] = pts[3 * n + 1] = pts[3 * n + 2] = 0.5;
    n++;
    for (int i = 0; i < n; i++) {
        vals[2 * i] = lin(&pts[3 * i]);
        vals[2 * i + 1] = -lin(&pts[3 * i]);
    }
    struct errbuf err;
    err_clear(&err);
    delaunay *d;
    cr_assert_eq(delaunay_create(&d, 3, n, pts, 2, vals, "cube", &err), 0, "%s", err.msg);
    cr_assert_geq(delaunay_nsimplex(d), 5);
    double q[][3] = { { 0.1, 0.2, 0.3 }, { 0.9, 0.9, 0.1 }, { 0.5, 0.5, 0.5 }, { 1, 1, 1 },
                      { 0.25, 0.75, 0.5 } };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        double out[2];
        cr_assert_eq(delaunay_interp(d, q[i], out), 1, "point %zu", i);
        cr_assert_float_eq(out[0], lin(q[i]), 1e-12, "point %zu: %g", i, out[0]);
        cr_assert_float_eq(out[1], -lin(q[i]), 1e-12);
        double bary[4], sum = 0;
        cr_assert_geq(delaunay_find(d, q[i], bary), 0);
        for (int k = 0; k < 4; k++) {
            cr_assert_geq(bary[k], -1e-12);
            sum += bary[k];
        }
        cr_assert_float_eq(sum, 1, 1e-12);
    }
    double out[2] = { 7, 7 }, far[3] = { 1.5, 0.5, 0.5 };
    cr_assert_eq(delaunay_interp(d, far, out), 0);
    cr_assert_eq(out[0], 7, "outside leaves out untouched");
    cr_assert_eq(delaunay_find(d, far, NULL), -1);
    delaunay_destroy(d);
}

Test(elastic, delaunay_rejects_too_few_or_flat_points)
{
    struct errbuf err;
    err_clear(&err);
    delaunay *d = NULL;
    double three[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, v[4] = { 0 };
    cr_assert_lt(delaunay_create(&d, 3, 3, three, 1, v, "few", &err), 0);
    cr_assert(strstr(err.msg, "few") != NULL, "%s", err.msg);
    double flat[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 };
    err_clear(&err);
    cr_assert_lt(delaunay_create(&d, 3, 4, flat, 1, v, "flat", &err), 0);
    cr_assert(strstr(err.msg, "flat") != NULL, "%s", err.msg);
}

Test(elastic, batch_rules_by_hand)
{
    struct elastic_batch b;
    /* 1000 on 3 GPUs, at most 128 per GPU: local ceil(333.3) = 334, accum ceil(334 / 128) -
     * 1 = 2, atomic ceil(334 / 3) = 112 */
    elastic_batch_rules(1000, 3, 100, 128, 0, ELASTIC_R1_NEVER, &b);
    cr_assert(b.local == 334 && b.accum == 2 && b.atomic == 112, "%d %d %d", b.local, b.accum,
              b.atomic);
    /* with a max batch of 1000: atomic at most floor(1000 / (3 x 3)) = 111 */
    elastic_batch_rules(1000, 3, 100, 128, 1000, ELASTIC_R1_NEVER, &b);
    cr_assert_eq(b.atomic, 111);
    /* one GPU at 100 = B0: Job's rule does not accumulate, Optimus's does (atomic 50), and
     * the native rule never forces it */
    elastic_batch_rules(100, 1, 100, 128, 0, ELASTIC_R1_ABOVE_INIT, &b);
    cr_assert(b.accum == 0 && b.atomic == 100);
    elastic_batch_rules(100, 1, 100, 128, 0, ELASTIC_R1_ALWAYS, &b);
    cr_assert(b.accum == 1 && b.atomic == 50);
    elastic_batch_rules(100, 1, 100, 128, 0, ELASTIC_R1_NEVER, &b);
    cr_assert(b.accum == 0 && b.atomic == 100);
    /* one GPU above B0: Job's rule accumulates at least once, 120 -> 2 x 60 */
    elastic_batch_rules(120, 1, 100, 128, 0, ELASTIC_R1_ABOVE_INIT, &b);
    cr_assert(b.accum == 1 && b.atomic == 60);
}
