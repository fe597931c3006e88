/*
 * test_measure: what a run measures and what it accepts, end to end through the CLI and the
 * database — the measurement window of time (default first to last arrival, or
 * sim.measure_window) and the steady-state window of jobs (sim.measure_jobs) against the job
 * rows of the same run; `validate` rejecting exactly what `run` rejects, at the same line;
 * and `--seed` on an experiment whose seed changes nothing saying so.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

static char *dbpath(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

/* 8 one-GPU jobs, arrivals 0, 100, ..., 700 s, on the mixed-small cluster */
static const char trace[] =
    "id,arrival_s,job_type,workers,duration_s\n"
    "10,0,ResNet-50 (batch size 64),1,500\n"
    "11,100,ResNet-50 (batch size 64),1,900\n"
    "12,200,ResNet-18 (batch size 64),1,300\n"
    "13,300,ResNet-50 (batch size 64),1,2000\n"
    "14,400,ResNet-18 (batch size 64),1,100\n"
    "15,500,ResNet-50 (batch size 64),1,700\n"
    "16,600,ResNet-18 (batch size 64),1,400\n"
    "17,700,ResNet-50 (batch size 64),1,800\n";

static char *write_exp(const char *name, const char *sim)
{
    char *t = th_write("measure_trace.csv", trace);
    free(t);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\": \"measure\", \"cluster\": \"mixed_small\",\n"
             " \"workload\": {\"format\": \"hetsim\", \"trace\": \"measure_trace.csv\"},\n"
             " \"policies\": [\"fifo\", \"srtf\"],\n"
             " \"sim\": %s}\n", sim);
    return th_write(name, json);
}

Test(measure, steady_state_figures_are_those_of_the_window_jobs)
{
    /* jobs 2..5 by arrival are trace ids 12..15 */
    char *exp = write_exp("steady.json", "{\"measure_jobs\": [2, 5]}");
    char *db = dbpath("steady.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    for (int run = 1; run <= 2; run++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT avg(jct_s) FROM jobs WHERE run_id = %d AND job_id "
                 "BETWEEN 12 AND 15", run);
        cr_assert_float_eq(th_db_metric(db, run, "jct_mean_steady"), th_db_value(db, sql), 1e-9);
        snprintf(sql, sizeof sql, "SELECT max(ftf_rho) FROM jobs WHERE run_id = %d AND job_id "
                 "BETWEEN 12 AND 15", run);
        cr_assert_float_eq(th_db_metric(db, run, "ftf_max_steady"), th_db_value(db, sql), 1e-9);
        cr_assert_float_eq(th_db_metric(db, run, "jobs_steady"), 4, 0);
        /* the whole-trace figures are still there, over all 8 jobs */
        snprintf(sql, sizeof sql, "SELECT avg(jct_s) FROM jobs WHERE run_id = %d", run);
        cr_assert_float_eq(th_db_metric(db, run, "jct_mean"), th_db_value(db, sql), 1e-9);
    }
    free(exp);
    free(db);
}

Test(measure, the_window_runs_from_the_first_to_the_last_arrival)
{
    char *exp = write_exp("window.json", "{}");
    char *db = dbpath("window.db");
    struct th_out o = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_metric(db, 1, "window_start_s"), 0, 0);
    cr_assert_float_eq(th_db_metric(db, 1, "window_end_s"), 700, 0);
    /* 8 jobs at full speed at most, one GPU each on 48 GPUs: at most 8 jobs' worth, and
     * at least the one job that is always running in [0, 700] */
    double t = th_db_metric(db, 1, "throughput_norm_window");
    cr_assert(t >= 1 - 1e-9 && t <= 8, "throughput_norm_window %g", t);
    cr_assert(isnan(th_db_metric(db, 1, "throughput_norm")), "the whole-horizon figure is gone");
    cr_assert(isnan(th_db_metric(db, 1, "jct_mean_steady")), "no steady window was asked for");
    free(exp);
    free(db);
    /* an explicit window, cut at the end of what was simulated */
    exp = write_exp("window2.json", "{\"measure_window\": [50, 1e9]}");
    db = dbpath("window2.db");
    o = RUN("run", exp, "--db", db, "-q", "--policy", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_metric(db, 1, "window_start_s"), 50, 0);
    cr_assert_float_eq(th_db_metric(db, 1, "window_end_s"),
                       th_db_value(db, "SELECT sim_end_s FROM runs WHERE id = 1"), 1e-9);
    free(exp);
    free(db);
}

Test(measure, bad_windows_are_rejected_at_their_line)
{
    static const struct { const char *sim, *want; } cases[] = {
        { "{\"measure_window\": [5, 5]}",
          "window.json:4: sim.measure_window: [start_s, end_s] needs end_s > start_s" },
        { "{\"measure_window\": \"all\"}",
          "window.json:4: sim.measure_window: must be a pair [start, end] of numbers" },
        { "{\"measure_window\": [1, 2, 3]}",
          "window.json:4: sim.measure_window: must be a pair [start, end] of numbers" },
        { "{\"measure_window\": [-1, 2]}",
          "window.json:4: sim.measure_window[0]: -1 is out of range" },
        { "{\"measure_jobs\": [3, 1]}",
          "window.json:4: sim.measure_jobs: [first, last] needs last >= first" },
        { "{\"measure_jobs\": [0.5, 1]}",
          "window.json:4: sim.measure_jobs[0]: must be an integer" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *exp = write_exp("window.json", cases[i].sim);
        char *db = dbpath("bad.db");
        const char *cmds[] = { "run", "validate" };
        for (int c = 0; c < 2; c++) {
            struct th_out o = c == 0 ? RUN(cmds[c], exp, "--db", db, "-q")
                                     : RUN(cmds[c], exp);
            cr_assert_eq(o.status, 2, "%s %s: %d %s", cmds[c], cases[i].sim, o.status, o.err);
            cr_assert(strstr(o.err, cases[i].want) != NULL, "%s: want '%s', got '%s'",
                      cmds[c], cases[i].want, o.err);
            th_out_free(&o);
        }
        free(exp);
        free(db);
    }
}

Test(measure, validate_rejects_what_run_rejects)
{
    /* Gavel-compatible mode needs an allocation rule: srtf has none.  Both commands say so at
     * the policy's line, with exit 2, and run writes nothing. */
    char *exp = th_write("gavel_srtf.json",
                         "{\"name\": \"g\", \"mode\": \"gavel\", \"cluster\": \"gavel_48\",\n"
                         " \"workload\": {\"format\": \"gavel\", \"trace\":\n"
                         "   \"workloads/traces/gavel/msr_philly_vc_6214e9_seed0.converted.trace\",\n"
                         "   \"max_jobs\": 20},\n"
                         " \"policies\": [\"gavel_las_perf\",\n"
                         "   \"srtf\"]}\n");
    char *db = dbpath("gavel_srtf.db");
    const char *want = "gavel_srtf.json:6: policies[1]: policy 'srtf' has no allocation rule";
    struct th_out v = RUN("validate", exp);
    cr_assert_eq(v.status, 2, "%s", v.err);
    cr_assert(strstr(v.err, want) != NULL, "%s", v.err);
    struct th_out r = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, want) != NULL, "%s", r.err);
    cr_assert_str_eq(v.err, r.err, "the same message");
    cr_assert(access(db, F_OK) != 0 || th_db_value(db, "SELECT count(*) FROM runs") == 0,
              "run wrote nothing");
    th_out_free(&v);
    th_out_free(&r);
    /* a job Gavel mode cannot run (no measured throughput for 3 workers): validate finds it
     * as the run would, at its line */
    char *tr = th_write("gavel3.trace",
                           "ResNet-18 (batch size 64)\tcmd\t-n\t0\t1000\t0\t1\n"
                           "ResNet-18 (batch size 64)\tcmd\t-n\t0\t1000\t10\t3\n");
    free(tr);
    free(exp);
    exp = th_write("gavel3.json",
                   "{\"name\": \"g3\", \"mode\": \"gavel\", \"cluster\": \"gavel_48\",\n"
                   " \"workload\": {\"format\": \"gavel\", \"trace\": \"gavel3.trace\"},\n"
                   " \"policies\": [\"gavel_las_perf\"]}\n");
    v = RUN("validate", exp);
    r = RUN("run", exp, "--db", db, "-q");
    cr_assert_eq(v.status, 2, "%s", v.err);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(v.err, "gavel3.trace:2: job_type: 'ResNet-18 (batch size 64)' with 3 "
                            "workers has no measured throughput") != NULL, "%s", v.err);
    cr_assert_str_eq(v.err, r.err);
    th_out_free(&v);
    th_out_free(&r);
    free(exp);
    free(db);
}

Test(measure, a_seed_that_changes_nothing_says_so)
{
    char *db = dbpath("seed.db");
    struct th_out o = RUN("run", "default", "--db", db, "-q", "--policy", "fifo", "--seed", "7",
                          "--set", "workload.max_jobs=30");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "note: --seed 7 gives the rows of any other seed: in experiment "
                            "'default' the seed changes nothing") != NULL, "%s", o.err);
    th_out_free(&o);
    /* validate says the same; in Gavel mode the seed shuffles the type order of a
     * heterogeneity-agnostic policy (gavel_las), not of a heterogeneity-aware one */
    o = RUN("validate", "default");
    cr_assert(strstr(o.out, "; the seed changes nothing\n") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("validate", "gavel_philly");
    cr_assert(strstr(o.out, "; the seed changes the runs\n") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("validate", "gavel_philly", "--policy", "gavel_las_perf");
    cr_assert(strstr(o.out, "; the seed changes nothing\n") != NULL, "%s", o.out);
    th_out_free(&o);
    /* with a job-type mix the hetsim trace is drawn anew: no note, and other rows */
    o = RUN("run", "fft_philly", "--db", db, "-q", "--policy", "fifo", "--seed", "7",
            "--set", "workload.max_jobs=30");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "note:") == NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", "fft_philly", "--db", db, "-q", "--policy", "fifo", "--seed", "8",
            "--set", "workload.max_jobs=30");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM (SELECT job_id, job_type FROM jobs "
                                 "WHERE run_id = 2 EXCEPT SELECT job_id, job_type FROM jobs "
                                 "WHERE run_id = 3)"), 0, "seeds 7 and 8 draw other types");
    /* the same arrivals and GPU counts: only the types (and their work) move */
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM (SELECT job_id, arrival_s, "
                                       "workers FROM jobs WHERE run_id = 2 EXCEPT SELECT "
                                       "job_id, arrival_s, workers FROM jobs WHERE run_id = 3)"),
                       0, 0);
    free(db);
}

Test(measure, the_cluster_is_known_by_both_its_names)
{
    /* mixed_small's file is mixed_small.json, its own name mixed-small: runs.cluster keeps
     * the first, runs.cluster_name the second, and --where cluster = matches either */
    char *db = dbpath("names.db");
    struct th_out o = RUN("run", "default", "--db", db, "-q", "--policy", "fifo", "--set",
                          "workload.max_jobs=20");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE cluster = 'mixed_small' "
                                       "AND cluster_name = 'mixed-small'"), 1, 0);
    const char *names[] = { "cluster = 'mixed_small'", "cluster = 'mixed-small'" };
    for (int i = 0; i < 2; i++) {
        o = RUN("report", "--db", db, "--where", names[i], "--format", "csv");
        cr_assert_eq(o.status, 0, "%s", o.err);
        cr_assert(strstr(o.out, "\n1,default,fifo") != NULL, "%s: %s", names[i], o.out);
        th_out_free(&o);
    }
    o = RUN("report", "--db", db, "--where", "cluster = 'gavel_48'", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "default,fifo") == NULL, "%s", o.out);
    th_out_free(&o);
    free(db);
}
