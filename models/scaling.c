/*
 * scaling: Heet's scaling-efficiency estimate (see scaling.h).  The matrix has one row for
 * the job type being estimated (row 0) and one per other job type with at least one measured
 * cell; its columns are (type i, n) for n = 2..kmax.  Cost: one completion of an
 * (1 + R) x T (kmax - 1) matrix for R reference types.
 */
#include "scaling.h"

#include <stdlib.h>
#include <string.h>

int scaling_profile_points(const double *thr1, int ntypes, int kmax, int extra,
                           unsigned char *mask)
{
    int w = kmax + 1, order[SCALING_MAX_TYPES], nord = 0, count = 0;
    memset(mask, 0, (size_t)ntypes * w);
    for (int i = 0; i < ntypes; i++) {
        if (!(thr1[i] > 0))
            continue;
        mask[i * w + 1] = 1;
        count++;
        int k = nord++;
        for (; k > 0 && thr1[order[k - 1]] < thr1[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (int o = 0; o < nord && extra > 0; o++) {
        int ns[2] = { kmax, 2 };
        for (int q = 0; q < 2 && extra > 0; q++) {
            int at = order[o] * w + ns[q];
            if (ns[q] >= 2 && !mask[at]) {
                mask[at] = 1;
                count++;
                extra--;
            }
        }
    }
    return count;
}

int scaling_estimate(const tput *m, const int *gpus, int ntypes, int kmax, int jt,
                     const double *prof, const unsigned char *mask,
                     const struct completion_opts *o, double *est)
{
    int w = kmax + 1;
    if (kmax < 1 || kmax > SCALING_MAX_N || ntypes < 1 || ntypes > SCALING_MAX_TYPES)
        return -1;
    memset(est, 0, sizeof *est * (size_t)ntypes * w);
    for (int i = 0; i < ntypes; i++)
        if (mask[i * w + 1])
            est[i * w + 1] = prof[i * w + 1];
    if (kmax < 2)
        return 0;
    int ncol = ntypes * (kmax - 1), nt = tput_ntypes(m);
    double *a = calloc((size_t)(nt + 1) * ncol, sizeof *a);
    double *fit = calloc((size_t)(nt + 1) * ncol, sizeof *fit);
    unsigned char *known = calloc((size_t)(nt + 1) * ncol, 1);
    if (a == NULL || fit == NULL || known == NULL) {
        free(a);
        free(fit);
        free(known);
        return -1;
    }
    for (int i = 0; i < ntypes; i++)
        for (int n = 2; n <= kmax; n++)
            if (mask[i * w + n] && prof[i * w + 1] > 0) {
                int c = i * (kmax - 1) + n - 2;
                a[c] = prof[i * w + n] / (n * prof[i * w + 1]);
                known[c] = 1;
            }
    int rows = 1;
    for (int r = 0; r < nt; r++) {
        if (r == jt)
            continue;
        int any = 0;
        for (int i = 0; i < ntypes; i++) {
            double one = tput_profiled(m, r, gpus[i], 1, 0);
            if (!(one > 0))
                continue;
            for (int n = 2; n <= kmax; n++) {
                double v = tput_profiled(m, r, gpus[i], n, 0);
                if (!(v > 0))
                    continue;
                int c = rows * ncol + i * (kmax - 1) + n - 2;
                a[c] = v / (n * one);
                known[c] = 1;
                any = 1;
            }
        }
        rows += any;
    }
    int rc = completion_fit(a, known, rows, ncol, o, fit);
    if (rc == 0)
        for (int i = 0; i < ntypes; i++) {
            double one = est[i * w + 1];
            for (int n = 2; n <= kmax && one > 0; n++) {
                int c = i * (kmax - 1) + n - 2;
                if (known[c]) {
                    est[i * w + n] = prof[i * w + n];
                    continue;
                }
                double e = fit[c];
                if (!(e >= 0.02))
                    est[i * w + n] = est[i * w + n - 1];
                else
                    est[i * w + n] = n * one * (e > 1.5 ? 1.5 : e);
            }
        }
    free(a);
    free(fit);
    free(known);
    return rc;
}
