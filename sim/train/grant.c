/*
 * grant: the growable list of grants a policy returns.  Amortized O(1) append.
 */
#include <stdlib.h>
#include <string.h>

#include "grant.h"

#include "../base/grow.h"
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
    l->wake_at = 0;
}

static size_t next_cap(size_t cap, size_t need)
{
    size_t nc = cap ? cap : 16;
    while (nc < need)
        nc *= 2;
    return nc;
}

int grant_add(struct grant_list *l, int32_t slot, const int *ids, int n, int share)
{
    int failed = n < 0;
    if (!failed && l->n + 1 > l->cap) {
        size_t nc = next_cap(l->cap, l->n + 1);
        l->g = grow_array(l->g, nc, sizeof *l->g, &failed);
        if (!failed)
            l->cap = nc;
    }
    if (!failed && l->nids + (size_t)n > l->idcap) {
        size_t nc = next_cap(l->idcap, l->nids + (size_t)n);
        l->ids = grow_array(l->ids, nc, sizeof *l->ids, &failed);
        if (!failed)
            l->idcap = nc;
    }
    if (failed)
        return -1;
    if (n > 0)
        memcpy(l->ids + l->nids, ids, (size_t)n * sizeof *ids);
    l->g[l->n++] = (struct grant){ slot, n, (uint32_t)l->nids, (uint16_t)(n ? share : 0), 0, 0 };
    l->nids += (size_t)n;
    return 0;
}

int grant_add_batch(struct grant_list *l, int32_t slot, const int *ids, int n, int share,
                    int32_t batch)
{
    if (batch < 0 || grant_add(l, slot, ids, n, share) < 0)
        return -1;
    l->g[l->n - 1].batch = batch;
    return 0;
}

int grant_add_sliced(struct grant_list *l, int32_t slot, const int *ids, int n, int share,
                     int32_t batch, int sliced)
{
    if (grant_add_batch(l, slot, ids, n, share, batch) < 0)
        return -1;
    l->g[l->n - 1].sliced = (uint8_t)(sliced != 0 && n > 0);
    return 0;
}

int grant_keep(struct grant_list *l, const struct train_job *j)
{
    return grant_add_sliced(l, j->slot, j->gpus, j->ngpu, j->share, 0, j->sliced);
}

int grant_preempt(struct grant_list *l, int32_t slot)
{
    return grant_add(l, slot, NULL, 0, 0);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int grant_check(struct grant_list *l, const struct train_job *jobs, int32_t nslots, int ngpus,
                uint8_t *marks, struct errbuf *err)
{
    for (size_t k = 0; k < l->n; k++) {
        struct grant *g = &l->g[k];
        if (g->slot < 0 || g->slot >= nslots || jobs[g->slot].state == JOB_DONE ||
            marks[g->slot])
            return err_run(err, "policy granted an unknown, finished or twice-granted job "
                                "(slot %d)", g->slot);
        marks[g->slot] = 1;
        if (g->ngpu > 0 && (g->share < 1 || g->share > OCC_WHOLE))
            return err_run(err, "policy granted job %lld a share of %d/1000",
                           (long long)jobs[g->slot].id, g->share);
        const struct train_job *j = &jobs[g->slot];
        if (g->ngpu > 0 && (g->ngpu < j->min_workers || g->ngpu > j->max_workers))
            return err_run(err, "policy granted job %lld %d GPUs, outside its range [%d, %d]",
                           (long long)j->id, g->ngpu, j->min_workers, j->max_workers);
        if (g->ngpu == 0)
            continue;           /* a preemption: no ids (l->ids may be NULL) */
        int *ids = l->ids + g->first;
        if (g->ngpu > 1)
            qsort(ids, (size_t)g->ngpu, sizeof *ids, cmp_int);
        for (int i = 0; i < g->ngpu; i++)
            if (ids[i] < 0 || ids[i] >= ngpus || (i > 0 && ids[i] == ids[i - 1]))
                return err_run(err, "policy granted job %lld an invalid or repeated GPU id %d",
                               (long long)j->id, ids[i]);
    }
    return 0;
}

void grant_check_clear(const struct grant_list *l, int32_t nslots, uint8_t *marks)
{
    for (size_t k = 0; k < l->n; k++)
        if (l->g[k].slot >= 0 && l->g[k].slot < nslots)
            marks[l->g[k].slot] = 0;
}

int grant_same(const struct train_job *j, const int *ids, int n, int share, int batch,
               int sliced)
{
    return j->ngpu == n && (n == 0 || j->share == share) && (batch == 0 || batch == j->batch) &&
           (n == 0 || j->sliced == sliced) &&
           (n == 0 || memcmp(j->gpus, ids, (size_t)n * sizeof *ids) == 0);
}
