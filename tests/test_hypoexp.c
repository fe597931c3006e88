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
#include <string.h>

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

/* P(X > x) in long double by the chain's matrix exponential (scaling and squaring of a
 * 60-term Taylor series, |A / 2^s| <= 1/4): a reference about 1e-17 accurate for m <= 12 */
static long double sf_reference(const double *r, int m, double x)
{
    static long double a[12][12], e[12][12], t[12][12], p[12][12];
    long double norm = 0, sc = 1;
    for (int i = 0; i < m; i++)
        norm = 2.0L * r[i] * x > norm ? 2.0L * r[i] * x : norm;
    int s = 0;
    for (; norm * sc > 0.25L; s++)
        sc *= 0.5L;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            a[i][j] = j == i ? -(long double)r[i] * x * sc
                    : j == i + 1 ? (long double)r[i] * x * sc : 0;
            e[i][j] = (i == j) + a[i][j];
            t[i][j] = a[i][j];
        }
    for (int k = 2; k < 60; k++) {
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                long double v = 0;
                for (int q = 0; q < m; q++)
                    v += t[i][q] * a[q][j];
                p[i][j] = v / k;
            }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                t[i][j] = p[i][j];
                e[i][j] += p[i][j];
            }
    }
    for (int q = 0; q < s; q++) {
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                long double v = 0;
                for (int k = 0; k < m; k++)
                    v += e[i][k] * e[k][j];
                p[i][j] = v;
            }
        memcpy(e, p, sizeof e);
    }
    long double sf = 0;
    for (int j = 0; j < m; j++)
        sf += e[0][j];
    return sf;
}

static double unif(void)
{
    return rand() / (RAND_MAX + 1.0);
}

Test(hypoexp, divdiff_against_closed_forms)
{
    /* distinct rates by partial fractions in long double, where they keep their digits:
     * rates 1..m apart by at least 1 (u_i = r_i x: one cluster of close points at x = 1,
     * every point its own cluster at x = 10, mixed in between) */
    for (double x = 0.25; x < 12; x *= 1.7)
        for (int m = 1; m <= 6; m++) {
            double r[6];
            long double pf = 0;
            for (int i = 0; i < m; i++)
                r[i] = 1 + i + 0.37 * i * i;
            for (int i = 0; i < m; i++) {
                long double c = 1;
                for (int j = 0; j < m; j++)
                    if (j != i)
                        c *= (long double)r[j] / ((long double)r[j] - r[i]);
                pf += c * expl(-(long double)r[i] * x);
            }
            double dd = -1;
            cr_assert_eq(hypoexp_sf_divdiff(r, m, x, &dd), 0, "m %d x %g", m, x);
            close(dd, (double)pf, 1e-14 * (double)pf + 1e-300);
        }
    /* Erlang(m, l): e^-lx sum_(k<m) (lx)^k / k!, for one block and for two far apart
     * (Erlang(4, 1) then Erlang(3, 50) at x = 1 against the convolution's closed form is
     * left to the matrix form below; here the blocks alone) */
    for (int m = 1; m <= 12; m++)
        for (double lx = 0.05; lx < 30; lx *= 2.3) {
            double r[12], want = 0, term = 1;
            for (int i = 0; i < m; i++)
                r[i] = 3.0;
            for (int k = 0; k < m; k++) {
                want += term;
                term *= lx / (k + 1);
            }
            want *= exp(-lx);
            double dd = -1;
            cr_assert_eq(hypoexp_sf_divdiff(r, m, lx / 3.0, &dd), 0);
            close(dd, want, 2e-15 * want + 1e-300);
        }
}

Test(hypoexp, divdiff_against_the_matrix_form)
{
    /* random 12-stage rate sets shaped as socialnet's compose_post chain gives them (three
     * near-equal rates, a spread of slow ones, a fast one), tight clusters, widely spread
     * rates, points spaced just over the cluster gap, and one cluster near its span limit:
     * against the long-double reference to 2e-14 relative, and against the double matrix
     * form (hypoexp_sf_expm, itself good to ~2e-12 absolute here) */
    srand(11);
    int used = 0;
    for (int t = 0; t < 600; t++) {
        int kind = t % 5, m = kind == 0 ? 12 : 2 + rand() % 11;
        double r[12], x = 0.02 + 0.2 * unif();
        for (int i = 0; i < m; i++) {
            if (kind == 0)
                r[i] = i < 3 ? 33.2859 * (1 + pow(10, -2 - 10 * unif()))
                     : i == 11 ? 18723 : 10 * exp(4 * unif());
            else if (kind == 1)
                r[i] = 30 * (1 + 1e-6 * unif());
            else if (kind == 2)
                r[i] = exp(7 * unif());
            else if (kind == 3)
                r[i] = (0.1 + 4.01 * i) / x;
            else
                r[i] = (0.1 + 23.9 * unif()) / x;
        }
        long double ref = sf_reference(r, m, x);
        double dd = -1;
        if (hypoexp_sf_divdiff(r, m, x, &dd) != 0)
            continue;
        used++;
        close(dd, (double)ref, 2e-14 * (double)ref + 1e-300);
        close(dd, hypoexp_sf_expm(r, m, x), 5e-12);
        /* the dispatcher agrees with one of its paths */
        double sf = hypoexp_sf(r, m, x);
        cr_assert(fabs(sf - dd) <= 1e-10, "%.17g vs %.17g", sf, dd);
    }
    cr_assert_geq(used, 590);
    /* a set that partial fractions refuse (bound 4e13: three rates within 3e-10): the
     * dispatcher's answer is the divided differences' exactly */
    double s[] = { 48.27938037, 3.997558686, 13.73298853, 42.45340023, 51.62672524, 33.53431588,
                   33.54310933, 33.54310931, 96.7704504, 30.93073019, 602.197084, 18723.32671 };
    double dd = -1;
    cr_assert_eq(hypoexp_sf_divdiff(s, 12, 0.097601, &dd), 0);
    cr_assert_eq(hypoexp_sf(s, 12, 0.097601), dd);
    close(dd, (double)sf_reference(s, 12, 0.097601), 1e-15);
    /* order does not matter to the answer, to the last bit (the rates are sorted) */
    double rev[12];
    for (int i = 0; i < 12; i++)
        rev[i] = s[11 - i];
    double dr = -1;
    cr_assert_eq(hypoexp_sf_divdiff(rev, 12, 0.097601, &dr), 0);
    cr_assert_eq(dr, dd);
    /* out of its range: a cluster spanning more than 24 / x, a zero rate */
    double wide[8] = { 1, 4.5, 8, 11.5, 15, 18.5, 22, 25.5 }, zero[2] = { 0, 1 };
    cr_assert_eq(hypoexp_sf_divdiff(wide, 8, 1.0, &dd), -1);
    cr_assert_eq(hypoexp_sf_divdiff(zero, 2, 1.0, &dd), -1);
    close(hypoexp_sf(wide, 8, 1.0), (double)sf_reference(wide, 8, 1.0), 1e-12);
}
