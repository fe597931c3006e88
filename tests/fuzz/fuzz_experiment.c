/*
 * fuzz_experiment: an experiment file through what `hetsim validate` does — experiment_load with
 * --set overrides, run_env_open (catalog, models, cluster), run_list_jobs (every job of the
 * workload, FILE* NULL), policy_open of every policy, experiment_config_json — then everything freed.
 *
 * Input: EXPERIMENT JSON \0 SET \0 SET ...  (at most 8 "key=value" overrides).  The JSON is
 * written to this process's scratch directory (fz_dir) and loaded by path, so relative paths
 * in it resolve there, then in the current directory, then under $HETSIM_DATA; nothing is
 * written anywhere else.  To keep an execution short the workload is capped at 50 jobs and
 * 50 skipped jobs (workload.max_jobs / skip_jobs are lowered with jsonf_set when larger):
 * listing 500 took two fifths of a run, and a trace's rows are fuzzed by fuzz_workload.
 * For the same reason the scratch directory holds a cut of Pollux's applications at
 * models/data/pollux/ (fz_pollux_apps), which an experiment naming the shipped ones reads
 * first, and philly_cut.csv, a short Philly job list the Philly seeds name.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sched/policy.h"
#include "../../sim/run/run.h"
#include "fuzzutil.h"

enum { MAX_SETS = 8, JOB_CAP = 500 };

/* Lower WHERE.KEY (WHERE: "workload", or a tenant's "tenants.NAME.workload") to JOB_CAP when
 * absent, larger, or (max_jobs) 0, which means "all"; non-numbers are left to workload_open. */
static void cap_field(struct experiment *e, const struct jobj *wl, const char *where,
                      const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(wl->node, key);
    int unlimited = cJSON_IsNumber(v) && v->valuedouble == 0 && strcmp(key, "max_jobs") == 0;
    if (v != NULL && (!cJSON_IsNumber(v) || (v->valuedouble <= JOB_CAP && !unlimited)))
        return;
    if (v == NULL && strcmp(key, "skip_jobs") == 0)
        return;
    char path[160], val[16];
    snprintf(path, sizeof path, "%s.%s", where, key);
    snprintf(val, sizeof val, "%d", JOB_CAP);
    struct errbuf err;
    err_clear(&err);
    if (jsonf_set(e->doc, path, val, &err) < 0)
        fz_fail("capping %s: %s", path, err.msg);
}

/* A Philly job list of 200 invented rows (the seeds that cut Philly's 20,000-row list read it
 * instead: reading that list took most of their runs) */
static void philly_cut(void)
{
    static int done;
    if (done)
        return;
    char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "timestamp,duration,num_gpus,gpu_time,cluster\n");
    static const char *const vcs[] = { "6214e9", "11cb48", "6c71a0" };
    for (int i = 0; i < 200; i++) {
        int gpus = 1 << (i * 7 % 4), dur = 60 + (i * 7919) % 90000, s = i * 37;
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "2017-10-%02d %02d:%02d:%02d,%d.0,%d,%d.0,%s\n", 1 + s / 86400,
                              s / 3600 % 24, s / 60 % 60, s % 60, dur, gpus, dur * gpus,
                              vcs[i % 3]);
    }
    char path[4096];
    fz_write(path, sizeof path, "philly_cut.csv", text, n);
    done = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    philly_cut();
    fz_pollux_apps(NULL);
    size_t jlen, n;
    const uint8_t *json = fz_cut(&data, &size, 0, &jlen);
    char *sets[MAX_SETS];
    int nsets = 0;
    while (size > 0 && nsets < MAX_SETS) {
        const uint8_t *s = fz_cut(&data, &size, 0, &n);
        sets[nsets++] = fz_cstr(s, n);
    }
    char path[4096];
    fz_write(path, sizeof path, "exp.json", json, jlen);

    struct errbuf err;
    err_clear(&err);
    struct experiment *e = NULL;
    int rc = experiment_load(&e, path, sets, nsets, &err);
    fz_check_err(rc, &err, "experiment_load");
    if (rc == 0) {
        if (e->ntenants == 0) {
            cap_field(e, &e->workload, "workload", "max_jobs");
            cap_field(e, &e->workload, "workload", "skip_jobs");
        }
        for (int i = 0; i < e->ntenants; i++) {     /* a colocate experiment's tenants */
            char where[96];
            snprintf(where, sizeof where, "tenants.%s.workload", e->tenant_name[i]);
            cap_field(e, &e->tenant[i]->workload, where, "max_jobs");
            cap_field(e, &e->tenant[i]->workload, where, "skip_jobs");
        }
        for (int i = 0; i < e->npolicies; i++)
            free(experiment_config_json(e, i));
        struct run_env env;
        err_clear(&err);
        rc = run_env_open(&env, e, &err);
        fz_check_err(rc, &err, "run_env_open");
        if (rc == 0) {
            int64_t njobs = -1;
            err_clear(&err);
            rc = run_list(e, &env, NULL, &njobs, &err);
            fz_check_err(rc, &err, "run_list_jobs");
            if (rc == 0 && (njobs < 0 || njobs > JOB_CAP * (e->ntenants > 0 ? e->ntenants : 1)))
                fz_fail("run_list_jobs: %lld jobs with max_jobs %d", (long long)njobs, JOB_CAP);
            struct policy_env penv = { e->seed, env.cl, env.model, e->base_dir, e->policy_timeout_s };
            for (int i = 0; i < e->npolicies; i++) {
                policy *pol = NULL;
                err_clear(&err);
                rc = policy_open(&pol, e->policies[i].name, &e->policies[i].params, &penv, &err);
                fz_check_err(rc, &err, "policy_open");
                policy_close(pol);
            }
            run_env_close(&env);
        }
        experiment_free(e);
    } else if (e != NULL) {
        fz_fail("experiment_load failed but returned an experiment");
    }
    for (int i = 0; i < nsets; i++)
        free(sets[i]);
    return 0;
}
