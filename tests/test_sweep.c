/*
 * test_sweep: `hetsim sweep` and `hetsim merge` end to end — the grid expands in the
 * documented order with the right overrides; bad sweep files name file:line; every run lands
 * in the database with its swept fields; a second invocation skips everything; an
 * interrupted sweep resumes; a failing run stops nothing and is listed, failures in the
 * sweep's order whatever order they finished in; -j1 and -j2, and the union of shards
 * merged, give the same rows as one plain sweep.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/batch/sweep.h"
#include "helpers.h"

extern char **environ;

/* default with 40 jobs: 2 policies x 2 seeds x 2 scales = 8 runs of a fraction of a second */
static const char small_sweep[] =
    "{\n"
    "  \"name\": \"small\",\n"
    "  \"experiment\": \"default\",\n"
    "  \"set\": { \"workload.max_jobs\": 40 },\n"
    "  \"grid\": {\n"
    "    \"policy\": [\"fifo\", \"srtf\"],\n"
    "    \"seed\": [1, 2],\n"
    "    \"workload.arrival_scale\": [0.02, 1]\n"
    "  }\n"
    "}\n";

static char *tmp(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

static struct th_out sweep_cli(const char *file, const char *dbp, const char *extra1,
                               const char *extra2)
{
    const char *args[8] = { "sweep", file, "--db", dbp, "-q" };
    int n = 5;
    if (extra1 != NULL)
        args[n++] = extra1;
    if (extra2 != NULL)
        args[n++] = extra2;
    args[n] = NULL;
    return th_hetsim(args);
}

Test(sweep, grid_order_overrides_and_labels)
{
    char *f = th_write("order.json",
                       "{ \"name\": \"order\", \"experiment\": \"default\",\n"
                       "  \"grid\": { \"policy\": [\"fifo\", {\"name\": \"srtf\", \"label\": "
                       "\"srtf2\"}], \"seed\": [5, 6, 7] },\n"
                       "  \"zip\": { \"sim.restore_fixed_s\": [10, 30],\n"
                       "           \"workload.max_jobs\": [20, 25] } }\n");
    struct errbuf err;
    err_clear(&err);
    sweep *s;
    char *sets[] = { "sim.storage_gbs=4" };
    cr_assert_eq(sweep_load(&s, f, sets, 1, &err), 0, "%s", err.msg);
    /* 2 policies x 3 seeds x 2 zipped = 12 points, one policy each */
    cr_assert_eq(sweep_npoints(s), 12);
    cr_assert_eq(sweep_ntasks(s), 12);
    /* the last grid axis varies fastest, then the zip: point 7 = policy 1, seed 0, zip 1 */
    const struct experiment *e = sweep_experiment(s, 7);
    cr_assert_str_eq(e->policies[0].label, "srtf2");
    cr_assert_eq(e->seed, 5);
    /* the world's own fields, as the point's document has them */
    const cJSON *sim = cJSON_GetObjectItemCaseSensitive(jsonf_root(e->doc), "sim");
    cr_assert_float_eq(cJSON_GetObjectItemCaseSensitive(sim, "restore_fixed_s")->valuedouble,
                       30, 0);
    cr_assert_float_eq(cJSON_GetObjectItemCaseSensitive(sim, "storage_gbs")->valuedouble, 4,
                       0);                                  /* the command line's --set */
    const struct db_param *p;
    cr_assert_eq(sweep_params(s, 7, &p), 4);
    cr_assert_str_eq(p[0].key, "policy");
    cr_assert_str_eq(p[1].value_json, "5");
    cr_assert_str_eq(p[3].key, "workload.max_jobs");
    cr_assert_str_eq(p[3].value_json, "25");
    char label[256];
    sweep_task_label(s, sweep_task(s, 7), label, sizeof label);
    cr_assert_str_eq(label, "policy=srtf2 seed=5 sim.restore_fixed_s=30 workload.max_jobs=25");
    /* every task's hash is that of its config, and all differ */
    for (size_t i = 0; i < sweep_ntasks(s); i++) {
        char h[17];
        db_hash_hex(sweep_task(s, i)->config, h);
        cr_assert_str_eq(h, sweep_task(s, i)->hash);
        for (size_t k = 0; k < i; k++)
            cr_assert_str_neq(sweep_task(s, k)->hash, sweep_task(s, i)->hash);
    }
    sweep_free(s);
    free(f);
}

/* a bad sweep: exit 2, a message naming the sweep file and line, nothing in the database */
static void rejected(const char *name, const char *text, const char *want)
{
    char *f = th_write(name, text), *dbp = tmp("rejected.db");
    struct th_out o = sweep_cli(f, dbp, NULL, NULL);
    cr_assert_eq(o.status, 2, "%s: exit %d: %s", name, o.status, o.err);
    char full[1024];
    snprintf(full, sizeof full, want, f);
    cr_assert(strstr(o.err, full) != NULL, "%s: expected '%s' in: %s", name, full, o.err);
    cr_assert_neq(access(dbp, F_OK), 0, "%s: a database was written", name);
    th_out_free(&o);
    free(f);
    free(dbp);
}

Test(sweep, bad_sweep_files_name_file_and_line)
{
    rejected("unknown.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                             "  \"grids\": { \"seed\": [1] } }\n",
             "%s:2: grids: unknown field (did you mean 'grid'?");
    rejected("noaxis.json", "{ \"name\": \"x\", \"experiment\": \"default\" }\n",
             "needs at least one axis");
    rejected("empty_axis.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                                "  \"grid\": { \"seed\": [] } }\n",
             "%s:2: grid.seed: an axis is a non-empty list");
    rejected("zip_len.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                             "  \"zip\": { \"seed\": [1, 2],\n"
                             "           \"workload.max_jobs\": [5] } }\n",
             "%s:3: zip.workload.max_jobs: 1 values, but the other zipped lists have 2");
    rejected("twice.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                           "  \"set\": { \"seed\": 3 },\n"
                           "  \"grid\": { \"seed\": [1, 2] } }\n",
             "%s:3: grid.seed: 'seed' is both swept and fixed");
    /* a bad value: the error names the line of that value */
    rejected("bad_value.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                               "  \"grid\": { \"sim.sample_s\": [600,\n"
                               "                                 -5] } }\n",
             "%s:3: sim.sample_s:");
    rejected("bad_field.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                               "  \"grid\": { \"sim.sampel_s\": [600] } }\n",
             "did you mean 'sample_s'?");
    rejected("bad_policy.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                                "  \"grid\": { \"policy\": [\"fifo\",\n"
                                "                       \"fifoo\"] } }\n",
             "%s:3: policies[0]: unknown policy 'fifoo' (did you mean 'fifo'?)");
    /* a workload value is checked before any run, as the run would open it */
    rejected("bad_workload.json", "{ \"name\": \"x\", \"experiment\": \"default\",\n"
                                  "  \"grid\": { \"workload.arrival_scale\": [1,\n"
                                  "                                 -2] } }\n",
             "%s:3: workload.arrival_scale: -2 is out of range");
    rejected("no_base.json", "{ \"name\": \"x\", \"experiment\": \"no-such-experiment\",\n"
                             "  \"grid\": { \"seed\": [1] } }\n",
             "no-such-experiment: no such experiment");
}

Test(sweep, runs_land_with_their_params_and_a_rerun_skips_them, .timeout = 120)
{
    char *f = th_write("small.json", small_sweep), *dbp = tmp("small.db");
    struct th_out o = sweep_cli(f, dbp, "-j", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "8 runs done, 0 skipped") != NULL, "%s", o.err);
    th_out_free(&o);
    /* the file alone holds the runs (it can be copied by itself): no log is left beside it */
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", dbp);
    struct stat st;
    cr_assert(stat(wal, &st) != 0 || st.st_size == 0, "a %lld-byte WAL is left",
              (long long)st.st_size);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 8, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM run_params WHERE sweep = "
                                        "'small'"), 24, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(DISTINCT group_hash) FROM runs"), 4, 0);
    /* the stored axes are the runs' own settings */
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs r JOIN run_params p ON "
                                        "p.run_id = r.id AND p.key = 'seed' WHERE "
                                        "p.num = r.seed"), 8, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs r JOIN run_params p ON "
                                        "p.run_id = r.id AND p.key = 'policy' WHERE "
                                        "p.value = '\"' || r.policy || '\"'"), 8, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs WHERE json_extract("
                                        "config_json, '$.workload.max_jobs') = 40"), 8, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT max(jobs_total) FROM runs"), 40, 0);
    /* load matters: arrivals 50 times denser queue longer under fifo */
    double dense = th_db_value(dbp, "SELECT avg(m.value) FROM metrics m JOIN runs r ON "
                                    "r.id = m.run_id JOIN run_params p ON p.run_id = r.id "
                                    "WHERE m.name = 'queue_delay_mean' AND r.policy = 'fifo' "
                                    "AND p.key = 'workload.arrival_scale' AND p.num = 0.02");
    double sparse = th_db_value(dbp, "SELECT avg(m.value) FROM metrics m JOIN runs r ON "
                                     "r.id = m.run_id JOIN run_params p ON p.run_id = r.id "
                                     "WHERE m.name = 'queue_delay_mean' AND r.policy = 'fifo' "
                                     "AND p.key = 'workload.arrival_scale' AND p.num = 1");
    cr_assert_gt(dense, sparse);
    char *before = th_db_dump(dbp);
    o = sweep_cli(f, dbp, NULL, NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "0 runs done, 8 skipped") != NULL, "%s", o.err);
    th_out_free(&o);
    char *after = th_db_dump(dbp);
    cr_assert_str_eq(before, after);
    free(before);
    free(after);
    free(f);
    free(dbp);
}

/* The labels of the failure listing at the end of a sweep's stderr, in the order printed
 * ("N runs failed:", then per run "  LABEL" and "    ERROR"); returns how many. */
static int failure_labels(const char *err, char labels[][512], int max)
{
    const char *p = strstr(err, " failed:\n");
    int n = 0;
    if (p == NULL)
        return 0;
    for (p = strchr(p, '\n') + 1; strncmp(p, "  ", 2) == 0; p = strchr(p, '\n') + 1) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end);
        if (p[2] != ' ') {
            cr_assert_lt(n, max);
            snprintf(labels[n++], 512, "%.*s", (int)(end - p - 2), p + 2);
        }
    }
    return n;
}

/* The labels of `sweep --list`, in its (the sweep's) order; returns how many. */
static int listed_labels(const char *file, char labels[][512], int max)
{
    char *dbp = tmp("listed.db");
    struct th_out o = sweep_cli(file, dbp, "--list", NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    int n = 0;
    for (const char *p = o.out; *p != '\0'; p = strchr(p, '\n') + 1) {
        /* "todo  HASH16  LABEL" */
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end);
        cr_assert_lt(n, max);
        cr_assert_gt(end - p, 24, "%s", o.out);
        snprintf(labels[n++], 512, "%.*s", (int)(end - p - 24), p + 24);
    }
    th_out_free(&o);
    free(dbp);
    return n;
}

/* Each failure label is a --list label, and they come in the --list order. */
static void assert_listed_in_sweep_order(const char *file, char failed[][512], int nfailed)
{
    char listed[16][512];
    int nlisted = listed_labels(file, listed, 16), k = 0;
    for (int f = 0; f < nfailed; f++) {
        while (k < nlisted && strcmp(listed[k], failed[f]) != 0)
            k++;
        cr_assert_lt(k, nlisted, "failure %d '%s' is not listed after failure %d", f,
                     failed[f], f - 1);
        k++;
    }
}

/* Two runs fail while they run (a job of the trace needs more GPUs than the 4-GPU cluster
 * has), the other two complete; the failures are listed in the sweep's order and the exit
 * code says so. */
Test(sweep, a_failing_run_stops_nothing_and_is_listed, .timeout = 120)
{
    char *f = th_write("failing.json",
                       "{ \"name\": \"failing\", \"experiment\": \"default\",\n"
                       "  \"grid\": { \"policy\": [\"fifo\", \"srtf\"],\n"
                       "            \"cluster\": [\"mixed_small\", { \"name\": \"tiny\", "
                       "\"network\": \"ib-100g\", \"groups\": [ { \"count\": 1, \"gpu\": \"T4\", "
                       "\"gpus_per_node\": 4 } ] }] } }\n");
    static const char tiny[] = "cluster={\"name\":\"tiny\",\"network\":\"ib-100g\",\"groups\":"
                               "[{\"count\":1,\"gpu\":\"T4\",\"gpus_per_node\":4}]}";
    char *dbp = tmp("failing.db");
    struct th_out o = sweep_cli(f, dbp, "-j", "2");
    cr_assert_eq(o.status, 1, "%s", o.err);
    char want[1024];
    snprintf(want, sizeof want, "2 runs failed:\n  policy=fifo %s\n    hetsim: ", tiny);
    cr_assert(strstr(o.err, want) != NULL, "%s", o.err);
    snprintf(want, sizeof want, "that many\n  policy=srtf %s\n    hetsim: ", tiny);
    cr_assert(strstr(o.err, want) != NULL, "%s", o.err);
    cr_assert(strstr(o.err, "no GPU type of cluster 'tiny' has that many") != NULL, "%s",
              o.err);
    cr_assert(strstr(o.err, "2 runs done, 0 skipped (already in the database), 2 failed") !=
              NULL, "%s", o.err);
    char failed[4][512];
    cr_assert_eq(failure_labels(o.err, failed, 4), 2, "%s", o.err);
    assert_listed_in_sweep_order(f, failed, 2);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs WHERE cluster_name = "
                                        "'mixed-small'"), 2, 0);
    /* run again: the two good runs are skipped, the failed ones are tried again */
    o = sweep_cli(f, dbp, NULL, NULL);
    cr_assert_eq(o.status, 1);
    cr_assert(strstr(o.err, "0 runs done, 2 skipped (already in the database), 2 failed") !=
              NULL, "%s", o.err);
    th_out_free(&o);
    free(f);
    free(dbp);
}

/* The first run of the grid fails late (its oversized job comes after 100,000 small ones:
 * about half a second), the second at once; with -j2 the second finishes first, but the
 * listing keeps the grid's order. */
Test(sweep, failures_are_listed_in_grid_order_not_finish_order, .timeout = 120)
{
    char *late = malloc(512), *early;
    snprintf(late, 512, "%s/late_big.csv", th_tmpdir());
    FILE *t = fopen(late, "w");
    cr_assert_not_null(t);
    fputs("arrival_s,job_type,workers,iterations\n", t);
    for (int i = 0; i < 100000; i++)
        fprintf(t, "%d,ResNet-50 (batch size 64),1,100\n", i * 10);
    fputs("1000000,ResNet-50 (batch size 64),8,100\n", t);
    cr_assert_eq(fclose(t), 0);
    early = th_write("early_big.csv", "arrival_s,job_type,workers,iterations\n"
                                      "0,ResNet-50 (batch size 64),8,100\n"
                                      "10,ResNet-50 (batch size 64),1,100\n");
    char text[2048];
    snprintf(text, sizeof text,
             "{ \"name\": \"order\", \"experiment\": \"default\",\n"
             "  \"set\": { \"policies\": [\"fifo\"], \"cluster\": { \"name\": \"tiny\", "
             "\"network\": \"ib-100g\", \"groups\": [ { \"count\": 1, \"gpu\": \"T4\", "
             "\"gpus_per_node\": 4 } ] } },\n"
             "  \"grid\": { \"workload.trace\": [\"%s\", \"%s\"] } }\n", late, early);
    char *f = th_write("order.json", text), *dbp = tmp("order.db");
    struct th_out o = sweep_cli(f, dbp, "-j", "2");
    cr_assert_eq(o.status, 1, "%s", o.err);
    char want[4096];
    snprintf(want, sizeof want,
             "2 runs failed:\n"
             "  workload.trace=%s policy=fifo\n"
             "    hetsim: %s:100002: workers: job 100000 asks for 8 GPUs; no GPU type of "
             "cluster 'tiny' has that many\n"
             "  workload.trace=%s policy=fifo\n"
             "    hetsim: %s:2: workers: job 0 asks for 8 GPUs; no GPU type of cluster 'tiny' "
             "has that many\n"
             "sweep order: 0 runs done, 0 skipped (already in the database), 2 failed\n",
             late, late, early, early);
    cr_assert(strstr(o.err, want) != NULL, "expected\n%s\nin\n%s", want, o.err);
    char failed[4][512];
    cr_assert_eq(failure_labels(o.err, failed, 4), 2, "%s", o.err);
    assert_listed_in_sweep_order(f, failed, 2);
    th_out_free(&o);
    if (access(dbp, F_OK) == 0)
        cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 0, 0);
    free(late);
    free(early);
    free(f);
    free(dbp);
}

static const char *sorted_queries[] = {
    "SELECT policy, seed, config_hash, group_hash, events, sim_end_s FROM runs "
    "ORDER BY config_hash",
    NULL,
};

Test(sweep, parallel_and_sharded_sweeps_equal_one_plain_sweep, .timeout = 240)
{
    char *f = th_write("det.json", small_sweep);
    char *one = tmp("det_j1.db"), *two = tmp("det_j2.db"), *merged = tmp("det_merged.db");
    struct th_out o = sweep_cli(f, one, "-j", "1");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = sweep_cli(f, two, "-j", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *d1 = th_db_dump_by_config(one), *d2 = th_db_dump_by_config(two);
    cr_assert_gt(strlen(d1), 10000);
    cr_assert_str_eq(d1, d2, "-j1 and -j2 differ");
    /* three shards into three files, merged: the same rows again */
    char *shard_db[3];
    for (int i = 0; i < 3; i++) {
        char name[32], spec[16];
        snprintf(name, sizeof name, "det_shard%d.db", i);
        snprintf(spec, sizeof spec, "%d/3", i);
        shard_db[i] = tmp(name);
        o = sweep_cli(f, shard_db[i], "--shard", spec);
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    /* shards are disjoint: 8 tasks -> 3, 3, 2 */
    cr_assert_float_eq(th_db_value(shard_db[0], "SELECT count(*) FROM runs"), 3, 0);
    cr_assert_float_eq(th_db_value(shard_db[2], "SELECT count(*) FROM runs"), 2, 0);
    o = th_hetsim((const char *const[]){ "merge", merged, shard_db[0], shard_db[1],
                                         shard_db[2], NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *dm = th_db_dump_by_config(merged);
    cr_assert_str_eq(d1, dm, "the merged shards differ from the plain sweep");
    /* merging again adds nothing */
    o = th_hetsim((const char *const[]){ "merge", merged, shard_db[1], NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "0 runs copied, 3 already in") != NULL, "%s", o.out);
    th_out_free(&o);
    char *q1 = th_query_dump(one, sorted_queries), *qm = th_query_dump(merged, sorted_queries);
    cr_assert_str_eq(q1, qm);
    /* a merged file resumes like any other: nothing left to do */
    o = sweep_cli(f, merged, NULL, NULL);
    cr_assert(strstr(o.err, "0 runs done, 8 skipped") != NULL, "%s", o.err);
    th_out_free(&o);
    free(q1);
    free(qm);
    free(dm);
    free(d1);
    free(d2);
    for (int i = 0; i < 3; i++)
        free(shard_db[i]);
    free(one);
    free(two);
    free(merged);
    free(f);
}

Test(sweep, merge_refuses_bad_inputs)
{
    char *out = tmp("m_out.db");
    struct th_out o = th_hetsim((const char *const[]){ "merge", out, "/no/such/file.db", NULL });
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "/no/such/file.db: no such database file") != NULL, "%s", o.err);
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "run", "default", "--policy", "fifo", "--db", out,
                                         "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "merge", out, out, NULL });
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "is the output database itself") != NULL, "%s", o.err);
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "merge", out, NULL });
    cr_assert_eq(o.status, 2);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(out, "SELECT count(*) FROM runs"), 1, 0);
    free(out);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* SIGINT in the middle: exit 130, the file valid with whole runs only; the same command
 * then finishes the rest and the result equals an uninterrupted sweep. */
Test(sweep, an_interrupted_sweep_resumes, .timeout = 240)
{
    /* runs of 5,000 synthetic jobs: a few tenths of a second each */
    char *f = th_write("intr.json",
                       "{ \"name\": \"intr\", \"experiment\": \"default\",\n"
                       "  \"set\": { \"workload\": { \"format\": \"synthetic\", "
                       "\"jobs\": 5000, \"rate_per_hour\": 20,\n"
                       "    \"job_types\": { \"ResNet-50 (batch size 64)\": 1 },\n"
                       "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, "
                       "\"sigma\": 1 } } },\n"
                       "  \"grid\": { \"policy\": [\"fifo\", \"srtf\"],\n"
                       "            \"seed\": [1, 2, 3, 4, 5, 6] } }\n");
    char *dbp = tmp("intr.db"), *plain = tmp("intr_plain.db");
    const char *argv[] = { HETSIM_BIN, "sweep", f, "--db", dbp, "-j", "2", "-q", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, HETSIM_BIN, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status, waited = 0;
    /* interrupt once some runs are in (and most are not) */
    while (access(dbp, F_OK) != 0 ||
           th_db_value(dbp, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'") < 1 ||
           th_db_value(dbp, "SELECT count(*) FROM runs") < 2) {
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the sweep ended before the interrupt");
        cr_assert_lt(waited += 5, 60000);
        sleep_ms(5);
    }
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
    double got = th_db_value(dbp, "SELECT count(*) FROM runs");
    if (got < 12) {     /* it was interrupted (not already finished) */
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
    }
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM jobs"), got * 5000, 0);
    struct th_out o = sweep_cli(f, dbp, NULL, NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = sweep_cli(f, plain, NULL, NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *a = th_db_dump_by_config(dbp), *b = th_db_dump_by_config(plain);
    cr_assert_str_eq(a, b, "the resumed sweep differs from an uninterrupted one");
    free(a);
    free(b);
    free(dbp);
    free(plain);
    free(f);
}

/* `mpirun -np 2` of the MPI build (make MPI=1): the ranks split the runs, rank 0 merges
 * their files, and the result equals a plain sweep.  Skipped while build/mpi/hetsim or
 * mpirun is absent (scripts/install-deps.sh --optional, then make MPI=1; .ci/run does). */
Test(sweep, mpi_ranks_share_the_grid, .timeout = 240)
{
    if (access(HETSIM_MPI_BIN, X_OK) != 0 || system("command -v mpirun >/dev/null") != 0)
        cr_skip_test("no MPI build (make MPI=1) or no mpirun");
    char *f = th_write("mpi.json", small_sweep);
    char *mpi = tmp("mpi.db"), *plain = tmp("mpi_plain.db");
    char rank1[600];
    snprintf(rank1, sizeof rank1, "%s/mpi.rank1.db", th_tmpdir());
    /* mpirun refuses root unless told; the oversubscribe flag lets 2 ranks share 1 core */
    const char *argv[] = { "mpirun", "--oversubscribe", geteuid() == 0 ? "--allow-run-as-root"
                                                                       : "--oversubscribe",
                           "-np", "2", HETSIM_MPI_BIN, "sweep", f, "--db", mpi, "-q", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawnp(&pid, "mpirun", &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mpirun status %d", status);
    cr_assert_neq(access(rank1, F_OK), 0, "rank 1's file was not merged away");
    struct th_out o = sweep_cli(f, plain, NULL, NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *a = th_db_dump_by_config(mpi), *b = th_db_dump_by_config(plain);
    cr_assert_gt(strlen(a), 10000);
    cr_assert_str_eq(a, b, "the MPI sweep differs from a plain one");
    free(a);
    free(b);
    free(mpi);
    free(plain);
    free(f);
}

/* scripts/slurm/sweep.sbatch run as array tasks 0 and 1 of 2 (Slurm's variables set by hand),
 * then merged: the whole sweep, once */
Test(sweep, slurm_array_script_covers_the_sweep, .timeout = 120)
{
    char *f = th_write("slurm.json", small_sweep);
    char cmd[2048], dir[600], merged[700];
    snprintf(dir, sizeof dir, "%s/slurm", th_tmpdir());
    snprintf(merged, sizeof merged, "%s/merged.db", dir);
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=%d SLURM_ARRAY_TASK_COUNT=2 "
                 "SLURM_CPUS_PER_TASK=2 HETSIM=%s bash %s/scripts/slurm/sweep.sbatch %s %s "
                 "2>/dev/null", i, HETSIM_BIN, getenv("HETSIM_DATA"), f, dir);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
    char s0[700], s1[700];
    snprintf(s0, sizeof s0, "%s/shard-0.db", dir);
    snprintf(s1, sizeof s1, "%s/shard-1.db", dir);
    cr_assert_float_eq(th_db_value(s0, "SELECT count(*) FROM runs"), 4, 0);
    struct th_out o = th_hetsim((const char *const[]){ "merge", merged, s0, s1, NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(merged, "SELECT count(DISTINCT config_hash) FROM runs"), 8,
                       0);
    cr_assert_float_eq(th_db_value(merged, "SELECT count(*) FROM runs"), 8, 0);
    free(f);
}

/* A run made before the sweep (`hetsim run`, same configuration) is skipped by the sweep and
 * counted in it: its report groups three seeds, not two; and a merge whose input made that
 * run under another sweep gives the output's run that sweep's rows too. */
Test(sweep, runs_made_before_the_sweep_count_in_it, .timeout = 120)
{
    char *file = tmp("adopt.json"), *dbp = tmp("adopt.db"), *other = tmp("adopt_other.db");
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("{ \"name\": \"three\", \"experiment\": \"default\", \"set\": { \"workload.max_jobs\": "
          "20 }, \"grid\": { \"policy\": [\"fifo\"], \"seed\": [1, 2, 3] } }\n", f);
    fclose(f);
    struct th_out o = th_hetsim((const char *const[]){ "run", "default", "--policy", "fifo",
                                                      "--seed", "2", "--set",
                                                      "workload.max_jobs=20", "--db", dbp, "-q",
                                                      NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = sweep_cli(file, dbp, NULL, NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 3, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(DISTINCT run_id) FROM run_params WHERE "
                                        "sweep = 'three'"), 3, 0);
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "report", "--db", dbp, "--sweep", "three", "--group",
                                         "--format", "csv", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, ",3,") != NULL, "n is 3: %s", o.out);
    /* another file where seed 2 was made by a sweep named "other", merged into this one */
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "run", "default", "--policy", "fifo", "--seed", "2",
                                         "--set", "workload.max_jobs=20", "--db", other, "-q",
                                         NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(other, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "INSERT INTO run_params SELECT id, 'other', 'seed', '2', 2 FROM "
                                 "runs", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    th_out_free(&o);
    o = th_hetsim((const char *const[]){ "merge", dbp, other, NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 3, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM run_params WHERE sweep = 'other' "
                                        "AND num = 2"), 1, 0);
    th_out_free(&o);
    free(file);
    free(dbp);
    free(other);
}
