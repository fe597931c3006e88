/*
 * plan: scratch-occupancy helpers.  plan_begin costs O(GPUs) (a copy or a clear); a placement
 * costs what occ_alloc costs.
 */
#include "plan.h"

#include "../sim/base/grow.h"

#include <stdlib.h>
#include <string.h>

void plan_begin(struct plan *p, const struct train_view *v, occ *scratch,
                struct grant_list *out, int mode)
{
    p->v = v;
    p->occ = scratch;
    p->out = out;
    if (mode == PLAN_FULL) {
        /* empty but for the GPUs another tenant holds (co-simulation) */
        if (v->base != NULL)
            occ_copy(scratch, v->base);
        else
            occ_clear(scratch);
        grant_full(out);
    } else {
        occ_copy(scratch, v->occ);
    }
}

int plan_place(struct plan *p, const struct train_job *j, int gpu_type, int n, int mode,
               struct errbuf *err)
{
    int ids_small[64];
    int *ids = n <= 64 ? ids_small : malloc((size_t)n * sizeof *ids);
    if (ids == NULL)
        return err_run(err, "out of memory");
    int rc = 1;
    if (occ_alloc(p->occ, gpu_type, n, mode, ids) == 0)
        rc = grant_add(p->out, j->slot, ids, n, OCC_WHOLE) < 0 ? err_run(err, "out of memory") : 0;
    if (ids != ids_small)
        free(ids);
    return rc;
}

int plan_keep(struct plan *p, const struct train_job *j, struct errbuf *err)
{
    if (j->ngpu == 0)
        return 1;
    if (!occ_fits(p->occ, j->gpus, j->ngpu, j->share))
        return 1;
    occ_take(p->occ, j->gpus, j->ngpu, j->share);
    return grant_keep(p->out, j) < 0 ? err_run(err, "out of memory") : 0;
}

int plan_resize(struct plan *p, const struct train_job *j, int n, int mode, struct errbuf *err)
{
    if (n <= j->ngpu) {
        occ_release(p->occ, j->gpus + n, j->ngpu - n, j->share);
        return grant_add_sliced(p->out, j->slot, j->gpus, n, j->share, 0, j->sliced) < 0
                   ? err_run(err, "out of memory") : 0;
    }
    int ids_small[64];
    int *ids = n <= 64 ? ids_small : malloc((size_t)n * sizeof *ids);
    if (ids == NULL)
        return err_run(err, "out of memory");
    memcpy(ids, j->gpus, (size_t)j->ngpu * sizeof *ids);
    int rc = 1;
    if (occ_alloc(p->occ, j->gpu_type, n - j->ngpu, mode, ids + j->ngpu) == 0)
        rc = grant_add_sliced(p->out, j->slot, ids, n, j->share, 0, j->sliced) < 0
                 ? err_run(err, "out of memory") : 0;
    if (ids != ids_small)
        free(ids);
    return rc;
}

int plan_free(const struct plan *p, int gpu_type)
{
    return occ_free_whole(p->occ, gpu_type);
}

int plan_most_free_type(const struct plan *p, int n)
{
    const int *types;
    int nt = cluster_types(p->v->cl, &types), best = -1, bestf = n - 1;
    for (int i = 0; i < nt; i++) {
        int f = occ_free_whole(p->occ, types[i]);
        if (f > bestf) {
            bestf = f;
            best = types[i];
        }
    }
    return best;
}

int plan_fastest_type(const struct plan *p, const struct train_job *j, int n)
{
    const int *types;
    int nt = cluster_types(p->v->cl, &types), best = -1;
    double bestr = 0;
    for (int i = 0; i < nt; i++) {
        if (occ_free_whole(p->occ, types[i]) < n)
            continue;
        double r = train_view_rate(p->v, j, types[i], n);
        if (r > bestr) {
            bestr = r;
            best = types[i];
        }
    }
    return best;
}

int plan_commit(struct plan *p, const struct plan_pick *picks, int npicks, struct errbuf *err)
{
    /* first the jobs that stay where they are, so nobody is put on their GPUs */
    for (int k = 0; k < npicks; k++) {
        const struct plan_pick *pk = &picks[k];
        const struct train_job *j = pk->job;
        int stays = j->state == JOB_RUNNING && j->gpu_type == pk->gpu_type && j->ngpu == pk->n &&
                    j->share == OCC_WHOLE;
        if (stays && plan_keep(p, j, err) < 0)
            return -1;
    }
    for (int k = 0; k < npicks; k++) {
        const struct plan_pick *pk = &picks[k];
        const struct train_job *j = pk->job;
        int stays = j->state == JOB_RUNNING && j->gpu_type == pk->gpu_type && j->ngpu == pk->n &&
                    j->share == OCC_WHOLE;
        if (stays)
            continue;
        int rc = plan_place(p, j, pk->gpu_type, pk->n, OCC_PACK, err);
        if (rc < 0)
            return -1;
        if (rc > 0)
            return err_run(err, "plan_commit: %d GPUs of a type for job %lld do not fit; the "
                                "picks exceed the free count", pk->n, (long long)j->id);
    }
    return 0;
}

void *plan_grow(void *arr, size_t *cap, size_t n, size_t size, int *failed)
{
    if (n <= *cap)
        return arr;
    arr = grow_array(arr, n * 2, size, failed);
    if (!*failed)
        *cap = n * 2;
    return arr;
}

void *plan_slot_state(const struct train_view *v, void *arr, size_t *cap, size_t size,
                      int *failed)
{
    size_t need = 0, old = *cap;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        if ((size_t)j->slot + 1 > need)
            need = (size_t)j->slot + 1;
    arr = plan_grow(arr, cap, need, size, failed);
    if (!*failed && *cap > old)
        memset((char *)arr + old * size, 0xFF, (*cap - old) * size);
    return arr;
}
