/*
 * rng: named random streams, all derived from the experiment's seed.
 *
 * Each purpose (arrivals, job sizes, durations, noise, a policy's tie-breaks ...) draws from its
 * own GSL generator whose seed is a hash of (experiment seed, purpose name).  Using one stream
 * more or less therefore never shifts the numbers of another, and adding a purpose later does
 * not change existing runs.
 *
 * Ownership: rng_stream returns a generator the caller frees with gsl_rng_free.
 */
#ifndef HETSIM_RNG_H
#define HETSIM_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/* The 64-bit seed of stream `name` under experiment seed `seed` (SplitMix64 of seed ^ FNV-1a). */
uint64_t rng_derive_seed(uint64_t seed, const char *name);

/* A new MT19937 generator for stream `name`; NULL when out of memory. */
gsl_rng *rng_stream(uint64_t seed, const char *name);

#endif
