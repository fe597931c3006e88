/*
 * completion: low-rank matrix completion, the way Heet (ASPLOS'24) fills its job x GPU type
 * x worker-count scaling-efficiency tensor from a few profiled points (collaborative
 * filtering: the tensor is unfolded into a jobs x (type, count) matrix).
 *
 * Model: A ~ U V^T with U (m x k), V (n x k), fitted on the known entries only by alternating
 * least squares with a ridge term:
 *   minimize  sum over known (i, j) of (a_ij - u_i . v_j)^2 + lambda (|U|^2 + |V|^2),
 * each half-step solving one k x k normal system per row (then per column).  The start is
 * deterministic (V's first factor 1, the others a fixed small pattern), so the same input
 * gives the same output bit for bit.  A row or column with no known entry gets the ridge's
 * answer, 0 factors: its entries are predicted 0 (callers give every row and column at least
 * one known entry, or treat 0 as "unknown").
 *
 * Pure function; O(iters * (m n k^2 + (m + n) k^3)).  Ownership: the caller owns every array.
 */
#ifndef HETSIM_COMPLETION_H
#define HETSIM_COMPLETION_H

enum { COMPLETION_MAX_RANK = 8 };

struct completion_opts {
    int    rank;        /* k, 1 .. COMPLETION_MAX_RANK */
    double lambda;      /* ridge weight, >= 0 */
    int    iters;       /* ALS sweeps (each: all rows, then all columns) */
};

/* Fill `out` (m x n, row-major) with U V^T fitted to the entries of `a` where known[i*n+j]
 * is non-zero; known entries are copied from `a` unchanged.  Returns 0, or -1 on bad
 * arguments (rank out of range, m or n < 1) or no memory. */
int completion_fit(const double *a, const unsigned char *known, int m, int n,
                   const struct completion_opts *o, double *out);

#endif
