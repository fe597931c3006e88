/*
 * mux: the per-decision picture of shared GPUs (see the header).
 */
#include "mux.h"

#include <stdlib.h>
#include <string.h>

#include "../policy.h"

int mux_init(struct mux *m, const cluster *cl)
{
    memset(m, 0, sizeof *m);
    m->ngpu = cluster_ngpus(cl);
    m->g = calloc((size_t)m->ngpu + 1, sizeof *m->g);
    m->scratch = occ_create(cl);
    if (m->g == NULL || m->scratch == NULL) {
        mux_fini(m);
        return -1;
    }
    return 0;
}

void mux_fini(struct mux *m)
{
    free(m->g);
    occ_destroy(m->scratch);
    memset(m, 0, sizeof *m);
}

void mux_load(struct mux *m, const struct train_view *v, struct grant_list *out)
{
    memset(m->g, 0, (size_t)m->ngpu * sizeof *m->g);
    plan_begin(&m->plan, v, m->scratch, out, PLAN_DELTA);
    if (v->base != NULL)        /* another tenant's GPUs: held whole, nobody here joins them */
        for (int gpu = 0; gpu < m->ngpu; gpu++)
            if (occ_used(v->base, gpu) > 0)
                m->g[gpu].whole = 1;
    for (const struct train_job *j = train_view_first_running(v); j;
         j = train_view_next_running(v, j)) {
        if (j->ngpu != 1) {
            for (int i = 0; i < j->ngpu; i++)
                m->g[j->gpus[i]].whole = 1;
            continue;
        }
        struct mux_gpu *g = &m->g[j->gpus[0]];
        if (g->n == MUX_MAX_JOBS) {         /* more than any policy here grants */
            g->whole = 1;
            continue;
        }
        int32_t b = j->batch > 0 ? j->batch : mux_view_m0(v, j->jtype);
        g->slot[g->n] = j->slot;
        g->batch[g->n] = b;
        g->share[g->n] = j->share;
        g->sliced = j->sliced;
        g->n++;
        g->mem_gb += mux_view_mem_gb(v, j->jtype, b);
    }
}

int mux_fits(const struct mux *m, const struct train_view *v, int gpu, int jt, int32_t batch,
             int max_jobs)
{
    const struct mux_gpu *g = &m->g[gpu];
    if (g->whole || g->n >= max_jobs || g->n >= MUX_MAX_JOBS)
        return 0;
    if (g->n == 0)
        return 1;                   /* alone: the throughput model's business */
    if (!mux_view_shared(v))
        return 0;
    return g->mem_gb + mux_view_mem_gb(v, jt, batch) <= mux_view_gpu_mem_gb(v, gpu) + 1e-9;
}

void mux_join(struct mux *m, const struct train_view *v, int gpu, int32_t slot, int32_t batch,
              uint16_t share)
{
    struct mux_gpu *g = &m->g[gpu];
    int32_t b = batch > 0 ? batch : mux_view_m0(v, v->jobs[slot].jtype);
    if (g->n == 0)
        occ_take(m->scratch, &gpu, 1, 1);   /* no longer free whole for plan placements */
    g->slot[g->n] = slot;
    g->batch[g->n] = b;
    g->share[g->n] = share;
    g->n++;
    g->mem_gb += mux_view_mem_gb(v, v->jobs[slot].jtype, b);
    g->changed = 1;
}

void mux_leave(struct mux *m, const struct train_view *v, int gpu, int32_t slot)
{
    struct mux_gpu *g = &m->g[gpu];
    for (int i = 0; i < g->n; i++) {
        if (g->slot[i] != slot)
            continue;
        g->mem_gb -= mux_view_mem_gb(v, v->jobs[slot].jtype, g->batch[i]);
        g->n--;
        g->slot[i] = g->slot[g->n];
        g->batch[i] = g->batch[g->n];
        g->share[i] = g->share[g->n];
        g->changed = 1;
        if (g->n == 0)
            g->sliced = 0;
        break;
    }
}

void mux_even(struct mux *m, int gpu)
{
    struct mux_gpu *g = &m->g[gpu];
    for (int i = 0; i < g->n; i++)
        g->share[i] = (uint16_t)(OCC_WHOLE / g->n);
    g->changed = 1;
}

int mux_corunners(const struct mux *m, const struct train_view *v, int gpu, int i,
                  struct train_corunner *co)
{
    const struct mux_gpu *g = &m->g[gpu];
    int n = 0;
    for (int k = 0; k < g->n; k++)
        if (k != i)
            co[n++] = (struct train_corunner){ v->jobs[g->slot[k]].jtype, g->batch[k], gpu,
                                               g->share[k], (uint8_t)g->sliced };
    return n;
}

double mux_rate(const struct mux *m, const struct train_view *v, int gpu, int i)
{
    struct train_corunner co[MUX_MAX_JOBS];
    const struct mux_gpu *g = &m->g[gpu];
    int n = mux_corunners(m, v, gpu, i, co);
    return mux_view_rate(v, &v->jobs[g->slot[i]], g->batch[i], gpu, g->share[i], g->sliced, co,
                         n);
}

int mux_free_gpu(const struct mux *m, const struct train_view *v)
{
    for (int i = 0; i < m->ngpu; i++)
        if (m->g[i].n == 0 && !m->g[i].whole && occ_used(m->scratch, i) == 0)
            return i;
    (void)v;
    return -1;
}

int mux_place_whole(struct mux *m, const struct train_view *v, const struct train_job *j,
                    struct errbuf *err)
{
    int type = plan_most_free_type(&m->plan, j->workers);
    if (type < 0)
        return 1;
    size_t before = m->plan.out->n;
    int rc = plan_place(&m->plan, j, type, j->workers, OCC_PACK, err);
    if (rc == 0 && m->plan.out->n > before) {
        const struct grant *g = &m->plan.out->g[m->plan.out->n - 1];
        const int *ids = grant_ids(m->plan.out, g);
        for (int i = 0; i < g->ngpu; i++)
            m->g[ids[i]].whole = 1;
    }
    (void)v;
    return rc;
}

int mux_emit(struct mux *m, const struct train_view *v, struct errbuf *err)
{
    for (int gpu = 0; gpu < m->ngpu; gpu++) {
        struct mux_gpu *g = &m->g[gpu];
        if (!g->changed)
            continue;
        for (int i = 0; i < g->n; i++) {
            const struct train_job *j = &v->jobs[g->slot[i]];
            int32_t b = g->batch[i];
            if (j->batch == 0 && b == mux_view_m0(v, j->jtype))
                b = 0;                      /* its type's batch, as it is */
            if (grant_add_sliced(m->plan.out, g->slot[i], &gpu, 1, g->share[i], b, g->sliced) < 0)
                return err_run(err, "out of memory");
        }
        g->changed = 0;
    }
    return 0;
}

int mux_even_create(void **self, const struct jobj *params, const struct policy_env *env,
                    int sliced, struct errbuf *err)
{
    struct mux_even *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    int64_t mj = 4;
    if (jobj_int(params, "max_jobs", JOPT, 1, MUX_MAX_JOBS, &mj, err) < 0) {
        free(p);
        return -1;
    }
    p->max_jobs = (int)mj;
    p->sliced = sliced;
    if (mux_init(&p->m, env->cl) < 0) {
        free(p);
        return err_run(err, "out of memory");
    }
    *self = p;
    return 0;
}

void mux_even_destroy(void *self)
{
    struct mux_even *p = self;
    mux_fini(&p->m);
    free(p);
}

/* split GPU gpu evenly among its holders, space-shared or time-sliced */
static void split(struct mux *m, int gpu, int sliced)
{
    mux_even(m, gpu);
    m->g[gpu].sliced = sliced;
}

int mux_even_decide(void *self, const struct train_view *v, struct grant_list *out,
                    struct errbuf *err)
{
    struct mux_even *p = self;
    struct mux *m = &p->m;
    int sliced = p->sliced, max_jobs = p->max_jobs;
    mux_load(m, v, out);
    for (int gpu = 0; gpu < m->ngpu; gpu++)         /* someone left: split anew */
        for (int i = 0; i < m->g[gpu].n; i++)
            if (m->g[gpu].share[i] != OCC_WHOLE / m->g[gpu].n || m->g[gpu].sliced != sliced) {
                split(m, gpu, sliced);
                break;
            }
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        if (j->workers > 1) {
            if (mux_place_whole(m, v, j, err) < 0)
                return -1;
            continue;
        }
        int best = -1;
        for (int gpu = 0; gpu < m->ngpu; gpu++) {
            if (!mux_fits(m, v, gpu, j->jtype, 0, max_jobs))
                continue;
            const struct mux_gpu *g = &m->g[gpu], *b = best >= 0 ? &m->g[best] : NULL;
            if (b == NULL || g->n < b->n || (g->n == b->n && g->mem_gb < b->mem_gb))
                best = gpu;
        }
        if (best < 0)
            continue;
        mux_join(m, v, best, j->slot, 0, OCC_WHOLE);
        split(m, best, sliced);
    }
    return mux_emit(m, v, err);
}
