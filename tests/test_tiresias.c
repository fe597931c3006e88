/*
 * test_tiresias: discretized 2D-LAS on hand-made cases — demotion after exactly
 * threshold / GPUs seconds and preemption by a newer top-queue job, FIFO inside a queue, the
 * starvation guard — and its promises on random workloads: no GPU over-allocated, every job
 * finishes, determinism.
 */
#include <criterion/criterion.h>

#include "../sched/policy.h"
#include "../sim/train/train.h"
#include "helpers.h"

TestSuite(tiresias, .init = th_models_init, .fini = th_models_fini);

#define R50 "ResNet-50 (batch size 64)"
#define ONE_V100 "{\"network\": \"ethernet-25g\", \"groups\": " \
                 "[{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1}]}"

/* Iterations that take `seconds` for `workers` GPUs of the cluster's first type. */
static double work_for(const cluster *cl, int workers, double seconds)
{
    const int *types;
    cluster_types(cl, &types);
    struct train_view v = { .cl = cl, .model = th_m };
    struct train_job j = { .jtype = tput_find(th_m, R50), .workers = workers };
    double r = train_view_rate(&v, &j, types[0], workers);
    cr_assert_gt(r, 0);
    return seconds * r;
}

static struct job_spec job(const cluster *cl, int id, double at, int workers, double seconds)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at), .jtype = tput_find(th_m, R50),
                              .workers = workers, .work = work_for(cl, workers, seconds),
                              .weight = 1 };
}

Test(tiresias, demoted_at_the_threshold_then_preempted_by_a_newer_job)
{
    /* threshold 600 GPU-s, one GPU.  Job 0 (1000 s) runs from 0; job 1 (300 s) arrives at
     * 100 into Q0 too, but behind job 0 (FIFO).  At 600 job 0 has 600 GPU-s, drops to Q1,
     * and job 1 preempts it: 600-900.  Job 0 resumes at 900, restores 7 s, has 400 s left:
     * 1307. */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct job_spec jobs[] = { job(cl, 0, 0, 1, 1000), job(cl, 1, 100, 1, 300) };
    struct train_config cfg = { .restore_delay_s = 7, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "tiresias", "{\"thresholds\": [600]}",
                                       &cfg);
    cr_assert_float_eq(th_find(&r, 1)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 900, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 1307, 1e-5);
    cr_assert_eq(th_find(&r, 0)->preemptions, 1);
    cr_assert_eq(th_find(&r, 1)->preemptions, 0);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(tiresias, service_counts_gpus_times_seconds)
{
    /* the same with two-GPU jobs on a two-GPU node and threshold 1200 GPU-s: job 0 crosses it
     * after 1200 / 2 = 600 s */
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": "
                                     "[{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2}]}");
    struct job_spec jobs[] = { job(cl, 0, 0, 2, 1000), job(cl, 1, 100, 2, 300) };
    struct train_config cfg = { .restore_delay_s = 7, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "tiresias", "{\"thresholds\": [1200]}",
                                       &cfg);
    cr_assert_float_eq(th_find(&r, 1)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 900, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 1307, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->attained, 2 * (1000 + 7), 1e-3);
    th_result_free(&r);
    /* below the threshold nothing is demoted: job 0 runs to its end first */
    r = th_run_policy(cl, th_m, jobs, 2, "tiresias", "{\"thresholds\": [2400]}", &cfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 1000, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 1300, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(tiresias, fifo_inside_a_queue)
{
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER };
    /* all in Q0: arrival order, not shortest first */
    struct job_spec q0[] = { job(cl, 0, 0, 1, 100), job(cl, 1, 1, 1, 50), job(cl, 2, 2, 1, 30) };
    struct th_result r = th_run_policy(cl, th_m, q0, 3, "tiresias", NULL, &cfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 100, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 150, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 180, 1e-5);
    th_result_free(&r);
    /* threshold 60: each job gets its first 60 s in Q0 (0-60, 60-120, 120-180), then Q1
     * serves them in arrival order to completion: 180-320, 320-460, 460-600 (continuous LAS
     * would round-robin them instead) */
    struct job_spec q1[] = { job(cl, 0, 0, 1, 200), job(cl, 1, 0, 1, 200), job(cl, 2, 0, 1, 200) };
    r = th_run_policy(cl, th_m, q1, 3, "tiresias", "{\"thresholds\": [60]}", &cfg);
    cr_assert_float_eq(th_find(&r, 0)->first, 0, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->first, 60, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->first, 120, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 320, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 460, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 600, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(tiresias, starvation_guard_promotes_a_waiting_job)
{
    /* Job A (200 s) starts at 0 and drops to Q1 at 60; then 40-s jobs arrive every 40 s from
     * 60 to 420 and keep Q0 busy.  Without the guard A waits until 460 and ends at 600.
     * With promote_knob 1, A returns to Q0 whenever it has waited as long as it ran since
     * its last promotion (60 s): at 120 (runs 120-180), 240 (240-300) and 360 (its last 20 s:
     * 360-380), preempting the 40-s job that is running each time except at 240. */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER };
    struct job_spec jobs[11];
    jobs[0] = job(cl, 0, 0, 1, 200);
    for (int k = 0; k < 10; k++)
        jobs[k + 1] = job(cl, k + 1, 60 + 40 * k, 1, 40);
    struct th_result off = th_run_policy(cl, th_m, jobs, 11, "tiresias", "{\"thresholds\": [60]}",
                                         &cfg);
    cr_assert_float_eq(th_find(&off, 0)->finish, 600, 1e-5);
    cr_assert_eq(th_find(&off, 0)->preemptions, 1);
    struct th_result on = th_run_policy(cl, th_m, jobs, 11, "tiresias",
                                        "{\"thresholds\": [60], \"promote_knob\": 1}", &cfg);
    cr_assert_float_eq(th_find(&on, 0)->finish, 380, 1e-5);
    cr_assert_eq(th_find(&on, 0)->preemptions, 3);
    cr_assert_eq(th_find(&on, 2)->preemptions, 1);     /* S1, running at 120 */
    cr_assert_eq(th_find(&on, 3)->preemptions, 0);     /* S2 ended at 240 itself */
    cr_assert_eq(th_find(&on, 5)->preemptions, 1);     /* S4, running at 360 */
    cr_assert_eq(on.n, 11);
    th_result_free(&off);
    th_result_free(&on);
    cluster_destroy(cl);
}

Test(tiresias, a_running_job_has_no_promotion_to_wait_for)
{
    /* A lone 200-s job with promote_knob 1 drops to Q1 at 60 and keeps running: the policy
     * is asked at its arrival and at its demotion, and never again, since only a waiting job
     * can be promoted (a wake-up for a running one would be an extra decision at 120). */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER };
    struct job_spec jobs[] = { job(cl, 0, 0, 1, 200) };
    struct th_result r = th_run_policy(cl, th_m, jobs, 1, "tiresias",
                                       "{\"thresholds\": [60], \"promote_knob\": 1}", &cfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 200, 1e-5);
    cr_assert_eq(r.decisions, 2);
    th_result_free(&r);
    cluster_destroy(cl);
}

/* ---- random workloads ---- */

static struct job_spec *random_jobs(int n, unsigned long seed)
{
    return th_random_jobs(th_m, n, seed, 120);
}

static const struct train_config rcfg = { .restore_delay_s = 10, .until = SIM_NEVER };

Test(tiresias, random_workload_all_finish_no_overallocation)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    struct job_spec *jobs = random_jobs(300, 5);
    static const char *const params[] = { NULL, "{\"thresholds\": [600, 3600]}",
                                          "{\"promote_knob\": 2}" };
    for (int k = 0; k < 3; k++) {
        struct th_result r = th_run_policy(cl, th_m, jobs, 300, "tiresias", params[k], &rcfg);
        cr_assert_eq(r.n, 300);
        cr_assert_leq(r.max_busy, cluster_ngpus(cl));
        for (long long id = 0; id < 300; id++) {
            const struct th_rec *x = th_find(&r, id);
            cr_assert_geq(x->finish, x->first);
            cr_assert_geq(x->first, x->arrival);
        }
        th_result_free(&r);
    }
    free(jobs);
    cluster_destroy(cl);
}

Test(tiresias, preempts_and_lowers_mean_jct_versus_fifo)
{
    /* the point of LAS on a heavy-tailed workload: short jobs no longer wait behind long ones */
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    struct job_spec *jobs = random_jobs(300, 5);
    struct th_result t = th_run_policy(cl, th_m, jobs, 300, "tiresias", NULL, &rcfg);
    struct th_result f = th_run_policy(cl, th_m, jobs, 300, "fifo", NULL, &rcfg);
    double jt = 0, jf = 0;
    int pre = 0;
    for (int i = 0; i < 300; i++) {
        jt += t.r[i].finish - t.r[i].arrival;
        jf += f.r[i].finish - f.r[i].arrival;
        pre += t.r[i].preemptions;
    }
    cr_assert_gt(pre, 0);
    cr_assert_lt(jt, jf, "tiresias mean JCT %g not below fifo's %g", jt / 300, jf / 300);
    th_result_free(&t);
    th_result_free(&f);
    free(jobs);
    cluster_destroy(cl);
}

Test(tiresias, deterministic)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    struct job_spec *jobs = random_jobs(200, 11);
    const char *p = "{\"thresholds\": [600, 3600], \"promote_knob\": 2}";
    struct th_result a = th_run_policy(cl, th_m, jobs, 200, "tiresias", p, &rcfg);
    struct th_result b = th_run_policy(cl, th_m, jobs, 200, "tiresias", p, &rcfg);
    cr_assert_eq(a.n, b.n);
    cr_assert_eq(memcmp(a.r, b.r, (size_t)a.n * sizeof *a.r), 0);
    th_result_free(&a);
    th_result_free(&b);
    free(jobs);
    cluster_destroy(cl);
}

Test(tiresias, bad_thresholds_are_rejected)
{
    cluster *cl = th_cluster(th_cat, ONE_V100);
    static const char *const bad[] = { "{\"thresholds\": [600, 300]}", "{\"thresholds\": [0]}",
                                       "{\"thresholds\": 600}", "{\"promote_knob\": -1}" };
    for (int k = 0; k < 4; k++) {
        struct errbuf err;
        err_clear(&err);
        jsonf *doc;
        cr_assert_eq(jsonf_parse(&doc, "exp.json", bad[k], strlen(bad[k]), &err), 0);
        struct jobj o;
        jobj_root(&o, doc, &err);
        struct policy_env env = { 1, cl, th_m };
        policy *pol;
        cr_assert_lt(policy_open(&pol, "tiresias", &o, &env, &err), 0, "%s accepted", bad[k]);
        cr_assert_eq(err.code, ERR_INPUT);
        cr_assert(strstr(err.msg, "exp.json:1:"), "%s", err.msg);
        jsonf_destroy(doc);
    }
    cluster_destroy(cl);
}
