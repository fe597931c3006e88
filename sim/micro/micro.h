/*
 * micro: the entity of the microservice world — a request, as the workload layer streams
 * it (workloads/: micro_poisson, micro_trace).
 *
 * A spec stands for `count` requests of one graph type: one request (count 1), or, from a
 * generator asked for batches, the requests of one graph type in [arrival, arrival + span),
 * which the per-request mode spreads uniformly over that span (a Poisson process given its
 * count) and the analytical mode only counts.  The graph type is named (checked against the
 * application when the world reads it), or NULL: drawn by the application's graph weights
 * with `pick`.
 *
 * Ownership: strings in a spec (graph, origin) belong to the workload and live until its next
 * spec is read.
 */
#ifndef HETSIM_MICRO_H
#define HETSIM_MICRO_H

#include <stdint.h>

#include "../base/simtime.h"

struct micro_request {
    simtime     arrival;
    int64_t     id;             /* of the first request it stands for */
    const char *graph;          /* graph type, or NULL: by the application's weights */
    double      pick;           /* [0, 1): the draw for graph == NULL */
    int64_t     count;          /* requests it stands for, >= 1 */
    simtime     span;           /* count > 1: they arrive uniformly in [arrival, +span) */
    double      peak_rate;      /* the workload's peak, requests/s, as it declares it (0) */
    const char *origin;         /* file (or workload field) and line it came from */
    long        line;
};

#endif
