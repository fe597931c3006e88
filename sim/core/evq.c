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
 * Layout: the heap's array starts 3 entries into a 128-byte aligned block, so that the four
 * children of an entry (32 bytes each) fill exactly two cache lines instead of straddling
 * three: at 10^6 pending, where every level of a sift is a miss, that is a third fewer.
 The smaller of four children is found without branches (a mispredicted branch per level
 * costs more than the comparisons it would skip), and in a heap beyond the caches a sift asks
 * for the next level's lines while it compares this one's.  Since keys are unique, the order
 * of pops is the order of (time, seq) whatever the heap's shape.
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
#include <string.h>

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

enum {
    LINE2 = 128,        /* two cache lines: the four children of an entry */
    PAD = 3,            /* entries before heap[0], so that heap[4i+1] starts a LINE2 block */
    PREFETCH_MIN = 32768,   /* entries (1 MiB, beyond L2) from which sift_down prefetches */
};

struct slot {
    uint64_t key;       /* key of its live event, 0 if none */
    uint32_t gen;       /* handles' generation; bumped when the slot is freed */
    uint32_t next;      /* the free list's link while the slot is free */
};

struct evq {
    struct entry *heap;         /* mem + PAD */
    void         *mem;          /* LINE2-aligned block of PAD + cap entries */
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
    /* bitwise, not short-circuit: compiles to flags and moves, no branch to mispredict */
    return (a->time < b->time) | ((a->time == b->time) & (a->key < b->key));
}

/* A LINE2-aligned array of PAD + cap entries holding the n entries of old (if any). */
static int heap_alloc(evq *q, size_t cap)
{
    size_t bytes = (PAD + cap) * sizeof(struct entry);
    bytes = (bytes + LINE2 - 1) / LINE2 * LINE2;        /* aligned_alloc wants a multiple */
    void *mem = aligned_alloc(LINE2, bytes);
    if (mem == NULL)
        return -1;
    struct entry *h = (struct entry *)mem + PAD;
    if (q->n > 0)
        memcpy(h, q->heap, q->n * sizeof *h);
    free(q->mem);
    q->mem = mem;
    q->heap = h;
    q->cap = cap;
    return 0;
}

evq *evq_create(size_t capacity_hint)
{
    evq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return NULL;
    size_t cap = capacity_hint < 16 ? 16 : capacity_hint;
    q->slotcap = cap;
    q->slots = malloc(q->slotcap * sizeof *q->slots);
    if (heap_alloc(q, cap) < 0 || q->slots == NULL) {
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
    free(q->mem);
    free(q->slots);
    free(q);
}

static inline void sift_up(struct entry *h, size_t i, struct entry e)
{
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!before(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

/* The smaller of the children c .. end - 1 (1 to 4 of them). */
static inline size_t min_child(const struct entry *h, size_t c, size_t end)
{
    if (end - c == 4) {
        size_t a = c + (size_t)before(&h[c + 1], &h[c]);
        size_t b = c + 2 + (size_t)before(&h[c + 3], &h[c + 2]);
        return before(&h[b], &h[a]) ? b : a;
    }
    size_t best = c;
    for (size_t k = c + 1; k < end; k++)
        if (before(&h[k], &h[best]))
            best = k;
    return best;
}

/* e into the hole at i of the heap h[0, n), moving down along the smaller children.  In a
 * heap larger than the caches, the next level's lines are asked for while this level is
 * compared: the comparisons have no branches, so nothing else would fetch them early. */
static void sift_down(struct entry *h, size_t n, size_t i, struct entry e)
{
    int far = n >= PREFETCH_MIN;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
#if defined(__GNUC__)
        if (far && 4 * c + 16 <= n)
            for (size_t k = 0; k < 4; k++) {
                __builtin_prefetch(&h[4 * (c + k) + 1]);    /* the two lines of a group */
                __builtin_prefetch(&h[4 * (c + k) + 3]);
            }
#endif
        size_t best = min_child(h, c, c + 4 < n ? c + 4 : n);
        if (!before(&h[best], &e))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

static inline void remove_top(evq *q)
{
    size_t n = --q->n;
    if (n > 0)
        sift_down(q->heap, n, 0, q->heap[n]);
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
            sift_down(q->heap, k, i, q->heap[i]);
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
        if (q->n - q->live >= q->live)
            compact(q);
        else if (heap_alloc(q, q->cap * 2) < 0)
            return -1;
    }
    uint32_t s = NOSLOT;
    if (q->seq + 1 >= SEQ_MAX || (out != NULL && slot_alloc(q, &s) < 0))
        return -1;
    uint64_t key = (++q->seq << SLOT_BITS) | s;     /* seq from 1: key 0 means "none" */
    if (out != NULL) {
        q->slots[s].key = key;
        *out = (evq_handle){ s, q->slots[s].gen };
    }
    sift_up(q->heap, q->n++, (struct entry){ time, key, arg, kind });
    q->live++;
    return 0;
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
