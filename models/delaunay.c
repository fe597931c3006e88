/*
 * delaunay: Qhull's Delaunay triangulation and SciPy's point location and barycentric
 * interpolation on it (scipy/spatial/_qhull.pyx and scipy/interpolate/interpnd.pyx, 1.10).
 *
 * Build: Qhull lifts the points onto a paraboloid and takes the lower hull; "Qbb" scales the
 * lifted coordinate, "Qz" adds a point at infinity (which keeps co-spherical sets from
 * failing), "Qc" keeps coplanar points (duplicates among them) out of the vertices, "Q12"
 * allows wide merged facets, "Qt" triangulates merged facets into simplices.  The lower
 * facets become the simplices, in Qhull's facet-list order, each with its neighbours (the
 * k-th opposite the k-th vertex; -1 across the hull), its lifted hyperplane and the inverse
 * T^-1 of its matrix T[i][j] = (r_j - r_n)_i, or NaN when T is singular or its reciprocal
 * condition number is below 1000 * DBL_EPSILON (a flat simplex, which Qt can produce).
 *
 * Locate (SciPy's _find_simplex): reject points outside the bounding box (tolerance eps);
 * from simplex 0 hop to any neighbour whose lifted hyperplane is farther above the lifted
 * query, until one is above it; then walk towards every negative barycentric coordinate;
 * a walk across the hull means outside; a walk that stalls (a flat simplex) or runs past
 * nsimplex / 4 steps falls back to trying every simplex, flat ones through their neighbours
 * with a looser tolerance sqrt(DBL_EPSILON) towards the flat one.  eps = 100 * DBL_EPSILON.
 */
#define _POSIX_C_SOURCE 200809L
#include "delaunay.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

struct delaunay {
    int     dim, npts, nvalues, nsimplex;
    double *pts;        /* [npts * dim] */
    double *vals;       /* [npts * nvalues] */
    int    *simplices;  /* [nsimplex * (dim + 1)] point indices */
    int    *neighbors;  /* [nsimplex * (dim + 1)] simplex indices, -1 across the hull */
    double *equations;  /* [nsimplex * (dim + 2)] lifted hyperplane: normal, offset */
    double *transform;  /* [nsimplex * (dim + 1) * dim]: T^-1 (dim x dim), then r_n */
    double  min_bound[DELAUNAY_MAX_DIM], max_bound[DELAUNAY_MAX_DIM];
    double  paraboloid_scale, paraboloid_shift;
};

static const double EPS = 100 * DBL_EPSILON;

/* LU with partial pivoting of the n x n matrix a (row-major here, a[r * n + c]), as
 * LAPACK's dgetrf2 does it for n <= 4: the first largest |pivot|, multipliers scaled by the
 * pivot's reciprocal, the trailing block updated.  0, or the 1-based index of the first zero
 * pivot (dgetrf's info). */
static int lu_factor(int n, double *a, int *piv)
{
    int info = 0;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int r = k + 1; r < n; r++)
            if (fabs(a[r * n + k]) > fabs(a[p * n + k]))
                p = r;
        piv[k] = p;
        if (a[p * n + k] != 0) {
            if (p != k)
                for (int c = 0; c < n; c++) {
                    double t = a[k * n + c];
                    a[k * n + c] = a[p * n + c];
                    a[p * n + c] = t;
                }
            if (fabs(a[k * n + k]) >= DBL_MIN) {
                double inv = 1 / a[k * n + k];
                for (int r = k + 1; r < n; r++)
                    a[r * n + k] *= inv;
            } else {
                for (int r = k + 1; r < n; r++)
                    a[r * n + k] /= a[k * n + k];
            }
        } else if (info == 0) {
            info = k + 1;
        }
        for (int r = k + 1; r < n; r++)
            for (int c = k + 1; c < n; c++)
                a[r * n + c] += -a[k * n + c] * a[r * n + k];
    }
    return info;
}

/* Solve (LU) X = I into x (row-major), as dgetrs does: row swaps, unit-lower forward
 * substitution, upper back substitution with division by the diagonal. */
static void lu_inverse(int n, const double *lu, const int *piv, double *x)
{
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            x[r * n + c] = r == c;
    for (int k = 0; k < n; k++)
        if (piv[k] != k)
            for (int c = 0; c < n; c++) {
                double t = x[k * n + c];
                x[k * n + c] = x[piv[k] * n + c];
                x[piv[k] * n + c] = t;
            }
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < n; k++)
            if (x[k * n + c] != 0)
                for (int r = k + 1; r < n; r++)
                    x[r * n + c] -= x[k * n + c] * lu[r * n + k];
        for (int k = n - 1; k >= 0; k--)
            if (x[k * n + c] != 0) {
                x[k * n + c] /= lu[k * n + k];
                for (int r = 0; r < k; r++)
                    x[r * n + c] -= x[k * n + c] * lu[r * n + k];
            }
    }
}

static double norm1(int n, const double *a)
{
    double best = 0;
    for (int c = 0; c < n; c++) {
        double s = 0;
        for (int r = 0; r < n; r++)
            s += fabs(a[r * n + c]);
        if (best < s)
            best = s;
    }
    return best;
}

/* The barycentric transform of simplex s (SciPy's _get_barycentric_transforms).  LAPACK sees
 * SciPy's C-ordered T as its transpose A = T^T, so A's row r is vertex r minus vertex n; it
 * solves A X = I and stores X as T^-1 read in C order, i.e. T^-1[i][j] = X[j][i]. */
static void make_transform(delaunay *d, int s)
{
    int n = d->dim;
    const int *v = &d->simplices[s * (n + 1)];
    double *tr = &d->transform[(size_t)s * (n + 1) * n];
    double a[DELAUNAY_MAX_DIM * DELAUNAY_MAX_DIM], x[DELAUNAY_MAX_DIM * DELAUNAY_MAX_DIM];
    int piv[DELAUNAY_MAX_DIM];
    for (int i = 0; i < n; i++)
        tr[n * n + i] = d->pts[v[n] * n + i];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            a[r * n + c] = d->pts[v[r] * n + c] - tr[n * n + c];
    double anorm = norm1(n, a);
    int info = lu_factor(n, a, piv);
    if (info == 0) {
        lu_inverse(n, a, piv, x);
        /* dgecon estimates ||A^-1||_1 from below; for these small matrices it is the exact
         * norm, computed here directly */
        double ainv = norm1(n, x);
        double rcond = anorm > 0 && ainv > 0 ? 1 / (anorm * ainv) : 0;
        if (!(rcond >= 1000 * DBL_EPSILON))
            info = 1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            tr[i * n + j] = info == 0 ? x[j * n + i] : NAN;
    if (info != 0)
        for (int i = 0; i < n; i++)
            tr[n * n + i] = NAN;
}

static int qhull_build(delaunay *d, const char *what, struct errbuf *err)
{
    qhT qhs, *qh = &qhs;
    char *msg = NULL;
    size_t msglen = 0;
    FILE *ef = open_memstream(&msg, &msglen);
    if (ef == NULL)
        return err_run(err, "%s: out of memory", what);
    /* Qhull keeps pointers into its input until freed; it projects a copy for 'd' */
    coordT *pts = malloc((size_t)d->npts * (size_t)d->dim * sizeof *pts);
    if (pts == NULL) {
        fclose(ef);
        free(msg);
        return err_run(err, "%s: out of memory", what);
    }
    memcpy(pts, d->pts, (size_t)d->npts * (size_t)d->dim * sizeof *pts);
    char cmd[] = "qhull d Qbb Qc Qz Q12 Qt";
    qh_zero(qh, ef);
    int rc = qh_new_qhull(qh, d->dim, d->npts, pts, False, cmd, NULL, ef);
    int ret = 0;
    if (rc != 0) {
        fflush(ef);
        /* the first line of Qhull's report says what went wrong */
        char *nl = msg ? strchr(msg, '\n') : NULL;
        if (nl)
            *nl = '\0';
        ret = err_input(err, NULL, 0, NULL, "%s: Qhull cannot triangulate the %d points (%s)",
                        what, d->npts, msg && *msg ? msg : "no message");
        goto out;
    }
    facetT *facet;
    int n = 0;
    unsigned int nid = qh->facet_id;
    int *id_map = malloc((size_t)(nid ? nid : 1) * sizeof *id_map);
    if (id_map == NULL) {
        ret = err_run(err, "%s: out of memory", what);
        goto out;
    }
    for (unsigned int i = 0; i < nid; i++)
        id_map[i] = -1;
    FORALLfacets {
        if (facet->upperdelaunay)
            continue;
        if (qh_setsize(qh, facet->vertices) != d->dim + 1 ||
            qh_setsize(qh, facet->neighbors) != d->dim + 1) {
            free(id_map);
            ret = err_run(err, "%s: Qhull left a non-simplicial facet (%d vertices)", what,
                          qh_setsize(qh, facet->vertices));
            goto out;
        }
        id_map[facet->id] = n++;
    }
    int m = d->dim + 1;
    d->nsimplex = n;
    d->simplices = malloc((size_t)(n ? n : 1) * (size_t)m * sizeof *d->simplices);
    d->neighbors = malloc((size_t)(n ? n : 1) * (size_t)m * sizeof *d->neighbors);
    d->equations = malloc((size_t)(n ? n : 1) * (size_t)(m + 1) * sizeof *d->equations);
    d->transform = malloc((size_t)(n ? n : 1) * (size_t)m * (size_t)d->dim * sizeof *d->transform);
    if (!d->simplices || !d->neighbors || !d->equations || !d->transform) {
        free(id_map);
        ret = err_run(err, "%s: out of memory", what);
        goto out;
    }
    int s = 0;
    FORALLfacets {
        if (facet->upperdelaunay)
            continue;
        for (int i = 0; i < m; i++) {
            vertexT *vx = SETelemt_(facet->vertices, i, vertexT);
            facetT *nb = SETelemt_(facet->neighbors, i, facetT);
            d->simplices[s * m + i] = qh_pointid(qh, vx->point);
            d->neighbors[s * m + i] = id_map[nb->id];
        }
        for (int i = 0; i < m; i++)
            d->equations[s * (m + 1) + i] = facet->normal[i];
        d->equations[s * (m + 1) + m] = facet->offset;
        s++;
    }
    free(id_map);
    if (qh->SCALElast) {
        d->paraboloid_scale = qh->last_newhigh / (qh->last_high - qh->last_low);
        d->paraboloid_shift = -qh->last_low * d->paraboloid_scale;
    } else {
        d->paraboloid_scale = 1;
        d->paraboloid_shift = 0;
    }
    for (int i = 0; i < n; i++)
        make_transform(d, i);
out:;
    int curlong, totlong;
    qh_freeqhull(qh, qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(ef);
    free(msg);
    free(pts);
    return ret;
}

int delaunay_create(delaunay **out, int dim, int n, const double *pts, int nvalues,
                    const double *vals, const char *what, struct errbuf *err)
{
    *out = NULL;
    if (dim < 2 || dim > DELAUNAY_MAX_DIM)
        return err_run(err, "%s: %d-D triangulation is not supported", what, dim);
    if (n < dim + 1)
        return err_input(err, NULL, 0, NULL, "%s: %d points cannot span a %d-D triangulation "
                         "(at least %d needed)", what, n, dim, dim + 1);
    for (int i = 0; i < n * dim; i++)
        if (!isfinite(pts[i]))
            return err_input(err, NULL, 0, NULL, "%s: point %d is not finite", what, i / dim);
    delaunay *d = calloc(1, sizeof *d);
    if (d == NULL)
        return err_run(err, "%s: out of memory", what);
    d->dim = dim;
    d->npts = n;
    d->nvalues = nvalues;
    d->pts = malloc((size_t)n * (size_t)dim * sizeof *d->pts);
    d->vals = malloc((size_t)n * (size_t)(nvalues ? nvalues : 1) * sizeof *d->vals);
    if (d->pts == NULL || d->vals == NULL) {
        delaunay_destroy(d);
        return err_run(err, "%s: out of memory", what);
    }
    memcpy(d->pts, pts, (size_t)n * (size_t)dim * sizeof *d->pts);
    if (nvalues > 0)
        memcpy(d->vals, vals, (size_t)n * (size_t)nvalues * sizeof *d->vals);
    for (int k = 0; k < dim; k++) {
        d->min_bound[k] = INFINITY;
        d->max_bound[k] = -INFINITY;
        for (int i = 0; i < n; i++) {
            d->min_bound[k] = fmin(d->min_bound[k], pts[i * dim + k]);
            d->max_bound[k] = fmax(d->max_bound[k], pts[i * dim + k]);
        }
    }
    if (qhull_build(d, what, err) < 0) {
        delaunay_destroy(d);
        return -1;
    }
    *out = d;
    return 0;
}

void delaunay_destroy(delaunay *d)
{
    if (d == NULL)
        return;
    free(d->pts);
    free(d->vals);
    free(d->simplices);
    free(d->neighbors);
    free(d->equations);
    free(d->transform);
    free(d);
}

int delaunay_nsimplex(const delaunay *d) { return d->nsimplex; }
const int *delaunay_simplex(const delaunay *d, int i) { return &d->simplices[i * (d->dim + 1)]; }

static const double *transform_of(const delaunay *d, int s)
{
    return &d->transform[(size_t)s * (size_t)(d->dim + 1) * (size_t)d->dim];
}

/* c[i] for i < dim from the transform; c[dim] = 1 - the others (computed in that order) */
static void bary_one(int n, const double *tr, const double *x, double *c, int i)
{
    if (i == n) {
        c[n] = 1.0;
        for (int j = 0; j < n; j++)
            c[n] -= c[j];
        return;
    }
    c[i] = 0;
    for (int j = 0; j < n; j++)
        c[i] += tr[n * i + j] * (x[j] - tr[n * n + j]);
}

static void bary_all(int n, const double *tr, const double *x, double *c)
{
    c[n] = 1.0;
    for (int i = 0; i < n; i++) {
        c[i] = 0;
        for (int j = 0; j < n; j++)
            c[i] += tr[n * i + j] * (x[j] - tr[n * n + j]);
        c[n] -= c[i];
    }
}

static int bary_inside(int n, const double *tr, const double *x, double *c, double eps)
{
    c[n] = 1.0;
    for (int i = 0; i < n; i++) {
        c[i] = 0;
        for (int j = 0; j < n; j++)
            c[i] += tr[n * i + j] * (x[j] - tr[n * n + j]);
        c[n] -= c[i];
        if (!(-eps <= c[i] && c[i] <= 1 + eps))
            return 0;
    }
    return -eps <= c[n] && c[n] <= 1 + eps;
}

static int fully_outside(const delaunay *d, const double *x)
{
    for (int i = 0; i < d->dim; i++)
        if (x[i] < d->min_bound[i] - EPS || x[i] > d->max_bound[i] + EPS)
            return 1;
    return 0;
}

static int find_bruteforce(const delaunay *d, const double *x, double *c)
{
    int n = d->dim;
    double eps_broad = sqrt(DBL_EPSILON);
    if (fully_outside(d, x))
        return -1;
    for (int s = 0; s < d->nsimplex; s++) {
        const double *tr = transform_of(d, s);
        if (tr[0] == tr[0]) {
            if (bary_inside(n, tr, x, c, EPS))
                return s;
            continue;
        }
        /* a flat simplex: accept a neighbour that (almost) holds x, looser towards it */
        for (int k = 0; k <= n; k++) {
            int nb = d->neighbors[s * (n + 1) + k];
            if (nb == -1)
                continue;
            const double *tn = transform_of(d, nb);
            if (tn[0] != tn[0])
                continue;
            bary_all(n, tn, x, c);
            int inside = 1;
            for (int m = 0; m <= n && inside; m++) {
                double lo = d->neighbors[nb * (n + 1) + m] == s ? -eps_broad : -EPS;
                if (!(lo <= c[m] && c[m] <= 1 + EPS))
                    inside = 0;
            }
            if (inside)
                return nb;
        }
    }
    return -1;
}

static int find_directed(const delaunay *d, const double *x, double *c, int s)
{
    int n = d->dim;
    if (s < 0 || s >= d->nsimplex)
        s = 0;
    for (int cycle = 0; cycle < 1 + d->nsimplex / 4; cycle++) {
        const double *tr = transform_of(d, s);
        int inside = 1;
        for (int k = 0; k <= n; k++) {
            bary_one(n, tr, x, c, k);
            if (c[k] < -EPS) {
                int m = d->neighbors[s * (n + 1) + k];
                if (m == -1)
                    return -1;          /* across the hull: outside */
                s = m;
                inside = -1;
                break;
            } else if (!(c[k] <= 1 + EPS)) {
                inside = 0;             /* beyond a vertex, or NaN: a flat simplex */
            }
        }
        if (inside == -1)
            continue;
        if (inside == 1)
            return s;
        return find_bruteforce(d, x, c);
    }
    return find_bruteforce(d, x, c);
}

static double distplane(const delaunay *d, int s, const double *z)
{
    int m = d->dim + 1;
    const double *eq = &d->equations[s * (m + 1)];
    double dist = eq[m];
    for (int k = 0; k < m; k++)
        dist += eq[k] * z[k];
    return dist;
}

int delaunay_find(const delaunay *d, const double *x, double *bary)
{
    double cbuf[DELAUNAY_MAX_DIM + 1];
    double *c = bary ? bary : cbuf;
    int n = d->dim;
    if (fully_outside(d, x) || d->nsimplex <= 0)
        return -1;
    double z[DELAUNAY_MAX_DIM + 1];
    z[n] = 0;
    for (int i = 0; i < n; i++) {
        z[i] = x[i];
        z[n] += x[i] * x[i];
    }
    z[n] *= d->paraboloid_scale;
    z[n] += d->paraboloid_shift;
    int s = 0;
    double best = distplane(d, s, z);
    int changed = 1;
    while (changed) {
        if (best > 0)
            break;
        changed = 0;
        for (int k = 0; k <= n; k++) {
            int nb = d->neighbors[s * (n + 1) + k];
            if (nb == -1)
                continue;
            double dist = distplane(d, nb, z);
            /* the eps keeps the walk finite under extended precision (SciPy's note);
             * hopping mid-loop and going on with the next k is SciPy's order too */
            if (dist > best + EPS * (1 + fabs(best))) {
                s = nb;
                best = dist;
                changed = 1;
            }
        }
    }
    return find_directed(d, x, c, s);
}

int delaunay_interp(const delaunay *d, const double *x, double *out)
{
    double c[DELAUNAY_MAX_DIM + 1];
    int s = delaunay_find(d, x, c);
    if (s < 0)
        return 0;
    for (int k = 0; k < d->nvalues; k++)
        out[k] = 0;
    for (int j = 0; j <= d->dim; j++) {
        int p = d->simplices[s * (d->dim + 1) + j];
        for (int k = 0; k < d->nvalues; k++)
            out[k] = out[k] + c[j] * d->vals[p * d->nvalues + k];
    }
    return 1;
}
