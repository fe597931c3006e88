/*
 * scaling: an elastic job's throughput on n = 1..K workers of each GPU type, estimated from a
 * few profiled points by low-rank completion of the scaling-efficiency matrix, as Heet
 * (ASPLOS'24, section 4.1) fills its job x GPU type x worker-count tensor.
 *
 * Scaling efficiency: e_i(n) = thr_i(n) / (n thr_i(1)), 1 at n = 1.  The tensor is unfolded
 * into a matrix whose rows are job types and whose columns are the cells (type i, n), n >= 2.
 * The row being estimated holds only its profiled cells (scaling_profile_points); the other
 * rows are every other job type's profiled cells (tput_profiled, consolidated placements: a
 * measurement, else a fitted step-time model on the host's link) on the same GPU types — the
 * "previously profiled jobs" of collaborative filtering; the job type's own are never among
 * them.  models/completion.h fills the matrix (rank,
 * ridge and sweeps from the caller), and the estimate is thr_i(n) = n thr_i(1) e_i(n), with
 * e_i(n) clamped to [0.02, 1.5]; a cell whose column nobody measured (completion predicts
 * about 0 there) is taken as no gain over n - 1 workers: thr_i(n) = thr_i(n - 1).
 *
 * Pure functions of their inputs.  Arrays indexed [i * (kmax + 1) + n], n = 0 unused.
 */
#ifndef HETSIM_SCALING_H
#define HETSIM_SCALING_H

#include "completion.h"
#include "tput.h"

enum { SCALING_MAX_N = 16, SCALING_MAX_TYPES = 16 };

/* The profiled cells: n = 1 on every type the job runs on (thr1[i] > 0), then `extra` more
 * cells taken in the order (fastest type, kmax), (fastest, 2), (second fastest, kmax),
 * (second, 2), ... (types by thr1, ties to the lower index).  mask: ntypes * (kmax + 1),
 * set to 1 at profiled cells, 0 elsewhere.  Returns the number of profiled cells. */
int scaling_profile_points(const double *thr1, int ntypes, int kmax, int extra,
                           unsigned char *mask);

/* Estimate job type jt's throughput est[i][n] on gpus[i] (catalog ids), n = 1..kmax, from
 * prof (read only where mask is set; n = 1 must be profiled on every type it runs on) and
 * the other job types' measurements in m.  Returns 0, or -1 (bad arguments, no memory). */
int scaling_estimate(const tput *m, const int *gpus, int ntypes, int kmax, int jt,
                     const double *prof, const unsigned char *mask,
                     const struct completion_opts *o, double *est);

#endif
