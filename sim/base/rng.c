/*
 * rng: seed derivation for named GSL streams.  FNV-1a folds the name to 64 bits, SplitMix64
 * mixes it with the experiment seed so that nearby seeds give unrelated streams.  GSL's MT19937
 * keeps only 32 bits of its seed, so the two halves of the derived seed are folded together.
 */
#include "rng.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t rng_derive_seed(uint64_t seed, const char *name)
{
    return splitmix64(seed ^ fnv1a(name));
}

gsl_rng *rng_stream(uint64_t seed, const char *name)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r == NULL)
        return NULL;
    uint64_t s = rng_derive_seed(seed, name);
    /* MT19937 seeds from 32 bits; fold the high half in so both halves matter */
    gsl_rng_set(r, (unsigned long)((s ^ (s >> 32)) & 0xffffffffUL));
    return r;
}
