/*
 * sia: Sia's per-round allocation (Jayaram Subramanya et al., "Sia: Heterogeneity-aware,
 * goodput-optimized ML-cluster scheduling", SOSP'23, section 4.2), on the training world's
 * elastic jobs.
 *
 * Every round (60 s by default, Sia's) each active job j is offered configurations c = (GPU
 * type t, count n), n a power of two or the job's min_workers, inside its [min_workers,
 * max_workers] and the type's size.  Its value there is its goodput normalized by its goodput
 * on its smallest configuration of its best type, raised to the fairness power p, with the
 * restart penalty on configurations other than the one it runs on:
 *   v_jc = (G_jc / G_j0)^p * (c == current ? 1 : max(0.05, 1 - r_j / T)),
 * r_j its restart delay (the world's, per job type where sim.restore_by_type says), T the
 * round.  The ILP
 *   maximize  sum_jc v_jc x_jc
 *   s.t.      sum_c x_jc <= 1                      every job: at most one configuration
 *             sum_j sum_{c of type t} n_c x_jc <= N_t   every GPU type: its GPUs
 *             x_jc in {0, 1}
 * picks each job's configuration; a job keeping its (type, count) keeps its very GPUs.
 *
 * Solving it (sia_solve).  First its LP relaxation (GLPK simplex).  A basic optimum has at
 * most one fractional job per GPU type row; the rounding keeps the jobs at 1 and gives the
 * jobs left fractional, in order of their LP value, their best-valued configuration that
 * still fits.  When the rounding reaches the LP bound it is optimal and nothing more is done.
 * Otherwise GLPK's branch and bound (glp_intopt, presolve off, so that it starts from the
 * relaxation's optimal basis) solves the ILP, with the rounding handed to it as its first
 * incumbent at the root (glp_ios_heur_sol): every node whose bound does not beat it is pruned
 * at once, and the answer is never worse than the rounding.  The search stops after
 * `node_limit` nodes (default 5,000) — a count, not a time, so that the answer does not
 * depend on the machine — with the best integer answer found; each stop is counted
 * (sia_ilp_limit_hits).  Plain branch and bound (presolve on, no incumbent) took minutes on
 * some of heet_cluster's rounds (hundreds of jobs, many identical, so many equal optima), as
 * the rounding-only version of this file recorded; with the incumbent and the limit a round
 * costs at most node_limit dual-simplex re-solves (heet_cluster: 2 rounds over five seeds
 * reached it).  GLPK's settings are
 * fixed (Driebeck-Tomlin branching, best-local-bound backtracking, relative gap 0, no cuts):
 * the same round gives the same answer.  `"solver": "rounding"` keeps the rounding alone
 * (hetsim before the exact ILP), to measure what exactness changes.  Metrics of a run:
 * sia_rounds (rounds with at least one job), sia_ilp_branched (rounds whose rounding did not
 * reach the LP bound, so that branch and bound ran), sia_ilp_limit_hits (rounds not proven optimal), sia_ilp_nodes_max,
 * sia_rounding_gap_mean and _max (per round, (answer - rounding) / rounding objective).
 *
 * Assumptions Sia leaves open here or that hetsim's world decides:
 *  - goodput = throughput x statistical efficiency; the jobs' global batch is fixed (Heet's
 *    and Philly-derived jobs have no gradient statistics, and Sia's workloads run here at
 *    their trace batch), so efficiency is the same in every configuration and G_jc is the
 *    throughput model's rate at a consolidated placement (the view's rate): Sia's
 *    bootstrapped profiles taken as exact;
 *  - p in (0, 1] (default 0.5): Sia's p < 0 (which minimizes) is not offered, since with
 *    "at most one configuration" a minimization would allocate nothing; values > 0 trade
 *    total goodput (p = 1) for spreading GPUs over more jobs (p -> 0);
 *  - the penalty factor is floored at 0.05 so that a restart is never worth nothing;
 *  - configurations are per type (Sia never mixes types in one job either);
 *  - Sia's own solver stops at a relative gap of 1e-4 (sia_solver_thresh); here the gap is
 *    0 up to the node limit.
 * Cost per round: one LP of A x C columns for A active jobs and C <= T log2(max) configs,
 * then at most node_limit re-solves of it.
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lp.h"
#include "../plan.h"
#include "../policy.h"
#include "sia.h"

/* ---------------------------------------------------------------- the ILP */

struct frac {                   /* a job the LP left fractional: its configurations */
    size_t  from, to;           /* [from, to) in the configurations */
    double  lpv;                /* its value in the LP optimum */
};

static int cmp_frac(const void *a, const void *b)
{
    const struct frac *x = a, *y = b;
    if (x->lpv != y->lpv)
        return x->lpv > y->lpv ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

struct search {                 /* what the branch-and-bound callback needs */
    const unsigned char *start; /* the rounding, by configuration */
    size_t   nc;
    double  *x;                 /* 1-based, for glp_ios_heur_sol */
    int64_t  limit, nodes;      /* the limit; the most nodes the tree has had */
    int      given, stopped;
};

static void on_node(glp_tree *tree, void *info)
{
    struct search *s = info;
    int active, current, total;
    glp_ios_tree_size(tree, &active, &current, &total);
    s->nodes = total > s->nodes ? total : s->nodes;
    if (total > s->limit) {
        s->stopped = 1;
        glp_ios_terminate(tree);
        return;
    }
    if (glp_ios_reason(tree) == GLP_IHEUR && !s->given) {
        s->given = 1;
        for (size_t k = 0; k < s->nc; k++)
            s->x[k + 1] = s->start[k];
        glp_ios_heur_sol(tree, s->x);
    }
}

int sia_solve(const struct sia_cfg *c, size_t nc, int nt, const int *count,
              const struct sia_how *how, unsigned char *pick, struct sia_result *res,
              struct errbuf *err)
{
    memset(res, 0, sizeof *res);
    memset(pick, 0, nc);
    if (nc == 0)
        return 0;
    int njobs = 0, rc = -1;
    int *row_of = malloc(sizeof *row_of * nc);
    struct frac *frac = malloc(sizeof *frac * nc);
    int *freec = malloc(sizeof *freec * (size_t)(nt > 0 ? nt : 1));
    double *x = malloc(sizeof *x * (nc + 1));
    unsigned char *best = malloc(nc);
    glp_prob *lp = glp_create_prob();
    if (row_of == NULL || frac == NULL || freec == NULL || x == NULL || best == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    glp_set_obj_dir(lp, GLP_MAX);
    /* rows: one per job (in the order its configurations came), then one per type */
    for (size_t k = 0; k < nc; k++)
        row_of[k] = k > 0 && c[k].job == c[k - 1].job ? njobs : ++njobs;
    glp_add_rows(lp, njobs + nt);
    for (int r = 1; r <= njobs; r++)
        glp_set_row_bnds(lp, r, GLP_UP, 0, 1);
    for (int i = 0; i < nt; i++)
        glp_set_row_bnds(lp, njobs + 1 + i, GLP_UP, 0, count[i]);
    glp_add_cols(lp, (int)nc);
    int ind[3];
    double val[3];
    for (size_t k = 0; k < nc; k++) {
        int col = (int)k + 1;
        glp_set_obj_coef(lp, col, c[k].v);
        ind[1] = row_of[k];
        val[1] = 1;
        ind[2] = njobs + 1 + c[k].type;
        val[2] = c[k].n;
        glp_set_mat_col(lp, col, 2, ind, val);
        glp_set_col_bnds(lp, col, GLP_DB, 0, 1);
    }
    if (lp_solve(lp, "sia", err) < 0)
        goto out;
    res->lp_obj = glp_get_obj_val(lp);
    /* the rounding */
    int nfrac = 0;
    for (int i = 0; i < nt; i++)
        freec[i] = count[i];
    for (size_t k = 0, first = 0; k < nc; k = first) {
        double lpv = 0;
        int whole = -1;
        for (first = k; first < nc && c[first].job == c[k].job; first++) {
            double xk = glp_get_col_prim(lp, (int)first + 1);
            lpv += xk * c[first].v;
            if (xk > 1 - 1e-9)
                whole = (int)first;
        }
        if (whole >= 0) {
            freec[c[whole].type] -= c[whole].n;
            pick[whole] = 1;
            res->rounded_obj += c[whole].v;
        } else if (lpv > 1e-9) {
            frac[nfrac++] = (struct frac){ k, first, lpv };
        }
    }
    qsort(frac, (size_t)nfrac, sizeof *frac, cmp_frac);
    for (int f = 0; f < nfrac; f++) {
        int bk = -1;
        for (size_t k = frac[f].from; k < frac[f].to; k++)
            if (c[k].n <= freec[c[k].type] && (bk < 0 || c[k].v > c[bk].v))
                bk = (int)k;
        if (bk < 0)
            continue;
        freec[c[bk].type] -= c[bk].n;
        pick[bk] = 1;
        res->rounded_obj += c[bk].v;
    }
    res->obj = res->rounded_obj;
    /* the rounding is optimal when it reaches the bound (up to GLPK's own tolerances) */
    if (how->method == SIA_ROUNDING || res->rounded_obj >= res->lp_obj - 1e-9 * (1 + res->lp_obj)) {
        rc = 0;
        goto out;
    }
    /* glp_intopt without presolve starts from the relaxation's basis, which must be optimal
     * for the problem as it stands: re-solve warm (no pivots when the basis came back) */
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    if (glp_simplex(lp, &sp) != 0 || glp_get_status(lp) != GLP_OPT) {
        err_run(err, "sia: the LP relaxation could not be re-solved for branch and bound");
        goto out;
    }
    for (size_t k = 0; k < nc; k++)
        glp_set_col_kind(lp, (int)k + 1, GLP_BV);
    struct search s = { .start = pick, .nc = nc, .x = x, .limit = how->node_limit };
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.presolve = GLP_OFF;
    ip.br_tech = GLP_BR_DTH;
    ip.bt_tech = GLP_BT_BLB;
    ip.mip_gap = 0;
    ip.cb_func = on_node;
    ip.cb_info = &s;
    int grc = glp_intopt(lp, &ip), ms = glp_mip_status(lp);
    res->branched = 1;
    res->limit_hit = s.stopped;
    res->nodes = s.nodes;
    if (grc != 0 && grc != GLP_ESTOP) {
        err_run(err, "sia: GLPK branch and bound failed (code %d)", grc);
        goto out;
    }
    if (ms == GLP_OPT || ms == GLP_FEAS) {
        double obj = 0;
        for (size_t k = 0; k < nc; k++) {
            best[k] = glp_mip_col_val(lp, (int)k + 1) > 0.5;
            obj += best[k] ? c[k].v : 0;
        }
        /* never worse than the rounding (it was its first incumbent) */
        if (obj > res->rounded_obj) {
            memcpy(pick, best, nc);
            res->obj = obj;
        }
    }
    rc = 0;
out:
    glp_delete_prob(lp);
    free(row_of);
    free(frac);
    free(freec);
    free(x);
    free(best);
    return rc;
}

/* ---------------------------------------------------------------- the policy */

struct sia {
    occ              *scratch;
    double            p;
    struct sia_how    how;
    struct sia_cfg   *c;
    size_t            ccap;
    unsigned char    *pick;
    size_t            kcap;
    struct plan_pick *picks;
    size_t            pcap;
    /* the run's figures (sia_metrics) */
    int64_t           rounds, branched, limit_hits, nodes_max;
    double            gap_sum, gap_max;
};

static const char *const sia_params[] = { "p", "solver", "node_limit", NULL };

static int sia_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    struct sia *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->p = 0.5;
    s->how = (struct sia_how){ SIA_ILP, 5000 };
    const char *solver = "ilp";
    if (jobj_num(params, "p", JOPT, 1e-3, 1, &s->p, err) < 0 ||
        jobj_int(params, "node_limit", JOPT, 1, INT64_C(1) << 30, &s->how.node_limit,
                 err) < 0 ||
        jobj_str(params, "solver", JOPT, &solver, err) < 0) {
        free(s);
        return -1;
    }
    if (strcmp(solver, "ilp") == 0) {
        s->how.method = SIA_ILP;
    } else if (strcmp(solver, "rounding") == 0) {
        s->how.method = SIA_ROUNDING;
    } else {
        free(s);
        return err_input(err, NULL, 0, "solver", "'%s': sia's solver is \"ilp\" (branch and "
                         "bound, the default) or \"rounding\" (the LP relaxation rounded)",
                         solver);
    }
    if ((s->scratch = occ_create(env->cl)) == NULL) {
        free(s);
        return err_run(err, "out of memory");
    }
    *self = s;
    return 0;
}

static void sia_destroy(void *self)
{
    struct sia *s = self;
    occ_destroy(s->scratch);
    free(s->c);
    free(s->pick);
    free(s->picks);
    free(s);
}

int sia_configs(const struct train_view *v, double p, struct sia_cfg **c, size_t *cap,
                size_t *nc)
{
    const int *types;
    int nt = cluster_types(v->cl, &types), failed = 0, count[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        count[i] = train_view_type_cap(v, types[i]);
    double round_s = v->round > 0 ? sim_to_sec(v->round) : 60;
    *nc = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        double base = 0;
        for (int i = 0; i < nt; i++) {
            double r = train_view_rate(v, j, types[i], j->min_workers);
            base = r > base ? r : base;
        }
        if (!(base > 0))
            continue;
        double keep = 1 - train_view_restore_s(v, j) / round_s;
        keep = keep > 0.05 ? keep : 0.05;
        int cur = j->state == JOB_RUNNING ? cluster_type_slot(v->cl, j->gpu_type) : -1;
        for (int i = 0; i < nt; i++)
            for (int n = 1; n <= j->max_workers && n <= count[i]; n *= 2) {
                int m = n < j->min_workers ? j->min_workers : n;
                if (m > count[i] || (n < j->min_workers && n * 2 <= j->min_workers))
                    continue;
                double g = train_view_rate(v, j, types[i], m);
                if (!(g > 0))
                    continue;
                *c = plan_grow(*c, cap, *nc + 1, sizeof **c, &failed);
                if (failed)
                    return -1;
                double val = pow(g / base, p) * (i == cur && m == j->ngpu ? 1 : keep);
                (*c)[(*nc)++] = (struct sia_cfg){ j->slot, i, m, val };
            }
    }
    return 0;
}

static int sia_train(void *self, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err)
{
    struct sia *s = self;
    const int *types;
    int nt = cluster_types(v->cl, &types), failed = 0, count[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        count[i] = train_view_type_cap(v, types[i]);
    size_t nc;
    if (sia_configs(v, s->p, &s->c, &s->ccap, &nc) < 0)
        return err_run(err, "out of memory");
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    if (nc == 0)
        return 0;
    s->pick = plan_grow(s->pick, &s->kcap, nc, 1, &failed);
    s->picks = plan_grow(s->picks, &s->pcap, (size_t)v->n_active, sizeof *s->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");
    struct sia_result res;
    if (sia_solve(s->c, nc, nt, count, &s->how, s->pick, &res, err) < 0)
        return -1;
    s->rounds++;
    s->branched += res.branched;
    s->limit_hits += res.limit_hit;
    s->nodes_max = res.nodes > s->nodes_max ? res.nodes : s->nodes_max;
    double gap = res.rounded_obj > 0 ? (res.obj - res.rounded_obj) / res.rounded_obj : 0;
    s->gap_sum += gap;
    s->gap_max = gap > s->gap_max ? gap : s->gap_max;
    int npicks = 0;
    for (size_t k = 0; k < nc; k++)
        if (s->pick[k])
            s->picks[npicks++] = (struct plan_pick){ &v->jobs[s->c[k].job], types[s->c[k].type],
                                                     s->c[k].n };
    return plan_commit(&p, s->picks, npicks, err);
}

static int sia_metrics(void *self, const struct policy_metric_sink *out, struct errbuf *err)
{
    const struct sia *s = self;
    if (s->rounds == 0)
        return 0;
    return (out->put(out->ctx, "sia_rounds", (double)s->rounds, err) < 0 ||
            out->put(out->ctx, "sia_ilp_branched", (double)s->branched, err) < 0 ||
            out->put(out->ctx, "sia_ilp_limit_hits", (double)s->limit_hits, err) < 0 ||
            out->put(out->ctx, "sia_ilp_nodes_max", (double)s->nodes_max, err) < 0 ||
            out->put(out->ctx, "sia_rounding_gap_mean", s->gap_sum / (double)s->rounds,
                     err) < 0 ||
            out->put(out->ctx, "sia_rounding_gap_max", s->gap_max, err) < 0)
               ? -1
               : 0;
}

static const struct train_hooks sia_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 60,
    .decide = sia_train,
};

const struct policy_ops policy_sia = {
    .name = "sia",
    .domain = "training",
    .summary = "elastic: Sia (SOSP'23), per-round ILP over (GPU type, count) configurations, "
               "goodput^p with the restart penalty (GLPK branch and bound)",
    .params = sia_params,
    .create = sia_create,
    .train = &sia_hooks,
    .metrics = sia_metrics,
    .destroy = sia_destroy,
};
