/*
 * test_erms: Erms' piecewise-linear latency (with interference on the slope), its container
 * formula and its latency-target split, against values worked by hand; the split is the
 * minimum of the summed containers (checked against a grid search on two services).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "../models/erms.h"

#define close(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.17g vs %.17g", (double)(a), \
                                   (double)(b))

Test(erms, latency_by_hand)
{
    struct erms_fit f = { .inflection = 40,
                          .before = { 0.5, 10, 0.1, 0.001 },
                          .after = { 3, -90, 0, 0 } };
    /* before: (0.5 + 0.1 * 2 + 0.001 * 1000) * 20 + 10 = 1.7 * 20 + 10 = 44 */
    close(erms_latency(&f, 20, 2, 1000), 44, 1e-12);
    close(erms_latency(&f, 20, 0, 0), 20, 1e-12);
    close(erms_latency(&f, 40, 0, 0), 30, 1e-12);     /* the inflection is still `before` */
    close(erms_latency(&f, 50, 0, 0), 60, 1e-12);     /* 3 * 50 - 90 */
}

Test(erms, containers_by_hand)
{
    /* a = 2, gamma = 300, T - b = 50 - 20 = 30: 600 / 30 = 20 exactly */
    cr_assert_eq(erms_containers(2, 20, 300, 50), 20);
    cr_assert_eq(erms_containers(2, 20, 301, 50), 21);
    cr_assert_eq(erms_containers(2, 20, 1, 50), 1);
    cr_assert_eq(erms_containers(2, 20, 300, 20), -1);
    cr_assert_eq(erms_containers(2, 20, 300, 10), -1);
}

Test(erms, split_by_hand_and_optimal)
{
    /* sqrt(a g) = 2 and 6, T - sum b = 100 - 20 = 80: slack 20 and 60 */
    double a[] = { 1, 4 }, b[] = { 5, 15 }, g[] = { 4, 9 }, t[2];
    cr_assert_eq(erms_split(a, b, g, 2, 100, t), 0);
    close(t[0], 25, 1e-12);
    close(t[1], 75, 1e-12);
    close(t[0] + t[1], 100, 1e-12);
    /* the continuous minimum of a1 g1 / x1 + a2 g2 / x2 over x1 + x2 = 80 */
    double best = INFINITY, bx = 0;
    for (double x = 0.01; x < 80; x += 0.01) {
        double v = a[0] * g[0] / x + a[1] * g[1] / (80 - x);
        if (v < best) {
            best = v;
            bx = x;
        }
    }
    close(bx, t[0] - b[0], 0.011);
    cr_assert_eq(erms_split(a, b, g, 2, 20, t), -1);
    /* no load: the slack is shared evenly */
    double z[] = { 0, 0 };
    cr_assert_eq(erms_split(a, b, z, 2, 40, t), 0);
    close(t[0], 15, 1e-12);
    close(t[1], 25, 1e-12);
}
