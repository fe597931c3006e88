/*
 * frag: GPU fragmentation as FGD defines it (Weng et al., "Beware of Fragmentation:
 * Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC 2023,
 * section 4) — how much of a node's idle GPU capacity the pods that typically arrive could not
 * use, given the pod-type distribution of the workload.
 *
 * A node's idle GPU milli (1000 = one GPU) is judged against each pod type t with share p_t:
 *   - a CPU-only type (no GPU) can use none of it: all of it is fragment (XL when the node has
 *     the CPU the type asks for, XR when it has not);
 *   - a type that may not run on the node's GPU model: all fragment (NA, no access);
 *   - a type the node cannot host (too few GPUs with the type's milli free, Q2; or also too
 *     little CPU, Q1), or one it can host on GPUs but not on CPU (Q4): all fragment;
 *   - a type the node can host (Q3): only the GPUs whose free milli is below the type's
 *     per-GPU request are fragment (counted as Q2); the rest is usable (Q3).
 * The node's fragment amount is sum over t of p_t times its fragment under t, and FGD
 * schedules each pod where it grows this amount least (sched/placement/fgd.c).
 *
 * The distribution is FGD's "typical pods": the distinct requests (CPU milli, GPU milli per
 * GPU, GPU count, GPU models allowed) of a trace's pods, CPU-only pods included, by count,
 * most frequent first (ties: the larger request first, as FGD's sort), the fewest that cover
 * a share of the pods (FGD: 95%), renormalized to sum to 1.
 *
 * Memory is not part of it (FGD's pod resources are CPU and GPU only).  Pure functions of
 * their inputs; frag_node is O(types x GPUs of the node), frag_types_from_pods O(n log n).
 *
 * Ownership: frag_types_from_pods allocates *out (the caller frees it with free()); its spec
 * pointers borrow the input pods' strings.
 */
#ifndef HETSIM_FRAG_H
#define HETSIM_FRAG_H

#include <stddef.h>
#include <stdint.h>

/* FGD's categories, in its order (utils.FragRatioDataMap). */
enum frag_cat {
    FRAG_Q1_LACK_BOTH, FRAG_Q2_LACK_GPU, FRAG_Q3_SATISFIED, FRAG_Q4_LACK_CPU,
    FRAG_XL_SATISFIED, FRAG_XR_LACK_CPU, FRAG_NO_ACCESS, FRAG_NCAT
};

/* A pod type (or one pod's request).  `models`: bit m set when the pod may use GPU model m
 * (an index the caller assigns); 0 when any model will do. */
struct frag_type {
    int64_t     cpu_milli;
    int32_t     gpu_milli;      /* per GPU, 1..1000; 0 for a CPU-only type */
    int32_t     num_gpu;        /* 0 for a CPU-only type */
    uint64_t    models;
    const char *spec;           /* the models as the trace wrote them ("" any): a type's key */
    double      p;              /* share of the pods (a distribution sums to 1) */
};

/* A node as fragmentation sees it. */
struct frag_node {
    int64_t        cpu_free;    /* milli */
    int            model;       /* its GPU model's bit index, 0..63 */
    int            ngpus;
    const int32_t *gpu_free;    /* free milli of each GPU, 0..1000 */
};

/* What a node offers one pod type: its GPUs with the type's per-GPU milli free, and their
 * free milli summed (0 and 0 for a CPU-only type). */
struct frag_fit {
    int32_t gpus;
    int32_t milli;
};

/* The category of a node for one pod type. */
int frag_category(const struct frag_type *t, const struct frag_node *n);

/* The node's fragment amount (milli-GPU) under the nt types: the sum of every category but
 * Q3.  amount[FRAG_NCAT], when not NULL, receives the split (summing to the idle milli when
 * the shares sum to 1). */
double frag_node(const struct frag_type *types, int nt, const struct frag_node *n,
                 double *amount);

/* The same from what the node offers each type (fits[nt], from frag_fits), its GPU model and
 * idle milli, after a change: its CPU becomes cpu_free and k of its GPUs go from `from` to
 * `to` milli free (k = 0: none) — for a caller that keeps a node's fits and asks what a pod
 * would make of them (sched/placement/fgd.c), with frag_node's arithmetic to the last bit.
 * O(types). */
struct frag_change {
    int64_t cpu_free;
    int     k;
    int32_t from, to;
};
void   frag_fits(const struct frag_type *types, int nt, const struct frag_node *n,
                 struct frag_fit *fits);
double frag_of_fits(const struct frag_type *types, int nt, int model, int64_t idle,
                    const struct frag_fit *fits, const struct frag_change *ch, double *amount);

/* FGD's typical pods of n pods (their p ignored): the most frequent distinct requests that
 * together cover at least `share` (0 < share <= 1) of the pods, each with its share of
 * those.  0, or -1 when out of memory or n == 0. */
int frag_types_from_pods(const struct frag_type *pods, size_t n, double share,
                         struct frag_type **out, int *nt);

#endif
