/*
 * lp: GLPK runs with terminal output off and deterministic settings (no randomized
 * pricing, fixed presolve), so the same problem always gives the same solution.
 */
#include "lp.h"

#include <stdlib.h>

static void quiet(void)
{
    static int done;
    if (!done) {
        glp_term_out(GLP_OFF);
        done = 1;
    }
}

int lp_solve(glp_prob *lp, const char *what, struct errbuf *err)
{
    quiet();
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int rc = glp_simplex(lp, &parm);
    if (rc == GLP_ENOPFS || rc == GLP_ENODFS) {
        /* GLPK's presolver can misjudge heavily degenerate programs as infeasible (seen on
         * OEF's envy-freeness rows): confirm with the plain simplex before believing it */
        glp_std_basis(lp);
        parm.presolve = GLP_OFF;
        rc = glp_simplex(lp, &parm);
        if (rc == 0 && glp_get_status(lp) == GLP_NOFEAS)
            return err_run(err, "%s: the LP has no feasible solution", what);
    }
    if (rc != 0)
        return err_run(err, "%s: GLPK simplex failed (code %d)", what, rc);
    int st = glp_get_status(lp);
    if (st != GLP_OPT)
        return err_run(err, "%s: LP not solved to optimality (GLPK status %d)", what, st);
    return 0;
}

/* Structural repair of a kept basis (written for FFT, where it first bit; every warm
 * restart uses it): match basic columns to rows by augmenting paths (rows whose own slack is
 * basic match themselves); basic columns left unmatched become non-basic at a bound, rows
 * left unmatched get their slack back into the basis.  The result has one basic variable
 * per row and a structurally nonsingular basis matrix, which GLPK 5.0 needs: on some
 * structurally singular bases its factorization aborts (bflib/sgf.c) instead of failing. */
int lp_repair_basis(glp_prob *lp)
{
    int m = glp_get_num_rows(lp), n = glp_get_num_cols(lp), nb = 0, nnz = 0;
    int *rowm = calloc((size_t)m + 1, sizeof *rowm);    /* 0 free, -1 its row var, else col */
    int *colm = calloc((size_t)n + 1, sizeof *colm);    /* matched row, 0 none */
    int *cols = malloc(((size_t)m + (size_t)n + 1) * sizeof *cols);
    int *start = malloc(((size_t)n + 2) * sizeof *start);
    int *adj = malloc(((size_t)glp_get_num_nz(lp) + 1) * sizeof *adj);
    int *seen = calloc((size_t)m + 1, sizeof *seen);
    int *stk = malloc(((size_t)n + 1) * sizeof *stk), *via = malloc(((size_t)n + 1) * sizeof *via);
    int *it = malloc(((size_t)n + 1) * sizeof *it), rc = -1;
    int *ind = malloc(((size_t)m + 1) * sizeof *ind);
    double *val = malloc(((size_t)m + 1) * sizeof *val);
    if (!rowm || !colm || !cols || !start || !adj || !seen || !stk || !via || !it || !ind ||
        !val)
        goto out;
    for (int r = 1; r <= m; r++)
        if (glp_get_row_stat(lp, r) == GLP_BS)
            rowm[r] = -1;
    for (int c = 1; c <= n; c++) {
        start[c] = nnz;
        if (glp_get_col_stat(lp, c) != GLP_BS)
            continue;
        cols[nb++] = c;
        int len = glp_get_mat_col(lp, c, ind, val);
        for (int q = 1; q <= len; q++)
            adj[nnz++] = ind[q];
    }
    start[n + 1] = nnz;
    /* greedy first, then augmenting paths (iterative depth-first search) */
    for (int q = 0; q < nb; q++) {
        int c = cols[q], end = start[c + 1];
        for (int e = start[c]; e < end && !colm[c]; e++)
            if (rowm[adj[e]] == 0) {
                rowm[adj[e]] = c;
                colm[c] = adj[e];
            }
    }
    int stamp = 0;
    for (int q = 0; q < nb; q++) {
        int c0 = cols[q];
        if (colm[c0])
            continue;
        int top = 0;
        stk[0] = c0;
        it[c0] = start[c0];
        stamp++;
        while (top >= 0) {
            int c = stk[top], end = start[c + 1];
            if (it[c] >= end) {
                top--;
                continue;
            }
            int r = adj[it[c]++];
            if (seen[r] == stamp || rowm[r] < 0)
                continue;
            seen[r] = stamp;
            via[top] = r;
            if (rowm[r] == 0) {
                for (int l = top; l >= 0; l--) {     /* flip the path */
                    rowm[via[l]] = stk[l];
                    colm[stk[l]] = via[l];
                }
                break;
            }
            stk[++top] = rowm[r];
            it[rowm[r]] = start[rowm[r]];
        }
    }
    for (int q = 0; q < nb; q++)
        if (!colm[cols[q]])
            glp_set_col_stat(lp, cols[q], GLP_NL);   /* GLPK picks the bound it has */
    for (int r = 1; r <= m; r++)
        if (rowm[r] == 0)
            glp_set_row_stat(lp, r, GLP_BS);
    rc = 0;
out:
    free(rowm);
    free(colm);
    free(cols);
    free(start);
    free(adj);
    free(seen);
    free(stk);
    free(via);
    free(it);
    free(ind);
    free(val);
    return rc;
}

/* Make the kept basis usable after edits: right count of basic variables, factorized.
 * Returns 1 if it was, 0 if a crash basis had to replace it. */
static int prepare_warm(glp_prob *lp)
{
    if (lp_repair_basis(lp) == 0 && glp_warm_up(lp) == 0)
        return 1;
    glp_adv_basis(lp, 0);
    return 0;
}

int lp_resolve(glp_prob *lp, const char *what, int *warm, struct errbuf *err)
{
    quiet();
    int ok = prepare_warm(lp);
    if (warm != NULL)
        *warm = ok;
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_DUALP;
    if (glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT)
        return 0;
    glp_std_basis(lp);
    return lp_solve(lp, what, err);
}

int lp_reoptimize(glp_prob *lp, const char *what, struct errbuf *err)
{
    quiet();
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_PRIMAL;
    if (glp_simplex(lp, &parm) == 0 && glp_get_status(lp) == GLP_OPT)
        return 0;
    return lp_resolve(lp, what, NULL, err);
}

int lp_feasible(glp_prob *lp, const char *what, struct errbuf *err)
{
    quiet();
    /* between the questions of a bisection only bounds change, which keeps the basis and
     * its factorization valid: repairing and refactorizing it again would be wasted */
    if (!glp_bf_exists(lp))
        prepare_warm(lp);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_DUALP;
    if (glp_simplex(lp, &parm) == 0) {
        int st = glp_get_status(lp);
        if (st == GLP_OPT)
            return 1;
        if (st == GLP_NOFEAS)
            return 0;
    }
    /* numerical trouble: decide from scratch, then keep that basis */
    glp_std_basis(lp);
    parm.meth = GLP_PRIMAL;
    parm.presolve = GLP_OFF;
    if (glp_simplex(lp, &parm) != 0)
        return err_run(err, "%s: GLPK simplex failed", what);
    int st = glp_get_status(lp);
    return st == GLP_OPT ? 1 : st == GLP_NOFEAS ? 0 : err_run(err, "%s: LP status %d", what, st);
}

int lp_solve_mip(glp_prob *lp, const char *what, double time_limit_s, int *optimal,
                 struct errbuf *err)
{
    quiet();
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    if (time_limit_s > 0)
        parm.tm_lim = (int)(time_limit_s * 1000);
    int rc = glp_intopt(lp, &parm);
    int st = glp_mip_status(lp);
    *optimal = st == GLP_OPT;
    if (st == GLP_OPT || st == GLP_FEAS)
        return 0;
    if (st == GLP_NOFEAS)
        return err_run(err, "%s: the integer program has no feasible solution", what);
    return err_run(err, "%s: GLPK branch and cut failed (code %d, status %d)", what, rc, st);
}
