/*
 * test_tenants: every native training policy as a colocate tenant — it plans around the GPUs a
 * broker has given another tenant (the view's base, sim/train/train_view.h), as a policy that
 * sees the cluster minus what it is denied would.
 *
 *  - Property, over every training policy in the registry with a native decide hook (the
 *    Pollux-interface ones, which have none, run only in their own mode): a training world on
 *    the mixed cluster with GPUs withheld at time 0 and others withheld and given back mid-run,
 *    several seeds.  The run completes, no grant a policy returns ever names a withheld GPU
 *    (checked on the list itself, before the world's own check), no job's timeline segment
 *    holds one, and every job finishes on the rest.
 *  - The round-based allocators' capacity (sched/alloc.c): with 4 of the 8 A100s denied, the
 *    problem's A100 capacity is 4 and a job of 8 workers has throughput 0 there; it runs on
 *    the V100s, where without a broker it gets the A100s.
 *  - The allocators' memo: a solve is reused only while the job set and the capacities stay;
 *    a change of capacity alone re-solves (a stale answer would keep the job off every type).
 *  - The world still refuses a policy that ignores base: a planted decider that grants a
 *    withheld GPU stops the run, naming the job and the GPU.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/alloc.h"
#include "../sched/policy.h"
#include "../sim/train/train.h"
#include "helpers.h"

TestSuite(tenants, .init = th_mixed_init, .fini = th_mixed_fini, .timeout = 300);

/* th_mixed_cluster's GPU ids: V100 0-7 (nodes of 4), T4 8-15 (nodes of 4), A100 16-23 (one
 * node of 8). */
enum { NGPU = 24 };

/* ---- the property: a run under a broker that withholds and gives back GPUs */

struct probe {
    struct train_decider inner;     /* the policy's */
    const char          *name;
    uint8_t              withheld[NGPU];
    long long            decisions;
    /* timeline segments holding a GPU while it was withheld, and jobs that finished */
    int                  bad_segments, finished, unfinished;
    char                 first_bad[256];
};

static int probe_decide(void *ctx, const struct train_view *v, struct grant_list *out,
                        struct errbuf *err)
{
    struct probe *p = ctx;
    int rc = p->inner.decide(p->inner.ctx, v, out, err);
    p->decisions++;
    if (rc < 0)
        return rc;
    for (size_t k = 0; k < out->n; k++) {
        const struct grant *g = &out->g[k];
        const int *ids = grant_ids(out, g);
        for (int i = 0; i < g->ngpu; i++)
            cr_assert(!p->withheld[ids[i]], "%s at %.3f s granted job %lld GPU %d, which is "
                      "withheld", p->name, sim_to_sec(v->now), (long long)v->jobs[g->slot].id,
                      ids[i]);
    }
    return 0;
}

/* Withholds over the run: [from, to) for each set of GPUs (to < 0: to the end). */
struct hold {
    double from, to;
    int    first, n;
};
static const struct hold holds[] = {
    { 0, 3000, 0, 4 },          /* a V100 node, given back mid-run */
    { 0, -1, 16, 4 },           /* half the A100 node, to the end */
    { 1500, -1, 8, 4 },         /* a T4 node, mid-run, to the end */
    { 2500, 9000, 20, 2 },      /* two more A100s: 2 left, below an 8-GPU or 4-GPU job */
};
enum { NHOLDS = sizeof holds / sizeof holds[0] };

static int held_during(int gpu, double from, double to)
{
    for (int h = 0; h < NHOLDS; h++) {
        double end = holds[h].to < 0 ? 1e300 : holds[h].to;
        if (gpu >= holds[h].first && gpu < holds[h].first + holds[h].n && from < end &&
            to > holds[h].from)
            return 1;
    }
    return 0;
}

static int probe_segment(void *ctx, const struct train_segment *sg, struct errbuf *err)
{
    (void)err;
    struct probe *p = ctx;
    double from = sim_to_sec(sg->from), to = sim_to_sec(sg->to);
    for (int i = 0; i < sg->ngpu && to > from; i++)
        if (held_during(sg->gpus[i], from, to) && p->bad_segments++ == 0)
            snprintf(p->first_bad, sizeof p->first_bad, "job %lld held GPU %d in [%g, %g)",
                     (long long)sg->trace_id, sg->gpus[i], from, to);
    return 0;
}

static int probe_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct probe *p = ctx;
    if (r->finish >= 0)
        p->finished++;
    else
        p->unfinished++;
    return 0;
}

static void set_held(train *w, struct probe *p, int h, int on)
{
    int ids[8];
    for (int i = 0; i < holds[h].n; i++) {
        ids[i] = holds[h].first + i;
        p->withheld[ids[i]] = (uint8_t)on;
    }
    struct errbuf err;
    err_clear(&err);
    int64_t affected;
    int rc = on ? train_withhold(w, ids, holds[h].n, &affected, &err)
                : train_give(w, ids, holds[h].n, &err);
    cr_assert_eq(rc, 0, "%s: %s", p->name, err.msg);
}

/* One run of `name` on jobs under the withholds; checks the property. */
static void run_withheld(const char *name, const struct job_spec *jobs, int n)
{
    struct errbuf err;
    err_clear(&err);
    struct policy_env env = { 1, th_cl, th_m, NULL, 0 };
    policy *pol;
    cr_assert_eq(policy_open(&pol, name, NULL, &env, &err), 0, "%s: %s", name, err.msg);
    struct probe *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    p->inner = *(const struct train_decider *)policy_decider(pol);
    p->name = name;
    struct train_decider dec = p->inner;
    dec.ctx = p;
    dec.decide = probe_decide;
    struct th_array src = { jobs, sizeof *jobs, n, 0 };
    struct entity_source es = { &src, th_array_next };
    struct train_config cfg = { .restore_delay_s = 30, .until = SIM_NEVER };
    struct train_sink sink = { .ctx = p, .job = probe_job, .segment = probe_segment };
    train *w;
    cr_assert_eq(train_create(&w, th_cl, th_m, &cfg, &es, &dec, &sink, &err), 0, "%s: %s",
                 name, err.msg);
    engine *e = engine_create(0);
    cr_assert_not_null(e);
    cr_assert_eq(train_attach(w, e, &err), 0, "%s: %s", name, err.msg);
    /* the instants the broker acts at, in order: withholds and gives */
    double at[2 * NHOLDS];
    int nat = 0;
    for (int h = 0; h < NHOLDS; h++) {
        at[nat++] = holds[h].from;
        if (holds[h].to >= 0)
            at[nat++] = holds[h].to;
    }
    for (int a = 1; a < nat; a++)               /* insertion sort */
        for (int b = a; b > 0 && at[b] < at[b - 1]; b--) {
            double x = at[b];
            at[b] = at[b - 1];
            at[b - 1] = x;
        }
    for (int a = 0; a < nat; a++) {
        if (a > 0 && at[a] == at[a - 1])
            continue;
        if (at[a] > 0) {
            struct engine_limits lim = { sim_from_sec(at[a]), 0 };
            int stop = engine_advance(e, &lim, &err);
            cr_assert_neq(stop, ENGINE_FAILED, "%s: %s", name, err.msg);
        }
        for (int h = 0; h < NHOLDS; h++) {
            if (holds[h].to == at[a])
                set_held(w, p, h, 0);
            if (holds[h].from == at[a])
                set_held(w, p, h, 1);
        }
    }
    struct engine_limits lim = { SIM_NEVER, 0 };
    int stop = engine_advance(e, &lim, &err);
    cr_assert_neq(stop, ENGINE_FAILED, "%s: %s", name, err.msg);
    struct train_totals tot;
    cr_assert_eq(train_finish(w, stop, &tot, &err), 0, "%s: %s", name, err.msg);
    cr_assert_eq(p->bad_segments, 0, "%s: %d segments on withheld GPUs, first: %s", name,
                 p->bad_segments, p->first_bad);
    cr_assert_eq(p->finished, n, "%s: %d of %d jobs finished (%d unfinished)", name,
                 p->finished, n, p->unfinished);
    cr_assert_gt(p->decisions, 0, "%s", name);
    train_destroy(w);
    engine_destroy(e);
    policy_close(pol);
    free(p);
}

/* Random jobs (th_random_jobs), every third elastic down to half its workers, so that a
 * withhold shrinks some instead of preempting them. */
static struct job_spec *mixed_jobs(int n, unsigned long seed)
{
    struct job_spec *jobs = th_random_jobs(th_m, n, seed, 150);
    for (int i = 0; i < n; i += 3) {
        jobs[i].min_workers = jobs[i].workers > 1 ? jobs[i].workers / 2 : 1;
        jobs[i].max_workers = jobs[i].workers;
    }
    return jobs;
}

Test(tenants, every_native_training_policy_plans_around_withheld_gpus)
{
    int ran = 0;
    for (const struct policy_ops *const *o = policy_registry; *o != NULL; o++) {
        const struct policy_ops *ops = *o;
        if (strcmp(ops->domain, "training") != 0)
            continue;
        if (ops->train->decide == NULL)     /* Pollux's interface: its own mode only */
            continue;
        for (unsigned long seed = 1; seed <= 3; seed++) {
            struct job_spec *jobs = mixed_jobs(30, seed);
            run_withheld(ops->name, jobs, 30);
            free(jobs);
        }
        ran++;
    }
    cr_assert_geq(ran, 20, "only %d policies ran", ran);
}

/* ---- the allocators' capacity and memo, on hand-built views */

/* An allocation rule that records what it was asked and puts each job on the fastest type it
 * has throughput on (x = 1 there) */
struct recorder {
    struct alloc_base base;         /* first: alloc_train finds it from self */
    int               calls;
    double            cap[CLUSTER_MAX_TYPES], thr[CLUSTER_MAX_TYPES];
    int               ntypes;
};

static int record_allocate(void *self, const struct alloc_problem *p, double *x,
                           struct errbuf *err)
{
    (void)err;
    struct recorder *r = self;
    r->calls++;
    r->ntypes = p->ntypes;
    for (int t = 0; t < p->ntypes; t++) {
        r->cap[t] = p->cap[t];
        r->thr[t] = p->njobs > 0 ? p->thr[t] : 0;
    }
    for (int j = 0; j < p->njobs; j++) {
        int best = -1;
        for (int t = 0; t < p->ntypes; t++)
            if (p->thr[j * p->ntypes + t] > 0 &&
                (best < 0 || p->thr[j * p->ntypes + t] > p->thr[j * p->ntypes + best]))
                best = t;
        if (best >= 0)
            x[j * p->ntypes + best] = 1;
    }
    return 0;
}

/* One waiting job of 8 workers whose fastest type on th_mixed_cluster is the A100 (a
 * Transformer: about 58 iterations/s on the 8 A100s, 17 on the 8 V100s, 16.6 on the T4s). */
static struct train_job eight(void)
{
    return (struct train_job){ .id = 1, .jtype = tput_find(th_m, "Transformer (batch size 64)"),
                               .workers = 8, .min_workers = 8, .max_workers = 8,
                               .weight = 1, .work = 1e6, .state = JOB_QUEUED,
                               .first_start = -1, .gpu_type = -1 };
}

/* The first GPU the list grants job slot 0 and how many (-1, 0: none). */
static int granted_first(const struct grant_list *l, int *n)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->g[k].slot == 0 && l->g[k].ngpu > 0) {
            *n = l->g[k].ngpu;
            return grant_ids(l, &l->g[k])[0];
        }
    *n = 0;
    return -1;
}

/* Deny GPUs [first, first + n) in base and occ. */
static occ *deny(struct train_view *v, int first, int n)
{
    occ *b = occ_create(th_cl);
    cr_assert_not_null(b);
    int ids[8];
    for (int i = 0; i < n; i++)
        ids[i] = first + i;
    occ_take(b, ids, n, OCC_WHOLE);
    occ_take((occ *)v->occ, ids, n, OCC_WHOLE);
    v->base = b;
    v->base_epoch++;
    return b;
}

static void undeny(struct train_view *v, occ *b, int first, int n)
{
    int ids[8];
    for (int i = 0; i < n; i++)
        ids[i] = first + i;
    occ_release((occ *)v->occ, ids, n, OCC_WHOLE);
    occ_destroy(b);
    v->base = NULL;
    v->base_epoch++;
}

static int a100_slot(void)
{
    return cluster_type_slot(th_cl, cluster_gpu_type(th_cl, 16));
}

/* One job of eight at a round on the mixed cluster, the view and a grant list for it. */
struct rig {
    struct train_job  jobs[1];
    struct th_view    tv;
    struct policy_env env;
    struct grant_list out;
};

static void rig_init(struct rig *g)
{
    g->jobs[0] = eight();
    th_view_init(&g->tv, th_cl, th_m, g->jobs, 1, 100, 60, 30);
    g->tv.v->reason = WAKE_ROUND;
    g->env = (struct policy_env){ 1, th_cl, th_m, NULL, 0 };
    grant_list_init(&g->out);
}

static void rig_fini(struct rig *g)
{
    grant_list_fini(&g->out);
    th_view_fini(&g->tv);
}

Test(tenants, the_allocators_capacity_is_the_cluster_s_less_the_denied)
{
    struct rig g;
    rig_init(&g);
    struct train_view *v = g.tv.v;
    struct recorder r = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(alloc_base_init(&r.base, &g.env, record_allocate, 0, &err), 0);
    struct grant_list *out = &g.out;
    int a = a100_slot(), n;
    /* no broker: 8 A100s, and the job runs there (GPUs 16-23) */
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.cap[a], 8);
    cr_assert_gt(r.thr[a], 0);
    cr_assert_eq(granted_first(out, &n), 16, "the job is on GPU %d (%d GPUs, %zu grants, "
                 "thr A100 %g), not the A100s", granted_first(out, &n), n, out->n, r.thr[a]);
    cr_assert_eq(n, 8);
    /* 4 of the 8 A100s denied: capacity 4, the job of 8 has throughput 0 there and runs on
     * the 8 V100s (GPUs 0-7) */
    occ *b = deny(v, 16, 4);
    grant_list_reset(out);
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.cap[a], 4, "A100 capacity %g with 4 of 8 denied", r.cap[a]);
    cr_assert_eq(r.thr[a], 0, "a job of 8 has throughput %g on 4 A100s", r.thr[a]);
    cr_assert_eq(granted_first(out, &n), 0, "the job is not on the V100s");
    cr_assert_eq(n, 8);
    for (int t = 0; t < r.ntypes; t++)
        if (t != a)
            cr_assert_eq(r.cap[t], 8, "type slot %d lost capacity", t);
    undeny(v, b, 16, 4);
    alloc_base_fini(&r.base);
    rig_fini(&g);
}

/* The memo: the same job set at a round with the same capacities reuses the solve; the same
 * job set with a capacity changed re-solves.  Through a registered allocator too
 * (gavel_las_perf, which solves only when its problem changes): with a stale answer the job
 * would stay off the A100s it was put on and get nothing. */
Test(tenants, the_allocators_memo_is_keyed_on_capacity)
{
    struct rig g;
    rig_init(&g);
    struct train_view *v = g.tv.v;
    struct recorder r = { 0 };
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(alloc_base_init(&r.base, &g.env, record_allocate, 0, &err), 0);
    struct grant_list *out = &g.out;
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.calls, 1, "the same problem was solved %d times", r.calls);
    occ *b = deny(v, 16, 4);
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.calls, 2, "a change of capacity did not re-solve");
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.calls, 2, "the same capacity re-solved");
    undeny(v, b, 16, 4);
    cr_assert_eq(alloc_train(&r, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(r.calls, 3, "capacity given back did not re-solve");
    alloc_base_fini(&r.base);

    policy *p;
    cr_assert_eq(policy_open(&p, "gavel_las_perf", NULL, &g.env, &err), 0, "%s", err.msg);
    int n;
    grant_list_reset(out);
    cr_assert_eq(policy_train_decide(p, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(granted_first(out, &n), 16, "gavel_las_perf: the job is not on the A100s");
    b = deny(v, 16, 4);
    grant_list_reset(out);
    cr_assert_eq(policy_train_decide(p, v, out, &err), 0, "%s", err.msg);
    cr_assert_eq(granted_first(out, &n), 0, "gavel_las_perf with 4 A100s denied: the job is "
                 "on GPU %d (%d GPUs), not the V100s", granted_first(out, &n), n);
    cr_assert_eq(n, 8);
    undeny(v, b, 16, 4);
    policy_close(p);
    rig_fini(&g);
}

/* ---- the world's guard: a policy that ignores base is refused */

static int grant_gpu0(void *ctx, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    (void)ctx;
    (void)err;
    grant_full(out);
    const struct train_job *j = train_view_first_active(v);
    int id = 0;
    if (j != NULL && grant_add(out, j->slot, &id, 1, OCC_WHOLE) < 0)
        return -1;
    return 0;
}

Test(tenants, the_world_refuses_a_grant_of_a_withheld_gpu)
{
    struct job_spec jobs[1] = { { .id = 7, .arrival = sim_from_sec(10),
                                  .jtype = tput_find(th_m, "ResNet-50 (batch size 64)"),
                                  .workers = 1, .work = 1e5, .weight = 1 } };
    struct th_array src = { jobs, sizeof *jobs, 1, 0 };
    struct entity_source es = { &src, th_array_next };
    struct train_config cfg = { .restore_delay_s = 30, .until = SIM_NEVER };
    struct train_sink sink = { 0 };
    struct train_decider dec = { .decide = grant_gpu0, .wake = WAKE_ARRIVAL | WAKE_COMPLETION };
    struct errbuf err;
    err_clear(&err);
    train *w;
    cr_assert_eq(train_create(&w, th_cl, th_m, &cfg, &es, &dec, &sink, &err), 0, "%s",
                 err.msg);
    engine *e = engine_create(0);
    cr_assert_eq(train_attach(w, e, &err), 0, "%s", err.msg);
    int64_t affected;
    cr_assert_eq(train_withhold(w, (int[]){ 0 }, 1, &affected, &err), 0, "%s", err.msg);
    struct engine_limits lim = { SIM_NEVER, 0 };
    cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_FAILED);
    cr_assert(strstr(err.msg, "policy granted job 0 GPU 0, which the broker has given to "
                              "another tenant") != NULL, "%s", err.msg);
    train_destroy(w);
    engine_destroy(e);
}
