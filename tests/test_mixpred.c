/*
 * test_mixpred: the graph-mix predictors against hand-computed predictions and errors, and
 * their error on Derm's graph-mix sequences (../shared/traces/derm/, calibration data that is
 * not shipped: the test is skipped without it), where the mixes hold for a while and jump:
 * persistence and a fast EWMA must beat the long-run mean.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/mixpred.h"
#include "helpers.h"

#define close(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%.17g vs %.17g", (double)(a), \
                                   (double)(b))

Test(mixpred, by_hand)
{
    double h[] = { 1, 0, 0.5, 0.5, 0, 1 };
    double out[2];
    struct mixpred last = { MIXPRED_LAST, 0, 0 }, ew = { MIXPRED_EWMA, 0.5, 0 },
                   win = { MIXPRED_WINDOW, 0, 2 };
    mixpred_predict(&last, h, 3, 2, out);
    close(out[0], 0, 1e-15);
    /* ewma: 1 -> 0.75 -> 0.375 */
    mixpred_predict(&ew, h, 3, 2, out);
    close(out[0], 0.375, 1e-15);
    close(out[1], 0.625, 1e-15);
    /* weight 0.25 on the newest: 1 -> 0.25 0.5 + 0.75 = 0.875 -> 0.75 0.875 = 0.65625 */
    struct mixpred ew4 = { MIXPRED_EWMA, 0.25, 0 };
    mixpred_predict(&ew4, h, 3, 2, out);
    close(out[0], 0.65625, 1e-15);
    mixpred_predict(&win, h, 3, 2, out);
    close(out[0], 0.25, 1e-15);
    mixpred_predict(&win, h, 0, 2, out);
    close(out[0], 0.5, 1e-15);
    /* errors: last predicts (1,0) then (0.5,0.5): |0.5| + |0.5| + |0.5| + |0.5| over 2 */
    close(mixpred_error(&last, h, 3, 2), 1.0, 1e-15);
    /* ewma: (1,0) vs (0.5,0.5): 1; (0.75,0.25) vs (0,1): 1.5 */
    close(mixpred_error(&ew, h, 3, 2), 1.25, 1e-15);
}

/* Derm's sequences: sample,h0_type0..3,...; the first horizon's mix */
static double *derm_sequences(int *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/derm/graph_predict_all_target.csv", th_shared_dir("traces"));
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 16384;
    double *v = malloc(cap * 4 * sizeof *v);
    char line[512];
    *n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f) != NULL && (size_t)*n < cap) {
        double s, a, b, c, d;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &s, &a, &b, &c, &d) != 5)
            continue;
        double *r = v + 4 * *n;
        r[0] = a, r[1] = b, r[2] = c, r[3] = d;
        (*n)++;
    }
    fclose(f);
    return v;
}

Test(mixpred, derm_sequences)
{
    int n;
    double *seq = derm_sequences(&n);
    if (seq == NULL)
        cr_skip_test("Derm's graph-mix sequences are not in ../shared/traces/derm");
    cr_assert_gt(n, 10000);
    struct mixpred last = { MIXPRED_LAST, 0, 0 }, ew = { MIXPRED_EWMA, 0.5, 0 },
                   slow = { MIXPRED_EWMA, 0.05, 0 }, win = { MIXPRED_WINDOW, 0, 10 };
    double e_last = mixpred_error(&last, seq, n, 4), e_ew = mixpred_error(&ew, seq, n, 4);
    double e_slow = mixpred_error(&slow, seq, n, 4), e_win = mixpred_error(&win, seq, n, 4);
    /* the long-run mean, known in advance: what a static predictor would do */
    double mean[4] = { 0 }, e_mean = 0;
    for (int t = 0; t < n; t++)
        for (int j = 0; j < 4; j++)
            mean[j] += seq[4 * t + j] / n;
    for (int t = 1; t < n; t++)
        for (int j = 0; j < 4; j++)
            e_mean += fabs(mean[j] - seq[4 * t + j]) / (n - 1);
    cr_log_info("Derm graph-mix sequences (%d steps), mean L1 error of the next mix: last %.4f, "
                "ewma(0.5) %.4f, ewma(0.05) %.4f, window(10) %.4f, long-run mean %.4f", n,
                e_last, e_ew, e_slow, e_win, e_mean);
    cr_assert_lt(e_last, e_mean / 5);
    cr_assert_lt(e_ew, e_mean / 5);
    cr_assert_lt(e_last, e_slow);
    free(seq);
}
