/*
 * db: SQLite writer.  A run's rows go into temporary staging tables (temp.stage_*, the same
 * columns as the real tables less run_id) inside one transaction on the temp schema, which
 * locks nothing in the file; the commit copies them with INSERT ... SELECT in one short
 * BEGIN IMMEDIATE transaction.  Inserting a row costs one bind/step/reset; the copy is
 * SQLite's own loop, a fraction of the staging cost.
 */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/path.h"

enum { SCHEMA_VERSION = 3 };

const struct db_table db_tables[] = {
    { "jobs", 1 },     { "job_gpu_seconds", 1 }, { "requests", 1 },
    { "pods", 1 },
    { "samples", 1 },  { "metrics", 1 },         { "run_params", 0 },
    { "timeline", 1 },
    { NULL, 0 },
};
enum { NTABLES = sizeof db_tables / sizeof db_tables[0] - 1 };

enum stmt { S_SAMPLE, S_METRIC, S_RUN, S_PARAM, S_N };

static const char *const stmt_sql[S_N] = {
    [S_SAMPLE] = "INSERT INTO temp.stage_samples VALUES (?,?,?)",
    [S_METRIC] = "INSERT INTO temp.stage_metrics VALUES (?,?)",
    [S_RUN] = "INSERT INTO main.runs(experiment, domain, policy, seed, cluster, config_json, "
              "config_hash, version, sim_end_s, stop_reason, events, decisions, jobs_total, "
              "wall_s, started_at, group_hash, cluster_name) "
              "VALUES (?,?,?,?,?,?,hetsim_hash(?6),?,?,?,?,?,?,?,?,"
              "hetsim_hash(json_remove(?6, '$.seed')),?)",
    [S_PARAM] = "INSERT INTO main.run_params VALUES (?,?,?,?,"
                "CASE WHEN json_type(?4) IN ('integer', 'real') THEN ?4 + 0 END)",
};

/* Each staged table of db_tables has a temp.stage_<name> twin with its columns less run_id,
 * made when the database opens, and a copy into the file (?1: the new run's id). */
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

/* a prepared insert into a staging table, for one list of columns */
struct rowstmt {
    const char         *table;
    const char *const  *cols;       /* the caller's array, compared by address */
    int                 n;
    sqlite3_stmt       *st;
};
enum { MAX_ROWSTMTS = 32 };

struct db {
    sqlite3       *h;
    sqlite3_stmt  *st[S_N];
    struct rowstmt rows[MAX_ROWSTMTS];
    int            nrows;
    sqlite3_stmt  *copy[NTABLES];   /* by db_tables index; NULL for tables not staged */
    int            open_run;        /* a run is being staged */
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

/* The staging twin of every staged table, and its copy into the file. */
static int setup_staging(db *d, struct errbuf *err)
{
    for (int t = 0; t < NTABLES; t++) {
        if (!db_tables[t].staged)
            continue;
        const char *name = db_tables[t].name;
        char cols[2048], sql[4608];
        if (db_columns(d->h, "main", name, "run_id", "", cols, sizeof cols) < 0)
            return fail(d, err, "reading the schema");
        snprintf(sql, sizeof sql, "CREATE TEMP TABLE IF NOT EXISTS stage_%s AS SELECT %s FROM "
                 "main.%s WHERE 0", name, cols, name);
        if (exec_retry(d, sql, err) < 0)
            return -1;
        snprintf(sql, sizeof sql, "INSERT INTO main.%s(run_id, %s) SELECT ?1, %s FROM "
                 "temp.stage_%s", name, cols, cols, name);
        if (sqlite3_prepare_v2(d->h, sql, -1, &d->copy[t], NULL) != SQLITE_OK)
            return fail(d, err, "preparing statements");
    }
    return 0;
}

/* Empty every staging table. */
static void clear_staging(db *d)
{
    for (int t = 0; t < NTABLES; t++)
        if (db_tables[t].staged) {
            char sql[96];
            snprintf(sql, sizeof sql, "DELETE FROM temp.stage_%s", db_tables[t].name);
            sqlite3_exec(d->h, sql, NULL, NULL, NULL);
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
    if (exec_retry(d, "PRAGMA journal_mode=WAL", err) < 0 ||
        exec_retry(d, "PRAGMA synchronous=NORMAL", err) < 0 ||
        exec_retry(d, "PRAGMA foreign_keys=ON", err) < 0 ||
        ((version != SCHEMA_VERSION || missing_table(d)) && setup_schema(d, version, err) < 0) ||
        setup_staging(d, err) < 0) {
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

void db_close(db *d)
{
    if (d == NULL)
        return;
    db_run_abort(d);
    for (int i = 0; i < S_N; i++)
        sqlite3_finalize(d->st[i]);
    for (int i = 0; i < NTABLES; i++)
        sqlite3_finalize(d->copy[i]);
    for (int i = 0; i < d->nrows; i++)
        sqlite3_finalize(d->rows[i].st);
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
    /* BEGIN on the temp schema only: staging takes no lock on the file */
    if (exec_retry(d, "BEGIN", err) < 0) {
        pending_free(p);
        return -1;
    }
    d->open_run = 1;
    return 0;
}

/* The insert for (table, cols), prepared once and kept. */
static sqlite3_stmt *row_stmt(db *d, const char *table, const char *const *cols, int n,
                              struct errbuf *err)
{
    for (int i = 0; i < d->nrows; i++) {
        struct rowstmt *r = &d->rows[i];
        if (r->cols == cols && r->n == n && strcmp(r->table, table) == 0)
            return r->st;
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
    char sql[4096];
    size_t k = (size_t)snprintf(sql, sizeof sql, "INSERT INTO temp.stage_%s(", table);
    for (int i = 0; i < n && k < sizeof sql; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s\"%s\"", i ? ", " : "", cols[i]);
    for (int i = 0; i < n && k < sizeof sql; i++)
        k += (size_t)snprintf(sql + k, sizeof sql - k, "%s", i ? ",?" : ") VALUES (?");
    if (k + 2 >= sizeof sql) {
        err_run(err, "%s: a row of %s with too many columns", d->path, table);
        return NULL;
    }
    snprintf(sql + k, sizeof sql - k, ")");
    struct rowstmt *r = &d->rows[d->nrows];
    if (sqlite3_prepare_v2(d->h, sql, -1, &r->st, NULL) != SQLITE_OK) {
        err_run(err, "%s: a row of %s: %s", d->path, table, sqlite3_errmsg(d->h));
        return NULL;
    }
    r->table = db_tables[t].name;
    r->cols = cols;
    r->n = n;
    d->nrows++;
    return r->st;
}

int db_row(db *d, const char *table, const char *const *cols, const struct row_value *v,
           int n, struct errbuf *err)
{
    sqlite3_stmt *s = row_stmt(d, table, cols, n, err);
    if (s == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        switch (v[i].type) {
        case ROW_INT:  sqlite3_bind_int64(s, i + 1, v[i].v.i); break;
        case ROW_REAL: sqlite3_bind_double(s, i + 1, v[i].v.r); break;
        case ROW_TEXT: sqlite3_bind_text(s, i + 1, v[i].v.s, -1, SQLITE_STATIC); break;
        default:       sqlite3_bind_null(s, i + 1); break;
        }
    return step(d, s, err);
}

static int put_sample(db *d, double t_s, const char *name, double value, struct errbuf *err)
{
    sqlite3_stmt *s = d->st[S_SAMPLE];
    sqlite3_bind_double(s, 1, t_s);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 3, value);
    return step(d, s, err);
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
    sqlite3_stmt *s = d->st[S_METRIC];
    sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 2, value);
    return step(d, s, err);
}

/* The copy into the file, inside BEGIN IMMEDIATE: the runs row, the staged rows, the params. */
static int copy_run(db *d, const struct db_run_end *e, int64_t *run_id, struct errbuf *err)
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
    for (int i = 0; i < NTABLES; i++) {
        if (d->copy[i] == NULL)
            continue;
        sqlite3_bind_int64(d->copy[i], 1, id);
        if (step(d, d->copy[i], err) < 0)
            return -1;
    }
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
    /* end the staging transaction, then copy under the file's write lock */
    if (flush_samples(d, err) < 0 || exec_retry(d, "COMMIT", err) < 0 ||
        exec_retry(d, "BEGIN IMMEDIATE", err) < 0) {
        db_run_abort(d);
        return -1;
    }
    if (copy_run(d, e, run_id, err) < 0 || exec_retry(d, "COMMIT", err) < 0) {
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
        db_run_abort(d);
        return -1;
    }
    db_run_abort(d);        /* clears the staging tables */
    return 0;
}

void db_run_abort(db *d)
{
    if (!d->open_run)
        return;
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
    clear_staging(d);
    pending_free(&d->run);
    d->open_run = 0;
}
