/*
 * fuzz_experiment: an experiment file through what `hetsim validate` does — experiment_load with
 * --set overrides, run_env_open (catalog, models, cluster), run_list_jobs (every job of the
 * workload, FILE* NULL), policy_open of every policy, experiment_config_json — then everything freed.
 *
 * Input: EXPERIMENT JSON \0 SET \0 SET ...  (at most 8 "key=value" overrides).  The JSON is
 * written to this process's scratch directory under /tmp and loaded by path, so relative paths
 * in it resolve there, then in the current directory, then under $HETSIM_DATA; nothing is
 * written anywhere else.  To keep an execution short the workload is capped at 500 jobs and
 * 500 skipped jobs (workload.max_jobs / skip_jobs are lowered with jsonf_set when larger).
 */
#include <stdlib.h>
#include <string.h>

#include "../../sched/policy.h"
#include "../../sim/run/run.h"
#include "fuzzutil.h"

enum { MAX_SETS = 8, JOB_CAP = 500 };

/* Lower workload.KEY to JOB_CAP when absent, larger, or (max_jobs) 0, which means "all";
 * non-numbers are left to workload_open. */
static void cap_field(struct experiment *e, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e->workload.node, key);
    int unlimited = cJSON_IsNumber(v) && v->valuedouble == 0 && strcmp(key, "max_jobs") == 0;
    if (v != NULL && (!cJSON_IsNumber(v) || (v->valuedouble <= JOB_CAP && !unlimited)))
        return;
    if (v == NULL && strcmp(key, "skip_jobs") == 0)
        return;
    char path[64], val[16];
    snprintf(path, sizeof path, "workload.%s", key);
    snprintf(val, sizeof val, "%d", JOB_CAP);
    struct errbuf err;
    err_clear(&err);
    if (jsonf_set(e->doc, path, val, &err) < 0)
        fz_fail("capping %s: %s", path, err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
        cap_field(e, "max_jobs");
        cap_field(e, "skip_jobs");
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
            if (rc == 0 && (njobs < 0 || njobs > JOB_CAP))
                fz_fail("run_list_jobs: %lld jobs with max_jobs %d", (long long)njobs, JOB_CAP);
            struct policy_env penv = { e->seed, env.cl, env.model };
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
