/*
 * rank: an order by (key, id) repaired at each decision instead of re-sorted.
 *
 * State: e[0..n) the members in the order of the last rank_order; pos[slot] the index there
 * of the member with that slot (stale for members that left: the id check tells); p[0..np)
 * the members waiting to be merged in (new, or whose key rose).  rank_order walks e once,
 * keeps each member set this round that does not come before the last one kept (so what is
 * kept is in order), moves the others to p, sorts p and merges it into e from the back.
 * Invariant between calls: e is sorted, and pos[e[i].slot] == i.
 */
#include "rank.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "../sim/base/grow.h"

struct rank {
    struct rank_entry *e, *p;
    size_t             n, cap, np, pcap;
    int32_t           *pos;
    size_t             npos;
    uint32_t           round;
};

rank *rank_create(void)
{
    rank *r = calloc(1, sizeof *r);
    if (r != NULL)
        r->round = 1;
    return r;
}

void rank_destroy(rank *r)
{
    if (r == NULL)
        return;
    free(r->e);
    free(r->p);
    free(r->pos);
    free(r);
}

static int before(const struct rank_entry *a, const struct rank_entry *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->id < b->id;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct rank_entry *x = a, *y = b;
    return before(x, y) ? -1 : before(y, x) ? 1 : 0;
}

/* Room for `want` entries in *arr (capacity *cap); -1 on no memory. */
static int reserve(struct rank_entry **arr, size_t *cap, size_t want)
{
    if (want <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < want)
        nc *= 2;
    int failed = 0;
    *arr = grow_array(*arr, nc, sizeof **arr, &failed);
    if (failed)
        return -1;
    *cap = nc;
    return 0;
}

void rank_begin(rank *r)
{
    r->np = 0;                  /* set in a round that was never ordered: not members */
    if (++r->round == 0) {      /* after 2^32 decisions: "set" marks start over */
        for (size_t i = 0; i < r->n; i++)
            r->e[i].round = 0;
        r->round = 1;
    }
}

int rank_set(rank *r, int32_t slot, int64_t id, double key)
{
    assert(slot >= 0 && !isnan(key));
    if ((size_t)slot >= r->npos) {
        size_t nn = r->npos ? r->npos : 64;
        while (nn <= (size_t)slot)
            nn *= 2;
        int failed = 0;
        r->pos = grow_array(r->pos, nn, sizeof *r->pos, &failed);
        if (failed)
            return -1;
        for (size_t s = r->npos; s < nn; s++)
            r->pos[s] = -1;
        r->npos = nn;
    }
    int32_t i = r->pos[slot];
    struct rank_entry *x = i >= 0 && (size_t)i < r->n && r->e[i].id == id ? &r->e[i] : NULL;
    assert(x == NULL || x->round != r->round);      /* each member once per decision */
    if (x != NULL && !(key > x->key)) {
        x->key = key;           /* fell or stayed: if it moved, it moved forward, and
                                   rank_order's walk takes it out then */
        x->round = r->round;
        return 0;
    }
    if (reserve(&r->p, &r->pcap, r->np + 1) < 0)
        return -1;
    /* its key rose: it leaves its place and is merged back.  Only for speed: left in place,
     * it would be kept and every member it now stands before would be taken out instead */
    if (x != NULL)
        x->round = 0;
    r->p[r->np++] = (struct rank_entry){ key, id, slot, r->round };
    return 0;
}

size_t rank_order(rank *r, const struct rank_entry **out)
{
    /* room first, so that a failure changes nothing: at most n members move to p, and e
     * then holds what is kept plus p */
    if (reserve(&r->p, &r->pcap, r->np + r->n) < 0 || reserve(&r->e, &r->cap, r->n + r->np) < 0)
        return (size_t)-1;
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct rank_entry x = r->e[i];
        if (x.round != r->round)
            continue;           /* left, or its key rose */
        if (m > 0 && before(&x, &r->e[m - 1]))
            r->p[r->np++] = x;  /* overtook the member kept ahead of it */
        else
            r->e[m++] = x;
    }
    qsort(r->p, r->np, sizeof *r->p, cmp_entry);
    /* merge p into e from the back: each step places the larger of the two tails */
    size_t w = m + r->np, i = m, j = r->np;
    while (j > 0) {
        if (i > 0 && before(&r->p[j - 1], &r->e[i - 1]))
            r->e[--w] = r->e[--i];
        else
            r->e[--w] = r->p[--j];
    }
    r->n = m + r->np;
    r->np = 0;
    for (size_t k = 0; k < r->n; k++)
        r->pos[r->e[k].slot] = (int32_t)k;
    *out = r->e;
    return r->n;
}
