/*
 * test_pollux: the Pollux-compatible world (sim/train/pollux.c) and its policies
 * (sched/elastic/) — step by step on hand-computed cases driven by a scripted policy (the
 * tick a job is first seen, the restart penalty on every change of its GPU list and never on
 * an unchanged one, attained service during the penalty, progress at 1 / step time when the
 * batch is the initial one, rounding at an epoch boundary, preemption), a lone job against
 * Pollux's own result, the policies' properties at every tick of workload-1 (no node over
 * its GPUs, Tiresias's exact counts, Optimus's counts within [0, cap], lists grouped by node,
 * kept lists unchanged), the most-free placement against brute force, and end to end through
 * the CLI: the calibration against Pollux's simulator (average JCT within 1% and every job's
 * JCT), determinism, a Sia workload through --set workload.trace, the workload listing
 * read back, and a time limit.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/elastic.h"
#include "../sched/policy.h"
#include "../sim/base/path.h"
#include "../sim/core/engine.h"
#include "../sim/train/pollux.h"
#include "helpers.h"

static catalog *cat;
static elastic *apps;
static cluster *two4;           /* 2 nodes x 4 T4 */
static cluster *wl1;            /* Pollux's 16 x 4 T4 */

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char p[PATH_MAX_LEN];
    cr_assert_eq(path_resolve(p, sizeof p, NULL, "models/data/pollux/applications.json"), 0);
    cr_assert_eq(elastic_load(&apps, cat, p, &err), 0, "%s", err.msg);
    two4 = th_cluster(cat, "{\"network\": \"ethernet-25g\", \"groups\": [{\"count\": 2, "
                           "\"gpu\": \"T4\", \"gpus_per_node\": 4}]}");
    wl1 = th_cluster(cat, "{\"network\": \"ethernet-25g\", \"groups\": [{\"count\": 16, "
                          "\"gpu\": \"T4\", \"gpus_per_node\": 4}]}");
}

static void teardown(void)
{
    cluster_destroy(two4);
    cluster_destroy(wl1);
    elastic_destroy(apps);
    catalog_destroy(cat);
}

TestSuite(pollux, .init = setup, .fini = teardown);

/* ---- jobs from an array ---- */

struct src { const struct job_spec *j; int n, next; };
static int next_job(void *ctx, void *spec, struct errbuf *err)
{
    (void)err;
    struct src *s = ctx;
    if (s->next == s->n)
        return 0;
    *(struct job_spec *)spec = s->j[s->next++];
    return 1;
}

static struct job_spec ejob(int id, const char *name, const char *app, double at, int r, int b)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at), .jtype = -1, .workers = r,
                              .min_workers = 1, .max_workers = r, .batch = b, .weight = 1,
                              .app = app, .name = name };
}

struct rec { long long id; double finish, first, attained; int preemptions, migrations; };
struct recs { struct rec r[256]; int n; };
static int keep(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct recs *s = ctx;
    cr_assert_lt(s->n, 256);
    s->r[s->n++] = (struct rec){ r->trace_id, r->finish >= 0 ? sim_to_sec(r->finish) : -1,
                                 r->job->first_start >= 0 ? sim_to_sec(r->job->first_start) : -1,
                                 r->job->attained, r->job->preemptions, r->job->migrations };
    return 0;
}

static const struct rec *get(const struct recs *s, long long id)
{
    for (int i = 0; i < s->n; i++)
        if (s->r[i].id == id)
            return &s->r[i];
    cr_assert_fail("job %lld not reported", id);
    return NULL;
}

/* ---- a scripted policy: call k gives job 0 the list script[k] (-1 ends a list) ---- */

enum { MAXCALLS = 16 };
struct seen { double now; int njobs; double attained, progress, age; int epoch, restarts, nalloc; };
struct script {
    int32_t lists[MAXCALLS][8];
    int     ncalls;
    struct seen seen[MAXCALLS];
    double  first_now[8];       /* the first call each job id appeared in */
};

static int scripted(void *ctx, const struct elastic_view *v, struct elastic_alloc *out,
                    struct errbuf *err)
{
    (void)err;
    struct script *s = ctx;
    int k = s->ncalls < MAXCALLS ? s->ncalls : MAXCALLS - 1;
    for (int i = 0; i < v->njobs; i++)
        if (v->jobs[i].id < 8 && s->first_now[v->jobs[i].id] < 0)
            s->first_now[v->jobs[i].id] = v->now_s;
    const struct elastic_job *j = &v->jobs[0];
    s->seen[k] = (struct seen){ v->now_s, v->njobs, j->attained_s, j->progress, j->age_s,
                                j->epoch, j->restarts, j->nalloc };
    s->ncalls++;
    cr_assert_eq(elastic_alloc_begin(out, (size_t)v->njobs), 0);
    int n = 0;
    while (n < 8 && s->lists[k][n] >= 0)
        n++;
    for (int i = 0; i < v->njobs; i++)
        cr_assert_eq(elastic_alloc_set(out, (size_t)i, i == 0 ? s->lists[k] : NULL,
                                       i == 0 ? (size_t)n : 0), 0);
    return 0;
}

static struct train_totals run_scripted(const cluster *cl, struct job_spec *jobs, int n,
                                        struct script *s, uint64_t max_ticks, struct recs *r)
{
    struct errbuf err;
    err_clear(&err);
    for (int i = 0; i < 8; i++)
        s->first_now[i] = -1;
    struct src src = { jobs, n, 0 };
    struct entity_source es = { &src, next_job };
    struct train_decider dec = { .ctx = s, .elastic = scripted };
    struct pollux_config pc = { .tick = sim_from_sec(60), .restart_s = 30, .until = SIM_NEVER,
                                .max_events = max_ticks };
    struct train_sink sink = { .ctx = r, .job = keep };
    struct train_totals t;
    cr_assert_eq(pollux_run(cl, apps, &pc, &es, &dec, &sink, &t, &err), 0, "%s", err.msg);
    return t;
}

static const elastic_app *app(const char *name)
{
    return elastic_get(apps, elastic_find(apps, name), catalog_gpu_find(cat, "T4"));
}

/* seconds of one step of `a` on this placement at this local batch */
static double step_of(const elastic_app *a, int *place, int n, int local)
{
    struct errbuf err;
    double step, sync;
    cr_assert_eq(elastic_step_time(a, place, n, local, &step, &sync, &err), 0, "%s", err.msg);
    return step;
}

Test(pollux, a_job_is_first_seen_at_the_tick_at_or_after_its_submission)
{
    struct job_spec jobs[] = { ejob(0, "a", "cifar10", 0, 1, 128),
                               ejob(1, "b", "cifar10", 59.5, 1, 128),
                               ejob(2, "c", "cifar10", 60, 1, 128),
                               ejob(3, "d", "cifar10", 61, 1, 128),
                               ejob(4, "e", "cifar10", 1000, 1, 128) };
    struct script s = { .lists = { { -1 }, { -1 }, { -1 }, { -1 }, { -1 }, { -1 }, { -1 },
                                   { -1 }, { -1 }, { -1 }, { -1 }, { -1 }, { -1 }, { -1 },
                                   { -1 }, { -1 } } };
    struct recs r = { .n = 0 };
    struct train_totals t = run_scripted(two4, jobs, 5, &s, 20, &r);
    cr_assert_eq(s.first_now[0], 60);
    cr_assert_eq(s.first_now[1], 60);
    cr_assert_eq(s.first_now[2], 60);
    cr_assert_eq(s.first_now[3], 120);
    /* 1000 s: the tick at 1020; ticks with no job active are skipped, none is lost */
    cr_assert_eq(s.first_now[4], 1020);
    cr_assert_eq(t.stop, ENGINE_MAX_EVENTS, "the tick limit stops a run that holds no GPU");
    cr_assert_eq(r.n, 5, "every job left as unfinished");
    for (int i = 0; i < 5; i++)
        cr_assert_lt(r.r[i].finish, 0);
}

Test(pollux, restart_penalty_on_every_change_and_none_when_unchanged)
{
    /* imagenet at its initial batch 200: scale 1, gain 1, so progress grows at 1 / step time
     * (about 1 a second, its first epoch needs 6,400) */
    const elastic_app *c = app("imagenet");
    int p1[] = { 1 }, p2[] = { 2 };
    double g1 = 1 / step_of(c, p1, 1, 200), g2 = 1 / step_of(c, p2, 1, 100);
    double e1 = elastic_progress(c, 1);
    struct job_spec jobs[] = { ejob(0, "a", "imagenet", 30, 1, 200) };
    struct script s = { .lists = { { 0, -1 },           /* t=60: start on node 0 */
                                   { 0, -1 },           /* 120: unchanged: no restart */
                                   { 0, 0, -1 },        /* 180: 2 GPUs: restart */
                                   { -1 },              /* 240: preempted */
                                   { 1, -1 },           /* 300: on node 1: restart */
                                   { 1, -1 } } };
    struct recs r = { .n = 0 };
    run_scripted(two4, jobs, 1, &s, 6, &r);
    cr_assert_eq(s.ncalls, 6);
    /* 60: just seen */
    cr_assert_eq(s.seen[0].now, 60);
    cr_assert_eq(s.seen[0].age, 30);
    cr_assert_eq(s.seen[0].attained, 0);
    cr_assert_eq(s.seen[0].nalloc, 0);
    /* 120: 30 s of penalty then 30 s at g1, a GPU held all 60 s */
    double p = 30 * g1;
    cr_assert_eq(s.seen[1].attained, 60);
    cr_assert_float_eq(s.seen[1].progress, p, 1e-9);
    cr_assert_eq(s.seen[1].restarts, 0);
    cr_assert_eq(s.seen[1].nalloc, 1);
    /* 180: unchanged, so no penalty: 60 s at g1 */
    p += 60 * g1;
    cr_assert_eq(s.seen[2].attained, 120);
    cr_assert_float_eq(s.seen[2].progress, p, 1e-9);
    cr_assert_eq(s.seen[2].restarts, 0);
    /* 240: resized to 2 GPUs at 180: 30 s of penalty on 2 GPUs, then 30 s at g2 */
    p += 30 * g2;
    cr_assert_eq(s.seen[3].restarts, 1);
    cr_assert_eq(s.seen[3].nalloc, 2);
    cr_assert_eq(s.seen[3].attained, 240);
    cr_assert_float_eq(s.seen[3].progress, p, 1e-9);
    /* 300: preempted at 240: nothing held, nothing gained */
    cr_assert_eq(s.seen[4].nalloc, 0);
    cr_assert_eq(s.seen[4].attained, 240);
    cr_assert_float_eq(s.seen[4].progress, p, 1e-9);
    /* 360: restarted on node 1 at 300: a third start, penalty again */
    p += 30 * g1;
    cr_assert_eq(s.seen[5].restarts, 2);
    cr_assert_eq(s.seen[5].attained, 300);
    cr_assert_float_eq(s.seen[5].progress, p, 1e-9);
    cr_assert_lt(p, e1, "precondition: still in the first epoch");
    cr_assert_eq(s.seen[5].epoch, 0);
    const struct rec *a = get(&r, 0);
    cr_assert_eq(a->first, 60);
    cr_assert_eq(a->preemptions, 1);
    cr_assert_eq(a->migrations, 1, "the resize; the start after the preemption is a resume");
}

Test(pollux, epochs_end_after_whole_seconds)
{
    /* cifar10 at its initial batch on one GPU (gain 1, progress at g = 1 / step time, about
     * 39 s an epoch): each epoch boundary takes round((boundary - progress) / g) whole
     * seconds (half to even), progress restarts from the boundary exactly, and the rest of
     * the tick goes on at g; the run below follows that rule tick by tick by hand */
    const elastic_app *c = app("cifar10");
    int p1[] = { 1 };
    double g = 1 / step_of(c, p1, 1, 128);
    struct job_spec jobs[] = { ejob(0, "a", "cifar10", 0, 1, 128) };
    struct script s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < MAXCALLS; k++) {
        s.lists[k][0] = 0;
        s.lists[k][1] = -1;
    }
    struct recs r = { .n = 0 };
    run_scripted(two4, jobs, 1, &s, 8, &r);
    double p = 0;
    int epoch = 0, crossed = 0;
    for (int k = 1; k < 8; k++) {
        double left = k == 1 ? 30 : 60;     /* the first tick starts with the penalty */
        while (p + g * left >= elastic_progress(c, epoch + 1)) {
            double d = rint((elastic_progress(c, epoch + 1) - p) / g);
            left -= d;
            p = elastic_progress(c, ++epoch);
            crossed++;
        }
        p += g * left;
        cr_assert_eq(s.seen[k].epoch, epoch, "call %d", k);
        cr_assert_float_eq(s.seen[k].progress, p, 1e-9, "call %d: %.9f vs %.9f", k,
                           s.seen[k].progress, p);
    }
    cr_assert_geq(crossed, 8, "precondition: epochs crossed in the ticks checked");
}

Test(pollux, a_lone_job_finishes_as_in_pollux_simulator)
{
    /* ncf-2 of workload-1 (submitted at 135 s, 1 GPU, batch 32768) ran alone from the tick at
     * 180 s in Pollux's run (../shared/reference/pollux/wl1_tiresias_perjob.csv: JCT 122 s):
     * 30 s of penalty, its ten epochs in 47 whole seconds, completion at 257 s */
    struct job_spec jobs[] = { ejob(0, "ncf-2", "ncf", 135, 1, 32768) };
    struct errbuf err;
    err_clear(&err);
    policy *pol;
    struct policy_env env = { 0, two4, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&pol, "pollux_tiresias", NULL, &env, &err), 0, "%s", err.msg);
    struct src src = { jobs, 1, 0 };
    struct entity_source es = { &src, next_job };
    struct pollux_config pc = { .tick = sim_from_sec(60), .restart_s = 30, .until = SIM_NEVER };
    struct recs r = { .n = 0 };
    struct train_sink sink = { .ctx = &r, .job = keep };
    struct train_totals t;
    cr_assert_eq(pollux_run(two4, apps, &pc, &es, policy_decider(pol), &sink, &t, &err), 0,
                 "%s", err.msg);
    policy_close(pol);
    cr_assert_eq(get(&r, 0)->first, 180);
    cr_assert_eq(get(&r, 0)->finish, 257);
    cr_assert_eq(get(&r, 0)->attained, 77, "77 s on one GPU, the penalty included");
    cr_assert_eq(sim_to_sec(t.end), 300, "the run ends at the tick after the completion");
    cr_assert_eq(sim_to_sec(t.makespan), 257);
}

/* ---- the policies' properties at every tick of workload-1 ---- */

struct checker {
    const struct train_decider *inner;
    int   tiresias;
    long  calls, changed, kept;
    int32_t prev_n[256];
    int32_t prev[256][64];
};

static int checked(void *ctx, const struct elastic_view *v, struct elastic_alloc *out,
                   struct errbuf *err)
{
    struct checker *c = ctx;
    if (c->inner->elastic(c->inner->ctx, v, out, err) < 0)
        return -1;
    c->calls++;
    int used[64] = { 0 }, total = 0;
    cr_assert_eq(out->njobs, (size_t)v->njobs);
    for (int k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        int n = out->off[k + 1] - out->off[k];
        const int32_t *l = out->nodes + out->off[k];
        /* the world's view of its GPUs is what the previous answer gave it */
        cr_assert_lt(j->id, 256);
        cr_assert_eq(j->nalloc, c->prev_n[j->id], "job %s", j->name);
        if (j->nalloc > 0)
            cr_assert_eq(memcmp(j->alloc, c->prev[j->id], (size_t)j->nalloc * sizeof *l), 0);
        if (c->tiresias) {
            cr_assert(n == 0 || n == j->target_replicas, "tiresias gave %s %d GPUs, not %d",
                      j->name, n, j->target_replicas);
        } else {
            const struct elastic_limits *lim = elastic_limits(j->prof);
            int cap = lim->elastic_max_replicas > 0 ? lim->elastic_max_replicas
                                                    : j->target_bsz / lim->min_local_bsz;
            cr_assert(n >= 0 && n <= cap, "optimus gave %s %d GPUs (cap %d)", j->name, n, cap);
            /* every job gets one GPU before any gets two */
            cr_assert(n >= 1 || v->njobs > 64, "optimus left %s without a GPU", j->name);
        }
        for (int i = 0; i < n; i++) {
            cr_assert(l[i] >= 0 && l[i] < v->nnodes);
            /* grouped by node: a node that starts a new run did not appear before */
            if (i > 0 && l[i] != l[i - 1])
                for (int m = 0; m < i; m++)
                    cr_assert_neq(l[m], l[i], "node %d split in %s's list", l[i], j->name);
            used[l[i]]++;
        }
        total += n;
        /* a job whose count is unchanged keeps its very GPUs */
        if (n == j->nalloc && n > 0) {
            cr_assert_eq(memcmp(l, j->alloc, (size_t)n * sizeof *l), 0,
                         "%s kept its count but moved", j->name);
            c->kept++;
        } else if (n != j->nalloc) {
            c->changed++;
        }
        c->prev_n[j->id] = n;
        memcpy(c->prev[j->id], l, (size_t)n * sizeof *l);
    }
    for (int nd = 0; nd < v->nnodes; nd++)
        cr_assert_leq(used[nd], v->node_gpus[nd], "node %d over-allocated", nd);
    cr_assert_leq(total, 64);
    return 0;
}

static int workload1(struct job_spec *jobs, char names[][32], char appn[][16])
{
    char path[PATH_MAX_LEN];
    cr_assert_eq(path_resolve(path, sizeof path, NULL, "workloads/traces/pollux/workload-1.csv"),
                 0);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f) != NULL && n < 160) {
        double t;
        int r, b;
        cr_assert_eq(sscanf(line, "%31[^,],%lf,%15[^,],%d,%d", names[n], &t, appn[n], &r, &b), 5);
        jobs[n] = ejob(n, names[n], appn[n], t, r, b);
        n++;
    }
    fclose(f);
    return n;
}

static void properties(const char *policy_name)
{
    static struct job_spec jobs[160];
    static char names[160][32], appn[160][16];
    int n = workload1(jobs, names, appn);
    cr_assert_eq(n, 160);
    struct errbuf err;
    err_clear(&err);
    policy *pol;
    struct policy_env env = { 0, wl1, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&pol, policy_name, NULL, &env, &err), 0, "%s", err.msg);
    static struct checker c;
    memset(&c, 0, sizeof c);
    c.inner = policy_decider(pol);
    c.tiresias = strcmp(policy_name, "pollux_tiresias") == 0;
    struct train_decider dec = { .ctx = &c, .elastic = checked };
    struct src src = { jobs, n, 0 };
    struct entity_source es = { &src, next_job };
    struct pollux_config pc = { .tick = sim_from_sec(60), .restart_s = 30, .until = SIM_NEVER };
    static struct recs r;
    r.n = 0;
    struct train_sink sink = { .ctx = &r, .job = keep };
    struct train_totals t;
    cr_assert_eq(pollux_run(wl1, apps, &pc, &es, &dec, &sink, &t, &err), 0, "%s", err.msg);
    policy_close(pol);
    cr_assert_eq(t.jobs_done, 160);
    cr_assert_gt(c.calls, 1000);
    cr_assert_gt(c.kept, 0);
    cr_assert_gt(c.changed, 0);
    for (int i = 0; i < r.n; i++) {
        cr_assert_geq(r.r[i].first, sim_to_sec(jobs[r.r[i].id].arrival));
        cr_assert_gt(r.r[i].finish, r.r[i].first + 30, "a job runs after its penalty");
    }
}

Test(pollux, tiresias_properties_at_every_tick, .timeout = 120)
{
    properties("pollux_tiresias");
}

Test(pollux, optimus_properties_at_every_tick, .timeout = 120)
{
    properties("optimus");
}

Test(pollux, most_free_placement_matches_brute_force)
{
    /* every free vector of 3 nodes with 0..3 GPUs and every n it can hold: the list is the
     * greedy one (most free first, ties to the lower index), checked against a reference
     * that tries the nodes in order of (free desc, index asc) by sorting */
    for (int code = 0; code < 64; code++) {
        int32_t f0[3] = { code & 3, (code >> 2) & 3, (code >> 4) & 3 };
        int tot = f0[0] + f0[1] + f0[2];
        for (int n = 1; n <= tot; n++) {
            int32_t f[3] = { f0[0], f0[1], f0[2] }, out[12];
            elastic_view_most_free(f, 3, n, out);
            int32_t g[3] = { f0[0], f0[1], f0[2] }, want[12], w = 0;
            while (w < n) {
                int best = -1;
                for (int k = 0; k < 3; k++)
                    if (best < 0 || g[k] > g[best])
                        best = k;
                int take = g[best] < n - w ? g[best] : n - w;
                for (int i = 0; i < take; i++)
                    want[w++] = best;
                g[best] -= take;
            }
            cr_assert_eq(memcmp(out, want, (size_t)n * sizeof *out), 0, "free %d %d %d, n %d",
                         f0[0], f0[1], f0[2], n);
            for (int k = 0; k < 3; k++)
                cr_assert_eq(f[k], g[k]);
            int held[3] = { 0 };
            for (int i = 0; i < n; i++)
                held[out[i]]++;
            for (int k = 0; k < 3; k++)
                cr_assert_leq(held[k], f0[k]);
        }
    }
}

/* ---- end to end ---- */

static double value(const char *db, const char *sql)
{
    return th_db_value(db, sql);
}

static void calibrate(const char *policy_name, const char *ref, double want)
{
    char db[512];
    snprintf(db, sizeof db, "%s/cal_%s.db", th_tmpdir(), policy_name);
    remove(db);
    struct th_out o = th_hetsim((const char *const[]){ "run", "pollux_wl1", "--policy",
                                                       policy_name, "--db", db, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    double got = value(db, "SELECT value FROM metrics WHERE name = 'jct_mean'");
    cr_assert_leq(fabs(got - want) / want, 0.01, "%s: mean JCT %.4f s vs Pollux's %.4f s",
                  policy_name, got, want);
    cr_assert_eq(value(db, "SELECT value FROM metrics WHERE name = 'jobs_done'"), 160);
    /* every job's JCT against Pollux's, by name (job ids are workload rows) */
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/pollux/%s", th_shared_dir(NULL), ref);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        cr_skip_test("no %s", path);
    char names[160][32], appn[160][16], line[256];
    static struct job_spec jobs[160];
    workload1(jobs, names, appn);
    int matched = 0, rows = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f) != NULL) {
        char name[32];
        double sub, jct;
        cr_assert_eq(sscanf(line, "%31[^,],%lf,%lf", name, &sub, &jct), 3);
        int id = 0;
        while (id < 160 && strcmp(names[id], name) != 0)
            id++;
        cr_assert_lt(id, 160, "%s not in workload-1", name);
        char q[256];
        snprintf(q, sizeof q, "SELECT jct_s FROM jobs WHERE job_id = %d", id);
        matched += value(db, q) == jct;
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 160);
    cr_assert_eq(matched, 160, "%s: %d of 160 JCTs as Pollux's", policy_name, matched);
}

Test(pollux, calibration_tiresias, .timeout = 120)
{
    calibrate("pollux_tiresias", "wl1_tiresias_perjob.csv", 2473.65);
}

Test(pollux, calibration_optimus, .timeout = 120)
{
    calibrate("optimus", "wl1_optimus_perjob.csv", 4087.0625);
}

Test(pollux, same_input_same_rows, .timeout = 120)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/det_a.db", th_tmpdir());
    snprintf(b, sizeof b, "%s/det_b.db", th_tmpdir());
    remove(a);
    remove(b);
    for (int i = 0; i < 2; i++) {
        struct th_out o = th_hetsim((const char *const[]){ "run", "pollux_wl1", "--db",
                                                           i ? b : a, "-q", NULL });
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    char *da = th_db_dump(a), *dbb = th_db_dump(b);
    cr_assert_str_eq(da, dbb);
    cr_assert_gt(strlen(da), 1000);
    free(da);
    free(dbb);
    cr_assert_gt(value(a, "SELECT count(*) FROM samples"), 0, "time series written");
}

Test(pollux, a_sia_workload_through_set_and_the_listing_read_back, .timeout = 120)
{
    char sia[1024];
    snprintf(sia, sizeof sia, "%s/pollux_sia/sia_sosp23/workloads/philly_workload-1.csv",
             th_shared_dir("traces"));
    FILE *f = fopen(sia, "r");
    if (f == NULL)
        cr_skip_test("no %s", sia);
    fclose(f);
    char set[1100], db[512], listed[512], set2[600];
    snprintf(set, sizeof set, "workload.trace=%s", sia);
    snprintf(db, sizeof db, "%s/sia.db", th_tmpdir());
    snprintf(listed, sizeof listed, "%s/listed.csv", th_tmpdir());
    remove(db);
    struct th_out o = th_hetsim((const char *const[]){ "run", "pollux_wl1", "--set", set,
                                                       "--db", db, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    /* three policies (pollux_tiresias, optimus, pollux), every job done */
    cr_assert_eq(value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NOT NULL"), 3 * 160);
    /* the listing is a Pollux workload again, and runs to the same jobs rows */
    o = th_hetsim((const char *const[]){ "workload", "pollux_wl1", "--set", set, "-o", listed,
                                         NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    snprintf(set2, sizeof set2, "workload.trace=%s", listed);
    char db2[512];
    snprintf(db2, sizeof db2, "%s/sia2.db", th_tmpdir());
    remove(db2);
    o = th_hetsim((const char *const[]){ "run", "pollux_wl1", "--set", set2, "--db", db2, "-q",
                                         NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    static const char *const q[] = { "SELECT run_id, job_id, job_type, workers, arrival_s, "
                                     "finish_s, attained_gpu_s FROM jobs ORDER BY 1, 2", NULL };
    char *x = th_query_dump(db, q), *y = th_query_dump(db2, q);
    cr_assert_str_eq(x, y);
    free(x);
    free(y);
}

Test(pollux, a_time_limit_leaves_jobs_unfinished, .timeout = 60)
{
    char db[512];
    snprintf(db, sizeof db, "%s/until.db", th_tmpdir());
    remove(db);
    struct th_out o = th_hetsim((const char *const[]){ "run", "pollux_wl1", "--policy",
                                                       "optimus", "--set", "sim.until_s=3600",
                                                       "--db", db, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    double in = value(db, "SELECT count(*) FROM jobs WHERE arrival_s <= 3600");
    cr_assert_gt(in, 10);
    cr_assert_eq(value(db, "SELECT count(*) FROM jobs"), in, "every job seen by 3,600 s, no more");
    cr_assert_gt(value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NULL"), 0);
    cr_assert_eq(value(db, "SELECT count(*) FROM jobs WHERE finish_s > 3600"), 0);
    cr_assert_eq(value(db, "SELECT sim_end_s FROM runs"), 3600);
    cr_assert_eq(value(db, "SELECT stop_reason = 'time_limit' FROM runs"), 1);
}
