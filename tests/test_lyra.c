/*
 * test_lyra: Lyra's job scheduler (sched/elastic/lyra_grow.c), the training policy `lyra`.
 *
 * On hand-built views: a case where the knapsack's answer is neither greedy's by value nor
 * greedy's by speed (two running jobs, two free GPUs: the one whose first extra GPU gains less
 * gets both), and a queued job's base demand taking back a grown job's extra GPUs.  As a
 * property on random small clusters with GPUs withheld as a broker withholds them: every
 * grant is within the job's [min, max] and of one type, no GPU is granted twice or while
 * withheld, and, when nobody waits, the sizes are the knapsack's optimum by brute force over
 * every choice of sizes.  End to end through the CLI and the database: colocate_small with
 * elastic jobs, `lyra` as training's policy under the `loan` broker, grows jobs onto loaned
 * A100s, never past their maximum, and every GPU is held by one tenant at a time.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/base/rng.h"
#include "helpers.h"

#include <gsl/gsl_randist.h>

TestSuite(lyra, .init = th_models_init, .fini = th_models_fini);

#define R50 "ResNet-50 (batch size 64)"
#define TRF "Transformer (batch size 64)"

static policy *open_lyra(const cluster *cl)
{
    struct errbuf err;
    err_clear(&err);
    struct policy_env env = { 1, cl, th_m, NULL, 0 };
    policy *p = NULL;
    cr_assert_eq(policy_open(&p, "lyra", NULL, &env, &err), 0, "%s", err.msg);
    return p;
}

/* The header's value of job j going from `now` GPUs (0: starting at its minimum) to k. */
static double value(const struct train_view *v, const struct train_job *j, int type, int now,
                    int k)
{
    int n = now > 0 ? now : j->min_workers;
    double r = j->work - train_view_done(j, v->now);
    double a = train_view_rate(v, j, type, n), b = train_view_rate(v, j, type, k);
    if (!(b > 0))
        return -HUGE_VAL;
    return r / a - r / b - (now > 0 && k != now ? train_view_restore_s(v, j) : 0);
}

static struct train_job running(int64_t id, const char *type, int gpu_type, int lo, int hi,
                                const int *gpus, int n, double work)
{
    return (struct train_job){ .id = id, .jtype = tput_find(th_m, type), .workers = lo,
                               .min_workers = lo, .max_workers = hi, .weight = 1,
                               .work = work, .state = JOB_RUNNING, .first_start = 0,
                               .ngpu = n, .gpu_type = gpu_type, .share = OCC_WHOLE,
                               .gpus = gpus };
}

/* The GPU count the list gives job `slot`; `held` when the list leaves it alone. */
static int granted(const struct grant_list *l, int slot, int held)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->g[k].slot == slot)
            return l->g[k].ngpu;
    return held;
}

/* One 4 x V100 server; A (Transformer) on GPU 0 with no restart cost, B (ResNet-50) on GPU 1
 * paying 250 s per restart; each may grow to 3.  A has 160 s of work left at 1 GPU, B 700 s.
 * A also speeds up more on a second GPU, so greedy by speed (AFS) starts with A too.
 * A's first extra GPU saves more than B's (B's restart eats most of its gain), so a greedy
 * that hands out GPUs one at a time by value gives A one and B one; B's second saves far more
 * than its first, and the knapsack gives B both. */
Test(lyra, knapsack_gives_both_gpus_to_the_job_greedy_passes_over)
{
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ib-100g\", \"groups\": ["
                             "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4}]}");
    int v100 = cluster_gpu_type(cl, 0);
    static const int g0[] = { 0 }, g1[] = { 1 };
    struct train_job jobs[2] = { running(0, TRF, v100, 1, 3, g0, 1, 1),
                                 running(1, R50, v100, 1, 3, g1, 1, 1) };
    struct th_view tv;
    th_view_init(&tv, cl, th_m, jobs, 2, 100, 0, 0);
    struct train_view *v = tv.v;
    int ntypes = tput_ntypes(th_m);
    double *restore = malloc((size_t)ntypes * sizeof *restore);
    cr_assert_not_null(restore);
    for (int t = 0; t < ntypes; t++)
        restore[t] = -1;
    restore[jobs[0].jtype] = 0;
    restore[jobs[1].jtype] = 250;
    v->restore_by_type = restore;
    jobs[0].work = 160 * train_view_rate(v, &jobs[0], v100, 1);
    jobs[1].work = 700 * train_view_rate(v, &jobs[1], v100, 1);
    /* the hand computation: values of 1 and 2 more GPUs */
    double a1 = value(v, &jobs[0], v100, 1, 2), a2 = value(v, &jobs[0], v100, 1, 3);
    double b1 = value(v, &jobs[1], v100, 1, 2), b2 = value(v, &jobs[1], v100, 1, 3);
    cr_log_info("A +1 %.1f s, +2 %.1f s; B +1 %.1f s, +2 %.1f s", a1, a2, b1, b2);
    /* greedy by value: A's first GPU, then B's first (or A's second): both fall short */
    cr_assert_gt(a1, b1);
    double greedy = a1 + (b1 > a2 - a1 ? b1 : a2 - a1);
    cr_assert_gt(b2, greedy + 1, "the case does not separate the knapsack from greedy");
    cr_assert_gt(b2, a2);
    /* greedy by speed (AFS): the first GPU to the larger gain in throughput per single-GPU
     * throughput, which is A's, not B's */
    double sa = train_view_rate(v, &jobs[0], v100, 2) / train_view_rate(v, &jobs[0], v100, 1),
           sb = train_view_rate(v, &jobs[1], v100, 2) / train_view_rate(v, &jobs[1], v100, 1);
    cr_assert_gt(sa, sb, "greedy by speed would give B the GPU too (%.3f, %.3f)", sa, sb);

    policy *p = open_lyra(cl);
    struct grant_list out;
    grant_list_init(&out);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_train_decide(p, v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(granted(&out, 0, 1), 1, "A was resized");
    cr_assert_eq(granted(&out, 1, 1), 3, "B was not given both free GPUs");
    /* B keeps GPU 1 and takes 2 and 3 */
    for (size_t k = 0; k < out.n; k++)
        if (out.g[k].slot == 1) {
            const int *ids = grant_ids(&out, &out.g[k]);
            int has1 = 0;
            for (int i = 0; i < 3; i++) {
                has1 |= ids[i] == 1;
                cr_assert_neq(ids[i], 0);
            }
            cr_assert(has1);
        }
    grant_list_fini(&out);
    policy_close(p);
    th_view_fini(&tv);
    free(restore);
    cluster_destroy(cl);
}

/* A job that grew to the whole 4-GPU server and a queued rigid job of 2: Lyra's base demands
 * come first, so the grown job shrinks to 2 (keeping GPUs 0 and 1) and the queued one starts
 * on 2 and 3. */
Test(lyra, a_queued_base_demand_takes_back_extra_gpus)
{
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ib-100g\", \"groups\": ["
                             "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4}]}");
    int v100 = cluster_gpu_type(cl, 0);
    static const int g[] = { 0, 1, 2, 3 };
    struct train_job jobs[2] = { running(0, R50, v100, 1, 4, g, 4, 1e6),
                                 { .id = 1, .jtype = tput_find(th_m, TRF), .workers = 2,
                                   .min_workers = 2, .max_workers = 2, .weight = 1,
                                   .work = 1e5, .state = JOB_QUEUED, .first_start = -1,
                                   .gpu_type = -1 } };
    struct th_view tv;
    th_view_init(&tv, cl, th_m, jobs, 2, 100, 0, 30);
    policy *p = open_lyra(cl);
    struct grant_list out;
    grant_list_init(&out);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_train_decide(p, tv.v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(granted(&out, 0, 4), 2);
    cr_assert_eq(granted(&out, 1, 0), 2);
    for (size_t k = 0; k < out.n; k++) {
        const int *ids = grant_ids(&out, &out.g[k]);
        int lo = out.g[k].slot == 0 ? 0 : 2;
        cr_assert(ids[0] + ids[1] == 2 * lo + 1, "job %d got %d, %d", out.g[k].slot, ids[0],
                  ids[1]);
    }
    grant_list_fini(&out);
    policy_close(p);
    th_view_fini(&tv);
    cluster_destroy(cl);
}

/* ---- random views */

enum { NJ = 12 };

/* The best total value of the flexible running jobs of `type` given `free` GPUs beyond their
 * minimums, by trying every choice of sizes. */
static double brute(const struct train_view *v, const struct train_job *jobs, const int *cand,
                    int nc, int type, int free, int i)
{
    if (i == nc)
        return 0;
    const struct train_job *j = &jobs[cand[i]];
    double best = -HUGE_VAL;
    for (int x = 0; x <= j->max_workers - j->min_workers && x <= free; x++) {
        double rest = brute(v, jobs, cand, nc, type, free - x, i + 1);
        double tot = value(v, j, type, j->ngpu, j->min_workers + x) + rest;
        if (tot > best)
            best = tot;
    }
    return best;
}

/* One random view: up to NJ jobs on th_mixed_cluster (8 V100, 8 T4, 8 A100), some running
 * (elastic or rigid) on GPUs of one type, the others waiting (only when `queue`), and a whole
 * random node or two withheld as a broker withholds them; the decision checked. */
static void one_view(const cluster *cl, gsl_rng *r, int queue, int *grew)
{
    static const char *const names[] = { "ResNet-18 (batch size 64)", R50, TRF,
                                         "LM (batch size 20)" };
    int ng = cluster_ngpus(cl);
    occ *o = occ_create(cl), *base = occ_create(cl);
    cr_assert(o != NULL && base != NULL);
    uint8_t withheld[64] = { 0 };
    cr_assert(ng <= 64);
    int lend0 = gsl_rng_uniform(r) < 0.3, lend4 = gsl_rng_uniform(r) < 0.3;
    for (int gpu = 0; gpu < ng; gpu++)         /* node 0 (V100s) or 4 (the A100s) withheld */
        withheld[gpu] = (uint8_t)((cluster_gpu_node(cl, gpu) == 0 && lend0) ||
                                  (cluster_gpu_node(cl, gpu) == 4 && lend4));
    for (int gpu = 0; gpu < ng; gpu++)
        if (withheld[gpu]) {
            occ_take(o, &gpu, 1, OCC_WHOLE);
            occ_take(base, &gpu, 1, OCC_WHOLE);
        }
    static int ids[NJ][8];
    struct train_job jobs[NJ];
    const int *types;
    int nt = cluster_types(cl, &types), n = 0, want = 2 + (int)gsl_rng_uniform_int(r, NJ - 1);
    for (int k = 0; k < want; k++) {
        int lo = 1 + (int)gsl_rng_uniform_int(r, 2), hi = lo + (int)gsl_rng_uniform_int(r, 4);
        if (gsl_rng_uniform(r) < 0.3)
            hi = lo;                            /* rigid */
        struct train_job j = { .id = k, .jtype = tput_find(th_m, names[gsl_rng_uniform_int(r, 4)]),
                               .workers = lo, .min_workers = lo, .max_workers = hi,
                               .weight = 1, .work = 1e3 + gsl_ran_exponential(r, 1e5),
                               .state = JOB_QUEUED, .first_start = -1, .gpu_type = -1 };
        int t = types[gsl_rng_uniform_int(r, (unsigned long)nt)];
        int size = lo + (int)gsl_rng_uniform_int(r, (unsigned long)(hi - lo + 1));
        if (occ_alloc(o, t, size, OCC_PACK, ids[n]) == 0) {
            j.state = JOB_RUNNING;
            j.first_start = 0;
            j.ngpu = size;
            j.gpu_type = t;
            j.share = OCC_WHOLE;
            j.gpus = ids[n];
        } else if (!queue) {
            continue;
        }
        jobs[n++] = j;
    }
    occ_destroy(o);
    struct th_view tv;
    th_view_init(&tv, cl, th_m, jobs, n, 500, 0, 20 + gsl_rng_uniform(r) * 200);
    struct train_view *v = tv.v;
    for (int gpu = 0; gpu < ng; gpu++)
        if (withheld[gpu])
            occ_take((occ *)v->occ, &gpu, 1, OCC_WHOLE);
    v->base = base;
    policy *p = open_lyra(cl);
    struct grant_list out;
    grant_list_init(&out);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_train_decide(p, v, &out, &err), 0, "%s", err.msg);
    /* apply the list: every job's GPUs after the decision */
    int holder[64], size[NJ];
    for (int gpu = 0; gpu < ng; gpu++)
        holder[gpu] = withheld[gpu] ? -2 : -1;
    for (int k = 0; k < n; k++) {
        size[k] = granted(&out, k, jobs[k].ngpu);
        if (granted(&out, k, -1) >= 0)
            continue;
        for (int i = 0; i < jobs[k].ngpu; i++)
            holder[jobs[k].gpus[i]] = k;
    }
    for (size_t k = 0; k < out.n; k++) {
        const struct grant *g = &out.g[k];
        const struct train_job *j = &jobs[g->slot];
        cr_assert(g->ngpu == 0 || (g->ngpu >= j->min_workers && g->ngpu <= j->max_workers),
                  "job %d granted %d outside [%d, %d]", g->slot, g->ngpu, j->min_workers,
                  j->max_workers);
        cr_assert(j->state == JOB_RUNNING || g->ngpu == j->min_workers ||
                  j->max_workers > j->min_workers, "a rigid job started at another size");
        cr_assert(j->state != JOB_RUNNING || g->ngpu > 0, "lyra preempted a job");
        const int *gi = grant_ids(&out, g);
        for (int i = 0; i < g->ngpu; i++) {
            cr_assert_eq(cluster_gpu_type(cl, gi[i]), cluster_gpu_type(cl, gi[0]));
            cr_assert(j->state != JOB_RUNNING || cluster_gpu_type(cl, gi[i]) == j->gpu_type,
                      "job %d moved type", g->slot);
            cr_assert_neq(holder[gi[i]], -2, "job %d granted withheld GPU %d", g->slot, gi[i]);
            cr_assert_eq(holder[gi[i]], -1, "GPU %d granted to jobs %d and %d", gi[i],
                         holder[gi[i]], g->slot);
            holder[gi[i]] = g->slot;
        }
        if (j->state == JOB_RUNNING && g->ngpu > j->ngpu)
            (*grew)++;
    }
    /* nobody waiting: the sizes are the knapsack's optimum, type by type */
    if (!queue)
        for (int t = 0; t < nt; t++) {
            int cand[NJ], nc = 0, pool = 0;
            double got = 0;
            for (int k = 0; k < n; k++)
                if (jobs[k].gpu_type == types[t] && jobs[k].max_workers > jobs[k].min_workers) {
                    cand[nc++] = k;
                    pool += jobs[k].ngpu - jobs[k].min_workers;
                    got += value(v, &jobs[k], types[t], jobs[k].ngpu, size[k]);
                }
            pool += occ_free_whole(v->occ, types[t]);
            double best = brute(v, jobs, cand, nc, types[t], pool, 0);
            cr_assert(fabs(got - best) <= 1e-6 * (1 + fabs(best)),
                      "type %d: the sizes save %.6f s, the best %.6f s", types[t], got, best);
        }
    grant_list_fini(&out);
    policy_close(p);
    v->base = NULL;
    occ_destroy(base);
    th_view_fini(&tv);
}

Test(lyra, random_views_keep_the_ranges_the_free_gpus_and_the_optimum)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    gsl_rng *r = rng_stream(25, "test-lyra");
    int grew = 0;
    for (int i = 0; i < 300; i++)
        one_view(cl, r, i % 2, &grew);
    cr_assert_gt(grew, 20, "only %d growths: the views do not exercise the knapsack", grew);
    gsl_rng_free(r);
    cluster_destroy(cl);
}

/* ---- end to end */

/* colocate_small with elastic jobs ([1, 8] GPUs each), lyra as training's policy */
Test(lyra, grows_elastic_jobs_onto_loaned_gpus_under_loan, .timeout = 180)
{
    char *db = th_write("lyra_colo.db", "");
    remove(db);
    const char *args[] = { "run", "colocate_small", "--db", db, "-q",
                           "--set", "tenants.serving.workload.requests=600",
                           "--set", "tenants.training.workload.jobs=30",
                           "--set", "tenants.training.workload.min_workers=1",
                           "--set", "tenants.training.workload.max_workers=8",
                           "--set", "tenants.training.policies=[\"lyra\"]",
                           "--set", "sim.timeline=true", NULL };
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE policy = 'loan'"), 1);
    int run = (int)th_db_value(db, "SELECT id FROM runs WHERE policy = 'loan'");
    char q[640];
    snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE run_id = %d AND finish_s IS NOT NULL",
             run);
    cr_assert_eq(th_db_value(db, q), 30);
    snprintf(q, sizeof q, "SELECT value FROM metrics WHERE run_id = %d AND name = "
             "'gpu_hours_loaned'", run);
    double loaned = th_db_value(db, q);
    cr_assert_gt(loaned, 0);
    /* a job held more A100s (serving's, so loaned) than its minimum at some time: its A100
     * GPU-seconds exceed its minimum times its whole time from first start to finish */
    snprintf(q, sizeof q, "SELECT count(*) FROM jobs j JOIN job_gpu_seconds g ON g.run_id = "
             "j.run_id AND g.job_id = j.job_id WHERE j.run_id = %d AND g.gpu_type LIKE 'A100%%' "
             "AND g.gpu_s > j.min_workers * (j.finish_s - j.first_start_s) + 1", run);
    cr_assert_gt(th_db_value(db, q), 0, "no job grew on a loaned A100");
    /* never past its maximum: GPU-seconds at most max_workers over its time */
    snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE run_id = %d AND attained_gpu_s > "
             "max_workers * (finish_s - first_start_s) + 1e-6", run);
    cr_assert_eq(th_db_value(db, q), 0);
    /* training's A100 GPU-seconds fit in what it was lent */
    snprintf(q, sizeof q, "SELECT sum(gpu_s) / 3600 FROM job_gpu_seconds WHERE run_id = %d AND "
             "gpu_type LIKE 'A100%%'", run);
    cr_assert_leq(th_db_value(db, q), loaned * (1 + 1e-9));
    /* each GPU's holdings tile [0, end): they sum to the run and never overlap */
    snprintf(q, sizeof q, "SELECT count(*) FROM (SELECT resource, sum(end_s - start_s) s FROM "
             "timeline WHERE run_id = %d GROUP BY resource) WHERE abs(s - (SELECT sim_end_s "
             "FROM runs WHERE id = %d)) > 1e-6", run, run);
    cr_assert_eq(th_db_value(db, q), 0, "a GPU's holdings do not tile the run");
    snprintf(q, sizeof q, "SELECT count(*) FROM timeline a JOIN timeline b ON a.run_id = "
             "b.run_id AND a.resource = b.resource AND a.rowid < b.rowid AND a.start_s < "
             "b.end_s AND b.start_s < a.end_s WHERE a.run_id = %d", run);
    cr_assert_eq(th_db_value(db, q), 0, "two tenants held a GPU at once");
    free(db);
}
