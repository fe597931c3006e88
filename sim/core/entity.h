/*
 * entity: where a world's entities (training jobs, serving requests, microservice requests)
 * come from — a stream in non-decreasing arrival order, each item a spec of the world's own
 * type (struct job_spec for training) that holds its arrival time at a fixed offset, so that
 * the workload layer (workloads/) can skip, scale and cut any domain's stream alike.
 *
 * Ownership: the source's owner (a workload) keeps ctx alive while the world reads it; *out
 * is the caller's, filled by value (pointers in it live until the next call).
 */
#ifndef HETSIM_ENTITY_H
#define HETSIM_ENTITY_H

#include "../base/err.h"

struct entity_source {
    void *ctx;
    /* 1 with *out filled (a spec of the domain's type), 0 at the end, -1 on error */
    int (*next)(void *ctx, void *out, struct errbuf *err);
};

#endif
