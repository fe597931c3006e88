/*
 * test_mslat: a call's latency model against hand-computed values — Derm's linear rate,
 * Erms' piecewise-linear P95 read as a shifted exponential's 95th percentile, the overload
 * extension past the fit's range (continuous, mean excess proportional to load) — and the
 * check that rejects a fit whose rate is not positive over the loads it is used at.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "../models/mslat.h"

#define close(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.17g vs %.17g", (double)(a), \
                                   (double)(b))

Test(mslat, derm_by_hand)
{
    struct mslat m = { .kind = MSLAT_DERM, .shift = 0.001, .max_load = 100, .a = -20,
                       .b = 4000 };
    close(mslat_rate(&m, 0), 4000, 1e-9);
    close(mslat_rate(&m, 50), 3000, 1e-9);
    close(mslat_mean(&m, 50), 0.001 + 1 / 3000.0, 1e-15);
    close(mslat_p95(&m, 100), 0.001 + log(20.0) / 2000, 1e-15);
    /* past max_load: rate(100) * 100 / w */
    close(mslat_rate(&m, 200), 1000, 1e-9);
    close(mslat_rate(&m, 100.0000001), 2000, 1e-3);
    double at, r;
    cr_assert_eq(mslat_check(&m, &at, &r), 0);
    m.max_load = 250;       /* rate 4000 - 20 * 250 = -1000 */
    cr_assert_eq(mslat_check(&m, &at, &r), -1);
    close(at, 250, 0);
    close(r, -1000, 1e-9);
}

Test(mslat, erms_by_hand)
{
    struct mslat m = { .kind = MSLAT_ERMS, .shift = 0.002, .max_load = 80,
                       .erms = { .inflection = 40, .before = { 1e-4, 0.005, 0, 0 },
                                 .after = { 5e-4, -0.011, 0, 0 } } };
    /* L(20) = 0.007: rate ln 20 / 0.005 */
    close(mslat_rate(&m, 20), log(20.0) / 0.005, 1e-9);
    close(mslat_p95(&m, 20), 0.007, 1e-15);
    close(mslat_p95(&m, 60), 0.019, 1e-15);
    double at, r;
    cr_assert_eq(mslat_check(&m, &at, &r), 0);
    /* after the inflection the fit dips under the shift: L(40+) = 0.009 - ... */
    m.erms.after.intercept = -0.02;     /* L(40+) = 0.0 < s */
    cr_assert_eq(mslat_check(&m, &at, &r), -1);
    cr_assert(at > 40 && at < 40.0001);
    /* interference moves the slope */
    m.erms.after.intercept = -0.011;
    m.erms.before.cpu_slope = 1e-4;
    m.cpu = 1;
    close(mslat_p95(&m, 20), 0.009, 1e-15);
}
