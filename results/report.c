/*
 * report: reads runs and metrics with plain SELECTs and prints them.  Baselines are matched on
 * (experiment, seed): the latest baseline run for that pair.  O(runs x metrics).
 */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char *const cols[] = { "jobs_done", "jct_mean", "jct_p99", "makespan",
                                    "ftf_mean", "ftf_max", "throughput_norm", "util_total" };
enum { NCOLS = sizeof cols / sizeof cols[0] };
/* columns that get a ratio to the baseline */
static const int ratio_col[NCOLS] = { 0, 1, 1, 1, 1, 1, 1, 0 };

struct row {
    int64_t id, seed;
    char    experiment[128], policy[64];
    double  v[NCOLS];
};

static void fmt_val(char *buf, size_t cap, int col, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (col == 0)
        snprintf(buf, cap, "%.0f", v);
    else if (strncmp(cols[col], "ftf", 3) == 0 || strncmp(cols[col], "util", 4) == 0 ||
             strncmp(cols[col], "throughput", 10) == 0)
        snprintf(buf, cap, "%.3f", v);
    else
        snprintf(buf, cap, "%.1f", v);
}

static int load_rows(sqlite3 *h, const struct report_opts *o, struct row **out, size_t *n,
                     struct errbuf *err)
{
    sqlite3_stmt *q, *m;
    const char *sql = "SELECT id, experiment, policy, seed FROM runs WHERE stop_reason != "
                      "'running' AND (?1 IS NULL OR experiment = ?1) ORDER BY id";
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "reading runs: %s", sqlite3_errmsg(h));
    if (sqlite3_prepare_v2(h, "SELECT value FROM metrics WHERE run_id = ? AND name = ?", -1,
                           &m, NULL) != SQLITE_OK) {
        sqlite3_finalize(q);
        return err_run(err, "reading metrics: %s", sqlite3_errmsg(h));
    }
    if (o->experiment)
        sqlite3_bind_text(q, 1, o->experiment, -1, SQLITE_STATIC);
    size_t cap = 0;
    *n = 0;
    *out = NULL;
    int rc = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        int keep = o->n_run_ids == 0;
        for (int i = 0; i < o->n_run_ids && !keep; i++)
            keep = o->run_ids[i] == id;
        /* baseline runs are always loaded, even when not printed */
        const char *pol = (const char *)sqlite3_column_text(q, 2);
        if (!keep && !(o->baseline && strcmp(pol, o->baseline) == 0))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            struct row *r = realloc(*out, cap * sizeof *r);
            if (r == NULL) {
                rc = err_run(err, "out of memory");
                break;
            }
            *out = r;
        }
        struct row *r = &(*out)[(*n)++];
        r->id = keep ? id : -id;        /* negative: load for baselines only */
        snprintf(r->experiment, sizeof r->experiment, "%s", sqlite3_column_text(q, 1));
        snprintf(r->policy, sizeof r->policy, "%s", pol);
        r->seed = sqlite3_column_int64(q, 3);
        for (int c = 0; c < NCOLS; c++) {
            sqlite3_bind_int64(m, 1, id);
            sqlite3_bind_text(m, 2, cols[c], -1, SQLITE_STATIC);
            r->v[c] = sqlite3_step(m) == SQLITE_ROW ? sqlite3_column_double(m, 0) : NAN;
            sqlite3_reset(m);
        }
    }
    sqlite3_finalize(q);
    sqlite3_finalize(m);
    return rc;
}

static const struct row *find_base(const struct row *rows, size_t n, const struct row *r,
                                   const char *policy)
{
    const struct row *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].policy, policy) == 0 && rows[i].seed == r->seed &&
            strcmp(rows[i].experiment, r->experiment) == 0)
            best = &rows[i];        /* rows are in id order: the last is the latest */
    return best;
}

int report_print(const char *db_path, const struct report_opts *o, FILE *out,
                 struct errbuf *err)
{
    sqlite3 *h;
    if (sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        err_input(err, db_path, 0, NULL, "cannot open database: %s", sqlite3_errmsg(h));
        sqlite3_close(h);
        return -1;
    }
    sqlite3_busy_timeout(h, 10000);
    struct row *rows = NULL;
    size_t n = 0;
    if (load_rows(h, o, &rows, &n, err) < 0) {
        sqlite3_close(h);
        return -1;
    }
    sqlite3_close(h);

    /* header */
    const char *head[3 + NCOLS * 2];
    int nh = 0;
    char ratio_names[NCOLS][48];
    head[nh++] = "run";
    head[nh++] = "experiment";
    head[nh++] = "policy";
    for (int c = 0; c < NCOLS; c++)
        head[nh++] = cols[c];
    if (o->baseline)
        for (int c = 0; c < NCOLS; c++)
            if (ratio_col[c]) {
                snprintf(ratio_names[c], sizeof ratio_names[c], "%s/%s", cols[c], o->baseline);
                head[nh++] = ratio_names[c];
            }
    /* cells */
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        shown += rows[i].id > 0;
    char (*cell)[48] = calloc((shown + 1) * (size_t)nh, sizeof *cell);
    if (cell == NULL) {
        free(rows);
        return err_run(err, "out of memory");
    }
    for (int k = 0; k < nh; k++)
        snprintf(cell[k], 48, "%s", head[k]);
    size_t r = 1;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].id <= 0)
            continue;
        char (*c)[48] = cell + r * (size_t)nh;
        int k = 0;
        snprintf(c[k++], 48, "%lld", (long long)rows[i].id);
        snprintf(c[k++], 48, "%.47s", rows[i].experiment);
        snprintf(c[k++], 48, "%.47s", rows[i].policy);
        for (int q = 0; q < NCOLS; q++)
            fmt_val(c[k++], 48, q, rows[i].v[q]);
        if (o->baseline) {
            const struct row *b = find_base(rows, n, &rows[i], o->baseline);
            for (int q = 0; q < NCOLS; q++)
                if (ratio_col[q]) {
                    double v = b ? rows[i].v[q] / b->v[q] : NAN;
                    if (isnan(v) || isinf(v))
                        snprintf(c[k++], 48, "-");
                    else
                        snprintf(c[k++], 48, "%.3f", v);
                }
        }
        r++;
    }
    size_t nr = r;
    int width[3 + NCOLS * 2] = { 0 };
    for (size_t i = 0; i < nr; i++)
        for (int k = 0; k < nh; k++) {
            int w = (int)strlen(cell[i * (size_t)nh + (size_t)k]);
            if (w > width[k])
                width[k] = w;
        }
    for (size_t i = 0; i < nr; i++) {
        for (int k = 0; k < nh; k++) {
            const char *s = cell[i * (size_t)nh + (size_t)k];
            if (o->format == REPORT_CSV)
                fprintf(out, "%s%s", k ? "," : "", s);
            else if (o->format == REPORT_MARKDOWN)
                fprintf(out, "| %s ", s);
            else
                fprintf(out, k < 3 ? "%-*s  " : "%*s  ", width[k], s);
        }
        fprintf(out, o->format == REPORT_MARKDOWN ? "|\n" : "\n");
        if (i == 0 && o->format == REPORT_MARKDOWN) {
            for (int k = 0; k < nh; k++)
                fprintf(out, k < 3 ? "|---" : "|---:");
            fprintf(out, "|\n");
        }
    }
    if (o->baseline && o->format == REPORT_TABLE)
        fprintf(out, "ratios: this run / the latest %s run of the same experiment and seed "
                "(below 1 is better, except throughput_norm)\n", o->baseline);
    if (nr == 1 && o->format == REPORT_TABLE)
        fprintf(out, "(no runs in %s)\n", db_path);
    free(cell);
    free(rows);
    return 0;
}
