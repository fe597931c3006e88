/*
 * test_group: group_rows against a hand-numbered table (first appearance, == on every entry,
 * both zeros alike, NaN never equal), on many rows that differ only in the sign of a zero,
 * and against a quadratic scan on random tables with many repeats.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "../sched/group.h"
#include "../sim/base/rng.h"

Test(group, numbers_rows_by_first_appearance)
{
    const double rows[] = {
        3, 1, 0.5,      /* 0 */
        3, 2, 0.5,      /* 1 */
        3, 1, 0.5,      /* 0 again */
        1, 1, 0.0,      /* 2 */
        1, 1, -0.0,     /* -0 == 0: 2 */
        1, 1, NAN,      /* a NaN equals nothing: 3 */
        1, 1, NAN,      /* and not even itself: 4 */
        3, 2, 0.5,      /* 1 */
    };
    const int want[] = { 0, 1, 0, 2, 2, 3, 4, 1 };
    int got[8];
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(group_rows(rows, 8, 3, got, &err), 5, "%s", err.msg);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(got[i], want[i], "row %d: group %d, want %d", i, got[i], want[i]);
    cr_assert_eq(group_rows(rows, 0, 3, got, &err), 0);
}

Test(group, both_zeros_hash_alike)
{
    /* (i, +0) then (i, -0): equal under ==, so 100 groups of two; a hash of the raw bits
     * would start the second row's probe elsewhere and find an empty slot first */
    enum { N = 100 };
    double rows[2 * N * 2];
    int got[2 * N];
    for (int i = 0; i < N; i++) {
        rows[4 * i] = rows[4 * i + 2] = i;
        rows[4 * i + 1] = 0.0;
        rows[4 * i + 3] = -0.0;
    }
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(group_rows(rows, 2 * N, 2, got, &err), N);
    for (int i = 0; i < N; i++)
        cr_assert_eq(got[2 * i + 1], got[2 * i], "row %d", i);
}

Test(group, agrees_with_a_quadratic_scan)
{
    enum { N = 5000, W = 4 };
    gsl_rng *r = rng_stream(31, "test-group");
    double *rows = malloc(N * W * sizeof *rows);
    int *got = malloc(N * sizeof *got), *want = malloc(N * sizeof *want);
    cr_assert(rows != NULL && got != NULL && want != NULL);
    for (int pass = 0; pass < 3; pass++) {
        /* few distinct values per column: at most 16, 81 or 625 groups */
        unsigned long k = pass == 0 ? 2 : pass == 1 ? 3 : 5;
        for (int i = 0; i < N * W; i++)
            rows[i] = (double)gsl_rng_uniform_int(r, k) / 7;
        int G = 0;
        for (int i = 0; i < N; i++) {
            want[i] = -1;
            for (int j = 0; j < i && want[i] < 0; j++) {
                int same = 1;
                for (int c = 0; c < W && same; c++)
                    same = rows[i * W + c] == rows[j * W + c];
                if (same)
                    want[i] = want[j];
            }
            if (want[i] < 0)
                want[i] = G++;
        }
        struct errbuf err;
        err_clear(&err);
        cr_assert_eq(group_rows(rows, N, W, got, &err), G, "pass %d", pass);
        for (int i = 0; i < N; i++)
            cr_assert_eq(got[i], want[i], "pass %d, row %d", pass, i);
    }
    free(rows);
    free(got);
    free(want);
    gsl_rng_free(r);
}
