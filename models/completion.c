/*
 * completion: rank-k alternating least squares on the known entries (see completion.h).
 * Each half-step is a ridge regression per row (per column): (sum_j v_j v_j^T + lambda I) u_i
 * = sum_j a_ij v_j over the row's known j, solved by Gaussian elimination with partial
 * pivoting (k <= 8, so the systems are tiny).
 */
#include "completion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Solve the k x k system m x = b in place (b becomes x); a singular system gives x = 0. */
static void solve(double *m, double *b, int k)
{
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(m[r * k + c]) > fabs(m[p * k + c]))
                p = r;
        if (!(fabs(m[p * k + c]) > 1e-300)) {
            memset(b, 0, (size_t)k * sizeof *b);
            return;
        }
        if (p != c) {
            for (int j = 0; j < k; j++) {
                double t = m[c * k + j];
                m[c * k + j] = m[p * k + j];
                m[p * k + j] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < k; r++) {
            double f = m[r * k + c] / m[c * k + c];
            for (int j = c; j < k; j++)
                m[r * k + j] -= f * m[c * k + j];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++)
            s -= m[c * k + j] * b[j];
        b[c] = s / m[c * k + c];
    }
}

/* One half-step: every row factor x_i from the fixed factors y over the row's known
 * entries.  `by_row` says whether i indexes rows of a (else columns). */
static void half_step(const double *a, const unsigned char *known, int m, int n, int k,
                      double lambda, int by_row, const double *y, double *x)
{
    int outer = by_row ? m : n, inner = by_row ? n : m;
    double g[COMPLETION_MAX_RANK * COMPLETION_MAX_RANK], b[COMPLETION_MAX_RANK];
    for (int i = 0; i < outer; i++) {
        memset(g, 0, sizeof g);
        memset(b, 0, sizeof b);
        for (int r = 0; r < k; r++)
            g[r * k + r] = lambda;
        for (int j = 0; j < inner; j++) {
            size_t at = by_row ? (size_t)i * n + j : (size_t)j * n + i;
            if (!known[at])
                continue;
            const double *v = y + (size_t)j * k;
            for (int r = 0; r < k; r++) {
                b[r] += a[at] * v[r];
                for (int c = 0; c < k; c++)
                    g[r * k + c] += v[r] * v[c];
            }
        }
        solve(g, b, k);
        memcpy(x + (size_t)i * k, b, (size_t)k * sizeof *b);
    }
}

int completion_fit(const double *a, const unsigned char *known, int m, int n,
                   const struct completion_opts *o, double *out)
{
    int k = o->rank;
    if (k < 1 || k > COMPLETION_MAX_RANK || m < 1 || n < 1 || o->lambda < 0 || o->iters < 1)
        return -1;
    double *u = calloc((size_t)m * k, sizeof *u), *v = calloc((size_t)n * k, sizeof *v);
    if (u == NULL || v == NULL) {
        free(u);
        free(v);
        return -1;
    }
    for (int j = 0; j < n; j++)
        for (int r = 0; r < k; r++)
            v[(size_t)j * k + r] = r == 0 ? 1.0 : 0.1 * (double)((j * (r + 2) + r) % 5 - 2);
    for (int it = 0; it < o->iters; it++) {
        half_step(a, known, m, n, k, o->lambda, 1, v, u);
        half_step(a, known, m, n, k, o->lambda, 0, u, v);
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            size_t at = (size_t)i * n + j;
            if (known[at]) {
                out[at] = a[at];
                continue;
            }
            double s = 0;
            for (int r = 0; r < k; r++)
                s += u[(size_t)i * k + r] * v[(size_t)j * k + r];
            out[at] = s;
        }
    free(u);
    free(v);
    return 0;
}
