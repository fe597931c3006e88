/*
 * train_view: what a policy may ask of the training world besides the snapshot itself —
 * rates of a job on a GPU type or on exact GPUs, and what a restart costs.  Pure functions of
 * the view's cluster, models and settings (the rate memo only remembers answers).
 */
#include "train_view.h"

#include "rate_memo.h"
#include "speed.h"

/* a job's own batch counts where the world's speed is the rigid one (speed.h) */
static int own_batch(const struct train_view *v, const struct train_job *j)
{
    return j->batch > 0 && (v->speed == NULL || v->speed == &train_speed_rigid);
}

double train_view_rate(const struct train_view *v, const struct train_job *j, int gpu_type, int n)
{
    if (own_batch(v, j)) {
        if (n < 1 || cluster_type_count(v->cl, gpu_type) < n)
            return 0;
        struct placement p;
        cluster_best_placement(v->cl, gpu_type, n, &p);
        return train_speed_batch_on(v->model, j->jtype, j->batch, &p);
    }
    if (v->rates != NULL)
        return rate_memo_get(v->rates, j->jtype, gpu_type, n);
    return rate_memo_compute(v->cl, v->model, j->jtype, gpu_type, n);
}

int train_view_type_cap(const struct train_view *v, int gpu_type)
{
    /* base holds whole GPUs only: its free whole count is the type's count less the denied */
    return v->base != NULL ? occ_free_whole(v->base, gpu_type)
                           : cluster_type_count(v->cl, gpu_type);
}

double train_view_rate_on(const struct train_view *v, const struct train_job *j, const int *ids, int n)
{
    if (own_batch(v, j))
        return train_speed_batch(v->cl, v->model, j->jtype, j->batch, ids, n);
    return train_speed_placed(v->cl, v->model, j->jtype, ids, n);
}

double train_view_restore_for(const tput *m, int jtype, double delay_s, double fixed_s,
                              double gbs)
{
    return delay_s >= 0 ? delay_s : tput_restore_s(m, jtype, fixed_s, gbs);
}

double train_view_restore_s(const struct train_view *v, const struct train_job *j)
{
    if (v->restore_by_type != NULL && v->restore_by_type[j->jtype] >= 0)
        return v->restore_by_type[j->jtype];
    return train_view_restore_for(v->model, j->jtype, v->restore_delay_s, v->restore_fixed_s,
                                  v->storage_gbs);
}
