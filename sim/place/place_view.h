/*
 * place_view: what a placement policy sees and answers (sched/placement/).  The world
 * (sim/place/place.c) asks its decider once for each arriving pod, with the cluster as it
 * stands — every node's free CPU, memory and milli-GPU per GPU, the GPU pods it holds by kind —
 * and the pod's request; the policy answers a node and the GPUs on it, or no node.  It never
 * changes the view: the world checks the answer (place_view_fits, the GPUs named) and applies
 * it.
 *
 * The pod-type distribution FGD optimizes against (models/frag.h, the trace's typical pods)
 * is part of the view, with the GPU models named by their bit index.
 *
 * Ownership: the world owns the view and everything it points to; a policy may keep pointers
 * into it for the length of one call, and node indices for the run (nodes never move).  A
 * node's `version` changes whenever anything of it does, so a policy may cache per-node values.
 */
#ifndef HETSIM_PLACE_VIEW_H
#define HETSIM_PLACE_VIEW_H

#include <stdint.h>

#include "../../models/frag.h"
#include "../base/err.h"

enum {
    PLACE_MAX_GPUS = 16,        /* GPUs of one node */
    PLACE_MAX_MODELS = 64,      /* GPU models of one node list (bits of a uint64_t mask) */
    PLACE_MILLI = 1000          /* one GPU */
};

/* The kinds of GPU pod a node holds (FGD's GPU affinity tags, for GPU clustering): pods
 * sharing a GPU (below 1000 milli), and pods of n whole GPUs, n = 1..PLACE_MAX_GPUS. */
enum { PLACE_TAG_SHARE = 0, PLACE_NTAGS = PLACE_MAX_GPUS + 1 };

struct place_node {
    const char *name;               /* the list's sn */
    int         model;              /* GPU model: index into place_view.models */
    int         ngpus;
    int64_t     cpu_milli, mem_mib; /* capacity */
    int64_t     cpu_free, mem_free;
    int32_t     gpu_free[PLACE_MAX_GPUS];   /* milli free on each GPU, 0..1000 */
    int32_t     tag_pods[PLACE_NTAGS];      /* GPU pods it holds, by kind */
    int         ntags;              /* kinds with at least one pod */
    uint64_t    version;
};

/* The pod to place. */
struct place_pod {
    const char *name;
    int64_t     cpu_milli, mem_mib;
    int32_t     num_gpu, gpu_milli;     /* as in struct pod_spec (sim/place/pod.h) */
    uint64_t    models;                 /* GPU models it may use (bit m: place_view.models[m]);
                                           0: any */
    int         tag;                    /* its kind (PLACE_TAG_SHARE, or num_gpu); -1: CPU-only */
};

struct place_view {
    int64_t                  seq;       /* the pod's position in the arrival sequence */
    const struct place_node *nodes;
    int                      nnodes;
    const char *const       *models;    /* GPU model names by bit index */
    int                      nmodels;
    const struct frag_type  *types;     /* the pod-type distribution (FGD's typical pods) */
    int                      ntypes;
};

/* A policy's answer: node -1 (no node), or a node index and the GPUs on it (indices on the
 * node, each once): num_gpu of them, or none for a CPU-only pod. */
struct place_choice {
    int node;
    int ngpus;
    int gpus[PLACE_MAX_GPUS];
};

/* What the world calls for each pod (a policy bound by sched/policy.c). */
struct place_decider {
    void *ctx;
    int (*decide)(void *ctx, const struct place_view *v, const struct place_pod *pod,
                  struct place_choice *out, struct errbuf *err);
};

/* Can node n take pod p at all: CPU and memory, and for a GPU pod a GPU model it may use
 * and enough room (a GPU with gpu_milli free, or num_gpu fully free ones)?  The filter every
 * policy applies first (FGD's simulator: Kubernetes' resource fit and the Open-Gpu-Share
 * filter). */
int place_view_fits(const struct place_node *n, const struct place_pod *p);

/* Is choice c one the world can apply to pod p in view v: no node (-1), or a node that
 * fits the pod (place_view_fits) and num_gpu distinct GPUs of it with room for gpu_milli?
 * The world's check of every answer, shared with policy layers that check first
 * (sched/python/).  0, or -1 with err set (ERR_RUN). */
int place_view_check(const struct place_view *v, const struct place_pod *p,
                     const struct place_choice *c, struct errbuf *err);

/* Total free milli of node n's GPUs. */
int64_t place_view_gpu_free(const struct place_node *n);

/* GPUs of node n with all their milli free. */
int place_view_gpus_idle(const struct place_node *n);

/* n's state as the fragmentation model sees it. */
struct frag_node place_view_frag_node(const struct place_node *n);

#endif
