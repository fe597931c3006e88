/*
 * micro_view: what a microservice policy sees and returns.
 *
 * The application (struct micro_app): services, each running some number of containers of a
 * given size, with the latency model of one call (models/mslat.h: a shifted exponential
 * whose rate depends on the service's load per ready container); and graph types, each a
 * tree of calls: a call runs its service's latency `count` times in a row, then its children
 * stage by stage (children of one stage run in parallel, and the stage ends with the slowest
 * of them), so a request's end-to-end latency is the root call's.
 *
 * Every decision interval (sim.interval_s) the world calls the policy's decider with a
 * micro_view: the clock, the SLA, the containers each service has (allocated, and ready:
 * a container added by a scale-out serves only after the start-up delay), and what the last
 * intervals measured (request rate, graph mix, each service's load and mean call latency,
 * the end-to-end quantile: under the queueing truth, the latencies of the requests and calls
 * that completed in the interval, the loads of the calls that arrived in it).  The policy
 * writes the containers it wants per service; the world removes containers at once (under
 * the queueing truth they drain their calls) and starts new ones, which serve after the
 * delay.
 *
 * Ownership: everything reachable from a view belongs to the world and is valid only during
 * the decide call; the policy writes only its output array (nservices entries).
 */
#ifndef HETSIM_MICRO_VIEW_H
#define HETSIM_MICRO_VIEW_H

#include <stdint.h>

#include "../../models/mslat.h"
#include "../base/err.h"
#include "../base/simtime.h"

enum { MICRO_NAME_MAX = 96, MICRO_HISTORY = 64 };

struct micro_service {
    char         name[MICRO_NAME_MAX];
    struct mslat lat;           /* one call's latency against load per ready container */
    double       cpus, memory_gb;   /* one container */
    int          init;          /* containers when the run starts */
    int          concurrency;   /* calls a container serves at once (the queueing truth) */
};

/* A call of a graph: `count` sequential calls of `service`, then its children by stage. */
struct micro_call {
    int service;
    int count;
    int parent;                 /* index in the graph's calls, -1 for the root */
    int stage;                  /* order among its parent's children; equal: in parallel */
};

struct micro_graph {
    char   name[MICRO_NAME_MAX];
    double weight;              /* its share of requests when a workload gives no mix */
    int    ncalls;
    const struct micro_call *calls;     /* parents before children; calls[0] is the root */
    /* the tree: call i's stages are stage_off[i] .. stage_off[i+1]-1; stage s's children
     * are child[child_off[s]] .. child[child_off[s+1]-1], stages in increasing order */
    const int *stage_off, *child_off, *child;
    const double *calls_per_service;    /* [nservices]: calls per request of this type */
    double min_latency_s;       /* sum of shifts along its slowest path: no request is faster */
};

struct micro_app {
    char name[128];
    int  nservices, ngraphs;
    const struct micro_service *svc;
    const struct micro_graph   *graph;
};

struct micro_view {
    simtime now;
    int64_t interval;           /* the interval that starts now: 0, 1, ... */
    double  interval_s;
    double  sla_s, quantile;    /* the SLA: the `quantile` of end-to-end latency <= sla_s */
    const struct micro_app *app;
    const int *containers;      /* [nservices] allocated now (ready and starting) */
    const int *ready;           /* [nservices] serving now */
    double  startup_s;          /* a new container serves this long after it is asked for */
    double  capacity_cpus, capacity_memory_gb;      /* the cluster's CPU nodes in all */
    double  peak_rate;          /* requests/s at the workload's peak as it declares it, else
                                   the highest interval rate seen so far (0 before any) */
    /* the last interval (have_last = 0 before the first one ends) */
    int     have_last;
    double  rate;               /* requests/s */
    const double *mix;          /* [ngraphs] fractions of its requests */
    const double *load;         /* [nservices] calls/s */
    const double *call_mean_s;  /* [nservices] mean latency of one of its calls (0: none) */
    const double *graph_p95_s;  /* [ngraphs] end-to-end `quantile` of each type (0: none) */
    double  e2e_q_s;            /* end-to-end `quantile` over all its requests */
    double  miss_frac;          /* share of its requests over the SLA */
    /* the latest nhist intervals, oldest first (the last one included) */
    int     nhist;
    const double *hist_rate;    /* [nhist] */
    const double *hist_mix;     /* [nhist * ngraphs] */
};

struct micro_decider {
    void   *ctx;
    /* write the containers wanted per service into out[0..nservices) (>= 1 each) */
    int   (*decide)(void *ctx, const struct micro_view *v, int *out, struct errbuf *err);
    simtime round;              /* the policy's round_s: micro policies decide every
                                   sim.interval_s, so a round of its own is refused */
};

#endif
