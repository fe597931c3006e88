/*
 * export: streams one table through one prepared SELECT in rowid order (the order rows were
 * written, which is run order).  With a run filter the statement gains "WHERE run_id = ?"
 * ("id = ?" for runs) and is stepped once per selected run; every table is indexed on its run
 * column, so a run costs one index seek.  Memory does not grow with the table: one row at a
 * time goes from SQLite to stdio.  O(rows written).
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *const export_tables[] = { "runs",    "jobs",    "job_gpu_seconds",
                                      "samples", "metrics", "run_params",
                                      NULL };

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

static void put_row(FILE *out, sqlite3_stmt *q, char sep, int header)
{
    int nc = sqlite3_column_count(q);
    for (int i = 0; i < nc; i++) {
        if (i)
            fputc(sep, out);
        if (header) {
            const char *name = sqlite3_column_name(q, i);
            put_text(out, name, strlen(name), sep);
            continue;
        }
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
    fputc('\n', out);
}

static int known_table(const char *name, struct errbuf *err)
{
    char list[256];
    size_t n = 0;
    for (int i = 0; export_tables[i] != NULL; i++) {
        if (name != NULL && strcmp(name, export_tables[i]) == 0)
            return 0;
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                              export_tables[i]);
    }
    if (name == NULL)
        return err_input(err, NULL, 0, "--table", "missing (tables: %s)", list);
    return err_input(err, NULL, 0, "--table", "unknown table '%s' (tables: %s)", name, list);
}

int export_table(const char *db_path, const struct export_opts *o, FILE *out, int64_t *rows,
                 struct errbuf *err)
{
    if (rows != NULL)
        *rows = 0;
    if (known_table(o->table, err) < 0)
        return -1;
    sqlite3 *h;
    if (report_open(&h, db_path, err) < 0)
        return -1;
    int filtered = o->experiment != NULL || o->sweep != NULL || o->where != NULL;
    int64_t *ids = NULL, written = 0;
    size_t nids = 0;
    sqlite3_stmt *q = NULL;
    FILE *f = out;
    int rc = -1;
    if (filtered && report_select(h, o->experiment, o->sweep, o->where, &ids, &nids, err) < 0)
        goto out;
    /* the table name is one of export_tables: safe to paste */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"%s%s ORDER BY rowid", o->table,
             filtered ? " WHERE " : "",
             filtered ? (strcmp(o->table, "runs") == 0 ? "id = ?1" : "run_id = ?1") : "");
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK) {
        err_run(err, "%s: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    if (o->out_path != NULL && (f = fopen(o->out_path, "w")) == NULL) {
        err_run(err, "%s: cannot write", o->out_path);
        goto out;
    }
    char sep = o->format == EXPORT_TSV ? '\t' : ',';
    put_row(f, q, sep, 1);
    int s = SQLITE_DONE;
    for (size_t i = 0; i < (filtered ? nids : 1) && s == SQLITE_DONE; i++) {
        if (filtered)
            sqlite3_bind_int64(q, 1, ids[i]);
        while ((s = sqlite3_step(q)) == SQLITE_ROW) {
            put_row(f, q, sep, 0);
            written++;
        }
        sqlite3_reset(q);
    }
    if (s != SQLITE_DONE)
        err_run(err, "%s: reading %s: %s", db_path, o->table, sqlite3_errmsg(h));
    else if (fflush(f) != 0 || ferror(f))
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
    sqlite3_finalize(q);
    sqlite3_close(h);
    free(ids);
    if (rows != NULL)
        *rows = written;
    return rc;
}
