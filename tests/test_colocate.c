/*
 * test_colocate: the colocate domain end to end (sim/colocate/world.c) and its broker
 * policies' decisions (sched/loan.h's loan_plan on hand-built views).
 *
 * Through the CLI and the database: every run has both tenants' rows and metrics under their
 * names and the cluster's; a GPU is held by exactly one tenant at every moment (the timeline's
 * holdings of each GPU tile the run without overlap) and the tenants' GPU-hours add up to the
 * cluster's; static lends nothing, loan lends serving's nodes to training (its timeline shows
 * training on serving's GPUs), and the same seed gives the same rows; the cluster's util
 * figures are both tenants' busy GPU-seconds, computed by hand from their rows.  Decisions
 * against hand computations: which nodes loan lends (the greedy that keeps demand * (1 +
 * headroom), up to training's waiting GPUs, never serving's last pack with an instance up),
 * which hetero_loan lends first (by type score), which a reclaim takes back (the cheapest
 * cover); packs (nodes an instance ties) moved whole, the world's rules (colo_check_moves) on
 * hand-built views and, as a property, on every decision loan_plan makes on random views; and
 * a cluster where HexGen's pipelines span servers runs under both loaning brokers; and
 * colocate_day runs with training policies that keep their own picture or size rounds by
 * capacity (themis, gavel_las, tiresias) as its training tenant.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/loan.h"
#include "helpers.h"

/* `hetsim ARGS` through the CLI, which must succeed (what: said when it does not). */
static void run_ok(const char *const *args, const char *what)
{
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s: %s", what, o.err);
    th_out_free(&o);
}

/* A small run of colocate_small: 600 requests, 30 jobs, the timeline on. */
static char *run_small(const char *name, const char *policy)
{
    char *db = th_write(name, "");
    remove(db);
    const char *args[] = { "run", "colocate_small", "--db", db, "-q",
                           "--set", "tenants.serving.workload.requests=600",
                           "--set", "tenants.training.workload.jobs=30",
                           "--set", "sim.timeline=true",
                           policy ? "--policy" : NULL, policy, NULL };
    run_ok(args, "colocate");
    return db;
}

Test(colocate, runs_write_both_tenants_and_hold_every_gpu_once, .timeout = 120)
{
    char *db = run_small("colo.db", NULL);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE domain = 'colocate'"), 3);
    for (int run = 1; run <= 3; run++) {
        char q[512];
        /* the tenants' rows and metrics, under their names, and the cluster's */
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db, q), 600, "run %d", run);
        snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db, q), 30, "run %d", run);
        static const char *const names[] = {
            "serving_ttft_p99", "serving_slo_attainment", "serving_requests_done",
            "training_jct_mean", "training_queue_delay_mean", "training_jobs_done",
            "gpu_hours_serving", "gpu_hours_training", "gpu_hours_loaned", "loans",
            "reclaims", "reclaim_preemptions", NULL };
        for (int i = 0; names[i] != NULL; i++) {
            snprintf(q, sizeof q, "SELECT count(*) FROM metrics WHERE run_id = %d AND name = "
                     "'%s'", run, names[i]);
            cr_assert_eq(th_db_value(db, q), 1, "run %d has no metric %s", run, names[i]);
        }
        cr_assert_eq(th_db_metric(db, run, "serving_requests_done"), 600);
        cr_assert_eq(th_db_metric(db, run, "training_jobs_done"), 30);
        /* GPU-hours held add up to the cluster's 20 GPUs over the run */
        snprintf(q, sizeof q, "SELECT sim_end_s FROM runs WHERE id = %d", run);
        double end = th_db_value(db, q), held = th_db_metric(db, run, "gpu_hours_serving") +
                                                th_db_metric(db, run, "gpu_hours_training");
        cr_assert_float_eq(held, 20 * end / 3600, 1e-9 * held, "run %d: %g GPU-h held of %g",
                           run, held, 20 * end / 3600);
        th_holds_every_gpu_once(db, run, 20, end);
        /* the training tenant's GPU-hours are its timeline's */
        snprintf(q, sizeof q, "SELECT sum(end_s - start_s) / 3600 FROM timeline WHERE run_id "
                 "= %d AND entity = 1", run);
        cr_assert_float_eq(th_db_value(db, q), th_db_metric(db, run, "gpu_hours_training"), 1e-6);
    }
    /* static lends nothing; loan lends serving's nodes, and training runs on them */
    cr_assert_eq(th_db_metric(db, 1, "loans"), 0);
    cr_assert_eq(th_db_metric(db, 1, "gpu_hours_loaned"), 0);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM timeline WHERE run_id = 1 AND entity = 1 "
                                 "AND resource < 12"), 0);
    cr_assert_gt(th_db_metric(db, 2, "loans"), 0);
    cr_assert_gt(th_db_metric(db, 2, "gpu_hours_loaned"), 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE run_id = 2 AND entity = 1 "
                                 "AND resource < 12"), 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM job_gpu_seconds WHERE run_id = 2 AND "
                                 "gpu_type LIKE 'A100%'"), 0, "no job ran on a loaned A100");
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM job_gpu_seconds WHERE run_id = 1 AND "
                                 "gpu_type LIKE 'A100%'"), 0, "a job ran on serving's A100s");
    /* a loan arrives once serving's instances there have drained: at once here (they are
     * idle), never the rest of the run (a node whose release is lost stays 'restoring',
     * serving's, until the end) */
    cr_assert_lt(th_db_value(db, "SELECT coalesce(max(end_s - start_s), 0) FROM timeline "
                                 "WHERE run_id = 2 AND state = 'restoring'"), 600);
    /* the loaned GPU-hours are the timeline's training holdings on serving's GPUs */
    cr_assert_float_eq(th_db_value(db, "SELECT sum(end_s - start_s) / 3600 FROM timeline WHERE "
                                       "run_id = 2 AND entity = 1 AND resource < 12"),
                       th_db_metric(db, 2, "gpu_hours_loaned"), 1e-6);
    free(db);
}

/* The cluster's utilization, by hand from the rows: on each GPU type, the GPU-seconds busy
 * over [0, end] are training's (job_gpu_seconds) plus serving's (its own util figure times its
 * GPUs of the type times its horizon, first arrival to end: serving holds only the A100s);
 * util_total is the GPU-weighted mean of the types', and every figure lies in [0, 1]. */
Test(colocate, cluster_util_is_both_tenants_busy_gpu_seconds, .timeout = 120)
{
    char *db = run_small("colo_util.db", NULL);
    static const struct { const char *type; int gpus, serving_gpus; } ty[] = {
        { "A100-80GB", 12, 12 }, { "V100-16GB", 8, 0 } };
    for (int run = 1; run <= 3; run++) {
        char q[512];
        snprintf(q, sizeof q, "SELECT sim_end_s FROM runs WHERE id = %d", run);
        double end = th_db_value(db, q);
        snprintf(q, sizeof q, "SELECT min(arrival_s) FROM requests WHERE run_id = %d", run);
        double first = th_db_value(db, q), weighted = 0;
        for (size_t i = 0; i < sizeof ty / sizeof ty[0]; i++) {
            char name[64];
            snprintf(name, sizeof name, "util_%s", ty[i].type);
            double u = th_db_metric(db, run, name);
            cr_assert(u >= 0 && u <= 1, "run %d: %s = %g", run, name, u);
            snprintf(q, sizeof q, "SELECT coalesce(sum(gpu_s), 0) FROM job_gpu_seconds WHERE "
                     "run_id = %d AND gpu_type = '%s'", run, ty[i].type);
            double busy = th_db_value(db, q);
            if (ty[i].serving_gpus > 0) {
                snprintf(name, sizeof name, "serving_util_%s", ty[i].type);
                busy += th_db_metric(db, run, name) * ty[i].serving_gpus * (end - first);
            }
            cr_assert_float_eq(u * ty[i].gpus * end, busy, 1e-9 * busy + 1e-9,
                               "run %d, %s: %g busy GPU-s, by hand %g", run, ty[i].type,
                               u * ty[i].gpus * end, busy);
            weighted += u * ty[i].gpus;
        }
        double total = th_db_metric(db, run, "util_total");
        cr_assert(total >= 0 && total <= 1, "run %d: util_total = %g", run, total);
        cr_assert_float_eq(total, weighted / 20, 1e-12, "run %d", run);
    }
    /* loan moves training onto serving's A100s: the cluster is busier than under static */
    cr_assert_gt(th_db_metric(db, 2, "util_total"), th_db_metric(db, 1, "util_total"));
    free(db);
}

Test(colocate, same_seed_same_rows, .timeout = 120)
{
    char *a = run_small("colo_a.db", "loan"), *b = run_small("colo_b.db", "loan");
    char *da = th_db_dump(a), *dbb = th_db_dump(b);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    free(a);
    free(b);
}

/* The static partition is the two tenants each alone on its part of the cluster: the same
 * requests and jobs rows, the same metrics, to the last bit (its broker only watches). */
Test(colocate, static_is_each_tenant_alone_on_its_nodes, .timeout = 120)
{
    char *serve = th_write("serve_alone.json",
        "{ \"name\": \"s\", \"domain\": \"serving\", \"seed\": 1,\n"
        "  \"cluster\": { \"name\": \"colo_small\", \"network\": \"ib-100g\", \"groups\": [\n"
        "    { \"name\": \"a100\", \"count\": 3, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4,\n"
        "      \"intra\": \"nvswitch\" } ] },\n"
        "  \"model\": \"llama-2-7b\", \"slo\": { \"ttft_s\": 2 }, \"policies\": [\"highend_only\"],\n"
        "  \"workload\": { \"format\": \"llm_synthetic\", \"requests\": 600, \"rate_per_s\": 1 },\n"
        "  \"sim\": { \"overlong\": \"truncate\" } }\n");
    char *train = th_write("train_alone.json",
        "{ \"name\": \"t\", \"domain\": \"training\", \"seed\": 1,\n"
        "  \"cluster\": { \"name\": \"colo_small\", \"network\": \"ib-100g\", \"groups\": [\n"
        "    { \"name\": \"v100\", \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] },\n"
        "  \"policies\": [\"fifo\"], \"workload\": { \"format\": \"synthetic\", \"jobs\": 30,\n"
        "    \"rate_per_hour\": 40, \"reference_gpu\": \"V100\", \"workers\": { \"1\": 0.5, \"2\": 0.2, \"4\": 0.3 },\n"
        "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, \"sigma\": 1,\n"
        "      \"clamp_min_s\": 60, \"clamp_max_s\": 20000 },\n"
        "    \"job_types\": { \"ResNet-18 (batch size 64)\": 1, \"ResNet-50 (batch size 64)\": 1,\n"
        "      \"Transformer (batch size 64)\": 1, \"LM (batch size 20)\": 1 } } }\n");
    char *db = run_small("colo_static.db", "static");
    char *alone = th_write("alone.db", "");
    remove(alone);
    const char *s_args[] = { "run", serve, "--db", alone, "-q", NULL };
    const char *t_args[] = { "run", train, "--db", alone, "-q", NULL };
    run_ok(s_args, "serving alone");
    run_ok(t_args, "training alone");
    /* the rows, run aside */
    static const char *const co_q[] = {
        "SELECT request_id, arrival_s, first_s, finish_s, in_tokens, out_tokens, sla_met "
        "FROM requests WHERE run_id = 1 ORDER BY request_id",
        "SELECT job_id, job_type, workers, arrival_s, first_start_s, finish_s, preemptions "
        "FROM jobs WHERE run_id = 1 ORDER BY job_id", NULL };
    static const char *const alone_q[] = {
        "SELECT request_id, arrival_s, first_s, finish_s, in_tokens, out_tokens, sla_met "
        "FROM requests WHERE run_id = 1 ORDER BY request_id",
        "SELECT job_id, job_type, workers, arrival_s, first_start_s, finish_s, preemptions "
        "FROM jobs WHERE run_id = 2 ORDER BY job_id", NULL };
    char *a = th_query_dump(db, co_q), *b = th_query_dump(alone, alone_q);
    cr_assert_gt(strlen(a), 1000);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    /* and the metrics, under the tenant's name */
    static const char *const names[][2] = { { "serving_ttft_p99", "ttft_p99" },
                                            { "serving_slo_attainment", "slo_attainment" },
                                            { "training_jct_mean", "jct_mean" },
                                            { "training_queue_delay_mean", "queue_delay_mean" } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char q[256];
        snprintf(q, sizeof q, "SELECT value FROM metrics WHERE run_id = %d AND name = '%s'",
                 i < 2 ? 1 : 2, names[i][1]);
        cr_assert_eq(th_db_metric(db, 1, names[i][0]), th_db_value(alone, q), "%s", names[i][0]);
    }
    free(serve);
    free(train);
    free(db);
    free(alone);
}

/* A load that rises: an idle half hour (a request every 10 s) in which loan lends serving's
 * spare nodes to the waiting jobs, then ten minutes at 60 requests a second, which take them
 * back: the reclaims preempt the jobs on them, and the timeline shows serving on its GPUs
 * again. */
Test(colocate, a_load_rise_reclaims_loaned_nodes, .timeout = 120)
{
    size_t cap = 1 << 20, n = 0;
    char *csv = malloc(cap);
    cr_assert_not_null(csv);
    n += (size_t)snprintf(csv + n, cap - n, "arrival_s,prompt_tokens,output_tokens\n");
    for (int i = 0; i < 180; i++)
        n += (size_t)snprintf(csv + n, cap - n, "%d,500,100\n", 10 * i);
    for (int i = 0; i < 36000 && n + 64 < cap; i++)
        n += (size_t)snprintf(csv + n, cap - n, "%.4f,900,200\n", 1800 + i / 60.0);
    free(th_write("rise.csv", csv));
    free(csv);
    char *exp = th_write("rise.json",
        "{ \"name\": \"rise\", \"domain\": \"colocate\", \"seed\": 1,\n"
        "  \"cluster\": { \"network\": \"ib-100g\", \"groups\": [\n"
        "    { \"name\": \"a100\", \"count\": 3, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4 },\n"
        "    { \"name\": \"v100\", \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] },\n"
        "  \"serving_groups\": [\"a100\"], \"broker\": { \"period_s\": 60 },\n"
        "  \"tenants\": {\n"
        "    \"serving\": { \"model\": \"llama-2-13b\", \"policies\": [\"highend_only\"],\n"
        "      \"workload\": { \"format\": \"requests\", \"trace\": \"rise.csv\" } },\n"
        "    \"training\": { \"policies\": [\"fifo\"], \"workload\": { \"format\": \"synthetic\",\n"
        "      \"jobs\": 40, \"rate_per_hour\": 60, \"reference_gpu\": \"V100\",\n"
        "      \"workers\": { \"1\": 0.5, \"4\": 0.5 }, \"duration\": { \"dist\": \"lognormal\",\n"
        "      \"median_s\": 7200, \"sigma\": 0.5 }, \"job_types\": { \"ResNet-50 (batch size 64)\": 1 } } } },\n"
        "  \"policies\": [\"static\", \"loan\"], \"sim\": { \"timeline\": true } }\n");
    char *db = th_write("rise.db", "");
    remove(db);
    const char *args[] = { "run", exp, "--db", db, "-q", NULL };
    run_ok(args, "colocate");
    cr_assert_eq(th_db_metric(db, 1, "reclaims"), 0);
    cr_assert_gt(th_db_metric(db, 2, "loans"), 0);
    cr_assert_gt(th_db_metric(db, 2, "reclaims"), 0, "the load rise took nothing back");
    /* every job a reclaim disturbed was preempted (rigid jobs), and the jobs' preemptions
     * are at least those */
    double rp = th_db_metric(db, 2, "reclaim_preemptions");
    cr_assert_gt(rp, 0);
    cr_assert_geq(th_db_value(db, "SELECT sum(preemptions) FROM jobs WHERE run_id = 2"), rp);
    cr_assert_eq(th_db_value(db, "SELECT sum(preemptions) FROM jobs WHERE run_id = 1"), 0);
    /* serving holds its GPUs again after the rise: a serving holding begun by a reclaim */
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM timeline WHERE run_id = 2 AND entity = 0 "
                                 "AND cause = 'preempt' AND start_s >= 1800"), 0);
    /* and the GPU-hours still add up */
    double end = th_db_value(db, "SELECT sim_end_s FROM runs WHERE id = 2");
    cr_assert_float_eq(th_db_metric(db, 2, "gpu_hours_serving") +
                           th_db_metric(db, 2, "gpu_hours_training"),
                       16 * end / 3600, 1e-6);
    free(exp);
    free(db);
}

/* ---- loan_plan on hand-built views */

/* Nodes 0-2 serving's (4 GPUs, type slot 0 except node 2, slot 1), node 3 training's. */
static struct colo_node nodes[4];

static struct colo_view view(double demand, int waiting)
{
    for (int k = 0; k < 4; k++)
        nodes[k] = (struct colo_node){ .type = k >= 2, .gpus = 4, .home = COLO_SERVING,
                                       .holder = COLO_SERVING, .serve_cap = 100, .pack = k };
    nodes[3].home = nodes[3].holder = COLO_TRAINING;
    nodes[3].serve_cap = 0;
    struct colo_view v = { .nnodes = 4, .node = nodes, .serve_demand = demand,
                           .serve_held = 300, .train_waiting = waiting, .ntypes = 2 };
    return v;
}

static void expect_moves(const int *move, int a, int b, int c, int d)
{
    cr_assert(move[0] == a && move[1] == b && move[2] == c && move[3] == d,
              "moved (%d %d %d %d), expected (%d %d %d %d)", move[0], move[1], move[2], move[3],
              a, b, c, d);
}

Test(colocate, loan_lends_what_serving_can_spare_up_to_the_waiting_gpus)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    double same[2] = { 0, 0 };
    int move[4];
    /* demand 120 x 1.25 = 150 of 300: node 0 goes (200 left), node 1 cannot (100 < 150) */
    struct colo_view v = view(120, 8);
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 0, 0, 0);
    /* 4 GPUs waiting at demand 40 (target 50): node 0 covers them, nothing more goes */
    v = view(40, 4);
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 0, 0, 0);
    /* nothing waits: nothing is lent */
    v = view(0, 0);
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 0, 0, 0);
    /* no demand, much waiting: all but serving's last node with an instance */
    v = view(0, 100);
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);
    /* a node being handed over is not moved again */
    v = view(0, 100);
    nodes[0].moving = 1;
    v.serve_held = 200;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 1, 0, 0);
}

Test(colocate, hetero_loan_lends_the_best_scored_type_first)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    int move[4];
    /* training gains as much on type 1, serving gives a quarter there: type 1 scores 4x */
    double gain[2] = { 1, 1 }, serve[2] = { 40, 10 }, score[2];
    loan_type_scores(gain, serve, 2, score);
    cr_assert_float_eq(score[1] / score[0], 4, 1e-12);
    struct colo_view v = view(120, 4);
    cr_assert_eq(loan_plan(&v, &p, score, move, &err), 0);
    expect_moves(move, 0, 0, 1, 0);
}

Test(colocate, reclaim_takes_back_the_cheapest_cover)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    double same[2] = { 0, 0 };
    int move[4];
    /* nodes 0 and 1 on loan (node 0's jobs would pay 50 GPU-s of restore, node 1's none);
     * demand 160 x 1.25 = 200 against 100 held: one node covers it, node 1 */
    struct colo_view v = view(160, 0);
    nodes[0].holder = nodes[1].holder = COLO_TRAINING;
    nodes[0].take_cost = 50;
    v.serve_held = 100;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 1, 0, 0);
    /* demand 200 (250 wanted): both come back */
    v.serve_demand = 200;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);
    /* a training home node is never taken, whatever the deficit */
    v.serve_demand = 1000;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    cr_assert_eq(move[3], 0);
}

/* ---- packs: nodes a serving instance ties together (colo_view.h) */

Test(colocate, loan_moves_a_pack_whole)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    double same[2] = { 0, 0 };
    int move[4];
    /* nodes 0 and 1 one pack (200 of capacity), node 2 its own (100) */
    struct colo_view v = view(0, 4);
    nodes[1].pack = 0;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);         /* 4 GPUs wanted: the pack goes, 8 GPUs */
    cr_assert_eq(colo_check_moves(&v, move, &err), 0, "%s", err.msg);
    /* demand 120 (target 150 of 300): the pack cannot go (100 left), node 2 can (200) */
    v = view(120, 4);
    nodes[1].pack = 0;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 0, 1, 0);
    /* much waiting, no demand: the pack goes, node 2 stays (serving's last live pack) */
    v = view(0, 100);
    nodes[1].pack = 0;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);
    /* all three one pack: nothing can go */
    v = view(0, 100);
    nodes[1].pack = nodes[2].pack = 0;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 0, 0, 0);
    /* a reclaim takes a pack whole: nodes 0+1 (cost 50 + 0) against node 2 (cost 30) */
    v = view(80, 0);
    nodes[1].pack = 0;
    for (int k = 0; k < 3; k++)
        nodes[k].holder = COLO_TRAINING;
    nodes[0].take_cost = 50;
    nodes[2].take_cost = 30;
    v.serve_held = 0;
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 0, 0, 1, 0);         /* 100 wanted: node 2 covers it for 30 */
    v.serve_demand = 120;                   /* 150 wanted: only the pack covers it */
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);
}

Test(colocate, a_loading_node_does_not_count_as_serving_s_live_one)
{
    struct errbuf err;
    err_clear(&err);
    struct loan_params p = { 0.25, 0 };
    double same[2] = { 0, 0 };
    int move[4];
    /* node 2's weights are loading: nodes 0 and 1 are serving's live ones; 0 goes, 1 stays,
     * 2 may go (it takes no requests yet) */
    struct colo_view v = view(0, 100);
    nodes[2].loading = 1;
    cr_assert_eq(colo_live_packs(&v, NULL), 2);
    cr_assert_eq(loan_plan(&v, &p, same, move, &err), 0);
    expect_moves(move, 1, 0, 1, 0);
    cr_assert_eq(colo_check_moves(&v, move, &err), 0, "%s", err.msg);
}

Test(colocate, the_world_s_rules_refuse_a_split_pack_and_a_last_live_pack)
{
    struct errbuf err;
    struct colo_view v = view(0, 100);
    nodes[1].pack = 0;
    int split[4] = { 1, 0, 0, 0 }, last[4] = { 0, 0, 1, 0 }, all[4] = { 1, 1, 1, 0 };
    int own[4] = { 0, 0, 0, 1 }, fine[4] = { 1, 1, 0, 0 };
    err_clear(&err);
    cr_assert_lt(colo_check_moves(&v, split, &err), 0);
    cr_assert(strstr(err.msg, "node 0 without node 1") != NULL, "%s", err.msg);
    err_clear(&err);
    cr_assert_eq(colo_check_moves(&v, last, &err), 0, "%s", err.msg);   /* the pack is left */
    err_clear(&err);
    cr_assert_lt(colo_check_moves(&v, all, &err), 0);
    cr_assert(strstr(err.msg, "keeps at least one") != NULL, "%s", err.msg);
    err_clear(&err);
    cr_assert_lt(colo_check_moves(&v, own, &err), 0);
    cr_assert(strstr(err.msg, "training's own") != NULL, "%s", err.msg);
    err_clear(&err);
    cr_assert_eq(colo_check_moves(&v, fine, &err), 0, "%s", err.msg);
    /* with the pack's weights loading, lending node 2 leaves nothing live */
    nodes[0].loading = 1;
    err_clear(&err);
    cr_assert_lt(colo_check_moves(&v, last, &err), 0);
}

/* Property: on random views (packs of random nodes, holders, moving and loading nodes, random
 * capacities, costs, demand and waiting GPUs), loan_plan's decision always passes the world's
 * rules, for loan's and hetero_loan's scores. */
Test(colocate, loan_plan_keeps_the_world_s_rules_on_random_views)
{
    enum { N = 10, TRIALS = 3000 };
    struct colo_node nd[N];
    unsigned seed = 12345;
    int moved = 0, reclaimed = 0;
    for (int t = 0; t < TRIALS; t++) {
        int n = 2 + (int)(rand_r(&seed) % (N - 1));
        for (int k = 0; k < n; k++) {
            int home = rand_r(&seed) % 4 != 0 ? COLO_SERVING : COLO_TRAINING;
            nd[k] = (struct colo_node){ .type = rand_r(&seed) % 3, .gpus = 4 << (rand_r(&seed) % 2),
                                        .home = home, .holder = home, .pack = k,
                                        .serve_cap = home == COLO_SERVING && rand_r(&seed) % 5
                                                         ? 10 + rand_r(&seed) % 200 : 0 };
            /* join the previous serving node's pack now and then */
            if (home == COLO_SERVING && k > 0 && nd[k - 1].home == COLO_SERVING &&
                rand_r(&seed) % 3 == 0)
                nd[k].pack = nd[k - 1].pack;
        }
        /* a pack's state is one: lent, moving or loading together (as the world moves them) */
        for (int k = 0; k < n; k++) {
            if (nd[k].pack != k || nd[k].home != COLO_SERVING)
                continue;
            int r = rand_r(&seed) % 6;
            for (int j = k; j < n; j++) {
                if (nd[j].pack != k)
                    continue;
                nd[j].holder = r == 0 ? COLO_TRAINING : COLO_SERVING;
                nd[j].moving = r == 1;
                nd[j].loading = r == 2;
                nd[j].take_cost = r == 0 ? rand_r(&seed) % 100 : 0;
            }
        }
        struct colo_view v = { .nnodes = n, .node = nd, .ntypes = 3,
                               .serve_demand = rand_r(&seed) % 800,
                               .train_waiting = rand_r(&seed) % 40 };
        for (int k = 0; k < n; k++)
            if (nd[k].holder == COLO_SERVING && !nd[k].moving)
                v.serve_held += nd[k].serve_cap;
        double same[3] = { 0, 0, 0 }, score[3], gain[3], serve[3];
        for (int i = 0; i < 3; i++) {
            gain[i] = rand_r(&seed) % 4;
            serve[i] = rand_r(&seed) % 4;
        }
        loan_type_scores(gain, serve, 3, score);
        struct loan_params p = { (rand_r(&seed) % 5) / 10.0, 0 };
        p.lend_spare = rand_r(&seed) % 2;
        int move[N];
        struct errbuf err;
        for (int pol = 0; pol < 2; pol++) {
            err_clear(&err);
            cr_assert_eq(loan_plan(&v, &p, pol ? score : same, move, &err), 0, "%s", err.msg);
            err_clear(&err);
            cr_assert_eq(colo_check_moves(&v, move, &err), 0, "trial %d policy %d: %s", t, pol,
                         err.msg);
            for (int k = 0; k < n; k++) {
                moved += move[k];
                reclaimed += move[k] && nd[k].holder == COLO_TRAINING;
            }
        }
    }
    /* the property is not vacuous: both lends and reclaims happened */
    cr_assert_gt(moved - reclaimed, 100);
    cr_assert_gt(reclaimed, 100);
}

/* colocate_day at twice its size: HexGen's pipelines span two servers there, so a loan of one
 * node would stop instances on others.  Both loaning brokers run past their first decisions
 * with serving still taking requests (before packs, loan lent a node of every pipeline and
 * the run stopped at t = 1,200 s: "no instance serves prompts"). */
Test(colocate, brokers_keep_spanning_instances_whole, .timeout = 120)
{
    static const char *const brokers[] = { "loan", "hetero_loan" };
    for (int b = 0; b < 2; b++) {
        char *db = th_write("colo_x2.db", "");
        remove(db);
        const char *args[] = { "run", "colocate_day", "--db", db, "-q", "--policy", brokers[b],
            "--set", "cluster={\"name\": \"x2\", \"network\": \"ib-200g\", \"groups\": ["
                     "{\"name\": \"a100\", \"count\": 4, \"gpu\": \"A100-80GB\", "
                     "\"gpus_per_node\": 8, \"intra\": \"nvswitch\"}, "
                     "{\"name\": \"h100\", \"count\": 2, \"gpu\": \"H100\", "
                     "\"gpus_per_node\": 8, \"intra\": \"nvswitch4\"}, "
                     "{\"name\": \"v100\", \"count\": 8, \"gpu\": \"V100-16GB\", "
                     "\"gpus_per_node\": 4, \"intra\": \"nvlink2\"}, "
                     "{\"name\": \"t4\", \"count\": 8, \"gpu\": \"T4\", \"gpus_per_node\": 4, "
                     "\"intra\": \"pcie3\"}]}",
            "--set", "tenants.serving.workload.rate_per_s=4",
            "--set", "tenants.serving.workload.requests=9600",
            "--set", "tenants.training.workload.rate_per_hour=32",
            "--set", "tenants.training.workload.jobs=100",
            "--set", "sim.until_s=2400", NULL };
        run_ok(args, brokers[b]);
        cr_assert_gt(th_db_metric(db, 1, "serving_requests_done"), 5000, "%s", brokers[b]);
        cr_assert_geq(th_db_metric(db, 1, "broker_decisions"), 7, "%s", brokers[b]);
        free(db);
    }
}

/* serving's `sim.drain`: a loan under "migrate" moves the decoding requests of the instances
 * it drains to others with their KV, so the nodes reach training sooner than under "finish"
 * (where the instances finish what they admitted), and no request is lost either way. */
Test(colocate, a_migrating_drain_hands_nodes_over_sooner, .timeout = 120)
{
    static const char *const modes[] = { "finish", "migrate" };
    double handover[2], moved[2];
    for (int m = 0; m < 2; m++) {
        char *db = th_write("colo_drain.db", "");
        remove(db);
        char drain[64];
        snprintf(drain, sizeof drain, "tenants.serving.sim.drain=%s", modes[m]);
        const char *args[] = { "run", "colocate_day", "--db", db, "-q", "--policy", "loan",
                               "--set", drain, "--set", "sim.until_s=14400",
                               "--set", "tenants.serving.workload.requests=30000",
                               "--set", "tenants.training.workload.jobs=80",
                               "--set", "sim.timeline=true", NULL };
        run_ok(args, modes[m]);
        /* GPU-seconds of serving's nodes between a loan and training holding them */
        handover[m] = th_db_value(db, "SELECT sum(end_s - start_s) FROM timeline "
                                      "WHERE entity = 0 AND state = 'restoring'");
        moved[m] = th_db_metric(db, 1, "serving_drain_moves");
        cr_assert_gt(th_db_metric(db, 1, "loans"), 0, "%s", modes[m]);
        cr_assert_eq(th_db_metric(db, 1, "serving_requests_unfinished") +
                         th_db_metric(db, 1, "serving_requests_done") +
                         th_db_metric(db, 1, "serving_requests_dropped"),
                     th_db_metric(db, 1, "serving_requests_total"), "%s", modes[m]);
        free(db);
    }
    cr_assert_eq(moved[0], 0);
    cr_assert_gt(moved[1], 0);
    cr_assert_lt(handover[1], handover[0] / 4, "handover %g GPU-s migrating, %g finishing",
                 handover[1], handover[0]);
}

/* A broker's policy entry may run a tenant under another policy ("tenants"), so that a
 * combination is a policy of the experiment, labelled and paired with the others like any:
 * loan with lyra for training against loan with the section's fifo. */
Test(colocate, a_policy_entry_names_its_tenants_policies, .timeout = 120)
{
    char *exp = th_write("combo.json",
        "{ \"name\": \"combo\", \"domain\": \"colocate\", \"seed\": 1,\n"
        "  \"cluster\": { \"network\": \"ib-100g\", \"groups\": [\n"
        "    { \"name\": \"a100\", \"count\": 3, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4 },\n"
        "    { \"name\": \"v100\", \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] },\n"
        "  \"serving_groups\": [\"a100\"], \"broker\": { \"period_s\": 120 },\n"
        "  \"tenants\": {\n"
        "    \"serving\": { \"model\": \"llama-2-7b\", \"policies\": [\"highend_only\"],\n"
        "      \"workload\": { \"format\": \"llm_synthetic\", \"requests\": 600, \"rate_per_s\": 1 },\n"
        "      \"sim\": { \"overlong\": \"truncate\" } },\n"
        "    \"training\": { \"policies\": [\"fifo\"], \"workload\": { \"format\": \"synthetic\",\n"
        "      \"jobs\": 30, \"rate_per_hour\": 40, \"reference_gpu\": \"V100\",\n"
        "      \"min_workers\": 1, \"max_workers\": 8, \"workers\": { \"1\": 0.5, \"4\": 0.5 },\n"
        "      \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, \"sigma\": 1,\n"
        "                    \"clamp_min_s\": 60, \"clamp_max_s\": 20000 },\n"
        "      \"job_types\": { \"ResNet-18 (batch size 64)\": 1, \"LM (batch size 20)\": 1 } } } },\n"
        "  \"policies\": [\"loan\", { \"name\": \"loan\", \"label\": \"loan+lyra\",\n"
        "                             \"tenants\": { \"training\": \"lyra\" } }] }\n");
    char *db = th_write("combo.db", "");
    remove(db);
    const char *args[] = { "run", exp, "--db", db, "-q", NULL };
    run_ok(args, "colocate");
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE policy = 'loan+lyra'"), 1);
    /* lyra resizes elastic jobs (fifo never does): its run's jobs differ, and so does the JCT */
    double jct_fifo = th_db_metric(db, 1, "training_jct_mean"),
           jct_lyra = th_db_metric(db, 2, "training_jct_mean");
    cr_assert(fabs(jct_fifo - jct_lyra) > 1, "JCT %g under fifo, %g under lyra", jct_fifo,
              jct_lyra);
    /* the report pairs the combination with loan by seed, as any two policies */
    const char *rep[] = { "report", "--db", db, "--baseline", "loan", "--columns",
                          "training_jct_mean", "--format", "csv", NULL };
    struct th_out o = th_hetsim(rep);
    cr_assert_eq(o.status, 0, "%s", o.err);
    int col = -1, k = 0;
    for (const char *c = o.out; *c != '\n' && *c != '\0'; k++) {     /* the header's column */
        if (strncmp(c, "training_jct_mean/loan,", 23) == 0)
            col = k;
        c = strchr(c, ',') != NULL && strchr(c, ',') < strchr(c, '\n') ? strchr(c, ',') + 1
                                                                       : strchr(c, '\n');
    }
    cr_assert_geq(col, 0, "%s", o.out);
    const char *line = strstr(o.out, "loan+lyra,");
    cr_assert_not_null(line, "%s", o.out);
    while (line > o.out && line[-1] != '\n')
        line--;
    for (int i = 0; i < col; i++)
        line = strchr(line, ',') + 1;
    cr_assert_float_eq(strtod(line, NULL), jct_lyra / jct_fifo, 1e-9, "%s", o.out);
    th_out_free(&o);
    /* --policy picks the combination by its label, with its tenant's policy */
    char *db2 = th_write("combo2.db", "");
    remove(db2);
    const char *one[] = { "run", exp, "--db", db2, "-q", "--policy", "loan+lyra", NULL };
    run_ok(one, "--policy loan+lyra");
    cr_assert_float_eq(th_db_metric(db2, 1, "training_jct_mean"), jct_lyra, 1e-9);
    free(exp);
    free(db);
    free(db2);
}

/* lend: "spare" lends every node serving can spare (keeping its target and one live pack),
 * whether or not training waits; "waiting" (the default) only while it does */
Test(colocate, loan_lends_what_is_spare_when_asked_to)
{
    struct errbuf err;
    err_clear(&err);
    double same[2] = { 0, 0 };
    int move[4];
    struct loan_params waiting = { 0.25, 0 }, spare = { 0.25, 1 };
    struct colo_view v = view(0, 0);
    cr_assert_eq(loan_plan(&v, &waiting, same, move, &err), 0);
    expect_moves(move, 0, 0, 0, 0);         /* nothing waits: nothing goes */
    cr_assert_eq(loan_plan(&v, &spare, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);         /* all but serving's last live node */
    v = view(120, 0);                       /* demand 120 (target 150 of 300) */
    cr_assert_eq(loan_plan(&v, &spare, same, move, &err), 0);
    expect_moves(move, 1, 0, 0, 0);
    /* a waiting job of 4 GPUs: "waiting" lends one node, "spare" still all it can */
    v = view(0, 4);
    cr_assert_eq(loan_plan(&v, &waiting, same, move, &err), 0);
    expect_moves(move, 1, 0, 0, 0);
    cr_assert_eq(loan_plan(&v, &spare, same, move, &err), 0);
    expect_moves(move, 1, 1, 0, 0);
}

/* Policies that keep their own picture of the cluster or size rounds by capacity (themis,
 * gavel_las, tiresias) as colocate_day's training tenant under loan, shortened to half a day
 * at a serving load that makes loan lend and reclaim: every run ends with both tenants' rows,
 * jobs ran on the loaned A100s or H100s, loan reclaimed, and each of the 56 GPUs is
 * held by one tenant at every moment. */
Test(colocate, colocate_day_runs_round_and_picture_keeping_training_policies, .timeout = 180)
{
    char *db = th_write("colo_tenants.db", "");
    remove(db);
    const char *args[] = {
        "run", "colocate_day", "--db", db, "-q",
        "--set", "policies=[{\"name\": \"loan\", \"label\": \"loan+themis\", "
                 "\"tenants\": {\"training\": \"themis\"}}, {\"name\": \"loan\", \"label\": "
                 "\"loan+gavel_las\", \"tenants\": {\"training\": \"gavel_las\"}}, "
                 "{\"name\": \"loan\", \"label\": \"loan+tiresias\", \"tenants\": "
                 "{\"training\": \"tiresias\"}}]",
        "--set", "sim.until_s=43200", "--set", "sim.timeline=true",
        "--set", "tenants.training.workload.jobs=80",
        "--set", "tenants.serving.workload.requests=400000",
        "--set", "tenants.serving.workload.rate_per_s=12", NULL };
    run_ok(args, "colocate_day with themis, gavel_las, tiresias");
    static const char *const labels[] = { "loan+themis", "loan+gavel_las", "loan+tiresias" };
    for (int run = 1; run <= 3; run++) {
        char q[512];
        snprintf(q, sizeof q, "SELECT count(*) FROM runs WHERE id = %d AND policy = '%s'", run,
                 labels[run - 1]);
        cr_assert_eq(th_db_value(db, q), 1, "run %d is not %s", run, labels[run - 1]);
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db, q), 400000, "%s", labels[run - 1]);
        snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db, q), 80, "%s", labels[run - 1]);
        cr_assert_gt(th_db_metric(db, run, "training_jobs_done"), 60, "%s", labels[run - 1]);
        cr_assert_gt(th_db_metric(db, run, "loans"), 0, "%s", labels[run - 1]);
        cr_assert_gt(th_db_metric(db, run, "reclaims"), 0, "%s", labels[run - 1]);
        snprintf(q, sizeof q, "SELECT count(*) FROM job_gpu_seconds WHERE run_id = %d AND "
                 "(gpu_type LIKE 'A100%%' OR gpu_type = 'H100')", run);
        cr_assert_gt(th_db_value(db, q), 0, "%s: no job ran on a loaned GPU", labels[run - 1]);
        snprintf(q, sizeof q, "SELECT sim_end_s FROM runs WHERE id = %d", run);
        th_holds_every_gpu_once(db, run, 56, th_db_value(db, q));
    }
    free(db);
}

/* --seed reaches the tenants: their workloads draw from it as from "seed" in the file (the
 * sweeps' seed axis), so `--seed 2` writes `--set seed=2`'s rows, not seed 1's. */
Test(colocate, the_seed_option_reaches_the_tenants, .timeout = 120)
{
    static const char *const rows[] = {
        "SELECT seed, sim_end_s, events FROM runs",
        "SELECT * FROM jobs ORDER BY job_id",
        "SELECT * FROM requests ORDER BY request_id",
        "SELECT * FROM metrics WHERE name NOT LIKE '%solver_time%' ORDER BY name",
        NULL,
    };
    static const char *const how[][2] = { { "--seed", "1" }, { "--seed", "2" },
                                          { "--set", "seed=2" } };
    char *dump[3];
    for (int k = 0; k < 3; k++) {
        char *db = th_write("colo_seed.db", "");
        remove(db);
        const char *args[] = { "run", "colocate_small", "--db", db, "-q", "--policy", "loan",
                               how[k][0], how[k][1],
                               "--set", "tenants.serving.workload.requests=600",
                               "--set", "tenants.training.workload.jobs=30", NULL };
        run_ok(args, how[k][1]);
        dump[k] = th_query_dump(db, rows);
        free(db);
    }
    cr_assert_str_eq(dump[1], dump[2], "--seed 2 and --set seed=2 differ");
    cr_assert_str_neq(dump[0], dump[1], "seeds 1 and 2 gave the same rows");
    for (int k = 0; k < 3; k++)
        free(dump[k]);
}
