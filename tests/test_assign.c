/*
 * test_assign: the minimum-weight full matching of jobs to kinds of identical slots, against
 * brute force (every assignment of jobs to slots, the largest cardinality, the least weight)
 * on random small instances with forbidden edges, and on cases worked by hand.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "../sched/assign.h"

/* Brute force: the best (pairs, -weight) over every map job -> kind or none. */
static void brute(const double *c, int m, int n, const int *cap, int at, int *used, int pairs,
                  double w, int *bp, double *bw)
{
    if (at == m) {
        if (pairs > *bp || (pairs == *bp && w < *bw)) {
            *bp = pairs;
            *bw = w;
        }
        return;
    }
    brute(c, m, n, cap, at + 1, used, pairs, w, bp, bw);
    for (int t = 0; t < n; t++) {
        if (used[t] >= cap[t] || isinf(c[at * n + t]))
            continue;
        used[t]++;
        brute(c, m, n, cap, at + 1, used, pairs + 1, w + c[at * n + t], bp, bw);
        used[t]--;
    }
}

Test(assign, by_hand)
{
    /* two jobs, one slot each of kinds A and B: crossing costs 1 + 1 beats 0 + 5 */
    double c[] = { 0, 1,
                   1, 5 };
    int cap[] = { 1, 1 }, out[2];
    double w;
    cr_assert_eq(assign_solve(c, 2, 2, cap, out, &w), 2);
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[1], 0);
    cr_assert_float_eq(w, 2, 1e-12);
    /* three jobs, two slots of one kind: the two cheapest */
    double d[] = { 3, 1, 2 };
    int cap1[] = { 2 }, o3[3];
    cr_assert_eq(assign_solve(d, 3, 1, cap1, o3, &w), 2);
    cr_assert_eq(o3[0], -1);
    cr_assert_float_eq(w, 3, 1e-12);
    /* full beats cheap: job 0 alone could take kind 0 for 0, but then job 1 (only kind 0
     * allowed) is left out; the maximum matching moves job 0 to kind 1 */
    double e[] = { 0, 10,
                   1, INFINITY };
    int capc[] = { 1, 1 }, o2[2];
    cr_assert_eq(assign_solve(e, 2, 2, capc, o2, &w), 2);
    cr_assert_eq(o2[0], 1);
    cr_assert_eq(o2[1], 0);
    cr_assert_float_eq(w, 11, 1e-12);
}

Test(assign, matches_brute_force)
{
    unsigned long x = 12345;
    for (int trial = 0; trial < 400; trial++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        int m = 1 + (int)((x >> 33) % 7), n = 1 + (int)((x >> 40) % 3);
        int cap[3], used[3] = { 0 };
        double c[7 * 3];
        for (int t = 0; t < n; t++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            cap[t] = (int)((x >> 35) % 4);
        }
        for (int i = 0; i < m * n; i++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            unsigned r = (unsigned)(x >> 33);
            c[i] = r % 7 == 0 ? INFINITY : (double)(r % 1000) / 7.0;
        }
        int out[7], bp = 0;
        double bw = 0, w;
        brute(c, m, n, cap, 0, used, 0, 0, &bp, &bw);
        int pairs = assign_solve(c, m, n, cap, out, &w);
        cr_assert_eq(pairs, bp, "trial %d: %d pairs, brute force %d", trial, pairs, bp);
        cr_assert_float_eq(w, bw, 1e-9, "trial %d: weight %g, brute force %g", trial, w, bw);
        int cnt[3] = { 0 };
        double sum = 0;
        for (int i = 0; i < m; i++)
            if (out[i] >= 0) {
                cr_assert(!isinf(c[i * n + out[i]]), "trial %d: a forbidden edge", trial);
                cnt[out[i]]++;
                sum += c[i * n + out[i]];
            }
        for (int t = 0; t < n; t++)
            cr_assert_leq(cnt[t], cap[t], "trial %d: kind %d over capacity", trial, t);
        cr_assert_float_eq(sum, w, 1e-9);
    }
}

Test(assign, bad_arguments)
{
    double c[] = { 1 };
    int cap[] = { 1 }, out[1];
    double w;
    cr_assert_eq(assign_solve(c, 1, 0, cap, out, &w), -1);
    cr_assert_eq(assign_solve(c, -1, 1, cap, out, &w), -1);
}
