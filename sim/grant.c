/*
 * grant: the growable list of grants a policy returns.  Amortized O(1) append.
 */
#include <stdlib.h>
#include <string.h>

#include "train_view.h"

void grant_list_init(struct grant_list *l)
{
    memset(l, 0, sizeof *l);
}

void grant_list_fini(struct grant_list *l)
{
    free(l->g);
    free(l->ids);
    memset(l, 0, sizeof *l);
}

void grant_list_reset(struct grant_list *l)
{
    l->n = 0;
    l->nids = 0;
    l->full = 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int grant_add(struct grant_list *l, int32_t slot, const int *ids, int n, int share)
{
    if (n < 0 || grow((void **)&l->g, &l->cap, l->n + 1, sizeof *l->g) < 0 ||
        grow((void **)&l->ids, &l->idcap, l->nids + (size_t)n, sizeof *l->ids) < 0)
        return -1;
    if (n > 0)
        memcpy(l->ids + l->nids, ids, (size_t)n * sizeof *ids);
    l->g[l->n++] = (struct grant){ slot, n, (uint32_t)l->nids, (uint16_t)(n ? share : 0) };
    l->nids += (size_t)n;
    return 0;
}

int grant_keep(struct grant_list *l, const struct train_job *j)
{
    return grant_add(l, j->slot, j->gpus, j->ngpu, j->share);
}

int grant_preempt(struct grant_list *l, int32_t slot)
{
    return grant_add(l, slot, NULL, 0, 0);
}
