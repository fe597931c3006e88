/*
 * test_cli: hetsim end to end through its command line and the database it writes — the
 * default experiment, determinism (same seed, same rows; another seed, other rows), bad input
 * rejected with file:line:field and exit 2 and nothing written, usage errors, and the
 * report, list, validate, workload and plot commands.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static char *dbpath(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

#define RUN(...)                                                                           \
    th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

Test(cli, default_experiment_end_to_end)
{
    char *db = dbpath("default.db");
    struct th_out o = RUN("run", "default", "--db", db, "--quiet");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM jobs"), 600, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NULL"), 0, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(DISTINCT run_id) FROM metrics "
                                       "WHERE name = 'jct_mean'"), 2, 0);
    /* the metrics agree with the per-job rows they summarize */
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'jct_mean'"),
                       th_db_value(db, "SELECT avg(jct_s) FROM jobs WHERE run_id = 1"), 1e-6);
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 2 AND name = 'makespan'"),
                       th_db_value(db, "SELECT max(finish_s) FROM jobs WHERE run_id = 2"), 1e-6);
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'jobs_done'"),
                       300, 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM samples WHERE name = 'util_total'"), 10);
    /* GPU-seconds by type add up to the attained service */
    cr_assert_float_eq(th_db_value(db, "SELECT sum(gpu_s) FROM job_gpu_seconds WHERE run_id = 2"),
                       th_db_value(db, "SELECT sum(attained_gpu_s) FROM jobs WHERE run_id = 2"), 1e-3);
    th_out_free(&o);

    o = RUN("report", "--db", db, "--baseline", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "srtf") && strstr(o.out, "jct_mean/fifo"), "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", db, "--format", "csv");
    cr_assert_eq(o.status, 0);
    cr_assert(strncmp(o.out, "run,experiment,policy,jobs_done,jct_mean", 40) == 0, "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", db, "--format", "markdown");
    cr_assert(strstr(o.out, "| run | experiment |") != NULL, "%s", o.out);
    th_out_free(&o);

    char out[512];
    snprintf(out, sizeof out, "%s/plots", th_tmpdir());
    o = RUN("plot", "--db", db, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    char png[600];
    snprintf(png, sizeof png, "%s/default_jct_cdf.png", out);
    struct stat st;
    cr_assert_eq(stat(png, &st), 0, "no %s", png);
    cr_assert_gt(st.st_size, 5000, "a near-empty image");
    th_out_free(&o);
    /* readers leave nothing beside the file: the last connection's close tidies up */
    char side[600];
    snprintf(side, sizeof side, "%s-wal", db);
    cr_assert_neq(stat(side, &st), 0, "%s is left behind", side);
    snprintf(side, sizeof side, "%s-shm", db);
    cr_assert_neq(stat(side, &st), 0, "%s is left behind", side);
    free(db);
}

Test(cli, same_seed_same_rows)
{
    char *a = dbpath("det_a.db"), *b = dbpath("det_b.db");
    struct th_out o1 = RUN("run", "default", "--db", a, "-q");
    struct th_out o2 = RUN("run", "default", "--db", b, "-q");
    cr_assert_eq(o1.status, 0);
    cr_assert_eq(o2.status, 0);
    char *da = th_db_dump(a), *dbb = th_db_dump(b);
    cr_assert_gt(strlen(da), 10000);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    th_out_free(&o1);
    th_out_free(&o2);
    free(a);
    free(b);
}

static const char synth_exp[] =
    "{ \"name\": \"synth\", \"seed\": 1, \"cluster\": \"mixed_small\",\n"
    "  \"workload\": { \"format\": \"synthetic\", \"jobs\": 60, \"rate_per_hour\": 40,\n"
    "    \"job_types\": { \"ResNet-50 (batch size 64)\": 1, \"LM (batch size 20)\": 1 },\n"
    "    \"workers\": { \"1\": 3, \"4\": 1 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, \"sigma\": 1 } },\n"
    "  \"policies\": [\"srtf\"] }\n";

Test(cli, another_seed_other_rows)
{
    char *exp = th_write("synth.json", synth_exp);
    char *a = dbpath("seed1.db"), *b = dbpath("seed2.db"), *c = dbpath("seed1b.db");
    struct th_out o = RUN("run", exp, "--db", a, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", exp, "--db", b, "-q", "--seed", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", exp, "--db", c, "-q", "--set", "seed=1");
    th_out_free(&o);
    char *da = th_db_dump(a), *db2 = th_db_dump(b), *dc = th_db_dump(c);
    cr_assert_str_neq(da, db2);
    cr_assert_str_eq(da, dc);
    cr_assert_float_eq(th_db_value(b, "SELECT seed FROM runs"), 2, 0);
    free(da);
    free(db2);
    free(dc);
    free(exp);
    free(a);
    free(b);
    free(c);
}

/* a bad input: exit 2, the message names file:line: field, and the database has no run */
static void rejected(const char *const *args, const char *db, const char *want)
{
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 2, "exit %d, stderr: %s", o.status, o.err);
    cr_assert(strstr(o.err, want) != NULL, "expected '%s' in: %s", want, o.err);
    if (db != NULL) {
        struct stat st;
        if (stat(db, &st) == 0)
            cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 0, 0);
    }
    th_out_free(&o);
}

Test(cli, bad_experiment_fields)
{
    char *db = dbpath("bad.db");
    char *e1 = th_write("typo.json", "{\n  \"name\": \"x\",\n  \"cluster\": \"mixed_small\",\n"
                                     "  \"polices\": [\"fifo\"]\n}\n");
    rejected((const char *const[]){ "run", e1, "--db", db, NULL }, db,
             "typo.json:4: polices: unknown field (did you mean 'policies'?)");
    char *e2 = th_write("syntax.json", "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}\n");
    rejected((const char *const[]){ "run", e2, "--db", db, NULL }, db,
             "syntax.json:3: JSON syntax error");
    rejected((const char *const[]){ "run", "default", "--db", db, "--set", "workload.max_jobs=-3", NULL },
             db, "--set workload.max_jobs: workload.max_jobs: -3 is out of range");
    rejected((const char *const[]){ "run", "default", "--db", db, "--policy", "fifoo", NULL }, db,
             "unknown policy 'fifoo' (did you mean 'fifo'?)");
    rejected((const char *const[]){ "run", "default", "--db", db, "--set", "cluster=nosuch", NULL },
             db, "no cluster file or shipped cluster 'nosuch'");
    rejected((const char *const[]){ "run", "no_such_experiment", "--db", db, NULL }, db,
             "no_such_experiment: no such experiment");
    free(e1);
    free(e2);
    free(db);
}

Test(cli, bad_trace_line_midway_writes_nothing)
{
    /* 40 good jobs, then a bad worker count on line 43: the run fails after it has started */
    char trace[8192] = "# a comment\narrival_s,job_type,workers,iterations\n";
    for (int i = 0; i < 40; i++) {
        size_t n = strlen(trace);
        snprintf(trace + n, sizeof trace - n, "%d,ResNet-50 (batch size 64),1,5000\n", i * 10);
    }
    strcat(trace, "400,ResNet-50 (batch size 64),zero,5000\n");
    char *tp = th_write("midway.csv", trace);
    char *exp = malloc(1024);
    snprintf(exp, 1024, "{ \"name\": \"m\", \"cluster\": \"mixed_small\", \"workload\": "
                        "{ \"format\": \"hetsim\", \"trace\": \"%s\" }, \"policies\": [\"fifo\"] }", tp);
    char *ep = th_write("midway.json", exp);
    char *db = dbpath("midway.db");
    char want[600];
    snprintf(want, sizeof want, "%s:43: workers: 'zero' is not a GPU count", tp);
    rejected((const char *const[]){ "run", ep, "--db", db, NULL }, db, want);
    /* and a job larger than the cluster can hold */
    char big[] = "arrival_s,job_type,workers,iterations\n0,LM (batch size 20),64,10\n";
    char *bp = th_write("big.csv", big);
    snprintf(exp, 1024, "{ \"name\": \"m\", \"cluster\": \"mixed_small\", \"workload\": "
                        "{ \"format\": \"hetsim\", \"trace\": \"%s\" }, \"policies\": [\"fifo\"] }", bp);
    char *ep2 = th_write("big.json", exp);
    snprintf(want, sizeof want, "%s:2: workers: job 0 asks for 64 GPUs", bp);
    rejected((const char *const[]){ "run", ep2, "--db", db, NULL }, db, want);
    rejected((const char *const[]){ "validate", ep2, NULL }, NULL, want);
    free(tp);
    free(bp);
    free(exp);
    free(ep);
    free(ep2);
    free(db);
}

Test(cli, usage)
{
    struct th_out o = RUN("--help");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "usage: hetsim COMMAND") != NULL);
    th_out_free(&o);
    o = RUN("run", "--help");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "--policy NAME") != NULL);
    th_out_free(&o);
    rejected((const char *const[]){ "run", "default", "--bogus", NULL }, NULL,
             "unknown or incomplete option '--bogus'");
    rejected((const char *const[]){ "run", NULL }, NULL, "missing EXPERIMENT");
    rejected((const char *const[]){ "frobnicate", NULL }, NULL, "unknown command 'frobnicate'");
    rejected((const char *const[]){ "report", "--format", "xml", NULL }, NULL,
             "--format must be table, csv or markdown");
}

Test(cli, list_validate_workload)
{
    struct th_out o = RUN("list", "policies");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "fifo ") && strstr(o.out, "srtf "), "%s", o.out);
    th_out_free(&o);
    o = RUN("list", "gpus");
    cr_assert(strstr(o.out, "A100-80GB") && strstr(o.out, "RTX3090"), "%s", o.out);
    th_out_free(&o);
    o = RUN("list", "experiments");
    cr_assert(strstr(o.out, "default\n") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("validate", "default");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "ok: experiment 'default', 300 jobs") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("workload", "default", "--set", "workload.max_jobs=3");
    cr_assert_eq(o.status, 0, "%s", o.err);
    int lines = 0;
    for (const char *p = o.out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 4, "header + 3 jobs: %s", o.out);
    th_out_free(&o);
}
