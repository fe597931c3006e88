/*
 * test_cosim: worlds that share an engine (sim/core/world.h's attach and finish; engine.h's
 * clients).  Worlds that do not interact must each give, on one shared engine, exactly what
 * they give alone: the same records, in the same order, the same totals — whatever else runs
 * beside them.  Two training worlds (fifo and tiresias on different job streams) and a
 * serving world run on one engine and are compared with each run alone.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/serve/serve.h"
#include "../sim/train/train.h"
#include "helpers.h"

TestSuite(cosim, .init = th_mixed_init, .fini = th_mixed_fini, .timeout = 120);

/* ---- a training world over an array of jobs, recording (id, first start, finish) */
struct rec {
    long long id;
    double    a, b;             /* training: first start, finish; serving: first token, finish */
};

struct recs {
    struct rec *r;
    int         n;
};

static void recs_add(struct recs *rs, long long id, double a, double b)
{
    rs->r = realloc(rs->r, (size_t)(rs->n + 1) * sizeof *rs->r);
    cr_assert_not_null(rs->r);
    rs->r[rs->n++] = (struct rec){ id, a, b };
}

static int on_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    recs_add(ctx, r->trace_id, sim_to_sec(r->job->first_start), r->finish >= 0
                                                                 ? sim_to_sec(r->finish) : -1);
    return 0;
}

static int on_req(void *ctx, const struct serve_record *r, struct errbuf *err)
{
    (void)err;
    recs_add(ctx, r->id, r->first, r->finish);
    return 0;
}

struct tw {                     /* one training world and what it needs */
    policy       *p;
    struct th_array    src;
    struct entity_source es;
    struct recs   out;
    train        *w;
    struct train_totals tot;
};

static void tw_open(struct tw *t, const char *name, const struct job_spec *jobs, int n)
{
    struct errbuf err;
    err_clear(&err);
    struct policy_env env = { 1, th_cl, th_m, NULL, 0 };
    cr_assert_eq(policy_open(&t->p, name, NULL, &env, &err), 0, "%s", err.msg);
    t->src = (struct th_array){ jobs, sizeof *jobs, n, 0 };
    t->es = (struct entity_source){ &t->src, th_array_next };
    struct train_config cfg = { .restore_delay_s = 30, .until = SIM_NEVER };
    struct train_sink sink = { .ctx = &t->out, .job = on_job };
    cr_assert_eq(train_create(&t->w, th_cl, th_m, &cfg, &t->es, policy_decider(t->p), &sink,
                              &err), 0, "%s", err.msg);
}

static void tw_close(struct tw *t)
{
    train_destroy(t->w);
    policy_close(t->p);
    free(t->out.r);
}

struct sw {                     /* one serving world */
    cluster      *cl;
    llm_catalog  *lc;
    policy       *p;
    struct th_array    src;
    struct entity_source es;
    struct recs   out;
    struct serve_sink sink;
    serve        *w;
    struct serve_totals tot;
};

static const char testbed[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" },"
    " { \"count\": 1, \"gpu\": \"RTX3090\", \"gpus_per_node\": 4, \"intra\": \"pcie4\" } ] }";

static void sw_open(struct sw *s, const struct request_spec *q, int n)
{
    struct errbuf err;
    err_clear(&err);
    s->cl = th_cluster(cluster_catalog(th_cl), testbed);
    s->lc = th_llm(cluster_catalog(s->cl));
    struct policy_env env = { 1, s->cl, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&s->p, "highend_only", NULL, &env, &err), 0, "%s", err.msg);
    s->src = (struct th_array){ q, sizeof *q, n, 0 };
    s->es = (struct entity_source){ &s->src, th_array_next };
    s->sink = (struct serve_sink){ .ctx = &s->out, .request = on_req };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cr_assert_eq(serve_create(&s->w, s->cl, s->lc, llm_find(s->lc, "llama-2-7b"), &cfg, &s->es,
                              policy_decider(s->p), &s->sink, &err), 0, "%s", err.msg);
}

static void sw_close(struct sw *s)
{
    serve_destroy(s->w);
    policy_close(s->p);
    llm_destroy(s->lc);
    cluster_destroy(s->cl);
    free(s->out.r);
}

static void same_recs(const struct recs *alone, const struct recs *shared, const char *what)
{
    cr_assert_eq(shared->n, alone->n, "%s: %d records shared, %d alone", what, shared->n,
                 alone->n);
    for (int i = 0; i < alone->n; i++)
        cr_assert(alone->r[i].id == shared->r[i].id && alone->r[i].a == shared->r[i].a &&
                      alone->r[i].b == shared->r[i].b,
                  "%s: record %d is (%lld, %.9g, %.9g) shared, (%lld, %.9g, %.9g) alone", what,
                  i, shared->r[i].id, shared->r[i].a, shared->r[i].b, alone->r[i].id,
                  alone->r[i].a, alone->r[i].b);
}

Test(cosim, independent_worlds_on_one_engine_give_what_they_give_alone)
{
    struct job_spec *ja = th_random_jobs(th_m, 60, 11, 200);
    struct job_spec *jb = th_random_jobs(th_m, 60, 12, 150);
    struct request_spec q[40];
    for (int i = 0; i < 40; i++)
        q[i] = (struct request_spec){ .id = i, .arrival = sim_from_sec(0.5 * i + (i % 3) * 0.1),
                                      .prompt = 200 + 37 * (i % 7), .output = 20 + 11 * (i % 5) };
    struct errbuf err;
    err_clear(&err);

    /* alone */
    struct tw a1 = { 0 }, b1 = { 0 };
    struct sw s1 = { 0 };
    tw_open(&a1, "fifo", ja, 60);
    tw_open(&b1, "tiresias", jb, 60);
    sw_open(&s1, q, 40);
    cr_assert_eq(train_run(a1.w, &a1.tot, &err), 0, "%s", err.msg);
    cr_assert_eq(train_run(b1.w, &b1.tot, &err), 0, "%s", err.msg);
    cr_assert_eq(serve_run(s1.w, &s1.tot, &err), 0, "%s", err.msg);

    /* on one engine: the serving world first, so that its tag is 0 and the others' are not */
    struct tw a2 = { 0 }, b2 = { 0 };
    struct sw s2 = { 0 };
    tw_open(&a2, "fifo", ja, 60);
    tw_open(&b2, "tiresias", jb, 60);
    sw_open(&s2, q, 40);
    engine *e = engine_create(0);
    cr_assert_eq(serve_attach(s2.w, e, &err), 0, "%s", err.msg);
    cr_assert_eq(train_attach(a2.w, e, &err), 0, "%s", err.msg);
    cr_assert_eq(train_attach(b2.w, e, &err), 0, "%s", err.msg);
    struct engine_limits lim = { SIM_NEVER, 0 };
    int stop = engine_advance(e, &lim, &err);
    cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
    cr_assert_eq(train_finish(a2.w, stop, &a2.tot, &err), 0, "%s", err.msg);
    cr_assert_eq(train_finish(b2.w, stop, &b2.tot, &err), 0, "%s", err.msg);
    cr_assert_eq(serve_finish(s2.w, stop, &s2.tot, &err), 0, "%s", err.msg);

    same_recs(&a1.out, &a2.out, "fifo");
    same_recs(&b1.out, &b2.out, "tiresias");
    same_recs(&s1.out, &s2.out, "highend_only");
    cr_assert_eq(a1.out.n, 60);
    cr_assert_eq(s1.out.n, 40);
    /* each world's totals are its own, and the engine handled the sum */
    cr_assert_eq(a2.tot.events, a1.tot.events);
    cr_assert_eq(b2.tot.events, b1.tot.events);
    cr_assert_eq(s2.tot.events, s1.tot.events);
    cr_assert_eq(a2.tot.decisions, a1.tot.decisions);
    cr_assert_eq(engine_events(e), a1.tot.events + b1.tot.events + s1.tot.events);
    cr_assert_eq(a2.tot.makespan, a1.tot.makespan);
    cr_assert_eq(s2.tot.tokens_out, s1.tot.tokens_out);
    for (int i = 0; i < CLUSTER_MAX_TYPES; i++)
        cr_assert_eq(b2.tot.busy_gpu_s[i], b1.tot.busy_gpu_s[i]);
    /* a shared run ends at the engine's clock for every world: the latest of them alone */
    simtime last = a1.tot.end > b1.tot.end ? a1.tot.end : b1.tot.end;
    last = last > s1.tot.end ? last : s1.tot.end;
    cr_assert_eq(engine_now(e), last);
    cr_assert(a2.tot.end == last && b2.tot.end == last && s2.tot.end == last);
    engine_destroy(e);
    tw_close(&a1);
    tw_close(&b1);
    sw_close(&s1);
    tw_close(&a2);
    tw_close(&b2);
    sw_close(&s2);
    free(ja);
    free(jb);
}

/* ---- tenancy: a broker withholds a training world's GPUs and gives them back */

#include "../sim/core/timeline.h"

struct seg {
    long long id;
    int       gpus[8], ngpu;
    double    from, to;
    int       state, cause, ends;
};

struct segs {
    struct seg s[64];
    int        n;
    struct recs jobs;
    int        preemptions[8], migrations[8];
};

static int on_seg(void *ctx, const struct train_segment *sg, struct errbuf *err)
{
    (void)err;
    struct segs *ss = ctx;
    cr_assert_lt(ss->n, 64);
    struct seg *s = &ss->s[ss->n++];
    *s = (struct seg){ sg->trace_id, { 0 }, sg->ngpu, sim_to_sec(sg->from), sim_to_sec(sg->to),
                       sg->state, sg->cause, sg->ends };
    for (int i = 0; i < sg->ngpu && i < 8; i++)
        s->gpus[i] = sg->gpus[i];
    return 0;
}

static int on_job_seg(void *ctx, const struct train_record *r, struct errbuf *err)
{
    struct segs *ss = ctx;
    ss->preemptions[r->trace_id] = r->job->preemptions;
    ss->migrations[r->trace_id] = r->job->migrations;
    return on_job(&ss->jobs, r, err);
}

/* 4 A100 (GPUs 0-3, node 0) and 4 V100 (GPUs 4-7, node 1) */
static const char two_nodes[] =
    "{ \"network\": \"ib-100g\", \"groups\": ["
    " { \"count\": 1, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 4 },"
    " { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] }";

static struct job_spec job(int64_t id, double at, int workers, int lo, double work)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at),
                              .jtype = tput_find(th_m, "ResNet-50 (batch size 64)"),
                              .workers = workers, .min_workers = lo,
                              .max_workers = lo ? workers : 0, .work = work, .weight = 1 };
}

struct tenancy {
    cluster     *cl;
    policy      *p;
    struct th_array   src;
    struct entity_source es;
    struct segs  out;
    train       *w;
    engine      *e;
};

static void tenancy_open(struct tenancy *t, const char *pol, const struct job_spec *jobs, int n)
{
    struct errbuf err;
    err_clear(&err);
    t->cl = th_cluster(th_cat, two_nodes);
    struct policy_env env = { 1, t->cl, th_m, NULL, 0 };
    cr_assert_eq(policy_open(&t->p, pol, NULL, &env, &err), 0, "%s", err.msg);
    t->src = (struct th_array){ jobs, sizeof *jobs, n, 0 };
    t->es = (struct entity_source){ &t->src, th_array_next };
    struct train_config cfg = { .restore_delay_s = 30, .until = SIM_NEVER };
    struct train_sink sink = { .ctx = &t->out, .job = on_job_seg, .segment = on_seg };
    cr_assert_eq(train_create(&t->w, t->cl, th_m, &cfg, &t->es, policy_decider(t->p), &sink,
                              &err), 0, "%s", err.msg);
    t->e = engine_create(0);
    cr_assert_eq(train_attach(t->w, t->e, &err), 0, "%s", err.msg);
}

static int tenancy_until(struct tenancy *t, double until_s)
{
    struct errbuf err;
    err_clear(&err);
    struct engine_limits lim = { until_s < 0 ? SIM_NEVER : sim_from_sec(until_s), 0 };
    int stop = engine_advance(t->e, &lim, &err);
    cr_assert_neq(stop, ENGINE_FAILED, "%s", err.msg);
    return stop;
}

static void tenancy_close(struct tenancy *t)
{
    struct errbuf err;
    err_clear(&err);
    struct train_totals tot;
    cr_assert_eq(train_finish(t->w, ENGINE_DRAINED, &tot, &err), 0, "%s", err.msg);
    train_destroy(t->w);
    engine_destroy(t->e);
    policy_close(t->p);
    cluster_destroy(t->cl);
    free(t->out.jobs.r);
}

static const struct seg *seg_of(const struct segs *ss, long long id, double from)
{
    for (int i = 0; i < ss->n; i++)
        if (ss->s[i].id == id && ss->s[i].from == from)
            return &ss->s[i];
    cr_assert_fail("no segment of job %lld from %g", id, from);
    return NULL;
}

/* A rigid job on withheld GPUs is preempted, resumes elsewhere after its restore, and its
 * policy never grants a withheld GPU; given back, the GPUs serve the next job. */
Test(cosim, withholding_preempts_a_rigid_job_and_charges_its_restore)
{
    struct job_spec jobs[2] = { job(1, 0, 4, 0, 5e6), job(2, 300, 4, 0, 1e5) };
    struct tenancy t = { 0 };
    tenancy_open(&t, "fifo", jobs, 2);
    tenancy_until(&t, 100);
    /* job 1 is on one of the two nodes: taking them costs its restore on 4 GPUs, taking
     * the other nothing */
    int node[2][4] = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 } };
    double c0 = train_reclaim_cost(t.w, node[0], 4), c1 = train_reclaim_cost(t.w, node[1], 4);
    cr_assert(c0 == 4 * 30.0 || c1 == 4 * 30.0, "costs %g and %g", c0, c1);
    cr_assert(c0 == 0 || c1 == 0, "costs %g and %g", c0, c1);
    int on = c0 > 0 ? 0 : 1;
    const int *mine = node[on], *other = node[1 - on];
    struct errbuf err;
    err_clear(&err);
    int64_t affected;
    cr_assert_eq(train_withhold(t.w, mine, 4, &affected, &err), 0, "%s", err.msg);
    cr_assert_eq(affected, 1);
    cr_assert_neq(train_withhold(t.w, mine + 1, 1, &affected, &err), 0, "withheld twice");
    tenancy_until(&t, 200);
    cr_assert_eq(train_give(t.w, mine, 4, &err), 0, "%s", err.msg);
    cr_assert_neq(train_give(t.w, mine, 1, &err), 0, "given twice");
    tenancy_until(&t, -1);
    /* job 1: running on its node until the withhold, then restoring 30 s on the other */
    const struct seg *s = seg_of(&t.out, 1, 0);
    cr_assert(s->ngpu == 4 && s->gpus[0] == mine[0] && s->to == 100 && s->ends == TL_PREEMPT,
              "job 1 ran on GPU %d.. until %g (ends %d)", s->gpus[0], s->to, s->ends);
    s = seg_of(&t.out, 1, 100);
    cr_assert(s->state == TL_RESTORING && s->cause == TL_RESUME && s->to == 130 &&
              s->gpus[0] == other[0], "after the withhold: state %d cause %d to %g on GPU %d",
              s->state, s->cause, s->to, s->gpus[0]);
    cr_assert_eq(t.out.preemptions[1], 1);
    /* job 2 arrives after the give-back and gets the node given back, the only free one */
    s = seg_of(&t.out, 2, 300);
    cr_assert(s->ngpu == 4 && s->gpus[0] == mine[0], "job 2 on GPU %d..", s->gpus[0]);
    /* no segment of either job holds a withheld GPU while it was withheld */
    for (int i = 0; i < t.out.n; i++)
        for (int g = 0; g < t.out.s[i].ngpu; g++)
            cr_assert(!(t.out.s[i].gpus[g] / 4 == on && t.out.s[i].from < 200 &&
                        t.out.s[i].to > 100), "segment %d held withheld GPU %d in [%g, %g)", i,
                      t.out.s[i].gpus[g], t.out.s[i].from, t.out.s[i].to);
    cr_assert_eq(t.out.jobs.n, 2);
    tenancy_close(&t);
}

/* An elastic job that stays at or above its minimum shrinks onto its other GPUs: a resize
 * with its restore, not a preemption. */
Test(cosim, withholding_shrinks_an_elastic_job)
{
    struct job_spec jobs[1] = { job(1, 0, 4, 2, 5e6) };
    struct tenancy t = { 0 };
    tenancy_open(&t, "fifo", jobs, 1);
    tenancy_until(&t, 50);
    int on = train_reclaim_cost(t.w, (int[]){ 0 }, 1) > 0 ? 0 : 1;
    int one[1] = { 4 * on + 3 };
    cr_assert_float_eq(train_reclaim_cost(t.w, one, 1), 3 * 30.0, 1e-9);
    struct errbuf err;
    err_clear(&err);
    int64_t affected;
    cr_assert_eq(train_withhold(t.w, one, 1, &affected, &err), 0, "%s", err.msg);
    cr_assert_eq(affected, 1);
    /* taking two more of its GPUs would leave 1 < its minimum of 2: a preemption on 3 */
    int two[2] = { 4 * on + 1, 4 * on + 2 };
    cr_assert_float_eq(train_reclaim_cost(t.w, two, 2), 3 * 30.0, 1e-9);
    tenancy_until(&t, -1);
    const struct seg *s = seg_of(&t.out, 1, 50);
    cr_assert(s->ngpu == 3 && s->cause == TL_RESIZE && s->state == TL_RESTORING &&
              s->to == 80, "after the withhold: %d GPUs, cause %d, state %d, to %g", s->ngpu,
              s->cause, s->state, s->to);
    for (int g = 0; g < 3; g++)
        cr_assert_neq(s->gpus[g], one[0]);
    cr_assert_eq(t.out.preemptions[1], 0);
    cr_assert_eq(t.out.migrations[1], 1);
    tenancy_close(&t);
}

/* The three jobs (the caller's: the world reads them as they arrive) under pol; at 5 s the
 * broker withholds the four A100s (GPUs 0-3). */
static void withhold_a100_at_5(struct tenancy *t, const char *pol, const struct job_spec *jobs)
{
    tenancy_open(t, pol, jobs, 3);
    tenancy_until(t, 5);
    int a100[4] = { 0, 1, 2, 3 };
    struct errbuf err;
    err_clear(&err);
    int64_t affected;
    cr_assert_eq(train_withhold(t->w, a100, 4, &affected, &err), 0, "%s", err.msg);
}

/* A policy that plans from an empty cluster starts from the withheld GPUs (the view's base):
 * srtf re-plans everything each decision and never grants them. */
Test(cosim, a_full_plan_starts_from_the_withheld_gpus)
{
    struct job_spec jobs[3] = { job(1, 0, 4, 0, 1e6), job(2, 10, 4, 0, 1e6),
                                job(3, 20, 4, 0, 1e5) };
    struct tenancy t = { 0 };
    withhold_a100_at_5(&t, "srtf", jobs);
    tenancy_until(&t, -1);
    for (int i = 0; i < t.out.n; i++)
        for (int g = 0; g < t.out.s[i].ngpu; g++)
            cr_assert(t.out.s[i].gpus[g] >= 4 || t.out.s[i].to <= 5, "segment %d of job %lld "
                      "holds withheld GPU %d in [%g, %g)", i, t.out.s[i].id,
                      t.out.s[i].gpus[g], t.out.s[i].from, t.out.s[i].to);
    cr_assert_eq(t.out.jobs.n, 3);
    tenancy_close(&t);
}

/* A policy that ignores the withheld GPUs is refused by the world: test_tenants.c plants one
 * (every registered policy now plans around them). */

/* ---- tenancy: a broker drains a serving instance and gives it back */

struct released {
    int    n, gpu, ngpu;
    double at;
};

static void on_released(void *ctx, const int *gpus, int n, simtime t)
{
    struct released *r = ctx;
    r->n++;
    r->gpu = gpus[0];
    r->ngpu = n;
    r->at = sim_to_sec(t);
}

static const char two_a100[] =
    "{ \"network\": \"ethernet-100g\", \"groups\": ["
    " { \"count\": 2, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1, \"intra\": \"pcie4\" } ] }";

Test(cosim, draining_a_serving_instance_finishes_its_requests_then_releases_it)
{
    struct errbuf err;
    err_clear(&err);
    struct request_spec q[60];
    for (int i = 0; i < 60; i++)
        q[i] = (struct request_spec){ .id = i, .arrival = sim_from_sec(0.2 * i),
                                      .prompt = 500, .output = 200 };
    struct sw s = { 0 };
    s.cl = th_cluster(cluster_catalog(th_cl), two_a100);
    s.lc = th_llm(cluster_catalog(s.cl));
    struct policy_env env = { 1, s.cl, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&s.p, "highend_only", NULL, &env, &err), 0, "%s", err.msg);
    s.src = (struct th_array){ q, sizeof *q, 60, 0 };
    s.es = (struct entity_source){ &s.src, th_array_next };
    s.sink = (struct serve_sink){ .ctx = &s.out, .request = on_req };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cr_assert_eq(serve_create(&s.w, s.cl, s.lc, llm_find(s.lc, "llama-2-7b"), &cfg, &s.es,
                              policy_decider(s.p), &s.sink, &err), 0, "%s", err.msg);
    cr_assert_eq(serve_deployment_of(s.w)->n, 2, "one instance per A100");
    struct released rel = { 0 };
    serve_set_tenancy(s.w, &(struct serve_tenancy){ &rel, on_released });
    engine *e = engine_create(0);
    cr_assert_eq(serve_attach(s.w, e, &err), 0, "%s", err.msg);
    struct engine_limits lim = { sim_from_sec(3), 0 };
    cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_UNTIL, "%s", err.msg);
    /* instance 1 (GPU 1) holds requests at 3 s: taking its GPU drains it, finishing them;
     * the GPU is released later */
    int64_t drained;
    cr_assert_eq(serve_take(s.w, (int[]){ 1 }, 1, &drained, &err), 0, "%s", err.msg);
    cr_assert_eq(drained, 1);
    cr_assert_neq(serve_drain(s.w, 1, &err), 0, "drained twice");
    cr_assert_neq(serve_take(s.w, (int[]){ 1 }, 1, &drained, &err), 0, "taken twice");
    cr_assert_neq(serve_load(s.w, 1, &err), 0, "given back while draining");
    cr_assert_eq(serve_instance_state(s.w, 1), 1);
    lim.until = sim_from_sec(8);
    cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_UNTIL, "%s", err.msg);
    cr_assert_eq(rel.n, 1, "released %d times", rel.n);
    cr_assert(rel.gpu == 1 && rel.ngpu == 1, "released %d GPUs from %d", rel.ngpu, rel.gpu);
    cr_assert(rel.at > 3 && rel.at <= 8, "released at %g s", rel.at);
    cr_assert_eq(serve_instance_state(s.w, 1), 2);
    /* back at 8 s: up once llama-2-7b's 13.5 GB crossed PCIe 4 (31.5 GB/s), 0.43 s later */
    double load = serve_weights_load_s(s.w, 1);
    cr_assert_float_eq(load, 6.738e9 * 2 / 31.5e9, 0.02 * load, "load %g s", load);
    /* its capacity: the whole instance on GPU 1, half of it on two GPUs of which one is it */
    cr_assert_float_eq(serve_capacity(s.w, (int[]){ 1 }, 1), serve_instance_speed(s.w, 1), 1e-9);
    double per[CLUSTER_MAX_TYPES];
    serve_type_speed(s.w, per);
    cr_assert_float_eq(per[0], (serve_instance_speed(s.w, 0) + serve_instance_speed(s.w, 1)) / 2,
                       1e-9);
    cr_assert_eq(serve_give(s.w, (int[]){ 1 }, 1, &err), 0, "%s", err.msg);
    cr_assert_neq(serve_give(s.w, (int[]){ 1 }, 1, &err), 0, "given twice");
    cr_assert_eq(serve_instance_state(s.w, 1), 3);
    lim.until = sim_from_sec(8) + sim_from_sec(load) - 1;
    engine_advance(e, &lim, &err);
    cr_assert_eq(serve_instance_state(s.w, 1), 3, "up before its weights were loaded");
    lim.until = SIM_NEVER;
    int stop = engine_advance(e, &lim, &err);
    cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
    cr_assert_eq(serve_instance_state(s.w, 1), 0);
    cr_assert_eq(serve_finish(s.w, stop, &s.tot, &err), 0, "%s", err.msg);
    /* every request finished (none lost in the move), and routing never picked instance 1
     * while it was not up (the world refuses that: the run would have failed) */
    cr_assert_eq(s.out.n, 60);
    for (int i = 0; i < s.out.n; i++)
        cr_assert(s.out.r[i].b > 0, "request %lld unfinished", s.out.r[i].id);
    double prompt, mean_out;
    int64_t nreq;
    serve_demand(s.w, &prompt, &nreq, &mean_out);
    cr_assert_float_eq(prompt, 60 * 500.0, 1e-9);
    cr_assert_eq(nreq, 60);
    cr_assert_float_eq(mean_out, 200, 1e-9);
    engine_destroy(e);
    sw_close(&s);
}

/* Draining the last instance up leaves nowhere to route: the next arrival is an error that
 * says why. */
Test(cosim, draining_every_instance_fails_the_next_routing)
{
    struct errbuf err;
    err_clear(&err);
    struct request_spec q[4];
    for (int i = 0; i < 4; i++)
        q[i] = (struct request_spec){ .id = i, .arrival = sim_from_sec(i), .prompt = 100,
                                      .output = 10 };
    struct sw s = { 0 };
    s.cl = th_cluster(cluster_catalog(th_cl), two_a100);
    s.lc = th_llm(cluster_catalog(s.cl));
    struct policy_env env = { 1, s.cl, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&s.p, "highend_only", NULL, &env, &err), 0, "%s", err.msg);
    s.src = (struct th_array){ q, sizeof *q, 4, 0 };
    s.es = (struct entity_source){ &s.src, th_array_next };
    s.sink = (struct serve_sink){ .ctx = &s.out, .request = on_req };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cr_assert_eq(serve_create(&s.w, s.cl, s.lc, llm_find(s.lc, "llama-2-7b"), &cfg, &s.es,
                              policy_decider(s.p), &s.sink, &err), 0, "%s", err.msg);
    engine *e = engine_create(0);
    cr_assert_eq(serve_attach(s.w, e, &err), 0, "%s", err.msg);
    struct engine_limits lim = { sim_from_sec(1.5), 0 };
    engine_advance(e, &lim, &err);
    cr_assert_eq(serve_drain(s.w, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(serve_drain(s.w, 1, &err), 0, "%s", err.msg);
    lim.until = SIM_NEVER;
    cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_FAILED);
    cr_assert(strstr(err.msg, "no instance serves prompts") != NULL, "%s", err.msg);
    engine_destroy(e);
    sw_close(&s);
}

/* ---- a drain that moves requests off (serve_config.drain = SERVE_DRAIN_MIGRATE) */

struct one_req {
    double  finish;
    int32_t generated, preemptions;
};

static int on_one(void *ctx, const struct serve_record *r, struct errbuf *err)
{
    (void)err;
    struct one_req *o = ctx;
    o->finish = r->finish;
    o->generated = r->generated;
    o->preemptions = r->preemptions;
    return 0;
}

/* One request (prompt `prompt`, output 400) on two A100 servers, instance 0's GPU taken at
 * `take_s` (never when take_s < 0) under `drain`; its record, totals and release time. */
static void one_drain(int drain, int prompt, int64_t max_batch, double take_s,
                      struct one_req *o, struct serve_totals *tot, struct released *rel,
                      double *kv_per_token)
{
    struct errbuf err;
    err_clear(&err);
    struct request_spec q = { .id = 1, .arrival = 0, .prompt = prompt, .output = 400 };
    struct sw s = { 0 };
    s.cl = th_cluster(cluster_catalog(th_cl), two_a100);
    s.lc = th_llm(cluster_catalog(s.cl));
    struct policy_env env = { 1, s.cl, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&s.p, "highend_only", NULL, &env, &err), 0, "%s", err.msg);
    s.src = (struct th_array){ &q, sizeof q, 1, 0 };
    s.es = (struct entity_source){ &s.src, th_array_next };
    s.sink = (struct serve_sink){ .ctx = o, .request = on_one };
    struct serve_config cfg;
    th_serve_config(&cfg);
    cfg.drain = drain;
    cfg.set.max_batch_tokens = max_batch;
    const struct llm_arch *arch = llm_find(s.lc, "llama-2-7b");
    *kv_per_token = llm_kv_bytes(arch, arch->layers, 1);
    cr_assert_eq(serve_create(&s.w, s.cl, s.lc, arch, &cfg, &s.es, policy_decider(s.p),
                              &s.sink, &err), 0, "%s", err.msg);
    *rel = (struct released){ 0 };
    serve_set_tenancy(s.w, &(struct serve_tenancy){ rel, on_released });
    engine *e = engine_create(0);
    cr_assert_eq(serve_attach(s.w, e, &err), 0, "%s", err.msg);
    if (take_s >= 0) {
        struct engine_limits lim = { sim_from_sec(take_s), 0 };
        cr_assert_eq(engine_advance(e, &lim, &err), ENGINE_UNTIL, "%s", err.msg);
        int64_t drained;
        /* the request went to instance 0 (the router's tie goes to the first) */
        cr_assert_eq(serve_take(s.w, (int[]){ 0 }, 1, &drained, &err), 0, "%s", err.msg);
        cr_assert_eq(drained, 1);
    }
    struct engine_limits all = { SIM_NEVER, 0 };
    int stop = engine_advance(e, &all, &err);
    cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
    cr_assert_eq(serve_finish(s.w, stop, tot, &err), 0, "%s", err.msg);
    engine_destroy(e);
    serve_destroy(s.w);
    policy_close(s.p);
    llm_destroy(s.lc);
    cluster_destroy(s.cl);
}

Test(cosim, a_migrating_drain_moves_a_decoding_request_with_its_kv)
{
    struct one_req alone, fin, mig;
    struct serve_totals t_alone, t_fin, t_mig;
    struct released r_alone, r_fin, r_mig;
    double B;
    one_drain(SERVE_DRAIN_FINISH, 500, 2048, -1, &alone, &t_alone, &r_alone, &B);
    one_drain(SERVE_DRAIN_FINISH, 500, 2048, 1, &fin, &t_fin, &r_fin, &B);
    one_drain(SERVE_DRAIN_MIGRATE, 500, 2048, 1, &mig, &t_mig, &r_mig, &B);
    /* finishing in place: the GPU comes free when the request is done, nothing moved */
    cr_assert_eq(r_fin.n, 1);
    cr_assert_float_eq(r_fin.at, fin.finish, 1e-6);
    cr_assert_float_eq(fin.finish, alone.finish, 1e-9);
    cr_assert_eq(t_fin.drain_moves, 0);
    /* moving off: the GPU is free once the batch in flight at 1 s ends (one decode step of
     * one request: well under 0.1 s), the request moved once with its KV, never recomputed */
    cr_assert_eq(r_mig.n, 1);
    cr_assert(r_mig.at >= 1 && r_mig.at < 1.1, "released at %g s", r_mig.at);
    cr_assert_eq(t_mig.drain_moves, 1);
    cr_assert_eq(mig.generated, 400);
    cr_assert_eq(mig.preemptions, 0);
    /* its KV: a whole number of tokens' worth, the prompt and what it had generated by then */
    double tokens = t_mig.kv_moved_bytes / B;
    cr_assert_float_eq(tokens, round(tokens), 1e-6, "%g tokens", tokens);
    cr_assert(tokens > 500 && tokens < 900, "%g tokens moved", tokens);
    /* it finishes later than alone by at least the KV's crossing of the 100 Gb/s network
     * (the second server is alike, so nothing else slows it) */
    double cross = t_mig.kv_moved_bytes / 12.5e9;
    cr_assert(mig.finish - alone.finish >= cross * 0.99,
              "delayed %g s, the KV needs %g s", mig.finish - alone.finish, cross);
    cr_assert(mig.finish - alone.finish < cross + 0.2, "delayed %g s", mig.finish - alone.finish);
}

Test(cosim, a_migrating_drain_recomputes_a_request_still_in_its_prompt)
{
    struct one_req mig;
    struct serve_totals t;
    struct released r;
    double B;
    /* a 3,000-token prompt in 256-token chunks: at 0.05 s it is still prefilling */
    one_drain(SERVE_DRAIN_MIGRATE, 3000, 256, 0.05, &mig, &t, &r, &B);
    cr_assert_eq(t.drain_moves, 0);
    cr_assert_eq(mig.preemptions, 1);
    cr_assert_eq(mig.generated, 400);
    cr_assert_float_eq(t.kv_moved_bytes, 0, 1e-9);
    cr_assert(r.at >= 0.05 && r.at < 0.2, "released at %g s", r.at);
}
