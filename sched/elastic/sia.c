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
 * It is solved through its LP relaxation (GLPK simplex): a basic optimum has at most one
 * fractional job per GPU type row, the jobs at 1 keep their configuration, and the jobs left
 * fractional get, in order of their LP value, their best-valued configuration that still
 * fits.  Branch and cut proved optimality on small rounds but took minutes on some of
 * heet_cluster's (hundreds of jobs), and a time limit would make the answer depend on the
 * machine's speed; the rounding is deterministic.  On the tests' small cases it is the ILP's
 * optimum (enumerated by hand in tests/test_elastic.c).
 *
 * Assumptions Sia leaves open here or that hetsim's world decides:
 *  - goodput = throughput x statistical efficiency; the jobs' global batch is fixed (Heet's
 *    and Philly-derived jobs have no gradient statistics), so efficiency is the same in every
 *    configuration and G_jc is the throughput model's rate at a consolidated placement (the
 *    view's rate): Sia's bootstrapped profiles taken as exact;
 *  - p in (0, 1] (default 0.5): Sia's p < 0 (which minimizes) is not offered, since with
 *    "at most one configuration" a minimization would allocate nothing; values > 0 trade
 *    total goodput (p = 1) for spreading GPUs over more jobs (p -> 0);
 *  - the penalty factor is floored at 0.05 so that a restart is never worth nothing;
 *  - configurations are per type (Sia never mixes types in one job either).
 * Cost per round: one LP of A x C columns for A active jobs and C <= T log2(max) configs.
 */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>

#include "../lp.h"
#include "../plan.h"
#include "../policy.h"

struct cfg {
    int32_t slot;               /* job slot */
    int     type, n;            /* cluster type slot and GPU count */
    double  v;
};

struct frac {                   /* a job the LP left fractional: its configurations */
    size_t  from, to;           /* [from, to) in sia.c */
    double  lpv;                /* its value in the LP optimum */
};

static int cmp_frac(const void *a, const void *b)
{
    const struct frac *x = a, *y = b;
    if (x->lpv != y->lpv)
        return x->lpv > y->lpv ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

struct sia {
    occ              *scratch;
    struct frac      *frac;
    size_t            fcap;
    double            p;
    struct cfg       *c;
    size_t            ccap;
    struct plan_pick *picks;
    size_t            pcap;
};

static const char *const sia_params[] = { "p", NULL };

static int sia_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    struct sia *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->p = 0.5;
    if (jobj_num(params, "p", JOPT, 1e-3, 1, &s->p, err) < 0) {
        free(s);
        return -1;
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
    free(s->frac);
    free(s->picks);
    free(s);
}

static int sia_train(void *self, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err)
{
    struct sia *s = self;
    const int *types;
    int nt = cluster_types(v->cl, &types), failed = 0, count[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        count[i] = cluster_type_count(v->cl, types[i]);
    size_t nc = 0;
    double round_s = v->round > 0 ? sim_to_sec(v->round) : 60;
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
                s->c = plan_grow(s->c, &s->ccap, nc + 1, sizeof *s->c, &failed);
                if (failed)
                    return err_run(err, "out of memory");
                double val = pow(g / base, s->p) * (i == cur && m == j->ngpu ? 1 : keep);
                s->c[nc++] = (struct cfg){ j->slot, i, m, val };
            }
    }
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    if (nc == 0)
        return 0;
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    /* rows: one per job (in the order its configurations came), then one per type */
    int njobs = 0;
    int *row_of = malloc(sizeof *row_of * nc);
    if (row_of == NULL) {
        glp_delete_prob(lp);
        return err_run(err, "out of memory");
    }
    for (size_t k = 0; k < nc; k++)
        row_of[k] = k > 0 && s->c[k].slot == s->c[k - 1].slot ? njobs : ++njobs;
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
        glp_set_obj_coef(lp, col, s->c[k].v);
        ind[1] = row_of[k];
        val[1] = 1;
        ind[2] = njobs + 1 + s->c[k].type;
        val[2] = s->c[k].n;
        glp_set_mat_col(lp, col, 2, ind, val);
    }
    free(row_of);
    for (size_t k = 0; k < nc; k++)
        glp_set_col_bnds(lp, (int)k + 1, GLP_DB, 0, 1);
    if (lp_solve(lp, "sia", err) < 0) {
        glp_delete_prob(lp);
        return -1;
    }
    s->picks = plan_grow(s->picks, &s->pcap, (size_t)v->n_active, sizeof *s->picks, &failed);
    s->frac = plan_grow(s->frac, &s->fcap, (size_t)njobs, sizeof *s->frac, &failed);
    if (failed) {
        glp_delete_prob(lp);
        return err_run(err, "out of memory");
    }
    int npicks = 0, nfrac = 0, freec[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        freec[i] = count[i];
    for (size_t k = 0, first = 0; k < nc; k = first) {
        double lpv = 0;
        int whole = -1;
        for (first = k; first < nc && s->c[first].slot == s->c[k].slot; first++) {
            double x = glp_get_col_prim(lp, (int)first + 1);
            lpv += x * s->c[first].v;
            if (x > 1 - 1e-9)
                whole = (int)first;
        }
        if (whole >= 0) {
            freec[s->c[whole].type] -= s->c[whole].n;
            s->picks[npicks++] = (struct plan_pick){ &v->jobs[s->c[whole].slot],
                                                     types[s->c[whole].type], s->c[whole].n };
        } else if (lpv > 1e-9) {
            s->frac[nfrac++] = (struct frac){ k, first, lpv };
        }
    }
    glp_delete_prob(lp);
    qsort(s->frac, (size_t)nfrac, sizeof *s->frac, cmp_frac);
    for (int f = 0; f < nfrac; f++) {
        int best = -1;
        for (size_t k = s->frac[f].from; k < s->frac[f].to; k++)
            if (s->c[k].n <= freec[s->c[k].type] && (best < 0 || s->c[k].v > s->c[best].v))
                best = (int)k;
        if (best < 0)
            continue;
        freec[s->c[best].type] -= s->c[best].n;
        s->picks[npicks++] = (struct plan_pick){ &v->jobs[s->c[best].slot],
                                                 types[s->c[best].type], s->c[best].n };
    }
    return plan_commit(&p, s->picks, npicks, err);
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
               "goodput^p with the restart penalty (GLPK)",
    .params = sia_params,
    .create = sia_create,
    .train = &sia_hooks,
    .destroy = sia_destroy,
};
