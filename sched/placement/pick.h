/*
 * pick: the scheduling cycle the placement policies share — Kubernetes' as FGD's simulator
 * runs it (ATC 2023 artifact: one scheduler profile with one score plugin, every node scored):
 *   filter   the nodes that fit the pod (place_view_fits: CPU, memory, GPU model and room);
 *   score    each of them with the policy's integer score (Kubernetes' 0..100 scale), min-max
 *            normalized to 0..100 for a policy whose plugin normalizes (BestFit);
 *   select   the highest; among equal scores the node first in a random order of the nodes
 *            drawn once per run from the seed (FGD's Kubernetes fork breaks ties by the
 *            smallest node name, and its simulator names the nodes "%04d-<sn>" with a random
 *            permutation of the numbers: a fixed random priority, not a fresh draw per pod;
 *            "ties": "random" draws among them anew for each pod, as upstream Kubernetes);
 *   reserve  the GPUs on the chosen node: the policy's GPU rule (best fit, random fit, or the
 *            GPU its score chose).
 * A pod no node fits is left unallocated (choice node -1).  O(nodes x score) per pod.
 *
 * Ownership: pick_init allocates the tie stream (the scratch arrays grow on use), pick_fini
 * frees them; pick_policy_create allocates a struct pick, pick_policy_destroy frees it.
 */
#ifndef HETSIM_PICK_H
#define HETSIM_PICK_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "../../sim/place/place_view.h"
#include "../policy.h"

/* How the GPUs of the chosen node are picked (Open-Gpu-Share's gpuSelMethod). */
enum pick_gpus {
    PICK_GPUS_BEST,     /* a shared pod: the GPU with the least free milli that fits (first
                           by index); whole GPUs: the first fully free ones by index */
    PICK_GPUS_RANDOM,   /* a shared pod: one of the GPUs that fit, uniformly; whole: as BEST */
    PICK_GPUS_SCORE     /* the GPU the score chose for the node (FGD) */
};

struct pick_rule {
    /* The score of node `node`, which fits p (higher is better).  A PICK_GPUS_SCORE rule sets
     * *gpu to the GPU a shared pod would take there (-1 otherwise). */
    int64_t (*score)(void *self, const struct place_view *v, int node,
                     const struct place_pod *p, int *gpu);
    int       normalize;    /* min-max normalize the scores to 0..100 (BestFit's plugin) */
    int       gpus;         /* enum pick_gpus */
};

struct pick {
    gsl_rng *ties;          /* random draws: the random policy's nodes, random GPU fits */
    uint64_t seed;
    int      random_ties;   /* "ties": "random": a fresh uniform draw among equal scores */
    int64_t *score;         /* per candidate */
    int     *cand, *gpu;
    int      cap;
    int     *rank;          /* each node's place in the tie order ("place_nodes" stream) */
    int      nrank;
};

int  pick_init(struct pick *pk, uint64_t seed, const char *stream);
void pick_fini(struct pick *pk);

/* The "ties" parameter of the scored policies: "order" (default, FGD's simulator: the seed's
 * node order) or "random" (a uniform draw among the equal scores for each pod, upstream
 * Kubernetes' selectHost), into pk. */
extern const char *const pick_params[];
int  pick_read_ties(struct pick *pk, const struct jobj *params, struct errbuf *err);

/* A policy whose state is a struct pick alone (draws from the "place_ties" stream): its
 * create and destroy hooks (create reads "ties"). */
int  pick_policy_create(void **self, const struct jobj *params, const struct policy_env *env,
                        struct errbuf *err);
void pick_policy_destroy(void *self);

/* The cycle above for pod p. */
int  pick_decide(struct pick *pk, const struct pick_rule *r, void *self,
                 const struct place_view *v, const struct place_pod *p,
                 struct place_choice *out, struct errbuf *err);

/* The candidates (nodes that fit p) into pk->cand, in node order; their number, or -1 out of
 * memory. */
int  pick_filter(struct pick *pk, const struct place_view *v, const struct place_pod *p);

/* The GPUs of node n for p by rule `gpus` (not PICK_GPUS_SCORE) into out. */
void pick_gpus(struct pick *pk, int gpus, const struct place_node *n, const struct place_pod *p,
               struct place_choice *out);

/* The first fully free GPUs of n by index, as many as p asks (FGD's AllocateExclusiveGpuId). */
void pick_gpus_whole(const struct place_node *n, const struct place_pod *p,
                     struct place_choice *out);

#endif
