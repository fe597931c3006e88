/* plain_heap: see plain_heap.h. */
#include "plain_heap.h"

#include <stdlib.h>

static inline int plain_before(const struct plain_entry *a, const struct plain_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

void plain_push(struct plain_heap *q, simtime time, uint32_t kind, uint64_t arg)
{
    if (q->n == q->cap) {
        size_t nc = q->cap * 2;
        struct plain_entry *h = realloc(q->h, nc * sizeof *h);
        if (h == NULL)
            abort();
        q->h = h;
        q->cap = nc;
    }
    struct plain_entry e = { time, ++q->seq, arg, kind };
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!plain_before(&e, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = e;
}

struct plain_entry plain_pop(struct plain_heap *q)
{
    struct plain_entry top = q->h[0], e = q->h[--q->n];
    size_t i = 0, n = q->n;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (plain_before(&q->h[k], &q->h[best]))
                best = k;
        if (!plain_before(&q->h[best], &e))
            break;
        q->h[i] = q->h[best];
        i = best;
    }
    if (n > 0)
        q->h[i] = e;
    return top;
}

