/*
 * hypoexp: survival function of a sum of exponentials (hypoexp.h).
 *
 * Partial fractions: P(X > x) = sum_i C_i exp(-l_i x), C_i = prod_{j != i} l_j / (l_j - l_i),
 * with equal rates gathered into Erlang blocks (sf_blocks: repeated roots).  The rounding
 * error is about eps * sum of the terms' magnitudes; when that bound exceeds 1e-10 (close
 * but unequal rates) divided differences are used instead (hypoexp_sf_divdiff, below), and
 * where those are out of range the matrix form: X is the absorption time of the
 * chain 1 -> 2 -> ... -> m -> out with rates l_i, so P(X > x) = e_1' exp(T x) 1 with
 * T = -diag(l) + superdiag(l_1..l_{m-1}).  exp(A), A = T x, is (exp(A / 2^s))^(2^s) with
 * |A / 2^s| <= 1/2 and the Taylor series summed until its terms fall below 1e-18; exp(T t) is
 * a substochastic matrix, so the squarings add and multiply nonnegative numbers only.
 * T is upper triangular, and so are its powers: products run over j >= i only.
 * Partial fractions over six or more distinct rates are not summed where one term already
 * fails the cancellation test (pf_doomed): the result is the one the test would lead to.
 */
#include "hypoexp.h"

#include <math.h>
#include <string.h>

/* c = a b for upper triangular m x m matrices (row-major, stride HYPOEXP_MAX) */
static void trimul(int m, const double *a, const double *b, double *c)
{
    for (int i = 0; i < m; i++)
        for (int j = i; j < m; j++) {
            double s = 0;
            for (int k = i; k <= j; k++)
                s += a[i * HYPOEXP_MAX + k] * b[k * HYPOEXP_MAX + j];
            c[i * HYPOEXP_MAX + j] = s;
        }
}

double hypoexp_sf_expm(const double *rate, int m, double x)
{
    if (m <= 0)
        return x < 0 ? 1.0 : 0.0;
    if (x <= 0)
        return 1.0;
    static _Thread_local double a[HYPOEXP_MAX * HYPOEXP_MAX], e[HYPOEXP_MAX * HYPOEXP_MAX],
        term[HYPOEXP_MAX * HYPOEXP_MAX], tmp[HYPOEXP_MAX * HYPOEXP_MAX];
    double norm = 0;
    for (int i = 0; i < m; i++)
        if (2 * rate[i] * x > norm)
            norm = 2 * rate[i] * x;
    int s = 0;
    double scale = 1;
    while (norm * scale > 0.5) {
        scale *= 0.5;
        s++;
    }
    for (int i = 0; i < m; i++)
        for (int j = i; j < m; j++) {
            double v = 0;
            if (j == i)
                v = -rate[i] * x * scale;
            else if (j == i + 1)
                v = rate[i] * x * scale;
            a[i * HYPOEXP_MAX + j] = v;
            e[i * HYPOEXP_MAX + j] = (i == j) + v;
            term[i * HYPOEXP_MAX + j] = v;
        }
    /* Taylor: term_k = A^k / k!; |A| <= 1/2 so 30 terms are far more than enough */
    for (int k = 2; k < 40; k++) {
        trimul(m, term, a, tmp);
        double big = 0;
        for (int i = 0; i < m; i++)
            for (int j = i; j < m; j++) {
                double v = tmp[i * HYPOEXP_MAX + j] / k;
                term[i * HYPOEXP_MAX + j] = v;
                e[i * HYPOEXP_MAX + j] += v;
                if (fabs(v) > big)
                    big = fabs(v);
            }
        if (big < 1e-18)
            break;
    }
    for (int q = 0; q < s; q++) {
        trimul(m, e, e, tmp);
        for (int i = 0; i < m; i++)
            memcpy(&e[i * HYPOEXP_MAX + i], &tmp[i * HYPOEXP_MAX + i],
                   (size_t)(m - i) * sizeof(double));
    }
    double sf = 0;
    for (int j = 0; j < m; j++)
        sf += e[j];
    return sf < 0 ? 0 : sf > 1 ? 1 : sf;
}

/* Partial fractions with repeated rates: blocks of n_i stages of rate l_i (distinct), rates
 * scaled so that the largest is 1.  f's transform is prod_i (l_i / (l_i + s))^n_i =
 * sum_ij A_ij / (s + l_i)^j with A_ij = h_i^(n_i - j)(-l_i) / (n_i - j)!, h_i = C g_i,
 * g_i = prod_{k != i} (l_k + s)^-n_k, C = prod l^n; the derivatives of g_i come from those
 * of log g_i by g^(p) = sum_q binom(p-1, q) g^(q) (log g)^(p-q).  Then
 * S(x) = sum_ij A_ij / l_i^j e^(-l_i x) sum_{r<j} (l_i x)^r / r!.  Returns 0 with *bound the
 * sum of the terms' magnitudes (the cancellation), or -1 when it overflows. */
static double ipow(double b, int e)
{
    if (e == 1)
        return b;               /* the common case (distinct rates), as the loop gives it */
    double r = 1;
    for (; e > 0; e >>= 1, b *= b)
        if (e & 1)
            r *= b;
    return r;
}

/* sf_blocks' term of a lone stage i (n[i] = 1; n NULL: every block is one stage, distinct
 * rates, the common case): the same operations in the same order as its general loops,
 * without those that repeated rates need */
static double pf_term(const double *l, const int *n, int nb, int i, double x)
{
    double li = l[i], h0 = li;
    if (n == NULL) {
        for (int k = 0; k < i; k++)
            h0 *= l[k] / (l[k] - li);
        for (int k = i + 1; k < nb; k++)
            h0 *= l[k] / (l[k] - li);
    } else {
        for (int k = 0; k < nb; k++)
            if (k != i)
                h0 *= ipow(l[k] / (l[k] - li), n[k]);
    }
    return h0 / li * exp(-li * x);      /* A e poly with fact = poly = 1 */
}

static int sf_distinct(const double *l, int nb, double x, double *out, double *bound)
{
    double sum = 0, mag = 0;
    for (int i = 0; i < nb; i++) {
        double t = pf_term(l, NULL, nb, i, x);
        if (!isfinite(t))
            return -1;
        sum += t;
        mag += fabs(t);
    }
    *out = sum;
    *bound = mag;
    return 0;
}

/* Whether partial fractions over distinct rates are sure to fail (hypoexp_sf's test of their
 * cancellation), from one term: the sum of the terms' magnitudes is at least any one of them
 * (a rounded sum of nonnegative numbers never falls below a term), and the test is monotone
 * in it.  The term tried is that of the rate nearest the middle of their range, which has
 * close rates on both sides where they cluster: there the terms are largest.  Long chains
 * only, where the partial fractions cost most and fail most. */
static int pf_doomed(const double *l, int nb, double x)
{
    if (nb < 6)
        return 0;
    double lo = l[0], hi = l[0];
    for (int i = 1; i < nb; i++) {
        lo = l[i] < lo ? l[i] : lo;
        hi = l[i] > hi ? l[i] : hi;
    }
    double mid = 0.5 * (lo + hi), best = INFINITY;
    int med = 0;
    for (int i = 0; i < nb; i++)
        if (fabs(l[i] - mid) < best) {
            best = fabs(l[i] - mid);
            med = i;
        }
    double t = pf_term(l, NULL, nb, med, x);
    return !isfinite(t) || !(fabs(t) * 4e-16 * nb < 1e-10);
}

static int sf_blocks(const double *l, const int *n, int nb, double x, double *out,
                     double *bound)
{
    double sum = 0, mag = 0;
    for (int i = 0; i < nb; i++) {
        int ni = n[i];
        if (ni == 1) {
            /* a lone stage: the loops below with one term each */
            double t = pf_term(l, n, nb, i, x);
            if (!isfinite(t))
                return -1;
            sum += t;
            mag += fabs(t);
            continue;
        }
        double h[HYPOEXP_MAX + 1], L[HYPOEXP_MAX + 1];
        double h0 = ipow(l[i], ni);
        for (int k = 0; k < nb; k++)
            if (k != i)
                h0 *= ipow(l[k] / (l[k] - l[i]), n[k]);
        h[0] = h0;
        for (int p = 1; p < ni; p++) {
            double v = 0, fact = 1;
            for (int q = 1; q < p; q++)
                fact *= q;          /* (p - 1)! */
            for (int k = 0; k < nb; k++)
                if (k != i)
                    v += n[k] / ipow(l[k] - l[i], p);
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
            double A = h[ni - j] / fact / ipow(l[i], j);
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

/* Divided differences of exp (hypoexp.h).  With u_i = l_i x sorted ascending and z_i = -u_i,
 * S(x) = sum_j (prod_(i<j) u_i) F[0][j] for F[i][j] = exp[z_i..z_j] (the first row of
 * exp(T x) times 1): every term nonnegative, and the sum does not depend on the stages'
 * order.  F comes in two ways:
 * - within a cluster (a run of points whose neighbours are closer than DD_GAP), about the
 *   cluster's smallest point c = -u_e with d_k = u_e - u_k in [0, D], D the cluster's span:
 *   exp[z_i..z_j] = e^c sum_n h_n(d_i..d_j) / (n + j - i)!, h_n the complete homogeneous
 *   symmetric polynomials, built a point at a time (h_n(P + d) = h_n(P) + d h_(n-1)(P + d)):
 *   every term nonnegative, each at most D^n / (n! (j - i)!) and the first 1 / (j - i)!, so
 *   the series stops where D^n / n! < 1e-17.  Only the cluster's first row (points added
 *   from its start) and last column (from its end) are needed;
 * - across clusters, by the Newton recurrence F[i][j] = (F[i][j-1] - F[i+1][j]) / (u_j - u_i),
 *   whose two terms share all points but one and differ by a point at least DD_GAP further:
 *   they cancel by a factor of about 1 + (j - i) / (u_j - u_i) at most.
 * Cost: O(m (D + 40)) for the series, O(m^2) for the recurrence. */
#define DD_GAP  4.0
#define DD_SPAN 24.0
enum { DD_TERMS = 128 };

/* F[b][b..e] (the row) and, with `col`, F[b..e][e] (the column) by the series, with 1/q! in
 * invf.  Each point's pass over the terms is a chain of multiply-adds, term after term, and
 * the next point's pass needs only the term of the same rank from it: two points of the row
 * (and two of the column) go in one loop, so that up to four chains overlap.  Every value is
 * computed as a pass at a time computes it, and F[b][e], which both give, is the column's. */
static void dd_cluster(const double *u, int b, int e, int n, const double *invf, int col,
                       double F[][HYPOEXP_MAX])
{
    double hr[DD_TERMS], hc[DD_TERMS], ec = exp(-u[e]);
    hr[0] = hc[0] = 1;
    for (int q = 1; q < n; q++)
        hr[q] = hc[q] = 0;
    int K = e - b;
    for (int k = 0; k <= K; k += 2) {
        int two = k < K;
        const double *i0 = invf + k, *i1 = invf + k + 1;
        double r0 = u[e] - u[b + k], r1 = two ? u[e] - u[b + k + 1] : 0;
        double c0 = u[e] - u[e - k], c1 = two ? u[e] - u[e - k - 1] : 0;
        /* h[0] is 1 throughout */
        double sr0 = i0[0], sr1 = two ? i1[0] : 0, sc0 = i0[0], sc1 = sr1;
        double pr0 = 1, pr1 = 1, pc0 = 1, pc1 = 1;
        if (col && two) {
            for (int q = 1; q < n; q++) {
                double a = hr[q] + r0 * pr0, x = hc[q] + c0 * pc0;
                double a1 = a + r1 * pr1, x1 = x + c1 * pc1;
                hr[q] = a1;
                hc[q] = x1;
                sr0 += a * i0[q];
                sc0 += x * i0[q];
                sr1 += a1 * i1[q];
                sc1 += x1 * i1[q];
                pr0 = a, pc0 = x, pr1 = a1, pc1 = x1;
            }
        } else if (col) {
            for (int q = 1; q < n; q++) {
                double a = hr[q] + r0 * pr0, x = hc[q] + c0 * pc0;
                hr[q] = a;
                hc[q] = x;
                sr0 += a * i0[q];
                sc0 += x * i0[q];
                pr0 = a, pc0 = x;
            }
        } else if (two) {
            for (int q = 1; q < n; q++) {
                double a = hr[q] + r0 * pr0;
                double a1 = a + r1 * pr1;
                hr[q] = a1;
                sr0 += a * i0[q];
                sr1 += a1 * i1[q];
                pr0 = a, pr1 = a1;
            }
        } else {
            for (int q = 1; q < n; q++) {
                pr0 = hr[q] + r0 * pr0;
                hr[q] = pr0;
                sr0 += pr0 * i0[q];
            }
        }
        F[b][b + k] = ec * sr0;
        if (col)
            F[e - k][e] = ec * sc0;
        if (two) {
            F[b][b + k + 1] = ec * sr1;
            if (col)
                F[e - k - 1][e] = ec * sc1;
        }
    }
}

int hypoexp_sf_divdiff(const double *rate, int m, double x, double *sf)
{
    static _Thread_local double F[HYPOEXP_MAX][HYPOEXP_MAX], invf[DD_TERMS + HYPOEXP_MAX];
    double u[HYPOEXP_MAX];
    int first[HYPOEXP_MAX];
    if (m <= 0 || x <= 0) {
        *sf = hypoexp_sf(rate, m, x);
        return 0;
    }
    if (invf[0] == 0) {
        invf[0] = 1;
        for (int q = 1; q < DD_TERMS + HYPOEXP_MAX; q++)
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
        first[i] = i > 0 && u[i] - u[i - 1] < DD_GAP ? first[i - 1] : i;
    for (int e = m - 1; e >= 0; e = first[e] - 1) {
        int b = first[e], n = 1;
        double span = u[e] - u[b];
        if (span > DD_SPAN)
            return -1;
        for (double t = 1; n < DD_TERMS && (t >= 1e-17 || n <= span); n++)
            t *= span / n;
        if (b == e) {
            F[b][b] = exp(-u[b]);
            continue;
        }
        dd_cluster(u, b, e, n, invf, e < m - 1, F);    /* later clusters need the column */
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

double hypoexp_sf(const double *rate, int m, double x)
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
    int rc = nb < m                    ? sf_blocks(l, n, nb, x * top, &sf, &bound)
             : pf_doomed(l, nb, x * top) ? -1
                                         : sf_distinct(l, nb, x * top, &sf, &bound);
    if (rc == 0 && bound * 4e-16 * m < 1e-10)
        return sf < 0 ? 0 : sf > 1 ? 1 : sf;
    if (hypoexp_sf_divdiff(rate, m, x, &sf) == 0)
        return sf;
    return hypoexp_sf_expm(rate, m, x);
}

double hypoexp_cdf(const double *rate, int m, double x)
{
    return 1.0 - hypoexp_sf(rate, m, x);
}

double hypoexp_mix_cdf(const struct hypoexp_chain *c, int n, double x)
{
    double f = 0, w = 0;
    for (int i = 0; i < n; i++) {
        if (!(c[i].weight > 0))
            continue;
        w += c[i].weight;
        f += c[i].weight * hypoexp_cdf(c[i].rate, c[i].m, x - c[i].shift);
    }
    return w > 0 ? f / w : 1.0;
}

double hypoexp_mix_quantile(const struct hypoexp_chain *c, int n, double q, double rel_tol)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(c[i].weight > 0))
            continue;
        double mean = 0;
        for (int k = 0; k < c[i].m; k++)
            mean += 1.0 / c[i].rate[k];
        if (c[i].shift < lo)
            lo = c[i].shift;
        if (c[i].shift + 2 * mean > hi)
            hi = c[i].shift + 2 * mean;
    }
    if (!isfinite(lo))
        return 0;
    if (hi <= lo)
        return lo;
    for (int k = 0; k < 200 && hypoexp_mix_cdf(c, n, hi) < q; k++)
        hi = lo + 2 * (hi - lo);
    for (int k = 0; k < 200 && hi - lo > rel_tol * hi && hi - lo > 1e-12; k++) {
        double mid = 0.5 * (lo + hi);
        if (hypoexp_mix_cdf(c, n, mid) >= q)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
