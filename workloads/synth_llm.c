/*
 * synth_llm: synthetic LLM requests drawn with GSL, streamed one by one.
 *   arrivals  "poisson" (exponential gaps of mean 1 / rate_per_s) or "gamma" (gamma gaps of
 *             that mean and coefficient of variation "cv": bursts when cv > 1)  ("arrivals")
 *   prompt    lognormal tokens: { "median", "sigma", "min", "max" }, rounded, clamped
 *                                                                              ("prompt_tokens")
 *   output    the same for output tokens                                      ("output_tokens")
 *   class     the requests' class (default "synthetic")
 *   day       a rate envelope over the day (Poisson arrivals only): the rate at time of day
 *             tod is rate_per_s * f(tod), f of mean 1 over a day (workloads/dayrate.h),
 *             given as one of: a sine of "peak_to_trough" ratio r (f = 1 + a cos(2 pi (tod -
 *             peak) / 1 day), a = (r - 1) / (r + 1): f's largest over its smallest is r)
 *             peaking at "peak_hour"; "hourly": n >= 1 rates (any unit, spread evenly over
 *             the day, each held for 24/n hours, scaled to mean 1); or "rates_file": a CSV
 *             rate series (hour,rate rows: each rate held from its hour to the next row's,
 *             the last wrapping past midnight to the first, scaled to time-weighted mean 1;
 *             a relative path is looked for next to the experiment first).  "start_hour" is
 *             the time of day at time 0.
 *             Arrivals are a non-homogeneous Poisson process drawn by thinning (Lewis and
 *             Shedler): candidates at the envelope's peak rate, each kept with probability
 *             f(tod) / max f, the draws of that choice on a stream of their own
 *             ("arrivals_day"); the first request is drawn so too, not put at time 0.
 *             Defaults: r = 2, peak at 14:00, start at 00:00 — an
 *             assumption, not a fit: the Azure trace here covers one hour, which has no
 *             daily shape; give the ratio and peak of the traffic you model, or its hours.
 * The defaults are the maximum-likelihood lognormal fits of the Azure LLM inference trace
 * (code, 2023; CC-BY 4.0): prompts median 1095 tokens, sigma 1.360, clamped to its range
 * [3, 7437]; outputs median 16.25, sigma 0.847, in [6, 1899]; its arrivals, 2.57 a second,
 * have a gap coefficient of variation of 13.2 (tests/test_synth_llm.c refits them from the
 * trace).  Each quantity has its own stream; the first request arrives at time 0.  Memory is
 * constant: a million requests cost nothing to hold.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/base/path.h"
#include "../sim/base/rng.h"
#include "../sim/serve/request.h"
#include "dayrate.h"
#include "reader.h"

struct lendist {
    double median, sigma, lo, hi;
};

struct day {
    int            on;
    double         start_s;     /* the time of day at t = 0 */
    struct dayrate f;
};

struct lst {
    int64_t        n, made;
    double         mean_gap, cv, t;
    int            gamma;
    struct day     day;
    gsl_rng       *r_day;
    struct lendist prompt, output;
    gsl_rng       *r_arr, *r_prompt, *r_out;
    char           cls[64];
    const char    *origin;      /* the experiment file, the line of the workload and its */
    long           line;        /* prompt's field, for errors about a drawn request */
    char           prompt_field[JOBJ_FIELD_MAX];
};

static void lst_close(void *p)
{
    struct lst *s = p;
    gsl_rng *rs[] = { s->r_arr, s->r_prompt, s->r_out, s->r_day };
    for (int i = 0; i < 4; i++)
        if (rs[i] != NULL)
            gsl_rng_free(rs[i]);
    free(s);
}

static int32_t draw(gsl_rng *r, const struct lendist *d)
{
    double x = round(d->median * exp(d->sigma * gsl_ran_gaussian_ziggurat(r, 1)));
    if (x < d->lo)
        x = d->lo;
    if (x > d->hi)
        x = d->hi;
    return (int32_t)x;
}

/* The envelope at time t (seconds from the start). */
static double day_f(const struct day *d, double t)
{
    return dayrate_f(&d->f, fmod(d->start_s + t, DAYRATE_DAY_S));
}

static int lst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    (void)c;
    (void)err;
    struct lst *s = p;
    struct request_spec *out = spec;
    if (s->made == s->n)
        return 0;
    if (s->day.on) {            /* the first request too: the envelope may start at 0 */
        /* thinning: candidates at the peak rate, kept in proportion to the envelope */
        double gap = s->mean_gap / s->day.f.fmax;
        do
            s->t += gsl_ran_exponential(s->r_arr, gap);
        while (gsl_rng_uniform(s->r_day) * s->day.f.fmax >= day_f(&s->day, s->t));
    } else if (s->made > 0) {
        s->t += s->gamma ? gsl_ran_gamma(s->r_arr, 1 / (s->cv * s->cv),
                                         s->mean_gap * s->cv * s->cv)
                         : gsl_ran_exponential(s->r_arr, s->mean_gap);
    }
    *out = (struct request_spec){ .id = s->made, .arrival = sim_from_sec(s->t),
                                  .prompt = draw(s->r_prompt, &s->prompt),
                                  .output = draw(s->r_out, &s->output), .cls = s->cls,
                                  .origin = s->origin, .line = s->line,
                                  .prompt_field = s->prompt_field };
    s->made++;
    return 1;
}

static int read_len(const struct jobj *cfg, const char *key, struct lendist *d,
                    struct errbuf *err)
{
    static const char *const keys[] = { "median", "sigma", "min", "max", "note", NULL };
    struct jobj o;
    const char *note;
    if (jobj_obj(&o, cfg, key, JOPT, err) < 0)
        return -1;
    if (o.node == NULL)
        return 0;
    if (jobj_known(&o, keys, err) < 0 ||
        jobj_num(&o, "median", JOPT, 1, 1e7, &d->median, err) < 0 ||
        jobj_num(&o, "sigma", JOPT, 0, 10, &d->sigma, err) < 0 ||
        jobj_num(&o, "min", JOPT, 1, 1e7, &d->lo, err) < 0 ||
        jobj_num(&o, "max", JOPT, 1, 1e7, &d->hi, err) < 0 ||
        jobj_str(&o, "note", JOPT, &note, err) < 0)
        return -1;
    if (d->hi < d->lo)
        return jsonf_error(o.doc, cJSON_GetObjectItemCaseSensitive(o.node, "max"),
                           JOBJ_FIELD(&o, "max"), err, "%g is below min (%g)", d->hi, d->lo);
    d->lo = ceil(d->lo);
    d->hi = floor(d->hi);
    return 0;
}

/* "day": the envelope (see the top); a relative rates_file is resolved against base_dir. */
static int read_day(const struct jobj *cfg, int gamma, const char *base_dir, struct day *d,
                    struct errbuf *err)
{
    static const char *const keys[] = { "peak_to_trough", "peak_hour", "start_hour", "hourly",
                                        "rates_file", "note", NULL };
    struct jobj o;
    const char *note, *file = NULL;
    double ratio = 2, peak_h = 14, start_h = 0;
    const cJSON *hourly = NULL;
    if (jobj_obj(&o, cfg, "day", JOPT, err) < 0)
        return -1;
    if (o.node == NULL)
        return 0;
    if (jobj_known(&o, keys, err) < 0 ||
        jobj_num(&o, "peak_to_trough", JOPT, 1, 1e6, &ratio, err) < 0 ||
        jobj_num(&o, "peak_hour", JOPT, 0, 24, &peak_h, err) < 0 ||
        jobj_num(&o, "start_hour", JOPT, 0, 24, &start_h, err) < 0 ||
        jobj_arr(&o, "hourly", JOPT, &hourly, err) < 0 ||
        jobj_str(&o, "rates_file", JOPT, &file, err) < 0 ||
        jobj_str(&o, "note", JOPT, &note, err) < 0)
        return -1;
    if (gamma)
        return jsonf_error(o.doc, o.node, o.path, err, "a day's envelope shapes Poisson arrivals "
                           "(\"arrivals\": \"poisson\"), not gamma ones");
    /* one shape: the sine (either of its fields), hourly or rates_file */
    const cJSON *given[3] = { cJSON_GetObjectItemCaseSensitive(o.node, "peak_to_trough"),
                              hourly, cJSON_GetObjectItemCaseSensitive(o.node, "rates_file") };
    if (given[0] == NULL)
        given[0] = cJSON_GetObjectItemCaseSensitive(o.node, "peak_hour");
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (given[i] != NULL && given[j] != NULL)
                return jsonf_error(o.doc, given[j], o.path, err, "give one shape: the sine's "
                                   "peak_to_trough and peak_hour, hourly rates or a rates_file "
                                   "(%s and %s are both given)", given[i]->string,
                                   given[j]->string);
    *d = (struct day){ .on = 1, .start_s = start_h * 3600 };
    if (file != NULL) {
        char path[PATH_MAX_LEN];
        if (path_resolve(path, sizeof path, base_dir, file) < 0)
            return jsonf_error(o.doc, given[2], JOBJ_FIELD(&o, "rates_file"), err,
                               "file '%s' not found (looked next to the experiment, in the "
                               "current directory and under %s)", file, path_data_root());
        return dayrate_read(&d->f, path, err);
    }
    if (hourly == NULL) {
        dayrate_sine(&d->f, ratio, peak_h);
        return 0;
    }
    int n = cJSON_GetArraySize(hourly), i = 0;
    if (n < 1 || n > DAYRATE_MAX_STEPS)
        return jsonf_error(o.doc, hourly, JOBJ_FIELD(&o, "hourly"), err,
                           "1 to %d rates over the day", DAYRATE_MAX_STEPS);
    double hour[DAYRATE_MAX_STEPS], rate[DAYRATE_MAX_STEPS];
    for (const cJSON *e = hourly->child; e != NULL; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0) {
            char rel[32];
            snprintf(rel, sizeof rel, "hourly[%d]", i);
            return jsonf_error(o.doc, e, JOBJ_FIELD(&o, rel), err,
                               "a rate is a number >= 0");
        }
        hour[i] = 24.0 * i / n;
        rate[i] = e->valuedouble;
    }
    int rc = dayrate_steps(&d->f, hour, rate, n);
    if (rc < 0)
        return jsonf_error(o.doc, hourly, JOBJ_FIELD(&o, "hourly"), err, "%s",
                           rc == -1 ? "the rates are all 0: no request would ever arrive"
                                    : "the rates cannot be scaled to mean 1 (too large or too "
                                      "small to hold in a double)");
    return 0;
}

static int lst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    static const char *const arrivals[] = { "poisson", "gamma", NULL };
    struct lst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->prompt = (struct lendist){ 1095, 1.360, 3, 7437 };
    s->output = (struct lendist){ 16.25, 0.847, 6, 1899 };
    s->cv = 1;
    double rate = 0;
    const char *cls = "synthetic";
    if (jobj_int(cfg, "requests", JREQ, 1, INT64_C(1) << 40, &s->n, err) < 0 ||
        jobj_num(cfg, "rate_per_s", JREQ, 1e-6, 1e7, &rate, err) < 0 ||
        jobj_enum(cfg, "arrivals", JOPT, arrivals, &s->gamma, err) < 0 ||
        jobj_num(cfg, "cv", JOPT, 1e-3, 1e3, &s->cv, err) < 0 ||
        jobj_str(cfg, "class", JOPT, &cls, err) < 0 || read_len(cfg, "prompt", &s->prompt, err) < 0 ||
        read_len(cfg, "output", &s->output, err) < 0) {
        free(s);
        return -1;
    }
    if (read_day(cfg, s->gamma, c->base_dir, &s->day, err) < 0) {
        free(s);
        return -1;
    }
    if (!s->gamma && cJSON_GetObjectItemCaseSensitive(cfg->node, "cv") != NULL) {
        free(s);
        return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "cv"),
                           JOBJ_FIELD(cfg, "cv"), err, "only gamma arrivals have a coefficient of "
                           "variation (\"arrivals\": \"gamma\")");
    }
    if (reader_blank(cls) || strlen(cls) >= sizeof s->cls) {
        free(s);
        return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "class"),
                           JOBJ_FIELD(cfg, "class"), err,
                           "a class is a name of 1 to 63 characters");
    }
    snprintf(s->cls, sizeof s->cls, "%s", cls);
    jsonf_where(cfg->doc, cfg->node, &s->origin, &s->line);
    jobj_field(cfg, "prompt", s->prompt_field, sizeof s->prompt_field);
    s->mean_gap = 1 / rate;
    s->r_arr = rng_stream(c->seed, "arrivals");
    s->r_prompt = rng_stream(c->seed, "prompt_tokens");
    s->r_out = rng_stream(c->seed, "output_tokens");
    s->r_day = s->day.on ? rng_stream(c->seed, "arrivals_day") : NULL;
    if (s->r_arr == NULL || s->r_prompt == NULL || s->r_out == NULL ||
        (s->day.on && s->r_day == NULL)) {
        lst_close(s);
        return err_run(err, "out of memory");
    }
    *r = (struct reader){ s, lst_next, lst_close };
    return 0;
}

static const char *const keys[] = { "requests", "rate_per_s", "arrivals", "cv", "prompt",
                                    "output", "class", "day", NULL };

const struct workload_format synth_llm_format = {
    .name = "llm_synthetic",
    .domain = "serving",
    .arrival_at = offsetof(struct request_spec, arrival),
    .summary = "synthetic LLM requests: Poisson (optionally over a day's rate envelope) or gamma "
               "arrivals, lognormal prompt and output lengths (defaults fitted to the Azure "
               "trace)",
    .flags = FORMAT_SEEDED,
    .keys = keys,
    .open = lst_open,
};
