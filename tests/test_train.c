/*
 * test_train: the training world's mechanics with scripted policies and hand-computed
 * times — progress at the model's rate, restore delays on resume and migration, preemption
 * and migration counts, FULL vs DELTA grant lists, shares, samples, time limits, finish-time
 * fairness of a lone job, and rejection of bad grants and bad jobs.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../sim/train/train.h"
#include "helpers.h"

/* toy job type: 10 it/s on one V100, 5 it/s on one T4 (1-worker measurements) */
static const char types_json[] =
    "{ \"job_types\": [ { \"name\": \"toy\", \"batch\": 32, \"scaling\": \"weak\", "
    "\"precision\": \"fp32\", \"params_m\": 10, \"gflops_per_sample\": 1, \"mem_gb\": 1 } ] }";
static const char profile_csv[] =
    "job_type,gpu,workers,placement,iters_per_s\n"
    "toy,V100,1,consolidated,10\ntoy,T4,1,consolidated,5\ntoy,V100,2,consolidated,16\n";
/* GPUs 0,1: V100 node; 2,3: T4 node */
static const char cluster_json[] =
    "{ \"name\": \"tiny\", \"network\": \"ethernet-25g\", \"groups\": [\n"
    " { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 2 },\n"
    " { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 2 } ] }";

static catalog *cat;
static tput *model;
static cluster *cl;

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char *tp = th_write("train_types.json", types_json);
    char *pp = th_write("train_profile.csv", profile_csv);
    cr_assert_eq(tput_create(&model, cat, &err), 0);
    cr_assert_eq(tput_load_types(model, tp, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_load_profile(model, pp, &err), 0, "%s", err.msg);
    free(tp);
    free(pp);
    cl = th_cluster(cat, cluster_json);
}

static void teardown(void)
{
    cluster_destroy(cl);
    tput_destroy(model);
    catalog_destroy(cat);
}

static struct job_spec job(int64_t id, double arrival_s, int workers, double work)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(arrival_s), .jtype = 0,
                              .workers = workers, .work = work, .weight = 1,
                              .origin = "jobs.csv", .line = (long)id + 2 };
}

/* ---- a sink that keeps records ---- */
struct rec {
    int64_t id;
    double  arrival, first, finish, rho, n_avg, attained;
    int     preemptions, migrations;
};
struct sink {
    struct rec r[16];
    int        n;
    int        nsamples;
    double     last_util;
};

static int sink_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct sink *s = ctx;
    const struct train_job *j = r->job;
    s->r[s->n++] = (struct rec){ r->trace_id, sim_to_sec(j->arrival),
                                 j->first_start >= 0 ? sim_to_sec(j->first_start) : -1,
                                 r->finish >= 0 ? sim_to_sec(r->finish) : -1, r->rho, r->n_avg,
                                 train_view_attained(j, j->updated), j->preemptions,
                                 j->migrations };
    return 0;
}

static int sink_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    (void)t;
    (void)err;
    struct sink *s = ctx;
    if (strcmp(name, "util_total") == 0) {
        s->nsamples++;
        s->last_util = v;
    }
    return 0;
}

static const struct rec *find(const struct sink *s, int64_t id)
{
    for (int i = 0; i < s->n; i++)
        if (s->r[i].id == id)
            return &s->r[i];
    cr_assert_fail("job %lld not reported", (long long)id);
    return NULL;
}

typedef int (*script_fn)(const struct train_view *v, struct grant_list *out);

static int scripted(void *ctx, const struct train_view *v, struct grant_list *out,
                    struct errbuf *err)
{
    (void)err;
    return ((script_fn)ctx)(v, out);
}

static const struct train_job *by_id(const struct train_view *v, int64_t id)
{
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        if (j->id == id)
            return j;
    return NULL;
}

static int run(const struct job_spec *jobs, int n, script_fn fn, unsigned wake, double round_s,
               struct train_config cfg, struct sink *s, struct errbuf *err)
{
    struct th_array src = { jobs, sizeof *jobs, n, 0 };
    struct entity_source js = { &src, th_array_next };
    struct train_decider dec = { .ctx = (void *)fn, .decide = scripted, .wake = wake,
                                 .round = sim_from_sec(round_s) };
    struct train_sink sk = { .ctx = s, .job = sink_job, .sample = sink_sample };
    train *w;
    err_clear(err);
    if (train_create(&w, cl, model, &cfg, &js, &dec, &sk, err) < 0)
        return -1;
    struct train_totals tot;
    int rc = train_run(w, &tot, err);
    train_destroy(w);
    return rc;
}

/* run() that returns the world's totals */
static struct train_totals run_totals(const struct job_spec *jobs, int n, script_fn fn,
                                      struct train_config cfg)
{
    struct th_array src = { jobs, sizeof *jobs, n, 0 };
    struct entity_source js = { &src, th_array_next };
    struct train_decider dec = { .ctx = (void *)fn, .decide = scripted,
                                 .wake = WAKE_ARRIVAL | WAKE_COMPLETION };
    struct sink s = { 0 };
    struct train_sink sk = { .ctx = &s, .job = sink_job, .sample = sink_sample };
    struct errbuf err;
    err_clear(&err);
    train *w;
    struct train_totals tot;
    cr_assert_eq(train_create(&w, cl, model, &cfg, &js, &dec, &sk, &err), 0, "%s", err.msg);
    cr_assert_eq(train_run(w, &tot, &err), 0, "%s", err.msg);
    train_destroy(w);
    return tot;
}

static struct train_config cfg_delay(double d)
{
    return (struct train_config){ .restore_delay_s = d, .until = SIM_NEVER };
}

TestSuite(train, .init = setup, .fini = teardown);

/* every waiting job onto the lowest free V100 */
static int first_fit_v100(const struct train_view *v, struct grant_list *out)
{
    int taken[2] = { occ_used(v->occ, 0) > 0, occ_used(v->occ, 1) > 0 };
    for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j))
        for (int g = 0; g < 2; g++)
            if (!taken[g]) {
                taken[g] = 1;
                grant_add(out, j->slot, &g, 1, OCC_WHOLE);
                break;
            }
    return 0;
}

Test(train, a_lone_job_runs_at_the_model_rate)
{
    struct job_spec jobs[] = { job(7, 5, 1, 1000) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 1, first_fit_v100, WAKE_ARRIVAL | WAKE_COMPLETION, 0, cfg_delay(0),
                     &s, &err), 0, "%s", err.msg);
    const struct rec *r = find(&s, 7);
    cr_assert_float_eq(r->first, 5, 1e-9);
    cr_assert_float_eq(r->finish, 105, 1e-9);           /* 1000 it at 10 it/s */
    cr_assert_float_eq(r->attained, 100, 1e-6);         /* one GPU for 100 s */
    /* alone: N = 1, its 1/N share holds 2 V100 >= 1 worker, so t_iso = 100 s and rho = 1 */
    cr_assert_float_eq(r->n_avg, 1, 1e-9);
    cr_assert_float_eq(r->rho, 1, 1e-9);
}

/* job 2 preempts job 1 on GPU 0; when 2 is done, job 1 resumes on GPU 1 */
static int preempt_script(const struct train_view *v, struct grant_list *out)
{
    const struct train_job *a = by_id(v, 0), *b = by_id(v, 1);
    int g0 = 0, g1 = 1;
    if (a && !b && a->state == JOB_QUEUED)
        grant_add(out, a->slot, &g0, 1, OCC_WHOLE);
    else if (a && b && b->state == JOB_QUEUED) {
        grant_preempt(out, a->slot);
        grant_add(out, b->slot, &g0, 1, OCC_WHOLE);
    } else if (a && !b && a->state == JOB_PREEMPTED)
        grant_add(out, a->slot, &g1, 1, OCC_WHOLE);
    return 0;
}

Test(train, preemption_and_resume_pay_the_restore_delay)
{
    struct job_spec jobs[] = { job(0, 0, 1, 1000), job(1, 30, 1, 100) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 2, preempt_script, WAKE_ARRIVAL | WAKE_COMPLETION, 0, cfg_delay(7),
                     &s, &err), 0, "%s", err.msg);
    const struct rec *a = find(&s, 0), *b = find(&s, 1);
    /* b starts fresh (no delay): 100 it at 10/s -> 40 s */
    cr_assert_float_eq(b->first, 30, 1e-9);
    cr_assert_float_eq(b->finish, 40, 1e-9);
    /* a: 300 it by 30 s; resumes at 40 on GPU 1, restores until 47, 700 it -> 117 s */
    cr_assert_float_eq(a->finish, 117, 1e-9);
    cr_assert_eq(a->preemptions, 1);
    cr_assert_eq(a->migrations, 0);
    cr_assert_float_eq(a->attained, 30 + 77, 1e-6);     /* restoring still holds the GPU */
}

/* at the round after 20 s, job 0 moves from GPU 0 to GPU 1 (FULL list) */
static int migrate_script(const struct train_view *v, struct grant_list *out)
{
    const struct train_job *a = by_id(v, 0);
    if (a == NULL)
        return 0;
    grant_full(out);
    int g = v->now >= sim_from_sec(20) ? 1 : 0;
    grant_add(out, a->slot, &g, 1, OCC_WHOLE);
    return 0;
}

Test(train, migration_restarts_the_job)
{
    struct job_spec jobs[] = { job(0, 0, 1, 1000) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 1, migrate_script, WAKE_ROUND, 10, cfg_delay(5), &s, &err), 0, "%s",
                 err.msg);
    const struct rec *a = find(&s, 0);
    /* rounds at 0, 10, 20: moved at 20 with 200 it done; restore to 25; 800 it -> 105 s */
    cr_assert_float_eq(a->finish, 105, 1e-9);
    cr_assert_eq(a->migrations, 1);
    cr_assert_eq(a->preemptions, 0);
}

/* FULL list naming nobody: running jobs are preempted */
static int full_then_nothing(const struct train_view *v, struct grant_list *out)
{
    const struct train_job *a = by_id(v, 0);
    grant_full(out);
    int g = 0;
    if (a && v->now < sim_from_sec(10))
        grant_add(out, a->slot, &g, 1, OCC_WHOLE);
    else if (a && v->now >= sim_from_sec(30))
        grant_add(out, a->slot, &g, 1, OCC_WHOLE);
    return 0;
}

Test(train, full_lists_preempt_what_they_leave_out)
{
    struct job_spec jobs[] = { job(0, 0, 1, 500) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 1, full_then_nothing, WAKE_ROUND, 10, cfg_delay(0), &s, &err), 0,
                 "%s", err.msg);
    const struct rec *a = find(&s, 0);
    /* runs 0-10 (100 it), idle 10-30, runs again from 30: 400 it -> 70 s */
    cr_assert_float_eq(a->finish, 70, 1e-9);
    cr_assert_eq(a->preemptions, 1);
}

/* two jobs share GPU 0 half and half */
static int halves(const struct train_view *v, struct grant_list *out)
{
    int g = 0;
    for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j))
        grant_add(out, j->slot, &g, 1, 500);
    return 0;
}

Test(train, shares_divide_the_rate)
{
    struct job_spec jobs[] = { job(0, 0, 1, 100), job(1, 0, 1, 300) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 2, halves, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0, "%s", err.msg);
    /* 5 it/s each; job 1 keeps its half after job 0 leaves (the policy is not woken) */
    cr_assert_float_eq(find(&s, 0)->finish, 20, 1e-9);
    cr_assert_float_eq(find(&s, 1)->finish, 60, 1e-9);
    cr_assert_float_eq(find(&s, 0)->attained, 10, 1e-6);
}

/* over-allocation: both jobs get all of GPU 0 */
static int greedy_bad(const struct train_view *v, struct grant_list *out)
{
    int g = 0;
    for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j))
        grant_add(out, j->slot, &g, 1, OCC_WHOLE);
    return 0;
}

Test(train, over_allocation_fails_the_run)
{
    struct job_spec jobs[] = { job(0, 0, 1, 100), job(1, 0, 1, 100) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_lt(run(jobs, 2, greedy_bad, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0);
    cr_assert_eq(err.code, ERR_RUN);
    cr_assert(strstr(err.msg, "over-allocated") != NULL, "%s", err.msg);
}

Test(train, a_job_larger_than_any_gpu_type_is_bad_input)
{
    struct job_spec jobs[] = { job(0, 0, 1, 100), job(1, 1, 3, 100) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_lt(run(jobs, 2, first_fit_v100, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0);
    cr_assert_eq(err.code, ERR_INPUT);
    cr_assert(strstr(err.msg, "jobs.csv:3: workers:") != NULL, "%s", err.msg);
}

Test(train, decreasing_arrivals_are_bad_input)
{
    struct job_spec jobs[] = { job(0, 10, 1, 100), job(1, 5, 1, 100) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_lt(run(jobs, 2, first_fit_v100, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0);
    cr_assert_eq(err.code, ERR_INPUT);
    cr_assert(strstr(err.msg, "jobs.csv:3: arrival:") != NULL, "%s", err.msg);
}

Test(train, a_time_limit_reports_unfinished_jobs)
{
    struct job_spec jobs[] = { job(0, 0, 1, 1000), job(1, 0, 1, 100) };
    struct sink s = { 0 };
    struct errbuf err;
    struct train_config c = cfg_delay(0);
    c.until = sim_from_sec(50);
    cr_assert_eq(run(jobs, 2, first_fit_v100, WAKE_ARRIVAL | WAKE_COMPLETION, 0, c, &s, &err),
                 0, "%s", err.msg);
    cr_assert_eq(s.n, 2);
    cr_assert_float_eq(find(&s, 1)->finish, 10, 1e-9);
    cr_assert_float_eq(find(&s, 0)->finish, -1, 0);
    cr_assert_float_eq(find(&s, 0)->attained, 50, 1e-6);
}

Test(train, samples_average_utilization_over_the_period)
{
    /* one job on one of four GPUs for 100 s, samples every 20 s: util_total 0.25 */
    struct job_spec jobs[] = { job(0, 0, 1, 1000) };
    struct sink s = { 0 };
    struct errbuf err;
    struct train_config c = cfg_delay(0);
    c.sample_period = sim_from_sec(20);
    cr_assert_eq(run(jobs, 1, first_fit_v100, WAKE_ARRIVAL, 0, c, &s, &err), 0, "%s", err.msg);
    cr_assert_geq(s.nsamples, 5);
    cr_assert_float_eq(s.last_util, 0.25, 1e-9);
}

/* the policy sees all same-time arrivals at once, however they are streamed */
static int count_waiting(const struct train_view *v, struct grant_list *out)
{
    (void)out;
    cr_assert_eq(v->n_waiting, 3, "decided with %d of 3 simultaneous arrivals", v->n_waiting);
    return 0;
}

Test(train, one_decision_per_instant)
{
    struct job_spec jobs[] = { job(0, 4, 1, 10), job(1, 4, 1, 10), job(2, 4, 1, 10) };
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 3, count_waiting, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0, "%s",
                 err.msg);
}

/* asks to be woken 7 s after each decision, three times; records when it was called and why */
static simtime timer_calls[8];
static unsigned timer_reasons[8];
static int ntimer;

static int timer_script(const struct train_view *v, struct grant_list *out)
{
    timer_calls[ntimer] = v->now;
    timer_reasons[ntimer++] = v->reason;
    const struct train_job *a = by_id(v, 0);
    int g = 0;
    if (a && a->state == JOB_QUEUED)
        grant_add(out, a->slot, &g, 1, OCC_WHOLE);
    if (ntimer < 4)
        out->wake_at = v->now + sim_from_sec(7);
    return 0;
}

Test(train, a_policy_is_woken_when_it_asks)
{
    struct job_spec jobs[] = { job(0, 1, 1, 1000) };
    struct sink s = { 0 };
    struct errbuf err;
    ntimer = 0;
    cr_assert_eq(run(jobs, 1, timer_script, WAKE_ARRIVAL, 0, cfg_delay(0), &s, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(ntimer, 4);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(timer_calls[i], sim_from_sec(1 + 7 * i), "call %d at %lld", i,
                     (long long)timer_calls[i]);
    cr_assert_eq(timer_reasons[0], WAKE_ARRIVAL);
    cr_assert_eq(timer_reasons[1], WAKE_TIMER);
    cr_assert_float_eq(find(&s, 0)->finish, 101, 1e-9);
}

/* ---- the measurement window: throughput where policies can differ ---- */

/* every waiting job onto the first free GPU, in id order (V100s 0, 1, then T4s 2, 3) */
static int first_free(const struct train_view *v, struct grant_list *out)
{
    int taken[4];
    for (int g = 0; g < 4; g++)
        taken[g] = occ_used(v->occ, g) > 0;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j))
        for (int g = 0; g < 4; g++)
            if (!taken[g]) {
                taken[g] = 1;
                grant_add(out, j->slot, &g, 1, OCC_WHOLE);
                break;
            }
    return 0;
}

/* the same, but job 1 goes to a T4 (half its V100 speed) */
static int job1_on_t4(const struct train_view *v, struct grant_list *out)
{
    int taken[4];
    for (int g = 0; g < 4; g++)
        taken[g] = occ_used(v->occ, g) > 0;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j))
        for (int g = j->id == 1 ? 2 : 0; g < 4; g++)
            if (!taken[g]) {
                taken[g] = 1;
                grant_add(out, j->slot, &g, 1, OCC_WHOLE);
                break;
            }
    return 0;
}

Test(train, throughput_differs_where_makespan_does_not)
{
    /* job 0 (1000 s on a V100) sets the makespan under both policies; job 1 takes 150 s on a
     * V100 or 300 s on a T4; job 2 (the last arrival, at 100 s) ends the window [0, 100].
     * Inside it, job 0 progresses at full speed (100 job-seconds) under both; job 1 at full
     * speed (100) on the V100, at half (50) on the T4: throughput 2.0 against 1.5.  The old
     * whole-horizon figure, work at full speed over the makespan, was (1000 + 150 + 10) /
     * 1000 s for both. */
    struct job_spec jobs[] = { job(0, 0, 1, 10000), job(1, 0, 1, 1500), job(2, 100, 1, 100) };
    struct train_totals a = run_totals(jobs, 3, first_free, cfg_delay(0));
    struct train_totals b = run_totals(jobs, 3, job1_on_t4, cfg_delay(0));
    cr_assert_eq(a.makespan, sim_from_sec(1000));
    cr_assert_eq(b.makespan, sim_from_sec(1000));
    cr_assert_float_eq(a.window.from, 0, 0);
    cr_assert_float_eq(a.window.to, 100, 0);
    cr_assert_float_eq(a.window_norm_s / 100, 2.0, 1e-9);
    cr_assert_float_eq(b.window_norm_s / 100, 1.5, 1e-9);
    /* GPU-seconds granted inside the window: two GPUs busy throughout under both */
    cr_assert_float_eq(a.window_busy_gpu_s[0], 200, 1e-9);                  /* V100s */
    cr_assert_float_eq(b.window_busy_gpu_s[0] + b.window_busy_gpu_s[1], 200, 1e-9);
    cr_assert_float_eq(b.window_busy_gpu_s[1], 100, 1e-9);                  /* a T4 */
    /* GPU-seconds over the whole run (gpu_hours, cost_usd) are not a constant either: A runs
     * job 1 for 150 s on a V100 and job 2 for 20 s on a T4 (job 1 holds the other V100 when
     * job 2 arrives), B runs job 1 for 300 s on a T4 and job 2 for 10 s on a V100 */
    cr_assert_float_eq(a.busy_gpu_s[0], 1000 + 150, 1e-9);
    cr_assert_float_eq(a.busy_gpu_s[1], 20, 1e-9);
    cr_assert_float_eq(b.busy_gpu_s[0], 1000 + 10, 1e-9);
    cr_assert_float_eq(b.busy_gpu_s[1], 300, 1e-9);
}

/* first_free, but when job 2 arrives it takes job 1's V100 and job 1 moves to a T4 */
static int move_job1_for_job2(const struct train_view *v, struct grant_list *out)
{
    const struct train_job *j1 = by_id(v, 1), *j2 = by_id(v, 2);
    if (j1 == NULL || j2 == NULL || j2->state != JOB_QUEUED)
        return first_free(v, out);
    int g1 = 1, g3 = 3;
    return grant_add(out, j2->slot, &g1, 1, OCC_WHOLE) < 0 ||
           grant_add(out, j1->slot, &g3, 1, OCC_WHOLE) < 0 ? -1 : 0;
}

Test(train, an_explicit_window_and_restores_count_no_progress)
{
    /* window [50, 150]; at 100 s job 1 moves from a V100 to a T4 and restores for 20 s,
     * while job 2 starts on its V100 (a first start costs nothing).  Inside the window:
     * job 0 100 job-seconds; job 1 50 at full speed, nothing while it restores, then 30 s at
     * half speed (15); job 2 10 s at full speed (100 iterations at 10 it/s) */
    struct job_spec jobs[] = { job(0, 0, 1, 10000), job(1, 0, 1, 1500), job(2, 100, 1, 100) };
    struct train_config c = cfg_delay(20);
    c.measure = (struct window){ 50, 150 };
    struct train_totals a = run_totals(jobs, 3, move_job1_for_job2, c);
    cr_assert_float_eq(a.window.from, 50, 0);
    cr_assert_float_eq(a.window.to, 150, 0);
    cr_assert_float_eq(a.window_norm_s, 100 + 50 + 15 + 10, 1e-9);
    cr_assert_eq(a.migrations, 1);
}

/* ---- the speed hook: co-runners re-rated when one joins or leaves ---- */

/* each job slows by one share of every other job on its GPUs (a toy interference model) */
static double interfering_rate(const struct train_speed *s, const cluster *c, const tput *m,
                               const struct train_speed_query *q)
{
    (void)s;
    return train_speed_placed(c, m, q->job->jtype, q->gpus, q->ngpu) * q->share / 1000.0 /
           (1 + q->nco);
}

static const struct train_speed interfering = { "interfering", 1, interfering_rate, NULL, NULL };

/* every waiting job onto half of GPU 0 */
static int half_gpu0(const struct train_view *v, struct grant_list *out)
{
    int g = 0;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j))
        grant_add(out, j->slot, &g, 1, 500);
    return 0;
}

Test(train, co_runners_are_re_rated_when_one_joins_and_when_one_leaves)
{
    /* A (100 it) alone on half a V100: 10 it/s x 0.5 = 5 it/s.  B joins at 10 s: both run at
     * 2.5 it/s, so A's remaining 50 it take 20 s (A ends at 30, not 20).  B has done 50 it by
     * then; when A leaves, its remaining 50 it run at 5 it/s again: 10 s, B ends at 40 (not
     * at 10 + 100 / 2.5 = 50). */
    struct job_spec jobs[] = { job(0, 0, 1, 100), job(1, 10, 1, 100) };
    struct train_config c = cfg_delay(0);
    c.speed = &interfering;
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 2, half_gpu0, WAKE_ARRIVAL | WAKE_COMPLETION, 0, c, &s, &err), 0,
                 "%s", err.msg);
    cr_assert_float_eq(find(&s, 0)->finish, 30, 1e-6);
    cr_assert_float_eq(find(&s, 1)->finish, 40, 1e-6);
    /* the same when the policy is not asked at completions: the world re-rates by itself */
    struct sink s2 = { 0 };
    cr_assert_eq(run(jobs, 2, half_gpu0, WAKE_ARRIVAL, 0, c, &s2, &err), 0, "%s", err.msg);
    cr_assert_float_eq(find(&s2, 0)->finish, 30, 1e-6);
    cr_assert_float_eq(find(&s2, 1)->finish, 40, 1e-6);
    /* the rigid hook ignores co-runners: each runs at 5 it/s throughout */
    c.speed = NULL;
    struct sink r = { 0 };
    cr_assert_eq(run(jobs, 2, half_gpu0, WAKE_ARRIVAL | WAKE_COMPLETION, 0, c, &r, &err), 0,
                 "%s", err.msg);
    cr_assert_float_eq(find(&r, 0)->finish, 20, 1e-6);
    cr_assert_float_eq(find(&r, 1)->finish, 30, 1e-6);
}

/* the speed query a hook sees */
static int seen_nco[8], nseen;
static double recording_rate(const struct train_speed *s, const cluster *c, const tput *m,
                             const struct train_speed_query *q)
{
    (void)s;
    if (nseen < 8)
        seen_nco[nseen++] = q->job->id == 0 ? q->nco : -1;
    return train_speed_placed(c, m, q->job->jtype, q->gpus, q->ngpu) * q->share / 1000.0;
}
static const struct train_speed recording = { "recording", 1, recording_rate, NULL, NULL };

Test(train, the_speed_hook_sees_the_co_runners)
{
    /* job 0 alone, then with job 1 on its GPU, then alone again */
    struct job_spec jobs[] = { job(0, 0, 1, 100), job(1, 10, 1, 10) };
    struct train_config c = cfg_delay(0);
    c.speed = &recording;
    nseen = 0;
    struct sink s = { 0 };
    struct errbuf err;
    cr_assert_eq(run(jobs, 2, half_gpu0, WAKE_ARRIVAL | WAKE_COMPLETION, 0, c, &s, &err), 0,
                 "%s", err.msg);
    int want[] = { 0, 1, 0 }, k = 0;
    for (int i = 0; i < nseen && k < 3; i++)
        if (seen_nco[i] >= 0)
            cr_assert_eq(seen_nco[i], want[k++], "query %d of job 0", i);
    cr_assert_eq(k, 3, "job 0 was rated %d times", k);
}
