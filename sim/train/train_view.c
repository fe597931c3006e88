/*
 * train_view: what a policy may ask of the training world besides the snapshot itself —
 * rates of a job on a GPU type or on exact GPUs, and what a restart costs.  Pure functions of
 * the view's cluster, models and settings (the rate memo only remembers answers).
 */
#include "train_view.h"

#include "rate_memo.h"
#include "speed.h"

double train_view_rate(const struct train_view *v, const struct train_job *j, int gpu_type, int n)
{
    if (v->rates != NULL)
        return rate_memo_get(v->rates, j->jtype, gpu_type, n);
    return rate_memo_compute(v->cl, v->model, j->jtype, gpu_type, n);
}

double train_view_rate_on(const struct train_view *v, const struct train_job *j, const int *ids, int n)
{
    return train_speed_placed(v->cl, v->model, j->jtype, ids, n);
}

double train_view_restore_for(const tput *m, int jtype, double delay_s, double fixed_s,
                              double gbs)
{
    return delay_s >= 0 ? delay_s : tput_restore_s(m, jtype, fixed_s, gbs);
}

double train_view_restore_s(const struct train_view *v, const struct train_job *j)
{
    return train_view_restore_for(v->model, j->jtype, v->restore_delay_s, v->restore_fixed_s,
                                  v->storage_gbs);
}
