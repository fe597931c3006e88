/*
 * linkbook: the busy intervals of every port (linkbook.h).  Ports are numbered GPU out, GPU
 * in, node out, node in; each holds an array of [from, to) intervals sorted by start and,
 * since they never overlap, by end too.  A reservation moves its candidate start past every
 * interval that overlaps a port's window, port after port round and round, until all of
 * them in a row move nothing: the start only grows, to interval ends, so it stops; and when
 * it stops no port's window overlaps anything, and no earlier start would do (each move went
 * only as far as the end of an interval that overlapped).
 *
 * Forgetting is lazy: linkbook_forget only raises the book's horizon, and a port drops the
 * intervals that ended at or before it from its front when its array is full.  The
 * intervals it keeps before the horizon are never seen: no reservation is ready before the
 * horizon, and one ready at t already skips the intervals that end by t.
 *
 * Costs: forgetting O(1), however many ports the cluster has.  A reservation finds a port's
 * first interval ending after its candidate start, and its own place, by stepping back from
 * the end a few intervals (what overlaps it is most often among the last booked: pipelines
 * that share a network link book each other's next few boundaries), then by binary search:
 * O(rounds x its ports x log(the port's intervals)), plus its insert's moves and each dropped interval once, when a full array
 * drops what ended by the horizon before it grows.  The search matters: with disaggregated
 * prefill the serving world forgets only up to the oldest launch of a prefill batch in
 * flight, which lies further back the more instances there are.
 */
#include "linkbook.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct span {
    simtime from, to;
};

struct port {
    struct span *s;
    int          n, cap, head;     /* live intervals s[head..n) */
};

struct linkbook {
    int          ngpus, nnodes;
    struct port *port;              /* 2 ngpus + 2 nnodes */
    simtime      horizon;           /* the latest time forgotten up to */
};

static int nports(const linkbook *b) { return 2 * b->ngpus + 2 * b->nnodes; }

static struct port *port_of(linkbook *b, int dir, int32_t id)
{
    switch (dir) {
    case LINKBOOK_GPU_OUT: assert(id >= 0 && id < b->ngpus); return &b->port[id];
    case LINKBOOK_GPU_IN:  assert(id >= 0 && id < b->ngpus); return &b->port[b->ngpus + id];
    case LINKBOOK_NET_OUT: assert(id >= 0 && id < b->nnodes); return &b->port[2 * b->ngpus + id];
    case LINKBOOK_NET_IN:
        assert(id >= 0 && id < b->nnodes);
        return &b->port[2 * b->ngpus + b->nnodes + id];
    default: assert(0); return NULL;
    }
}

linkbook *linkbook_create(int ngpus, int nnodes)
{
    linkbook *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->ngpus = ngpus;
    b->nnodes = nnodes;
    b->horizon = INT64_MIN;        /* nothing forgotten yet */
    b->port = calloc((size_t)(nports(b) > 0 ? nports(b) : 1), sizeof *b->port);
    if (b->port == NULL) {
        free(b);
        return NULL;
    }
    return b;
}

void linkbook_destroy(linkbook *b)
{
    if (b == NULL)
        return;
    for (int i = 0; i < nports(b); i++)
        free(b->port[i].s);
    free(b->port);
    free(b);
}

/* The end of the first interval of q overlapping [t, t + dur), or t when none does: the
 * first interval that ends after t (ends are sorted: binary search), if it starts before
 * t + dur. */
enum { SCAN = 8 };      /* a search first steps back this far from the end: what ends after
                           a reservation is most often the last few booked */

static simtime past_overlap(const struct port *q, simtime t, simtime dur)
{
    int lo = q->head, hi = q->n;
    if (lo == hi || q->s[hi - 1].to <= t)
        return t;       /* the last ends by t: the common case, no search */
    for (int k = 1; k < SCAN && hi - k > lo; k++)
        if (q->s[hi - k - 1].to <= t) {
            lo = hi = hi - k;
            break;
        }
    if (lo < hi && hi - lo > SCAN)
        hi -= SCAN - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (q->s[mid].to <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->n && q->s[lo].from < t + dur ? q->s[lo].to : t;
}

/* Drop q's intervals that ended at or before t. */
static void trim(struct port *q, simtime t)
{
    while (q->head < q->n && q->s[q->head].to <= t)
        q->head++;
    if (q->head == q->n)
        q->head = q->n = 0;
}

static int insert(struct port *q, simtime from, simtime to, simtime horizon)
{
    if (q->n == q->cap) {
        trim(q, horizon);
        if (q->head > 0) {      /* slide the live part to the front first */
            memmove(q->s, q->s + q->head, (size_t)(q->n - q->head) * sizeof *q->s);
            q->n -= q->head;
            q->head = 0;
        }
        if (q->n == q->cap) {
            int cap = q->cap ? 2 * q->cap : 8;
            struct span *s = realloc(q->s, (size_t)cap * sizeof *s);
            if (s == NULL)
                return -1;
            q->s = s;
            q->cap = cap;
        }
    }
    int k = q->n;        /* after the last interval starting by `from`: most often the end */
    while (k > q->head && q->n - k < SCAN && q->s[k - 1].from > from)
        k--;
    if (k > q->head && q->s[k - 1].from > from) {
        int lo = q->head, hi = k - 1;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (q->s[mid].from > from)
                hi = mid;
            else
                lo = mid + 1;
        }
        k = lo;
    }
    memmove(q->s + k + 1, q->s + k, (size_t)(q->n - k) * sizeof *q->s);
    q->s[k] = (struct span){ from, to };
    q->n++;
    return 0;
}

int linkbook_reserve(linkbook *b, const struct linkbook_port *p, int n, simtime ready,
                     simtime *start)
{
    assert(ready >= b->horizon);
    simtime t = ready;
    /* round the ports until n in a row leave t where it is */
    for (int i = 0, still = 0; still < n; i = (i + 1) % n) {
        simtime u = p[i].dur > 0 ? past_overlap(port_of(b, p[i].dir, p[i].id), t, p[i].dur)
                                 : t;
        still = u == t ? still + 1 : 0;
        t = u;
    }
    for (int i = 0; i < n; i++)
        if (p[i].dur > 0 &&
            insert(port_of(b, p[i].dir, p[i].id), t, t + p[i].dur, b->horizon) < 0)
            return -1;
    *start = t;
    return 0;
}

void linkbook_forget(linkbook *b, simtime t)
{
    if (t > b->horizon)
        b->horizon = t;
}

void linkbook_each(const linkbook *b, void *ctx,
                   void (*fn)(void *ctx, int dir, int32_t id, simtime from, simtime to))
{
    for (int i = 0; i < nports(b); i++) {
        int dir, id;
        if (i < b->ngpus) {
            dir = LINKBOOK_GPU_OUT;
            id = i;
        } else if (i < 2 * b->ngpus) {
            dir = LINKBOOK_GPU_IN;
            id = i - b->ngpus;
        } else if (i < 2 * b->ngpus + b->nnodes) {
            dir = LINKBOOK_NET_OUT;
            id = i - 2 * b->ngpus;
        } else {
            dir = LINKBOOK_NET_IN;
            id = i - 2 * b->ngpus - b->nnodes;
        }
        const struct port *q = &b->port[i];
        for (int k = q->head; k < q->n; k++)
            if (q->s[k].to > b->horizon)
                fn(ctx, dir, id, q->s[k].from, q->s[k].to);
    }
}
