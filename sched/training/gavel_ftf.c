/*
 * gavel_ftf: Gavel's finish-time fairness policy.  Narayanan et al., OSDI 2020, section 4.2
 * ("Minimize maximum finish-time fairness", after Themis), and stanford-futuredata/gavel
 * policies/finish_time_fairness.py.
 *
 * For job j with age a_j (now - arrival) and r_j iterations left:
 *   rho_j(x) = (a_j + r_j / sum_w T[j][w] x[j][w]) / (a_j + r_j / T_iso_j)
 * the predicted completion time under allocation x over the one under an isolated equal share.
 * The policy solves   minimize max_j rho_j(x)   subject to Gavel's base constraints
 * (x >= 0, sum_w x[j][w] <= 1, sum_j s_j x[j][w] <= N_w).
 *
 * rho_j is convex in x but not linear; for a fixed target R, rho_j(x) <= R is linear:
 *   sum_w T[j][w] x[j][w] >= r_j / (R (a_j + r_j / T_iso_j) - a_j),  needing R (...) > a_j.
 * So the smallest feasible R is found by bisection, each step one feasibility LP (GLPK) in
 * which only the right-hand sides change, warm-started from the previous basis; the x of the
 * smallest feasible R found is returned.  Tolerance: R to 1e-4 relative.
 *
 * Warm start across recomputes: the LP is rebuilt for each new job set, but its first
 * question starts from the basis the previous recompute ended with, carried over job by job
 * (by id: a job's two rows and its columns keep their status, a newcomer starts with its
 * slacks basic, the capacity rows keep theirs; lp_repair_basis mends the count).  From the
 * all-slack basis that first question took about 190 dual simplex pivots at 200 jobs (250
 * at 1,000), two thirds of the policy's time, while the bisection's later questions take
 * about one each; from the carried basis it takes about 14 (pai_scale, 10,000 jobs: 145,091
 * pivots in all before, 10,015 after, the same 5,965 questions).  The bisection (its R
 * sequence, hence every feasibility answer and the R returned) does not depend on the
 * starting basis; which feasible x GLPK returns at the final R would (the feasibility LP has
 * no objective, so every feasible vertex is a tie, and the vertex depends on the path).  So
 * a second phase fixes the answer: at the smallest feasible R, the x that maximizes the total
 * progress sum_j sum_w T[j][w] x[j][w] / T_iso_j (each job's throughput in units of its
 * isolated share), as gavel_las fixes its max-min answer by the total at the max-min level.
 * One primal re-optimization from the last feasible basis, about a third of the policy's
 * time.  Against the previous objective-free vertex (the all-slack path), measured: fft_philly
 * (600 jobs) mean JCT 86,800 -> 85,240 s, mean realized rho 1.42 -> 1.35, worst 23.3 -> 24.8;
 * gavel_philly in Gavel mode mean JCT 470,900 -> 444,250 s, mean rho 1.76 -> 1.36, worst
 * realized rho 74.8 -> 118.3 (one job: the LP bounds the predicted rho of each recompute, not
 * the realized one), 9.3 -> 3.0 CPU s; pai_scale 100,000 jobs 43.6 -> 18.2 CPU s.
 *
 * Isolated share (Gavel computes it with its heterogeneity-agnostic max-min LP): each job
 * gets the GPU time of the water-filling equal share — the largest level L with
 * sum_j min(s_j, L) = N (all jobs at s_j when they fit) — i.e. a fraction X_j = min(1, L/s_j)
 * of the time, spread over the types in proportion to their size:
 *   T_iso_j = X_j * sum_w T[j][w] N_w / N.
 * Assumptions the paper leaves open: priority weights are ignored (as in Gavel's code);
 * jobs that can run nowhere are left out of the constraints; the min-max optimum is not
 * unique, and the second phase's total progress (an assumption of hetsim's, Gavel's solver
 * returns whatever point it converges to) picks among its solutions.
 * Cost per recompute: about 8 warm-started feasibility LPs of J*T columns and 2J + T rows
 * (targets below max_j a_j / b_j are refused without an LP), the first a dozen or so pivots
 * from the carried basis, the others about none; one primal re-optimization for the second
 * phase; O(J log J) to carry the basis.
 */
#include <math.h>
#include <stdlib.h>

#include "../../sim/base/grow.h"
#include "../alloc.h"
#include "../lp.h"

/* the basis a recompute ended with, per job (by id), for the next one's first question */
struct kept {
    int64_t id;
    int     j;                  /* the job's index in that problem */
};

struct ftf {
    struct alloc_base base;     /* first: alloc_train finds it here */
    glp_prob         *lp;
    double           *need_a, *need_b;  /* rho <= R  <=>  thr >= r / (R * b - a): a, b */
    double           *iso;              /* T_iso_j: the job's throughput at its equal share */
    size_t            cap;
    struct kept      *kept;     /* [0, nkept) sorted by id */
    unsigned char    *kstat;    /* [j * (2 + kT) ..]: fairness row, time row, T columns */
    unsigned char     kcap_stat[CLUSTER_MAX_TYPES];
    int               nkept, kT;
    size_t            kcap;
};

/* The water-filling level L: sum_j min(s_j, L) = N (L = +inf if everything fits). */
static double fill_level(const struct alloc_problem *p, double N)
{
    double total = 0;
    for (int j = 0; j < p->njobs; j++)
        total += p->scale[j];
    if (total <= N)
        return INFINITY;
    double lo = 0, hi = N;
    for (int it = 0; it < 100; it++) {
        double mid = (lo + hi) / 2, used = 0;
        for (int j = 0; j < p->njobs; j++)
            used += fmin(p->scale[j], mid);
        if (used > N)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static double thr_of(const struct alloc_problem *p, int j, int w)
{
    double t = p->thr[j * p->ntypes + w];
    return t > 0 ? t : 0;
}

/* Build the feasibility LP once per recompute: rows 1..J fairness (bounds set per R),
 * J+1..2J time, then capacities; columns x[j][w]. */
static void build(struct ftf *s, const struct alloc_problem *p)
{
    int J = p->njobs, T = p->ntypes;
    glp_prob *lp = s->lp;
    glp_erase_prob(lp);
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, 2 * J + T);
    glp_add_cols(lp, J * T);
    for (int j = 0; j < J; j++) {
        int ind[CLUSTER_MAX_TYPES + 1], n = 0;
        double val[CLUSTER_MAX_TYPES + 1], one[CLUSTER_MAX_TYPES + 1];
        for (int w = 0; w < T; w++) {
            int c = 1 + j * T + w;
            double t = thr_of(p, j, w);
            glp_set_col_bnds(lp, c, t > 0 ? GLP_DB : GLP_FX, 0, t > 0 ? 1 : 0);
            if (t > 0) {
                ++n;
                ind[n] = c;
                val[n] = t;
                one[n] = 1;
            }
        }
        glp_set_mat_row(lp, 1 + j, n, ind, val);
        glp_set_row_bnds(lp, 1 + j, GLP_FR, 0, 0);
        glp_set_mat_row(lp, 1 + J + j, n, ind, one);
        glp_set_row_bnds(lp, 1 + J + j, GLP_UP, 0, 1);
    }
    for (int w = 0; w < T; w++) {
        int *ind = malloc((size_t)(J + 1) * sizeof *ind);
        double *val = malloc((size_t)(J + 1) * sizeof *val);
        int n = 0;
        for (int j = 0; ind && val && j < J; j++)
            if (thr_of(p, j, w) > 0) {
                ++n;
                ind[n] = 1 + j * T + w;
                val[n] = p->scale[j];
            }
        if (ind && val)
            glp_set_mat_row(lp, 1 + 2 * J + w, n, ind, val);
        glp_set_row_bnds(lp, 1 + 2 * J + w, GLP_UP, 0, p->cap[w]);
        free(ind);
        free(val);
    }
}

/* Set the fairness rows for target R; 0 if some job cannot reach R at all. */
static int set_target(struct ftf *s, const struct alloc_problem *p, double R)
{
    for (int j = 0; j < p->njobs; j++) {
        if (s->need_b[j] <= 0)
            continue;               /* can run nowhere: left out */
        double slack = R * s->need_b[j] - s->need_a[j];
        if (slack <= 0)
            return 0;
        glp_set_row_bnds(s->lp, 1 + j, GLP_LO, p->remaining[j] / slack, 0);
    }
    return 1;
}

static int feasible(struct ftf *s, const struct alloc_problem *p, double R, struct errbuf *err)
{
    if (!set_target(s, p, R))
        return 0;
    return lp_feasible(s->lp, "gavel_ftf", err);
}

static int by_id(const void *a, const void *b)
{
    const struct kept *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Remember the final basis by job id; -1 on no memory (the next recompute then starts cold). */
static int keep_basis(struct ftf *s, const struct alloc_problem *p)
{
    int J = p->njobs, T = p->ntypes, per = 2 + T;
    s->nkept = 0;
    if ((size_t)J > s->kcap) {
        size_t n = (size_t)J * 2;
        int failed = 0;
        s->kept = grow_array(s->kept, n, sizeof *s->kept, &failed);
        s->kstat = grow_array(s->kstat, n, 2 + CLUSTER_MAX_TYPES, &failed);
        if (failed)
            return -1;
        s->kcap = n;
    }
    for (int j = 0; j < J; j++) {
        unsigned char *st = s->kstat + (size_t)j * per;
        s->kept[j] = (struct kept){ p->id[j], j };
        st[0] = (unsigned char)glp_get_row_stat(s->lp, 1 + j);
        st[1] = (unsigned char)glp_get_row_stat(s->lp, 1 + J + j);
        for (int w = 0; w < T; w++)
            st[2 + w] = (unsigned char)glp_get_col_stat(s->lp, 1 + j * T + w);
    }
    for (int w = 0; w < T; w++)
        s->kcap_stat[w] = (unsigned char)glp_get_row_stat(s->lp, 1 + 2 * J + w);
    qsort(s->kept, (size_t)J, sizeof *s->kept, by_id);
    s->nkept = J;
    s->kT = T;
    return 0;
}

/* Give the freshly built LP the kept statuses of the jobs it shares with the last one
 * (GLPK turns a non-basic status into the one its bounds allow). */
static void carry_basis(struct ftf *s, const struct alloc_problem *p)
{
    int J = p->njobs, T = p->ntypes;
    if (s->nkept == 0 || s->kT != T)
        return;
    for (int j = 0; j < J; j++) {
        struct kept key = { p->id[j], 0 };
        const struct kept *k = bsearch(&key, s->kept, (size_t)s->nkept, sizeof *s->kept, by_id);
        if (k == NULL)
            continue;               /* a newcomer: its slacks basic, as built */
        const unsigned char *st = s->kstat + (size_t)k->j * (2 + T);
        glp_set_row_stat(s->lp, 1 + j, st[0]);
        glp_set_row_stat(s->lp, 1 + J + j, st[1]);
        for (int w = 0; w < T; w++)
            glp_set_col_stat(s->lp, 1 + j * T + w, st[2 + w]);
    }
    for (int w = 0; w < T; w++)
        glp_set_row_stat(s->lp, 1 + 2 * J + w, s->kcap_stat[w]);
}

static int ftf_allocate(void *self, const struct alloc_problem *p, double *x,
                        struct errbuf *err)
{
    struct ftf *s = self;
    int J = p->njobs, T = p->ntypes;
    if (J == 0)
        return 0;
    if ((size_t)J > s->cap) {
        size_t n = (size_t)J * 2;
        int failed = 0;
        s->need_a = grow_array(s->need_a, n, sizeof *s->need_a, &failed);
        s->need_b = grow_array(s->need_b, n, sizeof *s->need_b, &failed);
        s->iso = grow_array(s->iso, n, sizeof *s->iso, &failed);
        if (failed)
            return err_run(err, "out of memory");
        s->cap = n;
    }
    double N = 0;
    for (int w = 0; w < T; w++)
        N += p->cap[w];
    double L = fill_level(p, N);
    for (int j = 0; j < J; j++) {
        double X = isinf(L) ? 1 : fmin(1, L / p->scale[j]), iso = 0;
        for (int w = 0; w < T; w++)
            iso += thr_of(p, j, w) * X * p->cap[w] / N;
        s->iso[j] = iso;
        s->need_a[j] = p->age_s[j];
        s->need_b[j] = iso > 0 ? p->age_s[j] + p->remaining[j] / iso : 0;
    }
    build(s, p);
    carry_basis(s, p);
    /* bracket: grow hi until feasible (it is for R large enough when every job can run
     * somewhere and fits a type), then bisect */
    double lo = 0, hi = 1;
    int rc;
    for (int k = 0; (rc = feasible(s, p, hi, err)) == 0; k++) {
        if (k == 60)
            return err_run(err, "gavel_ftf: no allocation reaches any finish-time target");
        lo = hi;
        hi *= 2;
    }
    if (rc < 0)
        return -1;
    double *xb = malloc((size_t)(J * T) * sizeof *xb);
    if (xb == NULL)
        return err_run(err, "out of memory");
    for (int c = 0; c < J * T; c++)
        xb[c] = glp_get_col_prim(s->lp, 1 + c);
    while (hi - lo > 1e-4 * hi) {
        double mid = (lo + hi) / 2;
        rc = feasible(s, p, mid, err);
        if (rc < 0) {
            free(xb);
            return -1;
        }
        if (rc) {
            hi = mid;
            for (int c = 0; c < J * T; c++)
                xb[c] = glp_get_col_prim(s->lp, 1 + c);
        } else {
            lo = mid;
        }
    }
    /* second phase at the smallest feasible R: the most total progress, in units of each
     * job's isolated throughput, so that the answer is the LP's, not the solver's path */
    if (set_target(s, p, hi) && (rc = lp_feasible(s->lp, "gavel_ftf", err)) == 1) {
        glp_set_obj_dir(s->lp, GLP_MAX);
        for (int j = 0; j < J; j++)
            for (int w = 0; w < T; w++)
                if (s->iso[j] > 0)
                    glp_set_obj_coef(s->lp, 1 + j * T + w, thr_of(p, j, w) / s->iso[j]);
        if (lp_reoptimize(s->lp, "gavel_ftf", err) < 0) {
            free(xb);
            return -1;
        }
        for (int c = 0; c < J * T; c++)
            xb[c] = glp_get_col_prim(s->lp, 1 + c);
    } else if (rc < 0) {
        free(xb);
        return -1;
    }
    for (int c = 0; c < J * T; c++)
        x[c] = xb[c] < 0 ? 0 : xb[c] > 1 ? 1 : xb[c];
    free(xb);
    if (keep_basis(s, p) < 0)
        s->nkept = 0;
    return 0;
}

static int ftf_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    (void)params;
    struct ftf *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->lp = glp_create_prob();
    if (alloc_base_init(&s->base, env, ftf_allocate, 0, err) < 0) {
        glp_delete_prob(s->lp);
        free(s);
        return -1;
    }
    *self = s;
    return 0;
}

static void ftf_destroy(void *self)
{
    struct ftf *s = self;
    alloc_base_fini(&s->base);
    glp_delete_prob(s->lp);
    free(s->need_a);
    free(s->need_b);
    free(s->iso);
    free(s->kept);
    free(s->kstat);
    free(s);
}

static const struct train_hooks gavel_ftf_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 360,
    .decide = alloc_train,
    .allocate = ftf_allocate,
};

const struct policy_ops policy_gavel_ftf = {
    .name = "gavel_ftf",
    .domain = "training",
    .summary = "Gavel heterogeneity-aware finish-time fairness (min-max rho, bisection over LPs)",
    .create = ftf_create,
    .train = &gavel_ftf_hooks,
    .destroy = ftf_destroy,
};
