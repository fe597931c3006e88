/*
 * bestfit: best fit, FGD's "BestFit" baseline (ATC 2023, section 6.1; its artifact's
 * BestFitScore with best-fit GPU selection).  The node the pod leaves with the least free
 * capacity, CPU and GPU weighted equally over the largest node's (128,000 milli-CPU, 8,000
 * milli-GPU):
 *     raw(n) = (int) (100 * (1 - (0.5 (free_cpu - r_cpu) / 128000
 *                                 + 0.5 (free_gpu - r_gpu) / 8000))),
 * free_gpu the node's free milli summed over its GPUs, r_gpu the pod's; the raw scores of the
 * nodes that fit are then min-max normalized to 0..100 in integers (the plugin's
 * NormalizeScore: nodes whose raw scores differ by less than a step tie), the highest winning,
 * ties to the first node of the seed's order (pick.h).  Then the GPU with the least free milli
 * that fits for a pod sharing one, the first fully free GPUs for whole ones.  Parameters:
 * "ties" (pick.h).  O(nodes x GPUs) per pod.
 */
#include "../policy.h"
#include "pick.h"

enum { MAX_SPEC_CPU = 128000, MAX_SPEC_GPU = 8000 };

static int64_t bestfit_score(void *self, const struct place_view *v, int node,
                             const struct place_pod *p, int *gpu)
{
    (void)self;
    (void)gpu;
    const struct place_node *n = &v->nodes[node];
    double s = 0;
    s += (double)(n->cpu_free - p->cpu_milli) / MAX_SPEC_CPU * 0.5;
    s += (double)(place_view_gpu_free(n) - (int64_t)p->num_gpu * p->gpu_milli) / MAX_SPEC_GPU *
         0.5;
    return (int64_t)((1.0 - s) * 100);
}

static const struct pick_rule rule = { bestfit_score, 1, PICK_GPUS_BEST };

static int bestfit_decide(void *self, const struct place_view *v, const struct place_pod *p,
                          struct place_choice *out, struct errbuf *err)
{
    return pick_decide(self, &rule, self, v, p, out, err);
}

static const struct place_hooks hooks = { .decide = bestfit_decide };

const struct policy_ops policy_bestfit = {
    .name = "bestfit",
    .domain = "placement",
    .summary = "best fit: the node the pod leaves with the least free CPU and GPU (FGD's BestFit "
               "baseline)",
    .flags = POLICY_SEEDED,
    .params = pick_params,
    .create = pick_policy_create,
    .destroy = pick_policy_destroy,
    .place = &hooks,
};
