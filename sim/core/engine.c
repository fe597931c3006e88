/*
 * engine: pop, advance the clock, dispatch to the event's client; call the hooks of the
 * clients that had events at an instant when the clock is about to move.  The clock never
 * goes backwards (asserted at push).
 * Cost per event: one evq_pop, one evq_peek_time, a lookup in the client table, plus the
 * handler.
 * Invariants: a client's bit in `hooked` is set iff it is attached, not detached, and has a
 * hook; `dirty` holds a bit per client that had an event (or a touch) at `now` whose hook has
 * not run since.
 */
#include "engine.h"

#include <assert.h>
#include <stdlib.h>

struct client {
    engine_handler     handler;
    engine_instant_end end;
    void              *world;
    int                live;        /* attached and not detached */
};

struct engine {
    evq          *q;
    simtime       now;
    uint64_t      events;
    uint32_t      dirty;        /* by client bit: an event was handled at `now` and the
                                   client's hook has not run since */
    uint32_t      hooked;       /* by client bit: live, with a hook */
    int           nclients;
    uint32_t      stopper;      /* tag of the client that stopped or failed the loop */
    struct client c[ENGINE_MAX_CLIENTS];
};

engine *engine_create(size_t capacity_hint)
{
    engine *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->q = evq_create(capacity_hint);
    if (e->q == NULL) {
        free(e);
        return NULL;
    }
    return e;
}

void engine_destroy(engine *e)
{
    if (e == NULL)
        return;
    evq_destroy(e->q);
    free(e);
}

simtime engine_now(const engine *e) { return e->now; }
uint64_t engine_events(const engine *e) { return e->events; }
size_t engine_queued(const engine *e) { return evq_size(e->q); }
uint32_t engine_stopper(const engine *e) { return e->stopper; }

int engine_at(engine *e, simtime t, uint32_t kind, uint64_t arg, evq_handle *h)
{
    assert(t >= e->now);
    assert((int)(kind >> ENGINE_KIND_BITS) < (e->nclients > 0 ? e->nclients : 1));
    return evq_push(e->q, t, kind, arg, h);
}

void engine_cancel(engine *e, evq_handle h) { evq_cancel(e->q, h); }
int engine_pending(const engine *e, evq_handle h) { return evq_pending(e->q, h); }

static void set_client(engine *e, int i, engine_handler handler, engine_instant_end end,
                       void *world)
{
    e->c[i] = (struct client){ handler, end, world, 1 };
    if (end != NULL)
        e->hooked |= UINT32_C(1) << i;
    else
        e->hooked &= ~(UINT32_C(1) << i);
}

int engine_attach(engine *e, engine_handler handler, engine_instant_end end, void *world,
                  uint32_t *tag)
{
    if (e->nclients == ENGINE_MAX_CLIENTS)
        return -1;
    int i = e->nclients++;
    set_client(e, i, handler, end, world);
    *tag = (uint32_t)i << ENGINE_KIND_BITS;
    return 0;
}

void engine_detach(engine *e, uint32_t tag)
{
    uint32_t i = tag >> ENGINE_KIND_BITS;
    assert((int)i < e->nclients);
    e->c[i].live = 0;
    e->hooked &= ~(UINT32_C(1) << i);
    e->dirty &= ~(UINT32_C(1) << i);
}

void engine_touch(engine *e, uint32_t tag)
{
    uint32_t i = tag >> ENGINE_KIND_BITS;
    assert((int)i < e->nclients);
    if (e->c[i].live)
        e->dirty |= UINT32_C(1) << i;
}

int engine_run(engine *e, engine_handler handler, engine_instant_end end, void *world,
               const struct engine_limits *lim, struct errbuf *err)
{
    if (e->nclients == 0)
        e->nclients = 1;
    set_client(e, 0, handler, end, world);
    return engine_advance(e, lim, err);
}

int engine_advance(engine *e, const struct engine_limits *lim, struct errbuf *err)
{
    struct evq_event ev;
    for (;;) {
        /* the instant is over when the queue is empty or its next event is later (an event
         * at SIM_NEVER must not be mistaken for "empty") */
        uint32_t due = e->dirty & e->hooked;
        if (due != 0 && (evq_size(e->q) == 0 || evq_peek_time(e->q) != e->now)) {
            int i = __builtin_ctz(due);     /* the lowest tag first */
            e->dirty &= ~(UINT32_C(1) << i);
            int rc = e->c[i].end(e->c[i].world, err);
            if (rc == ENGINE_STOP || rc < 0) {
                e->stopper = (uint32_t)i << ENGINE_KIND_BITS;
                return rc == ENGINE_STOP ? ENGINE_STOPPED : ENGINE_FAILED;
            }
            continue;   /* it may have scheduled events at now */
        }
        if (evq_size(e->q) == 0)
            return ENGINE_DRAINED;
        if (lim->max_events != 0 && e->events >= lim->max_events)
            return ENGINE_MAX_EVENTS;
        if (lim->until != SIM_NEVER && evq_peek_time(e->q) > lim->until) {
            if (lim->until > e->now)        /* never backwards */
                e->now = lim->until;
            return ENGINE_UNTIL;
        }
        if (!evq_pop(e->q, &ev))
            return ENGINE_DRAINED;
        uint32_t i = ev.kind >> ENGINE_KIND_BITS;
        const struct client *c = &e->c[i];
        if (!c->live)                       /* a detached client's: dropped */
            continue;
        ev.kind &= ENGINE_KIND_MASK;
        e->now = ev.time;
        e->events++;
        e->dirty |= UINT32_C(1) << i;
        int rc = c->handler(c->world, &ev, err);
        if (rc == ENGINE_STOP || rc < 0) {
            e->stopper = i << ENGINE_KIND_BITS;
            return rc == ENGINE_STOP ? ENGINE_STOPPED : ENGINE_FAILED;
        }
    }
}
