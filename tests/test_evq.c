/*
 * test_evq: the event queue (sim/core/evq.h) against a reference model — a plain array of every
 * event ever pushed, whose next pop is the pending one with the least (time, push order).
 * Covers FIFO tie-breaking, cancel and pending on live, stale and EVQ_NONE handles, slot
 * reuse, compaction (both the cancel-driven and the push-driven path) and evq_peek_time.
 */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "../sim/core/evq.h"

/* One event as the reference model sees it. */
struct ref_ev {
    simtime    time;
    uint32_t   kind;
    uint64_t   arg;
    evq_handle h;
    int        pending;
};

struct ref {
    struct ref_ev *ev;      /* indexed by push order, so the index is the tie-break */
    size_t         n, cap, live;
};

/* Push with a handle, or without one when `handle` is 0 (such an event cannot be cancelled). */
static size_t ref_push_as(struct ref *r, evq *q, simtime t, uint32_t kind, int handle)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        cr_assert_not_null(r->ev);
    }
    struct ref_ev *e = &r->ev[r->n];
    *e = (struct ref_ev){ t, kind, r->n, EVQ_NONE, 1 };
    cr_assert_eq(evq_push(q, t, kind, e->arg, handle ? &e->h : NULL), 0, "push %zu failed",
                 r->n);
    if (handle)
        cr_assert_neq(e->h.gen, 0, "push %zu returned the EVQ_NONE generation", r->n);
    r->live++;
    return r->n++;
}

static size_t ref_push(struct ref *r, evq *q, simtime t, uint32_t kind)
{
    return ref_push_as(r, q, t, kind, 1);
}

static int ref_has_handle(const struct ref_ev *e)
{
    return e->h.gen != 0;
}

/* Index of the pending event that must pop next, or SIZE_MAX if none. */
static size_t ref_next(const struct ref *r)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < r->n; i++)
        if (r->ev[i].pending && (best == SIZE_MAX || r->ev[i].time < r->ev[best].time))
            best = i;   /* strict <: among equal times the earliest push wins */
    return best;
}

static void ref_cancel(struct ref *r, evq *q, size_t i)
{
    evq_cancel(q, r->ev[i].h);      /* EVQ_NONE for a push without a handle: a no-op */
    if (r->ev[i].pending && ref_has_handle(&r->ev[i])) {
        r->ev[i].pending = 0;
        r->live--;
    }
}

/* Pop one event and check it against the reference. */
static void ref_pop_check(struct ref *r, evq *q)
{
    size_t want = ref_next(r);
    struct evq_event got;
    int rc = evq_pop(q, &got);
    if (want == SIZE_MAX) {
        cr_assert_eq(rc, 0, "pop from an empty queue returned an event (arg %llu)",
                     (unsigned long long)got.arg);
        return;
    }
    const struct ref_ev *w = &r->ev[want];
    cr_assert_eq(rc, 1, "pop returned nothing; expected push #%zu at t=%lld", want,
                 (long long)w->time);
    cr_assert(got.time == w->time && got.kind == w->kind && got.arg == w->arg,
              "popped (t=%lld, kind=%u, arg=%llu), expected push #%zu (t=%lld, kind=%u)",
              (long long)got.time, got.kind, (unsigned long long)got.arg, want,
              (long long)w->time, w->kind);
    if (ref_has_handle(w))
        cr_assert_eq(evq_pending(q, w->h), 0, "handle of popped push #%zu still pending",
                     want);
    r->ev[want].pending = 0;
    r->live--;
}

static void ref_check_size(const struct ref *r, evq *q)
{
    cr_assert_eq(evq_size(q), r->live, "evq_size %zu, reference %zu", evq_size(q), r->live);
}

static void ref_drain_check(struct ref *r, evq *q)
{
    while (r->live > 0)
        ref_pop_check(r, q);
    ref_pop_check(r, q);
    cr_assert_eq(evq_size(q), 0);
    cr_assert_eq(evq_peek_time(q), SIM_NEVER, "peek on a drained queue");
}

Test(evq, empty_queue)
{
    evq *q = evq_create(0);
    cr_assert_not_null(q);
    struct evq_event ev;
    cr_assert_eq(evq_pop(q, &ev), 0, "pop on an empty queue");
    cr_assert_eq(evq_size(q), 0);
    cr_assert_eq(evq_pushed(q), 0);
    cr_assert_eq(evq_peek_time(q), SIM_NEVER, "peek on an empty queue");
    cr_assert_eq(evq_pending(q, EVQ_NONE), 0, "EVQ_NONE is never pending");
    evq_cancel(q, EVQ_NONE);
    evq_cancel(q, (evq_handle){ 12345, 7 });      /* a slot that never existed */
    cr_assert_eq(evq_size(q), 0);
    evq_destroy(q);
}

Test(evq, equal_times_pop_in_push_order)
{
    /* Times cycle over a few values so each time gets many ties pushed far apart in the
     * heap's history; pops interleaved with pushes move entries around between ties. */
    evq *q = evq_create(4);
    static const simtime times[] = { 50, 10, 30, 10, 50, 20, 30, 10 };
    uint64_t last_arg[64] = { 0 };
    int seen[64] = { 0 };
    uint64_t arg = 0;
    for (int round = 0; round < 40; round++) {
        for (int k = 0; k < 8; k++, arg++)
            cr_assert_eq(evq_push(q, times[k], (uint32_t)times[k], arg, NULL), 0);
        struct evq_event ev;
        if (round % 3 == 2) {   /* pop a few mid-stream: the 10s must come out in order */
            for (int k = 0; k < 5; k++) {
                cr_assert_eq(evq_pop(q, &ev), 1);
                cr_assert_eq(ev.time, 10, "time-10 events were pushed before any pop");
                cr_assert(!seen[10] || ev.arg > last_arg[10], "t=10: arg %llu after %llu",
                          (unsigned long long)ev.arg, (unsigned long long)last_arg[10]);
                seen[10] = 1;
                last_arg[10] = ev.arg;
            }
        }
    }
    struct evq_event ev;
    simtime prev = 0;
    while (evq_pop(q, &ev)) {
        cr_assert_geq(ev.time, prev, "time went back from %lld to %lld", (long long)prev,
                      (long long)ev.time);
        cr_assert_eq(ev.kind, (uint32_t)ev.time, "payload mixed up");
        cr_assert(!seen[ev.time] || ev.arg > last_arg[ev.time],
                  "t=%lld: arg %llu popped after arg %llu (FIFO tie-break broken)",
                  (long long)ev.time, (unsigned long long)ev.arg,
                  (unsigned long long)last_arg[ev.time]);
        seen[ev.time] = 1;
        last_arg[ev.time] = ev.arg;
        prev = ev.time;
    }
    evq_destroy(q);
}

Test(evq, random_ops_match_reference)
{
    /* Few distinct times (many ties), pops and cancels interleaved; cancels hit live,
     * popped and already-cancelled handles alike; a third of the pushes take no handle (and
     * no slot), so that events with and without slots share the heap. */
    for (unsigned long seed = 1; seed <= 8; seed++) {
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, seed);
        evq *q = evq_create(seed % 2 ? 0 : 256);
        struct ref ref = { 0 };
        simtime span = seed <= 4 ? 20 : 100000;
        for (int op = 0; op < 6000; op++) {
            double u = gsl_rng_uniform(r);
            if (u < 0.50) {
                ref_push_as(&ref, q, (simtime)gsl_rng_uniform_int(r, (unsigned long)span),
                            (uint32_t)gsl_rng_uniform_int(r, 1000), u >= 1.0 / 6);
            } else if (u < 0.75) {
                ref_pop_check(&ref, q);
            } else if (ref.n > 0) {
                ref_cancel(&ref, q, gsl_rng_uniform_int(r, ref.n));
            }
            ref_check_size(&ref, q);
            if (ref.n > 0) {
                size_t i = gsl_rng_uniform_int(r, ref.n);
                int want = ref.ev[i].pending && ref_has_handle(&ref.ev[i]);
                cr_assert_eq(evq_pending(q, ref.ev[i].h), want,
                             "seed %lu op %d: evq_pending of push #%zu", seed, op, i);
            }
            if (op % 97 == 0) {
                size_t nx = ref_next(&ref);
                simtime want = nx == SIZE_MAX ? SIM_NEVER : ref.ev[nx].time;
                cr_assert_eq(evq_peek_time(q), want, "seed %lu op %d: peek", seed, op);
                ref_check_size(&ref, q);
            }
        }
        cr_assert_eq(evq_pushed(q), ref.n, "evq_pushed counts every push");
        ref_drain_check(&ref, q);
        free(ref.ev);
        evq_destroy(q);
        gsl_rng_free(r);
    }
}

Test(evq, large_heap_pops_sorted)
{
    /* Deep heap (5 levels of 4-ary and more), no cancels: pure ordering. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    evq *q = evq_create(16);
    enum { N = 200000 };
    for (uint64_t i = 0; i < N; i++)
        cr_assert_eq(evq_push(q, (simtime)gsl_rng_uniform_int(r, 5000), 0, i, NULL), 0);
    cr_assert_eq(evq_size(q), N);
    struct evq_event prev = { -1, 0, 0 }, ev;
    size_t n = 0;
    while (evq_pop(q, &ev)) {
        cr_assert(ev.time > prev.time || (ev.time == prev.time && ev.arg > prev.arg),
                  "pop %zu: (t=%lld, arg=%llu) after (t=%lld, arg=%llu)", n,
                  (long long)ev.time, (unsigned long long)ev.arg, (long long)prev.time,
                  (unsigned long long)prev.arg);
        prev = ev;
        n++;
    }
    cr_assert_eq(n, N, "popped %zu of %d", n, N);
    evq_destroy(q);
    gsl_rng_free(r);
}

Test(evq, cancel_and_pending)
{
    evq *q = evq_create(0);
    evq_handle a, b, c;
    cr_assert_eq(evq_push(q, 5, 1, 100, &a), 0);
    cr_assert_eq(evq_push(q, 3, 2, 200, &b), 0);
    cr_assert_eq(evq_push(q, 7, 3, 300, &c), 0);
    cr_assert(evq_pending(q, a) && evq_pending(q, b) && evq_pending(q, c));
    cr_assert_eq(evq_size(q), 3);

    evq_cancel(q, b);
    cr_assert_eq(evq_pending(q, b), 0, "cancelled event still pending");
    cr_assert_eq(evq_size(q), 2);
    evq_cancel(q, b);
    cr_assert_eq(evq_size(q), 2, "second cancel of the same handle changed the size");
    cr_assert_eq(evq_peek_time(q), 5, "peek must skip the cancelled earliest event");
    cr_assert_eq(evq_size(q), 2, "peek changed the size");

    struct evq_event ev;
    cr_assert_eq(evq_pop(q, &ev), 1);
    cr_assert(ev.time == 5 && ev.kind == 1 && ev.arg == 100, "popped t=%lld arg=%llu",
              (long long)ev.time, (unsigned long long)ev.arg);
    cr_assert_eq(evq_pending(q, a), 0, "popped event still pending");
    evq_cancel(q, a);
    cr_assert_eq(evq_size(q), 1, "cancel after pop changed the size");
    cr_assert(evq_pending(q, c), "cancel after pop hit another event");

    evq_cancel(q, c);
    cr_assert_eq(evq_size(q), 0);
    cr_assert_eq(evq_peek_time(q), SIM_NEVER, "peek with only cancelled entries left");
    cr_assert_eq(evq_pop(q, &ev), 0, "pop returned a cancelled event");
    cr_assert_eq(evq_pushed(q), 3, "cancels must not change evq_pushed");
    evq_destroy(q);
}

Test(evq, stale_handle_does_not_touch_slot_reuser)
{
    evq *q = evq_create(0);
    struct evq_event ev;
    /* freed by pop */
    evq_handle old, fresh;
    cr_assert_eq(evq_push(q, 1, 0, 1, &old), 0);
    cr_assert_eq(evq_pop(q, &ev), 1);
    cr_assert_eq(evq_push(q, 2, 0, 2, &fresh), 0);
    cr_assert_eq(fresh.slot, old.slot, "expected the freed slot to be reused (test premise)");
    cr_assert_neq(fresh.gen, old.gen, "a reused slot must get a new generation");
    cr_assert_eq(evq_pending(q, old), 0, "stale handle reports the new event as its own");
    evq_cancel(q, old);
    cr_assert(evq_pending(q, fresh), "stale handle cancelled the slot's new event");
    cr_assert_eq(evq_size(q), 1);

    /* freed by cancel, while the stale heap entry is still in the heap */
    evq_handle gone, next;
    cr_assert_eq(evq_push(q, 1, 0, 3, &gone), 0);
    evq_cancel(q, gone);
    cr_assert_eq(evq_push(q, 1, 0, 4, &next), 0);
    cr_assert_eq(next.slot, gone.slot, "expected the cancelled slot to be reused (test premise)");
    evq_cancel(q, gone);
    cr_assert(evq_pending(q, next), "stale handle cancelled the slot's new event");
    cr_assert_eq(evq_pop(q, &ev), 1);
    cr_assert(ev.time == 1 && ev.arg == 4, "expected the reuser (t=1, arg=4), got t=%lld arg=%llu",
              (long long)ev.time, (unsigned long long)ev.arg);
    cr_assert_eq(evq_pop(q, &ev), 1);
    cr_assert(ev.time == 2 && ev.arg == 2, "got t=%lld arg=%llu", (long long)ev.time,
              (unsigned long long)ev.arg);
    cr_assert_eq(evq_pop(q, &ev), 0, "the cancelled entry came back");
    evq_destroy(q);
}

Test(evq, compaction_on_mass_cancel_keeps_order)
{
    /* 20000 events over few times, 95% cancelled: cancel-driven compaction runs many times.
     * The survivors take no handle, so compaction must keep events without slots. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    evq *q = evq_create(0);
    struct ref ref = { 0 };
    for (int i = 0; i < 20000; i++)
        ref_push_as(&ref, q, (simtime)gsl_rng_uniform_int(r, 300), (uint32_t)i, i % 20 != 7);
    for (size_t i = 0; i < ref.n; i++)
        if (i % 20 != 7)
            ref_cancel(&ref, q, i);
    ref_check_size(&ref, q);
    cr_assert_eq(evq_size(q), 1000);
    for (size_t i = 0; i < ref.n; i++)
        if (ref_has_handle(&ref.ev[i]))
            cr_assert_eq(evq_pending(q, ref.ev[i].h), ref.ev[i].pending, "pending of push #%zu",
                         i);
    size_t nx = ref_next(&ref);
    cr_assert_eq(evq_peek_time(q), ref.ev[nx].time);
    /* new pushes after compaction still tie-break after the survivors */
    for (int i = 0; i < 2000; i++)
        ref_push(&ref, q, (simtime)gsl_rng_uniform_int(r, 300), 7);
    ref_drain_check(&ref, q);
    free(ref.ev);
    evq_destroy(q);
    gsl_rng_free(r);
}

Test(evq, compaction_on_push_keeps_order)
{
    /* Small queue (below the cancel-compaction threshold): filling the heap with half of it
     * stale makes the next push compact instead of growing.  All at one time: FIFO must hold. */
    evq *q = evq_create(16);
    struct ref ref = { 0 };
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 16; i++)
            ref_push(&ref, q, 9, (uint32_t)round);
        for (size_t i = ref.n - 16; i < ref.n; i += 2)
            ref_cancel(&ref, q, i);
        ref_check_size(&ref, q);
        if (round % 5 == 4)
            for (int k = 0; k < 7; k++)
                ref_pop_check(&ref, q);
    }
    ref_drain_check(&ref, q);
    free(ref.ev);
    evq_destroy(q);
}

Test(evq, compaction_rebuilds_a_valid_heap)
{
    /* Many small queues (just above the cancel-compaction threshold of 64 entries), most
     * entries cancelled in random order, so the compacted arrays come in many shapes; each
     * is then filled up again and drained against the reference.  Every third event takes
     * no handle. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (int trial = 0; trial < 400; trial++) {
        evq *q = evq_create(16);
        struct ref ref = { 0 };
        size_t m = 65 + gsl_rng_uniform_int(r, 200);
        for (size_t i = 0; i < m; i++)
            ref_push_as(&ref, q, (simtime)gsl_rng_uniform_int(r, m), (uint32_t)trial, i % 3);
        for (size_t k = 0; k < m; k++)
            if (gsl_rng_uniform(r) < 0.8)
                ref_cancel(&ref, q, gsl_rng_uniform_int(r, ref.n));
        ref_check_size(&ref, q);
        for (size_t i = 0; i < m / 4; i++)
            ref_push(&ref, q, (simtime)gsl_rng_uniform_int(r, m), (uint32_t)trial);
        ref_drain_check(&ref, q);
        free(ref.ev);
        evq_destroy(q);
    }
    gsl_rng_free(r);
}

Test(evq, peek_time_tracks_earliest_live)
{
    evq *q = evq_create(0);
    evq_handle h[5];
    static const simtime t[5] = { 40, 10, 30, 10, 20 };
    for (int i = 0; i < 5; i++)
        cr_assert_eq(evq_push(q, t[i], 0, (uint64_t)i, &h[i]), 0);
    cr_assert_eq(evq_peek_time(q), 10);
    evq_cancel(q, h[1]);
    cr_assert_eq(evq_peek_time(q), 10, "the other t=10 event is still live");
    evq_cancel(q, h[3]);
    cr_assert_eq(evq_peek_time(q), 20);
    struct evq_event ev;
    cr_assert_eq(evq_pop(q, &ev), 1);
    cr_assert(ev.time == 20 && ev.arg == 4, "got t=%lld arg=%llu", (long long)ev.time,
              (unsigned long long)ev.arg);
    cr_assert_eq(evq_peek_time(q), 30);
    cr_assert_eq(evq_size(q), 2);
    evq_destroy(q);
}

Test(evq, deep_hold_model_pops_in_order_with_cancels)
{
    /* The bench's hold model on a heap deep enough for sift_down's prefetching path (tens of
     * thousands pending): pop the earliest, push one a little later, every 7th push with a
     * handle that is cancelled a while after.  Few distinct increments make many ties.  Pops
     * must come in (time, push order) order, never a cancelled event, and every live one. */
    enum { PENDING = 70000, STEPS = 400000, RING = 512 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    evq *q = evq_create(16);
    unsigned char *cancelled = calloc(PENDING + 2 * STEPS, 1);
    evq_handle ring[RING] = { { 0, 0 } };
    uint64_t ring_arg[RING] = { 0 }, pushed = 0;
    size_t ri = 0;
    long cancels = 0;
    for (; pushed < PENDING; pushed++)
        cr_assert_eq(evq_push(q, (simtime)gsl_rng_uniform_int(r, 1000), 0, pushed, NULL), 0);
    struct evq_event prev = { -1, 0, 0 }, ev;
    for (long s = 0; s < STEPS; s++) {
        cr_assert_eq(evq_pop(q, &ev), 1, "step %ld: empty", s);
        cr_assert(ev.time > prev.time || (ev.time == prev.time && ev.arg > prev.arg),
                  "step %ld: (t=%lld, #%llu) after (t=%lld, #%llu)", s, (long long)ev.time,
                  (unsigned long long)ev.arg, (long long)prev.time,
                  (unsigned long long)prev.arg);
        cr_assert(!cancelled[ev.arg], "step %ld: cancelled push #%llu popped", s,
                  (unsigned long long)ev.arg);
        prev = ev;
        simtime t = ev.time + (simtime)gsl_rng_uniform_int(r, 8) * 50;
        if (s % 7 != 0) {
            cr_assert_eq(evq_push(q, t, 0, pushed++, NULL), 0);
            continue;
        }
        if (evq_pending(q, ring[ri])) {
            evq_cancel(q, ring[ri]);
            cancelled[ring_arg[ri]] = 1;
            cancels++;
            cr_assert_eq(evq_push(q, t + 1, 0, pushed++, NULL), 0);    /* keep the count */
        }
        ring_arg[ri] = pushed;
        cr_assert_eq(evq_push(q, t, 0, pushed++, &ring[ri]), 0);
        ri = (ri + 1) % RING;
    }
    cr_assert_gt(cancels, STEPS / 14, "only %ld cancels hit a pending event", cancels);
    size_t left = 0;
    for (; evq_pop(q, &ev); left++) {
        cr_assert(ev.time > prev.time || (ev.time == prev.time && ev.arg > prev.arg),
                  "drain: out of order");
        cr_assert(!cancelled[ev.arg], "drain: cancelled push #%llu popped",
                  (unsigned long long)ev.arg);
        prev = ev;
    }
    cr_assert_eq(left, PENDING, "drained %zu, want %d", left, PENDING);
    free(cancelled);
    evq_destroy(q);
    gsl_rng_free(r);
}
