/*
 * mqueue: containers as FIFO servers (mqueue.h).
 *
 * Per service: its containers in slots (a removed container's slot is reused once it has
 * drained), the ready ones in the order they joined (the routing's list), a cursor into
 * that list (round robin; where joining the shortest queue starts looking, so that equal
 * queues take turns), and the measured load.  Per container: the calls bound for it and
 * not yet departed, and when each of its servers comes free (the departure of the last call
 * it took).  Invariants: a ready container is in the list exactly once, a draining one
 * never; a draining container with no call left is freed; the calls routed to a container
 * arrive in the order they were routed, so its servers' free times are those of a FIFO
 * queue fed in arrival order.
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
    int      state;
    int      calls;         /* routed to it, not departed */
    simtime *free;          /* [servers]: when each server comes free */
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
            free(s->c[i].free);
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

/* a slot for a new ready container, its servers free from now */
static int new_slot(struct svcq *s, simtime now)
{
    int slot = -1;
    for (int i = 0; i < s->nc && slot < 0; i++)
        if (s->c[i].state == C_FREE)
            slot = i;
    if (slot < 0) {
        if (s->nc == s->capc) {
            int nc = s->capc ? 2 * s->capc : 8;
            struct ctr *n = realloc(s->c, (size_t)nc * sizeof *n);
            if (n == NULL)
                return -1;
            s->c = n;
            s->capc = nc;
        }
        simtime *f = malloc((size_t)s->servers * sizeof *f);
        if (f == NULL)
            return -1;
        s->c[s->nc] = (struct ctr){ .state = C_FREE, .free = f };
        slot = s->nc++;
    }
    struct ctr *c = &s->c[slot];
    c->state = C_READY;
    c->calls = 0;
    for (int j = 0; j < s->servers; j++)
        c->free[j] = now;
    return slot;
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
        int slot = new_slot(s, now);
        if (slot < 0)
            return -1;
        s->ready[s->nready++] = slot;
    }
    while (s->nready > n) {
        /* the fewest calls, the newest of equals */
        int best = s->nready - 1;
        for (int i = s->nready - 2; i >= 0; i--)
            if (s->c[s->ready[i]].calls < s->c[s->ready[best]].calls)
                best = i;
        struct ctr *c = &s->c[s->ready[best]];
        memmove(s->ready + best, s->ready + best + 1,
                (size_t)(s->nready - best - 1) * sizeof *s->ready);
        s->nready--;
        if (c->calls == 0) {
            c->state = C_FREE;
            continue;
        }
        /* it drains until its last call departs, which is known */
        simtime last = now;
        for (int j = 0; j < s->servers; j++)
            last = c->free[j] > last ? c->free[j] : last;
        s->drain_area += sim_to_sec(last - now);
        c->state = C_DRAINING;
        s->draining++;
    }
    if (s->cursor >= s->nready)
        s->cursor = 0;
    return 0;
}

int mqueue_arrive(mqueue *q, int k, uint32_t tag, simtime now, simtime at)
{
    struct svcq *s = &q->s[k];
    assert(s->nready > 0 && "every service keeps a ready container");
    assert(at >= now && at >= s->ew_t && "calls reach a service in the order they are routed");
    int pos = s->cursor;
    if (q->c.routing == MQUEUE_RANDOM) {
        pos = (int)gsl_rng_uniform_int(q->route, (unsigned long)s->nready);
    } else if (q->c.routing == MQUEUE_JSQ) {
        int best = -1, bn = 0;
        for (int i = 0; i < s->nready; i++) {
            int p = pos + i < s->nready ? pos + i : pos + i - s->nready;
            int n = s->c[s->ready[p]].calls;
            if (best < 0 || n < bn) {
                best = p;
                bn = n;
                if (bn == 0)
                    break;
            }
        }
        pos = best;
    }
    s->cursor = pos + 1 < s->nready ? pos + 1 : 0;
    int slot = s->ready[pos];
    struct ctr *c = &s->c[slot];
    /* the load as of this arrival */
    if (at != s->ew_t) {
        s->ew *= exp(-(double)(at - s->ew_t) * q->inv_tau_us);
        s->ew_t = at;
    }
    s->ew += q->add;
    /* FIFO: the first server to come free, at the earliest at the arrival */
    int j = 0;
    for (int i = 1; i < s->servers; i++)
        if (c->free[i] < c->free[j])
            j = i;
    simtime start = c->free[j] > at ? c->free[j] : at;
    double mu = q->c.rate(q->c.rate_ctx, k, s->ew / s->nready);
    assert(mu > 0 && "a service rate is positive");
    c->free[j] = start + sim_from_sec(gsl_ran_exponential(q->rng, 1 / mu));
    c->calls++;
    s->insys++;
    return engine_at(q->eng, c->free[j], q->c.depart_kind, tag, NULL) < 0 ? -1 : slot;
}

void mqueue_depart(mqueue *q, int k, int cont)
{
    struct svcq *s = &q->s[k];
    struct ctr *c = &s->c[cont];
    assert(c->calls > 0 && c->state != C_FREE);
    c->calls--;
    s->insys--;
    if (c->state == C_DRAINING && c->calls == 0) {
        s->draining--;
        c->state = C_FREE;
    }
}

int64_t mqueue_in_system(const mqueue *q, int k)
{
    return q->s[k].insys;
}

int mqueue_draining(const mqueue *q, int k)
{
    return q->s[k].draining;
}

double mqueue_take_drain(mqueue *q, int k)
{
    struct svcq *s = &q->s[k];
    double a = s->drain_area;
    s->drain_area = 0;
    return a;
}

double mqueue_load(const mqueue *q, int k)
{
    const struct svcq *s = &q->s[k];
    return s->nready > 0 ? s->ew / s->nready : s->ew;
}
