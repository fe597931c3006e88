/*
 * colo_view: what a broker policy sees of a cluster shared by an LLM serving tenant and a
 * training tenant (the colocate world, sim/colocate/world.c), and the decider it fills.
 *
 * The unit of a decision is a node (a server, as in Lyra): a node is held by one tenant at a
 * time.  Every node has a home, the tenant that holds it when nothing is lent (the
 * experiment's serving_groups are serving's, the rest training's).  A policy moves nodes:
 * a serving-held node moves to training (a loan: serving drains the instances on it, and the
 * node is training's once they hold nothing), a loaned node moves back to serving (a reclaim:
 * training's jobs on it are preempted or shrunk at once, serving loads its weights).  A
 * training home node never goes to serving, and a node being handed over (moving) is not
 * moved again until it arrives.
 *
 * Serving's instances may span nodes (a pipeline whose stages sit on two servers): the nodes
 * an instance spans, and transitively those of instances sharing a node with it, are a pack,
 * and a pack moves whole (lending one of its nodes would stop the instance on the others,
 * stranding their GPUs).  While serving has a pack whose instances take requests, a decision
 * must leave it one: requests need an instance up to go to.  The world refuses decisions
 * that break either rule.
 *
 * Units: serving's capacity and demand in tokens/s (prompt and output tokens; an instance's
 * capacity is its modelled rate on a 1,024 + 128-token request when full, its demand what
 * arrived over the last period with the mean finished output per request, as a router can
 * know it); training's take cost in GPU-seconds of restore; gains per GPU of each type.
 */
#ifndef HETSIM_COLO_VIEW_H
#define HETSIM_COLO_VIEW_H

#include "../base/err.h"
#include "../base/simtime.h"
#include "../core/cluster.h"

enum colo_holder { COLO_SERVING, COLO_TRAINING, COLO_NTENANTS };

struct colo_node {
    int    type;            /* GPU type slot (cluster_types order) */
    int    gpus;
    int    home;            /* enum colo_holder */
    int    holder;          /* enum colo_holder: who holds it now */
    int    moving;          /* 1: being handed over (serving drains it): not movable now */
    double serve_cap;       /* tokens/s serving's instances on it give when full (0: none) */
    double take_cost;       /* held by training: the GPU-seconds of restore its jobs would
                               pay if it were taken now (0 when idle) */
    int    pack;            /* the lowest node of its pack (itself when no instance ties it
                               to another) */
    int    loading;         /* 1: held by serving, an instance on it is not up yet (its
                               weights are loading after a reclaim) */
};

struct colo_view {
    simtime  now;
    const cluster *cl;
    int      nnodes;
    const struct colo_node *node;
    double   serve_demand;      /* tokens/s that arrived since the last decision */
    double   serve_held;        /* tokens/s when full of the nodes serving holds, moving aside */
    /* serving's latency as a production broker observes it, over the requests whose first
     * token came since the last decision (the run's start for the first): how many, and the
     * fraction of them whose TTFT exceeded serving's objective slo.ttft_s (in [0, 1]; -1
     * when none came or serving has no objective) */
    int64_t  serve_slo_seen;
    double   serve_slo_miss;
    int      train_waiting;     /* GPUs training's waiting jobs ask for at least */
    int      ntypes;
    double   train_gain[CLUSTER_MAX_TYPES];     /* by type slot: a training job's rate there
                                                   over its best type's, mean over jobs */
    double   serve_gain[CLUSTER_MAX_TYPES];     /* by type slot: serving's tokens/s per GPU
                                                   there when full (0: no instance there) */
};

/* What the colocate world calls: move[k] = 1 hands node k to the tenant not holding it (a
 * loan or a reclaim), 0 leaves it; the world checks the rules above. */
struct colo_decider {
    void *ctx;
    int (*decide)(void *ctx, const struct colo_view *v, int *move /* out, by node */,
                  struct errbuf *err);
    int watches_slo;    /* 1: its decisions watch serving_slo_* against serving's TTFT
                           objective, which the experiment must then give */
};

/* The rules above, for a decision move[] (by node) on view v: no node moving or of
 * training's home moved, packs moved whole, and, while serving has a live pack (every node
 * serving's, settled, none loading, an instance on one), one left after the moves.  0, or -1
 * with the first broken rule in err (its nodes named). */
int colo_check_moves(const struct colo_view *v, const int *move, struct errbuf *err);

/* Serving's live packs on v, among the nodes move[] leaves (move NULL: all).  -1 when out of
 * memory. */
int colo_live_packs(const struct colo_view *v, const int *move);

#endif
