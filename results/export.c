/*
 * export: streams one table through one prepared SELECT in rowid order (the order rows were
 * written, which is run order).  With a run filter the statement gains "WHERE run_id = ?"
 * ("id = ?" for runs) and is stepped once per selected run; every table is indexed on its run
 * column, so a run costs one index seek.  Memory does not grow with the table: one row at a
 * time goes from SQLite to stdio.  O(rows written).  The select list is the table's columns
 * as the file has them (pragma table_info), so columns a newer schema adds are exported too.
 *
 * Wide metrics: a first pass collects the metric names of the runs written (sorted, held in
 * memory: a few dozen), a second writes one line per run, merging its metrics (read in name
 * order) into the columns.  O(R M log M) for R runs and M names.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "report.h"


const char *const export_wide_columns[] = { "experiment", "policy", "seed", "cluster",
                                            "group_hash", NULL };

/* RFC 4180 quoting; an empty string is written "" so that it differs from NULL */
static void put_text(FILE *out, const char *s, size_t len, char sep)
{
    int quote = len == 0;
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == sep || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        fwrite(s, 1, len, out);
        return;
    }
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', out);
        fputc(s[i], out);
    }
    fputc('"', out);
}

/* column i of the row q stands on */
static void put_cell(FILE *out, sqlite3_stmt *q, int i, char sep)
{
    switch (sqlite3_column_type(q, i)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        fprintf(out, "%lld", (long long)sqlite3_column_int64(q, i));
        break;
    case SQLITE_FLOAT: {
        /* the shortest text (15 to 17 significant digits) that reads back the same */
        double v = sqlite3_column_double(q, i);
        char b[32];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(b, sizeof b, "%.*g", digits, v);
            if (strtod(b, NULL) == v)
                break;
        }
        fputs(b, out);
        break;
    }
    default: {
        const char *s = (const char *)sqlite3_column_text(q, i);
        put_text(out, s ? s : "", (size_t)sqlite3_column_bytes(q, i), sep);
    }
    }
}

static void put_row(FILE *out, sqlite3_stmt *q, char sep, int header)
{
    int nc = sqlite3_column_count(q);
    for (int i = 0; i < nc; i++) {
        if (i)
            fputc(sep, out);
        if (header) {
            const char *name = sqlite3_column_name(q, i);
            put_text(out, name, strlen(name), sep);
        } else {
            put_cell(out, q, i, sep);
        }
    }
    fputc('\n', out);
}

/* "name" as an SQL identifier */
static void ident(char *out, size_t cap, const char *name)
{
    size_t n = 0;
    out[n++] = '"';
    for (; *name && n + 3 < cap; name++) {
        if (*name == '"')
            out[n++] = '"';
        out[n++] = *name;
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* The select list of `table`: its columns as the file has them, run_params' value as plain
 * text where it holds a JSON string.  Returns -1 (an error in err) on failure. */
static int select_list(sqlite3 *h, const char *table, char *out, size_t cap,
                       struct errbuf *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, "SELECT name FROM pragma_table_info(?1)", -1, &q, NULL) !=
        SQLITE_OK)
        return err_run(err, "reading the schema: %s", sqlite3_errmsg(h));
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    size_t n = 0;
    out[0] = '\0';
    while (sqlite3_step(q) == SQLITE_ROW && n < cap) {
        char id[160];
        ident(id, sizeof id, (const char *)sqlite3_column_text(q, 0));
        if (strcmp(table, "run_params") == 0 && strcmp(id, "\"value\"") == 0)
            n += (size_t)snprintf(out + n, cap - n, "%sCASE WHEN json_valid(value) AND "
                                  "json_type(value) = 'text' THEN json_extract(value, '$') "
                                  "ELSE value END AS value", n ? ", " : "");
        else
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", id);
    }
    sqlite3_finalize(q);
    if (n == 0)
        return err_run(err, "no such table: %s (a database older than that table)", table);
    if (n >= cap)
        return err_run(err, "reading the columns of %s: too many", table);
    return 0;
}

/* ---- wide metrics ---- */

struct names {
    char **v;                   /* sorted, distinct */
    size_t n, cap;
};

/* add `s` to the sorted set; -1 when out of memory */
static int names_add(struct names *ns, const char *s)
{
    size_t lo = 0, hi = ns->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ns->v[mid], s);
        if (c == 0)
            return 0;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 32;
        char **g = realloc(ns->v, cap * sizeof *g);
        if (g == NULL)
            return -1;
        ns->v = g;
        ns->cap = cap;
    }
    char *copy = strdup(s);
    if (copy == NULL)
        return -1;
    memmove(ns->v + lo + 1, ns->v + lo, (ns->n - lo) * sizeof *ns->v);
    ns->v[lo] = copy;
    ns->n++;
    return 0;
}

static void names_free(struct names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
}

/* One line per run (the selected ones, or every finished run), one column per metric. */
static int write_wide(sqlite3 *h, const char *db_path, int filtered, const int64_t *ids,
                      size_t nids, FILE *f, char sep, int64_t *written, struct errbuf *err)
{
    struct names ns = { 0 };
    sqlite3_stmt *nq = NULL, *rq = NULL, *mq = NULL;
    int rc = -1, s;
    char cols[512] = "id";
    size_t nc = 2;
    for (int i = 0; export_wide_columns[i] != NULL; i++) {
        sqlite3_stmt *t;
        int has = sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name = ?1",
                                     -1, &t, NULL) == SQLITE_OK &&
                  sqlite3_bind_text(t, 1, export_wide_columns[i], -1, SQLITE_STATIC) ==
                      SQLITE_OK &&
                  sqlite3_step(t) == SQLITE_ROW;
        sqlite3_finalize(t);
        if (has)
            nc += (size_t)snprintf(cols + nc, sizeof cols - nc, ", %s", export_wide_columns[i]);
    }
    char sql[700];
    snprintf(sql, sizeof sql, filtered ? "SELECT %s FROM runs WHERE id = ?1"
                                       : "SELECT %s FROM runs WHERE stop_reason != 'running' "
                                         "ORDER BY id", cols);
    if (sqlite3_prepare_v2(h, sql, -1, &rq, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, filtered ? "SELECT name FROM metrics WHERE run_id = ?1"
                                       : "SELECT DISTINCT name FROM metrics", -1, &nq,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name",
                           -1, &mq, NULL) != SQLITE_OK) {
        err_run(err, "%s: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    s = SQLITE_DONE;
    for (size_t i = 0; i < (filtered ? nids : 1) && s == SQLITE_DONE; i++) {
        if (filtered)
            sqlite3_bind_int64(nq, 1, ids[i]);
        while ((s = sqlite3_step(nq)) == SQLITE_ROW)
            if (names_add(&ns, (const char *)sqlite3_column_text(nq, 0)) < 0) {
                err_run(err, "out of memory");
                goto out;
            }
        sqlite3_reset(nq);
    }
    if (s != SQLITE_DONE)
        goto failed;
    /* the header: run_id, the runs columns, the metrics */
    fputs("run_id", f);
    for (int i = 1; i < sqlite3_column_count(rq); i++) {
        const char *name = sqlite3_column_name(rq, i);
        fputc(sep, f);
        put_text(f, name, strlen(name), sep);
    }
    for (size_t k = 0; k < ns.n; k++) {
        fputc(sep, f);
        put_text(f, ns.v[k], strlen(ns.v[k]), sep);
    }
    fputc('\n', f);
    s = SQLITE_DONE;
    for (size_t i = 0; i < (filtered ? nids : 1) && s == SQLITE_DONE; i++) {
        if (filtered)
            sqlite3_bind_int64(rq, 1, ids[i]);
        while ((s = sqlite3_step(rq)) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(rq); c++) {
                if (c)
                    fputc(sep, f);
                put_cell(f, rq, c, sep);
            }
            /* the run's metrics come in name order: merge them into the columns */
            sqlite3_bind_int64(mq, 1, sqlite3_column_int64(rq, 0));
            int m = sqlite3_step(mq);
            for (size_t k = 0; k < ns.n; k++) {
                int c = 1;
                while (m == SQLITE_ROW &&
                       (c = strcmp((const char *)sqlite3_column_text(mq, 0), ns.v[k])) < 0)
                    m = sqlite3_step(mq);
                fputc(sep, f);
                if (m == SQLITE_ROW && c == 0)
                    put_cell(f, mq, 1, sep);
            }
            sqlite3_reset(mq);
            fputc('\n', f);
            (*written)++;
        }
        sqlite3_reset(rq);
    }
    if (s != SQLITE_DONE)
        goto failed;
    rc = 0;
    goto out;
failed:
    err_run(err, "%s: reading metrics: %s", db_path, sqlite3_errmsg(h));
out:
    sqlite3_finalize(nq);
    sqlite3_finalize(rq);
    sqlite3_finalize(mq);
    names_free(&ns);
    return rc;
}

/* The tables: runs, then every per-run table of the schema (db_tables). */
static int known_table(const char *name, struct errbuf *err)
{
    char list[256];
    size_t n = (size_t)snprintf(list, sizeof list, "runs");
    if (name != NULL && strcmp(name, "runs") == 0)
        return 0;
    for (int i = 0; db_tables[i].name != NULL; i++) {
        if (name != NULL && strcmp(name, db_tables[i].name) == 0)
            return 0;
        n += (size_t)snprintf(list + n, sizeof list - n, ", %s", db_tables[i].name);
    }
    if (name == NULL)
        return err_input(err, NULL, 0, "--table", "missing (tables: %s)", list);
    return err_input(err, NULL, 0, "--table", "unknown table '%s' (tables: %s)", name, list);
}

/* The rows of o->table (the selected runs', or all) through one statement. */
static int write_rows(sqlite3 *h, const char *db_path, const struct export_opts *o,
                      int filtered, const int64_t *ids, size_t nids, FILE *f, char sep,
                      int64_t *written, struct errbuf *err)
{
    /* the table name is runs or one of db_tables: safe to paste */
    char sql[2304], list[2048];
    if (select_list(h, o->table, list, sizeof list, err) < 0)
        return -1;
    snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\"%s%s ORDER BY rowid", list, o->table,
             filtered ? " WHERE " : "",
             filtered ? (strcmp(o->table, "runs") == 0 ? "id = ?1" : "run_id = ?1") : "");
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "%s: %s", db_path, sqlite3_errmsg(h));
    put_row(f, q, sep, 1);
    int s = SQLITE_DONE;
    for (size_t i = 0; i < (filtered ? nids : 1) && s == SQLITE_DONE; i++) {
        if (filtered)
            sqlite3_bind_int64(q, 1, ids[i]);
        while ((s = sqlite3_step(q)) == SQLITE_ROW) {
            put_row(f, q, sep, 0);
            (*written)++;
        }
        sqlite3_reset(q);
    }
    if (s != SQLITE_DONE)
        err_run(err, "%s: reading %s: %s", db_path, o->table, sqlite3_errmsg(h));
    sqlite3_finalize(q);
    return s == SQLITE_DONE ? 0 : -1;
}

int export_table(const char *db_path, const struct export_opts *o, FILE *out, int64_t *rows,
                 struct errbuf *err)
{
    if (rows != NULL)
        *rows = 0;
    if (known_table(o->table, err) < 0)
        return -1;
    if (o->wide && strcmp(o->table, "metrics") != 0)
        return err_input(err, NULL, 0, "--wide", "only with --table metrics (one row per run, "
                         "one column per metric), not with --table %s", o->table);
    sqlite3 *h;
    if (report_open(&h, db_path, err) < 0)
        return -1;
    int filtered = o->experiment != NULL || o->sweep != NULL || o->where != NULL;
    int64_t *ids = NULL, written = 0;
    size_t nids = 0;
    FILE *f = out;
    int rc = -1;
    if (filtered && report_select(h, o->experiment, o->sweep, o->where, &ids, &nids, err) < 0)
        goto out;
    if (o->out_path != NULL && (f = fopen(o->out_path, "w")) == NULL) {
        err_run(err, "%s: cannot write", o->out_path);
        goto out;
    }
    char sep = o->format == EXPORT_TSV ? '\t' : ',';
    if ((o->wide ? write_wide(h, db_path, filtered, ids, nids, f, sep, &written, err)
                 : write_rows(h, db_path, o, filtered, ids, nids, f, sep, &written, err)) < 0)
        goto out;
    if (fflush(f) != 0 || ferror(f))
        err_run(err, "%s: write failed", o->out_path ? o->out_path : "standard output");
    else
        rc = 0;
out:
    if (f != NULL && f != out) {
        if (fclose(f) != 0 && rc == 0)
            rc = err_run(err, "%s: write failed", o->out_path);
        if (rc < 0)
            remove(o->out_path);
    }
    sqlite3_close(h);
    free(ids);
    if (rows != NULL)
        *rows = written;
    return rc;
}
