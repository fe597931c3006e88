/*
 * linkbook: when the links of a cluster carry transfers.  A port is one direction of one
 * link: a GPU's link into its node (out of the GPU, into it) or a node's network link (out
 * of the node, into it); each keeps the intervals it is busy, in time order, none
 * overlapping.  A transfer reserves every port it crosses at once: the earliest start at or
 * after its `ready` time when each port is free for its own duration (a port carrying a
 * smaller share is held for less).  So long as each duration is at least the port's bytes
 * over its bandwidth (llm_send_s makes them so), no port ever carries more bytes a second
 * than its link's bandwidth, whatever transfers run at once — the serving world's KV moves,
 * pipeline sends and attention traffic.
 *
 * Cost: a reservation O(its ports x their intervals that end after the last forget's time),
 * plus each interval once when it is dropped; linkbook_forget O(1) (the ports drop what it
 * forgot when a reservation next touches them), so a book's costs do not grow with the
 * cluster's ports.
 *
 * Ownership: linkbook_create allocates, linkbook_destroy frees.
 */
#ifndef HETSIM_LINKBOOK_H
#define HETSIM_LINKBOOK_H

#include <stdint.h>

#include "../base/simtime.h"

enum linkbook_dir { LINKBOOK_GPU_OUT, LINKBOOK_GPU_IN, LINKBOOK_NET_OUT, LINKBOOK_NET_IN };

/* One port a transfer crosses, held for `dur` (> 0; a port with dur <= 0 is skipped). */
struct linkbook_port {
    int     dir;            /* enum linkbook_dir */
    int32_t id;             /* the GPU (LINKBOOK_GPU_*) or the node (LINKBOOK_NET_*) */
    simtime dur;
};

typedef struct linkbook linkbook;

linkbook *linkbook_create(int ngpus, int nnodes);
void      linkbook_destroy(linkbook *b);

/* Reserve p[0..n): *start gets the earliest t >= ready at which every port p[i] is free
 * over [t, t + p[i].dur), and the ports are held there.  0, or -1 when out of memory. */
int  linkbook_reserve(linkbook *b, const struct linkbook_port *p, int n, simtime ready,
                      simtime *start /* out */);
/* Drop the intervals that ended at or before t: no later reservation may be ready
 * before t (asserted). */
void linkbook_forget(linkbook *b, simtime t);
/* Every interval held now, port by port in time order (for tests). */
void linkbook_each(const linkbook *b, void *ctx,
                   void (*fn)(void *ctx, int dir, int32_t id, simtime from, simtime to));

#endif
