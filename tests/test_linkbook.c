/*
 * test_linkbook: the serving world's link ledger (sim/serve/linkbook.h) — reservations by
 * hand (a free port at once, a busy one after its interval, several ports at the first
 * common gap, a zero hold skipped), then thousands of random reservations against a plain
 * record of every interval: no two intervals of a port ever overlap (so no link carries two
 * transfers at once), each starts no earlier than it was ready, and no earlier start would
 * have fit (checked at every microsecond before it); forgetting drops only what ended, and
 * forgetting as reservations go on changes none of their starts.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/serve/linkbook.h"
#include "helpers.h"

#define PORT(dir, id, dur) ((struct linkbook_port){ (dir), (id), (dur) })

/* a search that steps wrong can leave a reservation going round its ports for ever */
TestSuite(linkbook, .timeout = 60);

static simtime take(linkbook *b, const struct linkbook_port *p, int n, simtime ready)
{
    simtime t = -1;
    cr_assert_eq(linkbook_reserve(b, p, n, ready, &t), 0);
    return t;
}

Test(linkbook, reservations_by_hand)
{
    linkbook *b = linkbook_create(4, 2);
    struct linkbook_port a[] = { PORT(LINKBOOK_GPU_OUT, 0, 10) };
    cr_assert_eq(take(b, a, 1, 10), 10);            /* [10, 20) */
    cr_assert_eq(take(b, a, 1, 0), 0);              /* [0, 10) fits before it */
    cr_assert_eq(take(b, a, 1, 5), 20);             /* overlaps both: after them */
    /* another direction, another GPU, a node: their own ports */
    struct linkbook_port other[] = { PORT(LINKBOOK_GPU_IN, 0, 10), PORT(LINKBOOK_GPU_OUT, 1, 10),
                                     PORT(LINKBOOK_NET_OUT, 0, 10) };
    cr_assert_eq(take(b, other, 3, 12), 12);
    /* two ports: GPU 2 out busy [0, 30), node 1 in busy [35, 50): a 10 us hold of both
     * starting at 0 fits first at 50 (30 is free on GPU 2 but node 1 is busy at 35) */
    struct linkbook_port g2[] = { PORT(LINKBOOK_GPU_OUT, 2, 30) };
    struct linkbook_port n1[] = { PORT(LINKBOOK_NET_IN, 1, 15) };
    cr_assert_eq(take(b, g2, 1, 0), 0);
    cr_assert_eq(take(b, n1, 1, 35), 35);
    struct linkbook_port both[] = { PORT(LINKBOOK_GPU_OUT, 2, 10), PORT(LINKBOOK_NET_IN, 1, 10) };
    cr_assert_eq(take(b, both, 2, 0), 50);
    /* a shorter hold of the second port fits the gap: 5 us at 30 */
    struct linkbook_port shorter[] = { PORT(LINKBOOK_GPU_OUT, 2, 5), PORT(LINKBOOK_NET_IN, 1, 5) };
    cr_assert_eq(take(b, shorter, 2, 0), 30);
    /* a zero hold is no hold */
    struct linkbook_port none[] = { PORT(LINKBOOK_GPU_OUT, 0, 0), PORT(LINKBOOK_GPU_OUT, 3, 7) };
    cr_assert_eq(take(b, none, 2, 3), 3);
    linkbook_destroy(b);
}

/* a plain record of every interval, by port */
enum { NG = 3, NN = 2, NP = 2 * NG + 2 * NN };
struct shadow {
    simtime from[NP][4096], to[NP][4096];
    int     n[NP];
};

static int pidx(int dir, int id)
{
    return dir == LINKBOOK_GPU_OUT ? id : dir == LINKBOOK_GPU_IN ? NG + id
           : dir == LINKBOOK_NET_OUT ? 2 * NG + id : 2 * NG + NN + id;
}

static int busy(const struct shadow *s, int port, simtime t, simtime dur)
{
    for (int k = 0; k < s->n[port]; k++)
        if (s->from[port][k] < t + dur && t < s->to[port][k])
            return 1;
    return 0;
}

struct seen {
    simtime last_to[NP], last_from[NP];
    int     count;
};

static void visit(void *ctx, int dir, int32_t id, simtime from, simtime to)
{
    struct seen *v = ctx;
    int p = pidx(dir, id);
    cr_assert_lt(from, to);
    cr_assert_geq(from, v->last_to[p], "port %d: [%lld, %lld) overlaps the one before",
                  p, (long long)from, (long long)to);
    v->last_to[p] = to;
    v->last_from[p] = from;
    v->count++;
}

Test(linkbook, random_reservations_never_overlap_and_start_first)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    linkbook *b = linkbook_create(NG, NN);
    struct shadow *s = calloc(1, sizeof *s);
    int waited = 0;
    for (int k = 0; k < 2000; k++) {
        struct linkbook_port p[4];
        int n = 1 + (int)gsl_rng_uniform_int(rng, 4), used[NP] = { 0 };
        for (int i = 0; i < n; i++) {
            int dir, id, q;
            do {
                dir = (int)gsl_rng_uniform_int(rng, 4);
                id = (int)gsl_rng_uniform_int(rng, dir < 2 ? NG : NN);
                q = pidx(dir, id);
            } while (used[q]);
            used[q] = 1;
            p[i] = PORT(dir, id, (simtime)gsl_rng_uniform_int(rng, 40));
        }
        simtime ready = (simtime)(k * 7 + gsl_rng_uniform_int(rng, 50));
        simtime t = take(b, p, n, ready);
        cr_assert_geq(t, ready);
        /* no earlier start fits every port */
        for (simtime u = ready; u < t; u++) {
            int clash = 0;
            for (int i = 0; i < n && !clash; i++)
                clash = p[i].dur > 0 && busy(s, pidx(p[i].dir, p[i].id), u, p[i].dur);
            cr_assert(clash, "reservation %d: %lld fits, but it started at %lld", k,
                      (long long)u, (long long)t);
        }
        for (int i = 0; i < n; i++) {
            int q = pidx(p[i].dir, p[i].id);
            cr_assert(p[i].dur == 0 || !busy(s, q, t, p[i].dur), "reservation %d overlaps", k);
            if (p[i].dur > 0) {
                s->from[q][s->n[q]] = t;
                s->to[q][s->n[q]++] = t + p[i].dur;
            }
        }
        waited += t > ready;
    }
    /* the book holds exactly the record, in order, none overlapping */
    struct seen v = { { 0 }, { 0 }, 0 };
    linkbook_each(b, &v, visit);
    int total = 0;
    for (int q = 0; q < NP; q++)
        total += s->n[q];
    cr_assert_eq(v.count, total);
    cr_assert_gt(waited, 200, "only %d reservations waited", waited);
    /* forgetting drops what ended, keeps the rest */
    linkbook_forget(b, 7000);
    int kept = 0;
    for (int q = 0; q < NP; q++)
        for (int k = 0; k < s->n[q]; k++)
            kept += s->to[q][k] > 7000;
    memset(&v, 0, sizeof v);
    linkbook_each(b, &v, visit);
    cr_assert_eq(v.count, kept);
    cr_assert(kept > 0 && kept < total);
    free(s);
    linkbook_destroy(b);
    gsl_rng_free(rng);
}

/* Forgetting as it goes, a horizon trailing the reservations, changes no start: the same
 * random reservations (many on few ports, so a port holds a long array to search) against a
 * book that never forgets; and what the book shows afterwards is just what ends after its
 * horizon. */
Test(linkbook, forgetting_as_it_goes_changes_no_start)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12);
    linkbook *b = linkbook_create(1, 1), *all = linkbook_create(1, 1);
    simtime horizon = 0;
    for (int k = 0; k < 20000; k++) {
        struct linkbook_port p[2];
        int n = 1 + (int)gsl_rng_uniform_int(rng, 2), first = (int)gsl_rng_uniform_int(rng, 4);
        for (int i = 0; i < n; i++)
            p[i] = PORT((first + i) % 4, 0, 1 + (simtime)gsl_rng_uniform_int(rng, 30));
        simtime ready = (simtime)k * 5 + (simtime)gsl_rng_uniform_int(rng, 400);
        cr_assert_eq(take(b, p, n, ready), take(all, p, n, ready), "reservation %d", k);
        /* every later reservation is ready at or after (k + 1) * 5 */
        horizon = (simtime)(k + 1) * 5;
        linkbook_forget(b, horizon);
    }
    struct seen v = { { 0 }, { 0 }, 0 }, w = { { 0 }, { 0 }, 0 };
    linkbook_each(b, &v, visit);
    linkbook_forget(all, horizon);
    linkbook_each(all, &w, visit);
    cr_assert_eq(v.count, w.count);
    cr_assert_gt(v.count, 0);
    linkbook_destroy(all);
    linkbook_destroy(b);
    gsl_rng_free(rng);
}

/* A reservation ready before what was forgotten breaks forget's promise: an assert.  A
 * later forget of an earlier time takes no promise back. */
Test(linkbook, ready_before_the_horizon_aborts, .signal = SIGABRT)
{
    th_expect_abort("linkbook_reserve: Assertion");
    linkbook *b = linkbook_create(1, 1);
    struct linkbook_port p[] = { PORT(LINKBOOK_GPU_OUT, 0, 10) };
    linkbook_forget(b, 100);
    linkbook_forget(b, 50);
    take(b, p, 1, 100);
    take(b, p, 1, 99);
}
