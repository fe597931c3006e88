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
    if (rc == GLP_ENOPFS || rc == GLP_ENODFS)
        return err_run(err, "%s: the LP has no feasible solution", what);
    if (rc != 0)
        return err_run(err, "%s: GLPK simplex failed (code %d)", what, rc);
    int st = glp_get_status(lp);
    if (st != GLP_OPT)
        return err_run(err, "%s: LP not solved to optimality (GLPK status %d)", what, st);
    return 0;
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
