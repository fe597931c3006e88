/*
 * test_rate_memo: the training world's memo of best-placement rates (sim/train/rate_memo.h)
 * against the direct computation, on every (job type, workers, GPU type) of shipped clusters:
 * filled in one order and read back in another, so that an entry kept under the wrong key,
 * or a stale one, shows as a wrong rate.  Also: what cannot run is 0, and the view's
 * train_view_rate answers the same with and without the memo.  (Whole runs, which use the
 * world's memo, are held to their reference rows by test_golden.)
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../sim/base/path.h"
#include "../sim/train/rate_memo.h"
#include "../sim/train/train_view.h"
#include "helpers.h"

TestSuite(rate_memo, .init = th_models_init, .fini = th_models_fini);

static cluster *shipped(const char *name)
{
    char path[PATH_MAX_LEN];
    cr_assert_eq(path_named(path, sizeof path, "clusters", name), 0, "no cluster %s", name);
    struct errbuf err;
    err_clear(&err);
    cluster *cl = NULL;
    cr_assert_eq(cluster_load(&cl, th_cat, path, &err), 0, "%s", err.msg);
    return cl;
}

/* Every (job type, GPU type, n) with n = 0 .. count + 1, through the memo (twice, the second
 * time in reverse) and directly; returns how many cells could run (rate > 0). */
static long check_cluster(const char *name)
{
    cluster *cl = shipped(name);
    rate_memo *m = rate_memo_create(cl, th_m);
    cr_assert_not_null(m);
    const int *types;
    int nt = cluster_types(cl, &types), njt = tput_ntypes(th_m);
    long positive = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int jj = 0; jj < njt; jj++)
            for (int ti = 0; ti < nt; ti++) {
                int jt = pass ? njt - 1 - jj : jj, g = types[pass ? nt - 1 - ti : ti];
                int count = cluster_type_count(cl, g);
                for (int k = 0; k <= count + 1; k++) {
                    int n = pass ? count + 1 - k : k;
                    double want = rate_memo_compute(cl, th_m, jt, g, n);
                    double got = rate_memo_get(m, jt, g, n);
                    cr_assert(got == want, "%s: job type %d, GPU %d, %d workers, pass %d: memo "
                              "%.17g, direct %.17g", name, jt, g, n, pass, got, want);
                    if (n < 1 || n > count)
                        cr_assert(want == 0);
                    if (pass == 0 && want > 0)
                        positive++;
                }
            }
    /* a GPU type the cluster does not have (any catalog id outside its types) runs nothing */
    for (int g = 0; g < catalog_ngpus(th_cat); g++)
        if (cluster_type_slot(cl, g) < 0)
            cr_assert(rate_memo_get(m, 0, g, 1) == 0);
    rate_memo_destroy(m);
    cluster_destroy(cl);
    return positive;
}

Test(rate_memo, every_cell_of_shipped_clusters_matches_the_direct_rate)
{
    static const char *const names[] = { "alibaba_pai2020", "mixed_a100_v100_t4", "gavel_108",
                                         "fft_t4_v100_a10" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        cr_assert_gt(check_cluster(names[i]), 100, "%s: too few runnable cells to mean much",
                     names[i]);
}

Test(rate_memo, the_view_answers_the_same_with_and_without_it)
{
    cluster *cl = shipped("mixed_a100_v100_t4");
    rate_memo *m = rate_memo_create(cl, th_m);
    cr_assert_not_null(m);
    struct train_view plain = { .cl = cl, .model = th_m };
    struct train_view memo = { .cl = cl, .model = th_m, .rates = m };
    const int *types;
    int nt = cluster_types(cl, &types);
    for (int round = 0; round < 2; round++)
        for (int jt = 0; jt < tput_ntypes(th_m); jt++)
            for (int w = 1; w <= 16; w++) {
                struct train_job j = { .jtype = jt, .workers = w };
                for (int i = 0; i < nt; i++)
                    cr_assert(train_view_rate(&memo, &j, types[i], w) ==
                              train_view_rate(&plain, &j, types[i], w),
                              "job type %d, %d workers, type %d", jt, w, types[i]);
            }
    rate_memo_destroy(m);
    cluster_destroy(cl);
}
