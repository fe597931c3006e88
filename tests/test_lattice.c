/*
 * test_lattice: lattice distributions against closed forms.  The linear discretization keeps
 * every mean exact (a shifted exponential, an Erlang block by either path, sums); CDFs are
 * within a small multiple of the step (in rate x step) of the exact ones near a shift, and
 * converge as the step shrinks; the Erlang block's direct masses and its repeated filters
 * agree; the maximum of two is the product of their CDFs; mass past the lattice is counted
 * as lost; quantiles of known distributions.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <math.h>

#include "../models/hypoexp.h"
#include "../models/lattice.h"

#define close(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.17g vs %.17g", (double)(a), \
                                   (double)(b))

static double total(const struct lattice *l)
{
    double c = 0;
    for (int j = 0; j < l->n; j++)
        c += l->p[j];
    return c;
}

Test(lattice, shifted_exponential_mean_exact_cdf_close)
{
    for (double h = 0.2; h > 0.01; h /= 3) {
        struct lattice l;
        int n = (int)(40 / h);
        cr_assert_eq(lattice_init(&l, h, n), 0);
        lattice_add_shexp(&l, 1.234, 2.0);
        close(lattice_mean(&l), 1.234 + 0.5, 1e-11);
        close(total(&l) + l.lost, 1.0, 1e-13);
        double err = 0;
        for (double x = 0; x < 8; x += 0.013) {
            double want = x <= 1.234 ? 0 : 1 - exp(-2.0 * (x - 1.234));
            double e = fabs(lattice_cdf(&l, x) - want);
            err = e > err ? e : err;
        }
        cr_assert_lt(err, 2.0 * h, "h=%g: %g", h, err);
        lattice_fini(&l);
    }
}

Test(lattice, erlang_direct_and_filters_agree)
{
    struct lattice a, b, s;
    cr_assert_eq(lattice_init(&a, 0.05, 2000), 0);
    cr_assert_eq(lattice_init(&b, 0.05, 2000), 0);
    cr_assert_eq(lattice_init(&s, 0.05, 2000), 0);
    /* 30 calls of 0.1 + Exp(10): 3 + Gamma(30, 10), mean 6; the direct path (narrow block) */
    lattice_add_erlang(&a, 30, 0.1, 10.0, &s);
    for (int i = 0; i < 30; i++)
        lattice_add_shexp(&b, 0.1, 10.0);
    close(lattice_mean(&a), 6.0, 1e-9);
    close(lattice_mean(&b), 6.0, 1e-9);
    for (double x = 4; x < 9; x += 0.07) {
        double want = gsl_cdf_gamma_P(x - 3, 30, 0.1);
        close(lattice_cdf(&a, x), want, 0.01);
        close(lattice_cdf(&b, x), want, 0.01);
        close(lattice_cdf(&a, x), lattice_cdf(&b, x), 0.01);
    }
    close(lattice_quantile(&a, 0.95), 3 + gsl_cdf_gamma_Pinv(0.95, 30, 0.1), 0.01);
    lattice_fini(&a);
    lattice_fini(&b);
    lattice_fini(&s);
}

Test(lattice, max_is_the_product_of_cdfs)
{
    struct lattice a, b, c;
    cr_assert_eq(lattice_init(&a, 0.002, 10000), 0);
    cr_assert_eq(lattice_init(&b, 0.002, 10000), 0);
    cr_assert_eq(lattice_init(&c, 0.002, 10000), 0);
    lattice_add_shexp(&a, 0.5, 1.0);
    lattice_add_shexp(&b, 0.0, 3.0);
    lattice_copy(&c, &a);
    lattice_max(&a, &b);
    for (double x = 0; x < 15; x += 0.11) {
        close(lattice_cdf(&a, x), lattice_cdf(&c, x) * lattice_cdf(&b, x), 0.004);
        double fa = x > 0.5 ? 1 - exp(-(x - 0.5)) : 0, fb = 1 - exp(-3 * x);
        close(lattice_cdf(&a, x), fa * fb, 0.006);
    }
    lattice_fini(&a);
    lattice_fini(&b);
    lattice_fini(&c);
}

Test(lattice, sums_converge_to_the_hypoexponential)
{
    double rates[] = { 1.0, 2.5, 7.0 };
    double prev_err = 1;
    for (double h = 0.04; h > 0.004; h /= 2) {
        int n = (int)(30 / h);
        struct lattice a, b, s;
        cr_assert_eq(lattice_init(&a, h, n), 0);
        cr_assert_eq(lattice_init(&b, h, n), 0);
        cr_assert_eq(lattice_init(&s, h, n), 0);
        /* (Exp(1) + Exp(2.5)) built by filters, plus Exp(7) built alone and added */
        lattice_add_shexp(&a, 0, 1.0);
        lattice_add_shexp(&a, 0, 2.5);
        lattice_add_shexp(&b, 0, 7.0);
        lattice_add(&a, &b, &s);
        double err = 0;
        for (double x = 0.2; x < 8; x += 0.37) {
            double e = fabs(lattice_cdf(&a, x) - hypoexp_cdf(rates, 3, x));
            if (e > err)
                err = e;
        }
        cr_assert_lt(err, 4 * h * h + 1e-9, "h=%g: max error %g", h, err);
        cr_assert_lt(err, prev_err);
        prev_err = err;
        close(lattice_mean(&a), 1 + 0.4 + 1 / 7.0, 1e-9);
        lattice_fini(&a);
        lattice_fini(&b);
        lattice_fini(&s);
    }
}

Test(lattice, quantiles_and_lost_mass)
{
    struct lattice l;
    cr_assert_eq(lattice_init(&l, 0.001, 10000), 0);
    lattice_add_shexp(&l, 0, 1.0);
    close(lattice_quantile(&l, 0.95), log(20.0), 1e-5);
    close(lattice_quantile(&l, 0.5), log(2.0), 1e-5);
    close(lattice_cdf(&l, 1.0), 1 - exp(-1.0), 1e-6);
    close(l.lost, exp(-9.999), 1e-7);
    /* past the lattice */
    cr_assert(isinf(lattice_quantile(&l, 1 - 1e-6)));
    /* a shift past the end loses everything */
    lattice_add_shexp(&l, 50, 1.0);
    close(l.lost, 1.0, 1e-12);
    lattice_fini(&l);
}

/* every point outside [lo, hi] is exactly 0: the invariant the operations rely on */
static void zero_outside(const struct lattice *l)
{
    for (int k = 0; k < l->n; k++)
        if (k < l->lo || k > l->hi)
            cr_assert(l->p[k] == 0, "point %d outside [%d, %d] holds %g", k, l->lo, l->hi,
                      l->p[k]);
}

Test(lattice, operations_keep_their_supports_and_match_plain_sums)
{
    /* shifted twice (the second time from a support that does not start at 0): the mean is
     * exact and nothing is left outside the support */
    struct lattice a, b, c, s;
    cr_assert_eq(lattice_init(&a, 0.05, 64), 0);
    cr_assert_eq(lattice_init(&b, 0.05, 64), 0);
    cr_assert_eq(lattice_init(&c, 0.05, 64), 0);
    cr_assert_eq(lattice_init(&s, 0.05, 64), 0);
    lattice_add_shexp(&a, 0.63, 30.0);
    lattice_add_shexp(&a, 0.77, 40.0);
    cr_assert_gt(a.lo, 0);
    zero_outside(&a);
    close(lattice_mean(&a), 0.63 + 1 / 30.0 + 0.77 + 1 / 40.0, 1e-11);
    close(total(&a) + a.lost, 1.0, 1e-13);
    lattice_add_shexp(&b, 0.2, 15.0);
    lattice_add_shexp(&b, 0.05, 20.0);
    zero_outside(&b);
    /* the sum, point by point, as a plain double loop adds it (short supports: the direct
     * path), to the last bit */
    double want[64] = { 0 };
    for (int i = a.lo; i <= a.hi; i++)
        for (int j = b.lo; j <= b.hi && i + j < 64; j++)
            want[i + j] += a.p[i] * b.p[j];
    lattice_copy(&c, &a);
    lattice_add(&c, &b, &s);
    zero_outside(&c);
    for (int k = c.lo; k <= c.hi; k++)
        cr_assert(c.p[k] == want[k], "point %d: %.17g, plain %.17g", k, c.p[k], want[k]);
    for (int k = 0; k < 64; k++)
        if (k < c.lo || k > c.hi)
            cr_assert_lt(want[k], 1e-17, "point %d dropped with %g", k, want[k]);
    /* the maximum: differences of the product of the running sums, over every point */
    double ca = 0, cb = 0, prev = 0, mx[64];
    for (int k = 0; k < 64; k++) {
        ca += a.p[k];
        cb += b.p[k];
        mx[k] = ca * cb - prev;
        prev = ca * cb;
    }
    lattice_copy(&c, &a);
    lattice_max(&c, &b);
    zero_outside(&c);
    for (int k = 0; k < 64; k++)
        if (k >= c.lo && k <= c.hi)
            cr_assert(c.p[k] == mx[k], "max point %d: %.17g, plain %.17g", k, c.p[k], mx[k]);
        else
            cr_assert_lt(mx[k], 1e-17, "max point %d dropped with %g", k, mx[k]);
    /* back to the point mass at 0 from a wide support */
    lattice_delta(&c);
    zero_outside(&c);
    cr_assert(c.p[0] == 1 && c.lo == 0 && c.hi == 0 && c.lost == 0);
    lattice_fini(&a);
    lattice_fini(&b);
    lattice_fini(&c);
    lattice_fini(&s);
}
