/*
 * test_keepocc: the kept occupancy against brute force — after random holds, frees and
 * priority changes, each decision's placements (several, before keepocc_settle) must take the
 * very GPUs occ_alloc(OCC_PACK) takes on an occupancy cleared and re-taken holder by holder in
 * (queue, id) order, as a FULL plan does.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/keepocc.h"
#include "../sim/base/rng.h"
#include "../sim/core/occ.h"
#include "helpers.h"

TestSuite(keepocc);

struct holder {
    int     q;
    int64_t id;
    int     n;
    int     gpus[16];
};

static int cmp_holder(const void *a, const void *b)
{
    const struct holder *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

Test(keepocc, placements_equal_a_replay_in_priority_order)
{
    catalog *cat = th_catalog();
    cluster *cl = th_cluster(cat,
        "{ \"name\": \"c\", \"network\": \"ib-100g\", \"groups\": [\n"
        " { \"count\": 4, \"gpu\": \"V100\", \"gpus_per_node\": 2 },\n"
        " { \"count\": 3, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
        " { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 8 },\n"
        " { \"count\": 5, \"gpu\": \"T4\", \"gpus_per_node\": 1 },\n"
        " { \"count\": 2, \"gpu\": \"T4\", \"gpus_per_node\": 4 } ] }");
    const int *types;
    int nt = cluster_types(cl, &types);
    keepocc *k = keepocc_create(cl);
    occ *o = occ_create(cl);
    cr_assert(k && o);
    struct holder h[128];
    int nh = 0, placed = 0, deep = 0;
    int64_t next_id = 0;
    gsl_rng *r = rng_stream(3, "test-keepocc");
    for (int round = 0; round < 3000; round++) {
        /* between decisions: some holders leave, some change queue */
        for (int i = 0; i < nh; i++) {
            double u = gsl_rng_uniform(r);
            if (u < 0.15) {
                keepocc_free(k, h[i].gpus, h[i].n);
                h[i--] = h[--nh];
            } else if (u < 0.25) {
                h[i].q += 1 + (int)gsl_rng_uniform_int(r, 2);
                keepocc_rekey(k, h[i].gpus, h[i].n, h[i].q, h[i].id);
            }
        }
        /* the FULL plan's state after its keepers */
        qsort(h, (size_t)nh, sizeof *h, cmp_holder);
        occ_clear(o);
        for (int i = 0; i < nh; i++)
            occ_take(o, h[i].gpus, h[i].n, OCC_WHOLE);
        /* this decision's newcomers, in pick order */
        int nnew = 1 + (int)gsl_rng_uniform_int(r, 4);
        for (int m = 0; m < nnew && nh < 128; m++) {
            int s = (int)gsl_rng_uniform_int(r, (unsigned long)nt), f = occ_free_whole(o, types[s]);
            if (f == 0)
                continue;
            int n = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)(f < 12 ? f : 12));
            struct holder x = { .q = (int)gsl_rng_uniform_int(r, 3), .id = next_id++, .n = n };
            int want[16];
            cr_assert_eq(occ_alloc(o, types[s], n, OCC_PACK, want), 0);
            cr_assert_eq(keepocc_place(k, s, n, x.q, x.id, x.gpus), 0);
            cr_assert(memcmp(want, x.gpus, (size_t)n * sizeof *want) == 0,
                      "round %d: %d GPUs of type slot %d on other GPUs than the replay's",
                      round, n, s);
            placed++;
            deep += m > 0;
            h[nh++] = x;
        }
        keepocc_settle(k);
        for (int g = 0; g < cluster_ngpus(cl); g++)
            cr_assert_eq(keepocc_held(k, g), occ_used(o, g) > 0);
        /* the cluster drained now and then, so that nodes go back to the untouched order */
        if (round % 500 == 499) {
            for (int i = 0; i < nh; i++)
                keepocc_free(k, h[i].gpus, h[i].n);
            nh = 0;
        }
    }
    cr_assert_gt(placed, 3000);
    cr_assert_gt(deep, 1000);
    /* too many GPUs: -1, nothing changed */
    int ids[64];
    cr_assert_eq(keepocc_place(k, 0, 1000, 0, next_id, ids), -1);
    gsl_rng_free(r);
    occ_destroy(o);
    keepocc_destroy(k);
    cluster_destroy(cl);
    catalog_destroy(cat);
}
