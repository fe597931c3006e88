/*
 * test_stats: the generic summary statistics (sim/base/stats.h) against hand-computed values —
 * mean and interpolated quantiles of a vector, Jain's index, and the 95% Student-t interval.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "../sim/base/stats.h"

Test(stats, mean_and_quantiles_interpolate_between_order_statistics)
{
    struct stats_vec v = { 0 };
    double in[] = { 4, 1, 3, 2 };
    for (int i = 0; i < 4; i++)
        cr_assert_eq(stats_vec_push(&v, in[i]), 0);
    stats_vec_sort(&v);
    cr_assert_float_eq(stats_vec_mean(&v), 2.5, 1e-15);
    /* position (n - 1) p: 1.5 -> between 2 and 3; 0.9 x 3 = 2.7 -> 3 + 0.7 */
    cr_assert_float_eq(stats_vec_quantile(&v, 0.5), 2.5, 1e-15);
    cr_assert_float_eq(stats_vec_quantile(&v, 0.9), 3.7, 1e-12);
    cr_assert_float_eq(stats_vec_quantile(&v, 0), 1, 0);
    cr_assert_float_eq(stats_vec_quantile(&v, 1), 4, 0);
    /* growing past the first block keeps every value */
    for (int i = 0; i < 3000; i++)
        cr_assert_eq(stats_vec_push(&v, 10), 0);
    cr_assert_eq(v.n, 3004);
    stats_vec_fini(&v);
    cr_assert(isnan(stats_vec_mean(&v)), "an empty vector has no mean");
    cr_assert(isnan(stats_vec_quantile(&v, 0.5)));
}

Test(stats, jain_index)
{
    double eq[] = { 3, 3, 3, 3 }, one[] = { 1, 0, 0, 0 }, two[] = { 1, 3 };
    cr_assert_float_eq(stats_jain(eq, 4), 1, 1e-12);
    cr_assert_float_eq(stats_jain(one, 4), 0.25, 1e-12);
    cr_assert_float_eq(stats_jain(two, 2), 16.0 / 20, 1e-12);
    cr_assert_eq(stats_jain(eq, 0), 0);
}

Test(stats, ci95_is_student_t)
{
    /* t(0.975, 4) = 2.7764451051977987; t(0.975, 1) = 12.706204736174707 */
    cr_assert_float_eq(stats_ci95(2, 5), 2.7764451051977987 * 2 / sqrt(5), 1e-12);
    cr_assert_float_eq(stats_ci95(1, 2), 12.706204736174707 / sqrt(2), 1e-9);
    cr_assert(isnan(stats_ci95(1, 1)), "no interval from one value");
}
