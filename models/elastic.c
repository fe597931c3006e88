/*
 * elastic: loading and querying elastic applications' measured profiles (elastic.h has the
 * rules and where they come from).
 *
 * Per application and GPU type: the placements' rows grouped by placement name (sorted
 * names, binary search), each group's rows sorted by local batch (stable, duplicates
 * rejected); the Delaunay interpolant of the averaged placements and the scalability rows;
 * the validation tables by batch size.  Step times are remembered per (placement, batch) in
 * an open-addressing table, so a query after the first is a hash lookup: a run asks the same
 * few dozen placements thousands of times.  Loading is O(rows log rows) plus Qhull's build.
 */
#define _POSIX_C_SOURCE 200809L
#include "elastic.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/jobj.h"
#include "../sim/base/path.h"
#include "../sim/base/tio.h"
#include "delaunay.h"

enum { PLACE_MAX = 128 };       /* digits of a placement name (nodes) */

struct prow { double bsz, step, sync; };

struct pgroup {
    char         name[PLACE_MAX + 1];
    int          nodes, replicas;
    struct prow *rows;          /* ascending local batch */
    int          n;
};

struct vtab {                   /* one validation-<bsz>.csv */
    int     bsz;
    int     n;                  /* rows (epochs) */
    double *progress, *iteration, *metric, *sqr, *var;
};

struct memo_slot { uint64_t h; double bsz, step, sync; char key[PLACE_MAX + 1]; int used; };
struct memo { struct memo_slot *slot; size_t cap, n; };

struct elastic_app {
    char           name[ELASTIC_NAME_MAX];
    int            gpu;
    char           place_path[PATH_MAX_LEN];
    struct elastic_limits lim;
    struct pgroup *groups;      /* sorted by name */
    int            ngroups;
    delaunay      *tri;         /* over (nodes, replicas, local batch); built when first
                                   needed (most runs never leave placements.csv's
                                   placements, and Qhull's build dominates a short run) */
    double        *tri_pts, *tri_vals;      /* its points and values until then */
    int            tri_n;
    char           tri_what[2 * PATH_MAX_LEN + 8];
    struct vtab   *val;         /* ascending batch size */
    int            nval;
    struct memo   *memo;
};

struct spec {                   /* applications.json's entry, before the files are read */
    char name[ELASTIC_NAME_MAX];
    struct elastic_limits given;    /* 0: derive */
    char file[PATH_MAX_LEN];        /* where the entry is, for errors in what it gave */
    long line;
    char path[192];                 /* "applications[2]" (a jobj's path) */
};

enum { MAX_APPS = 64 };

struct elastic {
    const catalog *cat;
    char           dir[PATH_MAX_LEN];       /* applications.json's folder */
    struct spec   *specs;
    int            napps;
    elastic_app   *by[ELASTIC_MAX_TYPES][MAX_APPS];    /* [gpu slot][app] */
    int            gpus[ELASTIC_MAX_TYPES];     /* catalog id of each slot */
    int            ngpus;
};

/* ------------------------------------------------------------ CSV with a header */

struct csv {
    tio  *r;
    const char *path;
    int   ncols;
    int   col[8];               /* position of each wanted column */
    char *f[32];
    int   nf;
};

/* Open `path` and find the columns `want` (NULL-terminated) by name in its header. */
static int csv_open(struct csv *c, const char *path, const char *const *want,
                    struct errbuf *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    if (tio_open(&c->r, path, err) < 0)
        return -1;
    char *line;
    size_t len;
    int rc = tio_next(c->r, &line, &len, err);
    if (rc <= 0) {
        tio_close(c->r);
        c->r = NULL;
        return rc < 0 ? -1 : err_input(err, path, 1, NULL, "empty file: a header was expected");
    }
    char *h[32];
    int nh = tio_split(line, ',', h, 32);
    if (nh < 0 || nh > 32) {
        tio_close(c->r);
        c->r = NULL;
        return err_input(err, path, 1, NULL, "unreadable header (at most 32 columns)");
    }
    c->ncols = nh;
    int nw = 0;
    for (; want[nw] != NULL; nw++) {
        c->col[nw] = -1;
        for (int k = 0; k < nh; k++) {
            char *s = h[k];
            while (*s == ' ')
                s++;
            size_t l = strlen(s);
            while (l > 0 && s[l - 1] == ' ')
                s[--l] = '\0';
            if (strcmp(s, want[nw]) == 0) {
                if (c->col[nw] >= 0) {
                    tio_close(c->r);
                    c->r = NULL;
                    return err_input(err, path, 1, want[nw], "column named twice");
                }
                c->col[nw] = k;
            }
        }
        if (c->col[nw] < 0) {
            tio_close(c->r);
            c->r = NULL;
            return err_input(err, path, 1, want[nw], "missing column (the header must name "
                             "every column this file needs, in any order)");
        }
    }
    return 0;
}

/* Next data row: 1, 0 at the end, -1 on error (a wrong field count). */
static int csv_row(struct csv *c, struct errbuf *err)
{
    char *line;
    size_t len;
    int rc;
    while ((rc = tio_next(c->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0)
        return rc;
    c->nf = tio_split(line, ',', c->f, 32);
    if (c->nf != c->ncols)
        return err_input(err, c->path, tio_lineno(c->r), NULL, "%d fields, the header has %d",
                         c->nf < 0 ? 0 : c->nf, c->ncols);
    return 1;
}

static const char *csv_field(const struct csv *c, int i) { return c->f[c->col[i]]; }
static long csv_line(const struct csv *c) { return tio_lineno(c->r); }

/* The double nearest 10^k (0 <= k <= 308), as a literal 1ek is: exact products below 10^23,
 * strtod beyond (rare: the profiles' exponents stay within +-22). */
static double pow10_near(int k)
{
    if (k <= 22) {
        double p = 1;
        while (k-- > 0)
            p *= 10;
        return p;
    }
    char b[16];
    snprintf(b, sizeof b, "1e%d", k);
    return strtod(b, NULL);
}

/* A decimal as pandas' default CSV parser reads it (read_csv's float_precision "high", the
 * default since pandas 1.2): up to 17 digits accumulated as n = 10 n + d (leading zeros
 * count), further digits only shift the exponent, then one multiplication or division by the
 * double nearest 10^|exponent| (twice past 1e308).  It is not correctly rounded: about half
 * of Pollux's values come out one unit in the last place away from strtod's, and Pollux's
 * simulator computes with those, so hetsim does too.  `s` was checked by tio_double. */
static double pandas_number(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    int neg = *s == '-', digits = 0, exp = 0;
    if (*s == '-' || *s == '+')
        s++;
    double n = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (digits < 17) {
            n = n * 10. + (*s - '0');
            digits++;
        } else {
            exp++;
        }
    }
    if (*s == '.') {
        s++;
        int decimals = 0;
        for (; digits < 17 && *s >= '0' && *s <= '9'; s++, digits++, decimals++)
            n = n * 10. + (*s - '0');
        while (*s >= '0' && *s <= '9')
            s++;
        exp -= decimals;
    }
    if (neg)
        n = -n;
    if (*s == 'e' || *s == 'E') {
        s++;
        int eneg = *s == '-', e = 0;
        if (*s == '-' || *s == '+')
            s++;
        for (; *s >= '0' && *s <= '9'; s++)
            if (e < 100000)         /* beyond, any value is 0 or out of range: it saturates */
                e = e * 10 + (*s - '0');
        exp += eneg ? -e : e;
    }
    if (n == 0)                     /* 0e400 is 0, as strtod (which checked it) read it */
        return n;
    if (exp > 308)
        return neg ? -HUGE_VAL : HUGE_VAL;
    if (exp > 0)
        return n * pow10_near(exp);
    if (exp < -308)
        return exp < -616 ? 0. : n / pow10_near(-308 - exp) / pow10_near(308);
    return n / pow10_near(-exp);
}

static int csv_num(const struct csv *c, int i, const char *name, double lo, double hi,
                   double *out, struct errbuf *err)
{
    double v;
    if (tio_double(csv_field(c, i), &v) < 0 || !(v >= lo) || !(v <= hi))
        return err_input(err, c->path, csv_line(c), name, "'%s' is not a number in [%g, %g]",
                         csv_field(c, i), lo, hi);
    *out = pandas_number(csv_field(c, i));
    return 0;
}

static void csv_close(struct csv *c)
{
    tio_close(c->r);
    c->r = NULL;
}

/* ------------------------------------------------------------ placements and scalability */

static int cmp_group(const void *a, const void *b)
{
    return strcmp(((const struct pgroup *)a)->name, ((const struct pgroup *)b)->name);
}

/* A stable sort by batch (insertion: a placement has a few dozen rows at most) */
static void sort_rows(struct prow *r, int n)
{
    for (int i = 1; i < n; i++) {
        struct prow v = r[i];
        int k = i;
        for (; k > 0 && r[k - 1].bsz > v.bsz; k--)
            r[k] = r[k - 1];
        r[k] = v;
    }
}

static struct pgroup *find_group(const elastic_app *a, const char *name)
{
    int lo = 0, hi = a->ngroups - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(a->groups[mid].name, name);
        if (c == 0)
            return &a->groups[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static int read_placements(elastic_app *a, const char *path, struct errbuf *err)
{
    static const char *const want[] = { "placement", "local_bsz", "step_time", "sync_time",
                                        NULL };
    struct csv c;
    if (csv_open(&c, path, want, err) < 0)
        return -1;
    snprintf(a->place_path, sizeof a->place_path, "%s", path);
    int rc, capg = 0;
    while ((rc = csv_row(&c, err)) > 0) {
        const char *p = csv_field(&c, 0);
        while (*p == ' ')
            p++;
        size_t l = strlen(p);
        while (l > 0 && p[l - 1] == ' ')
            l--;
        if (l == 0 || l > PLACE_MAX) {
            rc = err_input(err, path, csv_line(&c), "placement", "'%s' is not a placement: one "
                           "digit 1-9 per node, at most %d nodes", csv_field(&c, 0), PLACE_MAX);
            break;
        }
        char name[PLACE_MAX + 1];
        int replicas = 0, ok = 1;
        for (size_t i = 0; i < l; i++) {
            ok = ok && p[i] >= '1' && p[i] <= '9';
            name[i] = p[i];
            replicas += p[i] - '0';
        }
        name[l] = '\0';
        if (!ok) {
            rc = err_input(err, path, csv_line(&c), "placement", "'%s' is not a placement: one "
                           "digit 1-9 per node (GPUs on that node)", csv_field(&c, 0));
            break;
        }
        struct prow row;
        if (csv_num(&c, 1, "local_bsz", 1, 1e9, &row.bsz, err) < 0 ||
            csv_num(&c, 2, "step_time", 1e-12, 1e9, &row.step, err) < 0 ||
            csv_num(&c, 3, "sync_time", 0, 1e9, &row.sync, err) < 0) {
            rc = -1;
            break;
        }
        if (row.bsz != floor(row.bsz)) {
            rc = err_input(err, path, csv_line(&c), "local_bsz", "'%s' is not a whole batch",
                           csv_field(&c, 1));
            break;
        }
        int g = 0;
        while (g < a->ngroups && strcmp(a->groups[g].name, name) != 0)
            g++;
        if (g == a->ngroups) {
            if (a->ngroups == capg) {
                capg = capg ? 2 * capg : 64;
                struct pgroup *ng = realloc(a->groups, (size_t)capg * sizeof *ng);
                if (ng == NULL) {
                    rc = err_run(err, "out of memory");
                    break;
                }
                a->groups = ng;
            }
            struct pgroup *ng = &a->groups[a->ngroups++];
            memset(ng, 0, sizeof *ng);
            memcpy(ng->name, name, l + 1);
            ng->nodes = (int)l;
            ng->replicas = replicas;
        }
        struct pgroup *gr = &a->groups[g];
        for (int k = 0; k < gr->n; k++)
            if (gr->rows[k].bsz == row.bsz) {
                rc = err_input(err, path, csv_line(&c), "local_bsz", "placement %s has local "
                               "batch %g twice", name, row.bsz);
                goto out;
            }
        struct prow *nr = realloc(gr->rows, (size_t)(gr->n + 1) * sizeof *nr);
        if (nr == NULL) {
            rc = err_run(err, "out of memory");
            break;
        }
        gr->rows = nr;
        gr->rows[gr->n++] = row;
    }
out:
    csv_close(&c);
    if (rc < 0)
        return -1;
    if (a->ngroups == 0)
        return err_input(err, path, 0, NULL, "no placements");
    for (int g = 0; g < a->ngroups; g++) {
        sort_rows(a->groups[g].rows, a->groups[g].n);
        if (a->groups[g].n < 2)
            return err_input(err, path, 0, "local_bsz", "placement %s has one row; "
                             "interpolation in local batch needs two", a->groups[g].name);
    }
    return 0;
}

/* The interpolant's points: placements averaged over (nodes, replicas, local batch) in
 * sorted key order (pandas' groupby(...).mean(), Kahan-compensated sums in file order), then
 * the scalability rows.  The groups were built in file order, rows kept per group. */
struct pkey { double x[3]; double step, sync, cstep, csync; int count; };

static int cmp_key(const void *a, const void *b)
{
    const struct pkey *p = a, *q = b;
    for (int k = 0; k < 3; k++)
        if (p->x[k] != q->x[k])
            return p->x[k] < q->x[k] ? -1 : 1;
    return 0;
}

static void kahan(double *sum, double *comp, double v)
{
    double y = v - *comp, t = *sum + y;
    *comp = t - *sum - y;
    *sum = t;
}

/* At least 4 points, not all on one plane: what a 3-D triangulation needs, checked before
 * Qhull is asked (whose own message for a flat set is less plain).  O(n). */
static int check_span(const double *p, int n, const char *what, struct errbuf *err)
{
    if (n < 4)
        return err_input(err, what, 0, NULL, "%d points cannot span a 3-D triangulation (at "
                         "least 4 needed)", n);
    double scale = 0;
    for (int i = 0; i < 3 * n; i++)
        scale = fmax(scale, fabs(p[i]));
    double tol = 1e-12 * scale * scale * scale + 1e-300;
    /* p0, then the farthest from it, then the farthest from that line, then from the plane */
    int b = 0, c = -1, d = -1;
    double best = 0, u[3], v[3], nrm[3];
    for (int i = 1; i < n; i++) {
        double dd = 0;
        for (int k = 0; k < 3; k++)
            dd += (p[3 * i + k] - p[k]) * (p[3 * i + k] - p[k]);
        if (dd > best) {
            best = dd;
            b = i;
        }
    }
    for (int k = 0; k < 3; k++)
        u[k] = p[3 * b + k] - p[k];
    best = 0;
    for (int i = 1; i < n; i++) {
        for (int k = 0; k < 3; k++)
            v[k] = p[3 * i + k] - p[k];
        double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2],
               cz = u[0] * v[1] - u[1] * v[0], a2 = cx * cx + cy * cy + cz * cz;
        if (a2 > best) {
            best = a2;
            c = i;
            nrm[0] = cx;
            nrm[1] = cy;
            nrm[2] = cz;
        }
    }
    best = 0;
    for (int i = 1; c >= 0 && i < n; i++) {
        double vol = 0;
        for (int k = 0; k < 3; k++)
            vol += nrm[k] * (p[3 * i + k] - p[k]);
        if (fabs(vol) > best) {
            best = fabs(vol);
            d = i;
        }
    }
    if (c < 0 || d < 0 || best <= tol)
        return err_input(err, what, 0, NULL, "the %d points lie on one plane: no 3-D "
                         "triangulation", n);
    return 0;
}

static int build_points(elastic_app *a, const char *place_path, const char *scal_path,
                        struct errbuf *err)
{
    /* rows in file order are needed for the compensated sums: re-read the placements */
    static const char *const pwant[] = { "placement", "local_bsz", "step_time", "sync_time",
                                         NULL };
    static const char *const swant[] = { "num_nodes", "num_replicas", "local_bsz",
                                         "step_time", "sync_time", NULL };
    struct pkey *keys = NULL;
    double *pts = NULL, *vals = NULL;
    int nk = 0, capk = 0, rc = -1, np = 0;
    struct csv c;
    if (csv_open(&c, place_path, pwant, err) < 0)
        return -1;
    int r;
    while ((r = csv_row(&c, err)) > 0) {
        const char *p = csv_field(&c, 0);
        while (*p == ' ')
            p++;
        double x[3] = { 0, 0, 0 }, step, sync;
        for (; *p >= '1' && *p <= '9'; p++) {
            x[0] += 1;
            x[1] += *p - '0';
        }
        /* read_placements checked every field of this file */
        x[2] = pandas_number(csv_field(&c, 1));
        step = pandas_number(csv_field(&c, 2));
        sync = pandas_number(csv_field(&c, 3));
        int k = 0;
        while (k < nk && cmp_key(&keys[k], &(struct pkey){ .x = { x[0], x[1], x[2] } }) != 0)
            k++;
        if (k == nk) {
            if (nk == capk) {
                capk = capk ? 2 * capk : 256;
                struct pkey *nkeys = realloc(keys, (size_t)capk * sizeof *nkeys);
                if (nkeys == NULL) {
                    r = err_run(err, "out of memory");
                    break;
                }
                keys = nkeys;
            }
            keys[nk++] = (struct pkey){ .x = { x[0], x[1], x[2] } };
        }
        kahan(&keys[k].step, &keys[k].cstep, step);
        kahan(&keys[k].sync, &keys[k].csync, sync);
        keys[k].count++;
    }
    csv_close(&c);
    if (r < 0)
        goto out;
    qsort(keys, (size_t)nk, sizeof *keys, cmp_key);     /* keys are distinct */
    int caps = nk + 256;
    pts = malloc((size_t)caps * 3 * sizeof *pts);
    vals = malloc((size_t)caps * 2 * sizeof *vals);
    if (pts == NULL || vals == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    for (int k = 0; k < nk; k++, np++) {
        memcpy(&pts[np * 3], keys[k].x, sizeof keys[k].x);
        vals[np * 2] = keys[k].step / keys[k].count;
        vals[np * 2 + 1] = keys[k].sync / keys[k].count;
    }
    if (csv_open(&c, scal_path, swant, err) < 0)
        goto out;
    while ((r = csv_row(&c, err)) > 0) {
        double x[3], step, sync;
        if (csv_num(&c, 0, "num_nodes", 1, 1e6, &x[0], err) < 0 ||
            csv_num(&c, 1, "num_replicas", 1, 1e9, &x[1], err) < 0 ||
            csv_num(&c, 2, "local_bsz", 1e-9, 1e9, &x[2], err) < 0 ||
            csv_num(&c, 3, "step_time", 1e-12, 1e9, &step, err) < 0 ||
            csv_num(&c, 4, "sync_time", 0, 1e9, &sync, err) < 0) {
            r = -1;
            break;
        }
        if (x[0] != floor(x[0]) || x[1] != floor(x[1]) || x[1] < x[0]) {
            r = err_input(err, scal_path, csv_line(&c), x[0] != floor(x[0]) ? "num_nodes"
                          : "num_replicas", "nodes and replicas are whole numbers, at least "
                          "one replica per node (%g nodes, %g replicas)", x[0], x[1]);
            break;
        }
        if (np == caps) {
            caps *= 2;
            double *q = realloc(pts, (size_t)caps * 3 * sizeof *q);
            if (q != NULL)
                pts = q;
            double *v = q ? realloc(vals, (size_t)caps * 2 * sizeof *v) : NULL;
            if (v == NULL) {
                r = err_run(err, "out of memory");
                break;
            }
            vals = v;
        }
        memcpy(&pts[np * 3], x, sizeof x);
        vals[np * 2] = step;
        vals[np * 2 + 1] = sync;
        np++;
    }
    csv_close(&c);
    if (r < 0)
        goto out;
    snprintf(a->tri_what, sizeof a->tri_what, "%s and %s", place_path, scal_path);
    /* points that cannot span a triangulation (too few, or all on one plane, as a
     * single-node profile's are) fail only when a placement outside placements.csv needs
     * one, as in Pollux's and Sia's simulators, which build their LinearNDInterpolator
     * there (need_tri checks them then) */
    a->tri_pts = pts;
    a->tri_vals = vals;
    a->tri_n = np;
    pts = vals = NULL;
    rc = 0;
out:
    free(keys);
    free(pts);
    free(vals);
    return rc;
}

/* The triangulation, built on first use (behind the const pointer, as the memo). */
static int need_tri(elastic_app *a, struct errbuf *err)
{
    if (a->tri != NULL)
        return 0;
    if (check_span(a->tri_pts, a->tri_n, a->tri_what, err) < 0 ||
        delaunay_create(&a->tri, 3, a->tri_n, a->tri_pts, 2, a->tri_vals, a->tri_what,
                        err) < 0)
        return -1;
    free(a->tri_pts);
    free(a->tri_vals);
    a->tri_pts = a->tri_vals = NULL;
    return 0;
}

/* ------------------------------------------------------------ validation */

static void free_vtab(struct vtab *v)
{
    free(v->progress);
    free(v->iteration);
    free(v->metric);
    free(v->sqr);
    free(v->var);
}

static int read_vtab(struct vtab *v, const char *path, struct errbuf *err)
{
    static const char *const want[] = { "progress", "iteration", "metric", "grad_sqr",
                                        "grad_var", NULL };
    struct csv c;
    if (csv_open(&c, path, want, err) < 0)
        return -1;
    int cap = 0, rc;
    while ((rc = csv_row(&c, err)) > 0) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 128;
            int failed = 0;
            double **cols[5] = { &v->progress, &v->iteration, &v->metric, &v->sqr, &v->var };
            for (int k = 0; k < 5 && !failed; k++) {
                double *q = realloc(*cols[k], (size_t)cap * sizeof *q);
                if (q == NULL)
                    failed = 1;
                else
                    *cols[k] = q;
            }
            if (failed) {
                rc = err_run(err, "out of memory");
                break;
            }
        }
        int i = v->n;
        if (csv_num(&c, 0, "progress", 0, 1e18, &v->progress[i], err) < 0 ||
            csv_num(&c, 1, "iteration", 0, 1e18, &v->iteration[i], err) < 0 ||
            csv_num(&c, 2, "metric", -1e300, 1e300, &v->metric[i], err) < 0 ||
            csv_num(&c, 3, "grad_sqr", 0, 1e300, &v->sqr[i], err) < 0 ||
            csv_num(&c, 4, "grad_var", 0, 1e300, &v->var[i], err) < 0) {
            rc = -1;
            break;
        }
        if (!(v->sqr[i] + v->var[i] > 0)) {
            rc = err_input(err, path, csv_line(&c), "grad_var", "grad_sqr and grad_var are both "
                           "0: statistical efficiency is undefined");
            break;
        }
        if (i > 0 && v->progress[i] < v->progress[i - 1]) {
            rc = err_input(err, path, csv_line(&c), "progress", "%g is below the previous "
                           "epoch's %g: progress accumulates", v->progress[i], v->progress[i - 1]);
            break;
        }
        v->n++;
    }
    csv_close(&c);
    if (rc < 0)
        return -1;
    if (v->n == 0)
        return err_input(err, path, 0, NULL, "no epochs");
    return 0;
}

static int cmp_vtab(const void *a, const void *b)
{
    int p = ((const struct vtab *)a)->bsz, q = ((const struct vtab *)b)->bsz;
    return (p > q) - (p < q);
}

/* validation-<digits>.csv in dir; 0 files is fine (the caller decides) */
static int read_validation(elastic_app *a, const char *dir, struct errbuf *err)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return err_input(err, dir, 0, NULL, "cannot open the folder");
    struct dirent *de;
    int cap = 0, rc = 0;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strncmp(n, "validation-", 11) != 0)
            continue;
        const char *p = n + 11;
        long long bsz = 0;
        int digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
            bsz = bsz * 10 + (*p - '0');
        if (digits == 0 || strcmp(p, ".csv") != 0)
            continue;
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        if (bsz < 1 || bsz > INT32_MAX) {
            rc = err_input(err, path, 0, NULL, "the batch size in the name must be >= 1");
            break;
        }
        for (int k = 0; k < a->nval; k++)
            if (a->val[k].bsz == bsz) {
                rc = err_input(err, path, 0, NULL, "batch size %lld named twice", bsz);
                goto done;
            }
        if (a->nval == cap) {
            cap = cap ? 2 * cap : 16;
            struct vtab *nv = realloc(a->val, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = err_run(err, "out of memory");
                break;
            }
            a->val = nv;
        }
        struct vtab *v = &a->val[a->nval++];
        memset(v, 0, sizeof *v);
        v->bsz = (int)bsz;
        if (read_vtab(v, path, err) < 0) {
            rc = -1;
            break;
        }
    }
done:
    closedir(d);
    if (rc < 0)
        return -1;
    /* directory order is arbitrary; Pollux sorts by batch size */
    qsort(a->val, (size_t)a->nval, sizeof *a->val, cmp_vtab);
    return 0;
}

static int has_validation(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *de;
    int found = 0;
    while (!found && (de = readdir(d)) != NULL)
        found = strncmp(de->d_name, "validation-", 11) == 0;
    closedir(d);
    return found;
}

/* ------------------------------------------------------------ one application */

static void app_free(elastic_app *a)
{
    if (a == NULL)
        return;
    for (int g = 0; g < a->ngroups; g++)
        free(a->groups[g].rows);
    free(a->groups);
    delaunay_destroy(a->tri);
    free(a->tri_pts);
    free(a->tri_vals);
    for (int k = 0; k < a->nval; k++)
        free_vtab(&a->val[k]);
    free(a->val);
    if (a->memo)
        free(a->memo->slot);
    free(a->memo);
    free(a);
}

/* Derive what applications.json left to the files, and check that it fits them. */
/* A limit that does not hold, reported where its value came from: the application's entry
 * in applications.json when the file gave it (`given`), else its folder (derived from its
 * files).  Always -1. */
static int limit_error(const struct spec *s, int given, const char *field, const char *vdir,
                       struct errbuf *err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int limit_error(const struct spec *s, int given, const char *field, const char *vdir,
                       struct errbuf *err, const char *fmt, ...)
{
    char msg[256], where[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!given)
        return err_input(err, vdir, 0, field, "%s: %s", s->name, msg);
    snprintf(where, sizeof where, "%s.%s", s->path, field);
    return err_input(err, s->file, s->line, where, "%s", msg);
}

static int app_limits(elastic_app *a, const struct spec *s, const char *vdir,
                      struct errbuf *err)
{
    struct elastic_limits *l = &a->lim;
    const struct elastic_limits *giv = &s->given;
    *l = s->given;
    if (a->nval == 0)
        return err_input(err, vdir, 0, NULL, "%s has no validation-<batch>.csv files",
                         a->name);
    int min_rows = a->val[0].n;
    for (int k = 1; k < a->nval; k++)
        if (a->val[k].n < min_rows)
            min_rows = a->val[k].n;
    double lo = INFINITY, hi = -INFINITY;
    for (int g = 0; g < a->ngroups; g++)
        for (int k = 0; k < a->groups[g].n; k++) {
            lo = fmin(lo, a->groups[g].rows[k].bsz);
            hi = fmax(hi, a->groups[g].rows[k].bsz);
        }
    int vlo = a->val[0].bsz, vhi = a->val[a->nval - 1].bsz;
    if (l->init_bsz == 0)
        l->init_bsz = vlo;
    if (l->max_bsz == 0)
        l->max_bsz = vhi;
    if (l->min_local_bsz == 0)
        l->min_local_bsz = (int)lo;
    if (l->max_local_bsz == 0)
        l->max_local_bsz = (int)hi;
    if (l->max_epochs == 0)
        l->max_epochs = min_rows;
    if (l->max_epochs > min_rows)
        return limit_error(s, 1, "max_epochs", vdir, err, "%d epochs, but a validation file "
                           "has only %d", l->max_epochs, min_rows);
    /* the statistical efficiency is known between the validated batch sizes only */
    const struct { const char *field; int v, given; } batch[] = {
        { "init_batch_size", l->init_bsz, giv->init_bsz != 0 },
        { "max_batch_size", l->max_bsz, giv->max_bsz != 0 },
        { "pollux_batch_size", l->pollux_bsz, giv->pollux_bsz != 0 },
    };
    for (int k = 0; k < 3; k++)
        if (batch[k].given && (batch[k].v < vlo || batch[k].v > vhi))
            return limit_error(s, 1, batch[k].field, vdir, err, "%d is outside the validated "
                               "batch sizes (%d to %d)", batch[k].v, vlo, vhi);
    if (l->init_bsz > l->max_bsz)
        return limit_error(s, giv->init_bsz != 0, "init_batch_size", vdir, err, "%d is above "
                           "max_batch_size %d", l->init_bsz, l->max_bsz);
    if (l->max_bsz < l->min_local_bsz)
        return limit_error(s, giv->max_bsz != 0 || giv->min_local_bsz != 0, "max_batch_size", vdir,
                           err, "the largest batch %d is below the smallest local batch %d",
                           l->max_bsz, l->min_local_bsz);
    if (l->max_local_bsz < l->min_local_bsz)
        return limit_error(s, giv->max_local_bsz != 0 || giv->min_local_bsz != 0, "max_local_bsz",
                           vdir, err, "%d is below min_local_bsz %d", l->max_local_bsz,
                           l->min_local_bsz);
    return 0;
}

static int app_load(elastic_app **out, const struct spec *s, int gpu, const char *place,
                    const char *scal, const char *vdir, struct errbuf *err)
{
    elastic_app *a = calloc(1, sizeof *a);
    if (a == NULL)
        return err_run(err, "out of memory");
    snprintf(a->name, sizeof a->name, "%s", s->name);
    a->gpu = gpu;
    a->memo = calloc(1, sizeof *a->memo);
    if (a->memo == NULL || read_placements(a, place, err) < 0 ||
        build_points(a, place, scal, err) < 0 || read_validation(a, vdir, err) < 0 ||
        app_limits(a, s, vdir, err) < 0) {
        if (a->memo == NULL)
            err_run(err, "out of memory");
        app_free(a);
        return -1;
    }
    qsort(a->groups, (size_t)a->ngroups, sizeof *a->groups, cmp_group);
    *out = a;
    return 0;
}

/* ------------------------------------------------------------ the set */

static int gpu_slot(elastic *e, int gpu)
{
    for (int i = 0; i < e->ngpus; i++)
        if (e->gpus[i] == gpu)
            return i;
    if (e->ngpus == ELASTIC_MAX_TYPES)
        return -1;
    e->gpus[e->ngpus] = gpu;
    return e->ngpus++;
}

static int read_spec(struct spec *s, const struct jobj *o, struct errbuf *err)
{
    static const char *const keys[] = { "name", "max_epochs", "init_batch_size",
                                        "max_batch_size", "min_local_bsz", "max_local_bsz",
                                        "target_metric", "pollux_batch_size",
                                        "elastic_max_replicas", "source", "note", NULL };
    const char *name;
    int64_t v[7] = { 0, 0, 0, 0, 0, 0, 0 };
    double target = NAN;
    if (jobj_known(o, keys, err) < 0 || jobj_str(o, "name", JREQ, &name, err) < 0 ||
        jobj_int(o, "max_epochs", JOPT, 1, 1000000, &v[0], err) < 0 ||
        jobj_int(o, "init_batch_size", JOPT, 1, INT32_MAX, &v[1], err) < 0 ||
        jobj_int(o, "max_batch_size", JOPT, 1, INT32_MAX, &v[2], err) < 0 ||
        jobj_int(o, "min_local_bsz", JOPT, 1, INT32_MAX, &v[3], err) < 0 ||
        jobj_int(o, "max_local_bsz", JOPT, 1, INT32_MAX, &v[4], err) < 0 ||
        jobj_int(o, "pollux_batch_size", JOPT, 1, INT32_MAX, &v[5], err) < 0 ||
        jobj_int(o, "elastic_max_replicas", JOPT, 1, 1000000, &v[6], err) < 0 ||
        jobj_num(o, "target_metric", JOPT, -1e300, 1e300, &target, err) < 0)
        return -1;
    if (strlen(name) == 0 || strlen(name) >= ELASTIC_NAME_MAX || strchr(name, '/') != NULL)
        return jsonf_error(o->doc, cJSON_GetObjectItemCaseSensitive(o->node, "name"), o->path,
                           err, "an application's name is its folder's: not empty, no '/', "
                           "under %d characters", ELASTIC_NAME_MAX);
    snprintf(s->name, sizeof s->name, "%s", name);
    const char *file;
    jsonf_where(o->doc, o->node, &file, &s->line);
    snprintf(s->file, sizeof s->file, "%s", file);
    snprintf(s->path, sizeof s->path, "%s", o->path);
    s->given = (struct elastic_limits){
        .max_epochs = (int)v[0], .init_bsz = (int)v[1], .max_bsz = (int)v[2],
        .min_local_bsz = (int)v[3], .max_local_bsz = (int)v[4], .pollux_bsz = (int)v[5],
        .elastic_max_replicas = (int)v[6], .has_target = !isnan(target),
        .target_metric = isnan(target) ? 0 : target };
    return 0;
}

int elastic_load(elastic **out, const catalog *cat, const char *apps_json, struct errbuf *err)
{
    *out = NULL;
    jsonf *doc;
    if (jsonf_load(&doc, apps_json, err) < 0)
        return -1;
    elastic *e = calloc(1, sizeof *e);
    if (e == NULL) {
        jsonf_destroy(doc);
        return err_run(err, "out of memory");
    }
    e->cat = cat;
    path_dirname(e->dir, sizeof e->dir, apps_json);
    static const char *const top[] = { "gpu", "applications", "note", NULL };
    struct jobj root;
    const cJSON *arr;
    const char *gname;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top, err) < 0 ||
        jobj_str(&root, "gpu", JREQ, &gname, err) < 0 ||
        jobj_arr(&root, "applications", JREQ, &arr, err) < 0)
        goto out;
    int gpu = catalog_gpu_find(cat, gname);
    if (gpu < 0) {
        jsonf_error(doc, cJSON_GetObjectItemCaseSensitive(root.node, "gpu"), "gpu", err,
                    "unknown GPU type '%s' (see `hetsim list gpus`)", gname);
        goto out;
    }
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > MAX_APPS) {
        jsonf_error(doc, arr, "applications", err, "between 1 and %d applications", MAX_APPS);
        goto out;
    }
    e->specs = calloc((size_t)n, sizeof *e->specs);
    if (e->specs == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    int slot = gpu_slot(e, gpu), i = 0;
    for (const cJSON *it = arr->child; it != NULL; it = it->next, i++) {
        struct jobj o;
        if (jobj_elem(&o, &root, "applications", it, i, err) < 0 ||
            read_spec(&e->specs[i], &o, err) < 0)
            goto out;
        for (int k = 0; k < i; k++)
            if (strcmp(e->specs[k].name, e->specs[i].name) == 0) {
                jsonf_error(doc, it, o.path, err, "application '%s' is listed twice",
                            e->specs[i].name);
                goto out;
            }
        e->napps = i + 1;
        char d[PATH_MAX_LEN + ELASTIC_NAME_MAX], pl[sizeof d + 32], sc[sizeof d + 32];
        snprintf(d, sizeof d, "%s/%s", e->dir, e->specs[i].name);
        snprintf(pl, sizeof pl, "%s/placements.csv", d);
        snprintf(sc, sizeof sc, "%s/scalability.csv", d);
        if (app_load(&e->by[slot][i], &e->specs[i], gpu, pl, sc, d, err) < 0)
            goto out;
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    if (rc < 0) {
        elastic_destroy(e);
        return -1;
    }
    *out = e;
    return 0;
}

static const struct { const char *cluster, *gpu; } sia_clusters[] = {
    { "aws", "T4" }, { "azure", "V100-32GB" }, { "dgx", "A100-40GB" },
    { "dgx-ext", "A100-40GB" }, { "quad", "RTX6000" }, { "rtx", "RTX2080Ti" },
};

int elastic_sia_gpu(const catalog *cat, const char *cluster)
{
    for (size_t i = 0; i < sizeof sia_clusters / sizeof sia_clusters[0]; i++)
        if (strcmp(sia_clusters[i].cluster, cluster) == 0)
            return catalog_gpu_find(cat, sia_clusters[i].gpu);
    return -1;
}

int elastic_add_sia(elastic *e, const char *dir, const char *cluster, int gpu,
                    const char *origin, struct errbuf *err)
{
    if (gpu < 0)
        gpu = elastic_sia_gpu(e->cat, cluster);
    if (gpu < 0)
        return err_input(err, origin, 0, "cluster", "Sia has no cluster '%s' (aws, azure, dgx, "
                         "dgx-ext, quad, rtx), and no gpu was given", cluster);
    int slot = gpu_slot(e, gpu);
    if (slot < 0)
        return err_input(err, origin, 0, "gpu", "at most %d GPU types", ELASTIC_MAX_TYPES);
    int added = 0;
    for (int i = 0; i < e->napps; i++) {
        char d[PATH_MAX_LEN + ELASTIC_NAME_MAX], pl[sizeof d + 64], sc[sizeof d + 64];
        char vd[sizeof d];
        snprintf(d, sizeof d, "%s/%s", dir, e->specs[i].name);
        snprintf(pl, sizeof pl, "%s/placements-%s.csv", d, cluster);
        snprintf(sc, sizeof sc, "%s/scalability-%s.csv", d, cluster);
        FILE *f = fopen(pl, "r");
        if (f == NULL)
            continue;               /* this application was not profiled on that cluster */
        fclose(f);
        if (e->by[slot][i] != NULL)
            return err_input(err, origin, 0, "gpu", "%s already has a profile on %s",
                             e->specs[i].name, catalog_gpu(e->cat, gpu)->name);
        if (has_validation(d))
            snprintf(vd, sizeof vd, "%s", d);
        else
            snprintf(vd, sizeof vd, "%s/%s", e->dir, e->specs[i].name);
        if (app_load(&e->by[slot][i], &e->specs[i], gpu, pl, sc, vd, err) < 0)
            return -1;
        added++;
    }
    if (added == 0)
        return err_input(err, origin, 0, "dir", "no application of %s/ has %s/<application>/"
                         "placements-%s.csv", e->dir, dir, cluster);
    return 0;
}

void elastic_destroy(elastic *e)
{
    if (e == NULL)
        return;
    for (int s = 0; s < e->ngpus; s++)
        for (int i = 0; i < e->napps; i++)
            app_free(e->by[s][i]);
    free(e->specs);
    free(e);
}

int elastic_napps(const elastic *e) { return e->napps; }
const char *elastic_app_name(const elastic *e, int app) { return e->specs[app].name; }

int elastic_find(const elastic *e, const char *name)
{
    for (int i = 0; i < e->napps; i++)
        if (strcmp(e->specs[i].name, name) == 0)
            return i;
    return -1;
}

const char *elastic_hint(const elastic *e, const char *name, char *buf, size_t cap)
{
    const char *names[MAX_APPS + 1];
    for (int i = 0; i < e->napps; i++)
        names[i] = e->specs[i].name;
    names[e->napps] = NULL;
    const char *close = jsonf_suggest(name, names);
    if (close == NULL)
        return "";
    snprintf(buf, cap, " (did you mean '%s'?)", close);
    return buf;
}

const elastic_app *elastic_get(const elastic *e, int app, int gpu)
{
    if (app < 0 || app >= e->napps)
        return NULL;
    for (int s = 0; s < e->ngpus; s++)
        if (e->gpus[s] == gpu)
            return e->by[s][app];
    return NULL;
}

const char *elastic_name(const elastic_app *a) { return a->name; }
int elastic_gpu(const elastic_app *a) { return a->gpu; }
const struct elastic_limits *elastic_limits(const elastic_app *a) { return &a->lim; }
int elastic_nbsz(const elastic_app *a) { return a->nval; }
int elastic_bsz(const elastic_app *a, int i) { return a->val[i].bsz; }

/* ------------------------------------------------------------ step time */

static uint64_t memo_hash(const char *key, double bsz)
{
    uint64_t h = 1469598103934665603u;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 1099511628211u;
    uint64_t b;
    memcpy(&b, &bsz, sizeof b);
    h = (h ^ b) * 1099511628211u;
    return h ^ (h >> 29);
}

static struct memo_slot *memo_find(struct memo *m, const char *key, double bsz, uint64_t h)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct memo_slot *s = &m->slot[i];
        if (!s->used)
            return s;
        if (s->h == h && s->bsz == bsz && strcmp(s->key, key) == 0)
            return s;
    }
}

static void memo_put(struct memo *m, const char *key, double bsz, double step, double sync)
{
    if (2 * (m->n + 1) > m->cap) {      /* at most half full; a failed growth only forgets */
        size_t nc = m->cap ? 2 * m->cap : 256;
        struct memo_slot *ns = calloc(nc, sizeof *ns);
        if (ns == NULL)
            return;
        struct memo old = *m;
        m->slot = ns;
        m->cap = nc;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slot[i].used)
                *memo_find(m, old.slot[i].key, old.slot[i].bsz, old.slot[i].h) = old.slot[i];
        free(old.slot);
    }
    if (m->n + 1 >= m->cap)
        return;
    struct memo_slot *s = memo_find(m, key, bsz, memo_hash(key, bsz));
    if (!s->used) {
        *s = (struct memo_slot){ .h = memo_hash(key, bsz), .bsz = bsz, .step = step,
                                 .sync = sync, .used = 1 };
        snprintf(s->key, sizeof s->key, "%s", key);
        m->n++;
    }
}

/* The lexicographically smallest rotation of the counts, as digits. */
static void normalize(const int *c, int n, char *out)
{
    int best = 0;
    for (int s = 1; s < n; s++) {
        int k = 0;
        while (k < n && c[(s + k) % n] == c[(best + k) % n])
            k++;
        if (k < n && c[(s + k) % n] < c[(best + k) % n])
            best = s;
    }
    for (int k = 0; k < n; k++)
        out[k] = (char)('0' + c[(best + k) % n]);
    out[n] = '\0';
}

static const char *placement_text(const int *c, int n, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    o += (size_t)snprintf(buf, cap, "(");
    for (int k = 0; k < n && o < cap; k++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%d", k ? "," : "", c[k]);
    if (o < cap)
        snprintf(buf + o, cap - o, ")");
    return buf;
}

int elastic_step_time(const elastic_app *a, const int *placement, int n, double local_bsz,
                      double *step, double *sync, struct errbuf *err)
{
    int c[PLACE_MAX], m = 0, replicas = 0;
    char shown[PLACE_MAX * 4 + 8];
    for (int k = 0; k < n; k++) {
        if (placement[k] == 0)
            continue;
        if (placement[k] < 0 || placement[k] > 9 || m == PLACE_MAX)
            return err_input(err, a->place_path, 0, NULL, "%s: placement %s cannot be named as "
                             "Pollux names placements (1-9 GPUs on each of at most %d nodes)",
                             a->name, placement_text(placement, n, shown, sizeof shown),
                             PLACE_MAX);
        c[m++] = placement[k];
        replicas += placement[k];
    }
    if (m == 0)
        return err_input(err, a->place_path, 0, NULL, "%s: an empty placement has no step time",
                         a->name);
    char key[PLACE_MAX + 1];
    normalize(c, m, key);
    uint64_t h = memo_hash(key, local_bsz);
    struct memo_slot *ms = memo_find(a->memo, key, local_bsz, h);
    if (ms != NULL && ms->used) {
        *step = ms->step;
        *sync = ms->sync;
        return 0;
    }
    const struct pgroup *g = find_group(a, key);
    double y[2];
    if (g != NULL) {
        const struct prow *r = g->rows;
        if (!(local_bsz >= r[0].bsz && local_bsz <= r[g->n - 1].bsz))
            return err_input(err, a->place_path, 0, "local_bsz", "%s: placement %s measured at "
                             "local batch %g to %g, not at %g (no extrapolation)", a->name,
                             key, r[0].bsz, r[g->n - 1].bsz, local_bsz);
        /* interp1d: searchsorted(left), clipped to [1, n-1], slope from the pair below */
        int hi = 0;
        while (hi < g->n && r[hi].bsz < local_bsz)
            hi++;
        if (hi < 1)
            hi = 1;
        if (hi > g->n - 1)
            hi = g->n - 1;
        const struct prow *lo = &r[hi - 1], *up = &r[hi];
        double dx = local_bsz - lo->bsz, w = up->bsz - lo->bsz;
        y[0] = (up->step - lo->step) / w * dx + lo->step;
        y[1] = (up->sync - lo->sync) / w * dx + lo->sync;
    } else {
        double x[3] = { m < ELASTIC_NODE_CAP ? m : ELASTIC_NODE_CAP, replicas, local_bsz };
        if (need_tri((elastic_app *)a, err) < 0)
            return -1;
        if (!delaunay_interp(a->tri, x, y))
            return err_input(err, a->place_path, 0, NULL, "%s: placement %s (%d nodes, %d "
                             "replicas) at local batch %g lies outside the measured placements "
                             "and scalability runs (Pollux's simulator stops here on a NaN)",
                             a->name, placement_text(c, m, shown, sizeof shown), m, replicas,
                             local_bsz);
    }
    memo_put(a->memo, key, local_bsz, y[0], y[1]);
    *step = y[0];
    *sync = y[1];
    return 0;
}

/* ------------------------------------------------------------ statistical efficiency */

double elastic_progress(const elastic_app *a, int epoch)
{
    if (epoch <= 0)
        return 0.0;
    double p = INFINITY;
    for (int k = 0; k < a->nval; k++)
        if (epoch - 1 < a->val[k].n)
            p = fmin(p, a->val[k].progress[epoch - 1]);
    return p;
}

/* The validated sizes around bsz: indices into val (equal when bsz is validated). */
static int around(const elastic_app *a, double bsz, int epoch, int *lo, int *hi,
                  struct errbuf *err)
{
    *lo = *hi = -1;
    for (int k = 0; k < a->nval; k++) {
        if (a->val[k].bsz <= bsz)
            *lo = k;
        if (a->val[k].bsz >= bsz) {
            *hi = k;
            break;
        }
    }
    if (*lo < 0 || *hi < 0)
        return err_input(err, a->place_path, 0, "batch_size", "%s: batch size %g is outside the "
                         "validated sizes %d to %d", a->name, bsz, a->val[0].bsz,
                         a->val[a->nval - 1].bsz);
    if (epoch < 0 || epoch >= a->val[*lo].n || epoch >= a->val[*hi].n)
        return err_input(err, a->place_path, 0, "epoch", "%s: epoch %d is beyond the validated "
                         "epochs", a->name, epoch);
    return 0;
}

static double lerp_bsz(const elastic_app *a, int lo, int hi, double bsz, double vlo,
                       double vhi)
{
    if (lo == hi)
        return vlo;
    double b0 = a->val[lo].bsz, b1 = a->val[hi].bsz;
    return ((bsz - b0) * vhi + (b1 - bsz) * vlo) / (b1 - b0);
}

int elastic_grad_stats(const elastic_app *a, double bsz, int epoch, double *sqr, double *var,
                       struct errbuf *err)
{
    int lo, hi;
    if (around(a, bsz, epoch, &lo, &hi, err) < 0)
        return -1;
    *sqr = lerp_bsz(a, lo, hi, bsz, a->val[lo].sqr[epoch], a->val[hi].sqr[epoch]);
    *var = lerp_bsz(a, lo, hi, bsz, a->val[lo].var[epoch], a->val[hi].var[epoch]);
    return 0;
}

int elastic_iterations(const elastic_app *a, double bsz, int epoch, double *out,
                       struct errbuf *err)
{
    int lo, hi;
    if (around(a, bsz, epoch, &lo, &hi, err) < 0)
        return -1;
    *out = lerp_bsz(a, lo, hi, bsz, a->val[lo].iteration[epoch], a->val[hi].iteration[epoch]);
    return 0;
}

int elastic_best_metric(const elastic_app *a, double bsz, int epoch, double *out,
                        struct errbuf *err)
{
    if (epoch == 0)
        return 0;
    int lo, hi;
    if (around(a, bsz, epoch - 1, &lo, &hi, err) < 0)
        return -1;
    const struct vtab *first = &a->val[0];
    int rising = first->metric[0] < first->metric[first->n - 1];
    double best[2];
    const struct vtab *v[2] = { &a->val[lo], &a->val[hi] };
    for (int s = 0; s < 2; s++) {
        best[s] = v[s]->metric[0];
        for (int k = 1; k < epoch; k++)
            best[s] = rising ? fmax(best[s], v[s]->metric[k]) : fmin(best[s], v[s]->metric[k]);
    }
    *out = lerp_bsz(a, lo, hi, bsz, best[0], best[1]);
    return 1;
}

int elastic_completion_epoch(const elastic_app *a, double bsz)
{
    (void)bsz;      /* Pollux's rule ends at max_epochs - 1 with or without a target */
    return a->lim.max_epochs - 1;
}

int elastic_target_epoch(const elastic_app *a, double bsz, double target, struct errbuf *err)
{
    double prev = 0;
    int have = 0;
    for (int e = 0; e < a->lim.max_epochs; e++) {
        double m;
        int rc = elastic_best_metric(a, bsz, e, &m, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (have && (target - prev) * (target - m) <= 0)
            return e;
        prev = m;
        have = 1;
    }
    return a->lim.max_epochs - 1;
}

/* ------------------------------------------------------------ batch rules */

void elastic_batch_rules(int bsz, int replicas, int init_bsz, int max_local, int max_bsz,
                         int r1_rule, struct elastic_batch *out)
{
    int local = (int)ceil((double)bsz / replicas - 1e-8);
    int accum = (int)ceil((double)local / max_local - 1e-8) - 1;
    if (replicas == 1 && r1_rule != ELASTIC_R1_NEVER &&
        (r1_rule == ELASTIC_R1_ALWAYS || bsz > init_bsz) && accum < 1)
        accum = 1;
    int atomic = (int)ceil((double)local / (accum + 1) - 1e-8);
    if (max_bsz > 0) {
        int count = replicas * (accum + 1);
        int cap = (int)((double)max_bsz / count);
        if (cap < atomic)
            atomic = cap;
    }
    *out = (struct elastic_batch){ local, accum, atomic };
}

void elastic_batch_fixed(const elastic_app *a, int bsz, int replicas, int r1_rule,
                         struct elastic_batch *out)
{
    const struct elastic_limits *l = &a->lim;
    elastic_batch_rules(bsz, replicas, l->init_bsz, l->max_local_bsz, l->max_bsz, r1_rule, out);
}
