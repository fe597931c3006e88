/*
 * speed: the rigid speed model and the placement rate every model starts from.
 */
#include "speed.h"

#include <limits.h>

#include "../../models/elastic.h"

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

double train_speed_batch_on(const tput *m, int jtype, int batch, const struct placement *p)
{
    double step, sync, fixed;
    if (p->workers < 1 || tput_step_split(m, jtype, p, &step, &sync, &fixed) < 0)
        return 0;
    const struct jobtype *j = tput_type(m, jtype);
    int n = p->workers;
    /* compute per sample on one GPU, from the type's own local batch */
    double per_sample = (step - sync - fixed) / ((double)j->batch / n);
    struct elastic_batch b;
    elastic_batch_rules(batch, n, j->batch, j->max_local_batch > 0 ? j->max_local_batch : INT_MAX,
                        0, ELASTIC_R1_NEVER, &b);
    double t = elastic_iter_time(sync + fixed + per_sample * b.atomic, sync, b.accum);
    return t > 0 ? 1 / t : 0;
}

double train_speed_batch(const cluster *cl, const tput *m, int jtype, int batch,
                         const int *ids, int n)
{
    if (batch <= 0)
        return train_speed_placed(cl, m, jtype, ids, n);
    if (n == 0)
        return 0;
    struct placement p;
    int mixed;
    cluster_placement(cl, ids, n, &p, &mixed);
    double r = train_speed_batch_on(m, jtype, batch, &p);
    if (mixed) {
        /* the pace of the slowest type, as train_speed_placed */
        for (int i = 1; i < n; i++) {
            int g = cluster_gpu_type(cl, ids[i]);
            if (g == p.gpu)
                continue;
            struct placement q = p;
            q.gpu = g;
            double rq = train_speed_batch_on(m, jtype, batch, &q);
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
    return train_speed_batch(cl, m, q->job->jtype, q->job->batch, q->gpus, q->ngpu) *
           q->share / 1000.0;
}

const struct train_speed train_speed_rigid = {
    .name = "rigid",
    .corunners = 0,
    .rate = rigid_rate,
};
