/*
 * test_trace: `hetsim trace` (results/trace.c) — the Chrome trace-event JSON of a run's
 * timeline, read back with a JSON parser: every slice is a timeline row on a GPU (same job,
 * GPU, node, times and state) and every such row a slice; slices of one track never overlap
 * (shares go to extra tracks of their GPU); every track is named; tids never equal a pid;
 * counters are the queue and busy GPUs, exact; arrivals and completions are one instant per
 * job.  One run checked by hand (3 jobs on 2 GPUs), shares laid out in lanes, what Perfetto's
 * JSON reader needs of the file (no \u escape, no control byte, no array in an event, only
 * the top-level keys it knows), and the errors: no run, no timeline, no table, bad --run.
 */
#include <cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/db.h"
#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

static char *tmp(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static cJSON *load(const char *path)
{
    char *text = slurp(path);
    /* what Perfetto's JSON reader rejects: a \u escape, a raw control byte */
    cr_assert_null(strstr(text, "\\u"), "a \\u escape in %s", path);
    for (const char *p = text; *p; p++)
        cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "a control byte in %s", path);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "%s is not JSON", path);
    free(text);
    /* the top-level keys it knows (another would make it skip the rest of the file) */
    for (const cJSON *k = doc->child; k != NULL; k = k->next)
        cr_assert(strcmp(k->string, "traceEvents") == 0 || strcmp(k->string, "otherData") == 0 ||
                  strcmp(k->string, "displayTimeUnit") == 0, "top-level key %s", k->string);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "displayTimeUnit")->valuestring, "ms");
    /* no array inside an event (its reader fails the file on one) */
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents")) {
        cr_assert(cJSON_IsObject(ev));
        for (const cJSON *f = ev->child; f != NULL; f = f->next)
            cr_assert(!cJSON_IsArray(f), "an array in an event");
    }
    return doc;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    cr_assert(cJSON_IsString(v), "no string %s", k);
    return v->valuestring;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    cr_assert(cJSON_IsNumber(v), "no number %s", k);
    return v->valuedouble;
}

/* ---- the structure of any trace, against its database ---- */

struct track {
    long long pid, tid, last_end;
    int named;
};

static struct track *track_of(struct track *t, int *n, long long pid, long long tid)
{
    for (int i = 0; i < *n; i++)
        if (t[i].tid == tid) {
            cr_assert_eq(t[i].pid, pid, "tid %lld in two processes", tid);
            return &t[i];
        }
    cr_assert_lt(*n, 4096);
    t[*n] = (struct track){ pid, tid, -1, 0 };
    return &t[(*n)++];
}

/* How a domain's trace names its rows: the slices' argument keys for the entity and the
 * resource, and the number of entities that arrived and that completed in a run (%lld). */
struct names {
    const char *one, *res, *arrived, *completed;
};

static const struct names training = {
    "job", "GPU", "SELECT count(*) FROM jobs WHERE run_id = %lld",
    "SELECT count(*) FROM jobs WHERE run_id = %lld AND finish_s IS NOT NULL" };

static int check_trace_of(const char *dbp, long long run, const char *path,
                          const struct names *nm);

/* Check the trace of run `run` in `dbp` written at `path`; returns its slices. */
static int check_trace(const char *dbp, long long run, const char *path)
{
    return check_trace_of(dbp, run, path, &training);
}

static int check_trace_of(const char *dbp, long long run, const char *path,
                          const struct names *nm)
{
    cJSON *doc = load(path);
    const cJSON *other = cJSON_GetObjectItem(doc, "otherData");
    cr_assert_eq((long long)num(other, "run"), run);
    struct track *tr = calloc(4096, sizeof *tr);
    int ntr = 0, slices = 0, arrivals = 0, completions = 0;
    long long pids[4096];
    char pname[4096][128];
    int npids = 0;
    double queue_min = 0, queue_last = -1;
    char sql[1024];
    const cJSON *ev;
    /* metadata first: which tracks are named */
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents")) {
        const char *ph = str(ev, "ph");
        long long pid = (long long)num(ev, "pid"), tid = (long long)num(ev, "tid");
        if (strcmp(ph, "M") != 0)
            continue;
        if (strcmp(str(ev, "name"), "process_name") == 0) {
            cr_assert_lt(npids, 4096);
            snprintf(pname[npids], sizeof pname[0], "%s",
                     str(cJSON_GetObjectItem(ev, "args"), "name"));
            pids[npids++] = pid;
        }
        if (strcmp(str(ev, "name"), "thread_name") == 0)
            track_of(tr, &ntr, pid, tid)->named = 1;
    }
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents")) {
        const char *ph = str(ev, "ph");
        long long pid = (long long)num(ev, "pid"), tid = (long long)num(ev, "tid");
        if (strcmp(ph, "M") == 0)
            continue;
        long long ts = (long long)num(ev, "ts");
        const cJSON *args = cJSON_GetObjectItem(ev, "args");
        if (strcmp(ph, "X") == 0) {
            long long dur = (long long)num(ev, "dur");
            cr_assert_gt(dur, 0);
            struct track *t = track_of(tr, &ntr, pid, tid);
            cr_assert(t->named, "track %lld has no name", tid);
            for (int i = 0; i < npids; i++)
                cr_assert_neq(tid, pids[i], "tid %lld is also a pid", tid);
            /* on one track slices never overlap (they are streamed in time order) */
            cr_assert_geq(ts, t->last_end, "overlapping slices on track %lld", tid);
            t->last_end = ts + dur;
            /* its timeline row */
            double from = num(args, "start_s"), to = num(args, "end_s");
            cr_assert_eq(ts, llround(from * 1e6));
            cr_assert_eq(ts + dur, llround(to * 1e6));
            char node[64];
            if (cJSON_IsNull(cJSON_GetObjectItem(args, "node"))) {
                /* no node (a service's containers): the process of its type */
                int named = 0;
                for (int i = 0; i < npids; i++)
                    named |= pids[i] == pid && strcmp(pname[i], str(args, "type")) == 0;
                cr_assert(named, "slice %s not in its type's process", str(ev, "name"));
                snprintf(node, sizeof node, "IS NULL");
            } else {
                cr_assert_eq(pid, 10 + (long long)num(args, "node"));
                snprintf(node, sizeof node, "= %lld", (long long)num(args, "node"));
            }
            snprintf(sql, sizeof sql, "SELECT count(*) FROM timeline WHERE run_id = %lld AND "
                     "entity = %lld AND resource = %lld AND node %s AND start_s = %.17g AND "
                     "end_s = %.17g AND state = '%s' AND cause = '%s' AND ends = '%s' AND "
                     "resource_type = '%s'", run, (long long)num(args, nm->one),
                     (long long)num(args, nm->res), node, from, to, str(args, "state"),
                     str(args, "cause"), str(args, "ends"), str(args, "type"));
            cr_assert_float_eq(th_db_value(dbp, sql), 1, 0, "no row for %s", str(ev, "name"));
            cr_assert(strstr(str(ev, "name"), str(args, "cause")) != NULL);
            slices++;
        } else if (strcmp(ph, "C") == 0) {
            cr_assert_eq(pid, 1);
            if (strcmp(str(ev, "name"), "queue") == 0) {
                char key[64];
                snprintf(key, sizeof key, "%ss waiting", nm->one);
                queue_last = num(args, key);
                queue_min = fmin(queue_min, queue_last);
            }
        } else if (strcmp(ph, "i") == 0) {
            cr_assert_str_eq(str(ev, "s"), "t");
            arrivals += tid == 2;
            completions += tid == 3;
        } else {
            cr_assert_fail("unexpected phase %s", ph);
        }
    }
    snprintf(sql, sizeof sql, "SELECT count(*) FROM timeline WHERE run_id = %lld AND resource "
             "IS NOT NULL", run);
    cr_assert_float_eq(slices, th_db_value(dbp, sql), 0, "every row on a GPU is a slice");
    snprintf(sql, sizeof sql, nm->arrived, run);
    cr_assert_float_eq(arrivals, th_db_value(dbp, sql), 0);
    snprintf(sql, sizeof sql, nm->completed, run);
    cr_assert_float_eq(completions, th_db_value(dbp, sql), 0);
    cr_assert_geq(queue_min, 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM timeline WHERE run_id = %lld AND state = "
             "'queued'", run);
    if (th_db_value(dbp, sql) > 0)
        cr_assert_eq(queue_last, 0, "the queue empties at the end");
    else
        cr_assert_eq(queue_last, -1, "a queue counter without queued rows");
    free(tr);
    cJSON_Delete(doc);
    return slices;
}

Test(trace, slices_are_the_timeline_rows_of_the_default_experiment, .timeout = 60)
{
    char *dbp = tmp("default.db"), *a = tmp("fifo.json"), *b = tmp("srtf.json");
    struct th_out o = RUN("run", "default", "--db", dbp, "-q", "--set", "sim.timeline=true");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--run", "1", "--out", a);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "run 1") != NULL, "%s", o.err);
    th_out_free(&o);
    cr_assert_gt(check_trace(dbp, 1, a), 300);
    /* without --run: the latest run with timeline rows */
    o = RUN("trace", "--db", dbp, "--out", b);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_gt(check_trace(dbp, 2, b), 300);
    free(dbp);
    free(a);
    free(b);
}

/* ---- one run by hand: tests/test_timeline.c's, 3 jobs on 2 V100s under SRTF ---- */

static const char hand_trace[] =
    "arrival_s,job_type,workers,duration_s\n"
    "0,ResNet-18 (batch size 64),1,100\n"
    "0,ResNet-18 (batch size 64),1,200\n"
    "10,ResNet-18 (batch size 64),1,30\n";
static const char hand_exp[] =
    "{ \"name\": \"hand\", \"domain\": \"training\", \"seed\": 1,\n"
    "  \"cluster\": { \"name\": \"two\", \"network\": \"ib-100g\", \"groups\": [\n"
    "    { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 } ] },\n"
    "  \"workload\": { \"format\": \"hetsim\", \"trace\": \"trace_hand.csv\" },\n"
    "  \"policies\": [\"srtf\"],\n"
    "  \"sim\": { \"restore_delay_s\": 5, \"timeline\": true } }\n";

Test(trace, three_jobs_on_two_gpus_by_hand)
{
    free(th_write("trace_hand.csv", hand_trace));
    char *exp = th_write("trace_hand.json", hand_exp);
    char *dbp = tmp("hand.db"), *out = tmp("hand.trace.json");
    struct th_out o = RUN("run", exp, "--db", dbp, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--run", "1", "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    check_trace(dbp, 1, out);
    cJSON *doc = load(out);
    /* GPU 0: job 0 [0, 100).  GPU 1: job 1 [0, 10), job 2 [10, 40), job 1 restoring [40,
     * 45) and running [45, 235).  Times in microseconds. */
    static const struct { const char *name; long long tid, ts, dur; } want[] = {
        { "job 0 (start)", 1000000, 0, 100000000 },
        { "job 1 (start)", 1001000, 0, 10000000 },
        { "job 2 (start)", 1001000, 10000000, 30000000 },
        { "job 1 restoring (resume)", 1001000, 40000000, 5000000 },
        { "job 1 (resume)", 1001000, 45000000, 190000000 },
    };
    /* the queue: job 1 waits from 10 to 40; busy V100s: 2 until 100, 1 until 235 */
    static const struct { const char *name; long long ts; double v; } counters[] = {
        { "queue", 0, 0 }, { "queue", 10000000, 1 }, { "queue", 40000000, 0 },
        { "busy GPUs", 0, 2 }, { "busy GPUs", 100000000, 1 }, { "busy GPUs", 235000000, 0 },
    };
    static const struct { const char *name; long long ts; } instants[] = {
        { "arrival job 0", 0 }, { "arrival job 1", 0 }, { "arrival job 2", 10000000 },
        { "completion job 2", 40000000 }, { "completion job 0", 100000000 },
        { "completion job 1", 235000000 },
    };
    int nx = 0, nc = 0, ni = 0, named_node = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents")) {
        const char *ph = str(ev, "ph");
        const cJSON *args = cJSON_GetObjectItem(ev, "args");
        if (strcmp(ph, "X") == 0) {
            cr_assert_lt(nx, 5);
            cr_assert_str_eq(str(ev, "name"), want[nx].name);
            cr_assert_eq((long long)num(ev, "tid"), want[nx].tid);
            cr_assert_eq((long long)num(ev, "pid"), 10);
            cr_assert_eq((long long)num(ev, "ts"), want[nx].ts);
            cr_assert_eq((long long)num(ev, "dur"), want[nx].dur);
            cr_assert_str_eq(str(args, "policy"), "srtf");
            nx++;
        } else if (strcmp(ph, "C") == 0 &&
                   strcmp(str(ev, "name"), "utilization (sampled)") == 0) {
            /* the samples table's, per type and over all types */
            cr_assert(cJSON_IsNumber(args->child) && args->child->valuedouble >= 0);
        } else if (strcmp(ph, "C") == 0) {
            cr_assert_lt(nc, 6);
            cr_assert_str_eq(str(ev, "name"), counters[nc].name);
            cr_assert_eq((long long)num(ev, "ts"), counters[nc].ts);
            cr_assert_float_eq(num(args, nc < 3 ? "jobs waiting" : "V100-16GB"),
                               counters[nc].v, 0);
            nc++;
        } else if (strcmp(ph, "i") == 0) {
            cr_assert_lt(ni, 6);
            cr_assert_str_eq(str(ev, "name"), instants[ni].name);
            cr_assert_eq((long long)num(ev, "ts"), instants[ni].ts);
            ni++;
        } else if (strcmp(str(ev, "name"), "process_name") == 0 &&
                   (long long)num(ev, "pid") == 10) {
            cr_assert_str_eq(str(args, "name"), "V100-16GB - node 0");
            named_node = 1;
        }
    }
    cr_assert_eq(nx, 5);
    cr_assert_eq(nc, 6);
    cr_assert_eq(ni, 6);
    cr_assert(named_node);
    const cJSON *other = cJSON_GetObjectItem(doc, "otherData");
    cr_assert_str_eq(str(other, "policy"), "srtf");
    cr_assert_str_eq(str(other, "experiment"), "hand");
    cJSON_Delete(doc);
    free(exp);
    free(dbp);
    free(out);
}

/* ---- shares: overlapping slices of one GPU go to lanes ---- */

static const char *const tl_cols[] = { "entity", "resource", "node", "resource_type",
                                       "start_s", "end_s", "state", "share", "cause", "ends" };

static void tl_row(db *d, int64_t ent, double from, double to, const char *state,
                   double share)
{
    struct errbuf err;
    err_clear(&err);
    struct row_value v[] = { row_int(ent), row_int(3), row_int(1), row_text("T4"),
                             row_real(from), row_real(to), row_text(state), row_real(share),
                             row_text("start"), row_text("finish") };
    cr_assert_eq(db_row(d, "timeline", tl_cols, v, 10, &err), 0, "%s", err.msg);
}

Test(trace, shared_gpus_take_one_track_per_lane)
{
    char *path = tmp("lanes.db"), *out = tmp("lanes.json");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    struct db_run r = { .experiment = "lanes", .domain = "training", .policy = "mine",
                        .cluster = "c", .config_json = "{}", .version = "test", .seed = 1 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    /* GPU 3 held by three jobs at half each, two at a time: a and b overlap, c follows a */
    tl_row(d, 1, 0, 10, "shared", 0.5);
    tl_row(d, 2, 5, 20, "shared", 0.5);
    tl_row(d, 3, 10, 30, "shared", 0.5);
    tl_row(d, 4, 30, 31, "running", 1);
    struct db_run_end e = { 31, 0, "drained", 1, 1, 4 };
    int64_t id;
    cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
    db_close(d);
    struct th_out o = RUN("trace", "--db", path, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cJSON *doc = load(out);
    long long tid_of[5] = { 0 };
    int thread_names = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents")) {
        if (strcmp(str(ev, "ph"), "X") == 0)
            tid_of[(int)num(cJSON_GetObjectItem(ev, "args"), "job")] = (long long)num(ev, "tid");
        if (strcmp(str(ev, "name"), "thread_name") == 0 && (long long)num(ev, "pid") == 11) {
            const char *n = str(cJSON_GetObjectItem(ev, "args"), "name");
            cr_assert(strcmp(n, "GPU 3") == 0 || strcmp(n, "GPU 3 (2)") == 0, "%s", n);
            thread_names++;
        }
    }
    cr_assert_eq(thread_names, 2);
    cr_assert_eq(tid_of[1], 1003000);
    cr_assert_eq(tid_of[2], 1003001);       /* overlaps job 1: the second lane */
    cr_assert_eq(tid_of[3], 1003000);       /* job 1 has left the first lane */
    cr_assert_eq(tid_of[4], 1003000);
    cJSON_Delete(doc);
    free(path);
    free(out);
}

/* ---- errors ---- */

Test(trace, errors_name_the_option)
{
    char *dbp = tmp("errors.db"), *out = tmp("errors.json");
    struct th_out o = RUN("trace", "--db", dbp, "--out", out);
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--db") != NULL && strstr(o.err, "no such database") != NULL,
              "%s", o.err);
    th_out_free(&o);
    /* a run without the timeline */
    o = RUN("run", "default", "--db", dbp, "-q", "--policy", "fifo", "--set",
            "workload.max_jobs=20");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--run", "1", "--out", out);
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--run: run 1") != NULL &&
              strstr(o.err, "--set sim.timeline=true") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--out", out);
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--run: no run in") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--run", "7", "--out", out);
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--run: no run 7") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "--run", "x1");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--run needs a run id") != NULL, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(access(out, F_OK), -1, "no file is left behind");
    free(dbp);
    free(out);
}

Test(trace, to_standard_output)
{
    free(th_write("trace_hand.csv", hand_trace));
    char *exp = th_write("trace_stdout.json", hand_exp);
    char *dbp = tmp("stdout.db");
    struct th_out o = RUN("run", exp, "--db", dbp, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("trace", "--db", dbp, "-o", "-");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cJSON *doc = cJSON_Parse(o.out);
    cr_assert_not_null(doc);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "traceEvents")) > 10, 1);
    cJSON_Delete(doc);
    th_out_free(&o);
    free(exp);
    free(dbp);
}

/* ---- every world's trace against its rows ---- */

static void trace_world(const char *name, const char *const *run_args, const struct names *nm,
                        int min_slices)
{
    char dbn[64], outn[64];
    snprintf(dbn, sizeof dbn, "%s.db", name);
    snprintf(outn, sizeof outn, "%s.trace.json", name);
    char *dbp = tmp(dbn), *out = tmp(outn);
    const char *args[24];
    int n = 0;
    for (; run_args[n] != NULL; n++)
        args[n] = run_args[n];
    const char *tail[] = { "--db", dbp, "-q", "--set", "sim.timeline=true", NULL };
    for (int i = 0; tail[i] != NULL; i++)
        args[n++] = tail[i];
    args[n] = NULL;
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    long long runs = (long long)th_db_value(dbp, "SELECT count(*) FROM runs");
    for (long long r = 1; r <= runs; r++) {
        char rs[32];
        snprintf(rs, sizeof rs, "%lld", r);
        o = RUN("trace", "--db", dbp, "--run", rs, "--out", out);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        cr_assert_geq(check_trace_of(dbp, r, out, nm), min_slices, "%s run %lld", name, r);
    }
    free(dbp);
    free(out);
}

Test(trace, pollux_mode, .timeout = 120)
{
    static const char *const a[] = { "run", "pollux_wl1", "--set", "workload.max_jobs=40",
                                     NULL };
    trace_world("pollux", a, &training, 40);
}

Test(trace, placement, .timeout = 60)
{
    free(th_write("trace_n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                                 "n0,32000,65536,8,G2\nn1,16000,32768,4,V100M16\n"
                                 "n2,8000,16384,2,T4\n"));
    char pods[8192];
    size_t n = (size_t)snprintf(pods, sizeof pods, "name,cpu_milli,memory_mib,num_gpu,"
                                                   "gpu_milli,gpu_spec\n");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(pods + n, sizeof pods - n, "p%d,1000,1024,%d,%d,\n", i,
                              i % 7 == 0 ? 2 : 1,
                              i % 7 == 0 || i % 3 == 0 ? 1000 : 150 + 10 * i);
    free(th_write("trace_p.csv", pods));
    char *exp = th_write("trace_place.json",
                         "{ \"name\": \"tp\", \"domain\": \"placement\", \"seed\": 2, "
                         "\"cluster\": \"node_list\", \"nodes\": \"trace_n.csv\",\n"
                         "  \"workload\": { \"format\": \"openb\", \"trace\": \"trace_p.csv\" },\n"
                         "  \"policies\": [\"fgd\", \"bestfit\"] }\n");
    static const struct names nm = {
        "pod", "GPU", "SELECT count(*) FROM pods WHERE run_id = %lld AND num_gpu > 0",
        "SELECT 0 * %lld" };
    const char *a[] = { "run", exp, NULL };
    trace_world("placement", a, &nm, 10);
    free(exp);
}

Test(trace, serving, .timeout = 120)
{
    static const char *const a[] = { "run", "serving_a100_h100", "--set",
                                     "workload.max_jobs=300", NULL };
    static const struct names nm = {
        "request", "instance", "SELECT count(*) FROM requests WHERE run_id = %lld",
        "SELECT count(*) FROM requests WHERE run_id = %lld AND finish_s IS NOT NULL" };
    trace_world("serving", a, &nm, 300);
}

Test(trace, micro, .timeout = 120)
{
    static const char *const a[] = { "run", "socialnet", NULL };
    static const struct names nm = {
        "service", "container", "SELECT count(DISTINCT entity) FROM timeline WHERE run_id = "
        "%lld", "SELECT 0 * %lld" };
    trace_world("micro", a, &nm, 10);
}
