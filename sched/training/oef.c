/*
 * oef: OEF, "optimal efficiency with fairness" (Z. Mo, H. Xu, W. C. Lau, "Optimal Resource
 * Efficiency with Fairness in Heterogeneous GPU Clusters", Middleware 2024; shared/PAPERS.md
 * section 2).  Whenever the set of active jobs changes, one global program decides how much of
 * each GPU type every user (tenant) gets and how each user's share is split among its jobs;
 * alloc_train (sched/alloc.c) realizes the fractions as rounds and plan_commit places each
 * job's workers on the fewest nodes, keeping running jobs where they are — that packing is
 * the paper's adjacency-aware placer (workers of one job on adjacent GPUs).
 *
 * Quantities (job j of user u(j), d_j GPUs, theta_jt iterations/s of the whole job on d_j GPUs
 * of type t, 0 = cannot run there; C_t GPUs of type t; n users with a runnable job):
 *   a_jt = theta_jt / max_s theta_js        normalized throughput: the share of its best speed
 *   x_jt                                    fraction of time j runs on t (the problem's x)
 *   g_ut = sum_{j of u} d_j x_jt            u's bundle: GPUs of type t it holds on average
 *   A_u  = sum_{j of u, t} a_jt x_jt        u's normalized throughput
 *   V_u(g) = max { sum_{j of u,t} a_jt y_jt : sum_j d_j y_jt <= g_t, sum_t y_jt <= 1, y >= 0 }
 *                                           what bundle g is worth to u: the most normalized
 *                                           throughput u's own jobs could draw from it
 *   e_t  = C_t / n                          the equal share of every type
 *
 * A user's throughput vector.  The paper values a bundle linearly, sum_t w_ut g_ut.  A fixed
 * w_u (say the mean of a_jt / d_j over u's jobs) ignores that a job uses at most d_j GPUs, one
 * type at a time: sharing incentive could then demand more than a small user can use (an
 * infeasible program), and a one-job user would "envy" a twenty-job user's large bundle, which
 * would cap every user at what the smallest can use.  So the valuation here is V_u, exact and
 * concave, and u's throughput vector is its slope p_u at the equal share (below): the
 * normalized throughput per GPU (a_jt / d_j) of u's marginal job on each type.  When u's jobs
 * do not saturate at e, V_u is linear there and the program below is the paper's linear one.
 *
 * Cooperative setting ("setting": "cooperative", the default), one LP:
 *   max  sum_u A_u
 *   s.t. sum_u g_ut <= C_t;  sum_t x_jt <= 1;  0 <= x_jt <= 1;  x_jt = 0 where theta_jt = 0
 *        (SI) A_u >= V_u(e)                            sharing incentive
 *        (EF) A_u >= p_u.g_v + Q_u   for all v != u    envy-freeness
 *   where (p_u, q_u) solves the dual of V_u(e), min e.p + sum_j q_j s.t. d_j p_t + q_j >= a_jt,
 *   p, q >= 0, and Q_u = sum_j q_uj = V_u(e) - p_u.e.  By weak duality V_u(g) <= p_u.g + Q_u
 *   for every g, so (EF) implies exact envy-freeness, A_u >= V_u(g_v): a linear, conservative
 *   form of a constraint that is not convex (V_u is concave in g_v).  At g = e the bound is
 *   tight, so the equal split (each user's best split of e) meets every constraint and the LP
 *   is always feasible.  Among optimal duals the one with the least sum_t C_t p_t is taken (a
 *   second stage): the plane lowest over big bundles, which restrains other users least.
 *   Pareto efficiency comes from the objective: no allocation meeting (SI) and (EF) as written
 *   makes one user better off and none worse.  At the optimum A_u = V_u(g_u) (a better split
 *   inside u would raise the objective and touch no constraint), so each user's jobs share its
 *   bundle to its own best.  This rule is not strategy-proof (tests/test_oef.c finds lies that
 *   pay); that is what the second setting is for.
 *   Solving: every envy row passes through the equal split, and a cold start (presolve, then
 *   phase 1 from x = 0) can end "infeasible" within GLPK's tolerances.  So the LP is written in
 *   deviations from the equal split, x = x_e + z+ - z-, and glp_simplex runs without presolve
 *   from z = 0, a feasible basis; the dual's second stage likewise starts from the first's
 *   optimum.  (lp_solve always presolves, which discards a starting basis.)  Every program
 *   first tries a warm start from the last solve's basis (below) and falls back on these.
 *
 * Non-cooperative setting ("noncooperative"): strategy-proofness.  Equalizing any outcome
 * measured in the reported throughputs (e.g. the largest level every user's normalized
 * throughput reaches) rewards lies, because the user reports the very numbers being evened
 * out.  Two types with one GPU each, user 1 truly values them (1, 1), user 2 (1, 0): the
 * common level is 1 with user 1 on B; if user 1 claims (1, 0.01), equalizing hands it about
 * half of A as well, about 1.5 in real terms.  And with two users and linear valuations,
 * strategy-proofness with Pareto efficiency forces a dictatorship (J. Schummer, Social Choice
 * and Welfare, 1997), so no rule can have both and also give sharing incentive.  This setting
 * therefore equalizes in a unit a user cannot inflate — GPUs of each type, DRF's idea of
 * equalizing shares of resources — by progressive filling, type by type:
 *   D_ut = sum_{j of u, theta_jt > 0} d_j   (the most GPUs of t u's jobs can use at once)
 *   g_ut = min(D_ut, L_t), with the level L_t such that sum_u min(D_ut, L_t) = C_t
 *          (every user gets D_ut when they all fit),
 * and each user's bundle is split among its own jobs to maximize its reported V_u (its own
 * small LP).  Why no lie pays: a user reports its jobs' throughputs (the scheduler sees the
 * jobs and their sizes), and reports enter g_u only through which types are > 0 (D_ut); each
 * type is filled on its own.  Claiming more demand D' > D can only lower L_t; claiming less
 * can only leave the user below L_t; either way min(g'_ut, D_ut) <= g_ut.  No job can use
 * more than D_ut GPUs of t, so V_u(g') = V_u(min(g', D_u)) <= V_u(g_u), and the truthful split
 * attains V_u(g_u) while a split computed from false numbers attains at most that.  The rule
 * also gives sharing incentive (g_ut >= min(D_ut, e_t)) and envy-freeness (min(g_vt, D_ut) <=
 * g_ut, hence V_u(g_v) <= V_u(g_u)).  Its price: no trades across types (not Pareto
 * efficient), and a user with few jobs may hold GPUs of several types it cannot use at once;
 * the realizer lends such idle GPUs each round to other jobs that have x > 0 on that type.
 *
 * Groups of identical jobs.  Two jobs of one user with the same d_j and the same a_j. (the
 * same normalized throughput on every type) are interchangeable in every program here: a job
 * enters only through its user's g_u and A_u, its own row sum_t x_jt <= 1 and its user's V_u
 * and D_u, where both look alike.  So the programs are written over groups (user, d, a.) of
 * m_g jobs, in y_gt = sum_{j in g} x_jt with y >= 0, sum_t y_gt <= m_g: every feasible x
 * sums to a feasible y with the same objective and the same g, A, and every feasible y is
 * the sum of a feasible x (the spread below), so the grouped programs have the optimum of the
 * per-job ones and an optimal y spreads into an optimal x.  In V_u's dual, identical jobs
 * have identical rows, so for any p their least q_j are equal: one q_g per group, weighted
 * by m_g, gives the same p and the same plane.  The grouping is exact, not an approximation.
 * What the per-job programs left to the solver — which of a group's jobs get its time, a tie
 * among equal optima (GLPK's vertex handed whole time to arbitrary members) — the spread
 * decides: the group's jobs in problem order (arrival) take its time type by type, each up to
 * all of its own, so all but at most T of them hold all of their time on one type or none,
 * and the oldest are served first, which keeps them where they are from one solve to the next.
 * "per_job": true makes every job its own group (the per-job programs, kept for tests).
 *
 * Assumptions the paper leaves open:
 *  - users are the problem's user ids; n counts users with at least one job that can run on
 *    some type of this cluster (with C_t > 0); jobs that can run nowhere get x = 0.
 *  - normalization by the job's best type in this cluster rather than by a reference type: it
 *    is defined for every job (a job may not run on the reference type), does not depend on
 *    which type the operator calls the reference, and makes a job worth at most 1 per unit of
 *    time, so that models whose iterations are incomparable can be summed.
 *  - a type on which a job's throughput is 0 is simply unavailable to it (x_jt = 0, no term in
 *    V_u, no share of D_ut).
 *  - a user's share is split among its jobs to maximize the user's total normalized throughput
 *    (cooperative: inside the LP; non-cooperative: in the user's own LP).  Per GPU a job earns
 *    a_jt / d_j, so when GPUs are scarce a user's small jobs go first; LP vertices and the
 *    spread give whole jobs rather than thin slices of many.
 *  - job weights are not used: OEF treats tenants alike.
 *  - solved when the job set changes (throughputs do not change otherwise); rounds of 360 s,
 *    Gavel's, since the paper's own round length is not given in PAPERS.md.
 *
 * Cost per solve, with G groups (G <= J; about 15 at pai_scale, whatever its job count):
 * O(J T) to group (a hash table, sched/group.h) and to spread; cooperative, n two-stage dual
 * LPs and n split LPs of about |G_u| T columns, then one LP of at most 2 G T + n (T + 1)
 * columns, T + G + n (T + 2) + n (n - 1) rows and 6 G T + n (n - 1) (T + 1) nonzeros (the
 * per-user bundle and throughput columns keep the n^2 envy rows short); non-cooperative,
 * O(T n log n) for the filling plus n split LPs.  Warm starts add O(rows + columns) per
 * program and save simplex iterations: oef_tenants' cooperative run (400 jobs) took 0.11
 * CPU s with them and 0.25 s without when they were written, pai_scale's 20,000 jobs 0.65 s
 * and 0.85 s.
 * Deterministic: fixed orders, GLPK's deterministic simplex, and warm starts that depend only
 * on the sequence of problems solved — the same run writes the same rows, though one policy
 * solving one problem twice may end at another optimal vertex the second time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/grow.h"
#include "../alloc.h"
#include "../group.h"
#include "../lp.h"

enum { OEF_COOPERATIVE = 0, OEF_NONCOOPERATIVE = 1 };

/*
 * Warm starts.  Each row and column of every program has an identity that outlives the
 * solve: what it stands for (kind), whose it is (a group's serial, a user's id) and which
 * type it is about (or, for an envy row, the other user).  Every program is built afresh,
 * then starts from the statuses its rows and columns had at the last solve (same kind of
 * program, same identities; new rows basic, new columns at a bound), repaired into a valid
 * basis (lp_repair_basis).  So after a few arrivals and completions a solve starts from the
 * last optimal vertex, whatever changed: counts, bounds, envy planes, groups or users.  A
 * group keeps its serial while it exists (same user, d and a. as at the last solve; the same
 * job in per_job mode).  Keeping the statuses rather than the glp_prob costs a rebuild,
 * O(nonzeros), and one group_rows over the old and new identities, O(rows + columns): small
 * next to the simplex iterations it saves, and no row or column needs to be found, added or
 * deleted in place.  A first solve, or a warm one that does not end optimal, runs cold as
 * described above.
 */
enum { ID_W = 3 };
enum { PROG_SPLIT, PROG_PLANE, PROG_COOP, NPROG };
enum {                          /* kinds of rows and columns */
    K_SPLIT_CAP, K_SPLIT_GROUP, K_SPLIT_Y,
    K_PLANE_ROW, K_PLANE_CUT, K_PLANE_P, K_PLANE_Q,
    K_CAP, K_JOB, K_DG_ROW, K_DA_ROW, K_SI, K_EF, K_ZP, K_ZM, K_DG, K_DA
};

struct basis {                  /* the statuses of one kind of program, by identity */
    double *id;                 /* [n * ID_W] */
    int    *stat;
    int     n;
    size_t  cap;
};

struct warm {
    struct basis last[NPROG];   /* what the last solve ended with */
    struct basis next[NPROG];   /* this solve's, becoming last when it succeeds */
    double      *gkey;          /* the last solve's groups: key rows and serials */
    int         *gserial;
    int          ngroups, keyw, serials;
    size_t       gcap;          /* entries of gkey and gserial */
};

struct oef {
    struct alloc_base base;         /* first: alloc_train finds it from self */
    int               setting;
    int               per_job;      /* 1: a block per job, the reference formulation */
    struct warm       warm;
};

/* One solve: the problem seen through groups of identical jobs and their users. */
struct inst {
    const struct alloc_problem *p;
    int     J, T, n, G;
    int    *group;      /* job -> group 0..G-1, -1 if the job can run nowhere */
    int    *member;     /* a group's jobs in problem order: member[mstart[g] .. mstart[g+1]) */
    int    *mstart;
    int    *guser;      /* group -> user index 0..n-1 */
    int    *order;      /* groups by user: order[ustart[u] .. ustart[u+1]), in group order */
    int    *ustart;
    double *d;          /* d_g, GPUs per job */
    double *m;          /* m_g, jobs in the group */
    double *a;          /* normalized throughput [g * T + t], 0 where unavailable */
    double *key;        /* [g * keyw]: user id, d, a., and in per_job mode the job's id */
    int     keyw;
    int    *serial;     /* group -> serial, stable across solves (warm starts) */
    struct warm *w;
};

static void inst_free(struct inst *s)
{
    free(s->group);
    free(s->member);
    free(s->mstart);
    free(s->guser);
    free(s->order);
    free(s->ustart);
    free(s->d);
    free(s->m);
    free(s->a);
    free(s->key);
    free(s->serial);
}

/* Groups (user, d_j, a_j.) in order of their first job, or one group per job (per_job); users
 * in order of their first job, so that both numberings follow the problem's stable order. */
static int inst_init(struct inst *s, const struct alloc_problem *p, int per_job,
                     struct errbuf *err)
{
    int J = p->njobs, T = p->ntypes, W = T + 2;
    memset(s, 0, sizeof *s);
    s->p = p;
    s->J = J;
    s->T = T;
    size_t nj = (size_t)J + 1;
    s->group = malloc(nj * sizeof *s->group);
    s->member = malloc(nj * sizeof *s->member);
    s->mstart = calloc(nj + 1, sizeof *s->mstart);
    s->guser = malloc(nj * sizeof *s->guser);
    s->order = malloc(nj * sizeof *s->order);
    s->ustart = calloc(nj + 1, sizeof *s->ustart);
    s->d = malloc(nj * sizeof *s->d);
    s->m = calloc(nj, sizeof *s->m);
    s->a = calloc(nj * (size_t)T, sizeof *s->a);
    s->keyw = W + 1;
    s->key = calloc(nj * (size_t)s->keyw, sizeof *s->key);
    s->serial = malloc(nj * sizeof *s->serial);
    double *key = calloc(nj * (size_t)W, sizeof *key);      /* rows of the runnable jobs */
    int *uid = malloc(nj * sizeof *uid), *kg = malloc(nj * sizeof *kg);
    if (s->group == NULL || s->member == NULL || s->mstart == NULL || s->guser == NULL ||
        s->order == NULL || s->ustart == NULL || s->d == NULL || s->m == NULL ||
        s->a == NULL || s->key == NULL || s->serial == NULL || key == NULL || uid == NULL ||
        kg == NULL) {
        free(key);
        free(uid);
        free(kg);
        inst_free(s);
        return err_run(err, "out of memory");
    }
    int nk = 0;
    for (int j = 0; j < J; j++) {
        double best = 0;
        for (int t = 0; t < T; t++)
            if (p->cap[t] > 0 && p->thr[j * T + t] > best)
                best = p->thr[j * T + t];
        s->group[j] = -1;
        if (!(best > 0) || p->scale[j] <= 0)
            continue;
        double *r = &key[(size_t)nk * (size_t)W];
        r[0] = p->user[j];
        r[1] = p->scale[j];
        for (int t = 0; t < T; t++)
            r[2 + t] = p->cap[t] > 0 && p->thr[j * T + t] > 0 ? p->thr[j * T + t] / best : 0;
        s->group[j] = nk++;
    }
    int G = nk;
    if (!per_job && (G = group_rows(key, nk, W, kg, err)) < 0) {
        free(key);
        free(uid);
        free(kg);
        inst_free(s);
        return -1;
    }
    s->G = G;
    /* a group's fields from its first job, which is the first of its rows */
    for (int j = 0; j < J; j++) {
        if (s->group[j] < 0)
            continue;
        int k = s->group[j], g = per_job ? k : kg[k];
        s->group[j] = g;
        if (s->m[g]++ > 0)
            continue;
        const double *r = &key[(size_t)k * (size_t)W];
        s->d[g] = r[1];
        memcpy(&s->a[(size_t)g * (size_t)T], &r[2], (size_t)T * sizeof *s->a);
        memcpy(&s->key[(size_t)g * (size_t)s->keyw], r, (size_t)W * sizeof *s->key);
        s->key[(size_t)g * (size_t)s->keyw + W] = per_job ? (double)p->id[j] : -1;
        int u = 0;
        while (u < s->n && uid[u] != p->user[j])
            u++;
        if (u == s->n)
            uid[s->n++] = p->user[j];
        s->guser[g] = u;
    }
    free(key);
    free(uid);
    free(kg);
    /* counting sorts, both stable: jobs by group, groups by user */
    for (int j = 0; j < J; j++)
        if (s->group[j] >= 0)
            s->mstart[s->group[j] + 1]++;
    for (int g = 0; g < G; g++) {
        s->mstart[g + 1] += s->mstart[g];
        s->ustart[s->guser[g] + 1]++;
    }
    for (int u = 0; u < s->n; u++)
        s->ustart[u + 1] += s->ustart[u];
    int *fill = malloc(((size_t)(G > s->n ? G : s->n) + 1) * sizeof *fill);
    if (fill == NULL) {
        inst_free(s);
        return err_run(err, "out of memory");
    }
    memcpy(fill, s->mstart, (size_t)G * sizeof *fill);
    for (int j = 0; j < J; j++)
        if (s->group[j] >= 0)
            s->member[fill[s->group[j]]++] = j;
    memcpy(fill, s->ustart, (size_t)s->n * sizeof *fill);
    for (int g = 0; g < G; g++)
        s->order[fill[s->guser[g]]++] = g;
    free(fill);
    return 0;
}

/*
 * A group's time to its jobs: y_gt (the group's total time on t, sum_t y_gt <= m_g) is cut
 * into the members' rows in problem order, type by type, each member taking up to one unit
 * of time; the last member takes what is left, which is at most the solver's rounding.  So
 * all but at most T members (one per change of type, and the last one served) hold all of
 * their time on one type or none, as at a vertex of the per-job program, and the oldest hold
 * theirs, which keeps them in place from one solve to the next as members come and go.  A
 * group of one job takes y as it is.
 */
static void spread(const struct inst *s, const double *y, double *x)
{
    int T = s->T;
    for (int g = 0; g < s->G; g++) {
        int b = s->mstart[g], last = s->mstart[g + 1] - 1, k = b;
        double room = 1;
        for (int t = 0; t < T; t++) {
            double left = y[g * T + t];
            while (left > 0) {
                double q = k == last || left <= room ? left : room;
                x[s->member[k] * T + t] = q;
                left -= q;
                room -= q;
                if (room <= 1e-9 && k < last) {
                    k++;
                    room = 1;
                }
            }
        }
    }
}

/*
 * Matching this solve's rows (cur, n of width W) to the last one's (last, nl): first[i] (out)
 * is the index of the first of the last rows equal to cur row i, -1 if none.  One group_rows
 * over both tables, O(nl + n).
 */
static int match_rows(const double *last, int nl, const double *cur, int n, int W, int *first,
                      struct errbuf *err)
{
    size_t w = (size_t)W;
    double *rows = malloc(((size_t)(nl + n) + 1) * w * sizeof *rows);
    int *grp = malloc(((size_t)(nl + n) + 1) * sizeof *grp);
    int *rep = malloc(((size_t)(nl + n) + 1) * sizeof *rep);
    int rc = rows == NULL || grp == NULL || rep == NULL ? err_run(err, "out of memory") : 0;
    if (rc == 0) {
        if (nl > 0)             /* (memcpy's pointers must be valid even for no bytes) */
            memcpy(rows, last, (size_t)nl * w * sizeof *rows);
        if (n > 0)
            memcpy(&rows[(size_t)nl * w], cur, (size_t)n * w * sizeof *rows);
        int ng = group_rows(rows, nl + n, W, grp, err);
        if (ng < 0)
            rc = -1;
        for (int k = 0; k < ng; k++)
            rep[k] = -1;
        for (int i = nl - 1; rc == 0 && i >= 0; i--)
            rep[grp[i]] = i;
        for (int i = 0; rc == 0 && i < n; i++)
            first[i] = rep[grp[nl + i]];
    }
    free(rows);
    free(grp);
    free(rep);
    return rc;
}

/* Serials for this solve's groups: a group seen at the last solve (same key) keeps its
 * serial, a new one takes the next unused. */
static int warm_serials(struct warm *w, struct inst *s, struct errbuf *err)
{
    int old = w->keyw == s->keyw ? w->ngroups : 0, W = s->keyw;
    int *first = malloc(((size_t)s->G + 1) * sizeof *first);
    int rc = first == NULL ? err_run(err, "out of memory")
                           : match_rows(w->gkey, old, s->key, s->G, W, first, err);
    for (int g = 0; rc == 0 && g < s->G; g++) {
        /* keys are distinct within a solve (in per_job mode through the jobs' ids); should
         * two ever meet one serial, the second takes a new one */
        int k = first[g];
        s->serial[g] = k >= 0 && w->gserial[k] >= 0 ? w->gserial[k] : w->serials++;
        if (k >= 0)
            w->gserial[k] = -1;         /* taken */
    }
    free(first);
    if (rc < 0)
        return -1;
    if ((size_t)s->G * (size_t)W > w->gcap) {
        size_t c = 2 * (size_t)s->G * (size_t)W;
        int failed = 0;
        w->gkey = grow_array(w->gkey, c, sizeof *w->gkey, &failed);
        w->gserial = grow_array(w->gserial, c, sizeof *w->gserial, &failed);
        if (failed)
            return err_run(err, "out of memory");
        w->gcap = c;
    }
    if (s->G > 0) {
        memcpy(w->gkey, s->key, (size_t)s->G * (size_t)W * sizeof *w->gkey);
        memcpy(w->gserial, s->serial, (size_t)s->G * sizeof *w->gserial);
    }
    w->ngroups = s->G;
    w->keyw = W;
    return 0;
}

/* The identities of one program's rows and columns while it is built (index 1..n). */
struct ids {
    double *v;                  /* [(index - 1) * ID_W] */
    int     n;
    size_t  cap;
};

static int ids_put(struct ids *d, int index, int kind, double who, double t)
{
    if ((size_t)index > d->cap) {
        size_t c = d->cap ? 2 * d->cap : 64;
        while (c < (size_t)index)
            c *= 2;
        double *v = realloc(d->v, c * ID_W * sizeof *v);
        if (v == NULL)
            return -1;
        d->v = v;
        d->cap = c;
    }
    double *r = &d->v[(size_t)(index - 1) * ID_W];
    r[0] = kind;
    r[1] = who;
    r[2] = t;
    if (index > d->n)
        d->n = index;
    return 0;
}

/* Start lp (bounds set) from the statuses b holds for its rows and columns: the standard
 * basis, then every row or column found in b takes its status there (GLPK makes a status
 * that no longer fits the bounds fit them).  1 if any was found (a warm start), 0 if none, -1
 * out of memory. */
static int basis_load(const struct basis *b, glp_prob *lp, const struct ids *r,
                      const struct ids *c, struct errbuf *err)
{
    glp_std_basis(lp);
    if (b->n == 0)
        return 0;
    int nr = r->n, n = nr + c->n, found = 0;
    double *cur = malloc(((size_t)n + 1) * ID_W * sizeof *cur);
    int *first = malloc(((size_t)n + 1) * sizeof *first);
    if (cur == NULL || first == NULL) {
        found = err_run(err, "out of memory");
    } else {
        if (nr > 0)
            memcpy(cur, r->v, (size_t)nr * ID_W * sizeof *cur);
        if (c->n > 0)
            memcpy(&cur[(size_t)nr * ID_W], c->v, (size_t)c->n * ID_W * sizeof *cur);
        if (match_rows(b->id, b->n, cur, n, ID_W, first, err) < 0)
            found = -1;
        for (int i = 0; found >= 0 && i < n; i++) {
            if (first[i] < 0)
                continue;
            if (i < nr)
                glp_set_row_stat(lp, i + 1, b->stat[first[i]]);
            else
                glp_set_col_stat(lp, i - nr + 1, b->stat[first[i]]);
            found = 1;
        }
    }
    free(cur);
    free(first);
    return found;
}

/* Append lp's statuses, by identity, to b. */
static int basis_save(struct basis *b, glp_prob *lp, const struct ids *r, const struct ids *c,
                      struct errbuf *err)
{
    size_t n = (size_t)b->n + (size_t)r->n + (size_t)c->n;
    if (n > b->cap) {
        int failed = 0;
        b->id = grow_array(b->id, 2 * n * ID_W, sizeof *b->id, &failed);
        b->stat = grow_array(b->stat, 2 * n, sizeof *b->stat, &failed);
        if (failed)
            return err_run(err, "out of memory");
        b->cap = 2 * n;
    }
    if (r->n > 0)
        memcpy(&b->id[(size_t)b->n * ID_W], r->v, (size_t)r->n * ID_W * sizeof *b->id);
    for (int i = 0; i < r->n; i++)
        b->stat[b->n + i] = glp_get_row_stat(lp, i + 1);
    b->n += r->n;
    if (c->n > 0)
        memcpy(&b->id[(size_t)b->n * ID_W], c->v, (size_t)c->n * ID_W * sizeof *b->id);
    for (int i = 0; i < c->n; i++)
        b->stat[b->n + i] = glp_get_col_stat(lp, i + 1);
    b->n += c->n;
    return 0;
}

static void basis_free(struct basis *b)
{
    free(b->id);
    free(b->stat);
    memset(b, 0, sizeof *b);
}

/* A growing triplet list for glp_load_matrix (1-based; slot 0 unused). */
struct trip {
    int    *ia, *ja;
    double *ar;
    int     ne, cap;
};

static int trip_add(struct trip *m, int row, int col, double v)
{
    if (m->ne + 1 >= m->cap) {
        int c = m->cap ? m->cap * 2 : 256;
        int *ia = realloc(m->ia, (size_t)c * sizeof *ia);
        if (ia != NULL)
            m->ia = ia;
        int *ja = realloc(m->ja, (size_t)c * sizeof *ja);
        if (ja != NULL)
            m->ja = ja;
        double *ar = realloc(m->ar, (size_t)c * sizeof *ar);
        if (ar != NULL)
            m->ar = ar;
        if (ia == NULL || ja == NULL || ar == NULL)
            return -1;
        m->cap = c;
    }
    m->ne++;
    m->ia[m->ne] = row;
    m->ja[m->ne] = col;
    m->ar[m->ne] = v;
    return 0;
}

static void trip_free(struct trip *m)
{
    free(m->ia);
    free(m->ja);
    free(m->ar);
}

/* A simplex run by `meth` from the basis the program holds (no presolve, which would
 * discard it). */
static int solve_warm(glp_prob *lp, int meth, const char *what, struct errbuf *err)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = meth;
    int rc = glp_simplex(lp, &parm);
    if (rc != 0 || glp_get_status(lp) != GLP_OPT)
        return err_run(err, "%s: GLPK simplex failed (code %d, status %d)", what, rc,
                       glp_get_status(lp));
    return 0;
}

/* From the basis basis_load left when it found one (warm), by `meth`; from the standard
 * basis by `cold` when it did not, or when the warm basis cannot be factorized or its
 * simplex does not end optimal. */
static int solve_from(glp_prob *lp, int warm, int meth, int cold, const char *what,
                      struct errbuf *err)
{
    if (warm && lp_repair_basis(lp) == 0 && glp_warm_up(lp) == 0) {
        glp_smcp parm;
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        parm.meth = meth;
        if (glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT)
            return 0;
    }
    glp_std_basis(lp);
    return solve_warm(lp, cold, what, err);
}

/* User u's id in the problem (its first group's first job's). */
static double user_id(const struct inst *s, int u)
{
    return s->p->user[s->member[s->mstart[s->order[s->ustart[u]]]]];
}

/*
 * User u's best split of bundle g among its groups: V_u(g), and the groups' times y (rows of
 * u's groups only) when y is not NULL.  In groups: max sum a_gt y_gt s.t. sum_g d_g y_gt <=
 * g_t, sum_t y_gt <= m_g, 0 <= y_gt <= m_g.  Cold: presolve and simplex; warm: the dual
 * simplex (bounds change between solves, the objective only with the groups).
 */
static int user_split(const struct inst *s, int u, const double *g, double *y, double *value,
                      struct errbuf *err)
{
    int T = s->T, b = s->ustart[u], m = s->ustart[u + 1] - b;
    double uid = user_id(s, u);
    glp_prob *lp = glp_create_prob();
    struct trip mt = { 0 };
    struct ids ri = { 0 }, ci = { 0 };
    int *col = calloc((size_t)m * (size_t)T + 1, sizeof *col);
    int rc = col == NULL ? -1 : 0;
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, T + m);            /* rows 1..T: bundle per type; T+1..T+m: group time */
    for (int t = 0; t < T && rc == 0; t++) {
        glp_set_row_bnds(lp, t + 1, GLP_UP, 0, g[t] > 0 ? g[t] : 0);
        rc = ids_put(&ri, t + 1, K_SPLIT_CAP, uid, t);
    }
    for (int k = 0; k < m && rc == 0; k++) {
        glp_set_row_bnds(lp, T + 1 + k, GLP_UP, 0, s->m[s->order[b + k]]);
        rc = ids_put(&ri, T + 1 + k, K_SPLIT_GROUP, s->serial[s->order[b + k]], 0);
    }
    int nc = 0;
    for (int k = 0; k < m && rc == 0; k++) {
        int gr = s->order[b + k];
        for (int t = 0; t < T && rc == 0; t++) {
            double a = s->a[gr * T + t];
            if (a <= 0)
                continue;
            col[k * T + t] = ++nc;
            glp_add_cols(lp, 1);
            glp_set_col_bnds(lp, nc, GLP_DB, 0, s->m[gr]);
            glp_set_obj_coef(lp, nc, a);
            rc = trip_add(&mt, t + 1, nc, s->d[gr]) | trip_add(&mt, T + 1 + k, nc, 1) |
                 ids_put(&ci, nc, K_SPLIT_Y, s->serial[gr], t);
        }
    }
    if (rc < 0) {
        rc = err_run(err, "out of memory");
    } else if (nc > 0) {
        glp_load_matrix(lp, mt.ne, mt.ia, mt.ja, mt.ar);
        int warm = basis_load(&s->w->last[PROG_SPLIT], lp, &ri, &ci, err);
        const char *what = "oef: a user's split of its share";
        rc = warm < 0 ? -1 : warm ? lp_resolve(lp, what, NULL, err) : lp_solve(lp, what, err);
        if (rc == 0)
            rc = basis_save(&s->w->next[PROG_SPLIT], lp, &ri, &ci, err);
    }
    if (rc == 0) {
        *value = nc == 0 ? 0 : glp_get_obj_val(lp);
        for (int k = 0; y != NULL && k < m; k++)
            for (int t = 0; t < T; t++)
                y[s->order[b + k] * T + t] =
                    col[k * T + t] ? glp_get_col_prim(lp, col[k * T + t]) : 0;
    }
    free(col);
    free(ri.v);
    free(ci.v);
    trip_free(&mt);
    glp_delete_prob(lp);
    return rc;
}

/*
 * The supporting hyperplane of V_u at the equal share e: an optimal dual (p, q) of V_u(e),
 * the one with the least sum_t C_t p_t among them.  Out: p[T] and *v = V_u(e); the plane is
 * g -> *v + p.(g - e), since sum_j q_j = V_u(e) - p.e at a dual optimum.  In groups the dual
 * is min e.p + sum_g m_g q_g s.t. d_g p_t + q_g >= a_gt: the members of a group have the same
 * rows, so for any p their least q are equal.  The first stage runs the dual simplex: from
 * the standard basis (p = q = 0, every row short of a_gt) it is dual feasible, the costs
 * being >= 0; warm, the primal simplex, since only the costs change with the counts.  The
 * second stage restarts from the first's optimum, which it keeps feasible.
 */
static int user_hyperplane(const struct inst *s, int u, const double *e, double *p, double *v,
                           struct errbuf *err)
{
    int T = s->T, b = s->ustart[u], m = s->ustart[u + 1] - b;
    double uid = user_id(s, u);
    glp_prob *lp = glp_create_prob();
    struct trip mt = { 0 };
    struct ids ri = { 0 }, ci = { 0 };
    int rc = 0, nr = 0;
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, T + m);            /* cols 1..T: p_t; T+1..T+m: q_g */
    for (int c = 1; c <= T + m && rc == 0; c++) {
        glp_set_col_bnds(lp, c, GLP_LO, 0, 0);
        rc = c <= T ? ids_put(&ci, c, K_PLANE_P, uid, c - 1)
                    : ids_put(&ci, c, K_PLANE_Q, s->serial[s->order[b + c - T - 1]], 0);
    }
    for (int t = 0; t < T; t++)
        glp_set_obj_coef(lp, t + 1, e[t]);
    for (int k = 0; k < m; k++)
        glp_set_obj_coef(lp, T + 1 + k, s->m[s->order[b + k]]);
    for (int k = 0; k < m && rc == 0; k++) {
        int gr = s->order[b + k];
        for (int t = 0; t < T && rc == 0; t++) {
            double a = s->a[gr * T + t];
            if (a <= 0)
                continue;
            glp_add_rows(lp, 1);
            glp_set_row_bnds(lp, ++nr, GLP_LO, a, 0);
            rc = trip_add(&mt, nr, t + 1, s->d[gr]) | trip_add(&mt, nr, T + 1 + k, 1) |
                 ids_put(&ri, nr, K_PLANE_ROW, s->serial[gr], t);
        }
    }
    /* the second stage: stay optimal, then lower the plane over the whole cluster */
    glp_add_rows(lp, 1);
    int cut = ++nr;
    rc |= ids_put(&ri, cut, K_PLANE_CUT, uid, 0);
    for (int c = 1; c <= T + m && rc == 0; c++)
        rc = trip_add(&mt, cut, c, c <= T ? e[c - 1] : s->m[s->order[b + c - T - 1]]);
    glp_set_row_bnds(lp, cut, GLP_FR, 0, 0);
    if (rc < 0) {
        rc = err_run(err, "out of memory");
        goto out;
    }
    glp_load_matrix(lp, mt.ne, mt.ia, mt.ja, mt.ar);
    int warm = basis_load(&s->w->last[PROG_PLANE], lp, &ri, &ci, err);
    if (warm < 0 || (rc = solve_from(lp, warm, GLP_PRIMAL, GLP_DUALP, "oef: a user's value of "
                                     "the equal share", err)) < 0 ||
        (rc = basis_save(&s->w->next[PROG_PLANE], lp, &ri, &ci, err)) < 0) {
        rc = -1;
        goto out;
    }
    *v = glp_get_obj_val(lp);
    glp_set_row_bnds(lp, cut, GLP_UP, 0, *v + 1e-9 * fmax(1, *v));
    for (int t = 0; t < T; t++)
        glp_set_obj_coef(lp, t + 1, s->p->cap[t]);
    for (int k = 0; k < m; k++)
        glp_set_obj_coef(lp, T + 1 + k, 0);
    if ((rc = solve_warm(lp, GLP_PRIMAL, "oef: a user's envy bound", err)) < 0)
        goto out;
    for (int t = 0; t < T; t++)
        p[t] = fmax(0, glp_get_col_prim(lp, t + 1));
out:
    free(ri.v);
    free(ci.v);
    trip_free(&mt);
    glp_delete_prob(lp);
    return rc;
}

/* The equal split: each user's best split of e, trimmed so that it is exactly feasible. */
static int equal_split(const struct inst *s, const double *e, double *ye, struct errbuf *err)
{
    int T = s->T;
    for (int u = 0; u < s->n; u++) {
        double v, used[CLUSTER_MAX_TYPES] = { 0 };
        if (user_split(s, u, e, ye, &v, err) < 0)
            return -1;
        for (int k = s->ustart[u]; k < s->ustart[u + 1]; k++) {
            int g = s->order[k];
            double m = s->m[g], row = 0;
            for (int t = 0; t < T; t++)
                row += ye[g * T + t] = fmin(m, fmax(0, ye[g * T + t]));
            for (int t = 0; t < T; t++) {
                if (row > m)
                    ye[g * T + t] /= row / m;
                used[t] += s->d[g] * ye[g * T + t];
            }
        }
        for (int t = 0; t < T; t++)
            if (used[t] > e[t])
                for (int k = s->ustart[u]; k < s->ustart[u + 1]; k++)
                    ye[s->order[k] * T + t] *= e[t] / used[t];
    }
    return 0;
}

/*
 * The cooperative LP over groups, written in deviations from the equal split ye: y = ye +
 * z+ - z-, with dg_ut and dA_u the changes of g_ut and A_u.  Every envy row passes through
 * the equal split, and a cold start (phase 1 from y = 0, presolve) can then end "infeasible"
 * within GLPK's tolerances; from z = 0 the standard basis is already feasible.  Warm, the
 * dual simplex from the last solve's basis (the costs stay, bounds and envy planes move);
 * if that does not end optimal, the primal simplex from z = 0.  Out: y.
 */
static int solve_cooperative(const struct inst *s, double *y, struct errbuf *err)
{
    int G = s->G, T = s->T, n = s->n;
    const struct alloc_problem *p = s->p;
    double e[CLUSTER_MAX_TYPES];
    for (int t = 0; t < T; t++)
        e[t] = p->cap[t] > 0 ? p->cap[t] / n : 0;
    size_t nu = (size_t)n, ny = (size_t)G * (size_t)T;
    double *pu = malloc(nu * (size_t)T * sizeof *pu), *ge = calloc(nu * (size_t)T, sizeof *ge);
    double *ve = malloc(nu * sizeof *ve), *ae = calloc(nu, sizeof *ae);
    double *ye = calloc(ny + 1, sizeof *ye);
    int *cp = calloc(ny + 1, sizeof *cp), *cm = calloc(ny + 1, sizeof *cm);
    glp_prob *lp = NULL;
    struct trip mt = { 0 };
    struct ids ri = { 0 }, ci = { 0 };
    int rc = 0;
    if (pu == NULL || ge == NULL || ve == NULL || ae == NULL || ye == NULL || cp == NULL ||
        cm == NULL) {
        rc = err_run(err, "out of memory");
        goto out;
    }
    for (int u = 0; u < n && rc == 0; u++)
        rc = user_hyperplane(s, u, e, &pu[u * T], &ve[u], err);
    if (rc < 0 || (rc = equal_split(s, e, ye, err)) < 0)
        goto out;
    for (int g = 0; g < G; g++)
        for (int t = 0; t < T; t++) {
            ge[s->guser[g] * T + t] += s->d[g] * ye[g * T + t];
            ae[s->guser[g]] += s->a[g * T + t] * ye[g * T + t];
        }

    /* columns: z+ and z- where they have room, then dg_ut (n T), then dA_u (n) */
    lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    int nc = 0;
    for (size_t i = 0; i < ny; i++) {
        if (s->a[i] <= 0)
            continue;
        if (ye[i] < s->m[i / (size_t)T])
            cp[i] = ++nc;
        if (ye[i] > 0)
            cm[i] = ++nc;
    }
    int gcol = nc, acol = nc + n * T;
    glp_add_cols(lp, acol + n);
    for (size_t i = 0; i < ny && rc == 0; i++) {
        int sr = s->serial[i / (size_t)T], t = (int)(i % (size_t)T);
        if (cp[i]) {
            glp_set_col_bnds(lp, cp[i], GLP_DB, 0, s->m[i / (size_t)T] - ye[i]);
            glp_set_obj_coef(lp, cp[i], s->a[i]);
            rc = ids_put(&ci, cp[i], K_ZP, sr, t);
        }
        if (cm[i]) {
            glp_set_col_bnds(lp, cm[i], GLP_DB, 0, ye[i]);
            glp_set_obj_coef(lp, cm[i], -s->a[i]);
            rc |= ids_put(&ci, cm[i], K_ZM, sr, t);
        }
    }
    for (int c = gcol + 1; c <= acol + n && rc == 0; c++) {
        glp_set_col_bnds(lp, c, GLP_FR, 0, 0);
        rc = c <= acol ? ids_put(&ci, c, K_DG, user_id(s, (c - gcol - 1) / T),
                                 (c - gcol - 1) % T)
                       : ids_put(&ci, c, K_DA, user_id(s, c - acol - 1), 0);
    }

    /* rows: capacity (T), group time (G), dg definitions (n T), dA definitions (n), sharing
     * incentive (n), envy (n (n - 1)); bounds are those of y, g, A minus the equal split's */
    int r_cap = 0, r_job = T, r_g = T + G, r_a = r_g + n * T, r_si = r_a + n, r_ef = r_si + n;
    glp_add_rows(lp, r_ef + n * (n - 1));
    for (int t = 0; t < T && rc == 0; t++) {
        double used = 0;
        for (int u = 0; u < n; u++)
            used += ge[u * T + t];
        glp_set_row_bnds(lp, r_cap + t + 1, GLP_UP, 0, fmax(0, p->cap[t] - used));
        rc = ids_put(&ri, r_cap + t + 1, K_CAP, 0, t);
        for (int u = 0; u < n && rc == 0; u++)
            rc = trip_add(&mt, r_cap + t + 1, gcol + u * T + t + 1, 1);
    }
    for (int g = 0; g < G && rc == 0; g++) {
        double row = 0;
        for (int t = 0; t < T; t++)
            row += ye[g * T + t];
        glp_set_row_bnds(lp, r_job + g + 1, GLP_UP, 0, fmax(0, s->m[g] - row));
        rc = ids_put(&ri, r_job + g + 1, K_JOB, s->serial[g], 0);
    }
    for (int i = r_g + 1; i <= r_si && rc == 0; i++) {
        glp_set_row_bnds(lp, i, GLP_FX, 0, 0);
        rc = i <= r_a ? ids_put(&ri, i, K_DG_ROW, user_id(s, (i - r_g - 1) / T),
                                (i - r_g - 1) % T)
                      : ids_put(&ri, i, K_DA_ROW, user_id(s, i - r_a - 1), 0);
    }
    for (int g = 0; g < G && rc == 0; g++) {
        int u = s->guser[g];
        for (int t = 0; t < T && rc == 0; t++)
            for (int sign = 1; sign >= -1 && rc == 0; sign -= 2) {
                int c = sign > 0 ? cp[g * T + t] : cm[g * T + t];
                if (c != 0)
                    rc = trip_add(&mt, r_job + g + 1, c, sign) |
                         trip_add(&mt, r_g + u * T + t + 1, c, sign * s->d[g]) |
                         trip_add(&mt, r_a + u + 1, c, sign * s->a[g * T + t]);
            }
    }
    int row = r_ef;
    for (int u = 0; u < n && rc == 0; u++) {
        for (int t = 0; t < T && rc == 0; t++)
            rc = trip_add(&mt, r_g + u * T + t + 1, gcol + u * T + t + 1, -1);
        rc |= trip_add(&mt, r_a + u + 1, acol + u + 1, -1);
        /* (SI) A_u >= V_u(e), and (EF) A_u - p_u.g_v >= V_u(e) - p_u.e: the plane through
         * (e, V_u(e)); the small slack absorbs the solver's rounding */
        double tol = 1e-8 * fmax(1, ve[u]), pe = 0;
        for (int t = 0; t < T; t++)
            pe += pu[u * T + t] * e[t];
        glp_set_row_bnds(lp, r_si + u + 1, GLP_LO, fmin(0, ve[u] - tol - ae[u]), 0);
        rc |= trip_add(&mt, r_si + u + 1, acol + u + 1, 1) |
              ids_put(&ri, r_si + u + 1, K_SI, user_id(s, u), 0);
        for (int v = 0; v < n && rc == 0; v++) {
            if (v == u)
                continue;
            double pg = 0;
            for (int t = 0; t < T; t++)
                pg += pu[u * T + t] * ge[v * T + t];
            glp_set_row_bnds(lp, ++row, GLP_LO, fmin(0, ve[u] - pe - tol - (ae[u] - pg)), 0);
            rc = trip_add(&mt, row, acol + u + 1, 1) |
                 ids_put(&ri, row, K_EF, user_id(s, u), user_id(s, v));
            for (int t = 0; t < T && rc == 0; t++)
                if (pu[u * T + t] > 0)
                    rc = trip_add(&mt, row, gcol + v * T + t + 1, -pu[u * T + t]);
        }
    }
    if (rc < 0) {
        rc = err_run(err, "out of memory");
        goto out;
    }
    glp_load_matrix(lp, mt.ne, mt.ia, mt.ja, mt.ar);
    int warm = basis_load(&s->w->last[PROG_COOP], lp, &ri, &ci, err);
    if (warm < 0 || (rc = solve_from(lp, warm, GLP_DUALP, GLP_PRIMAL, "oef: the cooperative "
                                     "program", err)) < 0 ||
        (rc = basis_save(&s->w->next[PROG_COOP], lp, &ri, &ci, err)) < 0) {
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < ny; i++) {
        double z = (cp[i] ? glp_get_col_prim(lp, cp[i]) : 0) -
                   (cm[i] ? glp_get_col_prim(lp, cm[i]) : 0);
        y[i] = (cp[i] || cm[i]) ? fmin(s->m[i / (size_t)T], fmax(0, ye[i] + z)) : 0;
    }
out:
    if (lp != NULL)
        glp_delete_prob(lp);
    trip_free(&mt);
    free(ri.v);
    free(ci.v);
    free(pu);
    free(ge);
    free(ve);
    free(ae);
    free(ye);
    free(cp);
    free(cm);
    return rc;
}

struct level {
    double d;
    int    u;
};

static int by_demand(const void *a, const void *b)
{
    const struct level *p = a, *q = b;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    return (p->u > q->u) - (p->u < q->u);
}

/* Progressive filling type by type, then each user's own split.  Out: y. */
static int solve_noncooperative(const struct inst *s, double *y, struct errbuf *err)
{
    int T = s->T, n = s->n;
    const struct alloc_problem *p = s->p;
    double *g = calloc((size_t)n * (size_t)T + 1, sizeof *g);
    struct level *lv = malloc(((size_t)n + 1) * sizeof *lv);
    int rc = 0;
    if (g == NULL || lv == NULL) {
        free(g);
        free(lv);
        return err_run(err, "out of memory");
    }
    /* demands: g holds D_ut until the filling turns it into the bundle */
    for (int gr = 0; gr < s->G; gr++)
        for (int t = 0; t < T; t++)
            if (s->a[gr * T + t] > 0)
                g[s->guser[gr] * T + t] += s->m[gr] * s->d[gr];
    for (int t = 0; t < T; t++) {
        int m = 0;
        for (int u = 0; u < n; u++)
            if (g[u * T + t] > 0)
                lv[m++] = (struct level){ g[u * T + t], u };
        qsort(lv, (size_t)m, sizeof *lv, by_demand);
        /* progressive filling: the smallest demands are met whole while they fit the level */
        double left = p->cap[t] > 0 ? p->cap[t] : 0;
        for (int i = 0; i < m; i++) {
            double level = left / (m - i);
            if (lv[i].d <= level) {
                left -= lv[i].d;
                continue;
            }
            for (int k = i; k < m; k++)
                g[lv[k].u * T + t] = level;
            break;
        }
    }
    for (int u = 0; u < n && rc == 0; u++) {
        double v;
        rc = user_split(s, u, &g[u * T], y, &v, err);
    }
    free(g);
    free(lv);
    return rc;
}

static int oef_allocate(void *self, const struct alloc_problem *p, double *x, struct errbuf *err)
{
    struct oef *o = self;
    struct inst s;
    memset(x, 0, (size_t)p->njobs * (size_t)p->ntypes * sizeof *x);
    if (p->njobs == 0)
        return 0;
    if (inst_init(&s, p, o->per_job, err) < 0)
        return -1;
    s.w = &o->warm;
    double *y = calloc((size_t)s.G * (size_t)s.T + 1, sizeof *y);
    int rc = y == NULL ? err_run(err, "out of memory") : warm_serials(&o->warm, &s, err);
    if (rc == 0 && s.n > 0)
        rc = o->setting == OEF_COOPERATIVE ? solve_cooperative(&s, y, err)
                                           : solve_noncooperative(&s, y, err);
    /* this solve's bases are the next one's start; after a failure the next runs cold */
    for (int k = 0; k < NPROG; k++) {
        struct basis t = o->warm.last[k];
        o->warm.last[k] = o->warm.next[k];
        o->warm.next[k] = t;
        o->warm.next[k].n = 0;
        if (rc < 0)
            o->warm.last[k].n = 0;
    }
    if (rc == 0) {
        spread(&s, y, x);
        for (int i = 0; i < s.J * s.T; i++)
            x[i] = fmin(1, fmax(0, x[i]));
    }
    free(y);
    inst_free(&s);
    return rc;
}

static int oef_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    static const char *const settings[] = { "cooperative", "noncooperative", NULL };
    struct oef *o = calloc(1, sizeof *o);
    if (o == NULL)
        return err_run(err, "out of memory");
    o->setting = OEF_COOPERATIVE;
    if (jobj_enum(params, "setting", JOPT, settings, &o->setting, err) < 0 ||
        jobj_bool(params, "per_job", JOPT, &o->per_job, err) < 0) {
        free(o);
        return -1;
    }
    if (alloc_base_init(&o->base, env, oef_allocate, 0, err) < 0) {
        free(o);
        return -1;
    }
    *self = o;
    return 0;
}

static void oef_destroy(void *self)
{
    struct oef *o = self;
    alloc_base_fini(&o->base);
    for (int k = 0; k < NPROG; k++) {
        basis_free(&o->warm.last[k]);
        basis_free(&o->warm.next[k]);
    }
    free(o->warm.gkey);
    free(o->warm.gserial);
    free(o);
}

static const char *const oef_params[] = { "setting", "per_job", NULL };

static const struct train_hooks oef_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 360,
    .decide = alloc_train,
    .allocate = oef_allocate,
};

const struct policy_ops policy_oef = {
    .name = "oef",
    .domain = "training",
    .summary = "OEF: max normalized throughput under sharing incentive + envy-freeness, or "
               "strategy-proof (setting)",
    .params = oef_params,
    .create = oef_create,
    .train = &oef_hooks,
    .destroy = oef_destroy,
};
