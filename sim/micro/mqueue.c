/*
 * mqueue: containers as FIFO servers (mqueue.h).
 *
 * Per service: its containers in slots (a removed container's slot is reused once it has
 * drained), the ready ones in the order they joined (the routing's list), a cursor into
 * that list (round robin; where joining the shortest queue starts looking, so that equal
 * queues take turns), and the measured load.  Per container: servers busy and a ring
 * of the tags waiting, in arrival order.  Invariants: busy <= servers; a container has
 * waiting calls only while all its servers are busy; a ready container is in the list
 * exactly once, a draining one never; a draining container with no call is freed.
 *
 * The measured load: each arrival at service k adds 1 / smooth_s to a rate that decays by
 * exp(-dt / smooth_s) between arrivals (an exponentially weighted count of the calls per
 * second); divided by the ready containers, it is the load the service rate is read at.
 */
#include "mqueue.h"

#include <assert.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/rng.h"

enum { C_FREE, C_READY, C_DRAINING };

struct ctr {
    int       state;
    int       busy;
    uint32_t *wait;         /* ring of waiting tags */
    int       head, len, cap;
};

struct svcq {
    struct ctr *c;
    int         nc, capc;
    int        *ready;      /* slots of the ready containers, in the order they joined */
    int         nready, capready;
    int         cursor;
    int         servers;
    double      ew;         /* the smoothed arrival rate, calls/s */
    simtime     ew_t;
    int         draining;
    double      drain_area; /* container-seconds */
    simtime     drain_t;
    int64_t     insys;
};

struct mqueue {
    struct mqueue_config c;
    engine     *eng;
    gsl_rng    *rng, *route;
    struct svcq *s;
    double      inv_tau_us;     /* 1 / smooth_s, per microsecond */
    double      add;            /* what one arrival adds to the rate: 1 / smooth_s */
};

int mqueue_create(mqueue **out, const struct mqueue_config *c, engine *eng)
{
    *out = NULL;
    mqueue *q = calloc(1, sizeof *q);
    if (q == NULL)
        return -1;
    q->c = *c;
    q->eng = eng;
    q->rng = rng_stream(c->seed, "service");
    q->route = rng_stream(c->seed, "routing");
    q->s = calloc((size_t)c->nservices, sizeof *q->s);
    if (q->rng == NULL || q->route == NULL || q->s == NULL) {
        mqueue_destroy(q);
        return -1;
    }
    assert(c->smooth_s > 0);
    q->inv_tau_us = 1e-6 / c->smooth_s;
    q->add = 1 / c->smooth_s;
    for (int k = 0; k < c->nservices; k++)
        q->s[k].servers = c->servers[k] > 0 ? c->servers[k] : 1;
    q->c.servers = NULL;        /* copied: the caller's array need not outlive us */
    *out = q;
    return 0;
}

void mqueue_destroy(mqueue *q)
{
    if (q == NULL)
        return;
    for (int k = 0; q->s != NULL && k < q->c.nservices; k++) {
        struct svcq *s = &q->s[k];
        for (int i = 0; i < s->nc; i++)
            free(s->c[i].wait);
        free(s->c);
        free(s->ready);
    }
    free(q->s);
    if (q->rng != NULL)
        gsl_rng_free(q->rng);
    if (q->route != NULL)
        gsl_rng_free(q->route);
    free(q);
}

static void drain_to(struct svcq *s, simtime now)
{
    s->drain_area += s->draining * sim_to_sec(now - s->drain_t);
    s->drain_t = now;
}

/* a slot for a new ready container */
static int new_slot(struct svcq *s)
{
    for (int i = 0; i < s->nc; i++)
        if (s->c[i].state == C_FREE)
            return i;
    if (s->nc == s->capc) {
        int nc = s->capc ? 2 * s->capc : 8;
        struct ctr *n = realloc(s->c, (size_t)nc * sizeof *n);
        if (n == NULL)
            return -1;
        s->c = n;
        s->capc = nc;
    }
    s->c[s->nc] = (struct ctr){ .state = C_FREE };
    return s->nc++;
}

int mqueue_set_ready(mqueue *q, int k, int n, simtime now)
{
    struct svcq *s = &q->s[k];
    if (n > s->capready) {
        int *r = realloc(s->ready, (size_t)n * sizeof *r);
        if (r == NULL)
            return -1;
        s->ready = r;
        s->capready = n;
    }
    while (s->nready < n) {
        int slot = new_slot(s);
        if (slot < 0)
            return -1;
        s->c[slot].state = C_READY;
        s->c[slot].busy = 0;
        s->c[slot].head = s->c[slot].len = 0;
        s->ready[s->nready++] = slot;
    }
    while (s->nready > n) {
        /* the fewest calls, the newest of equals */
        int best = s->nready - 1;
        for (int i = s->nready - 2; i >= 0; i--) {
            const struct ctr *a = &s->c[s->ready[i]], *b = &s->c[s->ready[best]];
            if (a->busy + a->len < b->busy + b->len)
                best = i;
        }
        struct ctr *c = &s->c[s->ready[best]];
        memmove(s->ready + best, s->ready + best + 1,
                (size_t)(s->nready - best - 1) * sizeof *s->ready);
        s->nready--;
        if (c->busy + c->len == 0) {
            c->state = C_FREE;
        } else {
            drain_to(s, now);
            c->state = C_DRAINING;
            s->draining++;
        }
    }
    if (s->cursor >= s->nready)
        s->cursor = 0;
    return 0;
}

/* start tag's service at container `slot` of service k */
static int start(mqueue *q, int k, struct svcq *s, int slot, uint32_t tag, simtime now)
{
    s->c[slot].busy++;
    double w = s->nready > 0 ? s->ew / s->nready : s->ew;
    double mu = q->c.rate(q->c.rate_ctx, k, w);
    assert(mu > 0 && "a service rate is positive");
    simtime d = sim_from_sec(gsl_ran_exponential(q->rng, 1 / mu));
    return engine_at(q->eng, now + d, q->c.depart_kind, tag, NULL);
}

int mqueue_arrive(mqueue *q, int k, uint32_t tag, simtime now)
{
    struct svcq *s = &q->s[k];
    assert(s->nready > 0 && "every service keeps a ready container");
    if (now != s->ew_t) {
        s->ew *= exp(-(double)(now - s->ew_t) * q->inv_tau_us);
        s->ew_t = now;
    }
    s->ew += q->add;
    int pos = s->cursor;
    if (q->c.routing == MQUEUE_RANDOM) {
        pos = (int)gsl_rng_uniform_int(q->route, (unsigned long)s->nready);
    } else if (q->c.routing == MQUEUE_JSQ) {
        int best = -1, bn = 0;
        for (int i = 0; i < s->nready; i++) {
            int p = pos + i < s->nready ? pos + i : pos + i - s->nready;
            const struct ctr *c = &s->c[s->ready[p]];
            if (best < 0 || c->busy + c->len < bn) {
                best = p;
                bn = c->busy + c->len;
                if (bn == 0)
                    break;
            }
        }
        pos = best;
    }
    s->cursor = pos + 1 < s->nready ? pos + 1 : 0;
    int slot = s->ready[pos];
    struct ctr *c = &s->c[slot];
    s->insys++;
    if (c->busy < s->servers)
        return start(q, k, s, slot, tag, now) < 0 ? -1 : slot;
    if (c->len == c->cap) {
        int nc = c->cap ? 2 * c->cap : 16;
        uint32_t *w = malloc((size_t)nc * sizeof *w);
        if (w == NULL)
            return -1;
        for (int i = 0; i < c->len; i++)
            w[i] = c->wait[(c->head + i) % c->cap];
        free(c->wait);
        c->wait = w;
        c->cap = nc;
        c->head = 0;
    }
    int at = c->head + c->len;
    c->wait[at < c->cap ? at : at - c->cap] = tag;
    c->len++;
    return slot;
}

int mqueue_depart(mqueue *q, int k, int cont, simtime now)
{
    struct svcq *s = &q->s[k];
    struct ctr *c = &s->c[cont];
    assert(c->busy > 0 && c->state != C_FREE);
    c->busy--;
    s->insys--;
    if (c->len > 0) {
        uint32_t tag = c->wait[c->head];
        c->head = c->head + 1 < c->cap ? c->head + 1 : 0;
        c->len--;
        return start(q, k, s, cont, tag, now);
    }
    if (c->state == C_DRAINING && c->busy == 0) {
        drain_to(s, now);
        s->draining--;
        c->state = C_FREE;
    }
    return 0;
}

int64_t mqueue_in_system(const mqueue *q, int k)
{
    return q->s[k].insys;
}

int mqueue_draining(const mqueue *q, int k)
{
    return q->s[k].draining;
}

double mqueue_take_drain(mqueue *q, int k, simtime now)
{
    struct svcq *s = &q->s[k];
    drain_to(s, now);
    double a = s->drain_area;
    s->drain_area = 0;
    return a;
}

double mqueue_load(const mqueue *q, int k)
{
    const struct svcq *s = &q->s[k];
    return s->nready > 0 ? s->ew / s->nready : s->ew;
}
