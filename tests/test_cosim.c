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

struct arr {
    const void *items;
    size_t      size;
    int         n, next;
};

static int arr_next(void *ctx, void *out, struct errbuf *err)
{
    (void)err;
    struct arr *a = ctx;
    if (a->next == a->n)
        return 0;
    memcpy(out, (const char *)a->items + (size_t)a->next++ * a->size, a->size);
    return 1;
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
    struct arr    src;
    struct entity_source es;
    struct recs   out;
    train        *w;
    struct train_totals tot;
};

static void tw_open(struct tw *t, const char *name, const struct job_spec *jobs, int n)
{
    struct errbuf err;
    err_clear(&err);
    struct policy_env env = { 1, th_cl, th_m };
    cr_assert_eq(policy_open(&t->p, name, NULL, &env, &err), 0, "%s", err.msg);
    t->src = (struct arr){ jobs, sizeof *jobs, n, 0 };
    t->es = (struct entity_source){ &t->src, arr_next };
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
    struct arr    src;
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
    struct policy_env env = { 1, s->cl, NULL };
    cr_assert_eq(policy_open(&s->p, "highend_only", NULL, &env, &err), 0, "%s", err.msg);
    s->src = (struct arr){ q, sizeof *q, n, 0 };
    s->es = (struct entity_source){ &s->src, arr_next };
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
