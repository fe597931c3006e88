/*
 * lp: the few things every GLPK-based policy needs — a quiet solver, status checks that turn
 * into messages, and timing-free defaults.  Policies build their glp_prob directly with GLPK's
 * API (it is the clearest description of the model); these helpers only run it.
 *
 * Ownership: the caller creates and deletes the glp_prob.
 */
#ifndef HETSIM_LP_H
#define HETSIM_LP_H

#include <glpk.h>

#include "../sim/errbuf.h"

/* Solve the LP with the simplex method (presolve on).  0 if optimal, -1 otherwise with err
 * naming `what` and GLPK's status. */
int lp_solve(glp_prob *lp, const char *what, struct errbuf *err);

/* Solve the MIP: LP relaxation, then branch and cut.  time_limit_s > 0 bounds the search;
 * a feasible (not proven optimal) solution found by then is accepted and *optimal set to 0.
 * Returns 0 with a feasible solution, -1 otherwise. */
int lp_solve_mip(glp_prob *lp, const char *what, double time_limit_s, int *optimal,
                 struct errbuf *err);

#endif
