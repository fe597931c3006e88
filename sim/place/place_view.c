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
