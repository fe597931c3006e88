/*
 * test_timeline: the timeline rows (sim/core/timeline.c, written by the training world with
 * sim.timeline) — the row writer itself; one run checked by hand (3 jobs on 2 GPUs under SRTF:
 * a preemption, a queued spell, a restore, a resume); shares and reshares from a scripted
 * policy; and on whole shipped experiments, native and Gavel mode, that the rows agree with
 * the jobs rows (every job covered from arrival to finish without a gap, GPU-seconds equal to
 * attained service, one migrate / preempt interval per counted migration / preemption), that
 * no GPU is held beyond its capacity, that the same seed gives the same rows, and that the
 * flag changes nothing else (off by default: no rows, and every other table equal).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/core/timeline.h"
#include "../sim/core/world.h"
#include "../sim/base/jsonf.h"
#include "../sim/micro/app.h"
#include "../sim/micro/micro.h"
#include "../sim/micro/msim.h"
#include "../sim/serve/serve.h"
#include "../sim/train/train.h"
#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

static char *dbpath(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

static double value(const char *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double value(const char *db, const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    return th_db_value(db, sql);
}

/* ---- the row writer ---- */

struct cap {
    int  n;
    char line[8][256];
};

static int cap_row(void *ctx, const char *table, const char *const *cols,
                   const struct row_value *v, int n, struct errbuf *err)
{
    (void)err;
    struct cap *c = ctx;
    cr_assert_str_eq(table, "timeline");
    cr_assert_eq(n, 10);
    cr_assert_str_eq(cols[0], "entity");
    cr_assert_str_eq(cols[9], "ends");
    size_t k = 0;
    for (int i = 0; i < n && c->n < 8; i++) {
        char *b = c->line[c->n];
        size_t cap = sizeof c->line[0] - k;
        switch (v[i].type) {
        case ROW_INT:  k += (size_t)snprintf(b + k, cap, "%lld|", (long long)v[i].v.i); break;
        case ROW_REAL: k += (size_t)snprintf(b + k, cap, "%.17g|", v[i].v.r); break;
        case ROW_TEXT: k += (size_t)snprintf(b + k, cap, "%s|", v[i].v.s); break;
        default:       k += (size_t)snprintf(b + k, cap, "NULL|"); break;
        }
    }
    c->n++;
    return 0;
}

Test(timeline, rows_name_their_resource_and_skip_empty_intervals)
{
    catalog *cat = th_catalog();
    cluster *cl = th_cluster(cat, "{ \"name\": \"c\", \"network\": \"ib-100g\", \"groups\": ["
                                  " { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 2 },"
                                  " { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 4 } ] }");
    struct cap c = { 0 };
    struct world_writer out = { .ctx = &c, .row = cap_row };
    struct errbuf err;
    err_clear(&err);
    int gpus[] = { 3, 4 };          /* the second V100 node's second GPU, the T4 node's first */
    cr_assert_eq(timeline_gpus(&out, cl, 17, gpus, 2, 5 * SIM_SEC, 7500000, TL_SHARED, 0.5,
                               TL_RESHARE, TL_FINISH, &err), 0);
    cr_assert_eq(timeline_gpus(&out, cl, 18, NULL, 0, 0, 2 * SIM_SEC, TL_RUNNING, 1,
                               TL_ARRIVAL, TL_START, &err), 0);
    cr_assert_eq(timeline_gpus(&out, cl, 19, gpus, 1, SIM_SEC, SIM_SEC, TL_RUNNING, 1,
                               TL_START, TL_FINISH, &err), 0);      /* empty: no row */
    cr_assert_eq(c.n, 3);
    cr_assert_str_eq(c.line[0], "17|3|1|V100-16GB|5|7.5|shared|0.5|reshare|finish|");
    cr_assert_str_eq(c.line[1], "17|4|2|T4|5|7.5|shared|0.5|reshare|finish|");
    /* no GPUs: a queued row, whatever state was asked, with no resource */
    cr_assert_str_eq(c.line[2], "18|NULL|NULL|NULL|0|2|queued|NULL|arrival|start|");
    /* without a row writer (validation), nothing */
    out.row = NULL;
    cr_assert_eq(timeline_gpus(&out, cl, 20, gpus, 2, 0, SIM_SEC, TL_RUNNING, 1, TL_START,
                               TL_FINISH, &err), 0);
    cr_assert_eq(c.n, 3);
    cr_assert_str_eq(timeline_state_name(TL_RESTORING), "restoring");
    cr_assert_str_eq(timeline_cause_name(TL_RESTORED), "restored");
    cluster_destroy(cl);
    catalog_destroy(cat);
}

/* ---- one run by hand ---- */

/* Two V100s in one server; SRTF; every restart costs 5 s.  Job 0 (100 s) and job 1 (200 s)
 * start at 0 on GPUs 0 and 1.  Job 2 (30 s) arrives at 10: SRTF preempts the job with the
 * most left, job 1 (190 s), and runs job 2 on GPU 1 until 40.  Job 1 resumes on GPU 1 at 40,
 * restores until 45 and runs its 190 s to 235.  Job 0 finishes at 100. */
static const char hand_trace[] =
    "arrival_s,job_type,workers,duration_s\n"
    "0,ResNet-18 (batch size 64),1,100\n"
    "0,ResNet-18 (batch size 64),1,200\n"
    "10,ResNet-18 (batch size 64),1,30\n";

static char *hand_experiment(const char *name, const char *policy, const char *sim)
{
    char *t = th_write("hand_trace.csv", hand_trace);
    free(t);
    char json[1024];
    snprintf(json, sizeof json,
             "{ \"name\": \"hand\", \"domain\": \"training\", \"seed\": 1,\n"
             "  \"cluster\": { \"name\": \"two\", \"network\": \"ib-100g\", \"groups\": [\n"
             "    { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 } ] },\n"
             "  \"workload\": { \"format\": \"hetsim\", \"trace\": \"hand_trace.csv\" },\n"
             "  \"policies\": [\"%s\"],\n"
             "  \"sim\": %s }\n", policy, sim);
    return th_write(name, json);
}

Test(timeline, three_jobs_on_two_gpus_by_hand)
{
    char *exp = hand_experiment("hand.json", "srtf",
                                "{ \"restore_delay_s\": 5, \"timeline\": true }");
    char *db = dbpath("hand.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    static const char *const q[] = {
        "SELECT entity, resource, node, resource_type, start_s, end_s, state, share, cause, "
        "ends FROM timeline ORDER BY entity, start_s", NULL };
    char *rows = th_query_dump(db, q);
    /* reals in hex: 0x1.9p+6 = 100, 0x1.4p+3 = 10, ... */
    char want[2048];
    snprintf(want, sizeof want,
             "0|0|0|V100-16GB|%a|%a|running|%a|start|finish|\n"
             "1|1|0|V100-16GB|%a|%a|running|%a|start|preempt|\n"
             "1|NULL|NULL|NULL|%a|%a|queued|NULL|preempt|resume|\n"
             "1|1|0|V100-16GB|%a|%a|restoring|%a|resume|restored|\n"
             "1|1|0|V100-16GB|%a|%a|running|%a|resume|finish|\n"
             "2|1|0|V100-16GB|%a|%a|running|%a|start|finish|\n",
             0.0, 100.0, 1.0, 0.0, 10.0, 1.0, 10.0, 40.0, 40.0, 45.0, 1.0, 45.0, 235.0, 1.0,
             10.0, 40.0, 1.0);
    cr_assert_str_eq(rows, want);
    /* the jobs rows say the same */
    cr_assert_float_eq(th_db_value(db, "SELECT finish_s FROM jobs WHERE job_id = 1"), 235, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT preemptions FROM jobs WHERE job_id = 1"), 1, 0);
    free(rows);
    free(exp);
    free(db);
}

Test(timeline, off_by_default_and_changes_nothing_else)
{
    char *exp = hand_experiment("plain.json", "srtf", "{ \"restore_delay_s\": 5 }");
    char *db = dbpath("plain.db"), *db2 = dbpath("plain2.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline"), 0, 0);
    o = RUN("run", exp, "--db", db2, "-q", "--set", "sim.timeline=true");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db2, "SELECT count(*) FROM timeline"), 6, 0);
    static const char *const q[] = {
        "SELECT * FROM jobs ORDER BY job_id", "SELECT * FROM job_gpu_seconds ORDER BY job_id",
        "SELECT * FROM samples ORDER BY name, t_s",
        "SELECT * FROM metrics WHERE name NOT LIKE 'solver_time%' ORDER BY name",
        "SELECT sim_end_s, events, decisions, jobs_total FROM runs", NULL };
    char *a = th_query_dump(db, q), *b = th_query_dump(db2, q);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    free(exp);
    free(db);
    free(db2);
}

Test(timeline, a_bad_flag_is_an_input_error)
{
    char *exp = hand_experiment("bad.json", "srtf", "{ \"timeline\": \"yes\" }");
    char *db = dbpath("bad.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "bad.json:6: sim.timeline") != NULL, "%s", o.err);
    th_out_free(&o);
    free(exp);
    free(db);
}

/* ---- shares, from a scripted policy ---- */

struct segs {
    struct train_segment s[16];
    int gpu[16];
    int n;
};

static int keep_seg(void *ctx, const struct train_segment *sg, struct errbuf *err)
{
    (void)err;
    struct segs *k = ctx;
    cr_assert_lt(k->n, 16);
    k->s[k->n] = *sg;
    k->gpu[k->n] = sg->ngpu > 0 ? sg->gpus[0] : -1;
    k->s[k->n].gpus = NULL;
    k->n++;
    return 0;
}

struct one_src {
    const struct job_spec *jobs;
    int n, next;
};

static int one_next(void *ctx, void *spec, struct errbuf *err)
{
    (void)err;
    struct one_src *s = ctx;
    if (s->next == s->n)
        return 0;
    *(struct job_spec *)spec = s->jobs[s->next++];
    return 1;
}

/* job 0 alone on GPU 0; when job 1 arrives both get half of GPU 0 */
static int halves(void *ctx, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    (void)ctx;
    (void)err;
    int g = 0, n = v->n_active;
    for (const struct train_job *j = train_view_first_active(v); j;
         j = train_view_next_active(v, j))
        grant_add(out, j->slot, &g, 1, n > 1 ? OCC_WHOLE / 2 : OCC_WHOLE);
    return 0;
}

Test(timeline, shares_and_reshares)
{
    catalog *cat = th_catalog();
    tput *m = th_models(cat);
    cluster *cl = th_cluster(cat, "{ \"name\": \"c\", \"network\": \"ib-100g\", \"groups\": ["
                                  " { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 } ] }");
    int jt = tput_find(m, "ResNet-18 (batch size 64)");
    struct job_spec jobs[] = {
        { .id = 40, .arrival = 0, .jtype = jt, .workers = 1, .work = 1e5, .weight = 1 },
        { .id = 41, .arrival = 10 * SIM_SEC, .jtype = jt, .workers = 1, .work = 1e5,
          .weight = 1 },
    };
    struct one_src src = { jobs, 2, 0 };
    struct entity_source es = { &src, one_next };
    struct train_decider dec = { .decide = halves, .wake = WAKE_ARRIVAL | WAKE_COMPLETION };
    struct segs k = { 0 };
    struct train_sink sink = { .ctx = &k, .segment = keep_seg };
    struct train_config cfg = { .restore_delay_s = 3, .until = SIM_NEVER };
    struct errbuf err;
    err_clear(&err);
    train *w;
    cr_assert_eq(train_create(&w, cl, m, &cfg, &es, &dec, &sink, &err), 0, "%s", err.msg);
    struct train_totals tot;
    cr_assert_eq(train_run(w, &tot, &err), 0, "%s", err.msg);
    train_destroy(w);
    /* job 40: whole GPU 0 [0, 10), then half of it from 10 (same GPU: no restore) until the
     * end of job 41 (which then leaves it alone: no decision re-grants job 40 ... the policy
     * is asked at 41's completion and grants job 40 the whole GPU again) */
    cr_assert_geq(k.n, 3);
    const struct train_segment *a = &k.s[0];
    cr_assert_eq(a->trace_id, 40);
    cr_assert_eq(a->state, TL_RUNNING);
    cr_assert_eq(a->from, 0);
    cr_assert_eq(a->to, 10 * SIM_SEC);
    cr_assert_eq(a->cause, TL_START);
    cr_assert_eq(a->ends, TL_RESHARE);
    cr_assert_eq(k.gpu[0], 0);
    int shared40 = 0, shared41 = 0;
    for (int i = 1; i < k.n; i++) {
        const struct train_segment *s = &k.s[i];
        if (s->state == TL_SHARED) {
            cr_assert_float_eq(s->share, 0.5, 0);
            cr_assert_eq(k.gpu[i], 0);
            cr_assert_eq(s->from, 10 * SIM_SEC);
            shared40 += s->trace_id == 40;
            shared41 += s->trace_id == 41;
            cr_assert_eq(s->cause, s->trace_id == 40 ? TL_RESHARE : TL_START);
        }
    }
    cr_assert_eq(shared40, 1);
    cr_assert_eq(shared41, 1);
    /* every segment of a job begins where its previous one ended */
    for (int id = 40; id <= 41; id++) {
        simtime last = -1;
        for (int i = 0; i < k.n; i++)
            if (k.s[i].trace_id == id) {
                if (last >= 0)
                    cr_assert_eq(k.s[i].from, last);
                last = k.s[i].to;
                cr_assert_gt(k.s[i].to, k.s[i].from);
            }
    }
    cluster_destroy(cl);
    tput_destroy(m);
    catalog_destroy(cat);
}

/* ---- whole runs against their jobs rows ---- */

/* The timeline of each run in db agrees with its jobs rows and holds no GPU beyond 1.
 * gpu_s_slack: how far the timeline's GPU-seconds may exceed attained service, as a share
 * of it (Gavel mode counts a round's tail after a micro-task as held). */
static void check_against_jobs(const char *db, double gpu_s_slack)
{
    int runs = (int)th_db_value(db, "SELECT count(*) FROM runs");
    cr_assert_gt(runs, 0);
    for (long long r = 1; r <= runs; r++) {
        cr_assert_gt(value(db, "SELECT count(*) FROM timeline WHERE run_id = %lld", r), 0);
        /* every job: first row at its arrival, last at its finish */
        cr_assert_float_eq(value(db, "SELECT count(*) FROM jobs j JOIN (SELECT entity, "
                                     "min(start_s) AS a, max(end_s) AS b FROM timeline WHERE "
                                     "run_id = %lld GROUP BY entity) t ON t.entity = j.job_id "
                                     "WHERE j.run_id = %lld AND t.a = j.arrival_s "
                                     "AND t.b = j.finish_s", r, r),
                           value(db, "SELECT count(*) FROM jobs WHERE run_id = %lld", r), 0,
                           "run %lld: a job's rows do not span its life", r);
        /* no gap: each interval of a job (rows of one start are one interval on several
         * GPUs) begins where the previous one ended */
        cr_assert_float_eq(value(db, "SELECT count(*) FROM (SELECT start_s, lag(end_s) OVER "
                                     "(PARTITION BY entity ORDER BY start_s) AS prev FROM "
                                     "(SELECT DISTINCT entity, start_s, end_s FROM timeline "
                                     "WHERE run_id = %lld)) WHERE prev IS NOT NULL AND "
                                     "prev != start_s", r), 0, 0,
                           "run %lld: a job has a gap or an overlap in its rows", r);
        /* GPU-seconds: the rows holding GPUs against attained service */
        double att = value(db, "SELECT sum(attained_gpu_s) FROM jobs WHERE run_id = %lld", r);
        double held = value(db, "SELECT sum((end_s - start_s) * share) FROM timeline WHERE "
                                "run_id = %lld AND resource IS NOT NULL", r);
        cr_assert_geq(held, att * (1 - 1e-9), "run %lld: held %g < attained %g", r, held, att);
        cr_assert_leq(held, att * (1 + gpu_s_slack) + 1e-6, "run %lld: held %g, attained %g",
                      r, held, att);
        /* per type, against job_gpu_seconds (native: exact) */
        if (gpu_s_slack == 0)
            cr_assert_float_eq(value(db, "SELECT max(abs(g.gpu_s - coalesce(t.s, 0))) FROM "
                                         "job_gpu_seconds g LEFT JOIN (SELECT entity, "
                                         "resource_type, sum((end_s - start_s) * share) AS s "
                                         "FROM timeline WHERE run_id = %lld GROUP BY 1, 2) t ON "
                                         "t.entity = g.job_id AND t.resource_type = g.gpu_type "
                                         "WHERE g.run_id = %lld", r, r), 0, 1e-6);
        /* a migration or a preemption counted in jobs is an interval ended by it */
        cr_assert_float_eq(value(db, "SELECT count(DISTINCT entity || '/' || end_s) FROM "
                                     "timeline WHERE run_id = %lld AND ends IN ('migrate', "
                                     "'resize')", r),
                           value(db, "SELECT sum(migrations) FROM jobs WHERE run_id = %lld", r),
                           0, "run %lld", r);
        cr_assert_float_eq(value(db, "SELECT count(DISTINCT entity || '/' || end_s) FROM "
                                     "timeline WHERE run_id = %lld AND ends = 'preempt'", r),
                           value(db, "SELECT sum(preemptions) FROM jobs WHERE run_id = %lld",
                                 r), 0, "run %lld", r);
        /* no GPU held beyond its capacity: where two rows of a GPU overlap, shares fit */
        cr_assert_float_eq(value(db, "SELECT count(*) FROM (SELECT start_s, share, lag(end_s) "
                                     "OVER w AS prev, lag(share) OVER w AS pshare FROM timeline "
                                     "WHERE run_id = %lld AND resource IS NOT NULL WINDOW w AS "
                                     "(PARTITION BY resource ORDER BY start_s, end_s)) WHERE "
                                     "prev > start_s AND share + pshare > 1 + 1e-9", r), 0, 0,
                           "run %lld: a GPU is over-held", r);
    }
}

Test(timeline, native_runs_agree_with_their_jobs, .timeout = 60)
{
    char *db = dbpath("native.db");
    struct th_out o = RUN("run", "default", "--db", db, "-q", "--set", "sim.timeline=true",
                          "--set", "workload.max_jobs=120", "--set",
                          "policies=[\"fifo\", \"srtf\", \"tiresias\", \"gavel_las_perf\"]");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    check_against_jobs(db, 0);
    /* restores happen, and a restoring interval is followed by running on the same GPU */
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = 'restoring'"), 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline a WHERE state = "
                                       "'restoring' AND ends = 'restored' AND NOT EXISTS "
                                       "(SELECT 1 FROM timeline b WHERE b.run_id = a.run_id AND "
                                       "b.entity = a.entity AND b.resource = a.resource AND "
                                       "b.start_s = a.end_s AND b.state IN ('running', "
                                       "'shared'))"), 0, 0);
    free(db);
}

Test(timeline, same_seed_same_rows)
{
    char *a = dbpath("seed_a.db"), *b = dbpath("seed_b.db");
    const char *const base[] = { "run", "mixed_synthetic", "-q", "--set", "sim.timeline=true",
                                 "--set", "workload.jobs=60", "--policy", "srtf", "--db" };
    for (int k = 0; k < 2; k++) {
        const char *args[12];
        memcpy(args, base, sizeof base);
        args[10] = k ? b : a;
        args[11] = NULL;
        struct th_out o = th_hetsim(args);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    static const char *const q[] = { "SELECT * FROM timeline ORDER BY rowid", NULL };
    char *da = th_query_dump(a, q), *dbb = th_query_dump(b, q);
    cr_assert_gt(strlen(da), 100);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    free(a);
    free(b);
}

Test(timeline, gavel_mode_micro_tasks_agree_with_their_jobs, .timeout = 60)
{
    char *db = dbpath("gavel.db");
    /* not the agnostic gavel_las: its shuffled type order moves every job every round */
    struct th_out o = RUN("run", "gavel_philly", "--db", db, "-q", "--set", "sim.timeline=true",
                          "--set", "workload.max_jobs=60", "--set",
                          "policies=[\"fifo_perf\", \"gavel_las_perf\"]");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    /* a round's tail after a micro-task is under one of the job's iterations */
    check_against_jobs(db, 0.01);
    /* Gavel mode places nothing: a job's GPUs are positions among its type's, each job's
     * whole in one type at a time */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM (SELECT run_id, entity, start_s "
                                       "FROM timeline WHERE resource IS NOT NULL GROUP BY 1, 2, "
                                       "3 HAVING count(DISTINCT resource_type) > 1)"), 0, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE state NOT IN "
                                       "('queued', 'running')"), 0, 0);
    free(db);
}

Test(timeline, pollux_mode_agrees_with_its_accounting, .timeout = 120)
{
    char *db = dbpath("pollux.db");
    struct th_out o = RUN("run", "pollux_wl1", "--db", db, "-q", "--set", "sim.timeline=true");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    /* spans are the JCTs, GPU-seconds the attained service (the 30 s penalty included),
     * migrations and preemptions the counted ones, no GPU held twice */
    check_against_jobs(db, 0);
    /* every grant restores for the 30 s penalty, then runs on the same GPUs */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = "
                                       "'restoring' AND abs(end_s - start_s - 30) > 1e-6 AND "
                                       "ends = 'restored'"), 0, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline a WHERE state = "
                                       "'restoring' AND ends = 'restored' AND NOT EXISTS "
                                       "(SELECT 1 FROM timeline b WHERE b.run_id = a.run_id AND "
                                       "b.entity = a.entity AND b.resource = a.resource AND "
                                       "b.start_s = a.end_s AND b.state = 'running')"), 0, 0);
    /* a grant holds as many GPUs of each node as the policy's list: one node type here */
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE cause = 'migrate' OR "
                                 "cause = 'resize'"), 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE ends = 'preempt'"), 0);
    /* the rows say the jobs rows' JCT */
    cr_assert_float_eq(th_db_value(db, "SELECT max(abs(j.jct_s - (t.b - t.a))) FROM jobs j "
                                       "JOIN (SELECT run_id, entity, min(start_s) AS a, "
                                       "max(end_s) AS b FROM timeline GROUP BY 1, 2) t ON "
                                       "t.run_id = j.run_id AND t.entity = j.job_id"), 0, 1e-6);
    free(db);
}

/* ---- the serving world ---- */

/* Two requests arriving together at 1 s on one A100 (highend_only, as in test_serve.c's
 * requests_arriving_together_share_iterations): both wait the admission delay, then share one
 * prefill iteration and one decode iteration; rows end in the order the world ends them. */
Test(timeline, two_requests_on_one_instance_by_hand)
{
    catalog *cat = th_catalog();
    struct llm_catalog *lc = th_llm(cat);
    cluster *cl = th_cluster(cat, "{ \"network\": \"ethernet-100g\", \"groups\": ["
                                  " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1,"
                                  " \"intra\": \"pcie4\" } ] }");
    struct serve_config cfg;
    th_serve_config(&cfg);
    struct request_spec q[2] = {
        { .id = 0, .arrival = sim_from_sec(1), .prompt = 300, .output = 2 },
        { .id = 1, .arrival = sim_from_sec(1), .prompt = 500, .output = 2 } };
    struct cap c = { 0 };
    struct world_writer out = { .ctx = &c, .row = cap_row };
    th_serve_timeline = &out;
    struct th_serve r = th_serve_run(cl, "llama-2-7b", q, 2, "highend_only", NULL, &cfg);
    th_serve_timeline = NULL;
    const struct llm_arch *a = llm_find(lc, "llama-2-7b");
    struct llm_stage st = { catalog_gpu_find(cat, "A100-80GB"), 1, -1, 32, 1, 1 };
    struct llm_batch pre = { 0 }, dec = { 0 };
    llm_batch_prefill(&pre, 300, 0, 1);
    llm_batch_prefill(&pre, 500, 0, 1);
    llm_batch_decode(&dec, 301);
    llm_batch_decode(&dec, 501);
    simtime over = sim_from_sec_ceil(llm_fit_of(lc)->iter_ms * 1e-3);
    simtime t0 = sim_from_sec(1) + sim_from_sec(llm_fit_of(lc)->first_ms * 1e-3);
    simtime t1 = t0 + over + sim_from_sec_ceil(llm_stage_s(lc, a, &st, &pre));
    simtime t2 = t1 + over + sim_from_sec_ceil(llm_stage_s(lc, a, &st, &dec));
    cr_assert_eq(c.n, 4);
    char want[4][256];
    for (int i = 0; i < 2; i++) {
        snprintf(want[i], sizeof want[i], "%d|NULL|NULL|NULL|1|%.17g|queued|NULL|arrival|start|",
                 i, sim_to_sec(t0));
        snprintf(want[2 + i], sizeof want[i], "%d|0|0|A100-80GB|%.17g|%.17g|running|1|start|"
                 "finish|", i, sim_to_sec(t0), sim_to_sec(t2));
    }
    for (int i = 0; i < 4; i++)
        cr_assert_str_eq(c.line[i], want[i]);
    /* the requests' own records say the same */
    cr_assert_eq(sim_from_sec(th_serve_find(&r, 1)->start), t0);
    cr_assert_eq(sim_from_sec(th_serve_find(&r, 1)->finish), t2);
    th_serve_free(&r);
    cluster_destroy(cl);
    llm_destroy(lc);
    catalog_destroy(cat);
}

/* Every request of every shipped serving policy: rows from its arrival to its finish without a
 * gap, its first running row at its start, one preempt-ended row per preemption, a transfer
 * (restoring) only where a prefill-only instance handed it on; the same seed, the same rows. */
Test(timeline, serving_runs_agree_with_their_requests, .timeout = 240)
{
    char *db = dbpath("serve.db"), *db2 = dbpath("serve2.db");
    for (int k = 0; k < 2; k++) {
        struct th_out o = RUN("run", "serving_a100_h100", "--db", k ? db2 : db, "-q", "--set",
                              "sim.timeline=true", "--set", "workload.max_jobs=1500");
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    int runs = (int)th_db_value(db, "SELECT count(*) FROM runs");
    cr_assert_geq(runs, 4);
    for (long long r = 1; r <= runs; r++) {
        double n = value(db, "SELECT count(*) FROM requests WHERE run_id = %lld", r);
        cr_assert_gt(n, 0);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM requests q JOIN (SELECT entity, "
                                     "min(start_s) AS a, max(end_s) AS b FROM timeline WHERE "
                                     "run_id = %lld GROUP BY entity) t ON t.entity = "
                                     "q.request_id WHERE q.run_id = %lld AND t.a = q.arrival_s "
                                     "AND t.b = q.finish_s", r, r),
                           value(db, "SELECT count(*) FROM requests WHERE run_id = %lld AND "
                                     "finish_s IS NOT NULL", r), 0,
                           "run %lld: a request's rows do not span its life", r);
        cr_assert_float_eq(value(db, "SELECT count(DISTINCT entity) FROM timeline WHERE run_id "
                                     "= %lld", r), n, 0);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM timeline WHERE run_id = %lld AND "
                                     "ends = 'drop'", r),
                           value(db, "SELECT value FROM metrics WHERE run_id = %lld AND name "
                                     "= 'requests_dropped'", r), 0, "run %lld: drops", r);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM (SELECT start_s, lag(end_s) OVER "
                                     "(PARTITION BY entity ORDER BY start_s) AS prev FROM "
                                     "timeline WHERE run_id = %lld) WHERE prev IS NOT NULL AND "
                                     "prev != start_s", r), 0, 0, "run %lld: a gap", r);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM requests q JOIN (SELECT entity, "
                                     "min(start_s) AS s FROM timeline WHERE run_id = %lld AND "
                                     "state = 'running' GROUP BY entity) t ON t.entity = "
                                     "q.request_id WHERE q.run_id = %lld AND t.s = q.start_s",
                                 r, r),
                           value(db, "SELECT count(*) FROM requests WHERE run_id = %lld AND "
                                     "start_s IS NOT NULL", r), 0, "run %lld: start", r);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM timeline WHERE run_id = %lld AND "
                                     "ends = 'preempt'", r),
                           value(db, "SELECT value FROM metrics WHERE run_id = %lld AND "
                                     "name = 'preemptions'", r), 0, "run %lld: preemptions", r);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM timeline WHERE run_id = %lld AND "
                                     "resource IS NULL AND state != 'queued'", r), 0, 0);
    }
    /* the disaggregated policy moves requests; the others never do */
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline t JOIN runs r ON r.id = "
                                 "t.run_id WHERE r.policy = 'splitwise' AND t.state = "
                                 "'restoring'"), 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline t JOIN runs r ON r.id = "
                                       "t.run_id WHERE r.policy != 'splitwise' AND t.state = "
                                       "'restoring'"), 0, 0);
    static const char *const q[] = { "SELECT * FROM timeline ORDER BY rowid", NULL };
    char *da = th_query_dump(db, q), *dbb = th_query_dump(db2, q);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    free(db);
    free(db2);
}

/* ---- the placement world ---- */

/* Two nodes of one GPU each; pods in trace order: p0 a whole T4 (node n0, GPU 0), p1 600
 * milli of the V100 (n1, GPU 1), p2 300 milli of any GPU (only the V100 has room), p3 500
 * milli (none has: unplaced).  Pod k comes at k s; the run spans [0, 4) s. */
static const char place_nodes[] = "sn,cpu_milli,memory_mib,gpu,model\n"
                                  "n0,8000,16384,1,T4\nn1,8000,16384,1,V100M16\n";
static const char place_pods[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                                 "p0,1000,1024,1,1000,T4\np1,1000,1024,1,600,V100M16\n"
                                 "p2,1000,1024,1,300,\np3,1000,1024,1,500,\n";

static char *place_experiment(const char *policies, const char *sim)
{
    free(th_write("tl_n.csv", place_nodes));
    free(th_write("tl_p.csv", place_pods));
    char json[1024];
    snprintf(json, sizeof json,
             "{ \"name\": \"tl\", \"domain\": \"placement\", \"seed\": 1, \"cluster\": "
             "\"node_list\", \"nodes\": \"tl_n.csv\",\n"
             "  \"workload\": { \"format\": \"openb\", \"trace\": \"tl_p.csv\" },\n"
             "  \"policies\": %s, \"sim\": %s }\n", policies, sim);
    return th_write("tl_place.json", json);
}

Test(timeline, three_pods_on_two_gpus_by_hand)
{
    char *exp = place_experiment("[\"bestfit\"]", "{ \"timeline\": true }");
    char *db = dbpath("place_hand.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    static const char *const q[] = {
        "SELECT entity, resource, node, resource_type, start_s, end_s, state, share, cause, "
        "ends FROM timeline ORDER BY entity, resource", NULL };
    char *rows = th_query_dump(db, q);
    char want[1024];
    snprintf(want, sizeof want,
             "0|0|0|T4|%a|%a|running|%a|start|stop|\n"
             "1|1|1|V100M16|%a|%a|shared|%a|start|stop|\n"
             "2|1|1|V100M16|%a|%a|shared|%a|start|stop|\n"
             "3|NULL|NULL|NULL|%a|%a|queued|NULL|arrival|stop|\n",
             0.0, 4.0, 1.0, 1.0, 4.0, 0.6, 2.0, 4.0, 0.3, 3.0, 4.0);
    cr_assert_str_eq(rows, want);
    /* the pods table agrees: three placed, p3 not */
    cr_assert_float_eq(th_db_value(db, "SELECT sum(placed) FROM pods"), 3, 0);
    free(rows);
    free(exp);
    free(db);
}

/* Shuffled and inflated pods of every kind on six nodes under every placement policy: per GPU
 * the shares of the rows alive at any moment (every row lasts to the end, so all of them)
 * sum to at most 1, each placed GPU pod has a row per GPU it got, each unplaced one a queued
 * row, and a pod asking for no GPU none. */
Test(timeline, placed_pods_never_overfill_a_gpu, .timeout = 60)
{
    free(th_write("tl_n6.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                               "n0,32000,65536,8,G2\nn1,16000,32768,4,V100M16\n"
                               "n2,8000,16384,2,T4\nn3,64000,131072,8,G2\n"
                               "n4,12000,24576,2,T4\nn5,24000,49152,4,V100M32\n"));
    char pods[16384];
    size_t n = (size_t)snprintf(pods, sizeof pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
                                                   "gpu_spec\n");
    for (int i = 0; i < 60; i++) {
        int kind = i % 5, ng = kind == 0 ? 0 : kind == 4 ? 2 << (i % 2) : 1;
        int milli = kind == 0 ? 0 : kind == 1 ? 100 + 50 * (i % 18) : 1000;
        n += (size_t)snprintf(pods + n, sizeof pods - n, "pod-%02d,%d,%d,%d,%d,\n", i,
                              1000 * (1 + i % 6), 1024 * (1 + i % 8), ng, milli);
    }
    free(th_write("tl_p6.csv", pods));
    char *exp = th_write("tl_place6.json",
                         "{ \"name\": \"tl6\", \"domain\": \"placement\", \"seed\": 3, "
                         "\"cluster\": \"node_list\", \"nodes\": \"tl_n6.csv\",\n"
                         "  \"workload\": { \"format\": \"openb\", \"trace\": \"tl_p6.csv\" },\n"
                         "  \"policies\": [\"fgd\", \"bestfit\", \"gpupacking\", \"clustering\", "
                         "\"dotprod\", \"random\"],\n"
                         "  \"sim\": { \"order\": \"shuffled\", \"load\": 1.2, "
                         "\"timeline\": true } }\n");
    char *db = dbpath("place6.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 6, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM (SELECT run_id, resource, "
                                       "sum(share) AS s FROM timeline WHERE resource IS NOT "
                                       "NULL GROUP BY 1, 2) WHERE s > 1 + 1e-9"), 0, 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = 'shared'"), 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = 'queued'"), 0);
    /* rows on GPUs: one per GPU of each placed pod; pods placed with GPUs: those with rows */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE resource IS NOT "
                                       "NULL"),
                       th_db_value(db, "SELECT sum(num_gpu) FROM pods WHERE placed = 1"), 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM (SELECT DISTINCT run_id, entity "
                                       "FROM timeline WHERE resource IS NOT NULL)"),
                       th_db_value(db, "SELECT count(*) FROM pods WHERE placed = 1 AND "
                                       "num_gpu > 0"), 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = 'queued'"),
                       th_db_value(db, "SELECT count(*) FROM pods WHERE placed = 0 AND "
                                       "num_gpu > 0"), 0);
    /* each row is its pod's: the GPU on the node the pods row names, the share its milli */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline t JOIN pods p ON "
                                       "p.run_id = t.run_id AND p.pod_seq = t.entity WHERE "
                                       "t.resource IS NOT NULL AND (abs(t.share - p.gpu_milli "
                                       "/ 1000.0) > 1e-12 OR t.start_s != p.pod_seq)"), 0, 0);
    /* the same seed, the same rows */
    char *db2 = dbpath("place6b.db");
    o = RUN("run", exp, "--db", db2, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    static const char *const q[] = { "SELECT * FROM timeline ORDER BY rowid", NULL };
    char *da = th_query_dump(db, q), *dbb = th_query_dump(db2, q);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    free(db2);
    free(exp);
    free(db);
}

/* ---- the microservice world ---- */

/* the timeline rows of a whole world's writer; its other rows, series and figures dropped */
static int cap_timeline(void *ctx, const char *table, const char *const *cols,
                        const struct row_value *v, int n, struct errbuf *err)
{
    return strcmp(table, "timeline") == 0 ? cap_row(ctx, table, cols, v, n, err) : 0;
}

/* A scripted decider: the containers of each service at each boundary, 2 services. */
static int script_decide(void *ctx, const struct micro_view *v, int *out, struct errbuf *err)
{
    (void)err;
    static const int plan[3][2] = { { 1, 2 }, { 3, 1 }, { 2, 1 } };
    int *calls = ctx;
    int k = *calls < 3 ? *calls : 2;
    cr_assert_eq(v->app->nservices, 2);
    out[0] = plan[k][0];
    out[1] = plan[k][1];
    (*calls)++;
    return 0;
}

static int one_spec(void *ctx, void *out, struct errbuf *err)
{
    (void)err;
    int *left = ctx;
    if (*left == 0)
        return 0;
    (*left)--;
    *(struct micro_request *)out = (struct micro_request){ .arrival = 0, .id = 0, .graph = "g",
                                                           .count = 30, .span = 30 * SIM_SEC };
    return 1;
}

/* Services a and b over three 10 s intervals, containers starting in 5 s: at 0 a gets 1 and
 * b 2 (containers 0; 1, 2); at 10 a gets 3 (containers 3, 4 restore until 15) and b 1
 * (container 2 goes); at 20 a gets 2 (container 4, the newest, goes); the run ends at 30. */
Test(timeline, two_services_over_three_intervals_by_hand)
{
    catalog *cat = th_catalog();
    cluster *cl = th_cluster(cat, "{ \"name\": \"m\", \"groups\": [ { \"count\": 2, \"cpus\": 8, "
                                  "\"memory_gb\": 16 } ] }");
    static const char app_text[] =
        "{ \"services\": ["
        " { \"name\": \"a\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2, "
        "\"shift_ms\": 1, \"max_load\": 100 } },"
        " { \"name\": \"b\", \"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2, "
        "\"shift_ms\": 1, \"max_load\": 100 } } ],"
        " \"graphs\": [ { \"name\": \"g\", \"calls\": [ { \"id\": \"r\", \"service\": \"a\" }, "
        "{ \"id\": \"x\", \"service\": \"b\", \"parent\": \"r\" } ] } ] }";
    free(th_write("tl_app.json", app_text));
    static const char doc_text[] = "{ \"app\": \"tl_app.json\" }";
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    struct jobj root;
    cr_assert_eq(jsonf_parse(&doc, "app.json", doc_text, strlen(doc_text), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    struct app *a;
    struct app_opts ao = { 0 };
    cr_assert_eq(app_load(&a, &root, "app", th_tmpdir(), &ao, &err), 0, "%s", err.msg);
    int calls = 0, left = 1;
    struct micro_decider dec = { &calls, script_decide, 0 };
    struct entity_source src = { &left, one_spec };
    struct cap c = { 0 };
    struct world_writer out = { .ctx = &c, .row = cap_timeline, .sample = th_no_sample,
                                .metric = th_no_metric };
    struct msim_config mc = { .app = a, .sla_s = 0.05, .quantile = 0.95, .interval_s = 10,
                              .startup_s = 5, .request_sample = 0, .lattice_points = 64,
                              .seed = 1, .until = SIM_NEVER, .timeline = 1 };
    msim *m;
    cr_assert_eq(msim_create(&m, &mc, cl, &src, &dec, &out, &err), 0, "%s", err.msg);
    struct world_totals tot;
    cr_assert_eq(msim_run(m, &tot, &err), 0, "%s", err.msg);
    cr_assert_eq(tot.end, 30 * SIM_SEC);
    static const char *const want[] = {
        "1|2|NULL|b|0|10|running|1|start|resize|",
        "0|3|NULL|a|10|15|restoring|1|resize|restored|",
        "0|4|NULL|a|10|15|restoring|1|resize|restored|",
        "0|4|NULL|a|15|20|running|1|resize|resize|",
        "0|0|NULL|a|0|30|running|1|start|stop|",
        "0|3|NULL|a|15|30|running|1|resize|stop|",
        "1|1|NULL|b|0|30|running|1|start|stop|",
    };
    cr_assert_eq(c.n, 7);
    for (int i = 0; i < 7; i++)
        cr_assert_str_eq(c.line[i], want[i], "row %d", i);
    msim_destroy(m);
    app_free(a);
    jsonf_destroy(doc);
    cluster_destroy(cl);
    catalog_destroy(cat);
}

/* A run cut inside an interval by sim.max_events ends at its last whole interval: every row
 * ends by then (containers that became ready inside the cut interval are not written), and
 * the rows' container-seconds are still containers_mean over the run. */
Test(timeline, micro_run_cut_inside_an_interval, .timeout = 60)
{
    char *db = dbpath("cut.db");
    /* the fit's truth: 300 events are its first intervals (the queueing truth's calls would
     * take them all inside the first) */
    struct th_out o = RUN("run", "derm_trainticket", "--policy", "erms", "--db", db, "-q",
                          "--set", "sim.timeline=true", "--set", "sim.max_events=300",
                          "--set", "truth=fit");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE stop_reason = "
                                       "'event_limit'"), 1, 0, "the run was cut");
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline t JOIN runs r ON r.id = "
                                       "t.run_id WHERE t.end_s > r.sim_end_s OR t.end_s <= "
                                       "t.start_s"), 0, 0, "a row outside the run");
    double held = th_db_value(db, "SELECT sum(end_s - start_s) FROM timeline");
    double mean = th_db_value(db, "SELECT m.value * r.sim_end_s FROM metrics m JOIN runs r ON "
                                  "r.id = m.run_id WHERE m.name = 'containers_mean'");
    cr_assert_float_eq(held, mean, 1e-6 * mean, "%g container-seconds against %g", held, mean);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE ends = 'restored'"), 0);
    free(db);
}

/* Shipped runs, every microservice policy: the container-seconds of the rows are
 * containers_mean over the run, no container has two rows at once, a container restores
 * before it runs, and the same seed gives the same rows. */
Test(timeline, micro_runs_agree_with_their_containers, .timeout = 120)
{
    char *db = dbpath("micro.db"), *db2 = dbpath("micro2.db");
    for (int k = 0; k < 2; k++) {
        struct th_out o = RUN("run", "socialnet", "--db", k ? db2 : db, "-q", "--set",
                              "sim.timeline=true");
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    int runs = (int)th_db_value(db, "SELECT count(*) FROM runs");
    cr_assert_geq(runs, 2);
    for (long long r = 1; r <= runs; r++) {
        double held = value(db, "SELECT sum(end_s - start_s) FROM timeline WHERE run_id = %lld",
                            r);
        double mean = value(db, "SELECT m.value * r.sim_end_s FROM metrics m JOIN runs r ON "
                                "r.id = m.run_id WHERE r.id = %lld AND m.name = "
                                "'containers_mean'", r);
        cr_assert_float_eq(held, mean, 1e-6 * mean, "run %lld: %g against %g", r, held, mean);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM (SELECT start_s, lag(end_s) OVER "
                                     "(PARTITION BY resource ORDER BY start_s) AS prev FROM "
                                     "timeline WHERE run_id = %lld) WHERE prev > start_s", r),
                           0, 0, "run %lld: a container held twice", r);
        cr_assert_float_eq(value(db, "SELECT count(*) FROM timeline WHERE run_id = %lld AND "
                                     "(node IS NOT NULL OR resource IS NULL OR "
                                     "state NOT IN ('running', 'restoring'))", r), 0, 0);
    }
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE ends = 'restored'"), 0);
    /* a container starts for sim.startup_s (5 s here), no longer, then runs on */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE state = "
                                       "'restoring' AND (end_s - start_s > 5 + 1e-9 OR (ends = "
                                       "'restored' AND abs(end_s - start_s - 5) > 1e-9))"), 0, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM timeline a WHERE ends = 'restored' "
                                       "AND NOT EXISTS (SELECT 1 FROM timeline b WHERE b.run_id "
                                       "= a.run_id AND b.resource = a.resource AND b.start_s = "
                                       "a.end_s AND b.state = 'running')"), 0, 0);
    static const char *const q[] = { "SELECT * FROM timeline ORDER BY rowid", NULL };
    char *da = th_query_dump(db, q), *dbb = th_query_dump(db2, q);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    free(db);
    free(db2);
}
