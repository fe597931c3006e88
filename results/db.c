/*
 * db: SQLite writer.  A run's rows are spooled, not inserted: each staged table of db_tables
 * has a spool, a chunk of memory that, once full, is appended to a private unlinked file
 * (in $TMPDIR, else /tmp; the kernel removes it when the process ends, however it ends).  A
 * record is the index of its prepared insert and its values, each a type byte and the
 * value's bytes (8 for an integer or a real, a 4-byte length and the bytes for a text), and
 * no record crosses a chunk.  Spooling a row costs a few copies and locks nothing; memory
 * stays at one chunk per table whatever the trace.
 *
 * The commit then inserts every row once, in the order the run wrote it, table by table in
 * db_tables order, inside one BEGIN IMMEDIATE transaction.  The rows are not bound to an
 * INSERT's parameters: each stretch of consecutive records of one column list in a chunk is
 * one step of "INSERT INTO <table>(run_id, cols) SELECT ?1, c0, c1, ... FROM
 * hetsim_rows(?2)", where hetsim_rows is a virtual table of this file that reads the records
 * in place (?2 is the stretch, bound as a pointer) and hands each value to SQLite as the
 * column it asks for.  This replaces 64-row multi-row INSERTs, whose binding (a call per
 * value, each releasing and setting a parameter) and parameter copies were a sixth of the
 * writer's instructions; the rows, their values and types, and their order are the same.
 * Two kinds of per-row work
 * are left out because they cannot find anything: the foreign-key probe of runs(id) (the
 * handle runs with foreign_keys off: the only rows it writes with a run_id are a commit's,
 * with the id its runs row just got, and merge's, with ids it has just mapped; the probe
 * cost a seek per row, and turning it off and on per commit would recompile every prepared
 * statement) and the statement journal (INSERT OR FAIL: a failing row aborts the whole
 * transaction anyway, so no statement needs undoing on its own).  Measured on a
 * 1,000,000-job fifo trace (about 2 M rows), multi-row INSERTs wrote the rows at about a
 * quarter of the CPU cost of staging them in temporary tables and copying those with
 * INSERT ... SELECT; reading the spool through hetsim_rows takes 8% fewer instructions again
 * (callgrind, 100,000 jobs: the commit 1.23 G -> 1.13 G).
 *
 * New files get 16 KiB pages: WAL writes each page as a frame with two system calls and the
 * checkpoint copies it again, so larger pages cut the system time of a large run by about
 * half.  An existing file keeps its page size.
 */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/path.h"

enum { SCHEMA_VERSION = 5 };

const struct db_table db_tables[] = {
    { "jobs", 1 },     { "job_gpu_seconds", 1 }, { "requests", 1 },
    { "pods", 1 },
    { "samples", 1 },  { "metrics", 1 },         { "run_params", 0 },
    { "timeline", 1 },
    { NULL, 0 },
};
enum { NTABLES = sizeof db_tables / sizeof db_tables[0] - 1 };

enum {
    PAGE_SIZE = 16384,          /* for new files */
    CHUNK = 256 << 10,          /* a spool's chunk: the unit written to and read from its file */
    MAX_ROWSTMTS = 32,          /* column lists per connection */
    VT_COLS = 32,               /* hetsim_rows' columns c0 .. c31: values per row at most */
};

enum stmt { S_RUN, S_PARAM, S_N };

static const char *const stmt_sql[S_N] = {
    [S_RUN] = "INSERT INTO main.runs(experiment, domain, policy, seed, cluster, config_json, "
              "config_hash, version, sim_end_s, stop_reason, events, decisions, jobs_total, "
              "wall_s, started_at, group_hash, cluster_name) "
              "VALUES (?,?,?,?,?,?,hetsim_hash(?6),?,?,?,?,?,?,?,?,"
              "hetsim_hash(json_remove(?6, '$.seed')),?)",
    [S_PARAM] = "INSERT INTO main.run_params VALUES (?,?,?,?,"
                "CASE WHEN json_type(?4) IN ('integer', 'real') THEN ?4 + 0 END)",
};

static const char *const sample_cols[] = { "t_s", "name", "value" };
static const char *const metric_cols[] = { "name", "value" };

/* one time series of the open run: its last stored value, and a point held back because it
 * equals that value (stored only if the next point differs, or at the commit) */
struct series {
    char          *name;
    double         last, held_t;
    int            held;
};

/* the open run's descriptive fields, kept until the commit writes them */
struct pending {
    char          *experiment, *domain, *policy, *cluster, *cluster_name, *config_json;
    char          *version, *sweep;
    char          *started_at;
    int64_t        seed;
    char         **keys, **values;
    int            nparams;
    int            sample_repeats;
    struct series *ser;
    int            nser, cap_ser;
};

/* The insert into main.<table> for one list of columns: ?1 is the run id, ?2 a stretch of
 * spooled records of this list (see the file's head). */
struct rowstmt {
    const char         *table;
    const char *const  *cols;       /* the caller's array, compared by address */
    int                 n, t;       /* columns; index in db_tables */
    sqlite3_stmt       *ins;
};

/* A table's spooled rows: the chunk being filled (buf[0, len)), and the full chunks before it
 * in the file fd (-1 until the first is full; `filed` bytes, each chunk a size_t length and
 * its records).  cap grows past CHUNK only for a record larger than a chunk. */
struct spool {
    unsigned char *buf;
    size_t         len, cap;
    int            fd;
    off_t          filed;
};

struct db {
    sqlite3       *h;
    sqlite3_stmt  *st[S_N];
    struct rowstmt rows[MAX_ROWSTMTS];
    int            nrows;
    struct spool   spool[NTABLES];  /* by db_tables index */
    int            open_run;        /* a run is being spooled */
    struct pending run;
    char          *path;
};

int db_open_reader(sqlite3 **h, const char *path)
{
    char dir[PATH_MAX_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0';    /* "/x.db" -> "/" */
    if (access(path, W_OK) == 0 && access(dir, W_OK) == 0) {
        int rc = sqlite3_open_v2(path, h, SQLITE_OPEN_READWRITE, NULL);
        if (rc == SQLITE_OK && sqlite3_exec(*h, "PRAGMA query_only=1", NULL, NULL, NULL) ==
                                   SQLITE_OK)
            return rc;
        sqlite3_close(*h);
    }
    int rc = sqlite3_open_v2(path, h, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK)
        return rc;
    int probe = sqlite3_exec(*h, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    if (probe != SQLITE_READONLY && probe != SQLITE_CANTOPEN)
        return rc;
    /* a WAL file in a folder we cannot write: SQLite cannot create the -shm it needs, so
     * read the file as immutable (a closed database keeps everything in the file itself) */
    sqlite3_close(*h);
    char uri[3 * PATH_MAX_LEN + 32] = "file:";
    size_t n = strlen(uri);
    for (const char *p = path; *p && n + 4 < sizeof uri; p++)
        n += (size_t)(*p == '%' || *p == '?' || *p == '#'
                          ? snprintf(uri + n, sizeof uri - n, "%%%02X", (unsigned char)*p)
                          : snprintf(uri + n, sizeof uri - n, "%c", *p));
    snprintf(uri + n, sizeof uri - n, "?immutable=1");
    return sqlite3_open_v2(uri, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}

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

/* hetsim_hash(text): FNV-1a 64 as 16 hex digits, so SQL computes the same hashes as C */
static void sql_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *t = sqlite3_value_text(argv[0]);
    if (t == NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    char hex[17];
    db_hash_hex((const char *)t, hex);
    sqlite3_result_text(ctx, hex, 16, SQLITE_TRANSIENT);
}

/* 1 when a per-run table of db_tables is not in the file: a table added to the schema at
 * its current version (CREATE TABLE IF NOT EXISTS) is created in files written before it. */
static int missing_table(db *d)
{
    sqlite3_stmt *q;
    int missing = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND "
                                 "name = ?1", -1, &q, NULL) != SQLITE_OK)
        return 1;
    for (int t = 0; !missing && db_tables[t].name != NULL; t++) {
        sqlite3_bind_text(q, 1, db_tables[t].name, -1, SQLITE_STATIC);
        missing = sqlite3_step(q) != SQLITE_ROW;
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    return missing;
}

/* Create the schema in a new file, or bring an older file to this version. */
static int setup_schema(db *d, int version, struct errbuf *err)
{
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", SCHEMA_VERSION);
    if (exec_retry(d, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    /* re-read under the lock: another process may have done it meanwhile */
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(d->h, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW)
            version = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    if (version == SCHEMA_VERSION && !missing_table(d))
        return exec_retry(d, "COMMIT", err);
    if ((version == 1 &&
         (exec_retry(d, "ALTER TABLE runs ADD COLUMN group_hash TEXT NOT NULL DEFAULT ''",
                     err) < 0 ||
          exec_retry(d, "UPDATE runs SET group_hash = "
                        "hetsim_hash(json_remove(config_json, '$.seed'))", err) < 0)) ||
        /* version 2 stored the cluster's own name: it moves to cluster_name, and cluster
         * becomes the name the experiment gave (its "cluster" string, when it was one) */
        (version >= 1 && version <= 2 &&
         (exec_retry(d, "ALTER TABLE runs ADD COLUMN cluster_name TEXT NOT NULL DEFAULT ''",
                     err) < 0 ||
          exec_retry(d, "UPDATE runs SET cluster_name = cluster, cluster = CASE WHEN "
                        "json_type(config_json, '$.cluster') = 'text' THEN "
                        "json_extract(config_json, '$.cluster') ELSE cluster END", err) < 0)) ||
        /* version 3 had no elastic columns in jobs: its rows keep NULL there */
        (version >= 1 && version <= 3 &&
         (exec_retry(d, "ALTER TABLE jobs ADD COLUMN min_workers INTEGER", err) < 0 ||
          exec_retry(d, "ALTER TABLE jobs ADD COLUMN max_workers INTEGER", err) < 0 ||
          exec_retry(d, "ALTER TABLE jobs ADD COLUMN batch INTEGER", err) < 0)) ||
        /* version 4 keyed run_params by (run_id, key): one sweep a run */
        (version >= 2 && version <= 4 &&
         (exec_retry(d, "ALTER TABLE run_params RENAME TO run_params_v4", err) < 0 ||
          exec_retry(d, "DROP INDEX IF EXISTS run_params_sweep", err) < 0)) ||
        exec_retry(d, db_schema_sql, err) < 0 ||
        (version >= 2 && version <= 4 &&
         (exec_retry(d, "INSERT INTO run_params SELECT * FROM run_params_v4 ORDER BY rowid",
                     err) < 0 ||
          exec_retry(d, "DROP TABLE run_params_v4", err) < 0)) ||
        exec_retry(d, pragma, err) < 0 ||
        exec_retry(d, "COMMIT", err) < 0) {
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int db_exec(db *d, const char *sql, struct errbuf *err)
{
    return exec_retry(d, sql, err);
}

int db_sweep_adopt(db *d, const char *sweep, const char *config_json,
                   const struct db_param *params, int nparams, long *added, struct errbuf *err)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(d->h, "INSERT OR IGNORE INTO main.run_params SELECT id, ?1, ?2, ?3, "
                           "CASE WHEN json_type(?3) IN ('integer', 'real') THEN ?3 + 0 END "
                           "FROM main.runs WHERE config_hash = hetsim_hash(?4) AND "
                           "config_json = ?4", -1, &q, NULL) != SQLITE_OK)
        return err_run(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
    int rc = 0;
    for (int i = 0; rc == 0 && i < nparams; i++) {
        sqlite3_bind_text(q, 1, sweep, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, params[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 3, params[i].value_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, config_json, -1, SQLITE_STATIC);
        if (sqlite3_step(q) != SQLITE_DONE)
            rc = err_run(err, "%s: %s", d->path, sqlite3_errmsg(d->h));
        else if (added != NULL)
            *added += sqlite3_changes(d->h);
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    return rc;
}

int db_columns(struct sqlite3 *h, const char *schema, const char *table, const char *skip,
               const char *prefix, char *out, size_t cap)
{
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA %s.table_info(%s)", schema, table);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
        return -1;
    size_t n = 0;
    out[0] = '\0';
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(q, 1);
        if (skip != NULL && strcmp(c, skip) == 0)
            continue;
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s\"%s\"", n ? ", " : "",
                              prefix, c);
    }
    sqlite3_finalize(q);
    return n > 0 && n < cap ? 0 : -1;
}

/* ---------------------------------------------------------------- hetsim_rows */

/* An eponymous virtual table over a stretch of spooled records of one column list: row k is
 * record k, column ci its value i (NULL past its n values).  Its hidden column src is the
 * stretch, passed as a pointer of type ROWS_PTR; without one the table has no rows.  Texts are
 * handed over in place (SQLITE_STATIC): the chunk outlives the step that reads them. */
#define ROWS_PTR "hetsim_rows"

struct rows_src {
    const unsigned char *p, *end;   /* the stretch's records */
    int                  n;         /* values per record */
};

struct rows_cursor {
    sqlite3_vtab_cursor  base;
    const unsigned char *p, *next, *end;    /* this record, the next one, the stretch's end */
    const unsigned char *val[VT_COLS];      /* this record's values, from their type bytes */
    int                  n;
    sqlite3_int64        rowid;
};

static int rows_connect(sqlite3 *h, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **errmsg)
{
    (void)aux, (void)argc, (void)argv, (void)errmsg;
    char sql[16 + 6 * VT_COLS + 16];
    size_t k = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE x(");
    for (int i = 0; i < VT_COLS; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "c%d, ", i);
    snprintf(sql + k, sizeof sql - k, "src HIDDEN)");
    int rc = sqlite3_declare_vtab(h, sql);
    if (rc != SQLITE_OK)
        return rc;
    if ((*out = sqlite3_malloc(sizeof **out)) == NULL)
        return SQLITE_NOMEM;
    memset(*out, 0, sizeof **out);
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v)
{
    sqlite3_free(v);
    return SQLITE_OK;
}

/* The only plan: src = ?, as its first argument. */
static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
    (void)v;
    for (int i = 0; i < info->nConstraint; i++)
        if (info->aConstraint[i].iColumn == VT_COLS && info->aConstraint[i].usable &&
            info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ) {
            info->aConstraintUsage[i].argvIndex = 1;
            info->aConstraintUsage[i].omit = 1;
            info->estimatedCost = 1;
            return SQLITE_OK;
        }
    return SQLITE_CONSTRAINT;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
    (void)v;
    struct rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (c == NULL)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c)
{
    sqlite3_free(c);
    return SQLITE_OK;
}

/* The byte after the spooled value at p: its type byte, then 8 bytes (an integer or a
 * real), a 4-byte length and the text, or nothing (NULL). */
static const unsigned char *skip_value(const unsigned char *p)
{
    int type = *p++;
    if (type == ROW_INT || type == ROW_REAL)
        return p + 8;
    if (type == ROW_TEXT) {
        uint32_t len;
        memcpy(&len, p, 4);
        return p + 4 + len;
    }
    return p;
}

/* Where each value of the record at c->p starts, and where the next record does. */
static void rows_parse(struct rows_cursor *c)
{
    if (c->p >= c->end)
        return;
    const unsigned char *p = c->p + 1;      /* past the statement's index */
    for (int i = 0; i < c->n; i++) {
        c->val[i] = p;
        p = skip_value(p);
    }
    c->next = p;
}

static int rows_filter(sqlite3_vtab_cursor *vc, int idx, const char *idxstr, int argc,
                       sqlite3_value **argv)
{
    (void)idx, (void)idxstr;
    struct rows_cursor *c = (struct rows_cursor *)vc;
    const struct rows_src *src = argc > 0 ? sqlite3_value_pointer(argv[0], ROWS_PTR) : NULL;
    *c = (struct rows_cursor){ .base = c->base };
    if (src != NULL) {
        c->p = src->p;
        c->end = src->end;
        c->n = src->n;
        rows_parse(c);
    }
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *vc)
{
    struct rows_cursor *c = (struct rows_cursor *)vc;
    c->p = c->next;
    c->rowid++;
    rows_parse(c);
    return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *vc)
{
    const struct rows_cursor *c = (const struct rows_cursor *)vc;
    return c->p >= c->end;
}

static int rows_column(sqlite3_vtab_cursor *vc, sqlite3_context *ctx, int i)
{
    const struct rows_cursor *c = (const struct rows_cursor *)vc;
    if (i >= c->n)
        return SQLITE_OK;           /* left NULL */
    const unsigned char *p = c->val[i];
    int type = *p++;
    if (type == ROW_INT) {
        int64_t x;
        memcpy(&x, p, 8);
        sqlite3_result_int64(ctx, x);
    } else if (type == ROW_REAL) {
        double x;
        memcpy(&x, p, 8);
        sqlite3_result_double(ctx, x);
    } else if (type == ROW_TEXT) {
        uint32_t len;
        memcpy(&len, p, 4);
        sqlite3_result_text(ctx, (const char *)p + 4, (int)len, SQLITE_STATIC);
    }
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *vc, sqlite3_int64 *out)
{
    *out = ((const struct rows_cursor *)vc)->rowid;
    return SQLITE_OK;
}

/* eponymous only (no xCreate): nothing of it is ever in a file's schema */
static const sqlite3_module rows_module = {
    .xConnect = rows_connect, .xBestIndex = rows_best_index, .xDisconnect = rows_disconnect,
    .xOpen = rows_open, .xClose = rows_close, .xFilter = rows_filter, .xNext = rows_next,
    .xEof = rows_eof, .xColumn = rows_column, .xRowid = rows_rowid,
};

int db_open(db **out, const char *path, struct errbuf *err)
{
    *out = NULL;
    db *d = calloc(1, sizeof *d);
    if (d == NULL || (d->path = strdup(path)) == NULL) {
        free(d);
        return err_run(err, "out of memory");
    }
    for (int t = 0; t < NTABLES; t++)
        d->spool[t].fd = -1;
    if (path_make_parent(path) < 0) {
        err_run(err, "%s: cannot create its directory", path);
        free(d->path);
        free(d);
        return -1;
    }
    /* NOMUTEX: a handle is used by one thread (a sweep's workers are processes), so SQLite's
     * per-call connection mutex is pure cost, a tenth of the writer's time */
    if (sqlite3_open_v2(path, &d->h,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        fail(d, err, "cannot open database");
        db_close(d);
        return -1;
    }
    sqlite3_busy_timeout(d->h, 60000);
    if (sqlite3_create_function(d->h, "hetsim_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, sql_hash, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_module(d->h, "hetsim_rows", &rows_module, NULL) != SQLITE_OK) {
        fail(d, err, "cannot register its functions");
        db_close(d);
        return -1;
    }
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
    if (version < 0 || version > SCHEMA_VERSION) {
        err_run(err, "%s: schema version %d, this hetsim writes version %d", path, version,
                SCHEMA_VERSION);
        db_close(d);
        return -1;
    }
    char page[48];
    snprintf(page, sizeof page, "PRAGMA page_size=%d", PAGE_SIZE);  /* new files only */
    if (exec_retry(d, page, err) < 0 || exec_retry(d, "PRAGMA journal_mode=WAL", err) < 0 ||
        exec_retry(d, "PRAGMA synchronous=NORMAL", err) < 0 ||
        exec_retry(d, "PRAGMA foreign_keys=OFF", err) < 0 ||     /* see the file's head */
        ((version != SCHEMA_VERSION || missing_table(d)) && setup_schema(d, version, err) < 0)) {
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

static void pending_free(struct pending *p)
{
    free(p->experiment);
    free(p->domain);
    free(p->policy);
    free(p->cluster);
    free(p->cluster_name);
    free(p->config_json);
    free(p->version);
    free(p->sweep);
    free(p->started_at);
    for (int i = 0; i < p->nparams; i++) {
        free(p->keys[i]);
        free(p->values[i]);
    }
    free(p->keys);
    free(p->values);
    for (int i = 0; i < p->nser; i++)
        free(p->ser[i].name);
    free(p->ser);
    memset(p, 0, sizeof *p);
}


/* ---------------------------------------------------------------- spools */

/* Write all n bytes at offset off. */
static int write_at(int fd, const void *p, size_t n, off_t off)
{
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t k = pwrite(fd, c, n, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* Read all n bytes at offset off. */
static int read_at(int fd, void *p, size_t n, off_t off)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t k = pread(fd, c, n, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* A new file for spools, already unlinked: it lives as long as the descriptor. */
static int spool_file(void)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[PATH_MAX_LEN];
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if ((size_t)snprintf(tmpl, sizeof tmpl, "%s/hetsim-rows-XXXXXX", dir) >= sizeof tmpl) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -1;
    unlink(tmpl);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

/* Move the chunk being filled to the spool's file. */
static int spool_flush(db *d, struct spool *sp, struct errbuf *err)
{
    if (sp->len == 0)
        return 0;
    if (sp->fd < 0 && (sp->fd = spool_file()) < 0)
        return err_run(err, "%s: cannot create a file for the run's rows in %s: %s", d->path,
                       getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
    size_t len = sp->len;
    if (write_at(sp->fd, &len, sizeof len, sp->filed) < 0 ||
        write_at(sp->fd, sp->buf, len, sp->filed + (off_t)sizeof len) < 0)
        return err_run(err, "%s: writing the run's rows to a temporary file: %s", d->path,
                       errno ? strerror(errno) : "short write");
    sp->filed += (off_t)(sizeof len + len);
    sp->len = 0;
    return 0;
}

/* Room for a record of `need` bytes at the end of the chunk. */
static unsigned char *spool_room(db *d, struct spool *sp, size_t need, struct errbuf *err)
{
    if (sp->len + need > sp->cap) {
        if (spool_flush(d, sp, err) < 0)
            return NULL;
        if (need > sp->cap) {
            size_t cap = need > CHUNK ? need : CHUNK;
            unsigned char *g = realloc(sp->buf, cap);
            if (g == NULL) {
                err_run(err, "out of memory");
                return NULL;
            }
            sp->buf = g;
            sp->cap = cap;
        }
    }
    return sp->buf + sp->len;
}

static void spool_clear(struct spool *sp)
{
    sp->len = 0;
    if (sp->fd >= 0 && sp->filed > 0 && ftruncate(sp->fd, 0) < 0) {
        close(sp->fd);          /* cannot reuse it: the next run starts a new file */
        sp->fd = -1;
    }
    sp->filed = 0;
}

void db_close(db *d)
{
    if (d == NULL)
        return;
    db_run_abort(d);
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(d->st[i]);
    for (int i = 0; i < d->nrows; i++) {
        sqlite3_finalize(d->rows[i].ins);
    }
    for (int t = 0; t < NTABLES; t++) {
        free(d->spool[t].buf);
        if (d->spool[t].fd >= 0)
            close(d->spool[t].fd);
    }
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

static char *dup_or_null(const char *s, int *oom)
{
    if (s == NULL)
        return NULL;
    char *c = strdup(s);
    *oom |= c == NULL;
    return c;
}

int db_run_begin(db *d, const struct db_run *r, struct errbuf *err)
{
    db_run_abort(d);
    struct pending *p = &d->run;
    int oom = 0;
    p->experiment = dup_or_null(r->experiment, &oom);
    p->domain = dup_or_null(r->domain, &oom);
    p->policy = dup_or_null(r->policy, &oom);
    p->cluster = dup_or_null(r->cluster, &oom);
    p->cluster_name = dup_or_null(r->cluster_name ? r->cluster_name : r->cluster, &oom);
    p->config_json = dup_or_null(r->config_json, &oom);
    p->version = dup_or_null(r->version, &oom);
    p->sweep = dup_or_null(r->sweep, &oom);
    p->seed = r->seed;
    p->sample_repeats = r->sample_repeats;
    if (r->nparams > 0) {
        p->keys = calloc((size_t)r->nparams, sizeof *p->keys);
        p->values = calloc((size_t)r->nparams, sizeof *p->values);
        oom |= p->keys == NULL || p->values == NULL;
        for (int i = 0; !oom && i < r->nparams; i++, p->nparams++) {
            p->keys[i] = dup_or_null(r->params[i].key, &oom);
            p->values[i] = dup_or_null(r->params[i].value_json, &oom);
        }
    }
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    p->started_at = dup_or_null(when, &oom);
    if (oom) {
        pending_free(p);
        return err_run(err, "out of memory");
    }
    d->open_run = 1;
    return 0;
}

/* ---------------------------------------------------------------- rows */

/* "INSERT OR FAIL INTO main.<table>(run_id, "col", ...) SELECT ?1, c0, ... FROM
 * hetsim_rows(?2)" */
static char *insert_sql(const struct rowstmt *r)
{
    size_t cap = 96 + strlen(r->table) + 8 * (size_t)r->n;   /* ", c31" per value */
    for (int i = 0; i < r->n; i++)
        cap += 4 + strlen(r->cols[i]);
    char *sql = malloc(cap);
    if (sql == NULL)
        return NULL;
    size_t k = (size_t)snprintf(sql, cap, "INSERT OR FAIL INTO main.%s(run_id", r->table);
    for (int i = 0; i < r->n; i++)
        k += (size_t)snprintf(sql + k, cap - k, ", \"%s\"", r->cols[i]);
    k += (size_t)snprintf(sql + k, cap - k, ") SELECT ?1");
    for (int i = 0; i < r->n; i++)
        k += (size_t)snprintf(sql + k, cap - k, ", c%d", i);
    k += (size_t)snprintf(sql + k, cap - k, " FROM hetsim_rows(?2)");
    assert(k < cap);
    return sql;
}

/* The insert for (table, cols), found by the address of cols; made and prepared on its first
 * row, so that an unknown table or column is reported there. */
static struct rowstmt *row_stmt(db *d, const char *table, const char *const *cols, int n,
                                struct errbuf *err)
{
    for (int i = 0; i < d->nrows; i++) {
        struct rowstmt *r = &d->rows[i];
        if (r->cols == cols && r->n == n && strcmp(r->table, table) == 0)
            return r;
    }
    int t = 0;
    while (db_tables[t].name != NULL && strcmp(db_tables[t].name, table) != 0)
        t++;
    if (db_tables[t].name == NULL || !db_tables[t].staged) {
        err_run(err, "%s: no per-run table '%s' to write rows into", d->path, table);
        return NULL;
    }
    if (d->nrows == MAX_ROWSTMTS) {
        err_run(err, "%s: more than %d kinds of rows in one run", d->path, MAX_ROWSTMTS);
        return NULL;
    }
    if (n < 0 || n > VT_COLS) {
        err_run(err, "%s: a row of %s with %d values (at most %d)", d->path, table, n, VT_COLS);
        return NULL;
    }
    struct rowstmt *r = &d->rows[d->nrows];
    *r = (struct rowstmt){ .table = db_tables[t].name, .cols = cols, .n = n, .t = t };
    char *sql = insert_sql(r);
    if (sql == NULL) {
        err_run(err, "out of memory");
        return NULL;
    }
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &r->ins, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        err_run(err, "%s: a row of %s: %s", d->path, table, sqlite3_errmsg(d->h));
        sqlite3_finalize(r->ins);
        r->ins = NULL;
        return NULL;
    }
    d->nrows++;
    return r;
}

/* Bytes of a record: its statement's index, then per value a type byte and its bytes. */
static size_t record_size(const struct row_value *v, int n, struct errbuf *err)
{
    size_t need = 1;
    for (int i = 0; i < n; i++) {
        need += 1;
        if (v[i].type == ROW_INT || v[i].type == ROW_REAL) {
            need += 8;
        } else if (v[i].type == ROW_TEXT) {
            size_t len = strlen(v[i].v.s);
            if (len > 0x7fffffff) {
                err_run(err, "a text value of %zu bytes in a row", len);
                return 0;
            }
            need += 4 + len;
        }
    }
    return need;
}

static int spool_row(db *d, struct rowstmt *r, const struct row_value *v, struct errbuf *err)
{
    size_t need = record_size(v, r->n, err);
    if (need == 0)
        return -1;
    struct spool *sp = &d->spool[r->t];
    unsigned char *p = spool_room(d, sp, need, err);
    if (p == NULL)
        return -1;
    *p++ = (unsigned char)(r - d->rows);
    for (int i = 0; i < r->n; i++) {
        int type = v[i].type == ROW_INT || v[i].type == ROW_REAL || v[i].type == ROW_TEXT
                       ? v[i].type : ROW_NULL;
        *p++ = (unsigned char)type;
        if (type == ROW_INT) {
            memcpy(p, &v[i].v.i, 8);
            p += 8;
        } else if (type == ROW_REAL) {
            memcpy(p, &v[i].v.r, 8);
            p += 8;
        } else if (type == ROW_TEXT) {
            uint32_t len = (uint32_t)strlen(v[i].v.s);
            memcpy(p, &len, 4);
            memcpy(p + 4, v[i].v.s, len);
            p += 4 + len;
        }
    }
    sp->len += need;
    return 0;
}

int db_row(db *d, const char *table, const char *const *cols, const struct row_value *v,
           int n, struct errbuf *err)
{
    if (!d->open_run)
        return err_run(err, "%s: a row of %s outside a run", d->path, table);
    struct rowstmt *r = row_stmt(d, table, cols, n, err);
    return r != NULL ? spool_row(d, r, v, err) : -1;
}

static int put_sample(db *d, double t_s, const char *name, double value, struct errbuf *err)
{
    struct row_value v[] = { row_real(t_s), row_text(name), row_real(value) };
    return db_row(d, "samples", sample_cols, v, 3, err);
}

/* The series called name, added (with nothing stored yet) if new; NULL when out of memory. */
static struct series *series_of(struct pending *p, const char *name, int *is_new)
{
    for (int i = 0; i < p->nser; i++)
        if (strcmp(p->ser[i].name, name) == 0) {
            *is_new = 0;
            return &p->ser[i];
        }
    if (p->nser == p->cap_ser) {
        int cap = p->cap_ser ? 2 * p->cap_ser : 16;
        struct series *g = realloc(p->ser, (size_t)cap * sizeof *g);
        if (g == NULL)
            return NULL;
        p->ser = g;
        p->cap_ser = cap;
    }
    struct series *s = &p->ser[p->nser];
    *s = (struct series){ .name = strdup(name) };
    if (s->name == NULL)
        return NULL;
    p->nser++;
    *is_new = 1;
    return s;
}

int db_sample(db *d, double t_s, const char *name, double value, struct errbuf *err)
{
    if (d->run.sample_repeats)
        return put_sample(d, t_s, name, value, err);
    int is_new;
    struct series *s = series_of(&d->run, name, &is_new);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (!is_new && value == s->last) {
        s->held = 1;            /* a repeat: the previous held point, if any, is interior */
        s->held_t = t_s;
        return 0;
    }
    if (s->held && put_sample(d, s->held_t, name, s->last, err) < 0)
        return -1;
    s->held = 0;
    s->last = value;
    return put_sample(d, t_s, name, value, err);
}

/* Store the points still held back: each ends its series' last flat stretch. */
static int flush_samples(db *d, struct errbuf *err)
{
    for (int i = 0; i < d->run.nser; i++) {
        struct series *s = &d->run.ser[i];
        if (s->held && put_sample(d, s->held_t, s->name, s->last, err) < 0)
            return -1;
        s->held = 0;
    }
    return 0;
}

int db_metric(db *d, const char *name, double value, struct errbuf *err)
{
    struct row_value v[] = { row_text(name), row_real(value) };
    return db_row(d, "metrics", metric_cols, v, 2, err);
}

/* ---------------------------------------------------------------- the commit */

/* The byte after the record at p. */
static const unsigned char *skip_record(const struct db *d, const unsigned char *p)
{
    int n = d->rows[*p++].n;
    for (int i = 0; i < n; i++)
        p = skip_value(p);
    return p;
}

/* Insert the records of one chunk, in order: each stretch of records of one statement in one
 * step, hetsim_rows reading them where they are. */
static int insert_chunk(db *d, const unsigned char *p, const unsigned char *end, int64_t id,
                        struct errbuf *err)
{
    while (p < end) {
        struct rowstmt *r = &d->rows[*p];
        const unsigned char *q = p;
        while (q < end && *q == *p)
            q = skip_record(d, q);
        struct rows_src src = { p, q, r->n };
        sqlite3_bind_int64(r->ins, 1, id);
        sqlite3_bind_pointer(r->ins, 2, &src, ROWS_PTR, NULL);
        int rc = step(d, r->ins, err);
        sqlite3_clear_bindings(r->ins);     /* src goes out of scope */
        if (rc < 0)
            return -1;
        p = q;
    }
    return 0;
}

/* Every spooled row of table t into the file: the chunks in its file, then the one in memory
 * (read back into the same buffer, so memory stays at one chunk). */
static int insert_spool(db *d, int t, int64_t id, struct errbuf *err)
{
    struct spool *sp = &d->spool[t];
    if (sp->fd >= 0 && sp->filed > 0) {
        if (spool_flush(d, sp, err) < 0)
            return -1;
        for (off_t off = 0; off < sp->filed;) {
            size_t len;
            if (read_at(sp->fd, &len, sizeof len, off) < 0)
                return err_run(err, "%s: reading the run's rows back: %s", d->path,
                               errno ? strerror(errno) : "short read");
            if (len > sp->cap) {
                unsigned char *g = realloc(sp->buf, len);
                if (g == NULL)
                    return err_run(err, "out of memory");
                sp->buf = g;
                sp->cap = len;
            }
            if (read_at(sp->fd, sp->buf, len, off + (off_t)sizeof len) < 0)
                return err_run(err, "%s: reading the run's rows back: %s", d->path,
                               errno ? strerror(errno) : "short read");
            if (insert_chunk(d, sp->buf, sp->buf + len, id, err) < 0)
                return -1;
            off += (off_t)(sizeof len + len);
        }
        return 0;
    }
    return insert_chunk(d, sp->buf, sp->buf + sp->len, id, err);
}

/* The run into the file, inside BEGIN IMMEDIATE: the runs row, the spooled rows, the params. */
static int insert_run(db *d, const struct db_run_end *e, int64_t *run_id, struct errbuf *err)
{
    const struct pending *p = &d->run;
    sqlite3_stmt *s = d->st[S_RUN];
    sqlite3_bind_text(s, 1, p->experiment, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, p->domain, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, p->policy, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, p->seed);
    sqlite3_bind_text(s, 5, p->cluster, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, p->config_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, p->version, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 8, e->sim_end_s);
    sqlite3_bind_text(s, 9, e->stop_reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 10, e->events);
    sqlite3_bind_int64(s, 11, e->decisions);
    sqlite3_bind_int64(s, 12, e->jobs_total);
    sqlite3_bind_double(s, 13, e->wall_s);
    sqlite3_bind_text(s, 14, p->started_at, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 15, p->cluster_name, -1, SQLITE_STATIC);
    if (step(d, s, err) < 0)
        return -1;
    int64_t id = sqlite3_last_insert_rowid(d->h);
    for (int t = 0; t < NTABLES; t++)
        if (db_tables[t].staged && insert_spool(d, t, id, err) < 0)
            return -1;
    for (int i = 0; i < p->nparams; i++) {
        s = d->st[S_PARAM];
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_text(s, 2, p->sweep ? p->sweep : "", -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, p->keys[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, p->values[i], -1, SQLITE_STATIC);
        if (step(d, s, err) < 0)
            return -1;
    }
    *run_id = id;
    return 0;
}

int db_run_commit(db *d, const struct db_run_end *e, int64_t *run_id, struct errbuf *err)
{
    if (!d->open_run)
        return err_run(err, "%s: no run to commit", d->path);
    if (flush_samples(d, err) < 0 || exec_retry(d, "BEGIN IMMEDIATE", err) < 0) {
        db_run_abort(d);
        return -1;
    }
    int rc = 0;
    if (insert_run(d, e, run_id, err) < 0 || exec_retry(d, "COMMIT", err) < 0) {
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
        rc = -1;
    }
    db_run_abort(d);        /* empties the spools */
    return rc;
}

void db_run_abort(db *d)
{
    if (!d->open_run)
        return;
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
    for (int t = 0; t < NTABLES; t++)
        spool_clear(&d->spool[t]);
    pending_free(&d->run);
    d->open_run = 0;
}
