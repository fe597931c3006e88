/*
 * test_fifo: FIFO's promises on random workloads — strict arrival order of starts, no GPU
 * over-allocated, every job finishes, no preemption; backfill lets later jobs pass a blocked
 * head; determinism.
 */
#include <criterion/criterion.h>

#include "../sim/train/train.h"
#include "../sched/policy.h"
#include "helpers.h"

/* n jobs, Poisson arrivals, 1-8 workers, types from the Gavel set */
static struct job_spec *random_jobs(int n, unsigned long seed)
{
    return th_random_jobs(th_m, n, seed, 120);
}

static const struct train_config cfg = { .restore_delay_s = 10, .until = SIM_NEVER };

TestSuite(fifo, .init = th_mixed_init, .fini = th_mixed_fini);

Test(fifo, strict_order_all_finish_no_preemption)
{
    struct job_spec *jobs = random_jobs(300, 3);
    struct th_result r = th_run_policy(th_cl, th_m, jobs, 300, "fifo", NULL, &cfg);
    cr_assert_eq(r.n, 300);
    cr_assert_leq(r.max_busy, cluster_ngpus(th_cl));
    double last = -1;
    for (long long id = 0; id < 300; id++) {
        const struct th_rec *x = th_find(&r, id);
        cr_assert_geq(x->finish, x->first);
        cr_assert_geq(x->first, x->arrival);
        cr_assert_geq(x->first, last, "job %lld started before an earlier job", id);
        cr_assert_eq(x->preemptions, 0);
        last = x->first;
    }
    th_result_free(&r);
    free(jobs);
}

Test(fifo, backfill_passes_a_blocked_head)
{
    struct job_spec *jobs = random_jobs(300, 3);
    struct th_result strict = th_run_policy(th_cl, th_m, jobs, 300, "fifo", NULL, &cfg);
    struct th_result bf = th_run_policy(th_cl, th_m, jobs, 300, "fifo", "{\"backfill\": true}",
                                        &cfg);
    int passed = 0;
    double last = -1;
    for (long long id = 0; id < 300; id++) {
        const struct th_rec *x = th_find(&bf, id);
        passed += x->first < last;
        if (x->first > last)
            last = x->first;
    }
    cr_assert_gt(passed, 0, "backfill never let a later job start first");
    double sum_s = 0, sum_b = 0;
    for (int i = 0; i < 300; i++) {
        sum_s += strict.r[i].finish - strict.r[i].arrival;
        sum_b += bf.r[i].finish - bf.r[i].arrival;
    }
    cr_assert_lt(sum_b, sum_s, "backfilling should lower the mean JCT on this workload");
    th_result_free(&strict);
    th_result_free(&bf);
    free(jobs);
}

Test(fifo, deterministic)
{
    struct job_spec *jobs = random_jobs(200, 9);
    struct th_result a = th_run_policy(th_cl, th_m, jobs, 200, "fifo", NULL, &cfg);
    struct th_result b = th_run_policy(th_cl, th_m, jobs, 200, "fifo", NULL, &cfg);
    cr_assert_eq(a.n, b.n);
    cr_assert_eq(memcmp(a.r, b.r, (size_t)a.n * sizeof *a.r), 0);
    th_result_free(&a);
    th_result_free(&b);
    free(jobs);
}

Test(fifo, unknown_parameter_is_rejected)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    const char *p = "{\"backfil\": true}";
    cr_assert_eq(jsonf_parse(&doc, "exp.json", p, strlen(p), &err), 0);
    struct jobj o;
    jobj_root(&o, doc, &err);
    struct policy_env env = { 1, th_cl, th_m, NULL, 0 };
    policy *pol;
    cr_assert_lt(policy_open(&pol, "fifo", &o, &env, &err), 0);
    cr_assert(strstr(err.msg, "exp.json:1: backfil: unknown field (did you mean 'backfill'?"),
              "%s", err.msg);
    jsonf_destroy(doc);
}
