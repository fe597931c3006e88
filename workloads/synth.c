/*
 * synth: a synthetic training workload drawn with GSL, streamed job by job.
 *   arrivals  Poisson process: exponential gaps of mean 3600 / rate_per_hour s  (stream "arrivals")
 *   job type  the workload's job_types mix                                      ("job_types")
 *   workers   {"1": 0.7, "4": 0.3}: GPU counts with weights (default all 1)      ("workers")
 *   duration  on the reference GPU: lognormal (median_s, sigma), exponential (mean_s) or
 *             uniform (min_s, max_s), then clamped to [clamp_min_s, clamp_max_s] ("durations")
 *   user      uniform over `users` tenants (default 1)                          ("users")
 * Each quantity has its own stream, so changing e.g. the worker mix leaves arrival times as
 * they were.  The first job arrives at time 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/rng.h"
#include "wl_int.h"

enum { D_LOGNORMAL, D_EXPONENTIAL, D_UNIFORM };

struct sst {
    int64_t  jobs, made;
    double   gap_mean_s, t;
    int      nworkers;
    int     *workers;
    double  *wweights;
    int      dist;
    double   a, b, clamp_lo, clamp_hi;
    int64_t  users;
    gsl_rng *r_arr, *r_type, *r_work, *r_dur, *r_user;
    void    *mix;
    gsl_ran_discrete_t *wtab;
};

static void sst_close(void *p)
{
    struct sst *s = p;
    gsl_rng *rs[] = { s->r_arr, s->r_type, s->r_work, s->r_dur, s->r_user };
    for (int i = 0; i < 5; i++)
        if (rs[i])
            gsl_rng_free(rs[i]);
    wl_mix_table_free(s->mix);
    if (s->wtab)
        gsl_ran_discrete_free(s->wtab);
    free(s->workers);
    free(s->wweights);
    free(s);
}

static double draw_duration(struct sst *s)
{
    double d;
    switch (s->dist) {
    case D_LOGNORMAL:   d = gsl_ran_lognormal(s->r_dur, log(s->a), s->b); break;
    case D_EXPONENTIAL: d = gsl_ran_exponential(s->r_dur, s->a); break;
    default:            d = gsl_ran_flat(s->r_dur, s->a, s->b); break;
    }
    return fmin(fmax(d, s->clamp_lo), s->clamp_hi);
}

static int sst_next(void *p, struct wl_common *c, struct job_spec *out, struct errbuf *err)
{
    struct sst *s = p;
    if (s->made == s->jobs)
        return 0;
    if (s->made > 0)
        s->t += gsl_ran_exponential(s->r_arr, s->gap_mean_s);
    int jt = wl_mix_draw(c, s->r_type, s->mix);
    int workers = s->workers[gsl_ran_discrete(s->r_work, s->wtab)];
    double dur = draw_duration(s);
    double work = wl_work_from_duration(c->model, jt, c->ref_gpu, workers, dur);
    if (!(work > 0))
        return err_input(err, "synthetic workload", 0, "workload.job_types",
                         "job type '%s' cannot run on %d x %s (the reference GPU)",
                         tput_type(c->model, jt)->name, workers,
                         cat_gpu(tput_catalog(c->model), c->ref_gpu)->name);
    int user = s->users > 1 ? (int)gsl_rng_uniform_int(s->r_user, (unsigned long)s->users) : 0;
    *out = (struct job_spec){ .id = s->made, .arrival = sim_from_sec(s->t), .jtype = jt,
                              .workers = workers, .work = work, .user = user, .weight = 1,
                              .origin = "synthetic workload" };
    s->made++;
    return 1;
}

static int read_workers(struct sst *s, const struct jobj *cfg, struct errbuf *err)
{
    struct jobj w;
    if (jobj_obj(&w, cfg, "workers", JOPT, err) < 0)
        return -1;
    int n = w.node ? cJSON_GetArraySize(w.node) : 1;
    s->workers = calloc((size_t)(n ? n : 1), sizeof *s->workers);
    s->wweights = calloc((size_t)(n ? n : 1), sizeof *s->wweights);
    if (s->workers == NULL || s->wweights == NULL)
        return err_run(err, "out of memory");
    if (w.node == NULL) {
        s->workers[0] = 1;
        s->wweights[0] = 1;
        s->nworkers = 1;
        return 0;
    }
    if (n == 0)
        return jsonf_error(cfg->doc, w.node, w.path, err, "needs at least one worker count");
    int i = 0;
    double sum = 0;
    for (const cJSON *e = w.node->child; e != NULL; e = e->next, i++) {
        char *end;
        long v = strtol(e->string, &end, 10);
        char p[256];
        snprintf(p, sizeof p, "%s.%s", w.path, e->string);
        if (*end != '\0' || v < 1 || v > 1000000)
            return jsonf_error(cfg->doc, e, p, err, "keys must be GPU counts >= 1");
        s->workers[i] = (int)v;
        if (jobj_num(&w, e->string, JREQ, 0, 1e12, &s->wweights[i], err) < 0)
            return -1;
        sum += s->wweights[i];
    }
    if (!(sum > 0))
        return jsonf_error(cfg->doc, w.node, w.path, err, "weights must not all be zero");
    s->nworkers = n;
    return 0;
}

static int read_duration(struct sst *s, const struct jobj *cfg, struct errbuf *err)
{
    static const char *const keys[] = { "dist", "median_s", "sigma", "mean_s", "min_s", "max_s",
                                        "clamp_min_s", "clamp_max_s", NULL };
    static const char *const dists[] = { "lognormal", "exponential", "uniform", NULL };
    struct jobj d;
    if (jobj_obj(&d, cfg, "duration", JREQ, err) < 0 || jobj_known(&d, keys, err) < 0 ||
        jobj_enum(&d, "dist", JREQ, dists, &s->dist, err) < 0)
        return -1;
    s->clamp_lo = 1;
    s->clamp_hi = 1e9;
    int rc;
    switch (s->dist) {
    case D_LOGNORMAL:
        rc = jobj_num(&d, "median_s", JREQ, 1e-3, 1e9, &s->a, err) < 0 ||
             jobj_num(&d, "sigma", JREQ, 0, 20, &s->b, err) < 0;
        break;
    case D_EXPONENTIAL:
        rc = jobj_num(&d, "mean_s", JREQ, 1e-3, 1e9, &s->a, err) < 0;
        break;
    default:
        rc = jobj_num(&d, "min_s", JREQ, 1e-3, 1e9, &s->a, err) < 0 ||
             jobj_num(&d, "max_s", JREQ, 1e-3, 1e9, &s->b, err) < 0;
        if (rc == 0 && s->b < s->a)
            return jsonf_error(cfg->doc, d.node, d.path, err, "max_s must be >= min_s");
    }
    if (rc || jobj_num(&d, "clamp_min_s", JOPT, 1e-3, 1e9, &s->clamp_lo, err) < 0 ||
        jobj_num(&d, "clamp_max_s", JOPT, 1e-3, 1e9, &s->clamp_hi, err) < 0)
        return -1;
    if (s->clamp_hi < s->clamp_lo)
        return jsonf_error(cfg->doc, d.node, d.path, err, "clamp_max_s must be >= clamp_min_s");
    return 0;
}

int wl_synth_open(struct wl_reader *r, struct wl_common *c, const struct jobj *cfg,
                  struct errbuf *err)
{
    struct sst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    double rate = 0;
    s->users = 1;
    if (jobj_int(cfg, "jobs", JREQ, 1, INT64_C(1) << 40, &s->jobs, err) < 0 ||
        jobj_num(cfg, "rate_per_hour", JREQ, 1e-6, 1e9, &rate, err) < 0 ||
        jobj_int(cfg, "users", JOPT, 1, 1000000, &s->users, err) < 0 ||
        read_workers(s, cfg, err) < 0 || read_duration(s, cfg, err) < 0)
        goto fail;
    s->gap_mean_s = 3600.0 / rate;
    s->r_arr = rng_stream(c->seed, "arrivals");
    s->r_type = rng_stream(c->seed, "job_types");
    s->r_work = rng_stream(c->seed, "workers");
    s->r_dur = rng_stream(c->seed, "durations");
    s->r_user = rng_stream(c->seed, "users");
    s->mix = wl_mix_table(c);
    s->wtab = gsl_ran_discrete_preproc((size_t)s->nworkers, s->wweights);
    if (!s->r_arr || !s->r_type || !s->r_work || !s->r_dur || !s->r_user || !s->mix || !s->wtab) {
        err_run(err, "out of memory");
        goto fail;
    }
    *r = (struct wl_reader){ s, sst_next, sst_close };
    return 0;
fail:
    sst_close(s);
    return -1;
}
