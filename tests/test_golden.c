/*
 * test_golden: reference runs with fixed seeds against tests/golden/runs.txt.  Shipped
 * experiments that need no outside trace, cut to 150 jobs or requests (a microservice
 * workload to a few minutes), run through the CLI: together they use every registered policy
 * but the placement ones (their openb lists stay in ../shared; test_fgd compares those), in
 * every world and mode — training native, Gavel and Pollux mode, elastic and shared GPUs,
 * serving, microservices per request (under both truths) and analytical, and a cluster shared
 * by a serving and a training tenant (colocate).  For
 * each run the file holds its summary metrics at full precision (%.17g; solver times, which
 * are wall clock, left out), its end, events and decisions, and a hash of every row it wrote
 * (jobs, GPU seconds, samples, requests).  A change that moves any
 * number fails here.  When a change is meant to move them, regenerate the file on purpose
 * (`make golden`) and commit it with the change: its diff shows what moved.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/db.h"
#include "../sim/base/path.h"
#include "../sim/base/tio.h"
#include "../sched/policy.h"
#include "helpers.h"

/* Each run's cut: 150 jobs or LLM requests; microservice workloads by their length. */
#define JOBS150 "workload.max_jobs=150"
static const struct { const char *experiment, *set[2]; } experiments[] = {
    { "default", { JOBS150 } },         { "mixed_synthetic", { JOBS150 } },
    { "fft_philly", { JOBS150 } },      { "oef_tenants", { JOBS150 } },
    { "gavel_philly", { JOBS150 } },    { "hetis_testbed", { JOBS150 } },
    { "serving_a100_h100", { JOBS150 } },
    /* elastic (native and Pollux mode) and shared GPUs */
    { "heet_testbed", { JOBS150 } },    { "sia_3types", { JOBS150 } },
    { "pollux_wl1", { JOBS150 } },      { "iadeep_3090", { JOBS150 } },
    /* microservices: every request followed through queues (the queueing truth), every
     * request's latency drawn from the fit, the analytical mode; critical paths */
    { "socialnet", { "workload.duration_s=120" } },
    { "socialnet", { "workload.duration_s=120", "truth=fit" } },
    { "socialnet", { "mode=analytical" } },
    { "alibaba_graphs", { "workload.duration_s=300" } },
    { "alibaba_graphs", { "workload.duration_s=300", "truth=fit" } },
    /* IADeep reading the world's rates (an upper bound: its behaviour before it learned);
     * last, so that the other runs keep their ids */
    { "iadeep_3090", { JOBS150, "policies=[{\"name\": \"iadeep\", \"label\": "
                                "\"iadeep_oracle\", \"predictor\": \"oracle\"}]" } },
    /* one cluster, two tenants: serving and training under each broker policy */
    { "colocate_small", { "tenants.serving.workload.requests=300",
                          "tenants.training.workload.jobs=30" } },
    /* Lyra's job scheduler on elastic jobs (last: the runs before keep their ids) */
    { "heet_testbed", { JOBS150, "policies=[\"lyra\"]" } },
    { NULL, { NULL } },
};

static void append(char **buf, size_t *n, const char *s)
{
    size_t k = strlen(s);
    char *g = realloc(*buf, *n + k + 1);
    cr_assert_not_null(g);
    memcpy(g + *n, s, k + 1);
    *buf = g;
    *n += k;
}

/* One query's rows as text, each column through printf-style SQL in the query itself. */
static char *rows(const char *dbp, const char *sql)
{
    const char *const q[] = { sql, NULL };
    return th_query_dump(dbp, q);
}

/* The golden text of every run in the database, in run order. */
static char *golden_text(const char *dbp)
{
    char *out = NULL, sql[1024];
    size_t n = 0;
    int nruns = (int)th_db_value(dbp, "SELECT count(*) FROM runs");
    for (int id = 1; id <= nruns; id++) {
        snprintf(sql, sizeof sql,
                 "SELECT printf('%%s %%s run sim_end_s=%%.17g events=%%d decisions=%%d "
                 "jobs=%%d stop=%%s config=%%s', experiment, policy, sim_end_s, events, "
                 "decisions, jobs_total, stop_reason, config_hash) FROM runs WHERE id = %d",
                 id);
        char *head = rows(dbp, sql);
        /* every row the run wrote, reals in hex (every bit), hashed */
        char jq[256], gq[256], sq[256], rq[256];
        snprintf(jq, sizeof jq, "SELECT * FROM jobs WHERE run_id = %d ORDER BY job_id", id);
        snprintf(gq, sizeof gq, "SELECT * FROM job_gpu_seconds WHERE run_id = %d "
                                "ORDER BY job_id, gpu_type", id);
        snprintf(sq, sizeof sq, "SELECT * FROM samples WHERE run_id = %d ORDER BY name, t_s",
                 id);
        snprintf(rq, sizeof rq, "SELECT * FROM requests WHERE run_id = %d ORDER BY request_id",
                 id);
        const char *const all[] = { jq, gq, sq, rq, NULL };
        char *dump = th_query_dump(dbp, all);
        char hash[17];
        db_hash_hex(dump, hash);
        snprintf(sql, sizeof sql,
                 "SELECT printf('%%s %%s rows %s', experiment, policy) FROM runs WHERE id = %d",
                 hash, id);
        char *rowline = rows(dbp, sql);
        snprintf(sql, sizeof sql,
                 "SELECT printf('%%s %%s %%s %%.17g', r.experiment, r.policy, m.name, m.value) "
                 "FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.id = %d AND m.name "
                 "NOT LIKE 'solver_time%%' ORDER BY m.name",
                 id);
        char *metrics = rows(dbp, sql);
        append(&out, &n, head);
        append(&out, &n, rowline);
        append(&out, &n, metrics);
        free(head);
        free(dump);
        free(rowline);
        free(metrics);
    }
    /* th_query_dump ends every column with '|': drop it */
    size_t w = 0;
    for (size_t r = 0; r < n; r++)
        if (!(out[r] == '|' && (out[r + 1] == '\n' || out[r + 1] == '\0')))
            out[w++] = out[r];
    out[w] = '\0';
    return out;
}

Test(golden, reference_runs_are_unchanged, .timeout = 300)
{
    char dbp[600];
    snprintf(dbp, sizeof dbp, "%s/golden.db", th_tmpdir());
    remove(dbp);
    for (int i = 0; experiments[i].experiment != NULL; i++) {
        const char *e = experiments[i].experiment, *const *set = experiments[i].set;
        const char *argv[12] = { "run", e, "--db", dbp, "-q" };
        int argc = 5;
        for (int k = 0; k < 2 && set[k] != NULL; k++) {
            argv[argc++] = "--set";
            argv[argc++] = set[k];
        }
        argv[argc] = NULL;
        struct th_out o = th_hetsim(argv);
        cr_assert_eq(o.status, 0, "%s: %s", e, o.err);
        th_out_free(&o);
    }
    /* every policy but the placement ones has a reference run (a new one needs its line) */
    for (int i = 0; policy_registry[i] != NULL; i++) {
        const struct policy_ops *po = policy_registry[i];
        if (strcmp(po->domain, "placement") == 0)
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE coalesce(json_extract("
                 "config_json, '$.policies[0].name'), json_extract(config_json, "
                 "'$.policies[0]')) = '%s'", po->name);
        cr_expect_gt(th_db_value(dbp, sql), 0, "no reference run uses policy %s: give it an "
                     "experiment in test_golden.c's list", po->name);
    }
    char *now = golden_text(dbp);
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "%s/tests/golden/runs.txt", path_data_root());
    if (getenv("GOLDEN_UPDATE") != NULL) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f, "cannot write %s", path);
        fputs(now, f);
        cr_assert_eq(fclose(f), 0);
        cr_log_info("wrote %s", path);
        free(now);
        return;
    }
    struct errbuf err;
    err_clear(&err);
    char *want = NULL;
    size_t len;
    cr_assert_eq(tio_slurp(path, &want, &len, &err), 0, "%s (make golden writes it)", err.msg);
    /* name the first line that moved */
    const char *a = want, *b = now;
    int line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++;
        b++;
    }
    if (*a != *b) {
        while (a > want && a[-1] != '\n')
            a--, b--;
        cr_assert_fail("tests/golden/runs.txt:%d moved:\n  golden: %.*s\n  now:    %.*s\n"
                       "if the change means to move it, run make golden and commit the file",
                       line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
    }
    free(want);
    free(now);
}
