/*
 * mixpred: mix predictors (mixpred.h).  The ewma starts from the oldest mix of the history;
 * every prediction is renormalized to sum to 1.  mixpred_error runs the ewma incrementally
 * (O(n k)); the other rules look back at most `window` steps.
 */
#include "mixpred.h"

#include <math.h>

static void normalize(double *v, int k)
{
    double s = 0;
    for (int j = 0; j < k; j++)
        s += v[j] > 0 ? v[j] : 0;
    for (int j = 0; j < k; j++)
        v[j] = s > 0 ? (v[j] > 0 ? v[j] / s : 0) : 1.0 / k;
}

void mixpred_predict(const struct mixpred *p, const double *hist, int n, int k, double *out)
{
    if (n <= 0) {
        for (int j = 0; j < k; j++)
            out[j] = 1.0 / k;
        return;
    }
    switch (p->kind) {
    case MIXPRED_EWMA:
        for (int j = 0; j < k; j++)
            out[j] = hist[j];
        for (int t = 1; t < n; t++)
            for (int j = 0; j < k; j++)
                out[j] = p->alpha * hist[t * k + j] + (1 - p->alpha) * out[j];
        break;
    case MIXPRED_WINDOW: {
        int from = n - (p->window > 0 ? p->window : 1);
        if (from < 0)
            from = 0;
        for (int j = 0; j < k; j++) {
            double s = 0;
            for (int t = from; t < n; t++)
                s += hist[t * k + j];
            out[j] = s / (n - from);
        }
        break;
    }
    default:
        for (int j = 0; j < k; j++)
            out[j] = hist[(n - 1) * k + j];
    }
    normalize(out, k);
}

double mixpred_error(const struct mixpred *p, const double *seq, int n, int k)
{
    if (n < 2 || k <= 0 || k > 64)
        return 0;
    double pred[64], e = 0;
    for (int j = 0; j < k; j++)
        pred[j] = seq[j];
    for (int t = 1; t < n; t++) {
        if (p->kind == MIXPRED_EWMA) {
            /* pred holds the ewma of mixes 0..t-1 */
            double q[64];
            for (int j = 0; j < k; j++)
                q[j] = pred[j];
            normalize(q, k);
            for (int j = 0; j < k; j++)
                e += fabs(q[j] - seq[t * k + j]);
            for (int j = 0; j < k; j++)
                pred[j] = p->alpha * seq[t * k + j] + (1 - p->alpha) * pred[j];
        } else {
            double q[64];
            mixpred_predict(p, seq, t, k, q);
            for (int j = 0; j < k; j++)
                e += fabs(q[j] - seq[t * k + j]);
        }
    }
    return e / (n - 1);
}
