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

/* ---- the reference: the survival function as it was computed one term, one point and one
 * pass at a time (partial fractions through the general block form, the series of each
 * cluster row then column), kept here to hold the faster paths to the same doubles */

static double ref_sf(const double *rate, int m, double x);

static double ref_ipow(double b, int e)
{
    if (e == 1)
        return b;               /* the common case (distinct rates), as the loop gives it */
    double r = 1;
    for (; e > 0; e >>= 1, b *= b)
        if (e & 1)
            r *= b;
    return r;
}

static int ref_sf_blocks(const double *l, const int *n, int nb, double x, double *out,
                     double *bound)
{
    double sum = 0, mag = 0;
    for (int i = 0; i < nb; i++) {
        int ni = n[i];
        double h[HYPOEXP_MAX + 1], L[HYPOEXP_MAX + 1];
        double h0 = ref_ipow(l[i], ni);
        for (int k = 0; k < nb; k++)
            if (k != i)
                h0 *= ref_ipow(l[k] / (l[k] - l[i]), n[k]);
        h[0] = h0;
        for (int p = 1; p < ni; p++) {
            double v = 0, fact = 1;
            for (int q = 1; q < p; q++)
                fact *= q;          /* (p - 1)! */
            for (int k = 0; k < nb; k++)
                if (k != i)
                    v += n[k] / ref_ipow(l[k] - l[i], p);
            L[p] = (p % 2 ? -1.0 : 1.0) * fact * v;
            /* d/ds log (l_k + s)^-n_k = -n_k / (l_k + s): the p-th derivative is
             * -n_k (-1)^(p-1) (p-1)! / (l_k + s)^p, at s = -l_i */
        }
        for (int p = 1; p < ni; p++) {
            double v = 0, binom = 1;
            for (int q = 0; q < p; q++) {
                v += binom * h[q] * L[p - q];
                binom = binom * (p - 1 - q) / (q + 1);
            }
            h[p] = v;
        }
        double e = exp(-l[i] * x), lx = l[i] * x;
        for (int j = 1; j <= ni; j++) {
            double fact = 1;
            for (int q = 2; q <= ni - j; q++)
                fact *= q;
            double A = h[ni - j] / fact / ref_ipow(l[i], j);
            double poly = 0, term = 1;
            for (int r = 0; r < j; r++) {
                poly += term;
                term *= lx / (r + 1);
            }
            double t = A * e * poly;
            if (!isfinite(t))
                return -1;
            sum += t;
            mag += fabs(t);
        }
    }
    *out = sum;
    *bound = mag;
    return 0;
}

#define REF_GAP  4.0
#define REF_SPAN 24.0
enum { REF_TERMS = 128 };

/* F[b][b..e] (row) or F[b..e][e] (!row) by the series, with 1/q! in invf */
static void ref_dd_cluster(const double *u, int b, int e, int n, const double *invf, int row,
                       double F[][HYPOEXP_MAX])
{
    double h[REF_TERMS], ec = exp(-u[e]);
    h[0] = 1;
    for (int q = 1; q < n; q++)
        h[q] = 0;
    for (int k = 0; k <= e - b; k++) {
        int j = row ? b + k : e - k;
        double d = u[e] - u[j], s = h[0] * invf[k];
        for (int q = 1; q < n; q++) {
            h[q] += d * h[q - 1];
            s += h[q] * invf[q + k];
        }
        if (row)
            F[b][j] = ec * s;
        else
            F[j][e] = ec * s;
    }
}

static int ref_divdiff(const double *rate, int m, double x, double *sf)
{
    static _Thread_local double F[HYPOEXP_MAX][HYPOEXP_MAX], invf[REF_TERMS + HYPOEXP_MAX];
    double u[HYPOEXP_MAX];
    int first[HYPOEXP_MAX];
    if (m <= 0 || x <= 0) {
        *sf = ref_sf(rate, m, x);
        return 0;
    }
    if (invf[0] == 0) {
        invf[0] = 1;
        for (int q = 1; q < REF_TERMS + HYPOEXP_MAX; q++)
            invf[q] = invf[q - 1] / q;
    }
    for (int i = 0; i < m; i++) {
        double v = rate[i] * x;
        int k = i;
        for (; k > 0 && u[k - 1] > v; k--)
            u[k] = u[k - 1];
        u[k] = v;
    }
    if (!(u[0] > 0) || !isfinite(u[m - 1]))
        return -1;
    for (int i = 0; i < m; i++)
        first[i] = i > 0 && u[i] - u[i - 1] < REF_GAP ? first[i - 1] : i;
    for (int e = m - 1; e >= 0; e = first[e] - 1) {
        int b = first[e], n = 1;
        double span = u[e] - u[b];
        if (span > REF_SPAN)
            return -1;
        for (double t = 1; n < REF_TERMS && (t >= 1e-17 || n <= span); n++)
            t *= span / n;
        if (b == e) {
            F[b][b] = exp(-u[b]);
            continue;
        }
        ref_dd_cluster(u, b, e, n, invf, 1, F);
        if (e < m - 1)
            ref_dd_cluster(u, b, e, n, invf, 0, F); /* later clusters need the last column */
    }
    for (int k = 1; k < m; k++)
        for (int i = 0; i + k < m; i++) {
            int j = i + k;
            if (first[j] != first[i])
                F[i][j] = (F[i][j - 1] - F[i + 1][j]) / (u[j] - u[i]);
        }
    double s = 0, prod = 1;
    for (int j = 0; j < m; j++) {
        if (!(prod < 1e280))
            return -1;
        s += prod * F[0][j];
        prod *= u[j];
    }
    if (!isfinite(s))
        return -1;
    *sf = s < 0 ? 0 : s > 1 ? 1 : s;
    return 0;
}

static double ref_sf(const double *rate, int m, double x)
{
    if (m <= 0)
        return x < 0 ? 1.0 : 0.0;
    if (x <= 0)
        return 1.0;
    if (m == 1)
        return exp(-rate[0] * x);
    /* equal rates into blocks, on a time scale where the largest rate is 1 */
    double top = 0;
    for (int i = 0; i < m; i++)
        top = rate[i] > top ? rate[i] : top;
    double l[HYPOEXP_MAX];
    int n[HYPOEXP_MAX], nb = 0;
    for (int i = 0; i < m; i++) {
        double r = rate[i] / top;
        int b = 0;
        while (b < nb && l[b] != r)
            b++;
        if (b == nb) {
            l[nb] = r;
            n[nb++] = 0;
        }
        n[b]++;
    }
    double sf = 0, bound = 0;
    if (ref_sf_blocks(l, n, nb, x * top, &sf, &bound) == 0 && bound * 4e-16 * m < 1e-10)
        return sf < 0 ? 0 : sf > 1 ? 1 : sf;
    if (ref_divdiff(rate, m, x, &sf) == 0)
        return sf;
    return hypoexp_sf_expm(rate, m, x);
}


/* rates around a few centres, so that clusters of close points (of odd and even sizes, with
 * and without a later cluster) and lone points both occur, at times that put them in and out
 * of the series' range */
Test(hypoexp, faster_paths_give_the_reference_doubles)
{
    unsigned seed = 7;
    int cases = 0, series = 0;
    for (int t = 0; t < 3000; t++) {
        int m = 1 + rand_r(&seed) % 13;
        double r[16];
        int centres = 1 + rand_r(&seed) % 3;
        for (int i = 0; i < m; i++) {
            double c = 1 + 10.0 * (rand_r(&seed) % centres);
            r[i] = c * (1 + 0.3 * rand_r(&seed) / RAND_MAX);
            if (rand_r(&seed) % 5 == 0 && i > 0)
                r[i] = r[i - 1];            /* a repeated rate: an Erlang block */
        }
        double x = 0.05 * pow(60.0, (double)rand_r(&seed) / RAND_MAX);
        double got = hypoexp_sf(r, m, x), want = ref_sf(r, m, x);
        cr_assert(got == want || (isnan(got) && isnan(want)),
                  "case %d (m %d, x %g): %.17g, reference %.17g", t, m, x, got, want);
        double dg = -1, dw = -1;
        int rg = hypoexp_sf_divdiff(r, m, x, &dg), rw = ref_divdiff(r, m, x, &dw);
        cr_assert_eq(rg, rw, "case %d", t);
        if (rg == 0) {
            cr_assert(dg == dw, "case %d (m %d, x %g): divided differences %.17g, reference "
                      "%.17g", t, m, x, dg, dw);
            series++;
        }
        cases++;
    }
    cr_assert_gt(series, 1000);
    /* evenly spaced rates drawn closer and closer: partial fractions pass their cancellation
     * test, then fail it (where the shortcut that skips them must agree with the test) */
    for (int m = 6; m <= 12; m += 3)
        for (int step = 0; step < 600; step++) {
            double gap = 2.0 * pow(0.995, step), r[12], x = 0.7 + 0.1 * (step % 7);
            for (int i = 0; i < m; i++)
                r[i] = 1 + gap * ((i * 5) % m);         /* not in order */
            double got = hypoexp_sf(r, m, x), want = ref_sf(r, m, x);
            cr_assert(got == want, "m %d gap %g x %g: %.17g, reference %.17g", m, gap, x, got,
                      want);
            cases++;
        }
    cr_log_info("%d cases, %d by divided differences", cases, series);
}
