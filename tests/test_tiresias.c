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
        struct policy_env env = { 1, cl, th_m, NULL, 0 };
        policy *pol;
        cr_assert_lt(policy_open(&pol, "tiresias", &o, &env, &err), 0, "%s accepted", bad[k]);
        cr_assert_eq(err.code, ERR_INPUT);
        cr_assert(strstr(err.msg, "exp.json:1:"), "%s", err.msg);
        jsonf_destroy(doc);
    }
    cluster_destroy(cl);
}

/* ---- the decisions against a from-empty recomputation ----
 *
 * The policy writes a DELTA list of what changes.  The oracle below is Tiresias as first
 * written here: every decision sorts every active job by (queue, id) from scratch, plans from
 * an empty cluster and returns the FULL list of every pick (plan_commit: keepers first, then
 * newcomers packed).  Fed the same views, it must end in the same grants, changed in the same
 * order (the world applies the changed grants in list order, then the preemptions a FULL list
 * implies in its running order), with the same wake-up, and the policy's list must name no
 * job whose grant stays.  Its rules are written out again on purpose, without sched/rank.h. */

#include <math.h>
#include "../sched/plan.h"

struct oracle_job {
    int64_t  id;
    int      q;
    double   base, wait_s;
    simtime  last;
    uint64_t granted;
};

struct oracle {
    double             thr[4];
    int                nthr;
    double             knob;
    struct oracle_job *st;
    size_t             cap;
    occ               *scratch;
    struct grant_list  full;
    uint64_t           decision;
    long long          decisions, started, preempted, moved, kept;  /* what was compared */
};

static int oracle_queue(struct oracle *o, const struct train_view *v, const struct train_job *j)
{
    if ((size_t)j->slot >= o->cap) {
        size_t nc = (size_t)j->slot * 2 + 16;
        o->st = realloc(o->st, nc * sizeof *o->st);
        cr_assert_not_null(o->st);
        for (size_t k = o->cap; k < nc; k++)
            o->st[k].id = -1;
        o->cap = nc;
    }
    struct oracle_job *s = &o->st[j->slot];
    if (s->id != j->id)
        *s = (struct oracle_job){ .id = j->id, .last = j->arrival };
    double a = train_view_attained(j, v->now), served = a - s->base;
    if (j->state != JOB_RUNNING && served > 1e-6)
        s->wait_s += sim_to_sec(v->now - s->last);
    s->last = v->now;
    if (o->knob > 0 && s->q > 0 && j->state != JOB_RUNNING && served > 1e-6 &&
        s->wait_s >= o->knob * (served / j->workers) - 1e-6) {
        *s = (struct oracle_job){ .id = j->id, .base = a, .last = v->now };
        return 0;
    }
    int q = 0;
    while (q < o->nthr && served >= o->thr[q] - 1e-6)
        q++;
    if (q > s->q)
        s->q = q;
    return s->q;
}

static const struct oracle *oracle_sort_ctx;
static const struct train_view *oracle_sort_view;

static int oracle_cmp(const void *a, const void *b)
{
    const struct train_job *x = &oracle_sort_view->jobs[*(const int32_t *)a];
    const struct train_job *y = &oracle_sort_view->jobs[*(const int32_t *)b];
    int qx = oracle_sort_ctx->st[x->slot].q, qy = oracle_sort_ctx->st[y->slot].q;
    if (qx != qy)
        return qx < qy ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The oracle's FULL list for this view, and its wake-up. */
static simtime oracle_decide(struct oracle *o, const struct train_view *v)
{
    int32_t *order = malloc((size_t)v->n_active * sizeof *order);
    struct plan_pick *picks = malloc((size_t)v->n_active * sizeof *picks);
    cr_assert(order && picks);
    int n = 0;
    int held[CLUSTER_MAX_TYPES] = { 0 };
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        oracle_queue(o, v, j);
        order[n++] = j->slot;
        if (j->state == JOB_RUNNING)
            held[cluster_type_slot(v->cl, j->gpu_type)] += j->ngpu;
    }
    oracle_sort_ctx = o;
    oracle_sort_view = v;
    qsort(order, (size_t)n, sizeof *order, oracle_cmp);
    const int *types;
    int nt = cluster_types(v->cl, &types), freec[CLUSTER_MAX_TYPES], np = 0;
    for (int i = 0; i < nt; i++)
        freec[i] = cluster_type_count(v->cl, types[i]);
    for (int k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[order[k]];
        int w = j->workers, cur = -1, best = -1;
        if (j->state == JOB_RUNNING) {
            cur = cluster_type_slot(v->cl, j->gpu_type);
            held[cur] -= j->ngpu;
        }
        if (cur >= 0 && j->ngpu == w && j->share == OCC_WHOLE && freec[cur] >= w)
            best = cur;
        else
            for (int i = 0; i < nt; i++) {
                if (freec[i] < w || !(train_view_rate(v, j, types[i], w) > 0))
                    continue;
                int fi = freec[i] - held[i], fb = best < 0 ? 0 : freec[best] - held[best];
                if (best < 0 || fi > fb || (fi == fb && freec[i] > freec[best]))
                    best = i;
            }
        if (best < 0)
            continue;
        freec[best] -= w;
        picks[np++] = (struct plan_pick){ j, types[best], w };
    }
    struct plan p;
    struct errbuf err;
    err_clear(&err);
    grant_list_reset(&o->full);
    plan_begin(&p, v, o->scratch, &o->full, PLAN_FULL);
    cr_assert_eq(plan_commit(&p, picks, np, &err), 0, "%s", err.msg);
    /* the next demotion of a granted job, or promotion of a waiting one */
    double soonest = INFINITY;
    o->decision++;
    for (size_t k = 0; k < o->full.n; k++) {
        const struct grant *g = &o->full.g[k];
        const struct train_job *j = &v->jobs[g->slot];
        struct oracle_job *s = &o->st[g->slot];
        s->granted = o->decision;
        if (s->q < o->nthr)
            soonest = fmin(soonest, (o->thr[s->q] - (train_view_attained(j, v->now) - s->base)) /
                                        (g->ngpu * (g->share / 1000.0)));
    }
    if (o->knob > 0)
        for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
            const struct oracle_job *s = &o->st[j->slot];
            double served = train_view_attained(j, v->now) - s->base;
            if (s->granted != o->decision && s->q > 0 && served > 1e-6)
                soonest = fmin(soonest, o->knob * served / j->workers - s->wait_s);
        }
    free(order);
    free(picks);
    if (!isfinite(soonest))
        return 0;
    return v->now + (soonest > 1e-6 ? sim_from_sec_ceil(soonest) : 1);
}

static int same_as_held(const struct train_job *j, const struct grant_list *l, const struct grant *g)
{
    return j->ngpu == g->ngpu &&
           (g->ngpu == 0 || (j->share == g->share &&
                             memcmp(j->gpus, grant_ids(l, g), (size_t)g->ngpu * sizeof(int)) == 0));
}

/* The grants that change, in the order the world applies them: (slot, GPU count, ids). */
static int changes(const struct train_view *v, const struct grant_list *l, int32_t *out)
{
    int n = 0;
    int32_t nslots = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        if (j->slot >= nslots)
            nslots = j->slot + 1;
    char *listed = calloc((size_t)nslots, 1);
    cr_assert_not_null(listed);
    for (size_t k = 0; k < l->n; k++) {
        const struct grant *g = &l->g[k];
        listed[g->slot] = 1;
        if (same_as_held(&v->jobs[g->slot], l, g))
            continue;
        out[n++] = g->slot;
        out[n++] = g->ngpu;
        for (int i = 0; i < g->ngpu; i++)
            out[n++] = grant_ids(l, g)[i];
    }
    if (l->full)
        for (const struct train_job *j = train_view_first_running(v); j; j = train_view_next_running(v, j))
            if (!listed[j->slot]) {
                out[n++] = j->slot;
                out[n++] = 0;
            }
    free(listed);
    return n;
}

static void check_against_oracle(void *ctx, const struct train_view *v, const struct grant_list *out)
{
    struct oracle *o = ctx;
    simtime wake = oracle_decide(o, v);
    cr_assert_eq(out->full, 0, "tiresias writes DELTA lists");
    cr_assert_eq(out->wake_at, wake, "wake-up at %lld, the oracle's at %lld",
                 (long long)out->wake_at, (long long)wake);
    for (size_t k = 0; k < out->n; k++)
        cr_assert(!same_as_held(&v->jobs[out->g[k].slot], out, &out->g[k]),
                  "the DELTA list names job %lld, whose grant stays", (long long)v->jobs[out->g[k].slot].id);
    size_t room = 2 * ((size_t)v->n_active + o->full.n + out->n) + o->full.nids + out->nids + 16;
    int32_t *a = malloc(room * sizeof *a), *b = malloc(room * sizeof *b);
    int na = changes(v, out, a), nb = changes(v, &o->full, b);
    cr_assert(na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0,
              "at %.6f s the policy changes other grants than the from-empty plan",
              sim_to_sec(v->now));
    for (int k = 0; k < na; k += 2 + a[k + 1]) {
        const struct train_job *j = &v->jobs[a[k]];
        o->started += a[k + 1] > 0 && j->state != JOB_RUNNING;
        o->moved += a[k + 1] > 0 && j->state == JOB_RUNNING;
        o->preempted += a[k + 1] == 0;
    }
    o->kept += v->n_running;
    o->decisions++;
    free(a);
    free(b);
}

Test(tiresias, delta_decisions_equal_a_from_empty_plan)
{
    /* nodes of several sizes per type, so that which node a newcomer lands on depends on the
     * node lists' order; short thresholds, so that jobs change queue often */
    cluster *cl = th_cluster(th_cat,
        "{ \"name\": \"c\", \"network\": \"ib-100g\", \"groups\": [\n"
        " { \"count\": 3, \"gpu\": \"V100\", \"gpus_per_node\": 2 },\n"
        " { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
        " { \"count\": 2, \"gpu\": \"T4\", \"gpus_per_node\": 4 },\n"
        " { \"count\": 4, \"gpu\": \"T4\", \"gpus_per_node\": 1 },\n"
        " { \"count\": 1, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 8 } ] }");
    static const struct { const char *params; double thr[3]; int nthr; double knob; } runs[] = {
        { "{\"thresholds\": [300]}", { 300 }, 1, 0 },
        { "{\"thresholds\": [200, 1500, 6000]}", { 200, 1500, 6000 }, 3, 0 },
        { "{\"thresholds\": [400, 3000], \"promote_knob\": 1}", { 400, 3000 }, 2, 1 },
        { "{\"thresholds\": [250], \"promote_knob\": 3}", { 250 }, 1, 3 },
    };
    long long started = 0, preempted = 0, moved = 0;
    for (int r = 0; r < 4; r++)
        for (unsigned long seed = 1; seed <= 3; seed++) {
            struct job_spec *jobs = th_random_jobs(th_m, 200, seed * 7 + (unsigned long)r, 40);
            struct oracle o = { .nthr = runs[r].nthr, .knob = runs[r].knob };
            memcpy(o.thr, runs[r].thr, sizeof o.thr);
            o.scratch = occ_create(cl);
            grant_list_init(&o.full);
            th_check_ctx = &o;
            th_check_decision = check_against_oracle;
            struct th_result res = th_run_policy(cl, th_m, jobs, 200, "tiresias", runs[r].params,
                                                 &rcfg);
            th_check_decision = NULL;
            cr_assert_eq(res.n, 200);
            cr_assert_eq(o.decisions, res.decisions);
            started += o.started;
            preempted += o.preempted;
            moved += o.moved;
            th_result_free(&res);
            grant_list_fini(&o.full);
            occ_destroy(o.scratch);
            free(o.st);
            free(jobs);
        }
    /* the comparison saw every kind of change */
    cr_assert_gt(started, 10000, "%lld starts, %lld preemptions, %lld moves", started, preempted, moved);
    cr_assert_gt(preempted, 10000);
    cr_assert_gt(moved, 1000);
    cluster_destroy(cl);
}
