/*
 * dotprod: the dot-product heuristic of Tetris (Grandl et al., SIGCOMM 2014), FGD's
 * "DotProd" baseline (ATC 2023, section 6.1), as its artifact ran it (DotProductScore with
 * the "merge" GPU dimension and "max" normalization, best-fit GPU selection).  A node's free
 * resources and the pod's request are vectors (milli-CPU, milli-GPU summed over the node's
 * GPUs), each divided by the largest node's (128,000 milli-CPU, 8,000 milli-GPU); the score is
 *     score(n) = (int) (100 * (1 - (free_cpu r_cpu + free_gpu r_gpu) / 2)),
 * so the node whose free capacity aligns least with the request wins (FGD's reading of Tetris
 * for packing: the larger the dot product, the lower the score); ties to the first node of the
 * seed's order (pick.h).
 * Then the GPU with the least free milli that fits for a pod sharing one, the first fully free
 * GPUs for whole ones.  Parameters: "ties" (pick.h).  O(nodes x GPUs) per pod.
 */
#include "../policy.h"
#include "pick.h"

enum { MAX_SPEC_CPU = 128000, MAX_SPEC_GPU = 8000 };

static int64_t dotprod_score(void *self, const struct place_view *v, int node,
                             const struct place_pod *p, int *gpu)
{
    (void)self;
    (void)gpu;
    const struct place_node *n = &v->nodes[node];
    double nc = (double)n->cpu_free / MAX_SPEC_CPU;
    double ng = (double)place_view_gpu_free(n) / MAX_SPEC_GPU;
    double pc = (double)p->cpu_milli / MAX_SPEC_CPU;
    double pg = (double)((int64_t)p->num_gpu * p->gpu_milli) / MAX_SPEC_GPU;
    double dot = nc * pc + ng * pg;
    return (int64_t)(100.0 * (1 - dot / 2));
}

static const struct pick_rule rule = { dotprod_score, 0, PICK_GPUS_BEST };

static int dotprod_decide(void *self, const struct place_view *v, const struct place_pod *p,
                          struct place_choice *out, struct errbuf *err)
{
    return pick_decide(self, &rule, self, v, p, out, err);
}

static const struct place_hooks hooks = { .decide = dotprod_decide };

const struct policy_ops policy_dotprod = {
    .name = "dotprod",
    .domain = "placement",
    .summary = "Tetris' dot product of free resources and request (FGD's DotProd baseline): "
               "the least aligned node",
    .flags = POLICY_SEEDED,
    .params = pick_params,
    .create = pick_policy_create,
    .destroy = pick_policy_destroy,
    .place = &hooks,
};
