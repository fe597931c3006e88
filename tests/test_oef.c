/*
 * test_oef: OEF's promises checked on the allocations it computes, against valuations this
 * file computes itself (its own GLPK programs, refined by GLPK's exact rational simplex):
 *  - cooperative: capacity (alloc_check), sharing incentive, envy-freeness, each user's jobs
 *    splitting its bundle to its best, at least the equal split's total and at most the
 *    unconstrained maximum; optimality against a brute-force grid and a second formulation on
 *    tiny instances where the valuations are linear;
 *  - non-cooperative: the same fairness checks, and no lie about throughputs (doubling a type,
 *    other relative speeds, hiding or claiming a type) raises the liar's real throughput; the
 *    same lie check finds profitable lies against the cooperative rule, so it can fail;
 *  - groups of identical jobs: on instances with 1-4 copies of each kind of job, the grouped
 *    programs against the per-job ones ("per_job": true) — fair, the same values, the same
 *    time per group but for rare ties, spread to the oldest jobs — and bit for bit the same
 *    allocation where no two jobs are alike;
 *  - warm starts: along 300 one-job changes, a policy that starts from its last basis against
 *    a cold one at every step: fair, the same values, and the warm starts take effect;
 *  - end to end in the training world on a K80/P100/V100 cluster: every job finishes, the run
 *    is deterministic, in both settings.
 *
 * Valuation (oef.c's header): a_jt = thr_jt / max_s thr_js; user u's value of a bundle g
 * (GPUs per type) is V_u(g) = max sum a_jt y_jt s.t. sum_j d_j y_jt <= g_t, sum_t y_jt <= 1.
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

enum { MAXU = 6, MAXJ = 32, MAXT = 4 };

static cluster *cl;

static const char cluster_json[] =
    "{ \"name\": \"kpv\", \"network\": \"ethernet-25g\", \"groups\": [\n"
    " { \"count\": 2, \"gpu\": \"K80\", \"gpus_per_node\": 4 },\n"
    " { \"count\": 2, \"gpu\": \"P100\", \"gpus_per_node\": 4 },\n"
    " { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] }";

static void setup(void)
{
    th_models_init();
    cl = th_cluster(th_cat, cluster_json);
    glp_term_out(GLP_OFF);
}

static void teardown(void)
{
    cluster_destroy(cl);
    th_models_fini();
}

TestSuite(oef, .init = setup, .fini = teardown);

/* ---- a hand-built problem ---- */

struct inst {
    int     J, T, nu;
    int     uid[MAXU];          /* the problem's user ids, by user index */
    int64_t id[MAXJ];
    int     scale[MAXJ], user[MAXJ], uix[MAXJ], cur[MAXJ];
    double  weight[MAXJ], thr[MAXJ * MAXT], zero[MAXJ];
    double  cap[MAXT];
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
    p.round_s = 360;
    p.id = in->id;
    p.scale = in->scale;
    p.user = in->user;
    p.weight = in->weight;
    p.thr = in->thr;
    p.work = in->zero;
    p.remaining = in->zero;
    p.age_s = in->zero;
    p.attained_s = in->zero;
    p.cur_type = in->cur;
    p.restore_s = in->zero;
    return p;
}

static void add_job(struct inst *in, int u, int scale, const double *thr)
{
    int j = in->J++;
    cr_assert_lt(j, MAXJ);
    in->id[j] = 1000 + j;
    in->scale[j] = scale;
    in->user[j] = in->uid[u];
    in->uix[j] = u;
    in->weight[j] = 1;
    in->cur[j] = -1;
    in->zero[j] = 0;
    for (int t = 0; t < in->T; t++)
        in->thr[j * in->T + t] = thr[t];
}

/* 2-6 users (ids not contiguous), 2-4 types with 1-12 GPUs, 1-5 jobs per user of 1, 2 or 4
 * GPUs, throughputs in [0.5, 10) with a 15 % chance of 0 (every job runs somewhere). */
static void random_inst(struct inst *in, gsl_rng *r)
{
    static const int scales[] = { 1, 1, 2, 4 };
    memset(in, 0, sizeof *in);
    in->nu = 2 + (int)gsl_rng_uniform_int(r, 5);
    in->T = 2 + (int)gsl_rng_uniform_int(r, 3);
    for (int t = 0; t < in->T; t++)
        in->cap[t] = 1 + (double)gsl_rng_uniform_int(r, 12);
    for (int u = 0; u < in->nu; u++) {
        in->uid[u] = 7 * u + 3;
        int nj = 1 + (int)gsl_rng_uniform_int(r, 5);
        for (int k = 0; k < nj; k++) {
            double thr[MAXT];
            int any = 0;
            for (int t = 0; t < in->T; t++) {
                thr[t] = gsl_rng_uniform(r) < 0.15 ? 0 : 0.5 + 9.5 * gsl_rng_uniform(r);
                any |= thr[t] > 0;
            }
            if (!any)
                thr[gsl_rng_uniform_int(r, (unsigned long)in->T)] = 1;
            add_job(in, u, scales[gsl_rng_uniform_int(r, 4)], thr);
        }
    }
}

/* ---- the policy through its ops ---- */

/* per_job: every job its own group, the per-job programs (the reference for grouping) */
static void *open_oef_with(const char *setting, int per_job)
{
    const struct policy_ops *ops = policy_find("oef");
    cr_assert_not_null(ops);
    char text[128];
    snprintf(text, sizeof text, "{\"setting\": \"%s\", \"per_job\": %s}", setting,
             per_job ? "true" : "false");
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    struct jobj params;
    cr_assert_eq(jsonf_parse(&doc, "params", text, strlen(text), &err), 0, "%s", err.msg);
    cr_assert_eq(jobj_root(&params, doc, &err), 0);
    struct policy_env env = { 1, cl, th_m, NULL, 0 };
    void *self = NULL;
    cr_assert_eq(ops->create(&self, &params, &env, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);
    return self;
}

static void *open_oef(const char *setting)
{
    return open_oef_with(setting, 0);
}

static void close_oef(void *self)
{
    policy_find("oef")->destroy(self);
}

static void solve(void *self, const struct inst *in, double *x)
{
    struct alloc_problem p = problem(in);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(policy_find("oef")->train->allocate(self, &p, x, &err), 0, "%s", err.msg);
    cr_assert_eq(alloc_check(&p, x, 1e-6, &err), 0, "%s", err.msg);
}

/* ---- valuations, computed here ---- */

static double norm_thr(const struct inst *in, int j, int t)
{
    double best = 0;
    for (int s = 0; s < in->T; s++)
        best = fmax(best, in->thr[j * in->T + s]);
    return best > 0 ? in->thr[j * in->T + t] / best : 0;
}

/* V_u(g); u < 0 values the bundle for all jobs together (the unconstrained optimum) */
static double value(const struct inst *in, int u, const double *g)
{
    int T = in->T;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, T + in->J);
    for (int t = 0; t < T; t++)
        glp_set_row_bnds(lp, t + 1, GLP_UP, 0, g[t]);
    for (int j = 0; j < in->J; j++)
        glp_set_row_bnds(lp, T + j + 1, GLP_UP, 0, 1);
    for (int j = 0; j < in->J; j++) {
        if (u >= 0 && in->uix[j] != u)
            continue;
        for (int t = 0; t < T; t++) {
            double a = norm_thr(in, j, t);
            if (a <= 0)
                continue;
            int c = glp_add_cols(lp, 1);
            glp_set_col_bnds(lp, c, GLP_LO, 0, 0);
            glp_set_obj_coef(lp, c, a);
            int ind[3] = { 0, t + 1, T + j + 1 };
            double val[3] = { 0, in->scale[j], 1 };
            glp_set_mat_col(lp, c, 2, ind, val);
        }
    }
    double v = 0;
    if (glp_get_num_cols(lp) > 0) {
        glp_smcp parm;
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        cr_assert_eq(glp_simplex(lp, &parm), 0);
        cr_assert_eq(glp_exact(lp, &parm), 0);
        cr_assert_eq(glp_get_status(lp), GLP_OPT);
        v = glp_get_obj_val(lp);
    }
    glp_delete_prob(lp);
    return v;
}

/* A_u under x, with the throughputs of `truth` */
static double thr_of(const struct inst *truth, int u, const double *x)
{
    double a = 0;
    for (int j = 0; j < truth->J; j++)
        if (truth->uix[j] == u)
            for (int t = 0; t < truth->T; t++)
                a += norm_thr(truth, j, t) * x[j * truth->T + t];
    return a;
}

static void bundle(const struct inst *in, int u, const double *x, double *g)
{
    for (int t = 0; t < in->T; t++) {
        g[t] = 0;
        for (int j = 0; j < in->J; j++)
            if (in->uix[j] == u)
                g[t] += in->scale[j] * x[j * in->T + t];
    }
}

static double slack(double v) { return 1e-6 * fmax(1, fabs(v)); }

/* Capacity, sharing incentive, envy-freeness, best split inside each user; returns the total
 * normalized throughput and sets *si_total to the equal split's. */
static double check_fair(const struct inst *in, const double *x, double *si_total)
{
    double e[MAXT], g[MAXU][MAXT], total = 0;
    for (int t = 0; t < in->T; t++)
        e[t] = in->cap[t] / in->nu;
    for (int u = 0; u < in->nu; u++)
        bundle(in, u, x, g[u]);
    *si_total = 0;
    for (int u = 0; u < in->nu; u++) {
        double a = thr_of(in, u, x), si = value(in, u, e);
        total += a;
        *si_total += si;
        cr_assert_geq(a, si - slack(si), "sharing incentive: user %d gets %.9g < %.9g", u, a, si);
        double own = value(in, u, g[u]);
        cr_assert_geq(a, own - slack(own), "user %d's split %.9g below its best %.9g", u, a, own);
        for (int v = 0; v < in->nu; v++) {
            if (v == u)
                continue;
            double envy = value(in, u, g[v]);
            cr_assert_geq(a, envy - slack(envy), "user %d envies %d: %.9g < %.9g", u, v, a, envy);
        }
    }
    return total;
}

Test(oef, registered_as_a_round_based_allocation_policy)
{
    const struct policy_ops *ops = policy_find("oef");
    cr_assert_not_null(ops);
    cr_assert_str_eq(ops->domain, "training");
    cr_assert_eq(ops->train->wake, WAKE_ROUND);
    cr_assert_float_eq(ops->train->round_s, 360, 1e-12);
    cr_assert(ops->train->decide == alloc_train);
    cr_assert_not_null(ops->train->allocate);
}

Test(oef, rejects_an_unknown_setting)
{
    const char text[] = "{\"setting\": \"selfish\"}";
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    struct jobj params;
    cr_assert_eq(jsonf_parse(&doc, "params", text, strlen(text), &err), 0);
    cr_assert_eq(jobj_root(&params, doc, &err), 0);
    struct policy_env env = { 1, cl, th_m, NULL, 0 };
    void *self = NULL;
    cr_assert_lt(policy_find("oef")->create(&self, &params, &env, &err), 0);
    cr_assert_not_null(strstr(err.msg, "noncooperative"), "%s", err.msg);
    jsonf_destroy(doc);
}

/* Determinism: OEF starts each solve from the last one's basis, so a second policy that sees
 * the same problems in the same order (self2) must give the same allocations to the bit. */
Test(oef, cooperative_is_fair_and_beats_the_equal_split)
{
    void *self = open_oef("cooperative"), *self2 = open_oef("cooperative");
    gsl_rng *r = rng_stream(11, "test-oef-coop");
    int better = 0, runs = 300;
    for (int i = 0; i < runs; i++) {
        struct inst in;
        random_inst(&in, r);
        double x[MAXJ * MAXT], x2[MAXJ * MAXT], si;
        solve(self, &in, x);
        double total = check_fair(&in, x, &si);
        cr_assert_geq(total, si - slack(si), "instance %d: %.9g below the equal split %.9g", i,
                      total, si);
        double best = value(&in, -1, in.cap);
        cr_assert_leq(total, best + slack(best), "instance %d: above the optimum", i);
        better += total > si + 1e-6;
        solve(self2, &in, x2);
        cr_assert_eq(memcmp(x, x2, (size_t)(in.J * in.T) * sizeof *x), 0, "not deterministic");
    }
    /* not the equal split in disguise */
    cr_assert_gt(better, runs / 4, "only %d of %d instances improve on the equal split", better,
                 runs);
    gsl_rng_free(r);
    close_oef(self);
    close_oef(self2);
}

/* Two users, two types with c0 and c1 GPUs, c0 + c1 identical 1-GPU jobs per user: every
 * bundle is worth a_u . g to user u, so SI and EF are linear and a grid search over the two
 * bundles sees the same program. */
struct tiny {
    double a1[2], a2[2], cap[2];
};

static void tiny_inst(struct inst *in, const struct tiny *c)
{
    memset(in, 0, sizeof *in);
    in->nu = 2;
    in->T = 2;
    in->cap[0] = c->cap[0];
    in->cap[1] = c->cap[1];
    in->uid[0] = 0;
    in->uid[1] = 1;
    for (int k = 0; k < (int)(c->cap[0] + c->cap[1]); k++) {
        add_job(in, 0, 1, c->a1);
        add_job(in, 1, 1, c->a2);
    }
}

/* the same program in the users' bundles only (a second formulation), solved exactly */
static double bundle_lp(const struct tiny *c)
{
    const double *a[2] = { c->a1, c->a2 };
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_cols(lp, 4);                    /* g_ut at 1 + 2u + t */
    for (int col = 1; col <= 4; col++) {
        glp_set_col_bnds(lp, col, GLP_DB, 0, c->cap[(col - 1) % 2]);
        glp_set_obj_coef(lp, col, a[(col - 1) / 2][(col - 1) % 2]);
    }
    for (int t = 0; t < 2; t++) {           /* capacity */
        int r = glp_add_rows(lp, 1), ind[3] = { 0, 1 + t, 3 + t };
        double val[3] = { 0, 1, 1 };
        glp_set_row_bnds(lp, r, GLP_UP, 0, c->cap[t]);
        glp_set_mat_row(lp, r, 2, ind, val);
    }
    for (int u = 0; u < 2; u++) {
        int v = 1 - u, r = glp_add_rows(lp, 1);
        int ind[5] = { 0, 1 + 2 * u, 2 + 2 * u, 1 + 2 * v, 2 + 2 * v };
        double si = 0.5 * (a[u][0] * c->cap[0] + a[u][1] * c->cap[1]);
        double val[5] = { 0, a[u][0], a[u][1], -a[u][0], -a[u][1] };
        glp_set_row_bnds(lp, r, GLP_LO, 0, 0);                  /* EF */
        glp_set_mat_row(lp, r, 4, ind, val);
        r = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, r, GLP_LO, si, 0);                 /* SI */
        glp_set_mat_row(lp, r, 2, ind, val);
    }
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    cr_assert_eq(glp_exact(lp, &parm), 0);
    cr_assert_eq(glp_get_status(lp), GLP_OPT);
    double v = glp_get_obj_val(lp);
    glp_delete_prob(lp);
    return v;
}

/* the best total over a grid of bundles (steps of cap / 40) meeting SI and EF */
static double grid_best(const struct tiny *c)
{
    enum { N = 40 };
    const double *a1 = c->a1, *a2 = c->a2, h0 = c->cap[0] / N, h1 = c->cap[1] / N;
    double best = -1;
    double si1 = 0.5 * (a1[0] * c->cap[0] + a1[1] * c->cap[1]);
    double si2 = 0.5 * (a2[0] * c->cap[0] + a2[1] * c->cap[1]);
    for (int p = 0; p <= N; p++)
        for (int q = 0; q <= N; q++) {
            double g1a = p * h0, g1b = q * h1, u1 = a1[0] * g1a + a1[1] * g1b;
            if (u1 < si1 - 1e-12)
                continue;
            for (int r = 0; r <= N - p; r++)
                for (int s = 0; s <= N - q; s++) {
                    double g2a = r * h0, g2b = s * h1, u2 = a2[0] * g2a + a2[1] * g2b;
                    if (u2 < si2 - 1e-12 || u1 < a1[0] * g2a + a1[1] * g2b - 1e-12 ||
                        u2 < a2[0] * g1a + a2[1] * g1b - 1e-12)
                        continue;
                    if (u1 + u2 > best)
                        best = u1 + u2;
                }
        }
    return best;
}

Test(oef, cooperative_optimum_matches_brute_force_on_tiny_instances)
{
    /* normalized vectors (each user's best type is worth 1) and capacities: same favourite
     * type by different margins, opposite favourites, a scarce favourite with a plentiful
     * second type (the fairness constraints cost throughput there) */
    static const struct tiny cases[] = {
        { { 1, 0.8 }, { 1, 0.3 }, { 1, 1 } },   { { 1, 0.2 }, { 0.5, 1 }, { 1, 1 } },
        { { 1, 0.12 }, { 1, 0.5 }, { 1, 10 } }, { { 1, 0.3 }, { 0.6, 1 }, { 2, 3 } },
        { { 1, 0.9 }, { 1, 0.2 }, { 3, 1 } },   { { 0.7, 1 }, { 1, 0.05 }, { 1, 6 } },
    };
    void *self = open_oef("cooperative");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct inst in;
        tiny_inst(&in, &cases[c]);
        double x[MAXJ * MAXT], si;
        solve(self, &in, x);
        double total = check_fair(&in, x, &si);
        double exact = bundle_lp(&cases[c]), grid = grid_best(&cases[c]);
        cr_assert_float_eq(total, exact, 1e-6, "case %zu: OEF %.9g, second formulation %.9g", c,
                           total, exact);
        /* the grid holds feasible points only: none beats OEF, and the best comes close */
        cr_assert_geq(total, grid - 1e-9, "case %zu: grid point %.9g beats OEF %.9g", c, grid,
                      total);
        cr_assert_leq(total, grid + 0.05 * (cases[c].cap[0] + cases[c].cap[1]), "case %zu", c);
        cr_log_info("case %zu: OEF %.6f, grid %.6f, equal split %.6f", c, total, grid, si);
    }
    close_oef(self);
}

Test(oef, noncooperative_is_fair)
{
    void *self = open_oef("noncooperative"), *self2 = open_oef("noncooperative");
    gsl_rng *r = rng_stream(12, "test-oef-noncoop");
    for (int i = 0; i < 200; i++) {
        struct inst in;
        random_inst(&in, r);
        double x[MAXJ * MAXT], x2[MAXJ * MAXT], si;
        solve(self, &in, x);
        double total = check_fair(&in, x, &si);
        cr_assert_geq(total, si - slack(si), "instance %d", i);
        solve(self2, &in, x2);
        cr_assert_eq(memcmp(x, x2, (size_t)(in.J * in.T) * sizeof *x), 0, "not deterministic");
    }
    gsl_rng_free(r);
    close_oef(self);
    close_oef(self2);
}

Test(oef, noncooperative_fills_what_others_cannot_use)
{
    /* K80-like type 0 with 2 GPUs, V100-like type 1 with 2 GPUs.  User A has one 1-GPU job
     * that runs on type 1 only; user B three 1-GPU jobs that run on both.  Demands: A (0, 1),
     * B (3, 3).  Filling: type 0 all to B (2), type 1 one each (A's demand is met at the
     * level 1).  Every job then runs full time: A's on type 1, B's on 2 GPUs of type 0 and 1
     * of type 1.  The equal split would have left a type-0 GPU idle. */
    struct inst in;
    memset(&in, 0, sizeof in);
    in.nu = 2;
    in.T = 2;
    in.cap[0] = in.cap[1] = 2;
    in.uid[0] = 4;
    in.uid[1] = 9;
    add_job(&in, 0, 1, (double[]){ 0, 5 });
    for (int k = 0; k < 3; k++)
        add_job(&in, 1, 1, (double[]){ 1, 2 + k });
    void *self = open_oef("noncooperative");
    double x[MAXJ * MAXT], g[MAXT];
    solve(self, &in, x);
    cr_assert_float_eq(x[1], 1, 1e-9);
    bundle(&in, 1, x, g);
    cr_assert_float_eq(g[0], 2, 1e-9);
    cr_assert_float_eq(g[1], 1, 1e-9);
    for (int j = 1; j < 4; j++)
        cr_assert_float_eq(x[j * 2] + x[j * 2 + 1], 1, 1e-9, "job %d", j);
    /* B's fastest job on type 1 (a = (0.25, 1) against (0.5, 1) and (1/3, 1)): the split
     * maximizes B's normalized throughput, 0.5 + 1/3 + 1 */
    cr_assert_float_eq(thr_of(&in, 1, x), 0.5 + 1.0 / 3 + 1, 1e-9);
    cr_assert_float_eq(x[3 * 2 + 1], 1, 1e-9);
    close_oef(self);
}

enum { LIE_DOUBLE, LIE_SPEEDS, LIE_HIDE, LIE_CLAIM, NLIES };
static const char *const lie_names[] = { "doubles a type", "other relative speeds",
                                         "hides a type", "claims a type" };

/* user u's report under lie `kind` (type t where it needs one) */
static void lie(struct inst *out, const struct inst *truth, int u, int kind, int t, gsl_rng *r)
{
    *out = *truth;
    int T = truth->T;
    for (int j = 0; j < truth->J; j++) {
        if (truth->uix[j] != u)
            continue;
        double *thr = &out->thr[j * T], best = 0;
        for (int s = 0; s < T; s++)
            best = fmax(best, thr[s]);
        switch (kind) {
        case LIE_DOUBLE:
            thr[t] *= 2;
            break;
        case LIE_SPEEDS:
            for (int s = 0; s < T; s++)
                thr[s] *= exp(4 * gsl_rng_uniform(r) - 2);
            break;
        case LIE_HIDE:
            thr[t] = 0;
            break;
        case LIE_CLAIM:
            if (thr[t] == 0)
                thr[t] = best * (0.5 + gsl_rng_uniform(r));
            break;
        }
    }
}

/* Tries every lie of every user on `runs` random instances; returns how many paid off by more
 * than `margin` in real (true) normalized throughput, the largest gain in *worst and how many
 * lies cost the liar more than `margin` in *hurt. */
static int profitable_lies(const char *setting, int runs, double margin, double *worst, int *hurt)
{
    void *self = open_oef(setting);
    gsl_rng *r = rng_stream(13, "test-oef-lies");
    int found = 0;
    *worst = 0;
    *hurt = 0;
    for (int i = 0; i < runs; i++) {
        struct inst truth, report;
        random_inst(&truth, r);
        double x[MAXJ * MAXT], xl[MAXJ * MAXT];
        solve(self, &truth, x);
        for (int u = 0; u < truth.nu; u++) {
            double honest = thr_of(&truth, u, x);
            for (int kind = 0; kind < NLIES; kind++)
                for (int rep = 0; rep < 2; rep++) {
                    int t = (int)gsl_rng_uniform_int(r, (unsigned long)truth.T);
                    lie(&report, &truth, u, kind, t, r);
                    solve(self, &report, xl);
                    double gain = thr_of(&truth, u, xl) - honest;
                    if (gain > *worst)
                        *worst = gain;
                    *hurt += gain < -margin * fmax(1, honest);
                    if (gain > margin * fmax(1, honest)) {
                        found++;
                        cr_log_info("%s: instance %d, user %d %s (type %d): %.6g -> %.6g",
                                    setting, i, u, lie_names[kind], t, honest, honest + gain);
                    }
                }
        }
    }
    gsl_rng_free(r);
    close_oef(self);
    return found;
}

Test(oef, noncooperative_no_lie_pays)
{
    double worst;
    int hurt;
    int found = profitable_lies("noncooperative", 150, 1e-6, &worst, &hurt);
    cr_assert_eq(found, 0, "%d profitable lies (largest gain %.3g)", found, worst);
    /* the lies do move the allocation: many cost the liar */
    cr_log_info("noncooperative: %d lies cost the liar, none paid", hurt);
    cr_assert_gt(hurt, 100, "only %d lies changed anything", hurt);
}

Test(oef, lie_check_catches_the_cooperative_rule)
{
    /* the cooperative rule does not claim strategy-proofness: the same check must find lies
     * that pay there, or it could not fail on the non-cooperative rule either */
    double worst;
    int hurt;
    int found = profitable_lies("cooperative", 40, 1e-3, &worst, &hurt);
    cr_assert_gt(found, 0, "no profitable lie found against the cooperative rule");
}

/* ---- groups of identical jobs ---- */

/* 2-4 users, 2-4 types with 1-12 GPUs; each user has 1-2 kinds of job (a size and
 * throughputs, drawn as in random_inst) and 1-4 jobs of each kind, all in a shuffled order,
 * so that OEF's groups hold 1-4 jobs and a group's jobs are not neighbours. */
static void grouped_inst(struct inst *in, gsl_rng *r)
{
    static const int scales[] = { 1, 1, 2, 4 };
    struct { int u, scale; double thr[MAXT]; } job[MAXJ];
    int nj = 0;
    memset(in, 0, sizeof *in);
    in->nu = 2 + (int)gsl_rng_uniform_int(r, 3);
    in->T = 2 + (int)gsl_rng_uniform_int(r, 3);
    for (int t = 0; t < in->T; t++)
        in->cap[t] = 1 + (double)gsl_rng_uniform_int(r, 12);
    for (int u = 0; u < in->nu; u++) {
        in->uid[u] = 5 * u + 1;
        int kinds = 1 + (int)gsl_rng_uniform_int(r, 2);
        for (int k = 0; k < kinds; k++) {
            double thr[MAXT];
            int any = 0, scale = scales[gsl_rng_uniform_int(r, 4)];
            for (int t = 0; t < in->T; t++) {
                thr[t] = gsl_rng_uniform(r) < 0.15 ? 0 : 0.5 + 9.5 * gsl_rng_uniform(r);
                any |= thr[t] > 0;
            }
            if (!any)
                thr[gsl_rng_uniform_int(r, (unsigned long)in->T)] = 1;
            for (int c = 1 + (int)gsl_rng_uniform_int(r, 4); c > 0; c--) {
                job[nj].u = u;
                job[nj].scale = scale;
                memcpy(job[nj].thr, thr, sizeof thr);
                nj++;
            }
        }
    }
    gsl_ran_shuffle(r, job, (size_t)nj, sizeof job[0]);
    for (int j = 0; j < nj; j++)
        add_job(in, job[j].u, job[j].scale, job[j].thr);
}

/* The group of every job (same user, size and normalized throughputs), numbered by first job. */
static int groups_of(const struct inst *in, int *grp)
{
    int G = 0;
    for (int j = 0; j < in->J; j++) {
        grp[j] = -1;
        for (int k = 0; k < j && grp[j] < 0; k++) {
            int same = in->uix[k] == in->uix[j] && in->scale[k] == in->scale[j];
            for (int t = 0; t < in->T && same; t++)
                same = norm_thr(in, k, t) == norm_thr(in, j, t);
            if (same)
                grp[j] = grp[k];
        }
        if (grp[j] < 0)
            grp[j] = G++;
    }
    return G;
}

/* The grouped programs against the per-job ones on instances with identical jobs.  Both must
 * be fair, reach the same total and give every user the same throughput: to 1e-9 in the
 * non-cooperative setting, whose programs are the users' own splits; to 1e-6 in the
 * cooperative one, whose sharing-incentive and envy rows start from the equal split as each
 * formulation solved it, and GLPK solves to a feasibility tolerance of 1e-7.  The time of
 * each group on each type must agree too (to 1e-6), except where the per-job programs have
 * ties — a user whose jobs of two groups are worth the same per GPU on a type (every job is
 * worth 1 on its best type) may give the time to either — which the value checks above cover
 * and which must stay rare.  And a group's time goes to its oldest jobs, at most T of them
 * holding a fraction.  Returns the number of instances with ties. */
static int grouped_against_per_job(const char *setting, unsigned long seed)
{
    double tol = strcmp(setting, "cooperative") == 0 ? 1e-6 : 1e-9;
    gsl_rng *r = rng_stream(seed, "test-oef-groups");
    int shared = 0, ties = 0, runs = 300;
    for (int i = 0; i < runs; i++) {
        struct inst in;
        grouped_inst(&in, r);
        double x[MAXJ * MAXT], xr[MAXJ * MAXT], si, sir;
        /* fresh policies: both solve cold, as a first solve does */
        void *grouped = open_oef_with(setting, 0), *per_job = open_oef_with(setting, 1);
        solve(grouped, &in, x);
        solve(per_job, &in, xr);
        close_oef(grouped);
        close_oef(per_job);
        double total = check_fair(&in, x, &si), ref = check_fair(&in, xr, &sir);
        cr_assert_float_eq(total, ref, tol * fmax(1, ref), "instance %d: grouped %.12g, per job "
                           "%.12g", i, total, ref);
        for (int u = 0; u < in.nu; u++) {
            double a = thr_of(&in, u, x), b = thr_of(&in, u, xr);
            cr_assert_float_eq(a, b, tol * fmax(1, b), "instance %d, user %d: %.12g vs %.12g", i,
                               u, a, b);
        }
        int grp[MAXJ], G = groups_of(&in, grp), T = in.T, tie = 0;
        shared += G < in.J;
        for (int g = 0; g < G; g++) {
            double prev_row = INFINITY;
            int fractional = 0;
            for (int t = 0; t < T; t++) {
                double y = 0, yr = 0;
                for (int j = 0; j < in.J; j++)
                    if (grp[j] == g) {
                        y += x[j * T + t];
                        yr += xr[j * T + t];
                    }
                tie |= fabs(y - yr) > 1e-6;
            }
            for (int j = 0; j < in.J; j++) {
                if (grp[j] != g)
                    continue;
                double row = 0;
                int part = 0;
                for (int t = 0; t < T; t++) {
                    row += x[j * T + t];
                    part |= x[j * T + t] > 1e-9 && x[j * T + t] < 1 - 1e-9;
                }
                /* (the last job served also takes the solver's rounding, < 1e-6) */
                cr_assert_leq(row, prev_row + 1e-6, "instance %d: job %d (%.12g) served before "
                              "an older job of its group (%.12g)", i, j, row, prev_row);
                prev_row = row;
                fractional += part;
            }
            cr_assert_leq(fractional, T, "instance %d, group %d: %d jobs hold a fraction", i, g,
                          fractional);
        }
        if (tie)
            cr_log_info("%s: instance %d, a tie: same values, groups' times differ", setting, i);
        ties += tie;
    }
    /* the instances do have groups to merge, and ties are the exception */
    cr_assert_gt(shared, runs * 9 / 10, "only %d of %d instances have identical jobs", shared,
                 runs);
    cr_assert_lt(ties, runs / 20, "%d of %d instances differ in the groups' times", ties, runs);
    gsl_rng_free(r);
    return ties;
}

Test(oef, cooperative_grouped_matches_per_job)
{
    cr_log_info("cooperative: %d ties", grouped_against_per_job("cooperative", 21));
}

Test(oef, noncooperative_grouped_matches_per_job)
{
    cr_log_info("noncooperative: %d ties", grouped_against_per_job("noncooperative", 22));
}

/* Without identical jobs (random_inst's throughputs are continuous, but a job that runs on one
 * type only is worth (0, .., 1, .., 0) whatever its speed, so such instances are drawn again)
 * every group holds one job and the grouped programs are the per-job programs, row for row:
 * cold, the allocations agree to the bit. */
Test(oef, without_identical_jobs_grouping_changes_nothing)
{
    static const char *const settings[] = { "cooperative", "noncooperative" };
    gsl_rng *r = rng_stream(23, "test-oef-singletons");
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 100; i++) {
            void *grouped = open_oef_with(settings[s], 0), *per_job = open_oef_with(settings[s], 1);
            struct inst in;
            int grp[MAXJ];
            do
                random_inst(&in, r);
            while (groups_of(&in, grp) < in.J);
            double x[MAXJ * MAXT], xr[MAXJ * MAXT];
            solve(grouped, &in, x);
            solve(per_job, &in, xr);
            cr_assert_eq(memcmp(x, xr, (size_t)(in.J * in.T) * sizeof *x), 0, "%s, instance %d",
                         settings[s], i);
            close_oef(grouped);
            close_oef(per_job);
        }
    }
    gsl_rng_free(r);
}

/* ---- warm starts ---- */

/* One change of the kind a policy sees between solves: a job leaves, or one arrives — a copy
 * of a job present (it joins that job's group) or a new kind of job of a random user (who
 * may have had none).  Ids stay distinct and increasing. */
static void step_inst(struct inst *in, gsl_rng *r, int64_t *next_id)
{
    int T = in->T;
    if (in->J == MAXJ || (in->J > 4 && gsl_rng_uniform(r) < 0.5)) {
        int k = (int)gsl_rng_uniform_int(r, (unsigned long)in->J);
        for (int j = k; j + 1 < in->J; j++) {
            in->id[j] = in->id[j + 1];
            in->scale[j] = in->scale[j + 1];
            in->user[j] = in->user[j + 1];
            in->uix[j] = in->uix[j + 1];
            memcpy(&in->thr[j * T], &in->thr[(j + 1) * T], (size_t)T * sizeof *in->thr);
        }
        in->J--;
        return;
    }
    if (gsl_rng_uniform(r) < 0.7) {
        int k = (int)gsl_rng_uniform_int(r, (unsigned long)in->J);
        double thr[MAXT];
        memcpy(thr, &in->thr[k * T], (size_t)T * sizeof *thr);
        add_job(in, in->uix[k], in->scale[k], thr);
    } else {
        double thr[MAXT];
        for (int t = 0; t < T; t++)
            thr[t] = 0.5 + 9.5 * gsl_rng_uniform(r);
        add_job(in, (int)gsl_rng_uniform_int(r, (unsigned long)in->nu),
                1 << gsl_rng_uniform_int(r, 3), thr);
    }
    in->id[in->J - 1] = (*next_id)++;
}

/* A policy that starts each solve from the last one's basis, along a sequence of problems
 * that change a job at a time, against a fresh policy (a cold solve) at every step: both
 * fair, the same total, in the non-cooperative setting the same throughput for every user
 * (the cooperative program may trade among users at the same total: a tie), and the warm
 * starts do take effect — from another basis GLPK ends at another vertex or with other
 * rounding at some of the steps. */
static void warm_against_cold(const char *setting, unsigned long seed)
{
    int coop = strcmp(setting, "cooperative") == 0, steps = 300, differ = 0;
    double tol = coop ? 1e-6 : 1e-9;
    void *warm = open_oef(setting);
    gsl_rng *r = rng_stream(seed, "test-oef-warm");
    struct inst in;
    grouped_inst(&in, r);
    int64_t next_id = 5000;
    for (int j = 0; j < in.J; j++)
        in.id[j] = next_id++;
    for (int i = 0; i < steps; i++) {
        double x[MAXJ * MAXT], xc[MAXJ * MAXT], si, sic;
        void *cold = open_oef(setting);
        solve(warm, &in, x);
        solve(cold, &in, xc);
        close_oef(cold);
        double total = check_fair(&in, x, &si), ref = check_fair(&in, xc, &sic);
        cr_assert_float_eq(total, ref, tol * fmax(1, ref), "%s, step %d: warm %.12g, cold %.12g",
                           setting, i, total, ref);
        for (int u = 0; !coop && u < in.nu; u++) {
            double a = thr_of(&in, u, x), b = thr_of(&in, u, xc);
            cr_assert_float_eq(a, b, tol * fmax(1, b), "step %d, user %d: %.12g vs %.12g", i, u,
                               a, b);
        }
        differ += memcmp(x, xc, (size_t)(in.J * in.T) * sizeof *x) != 0;
        step_inst(&in, r, &next_id);
    }
    cr_log_info("%s: warm and cold allocations differ at %d of %d steps", setting, differ,
                steps);
    cr_assert_gt(differ, 0, "%s: the warm starts never changed a thing", setting);
    gsl_rng_free(r);
    close_oef(warm);
}

Test(oef, cooperative_warm_starts_reach_the_cold_optimum)
{
    warm_against_cold("cooperative", 24);
}

Test(oef, noncooperative_warm_starts_reach_the_cold_optimum)
{
    warm_against_cold("noncooperative", 25);
}

/* ---- end to end ---- */

static struct job_spec *user_jobs(int n, int users, unsigned long seed)
{
    static const char *const names[] = { "ResNet-18 (batch size 64)", "ResNet-50 (batch size 64)",
                                         "Transformer (batch size 64)", "LM (batch size 20)",
                                         "CycleGAN", "A3C" };
    static const int workers[] = { 1, 1, 1, 2, 4 };
    gsl_rng *r = rng_stream(seed, "test-oef-jobs");
    struct job_spec *j = calloc((size_t)n, sizeof *j);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_rng_uniform(r) * 120;
        int jt = tput_find(th_m, names[gsl_rng_uniform_int(r, 6)]);
        cr_assert_geq(jt, 0);
        j[i] = (struct job_spec){ .id = i, .arrival = sim_from_sec(t), .jtype = jt,
                                  .workers = workers[gsl_rng_uniform_int(r, 5)],
                                  .user = (int32_t)gsl_rng_uniform_int(r, (unsigned long)users),
                                  .work = 5000 + 50000 * gsl_rng_uniform(r), .weight = 1 };
    }
    gsl_rng_free(r);
    return j;
}

static void run_end_to_end(const char *params)
{
    enum { N = 40 };
    struct job_spec *jobs = user_jobs(N, 4, 5);
    struct train_config cfg = { .restore_delay_s = 10, .until = SIM_NEVER };
    struct th_result a = th_run_policy(cl, th_m, jobs, N, "oef", params, &cfg);
    struct th_result b = th_run_policy(cl, th_m, jobs, N, "oef", params, &cfg);
    th_check_run(&a, N, cl, params);
    cr_assert_eq(a.n, b.n);
    cr_assert_eq(a.decisions, b.decisions);
    cr_assert_eq(a.events, b.events);
    for (int i = 0; i < a.n; i++) {
        cr_assert_eq(a.r[i].id, b.r[i].id, "%s: jobs left in another order", params);
        cr_assert_eq(a.r[i].finish, b.r[i].finish, "%s: job %lld", params, a.r[i].id);
        cr_assert_eq(a.r[i].preemptions, b.r[i].preemptions);
        cr_assert_eq(a.r[i].migrations, b.r[i].migrations);
    }
    th_result_free(&a);
    th_result_free(&b);
    free(jobs);
}

Test(oef, end_to_end_cooperative)
{
    run_end_to_end("{\"setting\": \"cooperative\"}");
}

Test(oef, end_to_end_noncooperative)
{
    run_end_to_end("{\"setting\": \"noncooperative\"}");
}
