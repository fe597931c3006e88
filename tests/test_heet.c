/*
 * test_heet: Heet's mechanisms (sched/elastic/heet.h) against values computed by hand — the
 * slot size from GPUs per active job, the matching weight R t(s)^2 / t(1), the two trading
 * prices — and the policy's matching against brute force: on views built by hand (toy job
 * types measured on one host each of T4, A10 and V100, so that every rate is the table's),
 * every assignment of jobs to slots is enumerated with the weight written out here, and the
 * GPU type heet gives each job matched in the unique optimum must be that optimum's.
 * (tests/test_elastic_jobs.c checks the trading and the properties of whole runs.)
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/elastic/heet.h"
#include "../sched/policy.h"
#include "helpers.h"

Test(heet, slot_size_by_hand)
{
    /* r = GPUs / active jobs: s = 1 if r <= 1.5, 4 if r >= 3, else 2; at most kmax */
    cr_assert_eq(heet_slot_size(12, 3, 4), 4);     /* r = 4 */
    cr_assert_eq(heet_slot_size(12, 4, 4), 4);     /* r = 3: the boundary is 4 */
    cr_assert_eq(heet_slot_size(12, 5, 4), 2);     /* r = 2.4 */
    cr_assert_eq(heet_slot_size(12, 7, 4), 2);     /* r = 1.71 */
    cr_assert_eq(heet_slot_size(12, 8, 4), 1);     /* r = 1.5: the boundary is 1 */
    cr_assert_eq(heet_slot_size(12, 20, 4), 1);    /* r = 0.6 */
    cr_assert_eq(heet_slot_size(12, 3, 2), 2);     /* 4, capped at kmax */
    cr_assert_eq(heet_slot_size(12, 5, 1), 1);
    cr_assert_eq(heet_slot_size(12, 0, 4), 4);     /* nobody active */
}

Test(heet, matching_weight_by_hand)
{
    /* R = 100 iterations; 2 it/s on one GPU (t(1) = 0.5 s), 4 it/s on the slot (t(s) =
     * 0.25 s): w = 100 x 0.25^2 / 0.5 = 12.5 */
    cr_assert_float_eq(heet_weight(100, 2, 4), 12.5, 1e-12);
    /* a job that does not speed up: t(s) = t(1) = 0.1 s, w = R t(1) = 50 x 0.1 = 5 */
    cr_assert_float_eq(heet_weight(50, 10, 10), 5, 1e-12);
    /* one that slows down on the slot (t(1) = 1/3 s, t(s) = 1/2 s): 30 x 0.25 / (1/3) =
     * 22.5, heavier than on one GPU (30 x 1/3 = 10) */
    cr_assert_float_eq(heet_weight(30, 3, 2), 22.5, 1e-12);
    /* the weight is linear in R and falls with the square of the speed-up */
    cr_assert_float_eq(heet_weight(200, 2, 4), 2 * heet_weight(100, 2, 4), 1e-12);
    cr_assert_float_eq(heet_weight(100, 2, 8), heet_weight(100, 2, 4) / 4, 1e-12);
    /* a type it cannot run on has no edge */
    cr_assert(isinf(heet_weight(100, 0, 4)) && heet_weight(100, 0, 4) > 0);
    cr_assert(isinf(heet_weight(100, 2, 0)));
}

Test(heet, trading_prices_by_hand)
{
    /* DenseNet-121 at batch 64 on T4 (tests/test_elastic_jobs.c's case): 10.31 it/s on one,
     * 10.75 on two.  Giving up the second: p1 = 2 (10.75 - 10.31) / 10.75 = 0.081860; the
     * waiting job's bid: p2 = 10.31 / 10.75 = 0.959070; p1 <= p2, the GPU moves */
    cr_assert_float_eq(heet_price_donor(10.75, 10.31), 0.0818604651162791, 1e-12);
    cr_assert_float_eq(heet_price_taker(10.31, 10.75), 0.9590697674418605, 1e-12);
    /* ResNet-152 at batch 512: 2.74 -> 4.50; p1 = 2 x 1.76 / 4.5 = 0.782222 > p2 = 0.608889 */
    cr_assert_float_eq(heet_price_donor(4.5, 2.74), 0.7822222222222222, 1e-12);
    cr_assert_float_eq(heet_price_taker(2.74, 4.5), 0.6088888888888889, 1e-12);
    cr_assert_eq(heet_price_donor(0, 0), 0);
}

/* ---- the matching against brute force ---- */

enum { NT = 3, NJT = 4, KMAX = 4, MAXJ = 8 };

/* toy types, iterations/s on 1-4 GPUs of T4, A10, V100 (one host each, its own link):
 * linear-ish, flat, one that slows down beyond two GPUs, one that only V100 suits */
static const char *const jt_names[NJT] = { "toy-lin", "toy-flat", "toy-slow", "toy-v100" };
static const double rates[NJT][NT][KMAX] = {
    { { 10, 19, 27, 34 }, { 20, 38, 54, 68 }, { 30, 55, 75, 90 } },
    { { 10, 11, 11.5, 11.8 }, { 18, 20, 21, 21.5 }, { 25, 27, 28, 28.5 } },
    { { 8, 12, 11, 10 }, { 15, 22, 21, 19 }, { 20, 30, 28, 26 } },
    { { 5, 9, 12, 14 }, { 10, 18, 25, 30 }, { 40, 78, 110, 140 } },
};
static const char *const gpu_names[NT] = { "T4", "A10", "V100" };

static catalog *hcat;
static tput *hm;
static cluster *hcl;

static void hsetup(void)
{
    struct errbuf err;
    err_clear(&err);
    hcat = th_catalog();
    char types[4096], prof[8192];
    size_t at = (size_t)snprintf(types, sizeof types, "{ \"job_types\": [\n");
    for (int t = 0; t < NJT; t++)
        at += (size_t)snprintf(types + at, sizeof types - at,
                               "%s{ \"name\": \"%s\", \"batch\": 64, \"scaling\": \"strong\", "
                               "\"precision\": \"fp32\", \"params_m\": 10, "
                               "\"gflops_per_sample\": 1, \"efficiency\": 0.5, \"mem_gb\": 2 }\n",
                               t ? "," : "", jt_names[t]);
    snprintf(types + at, sizeof types - at, "] }\n");
    at = (size_t)snprintf(prof, sizeof prof, "job_type,gpu,workers,placement,iters_per_s\n");
    for (int t = 0; t < NJT; t++)
        for (int g = 0; g < NT; g++)
            for (int n = 1; n <= KMAX; n++)
                at += (size_t)snprintf(prof + at, sizeof prof - at, "%s,%s,%d,consolidated,%g\n",
                                       jt_names[t], gpu_names[g], n, rates[t][g][n - 1]);
    char *tp = th_write("heet_toy_types.json", types);
    char *pp = th_write("heet_toy_profile.csv", prof);
    cr_assert_eq(tput_create(&hm, hcat, &err), 0);
    cr_assert_eq(tput_load_types(hm, tp, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_load_profile(hm, pp, &err), 0, "%s", err.msg);
    free(tp);
    free(pp);
    hcl = th_cluster(hcat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                           "{\"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 4, "
                           "\"intra\": \"pcie3\"},"
                           "{\"count\": 1, \"gpu\": \"A10\", \"gpus_per_node\": 4, "
                           "\"intra\": \"pcie4\"},"
                           "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4, "
                           "\"intra\": \"nvlink2\"}]}");
}

static void hteardown(void)
{
    cluster_destroy(hcl);
    tput_destroy(hm);
    catalog_destroy(hcat);
}

struct inst {
    int    njobs, jt[MAXJ];
    double work[MAXJ];
};

/* The assignment of jobs to slot types (-1: none) of most jobs, then least total weight,
 * over every assignment; *unique is 0 when another of as many jobs is within 1e-9. */
struct brute {
    double w[MAXJ][NT];     /* INFINITY: no edge */
    int    cap[NT], njobs;
    int    cur[MAXJ], best[MAXJ], best_n, second_n;
    double best_w, second_w;
};

static void enumerate(struct brute *b, int j, int used[NT], int n, double w)
{
    if (j == b->njobs) {
        int better = n > b->best_n || (n == b->best_n && w < b->best_w);
        if (better) {
            b->second_n = b->best_n;
            b->second_w = b->best_w;
            b->best_n = n;
            b->best_w = w;
            memcpy(b->best, b->cur, sizeof b->best);
        } else if (n > b->second_n || (n == b->second_n && w < b->second_w)) {
            b->second_n = n;
            b->second_w = w;
        }
        return;
    }
    b->cur[j] = -1;
    enumerate(b, j + 1, used, n, w);
    for (int i = 0; i < NT; i++) {
        if (used[i] >= b->cap[i] || isinf(b->w[j][i]))
            continue;
        used[i]++;
        b->cur[j] = i;
        enumerate(b, j + 1, used, n + 1, w + b->w[j][i]);
        used[i]--;
    }
}

static uint64_t xs = 88172645463325252u;
static unsigned pick(unsigned n)
{
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return (unsigned)(xs % n);
}

Test(heet, matching_equals_brute_force_on_hand_built_views, .init = hsetup, .fini = hteardown)
{
    const int *types;
    int nt = cluster_types(hcl, &types);
    cr_assert_eq(nt, NT);
    int row[NT];                        /* the rates' row of each cluster type slot */
    for (int i = 0; i < NT; i++) {
        row[i] = -1;
        for (int g = 0; g < NT; g++)
            if (types[i] == catalog_gpu_find(hcat, gpu_names[g]))
                row[i] = g;
        cr_assert_geq(row[i], 0);
    }
    int checked = 0, ambiguous = 0, sizes_seen[KMAX + 1] = { 0 };
    for (int it = 0; it < 140; it++) {
        struct inst in = { .njobs = 2 + it % 7 };
        struct train_job jobs[MAXJ];
        for (int j = 0; j < in.njobs; j++) {
            in.jt[j] = (int)pick(NJT);
            in.work[j] = 1000.0 * (1 + pick(50));
            jobs[j] = (struct train_job){ .jtype = tput_find(hm, jt_names[in.jt[j]]),
                                          .workers = 1, .min_workers = 1, .max_workers = KMAX,
                                          .work = in.work[j], .weight = 1, .state = JOB_QUEUED,
                                          .first_start = -1, .gpu_type = -1 };
        }
        /* by hand: 12 GPUs over the active jobs gives s; each type makes 4 / s slots */
        double r = 12.0 / in.njobs;
        int s = r <= 1.5 ? 1 : r >= 3 ? 4 : 2;
        sizes_seen[s]++;
        struct brute b = { .njobs = in.njobs, .best_n = -1, .second_n = -1,
                           .best_w = INFINITY, .second_w = INFINITY };
        for (int i = 0; i < NT; i++) {
            b.cap[i] = 4 / s;
            for (int j = 0; j < in.njobs; j++) {
                const double *th = rates[in.jt[j]][row[i]];
                int use = 1;            /* the count of the slot it uses: fastest, ties fewer */
                for (int n = 2; n <= s; n++)
                    if (th[n - 1] > th[use - 1])
                        use = n;
                double t1 = 1 / th[0], ts = 1 / th[use - 1];
                b.w[j][i] = in.work[j] * ts * ts / t1;
            }
        }
        int used[NT] = { 0 };
        enumerate(&b, 0, used, 0, 0);
        if (b.second_n == b.best_n && b.second_w <= b.best_w * (1 + 1e-9)) {
            ambiguous++;
            continue;
        }
        /* the policy on the same view */
        struct th_view tv;
        th_view_init(&tv, hcl, hm, jobs, in.njobs, 600, 120, 30);
        struct errbuf err;
        err_clear(&err);
        policy *p;
        struct policy_env env = { 1, hcl, hm, NULL, 0 };
        jsonf *doc;
        struct jobj pj;
        const char *params = "{\"oracle\": true}";
        cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
        cr_assert_eq(policy_open(&p, "heet", &pj, &env, &err), 0, "%s", err.msg);
        struct grant_list out;
        grant_list_init(&out);
        cr_assert_eq(policy_train_decide(p, tv.v, &out, &err), 0, "%s", err.msg);
        for (int j = 0; j < in.njobs; j++) {
            if (b.best[j] < 0)
                continue;           /* unmatched: the leftover GPUs' rules decide */
            int got = -1;
            for (size_t k = 0; k < out.n; k++)
                if (out.g[k].slot == j && out.g[k].ngpu > 0)
                    got = cluster_gpu_type(hcl, grant_ids(&out, &out.g[k])[0]);
            cr_assert_eq(got, types[b.best[j]],
                         "instance %d (%d jobs, slots of %d): job %d (%s, R %g) on %s, the "
                         "optimum puts it on %s", it, in.njobs, s, j, jt_names[in.jt[j]],
                         in.work[j], got >= 0 ? catalog_gpu(hcat, got)->name : "nothing",
                         catalog_gpu(hcat, types[b.best[j]])->name);
        }
        grant_list_fini(&out);
        policy_close(p);
        jsonf_destroy(doc);
        th_view_fini(&tv);
        checked++;
    }
    cr_log_info("heet matching: %d instances checked, %d with tied optima skipped", checked,
                ambiguous);
    cr_assert_geq(checked, 120, "only %d of 140 instances had a unique optimum", checked);
    for (int s = 1; s <= KMAX; s *= 2)
        cr_assert_gt(sizes_seen[s], 0, "no instance with slots of %d", s);
}
