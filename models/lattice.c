/*
 * lattice: latency distributions on a lattice (lattice.h).
 *
 * The linear discretization of Y = s + Exp(l), in lattice units (s' = s/h = j + f, L = l h,
 * d = 1 - f): point j gets q_j = d - (1 - e^(-L d)) / L, point j + 2 + i gets g r^i with
 * r = e^(-L), g = K e^(-L (1 + d)) and K = 4 sinh^2(L/2) / L, and point j + 1 the rest; so
 * y = p * q is y'_k = q_j p_k + q_{j+1} p_{k-1} + g z_k with z_k = p_{k-2} + r z_{k-1}, shifted
 * by j: one pass.  Points whose mass falls below TRIM at the high end are dropped into
 * `lost`, so that supports stay as short as the distribution.  General sums are direct
 * for short supports and by FFT (GSL, radix 2) for long ones.
 */
#include "lattice.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRIM 1e-17

int lattice_init(struct lattice *l, double h, int n)
{
    memset(l, 0, sizeof *l);
    l->p = calloc((size_t)n, sizeof *l->p);
    if (l->p == NULL)
        return -1;
    l->h = h;
    l->n = n;
    lattice_delta(l);
    return 0;
}

void lattice_fini(struct lattice *l)
{
    free(l->p);
    l->p = NULL;
}

void lattice_delta(struct lattice *l)
{
    /* every point outside [lo, hi] is 0 already */
    memset(l->p + l->lo, 0, (size_t)(l->hi - l->lo + 1) * sizeof *l->p);
    l->p[0] = 1;
    l->lo = l->hi = 0;
    l->lost = 0;
}

void lattice_copy(struct lattice *dst, const struct lattice *src)
{
    memcpy(dst->p, src->p, (size_t)src->n * sizeof *src->p);
    dst->h = src->h;
    dst->lo = src->lo;
    dst->hi = src->hi;
    dst->lost = src->lost;
}

/* support and lost mass after an operation that may have filled [lo, top] (every point past
 * top is 0: trimming starts there, as it would from the last point) */
static void settle(struct lattice *l, int top)
{
    int hi = top < l->n - 1 ? top : l->n - 1;
    if (hi < l->lo)
        hi = l->lo;
    while (hi > l->lo && l->p[hi] < TRIM)
        l->p[hi--] = 0;
    int lo = l->lo;
    while (lo < hi && l->p[lo] == 0)
        lo++;
    l->lo = lo;
    l->hi = hi;
    double s = 0;
    for (int k = lo; k <= hi; k++)
        s += l->p[k];
    double lost = 1 - s;
    l->lost = lost > 0 ? lost : 0;
}

void lattice_add_shexp(struct lattice *l, double shift, double rate)
{
    double sp = shift / l->h, L = rate * l->h;
    long j = (long)floor(sp);
    if (j + l->lo >= l->n) {
        memset(l->p, 0, (size_t)l->n * sizeof *l->p);
        l->lo = l->hi = 0;
        l->lost = 1;
        return;
    }
    double d = 1 - (sp - (double)j);
    double qj = d + expm1(-L * d) / L;
    double sh = sinh(0.5 * L), K = 4 * sh * sh / L, r = exp(-L);
    double g = K * exp(-L * (1 + d));
    double q1 = 1 - qj - g / -expm1(-L);
    if (q1 < 0)
        q1 = 0;
    int n = l->n;
    int top = n - (int)j;           /* y'_k needed for k < top */
    double z = 0, p1 = 0, p2 = 0;   /* p_{k-1}, p_{k-2} as they were */
    for (int k = l->lo; k < top; k++) {
        double pk = l->p[k];
        z = p2 + r * z;
        l->p[k] = qj * pk + q1 * p1 + g * z;
        p2 = p1;
        p1 = pk;
        if (k > l->hi + 2 && z < TRIM) {
            top = k + 1;
            break;
        }
    }
    /* points past the old support are 0 already */
    for (int k = top; k <= l->hi; k++)
        l->p[k] = 0;
    int lo = l->lo;
    if (j > 0) {
        /* the masses [lo, top) move up by j; what they leave below lo + j is cleared */
        memmove(l->p + lo + j, l->p + lo, (size_t)(top - lo) * sizeof *l->p);
        long clear = j < top - lo ? j : top - lo;
        memset(l->p + lo, 0, (size_t)clear * sizeof *l->p);
    }
    l->lo += (int)j;
    settle(l, top - 1 + (int)j);
}

/* out[0 .. wa + wb - 1) = x * y by FFT (GSL's radix-2 real transforms); 0, or -1 out of
 * memory.  Round-off leaves errors near 1e-16 of the largest mass: clipped at 0. */
static int fft_conv(const double *x, int wa, const double *y, int wb, double *out)
{
    size_t m = 1;
    while (m < (size_t)(wa + wb - 1))
        m <<= 1;
    double *A = calloc(2 * m, sizeof *A);
    if (A == NULL)
        return -1;
    double *B = A + m;
    memcpy(A, x, (size_t)wa * sizeof *A);
    memcpy(B, y, (size_t)wb * sizeof *B);
    gsl_fft_real_radix2_transform(A, 1, m);
    gsl_fft_real_radix2_transform(B, 1, m);
    /* halfcomplex: [r0, r1, ..., r(m/2), i(m/2-1), ..., i1] */
    A[0] *= B[0];
    A[m / 2] *= B[m / 2];
    for (size_t k = 1; k < m / 2; k++) {
        double ar = A[k], ai = A[m - k], br = B[k], bi = B[m - k];
        A[k] = ar * br - ai * bi;
        A[m - k] = ar * bi + ai * br;
    }
    gsl_fft_halfcomplex_radix2_inverse(A, 1, m);
    for (int j = 0; j < wa + wb - 1; j++)
        out[j] = A[j] > 0 ? A[j] : 0;
    free(A);
    return 0;
}

/* o[0..w) += x b[0..w): unrolled, each o[j] taking the same product and sum as one at a time */
static void axpy(double *restrict o, const double *restrict b, double x, int w)
{
    int j = 0;
    for (; j + 4 <= w; j += 4) {
        double b0 = b[j], b1 = b[j + 1], b2 = b[j + 2], b3 = b[j + 3];
        o[j] += x * b0;
        o[j + 1] += x * b1;
        o[j + 2] += x * b2;
        o[j + 3] += x * b3;
    }
    for (; j < w; j++)
        o[j] += x * b[j];
}

void lattice_add(struct lattice *a, const struct lattice *b, struct lattice *s)
{
    int n = a->n;
    int wa = a->hi - a->lo + 1, wb = b->hi - b->lo + 1;
    int base = a->lo + b->lo;
    /* the sum's points: [base, end); every other point of s and of the result is 0 */
    int end = base + wa + wb - 1 < n ? base + wa + wb - 1 : n;
    if (end > base)
        memset(s->p + base, 0, (size_t)(end - base) * sizeof *s->p);
    double *conv = NULL;
    /* direct for short supports, else by FFT (three transforms of m points: about
     * 6 m log2 m operations against wa wb) */
    double m = 1;
    while (m < wa + wb - 1)
        m *= 2;
    if ((double)wa * wb > 6.0 * m * log2(m) && base < n &&
        (conv = malloc((size_t)(wa + wb) * sizeof *conv)) != NULL &&
        fft_conv(a->p + a->lo, wa, b->p + b->lo, wb, conv) == 0) {
        for (int j = 0; j < wa + wb - 1 && base + j < n; j++)
            s->p[base + j] = conv[j];
    } else {
        for (int i = a->lo; i <= a->hi; i++) {
            double ai = a->p[i];
            if (ai == 0)
                continue;
            int jmax = b->hi < n - 1 - i ? b->hi : n - 1 - i;
            if (jmax >= b->lo)
                axpy(s->p + i + b->lo, b->p + b->lo, ai, jmax - b->lo + 1);
        }
    }
    free(conv);
    memset(a->p + a->lo, 0, (size_t)wa * sizeof *a->p);
    if (end > base)
        memcpy(a->p + base, s->p + base, (size_t)(end - base) * sizeof *a->p);
    a->lo = base < n ? base : n - 1;
    settle(a, end - 1);
}

void lattice_add_erlang(struct lattice *l, int calls, double shift, double rate,
                        struct lattice *scratch)
{
    if (calls <= 1) {
        lattice_add_shexp(l, shift, rate);
        return;
    }
    /* in lattice units: Y = b + Gamma(c, theta) */
    double h = l->h, c = calls, theta = 1 / (rate * h), base = c * shift / h;
    double mean = c * theta, sd = sqrt(c) * theta;
    double ylo = mean - 10 * sd, yhi = mean + 10 * sd + 30 * theta;
    if (ylo < 0)
        ylo = 0;
    long klo = (long)floor(base + ylo), khi = (long)ceil(base + yhi) + 1;
    long width = khi - klo + 1;
    double filters = 5.0 * c * (l->n - l->lo);
    double direct = (double)width * (l->hi - l->lo + 1) + 80.0 * width;
    if (filters <= direct || klo >= l->n) {
        for (int i = 0; i < calls; i++)
            lattice_add_shexp(l, shift, rate);
        return;
    }
    if (khi > l->n)
        khi = l->n;
    /* G(u) = P(Y <= u), M(u) = E[Y; Y <= u]; q_k = E[max(0, 1 - |Y - k|)] */
    struct lattice *b = scratch;
    memset(b->p, 0, (size_t)b->n * sizeof *b->p);
    double Gp = 0, Mp = 0, Gc = 0, Mc = 0;    /* at k - 1 and k */
    for (long k = klo - 1; k <= khi; k++) {
        double t = (double)k - base;
        double G = t > 0 ? gsl_cdf_gamma_P(t, c, theta) : 0;
        double M = t > 0 ? base * G + c * theta * gsl_cdf_gamma_P(t, c + 1, theta) : 0;
        if (k > klo) {
            /* point k - 1 from [k-2, k-1] (rising) and [k-1, k] (falling) */
            long m = k - 1;
            double rise = (Mc - Mp) - (double)(m - 1) * (Gc - Gp);
            double fall = (double)(m + 1) * (G - Gc) - (M - Mc);
            double q = rise + fall;
            if (m >= 0 && m < b->n)
                b->p[m] = q > 0 ? q : 0;
        }
        Gp = Gc;
        Mp = Mc;
        Gc = G;
        Mc = M;
    }
    int blo = (int)(klo > 0 ? klo : 0), bhi = (int)(khi - 1 < b->n - 1 ? khi - 1 : b->n - 1);
    b->lo = blo;
    b->hi = bhi;
    double *out = calloc((size_t)l->n, sizeof *out);
    if (out == NULL) {      /* fall back to the filters rather than fail */
        for (int i = 0; i < calls; i++)
            lattice_add_shexp(l, shift, rate);
        return;
    }
    for (int i = l->lo; i <= l->hi; i++) {
        double ai = l->p[i];
        if (ai == 0)
            continue;
        int jmax = bhi < l->n - 1 - i ? bhi : l->n - 1 - i;
        for (int j = blo; j <= jmax; j++)
            out[i + j] += ai * b->p[j];
    }
    memcpy(l->p, out, (size_t)l->n * sizeof *out);
    free(out);
    l->lo = l->lo + blo < l->n ? l->lo + blo : l->n - 1;
    settle(l, l->n - 1);
}

void lattice_max(struct lattice *a, const struct lattice *b)
{
    int n = a->n, from = a->lo < b->lo ? a->lo : b->lo;
    /* past both supports both sums stay as they are: the masses there stay 0 */
    int to = a->hi > b->hi ? a->hi + 1 : b->hi + 1;
    double ca = 0, cb = 0, prev = 0;    /* below both supports both sums are 0 */
    for (int k = from; k < to && k < n; k++) {
        ca += a->p[k];
        cb += b->p[k];
        double c = ca * cb;
        a->p[k] = c - prev;
        prev = c;
    }
    a->lo = a->lo > b->lo ? a->lo : b->lo;
    settle(a, to - 1);
}

double lattice_cdf(const struct lattice *l, double x)
{
    if (x < 0)
        return 0;
    double h = l->h;
    long k = (long)floor(x / h + 0.5);
    if (k >= l->n)
        return 1 - l->lost;
    double c = 0;
    for (long j = l->lo; j < k && j <= l->hi; j++)
        c += l->p[j];
    double left = k == 0 ? 0 : (k - 0.5) * h, width = k == 0 ? 0.5 * h : h;
    return c + l->p[k] * (x - left) / width;
}

double lattice_quantile(const struct lattice *l, double q)
{
    double c = 0, h = l->h;
    for (int k = l->lo; k <= l->hi; k++) {
        double pk = l->p[k];
        if (c + pk >= q && pk > 0) {
            double left = k == 0 ? 0 : (k - 0.5) * h, width = k == 0 ? 0.5 * h : h;
            return left + width * (q - c) / pk;
        }
        c += pk;
    }
    return INFINITY;
}

double lattice_mean(const struct lattice *l)
{
    double m = 0, s = 0;
    for (int k = l->lo; k <= l->hi; k++) {
        m += k * l->h * l->p[k];
        s += l->p[k];
    }
    return s > 0 ? m / s : 0;
}
