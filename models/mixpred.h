/*
 * mixpred: predictors of the next graph-type mix from the recent ones — what Derm (ISCA
 * 2024) does with an LSTM, here with documented simple rules:
 *   last     the latest mix (persistence);
 *   ewma     an exponentially weighted mean, p = alpha x_t + (1 - alpha) p;
 *   window   the mean of the latest `window` mixes.
 * A history is a row-major array of n mixes of k fractions, oldest first.  mixpred_error
 * scores a rule on a sequence: the mean over steps t >= 1 of the L1 distance between the
 * prediction from mixes 0..t-1 and mix t (half of it is the share of requests whose graph
 * type the prediction gets wrong).
 *
 * Pure functions.
 */
#ifndef HETSIM_MIXPRED_H
#define HETSIM_MIXPRED_H

enum mixpred_kind { MIXPRED_LAST, MIXPRED_EWMA, MIXPRED_WINDOW };

struct mixpred {
    int    kind;        /* enum mixpred_kind */
    double alpha;       /* ewma: weight of the newest mix, (0, 1] */
    int    window;      /* window: mixes averaged, >= 1 */
};

/* The predicted next mix into out[0..k); with no history (n = 0), the uniform mix. */
void mixpred_predict(const struct mixpred *p, const double *hist, int n, int k, double *out);

/* Mean L1 error of the rule over seq (n mixes of k); 0 when n < 2. */
double mixpred_error(const struct mixpred *p, const double *seq, int n, int k);

#endif
