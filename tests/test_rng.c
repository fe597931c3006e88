/*
 * test_rng: named random streams (sim/base/rng.h) — the documented seed derivation (SplitMix64 of
 * seed ^ FNV-1a(name)) against values computed independently, the stream being MT19937 on
 * that seed folded to 32 bits, reproducibility, independence of names and seeds, and that
 * drawing from one stream never shifts another.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "../sim/base/rng.h"

enum { DRAWS = 1000 };

static void draw(gsl_rng *r, unsigned long *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = gsl_rng_get(r);
}

static gsl_rng *stream(uint64_t seed, const char *name)
{
    gsl_rng *r = rng_stream(seed, name);
    cr_assert_not_null(r, "rng_stream(%llu, \"%s\")", (unsigned long long)seed, name);
    return r;
}

/* How many of a's first n values occur anywhere among b's first n: a shifted copy of a
 * stream, or the same stream, would share almost all of them. */
static int common_values(const unsigned long *a, const unsigned long *b, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (a[i] == b[j]) {
                k++;
                break;
            }
    return k;
}

Test(rng, derived_seed_matches_hand_computed)
{
    /* values from an independent implementation of SplitMix64(seed ^ FNV-1a-64(name)), with
     * the FNV-1a offset basis 0xcbf29ce484222325 (= 14695981039346656037) */
    static const struct { uint64_t seed; const char *name; uint64_t want; } cases[] = {
        { 1, "arrivals", UINT64_C(0xa0756a12c9b7b6b5) },
        { 0, "", UINT64_C(0xc3817c016ba4ff30) },       /* SplitMix64 of the bare basis */
        { 42, "durations", UINT64_C(0xb02c468d06b48099) },
    };
    for (int i = 0; i < 3; i++) {
        uint64_t got = rng_derive_seed(cases[i].seed, cases[i].name);
        cr_assert_eq(got, cases[i].want, "rng_derive_seed(%llu, \"%s\") = %#llx, expected %#llx",
                     (unsigned long long)cases[i].seed, cases[i].name, (unsigned long long)got,
                     (unsigned long long)cases[i].want);
    }
}

Test(rng, stream_is_mt19937_on_folded_seed)
{
    /* first outputs of MT19937 seeded (init_genrand) with 0x69c2dca7, the 32-bit fold of
     * rng_derive_seed(1, "arrivals"), from an independent implementation */
    static const unsigned long want[] = { 3008379012UL, 3179703593UL, 388959048UL };
    gsl_rng *r = stream(1, "arrivals");
    cr_assert_str_eq(gsl_rng_name(r), "mt19937");
    for (int i = 0; i < 3; i++) {
        unsigned long v = gsl_rng_get(r);
        cr_assert_eq(v, want[i], "draw %d: %lu, expected %lu", i, v, want[i]);
    }
    gsl_rng_free(r);
}

Test(rng, same_seed_and_name_same_sequence)
{
    static const char *const names[] = { "arrivals", "job_types", "workers", "durations",
                                         "users", "" };
    for (int k = 0; k < 6; k++) {
        gsl_rng *a = stream(7, names[k]), *b = stream(7, names[k]);
        unsigned long va[DRAWS], vb[DRAWS];
        draw(a, va, DRAWS);
        draw(b, vb, DRAWS);
        for (int i = 0; i < DRAWS; i++)
            cr_assert_eq(va[i], vb[i], "stream \"%s\" draw %d differs between two opens",
                         names[k], i);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
}

Test(rng, different_names_or_seeds_unrelated)
{
    /* The workload's own stream names under one seed, and neighbouring seeds under one
     * name: all pairwise unrelated (no shared values in the first 1000 draws). */
    enum { K = 9 };
    static const struct { uint64_t seed; const char *name; } cases[K] = {
        { 1, "arrivals" }, { 1, "job_types" }, { 1, "workers" }, { 1, "durations" },
        { 1, "users" }, { 1, "arrival" }, { 0, "arrivals" }, { 2, "arrivals" },
        { UINT64_C(1) << 32 | 1, "arrivals" },   /* differs from seed 1 only in the high half */
    };
    static unsigned long v[K][DRAWS];
    for (int k = 0; k < K; k++) {
        gsl_rng *r = stream(cases[k].seed, cases[k].name);
        draw(r, v[k], DRAWS);
        gsl_rng_free(r);
    }
    for (int a = 0; a < K; a++)
        for (int b = a + 1; b < K; b++) {
            int c = common_values(v[a], v[b], DRAWS);
            cr_assert_lt(c, 3, "streams (%llu, \"%s\") and (%llu, \"%s\") share %d of %d "
                         "values", (unsigned long long)cases[a].seed, cases[a].name,
                         (unsigned long long)cases[b].seed, cases[b].name, c, DRAWS);
        }
}

Test(rng, one_stream_does_not_shift_another)
{
    /* durations drawn alone, then again while arrivals and a new stream are drawn in between */
    unsigned long alone[DRAWS], mixed[DRAWS];
    gsl_rng *d = stream(5, "durations");
    draw(d, alone, DRAWS);
    gsl_rng_free(d);

    d = stream(5, "durations");
    gsl_rng *a = stream(5, "arrivals"), *extra = stream(5, "a_new_purpose");
    for (int i = 0; i < DRAWS; i++) {
        for (int k = 0; k < i % 4; k++)
            gsl_rng_get(a);
        if (i % 3 == 0)
            gsl_rng_uniform(extra);
        mixed[i] = gsl_rng_get(d);
    }
    for (int i = 0; i < DRAWS; i++)
        cr_assert_eq(mixed[i], alone[i], "draw %d of \"durations\" shifted by other streams", i);
    gsl_rng_free(d);
    gsl_rng_free(a);
    gsl_rng_free(extra);
}
