/*
 * evq: the event queue.  A 4-ary min-heap ordered by (time, sequence number); the sequence
 * number is assigned at push, so events at equal times pop in push order on every machine.
 *
 * Ownership: evq_create allocates, evq_destroy frees.  Events are plain values copied in and
 * out; the queue never owns what `arg` refers to.  A handle stays safe to pass to
 * evq_cancel forever: once its event has popped or been cancelled, the handle is stale and
 * the call does nothing.
 *
 * Cancel is O(1): the handle names a slot and the slot's generation; cancelling bumps the
 * generation, and pop skips heap entries whose generation no longer matches.  Stale entries
 * are compacted away when they outnumber the live ones.
 */
#ifndef HETSIM_EVQ_H
#define HETSIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "../base/simtime.h"

typedef struct evq evq;

struct evq_event {
    simtime  time;
    uint32_t kind;      /* meaning chosen by the world that pushed it */
    uint64_t arg;       /* likewise: usually an entity index */
};

typedef struct evq_handle {
    uint32_t slot;
    uint32_t gen;       /* 0 means "no event" */
} evq_handle;

#define EVQ_NONE ((evq_handle){0, 0})

evq *evq_create(size_t capacity_hint);
void evq_destroy(evq *q);

/* Push an event; *out (may be NULL) receives its handle.  Returns 0, or -1 when out of memory. */
int  evq_push(evq *q, simtime time, uint32_t kind, uint64_t arg, evq_handle *out);

/* Pop the earliest live event into *out.  Returns 1 if an event was popped, 0 if empty. */
int  evq_pop(evq *q, struct evq_event *out);

/* Cancel the event behind h if it is still pending; a stale or EVQ_NONE handle is ignored. */
void evq_cancel(evq *q, evq_handle h);

/* 1 if the event behind h is still pending. */
int  evq_pending(const evq *q, evq_handle h);

/* Number of live (not cancelled) events. */
size_t evq_size(const evq *q);

/* Time of the earliest live event, SIM_NEVER when empty.  May compact stale entries. */
simtime evq_peek_time(evq *q);

/* Total events pushed so far. */
uint64_t evq_pushed(const evq *q);

#endif
