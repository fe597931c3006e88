/*
 * test_colocate_micro: the microservice world on a shared engine (msim_attach / msim_finish,
 * sim/micro/msim.h) and as the colocate domain's third tenant (sim/colocate/world.c).
 *
 * On a shared engine: a micro run attached to an engine beside another client (attached
 * first, so the micro world's tag is not 0, and with events of its own interleaved with the
 * micro world's, and going on after the micro world is done) writes, through its writer,
 * exactly what msim_run writes alone — every row, sample and metric, in order, and the same
 * totals — in the requests mode under both truths, in the analytical mode, with the timeline,
 * and stopped by sim.until; and the other client runs to its end (the micro world leaving the
 * engine does not stop it).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/policy.h"
#include "../sim/base/path.h"
#include "../sim/core/engine.h"
#include "../sim/micro/micro_view.h"
#include "../sim/run/run.h"
#include "../workloads/workload.h"
#include "helpers.h"

/* ---- what a world writes, as lines of text (what the database would get) */
struct log {
    char  *s;
    size_t n, cap;
};

static void log_add(struct log *l, const char *line)
{
    size_t k = strlen(line);
    if (l->n + k + 2 > l->cap) {
        l->cap = 2 * (l->n + k + 2) + 4096;
        l->s = realloc(l->s, l->cap);
        cr_assert_not_null(l->s);
    }
    memcpy(l->s + l->n, line, k);
    l->n += k;
    l->s[l->n++] = '\n';
    l->s[l->n] = '\0';
}

static int log_row(void *ctx, const char *table, const char *const *cols,
                   const struct row_value *v, int n, struct errbuf *err)
{
    (void)err;
    char line[4096];
    size_t used = (size_t)snprintf(line, sizeof line, "row %s", table);
    for (int i = 0; i < n && used < sizeof line - 128; i++) {
        switch (v[i].type) {
        case ROW_INT:
            used += (size_t)snprintf(line + used, sizeof line - used, " %s=%lld", cols[i],
                                     (long long)v[i].v.i);
            break;
        case ROW_REAL:
            used += (size_t)snprintf(line + used, sizeof line - used, " %s=%.17g", cols[i],
                                     v[i].v.r);
            break;
        case ROW_TEXT:
            used += (size_t)snprintf(line + used, sizeof line - used, " %s='%.60s'", cols[i],
                                     v[i].v.s);
            break;
        default:
            used += (size_t)snprintf(line + used, sizeof line - used, " %s=NULL", cols[i]);
        }
    }
    log_add(ctx, line);
    return 0;
}

static int log_sample(void *ctx, simtime t, const char *name, double value, struct errbuf *err)
{
    (void)err;
    char line[256];
    snprintf(line, sizeof line, "sample %lld %s %.17g", (long long)t, name, value);
    log_add(ctx, line);
    return 0;
}

static int log_metric(void *ctx, const char *name, double value, struct errbuf *err)
{
    (void)err;
    char line[256];
    snprintf(line, sizeof line, "metric %s %.17g", name, value);
    log_add(ctx, line);
    return 0;
}

/* ---- a client that only has events of its own: one every `step` until `until` */
struct idle {
    engine  *e;
    uint32_t tag;
    simtime  step, until;
    int64_t  handled;
};

static int idle_handle(void *ctx, const struct evq_event *ev, struct errbuf *err)
{
    (void)ev;
    (void)err;
    struct idle *c = ctx;
    c->handled++;
    simtime next = engine_now(c->e) + c->step;
    if (next <= c->until && engine_at(c->e, next, 1 | c->tag, 0, NULL) < 0)
        return ENGINE_FAIL;
    return ENGINE_CONTINUE;
}

/* One micro run of experiment `name` with `sets`: alone (world_ops.run) or attached to an
 * engine after an idle client; what it writes into *log, its totals into *tot. */
static void micro_run(const char *name, const char *const *sets, int nsets, int shared,
                      struct log *log, struct world_totals *tot)
{
    struct errbuf err;
    err_clear(&err);
    struct experiment *e;
    struct run_env env = { 0 };
    cr_assert_eq(experiment_load(&e, name, (char *const *)sets, nsets, &err), 0, "%s", err.msg);
    cr_assert_eq(run_env_open(&env, e, &err), 0, "%s", err.msg);
    cr_assert_str_eq(e->domain, "micro");
    workload *wl;
    policy *p;
    struct workload_env wenv = { env.model, e->seed, e->base_dir };
    struct policy_env penv = { e->seed, env.cl, env.model, e->base_dir, 0 };
    cr_assert_eq(workload_open(&wl, &e->workload, &wenv, &err), 0, "%s", err.msg);
    cr_assert_eq(policy_open(&p, e->policies[0].name, &e->policies[0].params, &penv, &err), 0,
                 "%s", err.msg);
    struct world_writer out = { .ctx = log, .row = log_row, .sample = log_sample,
                                .metric = log_metric };
    struct world_env we = { .cl = env.cl, .model = env.model, .seed = e->seed, .sim = &e->sim,
                            .config = e->world_config, .source = workload_source(wl),
                            .decider = policy_decider(p), .out = &out };
    const struct world_ops *ops = e->world;
    void *w;
    cr_assert_eq(ops->create(&w, &we, &err), 0, "%s", err.msg);
    if (!shared) {
        cr_assert_eq(ops->run(w, tot, &err), 0, "%s", err.msg);
    } else {
        cr_assert_not_null(ops->attach);
        engine *eng = engine_create(16);
        struct idle c = { eng, 0, sim_from_sec(1.7), sim_from_sec(900), 0 };
        cr_assert_eq(engine_attach(eng, idle_handle, NULL, &c, &c.tag), 0);
        cr_assert_eq(engine_at(eng, 0, 1 | c.tag, 0, NULL), 0);
        cr_assert_eq(ops->attach(w, eng, &err), 0, "%s", err.msg);
        struct engine_limits lim = { SIM_NEVER, 0 };
        int stop = engine_advance(eng, &lim, &err);
        cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
        /* the micro world left the engine when done; the idle client ran to its end (0,
         * 1.7, ..., 898.3 s) */
        cr_assert_eq(c.handled, 530, "the idle client handled %lld events",
                     (long long)c.handled);
        cr_assert_eq(ops->finish(w, stop, tot, &err), 0, "%s", err.msg);
        engine_destroy(eng);
    }
    ops->destroy(w);
    policy_close(p);
    workload_close(wl);
    run_env_close(&env);
    experiment_free(e);
}

/* The end of a run as msim_finish writes it, once: every metric name once, and the
 * timeline's last rows (ended by 'stop', one per container then). */
static void finished_once(const struct log *l, const char *what)
{
    char names[64][64];
    int n = 0;
    for (const char *p = strstr(l->s, "metric "); p != NULL; p = strstr(p + 1, "\nmetric ")) {
        const char *at = p[0] == '\n' ? p + 8 : p + 7;
        char name[64];
        cr_assert_eq(sscanf(at, "%63s", name), 1);
        for (int i = 0; i < n; i++)
            cr_assert_str_neq(names[i], name, "%s: metric %s written twice", what, name);
        cr_assert_lt(n, 64);
        snprintf(names[n++], sizeof names[0], "%s", name);
    }
    cr_assert_geq(n, 12, "%s: %d metrics", what, n);
    cr_assert_not_null(strstr(l->s, "ends='stop'"), "%s: no timeline row ends the run", what);
}

static void same_alone_and_shared(const char *name, const char *const *sets, int nsets)
{
    struct log a = { 0 }, b = { 0 };
    struct world_totals ta, tb;
    micro_run(name, sets, nsets, 0, &a, &ta);
    micro_run(name, sets, nsets, 1, &b, &tb);
    cr_assert_gt(a.n, 0);
    finished_once(&a, sets[nsets - 1]);
    /* line by line, the first difference named */
    const char *p = a.s, *q = b.s;
    for (int line = 1; *p || *q; line++) {
        const char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
        size_t pl = pe ? (size_t)(pe - p) : strlen(p), ql = qe ? (size_t)(qe - q) : strlen(q);
        cr_assert(pl == ql && memcmp(p, q, pl) == 0, "%s %s: line %d differs:\n alone:  %.*s\n "
                  "shared: %.*s", name, sets[nsets - 1], line, (int)pl, p, (int)ql, q);
        p += pl + (pe != NULL);
        q += ql + (qe != NULL);
    }
    cr_assert_eq(tb.end, ta.end);
    cr_assert_eq(tb.events, ta.events, "%s: %llu events shared, %llu alone", sets[nsets - 1],
                 (unsigned long long)tb.events, (unsigned long long)ta.events);
    cr_assert_eq(tb.decisions, ta.decisions);
    cr_assert_eq(tb.entities_in, ta.entities_in);
    cr_assert_eq(tb.entities_done, ta.entities_done);
    cr_assert_eq(tb.stop, ta.stop);
    free(a.s);
    free(b.s);
}

Test(colocate_micro, shared_engine_writes_what_alone_writes, .timeout = 180)
{
    static const char *const base[] = { "workload.duration_s=150", "sim.timeline=true",
                                        "sim.sample_s=30", "policies=[\"erms\"]" };
    static const char *const extra[][2] = {
        { "mode=requests", "truth=queueing" },
        { "mode=requests", "truth=fit" },
        { "mode=analytical", "sim.interval_s=30" },
        { "truth=queueing", "sim.until_s=100" },
        { "truth=fit", "sim.until_s=100" },
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        const char *sets[6];
        memcpy(sets, base, sizeof base);
        sets[4] = extra[i][0];
        sets[5] = extra[i][1];
        same_alone_and_shared("socialnet", sets, 6);
    }
}

/* ---- the microservices tenant of a colocate run, end to end through the CLI and the
 * database: in a run with all three tenants, the microservice tenant's metrics, series and
 * request rows are exactly those of the same section run alone as a micro experiment on the
 * cluster's CPU groups with the same seed (it shares the clock, not a resource: nothing of
 * the others may change it), and serving's, training's and the broker's are exactly those of
 * the same colocate run without it, under a broker that lends (loan) and one that does not. */

#define CM_CPU "{ \"name\": \"cpu\", \"count\": 2, \"cpus\": 32, \"memory_gb\": 128 }"
#define CM_GPU "{ \"name\": \"a100\", \"count\": 3, \"gpu\": \"A100-80GB\", \"gpus_per_node\": " \
    "4, \"intra\": \"nvswitch\" }, { \"name\": \"v100\", \"count\": 2, \"gpu\": \"V100\", "      \
    "\"gpus_per_node\": 4 }"
/* the micro section's fields (its app's path after it) */
#define CM_MICRO_FIELDS "\"sla_ms\": 100, \"workload\": { \"format\": \"micro_poisson\", "       \
    "\"duration_s\": 600, \"rate_per_s\": 100, \"rate_shape\": [0.6, 0.8, 1.0, 0.9, 0.7], "       \
    "\"mix\": { \"read_home_timeline\": 0.55, \"read_user_timeline\": 0.27, \"compose_post\": "   \
    "0.1, \"follow\": 0.02, \"unfollow\": 0.01, \"register\": 0.02, \"login\": 0.03 }, "          \
    "\"mix_change\": { \"every_s\": 200, \"concentration\": 30, \"step_s\": 60 } }, "             \
    "\"policies\": [\"erms\"], \"sim\": { \"interval_s\": 60, \"startup_s\": 5, "            \
    "\"sample_s\": 60, \"request_sample\": 0.05 }, \"app\": "

/* A colocate experiment on the GPU groups and the CPU group, with the microservices tenant
 * or without (caller frees the path). */
static char *colo_file(const char *name, int with_micro)
{
    char text[8192], micro[3072] = "";
    if (with_micro)
        snprintf(micro, sizeof micro, ",\n  \"microservices\": { " CM_MICRO_FIELDS
                 "\"%s/workloads/micro/socialnet.json\" }", path_data_root());
    snprintf(text, sizeof text,
             "{ \"name\": \"cm\", \"domain\": \"colocate\", \"seed\": 3,\n"
             " \"cluster\": { \"name\": \"colo_micro\", \"network\": \"ib-100g\", \"groups\": "
             "[ " CM_GPU ", " CM_CPU " ] },\n"
             " \"serving_groups\": [\"a100\"], \"broker\": { \"period_s\": 120 },\n"
             " \"tenants\": {\n"
             "  \"serving\": { \"model\": \"llama-2-7b\", \"slo\": { \"ttft_s\": 2 }, "
             "\"workload\": { \"format\": \"llm_synthetic\", \"requests\": 600, \"rate_per_s\": "
             "1 }, \"policies\": [\"highend_only\"], \"sim\": { \"overlong\": \"truncate\" } },\n"
             "  \"training\": { \"workload\": { \"format\": \"synthetic\", \"jobs\": 30, "
             "\"rate_per_hour\": 40, \"reference_gpu\": \"V100\", \"workers\": { \"1\": 0.5, "
             "\"2\": 0.2, \"4\": 0.3 }, \"duration\": { \"dist\": \"lognormal\", \"median_s\": "
             "1800, \"sigma\": 1, \"clamp_min_s\": 60, \"clamp_max_s\": 20000 }, \"job_types\": "
             "{ \"ResNet-50 (batch size 64)\": 1, \"Transformer (batch size 64)\": 1 } }, "
             "\"policies\": [\"fifo\"] }%s\n"
             " },\n"
             " \"policies\": [\"static\", \"loan\"], \"sim\": { \"sample_s\": 600 } }\n", micro);
    return th_write(name, text);
}

/* The micro section alone: a micro experiment on the CPU group, the same seed. */
static char *micro_file(const char *name)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{ \"name\": \"cm_alone\", \"domain\": \"micro\", \"seed\": 3,\n"
             " \"cluster\": { \"name\": \"colo_micro\", \"groups\": [ " CM_CPU " ] },\n "
             CM_MICRO_FIELDS "\"%s/workloads/micro/socialnet.json\" }\n", path_data_root());
    return th_write(name, text);
}

static char *run_file(const char *exp, const char *dbname)
{
    char *path = th_write(dbname, "");
    remove(path);
    const char *args[] = { "run", exp, "--db", path, "-q", NULL };
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s: %s", exp, o.err);
    th_out_free(&o);
    return path;
}

/* Query q (one %d: the run) on db's run `run`, as text; caller frees. */
static char *dump(const char *path, const char *q, int run)
{
    char sql[1024];
    snprintf(sql, sizeof sql, q, run);
    const char *qs[] = { sql, NULL };
    return th_query_dump(path, qs);
}

static void same_dump(const char *db1, const char *q1, int run1, const char *db2,
                      const char *q2, int run2, const char *what)
{
    char *a = dump(db1, q1, run1), *b = dump(db2, q2, run2);
    cr_assert(strlen(a) > 2, "%s: nothing to compare", what);
    cr_assert_str_eq(a, b, "%s differ (run %d):\n%.2000s\n --- \n%.2000s", what, run1, a, b);
    free(a);
    free(b);
}

Test(colocate_micro, the_microservice_tenant_and_the_others_run_as_without_each_other,
     .timeout = 240)
{
    char *f3 = colo_file("cm3.json", 1), *f2 = colo_file("cm2.json", 0);
    char *fm = micro_file("cm_alone.json");
    char *db3 = run_file(f3, "cm3.db"), *db2 = run_file(f2, "cm2.db");
    char *dbm = run_file(fm, "cm_alone.db");
    cr_assert_eq(th_db_value(db3, "SELECT count(*) FROM runs"), 2);
    cr_assert_eq(th_db_value(dbm, "SELECT count(*) FROM runs"), 1);
    for (int run = 1; run <= 2; run++) {
        char q[256];
        /* every tenant's rows: serving's requests, training's jobs, the micro requests */
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d AND in_tokens IS "
                 "NOT NULL", run);
        cr_assert_eq(th_db_value(db3, q), 600);
        snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE run_id = %d", run);
        cr_assert_eq(th_db_value(db3, q), 30);
        snprintf(q, sizeof q, "SELECT count(*) FROM requests WHERE run_id = %d AND in_tokens IS "
                 "NULL", run);
        cr_assert_gt(th_db_value(db3, q), 1000);
        /* the microservice tenant: its metrics under its name, each the alone run's */
        same_dump(db3, "SELECT substr(name, 15), value FROM metrics WHERE run_id = %d AND name "
                       "LIKE 'microservices\\_%%' ESCAPE '\\' ORDER BY name", run,
                  dbm, "SELECT name, value FROM metrics WHERE run_id = %d AND name NOT LIKE "
                       "'solver\\_time\\_%%' ESCAPE '\\' ORDER BY name", 1,
                  "the microservice tenant's metrics and the alone run's");
        same_dump(db3, "SELECT substr(name, 15), t_s, value FROM samples WHERE run_id = %d AND "
                       "name LIKE 'microservices\\_%%' ESCAPE '\\' ORDER BY name, t_s", run,
                  dbm, "SELECT name, t_s, value FROM samples WHERE run_id = %d ORDER BY name, "
                       "t_s", 1, "the microservice tenant's series and the alone run's");
        same_dump(db3, "SELECT request_id, class, arrival_s, finish_s, sla_met FROM requests "
                       "WHERE run_id = %d AND in_tokens IS NULL ORDER BY request_id, class", run,
                  dbm, "SELECT request_id, class, arrival_s, finish_s, sla_met FROM requests "
                       "WHERE run_id = %d ORDER BY request_id, class", 1,
                  "the microservice tenant's requests and the alone run's");
        /* serving, training and the broker: as without the microservice tenant */
        same_dump(db3, "SELECT name, value FROM metrics WHERE run_id = %d AND name NOT LIKE "
                       "'microservices\\_%%' ESCAPE '\\' AND name NOT LIKE '%%solver\\_time%%' "
                       "ESCAPE '\\' ORDER BY name", run,
                  db2, "SELECT name, value FROM metrics WHERE run_id = %d AND name NOT LIKE "
                       "'%%solver\\_time%%' ESCAPE '\\' ORDER BY name", run,
                  "serving's, training's and the broker's metrics with and without the "
                  "microservice tenant");
        same_dump(db3, "SELECT request_id, arrival_s, first_s, finish_s FROM requests WHERE "
                       "run_id = %d AND in_tokens IS NOT NULL ORDER BY request_id", run,
                  db2, "SELECT request_id, arrival_s, first_s, finish_s FROM requests WHERE "
                       "run_id = %d ORDER BY request_id", run, "serving's requests");
        same_dump(db3, "SELECT job_id, first_start_s, finish_s FROM jobs WHERE run_id = %d "
                       "ORDER BY job_id", run,
                  db2, "SELECT job_id, first_start_s, finish_s FROM jobs WHERE run_id = %d "
                       "ORDER BY job_id", run, "training's jobs");
        same_dump(db3, "SELECT sim_end_s FROM runs WHERE id = %d", run,
                  db2, "SELECT sim_end_s FROM runs WHERE id = %d", run, "the runs' ends");
    }
    /* loan lends here, so the comparison covers a broker that moves nodes */
    cr_assert_gt(th_db_value(db3, "SELECT value FROM metrics WHERE run_id = 2 AND name = "
                                  "'loans'"), 0);
    cr_assert_gt(th_db_value(db3, "SELECT value FROM metrics WHERE run_id = 1 AND name = "
                                  "'microservices_containers_mean'"), 0);
    free(f3);
    free(f2);
    free(fm);
    free(db3);
    free(db2);
    free(dbm);
}

/* ---- the host parts of GPU nodes (cluster "host_cpus", "host_memory_gb"): nodes the micro
 * tenant may lose.  A micro world on two CPU nodes of 4 cores and 32 GB, 20 containers each
 * (every socialnet container takes 0.2 cores and 1 GB): a CPU group's node and a GPU
 * server's host part (cluster_cpu_part).  Under 500 requests/s Erms wants more than the 40
 * containers both hold, so every decision is capped at 40; the host node taken at 150 s (mid
 * interval) leaves room for 20, so 40 - 20 = 20 containers are evicted at once, by hand; no
 * interval end until it is given back (330 s) shows more than 20; after, the next decisions
 * grow into it again.  The policy is told the cores the tenant holds at each decision (8, 4
 * while the node is taken, 8), and a node given back that is not taken is refused. */

struct mover {
    engine          *e;
    uint32_t         tag;
    const struct world_ops *ops;
    void            *w;
    int64_t          evicted;
    int              takes, gives;
};

static int mover_handle(void *ctx, const struct evq_event *ev, struct errbuf *err)
{
    struct mover *c = ctx;
    int node = 1;               /* the host part: after the CPU group's node */
    if ((ev->kind & ENGINE_KIND_MASK) == 1) {
        int rc = c->ops->take(c->w, &node, 1, &c->evicted, err);
        cr_assert_eq(rc, 1, "take: %s", err->msg);
        c->takes++;
    } else {
        cr_assert_eq(c->ops->give(c->w, &node, 1, err), 0, "give: %s", err->msg);
        c->gives++;
    }
    return ENGINE_CONTINUE;
}

/* The policy's decider, with the capacity each decision saw (micro_view.capacity_cpus) kept
 * by the interval it starts. */
struct cap_watch {
    struct micro_decider        d;
    const struct micro_decider *inner;
    double                      cpus[32];
};

static int cap_watch_decide(void *ctx, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct cap_watch *c = ctx;
    if (v->interval >= 0 && v->interval < 32)
        c->cpus[v->interval] = v->capacity_cpus;
    return c->inner->decide(c->inner->ctx, v, out, err);
}

/* The value of "sample <t> <name> v" in the log, NAN if absent. */
static double log_sample_at(const struct log *l, double t_s, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "sample %lld %s ", (long long)sim_from_sec(t_s), name);
    const char *p = strstr(l->s, key);
    return p != NULL ? strtod(p + strlen(key), NULL) : NAN;
}

Test(colocate_micro, a_taken_host_node_evicts_what_no_longer_fits, .timeout = 120)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{ \"name\": \"host\", \"domain\": \"micro\", \"seed\": 2,\n"
             " \"cluster\": { \"name\": \"h\", \"network\": \"ib-100g\", \"groups\": [\n"
             "  { \"name\": \"cpu\", \"count\": 1, \"cpus\": 4, \"memory_gb\": 32 },\n"
             "  { \"name\": \"a100\", \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 4, "
             "\"host_cpus\": 4, \"host_memory_gb\": 32 } ] },\n"
             " \"app\": \"%s/workloads/micro/socialnet.json\", \"sla_ms\": 100, \"mode\": "
             "\"analytical\",\n"
             " \"workload\": { \"format\": \"micro_poisson\", \"duration_s\": 600, "
             "\"rate_per_s\": 500 },\n"
             " \"policies\": [\"erms\"], \"sim\": { \"interval_s\": 60, \"startup_s\": 5, "
             "\"sample_s\": 60 } }\n", path_data_root());
    char *file = th_write("host_take.json", text);
    struct errbuf err;
    err_clear(&err);
    struct experiment *e;
    struct run_env env = { 0 };
    cr_assert_eq(experiment_load(&e, file, NULL, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(run_env_open(&env, e, &err), 0, "%s", err.msg);
    cluster *part;
    cr_assert_eq(cluster_cpu_part(&part, env.cl, &err), 0, "%s", err.msg);
    cr_assert_eq(cluster_ncpu_groups(part), 2);
    cr_assert_eq(cluster_cpu_group(part, 0)->gpu_node, -1);
    cr_assert_eq(cluster_cpu_group(part, 1)->gpu_node, 0);
    workload *wl;
    policy *p;
    struct workload_env wenv = { env.model, e->seed, e->base_dir };
    struct policy_env penv = { e->seed, part, env.model, e->base_dir, 0 };
    cr_assert_eq(workload_open(&wl, &e->workload, &wenv, &err), 0, "%s", err.msg);
    cr_assert_eq(policy_open(&p, e->policies[0].name, &e->policies[0].params, &penv, &err), 0,
                 "%s", err.msg);
    struct log log = { 0 };
    struct world_writer out = { .ctx = &log, .row = log_row, .sample = log_sample,
                                .metric = log_metric };
    struct cap_watch watch = { .inner = policy_decider(p) };
    watch.d = *watch.inner;
    watch.d.ctx = &watch;
    watch.d.decide = cap_watch_decide;
    struct world_env we = { .cl = part, .model = env.model, .seed = e->seed, .sim = &e->sim,
                            .config = e->world_config, .source = workload_source(wl),
                            .decider = &watch.d, .out = &out };
    const struct world_ops *ops = e->world;
    void *w;
    cr_assert_eq(ops->create(&w, &we, &err), 0, "%s", err.msg);
    engine *eng = engine_create(16);
    struct mover c = { .e = eng, .ops = ops, .w = w };
    cr_assert_eq(engine_attach(eng, mover_handle, NULL, &c, &c.tag), 0);
    cr_assert_eq(ops->attach(w, eng, &err), 0, "%s", err.msg);
    cr_assert_eq(engine_at(eng, sim_from_sec(150), 1 | c.tag, 0, NULL), 0);
    cr_assert_eq(engine_at(eng, sim_from_sec(330), 2 | c.tag, 0, NULL), 0);
    struct engine_limits lim = { SIM_NEVER, 0 };
    int stop = engine_advance(eng, &lim, &err);
    cr_assert_eq(stop, ENGINE_DRAINED, "%s", err.msg);
    struct world_totals tot;
    cr_assert_eq(ops->finish(w, stop, &tot, &err), 0, "%s", err.msg);
    cr_assert_eq(c.takes, 1);
    cr_assert_eq(c.gives, 1);
    /* before the take: both nodes full (capped at 40) */
    cr_assert_eq(log_sample_at(&log, 60, "containers_total"), 40, "%s", log.s);
    cr_assert_eq(log_sample_at(&log, 120, "containers_total"), 40);
    /* the take: 40 held, 20 fit */
    cr_assert_eq(c.evicted, 20, "%lld evicted", (long long)c.evicted);
    cr_assert_not_null(strstr(log.s, "metric evictions 20\n"), "%s", log.s);
    for (double t = 180; t <= 330; t += 60)
        cr_assert_leq(log_sample_at(&log, t, "containers_total"), 20, "at %g s", t);
    /* given back: the decisions after 330 s grow into it */
    cr_assert_eq(log_sample_at(&log, 420, "containers_total"), 40);
    /* the capacity the policy is told: both nodes' 8 cores, 4 while one is taken (the
     * decisions at 180, 240 and 300 s), 8 again once it is given back */
    for (int i = 0; i < 10; i++)
        cr_assert_eq(watch.cpus[i], i >= 3 && i <= 5 ? 4 : 8, "the decision at %d s saw %g "
                     "cores", 60 * i, watch.cpus[i]);
    /* a node given back that is not taken (the host node, given already; the CPU group's) is
     * refused */
    for (int node = 0; node < 2; node++) {
        err_clear(&err);
        cr_assert_lt(ops->give(w, &node, 1, &err), 0, "node %d given twice", node);
        cr_assert_not_null(strstr(err.msg, "given back, not taken"), "%s", err.msg);
    }
    ops->destroy(w);
    engine_destroy(eng);
    policy_close(p);
    workload_close(wl);
    cluster_destroy(part);
    run_env_close(&env);
    experiment_free(e);
    free(log.s);
    free(file);
}

/* ---- the host cores end to end (workloads/experiments/colocate_host.json), through the
 * CLI and the database: each A100 server (serving's) leaves 2 cores and 16 GB, 10 containers
 * of 0.2 cores and 1 GB, to the microservices beside their one 4-core node (20), 50 in all.
 * Under static serving keeps its three servers, so the tenant's allocation reaches the 50 the
 * host cores make possible (more than its CPU node's 20) and nothing is evicted; under loan,
 * servers lent to training take their host cores away: containers are evicted, and its
 * containers and SLA figures differ from static's.  Either way every GPU is held by one
 * tenant at every moment: the timeline's holdings of a GPU never overlap and cover the run,
 * and the GPU-hours held add up to the cluster's 20 GPUs times the run. */
/* Metric `name` of the run of policy `pol` in db. */
static double policy_metric(const char *db_path, const char *pol, const char *name)
{
    char q[512];
    snprintf(q, sizeof q, "SELECT m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE "
             "r.policy = '%s' AND m.name = '%s'", pol, name);
    return th_db_value(db_path, q);
}

Test(colocate_micro, host_cores_are_lost_to_loans_and_kept_under_static, .timeout = 120)
{
    const char *args[] = { "run", "colocate_host", "--set", "sim.timeline=true", "--db",
                           NULL, "-q", NULL };
    char *hdb = th_write("host.db", "");
    remove(hdb);
    args[5] = hdb;
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char q[512];
#define HOST_METRIC(pol, name) policy_metric(hdb, pol, name)
    cr_assert_eq(HOST_METRIC("static", "loans"), 0);
    cr_assert_eq(HOST_METRIC("static", "microservices_evictions"), 0);
    cr_assert_eq(HOST_METRIC("static", "microservices_containers_max"), 50);
    cr_assert_gt(HOST_METRIC("loan", "loans"), 0);
    double ev = HOST_METRIC("loan", "microservices_evictions");
    cr_assert_gt(ev, 0);
    /* no more than the host cores of the servers lent: 10 containers each */
    cr_assert_leq(ev, 10 * HOST_METRIC("loan", "loans"));
    cr_assert_leq(HOST_METRIC("loan", "microservices_containers_max"), 50);
    static const char *const differ[] = { "microservices_containers_mean",
                                          "microservices_sla_violation_prob",
                                          "microservices_e2e_p95" };
    for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++)
        cr_assert_neq(HOST_METRIC("static", differ[i]), HOST_METRIC("loan", differ[i]), "%s",
                      differ[i]);
    cr_assert_lt(HOST_METRIC("loan", "microservices_containers_mean"),
                 HOST_METRIC("static", "microservices_containers_mean"));
#undef HOST_METRIC
    for (int run = 1; run <= 2; run++) {
        double end;
        snprintf(q, sizeof q, "SELECT sim_end_s FROM runs WHERE id = %d", run);
        end = th_db_value(hdb, q);
        cr_assert_gt(end, 0);
        snprintf(q, sizeof q, "SELECT count(*) FROM timeline a JOIN timeline b ON a.run_id = "
                 "b.run_id AND a.resource = b.resource AND a.rowid < b.rowid AND a.start_s < "
                 "b.end_s AND b.start_s < a.end_s WHERE a.run_id = %d", run);
        cr_assert_eq(th_db_value(hdb, q), 0, "run %d: a GPU held twice at once", run);
        snprintf(q, sizeof q, "SELECT sum(end_s - start_s) FROM timeline WHERE run_id = %d",
                 run);
        cr_assert_float_eq(th_db_value(hdb, q), 20 * end, 1e-6 * end, "run %d", run);
        snprintf(q, sizeof q, "SELECT sum(value) FROM metrics WHERE run_id = %d AND name IN "
                 "('gpu_hours_serving', 'gpu_hours_training')", run);
        cr_assert_float_eq(th_db_value(hdb, q), 20 * end / 3600, 1e-9 * end, "run %d", run);
    }
    free(hdb);
}

/* ---- the host cores given back at a reclaim, end to end through the CLI and the database:
 * colocate_host under loan with serving's load stepping up (a rates file: 0.04 of the day's mean
 * for the first 0.15 h, 9 minutes, then 1; 50 requests/s on average, so about 2/s, then 50/s) and
 * the microservices at a steady 300 requests/s for 1,200 s, for which Erms wants 48-49 containers
 * (static's allocation), more than the CPU node's 20 or the 30 left while two servers are lent.
 * Serving, idle first, has two A100 servers lent (training has jobs waiting from 360 s), and the
 * microservices lose their host cores, containers evicted; at 540 s serving's load rises and the
 * broker takes both back, so the host cores come back while the microservices still want them.
 * Capacity by hand: the CPU node's 4 cores hold 20 containers of 0.2 cores (its 32 GB, 32 of 1 GB),
 * each A100 server's 2 cores and 16 GB 10; so with n A100 servers serving's the tenant holds at
 * most 20 + 10 n containers.  From the database: (a) loans, reclaims and evictions; (b) no sampled
 * allocation above 20 + 10 n, n read from the timeline's serving rows (a row's ends both count: at
 * a loan's instant the interval's sample may precede the eviction); before the last reclaim serving
 * held 2 servers (40 containers), after it some sample exceeds 40 — the host part given back was
 * used, and the end-to-end P95, past the 100 ms SLA while the servers were lent, is under it again
 * by the end; (c) every GPU held by exactly one tenant at every moment. */
Test(colocate_micro, host_cores_come_back_at_a_reclaim, .timeout = 120)
{
    char *rates = th_write("reclaim_rates.csv", "hour,rate\n0,0.04\n0.15,1\n");
    char serving[512];
    snprintf(serving, sizeof serving, "tenants.serving.workload={\"format\": \"llm_synthetic\", "
             "\"requests\": 40000, \"rate_per_s\": 50, \"day\": {\"rates_file\": \"%s\"}}",
             rates);
    char *rdb = th_write("reclaim.db", "");
    remove(rdb);
    const char *args[] = { "run", "colocate_host", "--policy", "loan", "--set",
                           "sim.timeline=true", "--set", serving, "--set",
                           "tenants.microservices.workload.duration_s=1200", "--set",
                           "tenants.microservices.workload.rate_shape=[1]", "--db", rdb, "-q",
                           NULL };
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(rdb, "SELECT count(*) FROM runs"), 1);
    /* (a) */
    cr_assert_gt(th_db_metric(rdb, 1, "loans"), 0);
    cr_assert_gt(th_db_metric(rdb, 1, "reclaims"), 0);
    cr_assert_gt(th_db_metric(rdb, 1, "microservices_evictions"), 0);
    /* the reclaims: serving's timeline rows that a preemption began (the A100 servers are
     * nodes 0-2), the last one before the microservices' run ended */
    double first = th_db_value(rdb, "SELECT min(start_s) FROM timeline WHERE entity = 0 AND "
                                   "cause = 'preempt'");
    double last = th_db_value(rdb, "SELECT max(start_s) FROM timeline WHERE entity = 0 AND "
                                  "cause = 'preempt'");
    double micro_end = th_db_value(rdb, "SELECT max(t_s) FROM samples WHERE name = "
                                       "'microservices_containers_total'");
    cr_assert(first > 0 && last >= first, "reclaims at %g .. %g s", first, last);
    cr_assert_lt(last, micro_end, "the last reclaim at %g s, after the microservices' run "
                 "(%g s)", last, micro_end);
    /* (b) never more than the nodes held could hold */
    char q[1024];
#define HELD_AT(t, lo, hi) "(SELECT count(DISTINCT node) FROM timeline WHERE entity = 0 AND " \
    "node < 3 AND start_s " lo " " t " AND end_s " hi " " t ")"
    snprintf(q, sizeof q, "SELECT count(*) FROM samples s WHERE name = "
             "'microservices_containers_total' AND value > 20 + 10 * " HELD_AT("s.t_s", "<=",
             ">="));
    cr_assert_eq(th_db_value(rdb, q), 0, "a sample holds more containers than fit");
    /* ... while the servers were lent, the allocation was down to what was left */
    snprintf(q, sizeof q, "SELECT max(value) FROM samples s WHERE name = "
             "'microservices_containers_total' AND t_s > (SELECT min(start_s) FROM timeline "
             "WHERE entity = 1 AND node < 3) AND t_s < %.17g", first);
    cr_assert_leq(th_db_value(rdb, q), 30);
    /* ... and after the last reclaim it grew beyond what the servers held before it */
    snprintf(q, sizeof q, "SELECT " HELD_AT("%.17g", "<", ">="), last, last);
    cr_assert_eq(th_db_value(rdb, q), 2, "serving's A100 servers just before %g s", last);
    snprintf(q, sizeof q, "SELECT max(value) FROM samples WHERE name = "
             "'microservices_containers_total' AND t_s > %.17g", last);
    double after = th_db_value(rdb, q);
    cr_assert_gt(after, 20 + 10 * 2, "%g containers after the last reclaim (%g s)", after,
                 last);
    cr_assert_leq(after, 50);
#undef HELD_AT
    /* what it does for them: while lent, 30 containers cannot keep up with 300 requests/s
     * and the intervals' P95 passes the 100 ms SLA; after the reclaims the backlog drains and
     * the last interval's is under it again */
    snprintf(q, sizeof q, "SELECT max(value) FROM samples WHERE name = 'microservices_e2e_q' "
             "AND t_s <= %.17g", first);
    cr_assert_gt(th_db_value(rdb, q), 0.1);
    double q_end = th_db_value(rdb, "SELECT value FROM samples WHERE name = "
                                    "'microservices_e2e_q' ORDER BY t_s DESC LIMIT 1");
    cr_assert_lt(q_end, 0.1, "the last interval's P95 %g s", q_end);
    /* (c) */
    th_holds_every_gpu_once(rdb, 1, 20, th_db_value(rdb, "SELECT sim_end_s FROM runs"));
    free(rdb);
    free(rates);
}
