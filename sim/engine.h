/*
 * engine: the simulation clock and loop.  It pops events in (time, sequence) order, advances
 * the clock and hands each event to the world's handler; it knows nothing of jobs or requests.
 *
 * Ownership: eng_create allocates the engine and its event queue, eng_destroy frees both.
 */
#ifndef HETSIM_ENGINE_H
#define HETSIM_ENGINE_H

#include <stdint.h>

#include "errbuf.h"
#include "evq.h"
#include "simtime.h"

typedef struct engine engine;

/* What the handler returns: go on, stop cleanly, or fail (message in err). */
enum { ENG_CONTINUE = 0, ENG_STOP = 1, ENG_FAIL = -1 };

typedef int (*eng_handler)(void *world, const struct evq_event *ev, struct errbuf *err);

/* Called once the last event of an instant has been handled (the next event is later, or
 * there is none): where a world makes decisions that must see everything that happened at
 * that instant.  It may schedule events at the current time; they run, then it is called again.
 * Same return convention as the handler. */
typedef int (*eng_instant_end)(void *world, struct errbuf *err);

struct eng_limits {
    simtime  until;         /* stop before the first event later than this (SIM_NEVER: none) */
    uint64_t max_events;    /* stop after this many events (0: none) */
};

/* Why eng_run returned. */
enum eng_stop { ENG_DRAINED, ENG_UNTIL, ENG_MAX_EVENTS, ENG_STOPPED, ENG_FAILED };

engine *eng_create(size_t capacity_hint);
void    eng_destroy(engine *e);

simtime  eng_now(const engine *e);
uint64_t eng_events(const engine *e);      /* events handled so far */

/* Schedule at absolute time t (>= now; an earlier time is a broken invariant). */
int  eng_at(engine *e, simtime t, uint32_t kind, uint64_t arg, evq_handle *h);
void eng_cancel(engine *e, evq_handle h);
int  eng_pending(const engine *e, evq_handle h);
size_t eng_queued(const engine *e);

/* `end` may be NULL. */
int eng_run(engine *e, eng_handler handler, eng_instant_end end, void *world,
            const struct eng_limits *lim, struct errbuf *err);

#endif
