/*
 * test_db: the metrics database writer — schema created from results/schema.sql, a run is
 * all-or-nothing (abort and an unclosed handle leave nothing), NULLs for missing values,
 * a file with another schema version is refused, older versions are upgraded, request rows
 * with their derived latency parts, flat stretches of a series are stored as their two
 * ends unless the run keeps repeats, and tens of thousands of rows, spooled and inserted in
 * batches at the commit, come back value for value (type and bits) in the order written.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/db.h"
#include "helpers.h"

static char path[512];

static void fresh(const char *name)
{
    snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
    remove(path);
}

static void write_run(db *d, int commit)
{
    struct errbuf err;
    err_clear(&err);
    struct db_run r = { .experiment = "exp", .domain = "training", .policy = "fifo",
                        .cluster = "c", .config_json = "{\"name\":\"exp\"}", .version = "test",
                        .seed = 3 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    struct th_job j = { .job_id = 5, .user = 1, .workers = 2, .job_type = "toy", .work = 10,
                        .arrival_s = 1, .first_start_s = 2, .finish_s = 12, .n_avg = 1.5,
                        .t_iso_s = 8, .ftf_rho = 11.0 / 8, .attained = 20 };
    cr_assert_eq(th_db_job(d, &j, &err), 0);
    struct th_job never = { .job_id = 6, .job_type = "toy", .work = 1, .arrival_s = 3,
                            .first_start_s = -1, .finish_s = -1, .t_iso_s = -1, .ftf_rho = -1 };
    cr_assert_eq(th_db_job(d, &never, &err), 0);
    cr_assert_eq(th_db_job_gpu(d, 5, "V100-16GB", 20, &err), 0);
    cr_assert_eq(db_sample(d, 60, "util_total", 0.5, &err), 0);
    cr_assert_eq(db_metric(d, "jct_mean", 11, &err), 0);
    /* a request row, as a serving world writes one (its latency parts its own) */
    static const char *const req_cols[] = { "request_id", "class", "arrival_s", "first_s",
                                            "finish_s", "ttft_s", "out_tokens", "sla_met" };
    struct row_value rq[] = { row_int(9), row_text("llama-13b"), row_real(1), row_real(2),
                              row_real(4.5), row_real(1), row_int(11), row_int(1) };
    cr_assert_eq(db_row(d, "requests", req_cols, rq, 8, &err), 0, "%s", err.msg);
    struct row_value open_rq[] = { row_int(10), row_text("graph-a"), row_real(3), row_null(),
                                   row_null(), row_null(), row_null(), row_null() };
    cr_assert_eq(db_row(d, "requests", req_cols, open_rq, 8, &err), 0, "%s", err.msg);
    /* a column the table does not have, or a table that is not per-run, is an error */
    static const char *const bad_cols[] = { "request_id", "no_such_column" };
    cr_assert_lt(db_row(d, "requests", bad_cols, rq, 2, &err), 0);
    cr_assert(strstr(err.msg, "no_such_column") != NULL, "%s", err.msg);
    err_clear(&err);
    cr_assert_lt(db_row(d, "runs", req_cols, rq, 1, &err), 0);
    cr_assert(strstr(err.msg, "no per-run table 'runs'") != NULL, "%s", err.msg);
    err_clear(&err);
    /* more values than the commit's row reader has columns (32) is an error at the row */
    static const char *const many_cols[33] = { "request_id" };
    struct row_value many[33] = { row_int(1) };
    cr_assert_lt(db_row(d, "requests", many_cols, many, 33, &err), 0);
    cr_assert(strstr(err.msg, "33 values (at most 32)") != NULL, "%s", err.msg);
    err_clear(&err);
    if (commit) {
        struct db_run_end e = { 12, 0.01, "drained", 40, 3, 2 };
        int64_t id = 0;
        cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
        cr_assert_gt(id, 0);
    } else {
        db_run_abort(d);
    }
}

Test(db, committed_runs_are_complete)
{
    fresh("commit.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    write_run(d, 1);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT jct_s FROM jobs WHERE job_id = 5"), 11, 1e-12);
    cr_assert_float_eq(th_db_value(path, "SELECT queue_delay_s FROM jobs WHERE job_id = 5"), 1, 1e-12);
    cr_assert(isnan(th_db_value(path, "SELECT finish_s FROM jobs WHERE job_id = 6")), "NULL");
    cr_assert(isnan(th_db_value(path, "SELECT ftf_rho FROM jobs WHERE job_id = 6")), "NULL");
    cr_assert_float_eq(th_db_value(path, "SELECT events FROM runs"), 40, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT value FROM metrics WHERE name = 'jct_mean'"), 11, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM samples"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT ttft_s FROM requests WHERE request_id = 9"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT sla_met FROM requests WHERE request_id = 9"), 1, 0);
    cr_assert(isnan(th_db_value(path, "SELECT finish_s FROM requests WHERE request_id = 10")));
    cr_assert(isnan(th_db_value(path, "SELECT e2e_s FROM requests WHERE request_id = 9")),
              "a column not written is NULL");
    /* the cluster as named, and its own name (the same when the writer gives one) */
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs WHERE cluster = 'c' AND "
                                         "cluster_name = 'c'"), 1, 0);
}

Test(db, aborted_and_unfinished_runs_leave_nothing)
{
    fresh("abort.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0);
    write_run(d, 0);
    write_run(d, 1);
    /* a run still open when the handle closes (a crash path) is rolled back */
    struct db_run r = { .experiment = "exp", .domain = "training", .policy = "srtf",
                        .cluster = "c", .config_json = "{}", .version = "test",
                        .seed = 3 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM jobs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM metrics"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM requests"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs WHERE policy = 'srtf'"), 0, 0);
}

Test(db, a_table_added_at_this_version_is_created_in_older_files)
{
    /* a version-3 file written before the timeline table existed */
    fresh("no_timeline.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    write_run(d, 1);
    db_close(d);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "DROP TABLE timeline", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM sqlite_master WHERE name = "
                                         "'timeline'"), 0, 0);
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    write_run(d, 1);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM sqlite_master WHERE name = "
                                         "'timeline'"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
}

Test(db, another_schema_version_is_refused)
{
    fresh("v9.db");
    sqlite3 *h;
    sqlite3_open(path, &h);
    sqlite3_exec(h, "PRAGMA user_version = 9", NULL, NULL, NULL);
    sqlite3_close(h);
    struct errbuf err;
    err_clear(&err);
    db *d = NULL;
    cr_assert_lt(db_open(&d, path, &err), 0);
    cr_assert(strstr(err.msg, "schema version 9") != NULL, "%s", err.msg);
}

Test(db, config_hash_is_stable)
{
    char a[17], b[17], c[17];
    db_hash_hex("{\"a\":1}", a);
    db_hash_hex("{\"a\":1}", b);
    db_hash_hex("{\"a\":2}", c);
    cr_assert_str_eq(a, b);
    cr_assert_str_neq(a, c);
    /* FNV-1a 64 of the empty string is its offset basis */
    db_hash_hex("", a);
    cr_assert_str_eq(a, "cbf29ce484222325");
}

static void run_with(db *d, const char *config, int64_t seed, const struct db_param *params,
                     int nparams)
{
    struct errbuf err;
    err_clear(&err);
    struct db_run r = { .experiment = "exp", .domain = "training", .policy = "fifo",
                        .cluster = "c", .config_json = config, .version = "test", .seed = seed,
                        .sweep = nparams ? "sw" : NULL, .params = params, .nparams = nparams };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    struct db_run_end e = { 1, 0, "drained", 1, 1, 0 };
    int64_t id;
    cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
}

/* group_hash ties runs that differ only in their seed; run_params keeps a sweep's axes */
Test(db, group_hash_and_params)
{
    fresh("group.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    const struct db_param p[] = { { "seed", "1" }, { "policy", "\"fifo\"" },
                                  { "workload.rate", "2.5" } };
    run_with(d, "{\"name\":\"exp\",\"rate\":2.5,\"seed\":1}", 1, p, 3);
    run_with(d, "{\"name\":\"exp\",\"rate\":2.5,\"seed\":2}", 2, NULL, 0);
    run_with(d, "{\"name\":\"exp\",\"rate\":3,\"seed\":1}", 1, NULL, 0);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "SELECT count(DISTINCT group_hash) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(DISTINCT config_hash) FROM runs"), 3, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs a JOIN runs b ON "
                                         "a.group_hash = b.group_hash AND a.id < b.id"), 1, 0);
    /* the hash SQL computes is the C one */
    char hex[17];
    db_hash_hex("{\"name\":\"exp\",\"rate\":3}", hex);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE group_hash = '%s'", hex);
    cr_assert_float_eq(th_db_value(path, sql), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM run_params WHERE sweep = 'sw'"),
                       3, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT num FROM run_params WHERE key = "
                                         "'workload.rate'"), 2.5, 0);
    cr_assert(isnan(th_db_value(path, "SELECT num FROM run_params WHERE key = 'policy'")));
}

/* a version 1 file (no group_hash, no run_params) is upgraded in place, its runs kept */
Test(db, version_1_files_are_upgraded)
{
    fresh("v1.db");
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/schema_v1.sql", getenv("HETSIM_DATA"));
    FILE *f = fopen(fixture, "r");
    cr_assert_not_null(f, "%s", fixture);
    static char v1[16384];
    size_t n = fread(v1, 1, sizeof v1 - 1, f);
    fclose(f);
    v1[n] = '\0';
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, v1, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 1; INSERT INTO runs VALUES (1, 'exp', "
                                 "'training', 'fifo', 4, 'c', '{\"name\":\"exp\",\"seed\":4}', "
                                 "'h', 'v', 1, 'drained', 1, 1, 0, 0, 'now')", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    run_with(d, "{\"name\":\"exp\",\"seed\":5}", 5, NULL, 0);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(DISTINCT group_hash) FROM runs "
                                         "WHERE group_hash != ''"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM run_params"), 0, 0);
}

Test(db, version_2_files_are_upgraded)
{
    /* a version 2 file stored the cluster's own name in runs.cluster; after the upgrade that
     * name is in cluster_name and cluster is the experiment's "cluster" string (an inline
     * cluster keeps its own name in both) */
    fresh("v2.db");
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/schema_v2.sql", getenv("HETSIM_DATA"));
    FILE *f = fopen(fixture, "r");
    cr_assert_not_null(f, "%s", fixture);
    static char v2[16384];
    size_t n = fread(v2, 1, sizeof v2 - 1, f);
    fclose(f);
    v2[n] = '\0';
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, v2, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 2; INSERT INTO runs VALUES (1, 'exp', "
                                 "'training', 'fifo', 4, 'mixed-small', "
                                 "'{\"name\":\"exp\",\"cluster\":\"mixed_small\"}', 'h', 'v', 1, "
                                 "'drained', 1, 1, 0, 0, 'now', 'g'); INSERT INTO runs VALUES (2, "
                                 "'exp', 'training', 'fifo', 4, 'tiny', '{\"name\":\"exp\","
                                 "\"cluster\":{\"name\":\"tiny\"}}', 'h2', 'v', 1, 'drained', 1, 1, "
                                 "0, 0, 'now', 'g2')", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    write_run(d, 1);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs WHERE id = 1 AND cluster = "
                                         "'mixed_small' AND cluster_name = 'mixed-small'"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs WHERE id = 2 AND cluster = "
                                         "'tiny' AND cluster_name = 'tiny'"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM requests"), 2, 0);
}

/* Two series written interleaved, as a run writes them; returns the stored rows as text. */
static char *series_rows(int keep_repeats)
{
    fresh(keep_repeats ? "repeats.db" : "elided.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    struct db_run r = { .experiment = "exp", .domain = "training", .policy = "fifo",
                        .cluster = "c", .config_json = "{}", .version = "test", .seed = 1,
                        .sample_repeats = keep_repeats };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    /* a: 1 1 1 2 2 3 3 3 (flat stretches of 3, 2 and 3 points); b: 5 5 (ends flat) */
    static const double a[] = { 1, 1, 1, 2, 2, 3, 3, 3 };
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(db_sample(d, 10.0 * i, "a", a[i], &err), 0);
        if (i < 2)
            cr_assert_eq(db_sample(d, 10.0 * i, "b", 5, &err), 0);
    }
    struct db_run_end e = { 70, 0, "drained", 1, 1, 0 };
    int64_t id;
    cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
    db_close(d);
    static const char *const q[] = {
        "SELECT printf('%s %g %g', name, t_s, value) FROM samples ORDER BY name, t_s", NULL
    };
    return th_query_dump(path, q);
}

Test(db, samples_equal_to_both_neighbours_are_not_stored)
{
    /* interior points of a flat stretch go (a at 10, 60); its ends stay, the last point too */
    char *rows = series_rows(0);
    cr_assert_str_eq(rows, "a 0 1|\na 20 1|\na 30 2|\na 40 2|\na 50 3|\na 70 3|\n"
                           "b 0 5|\nb 10 5|\n");
    free(rows);
    rows = series_rows(1);
    cr_assert_str_eq(rows, "a 0 1|\na 10 1|\na 20 1|\na 30 2|\na 40 2|\na 50 3|\na 60 3|\n"
                           "a 70 3|\nb 0 5|\nb 10 5|\n");
    free(rows);
}

/* ---------------------------------------------------------------- rows at scale */

/* Row i of the spool test: which of two column lists it uses (uses_short), and its values:
 * integers at both ends of int64, reals with every kind of bit pattern SQLite keeps
 * (subnormal, huge, negative, integral ones, which REAL affinity stores as integers), NULLs,
 * texts from empty to longer than a spool's chunk. */
static const char *const full_cols[] = { "job_id", "user", "job_type", "workers", "work",
                                         "arrival_s", "first_start_s", "finish_s", "jct_s",
                                         "n_avg", "attained_gpu_s", "preemptions",
                                         "migrations" };
static const char *const short_cols[] = { "migrations", "job_type", "job_id", "user",
                                          "workers", "work", "arrival_s", "n_avg",
                                          "attained_gpu_s", "preemptions" };
enum { NFULL = 13, NSHORT = 10, BIG_TEXT = 300000 };

static char *text_of(int i)
{
    size_t len = i == 4321 ? BIG_TEXT : (size_t)(i % 61);
    char *s = malloc(len + 1);
    cr_assert_not_null(s);
    for (size_t k = 0; k < len; k++)
        s[k] = (char)('a' + (i + k) % 26);
    s[len] = '\0';
    return s;
}

static double real_of(int i, int col)
{
    static const double special[] = { 5e-324, 1e308, -1.5, 3.0, 0.1, -2.2250738585072014e-308 };
    return (i + col) % 9 == 0 ? special[(i / 9 + col) % 6]
                              : ldexp((double)i * 2654435761.0, -col - 7);
}

/* Column `name`'s number in full_cols: values follow the column, not its place in a list. */
static int col_of(const char *name)
{
    for (int c = 0; c < NFULL; c++)
        if (strcmp(full_cols[c], name) == 0)
            return c;
    cr_assert_fail("no column %s", name);
    return -1;
}

/* the values of row i for the columns `cols` (n of them) */
static void row_of(int i, const char *const *cols, int n, struct row_value *v, char *text)
{
    for (int k = 0; k < n; k++) {
        const char *name = cols[k];
        int c = col_of(name);
        if (strcmp(name, "job_id") == 0)
            v[k] = row_int(i);
        else if (strcmp(name, "user") == 0)
            v[k] = row_int(i % 3 == 0 ? INT64_MIN + i : INT64_MAX - i);
        else if (strcmp(name, "job_type") == 0)
            v[k] = row_text(text);
        else if (strcmp(name, "workers") == 0 || strcmp(name, "preemptions") == 0 ||
                 strcmp(name, "migrations") == 0)
            v[k] = row_int(-(int64_t)i * c);
        else if (i % 5 == 0 && (strcmp(name, "first_start_s") == 0 ||
                                strcmp(name, "finish_s") == 0 || strcmp(name, "jct_s") == 0))
            v[k] = row_null();
        else
            v[k] = row_real(real_of(i, c));
    }
}

/* the short list in stretches of 100 rows (so that both lists fill multi-row batches) and on
 * single rows between them */
static int uses_short(int i) { return (i / 100) % 7 == 3 || i % 997 == 0; }

/* Write n rows as run `tag` (aborted if !commit) through one handle. */
static void spool_run(db *d, int n, const char *tag, int commit)
{
    struct errbuf err;
    err_clear(&err);
    struct db_run r = { .experiment = tag, .domain = "training", .policy = "fifo",
                        .cluster = "c", .config_json = "{}", .version = "test", .seed = 1 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    for (int i = 0; i < n; i++) {
        struct row_value v[NFULL];
        char *text = text_of(i);
        const char *const *cols = uses_short(i) ? short_cols : full_cols;
        int nc = uses_short(i) ? NSHORT : NFULL;
        row_of(i, cols, nc, v, text);
        cr_assert_eq(db_row(d, "jobs", cols, v, nc, &err), 0, "%s", err.msg);
        free(text);
    }
    if (commit) {
        struct db_run_end e = { 1, 0, "drained", 1, 1, n };
        int64_t id;
        cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
    } else {
        db_run_abort(d);
    }
}

/* The rows of run `tag` in rowid order are rows 0 .. n-1, each value its type and bits. */
static void check_rows(const char *tag, int n)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[512];
    size_t k = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    for (int c = 0; c < NFULL; c++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s\"%s\"", c ? ", " : "", full_cols[c]);
    snprintf(sql + k, sizeof sql - k, " FROM jobs WHERE run_id = (SELECT id FROM runs WHERE "
             "experiment = ?) ORDER BY rowid");
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
    int i = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++) {
        cr_assert_lt(i, n, "more rows than written");
        struct row_value want[NFULL];
        char *text = text_of(i);
        row_of(i, full_cols, NFULL, want, text);
        for (int c = 0; c < NFULL; c++) {
            int named = !uses_short(i);     /* a column the short list leaves out is NULL */
            for (int s = 0; s < NSHORT && !named; s++)
                named = strcmp(short_cols[s], full_cols[c]) == 0;
            if (!named)
                want[c] = row_null();
            int type = sqlite3_column_type(st, c);
            switch (want[c].type) {
            case ROW_NULL:
                cr_assert_eq(type, SQLITE_NULL, "row %d %s", i, full_cols[c]);
                break;
            case ROW_INT:
                cr_assert_eq(type, SQLITE_INTEGER, "row %d %s", i, full_cols[c]);
                cr_assert_eq(sqlite3_column_int64(st, c), want[c].v.i, "row %d %s", i,
                             full_cols[c]);
                break;
            case ROW_REAL: {
                cr_assert_eq(type, SQLITE_FLOAT, "row %d %s", i, full_cols[c]);
                double got = sqlite3_column_double(st, c);
                cr_assert_eq(memcmp(&got, &want[c].v.r, sizeof got), 0, "row %d %s: %a, not %a",
                             i, full_cols[c], got, want[c].v.r);
                break;
            }
            default:
                cr_assert_eq(type, SQLITE_TEXT, "row %d %s", i, full_cols[c]);
                cr_assert_str_eq((const char *)sqlite3_column_text(st, c), want[c].v.s,
                                 "row %d %s", i, full_cols[c]);
            }
        }
        free(text);
    }
    cr_assert_eq(i, n, "run %s: %d rows, not %d", tag, i, n);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* The writer spools a run's rows and inserts them at the commit, many to a statement: rows
 * must come back exactly as written and in the order written, across column lists that
 * alternate, batches, the spool's chunks and file, a text larger than a chunk, an aborted
 * run in between (nothing of it left, nothing of it carried over) and a second run. */
Test(db, spooled_rows_come_back_exact_and_in_order, .timeout = 60)
{
    fresh("spool.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    spool_run(d, 30000, "first", 1);    /* about 2.5 MB of records: chunks in a file */
    spool_run(d, 20000, "aborted", 0);
    spool_run(d, 500, "second", 1);     /* in memory only, after a run that used the file */
    db_close(d);
    check_rows("first", 30000);
    check_rows("second", 500);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM jobs"), 30500, 0);
}

/* a version 3 file had no elastic columns in jobs: they are added, its rows keep NULL there */
Test(db, version_3_files_are_upgraded)
{
    fresh("v3.db");
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/schema_v3.sql", getenv("HETSIM_DATA"));
    FILE *f = fopen(fixture, "r");
    cr_assert_not_null(f, "%s", fixture);
    static char v3[32768];
    size_t n = fread(v3, 1, sizeof v3 - 1, f);
    fclose(f);
    v3[n] = '\0';
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, v3, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 3; INSERT INTO runs VALUES (1, 'exp', "
                                 "'training', 'fifo', 4, 'c', '{\"name\":\"exp\"}', 'h', 'v', 1, "
                                 "'drained', 1, 1, 1, 0, 'now', 'g', 'c'); INSERT INTO jobs "
                                 "VALUES (1, 7, 0, 'toy', 1, 10, 0, NULL, NULL, NULL, NULL, 1, "
                                 "NULL, NULL, 0, 0, 0)", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_close(h);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    write_run(d, 1);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM jobs WHERE min_workers IS NULL "
                                         "AND max_workers IS NULL AND batch IS NULL"), 3, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM jobs WHERE job_id = 7"), 1, 0);
}

/* A version 4 file: run_params keyed by (run_id, key) become keyed by (run_id, sweep, key),
 * every row kept in its order, so that a run can then join a second sweep. */
Test(db, version_4_run_params_join_several_sweeps)
{
    fresh("v4.db");
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/schema_v4.sql", getenv("HETSIM_DATA"));
    FILE *f = fopen(fixture, "r");
    cr_assert_not_null(f, "%s", fixture);
    static char v4[32768];
    size_t n = fread(v4, 1, sizeof v4 - 1, f);
    fclose(f);
    v4[n] = '\0';
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, v4, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    char hash[17], sql[1024];
    db_hash_hex("{\"name\":\"exp\"}", hash);
    snprintf(sql, sizeof sql, "PRAGMA user_version = 4; INSERT INTO runs VALUES (1, 'exp', "
             "'training', 'fifo', 4, 'c', '{\"name\":\"exp\"}', '%s', 'v', 1, 'drained', 1, 1, "
             "1, 0, 'now', 'g', 'c'); INSERT INTO run_params VALUES (1, 'a', 'seed', '4', 4), "
             "(1, 'a', 'policy', '\"fifo\"', NULL)", hash);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    /* version 4 refuses the second sweep's row */
    cr_assert_neq(sqlite3_exec(h, "INSERT INTO run_params VALUES (1, 'b', 'seed', '4', 4)", NULL,
                               NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    long added = 0;
    const struct db_param p[] = { { "seed", "4" } };
    cr_assert_eq(db_sweep_adopt(d, "b", "{\"name\":\"exp\"}", p, 1, &added, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(added, 1);
    /* a second time adds nothing; a configuration not in the file adds nothing */
    cr_assert_eq(db_sweep_adopt(d, "b", "{\"name\":\"exp\"}", p, 1, &added, &err), 0);
    cr_assert_eq(db_sweep_adopt(d, "b", "{\"name\":\"other\"}", p, 1, &added, &err), 0);
    cr_assert_eq(added, 1);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 5, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM run_params WHERE sweep = 'a'"), 2,
                       0);
    cr_assert_float_eq(th_db_value(path, "SELECT num FROM run_params WHERE sweep = 'b' AND "
                                         "key = 'seed'"), 4, 0);
    /* the rows kept their order (plot reads axes in order of first appearance) */
    cr_assert_float_eq(th_db_value(path, "SELECT min(rowid) FROM run_params WHERE key = 'seed'"),
                       1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM sqlite_master WHERE name = "
                                         "'run_params_sweep'"), 1, 0);
}
