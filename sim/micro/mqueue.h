/*
 * mqueue: the containers of every service as servers with FIFO queues, the microservice
 * world's queueing truth (msim.c drives it; doc/microservices.md).
 *
 * A service's ready containers each have `servers` servers (its concurrency) and one FIFO
 * queue.  A call bound for a service is routed to one of its ready containers (one drawn
 * uniformly, so that each container's arrivals stay Poisson; round robin; or the one with
 * the fewest calls bound for it or in it: join the shortest queue), arrives there after its
 * transit, takes the first server to come free (at once if one is free: FIFO) and is served
 * for an exponential time, of the rate the caller's function gives for the service's load
 * per ready container as measured when it arrives: an exponentially weighted rate of the
 * calls that arrived, time constant smooth_s, over the ready containers.
 *
 * A call's passage is decided when it is routed, by the FIFO recursion (Lindley's; with c
 * servers, Kiefer and Wolfowitz's): its start is the later of its arrival and the earliest
 * time one of the container's servers comes free, and that server is then busy until its
 * departure.  This is exact because calls reach a container in the order they are routed
 * to it (every call of a service has the same transit, and calls are routed in time order),
 * and no later arrival changes an earlier call's passage in a FIFO queue.  The departure is
 * an engine event of the configured kind whose argument is the call's tag; the caller
 * hands it back with mqueue_depart.  Containers join at once (mqueue_set_ready: a
 * container still starting is the caller's business) and leave by draining: a removed
 * container takes no new call and is gone once its last call departs.
 *
 * Randomness: the service times from the named stream "service" (one draw per call, in the
 * order calls are routed), random routing from "routing" (one draw per call), so that
 * neither shifts the other or the arrivals.
 *
 * Ownership: mqueue_create allocates; mqueue_destroy frees.  The engine is the caller's and
 * must outlive the queue.  One event per call; O(1) per call at random or round robin with
 * one server, O(servers) with several, O(ready containers) to join the shortest queue; no
 * allocation but a new container's.
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

/* Service k has n ready containers from now on (n >= 0): new ones take calls at once;
 * removed ones, those with the fewest calls bound for them first (the newest of equals),
 * take no new call and leave when their last call departs.  0, or -1 out of memory. */
int mqueue_set_ready(mqueue *q, int k, int n, simtime now);

/* Call `tag` is routed now to a ready container of service k (which has one), where it
 * arrives at `at` (>= now; for service k, no earlier than the arrival of the call routed
 * before it) and passes as above; its departure is an engine event.  Returns its
 * container (hand it back to mqueue_depart), or -1 out of memory. */
int mqueue_arrive(mqueue *q, int k, uint32_t tag, simtime now, simtime at);

/* The departure of a call of container `cont` of service k (at its event). */
void mqueue_depart(mqueue *q, int k, int cont);

/* Calls of service k bound for its containers, waiting or in service now (draining
 * containers included). */
int64_t mqueue_in_system(const mqueue *q, int k);
/* Its containers that still drain, and the container-seconds its removed containers drain
 * (from removal to their last departure), summed since the last call of this function. */
int     mqueue_draining(const mqueue *q, int k);
double  mqueue_take_drain(mqueue *q, int k);
/* The load its service times follow: calls/s per ready container, as of its latest
 * arrival. */
double  mqueue_load(const mqueue *q, int k);

#endif
