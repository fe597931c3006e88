/*
 * clustering: GPU clustering, FGD's "GpuClustering" baseline (ATC 2023, section 6.1, after
 * Gandiva-style affinity: pods of one kind together), as its artifact's GpuClusteringScore
 * with best-fit GPU selection.  A GPU pod's kind is "sharing a GPU" or "n whole GPUs"; a node's
 * kinds are those of the GPU pods it holds.  Scores, in integers (the node's free milli summed
 * over its GPUs, against the largest node's 8,000):
 *     q(n)  = 25 (8000 - free_gpu) / 8000
 *     75 + q   the node holds only pods of the pod's kind
 *     50 + q   it holds the pod's kind among others
 *     25 + q   it holds no GPU pod
 *          q   it holds only other kinds
 * so pods gather with their kind, on the fullest such node; a CPU-only pod scores 0
 * everywhere (the first node of the seed's order that fits).  Ties likewise (pick.h).  Then
 * the GPU with the least free milli that fits for a pod sharing one, the first fully free GPUs
 * for whole ones.  Parameters: "ties" (pick.h).  O(nodes x GPUs) per pod.
 */
#include "../policy.h"
#include "pick.h"

enum { MAX_SPEC_GPU = 8000 };

static int64_t clustering_score(void *self, const struct place_view *v, int node,
                                const struct place_pod *p, int *gpu)
{
    (void)self;
    (void)gpu;
    if (p->tag < 0)
        return 0;
    const struct place_node *n = &v->nodes[node];
    int64_t q = 25 * (MAX_SPEC_GPU - place_view_gpu_free(n)) / MAX_SPEC_GPU;
    if (n->tag_pods[p->tag] > 0)
        return (n->ntags == 1 ? 75 : 50) + q;
    return (n->ntags == 0 ? 25 : 0) + q;
}

static const struct pick_rule rule = { clustering_score, 0, PICK_GPUS_BEST };

static int clustering_decide(void *self, const struct place_view *v, const struct place_pod *p,
                             struct place_choice *out, struct errbuf *err)
{
    return pick_decide(self, &rule, self, v, p, out, err);
}

static const struct place_hooks hooks = { .decide = clustering_decide };

const struct policy_ops policy_clustering = {
    .name = "clustering",
    .domain = "placement",
    .summary = "GPU clustering: pods of one kind (shared GPU, n whole GPUs) together, on the "
               "fullest such node (FGD's baseline)",
    .flags = POLICY_SEEDED,
    .params = pick_params,
    .create = pick_policy_create,
    .destroy = pick_policy_destroy,
    .place = &hooks,
};
