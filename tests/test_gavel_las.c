/*
 * test_gavel_las: Gavel's LP policies (gavel_las, gavel_las_perf, gavel_ftf) and fifo_perf's
 * Gavel allocation, on hand-built allocation problems — optimality against brute force on
 * small instances, capacity and row constraints, Pareto efficiency of the two-phase max-min,
 * the agnostic variant's proportional split, and fifo_perf's order rule.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "../sched/alloc.h"
#include "../sim/base/rng.h"
#include "helpers.h"

static catalog *cat;
static cluster *cl;

/* 4 K80 + 3 P100 + 2 V100 (one GPU per node, like Gavel's cluster) */
static void setup(void)
{
    cat = th_catalog();
    cl = th_cluster(cat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                         "{\"count\": 4, \"gpu\": \"K80\", \"gpus_per_node\": 1},"
                         "{\"count\": 3, \"gpu\": \"P100\", \"gpus_per_node\": 1},"
                         "{\"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 1}]}");
}

static void teardown(void)
{
    cluster_destroy(cl);
    catalog_destroy(cat);
}

TestSuite(gavel_las, .init = setup, .fini = teardown);

struct prob {
    struct alloc_problem p;
    int64_t id[8];
    int     scale[8], user[8], cur[8];
    double  weight[8], thr[8 * 3], work[8], rem[8], age[8], att[8], restore[8];
};

static void make_problem(struct prob *q, int J, gsl_rng *r)
{
    memset(q, 0, sizeof *q);
    const int *types;
    q->p.ntypes = cluster_types(cl, &types);
    for (int t = 0; t < q->p.ntypes; t++) {
        q->p.types[t] = types[t];
        q->p.cap[t] = cluster_type_count(cl, types[t]);
    }
    q->p.njobs = J;
    for (int j = 0; j < J; j++) {
        q->id[j] = j;
        q->scale[j] = gsl_rng_uniform(r) < 0.7 ? 1 : 2;
        q->weight[j] = 1;
        q->cur[j] = -1;
        q->work[j] = 1e4;
        q->rem[j] = 1e3 + 9e3 * gsl_rng_uniform(r);
        q->age[j] = 1e4 * gsl_rng_uniform(r);
        double base = 1 + 9 * gsl_rng_uniform(r);
        for (int t = 0; t < q->p.ntypes; t++)   /* K80 < P100 < V100, with spread */
            q->thr[j * q->p.ntypes + t] = base * (1 + t) * (0.5 + gsl_rng_uniform(r));
        if (gsl_rng_uniform(r) < 0.2)
            q->thr[j * q->p.ntypes] = 0;       /* cannot run on K80 */
    }
    q->p.id = q->id;
    q->p.scale = q->scale;
    q->p.user = q->user;
    q->p.weight = q->weight;
    q->p.thr = q->thr;
    q->p.work = q->work;
    q->p.remaining = q->rem;
    q->p.age_s = q->age;
    q->p.attained_s = q->att;
    q->p.cur_type = q->cur;
    q->p.restore_s = q->restore;
}

static void *open_policy(const char *name)
{
    struct errbuf err;
    err_clear(&err);
    const struct policy_ops *ops = policy_find(name);
    cr_assert_not_null(ops);
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    struct jobj none = { 0 };
    void *self;
    cr_assert_eq(ops->create(&self, &none, &env, &err), 0, "%s", err.msg);
    return self;
}

/* the max-min objective of gavel_las_perf for allocation x */
static double maxmin_value(const struct alloc_problem *p, const double *x)
{
    double N = 0, worst = INFINITY;
    for (int t = 0; t < p->ntypes; t++)
        N += p->cap[t];
    for (int j = 0; j < p->njobs; j++) {
        double P = 0, v = 0;
        for (int t = 0; t < p->ntypes; t++) {
            P += p->thr[j * p->ntypes + t] * p->cap[t] / N;
            v += p->thr[j * p->ntypes + t] * p->scale[j] * x[j * p->ntypes + t];
        }
        worst = fmin(worst, v / (p->weight[j] * P));
    }
    return worst;
}

/* brute force: every x on a grid of step 1/k per entry, feasible ones only */
static double grid_best(const struct alloc_problem *p, int k, double (*value)(const struct alloc_problem *, const double *))
{
    int J = p->njobs, T = p->ntypes, n = J * T;
    double x[24], best = -INFINITY;
    int idx[24] = { 0 };
    for (;;) {
        for (int c = 0; c < n; c++)
            x[c] = (double)idx[c] / k;
        struct errbuf e;
        err_clear(&e);
        if (alloc_check(p, x, 1e-12, &e) == 0) {
            double v = value(p, x);
            if (v > best)
                best = v;
        }
        int c = 0;
        while (c < n && ++idx[c] > k)
            idx[c++] = 0;
        if (c == n)
            break;
    }
    return best;
}

Test(gavel_las, maxmin_matches_brute_force)
{
    gsl_rng *r = rng_stream(11, "gavel-las-test");
    const struct policy_ops *ops = policy_find("gavel_las_perf");
    for (int trial = 0; trial < 12; trial++) {
        struct prob q;
        make_problem(&q, 2, r);        /* 2 jobs x 3 types = 6 entries, grid 1/4 */
        void *self = open_policy("gavel_las_perf");
        double x[8 * 3] = { 0 };
        struct errbuf err;
        err_clear(&err);
        cr_assert_eq(ops->train->allocate(self, &q.p, x, &err), 0, "%s", err.msg);
        cr_assert_eq(alloc_check(&q.p, x, 1e-7, &err), 0, "%s", err.msg);
        double lp = maxmin_value(&q.p, x), grid = grid_best(&q.p, 4, maxmin_value);
        /* the LP optimum is at least as good as any grid point, and the grid gets close */
        cr_assert_geq(lp, grid - 1e-7, "trial %d: LP %g < grid %g", trial, lp, grid);
        double fine = grid_best(&q.p, 8, maxmin_value);
        cr_assert_geq(lp, fine - 1e-7, "trial %d: LP %g < fine grid %g", trial, lp, fine);
        ops->destroy(self);
    }
    gsl_rng_free(r);
}

Test(gavel_las, pareto_efficient_on_top_of_max_min)
{
    /* three identical-speed jobs and plenty of GPUs: max-min alone would accept leaving
     * GPUs idle; the second phase gives every job all of its time */
    gsl_rng *r = rng_stream(3, "pareto");
    struct prob q;
    make_problem(&q, 3, r);
    for (int j = 0; j < 3; j++) {
        q.scale[j] = 1;
        for (int t = 0; t < 3; t++)
            q.thr[j * 3 + t] = 1 + t;
    }
    void *self = open_policy("gavel_las_perf");
    double x[9] = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_find("gavel_las_perf")->train->allocate(self, &q.p, x, &err), 0);
    for (int j = 0; j < 3; j++) {
        double row = x[j * 3] + x[j * 3 + 1] + x[j * 3 + 2];
        cr_assert_float_eq(row, 1, 1e-7, "job %d gets only %g of the time", j, row);
    }
    /* and the fast V100s are used to the full */
    cr_assert_float_eq(x[2] + x[5] + x[8], 2, 1e-7);
    policy_find("gavel_las_perf")->destroy(self);
    gsl_rng_free(r);
}

Test(gavel_las, identical_jobs_get_identical_shares)
{
    gsl_rng *r = rng_stream(5, "same");
    struct prob q;
    make_problem(&q, 6, r);
    for (int j = 1; j < 6; j++) {           /* all like job 0 */
        q.scale[j] = q.scale[0];
        memcpy(&q.thr[j * 3], &q.thr[0], 3 * sizeof(double));
    }
    void *self = open_policy("gavel_las_perf");
    double x[18] = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_find("gavel_las_perf")->train->allocate(self, &q.p, x, &err), 0);
    for (int j = 1; j < 6; j++)
        for (int t = 0; t < 3; t++)
            cr_assert_float_eq(x[j * 3 + t], x[t], 1e-9);
    policy_find("gavel_las_perf")->destroy(self);
    gsl_rng_free(r);
}

Test(gavel_las, agnostic_splits_in_proportion_to_type_size)
{
    gsl_rng *r = rng_stream(7, "agnostic");
    struct prob q;
    make_problem(&q, 8, r);
    void *self = open_policy("gavel_las");
    double x[24] = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_find("gavel_las")->train->allocate(self, &q.p, x, &err), 0, "%s", err.msg);
    cr_assert_eq(alloc_check(&q.p, x, 1e-7, &err), 0, "%s", err.msg);
    for (int j = 0; j < 8; j++)
        for (int t = 1; t < 3; t++)          /* P100 : V100 = 3 : 2 */
            if (q.thr[j * 3 + t] > 0)
                cr_assert_float_eq(x[j * 3 + t] / q.p.cap[t], x[j * 3 + 2] / q.p.cap[2], 1e-9);
    policy_find("gavel_las")->destroy(self);
    gsl_rng_free(r);
}

/* finish-time fairness of x: max over jobs of predicted / isolated completion */
static double g_iso[8];
static double ftf_value(const struct alloc_problem *p, const double *x)
{
    double worst = 0;
    for (int j = 0; j < p->njobs; j++) {
        double v = 0;
        for (int t = 0; t < p->ntypes; t++)
            v += p->thr[j * p->ntypes + t] * x[j * p->ntypes + t];
        double rho = v > 0 ? (p->age_s[j] + p->remaining[j] / v) /
                                 (p->age_s[j] + p->remaining[j] / g_iso[j])
                           : INFINITY;
        worst = fmax(worst, rho);
    }
    return -worst;      /* grid_best maximizes */
}

Test(gavel_las, ftf_matches_brute_force)
{
    gsl_rng *r = rng_stream(13, "ftf-test");
    const struct policy_ops *ops = policy_find("gavel_ftf");
    for (int trial = 0; trial < 8; trial++) {
        struct prob q;
        make_problem(&q, 2, r);
        /* 2 jobs fit (9 GPUs), so each isolated share is the whole time on a proportional
         * split: T_iso = sum_w thr * N_w / N */
        for (int j = 0; j < 2; j++) {
            g_iso[j] = 0;
            for (int t = 0; t < 3; t++)
                g_iso[j] += q.thr[j * 3 + t] * q.p.cap[t] / 9.0;
        }
        void *self = open_policy("gavel_ftf");
        double x[6] = { 0 };
        struct errbuf err;
        err_clear(&err);
        cr_assert_eq(ops->train->allocate(self, &q.p, x, &err), 0, "%s", err.msg);
        cr_assert_eq(alloc_check(&q.p, x, 1e-7, &err), 0, "%s", err.msg);
        double got = -ftf_value(&q.p, x), best = -grid_best(&q.p, 8, ftf_value);
        /* bisection tolerance 1e-4 relative */
        cr_assert_leq(got, best * (1 + 2e-4) + 1e-9, "trial %d: rho %g > brute force %g",
                      trial, got, best);
        ops->destroy(self);
    }
    gsl_rng_free(r);
}

/* gavel_ftf's worst rho of x, with the policy's isolated share (water-filling level L over
 * the jobs' GPU counts, spread over the types by size) */
static double ftf_worst(const struct alloc_problem *p, const double *x)
{
    double N = 0, total = 0, L = INFINITY;
    for (int t = 0; t < p->ntypes; t++)
        N += p->cap[t];
    for (int j = 0; j < p->njobs; j++)
        total += p->scale[j];
    if (total > N) {
        double lo = 0, hi = N;
        for (int it = 0; it < 100; it++) {
            double mid = (lo + hi) / 2, used = 0;
            for (int j = 0; j < p->njobs; j++)
                used += fmin(p->scale[j], mid);
            *(used > N ? &hi : &lo) = mid;
        }
        L = lo;
    }
    double worst = 0;
    for (int j = 0; j < p->njobs; j++) {
        double X = isinf(L) ? 1 : fmin(1, L / p->scale[j]), iso = 0, v = 0;
        for (int t = 0; t < p->ntypes; t++) {
            iso += p->thr[j * p->ntypes + t] * X * p->cap[t] / N;
            v += p->thr[j * p->ntypes + t] * x[j * p->ntypes + t];
        }
        double rho = (p->age_s[j] + p->remaining[j] / v) / (p->age_s[j] + p->remaining[j] / iso);
        worst = fmax(worst, rho);
    }
    return worst;
}

/* gavel_ftf carries its final basis to the next recompute (by job id): across a sequence of
 * changing job sets it must reach the worst rho a fresh instance reaches on each problem
 * alone (both within the bisection's 1e-4), the carried basis changing only which feasible
 * x is returned. */
Test(gavel_las, ftf_carried_basis_answers_as_a_fresh_solve)
{
    gsl_rng *r = rng_stream(17, "ftf-carry");
    const struct policy_ops *ops = policy_find("gavel_ftf");
    void *warm = open_policy("gavel_ftf");
    struct prob q;
    make_problem(&q, 8, r);
    int64_t next_id = 8;
    for (int step = 0; step < 40; step++) {
        /* time passes, work gets done, some jobs leave and newcomers take their place */
        for (int j = 0; j < 8; j++) {
            q.age[j] += 600;
            q.rem[j] *= 0.6 + 0.4 * gsl_rng_uniform(r);
            if (gsl_rng_uniform(r) < 0.25) {
                struct prob fresh;
                make_problem(&fresh, 8, r);
                q.id[j] = next_id++;
                q.scale[j] = fresh.scale[j];
                q.rem[j] = fresh.rem[j];
                q.age[j] = fresh.age[j];
                memcpy(&q.thr[j * 3], &fresh.thr[j * 3], 3 * sizeof(double));
            }
        }
        q.p.njobs = 3 + (int)gsl_rng_uniform_int(r, 6);     /* 3 to 8 jobs this time */
        double xw[24] = { 0 }, xc[24] = { 0 };
        struct errbuf err;
        err_clear(&err);
        cr_assert_eq(ops->train->allocate(warm, &q.p, xw, &err), 0, "%s", err.msg);
        void *cold = open_policy("gavel_ftf");
        cr_assert_eq(ops->train->allocate(cold, &q.p, xc, &err), 0, "%s", err.msg);
        ops->destroy(cold);
        cr_assert_eq(alloc_check(&q.p, xw, 1e-7, &err), 0, "step %d: %s", step, err.msg);
        double rw = ftf_worst(&q.p, xw), rc = ftf_worst(&q.p, xc);
        cr_assert_leq(rw, rc * (1 + 2e-4), "step %d: carried %.9g, fresh %.9g", step, rw, rc);
        cr_assert_leq(rc, rw * (1 + 2e-4), "step %d: carried %.9g, fresh %.9g", step, rw, rc);
        /* the second phase makes the answer the LP's, whatever basis the solve started from
         * (random data: its optimum is unique) */
        for (int c = 0; c < q.p.njobs * 3; c++)
            cr_assert_float_eq(xw[c], xc[c], 1e-6, "step %d entry %d: carried %.9g, fresh %.9g",
                               step, c, xw[c], xc[c]);
    }
    ops->destroy(warm);
    gsl_rng_free(r);
}

Test(gavel_las, fifo_perf_allocation_rule)
{
    /* jobs in id order: each to the fastest type with room, stop at the first that fits
     * nowhere.  Capacities K80 4, P100 3, V100 2. */
    struct prob q;
    gsl_rng *r = rng_stream(1, "fifo-perf");
    make_problem(&q, 5, r);
    int scales[5] = { 2, 1, 2, 4, 1 };
    double thr[5][3] = { { 1, 2, 3 }, { 1, 2, 3 }, { 5, 4, 0 }, { 1, 1, 1 }, { 1, 9, 9 } };
    for (int j = 0; j < 5; j++) {
        q.scale[j] = scales[j];
        memcpy(&q.thr[j * 3], thr[j], sizeof thr[j]);
    }
    void *self = open_policy("fifo_perf");
    double x[15] = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_find("fifo_perf")->train->allocate(self, &q.p, x, &err), 0);
    /* job 0 -> V100 (2 left: 0); job 1 -> P100 (2 left); job 2 -> K80 (5 > 4), 2 left;
     * job 3 needs 4: nothing has 4 left -> stop; job 4 gets nothing although it would fit */
    double want[15] = { 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
    for (int c = 0; c < 15; c++)
        cr_assert_float_eq(x[c], want[c], 0, "entry %d", c);
    policy_find("fifo_perf")->destroy(self);
    gsl_rng_free(r);
}
