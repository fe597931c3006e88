/*
 * test_db: the metrics database writer — schema created from results/schema.sql, a run is
 * all-or-nothing (abort and an unclosed handle leave nothing), NULLs for missing values,
 * and a file with another schema version is refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

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
    struct db_run r = { "exp", "training", "fifo", "c", "{\"name\":\"exp\"}", "test", 3 };
    int64_t id;
    cr_assert_eq(db_run_begin(d, &r, &id, &err), 0, "%s", err.msg);
    struct db_job j = { .job_id = 5, .user = 1, .workers = 2, .job_type = "toy", .work = 10,
                        .arrival_s = 1, .first_start_s = 2, .finish_s = 12, .n_avg = 1.5,
                        .t_iso_s = 8, .ftf_rho = 11.0 / 8, .attained = 20 };
    cr_assert_eq(db_job(d, &j, &err), 0);
    struct db_job never = { .job_id = 6, .job_type = "toy", .work = 1, .arrival_s = 3,
                            .first_start_s = -1, .finish_s = -1, .t_iso_s = -1, .ftf_rho = -1 };
    cr_assert_eq(db_job(d, &never, &err), 0);
    cr_assert_eq(db_job_gpu(d, 5, "V100-16GB", 20, &err), 0);
    cr_assert_eq(db_sample(d, 60, "util_total", 0.5, &err), 0);
    cr_assert_eq(db_metric(d, "jct_mean", 11, &err), 0);
    if (commit) {
        struct db_run_end e = { 12, 0.01, "drained", 40, 3, 2 };
        cr_assert_eq(db_run_commit(d, &e, &err), 0, "%s", err.msg);
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
    cr_assert_float_eq(th_db_value(path, "PRAGMA user_version"), 1, 0);
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
    struct db_run r = { "exp", "training", "srtf", "c", "{}", "test", 3 };
    int64_t id;
    cr_assert_eq(db_run_begin(d, &r, &id, &err), 0);
    db_close(d);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM jobs"), 2, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM metrics"), 1, 0);
    cr_assert_float_eq(th_db_value(path, "SELECT count(*) FROM runs WHERE policy = 'srtf'"), 0, 0);
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
