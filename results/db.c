/*
 * db: SQLite writer, one transaction per run, one prepared statement per table.
 * Inserting a row costs one bind/step/reset; per-row transactions would be hundreds of times
 * slower, which is why a run never commits until its end.
 */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/paths.h"

enum { SCHEMA_VERSION = 1 };

enum stmt { S_RUN, S_JOB, S_JOBGPU, S_SAMPLE, S_METRIC, S_RUNEND, S_N };

static const char *const stmt_sql[S_N] = {
    [S_RUN] = "INSERT INTO runs(experiment, domain, policy, seed, cluster, config_json, "
              "config_hash, version, sim_end_s, stop_reason, events, decisions, jobs_total, "
              "wall_s, started_at) VALUES (?,?,?,?,?,?,?,?,0,'running',0,0,0,0,?)",
    [S_JOB] = "INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [S_JOBGPU] = "INSERT INTO job_gpu_seconds VALUES (?,?,?,?)",
    [S_SAMPLE] = "INSERT INTO samples VALUES (?,?,?,?)",
    [S_METRIC] = "INSERT INTO metrics VALUES (?,?,?)",
    [S_RUNEND] = "UPDATE runs SET sim_end_s=?, stop_reason=?, events=?, decisions=?, "
                 "jobs_total=?, wall_s=? WHERE id=?",
};

struct db {
    sqlite3      *h;
    sqlite3_stmt *st[S_N];
    int64_t       run;      /* open run, 0 if none */
    char         *path;
};

sqlite3 *db_handle(db *d) { return d->h; }
const char *db_path(const db *d) { return d->path; }

static int fail(db *d, struct errbuf *err, const char *what)
{
    return err_run(err, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->h));
}

/* Run a statement, retrying while another writer holds the lock (beyond the busy timeout,
 * which BEGIN IMMEDIATE does not always honour under WAL). */
static int exec_retry(db *d, const char *sql, struct errbuf *err)
{
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(d->h, sql, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || attempt == 600)
            return fail(d, err, sql);
        nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
    }
}

int db_open(db **out, const char *path, struct errbuf *err)
{
    *out = NULL;
    db *d = calloc(1, sizeof *d);
    if (d == NULL || (d->path = strdup(path)) == NULL) {
        free(d);
        return err_run(err, "out of memory");
    }
    if (path_make_parent(path) < 0) {
        err_run(err, "%s: cannot create its directory", path);
        free(d->path);
        free(d);
        return -1;
    }
    if (sqlite3_open_v2(path, &d->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        fail(d, err, "cannot open database");
        db_close(d);
        return -1;
    }
    sqlite3_busy_timeout(d->h, 60000);
    int version = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(d->h, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK) {
        fail(d, err, "not a database");
        db_close(d);
        return -1;
    }
    if (sqlite3_step(q) == SQLITE_ROW)
        version = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    if (version != 0 && version != SCHEMA_VERSION) {
        err_run(err, "%s: schema version %d, this hetsim writes version %d", path, version,
                SCHEMA_VERSION);
        db_close(d);
        return -1;
    }
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", SCHEMA_VERSION);
    if (exec_retry(d, "PRAGMA journal_mode=WAL", err) < 0 ||
        exec_retry(d, "PRAGMA synchronous=NORMAL", err) < 0 ||
        exec_retry(d, "PRAGMA foreign_keys=ON", err) < 0 ||
        (version == 0 && (exec_retry(d, "BEGIN IMMEDIATE", err) < 0 ||
                          exec_retry(d, db_schema_sql, err) < 0 ||
                          exec_retry(d, pragma, err) < 0 || exec_retry(d, "COMMIT", err) < 0))) {
        db_close(d);
        return -1;
    }
    for (int i = 0; i < S_N; i++)
        if (sqlite3_prepare_v2(d->h, stmt_sql[i], -1, &d->st[i], NULL) != SQLITE_OK) {
            fail(d, err, "preparing statements");
            db_close(d);
            return -1;
        }
    *out = d;
    return 0;
}

void db_close(db *d)
{
    if (d == NULL)
        return;
    if (d->run != 0)
        db_run_abort(d);
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(d->st[i]);
    sqlite3_close(d->h);
    free(d->path);
    free(d);
}

void db_hash_hex(const char *s, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static int step(db *d, sqlite3_stmt *s, struct errbuf *err)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return fail(d, err, "write failed");
    return 0;
}

int db_run_begin(db *d, const struct db_run *r, int64_t *run_id, struct errbuf *err)
{
    if (exec_retry(d, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    char hash[17], when[32];
    db_hash_hex(r->config_json, hash);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sqlite3_stmt *s = d->st[S_RUN];
    sqlite3_bind_text(s, 1, r->experiment, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, r->domain, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, r->policy, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 4, r->seed);
    sqlite3_bind_text(s, 5, r->cluster, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 6, r->config_json, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 7, hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 8, r->version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 9, when, -1, SQLITE_TRANSIENT);
    if (step(d, s, err) < 0) {
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    d->run = sqlite3_last_insert_rowid(d->h);
    *run_id = d->run;
    return 0;
}

static void bind_opt(sqlite3_stmt *s, int i, double v)
{
    if (v < 0)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_double(s, i, v);
}

int db_job(db *d, const struct db_job *j, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_JOB];
    sqlite3_bind_int64(s, 1, d->run);
    sqlite3_bind_int64(s, 2, j->job_id);
    sqlite3_bind_int64(s, 3, j->user);
    sqlite3_bind_text(s, 4, j->job_type, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, j->workers);
    sqlite3_bind_double(s, 6, j->work);
    sqlite3_bind_double(s, 7, j->arrival_s);
    bind_opt(s, 8, j->first_start_s);
    bind_opt(s, 9, j->finish_s);
    bind_opt(s, 10, j->finish_s < 0 ? -1 : j->finish_s - j->arrival_s);
    bind_opt(s, 11, j->first_start_s < 0 ? -1 : j->first_start_s - j->arrival_s);
    sqlite3_bind_double(s, 12, j->n_avg);
    bind_opt(s, 13, j->t_iso_s);
    bind_opt(s, 14, j->ftf_rho);
    sqlite3_bind_double(s, 15, j->attained);
    sqlite3_bind_int64(s, 16, j->preemptions);
    sqlite3_bind_int64(s, 17, j->migrations);
    return step(d, s, err);
}

int db_job_gpu(db *d, int64_t job_id, const char *gpu_type, double gpu_s, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_JOBGPU];
    sqlite3_bind_int64(s, 1, d->run);
    sqlite3_bind_int64(s, 2, job_id);
    sqlite3_bind_text(s, 3, gpu_type, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 4, gpu_s);
    return step(d, s, err);
}

int db_sample(db *d, double t_s, const char *name, double value, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_SAMPLE];
    sqlite3_bind_int64(s, 1, d->run);
    sqlite3_bind_double(s, 2, t_s);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 4, value);
    return step(d, s, err);
}

int db_metric(db *d, const char *name, double value, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_METRIC];
    sqlite3_bind_int64(s, 1, d->run);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 3, value);
    return step(d, s, err);
}

int db_run_commit(db *d, const struct db_run_end *e, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_RUNEND];
    sqlite3_bind_double(s, 1, e->sim_end_s);
    sqlite3_bind_text(s, 2, e->stop_reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, e->events);
    sqlite3_bind_int64(s, 4, e->decisions);
    sqlite3_bind_int64(s, 5, e->jobs_total);
    sqlite3_bind_double(s, 6, e->wall_s);
    sqlite3_bind_int64(s, 7, d->run);
    if (step(d, s, err) < 0 || exec_retry(d, "COMMIT", err) < 0) {
        db_run_abort(d);
        return -1;
    }
    d->run = 0;
    return 0;
}

void db_run_abort(db *d)
{
    if (d->run == 0)
        return;
    sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
    d->run = 0;
}
