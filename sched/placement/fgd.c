/*
 * fgd: Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation: Scheduling
 * GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC 2023, section 5).
 *
 * Each arriving pod goes where it grows the cluster's expected fragmentation least: for a
 * node n the fragment amount F(n) (models/frag.h: the idle milli-GPU the workload's typical
 * pods could not use, weighted by their shares) before and after the pod, and the node's score
 *     score(n) = (int) (100 * sigmoid((F(n) - F(n + pod)) / 1000)),
 * the highest score winning, ties to the node first in the seed's random order of the nodes
 * (FGD's Kubernetes fork, sched/placement/pick.h).  A pod
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
 * Parameters: "ties" ("order", default: the seed's node order as FGD's simulator; "random":
 * a fresh draw among equal scores for each pod, to see how much the tie order matters).
 * Cost: O(nodes x types) per pod and GPU tried: a node's F and what it offers each type
 * (models/frag.h, frag_fits) are cached until the node changes, and F after the pod comes
 * from them and the change the pod makes (frag_of_fits: the model's arithmetic, so the scores
 * are frag_node's to the bit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "pick.h"

struct fgd {
    struct pick      pk;
    /* per node, at version ver[n]: F(n), its idle milli and what it offers each pod type
     * (fits[n * nt + t], models/frag.h) */
    double          *before;
    uint64_t        *ver;
    int64_t         *idle;
    struct frag_fit *fits;
    int              n, nt;
};

static int64_t score_of(double before, double after)
{
    double x = (before - after) / 1000;
    return (int64_t)(1.0 / (1.0 + exp(-x)) * 100.0);
}

static void refresh(struct fgd *s, const struct place_view *v, int node)
{
    const struct place_node *n = &v->nodes[node];
    struct frag_node fn = place_view_frag_node(n);
    struct frag_fit *f = s->fits + (size_t)node * s->nt;
    struct frag_change none = { .cpu_free = n->cpu_free };
    frag_fits(v->types, s->nt, &fn, f);
    s->idle[node] = place_view_gpu_free(n);
    s->before[node] = frag_of_fits(v->types, s->nt, n->model, s->idle[node], f, &none, NULL);
    s->ver[node] = n->version;
}

/* F of the node once k of its GPUs go from `from` to `to` milli free and its CPU to `cpu` */
static double after(const struct fgd *s, const struct place_view *v, int node, int k,
                    int32_t from, int32_t to, int64_t cpu)
{
    struct frag_change ch = { cpu, k, from, to };
    return frag_of_fits(v->types, s->nt, v->nodes[node].model, s->idle[node],
                        s->fits + (size_t)node * s->nt, &ch, NULL);
}

static int64_t fgd_score(void *self, const struct place_view *v, int node,
                         const struct place_pod *p, int *gpu)
{
    struct fgd *s = self;
    const struct place_node *n = &v->nodes[node];
    if (s->ver[node] != n->version)
        refresh(s, v, node);
    double before = s->before[node];
    int64_t cpu = n->cpu_free - p->cpu_milli;
    *gpu = -1;
    if (p->num_gpu == 1 && p->gpu_milli < PLACE_MILLI) {
        int64_t best = 0;
        for (int g = 0; g < n->ngpus; g++) {
            int32_t f = n->gpu_free[g];
            if (f < p->gpu_milli)
                continue;
            int same = 0;       /* a GPU with the free milli of an earlier one scores alike */
            for (int e = 0; e < g && !same; e++)
                same = n->gpu_free[e] == f;
            if (same)
                continue;
            int64_t sc = score_of(before, after(s, v, node, 1, f, f - p->gpu_milli, cpu));
            if (*gpu < 0 || sc > best) {
                best = sc;
                *gpu = g;
            }
        }
        return best;
    }
    /* whole GPUs: num_gpu fully free ones go to 0; a CPU-only pod changes the CPU alone */
    return score_of(before, after(s, v, node, p->num_gpu, PLACE_MILLI, 0, cpu));
}

static const struct pick_rule rule = { fgd_score, 0, PICK_GPUS_SCORE };

static void free_cache(struct fgd *s)
{
    free(s->before);
    free(s->ver);
    free(s->idle);
    free(s->fits);
    s->before = NULL;
    s->ver = NULL;
    s->idle = NULL;
    s->fits = NULL;
    s->n = s->nt = 0;
}

static int fgd_decide(void *self, const struct place_view *v, const struct place_pod *p,
                      struct place_choice *out, struct errbuf *err)
{
    struct fgd *s = self;
    if (s->n != v->nnodes || s->nt != v->ntypes) {
        size_t n = (size_t)v->nnodes, nt = (size_t)(v->ntypes > 0 ? v->ntypes : 1);
        free_cache(s);
        s->before = malloc(n * sizeof *s->before);
        s->ver = malloc(n * sizeof *s->ver);
        s->idle = malloc(n * sizeof *s->idle);
        s->fits = malloc(n * nt * sizeof *s->fits);
        if (s->before == NULL || s->ver == NULL || s->idle == NULL || s->fits == NULL) {
            free_cache(s);
            return err_run(err, "out of memory");
        }
        for (size_t i = 0; i < n; i++)
            s->ver[i] = UINT64_MAX;
        s->n = v->nnodes;
        s->nt = v->ntypes;
    }
    return pick_decide(&s->pk, &rule, s, v, p, out, err);
}

static void fgd_destroy(void *self)
{
    struct fgd *s = self;
    if (s == NULL)
        return;
    pick_fini(&s->pk);
    free_cache(s);
    free(s);
}

static int fgd_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    struct fgd *s = calloc(1, sizeof *s);
    if (s == NULL || pick_init(&s->pk, env->seed, "place_ties") < 0) {
        fgd_destroy(s);
        return err_run(err, "out of memory");
    }
    if (pick_read_ties(&s->pk, params, err) < 0) {
        fgd_destroy(s);
        return -1;
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
    .params = pick_params,
    .create = fgd_create,
    .destroy = fgd_destroy,
    .place = &hooks,
};
