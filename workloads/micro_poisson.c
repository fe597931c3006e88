/*
 * micro_poisson: microservice requests from a Poisson process whose rate and graph-type mix
 * change over time, streamed in arrival order.
 *   duration_s      requests arrive in [0, duration_s)
 *   rate_per_s      the rate, times the shape:
 *   rate_shape      [f0, f1, ...]: multipliers at evenly spaced knots over shape_period_s
 *                   (default duration_s), linear between knots and periodic (the last knot
 *                   runs back to the first); default constant 1
 *   rate_file       or the knots from a CSV column (rate_column, default the first), one
 *                   every rate_step_s (default 60)
 *   mix             {"graph": weight, ...} (default: the application's own graph weights)
 *   mix_change      {"every_s", "concentration", "step_s"}: the mix is redrawn from a
 *                   Dirichlet of mean `mix` and concentration c after holds of whole steps
 *                   (exponential of mean every_s, at least one step) — a regime-switching
 *                   mix, as Derm's graph-mix sequences switch
 *   mix_file        or the mixes of a CSV, one row every mix_step_s (default 60, cycled),
 *                   mix_columns {"graph": "column", ...} naming which column is which graph
 *   batch_s         emit, per step of batch_s and graph, one spec of Poisson(expected) requests
 *                   spread over the step (the mix of the step's start), instead of one spec
 *                   per request: the counts of the same process, for the analytical mode
 * Arrivals by thinning a process of the peak rate ("arrivals", "thinning"), graphs drawn from
 * the mix at each arrival ("graphs"), mixes redrawn ("mix").  The declared peak
 * (rate_per_s x the largest knot) goes with every spec, for policies that provision for it.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/base/path.h"
#include "../sim/base/rng.h"
#include "../sim/base/tio.h"
#include "../sim/micro/micro.h"
#include "reader.h"

enum { MAX_GRAPHS = 64, MAX_KNOTS = 1 << 20 };

struct mps {
    double   duration, rate, period, peak;
    double  *knot;
    int      nknot;
    double   maxknot;
    /* the mix */
    int      k;                         /* graphs named (0: the application's weights) */
    char    *name[MAX_GRAPHS];
    long     line[MAX_GRAPHS];
    double   mean[MAX_GRAPHS], cur[MAX_GRAPHS];
    int      change;                    /* regimes */
    double   every, conc, step, regime_end;
    double  *rows;                      /* mix_file: nrows x k */
    int      nrows;
    double   row_step;
    /* the process */
    double   t;
    int64_t  made;
    double   batch;
    int64_t  bstep;
    int      bg;                        /* next graph of the batch step */
    double   bcount[MAX_GRAPHS];
    char    *origin;
    gsl_rng *r_arr, *r_thin, *r_graph, *r_mix;
};

static void mps_close(void *p)
{
    struct mps *s = p;
    for (int g = 0; g < s->k; g++)
        free(s->name[g]);
    free(s->knot);
    free(s->rows);
    free(s->origin);
    if (s->r_arr)
        gsl_rng_free(s->r_arr);
    if (s->r_thin)
        gsl_rng_free(s->r_thin);
    if (s->r_graph)
        gsl_rng_free(s->r_graph);
    if (s->r_mix)
        gsl_rng_free(s->r_mix);
    free(s);
}

static double shape(const struct mps *s, double t)
{
    if (s->nknot == 0)
        return 1;
    double u = fmod(t, s->period) / s->period * s->nknot;
    int i = (int)floor(u);
    if (i >= s->nknot)
        i = s->nknot - 1;
    double f = u - i;
    return s->knot[i] * (1 - f) + s->knot[(i + 1) % s->nknot] * f;
}

static void normalize(double *v, int k)
{
    double t = 0;
    for (int g = 0; g < k; g++)
        t += v[g];
    for (int g = 0; g < k; g++)
        v[g] = t > 0 ? v[g] / t : 1.0 / k;
}

/* the mix in force at t (t never decreases between calls) */
static const double *mix_at(struct mps *s, double t)
{
    if (s->rows != NULL) {
        long r = (long)floor(t / s->row_step) % s->nrows;
        return s->rows + (size_t)r * (size_t)s->k;
    }
    if (s->change) {
        while (t >= s->regime_end) {
            double alpha[MAX_GRAPHS];
            for (int g = 0; g < s->k; g++)
                alpha[g] = s->conc * s->mean[g] > 1e-9 ? s->conc * s->mean[g] : 1e-9;
            gsl_ran_dirichlet(s->r_mix, (size_t)s->k, alpha, s->cur);
            double steps = round(gsl_ran_exponential(s->r_mix, s->every) / s->step);
            s->regime_end += s->step * (steps < 1 ? 1 : steps);
        }
    }
    return s->cur;
}

static int draw_graph(struct mps *s, const double *mix)
{
    double u = gsl_rng_uniform(s->r_graph), c = 0;
    for (int g = 0; g < s->k; g++) {
        c += mix[g];
        if (u < c)
            return g;
    }
    return s->k - 1;
}

/* the expected requests in [a, b) per unit of mix: rate x the shape's integral */
static double expected(const struct mps *s, double a, double b)
{
    enum { N = 64 };
    double h = (b - a) / N, sum = 0;
    for (int i = 0; i < N; i++)
        sum += shape(s, a + (i + 0.5) * h);
    return s->rate * sum * h;
}

static int mps_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    (void)c;
    (void)err;
    struct mps *s = p;
    struct micro_request *out = spec;
    if (s->batch > 0) {
        for (;;) {
            double t0 = (double)s->bstep * s->batch;
            if (t0 >= s->duration)
                return 0;
            double span = s->batch < s->duration - t0 ? s->batch : s->duration - t0;
            if (s->bg == 0) {
                double e = expected(s, t0, t0 + span);
                const double *mix = mix_at(s, t0);
                for (int g = 0; g < s->k; g++)
                    s->bcount[g] = (double)gsl_ran_poisson(s->r_arr, e * mix[g]);
            }
            while (s->bg < s->k && s->bcount[s->bg] == 0)
                s->bg++;
            if (s->bg == s->k) {
                s->bg = 0;
                s->bstep++;
                continue;
            }
            int g = s->bg++;
            *out = (struct micro_request){
                .arrival = sim_from_sec(t0), .id = s->made, .graph = s->name[g],
                .count = (int64_t)s->bcount[g], .span = sim_from_sec(span),
                .peak_rate = s->peak, .origin = s->origin, .line = s->line[g] };
            s->made += (int64_t)s->bcount[g];
            return 1;
        }
    }
    double lmax = s->rate * s->maxknot;
    for (;;) {
        s->t += gsl_ran_exponential(s->r_arr, 1.0 / lmax);
        if (s->t >= s->duration)
            return 0;
        if (gsl_rng_uniform(s->r_thin) * lmax < s->rate * shape(s, s->t))
            break;
    }
    int g = 0;
    double pick = 0;
    if (s->k > 0)
        g = draw_graph(s, mix_at(s, s->t));
    else
        pick = gsl_rng_uniform(s->r_graph);
    *out = (struct micro_request){ .arrival = sim_from_sec(s->t), .id = s->made,
                                   .graph = s->k > 0 ? s->name[g] : NULL, .pick = pick,
                                   .count = 1, .peak_rate = s->peak, .origin = s->origin,
                                   .line = s->k > 0 ? s->line[g] : 0 };
    s->made++;
    return 1;
}

/* one numeric column of a CSV (by name, or the first when name is NULL) into *v */
static int read_column(const char *path, const char *name, const char *field, double **v,
                       int *n, int must_be_positive, struct errbuf *err)
{
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *line, *f[256];
    size_t len;
    int rc = -1, col = -1, cap = 0;
    *v = NULL;
    *n = 0;
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0) {
        if (rc == 0)
            err_input(err, path, 1, field, "empty file: expected a header line");
        rc = -1;
        goto out;
    }
    int nf = tio_split(line, ',', f, 256);
    for (int i = 0; i < nf && i < 256; i++)
        if (name != NULL ? strcmp(f[i], name) == 0 : f[i][0] != '\0') {
            col = i;
            break;
        }
    if (col < 0) {
        err_input(err, path, tio_lineno(r), field, "no column '%s'", name ? name : "");
        rc = -1;
        goto out;
    }
    char colname[128];
    snprintf(colname, sizeof colname, "%s", f[col]);
    while ((rc = tio_next(r, &line, &len, err)) > 0) {
        if (tio_skippable(line))
            continue;
        long ln = tio_lineno(r);
        nf = tio_split(line, ',', f, 256);
        double x;
        if (col >= nf || col >= 256 || tio_double(f[col], &x) < 0 || x < 0 || (must_be_positive && x == 0)) {
            err_input(err, path, ln, colname, "'%s' is not a number >= 0",
                      col < nf ? f[col] : "");
            rc = -1;
            goto out;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            double *nv = realloc(*v, (size_t)cap * sizeof *nv);
            if (nv == NULL) {
                rc = err_run(err, "out of memory");
                goto out;
            }
            *v = nv;
        }
        if (*n >= MAX_KNOTS) {
            rc = err_input(err, path, ln, NULL, "more than %d rows", MAX_KNOTS);
            goto out;
        }
        (*v)[(*n)++] = x;
    }
    if (rc == 0 && *n == 0) {
        err_input(err, path, tio_lineno(r), field, "no rows after the header");
        rc = -1;
    }
out:
    tio_close(r);
    if (rc < 0) {
        free(*v);
        *v = NULL;
    }
    return rc < 0 ? -1 : 0;
}

static int resolve(const struct jobj *cfg, const char *key, const char *rel, const char *base,
                   char *out, struct errbuf *err)
{
    if (path_resolve(out, PATH_MAX_LEN, base, rel) == 0)
        return 0;
    char f[64];
    snprintf(f, sizeof f, "workload.%s", key);
    return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, key), f, err,
                       "file '%s' not found (looked next to the experiment, in the current "
                       "directory and under %s)", rel, path_data_root());
}

static int read_rate(struct mps *s, const struct jobj *cfg, const char *base, struct errbuf *err)
{
    const cJSON *arr = NULL;
    const char *file = NULL, *colname = NULL;
    double step = 60;
    if (jobj_arr(cfg, "rate_shape", JOPT, &arr, err) < 0 ||
        jobj_str(cfg, "rate_file", JOPT, &file, err) < 0 ||
        jobj_str(cfg, "rate_column", JOPT, &colname, err) < 0 ||
        jobj_num(cfg, "rate_step_s", JOPT, 1e-3, 1e9, &step, err) < 0 ||
        jobj_num(cfg, "shape_period_s", JOPT, 1e-3, 1e12, &s->period, err) < 0)
        return -1;
    if (arr != NULL && file != NULL)
        return jsonf_error(cfg->doc, arr, "workload.rate_shape", err, "give rate_shape or "
                           "rate_file, not both");
    if (arr != NULL) {
        int n = cJSON_GetArraySize(arr);
        if (n == 0 || n > MAX_KNOTS)
            return jsonf_error(cfg->doc, arr, "workload.rate_shape", err, "give 1 to %d "
                               "multipliers", MAX_KNOTS);
        s->knot = calloc((size_t)n, sizeof *s->knot);
        if (s->knot == NULL)
            return err_run(err, "out of memory");
        int i = 0;
        for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
            char f[64];
            snprintf(f, sizeof f, "workload.rate_shape[%d]", i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
                e->valuedouble > 1e9)
                return jsonf_error(cfg->doc, e, f, err, "a multiplier >= 0");
            s->knot[i] = e->valuedouble;
        }
        s->nknot = n;
    } else if (file != NULL) {
        char path[PATH_MAX_LEN];
        if (resolve(cfg, "rate_file", file, base, path, err) < 0 ||
            read_column(path, colname, "rate_column", &s->knot, &s->nknot, 0, err) < 0)
            return -1;
        if (cJSON_GetObjectItemCaseSensitive(cfg->node, "shape_period_s") == NULL)
            s->period = step * s->nknot;
    } else if (colname != NULL) {
        return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "rate_column"),
                           "workload.rate_column", err, "names a column of rate_file, which is "
                           "not given");
    }
    s->maxknot = 1;
    if (s->nknot > 0) {
        s->maxknot = 0;
        for (int i = 0; i < s->nknot; i++)
            s->maxknot = s->knot[i] > s->maxknot ? s->knot[i] : s->maxknot;
        if (!(s->maxknot > 0))
            return jsonf_error(cfg->doc, cfg->node, arr ? "workload.rate_shape"
                                                        : "workload.rate_file", err,
                               "every multiplier is 0: no request would arrive");
    }
    return 0;
}

static int add_name(struct mps *s, const struct jobj *cfg, const cJSON *node, const char *name,
                    const char *field, struct errbuf *err)
{
    if (s->k == MAX_GRAPHS)
        return jsonf_error(cfg->doc, node, field, err, "at most %d graph types", MAX_GRAPHS);
    for (int g = 0; g < s->k; g++)
        if (strcmp(s->name[g], name) == 0)
            return jsonf_error(cfg->doc, node, field, err, "graph type '%s' given twice", name);
    if (name[0] == '\0' || strlen(name) >= 96)
        return jsonf_error(cfg->doc, node, field, err, "a graph type name of 1 to 95 "
                           "characters");
    s->name[s->k] = strdup(name);
    if (s->name[s->k] == NULL)
        return err_run(err, "out of memory");
    const char *file;
    jsonf_where(cfg->doc, node, &file, &s->line[s->k]);
    s->k++;
    return 0;
}

static int read_mix(struct mps *s, const struct jobj *cfg, const char *base, struct errbuf *err)
{
    struct jobj mix, ch, cols;
    const char *file = NULL;
    if (jobj_obj(&mix, cfg, "mix", JOPT, err) < 0 ||
        jobj_obj(&ch, cfg, "mix_change", JOPT, err) < 0 ||
        jobj_str(cfg, "mix_file", JOPT, &file, err) < 0 ||
        jobj_obj(&cols, cfg, "mix_columns", JOPT, err) < 0 ||
        jobj_num(cfg, "mix_step_s", JOPT, 1e-3, 1e9, &s->row_step, err) < 0)
        return -1;
    if (file != NULL) {
        if (mix.node != NULL || ch.node != NULL)
            return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "mix_file"),
                               "workload.mix_file", err, "give mix_file alone (its columns are "
                               "the mix), without mix or mix_change");
        if (cols.node == NULL)
            return jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "mix_file"),
                               "workload.mix_columns", err, "required with mix_file: "
                               "{\"graph\": \"column\", ...}");
        char path[PATH_MAX_LEN];
        if (resolve(cfg, "mix_file", file, base, path, err) < 0)
            return -1;
        double *col[MAX_GRAPHS];
        int n = -1, i = 0;
        for (const cJSON *e = cols.node->child; e != NULL; e = e->next, i++) {
            char f[160];
            snprintf(f, sizeof f, "workload.mix_columns.%s", e->string);
            if (!cJSON_IsString(e)) {
                for (int q = 0; q < i; q++)
                    free(col[q]);
                return jsonf_error(cfg->doc, e, f, err, "a column name of mix_file");
            }
            int nr;
            if (add_name(s, cfg, e, e->string, f, err) < 0 ||
                read_column(path, e->valuestring, f, &col[i], &nr, 0, err) < 0) {
                for (int q = 0; q < i; q++)
                    free(col[q]);
                return -1;
            }
            n = n < 0 || nr < n ? nr : n;
        }
        if (s->k == 0)
            return jsonf_error(cfg->doc, cols.node, "workload.mix_columns", err, "name at least "
                               "one graph's column");
        s->rows = calloc((size_t)n * (size_t)s->k, sizeof *s->rows);
        if (s->rows == NULL) {
            for (int q = 0; q < s->k; q++)
                free(col[q]);
            return err_run(err, "out of memory");
        }
        for (int r = 0; r < n; r++) {
            for (int g = 0; g < s->k; g++)
                s->rows[(size_t)r * s->k + g] = col[g][r];
            normalize(s->rows + (size_t)r * s->k, s->k);
        }
        for (int q = 0; q < s->k; q++)
            free(col[q]);
        s->nrows = n;
        return 0;
    }
    if (cols.node != NULL)
        return jsonf_error(cfg->doc, cols.node, "workload.mix_columns", err, "names the columns "
                           "of mix_file, which is not given");
    if (mix.node != NULL) {
        int i = 0;
        for (const cJSON *e = mix.node->child; e != NULL; e = e->next, i++) {
            char f[160];
            snprintf(f, sizeof f, "workload.mix.%s", e->string);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
                e->valuedouble > 1e12)
                return jsonf_error(cfg->doc, e, f, err, "a weight >= 0");
            if (add_name(s, cfg, e, e->string, f, err) < 0)
                return -1;
            s->mean[s->k - 1] = e->valuedouble;
        }
        double t = 0;
        for (int g = 0; g < s->k; g++)
            t += s->mean[g];
        if (!(t > 0))
            return jsonf_error(cfg->doc, mix.node, "workload.mix", err, "the weights are all 0 "
                               "(or none is given)");
        normalize(s->mean, s->k);
        memcpy(s->cur, s->mean, sizeof s->cur);
    }
    if (ch.node != NULL) {
        static const char *const keys[] = { "every_s", "concentration", "step_s", "note",
                                            NULL };
        if (mix.node == NULL)
            return jsonf_error(cfg->doc, ch.node, "workload.mix_change", err, "needs a mix (its "
                               "mean)");
        s->every = 600;
        s->conc = 20;
        s->step = 60;
        if (jobj_known(&ch, keys, err) < 0 ||
            jobj_num(&ch, "every_s", JOPT, 1e-3, 1e12, &s->every, err) < 0 ||
            jobj_num(&ch, "concentration", JOPT, 1e-3, 1e9, &s->conc, err) < 0 ||
            jobj_num(&ch, "step_s", JOPT, 1e-3, 1e9, &s->step, err) < 0)
            return -1;
        s->change = 1;
        s->regime_end = 0;
    }
    return 0;
}

static int mps_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    struct mps *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    s->row_step = 60;
    char base[PATH_MAX_LEN];
    path_dirname(base, sizeof base, jsonf_name(cfg->doc));
    if (jobj_num(cfg, "duration_s", JREQ, 1e-3, 1e10, &s->duration, err) < 0 ||
        jobj_num(cfg, "rate_per_s", JREQ, 1e-9, 1e9, &s->rate, err) < 0 ||
        jobj_num(cfg, "batch_s", JOPT, 1e-3, 1e9, &s->batch, err) < 0)
        goto fail;
    s->period = s->duration;
    if (read_rate(s, cfg, base, err) < 0 || read_mix(s, cfg, base, err) < 0)
        goto fail;
    if (s->batch > 0 && s->k == 0) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "batch_s"),
                    "workload.batch_s", err, "batches are counted per graph type: give a mix "
                    "(or mix_file) naming them");
        goto fail;
    }
    s->peak = s->rate * s->maxknot;
    s->origin = strdup(jsonf_name(cfg->doc));
    s->r_arr = rng_stream(c->seed, "arrivals");
    s->r_thin = rng_stream(c->seed, "thinning");
    s->r_graph = rng_stream(c->seed, "graphs");
    s->r_mix = rng_stream(c->seed, "mix");
    if (s->origin == NULL || !s->r_arr || !s->r_thin || !s->r_graph || !s->r_mix) {
        err_run(err, "out of memory");
        goto fail;
    }
    *r = (struct reader){ s, mps_next, mps_close };
    return 0;
fail:
    mps_close(s);
    return -1;
}

static const char *const mps_keys[] = { "duration_s", "rate_per_s", "rate_shape",
                                        "shape_period_s", "rate_file", "rate_column",
                                        "rate_step_s", "mix", "mix_change", "mix_file",
                                        "mix_columns", "mix_step_s", "batch_s", NULL };

const struct workload_format micro_poisson_format = {
    .name = "micro_poisson",
    .domain = "micro",
    .arrival_at = offsetof(struct micro_request, arrival),
    .summary = "Poisson microservice requests, a rate shape over time and a graph-type mix that "
               "may switch regimes (or rate and mixes from CSV files)",
    .flags = FORMAT_SEEDED,
    .keys = mps_keys,
    .open = mps_open,
};
