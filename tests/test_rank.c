/*
 * test_rank: the order kept across decisions (sched/rank.h) against a full sort.  After every
 * decision of long random sequences — members joining, leaving, slots reused by new ids, keys
 * falling (srtf's remaining times), stepping through a few values (tiresias's queues), or
 * jumping anywhere, with many ties — rank_order must give exactly the members set since
 * rank_begin, in the order qsort by (key, id) gives.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "../sched/rank.h"

enum { NSLOT = 400 };

struct member {
    int     in;             /* a member now */
    int64_t id;
    double  key;
};

static int by_key_id(const void *a, const void *b)
{
    const struct rank_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

enum mode { FALLING, STEPS, ANYWHERE, MIXED };

static double new_key(gsl_rng *g, enum mode mode)
{
    switch (mode) {
    case STEPS:
        return (double)gsl_rng_uniform_int(g, 4);
    case ANYWHERE:
        return (double)gsl_rng_uniform_int(g, 50);     /* many ties */
    default:
        return gsl_rng_uniform(g) * 1000;
    }
}

/* The next key of a member that stays. */
static double next_key(gsl_rng *g, enum mode mode, double key)
{
    if (mode == MIXED)
        mode = (enum mode)gsl_rng_uniform_int(g, 3);
    double u = gsl_rng_uniform(g);
    switch (mode) {
    case FALLING:       /* most fall at one pace, some slower, some not at all */
        if (u < 0.6)
            return key - 1;
        if (u < 0.8)
            return key - 0.5 * gsl_rng_uniform(g);
        return key;
    case STEPS:         /* demotion by one, promotion to 0, mostly nothing */
        if (u < 0.05)
            return key + 1;
        if (u < 0.08)
            return 0;
        return key;
    default:
        return u < 0.3 ? new_key(g, ANYWHERE) : key;
    }
}

static void run(unsigned long seed, enum mode mode, int rounds)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    rank *r = rank_create();
    cr_assert_not_null(r);
    struct member m[NSLOT] = { { 0 } };
    struct rank_entry *want = malloc(NSLOT * sizeof *want);
    int order[NSLOT];
    int64_t next_id = 0;
    cr_assert_not_null(want);
    for (int round = 0; round < rounds; round++) {
        /* who is a member this decision, and with which key */
        double join = round < rounds / 4 ? 0.2 : 0.03, leave = 0.03;
        if (gsl_rng_uniform(g) < 0.02)
            leave = 0.5;                /* now and then, many leave at once */
        for (int s = 0; s < NSLOT; s++) {
            if (m[s].in && gsl_rng_uniform(g) < leave)
                m[s].in = 0;
            else if (m[s].in)
                m[s].key = next_key(g, mode, m[s].key);
            else if (gsl_rng_uniform(g) < join)
                m[s] = (struct member){ 1, next_id++, new_key(g, mode == MIXED ? ANYWHERE : mode) };
        }
        /* set them in a random order, as a policy walking its own lists would */
        int n = 0;
        for (int s = 0; s < NSLOT; s++)
            if (m[s].in)
                order[n++] = s;
        for (int i = n - 1; i > 0; i--) {
            int k = (int)gsl_rng_uniform_int(g, (unsigned long)i + 1), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
        rank_begin(r);
        for (int i = 0; i < n; i++) {
            int s = order[i];
            cr_assert_eq(rank_set(r, s, m[s].id, m[s].key), 0);
            want[i] = (struct rank_entry){ m[s].key, m[s].id, s, 0 };
        }
        qsort(want, (size_t)n, sizeof *want, by_key_id);
        const struct rank_entry *got;
        size_t ng = rank_order(r, &got);
        cr_assert_eq(ng, (size_t)n, "seed %lu mode %d round %d: %zu members, want %d", seed,
                     mode, round, ng, n);
        for (int i = 0; i < n; i++)
            cr_assert(got[i].id == want[i].id && got[i].slot == want[i].slot &&
                      got[i].key == want[i].key,
                      "seed %lu mode %d round %d, place %d: id %lld (key %g), want id %lld "
                      "(key %g)", seed, mode, round, i, (long long)got[i].id, got[i].key,
                      (long long)want[i].id, want[i].key);
    }
    free(want);
    rank_destroy(r);
    gsl_rng_free(g);
}

Test(rank, falling_keys_match_a_full_sort)
{
    for (unsigned long seed = 1; seed <= 4; seed++)
        run(seed, FALLING, 600);
}

Test(rank, queue_steps_match_a_full_sort)
{
    for (unsigned long seed = 1; seed <= 4; seed++)
        run(seed, STEPS, 600);
}

Test(rank, keys_anywhere_match_a_full_sort)
{
    for (unsigned long seed = 1; seed <= 4; seed++)
        run(seed, ANYWHERE, 600);
}

Test(rank, mixed_changes_match_a_full_sort)
{
    for (unsigned long seed = 1; seed <= 4; seed++)
        run(seed, MIXED, 600);
}

Test(rank, by_hand)
{
    rank *r = rank_create();
    const struct rank_entry *e;
    rank_begin(r);
    rank_set(r, 0, 10, 5);
    rank_set(r, 1, 11, 3);
    rank_set(r, 2, 12, 5);
    cr_assert_eq(rank_order(r, &e), 3);
    cr_assert(e[0].id == 11 && e[1].id == 10 && e[2].id == 12);    /* ties by id */
    /* 10 rises past 12, 12 falls below 11; slot 1 now holds a new job 13, equal to 12 */
    rank_begin(r);
    rank_set(r, 0, 10, 9);
    rank_set(r, 2, 12, 1);
    rank_set(r, 1, 13, 1);
    cr_assert_eq(rank_order(r, &e), 3);
    cr_assert(e[0].id == 12 && e[1].id == 13 && e[2].id == 10);
    cr_assert(e[1].slot == 1 && e[1].key == 1);
    /* a member not set leaves; one set but never ordered is not a member */
    rank_begin(r);
    rank_set(r, 0, 10, 9);
    rank_set(r, 3, 14, 0);
    rank_begin(r);
    rank_set(r, 0, 10, 9);
    cr_assert_eq(rank_order(r, &e), 1);
    cr_assert(e[0].id == 10);
    rank_destroy(r);
}
