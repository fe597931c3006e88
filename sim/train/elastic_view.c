/*
 * elastic_view: the answer list of elastic policies.  Amortized O(1) per GPU appended.
 */
#include "elastic_view.h"

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
