/*
 * test_slo_guard: the loaning brokers' SLO guard (sched/loan.h: hetsim's addition to Lyra) and
 * what it observes.
 *
 *  - The serving world's load hook (sim/serve/world.c): over a small run with a queue (bursts
 *    of long prompts on one GPU, so the first tokens come over a range of TTFTs, some past the
 *    objective), each call's first-token count and miss fraction equal those counted from the
 *    run's own `requests` rows (first_s inside the window since the previous call, ttft_s
 *    over slo.ttft_s); a call right after another sees nothing (-1); a world without an
 *    objective says -1 with the same counts.
 *  - The AIMD update against a hand sequence of missed, clean and empty periods.
 *  - loan_plan_scaled on hand views: a factor below 1 reclaims where 1 lends, lends fewer
 *    nodes (each node's capacity scaled, not only what serving holds), and reclaims the cover
 *    of the larger deficit.
 *  - End to end through the CLI: colocate_day shortened to twelve hours at 16 requests a
 *    second with a 1 s TTFT objective, where `loan` misses the objective in more 5-minute
 *    periods than `static`: with the guard, fewer periods missed (counted from the requests'
 *    rows), a higher serving_slo_attainment, fewer GPU-hours lent, and every GPU held by one
 *    tenant at every moment.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/loan.h"
#include "../sched/policy.h"
#include "../sim/base/jsonf.h"
#include "../sim/core/engine.h"
#include "../sim/core/world.h"
#include "../sim/serve/request.h"
#include "helpers.h"

extern const struct world_ops serve_world;

/* ---- the serving world's load hook */

struct firsts {                 /* each request's arrival and first token, from its row */
    double first[64], ttft[64];
    int    n;
};

static int keep_row(void *ctx, const char *table, const char *const *cols,
                    const struct row_value *v, int n, struct errbuf *err)
{
    (void)err;
    struct firsts *f = ctx;
    if (strcmp(table, "requests") != 0)
        return 0;
    double first = -1, ttft = -1;
    for (int i = 0; i < n; i++) {
        if (strcmp(cols[i], "first_s") == 0 && v[i].type == ROW_REAL)
            first = v[i].v.r;
        if (strcmp(cols[i], "ttft_s") == 0 && v[i].type == ROW_REAL)
            ttft = v[i].v.r;
    }
    cr_assert_lt(f->n, 64);
    f->first[f->n] = first;
    f->ttft[f->n++] = ttft;
    return 0;
}

/* A serving world (llama-2-7b on one A100) with the experiment section `section`, over 40
 * requests: 20 of 1,800-token prompts at t = 0, 20 more at t = 40 s (their first tokens
 * come one after another, 0.14 s to 2.4 s after the burst).  It is advanced to each
 * of the times at[] (SIM_NEVER: to the end) and its load hook called there, then once more at
 * the same instant; out[2k], out[2k + 1] are those two calls.  Its rows go to rows. */
static void serve_loads(const char *section, const simtime *at, int nat, struct world_load *out,
                        struct firsts *rows)
{
    struct errbuf err;
    err_clear(&err);
    catalog *cat = th_catalog();
    cluster *cl = th_cluster(cat, "{ \"network\": \"ib-100g\", \"groups\": [ { "
                             "\"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1 } ] }");
    jsonf *doc;
    cr_assert_eq(jsonf_parse(&doc, "e.json", section, strlen(section), &err), 0, "%s", err.msg);
    struct jobj root, sim = { 0 };
    cr_assert_eq(jobj_root(&root, doc, &err), 0, "%s", err.msg);
    sim.doc = doc;
    void *config;
    cr_assert_eq(serve_world.read(&config, &root, &sim, NULL, &err), 0, "%s", err.msg);
    struct policy_env penv = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, "highend_only", NULL, &penv, &err), 0, "%s", err.msg);
    struct request_spec q[40];
    for (int i = 0; i < 40; i++)
        q[i] = (struct request_spec){ .id = i, .arrival = sim_from_sec(i < 20 ? 0 : 40),
                                      .prompt = 1800, .output = 4 };
    struct th_array src = { q, sizeof *q, 40, 0 };
    struct entity_source es = { &src, th_array_next };
    struct world_sim ws = { .until = SIM_NEVER, .steady_first = -1 };
    struct world_writer wr = { .ctx = rows, .row = keep_row, .sample = th_no_sample,
                               .metric = th_no_metric };
    struct world_env env = { .cl = cl, .seed = 1, .sim = &ws, .config = config, .source = &es,
                             .decider = policy_decider(p), .out = &wr };
    void *w;
    cr_assert_eq(serve_world.create(&w, &env, &err), 0, "%s", err.msg);
    engine *e = engine_create(0);
    cr_assert_eq(serve_world.attach(w, e, &err), 0, "%s", err.msg);
    int stop = ENGINE_DRAINED;
    for (int k = 0; k < nat; k++) {
        struct engine_limits lim = { at[k], 0 };
        stop = engine_advance(e, &lim, &err);
        cr_assert(stop == ENGINE_DRAINED || stop == ENGINE_UNTIL, "stop %d: %s", stop, err.msg);
        serve_world.load(w, &out[2 * k]);
        serve_world.load(w, &out[2 * k + 1]);
    }
    struct world_totals tot;
    cr_assert_eq(serve_world.finish(w, stop, &tot, &err), 0, "%s", err.msg);
    cr_assert_eq(rows->n, 40);
    serve_world.destroy(w);
    engine_destroy(e);
    policy_close(p);
    serve_world.free_config(config);
    jsonf_destroy(doc);
    cluster_destroy(cl);
    catalog_destroy(cat);
}

Test(slo_guard, serving_load_reports_the_window_s_first_tokens_and_misses, .timeout = 60)
{
    const double slo = 1.0;
    const simtime at[] = { sim_from_sec(2), sim_from_sec(41), SIM_NEVER };
    enum { NAT = sizeof at / sizeof at[0] };
    struct world_load l[2 * NAT], bare[2 * NAT];
    struct firsts rows = { .n = 0 }, bare_rows = { .n = 0 };
    serve_loads("{ \"model\": \"llama-2-7b\", \"slo\": { \"ttft_s\": 1 } }", at, NAT, l, &rows);
    serve_loads("{ \"model\": \"llama-2-7b\" }", at, NAT, bare, &bare_rows);
    double from = -INFINITY;
    int64_t seen_all = 0, late_all = 0;
    for (int k = 0; k < NAT; k++) {
        double to = at[k] == SIM_NEVER ? INFINITY : sim_to_sec(at[k]);
        int64_t seen = 0, late = 0;
        for (int i = 0; i < rows.n; i++)
            if (rows.first[i] > from && rows.first[i] <= to) {
                seen++;
                late += rows.ttft[i] > slo;
            }
        cr_assert_eq(l[2 * k].slo_seen, seen, "window %d: %lld first tokens, rows say %lld", k,
                     (long long)l[2 * k].slo_seen, (long long)seen);
        if (seen > 0)
            cr_assert_float_eq(l[2 * k].slo_miss, (double)late / (double)seen, 1e-12,
                               "window %d: miss %g, rows say %lld of %lld", k,
                               l[2 * k].slo_miss, (long long)late, (long long)seen);
        else
            cr_assert_eq(l[2 * k].slo_miss, -1);
        /* the call ended the window: the next, at the same instant, sees nothing */
        cr_assert_eq(l[2 * k + 1].slo_seen, 0, "window %d not reset", k);
        cr_assert_eq(l[2 * k + 1].slo_miss, -1);
        /* without an objective: the same first tokens, no miss fraction */
        cr_assert_eq(bare[2 * k].slo_seen, seen);
        cr_assert_eq(bare[2 * k].slo_miss, -1);
        seen_all += seen;
        late_all += late;
        from = to;
    }
    /* the case is not trivial: every request had its first token, some within the objective
     * and some past it, and both bursts' windows saw first tokens */
    cr_assert_eq(seen_all, 40);
    cr_assert(late_all > 0 && late_all < 40, "%lld of 40 late", (long long)late_all);
    for (int k = 0; k < NAT; k++)
        cr_assert_gt(l[2 * k].slo_seen, 0, "window %d saw no first token", k);
    cr_assert(l[0].slo_miss >= 0 && l[0].slo_miss < 1, "first window: %g", l[0].slo_miss);
}

/* ---- the AIMD update */

Test(slo_guard, aimd_follows_a_hand_sequence_of_periods)
{
    struct loan_guard g;
    loan_guard_init(&g);
    /* off: nothing moves, whatever is observed */
    cr_assert_eq(loan_guard_update(&g, 0.9, 100), LOAN_GUARD_EMPTY);
    cr_assert_eq(g.f, 1);
    g.threshold = 0.1;          /* decrease 0.8, increase 0.05 (the defaults) */
    struct { double miss; int64_t seen; int kind; double f; } seq[] = {
        { 0.5, 10, LOAN_GUARD_MISSED, 0.8 },
        { 0.2, 10, LOAN_GUARD_MISSED, 0.64 },
        { -1, 0, LOAN_GUARD_EMPTY, 0.64 },          /* no first token */
        { -1, 10, LOAN_GUARD_EMPTY, 0.64 },         /* serving without an objective */
        { 0.1, 10, LOAN_GUARD_CLEAN, 0.69 },        /* at the threshold: not above it */
        { 0, 3, LOAN_GUARD_CLEAN, 0.74 },
        { 0.11, 10, LOAN_GUARD_MISSED, 0.592 },
        { 0, 1, LOAN_GUARD_CLEAN, 0.642 },
    };
    int n = (int)(sizeof seq / sizeof seq[0]);
    double fsum = 1, fmin = 1;
    for (int i = 0; i < n; i++) {
        cr_assert_eq(loan_guard_update(&g, seq[i].miss, seq[i].seen), seq[i].kind, "period %d",
                     i);
        cr_assert_float_eq(g.f, seq[i].f, 1e-12, "period %d: f %g, by hand %g", i, g.f,
                           seq[i].f);
        fsum += g.f;
        fmin = fmin < g.f ? fmin : g.f;
    }
    cr_assert_eq(g.periods, 6);
    cr_assert_eq(g.missed, 3);
    cr_assert_eq(g.decisions, n + 1);
    cr_assert_float_eq(g.f_sum, fsum, 1e-12);
    cr_assert_float_eq(g.f_min, fmin, 1e-12);
    /* clean periods bring it back to 1 and no further */
    for (int i = 0; i < 20; i++)
        loan_guard_update(&g, 0, 5);
    cr_assert_eq(g.f, 1);
    /* misses without end stay above 0 */
    for (int i = 0; i < 10000; i++)
        loan_guard_update(&g, 1, 5);
    cr_assert_eq(g.f, LOAN_GUARD_FMIN);
}

/* ---- loan_plan_scaled on hand views */

/* Nodes 0-3 serving's home (4 GPUs each, modelled capacity 100 each), node 4 training's. */
static struct colo_node nodes[5];

static struct colo_view view(double demand, int waiting)
{
    for (int k = 0; k < 5; k++)
        nodes[k] = (struct colo_node){ .gpus = 4, .home = COLO_SERVING, .holder = COLO_SERVING,
                                       .serve_cap = 100, .pack = k };
    nodes[4].home = nodes[4].holder = COLO_TRAINING;
    nodes[4].serve_cap = 0;
    return (struct colo_view){ .nnodes = 5, .node = nodes, .serve_demand = demand,
                               .serve_held = 400, .train_waiting = waiting, .ntypes = 1 };
}

static void expect(const int *m, const char *want, const char *what)
{
    char got[6];
    for (int k = 0; k < 5; k++)
        got[k] = (char)('0' + m[k]);
    got[5] = '\0';
    cr_assert_str_eq(got, want, "%s: moved %s, expected %s", what, got, want);
}

Test(slo_guard, a_factor_below_one_lends_less_and_reclaims_more)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    double same[1] = { 0 };
    int move[5];
    /* demand 100 (target 125) of 400 held, 16 GPUs waiting: at f = 1 nodes 0 and 1 go
     * (200 left), node 2 cannot (100 < 125) */
    struct colo_view v = view(100, 16);
    cr_assert_eq(loan_plan_scaled(&v, &p, same, 1, move, &err), 0, "%s", err.msg);
    expect(move, "11000", "f = 1");
    /* f = 0.5: serving holds 4 x 50 = 200, each node 50; node 0 goes (150 left), node 1
     * cannot (100 < 125).  With f on what serving holds alone, each node still 100, none
     * could go. */
    cr_assert_eq(loan_plan_scaled(&v, &p, same, 0.5, move, &err), 0, "%s", err.msg);
    expect(move, "10000", "f = 0.5");
    /* two nodes on loan (node 0's jobs would pay 10 of restore, node 1's 30), 200 held,
     * demand 60 (target 75): at f = 1 serving has room and lends node 2 (100 left) */
    v = view(60, 16);
    nodes[0].holder = nodes[1].holder = COLO_TRAINING;
    nodes[0].take_cost = 10;
    nodes[1].take_cost = 30;
    v.serve_held = 200;
    cr_assert_eq(loan_plan_scaled(&v, &p, same, 1, move, &err), 0, "%s", err.msg);
    expect(move, "00100", "lends at f = 1");
    /* f = 0.35: 70 held < 75: reclaims the cheapest cover of 5, node 0 (35) */
    cr_assert_eq(loan_plan_scaled(&v, &p, same, 0.35, move, &err), 0, "%s", err.msg);
    expect(move, "10000", "f = 0.35");
    /* f = 0.2: 40 held, deficit 35; each loaned node gives 20 (not 100): both come back */
    cr_assert_eq(loan_plan_scaled(&v, &p, same, 0.2, move, &err), 0, "%s", err.msg);
    expect(move, "11000", "f = 0.2");
    /* loan_plan is f = 1 */
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0, "%s", err.msg);
    expect(move, "00100", "loan_plan");
}

/* ---- end to end through the CLI */

/* The 5-minute periods (by first token) in which more than 1% of run's first tokens came
 * later than 1 s after their arrival. */
static double missed_periods(const char *db, int run)
{
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*) FROM (SELECT avg(ttft_s > 1) AS f FROM requests "
             "WHERE run_id = %d AND first_s IS NOT NULL GROUP BY CAST(first_s / 300 AS INT)) "
             "WHERE f > 0.01", run);
    return th_db_value(db, q);
}

Test(slo_guard, colocate_day_with_the_guard_misses_fewer_periods_and_lends_less,
     .timeout = 180)
{
    char *db = th_write("slo_guard.db", "");
    remove(db);
    const char *args[] = {
        "run", "colocate_day", "--db", db, "-q",
        "--set", "policies=[\"static\", \"loan\", {\"name\": \"loan\", \"label\": "
                 "\"loan_guard\", \"slo_guard\": 0.01}]",
        "--set", "sim.until_s=43200", "--set", "sim.timeline=true",
        "--set", "tenants.training.workload.jobs=150",
        "--set", "tenants.serving.workload.requests=1000000",
        "--set", "tenants.serving.workload.rate_per_s=16",
        "--set", "tenants.serving.slo.ttft_s=1", NULL };
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE id = 3 AND policy = "
                                 "'loan_guard'"), 1);
    /* the load: loan misses the objective in more periods than the static partition */
    double m_static = missed_periods(db, 1), m_loan = missed_periods(db, 2),
           m_guard = missed_periods(db, 3);
    cr_assert_gt(m_loan, m_static, "loan %g, static %g missed periods", m_loan, m_static);
    /* the guard: fewer periods missed, more requests within the objective, less lent */
    cr_assert_lt(m_guard, m_loan, "guard %g, loan %g missed periods", m_guard, m_loan);
    cr_assert_gt(th_db_metric(db, 3, "serving_slo_attainment"),
                 th_db_metric(db, 2, "serving_slo_attainment"));
    cr_assert_lt(th_db_metric(db, 3, "gpu_hours_loaned"), th_db_metric(db, 2, "gpu_hours_loaned"));
    cr_assert_gt(th_db_metric(db, 3, "gpu_hours_loaned"), 0, "the guard lent nothing");
    /* its own figures: it saw missed periods and lowered f; off, it writes none */
    cr_assert_gt(th_db_metric(db, 3, "slo_guard_missed"), 0);
    cr_assert_lt(th_db_metric(db, 3, "slo_guard_f_min"), 1);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM metrics WHERE run_id = 2 AND name LIKE "
                                 "'slo_guard%'"), 0);
    for (int run = 1; run <= 3; run++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT sim_end_s FROM runs WHERE id = %d", run);
        th_holds_every_gpu_once(db, run, 56, th_db_value(db, q));
    }
    free(db);
}
