/*
 * mqueue: the containers of every service as servers with FIFO queues, the microservice
 * world's queueing truth (msim.c drives it; README, "Microservices").
 *
 * A service's ready containers each have `servers` servers (its concurrency) and one FIFO
 * queue.  A call that arrives at a service is routed to one of its ready containers (one
 * drawn uniformly, so that each container's arrivals stay Poisson; round robin; or the one
 * with the fewest calls in it: join the shortest queue), starts service there if a server
 * is free and waits in line otherwise.  Its service time is exponential,
 * of the rate the caller's function gives for the service's load per ready container, that
 * load measured from the calls that arrived (an exponentially weighted rate of time
 * constant smooth_s, as of the latest arrival, over the ready containers).  A departure is
 * an engine event of the configured kind whose argument is the call's tag; the caller hands
 * it back with mqueue_depart, which gives the server the next call in line.  Containers
 * join at once (mqueue_set_ready: a container still starting is the caller's business) and
 * leave by draining: a removed container takes no new call and is gone once its last call
 * departs.
 *
 * Randomness: the service times from the named stream "service" (one draw per call, in the
 * order services start), random routing from "routing" (one draw per call), so that
 * neither shifts the other or the arrivals.
 *
 * Ownership: mqueue_create allocates; mqueue_destroy frees.  The engine is the caller's and
 * must outlive the queue.  Per call: O(1) at random or round robin, O(ready containers) to
 * join the shortest queue; no allocation but the growth of a container's queue.
 */
#ifndef HETSIM_MQUEUE_H
#define HETSIM_MQUEUE_H

#include <stdint.h>

#include "../base/simtime.h"
#include "../core/engine.h"

typedef struct mqueue mqueue;

enum mqueue_routing { MQUEUE_RANDOM, MQUEUE_ROUND_ROBIN, MQUEUE_JSQ };

/* The service rate (per second) of one server of service k at load w (calls/s per ready
 * container); must be positive. */
typedef double (*mqueue_rate_fn)(void *ctx, int k, double w);

struct mqueue_config {
    int            nservices;
    const int     *servers;         /* [nservices] servers per container, >= 1 */
    int            routing;         /* enum mqueue_routing */
    double         smooth_s;        /* time constant of the measured load, seconds (> 0) */
    mqueue_rate_fn rate;
    void          *rate_ctx;
    uint32_t       depart_kind;     /* engine event kind of a departure (arg: the call's tag) */
    uint64_t       seed;
};

int  mqueue_create(mqueue **out, const struct mqueue_config *c, engine *eng);
void mqueue_destroy(mqueue *q);

/* Service k has n ready containers from now on (n >= 0): new ones join the routing at once;
 * removed ones, those with the fewest calls first (the newest of equals), take no new call
 * and leave when their last call departs.  0, or -1 out of memory. */
int mqueue_set_ready(mqueue *q, int k, int n, simtime now);

/* Call `tag` arrives at service k now (which has a ready container): routed, then started
 * or queued.  Returns its container (hand it back to mqueue_depart), or -1 out of memory. */
int mqueue_arrive(mqueue *q, int k, uint32_t tag, simtime now);

/* The call in service at container `cont` of service k departs now (its departure event):
 * the server takes the next call in line.  0, or -1 out of memory. */
int mqueue_depart(mqueue *q, int k, int cont, simtime now);

/* Calls at service k now, waiting or in service (draining containers included). */
int64_t mqueue_in_system(const mqueue *q, int k);
/* Its containers that still drain, and the container-seconds they drained since the last
 * call of this function, up to now. */
int     mqueue_draining(const mqueue *q, int k);
double  mqueue_take_drain(mqueue *q, int k, simtime now);
/* The load its service times follow now: calls/s per ready container. */
double  mqueue_load(const mqueue *q, int k);

#endif
