/*
 * linkbook: the busy intervals of every port (linkbook.h).  Ports are numbered GPU out, GPU
 * in, node out, node in; each holds a sorted array of [from, to) intervals, the ones that
 * ended before the last forget removed from its front.  A reservation moves its candidate
 * start past every interval that overlaps a port's window, port by port, until one pass
 * over all ports moves nothing: the start only grows, to interval ends, so it stops; and
 * when it stops no port's window overlaps anything, and no earlier start would do (each move
 * went only as far as the end of an interval that overlapped).
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

/* The end of the first interval of q overlapping [t, t + dur), or t when none does. */
static simtime past_overlap(const struct port *q, simtime t, simtime dur)
{
    for (int k = q->head; k < q->n; k++) {
        if (q->s[k].to <= t)
            continue;
        if (q->s[k].from >= t + dur)
            break;
        return q->s[k].to;
    }
    return t;
}

static int insert(struct port *q, simtime from, simtime to)
{
    if (q->n == q->cap) {
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
    int k = q->n;
    while (k > q->head && q->s[k - 1].from > from)
        k--;
    memmove(q->s + k + 1, q->s + k, (size_t)(q->n - k) * sizeof *q->s);
    q->s[k] = (struct span){ from, to };
    q->n++;
    return 0;
}

int linkbook_reserve(linkbook *b, const struct linkbook_port *p, int n, simtime ready,
                     simtime *start)
{
    simtime t = ready;
    for (int moved = 1; moved;) {
        moved = 0;
        for (int i = 0; i < n; i++) {
            if (p[i].dur <= 0)
                continue;
            simtime u = past_overlap(port_of(b, p[i].dir, p[i].id), t, p[i].dur);
            if (u != t) {
                t = u;
                moved = 1;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (p[i].dur > 0 && insert(port_of(b, p[i].dir, p[i].id), t, t + p[i].dur) < 0)
            return -1;
    *start = t;
    return 0;
}

void linkbook_forget(linkbook *b, simtime t)
{
    for (int i = 0; i < nports(b); i++) {
        struct port *q = &b->port[i];
        /* intervals are sorted by start and never overlap: their ends are sorted too */
        while (q->head < q->n && q->s[q->head].to <= t)
            q->head++;
        if (q->head == q->n)
            q->head = q->n = 0;
    }
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
            fn(ctx, dir, id, q->s[k].from, q->s[k].to);
    }
}
