/*
 * msim: one run of the microservice world — requests over call graphs, containers per
 * service, decisions every interval — in either of two modes:
 *   requests     every request followed, its row written to `requests`, under one of two
 *                truths: "queueing" (calls queue at containers that are FIFO servers,
 *                mqueue.h; service times from stream "service") or "fit" (each call's
 *                latency drawn from the latency model at its interval's load, stream
 *                "latency");
 *   analytical   each interval's end-to-end distribution is computed from the fit on a
 *                lattice (models/lattice.h), no request is drawn: fast sweeps.
 * Under the fit a service's load in an interval is the calls its requests make, per second,
 * over its containers ready at each request's arrival; under the queueing truth, the calls
 * that arrive at it (msim.c).
 *
 * Ownership: msim_create keeps pointers to the app, cluster, source, decider and writer
 * (all must outlive the run), msim_attach to the engine (which must outlive msim_finish);
 * msim_destroy frees what it allocated (msim_run's engine among them).
 */
#ifndef HETSIM_MSIM_H
#define HETSIM_MSIM_H

#include "../core/cluster.h"
#include "../core/entity.h"
#include "../core/world.h"
#include "app.h"

struct msim_config {
    const struct app *app;
    double   sla_s, quantile;
    int      analytical;
    double   interval_s, startup_s;
    double   request_sample;        /* share of requests whose rows are kept, per class */
    int      lattice_points;
    uint64_t seed;
    double   sample_s;              /* 0: no time series */
    simtime  until;
    uint64_t max_events;
    struct window measure;          /* to <= from: the whole run */
    int      timeline;              /* sim.timeline: write the timeline rows (msim.c) */
    int      queueing;              /* requests mode: the queueing truth (else the fit's) */
    int      routing;               /* queueing: enum mqueue_routing */
    double   smooth_s;              /* queueing: time constant of the load rates follow */
};

typedef struct msim msim;

/* The CPU nodes of `cl` must hold one container of each service (errors name the cluster
 * file's line and group). */
int  msim_check_cluster(const struct app *a, const cluster *cl, struct errbuf *err);

int  msim_create(msim **out, const struct msim_config *c, const cluster *cl,
                 struct entity_source *src, const struct micro_decider *dec,
                 const struct world_writer *w, struct errbuf *err);
/* On an engine it does not own (world.h's attach and finish): msim_attach makes the world
 * one of e's clients, reads its first request and schedules its first decision at 0; once the
 * engine stopped with `stop` (enum engine_stop), msim_finish writes what the run writes when
 * it ends (the timeline's last rows, the summary) and its totals, whose events are its own.
 * A world whose last interval has closed (its requests done, or sim.until reached) leaves the
 * engine (engine_detach), so that the others go on.  msim_run is the one-world case: an
 * engine of its own, attach, advance, finish.  Each at most once per world. */
int  msim_attach(msim *m, struct engine *e, struct errbuf *err);
int  msim_finish(msim *m, int stop, struct world_totals *tot, struct errbuf *err);
int  msim_run(msim *m, struct world_totals *tot, struct errbuf *err);
/* Its CPU nodes, numbered as the cluster's CPU groups list them (cluster_cpu_part's numbers). */
int  msim_nnodes(const msim *m);
/* Take CPU nodes (they hold nothing from now) or give them back (they hold what the cluster
 * says again): a take scales the allocation down to what the remaining nodes hold at once
 * (msim.c), *evicted the containers removed; a give lets the next decision grow into them.
 * A node given must have been taken. */
int  msim_take(msim *m, const int *nodes, int n, int64_t *evicted, struct errbuf *err);
int  msim_give(msim *m, const int *nodes, int n, struct errbuf *err);
void msim_destroy(msim *m);

/* The graph of a spec read from the workload (its name, or its pick by the app's weights),
 * with the spec's origin in errors; -1 when unknown. */
int msim_spec_graph(const struct app *a, const void *spec, struct errbuf *err);

#endif
