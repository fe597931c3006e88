/*
 * test_sia: Sia's per-round integer program (sched/elastic/sia.h) against brute force — every
 * choice of at most one configuration per job that fits every GPU type — on random tiny
 * instances (2-4 jobs, 2 types, 2-6 GPUs each), and what the node limit does.  The rounding
 * alone must fall short of the optimum on some of them (else the instances would not tell
 * the exact solver from the rounding).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../sched/elastic/sia.h"

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
