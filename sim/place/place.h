/*
 * place: the placement world's mechanism — FGD's experiment (ATC 2023, its simulator's
 * "workload tuning" runs) step by step.  Pods arrive one after another and never leave; each
 * is offered to the policy on the cluster as it stands, placed where the policy says (after
 * the world checks the answer fits) or counted as unallocated.  What arrives, in order:
 *   1. the pod list as the workload delivers it (its "trace order": the shipped openb lists
 *      are in pod-name order, FGD's order without shuffling), or shuffled with the seed
 *      ("order": "shuffled", FGD's --shuffle-pod), one Fisher-Yates pass of the
 *      "place_order" stream;
 *   2. with a target load L ("load", FGD's tuning ratio, e.g. 1.3): while the pods' GPU
 *      request is below L x the cluster's GPUs, a pod drawn uniformly (with replacement, the
 *      "place_draws" stream) from the list in trace order is appended as "<name>-tuned-<i>",
 *      until the first draw whose per-GPU milli would pass the target (FGD's tuneUpPods
 *      compares the per-GPU request, so a multi-GPU draw may overshoot by its other GPUs);
 *      when the list asks for more than the target, pods drawn uniformly from the sequence
 *      are removed until it does not (FGD's tuneDownPods).
 * The pod-type distribution (models/frag.h) comes from the list as delivered, before
 * ordering and inflation, as FGD's typical pods do; it is both what the fgd policy optimizes
 * and what the fragmentation figures measure.
 *
 * A pod's time is its position in the sequence, in seconds (a placement-only world has no
 * durations: the clock only orders arrivals), so sim.until_s and sim.max_events cut the
 * sequence.  The series are taken each time the arrived GPU load crosses a multiple of
 * "sample_load" (FGD's curves against arrived load), and once at the end.
 *
 * Cost: O(pods x nodes x pod types) for the policy (fgd) and O(pods + nodes x types) for the
 * world; memory O(pods + nodes).
 *
 * Ownership: place_create reads the whole source (the source must outlive only the call) and
 * keeps copies; place_destroy frees.  The config and decider must outlive the run.
 */
#ifndef HETSIM_PLACE_H
#define HETSIM_PLACE_H

#include <stdint.h>
#include <stdio.h>

#include "../base/simtime.h"
#include "../core/entity.h"
#include "nodes.h"
#include "place_view.h"

enum place_order { PLACE_ORDER_TRACE, PLACE_ORDER_SHUFFLED };

struct place_config {
    struct nodes *nodes;            /* the machines (owned by the config) */
    int           order;            /* enum place_order */
    double        load;             /* target GPU load / the cluster's GPUs; 0: as listed */
    double        type_share;       /* share of pods the typical types cover (FGD: 0.95) */
    double        sample_load;      /* series every this much arrived load; 0: none */
    simtime       until;            /* stop before the pod at this time (SIM_NEVER: none) */
    uint64_t      max_events;       /* place at most this many pods (0: all) */
    const char   *load_file;        /* where "load" was given, for its errors (may be NULL) */
    long          load_line;
};

typedef struct place place;

/* One pod after its turn. */
struct place_record {
    int64_t     seq;                /* position in the arrival sequence */
    const char *name;               /* "<name>-tuned-<i>" for a pod drawn to inflate the load */
    int64_t     row;                /* its row in the pod list */
    int         drawn;
    int64_t     cpu_milli, mem_mib;
    int32_t     num_gpu, gpu_milli;
    const char *gpu_spec;           /* "" any */
    const char *node;               /* NULL: not placed */
    int         node_index;         /* its index in the node list (-1: not placed) */
    const int  *gpus;               /* the GPUs on the node, ngpus of them */
    int         ngpus;
    double      arrived_gpu_frac;   /* the arrived GPU request over the cluster's, this pod's
                                       included */
};

struct place_sink {
    void *ctx;
    int (*pod)(void *ctx, const struct place_record *r, struct errbuf *err);
    int (*sample)(void *ctx, simtime t, const char *name, double value, struct errbuf *err);
};

/* The figures of the cluster at the end. */
struct place_totals {
    simtime  end;
    int      stop;                      /* enum engine_stop (sim/core/engine.h) */
    int64_t  pods_listed, pods_total, pods_drawn, pods_dropped;
    int64_t  pods_placed, pods_unallocated;
    int64_t  gpus, gpus_used;           /* GPUs, and those with any milli allocated */
    int64_t  milli_total, milli_used, milli_arrived;
    int64_t  cpu_total, cpu_used, mem_total, mem_used;
    double   frag;                      /* fragmented milli (FGD: all categories but Q3) */
    double   amount[FRAG_NCAT];         /* the idle milli by category */
    int      ntypes;                    /* pod types of the distribution */
};

/* Read every pod of src, check it against the node list (its GPU models), build the
 * distribution and the arrival sequence. */
int  place_create(place **out, const struct place_config *cfg, uint64_t seed,
                  struct entity_source *src, struct errbuf *err);
void place_destroy(place *p);

/* Pods in the arrival sequence. */
int64_t place_npods(const place *p);

/* Write the arrival sequence as an openb pod list (name, cpu_milli, memory_mib, num_gpu,
 * gpu_milli, gpu_spec): what `hetsim workload` prints. */
int  place_list(const place *p, FILE *f, struct errbuf *err);

/* Place the sequence with the decider; rows and series go to the sink. */
int  place_run(place *p, const struct place_decider *d, const struct place_sink *sink,
               struct place_totals *out, struct errbuf *err);

#endif
