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
 * db_tables order, inside one BEGIN IMMEDIATE transaction: BATCH consecutive rows of one
 * column list go through one multi-row INSERT (a step, its statement setup and its cursor
 * seeks shared by BATCH rows), the rest through a one-row INSERT.  Two kinds of per-row work
 * are left out because they cannot find anything: the foreign-key probe of runs(id) (the
 * handle runs with foreign_keys off: the only rows it writes with a run_id are a commit's,
 * with the id its runs row just got, and merge's, with ids it has just mapped; the probe
 * cost a seek per row, and turning it off and on per commit would recompile every prepared
 * statement) and the statement journal (INSERT OR FAIL: a failing row aborts the whole
 * transaction anyway, so no statement needs undoing on its own).  Measured on a
 * 1,000,000-job fifo trace (about 2 M rows), this writes the rows at about a quarter of the
 * CPU cost of staging them in temporary tables and copying those with INSERT ... SELECT.
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

enum { SCHEMA_VERSION = 4 };

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
    BATCH = 64,                 /* rows per multi-row INSERT (fewer if the variable limit says) */
    MAX_ROWSTMTS = 32,          /* column lists per connection */
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

/* The inserts into main.<table> for one list of columns: ?1 is the run id, then the row's
 * values; `batch` holds nbatch rows and is prepared at the first commit that fills one. */
struct rowstmt {
    const char         *table;
    const char *const  *cols;       /* the caller's array, compared by address */
    int                 n, t;       /* columns; index in db_tables */
    sqlite3_stmt       *one, *batch;
    int                 nbatch;
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
        exec_retry(d, db_schema_sql, err) < 0 || exec_retry(d, pragma, err) < 0 ||
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
    sqlite3_create_function(d->h, "hetsim_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                            sql_hash, NULL, NULL);
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
        sqlite3_finalize(d->rows[i].one);
        sqlite3_finalize(d->rows[i].batch);
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

/* "INSERT OR FAIL INTO main.<table>(run_id, cols) VALUES (?1, ?2, ...), (?1, ...)" for
 * nrows rows, numbered so that row k's value i is parameter 2 + k * n + i. */
static char *insert_sql(const struct rowstmt *r, int nrows)
{
    /* a column ", \"name\"", a row "(?1" ")" and ", " between rows, a value ", ?NNNNN" (the
     * parameter limit is below 10^6) */
    size_t cap = 64 + strlen(r->table) + (size_t)nrows * (8 + 9 * (size_t)r->n);
    for (int i = 0; i < r->n; i++)
        cap += 4 + strlen(r->cols[i]);
    char *sql = malloc(cap);
    if (sql == NULL)
        return NULL;
    size_t k = (size_t)snprintf(sql, cap, "INSERT OR FAIL INTO main.%s(run_id", r->table);
    for (int i = 0; i < r->n; i++)
        k += (size_t)snprintf(sql + k, cap - k, ", \"%s\"", r->cols[i]);
    k += (size_t)snprintf(sql + k, cap - k, ") VALUES ");
    for (int row = 0, p = 2; row < nrows; row++) {
        k += (size_t)snprintf(sql + k, cap - k, "%s(?1", row ? ", " : "");
        for (int i = 0; i < r->n; i++)
            k += (size_t)snprintf(sql + k, cap - k, ", ?%d", p++);
        k += (size_t)snprintf(sql + k, cap - k, ")");
    }
    assert(k < cap);
    return sql;
}

/* The inserts for (table, cols), found by the address of cols; made on its first row, when
 * the one-row insert is prepared so that an unknown table or column is reported there. */
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
    /* the batch must fit SQLite's limit on parameters: 1 + nbatch * n of them */
    int limit = sqlite3_limit(d->h, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
    struct rowstmt *r = &d->rows[d->nrows];
    *r = (struct rowstmt){ .table = db_tables[t].name, .cols = cols, .n = n, .t = t,
                           .nbatch = n > 0 ? (limit - 1) / n : 1 };
    if (r->nbatch > BATCH)
        r->nbatch = BATCH;
    if (r->nbatch < 1)
        r->nbatch = 1;          /* every row through the one-row insert */
    char *sql = insert_sql(r, 1);
    if (sql == NULL) {
        err_run(err, "out of memory");
        return NULL;
    }
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &r->one, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        err_run(err, "%s: a row of %s: %s", d->path, table, sqlite3_errmsg(d->h));
        sqlite3_finalize(r->one);
        r->one = NULL;
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

/* Bind the n values of the record at p to s's parameters first, first + 1, ...; returns the
 * byte after the record.  Texts are bound in place: the chunk outlives the step. */
static const unsigned char *bind_record(sqlite3_stmt *s, int first, const unsigned char *p,
                                        int n)
{
    for (int i = 0; i < n; i++) {
        int type = *p++;
        if (type == ROW_INT) {
            int64_t x;
            memcpy(&x, p, 8);
            sqlite3_bind_int64(s, first + i, x);
            p += 8;
        } else if (type == ROW_REAL) {
            double x;
            memcpy(&x, p, 8);
            sqlite3_bind_double(s, first + i, x);
            p += 8;
        } else if (type == ROW_TEXT) {
            uint32_t len;
            memcpy(&len, p, 4);
            sqlite3_bind_text(s, first + i, (const char *)p + 4, (int)len, SQLITE_STATIC);
            p += 4 + len;
        } else {
            sqlite3_bind_null(s, first + i);
        }
    }
    return p;
}

/* The byte after the record at p. */
static const unsigned char *skip_record(const struct db *d, const unsigned char *p)
{
    int n = d->rows[*p++].n;
    for (int i = 0; i < n; i++) {
        int type = *p++;
        if (type == ROW_INT || type == ROW_REAL) {
            p += 8;
        } else if (type == ROW_TEXT) {
            uint32_t len;
            memcpy(&len, p, 4);
            p += 4 + len;
        }
    }
    return p;
}

/* Insert the k records from p (all of statement r) one by one. */
static int insert_each(db *d, struct rowstmt *r, const unsigned char *p, int k, int64_t id,
                       struct errbuf *err)
{
    sqlite3_bind_int64(r->one, 1, id);
    for (int i = 0; i < k; i++) {
        p = bind_record(r->one, 2, p + 1, r->n);
        if (step(d, r->one, err) < 0)
            return -1;
    }
    return 0;
}

/* Insert the records of one chunk, in order: runs of nbatch records of one statement through
 * its multi-row insert, what is left of a run through its one-row insert. */
static int insert_chunk(db *d, const unsigned char *p, const unsigned char *end, int64_t id,
                        struct errbuf *err)
{
    while (p < end) {
        struct rowstmt *r = &d->rows[*p];
        const unsigned char *q = p;
        int k = 0;
        while (q < end && *q == *p && k < r->nbatch) {
            q = skip_record(d, q);
            k++;
        }
        if (k == r->nbatch && k > 1) {
            if (r->batch == NULL) {
                char *sql = insert_sql(r, r->nbatch);
                if (sql == NULL)
                    return err_run(err, "out of memory");
                int rc = sqlite3_prepare_v2(d->h, sql, -1, &r->batch, NULL);
                free(sql);
                if (rc != SQLITE_OK)
                    return fail(d, err, "preparing statements");
            }
            sqlite3_bind_int64(r->batch, 1, id);
            for (int i = 0, first = 2; i < k; i++, first += r->n)
                p = bind_record(r->batch, first, p + 1, r->n);
            if (step(d, r->batch, err) < 0)
                return -1;
        } else if (insert_each(d, r, p, k, id, err) < 0) {
            return -1;
        }
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
