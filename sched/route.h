/*
 * route: what every serving policy shares besides its own decisions — routing requests
 * across the instances it deployed, and the building blocks of deployments.
 *
 * Routing (the "routing" parameter of every serving policy):
 *   least_work   (default) the instance of the wanted role with the least outstanding work
 *                over its speed: (prompt tokens not yet prefilled + requests it holds x the
 *                mean output of the requests finished so far) / its modelled tokens/s; ties
 *                to the lowest index.  A router sees no output length before it is known.
 *   round_robin  the next instance of the wanted role in turn.
 *
 * Deployments: the cluster's high-end GPU type (the highest fp16 FLOP/s, then the highest
 * memory bandwidth), a node's GPUs, a stage of given GPUs, and the TP group size that serves
 * a model best on one node's GPUs.
 *
 * Ownership: a route is embedded in the policy's state; nothing here allocates.
 */
#ifndef HETSIM_ROUTE_H
#define HETSIM_ROUTE_H

#include "../sim/base/jobj.h"
#include "../sim/serve/serve_view.h"

enum route_mode { ROUTE_LEAST_WORK, ROUTE_ROUND_ROBIN };

enum { ROUTE_MAX_TYPES = 64 };      /* GPU type ids a mask covers */

struct route {
    int     mode;               /* enum route_mode */
    int32_t next[2];            /* round robin: next candidate for prompts, for decoding */
};

/* Read the "routing" parameter (default least_work). */
int route_read(struct route *r, const struct jobj *params, struct errbuf *err);

/* The reference request a deployment is judged by (serve_view_rate): the parameters
 * "prompt" and "output", tokens (defaults 1024 and 128). */
struct route_ref {
    double prompt, output;
};
int route_read_ref(struct route_ref *r, const struct jobj *params, struct errbuf *err);
/* The instance for request q. */
int route_pick(struct route *r, const struct serve_view *v, const struct serve_req_view *q,
               int32_t *out, struct errbuf *err);

/* The high-end GPU type of the cluster (a catalog id). */
int route_high_type(const cluster *cl);
/* The GPU ids of node n into ids (room cluster_max_gpus_per_node); returns how many. */
int route_node_gpus(const cluster *cl, int n, int32_t *ids);
/* A stage of n GPUs ids[0..n) holding `layers` layers. */
struct serve_stage route_stage(const int32_t *ids, int n, int layers);
/* Modelled requests/s of every instance of d together at the reference request; 0 when one
 * of them cannot hold such a request. */
double route_total_rate(const struct serve_env_view *v, const struct serve_deployment *d,
                        const struct route_ref *ref);

/* Unified replicas of the model on the nodes whose GPU type is in mask[] (by catalog id):
 * for each TP degree t of 1, 2, 4, 8 (or only force_tp when > 0) that divides every such
 * node's GPU count, each node cut into groups of t; the t whose replicas serve the most
 * reference requests a second wins (the smaller on ties).  When no group inside a node holds the
 * model, pipelines of k whole nodes (TP inside each, layers in proportion to the nodes'
 * memory), k the smallest that holds it.  Appends to out (out->n instances already there
 * are kept); an input error when nothing holds the model. */
int route_replicas(const struct serve_env_view *v, const unsigned char *mask, int64_t force_tp,
                   const struct route_ref *ref, struct serve_deployment *out,
                   struct errbuf *err);

#endif
