/*
 * test_pollux_policy: the pollux policy (sched/elastic/pollux.c) — its mechanisms against
 * values computed by hand (the fair share, the speedup over it, the prior of a job not yet
 * observed, the restart factor), its search against brute
 * force over every allocation of 2-3 jobs on 1-2 nodes of 4 GPUs (the objective recomputed
 * here from models/goodput.h: speedup over the fair share, the restart factor, the power
 * mean with p = -1), the constraints on its answer (node capacity, max replicas, at most
 * one distributed job per node, unchanged lists kept), and end to end on Pollux's
 * workload-1: every job completes, the agent chooses batches, and the mean JCT is at least
 * 5% below Tiresias's and Optimus's in Pollux's simulator (2473.65 s, 4087.06 s), the
 * paper's claim.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/elastic.h"
#include "../models/goodput.h"
#include "../sched/elastic/pollux.h"
#include "../sched/policy.h"
#include "../sim/base/path.h"
#include "../sim/core/engine.h"
#include "../sim/train/elastic_view.h"
#include "../sim/train/pollux.h"
#include "helpers.h"

static catalog *cat;
static elastic *apps;
static cluster *wl1;            /* Pollux's 16 x 4 T4 */

static void setup(void)
{
    struct errbuf err;
    err_clear(&err);
    cat = th_catalog();
    char p[PATH_MAX_LEN];
    cr_assert_eq(path_resolve(p, sizeof p, NULL, "models/data/pollux/applications.json"), 0);
    cr_assert_eq(elastic_load(&apps, cat, p, &err), 0, "%s", err.msg);
    wl1 = th_cluster(cat, "{\"network\": \"ethernet-25g\", \"groups\": [{\"count\": 16, "
                          "\"gpu\": \"T4\", \"gpus_per_node\": 4}]}");
}

static void teardown(void)
{
    cluster_destroy(wl1);
    elastic_destroy(apps);
    catalog_destroy(cat);
}

TestSuite(pollux_policy, .init = setup, .fini = teardown);

static const elastic_app *app(const char *name)
{
    const elastic_app *a = elastic_get(apps, elastic_find(apps, name),
                                       catalog_gpu_find(cat, "T4"));
    cr_assert_not_null(a, "%s", name);
    return a;
}

/* ---- the mechanisms by hand ---- */

Test(pollux_policy, fair_share_by_hand)
{
    int n, r;
    pollux_fair_share(64, 16, 10, &n, &r);      /* ceil(64 / 10) = 7, ceil(16 / 64) = 1 */
    cr_assert(r == 7 && n == 1, "%d replicas on %d nodes", r, n);
    pollux_fair_share(8, 2, 3, &n, &r);         /* ceil(8 / 3) = 3 */
    cr_assert(r == 3 && n == 1, "%d replicas on %d nodes", r, n);
    pollux_fair_share(8, 2, 8, &n, &r);         /* one GPU each */
    cr_assert(r == 1 && n == 1, "%d replicas on %d nodes", r, n);
    pollux_fair_share(8, 2, 20, &n, &r);        /* fewer GPUs than jobs: still one */
    cr_assert(r == 1 && n == 1, "%d replicas on %d nodes", r, n);
    pollux_fair_share(4, 8, 1, &n, &r);         /* more nodes than GPUs: ceil(8 / 4) = 2 */
    cr_assert(r == 4 && n == 2, "%d replicas on %d nodes", r, n);
}

Test(pollux_policy, restart_factor_by_hand)
{
    /* max(age - restarts x D, 0) / (age + D), D = 30 s */
    cr_assert_float_eq(pollux_restart_factor(600, 2, 30), 540.0 / 630, 1e-15);  /* 0.857143 */
    cr_assert_float_eq(pollux_restart_factor(600, 0, 30), 600.0 / 630, 1e-15);  /* 0.952381 */
    cr_assert_float_eq(pollux_restart_factor(120, 3, 30), 30.0 / 150, 1e-15);   /* 0.2 */
    cr_assert_eq(pollux_restart_factor(50, 2, 30), 0, "restarts beyond its age: worth 0");
    cr_assert_eq(pollux_restart_factor(0, 0, 30), 0, "a job just submitted");
    cr_assert_float_eq(pollux_restart_factor(600, 5, 0), 1, 1e-15, "no delay, no penalty");
}

/* cifar10 (B0 = 128, max batch 4096, local batch 32-1024) with gradient statistics of no
 * noise (var = 0): efficiency B0 / B, so goodput = B0 / T_iter and the smallest batch the
 * placement allows wins — B = 128 up to 4 replicas (atomic 128 / r), B = 32 r beyond.  With
 * gamma = 1 a step is T_c + T_n, T_c = 0.1 + 0.001 atomic, T_n = 0.02 + 0.01 (r - 2) inside
 * a node, 0.1 + 0.05 (r - 2) across nodes, about 1e-8 on one GPU:
 *   (1 node, 1): 0.228 s;  (1, 2): 0.164 + 0.02 = 0.184 s;  (1, 4): 0.132 + 0.04 = 0.172 s;
 *   (2 nodes, 4): 0.132 + 0.2 = 0.332 s;  (2, 8): B = 256, atomic 32, 0.132 + 0.4 = 0.532 s.
 * On 8 GPUs for 2 jobs the fair share is 4 replicas on 1 node: goodput 128 / 0.172 = 744.186,
 * and the speedup at (n, r) is 0.172 / T_iter(n, r). */
Test(pollux_policy, speedup_by_hand)
{
    struct elastic_job j = { .id = 0, .name = "c", .prof = app("cifar10"), .has_perf = 1,
                             .perf = { 0.1, 0.001, 0.1, 0.05, 0.02, 0.01, 1 },
                             .grad = { 1, 0 }, .max_profiled = 4 };
    const struct elastic_limits *l = elastic_limits(j.prof);
    cr_assert(l->init_bsz == 128 && l->max_bsz == 4096 && l->min_local_bsz == 32 &&
              l->max_local_bsz == 1024, "cifar10's limits are not the ones worked by hand");
    int fn, fr;
    pollux_fair_share(8, 2, 2, &fn, &fr);
    cr_assert(fn == 1 && fr == 4);
    double fair = pollux_fair_goodput(&j, fn, fr);
    cr_assert_float_eq(fair, 744.186046511628, 1e-6);
    cr_assert_float_eq(pollux_speedup(&j, 1, 4, fair, fr), 1, 1e-12);
    cr_assert_float_eq(pollux_speedup(&j, 1, 1, fair, fr), 0.754385964912, 1e-6);
    cr_assert_float_eq(pollux_speedup(&j, 1, 2, fair, fr), 0.934782608696, 1e-6);
    cr_assert_float_eq(pollux_speedup(&j, 2, 4, fair, fr), 0.518072289157, 1e-6);
    cr_assert_float_eq(pollux_speedup(&j, 2, 8, fair, fr), 0.323308270677, 1e-6);
    cr_assert_eq(pollux_speedup(&j, 1, 0, fair, fr), 0);
    /* not observed yet: Pollux's prior, linear in the replicas over the fair share's */
    j.has_perf = 0;
    cr_assert_float_eq(pollux_fair_goodput(&j, fn, fr), 1, 1e-15);
    cr_assert_float_eq(pollux_speedup(&j, 1, 3, 1, fr), 0.75, 1e-15);
    cr_assert_float_eq(pollux_speedup(&j, 2, 8, 1, fr), 2, 1e-15);
}

/* ---- the objective, recomputed independently of the policy ---- */

struct inst {
    int nnodes, gpus[2], njobs;
    struct elastic_job jobs[3];
    int32_t alloc[3][8];
};

static int max_replicas(const struct elastic_job *j)
{
    const struct elastic_limits *l = elastic_limits(j->prof);
    int m = 2 * j->max_profiled;
    if (m < 1)
        m = 1;
    if (m > 64)
        m = 64;
    if (l->max_bsz / l->min_local_bsz < m)
        m = l->max_bsz / l->min_local_bsz;
    if (l->elastic_max_replicas > 0 && l->elastic_max_replicas < m)
        m = l->elastic_max_replicas;
    return m;
}

static double best_goodput(const struct elastic_job *j, int n, int r)
{
    const struct elastic_limits *l = elastic_limits(j->prof);
    struct goodput_limits gl = { l->init_bsz, l->max_bsz, l->min_local_bsz, l->max_local_bsz,
                                 1 };
    struct goodput_choice c;
    goodput_optimize(&j->perf, &j->grad, &gl, n, r, &c);
    return c.goodput;
}

/* the power mean of the jobs' scaled, penalised speedups for x[j][n] */
static double objective(const struct inst *in, const int x[3][2])
{
    int G = 0;
    for (int n = 0; n < in->nnodes; n++)
        G += in->gpus[n];
    int fair_r = (G + in->njobs - 1) / in->njobs;
    double sum = 0;
    for (int j = 0; j < in->njobs; j++) {
        const struct elastic_job *jb = &in->jobs[j];
        int r = 0, k = 0, base[2] = { 0, 0 }, changed = 0;
        for (int g = 0; g < jb->nalloc; g++)
            base[jb->alloc[g]]++;
        for (int n = 0; n < in->nnodes; n++) {
            r += x[j][n];
            k += x[j][n] > 0;
            changed |= x[j][n] != base[n];
        }
        double sp = 0;
        if (r > 0)
            sp = jb->has_perf ? best_goodput(jb, k, r) / best_goodput(jb, 1, fair_r)
                              : (double)r / fair_r;
        sp *= (double)in->nnodes / G;
        if (changed) {
            double age = jb->age_s;
            sp *= fmax(age - jb->restarts * 30.0, 0) / (age + 30);
        }
        sum += pow(sp + 1e-3, -1);
    }
    return pow(sum / in->njobs, -1);
}

static int allowed(const struct inst *in, const int x[3][2])
{
    for (int n = 0; n < in->nnodes; n++) {
        int used = 0, dist = 0;
        for (int j = 0; j < in->njobs; j++) {
            used += x[j][n];
            int k = 0;
            for (int m = 0; m < in->nnodes; m++)
                k += x[j][m] > 0;
            dist += k > 1 && x[j][n] > 0;
        }
        if (used > in->gpus[n] || dist > 1)
            return 0;
    }
    for (int j = 0; j < in->njobs; j++) {
        int r = 0;
        for (int n = 0; n < in->nnodes; n++)
            r += x[j][n];
        if (r > max_replicas(&in->jobs[j]))
            return 0;
    }
    return 1;
}

/* every allocation: the best objective */
static double brute(const struct inst *in)
{
    int cells = in->njobs * in->nnodes, x[3][2];
    int idx[6] = { 0 };
    double best = -1;
    for (;;) {
        memset(x, 0, sizeof x);
        for (int c = 0; c < cells; c++)
            x[c / in->nnodes][c % in->nnodes] = idx[c];
        if (allowed(in, x)) {
            double f = objective(in, x);
            if (f > best)
                best = f;
        }
        int c = 0;
        while (c < cells && ++idx[c] > in->gpus[c % in->nnodes])
            idx[c++] = 0;
        if (c == cells)
            break;
    }
    return best;
}

/* the policy's answer as x[j][n], with its constraints checked */
static void ask(const struct inst *in, int x[3][2])
{
    struct errbuf err;
    err_clear(&err);
    policy *pol;
    struct policy_env env = { 0, NULL, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&pol, "pollux", NULL, &env, &err), 0, "%s", err.msg);
    const struct train_decider *d = policy_decider(pol);
    cr_assert(d->adaptive_batch, "pollux's jobs choose their batch");
    int32_t node_gpus[2] = { in->gpus[0], in->gpus[1] }, node_type[2] = { 0, 0 };
    struct elastic_view v = { .now_s = 600, .nnodes = in->nnodes, .node_gpus = node_gpus,
                              .node_type = node_type, .apps = apps, .njobs = in->njobs,
                              .jobs = in->jobs };
    struct elastic_alloc out;
    elastic_alloc_init(&out);
    cr_assert_eq(d->elastic(d->ctx, &v, &out, &err), 0, "%s", err.msg);
    cr_assert_eq(out.njobs, (size_t)in->njobs);
    memset(x, 0, 3 * 2 * sizeof x[0][0]);
    for (int j = 0; j < in->njobs; j++) {
        int n = out.off[j + 1] - out.off[j];
        const int32_t *l = out.nodes + out.off[j];
        for (int i = 0; i < n; i++) {
            cr_assert(l[i] >= 0 && l[i] < in->nnodes);
            x[j][l[i]]++;
        }
        /* counts as they were: the very list, so no restart */
        int base[2] = { 0, 0 };
        for (int g = 0; g < in->jobs[j].nalloc; g++)
            base[in->jobs[j].alloc[g]]++;
        if (base[0] == x[j][0] && base[1] == x[j][1]) {
            cr_assert_eq(n, in->jobs[j].nalloc);
            if (n > 0)
                cr_assert_eq(memcmp(l, in->jobs[j].alloc, (size_t)n * sizeof *l), 0);
        }
    }
    cr_assert(allowed(in, x), "the answer breaks a constraint");
    elastic_alloc_fini(&out);
    policy_close(pol);
}

static const struct goodput_perf perfs[] = {
    { 0.0171, 0.000705, 0.118, 0.00237, 0.0304, 0.000238, 1.881 },     /* cifar10's fit */
    { 0.173, 0.058, 1.3, 0.0143, 0.257, 0.0029, 1.701 },               /* bert's */
    { 0.0664, 0.00441, 0.278, 0.00552, 0.0626, 0.000115, 2.089 },      /* imagenet's */
};
static const struct goodput_grad grads[] = { { 0.01, 1 }, { 1, 0.1 }, { 0.2, 2 } };
static const char *const appnames[] = { "cifar10", "bert", "imagenet" };

/* instance number `seed`: deterministic variety of models, ages, restarts and current GPUs */
static void make(struct inst *in, int nnodes, int njobs, int seed)
{
    memset(in, 0, sizeof *in);
    in->nnodes = nnodes;
    in->gpus[0] = 4;
    in->gpus[1] = nnodes > 1 ? 4 : 0;
    in->njobs = njobs;
    int used[2] = { 0, 0 };
    for (int j = 0; j < njobs; j++) {
        int h = seed * 7 + j * 3;
        struct elastic_job *jb = &in->jobs[j];
        jb->id = j;
        jb->name = appnames[h % 3];
        jb->prof = app(appnames[h % 3]);
        jb->has_perf = (seed + j) % 4 != 0;
        jb->perf = perfs[(h / 3) % 3];
        jb->grad = grads[(seed + 2 * j) % 3];
        jb->max_profiled = 1 + (h % 4);
        jb->age_s = 60.0 * (1 + (h % 9));
        jb->restarts = (seed + j) % 3;
        jb->attained_s = 100.0 * ((h * 5) % 7);
        jb->submit_s = 600 - jb->age_s;
        /* current GPUs: some jobs hold one or two on a node with room */
        int want = (seed + j) % 3;
        jb->nalloc = 0;
        for (int n = 0; n < nnodes && jb->nalloc < want; n++)
            while (jb->nalloc < want && used[n] < in->gpus[n]) {
                in->alloc[j][jb->nalloc++] = n;
                used[n]++;
            }
        jb->alloc = in->alloc[j];
    }
}

Test(pollux_policy, search_matches_brute_force_on_tiny_instances, .timeout = 120)
{
    int cases = 0, optimal = 0;
    double worst = 1;
    for (int nnodes = 1; nnodes <= 2; nnodes++)
        for (int njobs = 2; njobs <= 3; njobs++)
            for (int seed = 0; seed < 12; seed++) {
                struct inst in;
                make(&in, nnodes, njobs, seed);
                int x[3][2];
                ask(&in, x);
                double got = objective(&in, x), want = brute(&in);
                cr_assert_leq(got, want * (1 + 1e-9), "no allocation beats brute force");
                double ratio = got / want;
                if (ratio < worst)
                    worst = ratio;
                optimal += ratio >= 1 - 1e-9;
                cases++;
            }
    printf("pollux search vs brute force: optimal in %d of %d tiny instances, worst ratio "
           "%.6f\n", optimal, cases, worst);
    /* the bound it meets (a local search, not an exact one): the optimum in 44 of these 48,
     * and never below 0.96 of it; the four misses need two jobs to trade nodes, a compound
     * move that no single move of the search improves on (the restart penalty falls on
     * both) */
    cr_assert_geq(optimal, 44, "the search found the optimum in %d of %d", optimal, cases);
    cr_assert_geq(worst, 0.96, "the search fell to %.6f of the optimum", worst);
}

Test(pollux_policy, one_job_alone_takes_what_its_goodput_wants)
{
    /* a lone well-scaling job with a model: more than one GPU; a lone job without one (the
     * linear prior) is held to its max replicas, 2 x 1 observed */
    struct inst in;
    make(&in, 2, 2, 1);
    in.njobs = 1;
    in.jobs[0].has_perf = 1;
    in.jobs[0].grad = grads[0];
    in.jobs[0].perf = perfs[0];
    in.jobs[0].max_profiled = 4;
    int x[3][2];
    ask(&in, x);
    cr_assert_gt(x[0][0] + x[0][1], 1);
    in.jobs[0].has_perf = 0;
    in.jobs[0].max_profiled = 1;
    ask(&in, x);
    cr_assert_eq(x[0][0] + x[0][1], 2, "linear prior up to max replicas 2");
}

/* ---- Pollux's agent in the world, through pollux_run ---- */

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

static struct job_spec ejob(int id, const char *name, const char *app_name, double at, int r,
                            int b)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at), .jtype = -1, .workers = r,
                              .min_workers = 1, .max_workers = r, .batch = b, .weight = 1,
                              .app = app_name, .name = name };
}

struct rec { double arrival, finish; };
struct recs { struct rec r[256]; int n; };
static int keep(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct recs *s = ctx;
    cr_assert_lt(s->n, 256);
    s->r[s->n++] = (struct rec){ sim_to_sec(r->job->arrival),
                                 r->finish >= 0 ? sim_to_sec(r->finish) : -1 };
    return 0;
}

/* wraps a decider: checks what the agent shows and the answer's constraints */
struct watch {
    const struct train_decider *inner;   /* NULL: a scripted one-GPU-on-node-0 policy */
    long   calls, with_perf, chosen, accum_seen, above_init, kept;
    int    fail_batch;
};

static int watched(void *ctx, const struct elastic_view *v, struct elastic_alloc *out,
                   struct errbuf *err)
{
    struct watch *w = ctx;
    w->calls++;
    for (int k = 0; k < v->njobs; k++) {
        const struct elastic_job *j = &v->jobs[k];
        const struct elastic_limits *l = elastic_limits(j->prof);
        /* no batch fixed but ncf's */
        cr_assert_eq(j->target_bsz, l->pollux_bsz, "%s", j->name);
        if (j->nalloc == 0)
            continue;
        int r = j->nalloc, nodes = 1;
        for (int g = 1; g < r; g++)
            nodes += j->alloc[g] != j->alloc[g - 1];
        if (!j->has_perf || j->target_bsz > 0)
            continue;
        w->with_perf++;
        cr_assert_geq(j->max_profiled, 1);
        /* the agent's batch is goodput_optimize's for its placement, capped at max batch */
        struct goodput_limits gl = { l->init_bsz, l->max_bsz, l->min_local_bsz,
                                     l->max_local_bsz, 1 };
        struct goodput_choice c;
        goodput_optimize(&j->perf, &j->grad, &gl, nodes, r, &c);
        int cap = (int)((double)l->max_bsz / (r * (c.accum + 1)));
        int atomic = c.atomic < cap ? c.atomic : cap;
        if (j->batch == r * atomic * (c.accum + 1) && j->accum == c.accum)
            w->chosen++;
        else
            w->fail_batch++;
        w->accum_seen += j->accum > 0;
        w->above_init += j->batch > l->init_bsz;
    }
    if (w->inner != NULL) {
        if (w->inner->elastic(w->inner->ctx, v, out, err) < 0)
            return -1;
        /* the answer: no node over its GPUs, max replicas, one distributed job per node */
        int used[64] = { 0 }, dist[64] = { 0 };
        for (int k = 0; k < v->njobs; k++) {
            const int32_t *l = out->nodes + out->off[k];
            int n = out->off[k + 1] - out->off[k], nodes = 0;
            cr_assert_leq(n, max_replicas(&v->jobs[k]), "%s", v->jobs[k].name);
            for (int i = 0; i < n; i++) {
                cr_assert(l[i] >= 0 && l[i] < v->nnodes);
                used[l[i]]++;
                nodes += i == 0 || l[i] != l[i - 1];
            }
            for (int i = 0; i < n && nodes > 1; i++)
                dist[l[i]] += i == 0 || l[i] != l[i - 1];
            w->kept += n > 0 && n == v->jobs[k].nalloc &&
                       memcmp(l, v->jobs[k].alloc, (size_t)n * sizeof *l) == 0;
        }
        for (int nd = 0; nd < v->nnodes; nd++) {
            cr_assert_leq(used[nd], v->node_gpus[nd], "node %d over-allocated", nd);
            cr_assert_leq(dist[nd], 1, "two distributed jobs on node %d", nd);
        }
        return 0;
    }
    if (elastic_alloc_begin(out, (size_t)v->njobs) < 0)
        return -1;
    int32_t zero = 0;
    for (int k = 0; k < v->njobs; k++)
        if (elastic_alloc_set(out, (size_t)k, &zero, k == 0 ? 1 : 0) < 0)
            return -1;
    return 0;
}

Test(pollux_policy, the_agent_starts_from_the_prior_then_fits_and_chooses_its_batch)
{
    /* one cifar10 job on one GPU: before its first step it runs at B = max(B0, min local x
     * 1) with the fixed rules; once observed, its batch is the fitted model's choice */
    struct job_spec jobs[1] = { ejob(0, "c", "cifar10", 0, 1, 128) };
    struct src src = { jobs, 1, 0 };
    struct entity_source es = { &src, next_job };
    struct watch w = { 0 };
    struct train_decider dec = { .ctx = &w, .elastic = watched, .adaptive_batch = 1 };
    struct pollux_config pc = { .tick = sim_from_sec(60), .restart_s = 30, .until = SIM_NEVER,
                                .max_events = 30 };
    struct recs r = { .n = 0 };
    struct train_sink sink = { .ctx = &r, .job = keep };
    struct train_totals t;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(pollux_run(wl1, apps, &pc, &es, &dec, &sink, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(w.calls, 30);
    cr_assert_eq(w.fail_batch, 0, "the agent's batch is not goodput_optimize's");
    cr_assert_geq(w.with_perf, 28, "a model from the first observed tick on");
    /* cifar10 on one GPU: the fitted goodput prefers a batch above B0 = 128, so Pollux's
     * r = 1 rule accumulates */
    cr_assert_gt(w.above_init, 0);
    cr_assert_gt(w.accum_seen, 0);
}

Test(pollux_policy, workload1_end_to_end, .timeout = 240)
{
    static struct job_spec jobs[160];
    static char names[160][32], appn[160][16];
    char path[PATH_MAX_LEN];
    cr_assert_eq(path_resolve(path, sizeof path, NULL, "workloads/traces/pollux/workload-1.csv"),
                 0);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f) != NULL && n < 160) {
        double at;
        int rr, b;
        cr_assert_eq(sscanf(line, "%31[^,],%lf,%15[^,],%d,%d", names[n], &at, appn[n], &rr, &b),
                     5);
        jobs[n] = ejob(n, names[n], appn[n], at, rr, b);
        n++;
    }
    fclose(f);
    cr_assert_eq(n, 160);
    struct errbuf err;
    err_clear(&err);
    policy *pol;
    struct policy_env env = { 0, wl1, NULL, NULL, 0 };
    cr_assert_eq(policy_open(&pol, "pollux", NULL, &env, &err), 0, "%s", err.msg);
    struct watch w = { .inner = policy_decider(pol) };
    struct train_decider dec = { .ctx = &w, .elastic = watched, .adaptive_batch = 1 };
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
    cr_assert_eq(w.fail_batch, 0);
    cr_assert_gt(w.accum_seen, 0);
    cr_assert_gt(w.above_init, 0);
    cr_assert_gt(w.kept, 0, "some jobs keep their GPUs");
    double sum = 0;
    for (int i = 0; i < r.n; i++) {
        cr_assert_geq(r.r[i].finish, r.r[i].arrival);
        sum += r.r[i].finish - r.r[i].arrival;
    }
    double mean = sum / r.n;
    printf("pollux on workload-1: mean JCT %.2f s (Pollux's simulator: tiresias 2473.65 s, "
           "optimus 4087.06 s)\n", mean);
    /* Pollux's claim, on its own workload and cluster: a lower mean JCT than Tiresias and
     * Optimus in its simulator (hetsim's Pollux mode reproduces both to the job:
     * tests/test_pollux.c's calibration), by at least 5% (hetsim's pollux: 12% below
     * Tiresias) */
    cr_assert_lt(mean, 0.95 * 2473.65, "pollux's mean JCT %.2f s is not 5%% below Tiresias's "
                 "2473.65 s", mean);
    cr_assert_lt(mean, 0.95 * 4087.06, "pollux's mean JCT %.2f s is not 5%% below Optimus's "
                 "4087.06 s", mean);
}
