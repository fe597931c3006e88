/*
 * rate_memo: best-placement rates by (job type, workers, GPU type), remembered.
 *
 * Layout: one table per job type; row n - 1 holds the rates with n workers on each of the
 * cluster's GPU types (cluster_types order), -1 where not computed yet.  A job type's table
 * grows, doubling, to the largest worker count asked of it, never beyond the largest type's
 * GPU count, so it costs 8 bytes x types x that count (rigid jobs of at most 8 workers on five
 * types: 320 bytes a job type).  A lookup is a catalog-id -> type-slot array read, a bounds
 * check and a cell read; a miss computes the one cell asked for.  When memory runs out the
 * answer is computed directly and not remembered.
 */
#include "rate_memo.h"

#include <assert.h>
#include <stdlib.h>

#include "../base/grow.h"

struct jt_rows {
    double *r;              /* nrows x ntypes; -1: not computed */
    int     nrows;
};

struct rate_memo {
    const cluster  *cl;
    const tput     *model;
    int             ntypes, maxn;   /* GPU types of the cluster, the largest one's count */
    const int      *types;
    int             count[CLUSTER_MAX_TYPES];
    int            *slot_of;        /* catalog GPU id -> type slot, -1 absent */
    int             nids;
    struct jt_rows *jt;             /* by job type */
    int             njt;
};

double rate_memo_compute(const cluster *cl, const tput *model, int jtype, int gpu_type, int n)
{
    if (n < 1 || cluster_type_count(cl, gpu_type) < n)
        return 0;
    struct placement p;
    cluster_best_placement(cl, gpu_type, n, &p);
    return tput_rate(model, jtype, &p);
}

rate_memo *rate_memo_create(const cluster *cl, const tput *model)
{
    rate_memo *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->cl = cl;
    m->model = model;
    m->ntypes = cluster_types(cl, &m->types);
    for (int i = 0; i < m->ntypes; i++) {
        m->count[i] = cluster_type_count(cl, m->types[i]);
        if (m->count[i] > m->maxn)
            m->maxn = m->count[i];
        if (m->types[i] + 1 > m->nids)
            m->nids = m->types[i] + 1;
    }
    m->njt = tput_ntypes(model);
    m->slot_of = malloc((size_t)(m->nids ? m->nids : 1) * sizeof *m->slot_of);
    m->jt = calloc((size_t)(m->njt ? m->njt : 1), sizeof *m->jt);
    if (m->slot_of == NULL || m->jt == NULL) {
        rate_memo_destroy(m);
        return NULL;
    }
    for (int g = 0; g < m->nids; g++)
        m->slot_of[g] = cluster_type_slot(cl, g);
    return m;
}

void rate_memo_destroy(rate_memo *m)
{
    if (m == NULL)
        return;
    for (int k = 0; m->jt != NULL && k < m->njt; k++)
        free(m->jt[k].r);
    free(m->jt);
    free(m->slot_of);
    free(m);
}

/* Make room for rows up to n (n <= maxn); -1 on no memory. */
static int grow_rows(const rate_memo *m, struct jt_rows *t, int n)
{
    int nr = t->nrows ? 2 * t->nrows : 8;
    while (nr < n)
        nr *= 2;
    if (nr > m->maxn)
        nr = m->maxn;
    int failed = 0;
    t->r = grow_array(t->r, (size_t)nr * (size_t)m->ntypes, sizeof *t->r, &failed);
    if (failed)
        return -1;
    for (size_t c = (size_t)t->nrows * (size_t)m->ntypes; c < (size_t)nr * (size_t)m->ntypes; c++)
        t->r[c] = -1;
    t->nrows = nr;
    return 0;
}

double rate_memo_get(rate_memo *m, int jtype, int gpu_type, int n)
{
    assert(jtype >= 0 && jtype < m->njt);
    int s = gpu_type >= 0 && gpu_type < m->nids ? m->slot_of[gpu_type] : -1;
    if (s < 0 || n < 1 || n > m->count[s])
        return 0;
    struct jt_rows *t = &m->jt[jtype];
    if (n > t->nrows && grow_rows(m, t, n) < 0)
        return rate_memo_compute(m->cl, m->model, jtype, gpu_type, n);
    double *cell = &t->r[(size_t)(n - 1) * (size_t)m->ntypes + (size_t)s];
    if (*cell < 0)
        *cell = rate_memo_compute(m->cl, m->model, jtype, gpu_type, n);
    return *cell;
}
