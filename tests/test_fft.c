/*
 * test_fft: FFT's per-round program and its dual step, through the policy's allocate hook on
 * hand-built problems, and end to end in the training world.
 *  - optimality: random small instances (2-3 types, 3-5 jobs, random throughputs with zeros,
 *    capacities, ages, current types, restore times and rho) against brute-force enumeration
 *    of every assignment, with the objective written out here from the paper's formulas;
 *    with and without work conservation;
 *  - medium instances (10-24 jobs) against the textbook program (binary x, big-M work
 *    conservation per type and job) solved by GLPK directly;
 *  - the cold round's trades (improve()): never dearer than their start, never below the
 *    optimum, and they do improve some incumbents;
 *  - the program kept across rounds (jobs arriving, leaving, changing size; rho carried)
 *    stays at the brute-force optimum every round, and decides as a program built fresh
 *    for the same state does (tight clusters, many jobs outside the program);
 *  - the program's size follows the live jobs (a burst, then a long tail of few jobs);
 *  - a cluster with room for everyone runs everyone without branch and bound;
 *  - the rho update over two rounds against a hand computation;
 *  - work conservation on larger random instances, and that turning it off leaves GPUs idle;
 *  - capacity (alloc_check) on every decision;
 *  - end to end: every job finishes on a mixed cluster, no GPU over-allocated, deterministic.
 */
#include <criterion/criterion.h>
#include <glpk.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/alloc.h"
#include "../sched/policy.h"
#include "../sim/base/rng.h"
#include "../sim/train/train.h"
#include "helpers.h"

/* test hooks of sched/training/fft.c */
extern double fft_rho(void *self, int64_t id);
extern int fft_set_rho(void *self, int64_t id, double rho);
extern void fft_size(void *self, int *rows, int *cols, int *nnz, int *nint, int *nodes);
extern void fft_counts(void *self, int64_t *simplex_calls, int64_t *pivots,
                       int64_t *intopt_calls);
extern void fft_trades(void *self, double *before, double *after, int *tried);
extern int fft_program_jobs(void *self);
extern int fft_knapsack(const int *size, const double *cost, int n, int room, int dmin, int wc,
                        uint8_t *pick);

enum { MAXJ = 64, MAXT = 4 };

TestSuite(fft, .init = th_mixed_init, .fini = th_mixed_fini);

/* ---- a hand-built problem ---- */

struct inst {
    int     J, T;
    double  cap[MAXT], round_s;
    int64_t id[MAXJ];
    int     scale[MAXJ], user[MAXJ], cur[MAXJ];
    double  weight[MAXJ], thr[MAXJ * MAXT], work[MAXJ], rem[MAXJ], age[MAXJ], att[MAXJ],
            restore[MAXJ], rho[MAXJ];
};

static struct alloc_problem problem(const struct inst *in)
{
    struct alloc_problem p;
    memset(&p, 0, sizeof p);
    p.njobs = in->J;
    p.ntypes = in->T;
    for (int t = 0; t < in->T; t++) {
        p.types[t] = t;
        p.cap[t] = in->cap[t];
    }
    p.round_s = in->round_s;
    p.id = in->id;
    p.scale = in->scale;
    p.user = in->user;
    p.weight = in->weight;
    p.thr = in->thr;
    p.work = in->work;
    p.remaining = in->rem;
    p.age_s = in->age;
    p.attained_s = in->att;
    p.cur_type = in->cur;
    p.restore_s = in->restore;
    return p;
}

static void *open_fft(const char *params)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc = NULL;
    struct jobj o = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0, "%s", err.msg);
        cr_assert_eq(jobj_root(&o, doc, &err), 0);
    }
    struct policy_env env = { 1, th_cl, th_m, NULL, 0 };
    void *self = NULL;
    cr_assert_eq(policy_find("fft")->create(&self, &o, &env, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);
    return self;
}

static void close_fft(void *self)
{
    policy_find("fft")->destroy(self);
}

static void allocate(void *self, const struct inst *in, double *x)
{
    struct errbuf err;
    err_clear(&err);
    struct alloc_problem p = problem(in);
    cr_assert_eq(policy_find("fft")->train->allocate(self, &p, x, &err), 0, "%s", err.msg);
    cr_assert_eq(alloc_check(&p, x, 1e-9, &err), 0, "%s", err.msg);
}

/* The paper's per-round cost of job k on type t, in rounds (fft.c's header), written out
 * independently of the policy; HUGE_VAL where the job cannot run. */
static double cost(const struct inst *in, int k, int t)
{
    double thr = in->thr[k * in->T + t];
    if (!(thr > 0) || in->scale[k] > in->cap[t])
        return HUGE_VAL;
    double theta = thr * in->round_s, age = in->age[k] / in->round_s, w = in->work[k];
    double phi = age * theta / w + in->scale[k] * w / theta;
    int free_restart = in->cur[k] == t || (in->cur[k] < 0 && in->att[k] <= 0);
    double s = free_restart ? 0 : in->restore[k] / in->round_s;
    return phi + s - in->rho[k] * theta;
}

/* Capacity, and with wc no type with >= d free while an eligible job waits.  a[k]: type or
 * -1.  Returns 1 if feasible. */
static int feasible(const struct inst *in, const int *a, int wc)
{
    double used[MAXT] = { 0 };
    for (int k = 0; k < in->J; k++)
        if (a[k] >= 0) {
            if (cost(in, k, a[k]) == HUGE_VAL)
                return 0;
            used[a[k]] += in->scale[k];
        }
    for (int t = 0; t < in->T; t++)
        if (used[t] > in->cap[t])
            return 0;
    if (wc)
        for (int k = 0; k < in->J; k++)
            for (int t = 0; t < in->T && a[k] < 0; t++)
                if (cost(in, k, t) != HUGE_VAL && in->cap[t] - used[t] >= in->scale[k])
                    return 0;
    return 1;
}

static double objective(const struct inst *in, const int *a)
{
    double z = 0;
    for (int k = 0; k < in->J; k++)
        if (a[k] >= 0)
            z += cost(in, k, a[k]);
    return z;
}

/* min over all (T + 1)^J assignments */
static double brute_force(const struct inst *in, int wc)
{
    int a[MAXJ];
    long total = 1;
    for (int k = 0; k < in->J; k++)
        total *= in->T + 1;
    double best = HUGE_VAL;
    for (long code = 0; code < total; code++) {
        long c = code;
        for (int k = 0; k < in->J; k++) {
            a[k] = (int)(c % (in->T + 1)) - 1;
            c /= in->T + 1;
        }
        if (feasible(in, a, wc)) {
            double z = objective(in, a);
            if (z < best)
                best = z;
        }
    }
    return best;
}

static void decision(const struct inst *in, const double *x, int *a)
{
    for (int k = 0; k < in->J; k++) {
        a[k] = -1;
        for (int t = 0; t < in->T; t++) {
            cr_assert(x[k * in->T + t] == 0 || x[k * in->T + t] == 1, "x not integral");
            if (x[k * in->T + t] == 1) {
                cr_assert_eq(a[k], -1, "job %d on two types", k);
                a[k] = t;
            }
        }
    }
}

static void random_inst(struct inst *in, gsl_rng *r, int J, int T, int capmax)
{
    static const int sizes[] = { 1, 1, 2, 2, 3, 4 };
    memset(in, 0, sizeof *in);
    in->J = J;
    in->T = T;
    in->round_s = 300;
    for (int t = 0; t < T; t++)
        in->cap[t] = 1 + (double)gsl_rng_uniform_int(r, (unsigned long)capmax);
    for (int k = 0; k < J; k++) {
        in->id[k] = 100 + k;
        in->scale[k] = sizes[gsl_rng_uniform_int(r, 6)];
        in->weight[k] = 1;
        double base = 0.2 + 3 * gsl_rng_uniform(r);
        for (int t = 0; t < T; t++)
            in->thr[k * T + t] = gsl_rng_uniform(r) < 0.15 ? 0
                                 : base * (0.3 + 2 * gsl_rng_uniform(r)) * in->scale[k];
        in->work[k] = 2000 + 200000 * gsl_rng_uniform(r);
        in->rem[k] = in->work[k] * gsl_rng_uniform(r);
        in->age[k] = 20000 * gsl_rng_uniform(r);
        in->cur[k] = (int)gsl_rng_uniform_int(r, (unsigned long)T + 1) - 1;
        int ran = in->cur[k] >= 0 || gsl_rng_uniform(r) < 0.5;
        in->att[k] = ran ? 1000 * gsl_rng_uniform(r) + 1 : 0;
        in->restore[k] = 3000 * gsl_rng_uniform(r);
    }
}

/* rho of comparable weight to phi: theta * rho of order W / theta */
static void random_rho(struct inst *in, gsl_rng *r)
{
    for (int k = 0; k < in->J; k++) {
        double th = 0;
        for (int t = 0; t < in->T; t++)
            if (in->thr[k * in->T + t] > th)
                th = in->thr[k * in->T + t];
        th *= in->round_s;
        in->rho[k] = th > 0 && gsl_rng_uniform(r) < 0.7
                         ? gsl_rng_uniform(r) * 3 * in->work[k] / (th * th) : 0;
    }
}

static void check_optimal(void *self, struct inst *in, int wc, int round)
{
    double x[MAXJ * MAXT];
    int a[MAXJ];
    for (int k = 0; k < in->J; k++)
        cr_assert_eq(fft_set_rho(self, in->id[k], in->rho[k]), 0);
    allocate(self, in, x);
    decision(in, x, a);
    cr_assert(feasible(in, a, wc), "round %d: infeasible decision", round);
    double want = brute_force(in, wc), got = objective(in, a);
    cr_assert(fabs(got - want) <= 1e-7 * (1 + fabs(want)),
              "round %d (J %d, T %d, wc %d): objective %.10g, brute force %.10g", round, in->J,
              in->T, wc, got, want);
}

static void optimal_on_random(int wc)
{
    gsl_rng *r = rng_stream(7, wc ? "fft-bf-wc" : "fft-bf");
    void *self = open_fft(wc ? NULL : "{\"work_conserving\": false}");
    double x[MAXJ * MAXT];
    for (int round = 0; round < 400; round++) {
        struct inst in;
        random_inst(&in, r, 3 + (int)gsl_rng_uniform_int(r, 3), 2 + (int)gsl_rng_uniform_int(r, 2),
                    6);
        /* first call with rho = 0, checked, then the same jobs with random rho */
        for (int k = 0; k < in.J; k++)
            in.id[k] = round * 10 + k;
        allocate(self, &in, x);
        check_optimal(self, &in, wc, round);
        random_rho(&in, r);
        check_optimal(self, &in, wc, round);
    }
    close_fft(self);
    gsl_rng_free(r);
}

Test(fft, optimal_against_brute_force_work_conserving)
{
    optimal_on_random(1);
}

Test(fft, optimal_against_brute_force_without_work_conservation)
{
    optimal_on_random(0);
}

/* The textbook program for the same objective, solved by GLPK with nothing of fft.c's
 * machinery: binary x, and work conservation as one big-M row per (type, job) pair,
 *   sum_j d_j x_j^i + (Y_i - d_k + 1) sum_i' x_k^i' >= Y_i - d_k + 1. */
static double direct(const struct inst *in, int wc)
{
    int J = in->J, T = in->T, col[MAXJ][MAXT] = { { 0 } };
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    for (int k = 0; k < J; k++)
        for (int t = 0; t < T; t++)
            if (cost(in, k, t) != HUGE_VAL) {
                col[k][t] = glp_add_cols(lp, 1);
                glp_set_col_kind(lp, col[k][t], GLP_BV);
                glp_set_obj_coef(lp, col[k][t], cost(in, k, t));
            }
    int ind[MAXJ * MAXT + 1];
    double val[MAXJ * MAXT + 1];
    for (int k = 0; k < J; k++) {
        int n = 0, r = glp_add_rows(lp, 1);
        for (int t = 0; t < T; t++)
            if (col[k][t]) {
                ind[++n] = col[k][t];
                val[n] = 1;
            }
        glp_set_mat_row(lp, r, n, ind, val);
        glp_set_row_bnds(lp, r, GLP_UP, 0, 1);
    }
    for (int t = 0; t < T; t++) {
        int n = 0, r = glp_add_rows(lp, 1);
        for (int k = 0; k < J; k++)
            if (col[k][t]) {
                ind[++n] = col[k][t];
                val[n] = in->scale[k];
            }
        glp_set_mat_row(lp, r, n, ind, val);
        glp_set_row_bnds(lp, r, GLP_UP, 0, in->cap[t]);
    }
    for (int t = 0; t < T && wc; t++)
        for (int k = 0; k < J; k++) {
            if (!col[k][t])
                continue;
            double big = in->cap[t] - in->scale[k] + 1;
            int n = 0, r = glp_add_rows(lp, 1);
            for (int j = 0; j < J; j++)
                for (int u = 0; u < T; u++) {
                    if (!col[j][u] || (u != t && j != k))
                        continue;
                    ind[++n] = col[j][u];
                    val[n] = (u == t ? in->scale[j] : 0) + (j == k ? big : 0);
                }
            glp_set_mat_row(lp, r, n, ind, val);
            glp_set_row_bnds(lp, r, GLP_LO, big, 0);
        }
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.presolve = GLP_ON;
    cr_assert_eq(glp_intopt(lp, &ip), 0);
    cr_assert_eq(glp_mip_status(lp), GLP_OPT);
    double z = glp_mip_obj_val(lp);
    glp_delete_prob(lp);
    return z;
}

/* Medium instances (10-24 jobs, 2-4 types, up to 12 GPUs a type), beyond brute force: the
 * same optimum as the textbook program. */
Test(fft, optimal_against_the_direct_program_on_medium_instances)
{
    glp_term_out(GLP_OFF);
    gsl_rng *r = rng_stream(13, "fft-direct");
    for (int wc = 0; wc <= 1; wc++) {
        void *self = open_fft(wc ? NULL : "{\"work_conserving\": false}");
        double x[MAXJ * MAXT];
        for (int round = 0; round < 60; round++) {
            struct inst in;
            random_inst(&in, r, 10 + (int)gsl_rng_uniform_int(r, 15),
                        2 + (int)gsl_rng_uniform_int(r, 3), 12);
            for (int k = 0; k < in.J; k++)
                in.id[k] = round * 100 + k;
            allocate(self, &in, x);
            random_rho(&in, r);
            for (int k = 0; k < in.J; k++)
                cr_assert_eq(fft_set_rho(self, in.id[k], in.rho[k]), 0);
            allocate(self, &in, x);
            int a[MAXJ];
            decision(&in, x, a);
            cr_assert(feasible(&in, a, wc), "round %d: infeasible decision", round);
            double want = direct(&in, wc), got = objective(&in, a);
            cr_assert(fabs(got - want) <= 1e-7 * (1 + fabs(want)),
                      "round %d (J %d, T %d, wc %d): objective %.10g, direct program %.10g",
                      round, in.J, in.T, wc, got, want);
        }
        close_fft(self);
    }
    gsl_rng_free(r);
}

/* The cold round's trades (improve() in fft.c: m jobs of size d for one of size m d on one
 * type, each trade an LP with the counts fixed): on medium instances, each a fresh policy so
 * that every round is cold, the incumbent they leave is never dearer than the one they
 * started from and never cheaper than the optimum (it is a feasible point: a trade that
 * took an inadmissible or miscounted point could beat it), the decision is the textbook
 * program's optimum, and some instances do improve (the trades are not idle). */
Test(fft, cold_round_trades_improve_the_incumbent_and_stay_feasible)
{
    glp_term_out(GLP_OFF);
    gsl_rng *r = rng_stream(17, "fft-trades");
    int ran = 0, improved = 0;
    for (int round = 0; round < 150; round++) {
        struct inst in;
        random_inst(&in, r, 10 + (int)gsl_rng_uniform_int(r, 15),
                    2 + (int)gsl_rng_uniform_int(r, 3), 12);
        void *self = open_fft(NULL);
        double x[MAXJ * MAXT], before, after;
        int a[MAXJ], tried;
        allocate(self, &in, x);
        fft_trades(self, &before, &after, &tried);
        close_fft(self);
        decision(&in, x, a);
        cr_assert(feasible(&in, a, 1), "round %d: infeasible decision", round);
        double want = direct(&in, 1), got = objective(&in, a), tol = 1e-7 * (1 + fabs(want));
        cr_assert(fabs(got - want) <= tol, "round %d: objective %.10g, direct program %.10g",
                  round, got, want);
        if (isnan(before))
            continue;
        ran++;
        cr_assert(after <= before + 1e-9 * (1 + fabs(before)),
                  "round %d: trades left %.10g, started from %.10g", round, after, before);
        cr_assert(after >= want - tol, "round %d: trades reached %.10g below the optimum %.10g",
                  round, after, want);
        improved += after < before - 1e-9 * (1 + fabs(before));
    }
    cr_assert(ran > 0 && improved > 0, "trades ran on %d instances, improved %d", ran, improved);
    cr_log_info("trades ran on %d of 150 cold rounds and improved %d", ran, improved);
    gsl_rng_free(r);
}

/* One instance kept across rounds: each round some jobs leave, some arrive (new ids), some
 * change size, ages grow and rho is redrawn; the kept program must give the brute-force
 * optimum every round (its blocks are reused, its size classes and basis carried over). */
Test(fft, program_kept_across_rounds_stays_exact)
{
    gsl_rng *r = rng_stream(11, "fft-rounds");
    for (int wc = 0; wc <= 1; wc++) {
        void *self = open_fft(wc ? NULL : "{\"work_conserving\": false}");
        struct inst in;
        random_inst(&in, r, 5, 3, 7);
        int64_t next = 1000;
        double x[MAXJ * MAXT];
        for (int round = 0; round < 300; round++) {
            allocate(self, &in, x);     /* makes the jobs known (and updates rho) */
            random_rho(&in, r);
            check_optimal(self, &in, wc, round);
            struct inst fresh;
            random_inst(&fresh, r, 5, 3, 7);
            int J = 3 + (int)gsl_rng_uniform_int(r, 3), n = 0;
            struct inst nx = in;
            for (int k = 0; k < in.J && n < J; k++) {
                double u = gsl_rng_uniform(r);
                if (u < 0.25)
                    continue;                           /* leaves */
                nx.id[n] = in.id[k];
                nx.scale[n] = u < 0.35 ? fresh.scale[k] : in.scale[k];   /* resized */
                for (int t = 0; t < 3; t++)
                    nx.thr[n * 3 + t] = u < 0.35 ? fresh.thr[k * 3 + t] : in.thr[k * 3 + t];
                nx.work[n] = in.work[k];
                nx.rem[n] = in.rem[k];
                nx.age[n] = in.age[k] + 300;
                nx.att[n] = in.att[k] + (x[k * 3] + x[k * 3 + 1] + x[k * 3 + 2]) * 300;
                nx.cur[n] = -1;
                for (int t = 0; t < 3; t++)
                    if (x[k * 3 + t] == 1)
                        nx.cur[n] = t;
                nx.restore[n] = in.restore[k];
                nx.weight[n] = 1;
                n++;
            }
            for (; n < J; n++) {                        /* arrivals */
                nx.id[n] = next++;
                nx.scale[n] = fresh.scale[n];
                for (int t = 0; t < 3; t++)
                    nx.thr[n * 3 + t] = fresh.thr[n * 3 + t];
                nx.work[n] = fresh.work[n];
                nx.rem[n] = fresh.work[n];
                nx.age[n] = 300 * gsl_rng_uniform(r);
                nx.att[n] = 0;
                nx.cur[n] = -1;
                nx.restore[n] = fresh.restore[n];
                nx.weight[n] = 1;
            }
            nx.J = J;
            in = nx;
        }
        close_fft(self);
    }
    gsl_rng_free(r);
}

/* The next round of a kept instance: each job stays with probability `stay` (a round older,
 * its progress and current type from x), then arrivals with new ids up to J jobs. */
static void churn(struct inst *in, const double *x, gsl_rng *r, double stay, int J,
                  int capmax, int64_t *next)
{
    struct inst fresh, nx = *in;
    random_inst(&fresh, r, J, in->T, capmax);
    int T = in->T, n = 0;
    for (int k = 0; k < in->J && n < J; k++) {
        if (gsl_rng_uniform(r) >= stay)
            continue;
        nx.id[n] = in->id[k];
        nx.scale[n] = in->scale[k];
        nx.work[n] = in->work[k];
        nx.rem[n] = in->rem[k];
        nx.age[n] = in->age[k] + in->round_s;
        nx.att[n] = in->att[k];
        nx.cur[n] = -1;
        for (int t = 0; t < T; t++) {
            nx.thr[n * T + t] = in->thr[k * T + t];
            if (x[k * T + t] == 1) {
                nx.cur[n] = t;
                nx.att[n] += in->scale[k] * in->round_s;
            }
        }
        nx.restore[n] = in->restore[k];
        nx.weight[n] = 1;
        n++;
    }
    for (; n < J; n++) {
        nx.id[n] = (*next)++;
        nx.scale[n] = fresh.scale[n];
        for (int t = 0; t < T; t++)
            nx.thr[n * T + t] = fresh.thr[n * T + t];
        nx.work[n] = nx.rem[n] = fresh.work[n];
        nx.age[n] = in->round_s * gsl_rng_uniform(r);
        nx.att[n] = 0;
        nx.cur[n] = -1;
        nx.restore[n] = fresh.restore[n];
        nx.weight[n] = 1;
    }
    nx.J = J;
    *in = nx;
}

/* A kept program (departed jobs deleted, jobs priced out of it and back in, its basis
 * carried) decides every round as a program built fresh for the same state — same jobs,
 * costs and rho — and both give the brute-force optimum.  Clusters of 1-4 GPUs a type, so
 * that most jobs wait and some are left outside the program. */
Test(fft, kept_program_decides_as_a_fresh_one)
{
    gsl_rng *r = rng_stream(19, "fft-fresh");
    for (int wc = 0; wc <= 1; wc++) {
        const char *params = wc ? NULL : "{\"work_conserving\": false}";
        void *kept = open_fft(params);
        struct inst in;
        random_inst(&in, r, 7, 3, 4);
        int64_t next = 1000;
        int outside = 0;
        double xa[MAXJ * MAXT], xb[MAXJ * MAXT];
        for (int round = 0; round < 150; round++) {
            for (int k = 0; k < in.J; k++) {
                double rho = fft_rho(kept, in.id[k]);
                in.rho[k] = rho > 0 ? rho : 0;
            }
            allocate(kept, &in, xa);
            outside += fft_program_jobs(kept) < in.J;
            void *fresh = open_fft(params);
            allocate(fresh, &in, xb);       /* makes the jobs known */
            for (int k = 0; k < in.J; k++)
                cr_assert_eq(fft_set_rho(fresh, in.id[k], in.rho[k]), 0);
            allocate(fresh, &in, xb);
            close_fft(fresh);
            cr_assert_eq(memcmp(xa, xb, (size_t)in.J * (size_t)in.T * sizeof *xa), 0,
                         "round %d (wc %d): the kept and the fresh program decide differently",
                         round, wc);
            int a[MAXJ];
            decision(&in, xa, a);
            cr_assert(feasible(&in, a, wc), "round %d: infeasible decision", round);
            double want = brute_force(&in, wc), got = objective(&in, a);
            cr_assert(fabs(got - want) <= 1e-7 * (1 + fabs(want)),
                      "round %d (wc %d): objective %.10g, brute force %.10g", round, wc, got,
                      want);
            churn(&in, xa, r, 0.75, 5 + (int)gsl_rng_uniform_int(r, 3), 4, &next);
        }
        cr_assert_gt(outside, 20, "wc %d: only %d rounds left a job outside the program", wc,
                     outside);
        close_fft(kept);
    }
    gsl_rng_free(r);
}

/* The program follows the live jobs: after a burst of 40 jobs, 300 rounds of 3-6 jobs with
 * departures and arrivals every round.  Its columns and rows never exceed what the live
 * jobs' blocks (T x and r, one row each) and the classes (n and its row; with work
 * conservation g and rows (a), (b)) need, plus u and its rows — not what the burst left. */
Test(fft, program_size_follows_the_live_jobs)
{
    gsl_rng *r = rng_stream(17, "fft-live");
    for (int wc = 0; wc <= 1; wc++) {
        void *self = open_fft(wc ? NULL : "{\"work_conserving\": false}");
        struct inst in;
        random_inst(&in, r, 40, 3, 12);
        int64_t next = 1000;
        double x[MAXJ * MAXT];
        for (int round = 0; round < 300; round++) {
            allocate(self, &in, x);
            int rows, cols, nnz, nint, nodes, T = in.T, D = 4;  /* sizes 1 to 4 */
            fft_size(self, &rows, &cols, &nnz, &nint, &nodes);
            cr_assert_leq(fft_program_jobs(self), in.J);
            cr_assert_leq(cols, T + in.J * (T + wc) + T * D * (1 + wc),
                          "round %d (wc %d): %d columns for %d live jobs", round, wc, cols, in.J);
            cr_assert_leq(rows, T + in.J + T * D * (1 + 2 * wc),
                          "round %d (wc %d): %d rows for %d live jobs", round, wc, rows, in.J);
            churn(&in, x, r, 0.7, 3 + (int)gsl_rng_uniform_int(r, 4), 12, &next);
        }
        close_fft(self);
    }
    gsl_rng_free(r);
}

/* Room for everyone (100 GPUs a type, at most 80 asked): every job runs on its cheapest
 * type, and no round needs branch and bound.  The jobs cannot wait, so their r is fixed at
 * 1 and the LP relaxation is integral; without that bound g and r go fractional together,
 * the LP bound falls below every admissible point and each round branched.  A round makes
 * one or two simplex calls. */
Test(fft, room_for_everyone_needs_no_branch_and_bound)
{
    gsl_rng *r = rng_stream(23, "fft-room");
    void *self = open_fft(NULL);
    struct inst in;
    random_inst(&in, r, 20, 3, 1);
    for (int t = 0; t < in.T; t++)
        in.cap[t] = 100;
    int64_t next = 1000;
    double x[MAXJ * MAXT];
    for (int round = 0; round < 60; round++) {
        for (int k = 0; k < in.J; k++) {
            double rho = fft_rho(self, in.id[k]);
            in.rho[k] = rho > 0 ? rho : 0;
        }
        int64_t s0, p0, b0, s1, p1, b1;
        fft_counts(self, &s0, &p0, &b0);
        allocate(self, &in, x);
        fft_counts(self, &s1, &p1, &b1);
        cr_assert_eq(b1, b0, "round %d: branch and bound with room for everyone", round);
        /* the LP, and a second call at most (the cold start's pricing); the dive rounds its
         * fractional g without re-solving (every member runs) */
        cr_assert_leq(s1 - s0, 2, "round %d: %lld simplex calls", round, (long long)(s1 - s0));
        int a[MAXJ];
        decision(&in, x, a);
        double want = 0;
        for (int k = 0; k < in.J; k++) {
            double least = HUGE_VAL;
            for (int t = 0; t < in.T; t++)
                if (cost(&in, k, t) < least)
                    least = cost(&in, k, t);
            if (least < HUGE_VAL) {
                cr_assert_geq(a[k], 0, "round %d: job %d waits", round, k);
                want += least;
            }
        }
        cr_assert(fabs(objective(&in, a) - want) <= 1e-9 * (1 + fabs(want)),
                  "round %d: objective %.10g, every job on its cheapest type %.10g", round,
                  objective(&in, a), want);
        churn(&in, x, r, 0.8, 20, 1, &next);
        for (int t = 0; t < in.T; t++)
            in.cap[t] = 100;
    }
    close_fft(self);
    gsl_rng_free(r);
}

/* The incumbent's per-type knapsack against every subset, on rooms from tight to far
 * beyond the items' total size (the table then spans that total only).  Admissible: total
 * size within room and, with work conservation, fewer than dmin GPUs left free; when no
 * subset is admissible, the largest reachable total.  The knapsack's cost must equal the
 * cheapest such subset's (ties may pick other items), and its picks must add up to it. */
Test(fft, type_knapsack_against_brute_force)
{
    gsl_rng *r = rng_stream(31, "fft-knapsack");
    static const int sizes[4] = { 1, 2, 4, 8 };
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, 10), size[10], total = 0, dmin = 8;
        double c[10];
        for (int it = 0; it < n; it++) {
            size[it] = sizes[gsl_rng_uniform_int(r, 4)];
            c[it] = -5 + 10 * gsl_rng_uniform(r);
            total += size[it];
            if (size[it] < dmin)
                dmin = size[it];
        }
        int room = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)(trial % 2 ? 4 * total : total));
        int wc = trial % 3 != 0;
        uint8_t pick[10];
        cr_assert_eq(fft_knapsack(size, c, n, room, dmin, wc, pick), 0);
        double best = HUGE_VAL, most_cost = HUGE_VAL;
        int most = -1;
        for (unsigned m = 0; m < 1u << n; m++) {
            int u = 0;
            double z = 0;
            for (int it = 0; it < n; it++)
                if (m >> it & 1) {
                    u += size[it];
                    z += c[it];
                }
            if (u > room)
                continue;
            if ((!wc || room - u < dmin) && z < best)
                best = z;
            if (u > most || (u == most && z < most_cost)) {
                most = u;
                most_cost = z;
            }
        }
        if (best == HUGE_VAL)
            best = most_cost;
        int u = 0;
        double z = 0;
        for (int it = 0; it < n; it++)
            if (pick[it]) {
                u += size[it];
                z += c[it];
            }
        cr_assert_leq(u, room, "trial %d: %d GPUs picked of %d", trial, u, room);
        cr_assert(fabs(z - best) <= 1e-9, "trial %d (n %d, room %d, total %d, wc %d): cost %.10g, "
                  "brute force %.10g", trial, n, room, total, wc, z, best);
    }
    gsl_rng_free(r);
}

/* Two jobs on one GPU.  Job 0: 2 it/s, W = 6000, 2 rounds old; job 1: 1 it/s, W = 3000,
 * 1 round old; round = 300 s, so theta = 600 and 300 iterations per round.  With n = 2 the
 * fair-share rates are 1 and 0.5 it/s = 300 and 150 per round, so tau - a = 20 rounds each.
 * Round 1 (rho = 0): costs 2*600/6000 + 6000/600 = 10.2 and 1*300/3000 + 3000/300 = 10.1:
 *   job 1 runs.  rho_0 = 0 + (2/20)(300 - 0) = 30;  rho_1 = max(0, (1/20)(150 - 300)) = 0.
 * Round 2 (ages 3 and 2 rounds): job 0 costs 10.3 - 30*600 < job 1's 10.2: job 0 runs.
 *   rho_0 = max(0, 30 + (3/20)(300 - 600)) = 0;  rho_1 = 0 + (2/20)(150 - 0) = 15. */
Test(fft, rho_update_by_hand_over_two_rounds)
{
    void *self = open_fft(NULL);
    struct inst in;
    memset(&in, 0, sizeof in);
    in.J = 2;
    in.T = 1;
    in.cap[0] = 1;
    in.round_s = 300;
    in.id[0] = 7;
    in.id[1] = 8;
    in.scale[0] = in.scale[1] = 1;
    in.weight[0] = in.weight[1] = 1;
    in.thr[0] = 2;
    in.thr[1] = 1;
    in.work[0] = in.rem[0] = 6000;
    in.work[1] = in.rem[1] = 3000;
    in.age[0] = 600;
    in.age[1] = 300;
    in.cur[0] = in.cur[1] = -1;
    in.restore[0] = in.restore[1] = 30;
    double x[2];
    allocate(self, &in, x);
    cr_assert_eq(x[0], 0);
    cr_assert_eq(x[1], 1);
    cr_assert_float_eq(fft_rho(self, 7), 30, 1e-9);
    cr_assert_float_eq(fft_rho(self, 8), 0, 1e-12);
    in.age[0] = 900;
    in.age[1] = 600;
    in.cur[1] = 0;
    in.att[1] = 300;
    in.rem[1] -= 300;
    allocate(self, &in, x);
    cr_assert_eq(x[0], 1);
    cr_assert_eq(x[1], 0);
    cr_assert_float_eq(fft_rho(self, 7), 0, 1e-12);
    cr_assert_float_eq(fft_rho(self, 8), 15, 1e-9);
    cr_assert_lt(fft_rho(self, 99), 0, "unknown job");
    close_fft(self);
}

/* Larger random instances: no type keeps d_j free GPUs while an eligible job j waits. */
Test(fft, work_conserving_on_larger_instances)
{
    gsl_rng *r = rng_stream(5, "fft-wc");
    void *self = open_fft(NULL);
    double x[MAXJ * MAXT];
    for (int round = 0; round < 40; round++) {
        struct inst in;
        random_inst(&in, r, 20 + (int)gsl_rng_uniform_int(r, 40),
                    3 + (int)gsl_rng_uniform_int(r, 2), 24);
        random_rho(&in, r);
        for (int k = 0; k < in.J; k++)
            in.rho[k] *= gsl_rng_uniform(r) < 0.5 ? 0 : 1;
        allocate(self, &in, x);
        for (int k = 0; k < in.J; k++)
            fft_set_rho(self, in.id[k], in.rho[k]);
        allocate(self, &in, x);
        int a[MAXJ];
        decision(&in, x, a);
        double used[MAXT] = { 0 };
        for (int k = 0; k < in.J; k++)
            if (a[k] >= 0)
                used[a[k]] += in.scale[k];
        for (int k = 0; k < in.J; k++)
            for (int t = 0; t < in.T && a[k] < 0; t++)
                cr_assert(!(in.thr[k * in.T + t] > 0 && in.scale[k] <= in.cap[t] &&
                            in.cap[t] - used[t] >= in.scale[k]),
                          "round %d: job %d (%d GPUs) waits while type %d has %g free", round, k,
                          in.scale[k], t, in.cap[t] - used[t]);
    }
    close_fft(self);
    gsl_rng_free(r);
}

/* With rho = 0 every cost is positive, so without work conservation nothing runs — the
 * constraint is what fills the cluster. */
Test(fft, without_work_conservation_positive_costs_leave_gpus_idle)
{
    gsl_rng *r = rng_stream(3, "fft-idle");
    struct inst in;
    random_inst(&in, r, 12, 3, 8);
    double x[MAXJ * MAXT];
    void *off = open_fft("{\"work_conserving\": false}");
    allocate(off, &in, x);
    for (int k = 0; k < in.J * in.T; k++)
        cr_assert_eq(x[k], 0);
    close_fft(off);
    void *on = open_fft("{\"work_conserving\": true}");
    allocate(on, &in, x);
    double busy = 0;
    for (int k = 0; k < in.J * in.T; k++)
        busy += x[k];
    cr_assert_gt(busy, 0);
    close_fft(on);
    gsl_rng_free(r);
}

Test(fft, bad_parameter_is_rejected)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    const char *p = "{\"mip_gap\": -1}";
    cr_assert_eq(jsonf_parse(&doc, "exp.json", p, strlen(p), &err), 0);
    struct jobj o;
    jobj_root(&o, doc, &err);
    struct policy_env env = { 1, th_cl, th_m, NULL, 0 };
    policy *pol;
    cr_assert_lt(policy_open(&pol, "fft", &o, &env, &err), 0);
    cr_assert(strstr(err.msg, "mip_gap"), "%s", err.msg);
    jsonf_destroy(doc);
}

/* ---- end to end ---- */

static struct job_spec *random_jobs(int n, unsigned long seed)
{
    return th_random_jobs(th_m, n, seed, 200);
}

static const struct train_config cfg = { .restore_delay_s = 10, .until = SIM_NEVER };

Test(fft, end_to_end_all_finish_no_overallocation_deterministic)
{
    struct job_spec *jobs = random_jobs(60, 21);
    struct th_result a = th_run_policy(th_cl, th_m, jobs, 60, "fft", NULL, &cfg);
    struct th_result b = th_run_policy(th_cl, th_m, jobs, 60, "fft", NULL, &cfg);
    th_check_run(&a, 60, th_cl, "fft");
    cr_assert_eq(a.n, b.n);
    cr_assert_eq(memcmp(a.r, b.r, (size_t)a.n * sizeof *a.r), 0, "two runs differ");
    cr_assert_eq(a.decisions, b.decisions);
    th_result_free(&a);
    th_result_free(&b);
    free(jobs);
}

/* the rounds the world asked for: every decision's view carries the policy's round */
static simtime round_seen;
static int other_round;
static void note_round(void *ctx, const struct train_view *v, const struct grant_list *out)
{
    (void)ctx;
    (void)out;
    other_round |= round_seen != 0 && v->round != round_seen;
    round_seen = v->round;
}

Test(fft, end_to_end_with_parameters)
{
    struct job_spec *jobs = random_jobs(30, 4);
    round_seen = 0;
    other_round = 0;
    th_check_decision = note_round;
    struct th_result a = th_run_policy(th_cl, th_m, jobs, 30, "fft",
                                       "{\"round_s\": 120, \"fairness_weight\": 0.01, "
                                       "\"switch_weight\": 2, \"mip_gap\": 0.001}",
                                       &cfg);
    th_check_decision = NULL;
    th_check_run(&a, 30, th_cl, "fft with parameters");
    cr_assert(round_seen == sim_from_sec(120) && !other_round, "rounds of %g s, not 120 s",
              sim_to_sec(round_seen));
    /* the parameters change the decisions: not the default run's rows */
    struct th_result d = th_run_policy(th_cl, th_m, jobs, 30, "fft", NULL, &cfg);
    cr_assert_neq(memcmp(a.r, d.r, (size_t)a.n * sizeof *a.r), 0,
                  "the parameters changed nothing");
    th_result_free(&a);
    th_result_free(&d);
    free(jobs);
}
