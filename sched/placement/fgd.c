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
 * Cost: O(nodes x types x GPUs) per pod at worst: a node's F, and for each type the GPUs with
 * its milli free, are cached until the node changes, and F after the pod is computed from
 * them in O(types) per GPU tried (the model's arithmetic, so the same scores to the bit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "pick.h"

struct fgd {
    struct pick pk;
    /* per node, at version ver[n]: F(n), its idle milli, and for each pod type t the GPUs
     * with t's milli free (cnt[n * nt + t]) and their free milli summed (above[...]) */
    double     *before;
    uint64_t   *ver;
    int64_t    *idle;
    int16_t    *cnt;
    int32_t    *above;
    int         n, nt;
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
    s->before[node] = frag_node(v->types, v->ntypes, &fn, NULL);
    s->idle[node] = place_view_gpu_free(n);
    for (int t = 0; t < s->nt; t++) {
        int c = 0;
        int32_t a = 0;
        int32_t m = v->types[t].gpu_milli;
        for (int g = 0; m > 0 && g < n->ngpus; g++)
            if (n->gpu_free[g] >= m) {
                c++;
                a += n->gpu_free[g];
            }
        s->cnt[(size_t)node * s->nt + t] = (int16_t)c;
        s->above[(size_t)node * s->nt + t] = a;
    }
    s->ver[node] = n->version;
}

/* F of the node once k of its GPUs go from `from` to `to` milli free and its CPU to `cpu`:
 * frag_node's arithmetic in its order (models/frag.c), from the cached per-type counts, so
 * that the scores are the model's to the last bit at a fraction of its cost */
static double after(const struct fgd *s, const struct place_view *v, int node, int k,
                    int32_t from, int32_t to, int64_t cpu)
{
    const struct place_node *n = &v->nodes[node];
    const int16_t *cnt = s->cnt + (size_t)node * s->nt;
    const int32_t *above = s->above + (size_t)node * s->nt;
    int64_t idle = s->idle[node] - (int64_t)k * (from - to);
    double a[FRAG_NCAT] = { 0 };
    for (int t = 0; t < s->nt; t++) {
        const struct frag_type *ty = &v->types[t];
        int cpu_ok = cpu >= ty->cpu_milli;
        if (ty->gpu_milli == 0) {
            a[cpu_ok ? FRAG_XL_SATISFIED : FRAG_XR_LACK_CPU] += ty->p * (double)idle;
            continue;
        }
        if (ty->models != 0 && !(ty->models >> n->model & 1)) {
            a[FRAG_NO_ACCESS] += ty->p * (double)idle;
            continue;
        }
        int c = cnt[t];
        int64_t ab = above[t];
        if (from >= ty->gpu_milli) {
            c -= k;
            ab -= (int64_t)k * from;
        }
        if (to >= ty->gpu_milli) {
            c += k;
            ab += (int64_t)k * to;
        }
        if (c >= ty->num_gpu && cpu_ok) {
            int64_t below = idle - ab;
            a[FRAG_Q2_LACK_GPU] += ty->p * (double)below;
            a[FRAG_Q3_SATISFIED] += ty->p * (double)(idle - below);
        } else if (c >= ty->num_gpu) {
            a[FRAG_Q4_LACK_CPU] += ty->p * (double)idle;
        } else {
            a[cpu_ok ? FRAG_Q2_LACK_GPU : FRAG_Q1_LACK_BOTH] += ty->p * (double)idle;
        }
    }
    double f = 0;
    for (int c = 0; c < FRAG_NCAT; c++)
        if (c != FRAG_Q3_SATISFIED)
            f += a[c];
    return f;
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
    free(s->cnt);
    free(s->above);
    s->before = NULL;
    s->ver = NULL;
    s->idle = NULL;
    s->cnt = NULL;
    s->above = NULL;
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
        s->cnt = malloc(n * nt * sizeof *s->cnt);
        s->above = malloc(n * nt * sizeof *s->above);
        if (s->before == NULL || s->ver == NULL || s->idle == NULL || s->cnt == NULL ||
            s->above == NULL) {
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
