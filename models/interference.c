/*
 * interference: measured combinations, their per-GPU pairwise matrices and the low-rank
 * completion of those matrices (see the header).
 *
 * Combinations are kept as sorted job-type tuples; intf_fit sorts them once, merges repeats
 * into their mean and builds, per GPU type, the victim x aggressor matrix of measured pairs,
 * then fits the factorisation on its known cells.  Queries bsearch the combinations.
 */
#include "interference.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/base/rng.h"
#include "../sim/base/tio.h"

const struct intf_mf intf_mf_default = { .rank = 2, .lr = 2e-4, .reg = 0.02, .epochs = 50 };

/* theta 0.655: least squares of d = a_g (m / 64)^theta over Lucid's fp32 one-GPU pairs on
 * the RTX 3090 (S-Lab-System-Group/Lucid colocate_info.csv, non-commercial: read from
 * ../shared, never shipped), each row giving each job's slowdown d = 1 / speed - 1 beside the
 * other at batch m; a_g free per group (victim model, its batch, co-runner model: 292
 * groups, 876 slowdowns), so theta is fitted on how the slowdown changes with the co-runner's
 * batch alone (intf_pressure_fit, grid step 0.001 on [0, 4]).  Error: RMSE 0.054 in-sample;
 * on held-out rows (3 folds, one of every group's 3 batches left out and predicted from the
 * other two) 0.085, against 0.130 at theta 0 (batches change nothing) and 0.088 at the
 * former guess 0.5; the folds fit 0.602, 0.633, 0.558.  IADeep's own combination tables
 * cannot fix theta: they hold one batch per model.  tests/test_mux.c
 * (interference/pressure_exp_refit) refits it from ../shared. */
const double intf_pressure_exp_default = 0.655;

double intf_ns(double d, double pressure, int k, double share)
{
    double dd = d * pressure / k;
    double w = (1 - share / 1000.0) * (k + 1) / k;
    if (w < 0)
        w = 0;
    return 1 / (1 + w * dd);
}

double intf_unshare(double ns, double pressure, int k, double share)
{
    double w = (1 - share / 1000.0) * (k + 1) / k;
    if (!(ns > 0) || !(w > 0) || !(pressure > 0) || k < 1)
        return NAN;
    return (1 / ns - 1) / (w * pressure / k);
}

struct combo {
    int    gpu, n, cnt;             /* cnt: measurements merged into it */
    int    jt[INTF_MAX_JOBS];       /* ascending */
    double sum[INTF_MAX_JOBS];      /* the measurements' sums, kept for later fits */
    double slow[INTF_MAX_JOBS];     /* their means, set by intf_fit */
};

struct gpu_tab {
    int     has;                    /* measured pairs exist */
    double *pair;                   /* ntypes x ntypes measured means, NAN where unknown */
    struct intf_mf_model mf;
};

struct intf {
    int           ntypes, ngpu, fitted;
    struct combo *c;
    int           n, cap;
    struct gpu_tab *g;
    int          *src;              /* GPU type -> the type whose tables it uses (-1: none) */
};

/* ---------------------------------------------------------------- factorisation */

int intf_mf_fit(const struct intf_rating *r, int n, int rows, int cols,
                const struct intf_mf *p, uint64_t seed, struct intf_mf_model *out)
{
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    out->rank = p->rank;
    out->br = calloc((size_t)rows, sizeof *out->br);
    out->bc = calloc((size_t)cols, sizeof *out->bc);
    out->p = calloc((size_t)rows * (size_t)p->rank + 1, sizeof *out->p);
    out->q = calloc((size_t)cols * (size_t)p->rank + 1, sizeof *out->q);
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    gsl_rng *g = rng_stream(seed, "intf_mf");
    if (out->br == NULL || out->bc == NULL || out->p == NULL || out->q == NULL ||
        order == NULL || g == NULL) {
        free(order);
        gsl_rng_free(g);
        intf_mf_free(out);
        return -1;
    }
    for (int i = 0; i < rows * p->rank; i++)
        out->p[i] = gsl_ran_gaussian(g, 0.1);
    for (int i = 0; i < cols * p->rank; i++)
        out->q[i] = gsl_ran_gaussian(g, 0.1);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += r[i].value;
        order[i] = i;
    }
    out->mu = n > 0 ? sum / n : 0;
    for (int e = 0; e < p->epochs; e++) {
        for (int i = n - 1; i > 0; i--) {       /* Fisher-Yates */
            int k = (int)gsl_rng_uniform_int(g, (unsigned long)i + 1), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
        for (int i = 0; i < n; i++) {
            const struct intf_rating *x = &r[order[i]];
            double err = x->value - intf_mf_predict(out, x->row, x->col);
            double *pu = out->p + (size_t)x->row * p->rank, *qv = out->q + (size_t)x->col * p->rank;
            out->br[x->row] += p->lr * (err - p->reg * out->br[x->row]);
            out->bc[x->col] += p->lr * (err - p->reg * out->bc[x->col]);
            for (int k = 0; k < p->rank; k++) {
                double a = pu[k], b = qv[k];
                pu[k] += p->lr * (err * b - p->reg * a);
                qv[k] += p->lr * (err * a - p->reg * b);
            }
        }
    }
    free(order);
    gsl_rng_free(g);
    return 0;
}

double intf_mf_predict(const struct intf_mf_model *m, int row, int col)
{
    double v = m->mu + m->br[row] + m->bc[col];
    for (int k = 0; k < m->rank; k++)
        v += m->p[(size_t)row * m->rank + k] * m->q[(size_t)col * m->rank + k];
    return v;
}

void intf_mf_free(struct intf_mf_model *m)
{
    free(m->br);
    free(m->bc);
    free(m->p);
    free(m->q);
    memset(m, 0, sizeof *m);
}

double intf_mf_rmse(const struct intf_mf_model *m, const struct intf_rating *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double e = intf_mf_predict(m, r[i].row, r[i].col) - r[i].value;
        s += e * e;
    }
    return n > 0 ? sqrt(s / n) : 0;
}

/* ---------------------------------------------------------------- the model */

int intf_create(intf **out, int ntypes, int ngpu)
{
    intf *m = calloc(1, sizeof *m);
    if (m == NULL)
        return -1;
    m->ntypes = ntypes;
    m->ngpu = ngpu;
    m->g = calloc((size_t)ngpu + 1, sizeof *m->g);
    m->src = calloc((size_t)ngpu + 1, sizeof *m->src);
    if (m->g == NULL || m->src == NULL) {
        intf_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
}

void intf_destroy(intf *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i < m->ngpu && m->g; i++) {
        free(m->g[i].pair);
        intf_mf_free(&m->g[i].mf);
    }
    free(m->g);
    free(m->src);
    free(m->c);
    free(m);
}

/* Sort a tuple (with its slowdowns) ascending by job type. */
static void sort_tuple(int *jt, double *slow, int n)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && jt[k - 1] > jt[k]; k--) {
            int t = jt[k];
            jt[k] = jt[k - 1];
            jt[k - 1] = t;
            double s = slow[k];
            slow[k] = slow[k - 1];
            slow[k - 1] = s;
        }
}

int intf_add(intf *m, int gpu, const int *jt, int n, const double *slow)
{
    if (m->n == m->cap) {
        int nc = m->cap ? 2 * m->cap : 256;
        struct combo *p = realloc(m->c, (size_t)nc * sizeof *p);
        if (p == NULL)
            return -1;
        m->c = p;
        m->cap = nc;
    }
    struct combo *c = &m->c[m->n++];
    memset(c, 0, sizeof *c);
    c->gpu = gpu;
    c->n = n;
    c->cnt = 1;
    for (int i = 0; i < n; i++) {
        c->jt[i] = jt[i];
        c->sum[i] = slow[i];
    }
    sort_tuple(c->jt, c->sum, n);
    m->fitted = 0;
    return 0;
}

static int cmp_combo(const void *a, const void *b)
{
    const struct combo *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (int i = 0; i < x->n; i++)
        if (x->jt[i] != y->jt[i])
            return x->jt[i] < y->jt[i] ? -1 : 1;
    return 0;
}

int intf_fit(intf *m, const struct intf_mf *p, uint64_t seed, struct errbuf *err)
{
    if (m->n > 1)                           /* (an empty table has no array at all) */
        qsort(m->c, (size_t)m->n, sizeof *m->c, cmp_combo);
    int k = 0;                              /* merge repeats: sums, then means */
    for (int i = 0; i < m->n; i++) {
        if (k > 0 && cmp_combo(&m->c[k - 1], &m->c[i]) == 0) {
            for (int j = 0; j < m->c[i].n; j++)
                m->c[k - 1].sum[j] += m->c[i].sum[j];
            m->c[k - 1].cnt += m->c[i].cnt;
        } else {
            m->c[k++] = m->c[i];
        }
    }
    m->n = k;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->c[i].n; j++)
            m->c[i].slow[j] = m->c[i].sum[j] / m->c[i].cnt;
    size_t nt = (size_t)m->ntypes;
    for (int g = 0; g < m->ngpu; g++) {
        struct gpu_tab *t = &m->g[g];
        free(t->pair);
        intf_mf_free(&t->mf);
        t->has = 0;
        t->pair = malloc(nt * nt * sizeof *t->pair + 1);
        if (t->pair == NULL)
            return err_run(err, "out of memory (interference)");
        for (size_t i = 0; i < nt * nt; i++)
            t->pair[i] = NAN;
    }
    for (int i = 0; i < m->n; i++) {
        const struct combo *c = &m->c[i];
        if (c->n != 2)
            continue;
        double *pair = m->g[c->gpu].pair;
        pair[(size_t)c->jt[0] * nt + (size_t)c->jt[1]] = c->slow[0];
        pair[(size_t)c->jt[1] * nt + (size_t)c->jt[0]] = c->slow[1];
        m->g[c->gpu].has = 1;
    }
    struct intf_rating *r = malloc(nt * nt * sizeof *r + 1);
    if (r == NULL)
        return err_run(err, "out of memory (interference)");
    int first = -1;
    for (int g = 0; g < m->ngpu; g++) {
        struct gpu_tab *t = &m->g[g];
        if (!t->has)
            continue;
        if (first < 0)
            first = g;
        int n = intf_pairs(m, g, r, (int)(nt * nt));
        if (intf_mf_fit(r, n, m->ntypes, m->ntypes, p, seed ^ (uint64_t)g, &t->mf) < 0) {
            free(r);
            return err_run(err, "out of memory (interference)");
        }
    }
    free(r);
    for (int g = 0; g < m->ngpu; g++)
        m->src[g] = m->g[g].has ? g : first;
    m->fitted = 1;
    return 0;
}

int intf_pairs(const intf *m, int gpu, struct intf_rating *out, int cap)
{
    size_t nt = (size_t)m->ntypes;
    const double *pair = m->g[gpu].pair;
    int n = 0;
    for (size_t a = 0; pair != NULL && a < nt; a++)
        for (size_t b = 0; b < nt; b++)
            if (!isnan(pair[a * nt + b]) && n < cap)
                out[n++] = (struct intf_rating){ (int)a, (int)b, pair[a * nt + b] };
    return n;
}

int intf_count(const intf *m)
{
    return m->n;
}

/* The measured combination of jt and others on gpu (sorted), or NULL; *pos: jt's place. */
static const struct combo *find(const intf *m, int gpu, int jt, const int *others, int n,
                                int *pos)
{
    if (n + 1 > INTF_MAX_JOBS || m->n == 0)
        return NULL;
    struct combo key = { .gpu = gpu, .n = n + 1 };
    double dummy[INTF_MAX_JOBS] = { 0 };
    key.jt[0] = jt;
    for (int i = 0; i < n; i++)
        key.jt[i + 1] = others[i];
    sort_tuple(key.jt, dummy, n + 1);
    const struct combo *c = bsearch(&key, m->c, (size_t)m->n, sizeof *m->c, cmp_combo);
    if (c != NULL)
        for (*pos = 0; c->jt[*pos] != jt; (*pos)++)
            ;
    return c;
}

static double pair_slow(const intf *m, int g, int a, int b)
{
    const struct gpu_tab *t = &m->g[g];
    double v = t->pair[(size_t)a * (size_t)m->ntypes + (size_t)b];
    if (isnan(v))
        v = intf_mf_predict(&t->mf, a, b);
    return v > 0 ? v : 0;
}

double intf_slowdown(const intf *m, int gpu, int jt, const int *others, int n)
{
    if (n == 0)
        return 0;
    int g = m->src[gpu];
    if (!m->fitted || g < 0)
        return 0;               /* no measurement at all: nothing to say */
    int pos;
    const struct combo *c = find(m, g, jt, others, n, &pos);
    if (c != NULL)
        return c->slow[pos] > 0 ? c->slow[pos] : 0;
    double d = 0;
    for (int i = 0; i < n; i++)
        d += pair_slow(m, g, jt, others[i]);
    return d;
}

int intf_measured(const intf *m, int gpu, int jt, const int *others, int n)
{
    int pos, g = m->src[gpu];
    return m->fitted && g >= 0 && n > 0 && find(m, g, jt, others, n, &pos) != NULL;
}

/* ---------------------------------------------------------------- readers */

enum { MAX_COLS = 64 };

/* Read the header (first non-comment line) into names; 0 or -1.  anon_first: the first
 * column may have no name (a pandas index, as Lucid's table has). */
static int header(tio *r, const char *path, char **f, int *n, long *ln, int anon_first,
                  struct errbuf *err)
{
    char *line;
    size_t len;
    int rc;
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc < 0)
        return -1;
    if (rc == 0)
        return err_input(err, path, 0, NULL, "empty file: expected a header naming the columns");
    *ln = tio_lineno(r);
    *n = tio_split(line, ',', f, MAX_COLS);
    if (*n < 0 || *n > MAX_COLS)
        return err_input(err, path, *ln, "header", "unterminated quote or more than %d columns",
                         MAX_COLS);
    for (int i = 0; i < *n; i++) {
        if (*f[i] == '\0' && !(anon_first && i == 0))
            return err_input(err, path, *ln, "header", "column %d has no name%s", i + 1,
                             i == *n - 1 && *n > 1 ? " (a trailing comma?)" : "");
        for (int k = 0; k < i; k++)
            if (strcmp(f[k], f[i]) == 0)
                return err_input(err, path, *ln, f[i], "column given twice (columns %d and %d)",
                                 k + 1, i + 1);
    }
    return 0;
}

/* The next data row, split; 1, 0 at the end, -1. */
static int row(tio *r, const char *path, int ncols, char **f, long *ln, struct errbuf *err)
{
    char *s;
    size_t len;
    int rc;
    while ((rc = tio_next(r, &s, &len, err)) > 0 && tio_skippable(s))
        ;
    if (rc <= 0)
        return rc;
    *ln = tio_lineno(r);
    int n = tio_split(s, ',', f, MAX_COLS);
    if (n < 0)
        return err_input(err, path, *ln, NULL, "unterminated quote");
    if (n != ncols)
        return err_input(err, path, *ln, NULL, "%d fields, the header has %d", n, ncols);
    return 1;
}

static int num(const char *path, long ln, const char *field, const char *s, double lo,
               double hi, double *out, struct errbuf *err)
{
    if (tio_double(s, out) < 0 || *out < lo || *out > hi)
        return err_input(err, path, ln, field, "'%s' is not a number in [%g, %g]", s, lo, hi);
    return 0;
}

static const char *const gavel_cols[] = {
    "worker_type", "job_a", "job_b", "norm_speed_a", "norm_speed_b",
    "scale_factor_a", "scale_factor_b", "iso_tput_a_steps_per_s", "iso_tput_b_steps_per_s",
    "coloc_tput_a_steps_per_s", "coloc_tput_b_steps_per_s", NULL };
enum { G_WORKER, G_JA, G_JB, G_NSA, G_NSB, G_SFA, G_SFB, G_ISOA, G_ISOB, G_COA, G_COB,
       G_NCOLS, G_REQUIRED = 5 };

static int job_of(const tput *t, const char *path, long ln, const char *field, const char *s,
                  int *out, struct errbuf *err)
{
    if ((*out = tput_find(t, s)) < 0)
        return err_input(err, path, ln, field, "'%s' is not a known job type (hetsim list "
                         "models)", s);
    return 0;
}

int intf_load_gavel(intf *m, const tput *t, const char *path, struct errbuf *err)
{
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *f[MAX_COLS];
    int n, pos[G_NCOLS], rc;
    long ln;
    if ((rc = header(r, path, f, &n, &ln, 0, err)) == 0) {
        for (int k = 0; k < G_NCOLS; k++)
            pos[k] = -1;
        for (int i = 0; i < n && rc == 0; i++) {
            int k = 0;
            while (gavel_cols[k] != NULL && strcmp(gavel_cols[k], f[i]) != 0)
                k++;
            if (gavel_cols[k] == NULL)
                rc = err_input(err, path, ln, f[i], "not a column of Gavel's co-location pairs "
                               "(worker_type, job_a, job_b, norm_speed_a, norm_speed_b, "
                               "scale_factor_a/b, iso_tput_a/b_steps_per_s, "
                               "coloc_tput_a/b_steps_per_s)");
            else
                pos[k] = i;
        }
        for (int k = 0; k < G_REQUIRED && rc == 0; k++)
            if (pos[k] < 0)
                rc = err_input(err, path, ln, gavel_cols[k], "required column is missing");
    }
    const catalog *cat = tput_catalog(t);
    while (rc == 0 && (rc = row(r, path, n, f, &ln, err)) > 0) {
        rc = 0;
        int gpu = catalog_gpu_find(cat, f[pos[G_WORKER]]), jt[2];
        double v[G_NCOLS];
        if (gpu < 0) {
            rc = err_input(err, path, ln, "worker_type", "'%s' is not a GPU type of the catalog "
                           "(hetsim list gpus)", f[pos[G_WORKER]]);
            break;
        }
        if (job_of(t, path, ln, "job_a", f[pos[G_JA]], &jt[0], err) < 0 ||
            job_of(t, path, ln, "job_b", f[pos[G_JB]], &jt[1], err) < 0) {
            rc = -1;
            break;
        }
        for (int k = G_NSA; k < G_NCOLS && rc == 0; k++) {
            v[k] = -1;
            if (pos[k] < 0)
                continue;
            int sf = k == G_SFA || k == G_SFB;
            rc = num(path, ln, gavel_cols[k], f[pos[k]], sf ? 1 : k <= G_NSB ? 1e-6 : 0,
                     sf ? 64 : k <= G_NSB ? 10 : 1e9, &v[k], err);
            if (rc == 0 && sf && v[k] != floor(v[k]))
                rc = err_input(err, path, ln, gavel_cols[k], "'%s' is not a worker count",
                               f[pos[k]]);
        }
        /* norm speed = coloc / iso where both are given (to the file's 4 decimals) */
        for (int s = 0; s < 2 && rc == 0; s++) {
            double iso = v[G_ISOA + s], co = v[G_COA + s];
            if (iso > 0 && co >= 0 && fabs(co / iso - v[G_NSA + s]) > 1e-3 + 1e-3 * v[G_NSA + s])
                rc = err_input(err, path, ln, gavel_cols[G_NSA + s], "%g is not %s / %s = %g",
                               v[G_NSA + s], gavel_cols[G_COA + s], gavel_cols[G_ISOA + s],
                               co / iso);
        }
        if (rc != 0)
            break;
        if ((pos[G_SFA] >= 0 && v[G_SFA] != 1) || (pos[G_SFB] >= 0 && v[G_SFB] != 1))
            continue;
        double slow[2] = { 1 / v[G_NSA] - 1, 1 / v[G_NSB] - 1 };
        if (intf_add(m, gpu, jt, 2, slow) < 0)
            rc = err_run(err, "out of memory (interference)");
    }
    tio_close(r);
    return rc < 0 ? -1 : 0;
}

/* A copy count written in binary ("01" = 1, "10" = 2, "11" = 3; "0", "1" too). */
static int binary_count(const char *s, int *out)
{
    while (isspace((unsigned char)*s))
        s++;
    int v = 0, digits = 0;
    for (; *s == '0' || *s == '1'; s++, digits++)
        if (digits < 8)                 /* a longer count is refused below, never summed */
            v = 2 * v + (*s - '0');
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '\0' || digits == 0 || digits > 8)
        return -1;
    *out = v;
    return 0;
}

int intf_load_iadeep(intf *m, const tput *t, const char *path, int gpu, struct errbuf *err)
{
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *f[MAX_COLS];
    int n, rc, sum_col = -1, nmod = 0;
    int num_col[MAX_COLS], flag_col[MAX_COLS], type_of[MAX_COLS];
    char field[MAX_COLS][72];           /* "<model>_num", kept past the header's buffer */
    long ln;
    if ((rc = header(r, path, f, &n, &ln, 0, err)) == 0) {
        for (int i = 0; i < n; i++)
            flag_col[i] = -1;
        /* every column: the sum, an ignored companion, a model's copies or its flag */
        for (int i = 0; i < n && rc == 0; i++) {
            size_t len = strlen(f[i]);
            if (strcmp(f[i], "sum_interference") == 0 || strcmp(f[i], "online_interference") == 0) {
                if (sum_col >= 0)
                    rc = err_input(err, path, ln, f[i], "a second slowdown-sum column (the "
                                   "first is '%s')", f[sum_col]);
                sum_col = i;
            } else if (strcmp(f[i], "product_interference") == 0) {
                continue;
            } else if (len > 4 && strcmp(f[i] + len - 4, "_num") == 0) {
                int k = 0;
                while (k < n && !(strlen(f[k]) == len - 4 && strncmp(f[k], f[i], len - 4) == 0))
                    k++;
                if (k == n) {
                    rc = err_input(err, path, ln, f[i], "no presence column '%.*s' for it",
                                   (int)(len - 4), f[i]);
                    break;
                }
                f[i][len - 4] = '\0';
                int jt = tput_find(t, f[i]);
                f[i][len - 4] = '_';
                if (jt < 0) {
                    rc = err_input(err, path, ln, f[k], "'%s' is not a known job type (hetsim "
                                   "list models)", f[k]);
                    break;
                }
                snprintf(field[nmod], sizeof field[nmod], "%.63s", f[i]);
                num_col[nmod] = i;
                flag_col[k] = nmod;
                type_of[nmod++] = jt;
            }
        }
        for (int i = 0; i < n && rc == 0; i++) {
            size_t len = strlen(f[i]);
            if (flag_col[i] < 0 && i != sum_col && strcmp(f[i], "product_interference") != 0 &&
                !(len > 4 && strcmp(f[i] + len - 4, "_num") == 0))
                rc = err_input(err, path, ln, f[i], "not a column of IADeep's table: a model "
                               "needs '%s_num' beside it", f[i]);
        }
        if (rc == 0 && sum_col < 0)
            rc = err_input(err, path, ln, "sum_interference", "required column is missing (or "
                           "online_interference)");
        if (rc == 0 && nmod == 0)
            rc = err_input(err, path, ln, "header", "no model columns (<name> and <name>_num)");
    }
    while (rc == 0 && (rc = row(r, path, n, f, &ln, err)) > 0) {
        rc = 0;
        int jt[INTF_MAX_JOBS], k = 0;
        for (int i = 0; i < nmod && rc == 0; i++) {
            int c;
            const char *s = f[num_col[i]];
            if (binary_count(s, &c) < 0) {
                rc = err_input(err, path, ln, field[i], "'%s' is not a copy count in binary "
                               "(01, 10, 11)", s);
                break;
            }
            for (int j = 0; j < c && rc == 0; j++) {
                if (k == INTF_MAX_JOBS)
                    rc = err_input(err, path, ln, field[i], "more than %d jobs on one GPU",
                                   INTF_MAX_JOBS);
                else
                    jt[k++] = type_of[i];
            }
        }
        for (int i = 0; i < n && rc == 0; i++)     /* flags: checked, not used (see header) */
            if (flag_col[i] >= 0 && strcmp(f[i], "0") != 0 && strcmp(f[i], "1") != 0)
                rc = err_input(err, path, ln, NULL, "column %d: '%s' is not a presence flag "
                               "(0 or 1)", i + 1, f[i]);
        double s;
        if (rc == 0)
            rc = num(path, ln, "sum_interference", f[sum_col], -(double)k + 1e-9, 1e3, &s, err);
        if (rc == 0 && k == 0)
            rc = err_input(err, path, ln, NULL, "no job on the GPU (every _num is 0)");
        if (rc != 0 || k < 2)
            continue;
        double slow[INTF_MAX_JOBS];
        for (int i = 0; i < k; i++)
            slow[i] = s / k;
        if (intf_add(m, gpu, jt, k, slow) < 0)
            rc = err_run(err, "out of memory (interference)");
    }
    tio_close(r);
    return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- Lucid's pairs */

static const char *const lucid_cols[] = {
    "model1", "model2", "speed1", "speed2",
    "dataset1", "dataset2", "gpu_num1", "gpu_num2", "batchsize1", "batchsize2", "amp1", "amp2",
    "gpu_util", "gmem_util", "gmem", NULL };
enum { L_M1, L_M2, L_S1, L_S2, L_D1, L_D2, L_G1, L_G2, L_B1, L_B2, L_A1, L_A2, L_UTIL,
       L_MUTIL, L_GMEM, L_NCOLS, L_REQUIRED = 4 };

enum { LUCID_MAX_MODELS = 64, LUCID_MAX_BATCHES = 16 };

struct lucid_model {                /* a model name of the file and the batches it has */
    char name[64];
    int  jt;                        /* its job type; -1: not mapped (its rows are skipped) */
    int  nb, used;
    long batch[LUCID_MAX_BATCHES];
};

struct lucid_row {
    int    model[2];                /* into the model list */
    long   batch[2];                /* -1: no batchsize column */
    double speed[2];
};

/* The model list's entry for name, added on first sight; -1 when the list is full. */
static int lucid_model_of(struct lucid_model *mod, int *nmod, const char *name, const tput *t,
                          const char *const *map, int nmap)
{
    for (int i = 0; i < *nmod; i++)
        if (strcmp(mod[i].name, name) == 0)
            return i;
    if (*nmod == LUCID_MAX_MODELS || strlen(name) >= sizeof mod[0].name)
        return -1;
    struct lucid_model *x = &mod[(*nmod)++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->jt = -1;
    if (nmap == 0) {
        x->jt = tput_find(t, name);
    } else {
        for (int k = 0; k < nmap; k++)
            if (strcmp(map[2 * k], name) == 0)
                x->jt = tput_find(t, map[2 * k + 1]);
    }
    return (int)(x - mod);
}

int intf_load_lucid(intf *m, const tput *t, const char *path, int gpu, const char *const *map,
                    int nmap, struct errbuf *err)
{
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *f[MAX_COLS];
    int n, pos[L_NCOLS], rc, nmod = 0, nrow = 0, cap = 0;
    long ln;
    struct lucid_model mod[LUCID_MAX_MODELS];
    struct lucid_row *rows = NULL;
    if ((rc = header(r, path, f, &n, &ln, 1, err)) == 0) {
        for (int k = 0; k < L_NCOLS; k++)
            pos[k] = -1;
        for (int i = 0; i < n && rc == 0; i++) {
            int k = 0;
            if (i == 0 && *f[0] == '\0')
                continue;                   /* the index */
            while (lucid_cols[k] != NULL && strcmp(lucid_cols[k], f[i]) != 0)
                k++;
            if (lucid_cols[k] == NULL)
                rc = err_input(err, path, ln, f[i], "not a column of Lucid's co-location pairs "
                               "(model1/2, speed1/2, dataset1/2, gpu_num1/2, batchsize1/2, "
                               "amp1/2, gpu_util, gmem_util, gmem)");
            else
                pos[k] = i;
        }
        for (int k = 0; k < L_REQUIRED && rc == 0; k++)
            if (pos[k] < 0)
                rc = err_input(err, path, ln, lucid_cols[k], "required column is missing");
    }
    /* pass 1: check every row and keep the usable ones (one GPU each, fp32) */
    while (rc == 0 && (rc = row(r, path, n, f, &ln, err)) > 0) {
        rc = 0;
        struct lucid_row x = { .batch = { -1, -1 } };
        int skip = 0;
        for (int s = 0; s < 2 && rc == 0; s++) {
            const char *name = f[pos[L_M1 + s]];
            if (*name == '\0') {
                rc = err_input(err, path, ln, lucid_cols[L_M1 + s], "no model name");
                break;
            }
            if ((x.model[s] = lucid_model_of(mod, &nmod, name, t, map, nmap)) < 0) {
                rc = err_input(err, path, ln, lucid_cols[L_M1 + s], "'%.40s': more than %d "
                               "models, or a name of 64 characters or more", name,
                               LUCID_MAX_MODELS);
                break;
            }
            if (nmap == 0 && mod[x.model[s]].jt < 0) {
                rc = err_input(err, path, ln, lucid_cols[L_M1 + s], "'%s' is not a known job "
                               "type (hetsim list models; or map it in \"models\")", name);
                break;
            }
            rc = num(path, ln, lucid_cols[L_S1 + s], f[pos[L_S1 + s]], 1e-6, 10, &x.speed[s],
                     err);
            if (rc == 0 && pos[L_D1 + s] >= 0 && *f[pos[L_D1 + s]] == '\0')
                rc = err_input(err, path, ln, lucid_cols[L_D1 + s], "no dataset name");
            double v = 0;
            if (rc == 0 && pos[L_G1 + s] >= 0) {
                rc = num(path, ln, lucid_cols[L_G1 + s], f[pos[L_G1 + s]], 1, 64, &v, err);
                if (rc == 0 && v != floor(v))
                    rc = err_input(err, path, ln, lucid_cols[L_G1 + s], "'%s' is not a GPU "
                                   "count", f[pos[L_G1 + s]]);
                skip |= rc == 0 && v != 1;
            }
            if (rc == 0 && pos[L_B1 + s] >= 0) {
                rc = num(path, ln, lucid_cols[L_B1 + s], f[pos[L_B1 + s]], 1, 1e6, &v, err);
                if (rc == 0 && v != floor(v))
                    rc = err_input(err, path, ln, lucid_cols[L_B1 + s], "'%s' is not a batch "
                                   "size", f[pos[L_B1 + s]]);
                if (rc == 0)
                    x.batch[s] = (long)v;   /* v is unset when the field was refused */
            }
            if (rc == 0 && pos[L_A1 + s] >= 0) {
                const char *a = f[pos[L_A1 + s]];
                if (strcmp(a, "0") != 0 && strcmp(a, "1") != 0)
                    rc = err_input(err, path, ln, lucid_cols[L_A1 + s], "'%s' is not 0 or 1 "
                                   "(mixed precision)", a);
                skip |= rc == 0 && strcmp(a, "1") == 0;
            }
        }
        static const double hi[] = { 100, 100, 1e7 };     /* %, %, MB */
        for (int k = L_UTIL; k <= L_GMEM && rc == 0; k++) {
            double v;
            if (pos[k] >= 0)
                rc = num(path, ln, lucid_cols[k], f[pos[k]], 0, hi[k - L_UTIL], &v, err);
        }
        if (rc != 0)
            break;
        if (skip || mod[x.model[0]].jt < 0 || mod[x.model[1]].jt < 0)
            continue;
        for (int s = 0; s < 2 && x.batch[s] > 0; s++) {
            struct lucid_model *o = &mod[x.model[s]];
            int k = 0;
            while (k < o->nb && o->batch[k] != x.batch[s])
                k++;
            if (k == o->nb && o->nb < LUCID_MAX_BATCHES)
                o->batch[o->nb++] = x.batch[s];
        }
        if (nrow == cap) {
            int nc = cap ? 2 * cap : 256;
            struct lucid_row *p = realloc(rows, (size_t)nc * sizeof *p);
            if (p == NULL) {
                rc = err_run(err, "out of memory (interference)");
                break;
            }
            rows = p;
            cap = nc;
        }
        rows[nrow++] = x;
    }
    tio_close(r);
    /* each model at the batch nearest (by ratio; ties: the smaller) its job type's m0, where
     * the slowdown model takes the table's value (the batch pressure is relative to m0) */
    for (int i = 0; i < nmod && rc == 0; i++) {
        struct lucid_model *o = &mod[i];
        if (o->jt < 0 || o->nb == 0)
            continue;
        double m0 = tput_type(t, o->jt)->batch > 0 ? tput_type(t, o->jt)->batch : 1;
        long best = o->batch[0];
        for (int k = 1; k < o->nb; k++) {
            double a = fabs(log((double)o->batch[k] / m0)), b = fabs(log((double)best / m0));
            if (a < b - 1e-12 || (fabs(a - b) <= 1e-12 && o->batch[k] < best))
                best = o->batch[k];
        }
        o->used = (int)best;
    }
    /* pass 2: the rows at those batches; a pair of one job type is symmetric (which copy is
     * the victim is arbitrary), so both copies get the mean of their slowdowns */
    for (int i = 0; i < nrow && rc == 0; i++) {
        const struct lucid_row *x = &rows[i];
        if ((x->batch[0] > 0 && x->batch[0] != mod[x->model[0]].used) ||
            (x->batch[1] > 0 && x->batch[1] != mod[x->model[1]].used))
            continue;
        int jt[2] = { mod[x->model[0]].jt, mod[x->model[1]].jt };
        double slow[2] = { 1 / x->speed[0] - 1, 1 / x->speed[1] - 1 };
        if (jt[0] == jt[1])
            slow[0] = slow[1] = (slow[0] + slow[1]) / 2;
        if (intf_add(m, gpu, jt, 2, slow) < 0)
            rc = err_run(err, "out of memory (interference)");
    }
    free(rows);
    return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- batch pressure */

/* Closed-form a_g for each group at theta, and the summed squared error over rows with
 * use[i] (NULL: all).  a[] has ngroups entries. */
static double press_sse(const struct intf_press_obs *o, int n, int ngroups, const int *use,
                        double theta, double *a)
{
    double *num = a, *den = calloc((size_t)ngroups + 1, sizeof *den);
    if (den == NULL)
        return HUGE_VAL;
    for (int g = 0; g < ngroups; g++)
        num[g] = 0;
    for (int i = 0; i < n; i++)
        if (use == NULL || use[i]) {
            double p = pow(o[i].r, theta);
            num[o[i].group] += o[i].d * p;
            den[o[i].group] += p * p;
        }
    for (int g = 0; g < ngroups; g++)
        a[g] = den[g] > 0 ? num[g] / den[g] : 0;
    free(den);
    double s = 0;
    for (int i = 0; i < n; i++)
        if (use == NULL || use[i]) {
            double e = o[i].d - a[o[i].group] * pow(o[i].r, theta);
            s += e * e;
        }
    return s;
}

/* theta on the grid lo, lo + step, ... hi minimizing press_sse (first of ties). */
static double press_argmin(const struct intf_press_obs *o, int n, int ngroups, const int *use,
                           double lo, double hi, double step, double *a)
{
    double best = lo, bs = HUGE_VAL;
    for (int k = 0; lo + k * step <= hi + 1e-12; k++) {
        double th = lo + k * step, s = press_sse(o, n, ngroups, use, th, a);
        if (s < bs - 1e-15) {
            bs = s;
            best = th;
        }
    }
    return best;
}

int intf_pressure_fit(const struct intf_press_obs *o, int n, double lo, double hi, double step,
                      struct intf_press_fit *out)
{
    memset(out, 0, sizeof *out);
    int ngroups = 0;
    for (int i = 0; i < n; i++)
        if (o[i].group + 1 > ngroups)
            ngroups = o[i].group + 1;
    double *a = calloc((size_t)ngroups + 1, sizeof *a);
    int *use = calloc((size_t)n + 1, sizeof *use), *rank = calloc((size_t)n + 1, sizeof *rank);
    if (a == NULL || use == NULL || rank == NULL) {
        free(a);
        free(use);
        free(rank);
        return -1;
    }
    out->theta = press_argmin(o, n, ngroups, NULL, lo, hi, step, a);
    out->rmse = sqrt(press_sse(o, n, ngroups, NULL, out->theta, a) / (n > 0 ? n : 1));
    /* held-out rows: a row's rank is its place in its group (input order); fold f holds out
     * rank f mod 3 of every group of 3 rows or more, fits theta and the groups' a on the
     * rest and predicts the held-out rows with the same a (fitted theta, 0 and 0.5) */
    int *seen = calloc((size_t)ngroups + 1, sizeof *seen), *size = calloc((size_t)ngroups + 1,
                                                                         sizeof *size);
    if (seen == NULL || size == NULL) {
        free(seen);
        free(size);
        free(a);
        free(use);
        free(rank);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        rank[i] = seen[o[i].group]++;
        size[o[i].group]++;
    }
    double sse[3] = { 0 };
    for (int f = 0; f < 3; f++) {
        for (int i = 0; i < n; i++)
            use[i] = !(size[o[i].group] >= 3 && rank[i] % 3 == f);
        double th = press_argmin(o, n, ngroups, use, lo, hi, step, a);
        out->fold_theta[f] = th;
        const double cand[3] = { th, 0, 0.5 };
        for (int c = 0; c < 3; c++) {
            press_sse(o, n, ngroups, use, cand[c], a);
            for (int i = 0; i < n; i++)
                if (!use[i]) {
                    double e = o[i].d - a[o[i].group] * pow(o[i].r, cand[c]);
                    sse[c] += e * e;
                    out->held += c == 0;
                }
        }
    }
    int h = out->held > 0 ? out->held : 1;
    out->held_rmse = sqrt(sse[0] / h);
    out->held_rmse_0 = sqrt(sse[1] / h);
    out->held_rmse_half = sqrt(sse[2] / h);
    out->n = n;
    out->groups = ngroups;
    free(seen);
    free(size);
    free(a);
    free(use);
    free(rank);
    return 0;
}

int intf_lucid_pressure_obs(const char *path, struct intf_press_obs **out, int *nout,
                            struct errbuf *err)
{
    *out = NULL;
    *nout = 0;
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *f[MAX_COLS];
    int n, pos[L_NCOLS], rc, cap = 0, ng = 0, gcap = 0;
    long ln;
    struct intf_press_obs *o = NULL;
    struct { char key[160]; } *gk = NULL;
    if ((rc = header(r, path, f, &n, &ln, 1, err)) == 0) {
        for (int k = 0; k < L_NCOLS; k++)
            pos[k] = -1;
        for (int i = 0; i < n; i++)
            for (int k = 0; lucid_cols[k] != NULL; k++)
                if (strcmp(lucid_cols[k], f[i]) == 0)
                    pos[k] = i;
        for (int k = 0; k < L_NCOLS && rc == 0; k++)
            if (pos[k] < 0 && k != L_D1 && k != L_D2 && k < L_UTIL)
                rc = err_input(err, path, ln, lucid_cols[k], "required column is missing (the "
                               "pressure fit needs models, batches, amp, GPU counts, speeds)");
    }
    while (rc == 0 && (rc = row(r, path, n, f, &ln, err)) > 0) {
        rc = 0;
        double s[2], b[2];
        for (int k = 0; k < 2 && rc == 0; k++) {
            rc = num(path, ln, lucid_cols[L_S1 + k], f[pos[L_S1 + k]], 1e-6, 10, &s[k], err);
            if (rc == 0)
                rc = num(path, ln, lucid_cols[L_B1 + k], f[pos[L_B1 + k]], 1, 1e6, &b[k], err);
        }
        if (rc != 0)
            break;
        if (strcmp(f[pos[L_A1]], "0") != 0 || strcmp(f[pos[L_A2]], "0") != 0 ||
            strcmp(f[pos[L_G1]], "1") != 0 || strcmp(f[pos[L_G2]], "1") != 0)
            continue;                           /* fp32 one-GPU pairs, as intf_load_lucid */
        for (int k = 0; k < 2 && rc == 0; k++) {
            char key[160];
            snprintf(key, sizeof key, "%.60s@%g|%.60s", f[pos[L_M1 + k]], b[k],
                     f[pos[L_M1 + 1 - k]]);
            int g = 0;
            while (g < ng && strcmp(gk[g].key, key) != 0)
                g++;
            if (g == ng) {
                if (ng == gcap) {
                    int nc = gcap ? 2 * gcap : 64;
                    void *p = realloc(gk, (size_t)nc * sizeof *gk);
                    if (p == NULL) {
                        rc = err_run(err, "out of memory");
                        break;
                    }
                    gk = p;
                    gcap = nc;
                }
                snprintf(gk[ng++].key, sizeof gk[0].key, "%s", key);
            }
            if (*nout == cap) {
                int nc = cap ? 2 * cap : 256;
                struct intf_press_obs *p = realloc(o, (size_t)nc * sizeof *p);
                if (p == NULL) {
                    rc = err_run(err, "out of memory");
                    break;
                }
                o = p;
                cap = nc;
            }
            /* the co-runner's batch over 64 (any constant: the groups' a absorb it) */
            o[(*nout)++] = (struct intf_press_obs){ g, b[1 - k] / 64, 1 / s[k] - 1 };
        }
    }
    tio_close(r);
    free(gk);
    if (rc < 0) {
        free(o);
        *nout = 0;
        return -1;
    }
    *out = o;
    return 0;
}
