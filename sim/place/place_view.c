/*
 * place_view: the view's functions (see the header) — the fit test every placement policy
 * filters nodes with, and the node's state for the fragmentation model.
 */
#include "place_view.h"

int64_t place_view_gpu_free(const struct place_node *n)
{
    int64_t s = 0;
    for (int g = 0; g < n->ngpus; g++)
        s += n->gpu_free[g];
    return s;
}

int place_view_gpus_idle(const struct place_node *n)
{
    int k = 0;
    for (int g = 0; g < n->ngpus; g++)
        k += n->gpu_free[g] == PLACE_MILLI;
    return k;
}

int place_view_fits(const struct place_node *n, const struct place_pod *p)
{
    if (n->cpu_free < p->cpu_milli || n->mem_free < p->mem_mib)
        return 0;
    if (p->num_gpu == 0)
        return 1;
    if (p->models != 0 && !(p->models & (UINT64_C(1) << n->model)))
        return 0;
    /* a shared GPU with room, or num_gpu GPUs with the whole per-GPU request free */
    int fit = 0;
    for (int g = 0; g < n->ngpus; g++)
        fit += n->gpu_free[g] >= p->gpu_milli;
    return fit >= p->num_gpu;
}

struct frag_node place_view_frag_node(const struct place_node *n)
{
    return (struct frag_node){ .cpu_free = n->cpu_free, .model = n->model, .ngpus = n->ngpus,
                               .gpu_free = n->gpu_free };
}

int place_view_check(const struct place_view *v, const struct place_pod *pod,
                     const struct place_choice *c, struct errbuf *err)
{
    if (c->node == -1)
        return 0;
    if (c->node < 0 || c->node >= v->nnodes)
        return err_run(err, "pod %s: the policy answered node %d of %d", pod->name, c->node,
                       v->nnodes);
    const struct place_node *n = &v->nodes[c->node];
    if (!place_view_fits(n, pod))
        return err_run(err, "pod %s: the policy chose node %s, which cannot take it", pod->name,
                       n->name);
    if (c->ngpus != pod->num_gpu)
        return err_run(err, "pod %s: the policy gave it %d GPUs, not %d", pod->name, c->ngpus,
                       pod->num_gpu);
    for (int i = 0; i < c->ngpus; i++) {
        int g = c->gpus[i];
        if (g < 0 || g >= n->ngpus || n->gpu_free[g] < pod->gpu_milli)
            return err_run(err, "pod %s: the policy chose GPU %d of node %s, which has no "
                           "room for it", pod->name, g, n->name);
        for (int j = 0; j < i; j++)
            if (c->gpus[j] == g)
                return err_run(err, "pod %s: the policy gave it GPU %d twice", pod->name, g);
    }
    return 0;
}
