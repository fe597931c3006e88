/*
 * plain_heap: the bench's yardstick for the event core (tests/bench.c) -- a plain 4-ary min-heap
 * on (time, seq) of the event core's 32-byte entries, with no slots and no cancel.  It lives in
 * its own translation unit so that the bench calls it as it calls sim/core/evq.c, not inlined.
 */
#ifndef HETSIM_PLAIN_HEAP_H
#define HETSIM_PLAIN_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/base/simtime.h"

struct plain_entry {
    simtime  time;
    uint64_t seq;
    uint64_t arg;
    uint32_t kind;
};

struct plain_heap {
    struct plain_entry *h;
    size_t              n, cap;
    uint64_t            seq;
};

/* Push (time, kind, arg), growing the array as needed; aborts when out of memory. */
void plain_push(struct plain_heap *q, simtime time, uint32_t kind, uint64_t arg);

/* Pop the earliest entry; the heap must not be empty. */
struct plain_entry plain_pop(struct plain_heap *q);

#endif
