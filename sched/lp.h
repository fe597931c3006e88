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

#include "../sim/base/err.h"

/* Solve the LP with the simplex method (presolve on).  0 if optimal, -1 otherwise with err
 * naming `what` and GLPK's status. */
int lp_solve(glp_prob *lp, const char *what, struct errbuf *err);

/* Solve an LP that was edited since its last solve, starting from the basis it kept (dual
 * simplex, presolve off: adding constraints leaves the old basis dual feasible).  If edits
 * made the basis invalid (wrong count of basic variables, or singular), a crash basis is used
 * instead; if the warm solve fails, it retries from scratch with presolve.  Same result
 * convention as lp_solve; *warm (may be NULL) tells whether the old basis was used. */
int lp_resolve(glp_prob *lp, const char *what, int *warm, struct errbuf *err);

/* Make a basis that edits (added, deleted or changed rows and columns) may have broken
 * usable for a warm restart: one basic variable per row, structurally nonsingular.  Changes
 * as little as it can.  0, or -1 when out of memory (the basis is then left as it was). */
int lp_repair_basis(glp_prob *lp);

/* Re-solve after only the objective (or loosened bounds) changed: the old optimum stays
 * primal feasible, so the primal simplex restarts from it.  Falls back like lp_resolve. */
int lp_reoptimize(glp_prob *lp, const char *what, struct errbuf *err);

/* Like lp_resolve, for a sequence of feasibility questions on one LP (bisection): 1 if the
 * LP is feasible (solved to optimality), 0 if it is infeasible, -1 on a solver failure.  The
 * basis is kept either way, so the next question starts warm. */
int lp_feasible(glp_prob *lp, const char *what, struct errbuf *err);

/* Solve the MIP: LP relaxation, then branch and cut.  time_limit_s > 0 bounds the search;
 * a feasible (not proven optimal) solution found by then is accepted and *optimal set to 0.
 * Returns 0 with a feasible solution, -1 otherwise. */
int lp_solve_mip(glp_prob *lp, const char *what, double time_limit_s, int *optimal,
                 struct errbuf *err);

#endif
