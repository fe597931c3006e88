/*
 * evq: 4-ary min-heap keyed on (time, seq) with generation-checked slots for O(1) cancel.
 *
 * Heap entries carry the event itself: the time, a key = seq << 24 | slot (comparing keys
 * compares sequence numbers, which are unique), the arg and the kind.  Only an event pushed
 * with a handle takes a slot: the slot remembers the key of its live event, cancelling clears
 * it, so such an entry is live iff its slot still holds its key; an event pushed without a
 * handle has slot NOSLOT and is always live, so popping it touches nothing but the heap (a
 * plain heap's cost).  Handles carry (slot, generation), the generation being bumped whenever
 * a slot is freed, so a stale handle never touches the slot's next event.
 * Limits: 2^40 pushes per queue and 2^24 - 1 events with handles pending at once (both
 * checked).
 * Invariants: heap[i] <= each of heap[4i+1 .. 4i+4]; a slot is on the free list iff no live
 * entry refers to it.
 * Complexity: push and pop O(log_4 n); cancel O(1); compaction O(n), amortized over the
 * cancels that made it necessary.
 */
#include "evq.h"

#include <assert.h>
#include <stdlib.h>

struct entry {
    simtime  time;
    uint64_t key;       /* seq << SLOT_BITS | slot */
    uint64_t arg;
    uint32_t kind;
};

enum { SLOT_BITS = 24 };
#define SLOT_MASK ((UINT64_C(1) << SLOT_BITS) - 1)
#define NOSLOT SLOT_MASK        /* an event without a handle */
#define SEQ_MAX (UINT64_C(1) << (64 - SLOT_BITS))

struct slot {
    uint64_t key;       /* key of its live event, 0 if none */
    uint32_t gen;       /* handles' generation; bumped when the slot is freed */
    uint32_t next;      /* the free list's link while the slot is free */
};

struct evq {
    struct entry *heap;
    size_t        n, cap;       /* entries in the heap, live or stale */
    size_t        live;
    struct slot  *slots;
    size_t        nslots, slotcap;
    uint32_t      free_head;    /* UINT32_MAX: none */
    uint64_t      seq;
};

#define FREE_END UINT32_MAX

static inline int before(const struct entry *a, const struct entry *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

evq *evq_create(size_t capacity_hint)
{
    evq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return NULL;
    q->cap = capacity_hint < 16 ? 16 : capacity_hint;
    q->slotcap = q->cap;
    q->heap = malloc(q->cap * sizeof *q->heap);
    q->slots = malloc(q->slotcap * sizeof *q->slots);
    if (q->heap == NULL || q->slots == NULL) {
        evq_destroy(q);
        return NULL;
    }
    q->free_head = FREE_END;
    return q;
}

void evq_destroy(evq *q)
{
    if (q == NULL)
        return;
    free(q->heap);
    free(q->slots);
    free(q);
}

static void sift_up(struct entry *h, size_t i)
{
    struct entry e = h[i];
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!before(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static void sift_down(struct entry *h, size_t n, size_t i)
{
    struct entry e = h[i];
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (before(&h[k], &h[best]))
                best = k;
        if (!before(&h[best], &e))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

static int entry_live(const evq *q, const struct entry *e)
{
    uint64_t s = e->key & SLOT_MASK;
    return s == NOSLOT || q->slots[s].key == e->key;
}

/* Drop stale entries and rebuild the heap bottom-up. */
static void compact(evq *q)
{
    size_t k = 0;
    for (size_t i = 0; i < q->n; i++)
        if (entry_live(q, &q->heap[i]))
            q->heap[k++] = q->heap[i];
    q->n = k;
    if (k > 1)
        for (size_t i = (k - 2) / 4 + 1; i-- > 0;)
            sift_down(q->heap, k, i);
}

static int slot_alloc(evq *q, uint32_t *out)
{
    if (q->free_head != FREE_END) {
        *out = q->free_head;
        q->free_head = q->slots[*out].next;
        return 0;
    }
    if (q->nslots == NOSLOT)
        return -1;
    if (q->nslots == q->slotcap) {
        size_t nc = q->slotcap * 2 < NOSLOT ? q->slotcap * 2 : NOSLOT;
        struct slot *s = realloc(q->slots, nc * sizeof *s);
        if (s == NULL)
            return -1;
        q->slots = s;
        q->slotcap = nc;
    }
    *out = (uint32_t)q->nslots;
    q->slots[q->nslots++] = (struct slot){ .gen = 1 };
    return 0;
}

static void slot_free(evq *q, uint32_t s)
{
    struct slot *sl = &q->slots[s];
    sl->key = 0;
    /* gen 0 is reserved for EVQ_NONE, so skip it on wrap-around */
    if (++sl->gen == 0)
        sl->gen = 1;
    sl->next = q->free_head;
    q->free_head = s;
}

int evq_push(evq *q, simtime time, uint32_t kind, uint64_t arg, evq_handle *out)
{
    if (q->n == q->cap) {
        if (q->n - q->live >= q->live) {
            compact(q);
        } else {
            size_t nc = q->cap * 2;
            struct entry *h = realloc(q->heap, nc * sizeof *h);
            if (h == NULL)
                return -1;
            q->heap = h;
            q->cap = nc;
        }
    }
    uint32_t s = NOSLOT;
    if (q->seq + 1 >= SEQ_MAX || (out != NULL && slot_alloc(q, &s) < 0))
        return -1;
    uint64_t key = (++q->seq << SLOT_BITS) | s;     /* seq from 1: key 0 means "none" */
    if (out != NULL) {
        q->slots[s].key = key;
        *out = (evq_handle){ s, q->slots[s].gen };
    }
    q->heap[q->n] = (struct entry){ time, key, arg, kind };
    sift_up(q->heap, q->n++);
    q->live++;
    return 0;
}

static void remove_top(evq *q)
{
    q->heap[0] = q->heap[--q->n];
    if (q->n > 1)
        sift_down(q->heap, q->n, 0);
}

int evq_pop(evq *q, struct evq_event *out)
{
    while (q->n > 0) {
        struct entry top = q->heap[0];
        remove_top(q);
        if (!entry_live(q, &top))
            continue;
        uint32_t s = (uint32_t)(top.key & SLOT_MASK);
        out->time = top.time;
        out->kind = top.kind;
        out->arg = top.arg;
        if (s != NOSLOT)
            slot_free(q, s);
        q->live--;
        return 1;
    }
    return 0;
}

void evq_cancel(evq *q, evq_handle h)
{
    if (h.gen == 0 || h.slot >= q->nslots || q->slots[h.slot].gen != h.gen)
        return;
    slot_free(q, h.slot);
    assert(q->live > 0);
    q->live--;
    if (q->n > 64 && q->n - q->live > 2 * q->live)
        compact(q);
}

int evq_pending(const evq *q, evq_handle h)
{
    return h.gen != 0 && h.slot < q->nslots && q->slots[h.slot].gen == h.gen;
}

size_t evq_size(const evq *q)
{
    return q->live;
}

simtime evq_peek_time(evq *q)
{
    while (q->n > 0 && !entry_live(q, &q->heap[0]))
        remove_top(q);
    return q->n > 0 ? q->heap[0].time : SIM_NEVER;
}

uint64_t evq_pushed(const evq *q)
{
    return q->seq;
}
