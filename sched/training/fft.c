/*
 * fft: FFT, fast and fair training on heterogeneous GPU clusters (ICS 2025; shared/PAPERS.md
 * section 1).  Every round (default 300 s; the policy wakes only at round boundaries, so an
 * arrival waits for the next one) one integer program over GPU *types* decides which jobs
 * run and on which type.  alloc_train realizes its x in {0, 1} exactly: every x = 1 job runs,
 * jobs that stay on their type keep their GPUs, the others are packed on the fewest nodes.
 *
 * The paper's program, for active jobs j and the cluster's types i (PAPERS.md notation):
 *   min  sum_j sum_i c_j^i x_j^i,   c_j^i = phi_j^i + ws s_j^i - wf rho_j theta_j^i         (1)
 *        phi_j^i = (t - a_j) theta_j^i / W_j + d_j W_j / theta_j^i                          (2)
 *   s.t. sum_i x_j^i <= 1,   sum_j d_j x_j^i <= Y_i,   x_j^i in {0, 1}                       (3)
 *   and (work conservation, "work_conserving": true, the default) no type keeps >= d_j free
 *   GPUs while a job j that could run there waits.  After each round (the dual step):
 *   rho_j <- max(0, rho_j + mu_j (W_j / (tau_j - a_j) - sum_i theta_j^i x_j^i)),
 *   mu_j = (t - a_j) / (tau_j - a_j).                                                      (4)
 *
 * As coded.  Jobs of one size d form a class; n_{i,d} = number of class-d jobs on type i is
 * an integer column, and the x are *continuous* in [0, 1]:
 *   sum_i x_j^i (- r_j) = 0 or <= 1          one row per job (r_j with work conservation)
 *   sum_{j: d_j = d} x_j^i = n_{i,d}         one row per (type, size)
 *   u_i = sum_d d n_{i,d} <= Y_i
 * For fixed integral n the x-part is one transportation problem per size (a bipartite
 * incidence matrix: totally unimodular), so every vertex has x in {0, 1}: the program equals
 * (1)-(3) while branching only touches the T x D counts, never the J x T assignments.
 * Work conservation, per type i and size class d present there (members: the jobs of size
 * d that may run on i), with binary g_{i,d} ("every member runs"):
 *   (a) u_i + (Y_i - d + 1) g_{i,d} >= Y_i - d + 1     at most d - 1 GPUs free unless g = 1
 *   (b) N_{i,d} g_{i,d} <= sum_{members} r_j          g = 1 only if all N members run
 * A class with more members than can ever run at once (N > sum_i' floor(Y_i' / d)) has g = 0
 * and (a) becomes the bound u_i >= Y_i - d + 1; classes of larger sizes on that type are then
 * implied and switched off.  A job that cannot wait at all — the other jobs together need
 * fewer GPUs than waiting would require them to hold on its types — has r_j fixed at 1
 * (set_must_run): implied, so no integral solution changes, but it closes the LP gap when
 * the cluster has room for everyone.  The constraint form is always feasible (any maximal
 * greedy packing satisfies it), so the paper's fallback to a reward term is never needed and
 * hetsim has none.  With "work_conserving": false the program is (1)-(3) alone; since
 * phi > 0 it then runs only jobs whose fairness term makes c negative.
 *
 * Assumptions where the paper leaves things open:
 *  - Units: the round is the time unit.  theta_j^i = thr * round_s, iterations per round of
 *    the whole job on d_j GPUs of type i (best placement); t - a_j = age_s / round_s;
 *    W_j = total iterations (not what is left); s_j^i = restore_s / round_s.  rho is then
 *    in iterations per round and rho * theta is not commensurate with phi: "fairness_weight"
 *    (wf, default 1) and "switch_weight" (ws, default 1) scale those terms.
 *  - tau_j: finish time under an exclusive 1/n share since arrival, n = |A(t)|:
 *    tau_j - a_j = W_j / (fairshare_rate(thr_j, Y, d_j, n) round_s) (models/fairshare.h), so
 *    W_j / (tau_j - a_j) is the job's fair-share rate.  n changes only at arrivals and
 *    completions, so recomputing it every round re-estimates it exactly on those events (as
 *    the policy sees them, at the next round).  A job that cannot run anywhere has no tau:
 *    mu = 0 and its rho stays.
 *  - rho_j is 0 on arrival, enters the round's program, then is updated by (4) with that
 *    round's decision (restore time included in "ran"); it is forgotten on departure.
 *  - s_j^i = 0 on the type the job runs on, and for a job that never ran (the world charges
 *    no restore on a first start); a preempted job pays it on every type.  Stopping a job
 *    costs nothing in the program (it pays when it resumes).
 *  - x_j^i exists only when theta_j^i > 0 and d_j <= Y_i; "could run there" in the work
 *    conservation means the same, counted in GPUs by type (placement is alloc_train's).
 *  - Another set of types or capacities than the previous call starts over (new program,
 *    rho reset); within a run the cluster never changes.
 *
 * Solving (exact).  The program holds the blocks of some of the live jobs only — those that
 * run or may run — and every other job is priced against its duals (outside_rc), so each
 * LP below is the optimum of the program over all live jobs.
 *  1. The LP relaxation, by the primal simplex from the previous round's basis (the dual
 *     simplex from a slack basis the first time).  Jobs that cannot wait enter the program,
 *     and jobs outside whose reduced cost under the kept duals is negative at this round's
 *     costs (at most floor(Y_i / d) per type and size, the most negative: no more can run
 *     there); the first time, a greedy packing's jobs.  Inside the program, x columns at 0
 *     in the kept basis that price out under its duals are held at 0 (GLPK drops fixed
 *     columns from its working problem).  Then held columns and outside jobs are priced in
 *     (GLPK's own tolerance, prices_in) and the LP re-solved while any does.  A restricted
 *     program without a feasible point gets the greedy packing's jobs (a feasible point).
 *  2. An incumbent by rounding: the LP's x = 1, a small exact knapsack per type for what is
 *     left, a greedy fill for work conservation.
 *  3. Probing: g = 1 makes every member run, which by LP duality costs at least the sum of
 *     the members' smallest reduced costs; when that exceeds the incumbent, g is fixed to 0
 *     and the LP re-solved (the cold first round needs this: its classes are open).
 *  4. A dive: fix the count closest to integral, re-solve by the dual simplex, repeat; a g
 *     whose rounding keeps the LP point feasible is fixed without a re-solve.
 *  5. Reduced-cost fixing: an x whose reduced cost exceeds incumbent - bound has its LP
 *     value in every better integral solution, so it is fixed; an outside job enters only
 *     if some type's reduced cost is within that gap.
 *  6. On a cold round (no kept basis) the incumbent is then improved by trades on one type
 *     (improve: m jobs of size d for one of size m d or back, each an LP with every count
 *     fixed), and fixing is repeated with the smaller gap.  GLPK's branch and bound
 *     (presolve on: the fixed part vanishes; node preprocessing at the root only; hybrid
 *     pseudocost branching, best-projection backtracking, tol_obj 1e-10) proves the optimum
 *     of the rest.  The fixings are undone afterwards.
 *  7. A job that waits and whose every reduced cost exceeds the gap leaves the program at
 *     the next call (out_of_reach); pricing brings it back when its costs come down.
 * "mip_gap" (relative, default 0 = prove optimality) and "node_limit" (branch-and-bound
 * nodes, default 0 = none) trade exactness for time; no time limit is ever used.  The
 * decision depends only on the sequence of problems the instance was given (the kept basis
 * decides among equal-cost optima), so runs are reproducible; a fresh instance may break
 * exact ties differently.  "Equal" is GLPK's: branch and bound prunes a node whose bound is
 * within tol_obj (1 + |z|) of the incumbent.  At GLPK's default tol_obj of 1e-7, with
 * fairness terms taking the objective to 1e8-1e9, solutions some units apart were ties, and
 * which one was found followed the program's row and column order and the search.  At
 * 1e-10 (since the trades and the branching options above) fft_philly decides alike under
 * Driebeck-Tomlin / best-local-bound and pseudocost / best-projection in every one of its
 * 8,874 rounds; against the 1e-7 search it first decides differently at round 123, 21.5
 * cheaper of 3.25e8 (6.6e-8, inside the old tolerance of 32.5); the golden rows (150 jobs)
 * stayed the same.  Earlier, under 1e-7: deleting departed blocks changed that order against the
 * program that kept them: fft_philly and gavel_philly/oef_tenants' fft rows stayed the same,
 * default and philly_slice first decide differently at round 15 (cost 4.6e-3 dearer of
 * 3.97e8, 1.2e-11 relative), fft_philly_slice at round 35 (9.8 cheaper of 1.1e8, 8.9e-8),
 * mixed_synthetic at round 61 (36 cheaper of 1.39e9, 2.6e-8), pai_scale at 10,000 jobs at
 * round 2 (2.8e-14 of 227: the same cost).  GLPK is called directly, not through sched/lp.h: lp_solve and
 * lp_solve_mip switch the presolver on, which discards the kept basis, and take no callback.
 *
 * Incremental program.  One glp_prob lives across rounds.  Each job in the program owns a
 * block (its T x columns, r, its assignment row), found by job id.  A departed job's row and
 * columns are deleted, and so are those of jobs out of reach (glp_del_rows / glp_del_cols,
 * one batch per round, O(program) to renumber what refers to the rest); a block that enters
 * is appended, its row variable basic and its columns at 0, so the kept basis stays a basis.
 * A round rewrites only the blocks that enter and those of jobs whose size or eligible types
 * changed, the g columns of classes whose membership count changed, bounds of classes whose
 * state changed, and the objective (age and rho move every round).  The kept basis loses
 * the deleted rows and columns with them and is repaired (structurally) where a departed
 * job was basic or a rewritten block changed (lp_repair_basis in sched/lp.c).
 * Size: about P (T + 1) columns and P + 3 T D rows for P jobs in the program (at most the
 * live jobs; on a loaded cluster a few times the jobs that run), T types, D sizes, with T D
 * integer columns (plus T D binaries with work conservation).  Per round O(T D J log J)
 * outside GLPK for J live jobs (the incumbent's knapsacks span the waiting jobs' GPUs, not
 * the free ones), and a few simplex calls on the program: the cost of a round follows the
 * jobs alive in it (pai_scale: 3-4 us per live job and round from 50 to 300 live jobs).
 * 1,000 GPUs of 8 types and 4,000 jobs take 0.15-0.5 CPU s a warm round (tens of nodes);
 * the first, cold, round is mostly GLPK's branch and bound on a 0.13% gap (tests/bench_fft.c):
 * 4.41e9 instructions and 1,769 nodes with GLPK's branching defaults and the rounding/dive
 * incumbent (4142.21, optimum 4140.23), 3.17e9 with pseudocost branching and best-projection
 * backtracking (1,422 nodes), 2.69e9 with the trades too: they reach the optimum before
 * branching, fixing leaves 725 x columns free instead of 932, 1,403 nodes.
 *
 * Test hooks (declared by tests/test_fft.c and tests/bench_fft.c, not in a header):
 * fft_rho, fft_set_rho, fft_size, fft_last, fft_counts, fft_trades, fft_program_jobs,
 * fft_knapsack.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/fairshare.h"
#include "../alloc.h"
#include "../lp.h"

enum { MAXT = CLUSTER_MAX_TYPES, MAXD = 32 };
enum { CLS_OPEN, CLS_FORCED, CLS_IDLE };

/* A live job: what the policy keeps of it, and its block when it is in the program. */
struct blk {
    int64_t  id;
    int64_t  seen;      /* last call it was part of */
    int      live;      /* the slot holds a job (else it is on the free list) */
    int      d;         /* workers */
    uint32_t elig;      /* bit i: x_j^i may be 1 */
    int      c;         /* its size class, -1 when it can run nowhere */
    int      must;      /* it cannot wait (set_must_run): r fixed at 1 while in the program */
    int      inlp;      /* its block (columns and row) is in the program */
    int      fresh;     /* block (re)written this call */
    int      drop;      /* leaves the program at the next call (out_of_reach) */
    int      x0;        /* first of T x columns; r = x0 + T (with work conservation) */
    int      a0;        /* assignment row */
    double   rho;
};

struct fft {
    struct alloc_base base;     /* first: alloc_train finds it */
    /* parameters */
    int       wc;
    double    wf, ws, gap;
    int64_t   node_limit;
    /* the program */
    glp_prob *lp;
    int       T;                /* types it was built for, 0 = none yet */
    int       types[MAXT];
    double    cap[MAXT];
    int       ucol[MAXT], urow[MAXT];           /* u_i and its definition row */
    int       nd, dval[MAXD];                   /* size classes seen */
    struct cls {                                /* size class dval[c] on type i */
        int n, nrow;                            /* count n_{i,d}, its row; 0: absent */
        int g, a, b;                            /* work conservation: g, rows (a), (b) */
        int cnt;                                /* members g's column was written for */
        int state;                              /* CLS_* */
    } cls[MAXD][MAXT];
    /* blocks and the id -> block map (open addressing, linear probing) */
    struct blk *b;
    int       nb, bcap, *freeb, nfree;
    /* rows and columns of departed jobs, deleted together by compact() (1-based, as GLPK) */
    int      *delr, *delc, ndelr, ndelc, delcap;
    int      *rmap, *cmap;      /* compact()'s old -> new index, 0 = deleted */
    int       mapcap;
    int64_t  *mkey;
    int      *mval;
    size_t    mcap, mn;
    int64_t   calls;
    /* scratch, grown as needed */
    int      *kblk;             /* problem index -> block */
    int      *ind;
    double   *val;
    size_t    scap;
    int      *rstat, *cstat;    /* the last optimal LP basis */
    double   *ydual;            /* its row duals: the next round's pricing guess */
    int       nrstat, ncstat, rscap, cscap;
    int      *held;             /* x columns held at 0 this round (restricted LP) */
    uint8_t  *isheld;           /* by column */
    int       nheld;
    size_t    hcap;
    const struct alloc_problem *p;  /* during a call */
    double   *cost;             /* [k * T + i], HUGE_VAL when not eligible */
    double   *rcost;            /* the same, reduced costs at the LP optimum */
    int      *on;               /* [k]: the decision, type or -1 */
    /* statistics of the last solve (read by the bench) */
    int64_t   n_simplex, n_pivots, n_intopt;    /* GLPK calls since create, cumulative */
    int64_t   last_nodes;
    int       last_free;        /* x columns left free by reduced-cost fixing */
    double    last_lp, last_inc, last_dec;    /* LP bound, incumbent before branching, decision */
    double    last_inc0;        /* incumbent before improve(), NAN when it did not run */
    int       last_trades;      /* trades improve() solved an LP for */
};

/* ---- the id -> block map ---- */

static size_t slot_of(int64_t id, size_t mask)
{
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h ^ (h >> 29)) & mask;
}

static int map_find(const struct fft *f, int64_t id)
{
    if (f->mcap == 0)
        return -1;
    for (size_t s = slot_of(id, f->mcap - 1);; s = (s + 1) & (f->mcap - 1)) {
        if (f->mval[s] < 0)
            return -1;
        if (f->mkey[s] == id)
            return f->mval[s];
    }
}

static int map_put(struct fft *f, int64_t id, int blk)
{
    if ((f->mn + 1) * 2 > f->mcap) {
        size_t nc = f->mcap ? f->mcap * 2 : 64;
        int64_t *k = malloc(nc * sizeof *k);
        int *v = malloc(nc * sizeof *v);
        if (k == NULL || v == NULL) {
            free(k);
            free(v);
            return -1;
        }
        for (size_t s = 0; s < nc; s++)
            v[s] = -1;
        for (size_t s = 0; s < f->mcap; s++)
            if (f->mval[s] >= 0) {
                size_t t = slot_of(f->mkey[s], nc - 1);
                while (v[t] >= 0)
                    t = (t + 1) & (nc - 1);
                k[t] = f->mkey[s];
                v[t] = f->mval[s];
            }
        free(f->mkey);
        free(f->mval);
        f->mkey = k;
        f->mval = v;
        f->mcap = nc;
    }
    size_t s = slot_of(id, f->mcap - 1);
    while (f->mval[s] >= 0)
        s = (s + 1) & (f->mcap - 1);
    f->mkey[s] = id;
    f->mval[s] = blk;
    f->mn++;
    return 0;
}

/* Remove by backward shift, so that probe chains stay unbroken without tombstones. */
static void map_del(struct fft *f, int64_t id)
{
    size_t mask = f->mcap - 1, s = slot_of(id, mask);
    while (f->mkey[s] != id || f->mval[s] < 0)
        s = (s + 1) & mask;
    for (size_t nx = (s + 1) & mask; f->mval[nx] >= 0; nx = (nx + 1) & mask) {
        size_t home = slot_of(f->mkey[nx], mask);
        /* move nx back into the hole unless its home lies cyclically in (s, nx] */
        if (((nx - home) & mask) >= ((nx - s) & mask)) {
            f->mkey[s] = f->mkey[nx];
            f->mval[s] = f->mval[nx];
            s = nx;
        }
    }
    f->mval[s] = -1;
    f->mn--;
}

/* ---- building the program ---- */

static int reserve_scratch(struct fft *f, size_t n)
{
    if (n <= f->scap)
        return 0;
    size_t nc = n * 2;
    int *ind = realloc(f->ind, (nc + 1) * sizeof *ind);
    if (ind == NULL)
        return -1;
    f->ind = ind;
    double *val = realloc(f->val, (nc + 1) * sizeof *val);
    if (val == NULL)
        return -1;
    f->val = val;
    f->scap = nc;
    return 0;
}

static void reset(struct fft *f)
{
    if (f->lp != NULL)
        glp_delete_prob(f->lp);
    f->lp = NULL;
    f->T = 0;
    f->nd = 0;
    memset(f->cls, 0, sizeof f->cls);
    f->nb = 0;
    f->nfree = 0;
    f->ndelr = f->ndelc = 0;
    for (size_t s = 0; s < f->mcap; s++)
        f->mval[s] = -1;
    f->mn = 0;
    f->nrstat = f->ncstat = 0;
}

/* Start the program for these types: the u_i columns and their definition rows. */
static void start(struct fft *f, const struct alloc_problem *p)
{
    f->lp = glp_create_prob();
    glp_set_obj_dir(f->lp, GLP_MIN);
    f->T = p->ntypes;
    memcpy(f->types, p->types, sizeof f->types);
    memcpy(f->cap, p->cap, sizeof f->cap);
    int c0 = glp_add_cols(f->lp, f->T), r0 = glp_add_rows(f->lp, f->T);
    for (int i = 0; i < f->T; i++) {
        f->ucol[i] = c0 + i;
        f->urow[i] = r0 + i;
        glp_set_col_bnds(f->lp, c0 + i, f->cap[i] > 0 ? GLP_DB : GLP_FX, 0, f->cap[i]);
        glp_set_row_bnds(f->lp, r0 + i, GLP_FX, 0, 0);
        int ind[2] = { 0, r0 + i };
        double val[2] = { 0, -1 };
        glp_set_mat_col(f->lp, c0 + i, 1, ind, val);
    }
}

static int dclass(struct fft *f, int d)
{
    for (int c = 0; c < f->nd; c++)
        if (f->dval[c] == d)
            return c;
    if (f->nd == MAXD)
        return -1;
    f->dval[f->nd] = d;
    return f->nd++;
}

/* Make sure size class c exists on type i: n and its row; with work conservation also g,
 * row (a) and row (b). */
static void need_class(struct fft *f, int c, int i)
{
    struct cls *q = &f->cls[c][i];
    if (q->n)
        return;
    int d = f->dval[c];
    q->n = glp_add_cols(f->lp, 1);
    q->nrow = glp_add_rows(f->lp, 1);
    glp_set_col_kind(f->lp, q->n, GLP_IV);
    glp_set_col_bnds(f->lp, q->n, GLP_DB, 0, floor(f->cap[i] / d));
    glp_set_row_bnds(f->lp, q->nrow, GLP_FX, 0, 0);
    int ind[3] = { 0, q->nrow, f->urow[i] };
    double val[3] = { 0, -1, d };
    glp_set_mat_col(f->lp, q->n, 2, ind, val);
    if (!f->wc)
        return;
    q->g = glp_add_cols(f->lp, 1);
    q->a = glp_add_rows(f->lp, 2);
    q->b = q->a + 1;
    q->cnt = -1;                /* g's column is written by set_classes */
    q->state = -1;
    /* u_i's column gains +1 in row (a) */
    int n = 0;
    f->ind[++n] = f->urow[i];
    f->val[n] = -1;
    for (int k = 0; k < f->nd; k++)
        if (f->cls[k][i].g) {
            f->ind[++n] = f->cls[k][i].a;
            f->val[n] = 1;
        }
    glp_set_mat_col(f->lp, f->ucol[i], n, f->ind, f->val);
}

static uint32_t eligible(const struct fft *f, const struct alloc_problem *p, int k)
{
    uint32_t e = 0;
    for (int i = 0; i < f->T; i++)
        if (p->thr[k * p->ntypes + i] > 0 && p->scale[k] >= 1 && p->scale[k] <= f->cap[i])
            e |= 1u << i;
    return e;
}

/* Take problem job k's size and eligible types into block bi, and make the classes it
 * belongs to exist (for every live job: work conservation counts them all). */
static void set_job(struct fft *f, const struct alloc_problem *p, int bi, int k)
{
    struct blk *b = &f->b[bi];
    b->d = p->scale[k];
    b->elig = eligible(f, p, k);
    b->c = b->elig ? dclass(f, b->d) : -1;
    if (b->c < 0)
        b->elig = 0;    /* more than MAXD distinct sizes: not expected of any trace */
    for (int i = 0; i < f->T; i++)
        if (b->elig >> i & 1)
            need_class(f, b->c, i);
}

/* Write the columns and row of block bi (in the program) from its size and types. */
static void write_block(struct fft *f, int bi)
{
    struct blk *b = &f->b[bi];
    int T = f->T, c = b->c;
    b->fresh = 1;
    /* x columns: 1 in the assignment row and in the count row of its class */
    for (int i = 0; i < T; i++) {
        int col = b->x0 + i;
        if (b->elig >> i & 1) {
            int ind[3] = { 0, b->a0, f->cls[c][i].nrow };
            double val[3] = { 0, 1, 1 };
            glp_set_mat_col(f->lp, col, 2, ind, val);
            glp_set_col_bnds(f->lp, col, GLP_DB, 0, 1);
        } else {
            glp_set_mat_col(f->lp, col, 0, NULL, NULL);
            glp_set_col_bnds(f->lp, col, GLP_FX, 0, 0);
            glp_set_obj_coef(f->lp, col, 0);
        }
    }
    if (!f->wc) {
        glp_set_row_bnds(f->lp, b->a0, GLP_UP, 0, 1);
        return;
    }
    /* r: -1 in the assignment row and in row (b) of its class on every eligible type */
    int n = 0;
    f->ind[++n] = b->a0;
    f->val[n] = -1;
    for (int i = 0; i < T; i++)
        if (b->elig >> i & 1) {
            f->ind[++n] = f->cls[c][i].b;
            f->val[n] = -1;
        }
    glp_set_mat_col(f->lp, b->x0 + T, n, f->ind, f->val);
    if (b->must)
        glp_set_col_bnds(f->lp, b->x0 + T, GLP_FX, 1, 1);
    else
        glp_set_col_bnds(f->lp, b->x0 + T, GLP_DB, 0, 1);
    glp_set_row_bnds(f->lp, b->a0, GLP_FX, 0, 0);
}

/* Queue the row and columns of block bi for deletion by compact(). */
static int leave(struct fft *f, int bi)
{
    const struct blk *b = &f->b[bi];
    int nc = f->T + (f->wc ? 1 : 0);
    assert(b->inlp);
    if (f->ndelc + nc + 1 > f->delcap) {
        int cap = (f->ndelc + nc + 1) * 2;
        int *r = realloc(f->delr, (size_t)cap * sizeof *r);
        if (r == NULL)
            return -1;
        f->delr = r;
        int *c = realloc(f->delc, (size_t)cap * sizeof *c);
        if (c == NULL)
            return -1;
        f->delc = c;
        f->delcap = cap;
    }
    for (int i = 0; i < nc; i++)
        f->delc[++f->ndelc] = b->x0 + i;
    f->delr[++f->ndelr] = b->a0;
    f->b[bi].inlp = 0;
    return 0;
}

/* Old -> new index after deleting the marked entries (map[j] < 0) of 1..n: order kept. */
static int renumber(int *map, int n)
{
    int m = 0;
    for (int j = 1; j <= n; j++)
        map[j] = map[j] < 0 ? 0 : ++m;
    return m;
}

/* Delete the queued rows and columns from the program and renumber whatever refers to the
 * rest: blocks, classes, u, and the kept basis and duals (GLPK keeps the survivors' order
 * and statuses; the kept basis loses rows whose row variable was basic and nonbasic columns
 * when a block leaves as it was at the last optimum, so it stays a basis unless a departed
 * job was basic — lp_repair_basis mends that at the next solve).  O(rows + columns). */
static int compact(struct fft *f)
{
    if (f->ndelr == 0)
        return 0;
    int m = glp_get_num_rows(f->lp), n = glp_get_num_cols(f->lp);
    int need = (m > n ? m : n) + 1;
    if (need > f->mapcap) {
        int *r = realloc(f->rmap, (size_t)need * 2 * sizeof *r);
        if (r == NULL)
            return -1;
        f->rmap = r;
        int *c = realloc(f->cmap, (size_t)need * 2 * sizeof *c);
        if (c == NULL)
            return -1;
        f->cmap = c;
        f->mapcap = need * 2;
    }
    int *rmap = f->rmap, *cmap = f->cmap;
    memset(rmap, 0, ((size_t)m + 1) * sizeof *rmap);
    memset(cmap, 0, ((size_t)n + 1) * sizeof *cmap);
    for (int q = 1; q <= f->ndelr; q++)
        rmap[f->delr[q]] = -1;
    for (int q = 1; q <= f->ndelc; q++)
        cmap[f->delc[q]] = -1;
    renumber(rmap, m);
    renumber(cmap, n);
    glp_del_rows(f->lp, f->ndelr, f->delr);
    glp_del_cols(f->lp, f->ndelc, f->delc);
    f->ndelr = f->ndelc = 0;
    for (int bi = 0; bi < f->nb; bi++) {
        struct blk *b = &f->b[bi];
        if (b->live && b->inlp) {
            b->x0 = cmap[b->x0];
            b->a0 = rmap[b->a0];
        }
    }
    for (int i = 0; i < f->T; i++) {
        f->ucol[i] = cmap[f->ucol[i]];
        f->urow[i] = rmap[f->urow[i]];
    }
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < f->T; i++) {
            struct cls *q = &f->cls[c][i];
            if (q->n) {
                q->n = cmap[q->n];
                q->nrow = rmap[q->nrow];
            }
            if (q->g) {
                q->g = cmap[q->g];
                q->a = rmap[q->a];
                q->b = rmap[q->b];
            }
        }
    /* the kept basis: compacted in place (new index <= old) */
    int nr = 0, nc = 0;
    for (int r = 1; r <= f->nrstat; r++)
        if (rmap[r]) {
            f->rstat[rmap[r]] = f->rstat[r];
            f->ydual[rmap[r]] = f->ydual[r];
            nr = rmap[r];
        }
    for (int c = 1; c <= f->ncstat; c++)
        if (cmap[c]) {
            f->cstat[cmap[c]] = f->cstat[c];
            nc = cmap[c];
        }
    f->nrstat = nr;
    f->ncstat = nc;
    return 0;
}

/* A slot for a new job (not in the program yet). */
static int new_block(struct fft *f)
{
    int bi;
    if (f->nfree > 0) {
        bi = f->freeb[--f->nfree];
    } else {
        if (f->nb == f->bcap) {
            int nc = f->bcap ? f->bcap * 2 : 64;
            struct blk *b = realloc(f->b, (size_t)nc * sizeof *b);
            if (b == NULL)
                return -1;
            f->b = b;
            int *fr = realloc(f->freeb, (size_t)nc * sizeof *fr);
            if (fr == NULL)
                return -1;
            f->freeb = fr;
            f->bcap = nc;
        }
        bi = f->nb++;
    }
    memset(&f->b[bi], 0, sizeof f->b[bi]);
    return bi;
}

/* Work conservation for this round.  N = members of class (d, i); at most K_d = sum over
 * types of floor(Y / d) jobs of size d can run at once, so a class with N > K_d surely has
 * a member waiting: its g is 0 and row (a) is the plain bound u_i >= Y_i - d + 1 ("forced").
 * Classes of larger sizes on that type are then implied ("idle").  The others keep the
 * disjunction ("open"). */
static void set_classes(struct fft *f, int J)
{
    int T = f->T, cnt[MAXD][MAXT];
    memset(cnt, 0, sizeof cnt);
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (b->elig) {
            int c = dclass(f, b->d);
            for (int i = 0; i < T; i++)
                cnt[c][i] += b->elig >> i & 1;
        }
    }
    for (int i = 0; i < T; i++) {
        double dstar = HUGE_VAL;
        for (int c = 0; c < f->nd; c++) {
            double kd = 0;
            for (int t = 0; t < T; t++)
                kd += floor(f->cap[t] / f->dval[c]);
            if (cnt[c][i] > kd && f->dval[c] < dstar)
                dstar = f->dval[c];
        }
        for (int c = 0; c < f->nd; c++) {
            struct cls *q = &f->cls[c][i];
            if (!q->g)
                continue;       /* no job of that size ever ran there */
            int d = f->dval[c];
            int state = cnt[c][i] == 0 || d > dstar ? CLS_IDLE : d == dstar ? CLS_FORCED : CLS_OPEN;
            if (q->cnt != cnt[c][i]) {
                int ind[3] = { 0, q->a, q->b };
                double val[3] = { 0, f->cap[i] - d + 1, cnt[c][i] };
                glp_set_mat_col(f->lp, q->g, 2, ind, val);
                q->cnt = cnt[c][i];
            }
            if (state == q->state)
                continue;
            q->state = state;
            if (state == CLS_OPEN) {
                glp_set_col_kind(f->lp, q->g, GLP_BV);
                glp_set_row_bnds(f->lp, q->a, GLP_LO, f->cap[i] - d + 1, 0);
                glp_set_row_bnds(f->lp, q->b, GLP_UP, 0, 0);
            } else {
                glp_set_col_kind(f->lp, q->g, GLP_IV);
                glp_set_col_bnds(f->lp, q->g, GLP_FX, 0, 0);
                glp_set_row_bnds(f->lp, q->a, state == CLS_FORCED ? GLP_LO : GLP_FR,
                                 f->cap[i] - d + 1, 0);
                glp_set_row_bnds(f->lp, q->b, GLP_FR, 0, 0);
            }
        }
    }
}

/* Jobs that cannot wait.  If job j waited, each type i it may run on would have fewer than
 * d_j GPUs free (work conservation), u_i >= Y_i - d_j + 1, so the other jobs would hold at
 * least S_j = sum over those types of (Y_i - d_j + 1) GPUs.  When all other jobs together
 * need fewer (D - d_j < S_j, D = the GPUs of every job that can run somewhere), j runs in
 * every admissible point: r_j = 1 is implied, and fixing it removes no integral solution.
 * It closes the LP relaxation's gap on a cluster with room for everyone, where g and r can
 * otherwise be fractional together (g < 1 relaxes (a), r < 1 lets a job with positive
 * cost half wait) and the LP bound sits far below every admissible point, so that each
 * round needed branch and bound.  O(J T), bounds rewritten only where they change. */
static void set_must_run(struct fft *f, int J)
{
    int T = f->T;
    double D = 0;
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (b->elig)
            D += b->d;
    }
    for (int k = 0; k < J; k++) {
        struct blk *b = &f->b[f->kblk[k]];
        double S = 0;
        for (int i = 0; i < T; i++)
            if (b->elig >> i & 1)
                S += f->cap[i] - b->d + 1;
        int must = b->elig != 0 && D - b->d < S;
        if (must != b->must && b->inlp) {
            if (must)
                glp_set_col_bnds(f->lp, b->x0 + T, GLP_FX, 1, 1);
            else
                glp_set_col_bnds(f->lp, b->x0 + T, GLP_DB, 0, 1);
        }
        b->must = must;
    }
}

/* ---- the round's costs ---- */

/* c_j^i of (1)-(2) for problem job k on type i, in rounds (see the header). */
static double coef(const struct fft *f, const struct alloc_problem *p, int k, int i,
                   double rho)
{
    int T = p->ntypes;
    double rs = p->round_s;
    double theta = p->thr[k * T + i] * rs;
    double age = p->age_s[k] / rs, w = p->work[k], d = p->scale[k];
    double phi = age * theta / w + d * w / theta;
    int cur = p->cur_type ? p->cur_type[k] : -1;
    int fresh = p->attained_s == NULL || !(p->attained_s[k] > 0);
    double s = (cur == i || (cur < 0 && fresh)) ? 0 : (p->restore_s ? p->restore_s[k] : 0) / rs;
    return phi + f->ws * s - f->wf * rho * theta;
}

/* ---- the incumbent: rounding the LP point ---- */

struct hcand {
    double c;
    int    k, i;
};

static int by_cost(const void *a, const void *b)
{
    const struct hcand *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The cheapest way to use exactly u of `room` GPUs with items of sizes size[] and costs
 * cost[] (each at most once), for the best admissible u: with `wc`, u must leave fewer than
 * `dmin` GPUs free, and when no such u is reachable the largest reachable u is taken; without
 * it any u goes.  pick[it] = 1 for the items taken.  An exact 0/1 knapsack table over u up to
 * the items' total size (at most `room`): no larger u is reachable, so a type with many free
 * GPUs and few items costs O(items x their GPUs), not O(room).  Returns 0, -1 when out of
 * memory. */
static int knapsack(const int *size, const double *cost, int n, int room, int dmin, int wc,
                    uint8_t *pick)
{
    int top = 0;
    for (int it = 0; it < n; it++) {
        pick[it] = 0;
        top += size[it];
    }
    if (n == 0 || room <= 0)
        return 0;
    if (top > room)
        top = room;
    size_t w = (size_t)top + 1;
    double *dp = malloc(w * sizeof *dp);
    uint8_t *take = calloc((size_t)n * w + 1, 1);
    if (dp == NULL || take == NULL) {
        free(dp);
        free(take);
        return -1;
    }
    dp[0] = 0;
    for (int u = 1; u <= top; u++)
        dp[u] = HUGE_VAL;
    for (int it = 0; it < n; it++) {
        int sz = size[it];
        for (int u = top; u >= sz; u--)
            if (dp[u - sz] + cost[it] < dp[u]) {
                dp[u] = dp[u - sz] + cost[it];
                take[(size_t)it * w + (size_t)u] = 1;
            }
    }
    int best = -1;
    for (int u = 0; u <= top; u++) {
        if (dp[u] == HUGE_VAL || (wc && room - u >= dmin))
            continue;
        if (best < 0 || dp[u] < dp[best])
            best = u;
    }
    if (best < 0)               /* cannot leave less than dmin free exactly: fill the most */
        for (int u = top; u >= 0 && best < 0; u--)
            if (dp[u] != HUGE_VAL)
                best = u;
    for (int it = n - 1, u = best; it >= 0 && u > 0; it--)
        if (take[(size_t)it * w + (size_t)u]) {
            pick[it] = 1;
            u -= size[it];
        }
    free(dp);
    free(take);
    return 0;
}

/* Fill up to `room` GPUs of type i with unassigned jobs (on[k] < 0) by knapsack() over the
 * cheapest floor(room / d) candidates of each size d.  With work conservation the smallest
 * size still waiting bounds what may stay free (the final greedy fill repairs the rare case
 * where no such use is reachable); without it only negative costs are candidates.  `c` is
 * scratch for J candidates. */
static int fill_type(struct fft *f, int i, int room, int *on, struct hcand *c)
{
    const struct alloc_problem *p = f->p;
    int T = f->T, J = p->njobs, nitems = 0, dmin = INT32_MAX, rc = 0;
    if (room <= 0)
        return 0;
    /* at most floor(room / d) of each size, and each job once */
    size_t most = (size_t)room * 2 + (size_t)MAXD;
    if (most > (size_t)J + 1)
        most = (size_t)J + 1;
    struct hcand *items = malloc(most * sizeof *items);
    int *size = malloc(most * sizeof *size);
    double *icost = malloc(most * sizeof *icost);
    uint8_t *pick = malloc(most);
    if (items == NULL || size == NULL || icost == NULL || pick == NULL) {
        rc = -1;
        goto out;
    }
    for (int cl = 0; cl < f->nd; cl++) {
        int d = f->dval[cl], n = 0;
        for (int k = 0; k < J; k++) {
            const struct blk *b = &f->b[f->kblk[k]];
            if (on[k] < 0 && b->d == d && (b->elig >> i & 1)) {
                if (d < dmin)
                    dmin = d;
                if (d <= room && (f->wc || f->cost[k * T + i] < 0))
                    c[n++] = (struct hcand){ f->cost[k * T + i], k, i };
            }
        }
        if (n == 0)
            continue;
        qsort(c, (size_t)n, sizeof *c, by_cost);
        for (int m = 0; m < n && m < room / d; m++) {
            size[nitems] = d;
            icost[nitems] = c[m].c;
            items[nitems++] = c[m];
        }
    }
    if ((rc = knapsack(size, icost, nitems, room, dmin, f->wc, pick)) == 0)
        for (int it = 0; it < nitems; it++)
            if (pick[it])
                on[items[it].k] = i;
out:
    free(items);
    free(size);
    free(icost);
    free(pick);
    return rc;
}

/* A feasible integral point near the LP point: the jobs at x = 1 in `xv` (column values;
 * NULL: none),
 * then each type filled by fill_type, then (work conservation) a greedy pass by cost that
 * adds any job that still fits, which makes the packing maximal.  on[k] gets the type of
 * job k or -1; returns the point's cost, NAN when out of memory. */
static double incumbent(struct fft *f, const double *xv, int *on)
{
    const struct alloc_problem *p = f->p;
    int T = f->T, J = p->njobs, freec[MAXT];
    struct hcand *c = malloc(((size_t)J * (size_t)T + 1) * sizeof *c);
    if (c == NULL)
        return NAN;
    for (int i = 0; i < T; i++)
        freec[i] = (int)f->cap[i];
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        on[k] = -1;
        for (int i = 0; i < T && on[k] < 0; i++)
            if (xv != NULL && b->inlp && (b->elig >> i & 1) && xv[b->x0 + i] > 1 - 1e-6 &&
                freec[i] >= b->d) {
                on[k] = i;
                freec[i] -= b->d;
            }
    }
    for (int i = 0; i < T; i++) {
        if (fill_type(f, i, freec[i], on, c) < 0) {
            free(c);
            return NAN;
        }
        freec[i] = (int)f->cap[i];
        for (int k = 0; k < J; k++)
            if (on[k] == i)
                freec[i] -= f->b[f->kblk[k]].d;
    }
    /* the greedy pass adds nothing when no waiting job fits anywhere (the common case after
     * the knapsacks, which fill each type): then it is skipped, with its sort of J T items */
    int fits = 0;
    for (int k = 0; k < J && f->wc && !fits; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        for (int i = 0; i < T && on[k] < 0 && !fits; i++)
            fits = (b->elig >> i & 1) && freec[i] >= b->d;
    }
    if (fits) {
        int n = 0;
        for (int k = 0; k < J; k++) {
            const struct blk *b = &f->b[f->kblk[k]];
            for (int i = 0; i < T && on[k] < 0; i++)
                if (b->elig >> i & 1)
                    c[n++] = (struct hcand){ f->cost[k * T + i], k, i };
        }
        qsort(c, (size_t)n, sizeof *c, by_cost);
        for (int m = 0; m < n; m++) {
            int k = c[m].k, i = c[m].i, d = f->b[f->kblk[k]].d;
            if (on[k] < 0 && freec[i] >= d) {
                on[k] = i;
                freec[i] -= d;
            }
        }
    }
    free(c);
    double z = 0;
    for (int k = 0; k < J; k++)
        if (on[k] >= 0)
            z += f->cost[k * T + on[k]];
    return z;
}

/* ---- solving ---- */

static int save_basis(struct fft *f)
{
    int nr = glp_get_num_rows(f->lp), nc = glp_get_num_cols(f->lp);
    if (nr > f->rscap) {
        int *r = realloc(f->rstat, (size_t)(nr * 2 + 1) * sizeof *r);
        if (r == NULL)
            return -1;
        f->rstat = r;
        double *y = realloc(f->ydual, (size_t)(nr * 2 + 1) * sizeof *y);
        if (y == NULL)
            return -1;
        f->ydual = y;
        f->rscap = nr * 2;
    }
    if (nc > f->cscap) {
        int *c = realloc(f->cstat, (size_t)(nc * 2 + 1) * sizeof *c);
        if (c == NULL)
            return -1;
        f->cstat = c;
        f->cscap = nc * 2;
    }
    for (int r = 1; r <= nr; r++) {
        f->rstat[r] = glp_get_row_stat(f->lp, r);
        f->ydual[r] = glp_get_row_dual(f->lp, r);
    }
    for (int c = 1; c <= nc; c++)
        f->cstat[c] = glp_get_col_stat(f->lp, c);
    f->nrstat = nr;
    f->ncstat = nc;
    return 0;
}

static void restore_basis(struct fft *f)
{
    for (int r = 1; r <= f->nrstat; r++)
        glp_set_row_stat(f->lp, r, f->rstat[r]);
    for (int c = 1; c <= f->ncstat; c++)
        glp_set_col_stat(f->lp, c, f->cstat[c]);
}

/* Make the kept basis structurally nonsingular before GLPK factorizes it: match the basic
 * variables to rows (a basic row variable is the unit column of its row, a basic column
 * its nonzeros) by augmenting paths; basic columns left unmatched become nonbasic and the
 * rows left unmatched get their row variable basic.  This also restores the count of basic
 * variables after rows were added.  Needed because a reused block's columns change, and
 * GLPK 5.0's factorizer aborts on some structurally singular bases (bflib/sgf.c, "k1 < k2")
 * instead of reporting them.  O(nonzeros of basic columns x augmenting path lengths). */
static int repair_basis(struct fft *f)
{
    return lp_repair_basis(f->lp);
}

/* glp_simplex, counted (calls and pivots, for fft_counts). */
static int simplex(struct fft *f, const glp_smcp *sp)
{
    int it = glp_get_it_cnt(f->lp), rc = glp_simplex(f->lp, sp);
    f->n_simplex++;
    f->n_pivots += glp_get_it_cnt(f->lp) - it;
    return rc;
}

/* GLPK's callback: counts branch-and-bound nodes, stops at "node_limit". */
static void count_nodes(glp_tree *tree, void *info)
{
    struct fft *f = info;
    if (glp_ios_reason(tree) == GLP_ISELECT && ++f->last_nodes > f->node_limit &&
        f->node_limit > 0)
        glp_ios_terminate(tree);
}

/* ---- the restricted LP: most x columns are held at 0 and priced in when needed ---- */

static void hold(struct fft *f, int col)
{
    glp_set_col_bnds(f->lp, col, GLP_FX, 0, 0);
    f->isheld[col] = 1;
    f->held[f->nheld++] = col;
}

/* Give every held column its bounds back. */
static void release(struct fft *f)
{
    for (int n = 0; n < f->nheld; n++) {
        glp_set_col_bnds(f->lp, f->held[n], GLP_DB, 0, 1);
        f->isheld[f->held[n]] = 0;
    }
    f->nheld = 0;
}

/* Before a warm solve: hold each x column that the kept basis has at 0 and whose reduced
 * cost under the kept duals and this round's costs is not negative — most jobs wait, and
 * GLPK leaves fixed columns out of its working problem.  New blocks stay in. */
static int reserve_held(struct fft *f)
{
    size_t nc = (size_t)glp_get_num_cols(f->lp);
    if (nc + 1 > f->hcap) {
        int *h = realloc(f->held, (nc * 2 + 1) * sizeof *h);
        if (h == NULL)
            return -1;
        f->held = h;
        uint8_t *o = realloc(f->isheld, nc * 2 + 1);
        if (o == NULL)
            return -1;
        memset(o + f->hcap, 0, nc * 2 + 1 - f->hcap);
        f->isheld = o;
        f->hcap = nc * 2 + 1;
    }
    return 0;
}

static void hold_columns(struct fft *f)
{
    int T = f->T, J = f->p->njobs;
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (!b->inlp || b->fresh || b->a0 > f->nrstat)
            continue;
        int c = b->c;
        for (int i = 0; i < T; i++) {
            int col = b->x0 + i, nrow = f->cls[c][i].nrow;
            if (!(b->elig >> i & 1) || glp_get_col_stat(f->lp, col) != GLP_NL || nrow > f->nrstat)
                continue;
            if (f->cost[k * T + i] - f->ydual[b->a0] - f->ydual[nrow] >= 0)
                hold(f, col);
        }
    }
}

/* Does a column of cost cj and reduced cost rc price in?  GLPK's own test for an improving
 * column (rc < -(tol_dj + 1e-3 tol_dj |cj|), tol_dj = 1e-7: spxchuzc.c), so that the
 * priced LP is optimal to the tolerance GLPK applies to the whole LP.  A looser test left
 * columns out whose reduced cost was -0.01 at costs of 1e5 (fft_philly), and the round
 * took an assignment that was 0.01 more expensive than the best one. */
static int prices_in(double rc, double cj)
{
    return rc < -(1e-7 + 1e-10 * fabs(cj));
}

/* Release held columns whose reduced cost at the current duals is negative; how many. */
static int price(struct fft *f)
{
    int T = f->T, J = f->p->njobs, n = 0;
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        int c = b->c;
        if (!b->inlp)
            continue;
        for (int i = 0; i < T; i++) {
            int col = b->x0 + i;
            if (!(b->elig >> i & 1) || !f->isheld[col])
                continue;
            double cj = f->cost[k * T + i];
            double rc = cj - glp_get_row_dual(f->lp, b->a0) -
                        glp_get_row_dual(f->lp, f->cls[c][i].nrow);
            if (prices_in(rc, cj)) {
                glp_set_col_bnds(f->lp, col, GLP_DB, 0, 1);
                f->isheld[col] = 0;
                n++;
            }
        }
    }
    if (n > 0) {    /* compact the list */
        int m = 0;
        for (int q = 0; q < f->nheld; q++)
            if (f->isheld[f->held[q]])
                f->held[m++] = f->held[q];
        f->nheld = m;
    }
    return n;
}

/* ---- jobs outside the program: priced against the class rows' duals ---- */

/* The class rows' duals: mu[c][i] of the count row, beta[c][i] of row (b) (0 where that row
 * is free or absent).  From GLPK's current solution, or (kept) from the last optimum's,
 * 0 for rows added since. */
static void class_duals(const struct fft *f, int kept, double mu[MAXD][MAXT],
                        double beta[MAXD][MAXT])
{
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < f->T; i++) {
            const struct cls *q = &f->cls[c][i];
            mu[c][i] = beta[c][i] = 0;
            if (!q->n)
                continue;
            if (!kept)
                mu[c][i] = glp_get_row_dual(f->lp, q->nrow);
            else if (q->nrow <= f->nrstat)
                mu[c][i] = f->ydual[q->nrow];
            if (!q->g || q->state != CLS_OPEN)
                continue;
            if (!kept)
                beta[c][i] = glp_get_row_dual(f->lp, q->b);
            else if (q->b <= f->nrstat)
                beta[c][i] = f->ydual[q->b];
        }
}

/* For problem job k outside the program, rc[i] = the least amount by which running it on
 * type i raises the objective above the LP optimum, c_k^i - mu_{d,i} + sum over its types i'
 * of beta_{d,i'} (HUGE_VAL where it cannot run); returns the least over i.  Why: its x and r
 * would enter together (its row is x sum = r), at reduced costs c - y - mu and y + sum beta,
 * whose sum does not depend on its row's dual y; with work conservation off, r is absent
 * and y = 0 (row x sum <= 1 slack).  When the least is >= 0, y = c - mu at the cheapest type
 * extends the duals feasibly, so the LP optimum stands with the job in the program. */
static double outside_rc(const struct fft *f, int k, double mu[MAXD][MAXT],
                         double beta[MAXD][MAXT], double *rc)
{
    const struct blk *b = &f->b[f->kblk[k]];
    int T = f->T, c = b->c;
    double sb = 0, least = HUGE_VAL;
    for (int i = 0; i < T && f->wc; i++)
        if (b->elig >> i & 1)
            sb += beta[c][i];
    for (int i = 0; i < T; i++) {
        rc[i] = HUGE_VAL;
        if (b->elig >> i & 1) {
            rc[i] = f->cost[k * T + i] - mu[c][i] + sb;
            if (rc[i] < least)
                least = rc[i];
        }
    }
    return least;
}

/* Put problem job k's block into the program: appended (its row variable basic, its columns
 * at 0, so a kept basis stays a basis and primal feasible), with this round's costs. */
static int enter(struct fft *f, int k)
{
    struct blk *b = &f->b[f->kblk[k]];
    int T = f->T;
    assert(!b->inlp && b->elig);
    b->x0 = glp_add_cols(f->lp, T + (f->wc ? 1 : 0));
    b->a0 = glp_add_rows(f->lp, 1);
    b->inlp = 1;
    write_block(f, f->kblk[k]);
    for (int i = 0; i < T; i++)
        if (b->elig >> i & 1)
            glp_set_obj_coef(f->lp, b->x0 + i, f->cost[k * T + i]);
    return reserve_held(f);
}

struct pcand {
    double rc;
    int    k, c, i;
};

static int by_bucket(const void *a, const void *b)
{
    const struct pcand *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    if (x->rc != y->rc)
        return x->rc < y->rc ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Enter jobs outside the program whose rc (outside_rc) is negative somewhere, under GLPK's
 * current duals or (kept) the last optimum's: per size class d and type i (the type of its
 * least rc), the floor(Y_i / d) most negative, since no more of them can run there at once
 * (when costs move a lot between rounds, nearly every waiting job prices in under the old
 * duals, and entering them all would make the program the whole LP again); the next pricing
 * pass sees the others.  How many entered, -1 when out of memory.  O(J T + n log n). */
static int price_outside(struct fft *f, int kept)
{
    double mu[MAXD][MAXT], beta[MAXD][MAXT], rc[MAXT];
    int J = f->p->njobs, T = f->T, n = 0, entered = 0;
    struct pcand *cand = NULL;
    class_duals(f, kept, mu, beta);
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (b->inlp || !b->elig)
            continue;
        double least = outside_rc(f, k, mu, beta, rc);
        int i = 0;
        while (rc[i] != least)
            i++;
        if (!prices_in(least, f->cost[k * T + i]))
            continue;
        if (cand == NULL && (cand = malloc(((size_t)J + 1) * sizeof *cand)) == NULL)
            return -1;
        cand[n++] = (struct pcand){ least, k, b->c, i };
    }
    if (n == 0)
        return 0;
    qsort(cand, (size_t)n, sizeof *cand, by_bucket);
    for (int q = 0, taken = 0; q < n; q++) {
        if (q > 0 && (cand[q].c != cand[q - 1].c || cand[q].i != cand[q - 1].i))
            taken = 0;
        if (taken >= (int)floor(f->cap[cand[q].i] / f->dval[cand[q].c]))
            continue;
        taken++;
        if (enter(f, cand[q].k) < 0) {
            free(cand);
            return -1;
        }
        entered++;
    }
    free(cand);
    return entered;
}

/* Enter the jobs that run in on[] (type or -1 per problem job); NULL: every job that can run.
 * -1 when out of memory. */
static int enter_jobs(struct fft *f, const int *on)
{
    for (int k = 0; k < f->p->njobs; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (!b->inlp && b->elig && (on == NULL || on[k] >= 0) && enter(f, k) < 0)
            return -1;
    }
    return 0;
}

/* Enter the jobs of the greedy packing (incumbent() without an LP point).  That packing is
 * admissible, so the program then has a feasible point whatever else is left out. */
static int enter_packing(struct fft *f)
{
    int *on = malloc(((size_t)f->p->njobs + 1) * sizeof *on);
    int rc = on == NULL || isnan(incumbent(f, NULL, on)) ? -1 : enter_jobs(f, on);
    free(on);
    return rc;
}

/* Simplex with `sp`, then pricing rounds by the primal simplex (released columns and
 * entering jobs start at 0, so the basis stays primal feasible) until no held column and no
 * job outside the program prices in: the optimum of the whole LP.  A restricted LP that is
 * infeasible (held columns were needed to fill a type) gets every held column back.
 * GLPK's return code, -1 if not optimal, -2 when out of memory. */
static int simplex_priced(struct fft *f, glp_smcp *sp)
{
    int rc = simplex(f, sp);
    for (;;) {
        int opt = rc == 0 && glp_get_status(f->lp) == GLP_OPT;
        if (opt) {
            if (price(f) == 0) {
                int n = price_outside(f, 0);
                if (n < 0)
                    return -2;
                if (n == 0)
                    break;
            }
        } else if (f->nheld > 0) {
            release(f);
        } else {
            break;
        }
        sp->meth = GLP_PRIMAL;
        rc = simplex(f, sp);
    }
    return rc != 0 ? rc : glp_get_status(f->lp) == GLP_OPT ? 0 : -1;
}

/* A dual feasible start for the dual simplex: every row variable basic, each x at the bound
 * its cost prefers. */
static void cold_basis(struct fft *f)
{
    glp_std_basis(f->lp);
    int n = glp_get_num_cols(f->lp);
    for (int j = 1; j <= n; j++)
        if (glp_get_obj_coef(f->lp, j) < 0 && glp_get_col_type(f->lp, j) == GLP_DB)
            glp_set_col_stat(f->lp, j, GLP_NU);
}

/* The LP relaxation, over the jobs in the program and priced against all the others (so
 * it is the optimum of the whole LP).  Jobs that cannot wait enter first, then those the last
 * optimum's duals price in at this round's costs (the first time: a greedy packing's jobs).
 * By the primal simplex from the last optimal basis (only costs and a few columns changed),
 * or the dual simplex from cold_basis the first time or when the kept basis fails or the
 * program has no feasible point (a greedy packing's jobs then enter: they are one).  Last
 * resort: every job in, GLPK's presolver and primal simplex from scratch. */
static int solve_lp(struct fft *f, struct errbuf *err)
{
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    int rc = -1, J = f->p->njobs;
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (b->must && !b->inlp && enter(f, k) < 0)
            return err_run(err, "out of memory");
    }
    if ((f->nrstat > 0 ? price_outside(f, 1) : enter_packing(f)) < 0 || reserve_held(f) < 0)
        return err_run(err, "out of memory");
    if (f->nrstat > 0) {
        restore_basis(f);
        if (repair_basis(f) < 0)
            return err_run(err, "out of memory");
        hold_columns(f);
        rc = simplex_priced(f, &sp);
    }
    if (rc != 0 && rc != -2) {
        release(f);
        if (enter_packing(f) < 0)
            return err_run(err, "out of memory");
        cold_basis(f);
        sp.meth = GLP_DUALP;
        rc = simplex_priced(f, &sp);
    }
    if (rc == -2)
        return err_run(err, "out of memory");
    if (rc != 0) {
        release(f);
        if (enter_jobs(f, NULL) < 0)
            return err_run(err, "out of memory");
        glp_std_basis(f->lp);
        sp.meth = GLP_PRIMAL;
        sp.presolve = GLP_ON;
        rc = simplex(f, &sp);
        if (rc != 0 || glp_get_status(f->lp) != GLP_OPT)
            return err_run(err, "fft: the LP relaxation failed (GLPK code %d, status %d)", rc,
                           glp_get_status(f->lp));
    }
    return save_basis(f) < 0 ? err_run(err, "out of memory") : 0;
}

/* One LP of the dive, by the dual simplex: 1 if optimal.  An infeasible one gets the held
 * columns back (a fixing may need them, e.g. g = 1 a member that waited) and is solved
 * again. */
static int dive_lp(struct fft *f, const glp_smcp *sp)
{
    int ok = simplex(f, sp) == 0 && glp_get_status(f->lp) == GLP_OPT;
    if (!ok && f->nheld > 0) {
        release(f);
        ok = simplex(f, sp) == 0 && glp_get_status(f->lp) == GLP_OPT;
    }
    return ok;
}

/* Diving from the LP optimum: fix the integer column closest to an integral value (n to its
 * nearest integer, or the other side if that is infeasible; an open g to 0) and re-solve by
 * the dual simplex from the current basis, until n and g are integral — then so are the x
 * (see the header).  A fractional g whose rounding keeps the current point feasible is
 * fixed without a re-solve: g has no cost, so the point stays optimal.  That is the common
 * case — g = 1 when every member runs, g = 0 when the type is full enough anyway — and it
 * saves the two simplex calls (g = 0 infeasible, then g = 1) each such class used to cost.
 * Reads the point into `xv` and returns 0 if it got there, 1 if a dive was infeasible both
 * ways.  Every bound it changed is restored. */
static int dive(struct fft *f, double *xv)
{
    int T = f->T, nint = 0, cols[2 * MAXD * MAXT], nfix = 0, rc = 1;
    const struct cls *of[2 * MAXD * MAXT];     /* the class of an open g, NULL for an n */
    int at[2 * MAXD * MAXT];                    /* its type */
    uint8_t done[2 * MAXD * MAXT];              /* fixed by this dive */
    struct { int col, type; double lb, ub; } fix[2 * MAXD * MAXT];
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < T; i++) {
            const struct cls *q = &f->cls[c][i];
            if (q->n) {
                of[nint] = NULL;
                at[nint] = i;
                cols[nint++] = q->n;
            }
            if (q->g && q->state == CLS_OPEN) {
                of[nint] = q;
                at[nint] = i;
                cols[nint++] = q->g;
            }
        }
    memset(done, 0, sizeof done);
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.meth = GLP_DUALP;
    /* each pass fixes one more column, so at most nint passes */
    for (int pass = 0; pass <= nint; pass++) {
        int best = -1;
        double bestd = 2, v = 0;
        for (int q = 0; q < nint; q++) {
            if (done[q])
                continue;
            double x = glp_get_col_prim(f->lp, cols[q]), d = fabs(x - floor(x + 0.5));
            if (d <= 1e-6)
                continue;
            if (of[q] != NULL) {
                /* (a): u + (Y - d + 1) g >= Y - d + 1;  (b): N g - sum r <= 0 */
                const struct cls *k = of[q];
                double lo = glp_get_row_lb(f->lp, k->a);
                double u = glp_get_col_prim(f->lp, f->ucol[at[q]]);
                double slack1 = glp_get_row_prim(f->lp, k->b) + k->cnt * (1 - x);
                double r = -1;
                if (u >= lo - 1e-9)
                    r = 0;
                else if (slack1 <= 1e-9)
                    r = 1;
                if (r >= 0) {
                    fix[nfix].col = cols[q];
                    fix[nfix].type = glp_get_col_type(f->lp, cols[q]);
                    fix[nfix].lb = glp_get_col_lb(f->lp, cols[q]);
                    fix[nfix].ub = glp_get_col_ub(f->lp, cols[q]);
                    nfix++;
                    glp_set_col_bnds(f->lp, cols[q], GLP_FX, r, r);
                    done[q] = 1;
                    continue;
                }
            }
            if (d < bestd) {
                best = q;
                bestd = d;
                v = x;
            }
        }
        if (best < 0) {
            rc = 0;
            break;
        }
        int col = cols[best];
        double first = of[best] != NULL ? 0 : floor(v + 0.5);
        double second = first == floor(v) ? ceil(v) : floor(v);
        fix[nfix].col = col;
        fix[nfix].type = glp_get_col_type(f->lp, col);
        fix[nfix].lb = glp_get_col_lb(f->lp, col);
        fix[nfix].ub = glp_get_col_ub(f->lp, col);
        nfix++;
        done[best] = 1;
        glp_set_col_bnds(f->lp, col, GLP_FX, first, first);
        if (!dive_lp(f, &sp)) {
            glp_set_col_bnds(f->lp, col, GLP_FX, second, second);
            if (!dive_lp(f, &sp))
                break;
        }
    }
    if (rc == 0)
        for (int j = 1; j <= glp_get_num_cols(f->lp); j++)
            xv[j] = glp_get_col_prim(f->lp, j);
    while (nfix-- > 0)
        glp_set_col_bnds(f->lp, fix[nfix].col, fix[nfix].type, fix[nfix].lb, fix[nfix].ub);
    return rc;
}

/* Reduced costs and statuses of the x columns at the current LP optimum; for a job outside
 * the program, outside_rc and "at 0". */
static void read_duals(struct fft *f, uint8_t *st)
{
    int T = f->T, J = f->p->njobs;
    double mu[MAXD][MAXT], beta[MAXD][MAXT];
    class_duals(f, 0, mu, beta);
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (!b->inlp) {
            if (b->elig)
                outside_rc(f, k, mu, beta, &f->rcost[k * T]);
            for (int i = 0; i < T; i++) {
                if (!b->elig)
                    f->rcost[k * T + i] = HUGE_VAL;
                st[k * T + i] = f->rcost[k * T + i] == HUGE_VAL ? 0 : GLP_NL;
            }
            continue;
        }
        int c = b->c;
        double ya = glp_get_row_dual(f->lp, b->a0);
        for (int i = 0; i < T; i++) {
            int col = b->x0 + i;
            if (!(b->elig >> i & 1)) {
                f->rcost[k * T + i] = HUGE_VAL;
                st[k * T + i] = 0;
                continue;
            }
            /* x has 1 in its assignment row and in its count row */
            f->rcost[k * T + i] = f->cost[k * T + i] - ya - mu[c][i];
            st[k * T + i] = (uint8_t)(f->isheld[col] ? GLP_NL : glp_get_col_stat(f->lp, col));
        }
    }
}

/* Probing the open work-conservation classes.  g_{i,d} = 1 makes every member run.  By LP
 * duality any feasible point costs zlp plus, for each nonbasic variable, its reduced cost
 * times its distance from its bound (all terms >= 0); a running member contributes at least
 * its smallest such term over its x columns.  When zlp plus the sum over members exceeds
 * zinc, every better solution has g = 0: fix it (appended to fixed[]).  Returns how many. */
static int probe(struct fft *f, double zlp, double zinc, double eps, const uint8_t *st,
                 int *fixed, int *nfix)
{
    int T = f->T, J = f->p->njobs, n = 0;
    double sum[MAXD][MAXT];
    memset(sum, 0, sizeof sum);
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (!b->elig)
            continue;
        double least = HUGE_VAL;
        for (int i = 0; i < T; i++)
            if (b->elig >> i & 1) {
                double dj = st[k * T + i] == GLP_NL && f->rcost[k * T + i] > 0
                                ? f->rcost[k * T + i] : 0;
                if (dj < least)
                    least = dj;
            }
        int c = dclass(f, b->d);
        for (int i = 0; i < T; i++)
            if (b->elig >> i & 1)
                sum[c][i] += least;
    }
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < T; i++) {
            const struct cls *q = &f->cls[c][i];
            if (q->g && q->state == CLS_OPEN && zlp + sum[c][i] > zinc + eps) {
                glp_set_col_bnds(f->lp, q->g, GLP_FX, 0, 0);
                fixed[(*nfix)++] = q->g;
                n++;
            }
        }
    return n;
}

/* Is on[] (type of each job or -1) within capacity and, with work conservation, maximal?
 * Guards the reading of GLPK's point (x > 0.5) against tolerances. */
static int admissible(const struct fft *f, const int *on)
{
    int T = f->T, J = f->p->njobs;
    double freec[MAXT];
    memcpy(freec, f->cap, sizeof freec);
    for (int k = 0; k < J; k++)
        if (on[k] >= 0)
            freec[on[k]] -= f->b[f->kblk[k]].d;
    for (int i = 0; i < T; i++)
        if (freec[i] < 0)
            return 0;
    for (int k = 0; k < J && f->wc; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        for (int i = 0; i < T && on[k] < 0; i++)
            if ((b->elig >> i & 1) && freec[i] >= b->d)
                return 0;
    }
    return 1;
}

static double cost_of(const struct fft *f, const int *on)
{
    double z = 0;
    for (int k = 0; k < f->p->njobs; k++)
        if (on[k] >= 0)
            z += f->cost[k * f->T + on[k]];
    return z;
}

/* Improving the incumbent on[] (cost *zinc) by trades on one type: m jobs of size d for one
 * of size m d, or back (the same GPUs, so the types stay as full as they were), d' = m d the
 * next size that d divides.  A trade is tried with every count n fixed at the incumbent's
 * counts but the two it changes: for integral n the x-part is a transportation problem, so
 * one dual simplex call from the current basis gives the best assignment with those counts
 * (the jobs moving between types included).  A point whose x are integral, that is
 * admissible and cheaper is taken (first improvement) and the search goes on from it, the
 * trades visited in turn until a whole round of them brings nothing (at most `passes`
 * rounds; the trade that undoes the last one taken is skipped).  The dive rounds the counts one at a time and
 * cannot undo a rounding; the optimum of the cold bench round differs from its incumbent
 * by such a trade (two 2-GPU jobs for one 4-GPU job on one type, the other jobs reshuffled),
 * and a closer incumbent lets reduced-cost fixing leave branch and bound less to do.  Uses
 * xv and on2 as scratch; every bound it changed is restored. */
static void improve(struct fft *f, int *on, double *zinc, double *xv, int *on2, int passes)
{
    int T = f->T, J = f->p->njobs, cnt[MAXD][MAXT];
    memset(cnt, 0, sizeof cnt);
    for (int k = 0; k < J; k++)
        if (on[k] >= 0)
            cnt[f->b[f->kblk[k]].c][on[k]]++;
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < T; i++)
            if (f->cls[c][i].n)
                glp_set_col_bnds(f->lp, f->cls[c][i].n, GLP_FX, cnt[c][i], cnt[c][i]);
    /* next[c]: the class of the smallest size that dval[c] divides, -1 when none */
    int next[MAXD];
    for (int c = 0; c < f->nd; c++) {
        next[c] = -1;
        for (int c2 = 0; c2 < f->nd; c2++)
            if (f->dval[c2] > f->dval[c] && f->dval[c2] % f->dval[c] == 0 &&
                (next[c] < 0 || f->dval[c2] < f->dval[next[c]]))
                next[c] = c2;
    }
    /* the trades, visited cyclically until a whole cycle brings no improvement */
    struct { int i, c, dir; } tr[2 * MAXD * MAXT];
    int ntr = 0;
    for (int i = 0; i < T; i++)
        for (int c = 0; c < f->nd; c++)
            for (int dir = -1; dir <= 1 && next[c] >= 0; dir += 2)
                if (f->cls[c][i].n && f->cls[next[c]][i].n) {
                    tr[ntr].i = i;
                    tr[ntr].c = c;
                    tr[ntr++].dir = dir;
                }
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.meth = GLP_DUALP;
    int ncols = glp_get_num_cols(f->lp), last = -1;
    for (int v = 0, since = 0; v < passes * ntr && since < ntr; v++, since++) {
        int i = tr[v % ntr].i, c = tr[v % ntr].c, dir = tr[v % ntr].dir, c2 = next[c];
        int m = f->dval[c2] / f->dval[c];
        const struct cls *q = &f->cls[c][i], *q2 = &f->cls[c2][i];
        int n1 = cnt[c][i] + dir * m, n2 = cnt[c2][i] - dir;
        if (last >= 0 && tr[last].i == i && tr[last].c == c && tr[last].dir == -dir)
            continue;           /* undoes the trade just taken */
        if (n1 < 0 || n2 < 0 || n1 > floor(f->cap[i] / f->dval[c]) ||
            n2 > floor(f->cap[i] / f->dval[c2]))
            continue;
        glp_set_col_bnds(f->lp, q->n, GLP_FX, n1, n1);
        glp_set_col_bnds(f->lp, q2->n, GLP_FX, n2, n2);
        f->last_trades++;
        int ok = simplex(f, &sp) == 0 && glp_get_status(f->lp) == GLP_OPT;
        for (int j = 1; ok && j <= ncols; j++)
            xv[j] = glp_get_col_prim(f->lp, j);
        for (int k = 0; ok && k < J; k++) {
            const struct blk *b = &f->b[f->kblk[k]];
            on2[k] = -1;
            for (int t = 0; t < T && b->inlp && ok; t++) {
                double x = xv[b->x0 + t];
                if (!(b->elig >> t & 1))
                    continue;
                if (x > 1e-6 && x < 1 - 1e-6)
                    ok = 0;             /* not integral: g or r fractional */
                else if (x > 0.5)
                    on2[k] = t;
            }
        }
        double z = ok && admissible(f, on2) ? cost_of(f, on2) : HUGE_VAL;
        if (z < *zinc - 1e-9 * (1 + fabs(*zinc))) {
            *zinc = z;
            memcpy(on, on2, (size_t)J * sizeof *on);
            cnt[c][i] = n1;
            cnt[c2][i] = n2;
            last = v % ntr;
            since = 0;
        } else {
            glp_set_col_bnds(f->lp, q->n, GLP_FX, cnt[c][i], cnt[c][i]);
            glp_set_col_bnds(f->lp, q2->n, GLP_FX, cnt[c2][i], cnt[c2][i]);
        }
    }
    for (int c = 0; c < f->nd; c++)
        for (int i = 0; i < T; i++)
            if (f->cls[c][i].n)
                glp_set_col_bnds(f->lp, f->cls[c][i].n, GLP_DB, 0,
                                 floor(f->cap[i] / f->dval[c]));
}

/* Reduced-cost fixing for a gap `gap` (incumbent - LP bound, tolerance included): every x
 * whose reduced cost at the LP optimum (f->rcost, statuses st) exceeds it is fixed at its
 * LP bound, since no solution cheaper than the incumbent has it elsewhere (appended to
 * fixed[]); columns already fixed stay.  A job outside the program whose least reduced cost
 * is within the gap enters it (at 0, with the columns beyond the gap fixed); the others stay
 * out, as fixing would leave them.  Returns how many x columns are left free, -1 when out
 * of memory. */
static int fix_columns(struct fft *f, const uint8_t *st, double gap, int *fixed, int *nfix)
{
    int T = f->T, J = f->p->njobs, nfree = 0;
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        if (!b->inlp) {
            int near = 0;
            for (int i = 0; i < T; i++)
                near |= f->rcost[k * T + i] <= gap;
            if (!near)
                continue;
            if (enter(f, k) < 0)
                return -1;
        }
        for (int i = 0; i < T; i++) {
            if (!(b->elig >> i & 1))
                continue;
            int col = b->x0 + i, s0 = st[k * T + i];
            double dj = f->rcost[k * T + i];
            if (glp_get_col_type(f->lp, col) == GLP_FX)
                continue;
            if ((s0 == GLP_NL && dj > gap) || (s0 == GLP_NU && -dj > gap)) {
                double v = s0 == GLP_NL ? 0 : 1;
                glp_set_col_bnds(f->lp, col, GLP_FX, v, v);
                fixed[(*nfix)++] = col;
            } else {
                nfree++;
            }
        }
    }
    return nfree;
}

/* After a round: a job in the program that waits, may wait, and whose every column's
 * reduced cost exceeds thr (the gap, or the tolerance when there was none, so that
 * reduced-cost fixing would have fixed it at 0) leaves the program at the next call.  Its
 * row variable is basic and its columns nonbasic at the kept optimum, which therefore stays
 * a basis without it.  Should its costs come down, pricing lets it back in. */
static void out_of_reach(struct fft *f, const int *on, double thr)
{
    int T = f->T;
    for (int k = 0; k < f->p->njobs; k++) {
        struct blk *b = &f->b[f->kblk[k]];
        if (!b->inlp || b->must || on[k] >= 0)
            continue;
        int far = 1;
        for (int i = 0; i < T && far; i++)
            far = f->rcost[k * T + i] > thr;
        b->drop = far;
    }
}

/* Solve the round's program into on[k] (type of job k, or -1):
 * 1. the LP relaxation, warm (bound zlp, reduced costs);
 * 2. rounding the LP point gives a first incumbent (zinc), with which the open
 *    work-conservation classes are probed, and the LP re-solved if any g got fixed;
 * 3. diving from that LP point gives a second incumbent; the better one is kept;
 * 4. unless zinc - zlp is within the tolerance, every x whose reduced cost alone exceeds
 *    zinc - zlp is fixed at its LP bound (no solution better than the incumbent has it
 *    elsewhere; see the header), and what is left is solved exactly by GLPK's branch and
 *    bound with presolve on, so that the fixed part vanishes.  The fixings are undone. */
static int solve(struct fft *f, int *on, struct errbuf *err)
{
    const struct alloc_problem *p = f->p;
    int T = f->T, J = p->njobs, rc = 0, nfix = 0;
    glp_term_out(GLP_OFF);
    f->last_nodes = 0;
    f->last_free = 0;
    f->last_inc0 = NAN;
    f->last_trades = 0;
    int cold = f->nrstat == 0;      /* no kept basis: the program's first round */
    if (solve_lp(f, err) < 0)
        return -1;
    double zlp = glp_get_obj_val(f->lp), thr = HUGE_VAL;
    /* columns may still be added: the incumbent's jobs before probing, jobs near the gap
     * before branch and bound */
    int ncols = glp_get_num_cols(f->lp);
    size_t most = (size_t)ncols + 1;
    for (int k = 0; k < J; k++)
        if (!f->b[f->kblk[k]].inlp)
            most += (size_t)T + 1;
    double *xv = malloc(most * sizeof *xv);
    int *fixed = malloc(most * sizeof *fixed);
    int *on2 = malloc(((size_t)J + 1) * sizeof *on2);
    uint8_t *st = malloc((size_t)J * (size_t)T + 1);
    double zinc = NAN;
    if (xv == NULL || fixed == NULL || on2 == NULL || st == NULL)
        goto oom;
    for (int j = 1; j <= ncols; j++)
        xv[j] = glp_get_col_prim(f->lp, j);
    read_duals(f, st);
    if (isnan(zinc = incumbent(f, xv, on)))
        goto oom;
    double eps = 1e-9 * (1 + fabs(zinc));
    if (zinc - zlp > eps && f->wc && probe(f, zlp, zinc, eps, st, fixed, &nfix) > 0) {
        /* the incumbent stays a feasible point of the program with the g fixed */
        if (enter_jobs(f, on) < 0)
            goto oom;
        glp_smcp sp;
        glp_init_smcp(&sp);
        sp.msg_lev = GLP_MSG_OFF;
        sp.meth = GLP_DUALP;
        if (simplex_priced(f, &sp) != 0) {
            rc = err_run(err, "fft: the LP after probing failed (GLPK status %d)",
                         glp_get_status(f->lp));
            goto done;
        }
        zlp = glp_get_obj_val(f->lp);
        read_duals(f, st);
        if (save_basis(f) < 0)      /* the next round starts closer to its optimum */
            goto oom;
    }
    if (dive(f, xv) == 0) {
        double z2 = incumbent(f, xv, on2);
        if (isnan(z2))
            goto oom;
        if (z2 < zinc) {
            zinc = z2;
            memcpy(on, on2, (size_t)J * sizeof *on);
        }
    }
    release(f);     /* st says NL for them; fixing decides which stay out */
    f->last_lp = zlp;
    f->last_inc = zinc;
    double gap = zinc - zlp;
    thr = (gap > 0 ? gap : 0) + eps;
    if (gap <= eps || gap <= f->gap * fabs(zinc))
        goto done;
    /* on a cold round, fix what the first incumbent allows, improve it on what is left,
     * then fix what the improved one allows.  A warm round's branch and bound needs tens of
     * nodes (tests/bench_fft.c), fewer than the trades' simplex calls would cost: it fixes
     * once, below (fixing twice at one gap fixes nothing more) */
    if (cold) {
        if (fix_columns(f, st, gap + eps, fixed, &nfix) < 0)
            goto oom;
        f->last_inc0 = zinc;
        improve(f, on, &zinc, xv, on2, 4);
    }
    f->last_inc = zinc;
    gap = zinc - zlp;
    thr = (gap > 0 ? gap : 0) + eps;
    if (gap <= eps || gap <= f->gap * fabs(zinc))
        goto done;
    if ((f->last_free = fix_columns(f, st, gap + eps, fixed, &nfix)) < 0)
        goto oom;
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.presolve = GLP_ON;
    /* GLPK's node preprocessing (bound tightening on every row at every node) is about
     * half of each node's cost here and prunes nothing the bound does not: root only */
    ip.pp_tech = GLP_PP_ROOT;
    ip.mip_gap = f->gap;
    /* GLPK prunes a node whose bound is within tol_obj (1 + |z|) of the incumbent; its
     * default 1e-7 lets ties be some units apart at the 1e8-1e9 the fairness terms reach,
     * and then which of them is found follows the search order.  At 1e-10 the decisions no
     * longer depend on it (fft_philly decides alike under both branching rules below, in
     * every round), at no cost in nodes there or in tests/bench_fft.c */
    ip.tol_obj = 1e-10;
    /* hybrid pseudocost branching and best-projection backtracking: a quarter fewer
     * instructions than GLPK's defaults (Driebeck-Tomlin, best local bound) on the bench's
     * cold round, whose Driebeck-Tomlin tableau rows were a sixth of its cost */
    ip.br_tech = GLP_BR_PCH;
    ip.bt_tech = GLP_BT_BPH;
    ip.cb_func = count_nodes;
    ip.cb_info = f;
    f->n_intopt++;
    int grc = glp_intopt(f->lp, &ip), ms = glp_mip_status(f->lp);
    if (ms == GLP_OPT || ms == GLP_FEAS) {
        for (int k = 0; k < J; k++) {
            const struct blk *b = &f->b[f->kblk[k]];
            on2[k] = -1;
            for (int i = 0; i < T && b->inlp; i++)
                if ((b->elig >> i & 1) && glp_mip_col_val(f->lp, b->x0 + i) > 0.5)
                    on2[k] = i;
        }
        if (admissible(f, on2) && cost_of(f, on2) < zinc)
            memcpy(on, on2, (size_t)J * sizeof *on);
    } else if (ms != GLP_NOFEAS && grc != GLP_ESTOP) {
        /* NOFEAS: nothing beats the incumbent; ESTOP: node limit before any point */
        rc = err_run(err, "fft: branch and bound failed (GLPK code %d, status %d)", grc, ms);
    }
    goto done;
oom:
    rc = err_run(err, "out of memory");
done:
    release(f);
    for (int n = 0; n < nfix; n++)
        glp_set_col_bnds(f->lp, fixed[n], GLP_DB, 0, 1);
    if (rc == 0) {
        out_of_reach(f, on, thr);
        f->last_dec = cost_of(f, on);
    }
    free(xv);
    free(fixed);
    free(on2);
    free(st);
    return rc;
}

static int fft_allocate(void *self, const struct alloc_problem *p, double *x,
                        struct errbuf *err)
{
    struct fft *f = self;
    int T = p->ntypes, J = p->njobs;
    if (T > MAXT)
        return err_run(err, "fft: %d GPU types (at most %d)", T, MAXT);
    if (f->lp != NULL && (T != f->T || memcmp(p->types, f->types, (size_t)T * sizeof(int)) ||
                          memcmp(p->cap, f->cap, (size_t)T * sizeof(double))))
        reset(f);
    if (f->lp == NULL)
        start(f, p);
    f->calls++;
    int *kb = realloc(f->kblk, ((size_t)J + 1) * sizeof *kb);
    if (kb != NULL)
        f->kblk = kb;
    int *on = realloc(f->on, ((size_t)J + 1) * sizeof *on);
    if (on != NULL)
        f->on = on;
    double *cost = realloc(f->cost, ((size_t)J * (size_t)T + 1) * sizeof *cost);
    if (cost != NULL)
        f->cost = cost;
    double *rcost = realloc(f->rcost, ((size_t)J * (size_t)T + 1) * sizeof *rcost);
    if (rcost != NULL)
        f->rcost = rcost;
    if (kb == NULL || on == NULL || cost == NULL || rcost == NULL ||
        reserve_scratch(f, (size_t)T + MAXD + 4) < 0)
        return err_run(err, "out of memory");
    /* match the problem's jobs to blocks: departed jobs, and jobs that the last call found
     * out of reach, leave the program first; arrivals get a slot (solve() decides which
     * jobs enter the program) */
    for (int k = 0; k < J; k++) {
        int bi = map_find(f, p->id[k]);
        if (bi >= 0)
            f->b[bi].seen = f->calls;
        f->kblk[k] = bi;
    }
    for (int bi = 0; bi < f->nb; bi++) {
        struct blk *b = &f->b[bi];
        if (!b->live)
            continue;
        int gone = b->seen != f->calls;
        if (b->inlp && (gone || b->drop) && leave(f, bi) < 0)
            return err_run(err, "out of memory");
        b->drop = 0;
        b->fresh = 0;
        if (gone) {
            map_del(f, b->id);
            b->live = 0;
            f->freeb[f->nfree++] = bi;
        }
    }
    if (compact(f) < 0)
        return err_run(err, "out of memory");
    for (int k = 0; k < J; k++) {
        int bi = f->kblk[k];
        if (bi < 0) {
            if ((bi = new_block(f)) < 0 || map_put(f, p->id[k], bi) < 0)
                return err_run(err, "out of memory");
            struct blk *b = &f->b[bi];
            set_job(f, p, bi, k);
            b->id = p->id[k];
            b->live = 1;
            b->seen = f->calls;
            f->kblk[k] = bi;
        } else {
            struct blk *b = &f->b[bi];
            if (b->d != p->scale[k] || b->elig != eligible(f, p, k)) {
                set_job(f, p, bi, k);
                if (b->inlp) {
                    if (b->elig)
                        write_block(f, bi);
                    else if (leave(f, bi) < 0 || compact(f) < 0)
                        return err_run(err, "out of memory");
                }
            }
        }
    }
    if (f->wc) {
        set_classes(f, J);
        set_must_run(f, J);
    }
    /* the round's costs, and the objective of the jobs in the program */
    for (int k = 0; k < J; k++) {
        const struct blk *b = &f->b[f->kblk[k]];
        for (int i = 0; i < T; i++) {
            double c = HUGE_VAL;
            if (b->elig >> i & 1) {
                c = coef(f, p, k, i, b->rho);
                if (b->inlp)
                    glp_set_obj_coef(f->lp, b->x0 + i, c);
            }
            f->cost[k * T + i] = c;
        }
    }
    f->p = p;
    int rc = J > 0 ? solve(f, f->on, err) : 0;
    f->p = NULL;
    if (rc < 0)
        return -1;
    /* the decision, then the dual step (4) */
    for (int k = 0; k < J; k++) {
        struct blk *b = &f->b[f->kblk[k]];
        double got = 0;
        for (int i = 0; i < T; i++) {
            double v = f->on[k] == i;
            x[k * T + i] = v;
            got += v * p->thr[k * T + i] * p->round_s;
        }
        double fair = fairshare_rate(&p->thr[k * T], p->cap, T, p->scale[k], J) * p->round_s;
        if (fair > 0 && p->work[k] > 0) {
            double span = p->work[k] / fair;           /* tau - a, rounds */
            double mu = p->age_s[k] / p->round_s / span;
            double r = b->rho + mu * (p->work[k] / span - got);
            b->rho = r > 0 ? r : 0;
        }
    }
    return 0;
}

/* ---- hooks for tests and the bench (declared there) ---- */

double fft_rho(void *self, int64_t id);
int fft_set_rho(void *self, int64_t id, double rho);
void fft_size(void *self, int *rows, int *cols, int *nnz, int *nint, int *nodes);
void fft_last(void *self, double *zlp, double *zinc, double *zdec, int *nfree);
void fft_counts(void *self, int64_t *simplex_calls, int64_t *pivots, int64_t *intopt_calls);
void fft_trades(void *self, double *before, double *after, int *tried);
int fft_program_jobs(void *self);
int fft_knapsack(const int *size, const double *cost, int n, int room, int dmin, int wc,
                 uint8_t *pick);

/* rho of job `id` (what the next round will use); -1 if the job is unknown. */
double fft_rho(void *self, int64_t id)
{
    struct fft *f = self;
    int bi = map_find(f, id);
    return bi < 0 ? -1 : f->b[bi].rho;
}

/* Set rho of a job the policy already knows; -1 if unknown. */
int fft_set_rho(void *self, int64_t id, double rho)
{
    struct fft *f = self;
    int bi = map_find(f, id);
    if (bi < 0)
        return -1;
    f->b[bi].rho = rho;
    return 0;
}

/* The program's size (disabled blocks included) and the branch-and-bound nodes of the last
 * solve. */
void fft_size(void *self, int *rows, int *cols, int *nnz, int *nint, int *nodes)
{
    struct fft *f = self;
    *rows = f->lp ? glp_get_num_rows(f->lp) : 0;
    *cols = f->lp ? glp_get_num_cols(f->lp) : 0;
    *nnz = f->lp ? glp_get_num_nz(f->lp) : 0;
    *nint = f->lp ? glp_get_num_int(f->lp) : 0;
    *nodes = (int)f->last_nodes;
}

/* The last solve: LP bound (after probing), the best incumbent before branch and bound, and
 * the x columns reduced-cost fixing left free. */
void fft_last(void *self, double *zlp, double *zinc, double *zdec, int *nfree)
{
    struct fft *f = self;
    *zlp = f->last_lp;
    *zinc = f->last_inc;
    *zdec = f->last_dec;
    *nfree = f->last_free;
}

/* GLPK calls since the policy was created: simplex calls (each pays GLPK's set-up of its
 * working problem and a factorization, O(program)), their pivots, branch-and-bound runs. */
void fft_counts(void *self, int64_t *simplex_calls, int64_t *pivots, int64_t *intopt_calls)
{
    struct fft *f = self;
    *simplex_calls = f->n_simplex;
    *pivots = f->n_pivots;
    *intopt_calls = f->n_intopt;
}

/* The last solve's trades (improve): the incumbent before them (NAN when they did not run:
 * a warm round, or no gap), after them, and how many were tried. */
void fft_trades(void *self, double *before, double *after, int *tried)
{
    struct fft *f = self;
    *before = f->last_inc0;
    *after = f->last_inc;
    *tried = f->last_trades;
}

/* How many jobs have their block in the program (after the last call's pricing; those
 * marked out of reach leave at the next call). */
int fft_program_jobs(void *self)
{
    struct fft *f = self;
    int n = 0;
    for (int bi = 0; bi < f->nb; bi++)
        n += f->b[bi].live && f->b[bi].inlp;
    return n;
}

int fft_knapsack(const int *size, const double *cost, int n, int room, int dmin, int wc,
                 uint8_t *pick)
{
    return knapsack(size, cost, n, room, dmin, wc, pick);
}

/* ---- the policy ---- */

static void fft_destroy(void *self)
{
    struct fft *f = self;
    if (f == NULL)
        return;
    alloc_base_fini(&f->base);
    if (f->lp != NULL)
        glp_delete_prob(f->lp);
    free(f->b);
    free(f->freeb);
    free(f->delr);
    free(f->delc);
    free(f->rmap);
    free(f->cmap);
    free(f->mkey);
    free(f->mval);
    free(f->kblk);
    free(f->ind);
    free(f->val);
    free(f->rstat);
    free(f->ydual);
    free(f->cstat);
    free(f->held);
    free(f->isheld);
    free(f->cost);
    free(f->rcost);
    free(f->on);
    free(f);
}

static int fft_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    struct fft *f = calloc(1, sizeof *f);
    if (f == NULL)
        return err_run(err, "out of memory");
    f->wc = 1;
    f->wf = 1;
    f->ws = 1;
    if (alloc_base_init(&f->base, env, fft_allocate, 1 /* every round: the duals change */,
                        err) < 0 ||
        jobj_bool(params, "work_conserving", JOPT, &f->wc, err) < 0 ||
        jobj_num(params, "fairness_weight", JOPT, 0, 1e12, &f->wf, err) < 0 ||
        jobj_num(params, "switch_weight", JOPT, 0, 1e12, &f->ws, err) < 0 ||
        jobj_num(params, "mip_gap", JOPT, 0, 1, &f->gap, err) < 0 ||
        jobj_int(params, "node_limit", JOPT, 0, INT64_MAX, &f->node_limit, err) < 0) {
        fft_destroy(f);
        return -1;
    }
    *self = f;
    return 0;
}

static const char *const fft_params[] = { "work_conserving", "fairness_weight", "switch_weight",
                                          "mip_gap", "node_limit", NULL };

static const struct train_hooks fft_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 300,
    .decide = alloc_train,
    .allocate = fft_allocate,
};

const struct policy_ops policy_fft = {
    .name = "fft",
    .domain = "training",
    .summary = "FFT: per-round ILP over GPU types, JCT cost + switching cost - fairness duals",
    .params = fft_params,
    .create = fft_create,
    .train = &fft_hooks,
    .destroy = fft_destroy,
};
