/*
 * lp: GLPK runs with terminal output off and deterministic settings (no randomized
 * pricing, fixed presolve), so the same problem always gives the same solution.
 */
#include "lp.h"

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

/* Deleting rows and columns can leave more or fewer basic variables than rows.  Restore the
 * count with the least disturbance: too few, make row slacks basic; too many, move basic
 * columns that sat at a bound (degenerate) to that bound, then any others. */
static void balance_basis(glp_prob *lp, int m, int n, int basic)
{
    for (int i = m; i >= 1 && basic < m; i--)
        if (glp_get_row_stat(lp, i) != GLP_BS) {
            glp_set_row_stat(lp, i, GLP_BS);
            basic++;
        }
    for (int pass = 0; pass < 2 && basic > m; pass++)
        for (int j = n; j >= 1 && basic > m; j--) {
            if (glp_get_col_stat(lp, j) != GLP_BS || glp_get_col_type(lp, j) == GLP_FR)
                continue;
            double v = glp_get_col_prim(lp, j), lb = glp_get_col_lb(lp, j),
                   ub = glp_get_col_ub(lp, j);
            int at_lb = v - lb < 1e-9, at_ub = glp_get_col_type(lp, j) == GLP_DB && ub - v < 1e-9;
            if (pass == 0 && !at_lb && !at_ub)
                continue;
            glp_set_col_stat(lp, j, at_ub ? GLP_NU : GLP_NL);
            basic--;
        }
}

/* Make the kept basis usable after edits: right count of basic variables, factorized.
 * Returns 1 if it was, 0 if a crash basis had to replace it. */
static int prepare_warm(glp_prob *lp)
{
    int m = glp_get_num_rows(lp), n = glp_get_num_cols(lp), basic = 0;
    for (int i = 1; i <= m; i++)
        basic += glp_get_row_stat(lp, i) == GLP_BS;
    for (int j = 1; j <= n; j++)
        basic += glp_get_col_stat(lp, j) == GLP_BS;
    if (basic != m)
        balance_basis(lp, m, n, basic);
    if (glp_warm_up(lp) == 0)
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
