/*
 * db: the SQLite metrics database writer.
 *
 * A run is written inside one transaction: db_run_begin opens it (BEGIN IMMEDIATE) and
 * inserts the runs row, the row writers add to it, db_run_commit fills in the final figures
 * and commits; db_run_abort (or closing without commit) rolls everything back, so a failed or
 * killed run leaves nothing.  One prepared statement per table, bound and stepped per row.
 * The file uses WAL and a busy timeout, so several processes may append runs at once.
 *
 * Ownership: db_open allocates the handle and opens the file; db_close finalizes and closes.
 * Strings passed in are copied by SQLite before the call returns.
 */
#ifndef HETSIM_DB_H
#define HETSIM_DB_H

#include <stdint.h>

#include "../sim/errbuf.h"

typedef struct db db;
struct sqlite3;

int  db_open(db **out, const char *path, struct errbuf *err);
void db_close(db *d);
struct sqlite3 *db_handle(db *d);
const char *db_path(const db *d);

/* The schema text (results/schema.sql, compiled in). */
extern const char db_schema_sql[];

struct db_run {
    const char *experiment, *domain, *policy, *cluster, *config_json, *version;
    int64_t     seed;
};

int db_run_begin(db *d, const struct db_run *r, int64_t *run_id, struct errbuf *err);

struct db_job {
    int64_t     job_id, user, workers, preemptions, migrations;
    const char *job_type;
    double      work, arrival_s, first_start_s, finish_s, n_avg, t_iso_s, ftf_rho, attained;
    /* first_start_s, finish_s, t_iso_s and ftf_rho < 0 are written as NULL */
};
int db_job(db *d, const struct db_job *j, struct errbuf *err);
int db_job_gpu(db *d, int64_t job_id, const char *gpu_type, double gpu_s, struct errbuf *err);
int db_sample(db *d, double t_s, const char *name, double value, struct errbuf *err);
int db_metric(db *d, const char *name, double value, struct errbuf *err);

struct db_run_end {
    double      sim_end_s, wall_s;
    const char *stop_reason;
    int64_t     events, decisions, jobs_total;
};
int  db_run_commit(db *d, const struct db_run_end *e, struct errbuf *err);
void db_run_abort(db *d);

/* FNV-1a 64 of a string as 16 hex digits (the config_hash). */
void db_hash_hex(const char *s, char out[17]);

#endif
