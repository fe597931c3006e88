/*
 * test_policies: promises every training policy in the registry keeps, checked on the same
 * random workload — every job finishes, no sooner than it would alone on its fastest GPU type
 * (unless the policy changed its batch, as IADeep's tuning does), holding no more GPU-seconds
 * than its workers between its start and its end; the jobs' GPU-seconds add up to what the
 * world granted, within the cluster's capacity; no GPU is ever granted beyond its capacity (the
 * world fails the run if it is), and two runs give identical results (determinism).  A new
 * policy is covered as soon as it is registered.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/base/rng.h"
#include "../sim/train/train.h"
#include "helpers.h"

static cluster *cl;

static void setup(void)
{
    th_models_init();
    cl = th_cluster(th_cat, "{\"network\": \"ib-100g\", \"groups\": ["
                            "{\"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4},"
                            "{\"count\": 2, \"gpu\": \"P100\", \"gpus_per_node\": 4},"
                            "{\"count\": 1, \"gpu\": \"K80\", \"gpus_per_node\": 8}]}");
}

static void teardown(void)
{
    cluster_destroy(cl);
    th_models_fini();
}

static struct job_spec *workload(int n)
{
    static const char *const names[] = { "ResNet-18 (batch size 64)", "LM (batch size 20)",
                                         "Transformer (batch size 64)", "CycleGAN" };
    static const int workers[] = { 1, 1, 1, 2, 4 };
    gsl_rng *r = rng_stream(21, "policy-props");
    struct job_spec *j = calloc((size_t)n, sizeof *j);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, 300);
        j[i] = (struct job_spec){ .id = i, .arrival = sim_from_sec(t),
                                  .jtype = tput_find(th_m, names[gsl_rng_uniform_int(r, 4)]),
                                  .workers = workers[gsl_rng_uniform_int(r, 5)],
                                  .user = (int)gsl_rng_uniform_int(r, 3),
                                  .work = 2000 + gsl_ran_exponential(r, 30000), .weight = 1 };
    }
    gsl_rng_free(r);
    return j;
}

Test(policies, every_policy_finishes_all_jobs_deterministically, .init = setup,
     .fini = teardown, .timeout = 240)
{
    enum { N = 80 };
    struct job_spec *jobs = workload(N);
    struct train_config cfg = { .restore_delay_s = -1, .restore_fixed_s = 10,
                                .storage_gbs = 2, .until = SIM_NEVER };
    int tested = 0;
    for (int i = 0; policy_registry[i] != NULL; i++) {
        const struct policy_ops *ops = policy_registry[i];
        /* elastic policies run only in Pollux mode (tests/test_pollux.c) */
        if (strcmp(ops->domain, "training") != 0 || ops->train->decide == NULL)
            continue;
        struct th_result a = th_run_policy(cl, th_m, jobs, N, ops->name, NULL, &cfg);
        struct th_result b = th_run_policy(cl, th_m, jobs, N, ops->name, NULL, &cfg);
        th_check_run(&a, N, cl, ops->name);
        cr_assert_eq(memcmp(a.r, b.r, (size_t)a.n * sizeof *a.r), 0, "%s is not deterministic",
                     ops->name);
        th_result_free(&a);
        th_result_free(&b);
        tested++;
    }
    cr_assert_geq(tested, 9, "only %d training policies registered", tested);
    free(jobs);
}
