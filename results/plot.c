/*
 * plot: writes two-column data files with SELECTs and runs gnuplot once per figure
 * (posix_spawnp, arguments passed as -e variable assignments, no shell).
 */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../sim/paths.h"

extern char **environ;

struct series {
    char    policy[64];
    int64_t run;
    char    file[PATH_MAX_LEN];
};

static void safe_name(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && k + 1 < cap; s++)
        out[k++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                                  (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'
                              ? *s
                              : '_');
    out[k] = '\0';
}

static int run_gnuplot(const char *vars, const char *tmpl, struct errbuf *err)
{
    char rel[PATH_MAX_LEN], path[PATH_MAX_LEN];
    snprintf(rel, sizeof rel, "results/plots/%s", tmpl);
    if (path_resolve(path, sizeof path, NULL, rel) < 0)
        return err_run(err, "gnuplot template %s not found under %s", tmpl, path_data_root());
    char *argv[] = { "gnuplot", "-e", (char *)vars, path, NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (rc != 0)
        return err_run(err, "cannot run gnuplot (install it: scripts/install-deps.sh)");
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_run(err, "gnuplot failed on %s", path);
    return 0;
}

/* Write the CDF of `sql` (one REAL column, bound to run id) to s->file.  Returns rows. */
static int write_cdf(sqlite3 *h, const char *sql, struct series *s, struct errbuf *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "plot query: %s", sqlite3_errmsg(h));
    sqlite3_bind_int64(q, 1, s->run);
    double *v = NULL;
    size_t n = 0, cap = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            double *p = realloc(v, cap * sizeof *p);
            if (p == NULL) {
                free(v);
                sqlite3_finalize(q);
                return err_run(err, "out of memory");
            }
            v = p;
        }
        v[n++] = sqlite3_column_double(q, 0);
    }
    sqlite3_finalize(q);
    FILE *f = fopen(s->file, "w");
    if (f == NULL) {
        free(v);
        return err_run(err, "%s: cannot write", s->file);
    }
    for (size_t i = 0; i < n; i++)      /* SQL sorted the values */
        fprintf(f, "%.9g %.6f\n", v[i], (double)(i + 1) / (double)n);
    free(v);
    if (fclose(f) != 0)
        return err_run(err, "%s: write failed", s->file);
    return (int)n;
}

static int write_series(sqlite3 *h, const char *name, struct series *s, struct errbuf *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, "SELECT t_s, value FROM samples WHERE run_id = ? AND name = ? "
                              "ORDER BY t_s", -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "plot query: %s", sqlite3_errmsg(h));
    sqlite3_bind_int64(q, 1, s->run);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
    FILE *f = fopen(s->file, "w");
    if (f == NULL) {
        sqlite3_finalize(q);
        return err_run(err, "%s: cannot write", s->file);
    }
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        fprintf(f, "%.9g %.6f\n", sqlite3_column_double(q, 0), sqlite3_column_double(q, 1));
        n++;
    }
    sqlite3_finalize(q);
    if (fclose(f) != 0)
        return err_run(err, "%s: write failed", s->file);
    return n;
}

struct figure {
    const char *tag, *tmpl, *sql_or_name, *label, *title;
    int         cdf, logx;
};

static const struct figure figures[] = {
    { "jct_cdf", "cdf.gp", "SELECT jct_s FROM jobs WHERE run_id = ? AND jct_s IS NOT NULL "
                           "ORDER BY jct_s", "job completion time (s)", "JCT CDF", 1, 1 },
    { "ftf_cdf", "cdf.gp", "SELECT ftf_rho FROM jobs WHERE run_id = ? AND ftf_rho IS NOT NULL "
                           "ORDER BY ftf_rho", "finish-time fairness rho (<= 1 is fair)",
      "finish-time fairness CDF", 1, 1 },
    { "util", "series.gp", "util_total", "GPUs granted (fraction)", "GPU utilization", 0, 0 },
    { "queue", "series.gp", "queue_len", "jobs waiting", "queue length", 0, 0 },
};

static int plot_experiment(sqlite3 *h, const char *exp, const char *out_dir, const char *fmt,
                           int *nfig, struct errbuf *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, "SELECT policy, max(id) FROM runs WHERE experiment = ? AND "
                              "stop_reason != 'running' GROUP BY policy ORDER BY min(id)",
                           -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "plot query: %s", sqlite3_errmsg(h));
    sqlite3_bind_text(q, 1, exp, -1, SQLITE_STATIC);
    struct series ser[32];
    int ns = 0;
    while (ns < 32 && sqlite3_step(q) == SQLITE_ROW) {
        snprintf(ser[ns].policy, sizeof ser[ns].policy, "%s", sqlite3_column_text(q, 0));
        ser[ns].run = sqlite3_column_int64(q, 1);
        ns++;
    }
    sqlite3_finalize(q);
    char sexp[128];
    safe_name(sexp, sizeof sexp, exp);
    for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++) {
        const struct figure *fig = &figures[f];
        char files[8192] = "", titles[4096] = "";
        int any = 0;
        for (int i = 0; i < ns; i++) {
            char spol[64];
            safe_name(spol, sizeof spol, ser[i].policy);
            snprintf(ser[i].file, sizeof ser[i].file, "%s/data/%s_%s_%s.dat", out_dir, sexp,
                     spol, fig->tag);
            int rows = fig->cdf ? write_cdf(h, fig->sql_or_name, &ser[i], err)
                                : write_series(h, fig->sql_or_name, &ser[i], err);
            if (rows < 0)
                return -1;
            if (rows == 0)
                continue;
            any = 1;
            size_t fl = strlen(files), tl = strlen(titles);
            snprintf(files + fl, sizeof files - fl, "%s%s", fl ? " " : "", ser[i].file);
            snprintf(titles + tl, sizeof titles - tl, "%s%s", tl ? " " : "", spol);
        }
        if (!any)
            continue;
        char out[PATH_MAX_LEN], vars[16384];
        snprintf(out, sizeof out, "%s/%s_%s.%s", out_dir, sexp, fig->tag, fmt);
        snprintf(vars, sizeof vars,
                 "files='%s'; titles='%s'; outfile='%s'; term='%s'; plottitle='%s: %s'; "
                 "xlabel='%s'; ylabel='%s'; logx=%d",
                 files, titles, out, strcmp(fmt, "svg") == 0 ? "svg" : "pngcairo", sexp,
                 fig->title, fig->label, fig->label, fig->logx);
        if (run_gnuplot(vars, fig->tmpl, err) < 0)
            return -1;
        (*nfig)++;
    }
    return 0;
}

int plot_all(const char *db_path, const char *out_dir, const char *format, int *nfig,
             struct errbuf *err)
{
    *nfig = 0;
    if (strcmp(format, "png") != 0 && strcmp(format, "svg") != 0)
        return err_input(err, NULL, 0, "--format", "'%s' must be png or svg", format);
    char probe[PATH_MAX_LEN];
    snprintf(probe, sizeof probe, "%s/data/x", out_dir);
    if (path_make_parent(probe) < 0)
        return err_run(err, "%s: cannot create the output directory", out_dir);
    sqlite3 *h;
    if (sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        err_input(err, db_path, 0, NULL, "cannot open database: %s", sqlite3_errmsg(h));
        sqlite3_close(h);
        return -1;
    }
    sqlite3_busy_timeout(h, 10000);
    sqlite3_stmt *q;
    int rc = 0;
    if (sqlite3_prepare_v2(h, "SELECT DISTINCT experiment FROM runs ORDER BY experiment", -1,
                           &q, NULL) != SQLITE_OK) {
        rc = err_input(err, db_path, 0, NULL, "not a hetsim database: %s", sqlite3_errmsg(h));
    } else {
        while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
            char exp[128];
            snprintf(exp, sizeof exp, "%s", sqlite3_column_text(q, 0));
            rc = plot_experiment(h, exp, out_dir, format, nfig, err);
        }
        sqlite3_finalize(q);
    }
    sqlite3_close(h);
    return rc;
}
