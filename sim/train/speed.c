/*
 * speed: the rigid speed model and the placement rate every model starts from.
 */
#include "speed.h"

double train_speed_placed(const cluster *cl, const tput *m, int jtype, const int *ids, int n)
{
    if (n == 0)
        return 0;
    struct placement p;
    int mixed;
    cluster_placement(cl, ids, n, &p, &mixed);
    double r = tput_rate(m, jtype, &p);
    if (mixed) {
        /* synchronous data parallelism runs at the pace of its slowest type */
        for (int i = 1; i < n; i++) {
            int g = cluster_gpu_type(cl, ids[i]);
            if (g == p.gpu)
                continue;
            struct placement q = p;
            q.gpu = g;
            double rq = tput_rate(m, jtype, &q);
            if (rq < r)
                r = rq;
        }
    }
    return r;
}

static double rigid_rate(const struct train_speed *s, const cluster *cl, const tput *m,
                         const struct train_speed_query *q)
{
    (void)s;
    return train_speed_placed(cl, m, q->job->jtype, q->gpus, q->ngpu) * q->share / 1000.0;
}

const struct train_speed train_speed_rigid = {
    .name = "rigid",
    .corunners = 0,
    .rate = rigid_rate,
};
