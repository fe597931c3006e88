/*
 * test_sia: Sia's per-round integer program (sched/elastic/sia.h) against brute force — every
 * choice of at most one configuration per job that fits every GPU type — on random tiny
 * instances (2-4 jobs, 2 types, 2-6 GPUs each), and what the node limit does.  The rounding
 * alone must fall short of the optimum on some of them (else the instances would not tell
 * the exact solver from the rounding).  Then the configurations and their values (goodput
 * over the job's base, to the power p, times the restart factor 1 - r / T) against values
 * computed by hand on a view built by hand with measured toy rates, and the restart factor's
 * effect on a round: a running job stays where a move's gain does not pay for its restart,
 * and moves where it does.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/elastic/sia.h"
#include "../sched/policy.h"
#include "helpers.h"

/* a small deterministic generator: the instances are the same on every machine */
static uint64_t state = 0x9e3779b97f4a7c15u;
static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* The best objective over every choice; `from[j]`, `to[j]` bound job j's configurations. */
static void brute(const struct sia_cfg *c, const size_t *from, const size_t *to, int njobs,
                  int at, int *freec, double v, double *best)
{
    if (at == njobs) {
        if (v > *best)
            *best = v;
        return;
    }
    brute(c, from, to, njobs, at + 1, freec, v, best);
    for (size_t k = from[at]; k < to[at]; k++) {
        if (c[k].n > freec[c[k].type])
            continue;
        freec[c[k].type] -= c[k].n;
        brute(c, from, to, njobs, at + 1, freec, v + c[k].v, best);
        freec[c[k].type] += c[k].n;
    }
}

/* Check a pick: at most one configuration per job, within every type's GPUs; its value. */
static double checked_value(const struct sia_cfg *c, size_t nc, const unsigned char *pick,
                            int nt, const int *count)
{
    int used[2] = { 0, 0 };
    double v = 0;
    for (size_t k = 0; k < nc; k++) {
        if (!pick[k])
            continue;
        for (size_t q = 0; q < k; q++)
            cr_assert(!(pick[q] && c[q].job == c[k].job), "job %d got two configurations",
                      c[k].job);
        used[c[k].type] += c[k].n;
        v += c[k].v;
    }
    for (int t = 0; t < nt; t++)
        cr_assert_leq(used[t], count[t], "type %d: %d GPUs of %d", t, used[t], count[t]);
    return v;
}

/* A random instance: configurations n = 1, 2, 4 (and 3) on two types, values growing with n
 * sublinearly as Sia's normalized goodput^p does, some jobs cheaper on one type. */
static size_t instance(struct sia_cfg *c, size_t *from, size_t *to, int *njobs, int *count)
{
    *njobs = 2 + (int)(uniform() * 3);
    count[0] = 2 + (int)(uniform() * 5);
    count[1] = 2 + (int)(uniform() * 5);
    size_t nc = 0;
    for (int j = 0; j < *njobs; j++) {
        from[j] = nc;
        for (int t = 0; t < 2; t++) {
            double speed = 0.3 + uniform(), p = 0.2 + 0.8 * uniform();
            static const int ns[] = { 1, 2, 3, 4 };
            for (int q = 0; q < 4; q++) {
                if (ns[q] > count[t] || uniform() < 0.25)
                    continue;
                c[nc++] = (struct sia_cfg){ j, t, ns[q], speed * pow(ns[q], p) };
            }
        }
        to[j] = nc;
    }
    return nc;
}

Test(sia, ilp_equals_brute_force_on_tiny_instances)
{
    int short_of = 0, branched = 0;
    for (int it = 0; it < 400; it++) {
        struct sia_cfg c[64];
        size_t from[4], to[4];
        int njobs, count[2];
        size_t nc = instance(c, from, to, &njobs, count);
        if (nc == 0)
            continue;
        int freec[2] = { count[0], count[1] };
        double best = 0;
        brute(c, from, to, njobs, 0, freec, 0, &best);
        unsigned char pick[64];
        struct sia_result res;
        struct errbuf err;
        err_clear(&err);
        struct sia_how ilp = { SIA_ILP, 100000 };
        cr_assert_eq(sia_solve(c, nc, 2, count, &ilp, pick, &res, &err), 0, "%s", err.msg);
        double v = checked_value(c, nc, pick, 2, count);
        cr_assert_float_eq(v, res.obj, 1e-12);
        cr_assert_float_eq(res.obj, best, 1e-9, "instance %d: ILP %.12g, brute force %.12g",
                           it, res.obj, best);
        cr_assert(!res.limit_hit);
        cr_assert_leq(res.rounded_obj, res.obj + 1e-12);
        cr_assert_geq(res.lp_obj, res.obj - 1e-9);
        branched += res.branched;
        /* the rounding alone: feasible, never above the optimum */
        struct sia_how rnd = { SIA_ROUNDING, 1 };
        cr_assert_eq(sia_solve(c, nc, 2, count, &rnd, pick, &res, &err), 0, "%s", err.msg);
        double r = checked_value(c, nc, pick, 2, count);
        cr_assert_float_eq(r, res.obj, 1e-12);
        cr_assert_leq(r, best + 1e-9);
        short_of += r < best - 1e-9;
    }
    cr_log_info("rounding short of the optimum on %d of 400 instances, %d branched", short_of,
                branched);
    cr_assert_gt(short_of, 0, "no instance separates the rounding from the ILP");
    cr_assert_gt(branched, 0);
}

/* One job of two GPUs worth 1.5 and one of one GPU worth 1 on three GPUs: the LP splits the
 * jobs between both, the optimum takes both (2.5). */
Test(sia, by_hand)
{
    struct sia_cfg c[] = {
        { 0, 0, 2, 1.5 }, { 0, 0, 3, 1.9 },
        { 1, 0, 1, 1.0 }, { 1, 0, 2, 1.2 },
    };
    int count[] = { 3 };
    unsigned char pick[4];
    struct sia_result res;
    struct errbuf err;
    err_clear(&err);
    struct sia_how ilp = { SIA_ILP, 1000 };
    cr_assert_eq(sia_solve(c, 4, 1, count, &ilp, pick, &res, &err), 0, "%s", err.msg);
    cr_assert_float_eq(res.obj, 2.5, 1e-12);
    cr_assert(pick[0] && pick[2] && !pick[1] && !pick[3]);
}

/* With a node limit of one the search stops at once: the answer is the rounding's (a feasible
 * one), and the stop is reported. */
Test(sia, node_limit_falls_back_to_the_best_found_and_says_so)
{
    int hits = 0;
    state = 12345;
    for (int it = 0; it < 400; it++) {
        struct sia_cfg c[64];
        size_t from[4], to[4];
        int njobs, count[2];
        size_t nc = instance(c, from, to, &njobs, count);
        if (nc == 0)
            continue;
        unsigned char pick[64];
        struct sia_result res;
        struct errbuf err;
        err_clear(&err);
        struct sia_how ilp = { SIA_ILP, 1 };
        cr_assert_eq(sia_solve(c, nc, 2, count, &ilp, pick, &res, &err), 0, "%s", err.msg);
        double v = checked_value(c, nc, pick, 2, count);
        cr_assert_float_eq(v, res.obj, 1e-12);
        cr_assert_geq(res.obj, res.rounded_obj - 1e-12);
        if (res.branched && res.limit_hit)
            hits++;
        if (!res.branched)
            cr_assert(!res.limit_hit);
    }
    cr_assert_gt(hits, 0, "no instance reached the limit of one node");
}

/* ---- the configurations and their values, on a view built by hand ---- */

static const char toy_types[] =
    "{ \"job_types\": [\n"
    "  { \"name\": \"toy-a\", \"batch\": 64, \"scaling\": \"strong\", \"precision\": \"fp32\",\n"
    "    \"params_m\": 10, \"gflops_per_sample\": 1, \"efficiency\": 0.5, \"mem_gb\": 2 },\n"
    "  { \"name\": \"toy-b\", \"batch\": 64, \"scaling\": \"strong\", \"precision\": \"fp32\",\n"
    "    \"params_m\": 10, \"gflops_per_sample\": 1, \"efficiency\": 0.5, \"mem_gb\": 2 }\n"
    "] }\n";
/* iterations/s, measured on one host of each type (consolidated) */
static const char toy_profile[] =
    "job_type,gpu,workers,placement,iters_per_s\n"
    "toy-a,T4,1,consolidated,10\ntoy-a,T4,2,consolidated,16\ntoy-a,T4,4,consolidated,20\n"
    "toy-a,V100,1,consolidated,30\ntoy-a,V100,2,consolidated,50\ntoy-a,V100,4,consolidated,60\n"
    "toy-b,T4,2,consolidated,8\ntoy-b,T4,4,consolidated,12\n"
    "toy-b,V100,2,consolidated,20\ntoy-b,V100,4,consolidated,36\n";

static catalog *tcat;
static tput *tm;
static cluster *tcl;            /* 4 T4 on PCIe, 4 V100 on NVLink: one host each */
static int t4, v100;

static void toy_setup(void)
{
    struct errbuf err;
    err_clear(&err);
    tcat = th_catalog();
    char *tp = th_write("sia_toy_types.json", toy_types);
    char *pp = th_write("sia_toy_profile.csv", toy_profile);
    cr_assert_eq(tput_create(&tm, tcat, &err), 0);
    cr_assert_eq(tput_load_types(tm, tp, &err), 0, "%s", err.msg);
    cr_assert_eq(tput_load_profile(tm, pp, &err), 0, "%s", err.msg);
    free(tp);
    free(pp);
    tcl = th_cluster(tcat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                           "{\"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 4, "
                           "\"intra\": \"pcie3\"},"
                           "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4, "
                           "\"intra\": \"nvlink2\"}]}");
    t4 = catalog_gpu_find(tcat, "T4");
    v100 = catalog_gpu_find(tcat, "V100");
}

static void toy_teardown(void)
{
    cluster_destroy(tcl);
    tput_destroy(tm);
    catalog_destroy(tcat);
}

/* the first n GPU ids of a type */
static void ids_of(int type, int n, int *ids)
{
    int k = 0;
    for (int g = 0; g < cluster_ngpus(tcl) && k < n; g++)
        if (cluster_gpu_type(tcl, g) == type)
            ids[k++] = g;
    cr_assert_eq(k, n);
}

static struct train_job toy_job(const char *type, int lo, int hi)
{
    return (struct train_job){ .jtype = tput_find(tm, type), .workers = lo, .min_workers = lo,
                               .max_workers = hi, .work = 1e6, .weight = 1, .state = JOB_QUEUED,
                               .first_start = -1, .gpu_type = -1 };
}

static void run_on(struct train_job *j, int type, int n, int *ids)
{
    ids_of(type, n, ids);
    j->state = JOB_RUNNING;
    j->gpu_type = type;
    j->ngpu = n;
    j->gpus = ids;
    j->share = OCC_WHOLE;
    j->first_start = 0;
}

/* the value of job `job`'s configuration (type, n); NAN if it has none */
static double value_of(const struct sia_cfg *c, size_t nc, int job, int type, int n)
{
    int slot = cluster_type_slot(tcl, type);
    for (size_t k = 0; k < nc; k++)
        if (c[k].job == job && c[k].type == slot && c[k].n == n)
            return c[k].v;
    return NAN;
}

Test(sia, configuration_values_by_hand, .init = toy_setup, .fini = toy_teardown)
{
    /* the rates are the table's (a consolidated placement on the measured link) */
    struct train_job jobs[2] = { toy_job("toy-a", 1, 4), toy_job("toy-b", 2, 4) };
    int held[2];
    run_on(&jobs[0], v100, 2, held);
    struct th_view tv;
    th_view_init(&tv, tcl, tm, jobs, 2, 600, 60, 30);
    cr_assert_float_eq(train_view_rate(tv.v, &jobs[0], v100, 2), 50, 1e-12);
    cr_assert_float_eq(train_view_rate(tv.v, &jobs[1], t4, 4), 12, 1e-12);
    struct sia_cfg *c = NULL;
    size_t cap = 0, nc = 0;
    cr_assert_eq(sia_configs(tv.v, 0.5, &c, &cap, &nc), 0);
    /* a round of 60 s and a restart of 30 s: every configuration but the one a job runs on
     * is worth 1 - 30 / 60 = 0.5 of its goodput term.  p = 0.5.
     * toy-a (running on 2 V100), base = its best one-GPU rate, 30 (V100):
     *   T4 1: sqrt(10/30) x 0.5 = 0.288675;  T4 2: sqrt(16/30) x 0.5 = 0.365148;
     *   T4 4: sqrt(20/30) x 0.5 = 0.408248;  V100 1: 1 x 0.5 = 0.5;
     *   V100 2 (where it runs, no penalty): sqrt(50/30) = 1.290994;  V100 4: sqrt(2) x 0.5 =
     *   0.707107.
     * toy-b (waiting, min 2 workers: no one-GPU configuration), base = its best rate on 2,
     * 20 (V100), every configuration a restart:
     *   T4 2: sqrt(8/20) x 0.5 = 0.316228;  T4 4: sqrt(12/20) x 0.5 = 0.387298;
     *   V100 2: 0.5;  V100 4: sqrt(36/20) x 0.5 = 0.670820. */
    static const struct { int job, gpu_v100, n; double v; } want[] = {
        { 0, 0, 1, 0.288675134595 }, { 0, 0, 2, 0.365148371670 }, { 0, 0, 4, 0.408248290464 },
        { 0, 1, 1, 0.5 }, { 0, 1, 2, 1.290994448736 }, { 0, 1, 4, 0.707106781187 },
        { 1, 0, 2, 0.316227766017 }, { 1, 0, 4, 0.387298334621 },
        { 1, 1, 2, 0.5 }, { 1, 1, 4, 0.670820393250 },
    };
    cr_assert_eq(nc, sizeof want / sizeof want[0], "%zu configurations", nc);
    for (size_t k = 0; k < nc; k++) {
        int type = want[k].gpu_v100 ? v100 : t4;
        double got = value_of(c, nc, want[k].job, type, want[k].n);
        cr_assert_float_eq(got, want[k].v, 1e-9, "job %d on %d %s: %.12g, by hand %.12g",
                           want[k].job, want[k].n, want[k].gpu_v100 ? "V100" : "T4", got,
                           want[k].v);
    }
    /* a shorter restart, 6 s of 60: the factor is 0.9; p = 1 */
    th_view_fini(&tv);
    th_view_init(&tv, tcl, tm, jobs, 2, 600, 60, 6);
    cr_assert_eq(sia_configs(tv.v, 1, &c, &cap, &nc), 0);
    cr_assert_float_eq(value_of(c, nc, 0, t4, 4), 20.0 / 30 * 0.9, 1e-12);     /* 0.6 */
    cr_assert_float_eq(value_of(c, nc, 0, v100, 2), 50.0 / 30, 1e-12);
    cr_assert_float_eq(value_of(c, nc, 1, v100, 4), 36.0 / 20 * 0.9, 1e-12);   /* 1.62 */
    /* a restart longer than the round: floored at 0.05 */
    th_view_fini(&tv);
    th_view_init(&tv, tcl, tm, jobs, 2, 600, 60, 90);
    cr_assert_eq(sia_configs(tv.v, 1, &c, &cap, &nc), 0);
    cr_assert_float_eq(value_of(c, nc, 0, v100, 4), 2 * 0.05, 1e-12);
    cr_assert_float_eq(value_of(c, nc, 0, v100, 2), 50.0 / 30, 1e-12);
    th_view_fini(&tv);
    free(c);
}

/* Run sia (p = 0.5) on the view: the grant of job 0, as (type, count, kept its GPUs). */
static void decide_job0(const struct th_view *tv, int *type, int *n, int *kept)
{
    struct errbuf err;
    err_clear(&err);
    policy *p;
    struct policy_env env = { 1, tcl, tm, NULL, 0 };
    cr_assert_eq(policy_open(&p, "sia", NULL, &env, &err), 0, "%s", err.msg);
    struct grant_list out;
    grant_list_init(&out);
    cr_assert_eq(policy_train_decide(p, tv->v, &out, &err), 0, "%s", err.msg);
    *type = -1;
    *n = 0;
    *kept = 0;
    for (size_t k = 0; k < out.n; k++)
        if (out.g[k].slot == 0 && out.g[k].ngpu > 0) {
            const int *ids = grant_ids(&out, &out.g[k]);
            *type = cluster_gpu_type(tcl, ids[0]);
            *n = out.g[k].ngpu;
            const struct train_job *j = &tv->v->jobs[0];
            *kept = j->ngpu == *n && memcmp(ids, j->gpus, (size_t)*n * sizeof *ids) == 0;
        }
    grant_list_fini(&out);
    policy_close(p);
}

Test(sia, a_move_must_pay_for_its_restart, .init = toy_setup, .fini = toy_teardown)
{
    /* toy-a alone, running on 4 T4: worth sqrt(20/30) = 0.816 where it is.  4 V100 would be
     * worth sqrt(60/30) = 1.414 without a restart; with a restart of 30 s in a round of 60 s,
     * 0.707, less than staying: it stays on its very GPUs.  With a restart of 6 s (factor
     * 0.9), 1.273: it moves. */
    struct train_job jobs[1] = { toy_job("toy-a", 1, 4) };
    int held[4], type, n, kept;
    run_on(&jobs[0], t4, 4, held);
    struct th_view tv;
    th_view_init(&tv, tcl, tm, jobs, 1, 600, 60, 30);
    decide_job0(&tv, &type, &n, &kept);
    cr_assert(type == t4 && n == 4 && kept, "with a 30 s restart it moved to %d GPUs of type %d",
              n, type);
    th_view_fini(&tv);
    th_view_init(&tv, tcl, tm, jobs, 1, 600, 60, 6);
    decide_job0(&tv, &type, &n, &kept);
    cr_assert(type == v100 && n == 4, "with a 6 s restart it stayed (%d GPUs of type %d)", n,
              type);
    th_view_fini(&tv);
}
