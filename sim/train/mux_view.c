/*
 * mux_view: a policy's questions about shared GPUs, put to the world's speed hook.
 */
#include "mux_view.h"

int mux_view_shared(const struct train_view *v)
{
    return v->speed != NULL && v->speed->mem_gb != NULL;
}

double mux_view_rate(const struct train_view *v, const struct train_job *j, int32_t batch,
                     int gpu, uint16_t share, int sliced, const struct train_corunner *co,
                     int nco)
{
    struct train_job c = *j;
    if (batch > 0)
        c.batch = batch;
    c.sliced = (uint8_t)(sliced != 0);
    struct train_speed_query q = { .job = &c, .gpus = &gpu, .ngpu = 1, .share = share,
                                   .co = co, .nco = nco };
    const struct train_speed *s = v->speed != NULL ? v->speed : &train_speed_rigid;
    return s->rate(s, v->cl, v->model, &q);
}

double mux_view_solo(const struct train_view *v, const struct train_job *j, int gpu)
{
    struct train_job c = *j;
    c.batch = 0;
    return mux_view_rate(v, &c, 0, gpu, OCC_WHOLE, 0, NULL, 0);
}

double mux_view_solo_at(const struct train_view *v, const struct train_job *j, int32_t batch,
                        int gpu)
{
    struct train_job c = *j;
    c.batch = 0;
    return mux_view_rate(v, &c, batch, gpu, OCC_WHOLE, 0, NULL, 0);
}

int mux_view_profile(const struct train_view *v, int gpu, int a, int b, double d[2])
{
    const int jt[2] = { a, b };
    for (int s = 0; s < 2; s++) {
        struct train_job j = { .id = -1, .slot = -1, .jtype = jt[s], .workers = 1,
                               .min_workers = 1, .max_workers = 1, .ngpu = 1 };
        struct train_corunner co = { jt[1 - s], 0, gpu, OCC_WHOLE / 2, 0 };
        double solo = mux_view_rate(v, &j, 0, gpu, OCC_WHOLE, 0, NULL, 0);
        double both = mux_view_rate(v, &j, 0, gpu, OCC_WHOLE / 2, 0, &co, 1);
        if (!(solo > 0) || !(both > 0))
            return -1;
        d[s] = solo / both - 1;
    }
    return 0;
}

double mux_view_mem_gb(const struct train_view *v, int jtype, int32_t batch)
{
    if (!mux_view_shared(v))
        return 0;
    return v->speed->mem_gb(v->speed, v->model, jtype, batch);
}

double mux_view_gpu_mem_gb(const struct train_view *v, int gpu)
{
    return catalog_gpu(cluster_catalog(v->cl), cluster_gpu_type(v->cl, gpu))->mem_gb;
}

int32_t mux_view_m0(const struct train_view *v, int jtype)
{
    int32_t b = tput_type(v->model, jtype)->batch;
    return b > 0 ? b : 1;
}
