/*
 * db: the SQLite metrics database writer.
 *
 * A run's rows are first spooled, private to the handle (in memory up to a chunk per table,
 * then in an unlinked file under $TMPDIR or /tmp, so their size does not count against
 * memory and the kernel removes them however the process ends); db_run_commit then inserts
 * them, with the runs row, into the database in one transaction.  The file is therefore
 * locked only for that insert, so many processes (a sweep's workers) can simulate at once and
 * append runs to one file, and a failed or killed run leaves nothing behind.  The file uses
 * WAL and a busy timeout; new files get 16 KiB pages.  The handle belongs to one thread at a
 * time (it is opened without SQLite's connection mutex) and runs with foreign_keys off (the
 * run ids it writes are the ones it has just inserted).
 *
 * Ownership: db_open allocates the handle and opens the file; db_close finalizes and closes.
 * Strings passed in are copied before the call returns.
 */
#ifndef HETSIM_DB_H
#define HETSIM_DB_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/base/err.h"
#include "../sim/base/row.h"

typedef struct db db;
struct sqlite3;

int  db_open(db **out, const char *path, struct errbuf *err);
void db_close(db *d);
struct sqlite3 *db_handle(db *d);
const char *db_path(const db *d);
/* Run SQL on the file, retrying while another process holds the write lock. */
int db_exec(db *d, const char *sql, struct errbuf *err);

/* Give every run whose configuration is `config_json` the run_params rows of sweep `sweep`
 * (one per param) that it lacks, so that a run a sweep found already in the file (made by
 * `hetsim run`, another sweep or a merge) counts in that sweep.  *added (may be NULL) grows by
 * the rows added.  Not during a run; the caller may wrap many calls in one transaction. */
struct db_param;
int db_sweep_adopt(db *d, const char *sweep, const char *config_json,
                   const struct db_param *params, int nparams, long *added, struct errbuf *err);

/* Open an existing database to read it (PRAGMA query_only), for reports, plots and a
 * sweep's look at what is done.  The handle is read-write when the file and its folder
 * allow, so that closing the last connection removes the -wal and -shm files as a writer's
 * close does; read-only otherwise, and immutable when SQLite cannot create the files it
 * needs beside a WAL database (a read-only folder).  Returns sqlite3_open_v2's code; *h is
 * set either way (close it with sqlite3_close). */
int db_open_reader(struct sqlite3 **h, const char *path);

/* The schema text (results/schema.sql, compiled in). */
extern const char db_schema_sql[];

/* Every table that hangs off runs(id) through its first column, run_id, in schema order, the
 * one list db (staging and commit), merge and export read: adding a per-run table is a line
 * here and its CREATE in schema.sql.  `staged`: a run writes it through db_row, spooled
 * until db_run_commit (run_params is written with the runs row).  NULL-terminated. */
struct db_table {
    const char *name;
    int         staged;
};
extern const struct db_table db_tables[];

/* "a, b, c" (each prefixed by `prefix`, e.g. "s.") of the columns of schema.table except
 * `skip` (NULL: none), quoted; 0, or -1 if the table is unknown or out is too small. */
int db_columns(struct sqlite3 *h, const char *schema, const char *table, const char *skip,
               const char *prefix, char *out, size_t cap);

/* One swept field of a sweep's run: its path ("policy", "seed" or an experiment field) and its
 * value as JSON text. */
struct db_param {
    const char *key, *value_json;
};

struct db_run {
    const char *experiment, *domain, *policy;
    const char *cluster;                /* as the experiment named it */
    const char *cluster_name;           /* the cluster's own "name" (NULL: the same) */
    const char *config_json, *version;
    int64_t     seed;
    const char *sweep;                  /* the sweep that made this run, or NULL */
    const struct db_param *params;      /* its swept fields (nparams, may be 0) */
    int         nparams;
    int         sample_repeats;         /* store every sample (see db_sample) */
};

/* Start a run.  Its rows are spooled privately, so the database file is not locked while it
 * simulates; db_run_commit inserts them into the file in one short transaction and returns
 * the run's id.  Other processes may write runs meanwhile. */
int db_run_begin(db *d, const struct db_run *r, struct errbuf *err);

/* One row of the per-run table `table` (one of db_tables that a run stages): n values for
 * the columns `cols`, which must be names of that table's columns other than run_id.  The
 * insert is prepared on the first row with the same `cols` array (compared by address: pass
 * a static array; at most 32 arrays per handle), so an unknown table or column is an error
 * here; the row itself is spooled, and a constraint it breaks (a NULL in a NOT NULL column,
 * a repeated metric) fails the commit.  Rows reach the table in the order written. */
int db_row(db *d, const char *table, const char *const *cols, const struct row_value *v,
           int n, struct errbuf *err);
/* One point of the time series `name`, in time order within the series.  Unless the run set
 * sample_repeats, a point equal to both its neighbours in its series is not stored (it is
 * held until the next point shows whether it ends a flat stretch): a line or a step plot
 * through the stored points is the same as through all of them, and a long idle stretch
 * costs two rows instead of one per period. */
int db_sample(db *d, double t_s, const char *name, double value, struct errbuf *err);
int db_metric(db *d, const char *name, double value, struct errbuf *err);

struct db_run_end {
    double      sim_end_s, wall_s;
    const char *stop_reason;
    int64_t     events, decisions, jobs_total;
};
int  db_run_commit(db *d, const struct db_run_end *e, int64_t *run_id, struct errbuf *err);
void db_run_abort(db *d);

/* FNV-1a 64 of a string as 16 hex digits (the config_hash). */
void db_hash_hex(const char *s, char out[17]);

#endif
