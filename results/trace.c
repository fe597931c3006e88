/*
 * trace: the timeline of one run as Chrome trace-event JSON (trace.h).
 *
 * Passes over the run's rows, each one query in the order the file wants:
 *   nodes     the (node, type) pairs that held something: a process each, sorted by type
 *             (resources without a node, a microservice's containers, get a process per
 *             type);
 *   slices    rows on a resource ordered by (resource, start): a track per resource, and per
 *             resource a list of lanes (the end of each lane's last slice) so that
 *             overlapping slices (shares, a serving instance's requests) go to the lowest
 *             lane that is free, its track named on first use;
 *   counters  the changes of the queue and of each type's busy GPUs (GROUP BY time of +1/-1
 *             and +share/-share at the ends of intervals), summed as they come; the sampled
 *             util_* series, each value placed at the start of the period it averages;
 *   instants  each entity's arrival (its first row) and completion (its row ended by finish).
 * Timestamps are integer microseconds (the simulator's clock; rows hold seconds that came
 * from it, so rounding back is exact).  Cost: O(rows) time, O(lanes of one GPU) memory.
 */
#define _POSIX_C_SOURCE 200809L
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/base/path.h"
#include "../sim/base/version.h"
#include "db.h"

struct tx {
    sqlite3            *h;
    FILE               *f;
    int64_t             run;
    const char         *one;        /* "job" */
    const char         *res;        /* "GPU" */
    const char         *held;       /* the busy counter's name: "busy GPUs" */
    char                held_buf[96];
    long long           stride;     /* tids of one resource's lanes (below) */
    int64_t             node_end;   /* the node pids' end: pids of node-less types follow */
    char              **types;      /* the types of resources without a node, in pid order */
    int                 ntypes;
    int                 first;      /* no event written yet */
    struct trace_stats *st;
    struct errbuf      *err;
};

/* A JSON string: quotes and backslashes escaped, UTF-8 kept.  Control bytes become blanks:
 * Perfetto's JSON reader rejects them raw and takes no \\u escape (it fails the whole file). */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else
            fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
    }
    fputc('"', f);
}

static void sep(struct tx *x)
{
    fputs(x->first ? "\n" : ",\n", x->f);
    x->first = 0;
}

static long long usec(double s)
{
    return llround(s * 1e6);
}

static int prep(struct tx *x, const char *sql, sqlite3_stmt **q)
{
    if (sqlite3_prepare_v2(x->h, sql, -1, q, NULL) != SQLITE_OK)
        return err_run(x->err, "reading the timeline: %s", sqlite3_errmsg(x->h));
    sqlite3_bind_int64(*q, 1, x->run);
    return 0;
}

static int done(struct tx *x, sqlite3_stmt *q, int st)
{
    sqlite3_finalize(q);
    if (st != SQLITE_DONE)
        return err_run(x->err, "reading the timeline: %s", sqlite3_errmsg(x->h));
    return 0;
}

static const char *text(sqlite3_stmt *q, int col)
{
    const char *s = (const char *)sqlite3_column_text(q, col);
    return s ? s : "";
}

/* metadata: a process's or a thread's name and sort index */
static void meta(struct tx *x, const char *what, long long pid, long long tid, const char *name,
                 long long sort)
{
    sep(x);
    fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%lld,\"tid\":%lld,\"args\":"
            "{\"name\":", what, pid, tid);
    jstr(x->f, name);
    fprintf(x->f, "}}");
    sep(x);
    fprintf(x->f, "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%lld,\"tid\":%lld,"
            "\"args\":{\"sort_index\":%lld}}", what, pid, tid, sort);
}

/* Track ids.  Perfetto keys threads by tid across the whole trace and takes a process's main
 * thread to have tid == pid, so every tid is distinct from every pid: the run's process is
 * pid 1 (counters on its main thread, arrivals and completions on tids 2 and 3), node k is
 * pid 10 + k, the i-th type of resources without a node pid 10 + (nodes) + i, and lane l of
 * resource g is tid 1000000 + stride g + l, where stride (1000, or a power of 10 above the
 * most rows a resource has) bounds its lanes: a GPU's shares are >= 1/1000, and a serving
 * instance has as many lanes as requests at once. */
enum { RUN_PID = 1, ARRIVALS_TID = 2, COMPLETIONS_TID = 3 };
static long long node_pid(int64_t node) { return 10 + node; }
static long long res_tid(const struct tx *x, int64_t res, int lane)
{
    return 1000000 + x->stride * res + lane;
}

static int64_t count_of(sqlite3 *h, const char *sql, int64_t arg);

/* the pid of a row's process: its node's, or its type's when it has no node; -1 if none */
static long long pid_of(const struct tx *x, sqlite3_stmt *q, int node_col, int type_col)
{
    if (sqlite3_column_type(q, node_col) != SQLITE_NULL)
        return node_pid(sqlite3_column_int64(q, node_col));
    for (int i = 0; i < x->ntypes; i++)
        if (strcmp(x->types[i], text(q, type_col)) == 0)
            return node_pid(x->node_end + i);
    return -1;
}

static int nodes(struct tx *x)
{
    int64_t most = count_of(x->h, "SELECT max(n) FROM (SELECT count(*) AS n FROM timeline "
                                  "WHERE run_id = ?1 AND resource IS NOT NULL GROUP BY "
                                  "resource)", x->run);
    for (x->stride = 1000; most >= x->stride; x->stride *= 10)
        ;
    x->node_end = count_of(x->h, "SELECT max(node) + 1 FROM timeline WHERE run_id = ?1",
                           x->run);
    if (x->node_end < 0)
        x->node_end = 0;
    sqlite3_stmt *q;
    if (prep(x, "SELECT node, resource_type, count(DISTINCT resource) FROM timeline WHERE "
                "run_id = ?1 AND resource IS NOT NULL GROUP BY node, resource_type "
                "ORDER BY resource_type, node", &q) < 0)
        return -1;
    int st, k = 0;
    while ((st = sqlite3_step(q)) == SQLITE_ROW) {
        char name[256];
        long long pid;
        if (sqlite3_column_type(q, 0) == SQLITE_NULL) {
            char **t = realloc(x->types, (size_t)(x->ntypes + 1) * sizeof *t);
            if (t == NULL || (t[x->ntypes] = strdup(text(q, 1))) == NULL) {
                if (t != NULL)
                    x->types = t;
                sqlite3_finalize(q);
                return err_run(x->err, "out of memory");
            }
            x->types = t;
            pid = node_pid(x->node_end + x->ntypes++);
            snprintf(name, sizeof name, "%s", text(q, 1));
        } else {
            pid = node_pid(sqlite3_column_int64(q, 0));
            snprintf(name, sizeof name, "%s - node %lld", text(q, 1),
                     (long long)sqlite3_column_int64(q, 0));
        }
        meta(x, "process", pid, pid, name, ++k);
    }
    return done(x, q, st);
}

/* ---- slices */

struct lanes {
    long long *end;             /* per lane: the end of its last slice */
    int        n, cap;
};

/* the lowest lane free at `from`, added when none is; -1 when out of memory */
static int lane_for(struct lanes *l, long long from, long long to)
{
    int k = 0;
    while (k < l->n && l->end[k] > from)
        k++;
    if (k == l->n) {
        if (l->n == l->cap) {
            int cap = l->cap ? 2 * l->cap : 4;
            long long *e = realloc(l->end, (size_t)cap * sizeof *e);
            if (e == NULL)
                return -1;
            l->end = e;
            l->cap = cap;
        }
        l->n++;
    }
    l->end[k] = to;
    return k;
}

static int slices(struct tx *x, const char *policy)
{
    sqlite3_stmt *q;
    if (prep(x, "SELECT entity, resource, node, resource_type, start_s, end_s, state, share, "
                "cause, ends FROM timeline WHERE run_id = ?1 AND resource IS NOT NULL "
                "ORDER BY resource, start_s, end_s, entity", &q) < 0)
        return -1;
    struct lanes l = { 0 };
    int64_t cur = -1;
    int st, rc = 0;
    while (rc == 0 && (st = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t ent = sqlite3_column_int64(q, 0), gpu = sqlite3_column_int64(q, 1);
        int has_node = sqlite3_column_type(q, 2) != SQLITE_NULL;
        int64_t node = sqlite3_column_int64(q, 2);
        double from_s = sqlite3_column_double(q, 4), to_s = sqlite3_column_double(q, 5);
        double share = sqlite3_column_double(q, 7);
        const char *state = text(q, 6), *cause = text(q, 8);
        long long from = usec(from_s), to = usec(to_s);
        if (gpu != cur) {
            cur = gpu;
            l.n = 0;
        }
        int before = l.n, lane = lane_for(&l, from, to);
        if (lane < 0) {
            rc = err_run(x->err, "out of memory");
            break;
        }
        long long pid = pid_of(x, q, 2, 3), tid = res_tid(x, gpu, lane);
        if (l.n > before) {         /* a new track of this GPU */
            char name[96];
            if (lane == 0)
                snprintf(name, sizeof name, "%s %lld", x->res, (long long)gpu);
            else
                snprintf(name, sizeof name, "%s %lld (%d)", x->res, (long long)gpu, lane + 1);
            meta(x, "thread", pid, tid, name, tid);
            x->st->tracks++;
        }
        char name[160];
        if (strcmp(state, "running") == 0)
            snprintf(name, sizeof name, "%s %lld (%s)", x->one, (long long)ent, cause);
        else if (strcmp(state, "shared") == 0)
            snprintf(name, sizeof name, "%s %lld shared %.3g (%s)", x->one, (long long)ent,
                     share, cause);
        else
            snprintf(name, sizeof name, "%s %lld %s (%s)", x->one, (long long)ent, state,
                     cause);
        sep(x);
        fprintf(x->f, "{\"ph\":\"X\",\"name\":");
        jstr(x->f, name);
        fprintf(x->f, ",\"cat\":");
        jstr(x->f, state);
        fprintf(x->f, ",\"pid\":%lld,\"tid\":%lld,\"ts\":%lld,\"dur\":%lld,\"args\":{", pid,
                tid, from, to - from);
        jstr(x->f, x->one);
        fprintf(x->f, ":%lld,", (long long)ent);
        jstr(x->f, x->res);
        if (has_node)
            fprintf(x->f, ":%lld,\"node\":%lld,\"type\":", (long long)gpu, (long long)node);
        else
            fprintf(x->f, ":%lld,\"node\":null,\"type\":", (long long)gpu);
        jstr(x->f, text(q, 3));
        fprintf(x->f, ",\"state\":");
        jstr(x->f, state);
        fprintf(x->f, ",\"share\":%.17g,\"cause\":", share);
        jstr(x->f, cause);
        fprintf(x->f, ",\"ends\":");
        jstr(x->f, text(q, 9));
        fprintf(x->f, ",\"policy\":");
        jstr(x->f, policy);
        fprintf(x->f, ",\"start_s\":%.17g,\"end_s\":%.17g}}", from_s, to_s);
        x->st->slices++;
    }
    free(l.end);
    if (rc < 0) {
        sqlite3_finalize(q);
        return -1;
    }
    return done(x, q, st);
}

/* ---- counters */

/* one counter series being written: a point only where its value changes, from 0 at 0 */
struct series {
    double last;
    int    any;
};

static void counter(struct tx *x, const char *name, const char *key, long long ts, double v)
{
    sep(x);
    fprintf(x->f, "{\"ph\":\"C\",\"name\":");
    jstr(x->f, name);
    fprintf(x->f, ",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"args\":{", RUN_PID, RUN_PID, ts);
    jstr(x->f, key);
    fprintf(x->f, ":%.10g}}", v);
    x->st->counters++;
}

static void step_to(struct tx *x, struct series *s, const char *name, const char *key,
                    long long ts, double v)
{
    if (fabs(v) < 1e-9)         /* sums of shares: -0.0, 1e-17 */
        v = 0;
    if (!s->any && ts > 0)
        counter(x, name, key, 0, 0);
    if (!s->any || v != s->last)
        counter(x, name, key, ts, v);
    s->any = 1;
    s->last = v;
}

static int counters(struct tx *x)
{
    sqlite3_stmt *q;
    char name[160], key[96];
    /* Perfetto names a counter track "<name> <arg>" */
    snprintf(name, sizeof name, "queue");
    snprintf(key, sizeof key, "%ss waiting", x->one);
    if (prep(x, "SELECT t, sum(d) FROM (SELECT start_s AS t, 1 AS d FROM timeline WHERE "
                "run_id = ?1 AND state = 'queued' UNION ALL SELECT end_s, -1 FROM timeline "
                "WHERE run_id = ?1 AND state = 'queued') GROUP BY t ORDER BY t", &q) < 0)
        return -1;
    int st;
    double v = 0;
    struct series ser = { 0 };
    while ((st = sqlite3_step(q)) == SQLITE_ROW) {
        v += sqlite3_column_double(q, 1);
        step_to(x, &ser, name, key, usec(sqlite3_column_double(q, 0)), v);
    }
    if (done(x, q, st) < 0)
        return -1;
    /* busy resources by type: the sum of the shares held */
    if (prep(x, "SELECT type, t, sum(d) FROM (SELECT resource_type AS type, start_s AS t, "
                "share AS d FROM timeline WHERE run_id = ?1 AND resource IS NOT NULL "
                "UNION ALL SELECT resource_type, end_s, -share FROM timeline WHERE "
                "run_id = ?1 AND resource IS NOT NULL) GROUP BY type, t ORDER BY type, t",
             &q) < 0)
        return -1;
    char type[128] = "";
    snprintf(name, sizeof name, "%s", x->held);
    while ((st = sqlite3_step(q)) == SQLITE_ROW) {
        if (strcmp(type, text(q, 0)) != 0) {
            snprintf(type, sizeof type, "%s", text(q, 0));
            v = 0;
            ser = (struct series){ 0 };
        }
        v += sqlite3_column_double(q, 2);
        step_to(x, &ser, name, type, usec(sqlite3_column_double(q, 1)), v);
    }
    if (done(x, q, st) < 0)
        return -1;
    /* the sampled utilization: each value is the mean over the period ending at its time */
    if (prep(x, "SELECT name, t_s, value FROM samples WHERE run_id = ?1 AND name LIKE "
                "'util\\_%' ESCAPE '\\' ORDER BY name = 'util_total', name, t_s", &q) < 0)
        return -1;
    char series[128] = "";
    double prev = 0;
    snprintf(name, sizeof name, "utilization (sampled)");
    while ((st = sqlite3_step(q)) == SQLITE_ROW) {
        if (strcmp(series, text(q, 0)) != 0) {
            snprintf(series, sizeof series, "%s", text(q, 0));
            prev = 0;
        }
        double t = sqlite3_column_double(q, 1);
        counter(x, name, strcmp(series, "util_total") == 0 ? "all types" : series + 5,
                usec(prev), sqlite3_column_double(q, 2));
        prev = t;
    }
    return done(x, q, st);
}

/* ---- instants */

static int instants(struct tx *x)
{
    static const char *const sql[] = {
        "SELECT entity, min(start_s) FROM timeline WHERE run_id = ?1 GROUP BY entity "
        "ORDER BY 2, 1",
        "SELECT entity, max(end_s) FROM timeline WHERE run_id = ?1 AND ends = 'finish' "
        "GROUP BY entity ORDER BY 2, 1",
    };
    static const char *const what[] = { "arrival", "completion" };
    for (int k = 0; k < 2; k++) {
        sqlite3_stmt *q;
        if (prep(x, sql[k], &q) < 0)
            return -1;
        int st;
        while ((st = sqlite3_step(q)) == SQLITE_ROW) {
            char name[128];
            long long ent = sqlite3_column_int64(q, 0);
            snprintf(name, sizeof name, "%s %s %lld", what[k], x->one, ent);
            sep(x);
            fprintf(x->f, "{\"ph\":\"i\",\"s\":\"t\",\"name\":");
            jstr(x->f, name);
            fprintf(x->f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"args\":{",
                    what[k], RUN_PID, k ? COMPLETIONS_TID : ARRIVALS_TID,
                    usec(sqlite3_column_double(q, 1)));
            jstr(x->f, x->one);
            fprintf(x->f, ":%lld}}", ent);
            x->st->instants++;
        }
        if (done(x, q, st) < 0)
            return -1;
    }
    return 0;
}

/* ---- the run */

static int64_t count_of(sqlite3 *h, const char *sql, int64_t arg)
{
    sqlite3_stmt *q;
    int64_t n = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, arg);
        if (sqlite3_step(q) == SQLITE_ROW)
            n = sqlite3_column_type(q, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    return n;
}

/* Which run, checked: it exists and has timeline rows. */
static int pick_run(sqlite3 *h, const struct trace_opts *o, int64_t *run, struct errbuf *err)
{
    if (count_of(h, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                    "'timeline' AND ?1 = ?1", 0) <= 0)
        return err_input(err, NULL, 0, "--db", "%s has no timeline table (written by a hetsim "
                         "before timelines): run the experiment again with --set "
                         "sim.timeline=true", o->db_path);
    if (o->run <= 0) {
        *run = count_of(h, "SELECT max(run_id) FROM timeline WHERE ?1 = ?1", 0);
        if (*run < 0)
            return err_input(err, NULL, 0, "--run", "no run in %s has timeline rows: make one "
                             "with --set sim.timeline=true (e.g. hetsim run default --set "
                             "sim.timeline=true)", o->db_path);
        return 0;
    }
    *run = o->run;
    if (count_of(h, "SELECT count(*) FROM runs WHERE id = ?1", o->run) <= 0)
        return err_input(err, NULL, 0, "--run", "no run %lld in %s (its runs: %lld to %lld)",
                         (long long)o->run, o->db_path,
                         (long long)count_of(h, "SELECT min(id) FROM runs WHERE ?1 = ?1", 0),
                         (long long)count_of(h, "SELECT max(id) FROM runs WHERE ?1 = ?1", 0));
    if (count_of(h, "SELECT count(*) FROM timeline WHERE run_id = ?1", o->run) <= 0)
        return err_input(err, NULL, 0, "--run", "run %lld in %s has no timeline rows: it ran "
                         "without sim.timeline (run it again with --set sim.timeline=true)",
                         (long long)o->run, o->db_path);
    return 0;
}

static int header(struct tx *x, char *policy, size_t cap, const struct trace_opts *o)
{
    sqlite3_stmt *q;
    if (prep(x, "SELECT experiment, domain, policy, seed, cluster, version, config_hash, "
                "sim_end_s, stop_reason FROM runs WHERE id = ?1", &q) < 0)
        return -1;
    if (sqlite3_step(q) != SQLITE_ROW) {
        sqlite3_finalize(q);
        return err_run(x->err, "run %lld vanished from %s", (long long)x->run, o->db_path);
    }
    const char *domain = text(q, 1);
    const struct display *d = o->display_of ? o->display_of(domain) : NULL;
    x->one = d && d->entity_one ? d->entity_one : "entity";
    x->res = d && d->resource_one ? d->resource_one : "resource";
    if (d && d->timeline_held)
        snprintf(x->held_buf, sizeof x->held_buf, "%s", d->timeline_held);
    else
        snprintf(x->held_buf, sizeof x->held_buf, "busy %ss", x->res);
    x->held = x->held_buf;
    snprintf(policy, cap, "%s", text(q, 2));
    FILE *f = x->f;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":");
    jstr(f, "hetsim " HETSIM_VERSION);
    fprintf(f, ",\"run\":%lld,\"experiment\":", (long long)x->run);
    jstr(f, text(q, 0));
    fprintf(f, ",\"domain\":");
    jstr(f, domain);
    fprintf(f, ",\"policy\":");
    jstr(f, policy);
    fprintf(f, ",\"seed\":%lld,\"cluster\":", (long long)sqlite3_column_int64(q, 3));
    jstr(f, text(q, 4));
    fprintf(f, ",\"written_by\":");
    jstr(f, text(q, 5));
    fprintf(f, ",\"config_hash\":");
    jstr(f, text(q, 6));
    fprintf(f, ",\"sim_end_s\":%.17g,\"stop_reason\":", sqlite3_column_double(q, 7));
    jstr(f, text(q, 8));
    fprintf(f, ",\"time\":\"trace time is simulated time: 1 s of trace = 1 simulated s\"},"
               "\"traceEvents\":[");
    char name[512];
    snprintf(name, sizeof name, "%s: %s (run %lld)", text(q, 0), policy, (long long)x->run);
    sqlite3_finalize(q);
    meta(x, "process", RUN_PID, RUN_PID, name, 0);
    meta(x, "thread", RUN_PID, RUN_PID, "counters", 1);
    meta(x, "thread", RUN_PID, ARRIVALS_TID, "arrivals", 2);
    meta(x, "thread", RUN_PID, COMPLETIONS_TID, "completions", 3);
    return 0;
}

int trace_export(const struct trace_opts *o, FILE *out, struct trace_stats *st,
                 struct errbuf *err)
{
    memset(st, 0, sizeof *st);
    if (access(o->db_path, R_OK) != 0)
        return err_input(err, NULL, 0, "--db", "%s: no such database (run an experiment "
                         "first: hetsim run default --set sim.timeline=true)", o->db_path);
    sqlite3 *h;
    if (db_open_reader(&h, o->db_path) != SQLITE_OK) {
        err_input(err, NULL, 0, "--db", "%s: cannot open: %s", o->db_path, sqlite3_errmsg(h));
        sqlite3_close(h);
        return -1;
    }
    sqlite3_busy_timeout(h, 10000);
    struct tx x = { .h = h, .f = out, .first = 1, .st = st, .err = err };
    int rc = pick_run(h, o, &x.run, err);
    if (o->out_path != NULL)
        snprintf(st->path, sizeof st->path, "%s", o->out_path);
    else if (out == NULL)
        snprintf(st->path, sizeof st->path, "results/out/run%lld.trace.json", (long long)x.run);
    if (rc == 0 && st->path[0] != '\0' &&
        (path_make_parent(st->path) < 0 || (x.f = fopen(st->path, "w")) == NULL))
        rc = err_run(err, "%s: cannot write: %s", st->path, strerror(errno));
    char policy[256];
    st->run = x.run;
    if (rc == 0)
        rc = header(&x, policy, sizeof policy, o) < 0 || nodes(&x) < 0 ||
                     slices(&x, policy) < 0 || counters(&x) < 0 || instants(&x) < 0
                 ? -1
                 : 0;
    if (rc == 0)
        fputs("\n]}\n", x.f);
    if (x.f != NULL && x.f != out) {
        if ((ferror(x.f) | fclose(x.f)) && rc == 0)
            rc = err_run(err, "%s: write failed", st->path);
        if (rc < 0)
            unlink(st->path);
    } else if (x.f != NULL && (fflush(x.f) != 0 || ferror(x.f)) && rc == 0) {
        rc = err_run(err, "writing the trace failed");
    }
    for (int i = 0; i < x.ntypes; i++)
        free(x.types[i]);
    free(x.types);
    sqlite3_close(h);
    return rc;
}
