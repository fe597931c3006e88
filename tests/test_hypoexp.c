/*
 * test_hypoexp: the hypoexponential survival function against values computed by hand
 * (one stage, two distinct rates, Erlang blocks, an Erlang block followed by another rate),
 * near-equal rates against the Erlang limit (where partial fractions alone lose every digit),
 * the two methods against each other on random well-separated rates, and mixtures with their
 * quantiles.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../models/hypoexp.h"

#define close(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.17g vs %.17g", (double)(a), \
                                   (double)(b))

Test(hypoexp, by_hand)
{
    double one[] = { 2 };
    close(hypoexp_sf(one, 1, 1.0), exp(-2.0), 1e-15);
    /* distinct 1 and 3: (3 e^-x - e^-3x) / 2 at x = 1 */
    double two[] = { 1, 3 };
    close(hypoexp_sf(two, 2, 1.0), (3 * exp(-1.0) - exp(-3.0)) / 2, 1e-14);
    close(hypoexp_sf(two, 2, 1.0), 0.526925627573232, 1e-12);
    /* Erlang(2, 2) at 1: e^-2 (1 + 2) */
    double erl2[] = { 2, 2 };
    close(hypoexp_sf(erl2, 2, 1.0), 3 * exp(-2.0), 1e-14);
    /* Erlang(5, 1) at 3: e^-3 (1 + 3 + 9/2 + 27/6 + 81/24) = 16.375 e^-3 */
    double erl5[] = { 1, 1, 1, 1, 1 };
    close(hypoexp_sf(erl5, 5, 3.0), 16.375 * exp(-3.0), 1e-13);
    /* Erlang(2, 1) then Exp(3): e^-x (3/4 + 3x/2) + e^-3x / 4 (derived by convolution) */
    double mix[] = { 1, 1, 3 };
    close(hypoexp_sf(mix, 3, 1.0), exp(-1.0) * 2.25 + 0.25 * exp(-3.0), 1e-13);
    close(hypoexp_sf(mix, 3, 1.0), 0.84017550973, 1e-10);
    close(hypoexp_cdf(mix, 3, 1.0), 1 - 0.84017550973, 1e-10);
    /* edges: no stages is X = 0; x <= 0 */
    cr_assert_eq(hypoexp_sf(one, 0, 0.5), 0.0);
    cr_assert_eq(hypoexp_sf(one, 0, -0.5), 1.0);
    cr_assert_eq(hypoexp_sf(two, 2, 0.0), 1.0);
}

Test(hypoexp, near_equal_rates_are_stable)
{
    /* rates 2 and 2 (1 + d): the Erlang(2, 2) limit; partial fractions alone have C of 1/d */
    for (double d = 1e-3; d > 1e-14; d /= 10) {
        double r[] = { 2, 2 * (1 + d) };
        double want = 3 * exp(-2.0);
        close(hypoexp_sf(r, 2, 1.0), want, 4 * d + 1e-12);
    }
    /* twelve rates within 1e-9 of 1: Erlang(12, 1) at 10 */
    double r[12], t = 0, term = 1;
    for (int i = 0; i < 12; i++)
        r[i] = 1 + 1e-9 * i;
    for (int k = 0; k < 12; k++) {
        t += term;
        term *= 10.0 / (k + 1);
    }
    close(hypoexp_sf(r, 12, 10.0), exp(-10.0) * t, 1e-7);
}

Test(hypoexp, repeated_rates_agree_with_the_matrix_form)
{
    /* {2, 2, 2, 5, 5} exactly (Erlang blocks by partial fractions with repeated roots) and
     * perturbed by 1e-9 (too close for partial fractions: the matrix form) */
    double r[] = { 2, 2, 2, 5, 5 }, q[] = { 2, 2 * (1 + 1e-9), 2 * (1 - 1e-9), 5, 5 * (1 + 1e-9) };
    for (double x = 0.1; x < 8; x += 0.3)
        close(hypoexp_sf(r, 5, x), hypoexp_sf(q, 5, x), 1e-7);
    /* Erlang(3, 2) then Erlang(2, 5) at x = 1, by convolution of the densities (worked with
     * the blocks' transform 8 * 25 / ((s + 2)^3 (s + 5)^2)):
     * S(1) = e^-2 (1 + 2 + 2) * ... checked against a fine numerical convolution instead */
    double num = 0, h = 1e-4;
    for (double t = h / 2; t < 1; t += h) {
        /* density of Erlang(3, 2) at t times P(Erlang(2, 5) > 1 - t) */
        double f = 4 * t * t * exp(-2 * t);
        double s2 = exp(-5 * (1 - t)) * (1 + 5 * (1 - t));
        num += f * s2 * h;
    }
    num += exp(-2.0) * (1 + 2 + 2);     /* P(Erlang(3, 2) > 1) */
    close(hypoexp_sf(r, 5, 1.0), num, 1e-8);
}

Test(hypoexp, methods_agree_on_separated_rates)
{
    srand(7);
    for (int trial = 0; trial < 200; trial++) {
        int m = 2 + rand() % 8;
        double r[16];
        for (int i = 0; i < m; i++)
            r[i] = (i + 1) * (1.0 + 0.3 * rand() / RAND_MAX);
        double x = 0.1 + 5.0 * rand() / RAND_MAX;
        /* partial fractions, computed here, against the library (which may use either) */
        double pf = 0;
        for (int i = 0; i < m; i++) {
            double c = 1;
            for (int j = 0; j < m; j++)
                if (j != i)
                    c *= r[j] / (r[j] - r[i]);
            pf += c * exp(-r[i] * x);
        }
        close(hypoexp_sf(r, m, x), pf, 1e-9);
    }
}

Test(hypoexp, sf_is_a_survival_function)
{
    double r[] = { 5, 0.5, 0.5, 2, 2.0000001, 9 };
    double prev = 1;
    for (double x = 0; x < 40; x += 0.25) {
        double s = hypoexp_sf(r, 6, x);
        cr_assert(s <= prev + 1e-15 && s >= 0, "x=%g: %g after %g", x, s, prev);
        prev = s;
    }
    cr_assert_lt(prev, 1e-6);
}

Test(hypoexp, mixture_and_quantile)
{
    double a[] = { 1 }, b[] = { 1, 1 };
    struct hypoexp_chain c[] = { { a, 1, 0.5, 3 }, { b, 2, 1.0, 1 } };
    /* 3/4 P(0.5 + Exp(1) <= 2) + 1/4 P(1 + Erlang(2, 1) <= 2) */
    double want = 0.75 * (1 - exp(-1.5)) + 0.25 * (1 - 2 * exp(-1.0));
    close(hypoexp_mix_cdf(c, 2, 2.0), want, 1e-14);
    double q = hypoexp_mix_quantile(c, 2, 0.95, 1e-12);
    close(hypoexp_mix_cdf(c, 2, q), 0.95, 1e-9);
    /* one exponential: the quantile is -ln(1 - q) / rate */
    struct hypoexp_chain one = { a, 1, 0, 1 };
    close(hypoexp_mix_quantile(&one, 1, 0.95, 1e-13), log(20.0), 1e-10);
    /* a zero weight drops out */
    struct hypoexp_chain z[] = { { a, 1, 0, 1 }, { b, 2, 100, 0 } };
    close(hypoexp_mix_quantile(z, 2, 0.5, 1e-13), log(2.0), 1e-10);
}
