/*
 * hypoexp: survival function of a sum of exponentials (hypoexp.h).
 *
 * Partial fractions: P(X > x) = sum_i C_i exp(-l_i x), C_i = prod_{j != i} l_j / (l_j - l_i).
 * Their rounding error is about eps * sum_i |C_i exp(-l_i x)|; when that bound exceeds 1e-13
 * (or two rates are equal) the matrix form is used instead: X is the absorption time of the
 * chain 1 -> 2 -> ... -> m -> out with rates l_i, so P(X > x) = e_1' exp(T x) 1 with
 * T = -diag(l) + superdiag(l_1..l_{m-1}).  exp(A), A = T x, is (exp(A / 2^s))^(2^s) with
 * |A / 2^s| <= 1/2 and the Taylor series summed until its terms fall below 1e-18; exp(T t) is
 * a substochastic matrix, so the squarings add and multiply nonnegative numbers only.
 * T is upper triangular, and so are its powers: products run over j >= i only.
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

static double sf_matrix(const double *rate, int m, double x)
{
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

double hypoexp_sf(const double *rate, int m, double x)
{
    if (m <= 0)
        return x < 0 ? 1.0 : 0.0;
    if (x <= 0)
        return 1.0;
    if (m == 1)
        return exp(-rate[0] * x);
    double sum = 0, bound = 0;
    int safe = 1;
    for (int i = 0; i < m && safe; i++) {
        double c = 1;
        for (int j = 0; j < m; j++) {
            if (j == i)
                continue;
            double d = rate[j] - rate[i];
            if (d == 0) {
                safe = 0;
                break;
            }
            c *= rate[j] / d;
        }
        double t = c * exp(-rate[i] * x);
        sum += t;
        bound += fabs(t);
    }
    if (safe && bound * 4e-16 * m < 1e-13 && isfinite(bound))
        return sum < 0 ? 0 : sum > 1 ? 1 : sum;
    return sf_matrix(rate, m, x);
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
