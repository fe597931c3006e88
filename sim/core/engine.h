/*
 * engine: the simulation clock and loop.  It pops events in (time, sequence) order, advances
 * the clock and hands each event to the handler of the world that pushed it; it knows nothing
 * of jobs or requests.
 *
 * Clients.  Several worlds may share one engine (co-simulation: sim/colocate), each attached
 * as a client with its own handler and end-of-instant hook.  engine_attach gives a client its
 * tag, and the client ORs the tag into the kind of every event it pushes: the top
 * ENGINE_CLIENT_BITS bits of a kind name the client, the low ENGINE_KIND_BITS are the
 * world's own kind.  The engine hands each event to its client's handler with the tag
 * stripped, so a world sees exactly the kinds it pushed.  Events of all clients share one
 * queue and one clock: at equal times they run in push order, whoever pushed them.  Client 0's
 * tag is 0, so a world alone on an engine (engine_run, the one-world case) pushes its kinds
 * unchanged and its events are dispatched as before clients existed.
 *
 * The end of an instant.  The engine remembers which clients had an event at the current
 * instant (or were touched: engine_touch, for a world whose state another changed through the
 * broker); once the instant is over (the next event is later, or there is none) it calls the
 * hook of each such client, lowest tag first, one at a time, going back to the queue after
 * each call, since a hook may schedule events at the current time.  With one client this is
 * the hook called once per instant, again after it schedules events at now.
 *
 * A client that stops (ENGINE_STOP from its handler or hook) stops the whole loop:
 * engine_advance returns ENGINE_STOPPED and engine_stopper names it; whoever steps the engine
 * decides whether to detach it (its pending events are then dropped as they come up, and its
 * hook is no longer called) and advance again.
 *
 * Ownership: engine_create allocates the engine and its event queue, engine_destroy frees both.
 * Clients' contexts are borrowed.
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

/* A kind's bits: the world's own below ENGINE_KIND_BITS, its client's tag above. */
enum { ENGINE_KIND_BITS = 24, ENGINE_CLIENT_BITS = 32 - ENGINE_KIND_BITS,
       ENGINE_MAX_CLIENTS = 32 };
#define ENGINE_KIND_MASK ((UINT32_C(1) << ENGINE_KIND_BITS) - 1)

engine *engine_create(size_t capacity_hint);
void    engine_destroy(engine *e);

simtime  engine_now(const engine *e);
uint64_t engine_events(const engine *e);      /* events handled so far */

/* Schedule at absolute time t (>= now; an earlier time is a broken invariant).  `kind` is the
 * world's kind ORed with its client's tag. */
int  engine_at(engine *e, simtime t, uint32_t kind, uint64_t arg, evq_handle *h);
void engine_cancel(engine *e, evq_handle h);
int  engine_pending(const engine *e, evq_handle h);
size_t engine_queued(const engine *e);

/* The one-world case: run with `handler`, `end` (may be NULL) and `world` as client 0 (in
 * place of whatever client 0 was), until the queue drains or a limit. */
int engine_run(engine *e, engine_handler handler, engine_instant_end end, void *world,
            const struct engine_limits *lim, struct errbuf *err);

/* Attach a client (`end` may be NULL); *tag receives the bits to OR into its kinds.  0, or -1
 * when ENGINE_MAX_CLIENTS are attached. */
int  engine_attach(engine *e, engine_handler handler, engine_instant_end end, void *world,
                   uint32_t *tag);
/* The client of `tag` no longer runs: its events are dropped as they come up (not counted),
 * its hook is not called. */
void engine_detach(engine *e, uint32_t tag);
/* Call the hook of the client of `tag` at the end of the current instant, as if it had had an
 * event (a world whose GPUs another changed must decide again). */
void engine_touch(engine *e, uint32_t tag);
/* Run the attached clients until the queue drains or a limit (enum engine_stop). */
int  engine_advance(engine *e, const struct engine_limits *lim, struct errbuf *err);
/* The tag of the client whose ENGINE_STOP or ENGINE_FAIL ended the last engine_advance. */
uint32_t engine_stopper(const engine *e);

#endif
