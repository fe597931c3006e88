/*
 * siaprof: Sia's per-cluster profiles as throughput-model job types (siaprof.h says what
 * they are and in which units).  Invariant: every (type, GPU Sia profiled, n <=
 * SIAPROF_MAX_WORKERS, class) has a table entry, so that the model never falls back to its
 * analytical extrapolation for a worker count the profile does not cover.  Cost: one
 * elastic_step_time per entry (the Delaunay triangulation of an application's GPU built on
 * first use, then one point location per query), applications x batches x GPUs x
 * SIAPROF_MAX_WORKERS x 2 entries (6 x 7 x 5 x 128 x 2, about 54,000, well under a second).
 */
#include "siaprof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "elastic.h"

/* Sia's clusters (sia-simulator/simulator_config.py: cluster_ngpus_per_node).  dgx is the
 * A100 profile with fewer batch sizes; dgx-ext, which the config calls the default, is read. */
const struct siaprof_cluster siaprof_clusters[] = {
    { "aws", "T4", 4 },          { "azure", "V100-32GB", 8 }, { "dgx-ext", "A100-40GB", 8 },
    { "quad", "RTX6000", 4 },    { "rtx", "RTX2080Ti", 8 },
};
const int siaprof_nclusters = sizeof siaprof_clusters / sizeof siaprof_clusters[0];

int siaprof_type_name(char *out, size_t cap, const char *app, long long batch)
{
    int n = snprintf(out, cap, "%s (batch size %lld)", app, batch);
    return n > 0 && (size_t)n < cap && n < JT_NAME_MAX ? 0 : -1;
}

/* Steps to completion at batch b (siaprof.h: S(b)); -1 with err when b is outside the
 * validated sizes. */
static double steps_at(const elastic_app *a, double b, struct errbuf *err)
{
    const struct elastic_limits *l = elastic_limits(a);
    int last = elastic_completion_epoch(a, b);
    double s = 0;
    for (int e = 0; e <= last; e++) {
        double sqr, var;
        if (elastic_grad_stats(a, b, e, &sqr, &var, err) < 0)
            return -1;
        double gain = elastic_gain(sqr, var, b / l->init_bsz);
        s += (elastic_progress(a, e + 1) - elastic_progress(a, e)) / gain;
    }
    return s;
}

/* The placement of n GPUs on nodes of k (siaprof.h): its per-node counts in p, their number
 * returned. */
static int placement_of(int n, int k, int spread, int *p)
{
    if (n <= k) {
        if (!spread || n < 2) {
            p[0] = n;
            return 1;
        }
        p[0] = (n + 1) / 2;
        p[1] = n / 2;
        return 2;
    }
    int m = 0;
    for (int left = n; left > 0; left -= k)
        p[m++] = left < k ? left : k;
    return m;
}

/* Steps of B per second of a on n GPUs placed as p (m nodes); 0 where the profile cannot
 * say. */
static double rate_of(const elastic_app *a, int bsz, double steps_b, int n, const int *p,
                      int m)
{
    struct elastic_batch b;
    elastic_batch_fixed(a, bsz, n, ELASTIC_R1_ABOVE_INIT, &b);
    if (b.atomic < 1)
        return 0;
    struct errbuf ignored;
    err_clear(&ignored);
    double step, sync;
    if (elastic_step_time(a, p, m, b.atomic, &step, &sync, &ignored) < 0)
        return 0;
    double run = (double)n * b.atomic * (b.accum + 1), steps_run = steps_at(a, run, &ignored);
    double it = elastic_iter_time(step, sync, b.accum);
    if (!(steps_run > 0) || !(it > 0))
        return 0;
    return steps_b / steps_run / it;
}

int siaprof_load(tput *t, const catalog *cat, const int *want, int nwant,
                 const char *apps_json, const char *sia_dir, const char *origin,
                 struct errbuf *err)
{
    elastic *e;
    if (elastic_load(&e, cat, apps_json, err) < 0)
        return -1;
    int rc = -1, gpus[16], per_node[16], ng = 0;
    for (int c = 0; c < siaprof_nclusters; c++) {
        int g = catalog_gpu_find(cat, siaprof_clusters[c].gpu), used = 0;
        for (int w = 0; w < nwant && g >= 0; w++)
            used |= want[w] == g;
        if (!used)
            continue;
        /* Pollux's own folders are the T4 profile (Sia's -aws files are the same files) */
        int have = 0;
        for (int a = 0; a < elastic_napps(e) && !have; a++)
            have = elastic_get(e, a, g) != NULL;
        if (!have && elastic_add_sia(e, sia_dir, siaprof_clusters[c].cluster, g, origin,
                                     err) < 0)
            goto out;
        gpus[ng] = g;
        per_node[ng++] = siaprof_clusters[c].per_node;
    }
    if (ng == 0) {
        err_input(err, origin, 0, NULL, "the cluster has none of the GPU types Sia profiled "
                  "(T4, V100-32GB, A100-40GB, RTX6000, RTX2080Ti)");
        goto out;
    }
    for (int a = 0; a < elastic_napps(e); a++) {
        const elastic_app *any = NULL;
        for (int q = 0; q < ng && any == NULL; q++)
            any = elastic_get(e, a, gpus[q]);
        if (any == NULL)
            continue;
        for (int k = 0; k < elastic_nbsz(any); k++) {
            int bsz = elastic_bsz(any, k);
            char name[JT_NAME_MAX];
            if (siaprof_type_name(name, sizeof name, elastic_app_name(e, a), bsz) < 0) {
                err_input(err, apps_json, 0, "name", "application name '%s' too long",
                          elastic_app_name(e, a));
                goto out;
            }
            /* the validation files are the application's, the same on every GPU type */
            double s = steps_at(any, bsz, err);
            if (s < 0)
                goto out;
            int jt = tput_add_steps_type(t, name, bsz, s, err);
            if (jt < 0)
                goto out;
            for (int q = 0; q < ng; q++) {
                const elastic_app *ap = elastic_get(e, a, gpus[q]);
                for (int n = 1; n <= SIAPROF_MAX_WORKERS; n++)
                    for (int spread = 0; spread <= (n > 1); spread++) {
                        int p[SIAPROF_MAX_WORKERS];
                        int m = placement_of(n, per_node[q], spread, p);
                        double r = ap != NULL ? rate_of(ap, bsz, s, n, p, m) : 0;
                        if (tput_put_measured(t, jt, gpus[q], n, spread, r, err) < 0)
                            goto out;
                    }
            }
        }
    }
    rc = 0;
out:
    elastic_destroy(e);
    return rc;
}
