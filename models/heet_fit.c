/*
 * heet_fit: the least-squares fit of heet_fit.h (Heet's CSV is read by models/heet_csv.c).
 *
 * Invariants: a pair's points are fitted only among themselves; every candidate of the
 * search is scored by the full model (with its max), so the linear sub-problems are only a
 * way to propose parameters; all parameters are >= 0 and overlap is in [0, 1].
 * Complexity: the fit O(pairs x 101 x 2^m x 15 x points) with m the
 * pair's multi-worker points (6 for Heet's table: about 0.1 M small solves in all).
 */
#define _POSIX_C_SOURCE 200809L
#include "heet_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- fitting */

enum { NLIN = 4, MAX_PTS = 64 };    /* sample_s, step_s, sync_s, worker_s */

double heet_fit_time(const struct heet_fit *f, const struct heet_point *p)
{
    return tput_fit_step_s(&f->f, (double)p->batch / p->workers, p->workers, 0);
}

/* Least squares of A x = y over the columns in `use` (a bit mask), by the normal equations
 * and Gaussian elimination with partial pivoting; x is 0 outside `use`.  -1 if singular. */
static int solve_subset(const double a[][NLIN], const double *y, int m, int use,
                        double x[NLIN])
{
    int col[NLIN], k = 0;
    for (int j = 0; j < NLIN; j++)
        if (use >> j & 1)
            col[k++] = j;
    double M[NLIN][NLIN + 1];
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++) {
            double s = 0;
            for (int r = 0; r < m; r++)
                s += a[r][col[i]] * a[r][col[j]];
            M[i][j] = s;
        }
        double s = 0;
        for (int r = 0; r < m; r++)
            s += a[r][col[i]] * y[r];
        M[i][k] = s;
    }
    for (int i = 0; i < k; i++) {
        int piv = i;
        for (int r = i + 1; r < k; r++)
            if (fabs(M[r][i]) > fabs(M[piv][i]))
                piv = r;
        /* a column that is all zeros (a term no point of this pattern has) or a copy of
           another leaves the pivot at rounding level: that subset is not identifiable */
        if (!(fabs(M[piv][i]) > 1e-12 * (fabs(M[0][0]) + 1e-300)))
            return -1;
        if (piv != i)
            for (int c = 0; c <= k; c++) {
                double t = M[i][c];
                M[i][c] = M[piv][c];
                M[piv][c] = t;
            }
        for (int r = 0; r < k; r++) {
            if (r == i)
                continue;
            double q = M[r][i] / M[i][i];
            for (int c = i; c <= k; c++)
                M[r][c] -= q * M[i][c];
        }
    }
    memset(x, 0, sizeof(double) * NLIN);
    for (int i = 0; i < k; i++)
        x[col[i]] = M[i][k] / M[i][i];
    return 0;
}

/* Non-negative least squares of A x = y over 4 unknowns: every subset of free unknowns,
 * the best whose solution is >= 0 (the optimum is one of them).  -1 if none. */
static int nnls4(const double a[][NLIN], const double *y, int m, double x[NLIN])
{
    double best = INFINITY, t[NLIN];
    for (int use = 1; use < 1 << NLIN; use++) {
        if (solve_subset(a, y, m, use, t) < 0)
            continue;
        int ok = 1;
        for (int j = 0; j < NLIN; j++)
            ok &= t[j] >= 0;
        if (!ok)
            continue;
        double s = 0;
        for (int r = 0; r < m; r++) {
            double e = -y[r];
            for (int j = 0; j < NLIN; j++)
                e += a[r][j] * t[j];
            s += e * e;
        }
        if (s < best) {
            best = s;
            memcpy(x, t, sizeof t);
        }
    }
    return isfinite(best) ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fit one pair's points (pts[0..m)) into *out. */
static void fit_pair(const struct heet_point *const *pts, int m, int link,
                     struct heet_fit *out)
{
    int multi[MAX_PTS], nm = 0;
    for (int i = 0; i < m; i++)
        if (pts[i]->workers > 1)
            multi[nm++] = i;
    double best = INFINITY;
    struct heet_fit cand = *out;
    cand.f.link = link;
    for (int hs = 0; hs <= 100; hs++) {
        double h = hs / 100.0;
        for (int pat = 0; pat < 1 << nm; pat++) {
            double a[MAX_PTS][NLIN], y[MAX_PTS], x[NLIN] = { 0 };
            unsigned char exposed[MAX_PTS] = { 0 };
            for (int k = 0; k < nm; k++)
                exposed[multi[k]] = (unsigned char)(pat >> k & 1);
            for (int i = 0; i < m; i++) {
                const struct heet_point *p = pts[i];
                double b = (double)p->batch / p->workers, n = p->workers, w = 1 / p->batch_s;
                /* relative residual: each row divided by its measurement, target 1 */
                a[i][0] = (exposed[i] ? b * (1 - h) : b) * w;
                a[i][1] = w;
                a[i][2] = exposed[i] ? 2 * (n - 1) / n * w : 0;
                a[i][3] = exposed[i] ? (n - 1) * w : 0;
                y[i] = 1;
            }
            if (nnls4(a, y, m, x) < 0)
                continue;
            cand.f.sample_s = x[0];
            cand.f.step_s = x[1];
            cand.f.sync_s = x[2];
            cand.f.worker_s = x[3];
            cand.f.overlap = h;
            if (!(cand.f.step_s + cand.f.sample_s > 0))
                continue;
            double s = 0;
            for (int i = 0; i < m; i++) {
                double e = heet_fit_time(&cand, pts[i]) / pts[i]->batch_s - 1;
                s += e * e;
            }
            if (s < best) {
                best = s;
                *out = cand;
            }
        }
    }
    /* with nothing to hide, overlap says nothing: 0 keeps the file free of a meaningless
       number (the model's answers are the same) */
    if (out->f.sync_s == 0 && out->f.worker_s == 0)
        out->f.overlap = 0;
    double err[MAX_PTS];
    for (int i = 0; i < m; i++)
        err[i] = fabs(heet_fit_time(out, pts[i]) / pts[i]->batch_s - 1);
    qsort(err, (size_t)m, sizeof *err, cmp_double);
    out->median_err = m % 2 ? err[m / 2] : (err[m / 2 - 1] + err[m / 2]) / 2;
    out->max_err = err[m - 1];
}

int heet_fit_solve(const catalog *cat, const struct heet_point *p, int n, struct heet_fit *out,
                   int cap, struct errbuf *err)
{
    int nf = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = p[k].gpu == p[i].gpu && p[k].model == p[i].model;
        if (seen)
            continue;
        const struct heet_point *pts[MAX_PTS];
        int m = 0, multi = 0;
        for (int k = i; k < n; k++)
            if (p[k].gpu == p[i].gpu && p[k].model == p[i].model) {
                if (m == MAX_PTS)
                    return err_input(err, "heet fit", p[k].line, NULL, "more than %d points of "
                                     "one (model, GPU) pair", MAX_PTS);
                pts[m++] = &p[k];
                multi += p[k].workers > 1;
            }
        struct heet_fit h = { .gpu = p[i].gpu, .model = p[i].model, .points = m };
        for (int k = 0; k < m; k++) {
            int b = 0;
            while (b < h.nbatch && h.batch[b] != pts[k]->batch)
                b++;
            if (b == HEET_FIT_MAX_BATCH)
                return err_input(err, "heet fit", pts[k]->line, "batch_size", "more than %d "
                                 "batch sizes of one (model, GPU) pair", HEET_FIT_MAX_BATCH);
            if (b == h.nbatch)
                h.batch[h.nbatch++] = pts[k]->batch;
        }
        const char *gname = catalog_gpu(cat, p[i].gpu)->name;
        if (m <= HEET_FIT_NPARAM || multi > HEET_FIT_MAX_MULTI)
            return err_input(err, "heet fit", p[i].line, NULL, "%s on %s has %d points (%d on "
                             "several workers): a fit of %d parameters needs more than %d, at "
                             "most %d of them on several workers", heet_csv_models[p[i].model],
                             gname, m, multi, HEET_FIT_NPARAM, HEET_FIT_NPARAM,
                             HEET_FIT_MAX_MULTI);
        if (nf == cap)
            return err_run(err, "heet fit: more than %d (model, GPU) pairs", cap);
        const struct gpu_spec *g = catalog_gpu(cat, p[i].gpu);
        int link = g->nvlink >= 0 ? g->nvlink : g->pcie;
        out[nf] = h;
        fit_pair(pts, m, link, &out[nf]);
        nf++;
    }
    return nf;
}

/* ---------------------------------------------------------------- writing */

int heet_fit_write(FILE *f, const catalog *cat, const struct heet_fit *fits, int n,
                   const char *source)
{
    fprintf(f, "{\n  \"note\": \"Fitted step-time models of Heet's job types, hetsim's own "
               "parameters: the measured table (github.com/mozizhao/elastic, no licence stated) "
               "is not shipped. Regenerate with the command below; doc/elastic.md gives the "
               "method and the residuals. median_err and max_err are |relative errors| of the "
               "fit on its own points.\",\n");
    fprintf(f, "  \"source\": \"%s\",\n", source);
    fprintf(f, "  \"command\": \"hetsim model fit heet ../shared/traces/heet/elastic_profiles.csv "
               "-o models/data/profiles/heet_fit.json\",\n");
    fprintf(f, "  \"method\": \"models/heet_fit.h: per (model, GPU type), t(B, n) = step_s + "
               "sample_s b + max(0, sync_s 2(n-1)/n + worker_s (n-1) - overlap sample_s b), "
               "b = B / n samples per worker, on the host's link; 5 parameters on each pair's "
               "points (8 in Heet's table: batch 64 and 512 on 1-4 workers), least squares of the relative residuals, "
               "non-negative, overlap on a 0.01 grid.\",\n");
    fprintf(f, "  \"fits\": [");
    for (int i = 0; i < n; i++) {
        const struct heet_fit *h = &fits[i];
        fprintf(f, "%s\n    { \"job_types\": [", i ? "," : "");
        for (int b = 0; b < h->nbatch; b++) {
            char name[JT_NAME_MAX];
            heet_csv_jobtype(h->model, h->batch[b], name, sizeof name);
            fprintf(f, "%s\"%s\"", b ? ", " : "", name);
        }
        fprintf(f, "], \"gpu\": \"%s\", \"link\": \"%s\",\n"
                   "      \"sample_s\": %.6g, \"step_s\": %.6g, \"sync_s\": %.6g, \"worker_s\": %.6g, "
                   "\"overlap\": %.2f,\n      \"points\": %d, \"median_err\": %.4f, \"max_err\": %.4f }",
                catalog_gpu(cat, h->gpu)->name,
                catalog_link(cat, h->f.link)->name, h->f.sample_s, h->f.step_s, h->f.sync_s,
                h->f.worker_s, h->f.overlap, h->points, h->median_err, h->max_err);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
