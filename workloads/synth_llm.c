/*
 * synth_llm: synthetic LLM requests drawn with GSL, streamed one by one.
 *   arrivals  "poisson" (exponential gaps of mean 1 / rate_per_s) or "gamma" (gamma gaps of
 *             that mean and coefficient of variation "cv": bursts when cv > 1)  ("arrivals")
 *   prompt    lognormal tokens: { "median", "sigma", "min", "max" }, rounded, clamped
 *                                                                              ("prompt_tokens")
 *   output    the same for output tokens                                      ("output_tokens")
 *   class     the requests' class (default "synthetic")
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

#include "../sim/base/rng.h"
#include "../sim/serve/request.h"
#include "reader.h"

struct lendist {
    double median, sigma, lo, hi;
};

struct lst {
    int64_t        n, made;
    double         mean_gap, cv, t;
    int            gamma;
    struct lendist prompt, output;
    gsl_rng       *r_arr, *r_prompt, *r_out;
    char           cls[64];
    const char    *origin;      /* the experiment file and the line of the workload, for */
    long           line;        /* errors about a drawn request */
};

static void lst_close(void *p)
{
    struct lst *s = p;
    gsl_rng *rs[] = { s->r_arr, s->r_prompt, s->r_out };
    for (int i = 0; i < 3; i++)
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

static int lst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    (void)c;
    (void)err;
    struct lst *s = p;
    struct request_spec *out = spec;
    if (s->made == s->n)
        return 0;
    if (s->made > 0)
        s->t += s->gamma ? gsl_ran_gamma(s->r_arr, 1 / (s->cv * s->cv),
                                         s->mean_gap * s->cv * s->cv)
                         : gsl_ran_exponential(s->r_arr, s->mean_gap);
    *out = (struct request_spec){ .id = s->made, .arrival = sim_from_sec(s->t),
                                  .prompt = draw(s->r_prompt, &s->prompt),
                                  .output = draw(s->r_out, &s->output), .cls = s->cls,
                                  .origin = s->origin, .line = s->line,
                                  .prompt_field = "workload.prompt" };
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
    if (d->hi < d->lo) {
        char p[64];
        snprintf(p, sizeof p, "workload.%s.max", key);
        return jsonf_error(o.doc, cJSON_GetObjectItemCaseSensitive(o.node, "max"), p, err,
                           "%g is below min (%g)", d->hi, d->lo);
    }
    d->lo = ceil(d->lo);
    d->hi = floor(d->hi);
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
    if (!s->gamma && cJSON_GetObjectItemCaseSensitive(cfg->node, "cv") != NULL) {
        free(s);
        return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "cv"),
                           "workload.cv", err, "only gamma arrivals have a coefficient of "
                           "variation (\"arrivals\": \"gamma\")");
    }
    if (reader_blank(cls) || strlen(cls) >= sizeof s->cls) {
        free(s);
        return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "class"),
                           "workload.class", err, "a class is a name of 1 to 63 characters");
    }
    snprintf(s->cls, sizeof s->cls, "%s", cls);
    jsonf_where(cfg->doc, cfg->node, &s->origin, &s->line);
    s->mean_gap = 1 / rate;
    s->r_arr = rng_stream(c->seed, "arrivals");
    s->r_prompt = rng_stream(c->seed, "prompt_tokens");
    s->r_out = rng_stream(c->seed, "output_tokens");
    if (s->r_arr == NULL || s->r_prompt == NULL || s->r_out == NULL) {
        lst_close(s);
        return err_run(err, "out of memory");
    }
    *r = (struct reader){ s, lst_next, lst_close };
    return 0;
}

static const char *const keys[] = { "requests", "rate_per_s", "arrivals", "cv", "prompt",
                                    "output", "class", NULL };

const struct workload_format synth_llm_format = {
    .name = "llm_synthetic",
    .domain = "serving",
    .arrival_at = offsetof(struct request_spec, arrival),
    .summary = "synthetic LLM requests: Poisson or gamma arrivals, lognormal prompt and output "
               "lengths (defaults fitted to the Azure trace)",
    .flags = FORMAT_SEEDED,
    .keys = keys,
    .open = lst_open,
};
