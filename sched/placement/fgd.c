/*
 * fgd: Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation: Scheduling
 * GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC 2023, section 5).
 *
 * Each arriving pod goes where it grows the cluster's expected fragmentation least: for a
 * node n the fragment amount F(n) (models/frag.h: the idle milli-GPU the workload's typical
 * pods could not use, weighted by their shares) before and after the pod, and the node's score
 *     score(n) = (int) (100 * sigmoid((F(n) - F(n + pod)) / 1000)),
 * the highest score winning, ties broken uniformly at random (Kubernetes' selectHost).  A pod
 * sharing a GPU is tried on every GPU of the node with room (in index order), the node's
 * score being the best of them and that GPU the one it takes (the first of equal scores); a
 * pod of whole GPUs takes the node's first fully free GPUs by index; a CPU-only pod changes
 * only the node's free CPU.
 *
 * This is FGD's artifact as it ran (pkg/simulator/plugin/fgd_score.go with the
 * Open-Gpu-Share reserve of the FGD GPU choice), with what the paper leaves open taken from it:
 * the integer score (the sigmoid of the change in milli-GPU over 1000, scaled to Kubernetes'
 * 0..100 and truncated), which makes nodes whose changes differ by less than a score step tie;
 * the distribution is the trace's typical pods (95% of the pods, CPU-only pods included); the
 * filter is CPU, memory, GPU model and GPU room (memory is not in the fragmentation).
 * Parameters: none.  Cost: O(nodes x types x GPUs) per pod; a node's F before is cached until
 * the node changes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "pick.h"

struct fgd {
    struct pick pk;
    double     *before;         /* F(n) at version ver[n] */
    uint64_t   *ver;
    int         n;
};

static int64_t score_of(double before, double after)
{
    double x = (before - after) / 1000;
    return (int64_t)(1.0 / (1.0 + exp(-x)) * 100.0);
}

static double frag_of(const struct place_view *v, int64_t cpu_free, int model, int ngpus,
                      const int32_t *gpu_free)
{
    struct frag_node fn = { cpu_free, model, ngpus, gpu_free };
    return frag_node(v->types, v->ntypes, &fn, NULL);
}

static int64_t fgd_score(void *self, const struct place_view *v, int node,
                         const struct place_pod *p, int *gpu)
{
    struct fgd *s = self;
    const struct place_node *n = &v->nodes[node];
    if (s->ver[node] != n->version) {
        s->before[node] = frag_of(v, n->cpu_free, n->model, n->ngpus, n->gpu_free);
        s->ver[node] = n->version;
    }
    double before = s->before[node];
    int32_t g2[PLACE_MAX_GPUS];
    memcpy(g2, n->gpu_free, sizeof g2);
    int64_t cpu = n->cpu_free - p->cpu_milli;
    *gpu = -1;
    if (p->num_gpu == 1 && p->gpu_milli < PLACE_MILLI) {
        int64_t best = 0;
        for (int g = 0; g < n->ngpus; g++) {
            if (n->gpu_free[g] < p->gpu_milli)
                continue;
            int same = 0;       /* a GPU with the free milli of an earlier one scores alike */
            for (int e = 0; e < g && !same; e++)
                same = n->gpu_free[e] == n->gpu_free[g] && n->gpu_free[e] >= p->gpu_milli;
            if (same)
                continue;
            g2[g] -= p->gpu_milli;
            int64_t sc = score_of(before, frag_of(v, cpu, n->model, n->ngpus, g2));
            g2[g] += p->gpu_milli;
            if (*gpu < 0 || sc > best) {
                best = sc;
                *gpu = g;
            }
        }
        return best;
    }
    for (int g = 0, left = p->num_gpu; g < n->ngpus && left > 0; g++)
        if (g2[g] == PLACE_MILLI) {
            g2[g] = 0;
            left--;
        }
    return score_of(before, frag_of(v, cpu, n->model, n->ngpus, g2));
}

static const struct pick_rule rule = { fgd_score, 0, PICK_GPUS_SCORE };

static int fgd_decide(void *self, const struct place_view *v, const struct place_pod *p,
                      struct place_choice *out, struct errbuf *err)
{
    struct fgd *s = self;
    if (s->n != v->nnodes) {
        free(s->before);
        free(s->ver);
        s->before = malloc((size_t)v->nnodes * sizeof *s->before);
        s->ver = malloc((size_t)v->nnodes * sizeof *s->ver);
        if (s->before == NULL || s->ver == NULL) {
            s->n = 0;
            return err_run(err, "out of memory");
        }
        for (int i = 0; i < v->nnodes; i++)
            s->ver[i] = UINT64_MAX;
        s->n = v->nnodes;
    }
    return pick_decide(&s->pk, &rule, s, v, p, out, err);
}

static void fgd_destroy(void *self)
{
    struct fgd *s = self;
    if (s == NULL)
        return;
    pick_fini(&s->pk);
    free(s->before);
    free(s->ver);
    free(s);
}

static int fgd_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    (void)params;
    struct fgd *s = calloc(1, sizeof *s);
    if (s == NULL || pick_init(&s->pk, env->seed, "place_ties") < 0) {
        fgd_destroy(s);
        return err_run(err, "out of memory");
    }
    *self = s;
    return 0;
}

static const struct place_hooks hooks = { .decide = fgd_decide };

const struct policy_ops policy_fgd = {
    .name = "fgd",
    .domain = "placement",
    .summary = "fragmentation gradient descent: the node (and GPU) where the pod grows the "
               "expected GPU fragmentation least",
    .flags = POLICY_SEEDED,
    .create = fgd_create,
    .destroy = fgd_destroy,
    .place = &hooks,
};
