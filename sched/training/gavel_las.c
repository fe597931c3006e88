/*
 * gavel_las, gavel_las_perf: Gavel's max-min fairness ("least attained service") policies.
 * Narayanan et al., Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
 * Workloads, OSDI 2020, section 4.1 (and stanford-futuredata/gavel, policies/max_min_fairness.py).
 *
 * x[j][w] = fraction of time job j spends on GPU type w.  The LP:
 *   maximize   t
 *   subject to t <= sum_w T[j][w] * s_j * x[j][w] / (w_j * P_j)     for every job j
 *              sum_w x[j][w] <= 1                                   for every job j
 *              sum_j s_j * x[j][w] <= N_w                           for every type w
 *              x >= 0
 * with T[j][w] the job's throughput on type w (whole job, its scale factor s_j), w_j its
 * priority weight, and P_j = sum_w T[j][w] * N_w / N its throughput under an equal share of
 * the cluster (N GPUs in all), so that every job's throughput is normalized by what it would
 * get alone on 1/N of every type.  gavel_las_perf uses the measured T; gavel_las, the
 * heterogeneity-agnostic variant, sets every T = 1 (so it equalizes GPU time, not speed).
 * Solved with GLPK's simplex; x is clipped to [0, 1] as Gavel does.
 *
 * Assumptions the paper leaves open: P_j uses a proportional split of each type (Gavel's
 * isolated allocation has many optima; Gavel's own simulator uses this one); gavel_las_perf gives no x where a job cannot run (T = 0).  The LP has many
 * optimal solutions (max-min fixes only the worst job); GLPK returns one vertex, Gavel's HiGHS
 * another, which is why calibration allows a few percent.  For gavel_las the degeneracy is
 * total — only each job's total share sum_w x[j][w] matters — and a simplex vertex fills the
 * first types' columns (all K80 when the cluster is half empty), so gavel_las splits each
 * job's share over the types in proportion to their size instead: an optimum of the same LP
 * that favours no type, as a heterogeneity-agnostic policy should.  Like Gavel's, it is blind
 * to where a job cannot run (T = 1 everywhere); the share on such a type is wasted.
 *
 * Rounds: 360 s (Gavel's default); the allocation is recomputed when the set of jobs changes.
 * Cost: one LP of G*T + 1 columns and 2G + T rows for G groups of identical jobs (below),
 * edited between recomputes and warm-started from the previous basis.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../alloc.h"
#include "../lp.h"

struct las {
    struct alloc_base base;     /* first: alloc_train finds it here */
    int               perf;     /* 1: use throughputs (gavel_las_perf) */
    glp_prob         *lp;       /* kept between recomputes */
    struct group     *groups;   /* the LP's blocks, in order */
    int              *prev_count;
    int               ngroups, gcap, nblocks, ntypes;
    int              *group_of; /* per job of the current problem */
    size_t            jcap;
    double            cap[CLUSTER_MAX_TYPES], N;
};

/* The throughput the LP sees: measured, or 1 on every type for the agnostic variant (which,
 * as Gavel's, does not know where a job cannot run). */
static double lp_thr(const struct las *s, const struct alloc_problem *p, int j, int w)
{
    if (!s->perf)
        return 1.0;
    return p->thr[j * p->ntypes + w] > 0 ? p->thr[j * p->ntypes + w] : 0;
}

/*
 * Identical jobs (same throughputs, scale factor and weight) share one block of the LP: the
 * average of an optimal x over identical jobs is feasible and optimal (every constraint is
 * linear and symmetric in them), so the LP over groups — with a group's capacity use
 * count * s_g * x_g[w] — has the same optimum, gives identical jobs identical shares, and is
 * a few dozen blocks instead of hundreds.
 *
 * The LP is kept between recomputes and edited: rows 1..T are the capacities, column 1 is t;
 * group g owns rows T+2g+1 (fairness) and T+2g+2 (time) and columns 2+gT .. 1+(g+1)T.  Groups
 * keep their blocks while they have jobs (only the capacity coefficients follow the counts),
 * new groups are appended, emptied ones deleted, and the simplex restarts from the previous
 * basis (lp_resolve).
 */
struct group {
    int     scale, count;
    double  weight;
    double  thr[CLUSTER_MAX_TYPES];
};

static int same_group(const struct group *g, const struct alloc_problem *p, struct las *s,
                      int j)
{
    if (g->scale != p->scale[j] || g->weight != p->weight[j])
        return 0;
    for (int w = 0; w < p->ntypes; w++)
        if (g->thr[w] != lp_thr(s, p, j, w))
            return 0;
    return 1;
}

static void set_capacity_coefs(struct las *s, int g, int T)
{
    const struct group *gr = &s->groups[g];
    double P = 0;
    for (int w = 0; w < T; w++)
        P += gr->thr[w] * s->cap[w] / s->N;
    int r = T + 2 * g + 1, c = 2 + g * T;
    for (int w = 0; w < T; w++) {
        int rows[4];
        double vals[4];
        int k = 0;
        if (gr->thr[w] > 0) {
            if (P > 0)
                rows[++k] = r, vals[k] = gr->thr[w] * gr->scale / (gr->weight * P);
            rows[++k] = r + 1, vals[k] = 1;
            rows[++k] = 1 + w, vals[k] = (double)gr->count * gr->scale;
        }
        glp_set_mat_col(s->lp, c + w, k, rows, vals);
    }
}

static void add_block(struct las *s, int g, int T)
{
    glp_prob *lp = s->lp;
    int r = glp_add_rows(lp, 2), c = glp_add_cols(lp, T);
    glp_set_row_bnds(lp, r, GLP_LO, 0, 0);          /* sum_w coef x - t >= 0 */
    glp_set_row_bnds(lp, r + 1, GLP_UP, 0, 1);      /* sum_w x <= 1 */
    for (int w = 0; w < T; w++) {
        int can = s->groups[g].thr[w] > 0;
        glp_set_col_bnds(lp, c + w, can ? GLP_DB : GLP_FX, 0, can ? 1 : 0);
        glp_set_col_stat(lp, c + w, GLP_NL);
    }
    int ind[2] = { 0, 1 };
    double val[2] = { 0, -1 };
    glp_set_mat_row(lp, r, 1, ind, val);            /* -t; the columns add the rest */
    set_capacity_coefs(s, g, T);
    glp_set_row_stat(lp, r, GLP_BS);
    glp_set_row_stat(lp, r + 1, GLP_BS);
}

static void fresh(struct las *s, int T)
{
    glp_prob *lp = s->lp;
    glp_erase_prob(lp);
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, T);
    for (int w = 0; w < T; w++)
        glp_set_row_bnds(lp, 1 + w, GLP_UP, 0, s->cap[w]);
    glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, 1, GLP_FR, 0, 0);
    glp_set_obj_coef(lp, 1, 1);
    s->nblocks = 0;
}

/* Phase 1 maximizes the worst job's normalized throughput t.  That optimum is very
 * degenerate: any allocation keeping everyone at t or above is optimal, including ones that
 * leave GPUs idle.  Phase 2 keeps t at its optimum and maximizes the total normalized
 * throughput (count_g times the fairness row of group g), so spare capacity goes where it
 * helps most — max-min fairness with Pareto efficiency, and one well-defined answer. */
static int solve_two_phase(struct las *s, int T, const char *what, struct errbuf *err)
{
    glp_prob *lp = s->lp;
    int ncol = glp_get_num_cols(lp);
    glp_set_col_bnds(lp, 1, GLP_FR, 0, 0);
    for (int c = 1; c <= ncol; c++)
        glp_set_obj_coef(lp, c, c == 1);
    if (lp_resolve(lp, what, NULL, err) < 0)
        return -1;
    double t = glp_get_obj_val(lp);
    glp_set_col_bnds(lp, 1, GLP_LO, t - 1e-9 * fabs(t), 0);
    glp_set_obj_coef(lp, 1, 0);
    int ind[8];
    double val[8];
    for (int g = 0; g < s->nblocks; g++) {
        int n = glp_get_mat_row(lp, T + 2 * g + 1, ind, val);
        for (int k = 1; k <= n; k++)
            if (ind[k] != 1)
                glp_set_obj_coef(lp, ind[k], val[k] * s->groups[g].count);
    }
    return lp_reoptimize(lp, what, err);
}

static int las_allocate(void *self, const struct alloc_problem *p, double *x,
                        struct errbuf *err)
{
    struct las *s = self;
    int J = p->njobs, T = p->ntypes;
    if (J == 0)
        return 0;
    if (s->ntypes != T || memcmp(s->cap, p->cap, (size_t)T * sizeof *s->cap) != 0) {
        s->ntypes = T;
        memcpy(s->cap, p->cap, (size_t)T * sizeof *s->cap);
        s->N = 0;
        for (int w = 0; w < T; w++)
            s->N += p->cap[w];
        s->ngroups = 0;
        fresh(s, T);
    }
    if ((size_t)J > s->jcap) {
        int *gi = realloc(s->group_of, (size_t)J * 2 * sizeof *gi);
        if (gi == NULL)
            return err_run(err, "out of memory");
        s->group_of = gi;
        s->jcap = (size_t)J * 2;
    }
    /* count this problem's jobs into the existing groups, appending new groups */
    int old = s->ngroups;
    for (int g = 0; g < s->ngroups; g++)
        s->groups[g].count = 0;
    for (int j = 0; j < J; j++) {
        int g = 0;
        while (g < s->ngroups && !same_group(&s->groups[g], p, s, j))
            g++;
        if (g == s->ngroups) {
            if (s->ngroups == s->gcap) {
                int n = s->gcap ? 2 * s->gcap : 32;
                struct group *ng = realloc(s->groups, (size_t)n * sizeof *ng);
                int *pc = realloc(s->prev_count, (size_t)n * sizeof *pc);
                if (ng == NULL || pc == NULL) {
                    free(ng ? ng : s->groups);
                    s->groups = NULL;
                    s->prev_count = pc;
                    return err_run(err, "out of memory");
                }
                s->groups = ng;
                s->prev_count = pc;
                s->gcap = n;
            }
            struct group *gr = &s->groups[s->ngroups++];
            gr->scale = p->scale[j];
            gr->weight = p->weight[j];
            gr->count = 0;
            for (int w = 0; w < T; w++)
                gr->thr[w] = lp_thr(s, p, j, w);
        }
        s->groups[g].count++;
        s->group_of[j] = g;
    }
    /* drop emptied groups (and their blocks), keeping the others in order */
    int keep = 0, ndr = 0, ndc = 0;
    int drow[2 * 64 + 1], dcol[CLUSTER_MAX_TYPES * 64 + 1], remap_small[64];
    int *remap = s->ngroups <= 64 ? remap_small : malloc((size_t)s->ngroups * sizeof *remap);
    if (remap == NULL)
        return err_run(err, "out of memory");
    int many = 0;
    for (int g = 0; g < s->ngroups; g++) {
        if (s->groups[g].count > 0) {
            remap[g] = keep;
            if (g < old)
                s->prev_count[keep] = s->prev_count[g];
            s->groups[keep++] = s->groups[g];
            continue;
        }
        remap[g] = -1;
        if (g < old) {
            if (ndr + 2 > 2 * 64 || ndc + T > CLUSTER_MAX_TYPES * 64)
                many = 1;
            else {
                drow[++ndr] = T + 2 * g + 1;
                drow[++ndr] = T + 2 * g + 2;
                for (int w = 0; w < T; w++)
                    dcol[++ndc] = 2 + g * T + w;
            }
        }
    }
    int kept_old = 0;
    for (int g = 0; g < old; g++)
        kept_old += remap[g] >= 0;
    for (int j = 0; j < J; j++)
        s->group_of[j] = remap[s->group_of[j]];
    if (remap != remap_small)
        free(remap);
    s->ngroups = keep;
    if (many || s->nblocks != old) {
        fresh(s, T);
        kept_old = 0;
    } else if (ndr > 0) {
        glp_del_rows(s->lp, ndr, drow);
        glp_del_cols(s->lp, ndc, dcol);
    }
    for (int g = 0; g < kept_old; g++)
        if (s->groups[g].count != s->prev_count[g])
            set_capacity_coefs(s, g, T);
    for (int g = kept_old; g < keep; g++)
        add_block(s, g, T);
    for (int g = 0; g < keep; g++)
        s->prev_count[g] = s->groups[g].count;
    s->nblocks = keep;
    const char *what = s->perf ? "gavel_las_perf" : "gavel_las";
    if (solve_two_phase(s, T, what, err) < 0) {
        s->ngroups = 0;
        fresh(s, T);
        return -1;
    }
    for (int j = 0; j < J; j++) {
        int g = s->group_of[j];
        double share = 0;
        for (int w = 0; w < T; w++) {
            double v = glp_get_col_prim(s->lp, 2 + g * T + w);
            x[j * T + w] = v < 0 ? 0 : v > 1 ? 1 : v;
            share += x[j * T + w];
        }
        if (!s->perf)
            /* only each job's total share matters to the agnostic LP, so split it over all
             * types in proportion to their size: the one optimum that favours no type, where
             * a simplex vertex would fill whichever columns come first; the share on a type
             * the job cannot run on is wasted, as in Gavel, and dropped */
            for (int w = 0; w < T; w++)
                x[j * T + w] = p->thr[j * T + w] > 0 ? share * p->cap[w] / s->N : 0;
    }
    return 0;
}

static int create(void **self, int perf, const struct policy_env *env, struct errbuf *err)
{
    struct las *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->perf = perf;
    s->lp = glp_create_prob();
    if (alloc_base_init(&s->base, env, las_allocate, 0, err) < 0) {
        glp_delete_prob(s->lp);
        free(s);
        return -1;
    }
    *self = s;
    return 0;
}

static int las_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    (void)params;
    return create(self, 0, env, err);
}

static int las_perf_create(void **self, const struct jobj *params, const struct policy_env *env,
                           struct errbuf *err)
{
    (void)params;
    return create(self, 1, env, err);
}

static void las_destroy(void *self)
{
    struct las *s = self;
    alloc_base_fini(&s->base);
    glp_delete_prob(s->lp);
    free(s->groups);
    free(s->prev_count);
    free(s->group_of);
    free(s);
}

static const struct train_hooks gavel_las_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 360,
    .decide = alloc_train,
    .allocate = las_allocate,
};

const struct policy_ops policy_gavel_las = {
    .name = "gavel_las",
    .domain = "training",
    .summary = "Gavel max-min fairness over GPU time (heterogeneity-agnostic LP)",
    .flags = POLICY_AGNOSTIC,
    .create = las_create,
    .train = &gavel_las_hooks,
    .destroy = las_destroy,
};

static const struct train_hooks gavel_las_perf_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 360,
    .decide = alloc_train,
    .allocate = las_allocate,
};

const struct policy_ops policy_gavel_las_perf = {
    .name = "gavel_las_perf",
    .domain = "training",
    .summary = "Gavel heterogeneity-aware max-min fairness LP over normalized throughput",
    .create = las_perf_create,
    .train = &gavel_las_perf_hooks,
    .destroy = las_destroy,
};
