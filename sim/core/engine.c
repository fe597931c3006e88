/*
 * engine: pop, advance the clock, dispatch; call the world's end-of-instant hook when the
 * clock is about to move.  The clock never goes backwards (asserted at push).
 * Cost per event: one evq_pop, one evq_peek_time, plus the handler.
 */
#include "engine.h"

#include <assert.h>
#include <stdlib.h>

struct engine {
    evq     *q;
    simtime  now;
    uint64_t events;
    int      dirty;     /* an event was handled at `now` and the hook has not run since */
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

int engine_at(engine *e, simtime t, uint32_t kind, uint64_t arg, evq_handle *h)
{
    assert(t >= e->now);
    return evq_push(e->q, t, kind, arg, h);
}

void engine_cancel(engine *e, evq_handle h) { evq_cancel(e->q, h); }
int engine_pending(const engine *e, evq_handle h) { return evq_pending(e->q, h); }

int engine_run(engine *e, engine_handler handler, engine_instant_end end, void *world,
            const struct engine_limits *lim, struct errbuf *err)
{
    struct evq_event ev;
    for (;;) {
        /* the instant is over when the queue is empty or its next event is later (an event
         * at SIM_NEVER must not be mistaken for "empty") */
        if (e->dirty && end != NULL &&
            (evq_size(e->q) == 0 || evq_peek_time(e->q) != e->now)) {
            e->dirty = 0;
            int rc = end(world, err);
            if (rc == ENGINE_STOP)
                return ENGINE_STOPPED;
            if (rc < 0)
                return ENGINE_FAILED;
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
        e->now = ev.time;
        e->events++;
        e->dirty = 1;
        int rc = handler(world, &ev, err);
        if (rc == ENGINE_STOP)
            return ENGINE_STOPPED;
        if (rc < 0)
            return ENGINE_FAILED;
    }
}
