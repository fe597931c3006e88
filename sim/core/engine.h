/*
 * engine: the simulation clock and loop.  It pops events in (time, sequence) order, advances
 * the clock and hands each event to the world's handler; it knows nothing of jobs or requests.
 *
 * Ownership: engine_create allocates the engine and its event queue, engine_destroy frees both.
 */
#ifndef HETSIM_ENGINE_H
#define HETSIM_ENGINE_H

#include <stdint.h>

#include "../base/err.h"
#include "evq.h"
#include "../base/simtime.h"

typedef struct engine engine;

/* What the handler returns: go on, stop cleanly, or fail (message in err). */
enum { ENGINE_CONTINUE = 0, ENGINE_STOP = 1, ENGINE_FAIL = -1 };

typedef int (*engine_handler)(void *world, const struct evq_event *ev, struct errbuf *err);

/* Called once the last event of an instant has been handled (the next event is later, or
 * there is none): where a world makes decisions that must see everything that happened at
 * that instant.  It may schedule events at the current time; they run, then it is called again.
 * Same return convention as the handler. */
typedef int (*engine_instant_end)(void *world, struct errbuf *err);

struct engine_limits {
    simtime  until;         /* stop before the first event later than this (SIM_NEVER: none) */
    uint64_t max_events;    /* stop after this many events (0: none) */
};

/* Why engine_run returned; ENGINE_STALLED is a world's own verdict on an ENGINE_STOPPED run
 * (nothing it could still do would change its state: run.h's "stalled"). */
enum engine_stop { ENGINE_DRAINED, ENGINE_UNTIL, ENGINE_MAX_EVENTS, ENGINE_STOPPED, ENGINE_FAILED,
                   ENGINE_STALLED };

engine *engine_create(size_t capacity_hint);
void    engine_destroy(engine *e);

simtime  engine_now(const engine *e);
uint64_t engine_events(const engine *e);      /* events handled so far */

/* Schedule at absolute time t (>= now; an earlier time is a broken invariant). */
int  engine_at(engine *e, simtime t, uint32_t kind, uint64_t arg, evq_handle *h);
void engine_cancel(engine *e, evq_handle h);
int  engine_pending(const engine *e, evq_handle h);
size_t engine_queued(const engine *e);

/* `end` may be NULL. */
int engine_run(engine *e, engine_handler handler, engine_instant_end end, void *world,
            const struct engine_limits *lim, struct errbuf *err);

#endif
