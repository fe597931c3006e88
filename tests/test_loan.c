/*
 * test_loan: the broker policies' solvers (sched/loan.h) — which nodes it lends (hand
 * cases of the greedy in score order), which it reclaims (a hand case where the cheapest per
 * unit of capacity is not the cheapest cover, and the DP against brute force over every
 * subset of random instances), the knapsack of loaned GPUs to elastic jobs against brute
 * force, and hetero_loan's type scores against hand-computed ratios.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "../sched/loan.h"

Test(loan, lends_in_score_order_while_serving_keeps_its_target)
{
    /* target 6 * 1.25 = 7.5 of 12: the two best-scored nodes (2 + 2) go, then 8 - 4 < 7.5 */
    struct loan_offer n[4] = { { 4, 1 }, { 4, 2 }, { 2, 3 }, { 2, 4 } };
    int lent[4];
    cr_assert_eq(loan_lend(n, 4, 6, 0.25, lent), 2);
    cr_assert(lent[0] == 0 && lent[1] == 0 && lent[2] == 1 && lent[3] == 1);
    /* an earlier node too large to spare does not stop a later, smaller one */
    struct loan_offer m[3] = { { 3, 3 }, { 1, 2 }, { 1, 1 } };
    cr_assert_eq(loan_lend(m, 3, 3, 0, lent), 2);
    cr_assert(lent[0] == 0 && lent[1] == 1 && lent[2] == 1);
    /* no load: everything goes; load above capacity: nothing */
    cr_assert_eq(loan_lend(m, 3, 0, 0.5, lent), 3);
    cr_assert_eq(loan_lend(m, 3, 9, 0, lent), 0);
    cr_assert(lent[0] == 0 && lent[1] == 0 && lent[2] == 0);
    /* equal scores: the lower index first */
    struct loan_offer e[2] = { { 1, 7 }, { 1, 7 } };
    cr_assert_eq(loan_lend(e, 2, 1, 0, lent), 1);
    cr_assert(lent[0] == 1 && lent[1] == 0);
}

Test(loan, reclaims_the_cheapest_cover_not_the_cheapest_per_unit)
{
    /* deficit 4: node 0 is cheaper per unit (1/3 against 2/4) but cannot cover alone; the
     * cheapest cover is node 1 alone (2), not both (3) */
    struct loan_loaned n[2] = { { 3, 1 }, { 4, 2 } };
    int take[3];
    double cost;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(loan_reclaim(n, 2, 4, take, &cost, &err), 1);
    cr_assert(take[0] == 0 && take[1] == 1);
    cr_assert_float_eq(cost, 2, 1e-12);
    /* free nodes (no job on them) first; short of the deficit: everything comes back */
    struct loan_loaned m[3] = { { 2, 5 }, { 2, 0 }, { 1, 0 } };
    cr_assert_eq(loan_reclaim(m, 3, 3, take, &cost, &err), 2);
    cr_assert(take[0] == 0 && take[1] == 1 && take[2] == 1);
    cr_assert_float_eq(cost, 0, 1e-12);
    cr_assert_eq(loan_reclaim(m, 3, 9, take, &cost, &err), 3);
    cr_assert_float_eq(cost, 5, 1e-12);
    cr_assert_eq(loan_reclaim(m, 3, 0, take, &cost, &err), 0);
}

Test(loan, reclaim_matches_brute_force)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 25);
    struct errbuf err;
    err_clear(&err);
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, 10);
        struct loan_loaned nodes[10];
        int total = 0;
        for (int i = 0; i < n; i++) {
            nodes[i].cap = (int)gsl_rng_uniform_int(r, 6);
            /* a few equal costs, to exercise ties */
            nodes[i].cost = (double)gsl_rng_uniform_int(r, 8) * 0.5;
            total += nodes[i].cap;
        }
        int deficit = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)(total > 0 ? total : 1));
        if (deficit > total)
            continue;
        double best = INFINITY;
        int best_k = 0;
        for (unsigned s = 0; s < 1u << n; s++) {
            int cap = 0, k = 0;
            double c = 0;
            for (int i = 0; i < n; i++)
                if (s >> i & 1) {
                    cap += nodes[i].cap;
                    c += nodes[i].cost;
                    k++;
                }
            if (cap >= deficit && (c < best - 1e-12 || (fabs(c - best) <= 1e-12 && k < best_k))) {
                best = c;
                best_k = k;
            }
        }
        int take[10];
        double cost;
        int k = loan_reclaim(nodes, n, deficit, take, &cost, &err);
        int cap = 0;
        double sum = 0;
        for (int i = 0; i < n; i++)
            if (take[i]) {
                cap += nodes[i].cap;
                sum += nodes[i].cost;
            }
        cr_assert_geq(cap, deficit, "trial %d: the reclaimed nodes give %d of %d", trial, cap,
                      deficit);
        cr_assert_float_eq(sum, cost, 1e-9, "trial %d: reported cost %g, taken %g", trial, cost,
                           sum);
        cr_assert_float_eq(cost, best, 1e-9, "trial %d: cost %g, brute force %g", trial, cost,
                           best);
        cr_assert_eq(k, best_k, "trial %d: %d nodes, brute force %d", trial, k, best_k);
    }
    gsl_rng_free(r);
}

Test(loan, grow_hand_case)
{
    /* 3 GPUs on loan: 1 to job 0 (+5) and 2 to job 1 (+5.5) beat every other split */
    double v0[] = { 0, 5, 6, 6.5 }, v1[] = { 0, 3, 5.5, 7 };
    const double *v[] = { v0, v1 };
    int extra[] = { 3, 3 }, x[2];
    struct errbuf err;
    err_clear(&err);
    cr_assert_float_eq(loan_grow(v, extra, 2, 3, x, &err), 10.5, 1e-12);
    cr_assert(x[0] == 1 && x[1] == 2, "x = (%d, %d)", x[0], x[1]);
    /* a job's cap on its extra GPUs holds even with GPUs left over */
    int small[] = { 1, 0 };
    cr_assert_float_eq(loan_grow(v, small, 2, 3, x, &err), 5, 1e-12);
    cr_assert(x[0] == 1 && x[1] == 0);
}

Test(loan, grow_matches_brute_force)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    struct errbuf err;
    err_clear(&err);
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, 5), gpus = (int)gsl_rng_uniform_int(r, 9);
        double vals[5][4];
        const double *v[5];
        int extra[5];
        for (int j = 0; j < n; j++) {
            extra[j] = (int)gsl_rng_uniform_int(r, 4);
            vals[j][0] = gsl_rng_uniform(r);        /* a baseline the gain is measured from */
            for (int k = 1; k <= 3; k++)            /* not concave, not even increasing */
                vals[j][k] = vals[j][0] + 4 * gsl_rng_uniform(r) - 1;
            v[j] = vals[j];
        }
        /* brute force over every (x_0 .. x_n-1) */
        double best = 0;
        int idx[5] = { 0 };
        for (;;) {
            int used = 0;
            double g = 0;
            for (int j = 0; j < n; j++) {
                used += idx[j];
                g += vals[j][idx[j]] - vals[j][0];
            }
            if (used <= gpus && g > best)
                best = g;
            int j = 0;
            while (j < n && idx[j] == extra[j])
                idx[j++] = 0;
            if (j == n)
                break;
            idx[j]++;
        }
        int x[5];
        double got = loan_grow(v, extra, n, gpus, x, &err);
        int used = 0;
        double g = 0;
        for (int j = 0; j < n; j++) {
            cr_assert(x[j] >= 0 && x[j] <= extra[j], "trial %d: x[%d] = %d of %d", trial, j,
                      x[j], extra[j]);
            used += x[j];
            g += vals[j][x[j]] - vals[j][0];
        }
        cr_assert_leq(used, gpus, "trial %d: %d GPUs of %d", trial, used, gpus);
        cr_assert_float_eq(g, got, 1e-9, "trial %d", trial);
        cr_assert_float_eq(got, best, 1e-9, "trial %d: %g, brute force %g", trial, got, best);
    }
    gsl_rng_free(r);
}

Test(loan, type_scores_are_training_gain_over_serving_loss)
{
    /* gains 1, 0.8, 0.5 and serving 10, 4, 1 per GPU: (1/1, 0.8/0.4, 0.5/0.1) */
    double gain[] = { 2, 1.6, 1 }, cap[] = { 10, 4, 1, }, s[3];
    loan_type_scores(gain, cap, 3, s);
    cr_assert_float_eq(s[0], 1, 1e-12);
    cr_assert_float_eq(s[1], 2, 1e-12);
    cr_assert_float_eq(s[2], 5, 1e-12);
    /* a type serving cannot use goes first; one training gains nothing on, never */
    double gain2[] = { 1, 0 }, cap2[] = { 0, 1 };
    loan_type_scores(gain2, cap2, 2, s);
    cr_assert(isinf(s[0]) && s[0] > 0);
    cr_assert_float_eq(s[1], 0, 1e-12);
}
