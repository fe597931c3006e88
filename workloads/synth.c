/*
 * synth: a synthetic training workload drawn with GSL, streamed job by job.
 *   arrivals  Poisson process: exponential gaps of mean 3600 / rate_per_hour s  (stream "arrivals")
 *   job type  the workload's job_types mix                                      ("job_types")
 *   workers   {"1": 0.7, "4": 0.3}: GPU counts with weights (default all 1)      ("workers")
 *   duration  on the reference GPU: lognormal (median_s, sigma), exponential (mean_s) or
 *             uniform (min_s, max_s), then clamped to [clamp_min_s, clamp_max_s] ("durations")
 *   user      uniform over `users` tenants (default 1)                          ("users")
 *   elastic   "min_workers" / "max_workers": every job runs on [min(min_workers, workers),
 *             max(max_workers, workers)] GPUs (default: rigid, exactly `workers`)
 * or, with "tenants": [{"name": ..., "weight": w, "job_types": {...}}, ...], each job belongs
 * to a tenant drawn by weight ("users") and draws its type from that tenant's own mix
 * ("job_types"); the user number is the tenant's position in the list.
 *   start     "empty" (default): the cluster starts idle and fills up; "stationary": it starts
 *             as a cluster that has run this workload for ever would look, so that a short
 *             trace measures the same load as a long one.  The jobs in progress at time 0
 *             are those of the infinite-server queue of these arrivals and durations: their
 *             number is Poisson with mean rate x E[duration] (the clamped duration's mean, in
 *             closed form), and each one's remaining duration on the reference GPU is drawn
 *             from the equilibrium (residual-life) law — a length-biased duration (drawn by
 *             rejection: a duration d is kept with probability d / the largest duration)
 *             times a uniform fraction — with the stream "stationary".  They all arrive at
 *             0 with their remaining work, count towards "jobs", and the Poisson arrivals
 *             follow them, from 0, as they would without them.  Slower GPUs and queueing
 *             make the real population larger than the infinite-server one; what remains
 *             of the warm-up is that difference settling.  Needs bounded durations: the
 *             largest over the mean at most 10^3 (a rejection draw takes that many tries).
 * Checked beyond types and ranges: worker-count keys are plain decimals ("8", not "08" or
 * "+8"), each once; a duration names only its distribution's parameters; tenant names are
 * distinct; "users" and "tenants" exclude each other.
 * Each quantity has its own stream, so changing e.g. the worker mix leaves arrival times as
 * they were.  The first job arrives at time 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "../sim/base/rng.h"
#include "../sim/train/train.h"
#include "reader.h"
#include "synth.h"

enum { D_LOGNORMAL = SYNTH_LOGNORMAL, D_EXPONENTIAL = SYNTH_EXPONENTIAL, D_UNIFORM = SYNTH_UNIFORM,
       MAX_TENANTS = 64 };

/* the stationary start's rejection sampler: the largest duration over the mean, at most */
#define MAX_TRIES_PER_DRAW 1e3

struct tenant {
    int                 n;
    int                *types;
    double             *weights;
    gsl_ran_discrete_t *tab;
};

struct sst {
    int64_t  jobs, made;
    int64_t  initial;       /* the stationary start's jobs in progress at 0 (0: empty start) */
    double   dur_max;       /* the largest duration the clamped law gives */
    double   gap_mean_s, t;
    int      nworkers;
    int     *workers;
    double  *wweights;
    char   **wfield;        /* "workload.workers.8", and its line, for error messages */
    long    *wline;
    char    *origin;        /* the experiment file */
    char     mixfield[JOBJ_FIELD_MAX];  /* the job-type mix's field, for errors of a draw */
    int      dist;
    double   a, b, clamp_lo, clamp_hi;
    int64_t  users;
    int64_t  min_all, max_all;      /* the elastic range, 0: rigid */
    gsl_rng *r_arr, *r_type, *r_work, *r_dur, *r_user, *r_stat;
    void    *mix;
    gsl_ran_discrete_t *wtab;
    struct tenant       tenants[MAX_TENANTS];
    int                 ntenants;
    double              tweights[MAX_TENANTS];
    gsl_ran_discrete_t *ttab;
};

static void sst_close(void *p)
{
    struct sst *s = p;
    gsl_rng *rs[] = { s->r_arr, s->r_type, s->r_work, s->r_dur, s->r_user, s->r_stat };
    for (int i = 0; i < 6; i++)
        if (rs[i])
            gsl_rng_free(rs[i]);
    reader_mix_table_free(s->mix);
    if (s->wtab)
        gsl_ran_discrete_free(s->wtab);
    for (int t = 0; t < s->ntenants; t++) {
        free(s->tenants[t].types);
        free(s->tenants[t].weights);
        if (s->tenants[t].tab)
            gsl_ran_discrete_free(s->tenants[t].tab);
    }
    if (s->ttab)
        gsl_ran_discrete_free(s->ttab);
    for (int i = 0; s->wfield != NULL && i < s->nworkers; i++)
        free(s->wfield[i]);
    free(s->wfield);
    free(s->wline);
    free(s->origin);
    free(s->workers);
    free(s->wweights);
    free(s);
}

static double draw_duration(const struct sst *s, gsl_rng *r)
{
    double d;
    switch (s->dist) {
    case D_LOGNORMAL:   d = gsl_ran_lognormal(r, log(s->a), s->b); break;
    case D_EXPONENTIAL: d = gsl_ran_exponential(r, s->a); break;
    default:            d = gsl_ran_flat(r, s->a, s->b); break;
    }
    return fmin(fmax(d, s->clamp_lo), s->clamp_hi);
}

/* lo P(D < lo) + E[D; lo <= D <= hi] + hi P(D > hi) */
double synth_clamped_mean(enum synth_dist dist, double a, double b, double lo, double hi)
{
    switch (dist) {
    case D_LOGNORMAL: {
        double mu = log(a), s = b;
        if (s == 0)
            return fmin(fmax(a, lo), hi);
        double zl = (log(lo) - mu) / s, zh = (log(hi) - mu) / s;
        return lo * gsl_cdf_ugaussian_P(zl) + hi * gsl_cdf_ugaussian_Q(zh) +
               exp(mu + s * s / 2) * (gsl_cdf_ugaussian_P(zh - s) - gsl_cdf_ugaussian_P(zl - s));
    }
    case D_EXPONENTIAL:     /* lo + E[(D - lo)+] - E[(D - hi)+] */
        return lo + a * (exp(-lo / a) - exp(-hi / a));
    default: {
        if (b == a)
            return fmin(fmax(a, lo), hi);
        double l = fmin(fmax(a, lo), b), h = fmax(fmin(b, hi), a);   /* l <= h in [a, b] */
        return (lo * (l - a) + (h * h - l * l) / 2 + hi * (b - h)) / (b - a);
    }
    }
}

/* The remaining duration of a job in progress in the stationary queue: U x a length-biased
 * duration, the length bias by rejection against the largest duration. */
static double draw_residual(struct sst *s)
{
    double d;
    do
        d = draw_duration(s, s->r_stat);
    while (gsl_rng_uniform(s->r_stat) * s->dur_max >= d);
    return gsl_rng_uniform_pos(s->r_stat) * d;
}

static int sst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct job_spec *out = spec;
    struct sst *s = p;
    if (s->made == s->jobs)
        return 0;
    int in_progress = s->made < s->initial;
    if (s->made > s->initial)
        s->t += gsl_ran_exponential(s->r_arr, s->gap_mean_s);
    int jt, user = 0;
    if (s->ntenants > 0) {
        user = (int)gsl_ran_discrete(s->r_user, s->ttab);
        const struct tenant *tn = &s->tenants[user];
        jt = tn->types[gsl_ran_discrete(s->r_type, tn->tab)];
    } else {
        jt = reader_mix_draw(c, s->r_type, s->mix);
        if (s->users > 1)
            user = (int)gsl_rng_uniform_int(s->r_user, (unsigned long)s->users);
    }
    size_t wi = gsl_ran_discrete(s->r_work, s->wtab);
    int workers = s->workers[wi];
    double dur = in_progress ? draw_residual(s) : draw_duration(s, s->r_dur);
    double work = reader_work_from_duration(c->model, jt, c->ref_gpu, workers, dur);
    if (!(work > 0))
        return err_input(err, s->origin, 0, s->mixfield,
                         "job type '%s' cannot run on %d x %s (the reference GPU)",
                         tput_type(c->model, jt)->name, workers,
                         catalog_gpu(tput_catalog(c->model), c->ref_gpu)->name);
    *out = (struct job_spec){ .id = s->made, .arrival = sim_from_sec(s->t), .jtype = jt,
                              .workers = workers, .work = work, .user = user, .weight = 1,
                              .min_workers = s->min_all <= 0 ? 0
                                             : s->min_all < workers ? (int32_t)s->min_all
                                                                    : workers,
                              .max_workers = s->max_all <= 0 ? 0
                                             : s->max_all > workers ? (int32_t)s->max_all
                                                                    : workers,
                              .origin = s->origin, .line = s->wline[wi],
                              .field = s->wfield[wi] };
    s->made++;
    return 1;
}

static int read_workers(struct sst *s, const struct jobj *cfg, struct errbuf *err)
{
    struct jobj w;
    if (jobj_obj(&w, cfg, "workers", JOPT, err) < 0)
        return -1;
    int n = w.node ? cJSON_GetArraySize(w.node) : 1;
    const char *file;
    long line;
    jsonf_where(cfg->doc, w.node ? w.node : cfg->node, &file, &line);
    s->workers = calloc((size_t)(n ? n : 1), sizeof *s->workers);
    s->wweights = calloc((size_t)(n ? n : 1), sizeof *s->wweights);
    s->wfield = calloc((size_t)(n ? n : 1), sizeof *s->wfield);
    s->wline = calloc((size_t)(n ? n : 1), sizeof *s->wline);
    s->origin = strdup(file);
    if (s->workers == NULL || s->wweights == NULL || s->wfield == NULL || s->wline == NULL ||
        s->origin == NULL)
        return err_run(err, "out of memory");
    if (w.node == NULL) {
        s->workers[0] = 1;
        s->wweights[0] = 1;
        s->wline[0] = line;
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
        if (e->string[0] < '1' || e->string[0] > '9' || *end != '\0' || v < 1 || v > 1000000)
            return jsonf_error(cfg->doc, e, p, err, "keys must be GPU counts >= 1, written "
                               "plainly (\"8\", not \"08\")");
        for (int k = 0; k < i; k++)
            if (s->workers[k] == (int)v)
                return jsonf_error(cfg->doc, e, p, err, "%ld GPUs given twice", v);
        s->workers[i] = (int)v;
        s->nworkers = i + 1;    /* what sst_close frees */
        jsonf_where(cfg->doc, e, &file, &s->wline[i]);
        if ((s->wfield[i] = strdup(p)) == NULL)
            return err_run(err, "out of memory");
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
    /* the parameters of each distribution, in dists[] order */
    static const char *const params[][3] = { { "median_s", "sigma", NULL },
                                             { "mean_s", NULL, NULL },
                                             { "min_s", "max_s", NULL } };
    for (const cJSON *m = d.node->child; m != NULL; m = m->next) {
        int own = strcmp(m->string, "dist") == 0 || strncmp(m->string, "clamp_", 6) == 0;
        for (int k = 0; !own && params[s->dist][k] != NULL; k++)
            own = strcmp(m->string, params[s->dist][k]) == 0;
        if (!own) {
            char p[256];
            snprintf(p, sizeof p, "%s.%s", d.path, m->string);
            return jsonf_error(cfg->doc, m, p, err, "not a parameter of the %s distribution "
                               "(it takes %s%s%s)", dists[s->dist], params[s->dist][0],
                               params[s->dist][1] ? " and " : "",
                               params[s->dist][1] ? params[s->dist][1] : "");
        }
    }
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

static int read_tenants(struct sst *s, struct reader_common *c, const struct jobj *cfg,
                        struct errbuf *err)
{
    static const char *const keys[] = { "name", "weight", "job_types", "note", NULL };
    const cJSON *arr;
    if (jobj_arr(cfg, "tenants", JOPT, &arr, err) < 0)
        return -1;
    if (arr == NULL)
        return 0;
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj t;
        if (i == MAX_TENANTS)
            return jsonf_error(cfg->doc, e, JOBJ_FIELD(cfg, "tenants"), err, "at most %d tenants",
                               MAX_TENANTS);
        struct tenant *tn = &s->tenants[i];
        s->tweights[i] = 1;
        s->ntenants = i + 1;
        const char *name = NULL, *note;
        if (jobj_elem(&t, cfg, "tenants", e, i, err) < 0 || jobj_known(&t, keys, err) < 0 ||
            jobj_str(&t, "name", JOPT, &name, err) < 0 ||
            jobj_str(&t, "note", JOPT, &note, err) < 0 ||
            jobj_num(&t, "weight", JOPT, 0, 1e12, &s->tweights[i], err) < 0 ||
            reader_read_mix(&t, "job_types", c->model, &tn->types, &tn->weights, &tn->n, err) < 0)
            return -1;
        for (const cJSON *o = arr->child; name != NULL && o != e; o = o->next) {
            const cJSON *on = cJSON_GetObjectItemCaseSensitive(o, "name");
            if (cJSON_IsString(on) && strcmp(on->valuestring, name) == 0) {
                char p[256];
                snprintf(p, sizeof p, "%s.name", t.path);
                return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(e, "name"), p,
                                   err, "two tenants are named '%s'", name);
            }
        }
        if (tn->n == 0) {
            char p[256];
            snprintf(p, sizeof p, "%s.job_types", t.path);
            return jsonf_error(cfg->doc, e, p, err, "required field is missing");
        }
        if ((tn->tab = gsl_ran_discrete_preproc((size_t)tn->n, tn->weights)) == NULL)
            return err_run(err, "out of memory");
    }
    if (s->ntenants == 0)
        return jsonf_error(cfg->doc, arr, JOBJ_FIELD(cfg, "tenants"), err,
                           "needs at least one tenant");
    double sum = 0;
    for (i = 0; i < s->ntenants; i++)
        sum += s->tweights[i];
    if (!(sum > 0))
        return jsonf_error(cfg->doc, arr, JOBJ_FIELD(cfg, "tenants"), err,
                           "tenant weights must not all be zero");
    if ((s->ttab = gsl_ran_discrete_preproc((size_t)s->ntenants, s->tweights)) == NULL)
        return err_run(err, "out of memory");
    return 0;
}

/* The stationary start: how many jobs are in progress at 0, and the largest duration. */
static int open_stationary(struct sst *s, const struct jobj *cfg, uint64_t seed, double rate,
                           struct errbuf *err)
{
    s->dur_max = s->dist == D_UNIFORM ? fmin(fmax(s->b, s->clamp_lo), s->clamp_hi)
                                      : s->clamp_hi;
    double mean = synth_clamped_mean(s->dist, s->a, s->b, s->clamp_lo, s->clamp_hi);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(cfg->node, "start");
    if (!(mean > 0) || s->dur_max / mean > MAX_TRIES_PER_DRAW)
        return jsonf_error(cfg->doc, st, JOBJ_FIELD(cfg, "start"), err, "a stationary start needs "
                           "bounded durations: the largest (%g s) is %.3g times the mean "
                           "(%.3g s), more than %g; give a lower duration.clamp_max_s",
                           s->dur_max, s->dur_max / mean, mean, MAX_TRIES_PER_DRAW);
    if ((s->r_stat = rng_stream(seed, "stationary")) == NULL)
        return err_run(err, "out of memory");
    double m = rate / 3600.0 * mean;       /* Little's law on the infinite-server queue */
    double n = m < 1e6 ? (double)gsl_ran_poisson(s->r_stat, m)
                       : fmax(0, floor(m + sqrt(m) * gsl_ran_ugaussian(s->r_stat) + 0.5));
    s->initial = n < (double)s->jobs ? (int64_t)n : s->jobs;
    return 0;
}

static int sst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    if (c->nmix == 0 && cJSON_GetObjectItemCaseSensitive(cfg->node, "tenants") == NULL)
        return jsonf_error(cfg->doc, cfg->node, JOBJ_FIELD(cfg, "job_types"), err, "the synthetic "
                           "format needs a job-type mix: {\"name\": weight, ...}");
    struct sst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    double rate = 0;
    int start = 0;
    static const char *const starts[] = { "empty", "stationary", NULL };
    s->users = 1;
    jobj_field(cfg, "job_types", s->mixfield, sizeof s->mixfield);
    if (jobj_int(cfg, "jobs", JREQ, 1, INT64_C(1) << 40, &s->jobs, err) < 0 ||
        jobj_num(cfg, "rate_per_hour", JREQ, 1e-6, 1e9, &rate, err) < 0 ||
        jobj_int(cfg, "users", JOPT, 1, 1000000, &s->users, err) < 0 ||
        jobj_int(cfg, "min_workers", JOPT, 1, 1000000, &s->min_all, err) < 0 ||
        jobj_int(cfg, "max_workers", JOPT, 1, 1000000, &s->max_all, err) < 0 ||
        jobj_enum(cfg, "start", JOPT, starts, &start, err) < 0 ||
        read_workers(s, cfg, err) < 0 || read_duration(s, cfg, err) < 0 ||
        read_tenants(s, c, cfg, err) < 0)
        goto fail;
    if (s->ntenants > 0 && c->nmix > 0) {
        jsonf_error(cfg->doc, cfg->node, JOBJ_FIELD(cfg, "tenants"), err,
                    "give either a job_types mix or tenants with their own mixes, not both");
        goto fail;
    }
    if (s->ntenants > 0 && cJSON_GetObjectItemCaseSensitive(cfg->node, "users") != NULL) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "users"),
                    JOBJ_FIELD(cfg, "users"), err, "give either users or tenants, not both (with "
                    "tenants, the user is the tenant)");
        goto fail;
    }
    if (s->min_all > 0 && s->max_all > 0 && s->min_all > s->max_all) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "min_workers"),
                    JOBJ_FIELD(cfg, "min_workers"), err, "%lld is more than max_workers %lld",
                    (long long)s->min_all, (long long)s->max_all);
        goto fail;
    }
    s->gap_mean_s = 3600.0 / rate;
    if (start == 1 && open_stationary(s, cfg, c->seed, rate, err) < 0)
        goto fail;
    s->r_arr = rng_stream(c->seed, "arrivals");
    s->r_type = rng_stream(c->seed, "job_types");
    s->r_work = rng_stream(c->seed, "workers");
    s->r_dur = rng_stream(c->seed, "durations");
    s->r_user = rng_stream(c->seed, "users");
    s->mix = c->nmix > 0 ? reader_mix_table(c) : NULL;
    s->wtab = gsl_ran_discrete_preproc((size_t)s->nworkers, s->wweights);
    if (!s->r_arr || !s->r_type || !s->r_work || !s->r_dur || !s->r_user || !s->wtab ||
        (c->nmix > 0 && !s->mix)) {
        err_run(err, "out of memory");
        goto fail;
    }
    *r = (struct reader){ s, sst_next, sst_close };
    return 0;
fail:
    sst_close(s);
    return -1;
}

static const char *const synth_keys[] = { "jobs", "rate_per_hour", "start", "workers", "duration",
                                          "users", "tenants", "min_workers", "max_workers",
                                          NULL };

const struct workload_format synth_format = {
    .name = "synthetic",
    .domain = "training",
    .arrival_at = offsetof(struct job_spec, arrival),
    .summary = "Poisson arrivals with job-type, worker-count and duration distributions, "
               "optionally per tenant",
    .flags = FORMAT_DURATIONS | FORMAT_MIX | FORMAT_SEEDED,
    .keys = synth_keys,
    .open = sst_open,
};
