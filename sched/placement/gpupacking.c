/*
 * gpupacking: GPU packing, FGD's "GpuPacking" baseline (ATC 2023, section 6.1; its
 * artifact's GpuPackingScore with best-fit GPU selection).  In order of preference:
 *     1. share a used GPU:      100 - (sum over the GPUs it takes of 100 free/1000) / 10,
 *                               at least 50;
 *     2. take free GPUs on a used node:  50 - the free GPUs it takes, at least 33;
 *     3. take GPUs on an idle node:      33 - the node's GPUs, at least that count;
 * in integers, the GPUs it would take being the ones with the least free milli that fit (in
 * index order among equals); a CPU-only pod scores 0 everywhere.  Ties go to the first node
 * of the seed's order (pick.h).  Then the GPU with the least free milli that fits for a pod
 * sharing one, the first fully free GPUs for whole ones.  Parameters: "ties" (pick.h).
 * O(nodes x GPUs^2) per pod.
 */
#include "../policy.h"
#include "pick.h"

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t gpupacking_score(void *self, const struct place_view *v, int node,
                                const struct place_pod *p, int *gpu)
{
    (void)self;
    (void)gpu;
    if (p->num_gpu == 0)
        return 0;
    const struct place_node *n = &v->nodes[node];
    int idle = place_view_gpus_idle(n);
    if (idle == n->ngpus)
        return max64(33 - idle, idle);
    /* the GPUs by free milli, least first, index order among equals (a stable sort) */
    int order[PLACE_MAX_GPUS];
    for (int g = 0; g < n->ngpus; g++) {
        int k = g;
        while (k > 0 && n->gpu_free[order[k - 1]] > n->gpu_free[g]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = g;
    }
    int want = p->num_gpu, whole = 0;
    int64_t shared = 0;
    for (int i = 0; i < n->ngpus && want > 0; i++) {
        int32_t f = n->gpu_free[order[i]];
        if (p->gpu_milli > f)
            continue;
        want--;
        whole += f == PLACE_MILLI;
        shared += (int64_t)f * 100 / PLACE_MILLI;
    }
    if (whole > 0)
        return max64(50 - whole, 33);
    return max64(100 - shared / 10, 50);
}

static const struct pick_rule rule = { gpupacking_score, 0, PICK_GPUS_BEST };

static int gpupacking_decide(void *self, const struct place_view *v, const struct place_pod *p,
                             struct place_choice *out, struct errbuf *err)
{
    return pick_decide(self, &rule, self, v, p, out, err);
}

static const struct place_hooks hooks = { .decide = gpupacking_decide };

const struct policy_ops policy_gpupacking = {
    .name = "gpupacking",
    .domain = "placement",
    .summary = "GPU packing: share a used GPU first, then free GPUs of a used node, idle nodes "
               "last (FGD's baseline)",
    .flags = POLICY_SEEDED,
    .params = pick_params,
    .create = pick_policy_create,
    .destroy = pick_policy_destroy,
    .place = &hooks,
};
