/*
 * elastic_view: the answer list of elastic policies (amortized O(1) per GPU appended) and
 * Pollux's most-free-node placement.
 */
#include "elastic_view.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void elastic_alloc_init(struct elastic_alloc *a)
{
    memset(a, 0, sizeof *a);
}

void elastic_alloc_fini(struct elastic_alloc *a)
{
    free(a->off);
    free(a->nodes);
    memset(a, 0, sizeof *a);
}

int elastic_alloc_begin(struct elastic_alloc *a, size_t njobs)
{
    if (njobs + 1 > a->cap_jobs) {
        size_t c = 2 * (njobs + 1);
        int32_t *o = realloc(a->off, c * sizeof *o);
        if (o == NULL)
            return -1;
        a->off = o;
        a->cap_jobs = c;
    }
    a->njobs = njobs;
    a->n = 0;
    a->off[0] = 0;
    return 0;
}

int elastic_alloc_set(struct elastic_alloc *a, size_t k, const int32_t *nodes, size_t n)
{
    if (a->n + n > a->cap) {
        size_t c = 2 * (a->n + n) + 16;
        int32_t *q = realloc(a->nodes, c * sizeof *q);
        if (q == NULL)
            return -1;
        a->nodes = q;
        a->cap = c;
    }
    if (n > 0)
        memcpy(a->nodes + a->n, nodes, n * sizeof *nodes);
    a->n += n;
    a->off[k + 1] = (int32_t)a->n;
    return 0;
}

void elastic_view_most_free(int32_t *free_gpus, int32_t nnodes, int32_t n, int32_t *out)
{
    int32_t got = 0;
    while (got < n) {
        int32_t best = 0;
        for (int32_t k = 1; k < nnodes; k++)
            if (free_gpus[k] > free_gpus[best])
                best = k;
        int32_t take = free_gpus[best] < n - got ? free_gpus[best] : n - got;
        assert(take > 0);
        for (int32_t i = 0; i < take; i++)
            out[got++] = best;
        free_gpus[best] -= take;
    }
}
