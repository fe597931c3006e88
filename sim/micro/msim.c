/*
 * msim: the microservice world's run (msim.h).
 *
 * Time is cut into decision intervals [t, t + interval).  At each boundary the interval that
 * ends is closed and then the policy decides the containers of the next one.  A scale-in
 * takes effect at once (containers still starting go first); a scale-out allocates its
 * containers at once (they count in containers_mean and cpu_seconds) and makes them ready
 * after startup_s, an event of the engine.  The first decision, at t = 0, deploys before any
 * request and takes effect at once.  Requests come from the source as specs of `count`
 * requests spread uniformly over a span (named stream "spread"); either truth reads the
 * same arrivals.
 *
 * The fit's truth (truth "fit", and the analytical mode): the interval is closed as a whole
 * — its requests read, each service's load computed as the calls of those requests per
 * second, each request's latency drawn (requests mode, stream "latency") or the interval's
 * latency distribution computed (analytical) with the containers that were ready at each
 * moment.  A call's latency at load w per ready container is s + Exp(rate(w))
 * (models/mslat.h); a call of `count` repetitions draws count s + Gamma(count, rate) in one
 * draw; a request's latency is its root call's: own latency, then each stage's slowest
 * child.  No request waits for another.
 *
 * The queueing truth (truth "queueing", the requests mode's default): calls are events in
 * continuous time.  At each boundary the next interval's arrivals are read, and each enters
 * when it arrives (one pending arrival event at a time).  A request is a tree of frames, one
 * per call in flight: a frame's repetition is routed to a ready container of its service,
 * which it reaches after the service's shift, and its passage there (its wait, its service,
 * its departure: an event) is decided at once by the FIFO recursion (mqueue.h); at its
 * departure the frame issues its next repetition, or its next stage's children (all at
 * once), or, done, tells its parent, whose stage ends with its last child; the root's end
 * is the request's.  Frames and requests
 * come from free lists (no allocation per call).  Loads are the calls that arrived at each
 * service in the interval, per second; latencies and quantiles are those of the calls and
 * requests that completed in it (a request in flight at a boundary counts in the interval
 * it completes in, as a monitor records it when it ends), and the run goes on, deciding
 * every interval, until the last request has completed.  The containers follow the
 * allocation's ready count (mqueue_set_ready at every change); a removed container drains
 * its calls (drain_seconds, container-seconds kept apart from the allocation's).  A run
 * stopped at sim.until leaves its calls in flight.
 *
 * Decisions that do not fit the CPU nodes (first-fit, largest containers first) are scaled
 * down to the largest uniform fraction that fits (every service keeps one container), then
 * topped up one container at a time, round-robin.
 *
 * Nodes taken and given (msim_take, msim_give: the host parts of GPU nodes, which a
 * co-simulation's broker moves): a taken node holds nothing; at once the allocation is
 * scaled down as a decision would be (fit_capacity) and applied (the newest starting
 * containers go first, as at a scale-in), its containers over capacity evicted (evictions,
 * among scale_ins); a given node holds again, which the next decision may use.  A take before
 * the first decision fits the initial deployment instead (nothing was running to evict).
 *
 * Summary (doc/microservices.md): e2e_mean, e2e_p50, e2e_p95, e2e_p99 over requests;
 * sla_miss_frac (requests over the SLA); sla_violation_prob (intervals whose end-to-end
 * quantile exceeds the SLA, among those with requests); containers_mean (time-averaged
 * allocated containers), containers_max, cpu_seconds (core-seconds allocated);
 * scale_outs and scale_ins (containers added and removed); capacity_capped (decisions
 * scaled down to fit); evictions (containers removed by takes; written only when the cluster
 * has host nodes, the one case a tenant can lose nodes); requests_total; intervals; the
 * queueing truth's drain_seconds.
 * Time series per interval: rate, e2e_q, containers_total, containers_<service>,
 * load_<service> (calls/s per ready container), mix_<graph>, and the queueing truth's
 * calls_<service> (calls waiting or in service at the interval's end).
 *
 * The timeline (sim.timeline): the entity is a service (its index in the application), and
 * each of its containers is a resource of its own (resource_type: the service's name, no
 * node: the capacity check fits containers to nodes but places none), so that a service's
 * containers at a moment are its rows alive then, as a job's GPUs are.  A service's
 * containers are slots 0 .. alloc-1: the ready ones first (running), then the starting ones
 * in start order (restoring), which is the order they become ready and, reversed, the order
 * a scale-in removes them; a slot's container id is given when the slot is first used.  A
 * container begins with the deployment at 0 (start) or a scale-out (resize), restores until
 * it is ready (restored), and ends at a scale-in (resize) or the end of the last interval
 * (stop); the rows' container-seconds are containers_mean's numerator.  O(containers
 * changed) per change, written as each interval ends.
 *
 * Cost per interval: requests mode O(requests x calls) draws (the queueing truth: one event
 * per call); analytical O(graphs x calls x lattice points) (plus O(points x support) per
 * parallel stage).
 */
#define _POSIX_C_SOURCE 200809L
#include "msim.h"

#include <assert.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/lattice.h"
#include "../base/grow.h"
#include "../base/rng.h"
#include "../base/stats.h"
#include "../core/engine.h"
#include "../core/timeline.h"
#include "../core/world.h"
#include "micro.h"
#include "mqueue.h"

enum { EV_TICK = 1, EV_READY = 2, EV_ARRIVE = 3, EV_DEPART = 4 };
enum { HBINS = 26000 };
#define HBASE 1e-6
#define HRATIO 1.001

struct pending {
    simtime at;
    int     count;
};

struct svc_state {
    int             alloc, ready;
    struct pending *pend;       /* FIFO of starting containers */
    int             npend, cappend;
    /* the timeline: the slots as last written (tl_ready running, up to tl_alloc restoring),
     * and per slot its container id, the start and cause of its open interval */
    int             tl_ready, tl_alloc, nslot;
    int64_t        *slot_id;
    simtime        *slot_from;
    int8_t         *slot_cause;
};

struct change {                 /* the ready containers of a service from t on */
    simtime t;
    int     k, ready;
};

struct arrival {
    simtime t;
    int     g;
    int64_t id;
};

/* The queueing truth: a call of a request in flight (a frame), and the request.  A frame
 * is call `call` of its request's graph: its repetitions done, then the stage it waits on
 * and that stage's children still out; free frames and requests are linked through
 * `parent` and `next`. */
struct frame {
    int32_t req, parent, call, rep, stage, left, cont;
    simtime issued;             /* its current repetition left its caller */
};

struct qreq {
    int64_t id;
    int32_t g, next;
    simtime arrival;
};

struct group {                  /* a spec, for the analytical mode */
    simtime t, span;
    int     g;
    double  count;
};

struct msim {
    struct msim_config    c;
    const struct app     *a;
    const cluster        *cl;
    struct entity_source *src;
    const struct micro_decider *dec;
    const struct world_writer  *out;
    engine               *eng;          /* the engine it is attached to (msim_attach) */
    engine               *own;          /* msim_run's engine, NULL on a shared one */
    uint32_t              tag;          /* its client tag on eng */
    uint64_t              nevents;      /* events handled: its own on a shared engine */
    gsl_rng              *rng_lat, *rng_spread;
    int                   S, G;
    struct svc_state     *svc;
    /* the source */
    struct micro_request  next;
    int                   have_next, drained;
    double                peak_declared;
    int64_t               spec_no;
    /* the interval being filled */
    simtime               t0;
    int64_t               interval;
    struct change        *chg;
    int                   nchg, capchg;
    int                  *ready0;       /* ready at t0 */
    struct arrival       *arr, *carry;
    size_t                narr, caparr, ncarry, capcarry;
    struct group         *grp, *gcarry;
    size_t                ngrp, capgrp, ngcarry, capgcarry;
    /* scratch per interval */
    double               *cnt, *load, *rate, *shift, *csum, *cmean, *gq, *mix;
    int64_t              *ccount, *cls_seen;
    struct stats_vec      e2e_iv, *e2e_g;
    int                  *want;
    /* nodes, for the capacity check (node_cpu, node_mem: 0 while taken; full_*: as given) */
    double               *node_cpu, *node_mem, *free_cpu, *free_mem, *full_cpu, *full_mem;
    int                   nnodes;
    int                   can_lose;     /* its cluster has host nodes (msim_take) */
    int                   gone;         /* it has left the engine (quit) */
    simtime               acct;         /* containers are accounted up to here */
    int64_t               evictions;
    double                cap_cpus, cap_mem;
    int                  *order;
    /* lattices (analytical) */
    struct lattice       *lat;
    int                   nlat, caplat;
    struct lattice        mixl, scratch;
    /* the first operation of a graph's root call on the point mass (every socialnet graph
     * starts with the same call), kept for the segment it was computed in: a segment fixes
     * the step and every rate, so the same call gives the same lattice */
    struct lattice        root;
    int64_t               seg, root_seg;
    int                   root_svc, root_count;
    double               *hist, *gqs;   /* gqs: per-graph mixtures, 0 between intervals */
    int                  *glo, *ghi;    /* the points of each gqs row this interval touched */
    /* history for the view */
    double                hist_rate[MICRO_HISTORY], *hist_mix;
    int                   nhist;
    double                last_rate, last_q, last_miss;
    int                   have_last;
    double                peak_seen;
    /* run totals */
    struct stats_vec      e2e_all;
    int64_t               requests, missed, intervals_req, intervals_bad, capped;
    int64_t               scale_out, scale_in;
    double                cont_s, cpu_s, cont_max, e2e_sum;
    double                horizon_s, next_sample;
    uint64_t              decisions;
    int                   stopped;
    int64_t               tl_ids;       /* container ids given */
    /* the queueing truth (NULL: the fit's) */
    mqueue               *mq;
    struct frame         *fr;
    struct qreq          *rq;
    int32_t               nfr, capfr, frfree, nrq, caprq, rqfree;
    int64_t               inflight, arrived;
    size_t                ai;           /* the next of the interval's arrivals */
    simtime              *shift_us;     /* [S] a call's transit to its service */
    double               *mmc;          /* [S * MMC_POINTS] per-server rates, services with
                                           several servers per container */
    double               *mmc_step;     /* [S] the load between two of its points */
    int64_t              *visits;       /* [S] calls that arrive at each service this
                                           interval, and (next) in the next one */
    int64_t              *visits_next;
    simtime               t_next;       /* the end of the interval being filled */
    int64_t               done_iv;      /* requests completed this interval */
    double                miss_done;    /* ... over the SLA */
    int                   counted;      /* this interval is measured */
    double                drain_s;      /* container-seconds removed containers drained */
};

/* ---------------------------------------------------------------- cluster */

int msim_check_cluster(const struct app *a, const cluster *cl, struct errbuf *err)
{
    int ng = cluster_ncpu_groups(cl);
    while (ng > 0 && cluster_cpu_group(cl, ng - 1)->gpu_node >= 0)
        ng--;       /* host parts of GPU nodes (last): the tenant may lose them */
    if (ng == 0)
        return err_input(err, NULL, 0, "cluster", "cluster '%s' has no CPU node groups, where "
                         "the containers of the microservice world run (a group with "
                         "\"count\", \"cpus\" and \"memory_gb\" and no \"gpu\")",
                         cluster_name(cl));
    double minc = INFINITY, minm = INFINITY, sumc = 0, summ = 0;
    for (int k = 0; k < a->view.nservices; k++) {
        if (a->svc[k].cpus < minc)
            minc = a->svc[k].cpus;
        if (a->svc[k].memory_gb < minm)
            minm = a->svc[k].memory_gb;
        sumc += a->svc[k].cpus;
        summ += a->svc[k].memory_gb;
    }
    double tc = 0, tm = 0;
    for (int i = 0; i < ng; i++) {
        const struct cluster_cpu_group *g = cluster_cpu_group(cl, i);
        if (g->cpus < minc || g->memory_gb < minm)
            return err_input(err, g->file, g->line, g->field, "a node of %g cores and %g GB "
                             "holds no container (the smallest takes %g cores and %g GB)",
                             g->cpus, g->memory_gb, minc, minm);
        tc += g->count * g->cpus;
        tm += g->count * g->memory_gb;
    }
    for (int k = 0; k < a->view.nservices; k++) {
        int fits = 0;
        for (int i = 0; i < ng && !fits; i++) {
            const struct cluster_cpu_group *g = cluster_cpu_group(cl, i);
            fits = g->cpus >= a->svc[k].cpus && g->memory_gb >= a->svc[k].memory_gb;
        }
        if (!fits) {
            const struct cluster_cpu_group *g = cluster_cpu_group(cl, 0);
            return err_input(err, g->file, g->line, g->field, "no node holds a container of "
                             "service '%s' (%g cores, %g GB)", a->svc[k].name, a->svc[k].cpus,
                             a->svc[k].memory_gb);
        }
    }
    if (sumc > tc || summ > tm) {
        const struct cluster_cpu_group *g = cluster_cpu_group(cl, 0);
        return err_input(err, g->file, g->line, g->field, "the CPU nodes (%g cores, %g GB in "
                         "all) cannot hold one container of each of the %d services (%g "
                         "cores, %g GB)", tc, tm, a->view.nservices, sumc, summ);
    }
    return 0;
}

/* first-fit of n[k] containers, largest first; 1 when all fit */
static int fits(msim *m, const int *n)
{
    memcpy(m->free_cpu, m->node_cpu, (size_t)m->nnodes * sizeof *m->free_cpu);
    memcpy(m->free_mem, m->node_mem, (size_t)m->nnodes * sizeof *m->free_mem);
    for (int q = 0; q < m->S; q++) {
        int k = m->order[q];
        double c = m->a->svc[k].cpus, g = m->a->svc[k].memory_gb;
        long left = n[k];
        for (int i = 0; i < m->nnodes && left > 0; i++) {
            long by_c = (long)floor(m->free_cpu[i] / c + 1e-9);
            long by_m = (long)floor(m->free_mem[i] / g + 1e-9);
            long put = by_c < by_m ? by_c : by_m;
            if (put > left)
                put = left;
            if (put <= 0)
                continue;
            m->free_cpu[i] -= put * c;
            m->free_mem[i] -= put * g;
            left -= put;
        }
        if (left > 0)
            return 0;
    }
    return 1;
}

/* scale n down until it fits (returns 1 when it had to) */
static int fit_capacity(msim *m, int *n)
{
    if (fits(m, n))
        return 0;
    int *t = m->want + m->S;        /* second half of the scratch */
    double lo = 0, hi = 1;
    for (int it = 0; it < 40; it++) {
        double f = 0.5 * (lo + hi);
        for (int k = 0; k < m->S; k++) {
            int v = (int)floor(f * n[k]);
            t[k] = v < 1 ? 1 : v;
        }
        if (fits(m, t))
            lo = f;
        else
            hi = f;
    }
    for (int k = 0; k < m->S; k++) {
        int v = (int)floor(lo * n[k]);
        t[k] = v < 1 ? 1 : v;
    }
    for (int grew = 1; grew;) {
        grew = 0;
        for (int k = 0; k < m->S; k++)
            if (t[k] < n[k]) {
                t[k]++;
                if (fits(m, t))
                    grew = 1;
                else
                    t[k]--;
            }
    }
    memcpy(n, t, (size_t)m->S * sizeof *n);
    return 1;
}

/* ---------------------------------------------------------------- containers */

static int push_pending(struct svc_state *s, simtime at, int count)
{
    if (s->npend == s->cappend) {
        int nc = s->cappend ? 2 * s->cappend : 4;
        struct pending *np = realloc(s->pend, (size_t)nc * sizeof *np);
        if (np == NULL)
            return -1;
        s->pend = np;
        s->cappend = nc;
    }
    s->pend[s->npend++] = (struct pending){ at, count };
    return 0;
}

static int record_change(msim *m, simtime t, int k)
{
    if (m->nchg == m->capchg) {
        int nc = m->capchg ? 2 * m->capchg : 64;
        struct change *n = realloc(m->chg, (size_t)nc * sizeof *n);
        if (n == NULL)
            return -1;
        m->chg = n;
        m->capchg = nc;
    }
    m->chg[m->nchg++] = (struct change){ t, k, m->svc[k].ready };
    /* the queueing truth's containers follow at once */
    return m->mq != NULL ? mqueue_set_ready(m->mq, k, m->svc[k].ready, t) : 0;
}

/* ---------------------------------------------------------------- the timeline */

static int tl_row(msim *m, int k, int j, simtime to, int state, int ends, struct errbuf *err)
{
    struct svc_state *s = &m->svc[k];
    return timeline_row(m->out, k, s->slot_id[j], -1, m->a->svc[k].name, s->slot_from[j], to,
                        state, 1, s->slot_cause[j], ends, err);
}

/* Bring service k's rows to its containers now, `ready` of them ready: each slot whose state
 * changed since the last call ends its interval and opens the next.  The first deployment
 * begins by start. */
static int tl_sync(msim *m, int k, simtime now, int ready, struct errbuf *err)
{
    struct svc_state *s = &m->svc[k];
    if (!m->c.timeline || m->stopped)
        return 0;
    if (s->alloc > s->nslot) {
        int failed = 0;
        size_t n = (size_t)s->alloc;
        s->slot_id = grow_array(s->slot_id, n, sizeof *s->slot_id, &failed);
        s->slot_from = grow_array(s->slot_from, n, sizeof *s->slot_from, &failed);
        s->slot_cause = grow_array(s->slot_cause, n, sizeof *s->slot_cause, &failed);
        if (failed)
            return err_run(err, "out of memory");
        for (int j = s->nslot; j < s->alloc; j++)
            s->slot_id[j] = m->tl_ids++;
        s->nslot = s->alloc;
    }
    int lo = ready < s->tl_ready ? ready : s->tl_ready;
    int hi = s->alloc > s->tl_alloc ? s->alloc : s->tl_alloc;
    for (int j = lo; j < hi; j++) {
        int was = j < s->tl_ready ? TL_RUNNING : j < s->tl_alloc ? TL_RESTORING : -1;
        int is = j < ready ? TL_RUNNING : j < s->alloc ? TL_RESTORING : -1;
        if (was == is)
            continue;
        int cause = now == 0 ? TL_START : TL_RESIZE;
        if (was >= 0) {
            /* a ready container keeps what began it */
            int restored = was == TL_RESTORING && is == TL_RUNNING;
            if (tl_row(m, k, j, now, was, restored ? TL_RESTORED : TL_RESIZE, err) < 0)
                return -1;
            if (restored)
                cause = s->slot_cause[j];
        }
        s->slot_from[j] = now;
        s->slot_cause[j] = (int8_t)cause;
    }
    s->tl_ready = ready;
    s->tl_alloc = s->alloc;
    return 0;
}

/* The containers that became ready during the interval that ends now, in the order they
 * did (the interval's changes): written only once the interval is over, so that a run cut
 * inside an interval (sim.max_events) ends every row at the last interval's end, the run's
 * end. */
static int tl_replay(msim *m, struct errbuf *err)
{
    for (int i = 0; i < m->nchg; i++)
        if (tl_sync(m, m->chg[i].k, m->chg[i].t, m->chg[i].ready, err) < 0)
            return -1;
    return 0;
}

/* Every container's last row, at the end of the last interval. */
static int tl_finish(msim *m, simtime end, struct errbuf *err)
{
    for (int k = 0; m->c.timeline && k < m->S; k++) {
        const struct svc_state *s = &m->svc[k];
        for (int j = 0; j < s->tl_alloc; j++)
            if (tl_row(m, k, j, end, j < s->tl_ready ? TL_RUNNING : TL_RESTORING, TL_STOP,
                       err) < 0)
                return -1;
    }
    return 0;
}

/* apply the decision n at now (the first one at t = 0 deploys at once) */
static int apply(msim *m, const int *n, simtime now, int instant, struct errbuf *err)
{
    for (int k = 0; k < m->S; k++) {
        struct svc_state *s = &m->svc[k];
        int target = n[k];
        if (instant) {
            if (target != s->ready) {
                s->ready = target;
                if (record_change(m, now, k) < 0)
                    return err_run(err, "out of memory");
            }
            s->alloc = target;
            if (tl_sync(m, k, now, s->ready, err) < 0)
                return -1;
            continue;
        }
        if (target > s->alloc) {
            int add = target - s->alloc;
            m->scale_out += add;
            if (m->c.startup_s <= 0) {
                s->ready += add;
                if (record_change(m, now, k) < 0)
                    return err_run(err, "out of memory");
            } else {
                simtime at = now + sim_from_sec(m->c.startup_s);
                if (push_pending(s, at, add) < 0 ||
                    engine_at(m->eng, at, EV_READY | m->tag, (uint64_t)k, NULL) < 0)
                    return err_run(err, "out of memory");
            }
        } else if (target < s->alloc) {
            int drop = s->alloc - target;
            m->scale_in += drop;
            /* the newest starting containers first */
            while (drop > 0 && s->npend > 0) {
                struct pending *p = &s->pend[s->npend - 1];
                int d = p->count < drop ? p->count : drop;
                p->count -= d;
                drop -= d;
                if (p->count == 0)
                    s->npend--;
            }
            if (drop > 0) {
                s->ready -= drop;
                if (record_change(m, now, k) < 0)
                    return err_run(err, "out of memory");
            }
        }
        s->alloc = target;
        if (tl_sync(m, k, now, s->ready, err) < 0)
            return -1;
    }
    return 0;
}

static int on_ready(msim *m, int k, simtime now, struct errbuf *err)
{
    struct svc_state *s = &m->svc[k];
    int add = 0, keep = 0;
    for (int i = 0; i < s->npend; i++) {
        if (s->pend[i].at <= now)
            add += s->pend[i].count;
        else
            s->pend[keep++] = s->pend[i];
    }
    s->npend = keep;
    if (add > 0) {
        s->ready += add;
        if (record_change(m, now, k) < 0)       /* its rows: tl_replay */
            return err_run(err, "out of memory");
    }
    return 0;
}

/* ---------------------------------------------------------------- the source */

int msim_spec_graph(const struct app *a, const void *spec, struct errbuf *err)
{
    const struct micro_request *r = spec;
    if (r->graph != NULL) {
        int g = app_graph_find(a, r->graph);
        if (g < 0) {
            const char *names[64];
            int n = 0;
            for (; n < a->view.ngraphs && n < 63; n++)
                names[n] = a->graph[n].name;
            names[n] = NULL;
            const char *hint = jsonf_suggest(r->graph, names);
            return err_input(err, r->origin, r->line, "graph", "unknown graph type '%s'%s%s%s "
                             "(the application's are its \"graphs\")", r->graph,
                             hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
        }
        return g;
    }
    double tot = 0, acc = 0;
    for (int g = 0; g < a->view.ngraphs; g++)
        tot += a->graph[g].weight;
    if (!(tot > 0))
        return err_input(err, r->origin, r->line, "graph", "the application's graph weights are "
                         "all 0: name the graph of each request (a workload mix)");
    for (int g = 0; g < a->view.ngraphs; g++) {
        acc += a->graph[g].weight / tot;
        if (r->pick < acc)
            return g;
    }
    return a->view.ngraphs - 1;
}

static int read_next(msim *m, struct errbuf *err)
{
    if (m->drained)
        return 0;
    int rc = m->src->next(m->src->ctx, &m->next, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        m->drained = 1;
        m->have_next = 0;
        return 0;
    }
    if (m->next.count < 1 || m->next.span < 0)
        return err_input(err, m->next.origin, m->next.line, "count", "a spec stands for at "
                         "least one request");
    if (m->next.peak_rate > m->peak_declared)
        m->peak_declared = m->next.peak_rate;
    m->have_next = 1;
    return 1;
}

static int push_arrival(struct arrival **v, size_t *n, size_t *cap, struct arrival a)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 1024;
        struct arrival *nv = realloc(*v, nc * sizeof *nv);
        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = a;
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int push_group(struct group **v, size_t *n, size_t *cap, struct group g)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 256;
        struct group *nv = realloc(*v, nc * sizeof *nv);
        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = g;
    return 0;
}

/* analytical: count requests spread over [t, t + span), the part past t1 carried over */
static int add_group(msim *m, simtime t, simtime span, int g, double count, simtime t1)
{
    double in = count;
    if (span > 0 && t + span > t1) {
        in = count * (double)(t1 - t) / (double)span;
        if (push_group(&m->gcarry, &m->ngcarry, &m->capgcarry,
                       (struct group){ t1, t + span - t1, g, count - in }) < 0)
            return -1;
        span = t1 - t;
    }
    m->cnt[g] += in;
    return push_group(&m->grp, &m->ngrp, &m->capgrp, (struct group){ t, span, g, in });
}

static int cmp_arrival(const void *x, const void *y)
{
    const struct arrival *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* every spec that starts before t1 into the interval */
static int gather(msim *m, simtime t1, struct errbuf *err)
{
    m->narr = 0;
    m->ngrp = 0;
    for (int g = 0; g < m->G; g++)
        m->cnt[g] = 0;
    /* analytical: groups carried over (they start at this interval's start) */
    size_t ng = m->ngcarry;
    m->ngcarry = 0;
    for (size_t i = 0; i < ng; i++) {
        struct group gr = m->gcarry[i];
        if (add_group(m, gr.t, gr.span, gr.g, gr.count, t1) < 0)
            return err_run(err, "out of memory");
    }
    /* requests carried over from specs that reach past their interval */
    size_t keep = 0;
    for (size_t i = 0; i < m->ncarry; i++) {
        struct arrival a = m->carry[i];
        if (a.t < t1) {
            if (push_arrival(&m->arr, &m->narr, &m->caparr, a) < 0)
                return err_run(err, "out of memory");
            m->cnt[a.g] += 1;
        } else {
            m->carry[keep++] = a;
        }
    }
    m->ncarry = keep;
    while (m->have_next && m->next.arrival < t1) {
        const struct micro_request *r = &m->next;
        if (r->arrival < m->t0 && m->spec_no > 0)
            return err_input(err, r->origin, r->line, "arrival", "arrivals must not decrease");
        int g = msim_spec_graph(m->a, r, err);
        if (g < 0)
            return -1;
        m->spec_no++;
        if (m->c.analytical) {
            if (add_group(m, r->arrival, r->count > 1 ? r->span : 0, g, (double)r->count,
                          t1) < 0)
                return err_run(err, "out of memory");
        } else if (r->count == 1 || r->span == 0) {
            for (int64_t q = 0; q < r->count; q++) {
                struct arrival a = { r->arrival, g, r->id + q };
                if (push_arrival(&m->arr, &m->narr, &m->caparr, a) < 0)
                    return err_run(err, "out of memory");
            }
            m->cnt[g] += (double)r->count;
        } else {
            /* count uniform times over the span, sorted (a Poisson process given its count) */
            double *u = malloc((size_t)r->count * sizeof *u);
            if (u == NULL)
                return err_run(err, "out of memory");
            for (int64_t q = 0; q < r->count; q++)
                u[q] = gsl_rng_uniform(m->rng_spread);
            qsort(u, (size_t)r->count, sizeof *u, cmp_double);
            for (int64_t q = 0; q < r->count; q++) {
                struct arrival a = { r->arrival + (simtime)floor(u[q] * (double)r->span), g,
                                     r->id + q };
                int rc = a.t < t1 ? push_arrival(&m->arr, &m->narr, &m->caparr, a)
                                  : push_arrival(&m->carry, &m->ncarry, &m->capcarry, a);
                if (rc < 0) {
                    free(u);
                    return err_run(err, "out of memory");
                }
                if (a.t < t1)
                    m->cnt[g] += 1;
            }
            free(u);
        }
        if (read_next(m, err) < 0)
            return -1;
    }
    if (!m->c.analytical)
        qsort(m->arr, m->narr, sizeof *m->arr, cmp_arrival);
    return 0;
}

/* ---------------------------------------------------------------- latencies */

static double draw_call(msim *m, const struct micro_graph *g, int i)
{
    const struct micro_call *c = &g->calls[i];
    int k = c->service;
    double lam = m->rate[k];
    double x = c->count == 1 ? gsl_ran_exponential(m->rng_lat, 1.0 / lam)
                             : gsl_ran_gamma(m->rng_lat, (double)c->count, 1.0 / lam);
    x += c->count * m->shift[k];
    m->csum[k] += x;
    m->ccount[k] += c->count;
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        double slow = 0;
        for (int j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
            double v = draw_call(m, g, g->child[j]);
            slow = v > slow ? v : slow;
        }
        x += slow;
    }
    return x;
}

/* the rates of every service for the ready vector r */
static void rates_for(msim *m, const int *r)
{
    for (int k = 0; k < m->S; k++) {
        double w = m->load[k] / (r[k] > 0 ? r[k] : 1);
        m->rate[k] = mslat_rate(&m->a->svc[k].lat, w);
    }
}

/* lattice `depth` of the pool (allocated at create for the deepest tree: never moves) */
static struct lattice *lat_get(msim *m, int depth, double h, int n)
{
    if (depth >= m->caplat)
        return NULL;
    struct lattice *l = &m->lat[depth];
    (void)n;
    l->h = h;
    lattice_delta(l);
    return l;
}

static int is_delta(const struct lattice *l)
{
    return l->lo == 0 && l->hi == 0 && l->p[0] == 1;
}

static int lat_call(msim *m, const struct micro_graph *g, int i, struct lattice *acc, int depth);

/* the slowest branch of stage s into `into` (a delta on entry) */
static int lat_stage_max(msim *m, const struct micro_graph *g, int s, struct lattice *into,
                         int depth)
{
    int a = g->child_off[s], b = g->child_off[s + 1];
    if (lat_call(m, g, g->child[a], into, depth + 1) < 0)
        return -1;
    for (int j = a + 1; j < b; j++) {
        struct lattice *br = lat_get(m, depth, into->h, into->n);
        if (br == NULL || lat_call(m, g, g->child[j], br, depth + 1) < 0)
            return -1;
        lattice_max(into, br);
    }
    return 0;
}

/* acc := acc + the latency of call i and its subtree; lattices from `depth` on are free.
 * Sums commute, so when acc is still the point mass at 0 the call's first parallel stage
 * is built in it directly (no general convolution), its own latency and single-branch
 * stages added by filters, and only further parallel stages convolved in. */
static int lat_call(msim *m, const struct micro_graph *g, int i, struct lattice *acc, int depth)
{
    const struct micro_call *c = &g->calls[i];
    int first = -1, fresh = is_delta(acc);
    if (fresh)
        for (int s = g->stage_off[i]; s < g->stage_off[i + 1] && first < 0; s++)
            if (g->child_off[s + 1] - g->child_off[s] > 1)
                first = s;
    if (first >= 0 && lat_stage_max(m, g, first, acc, depth) < 0)
        return -1;
    if (fresh && first < 0 && depth == 1) {
        /* a root call on the point mass: as computed earlier in this segment, or kept */
        if (m->root_seg == m->seg && m->root_svc == c->service && m->root_count == c->count) {
            lattice_copy(acc, &m->root);
        } else {
            lattice_add_erlang(acc, c->count, m->shift[c->service], m->rate[c->service],
                               &m->scratch);
            lattice_copy(&m->root, acc);
            m->root_seg = m->seg;
            m->root_svc = c->service;
            m->root_count = c->count;
        }
    } else {
        lattice_add_erlang(acc, c->count, m->shift[c->service], m->rate[c->service],
                           &m->scratch);
    }
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        if (s == first)
            continue;
        int a = g->child_off[s], b = g->child_off[s + 1];
        if (b - a == 1) {
            if (lat_call(m, g, g->child[a], acc, depth) < 0)
                return -1;
            continue;
        }
        struct lattice *slow = lat_get(m, depth, acc->h, acc->n);
        if (slow == NULL || lat_stage_max(m, g, s, slow, depth + 1) < 0)
            return -1;
        lattice_add(acc, slow, &m->scratch);
    }
    return 0;
}

/* an upper bound of graph g's latency range under the current rates (for the step) */
static double bound(const msim *m, const struct micro_graph *g)
{
    double mean = 0, var = 0, minrate = INFINITY;
    for (int i = 0; i < g->ncalls; i++) {
        const struct micro_call *c = &g->calls[i];
        double lam = m->rate[c->service];
        mean += c->count * (m->shift[c->service] + 1 / lam);
        var += c->count / (lam * lam);
        if (lam < minrate)
            minrate = lam;
    }
    return mean + 8 * sqrt(var) + 25 / minrate;
}

static void hist_add(double *hist, double x, double w)
{
    int b = x <= HBASE ? 0 : (int)(log(x / HBASE) / log(HRATIO)) + 1;
    if (b >= HBINS)
        b = HBINS - 1;
    hist[b] += w;
}

static double hist_quantile(const double *hist, double total, double q)
{
    double c = 0;
    for (int b = 0; b < HBINS; b++) {
        if (hist[b] > 0 && c + hist[b] >= q * total) {
            double lo = b == 0 ? 0 : HBASE * pow(HRATIO, b - 1), hi = HBASE * pow(HRATIO, b);
            return lo + (hi - lo) * (q * total - c) / hist[b];
        }
        c += hist[b];
    }
    return NAN;
}

/* ---------------------------------------------------------------- the queueing truth */

enum { MMC_POINTS = 512 };

/* a server's rate at load w: the fit as a queue (models/mslat.h), tabulated for services
 * whose containers have several servers */
static double q_rate(void *ctx, int k, double w)
{
    const msim *m = ctx;
    const struct micro_service *s = &m->a->svc[k];
    if (s->concurrency <= 1)
        return mslat_queue_rate(&s->lat, w);
    const double *t = m->mmc + (size_t)k * MMC_POINTS;
    double x = w / m->mmc_step[k];
    if (!(x < MMC_POINTS - 1))
        return t[MMC_POINTS - 1];
    int i = (int)x;
    return t[i] + (x - i) * (t[i + 1] - t[i]);
}

static int32_t frame_new(msim *m, int32_t req, int32_t parent, int32_t call)
{
    if (m->frfree < 0) {
        if (m->nfr == m->capfr) {
            int32_t nc = m->capfr ? 2 * m->capfr : 1024;
            struct frame *n = realloc(m->fr, (size_t)nc * sizeof *n);
            if (n == NULL)
                return -1;
            m->fr = n;
            m->capfr = nc;
        }
        m->fr[m->nfr].parent = -1;
        m->frfree = m->nfr++;
    }
    int32_t f = m->frfree;
    m->frfree = m->fr[f].parent;
    m->fr[f] = (struct frame){ req, parent, call, 0, -1, 0, -1, 0 };
    return f;
}

static void frame_free(msim *m, int32_t f)
{
    m->fr[f].parent = m->frfree;
    m->frfree = f;
}

/* frame f's next repetition leaves its caller now: it reaches its service after the
 * service's shift, its passage there decided at once (mqueue.h) */
static int q_issue(msim *m, int32_t f, simtime now)
{
    struct frame *fr = &m->fr[f];
    const struct micro_graph *g = &m->a->graph[m->rq[fr->req].g];
    int k = g->calls[fr->call].service;
    simtime at = now + m->shift_us[k];
    fr->issued = now;
    int c = mqueue_arrive(m->mq, k, (uint32_t)f, now, at);
    if (c < 0)
        return -1;
    m->fr[f].cont = c;
    /* its load counts in the interval it arrives in */
    if (at < m->t_next)
        m->visits[k]++;
    else
        m->visits_next[k]++;
    return 0;
}

/* a request's last call is done now: its latency into the interval's statistics and the
 * run's, its row (a systematic sample of each class) */
static int q_done(msim *m, int32_t r, simtime now, struct errbuf *err)
{
    const struct qreq *q = &m->rq[r];
    const struct micro_graph *g = &m->a->graph[q->g];
    double e = sim_to_sec(now - q->arrival);
    if (stats_vec_push(&m->e2e_iv, e) < 0 || stats_vec_push(&m->e2e_g[q->g], e) < 0)
        return err_run(err, "out of memory");
    int met = e <= m->c.sla_s;
    m->done_iv++;
    m->miss_done += !met;
    if (m->counted) {
        if (stats_vec_push(&m->e2e_all, e) < 0)
            return err_run(err, "out of memory");
        m->e2e_sum += e;
    }
    int64_t seen = m->cls_seen[q->g]++;
    double f = m->c.request_sample;
    if (m->out->row != NULL && floor((double)(seen + 1) * f) > floor((double)seen * f)) {
        static const char *const cols[] = { "request_id", "class", "arrival_s", "start_s",
                                            "finish_s", "e2e_s", "sla_met" };
        double at = sim_to_sec(q->arrival);
        struct row_value v[7] = { row_int(q->id), row_text(g->name), row_real(at),
                                  row_real(at), row_real(sim_to_sec(now)), row_real(e),
                                  row_int(met) };
        if (m->out->row(m->out->ctx, "requests", cols, v, 7, err) < 0)
            return -1;
    }
    m->rq[r].next = m->rqfree;
    m->rqfree = r;
    m->inflight--;
    return 0;
}

/* frame f has finished its repetitions, or the stage it waited on: start its next stage
 * now, or, with none left, finish it and tell its parent */
static int q_next_stage(msim *m, int32_t f, simtime now, struct errbuf *err)
{
    for (;;) {
        struct frame *fr = &m->fr[f];
        const struct micro_graph *g = &m->a->graph[m->rq[fr->req].g];
        int s = fr->stage < 0 ? g->stage_off[fr->call] : fr->stage + 1;
        if (s < g->stage_off[fr->call + 1]) {
            int a = g->child_off[s], b = g->child_off[s + 1];
            fr->stage = s;
            fr->left = b - a;
            int32_t req = fr->req;
            for (int j = a; j < b; j++) {
                int32_t c = frame_new(m, req, f, g->child[j]);
                if (c < 0 || q_issue(m, c, now) < 0)
                    return err_run(err, "out of memory");
            }
            return 0;
        }
        int32_t p = fr->parent, req = fr->req;
        frame_free(m, f);
        if (p < 0)
            return q_done(m, req, now, err);
        if (--m->fr[p].left > 0)
            return 0;
        f = p;
    }
}

static int q_depart(msim *m, int32_t f, simtime now, struct errbuf *err)
{
    struct frame *fr = &m->fr[f];
    const struct micro_graph *g = &m->a->graph[m->rq[fr->req].g];
    const struct micro_call *c = &g->calls[fr->call];
    int k = c->service;
    mqueue_depart(m->mq, k, fr->cont);
    m->csum[k] += sim_to_sec(now - fr->issued);
    m->ccount[k]++;
    if (++fr->rep < c->count)
        return q_issue(m, f, now) < 0 ? err_run(err, "out of memory") : 0;
    return q_next_stage(m, f, now, err);
}

/* the interval's next arrival: a request enters at its graph's root call */
static int q_arrive(msim *m, simtime now, struct errbuf *err)
{
    const struct arrival *ar = &m->arr[m->ai++];
    if (m->rqfree < 0) {
        if (m->nrq == m->caprq) {
            int32_t nc = m->caprq ? 2 * m->caprq : 256;
            struct qreq *n = realloc(m->rq, (size_t)nc * sizeof *n);
            if (n == NULL)
                return err_run(err, "out of memory");
            m->rq = n;
            m->caprq = nc;
        }
        m->rq[m->nrq].next = -1;
        m->rqfree = m->nrq++;
    }
    int32_t r = m->rqfree;
    m->rqfree = m->rq[r].next;
    m->rq[r] = (struct qreq){ ar->id, ar->g, -1, now };
    m->inflight++;
    m->arrived++;
    int32_t f = frame_new(m, r, -1, 0);
    if (f < 0 || q_issue(m, f, now) < 0)
        return err_run(err, "out of memory");
    if (m->ai < m->narr &&
        engine_at(m->eng, m->arr[m->ai].t, EV_ARRIVE | m->tag, 0, NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

/* the queueing truth's interval [t0, t1): loads from the calls that arrived at each
 * service, latencies from the requests (and calls) that completed in it */
static void close_interval_q(msim *m, simtime t1, double *q_out, double *miss_out)
{
    double dt = sim_to_sec(t1 - m->t0);
    for (int k = 0; k < m->S; k++) {
        m->load[k] = (double)m->visits[k] / dt;
        m->visits[k] = m->visits_next[k];
        m->visits_next[k] = 0;
        m->cmean[k] = m->ccount[k] > 0 ? m->csum[k] / (double)m->ccount[k] : 0;
        m->csum[k] = 0;
        m->ccount[k] = 0;
    }
    double q_iv = NAN;
    for (int g = 0; g < m->G; g++)
        m->gq[g] = 0;
    if (m->e2e_iv.n > 0) {
        stats_vec_sort(&m->e2e_iv);
        q_iv = stats_vec_quantile(&m->e2e_iv, m->c.quantile);
        for (int g = 0; g < m->G; g++)
            if (m->e2e_g[g].n > 0) {
                stats_vec_sort(&m->e2e_g[g]);
                m->gq[g] = stats_vec_quantile(&m->e2e_g[g], m->c.quantile);
            }
    }
    m->e2e_iv.n = 0;
    for (int g = 0; g < m->G; g++)
        m->e2e_g[g].n = 0;
    *q_out = q_iv;
    *miss_out = m->miss_done;
    m->miss_done = 0;
}

/* ---------------------------------------------------------------- one interval */

/* the fit's interval [t0, t1): loads from the calls of the requests that arrived in it,
 * their latencies drawn (requests mode) or their distribution computed (analytical); r
 * (scratch) ends as the ready vector at t1 */
static int close_interval_fit(msim *m, simtime t1, int *r, int counted, double nreq,
                              double *q_out, double *miss_out, struct errbuf *err)
{
    const struct world_writer *out = m->out;
    double dt = sim_to_sec(t1 - m->t0);
    double q_iv = NAN, miss_iv = 0;
    for (int k = 0; k < m->S; k++) {
        double calls = 0;
        for (int g = 0; g < m->G; g++)
            calls += m->cnt[g] * m->a->graph[g].calls_per_service[k];
        m->load[k] = calls / dt;
        m->shift[k] = m->a->svc[k].lat.shift;
        m->csum[k] = 0;
        m->ccount[k] = 0;
    }
    /* the ready vector over the interval: ready0 then the changes in time order */
    memcpy(r, m->ready0, (size_t)m->S * sizeof *r);
    for (int g = 0; g < m->G; g++)
        m->gq[g] = 0;
    if (!m->c.analytical) {
        /* requests mode: arrivals in order of time, the ready vector moving with them */
        m->e2e_iv.n = 0;
        for (int g = 0; g < m->G; g++)
            m->e2e_g[g].n = 0;
        int ci = 0;
        rates_for(m, r);
        for (size_t i = 0; i < m->narr; i++) {
            const struct arrival *ar = &m->arr[i];
            int moved = 0;
            while (ci < m->nchg && m->chg[ci].t <= ar->t) {
                r[m->chg[ci].k] = m->chg[ci].ready;
                ci++;
                moved = 1;
            }
            if (moved)
                rates_for(m, r);
            const struct micro_graph *g = &m->a->graph[ar->g];
            double e = draw_call(m, g, 0);
            if (stats_vec_push(&m->e2e_iv, e) < 0 || stats_vec_push(&m->e2e_g[ar->g], e) < 0)
                return err_run(err, "out of memory");
            int met = e <= m->c.sla_s;
            miss_iv += !met;
            if (counted) {
                if (stats_vec_push(&m->e2e_all, e) < 0)
                    return err_run(err, "out of memory");
                m->e2e_sum += e;
            }
            /* rows: a systematic sample of each class */
            int64_t seen = m->cls_seen[ar->g]++;
            double f = m->c.request_sample;
            if (out->row != NULL && floor((double)(seen + 1) * f) > floor((double)seen * f)) {
                static const char *const cols[] = { "request_id", "class", "arrival_s",
                                                    "start_s", "finish_s", "e2e_s", "sla_met" };
                double at = sim_to_sec(ar->t);
                struct row_value v[7] = { row_int(ar->id), row_text(g->name), row_real(at),
                                          row_real(at), row_real(at + e), row_real(e),
                                          row_int(met) };
                if (out->row(out->ctx, "requests", cols, v, 7, err) < 0)
                    return -1;
            }
        }
        if (m->narr > 0) {
            stats_vec_sort(&m->e2e_iv);
            q_iv = stats_vec_quantile(&m->e2e_iv, m->c.quantile);
            for (int g = 0; g < m->G; g++)
                if (m->e2e_g[g].n > 0) {
                    stats_vec_sort(&m->e2e_g[g]);
                    m->gq[g] = stats_vec_quantile(&m->e2e_g[g], m->c.quantile);
                }
        }
        for (int k = 0; k < m->S; k++)
            m->cmean[k] = m->ccount[k] > 0 ? m->csum[k] / (double)m->ccount[k] : 0;
    } else if (nreq > 0) {
        /* analytical: one segment per ready vector, weighted by its requests */
        int n = m->c.lattice_points;
        double h = 0;
        /* the step from the widest bound over every segment */
        int ci = 0;
        simtime from = m->t0;
        int *rr = m->want + m->S;
        memcpy(rr, r, (size_t)m->S * sizeof *rr);
        for (;;) {
            rates_for(m, rr);
            for (int g = 0; g < m->G; g++)
                if (m->cnt[g] > 0) {
                    double b = bound(m, &m->a->graph[g]);
                    h = b / n > h ? b / n : h;
                }
            if (ci >= m->nchg)
                break;
            simtime t = m->chg[ci].t;
            while (ci < m->nchg && m->chg[ci].t == t) {
                rr[m->chg[ci].k] = m->chg[ci].ready;
                ci++;
            }
        }
        m->mixl.h = h;
        memset(m->mixl.p, 0, (size_t)n * sizeof *m->mixl.p);
        m->mixl.lo = 0;
        m->mixl.hi = n - 1;
        double wsum = 0;
        for (int k = 0; k < m->S; k++)
            m->cmean[k] = 0;
        double *gw = m->mix;        /* scratch: per-graph weight in this segment */
        ci = 0;
        from = m->t0;
        memcpy(rr, r, (size_t)m->S * sizeof *rr);
        /* per-graph mixtures, for the per-graph quantiles */
        double *gqs = m->gqs;
        for (int g = 0; g < m->G; g++) {
            m->glo[g] = n;
            m->ghi[g] = -1;
        }
        for (;;) {
            simtime to = ci < m->nchg ? m->chg[ci].t : t1;
            if (to > t1)
                to = t1;
            /* the requests of each graph in [from, to) */
            for (int g = 0; g < m->G; g++)
                gw[g] = 0;
            for (size_t q = 0; q < m->ngrp; q++) {
                const struct group *gr = &m->grp[q];
                double part;
                if (gr->span <= 0)
                    part = gr->t >= from && gr->t < to ? gr->count : 0;
                else {
                    simtime a0 = gr->t > from ? gr->t : from;
                    simtime a1 = gr->t + gr->span < to ? gr->t + gr->span : to;
                    part = a1 > a0 ? gr->count * (double)(a1 - a0) / (double)gr->span : 0;
                }
                gw[gr->g] += part;
            }
            rates_for(m, rr);
            m->seg++;
            double segw = 0;
            for (int g = 0; g < m->G; g++)
                segw += gw[g];
            for (int k = 0; k < m->S && segw > 0; k++) {
                /* mean call latency, weighted by the calls in this segment */
                double calls = 0;
                for (int g = 0; g < m->G; g++)
                    calls += gw[g] * m->a->graph[g].calls_per_service[k];
                m->cmean[k] += calls * mslat_mean(&m->a->svc[k].lat,
                                                  m->load[k] / (rr[k] > 0 ? rr[k] : 1));
                m->csum[k] += calls;
            }
            for (int g = 0; g < m->G; g++) {
                if (!(gw[g] > 0))
                    continue;
                struct lattice *l = lat_get(m, 0, h, n);
                int ok = l != NULL && lat_call(m, &m->a->graph[g], 0, l, 1) == 0;
                assert(ok && "the lattice pool holds the deepest tree");
                if (!ok)
                    return err_run(err, "lattice pool too small");
                for (int k = l->lo; k <= l->hi; k++) {
                    m->mixl.p[k] += gw[g] * l->p[k];
                    gqs[(size_t)g * n + k] += gw[g] * l->p[k];
                }
                m->glo[g] = l->lo < m->glo[g] ? l->lo : m->glo[g];
                m->ghi[g] = l->hi > m->ghi[g] ? l->hi : m->ghi[g];
                wsum += gw[g];
            }
            if (to >= t1 || ci >= m->nchg)
                break;
            simtime t = m->chg[ci].t;
            while (ci < m->nchg && m->chg[ci].t == t) {
                rr[m->chg[ci].k] = m->chg[ci].ready;
                ci++;
            }
            from = t;
        }
        for (int k = 0; k < m->S; k++)
            m->cmean[k] = m->csum[k] > 0 ? m->cmean[k] / m->csum[k] : 0;
        double mass = 0;
        for (int k = 0; k < n; k++) {
            m->mixl.p[k] /= wsum;
            mass += m->mixl.p[k];
        }
        m->mixl.lost = mass < 1 ? 1 - mass : 0;
        q_iv = lattice_quantile(&m->mixl, m->c.quantile);
        if (isinf(q_iv))
            q_iv = n * h;       /* past the lattice: at least its end */
        miss_iv = nreq * (1 - lattice_cdf(&m->mixl, m->c.sla_s));
        for (int g = 0; g < m->G; g++) {
            if (!(m->cnt[g] > 0))
                continue;
            /* the row is 0 outside the points it was given: sums and the quantile's scan
             * over those alone are the same as over every point */
            struct lattice gl = m->mixl;
            double gs = 0;
            gl.p = gqs + (size_t)g * n;
            gl.lo = m->glo[g];
            gl.hi = m->ghi[g];
            for (int k = gl.lo; k <= gl.hi; k++)
                gs += gl.p[k];
            for (int k = gl.lo; k <= gl.hi; k++)
                gl.p[k] /= gs;
            gl.lost = 0;
            double v = lattice_quantile(&gl, m->c.quantile);
            m->gq[g] = isinf(v) ? n * h : v;
        }
        for (int g = 0; g < m->G; g++)
            if (m->ghi[g] >= m->glo[g])
                memset(gqs + (size_t)g * n + m->glo[g], 0,
                       (size_t)(m->ghi[g] - m->glo[g] + 1) * sizeof *gqs);
        if (counted) {
            for (int k = 0; k < n; k++)
                if (m->mixl.p[k] > 0) {
                    hist_add(m->hist, k * h, nreq * m->mixl.p[k]);
                    m->e2e_sum += nreq * m->mixl.p[k] * k * h;
                }
            hist_add(m->hist, n * h, nreq * m->mixl.lost);
            m->e2e_sum += nreq * m->mixl.lost * n * h;
        }
    }
    *q_out = q_iv;
    *miss_out = miss_iv;
    return 0;
}

static int close_interval(msim *m, simtime t1, struct errbuf *err)
{
    const struct world_writer *out = m->out;
    double dt = sim_to_sec(t1 - m->t0);
    /* the fit's truth reads the interval's arrivals now; the queueing truth read them when
     * the interval began */
    if (m->mq == NULL && gather(m, t1, err) < 0)
        return -1;
    double nreq = 0;
    for (int g = 0; g < m->G; g++)
        nreq += m->cnt[g];
    /* the requests the interval's latencies are of: those that arrived in it (the fit), or
     * those that completed in it (the queueing truth) */
    double ndone = nreq;
    int *r = m->want;           /* scratch: the ready vector */
    double q_iv = NAN, miss_iv = 0;
    int counted = !(m->c.measure.to > m->c.measure.from) ||
                  (sim_to_sec(m->t0) >= m->c.measure.from &&
                   sim_to_sec(m->t0) < m->c.measure.to);
    if (m->mq != NULL) {
        close_interval_q(m, t1, &q_iv, &miss_iv);
        ndone = (double)m->done_iv;
        m->done_iv = 0;
        for (int k = 0; k < m->S; k++)
            r[k] = m->svc[k].ready;
    } else if (close_interval_fit(m, t1, r, counted, nreq, &q_iv, &miss_iv, err) < 0) {
        return -1;
    }
    /* the interval's summary */
    if (counted && ndone > 0) {
        m->requests += (int64_t)llround(ndone);
        m->missed += (int64_t)llround(miss_iv);
        m->intervals_req++;
        m->intervals_bad += q_iv > m->c.sla_s;
    }
    double rate = nreq / dt;
    m->last_rate = rate;
    m->last_q = ndone > 0 ? q_iv : 0;
    m->last_miss = ndone > 0 ? miss_iv / ndone : 0;
    m->have_last = 1;
    if (rate > m->peak_seen)
        m->peak_seen = rate;
    if (m->nhist == MICRO_HISTORY) {
        memmove(m->hist_rate, m->hist_rate + 1, (MICRO_HISTORY - 1) * sizeof(double));
        memmove(m->hist_mix, m->hist_mix + m->G,
                (size_t)(MICRO_HISTORY - 1) * (size_t)m->G * sizeof(double));
        m->nhist--;
    }
    m->hist_rate[m->nhist] = rate;
    for (int g = 0; g < m->G; g++)
        m->hist_mix[m->nhist * m->G + g] = nreq > 0 ? m->cnt[g] / nreq : 1.0 / m->G;
    m->nhist++;
    /* the time series */
    if (m->c.sample_s > 0 && sim_to_sec(t1) >= m->next_sample - 1e-9) {
        m->next_sample += m->c.sample_s;
        char name[MICRO_NAME_MAX + 32];
        int tot = 0;
        if (out->sample(out->ctx, t1, "rate", rate, err) < 0 ||
            (ndone > 0 && out->sample(out->ctx, t1, "e2e_q", q_iv, err) < 0))
            return -1;
        for (int k = 0; k < m->S; k++) {
            const struct svc_state *s = &m->svc[k];
            tot += s->alloc;
            snprintf(name, sizeof name, "containers_%s", m->a->svc[k].name);
            if (out->sample(out->ctx, t1, name, s->alloc, err) < 0)
                return -1;
            snprintf(name, sizeof name, "load_%s", m->a->svc[k].name);
            if (out->sample(out->ctx, t1, name, m->load[k] / (r[k] > 0 ? r[k] : 1), err) < 0)
                return -1;
            snprintf(name, sizeof name, "calls_%s", m->a->svc[k].name);
            if (m->mq != NULL &&
                out->sample(out->ctx, t1, name, (double)mqueue_in_system(m->mq, k), err) < 0)
                return -1;
        }
        if (out->sample(out->ctx, t1, "containers_total", tot, err) < 0)
            return -1;
        for (int g = 0; g < m->G; g++) {
            snprintf(name, sizeof name, "mix_%s", m->a->graph[g].name);
            if (out->sample(out->ctx, t1, name, nreq > 0 ? m->cnt[g] / nreq : 0, err) < 0)
                return -1;
        }
    }
    for (int g = 0; g < m->G; g++)
        m->mix[g] = nreq > 0 ? m->cnt[g] / nreq : 0;
    if (out->progress != NULL)
        out->progress(out->ctx, t1, m->requests);
    return 0;
}

/* ---------------------------------------------------------------- decisions */

static int decide(msim *m, simtime now, struct errbuf *err)
{
    int *cont = m->want, *ready = m->want + m->S;
    for (int k = 0; k < m->S; k++) {
        cont[k] = m->svc[k].alloc;
        ready[k] = m->svc[k].ready;
    }
    double peak = m->peak_declared > 0 ? m->peak_declared : m->peak_seen;
    struct micro_view v = {
        .now = now, .interval = m->interval, .interval_s = m->c.interval_s,
        .sla_s = m->c.sla_s, .quantile = m->c.quantile, .app = &m->a->view,
        .containers = cont, .ready = ready, .startup_s = m->c.startup_s,
        .capacity_cpus = m->cap_cpus, .capacity_memory_gb = m->cap_mem, .peak_rate = peak,
        .have_last = m->have_last, .rate = m->last_rate, .mix = m->mix, .load = m->load,
        .call_mean_s = m->cmean, .graph_p95_s = m->gq, .e2e_q_s = m->last_q,
        .miss_frac = m->last_miss, .nhist = m->nhist, .hist_rate = m->hist_rate,
        .hist_mix = m->hist_mix,
    };
    int *n = calloc((size_t)m->S, sizeof *n);
    if (n == NULL)
        return err_run(err, "out of memory");
    for (int k = 0; k < m->S; k++)
        n[k] = cont[k];
    m->decisions++;
    if (m->dec->decide(m->dec->ctx, &v, n, err) < 0) {
        free(n);
        return -1;
    }
    for (int k = 0; k < m->S; k++)
        if (n[k] < 1)
            n[k] = 1;
    m->capped += fit_capacity(m, n);
    int rc = apply(m, n, now, now == 0, err);
    free(n);
    return rc;
}

/* ---------------------------------------------------------------- the loop */

static int account(msim *m, double dt)
{
    double c = 0, cpu = 0;
    for (int k = 0; k < m->S; k++) {
        c += m->svc[k].alloc;
        cpu += m->svc[k].alloc * m->a->svc[k].cpus;
    }
    m->cont_s += c * dt;
    m->cpu_s += cpu * dt;
    if (c > m->cont_max)
        m->cont_max = c;
    return 0;
}

/* The run is over for this world: on an engine it may share, the others go on, so it leaves
 * the engine rather than stopping it; its events still queued are dropped uncounted, as a
 * stopped loop leaves them. */
static int quit(msim *m)
{
    m->gone = 1;
    engine_detach(m->eng, m->tag);
    return ENGINE_CONTINUE;
}

/* A boundary: close the interval that ends now, then decide the next.  The queueing truth
 * then reads the next interval's arrivals and lets the first one in; its run ends at the
 * first boundary after the last request completed (the fit's, after the last arrived). */
static int boundary(msim *m, simtime now, struct errbuf *err)
{
    if (now > 0) {
        if (m->counted)
            account(m, sim_to_sec(now - m->acct));
        /* containers removed but still serving their calls: reported apart (drain_seconds),
         * the allocation being what the policy holds */
        for (int k = 0; m->mq != NULL && k < m->S; k++) {
            double d = mqueue_take_drain(m->mq, k);
            if (m->counted)
                m->drain_s += d;
        }
        if (close_interval(m, now, err) < 0 || tl_replay(m, err) < 0)
            return ENGINE_FAIL;
        m->horizon_s = sim_to_sec(now);
        m->interval++;
    }
    m->t0 = m->acct = now;
    m->counted = !(m->c.measure.to > m->c.measure.from) ||
                 (sim_to_sec(now) >= m->c.measure.from && sim_to_sec(now) < m->c.measure.to);
    m->nchg = 0;
    for (int k = 0; k < m->S; k++)
        m->ready0[k] = m->svc[k].ready;
    if (!m->have_next && m->ncarry == 0 && m->ngcarry == 0 && m->inflight == 0 && now > 0)
        return quit(m);
    if (decide(m, now, err) < 0)
        return ENGINE_FAIL;
    /* the decision at t0 may change ready containers at once (scale-in, no start-up) */
    m->nchg = 0;
    for (int k = 0; k < m->S; k++)
        m->ready0[k] = m->svc[k].ready;
    simtime next = now + sim_from_sec(m->c.interval_s);
    m->t_next = next;
    if (next > m->c.until) {
        m->stopped = 1;
        /* the calls in flight are left where they are */
        return m->mq != NULL ? quit(m) : ENGINE_CONTINUE;
    }
    if (m->mq != NULL) {
        if (gather(m, next, err) < 0)
            return ENGINE_FAIL;
        m->ai = 0;
        if (m->narr > 0 && engine_at(m->eng, m->arr[0].t, EV_ARRIVE | m->tag, 0, NULL) < 0) {
            err_run(err, "out of memory");
            return ENGINE_FAIL;
        }
    }
    return engine_at(m->eng, next, EV_TICK | m->tag, 0, NULL) < 0 ? ENGINE_FAIL : ENGINE_CONTINUE;
}

static int handle(void *world, const struct evq_event *ev, struct errbuf *err)
{
    msim *m = world;
    simtime now = engine_now(m->eng);
    int rc = 0;
    m->nevents++;
    switch (ev->kind) {
    case EV_DEPART:
        rc = q_depart(m, (int32_t)ev->arg, now, err);
        break;
    case EV_ARRIVE:
        rc = q_arrive(m, now, err);
        break;
    case EV_READY:
        rc = on_ready(m, (int)ev->arg, now, err);
        break;
    default:
        return boundary(m, now, err);
    }
    return rc < 0 ? ENGINE_FAIL : ENGINE_CONTINUE;
}

/* The queueing truth's state: the containers as servers, each service's transit (its
 * shift), and for services with several servers per container their per-server rates over
 * loads up to the capacity (models/mslat.h), so that a call does not solve for them. */
static int queue_init(msim *m)
{
    int S = m->S;
    int *servers = calloc((size_t)S, sizeof *servers);
    m->shift_us = calloc((size_t)S, sizeof *m->shift_us);
    m->visits = calloc(2 * (size_t)S, sizeof *m->visits);
    m->visits_next = m->visits != NULL ? m->visits + S : NULL;
    m->mmc_step = calloc((size_t)S, sizeof *m->mmc_step);
    m->mmc = calloc((size_t)S * MMC_POINTS, sizeof *m->mmc);
    m->frfree = m->rqfree = -1;
    if (servers == NULL || m->shift_us == NULL || m->visits == NULL || m->mmc_step == NULL ||
        m->mmc == NULL) {
        free(servers);
        return -1;
    }
    for (int k = 0; k < S; k++) {
        const struct micro_service *s = &m->a->svc[k];
        servers[k] = s->concurrency > 1 ? s->concurrency : 1;
        m->shift_us[k] = sim_from_sec(s->lat.shift);
        if (servers[k] == 1)
            continue;
        double cap = mslat_capacity(&s->lat);
        m->mmc_step[k] = cap / (MMC_POINTS - 1);
        for (int i = 0; i < MMC_POINTS; i++)
            m->mmc[(size_t)k * MMC_POINTS + i] =
                mslat_queue_rate_c(&s->lat, servers[k], i * m->mmc_step[k]);
    }
    struct mqueue_config qc = { .nservices = S, .servers = servers, .routing = m->c.routing,
                                .smooth_s = m->c.smooth_s, .rate = q_rate, .rate_ctx = m,
                                .depart_kind = EV_DEPART | m->tag, .seed = m->c.seed };
    int rc = mqueue_create(&m->mq, &qc, m->eng);
    free(servers);
    for (int k = 0; rc == 0 && k < S; k++)
        rc = mqueue_set_ready(m->mq, k, m->svc[k].ready, 0);
    return rc;
}

int msim_create(msim **out, const struct msim_config *c, const cluster *cl,
                struct entity_source *src, const struct micro_decider *dec,
                const struct world_writer *w, struct errbuf *err)
{
    *out = NULL;
    if (msim_check_cluster(c->app, cl, err) < 0)
        return -1;
    msim *m = calloc(1, sizeof *m);
    if (m == NULL)
        return err_run(err, "out of memory");
    m->c = *c;
    m->a = c->app;
    m->cl = cl;
    m->src = src;
    m->dec = dec;
    m->out = w;
    m->S = m->a->view.nservices;
    m->G = m->a->view.ngraphs;
    int S = m->S, G = m->G;
    m->rng_lat = rng_stream(c->seed, "latency");
    m->rng_spread = rng_stream(c->seed, "spread");
    m->svc = calloc((size_t)S, sizeof *m->svc);
    m->ready0 = calloc((size_t)S, sizeof *m->ready0);
    m->want = calloc(2 * (size_t)S, sizeof *m->want);
    m->order = calloc((size_t)S, sizeof *m->order);
    m->cnt = calloc((size_t)G, sizeof(double));
    m->gq = calloc((size_t)G, sizeof(double));
    m->mix = calloc((size_t)G, sizeof(double));
    m->cls_seen = calloc((size_t)G, sizeof *m->cls_seen);
    m->e2e_g = calloc((size_t)G, sizeof *m->e2e_g);
    m->hist_mix = calloc((size_t)MICRO_HISTORY * (size_t)G, sizeof(double));
    m->load = calloc((size_t)S, sizeof(double));
    m->rate = calloc((size_t)S, sizeof(double));
    m->shift = calloc((size_t)S, sizeof(double));
    m->csum = calloc((size_t)S, sizeof(double));
    m->cmean = calloc((size_t)S, sizeof(double));
    m->ccount = calloc((size_t)S, sizeof *m->ccount);
    int ok = m->rng_lat && m->rng_spread && m->svc && m->ready0 && m->want &&
             m->order && m->cnt && m->gq && m->mix && m->cls_seen && m->e2e_g && m->hist_mix &&
             m->load && m->rate && m->shift && m->csum && m->cmean && m->ccount;
    if (ok && c->analytical) {
        m->hist = calloc(HBINS, sizeof *m->hist);
        m->gqs = calloc((size_t)G * (size_t)c->lattice_points, sizeof *m->gqs);
        m->glo = calloc((size_t)G, sizeof *m->glo);
        m->ghi = calloc((size_t)G, sizeof *m->ghi);
        ok = m->hist && m->gqs && m->glo && m->ghi &&
             lattice_init(&m->mixl, 1, c->lattice_points) == 0 &&
             lattice_init(&m->scratch, 1, c->lattice_points) == 0 &&
             lattice_init(&m->root, 1, c->lattice_points) == 0;
        m->root_seg = -1;
        /* two lattices per level of the deepest tree, and the graph's own */
        int depth = 0;
        for (int g = 0; g < G; g++) {
            const struct micro_graph *gr = &m->a->graph[g];
            for (int i = 0; i < gr->ncalls; i++) {
                int d = 0;
                for (int p = gr->calls[i].parent; p >= 0; p = gr->calls[p].parent)
                    d++;
                depth = d > depth ? d : depth;
            }
        }
        m->caplat = 2 * depth + 4;
        m->lat = calloc((size_t)m->caplat, sizeof *m->lat);
        ok = ok && m->lat != NULL;
        for (int i = 0; ok && i < m->caplat; i++)
            ok = lattice_init(&m->lat[i], 1, c->lattice_points) == 0;
    }
    /* the CPU nodes */
    for (int i = 0; ok && i < cluster_ncpu_groups(cl); i++)
        m->nnodes += cluster_cpu_group(cl, i)->count;
    if (ok) {
        m->node_cpu = calloc((size_t)m->nnodes, sizeof(double));
        m->node_mem = calloc((size_t)m->nnodes, sizeof(double));
        m->free_cpu = calloc((size_t)m->nnodes, sizeof(double));
        m->free_mem = calloc((size_t)m->nnodes, sizeof(double));
        m->full_cpu = calloc((size_t)m->nnodes, sizeof(double));
        m->full_mem = calloc((size_t)m->nnodes, sizeof(double));
        ok = m->node_cpu && m->node_mem && m->free_cpu && m->free_mem && m->full_cpu &&
             m->full_mem;
    }
    if (!ok) {
        msim_destroy(m);
        return err_run(err, "out of memory");
    }
    int nd = 0;
    for (int i = 0; i < cluster_ncpu_groups(cl); i++) {
        const struct cluster_cpu_group *g = cluster_cpu_group(cl, i);
        m->can_lose |= g->gpu_node >= 0;
        for (int q = 0; q < g->count; q++, nd++) {
            m->node_cpu[nd] = m->full_cpu[nd] = g->cpus;
            m->node_mem[nd] = m->full_mem[nd] = g->memory_gb;
            m->cap_cpus += g->cpus;
            m->cap_mem += g->memory_gb;
        }
    }
    /* placement order: largest containers first, then service order */
    for (int k = 0; k < S; k++)
        m->order[k] = k;
    for (int a = 1; a < S; a++)
        for (int b = a; b > 0 && m->a->svc[m->order[b - 1]].cpus < m->a->svc[m->order[b]].cpus;
             b--) {
            int t = m->order[b];
            m->order[b] = m->order[b - 1];
            m->order[b - 1] = t;
        }
    /* the initial deployment, fitted to the nodes */
    for (int k = 0; k < S; k++)
        m->want[k] = m->a->svc[k].init;
    fit_capacity(m, m->want);
    for (int k = 0; k < S; k++)
        m->svc[k].alloc = m->svc[k].ready = m->want[k];
    m->next_sample = c->sample_s;
    *out = m;
    return 0;
}

void msim_destroy(msim *m)
{
    if (m == NULL)
        return;
    mqueue_destroy(m->mq);
    free(m->fr);
    free(m->rq);
    free(m->shift_us);
    free(m->visits);
    free(m->mmc);
    free(m->mmc_step);
    engine_destroy(m->own);
    if (m->rng_lat)
        gsl_rng_free(m->rng_lat);
    if (m->rng_spread)
        gsl_rng_free(m->rng_spread);
    for (int k = 0; m->svc && k < m->S; k++) {
        free(m->svc[k].pend);
        free(m->svc[k].slot_id);
        free(m->svc[k].slot_from);
        free(m->svc[k].slot_cause);
    }
    free(m->svc);
    free(m->ready0);
    free(m->want);
    free(m->order);
    free(m->chg);
    free(m->arr);
    free(m->carry);
    free(m->grp);
    free(m->gcarry);
    free(m->gqs);
    free(m->glo);
    free(m->ghi);
    free(m->cnt);
    free(m->gq);
    free(m->mix);
    free(m->cls_seen);
    for (int g = 0; m->e2e_g && g < m->G; g++)
        stats_vec_fini(&m->e2e_g[g]);
    free(m->e2e_g);
    free(m->hist_mix);
    free(m->load);
    free(m->rate);
    free(m->shift);
    free(m->csum);
    free(m->cmean);
    free(m->ccount);
    free(m->node_cpu);
    free(m->node_mem);
    free(m->free_cpu);
    free(m->free_mem);
    free(m->full_cpu);
    free(m->full_mem);
    for (int i = 0; m->lat != NULL && i < m->caplat; i++)
        lattice_fini(&m->lat[i]);
    free(m->lat);
    lattice_fini(&m->mixl);
    lattice_fini(&m->scratch);
    lattice_fini(&m->root);
    free(m->hist);
    stats_vec_fini(&m->e2e_iv);
    stats_vec_fini(&m->e2e_all);
    free(m);
}

static int metric(msim *m, const char *name, double v, struct errbuf *err)
{
    return m->out->metric(m->out->ctx, name, v, err);
}

int msim_attach(msim *m, engine *e, struct errbuf *err)
{
    if (m->eng != NULL)
        return err_run(err, "microservice world attached twice");
    if (engine_attach(e, handle, NULL, m, &m->tag) < 0)
        return err_run(err, "more than %d worlds on one engine", ENGINE_MAX_CLIENTS);
    m->eng = e;
    if (m->c.queueing && !m->c.analytical && queue_init(m) < 0)
        return err_run(err, "out of memory");
    if (read_next(m, err) < 0)
        return -1;
    if (engine_at(m->eng, 0, EV_TICK | m->tag, 0, NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

int msim_finish(msim *m, int stop, struct world_totals *tot, struct errbuf *err)
{
    if (stop == ENGINE_FAILED)
        return -1;
    double T = m->horizon_s;
    if (tl_finish(m, sim_from_sec(T), err) < 0)
        return -1;
    double e50 = NAN, e95 = NAN, e99 = NAN, mean = NAN;
    if (!m->c.analytical && m->e2e_all.n > 0) {
        stats_vec_sort(&m->e2e_all);
        e50 = stats_vec_quantile(&m->e2e_all, 0.5);
        e95 = stats_vec_quantile(&m->e2e_all, 0.95);
        e99 = stats_vec_quantile(&m->e2e_all, 0.99);
        mean = m->e2e_sum / (double)m->e2e_all.n;
    } else if (m->c.analytical && m->requests > 0) {
        double tw = 0;
        for (int b = 0; b < HBINS; b++)
            tw += m->hist[b];
        e50 = hist_quantile(m->hist, tw, 0.5);
        e95 = hist_quantile(m->hist, tw, 0.95);
        e99 = hist_quantile(m->hist, tw, 0.99);
        mean = m->e2e_sum / tw;
    }
    double measured = T;
    if (m->c.measure.to > m->c.measure.from) {
        double a = m->c.measure.from, b = m->c.measure.to < T ? m->c.measure.to : T;
        measured = b > a ? b - a : 0;
    }
    if (metric(m, "requests_total", (double)m->requests, err) < 0 ||
        metric(m, "intervals", (double)m->interval, err) < 0 ||
        (m->requests > 0 &&
         (metric(m, "e2e_mean", mean, err) < 0 || metric(m, "e2e_p50", e50, err) < 0 ||
          metric(m, "e2e_p95", e95, err) < 0 || metric(m, "e2e_p99", e99, err) < 0 ||
          metric(m, "sla_miss_frac", (double)m->missed / (double)m->requests, err) < 0)) ||
        (m->intervals_req > 0 &&
         metric(m, "sla_violation_prob", (double)m->intervals_bad / (double)m->intervals_req,
                err) < 0) ||
        (measured > 0 && metric(m, "containers_mean", m->cont_s / measured, err) < 0) ||
        metric(m, "containers_max", m->cont_max, err) < 0 ||
        metric(m, "cpu_seconds", m->cpu_s, err) < 0 ||
        metric(m, "scale_outs", (double)m->scale_out, err) < 0 ||
        metric(m, "scale_ins", (double)m->scale_in, err) < 0 ||
        metric(m, "capacity_capped", (double)m->capped, err) < 0 ||
        (m->can_lose && metric(m, "evictions", (double)m->evictions, err) < 0) ||
        (m->a->traces > 0 && metric(m, "app_rt_cleaned", (double)m->a->cleaned, err) < 0) ||
        (m->mq != NULL && metric(m, "drain_seconds", m->drain_s, err) < 0))
        return -1;
    *tot = (struct world_totals){ .end = sim_from_sec(T), .stop = stop,
                                  .events = m->nevents, .decisions = m->decisions,
                                  .entities_in = m->mq != NULL ? m->arrived : m->requests,
                                  .entities_done = m->mq != NULL ? m->arrived - m->inflight
                                                                 : m->requests };
    if (m->stopped && (tot->stop == ENGINE_DRAINED || tot->stop == ENGINE_STOPPED))
        tot->stop = ENGINE_UNTIL;
    return 0;
}

int msim_nnodes(const msim *m)
{
    return m->nnodes;
}

int msim_take(msim *m, const int *nodes, int n, int64_t *evicted, struct errbuf *err)
{
    *evicted = 0;
    for (int i = 0; i < n; i++) {
        if (nodes[i] < 0 || nodes[i] >= m->nnodes)
            return err_run(err, "microservice world: no CPU node %d to take (it has %d)",
                           nodes[i], m->nnodes);
        m->cap_cpus -= m->node_cpu[nodes[i]];
        m->cap_mem -= m->node_mem[nodes[i]];
        m->node_cpu[nodes[i]] = m->node_mem[nodes[i]] = 0;
    }
    int *n_fit = m->want;       /* decide's scratch, free between decisions */
    for (int k = 0; k < m->S; k++)
        n_fit[k] = m->svc[k].alloc;
    if (!fit_capacity(m, n_fit))
        return 0;
    if (m->decisions == 0) {    /* before the first decision: the deployment starts fitted */
        for (int k = 0; k < m->S; k++)
            m->svc[k].alloc = m->svc[k].ready = n_fit[k];
        return 0;
    }
    if (m->gone || m->stopped)  /* its run is over: nothing left to evict */
        return 0;
    simtime now = engine_now(m->eng);
    if (m->counted && now > m->acct) {      /* the containers held until now */
        account(m, sim_to_sec(now - m->acct));
        m->acct = now;
    }
    for (int k = 0; k < m->S; k++)
        *evicted += m->svc[k].alloc - n_fit[k];
    m->evictions += *evicted;
    return apply(m, n_fit, now, 0, err);
}

int msim_give(msim *m, const int *nodes, int n, struct errbuf *err)
{
    for (int i = 0; i < n; i++) {
        int d = nodes[i];
        if (d < 0 || d >= m->nnodes || m->node_cpu[d] > 0)
            return err_run(err, "microservice world: CPU node %d given back, not taken", d);
        m->node_cpu[d] = m->full_cpu[d];
        m->node_mem[d] = m->full_mem[d];
        m->cap_cpus += m->full_cpu[d];
        m->cap_mem += m->full_mem[d];
    }
    return 0;
}

int msim_run(msim *m, struct world_totals *tot, struct errbuf *err)
{
    if (m->own == NULL && (m->own = engine_create(64)) == NULL)
        return err_run(err, "out of memory");
    if (msim_attach(m, m->own, err) < 0)
        return -1;
    /* its own clock stops at sim.until (boundary): the engine has no limit but the events' */
    struct engine_limits lim = { SIM_NEVER, m->c.max_events };
    return msim_finish(m, engine_advance(m->own, &lim, err), tot, err);
}
