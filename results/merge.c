/*
 * merge: ATTACH the input, map its run ids to new ones in a temp table, then one
 * INSERT ... SELECT per table of db_tables.  A run of the input whose configuration the output
 * holds already is not copied, but its sweeps' run_params rows are given to the output's run.  Column lists come from the output's schema
 * (PRAGMA table_info), so a column or a per-run table added to the schema is merged without
 * touching this file.
 * O(rows of the input).
 */
#define _XOPEN_SOURCE 700
#include "merge.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

static int copy_runs(db *d, long *copied, long *skipped, struct errbuf *err)
{
    sqlite3 *h = db_handle(d);
    char cols[2048], sql[4608];
    if (db_columns(h, "main", "runs", "id", "", cols, sizeof cols) < 0)
        return err_run(err, "%s: cannot read the runs table's columns", db_path(d));
    snprintf(sql, sizeof sql, "INSERT INTO main.runs(%s) SELECT %s FROM src.runs WHERE id = ?",
             cols, cols);
    sqlite3_stmt *list = NULL, *have = NULL, *ins = NULL, *map = NULL, *adopt = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(h, "SELECT id, config_hash, config_json FROM src.runs ORDER BY id",
                           -1, &list, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "SELECT 1 FROM main.runs WHERE config_hash = ? AND "
                              "config_json = ?", -1, &have, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, sql, -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h, "INSERT INTO temp.merge_map VALUES (?, ?)", -1, &map, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(h, "INSERT OR IGNORE INTO main.run_params SELECT m.id, s.sweep, "
                              "s.key, s.value, s.num FROM src.run_params s JOIN src.runs r ON "
                              "r.id = s.run_id JOIN main.runs m ON m.config_hash = "
                              "r.config_hash AND m.config_json = r.config_json WHERE "
                              "s.run_id = ?1", -1, &adopt, NULL) != SQLITE_OK) {
        err_run(err, "merging into %s: %s", db_path(d), sqlite3_errmsg(h));
        goto out;
    }
    int st;
    while ((st = sqlite3_step(list)) == SQLITE_ROW) {
        int64_t old = sqlite3_column_int64(list, 0);
        sqlite3_bind_value(have, 1, sqlite3_column_value(list, 1));
        sqlite3_bind_value(have, 2, sqlite3_column_value(list, 2));
        int dup = sqlite3_step(have) == SQLITE_ROW;
        sqlite3_reset(have);
        if (dup) {
            /* the run is there already: it joins the input's sweeps all the same */
            sqlite3_bind_int64(adopt, 1, old);
            if (sqlite3_step(adopt) != SQLITE_DONE) {
                err_run(err, "merging into %s: %s", db_path(d), sqlite3_errmsg(h));
                goto out;
            }
            sqlite3_reset(adopt);
            (*skipped)++;
            continue;
        }
        sqlite3_bind_int64(ins, 1, old);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            err_run(err, "merging into %s: %s", db_path(d), sqlite3_errmsg(h));
            goto out;
        }
        sqlite3_reset(ins);
        sqlite3_bind_int64(map, 1, old);
        sqlite3_bind_int64(map, 2, sqlite3_last_insert_rowid(h));
        if (sqlite3_step(map) != SQLITE_DONE) {
            err_run(err, "merging into %s: %s", db_path(d), sqlite3_errmsg(h));
            goto out;
        }
        sqlite3_reset(map);
        (*copied)++;
    }
    if (st != SQLITE_DONE) {
        err_run(err, "reading the input's runs: %s", sqlite3_errmsg(h));
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(list);
    sqlite3_finalize(have);
    sqlite3_finalize(ins);
    sqlite3_finalize(map);
    sqlite3_finalize(adopt);
    return rc;
}

static int copy_children(db *d, struct errbuf *err)
{
    sqlite3 *h = db_handle(d);
    for (int t = 0; db_tables[t].name != NULL; t++) {
        const char *name = db_tables[t].name;
        char cols[2048], scols[2560], sql[5120];
        if (db_columns(h, "main", name, "run_id", "", cols, sizeof cols) < 0 ||
            db_columns(h, "main", name, "run_id", "s.", scols, sizeof scols) < 0)
            return err_run(err, "%s: cannot read the %s table's columns", db_path(d), name);
        snprintf(sql, sizeof sql, "INSERT INTO main.%s(run_id, %s) SELECT m.new, %s FROM "
                 "src.%s s JOIN temp.merge_map m ON s.run_id = m.old", name, cols, scols,
                 name);
        if (db_exec(d, sql, err) < 0)
            return -1;
    }
    return 0;
}

int merge_db(const char *out_path, const char *in_path, long *copied, long *skipped,
             struct errbuf *err)
{
    *copied = *skipped = 0;
    if (access(in_path, R_OK) != 0)
        return err_input(err, in_path, 0, NULL, "no such database file");
    char a[PATH_MAX], b[PATH_MAX];
    if (realpath(in_path, a) != NULL && realpath(out_path, b) != NULL && strcmp(a, b) == 0)
        return err_input(err, in_path, 0, NULL, "is the output database itself");
    /* opening the input through db_open brings an older schema up to date */
    db *d = NULL;
    if (db_open(&d, in_path, err) < 0)
        return -1;
    db_close(d);
    if (db_open(&d, out_path, err) < 0)
        return -1;
    sqlite3 *h = db_handle(d);
    sqlite3_stmt *att;
    int rc = -1;
    if (sqlite3_prepare_v2(h, "ATTACH DATABASE ? AS src", -1, &att, NULL) != SQLITE_OK) {
        err_run(err, "%s: %s", out_path, sqlite3_errmsg(h));
        goto out;
    }
    sqlite3_bind_text(att, 1, in_path, -1, SQLITE_STATIC);
    int st = sqlite3_step(att);
    sqlite3_finalize(att);
    if (st != SQLITE_DONE) {
        err_run(err, "%s: cannot attach: %s", in_path, sqlite3_errmsg(h));
        goto out;
    }
    if (db_exec(d, "CREATE TEMP TABLE IF NOT EXISTS merge_map(old INTEGER PRIMARY KEY, "
                   "new INTEGER NOT NULL); DELETE FROM temp.merge_map", err) < 0 ||
        db_exec(d, "BEGIN IMMEDIATE", err) < 0)
        goto detach;
    if (copy_runs(d, copied, skipped, err) < 0 || copy_children(d, err) < 0 ||
        db_exec(d, "COMMIT", err) < 0) {
        sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
        *copied = 0;
        goto detach;
    }
    rc = 0;
detach:
    sqlite3_exec(h, "DETACH DATABASE src", NULL, NULL, NULL);
out:
    db_close(d);
    return rc;
}
