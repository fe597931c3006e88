/*
 * delaunay: piecewise-linear interpolation over a Delaunay triangulation, as SciPy's
 * LinearNDInterpolator does it (scipy.interpolate, with scipy.spatial.Delaunay underneath).
 *
 * The triangulation is Qhull's (Debian's libqhull_r), run as SciPy runs it: "qhull d Qbb Qc
 * Qz Q12 Qt" on the points in their given order.  A query is located as SciPy's
 * _find_simplex does (a walk on the lifted facets from simplex 0, then a directed walk on
 * barycentric coordinates, then a brute-force search, tolerance 100 * DBL_EPSILON), and
 * interpolated with the barycentric weights of the simplex found.  A point outside the
 * triangulation is reported as such (SciPy would return NaN); the caller names it.
 *
 * Where the answer can differ from SciPy's: (1) Qhull versions — SciPy 1.10 bundles Qhull
 * 2019.1, Debian 12 ships 2020.2; co-spherical points (any grid) have several Delaunay
 * triangulations and the one chosen is Qhull's merge-and-triangulate result, so another
 * version may split a grid cell differently and interpolate a different value inside it.
 * (2) Rounding of the barycentric transforms: SciPy inverts each simplex's matrix with
 * LAPACK (dgetrf, dgecon, dgetrs); this file does the same steps in plain C, so the last bit
 * may differ where an optimized LAPACK fuses or reorders operations.  tests/test_delaunay.c
 * compares the simplices and interpolated values with SciPy's on the Pollux profiles.
 *
 * Ownership: delaunay_create copies what it needs (the points and values are not kept);
 * delaunay_destroy frees.  Queries are pure reads.  Cost: Qhull's O(n log n) build once;
 * a query walks O(n^(1/d)) simplices typically, O(simplices) when it falls back.
 */
#ifndef HETSIM_DELAUNAY_H
#define HETSIM_DELAUNAY_H

#include "../sim/base/err.h"

enum { DELAUNAY_MAX_DIM = 4 };

typedef struct delaunay delaunay;

/* Triangulate n points of `dim` coordinates (row-major, pts[i * dim + k]) carrying
 * `nvalues` values each (vals[i * nvalues + v]).  Errors (fewer than dim + 1 points, all on
 * a hyperplane, NaN) name `what`. */
int  delaunay_create(delaunay **out, int dim, int n, const double *pts, int nvalues,
                     const double *vals, const char *what, struct errbuf *err);
void delaunay_destroy(delaunay *d);

/* The interpolated values at x (out[nvalues]): 1 inside the triangulation, 0 outside (out
 * untouched). */
int  delaunay_interp(const delaunay *d, const double *x, double *out);

/* The simplex containing x, as SciPy's find_simplex finds it: its index, or -1 outside;
 * bary (dim + 1 weights) may be NULL. */
int  delaunay_find(const delaunay *d, const double *x, double *bary);

int  delaunay_nsimplex(const delaunay *d);
/* The dim + 1 point indices of simplex i, in Qhull's vertex order. */
const int *delaunay_simplex(const delaunay *d, int i);

#endif
