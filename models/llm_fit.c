/*
 * llm_fit: the three-step calibration of llm_fit.h.  Each step minimizes the sum of squared
 * log errors over its rows with GSL's nmsimplex2, in unconstrained coordinates (efficiencies
 * through a logistic, p - 1 and the times through exp), restarted once from its optimum;
 * the kernels of one profile (9 ops x ~1,000 rows) take a few thousand evaluations.  Rows
 * with a missing or non-positive measurement are skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include "llm_fit.h"

#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../sim/base/grow.h"
#include "../sim/base/tio.h"

/* The measured columns of a Vidur mlp.csv and the model op each is compared with. */
enum { NCOLS = 9 };
static const char *const col_names[NCOLS] = {
    "attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj", "input_layernorm",
    "post_attention_layernorm", "attn_rope", "mlp_act", "add" };
static const int col_op[NCOLS] = { LLM_OP_QKV, LLM_OP_O, LLM_OP_UP, LLM_OP_DOWN, LLM_OP_NORM,
                                   LLM_OP_NORM, LLM_OP_ROPE, LLM_OP_ACT, LLM_OP_ADD };

struct prow {
    double T;
    int    tp;
    double ms[NCOLS];
};

struct profile {
    int              gpu;
    char             file[96];      /* its file's name, without the folder */
    struct llm_arch  arch;
    struct prow     *rows;
    int              n;
};

struct arrow {
    int    n, link;
    double bytes, ms;
};

struct point {
    char   source[32];
    int    gpu, tp, batch;
    int    fit[2];          /* its first-token latency, its time per output token fitted */
    const struct llm_arch *arch;
    double prompt, out, ttft_ms, tpot_ms;   /* < 0: not reported */
};

struct llm_fit_data {
    char            source[32];     /* the engine the fitted rows measured, "" without */
    char            points[96];     /* their file's name */
    struct profile *prof;
    int             nprof;
    struct arrow   *ar;
    int             nar;
    struct point   *pt;
    int             npt;
};

llm_fit_data *llm_fit_data_create(void)
{
    return calloc(1, sizeof(llm_fit_data));
}

void llm_fit_data_destroy(llm_fit_data *d)
{
    if (d == NULL)
        return;
    for (int i = 0; i < d->nprof; i++)
        free(d->prof[i].rows);
    free(d->prof);
    free(d->ar);
    free(d->pt);
    free(d);
}

/* ---------------------------------------------------------------- reading */

enum { MAX_FIELDS = 128 };

/* Index of each wanted header name in the header fields, -1 when absent. */
static void find_cols(char **f, int n, const char *const *want, int nwant, int *pos)
{
    for (int k = 0; k < nwant; k++) {
        pos[k] = -1;
        for (int i = 0; i < n && i < MAX_FIELDS; i++)
            if (strcmp(f[i], want[k]) == 0)
                pos[k] = i;
    }
}

static int read_header(tio *r, const char *path, char **f, int *n, struct errbuf *err)
{
    char *line;
    size_t len;
    int rc;
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0)
        return rc < 0 ? -1 : err_input(err, path, 0, NULL, "empty file: expected a header");
    /* *n counts only the fields copied, which the caller frees */
    int got = tio_split(line, ',', f, MAX_FIELDS);
    if (got < 0 || got > MAX_FIELDS)
        return err_input(err, path, tio_lineno(r), NULL, "header: bad quoting or more than %d "
                         "columns", MAX_FIELDS);
    /* the fields point into the reader's line, which the next read overwrites */
    for (*n = 0; *n < got; (*n)++)
        if ((f[*n] = strdup(f[*n])) == NULL)
            return err_run(err, "out of memory");
    return 0;
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++)
        free(f[i]);
}

/* 1 if a field is empty or blanks (a measurement not reported) */
static int empty_field(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '\0';
}

static int num_at(char **f, int pos, const char *path, long ln, const char *name, double *out,
                  struct errbuf *err)
{
    if (tio_double(f[pos], out) < 0)
        return err_input(err, path, ln, name, "'%s' is not a number", f[pos]);
    return 0;
}

/* The whole number in column pos, in [lo, hi], into *out (a cast of anything else would be
 * undefined or would drop a fraction unseen). */
static int int_at(char **f, int pos, const char *path, long ln, const char *name, int lo,
                  int hi, int *out, struct errbuf *err)
{
    double v;
    if (num_at(f, pos, path, ln, name, &v, err) < 0)
        return -1;
    if (!(v >= lo && v <= hi) || v != floor(v))
        return err_input(err, path, ln, name, "'%s' is not a whole number in [%d, %d]", f[pos],
                         lo, hi);
    *out = (int)v;
    return 0;
}

int llm_fit_add_profile(llm_fit_data *d, const char *path, int gpu, struct errbuf *err)
{
    static const char *const dims[] = { "n_head", "n_kv_head", "n_embd", "n_expanded_embd",
                                        "use_gated_mlp", "num_tokens",
                                        "num_tensor_parallel_workers" };
    enum { NDIMS = 7 };
    const char *want[NCOLS + NDIMS];
    char names[NCOLS][64];
    for (int k = 0; k < NCOLS; k++) {
        snprintf(names[k], sizeof names[k], "time_stats.%s.median", col_names[k]);
        want[k] = names[k];
    }
    for (int k = 0; k < NDIMS; k++)
        want[NCOLS + k] = dims[k];
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *hdr[MAX_FIELDS], *f[MAX_FIELDS], *line;
    int nh = 0, pos[NCOLS + NDIMS], rc = -1, failed = 0;
    size_t len;
    struct profile p = { .gpu = gpu };
    const char *slash = strrchr(path, '/');
    snprintf(p.file, sizeof p.file, "%s", slash != NULL ? slash + 1 : path);
    if (read_header(r, path, hdr, &nh, err) < 0)
        goto out;
    find_cols(hdr, nh, want, NCOLS + NDIMS, pos);
    for (int k = 0; k < NCOLS + NDIMS; k++)
        if (pos[k] < 0) {
            err_input(err, path, 1, want[k], "required column is missing");
            goto out;
        }
    int cap = 0, got;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        if (tio_skippable(line))
            continue;
        long ln = tio_lineno(r);
        if (tio_split(line, ',', f, MAX_FIELDS) != nh) {
            err_input(err, path, ln, NULL, "expected %d fields", nh);
            goto out;
        }
        /* the architecture's sizes, the tokens in the batch and the TP degree are whole
           numbers */
        int v[NDIMS] = { 0 };
        for (int k = 0; k < NDIMS; k++) {
            int at = pos[NCOLS + k], hi = k == 6 ? 64 : k == 5 ? 1 << 24 : 1 << 20;
            if (k == 4)
                v[k] = strcasecmp(f[at], "true") == 0;
            else if (int_at(f, at, path, ln, dims[k], 1, hi, &v[k], err) < 0)
                goto out;
        }
        if (p.n == 0) {
            struct llm_arch *a = &p.arch;
            snprintf(a->name, sizeof a->name, "profile");
            a->layers = 1;
            a->heads = v[0];
            a->kv_heads = v[1];
            a->hidden = v[2];
            a->intermediate = v[3];
            a->gated = v[4] != 0;
            if (a->kv_heads > a->heads || a->hidden < a->heads) {
                err_input(err, path, ln, "n_head", "implausible architecture");
                goto out;
            }
            a->head_dim = a->hidden / a->heads;
        }
        if (p.n == cap) {
            cap = cap ? 2 * cap : 1024;
            p.rows = grow_array(p.rows, (size_t)cap, sizeof *p.rows, &failed);
            if (failed) {
                err_run(err, "out of memory");
                goto out;
            }
        }
        struct prow *pr = &p.rows[p.n];
        pr->T = v[5];
        pr->tp = v[6];
        /* a kernel's time: empty when it was not measured, else 1 ns to 1,000 s (Vidur's
           are 0.001-81 ms); anything else is refused, not skipped */
        for (int k = 0; k < NCOLS; k++) {
            pr->ms[k] = -1;
            if (!empty_field(f[pos[k]]) &&
                (tio_double(f[pos[k]], &pr->ms[k]) < 0 || !(pr->ms[k] >= 1e-6) ||
                 pr->ms[k] > 1e6)) {
                err_input(err, path, ln, want[k], "'%s' is not a time in [1e-06, 1e+06] ms "
                          "(or empty: not measured)", f[pos[k]]);
                goto out;
            }
        }
        p.n++;
    }
    if (got < 0)
        goto out;
    if (p.n == 0) {
        err_input(err, path, 0, NULL, "no rows");
        goto out;
    }
    d->prof = grow_array(d->prof, (size_t)d->nprof + 1, sizeof *d->prof, &failed);
    if (failed) {
        err_run(err, "out of memory");
        goto out;
    }
    d->prof[d->nprof++] = p;
    p.rows = NULL;
    rc = 0;
out:
    free(p.rows);
    free_fields(hdr, nh);
    tio_close(r);
    return rc;
}

int llm_fit_add_allreduce(llm_fit_data *d, const char *path, const int *link_of,
                          struct errbuf *err)
{
    static const char *const want[] = { "time_stats.all_reduce.median", "num_workers", "size" };
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *hdr[MAX_FIELDS], *f[MAX_FIELDS], *line;
    int nh = 0, pos[3], rc = -1, failed = 0, cap = d->nar, got;
    size_t len;
    if (read_header(r, path, hdr, &nh, err) < 0)
        goto out;
    find_cols(hdr, nh, want, 3, pos);
    for (int k = 0; k < 3; k++)
        if (pos[k] < 0) {
            err_input(err, path, 1, want[k], "required column is missing");
            goto out;
        }
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        if (tio_skippable(line))
            continue;
        long ln = tio_lineno(r);
        double ms, n, size;
        if (tio_split(line, ',', f, MAX_FIELDS) != nh) {
            err_input(err, path, ln, NULL, "expected %d fields", nh);
            goto out;
        }
        if (num_at(f, pos[0], path, ln, want[0], &ms, err) < 0 ||
            num_at(f, pos[1], path, ln, want[1], &n, err) < 0 ||
            num_at(f, pos[2], path, ln, want[2], &size, err) < 0)
            goto out;
        if (n != floor(n)) {
            err_input(err, path, ln, want[1], "'%s' is not a GPU count", f[pos[1]]);
            goto out;
        }
        if (!(ms >= 1e-6 && ms <= 1e6)) {
            err_input(err, path, ln, want[0], "'%s' is not a time in [1e-06, 1e+06] ms",
                      f[pos[0]]);
            goto out;
        }
        if (!(size >= 1 && size <= 1e15)) {
            err_input(err, path, ln, want[2], "'%s' is not a count of elements in [1, 1e+15]",
                      f[pos[2]]);
            goto out;
        }
        if (!(n >= 2 && n < 17) || link_of[(int)n] < 0)
            continue;               /* collectives of sizes the fit does not use */
        if (d->nar == cap) {
            cap = cap ? 2 * cap : 1024;
            d->ar = grow_array(d->ar, (size_t)cap, sizeof *d->ar, &failed);
            if (failed) {
                err_run(err, "out of memory");
                goto out;
            }
        }
        /* size counts fp16 elements */
        d->ar[d->nar++] = (struct arrow){ (int)n, link_of[(int)n], 2 * size, ms };
    }
    rc = got < 0 ? -1 : 0;
out:
    free_fields(hdr, nh);
    tio_close(r);
    return rc;
}

static int best_intra(const catalog *cat, int gpu)
{
    const struct gpu_spec *g = catalog_gpu(cat, gpu);
    return g->nvswitch >= 0 ? g->nvswitch : g->nvlink >= 0 ? g->nvlink : g->pcie;
}

/* First-token latency and time per output token of a measured row, ms; -1 with the model's
 * reason in err when it cannot run the row (the reader refuses such rows: a context beyond
 * the model's) */
static int point_model(const llm_catalog *c, const struct point *p, double *ttft,
                       double *tpot, struct errbuf *err)
{
    struct llm_whatif w = { .gpu = p->gpu, .tp = p->tp, .pp = 1,
                            .link = best_intra(llm_gpus(c), p->gpu), .stage_link = -1,
                            .batch = p->batch, .prompt = p->prompt,
                            .context = p->prompt + p->out / 2 };
    double pre = NAN, dec = NAN;
    int rc = llm_whatif_s(c, p->arch, &w, &pre, &dec, err);
    *ttft = pre * 1e3;
    *tpot = dec * 1e3;
    return rc;
}

int llm_fit_add_points(llm_fit_data *d, const char *path, const llm_catalog *c,
                       const char *fit_source, struct errbuf *err)
{
    if (fit_source != NULL) {
        const char *slash = strrchr(path, '/');
        snprintf(d->source, sizeof d->source, "%s", fit_source);
        snprintf(d->points, sizeof d->points, "%s", slash != NULL ? slash + 1 : path);
    }
    static const char *const want[] = { "source", "gpu", "model", "tp", "batch",
                                        "prompt_tokens", "output_tokens", "ttft_ms", "tpot_ms" };
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *hdr[MAX_FIELDS], *f[MAX_FIELDS], *line;
    int nh = 0, pos[9], rc = -1, failed = 0, got;
    size_t len;
    if (read_header(r, path, hdr, &nh, err) < 0)
        goto out;
    find_cols(hdr, nh, want, 9, pos);
    for (int k = 0; k < 9; k++)
        if (pos[k] < 0) {
            err_input(err, path, 1, want[k], "required column is missing");
            goto out;
        }
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        if (tio_skippable(line))
            continue;
        long ln = tio_lineno(r);
        if (tio_split(line, ',', f, MAX_FIELDS) != nh) {
            err_input(err, path, ln, NULL, "expected %d fields", nh);
            goto out;
        }
        struct point p = { .ttft_ms = -1, .tpot_ms = -1, .out = 128 };
        snprintf(p.source, sizeof p.source, "%s", f[pos[0]]);
        p.gpu = catalog_gpu_find(llm_gpus(c), f[pos[1]]);
        p.arch = llm_find(c, f[pos[2]]);
        if (p.gpu < 0) {
            err_input(err, path, ln, "gpu", "unknown GPU type '%s'", f[pos[1]]);
            goto out;
        }
        if (p.arch == NULL) {
            err_input(err, path, ln, "model", "unknown model '%s'", f[pos[2]]);
            goto out;
        }
        if (int_at(f, pos[3], path, ln, "tp", 1, 64, &p.tp, err) < 0 ||
            int_at(f, pos[4], path, ln, "batch", 1, 1 << 20, &p.batch, err) < 0 ||
            num_at(f, pos[5], path, ln, "prompt_tokens", &p.prompt, err) < 0)
            goto out;
        if (!empty_field(f[pos[6]]) &&
            num_at(f, pos[6], path, ln, "output_tokens", &p.out, err) < 0)
            goto out;
        if (!empty_field(f[pos[7]]) &&
            num_at(f, pos[7], path, ln, "ttft_ms", &p.ttft_ms, err) < 0)
            goto out;
        if (!empty_field(f[pos[8]]) &&
            num_at(f, pos[8], path, ln, "tpot_ms", &p.tpot_ms, err) < 0)
            goto out;
        if (!(p.prompt >= 1)) {
            err_input(err, path, ln, "prompt_tokens", "'%s' is not a token count >= 1",
                      f[pos[5]]);
            goto out;
        }
        /* a time that is given was measured: 1 ns to about 3 h (an empty field is "not
           reported"); output_tokens >= 0 */
        const double given[3] = { p.out, p.ttft_ms, p.tpot_ms };
        for (int k = 0; k < 3; k++)
            if (!empty_field(f[pos[6 + k]]) &&
                !(k == 0 ? given[k] >= 0 : given[k] >= 1e-6 && given[k] <= 1e7)) {
                err_input(err, path, ln, want[6 + k], "'%s' is not %s", f[pos[6 + k]],
                          k == 0 ? "a token count >= 0" : "a time in [1e-06, 1e+07] ms");
                goto out;
            }
        /* the model times a row at context prompt + output / 2 (its mean decode step) */
        int max = p.arch->max_context;
        if (p.prompt + 1 > max || p.prompt + p.out / 2 > max) {
            int by_prompt = p.prompt + 1 > max;
            err_input(err, path, ln, by_prompt ? "prompt_tokens" : "output_tokens",
                      "%g prompt tokens %s exceed the context of %s (%d)", p.prompt,
                      by_prompt ? "and the first output" : "and half the output", p.arch->name,
                      max);
            goto out;
        }
        /* one GPU of the engine the fit is for: single requests' first tokens and decode
           steps (iter_ms and first_ms), batched decode steps (seq_ms); a static batch's
           first token also waits for the batch to be formed, which is no iteration's cost */
        int mine = p.tp == 1 && fit_source != NULL && strcmp(p.source, fit_source) == 0;
        p.fit[0] = mine && p.batch == 1;
        p.fit[1] = mine;
        d->pt = grow_array(d->pt, (size_t)d->npt + 1, sizeof *d->pt, &failed);
        if (failed) {
            err_run(err, "out of memory");
            goto out;
        }
        d->pt[d->npt++] = p;
    }
    rc = got < 0 ? -1 : 0;
out:
    free_fields(hdr, nh);
    tio_close(r);
    return rc;
}

/* ---------------------------------------------------------------- the model of each row */

static double sq_log(double model, double measured)
{
    double e = log(model / measured);
    return e == e ? e * e : 1e6;
}

/* ---------------------------------------------------------------- the three fits */

/* What an objective answers for factors outside the range a fit file may hold
 * (llm_fit_in_range): above any sum of rows, so that a simplex started inside stays inside
 * and what the fit writes, llm_load reads */
#define OUT_OF_RANGE 1e12

static double logistic(double x) { return 1 / (1 + exp(-x)); }
static double logit(double p) { return log(p / (1 - p)); }

static int is_gemm(int col)
{
    return col_op[col] <= LLM_OP_DOWN;
}

struct kfit_ctx {
    const llm_fit_data *d;
    int                 gpu;        /* the profiles of this GPU type */
    llm_catalog        *c;
    int                 gemm;       /* 1: the GEMM factors, 0: the elementwise ones */
};

/* x -> the factors being fitted, the others kept as f holds them */
static void kfit_params(const gsl_vector *x, int gemm, struct llm_gpu_fit *f)
{
    if (gemm) {
        f->eta_compute = logistic(gsl_vector_get(x, 0));
        f->eta_mem = logistic(gsl_vector_get(x, 1));
        f->p = 1 + exp(gsl_vector_get(x, 2));
        f->kernel_us = exp(gsl_vector_get(x, 3));
    } else {
        for (int k = 0; k < LLM_ELEM_N; k++)
            f->eta_elem[k] = logistic(gsl_vector_get(x, k));
        f->elem_us = exp(gsl_vector_get(x, LLM_ELEM_N));
    }
}

static double kfit_f(const gsl_vector *x, void *arg)
{
    struct kfit_ctx *k = arg;
    struct llm_gpu_fit f = *llm_gpu_fit(k->c, k->gpu, NULL);
    kfit_params(x, k->gemm, &f);
    if (!llm_gpu_fit_in_range(&f))
        return OUT_OF_RANGE;
    llm_set_gpu_fit(k->c, k->gpu, &f);
    double s = 0;
    for (int q = 0; q < k->d->nprof; q++) {
        const struct profile *p = &k->d->prof[q];
        if (p->gpu != k->gpu)
            continue;
        for (int i = 0; i < p->n; i++) {
            const struct prow *r = &p->rows[i];
            for (int col = 0; col < NCOLS; col++)
                if (r->ms[col] > 0 && is_gemm(col) == k->gemm)
                    s += sq_log(llm_op_s(k->c, k->gpu, &p->arch, r->tp, col_op[col], r->T) *
                                    1e3,
                                r->ms[col]);
        }
    }
    return s;
}

/* Minimize f from x (updated in place) with two runs of the simplex. */
static int minimize(double (*f)(const gsl_vector *, void *), void *arg, gsl_vector *x,
                    struct errbuf *err)
{
    size_t n = x->size;
    gsl_multimin_function fn = { f, n, arg };
    gsl_vector *step = gsl_vector_alloc(n);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(
        gsl_multimin_fminimizer_nmsimplex2, n);
    if (step == NULL || m == NULL) {
        gsl_vector_free(step);
        gsl_multimin_fminimizer_free(m);
        return err_run(err, "out of memory");
    }
    for (int round = 0; round < 2; round++) {
        gsl_vector_set_all(step, 0.5);
        gsl_multimin_fminimizer_set(m, &fn, x, step);
        for (int it = 0; it < 20000; it++) {
            if (gsl_multimin_fminimizer_iterate(m) != 0)
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-7) == GSL_SUCCESS)
                break;
        }
        gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(m));
    }
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(step);
    return 0;
}

struct lfit_ctx {
    const llm_fit_data *d;
    llm_catalog        *c;
};

static double lfit_f(const gsl_vector *x, void *arg)
{
    struct lfit_ctx *k = arg;
    struct llm_fit f = *llm_fit_of(k->c);
    f.eta_link = logistic(gsl_vector_get(x, 0));
    f.lat_factor = exp(gsl_vector_get(x, 1));
    f.coll_us = exp(gsl_vector_get(x, 2));
    if (!llm_fit_in_range(&f))
        return OUT_OF_RANGE;
    llm_set_fit(k->c, &f);
    double s = 0;
    for (int i = 0; i < k->d->nar; i++) {
        const struct arrow *a = &k->d->ar[i];
        s += sq_log(llm_allreduce_s(k->c, a->link, a->n, a->bytes) * 1e3, a->ms);
    }
    return s;
}

/* 3a (x: iter_ms, first_ms, seq_ms held at 0): the fitted rows of single requests, which
 * give one sequence's iteration overhead, iter_ms + seq_ms; 3b (x: seq_ms): the fitted
 * decode steps of batches, that sum and first_ms held (seq_ms a share of it) */
static double pfit_f(const gsl_vector *x, void *arg)
{
    struct lfit_ctx *k = arg;
    struct llm_fit f = *llm_fit_of(k->c);
    int batched = x->size == 1;
    if (batched) {
        double one = f.iter_ms + f.seq_ms;
        f.seq_ms = one * logistic(gsl_vector_get(x, 0));
        f.iter_ms = one - f.seq_ms;
    } else {
        f.iter_ms = exp(gsl_vector_get(x, 0));
        f.first_ms = exp(gsl_vector_get(x, 1));
    }
    if (!llm_fit_in_range(&f))
        return OUT_OF_RANGE;
    llm_set_fit(k->c, &f);
    double s = 0;
    for (int i = 0; i < k->d->npt; i++) {
        const struct point *p = &k->d->pt[i];
        double ttft, tpot;
        struct errbuf e;
        if ((p->batch > 1) != batched || (!p->fit[0] && !p->fit[1]))
            continue;
        point_model(k->c, p, &ttft, &tpot, &e);
        if (p->fit[0] && p->ttft_ms > 0)
            s += sq_log(ttft, p->ttft_ms);
        if (p->fit[1] && p->tpot_ms > 0)
            s += sq_log(tpot, p->tpot_ms);
    }
    return s;
}

/* Minimize pfit_f over x from its values (exp coordinates), leaving the optimum in c. */
static int fit_overheads(struct lfit_ctx *k, gsl_vector *x, struct errbuf *err)
{
    if (minimize(pfit_f, k, x, err) < 0)
        return -1;
    pfit_f(x, k);
    return 0;
}

/* Where every fit starts, whatever the catalog held: a fit depends only on its data. */
static const struct llm_fit start = {
    .dflt = { .eta_compute = 0.7, .eta_mem = 0.75, .p = 2, .kernel_us = 4,
              .eta_elem = { 0.5, 0.5, 0.5, 0.5 }, .elem_us = 3 },
    .iter_ms = 0.5, .first_ms = 1, .eta_link = 0.7, .lat_factor = 1, .coll_us = 10,
};

static double clamp_log(double v)
{
    return log(v > 1e-3 ? v : 1e-3);
}

int llm_fit_solve(llm_fit_data *d, llm_catalog *c, struct errbuf *err)
{
    gsl_vector *xg = gsl_vector_alloc(4), *xe = gsl_vector_alloc(LLM_ELEM_N + 1);
    gsl_vector *y = gsl_vector_alloc(3);
    int rc = -1;
    if (xg == NULL || xe == NULL || y == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    /* 1. kernels, per profiled GPU type on all its profiles; the default is their geometric
       mean */
    double lsum[4 + LLM_ELEM_N + 1] = { 0 };
    int ntypes = 0;
    char from[LLM_TEXT_MAX] = "";
    size_t nfrom = 0;
    for (int i = 0; i < d->nprof; i++) {
        int gpu = d->prof[i].gpu, seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = d->prof[j].gpu == gpu;
        if (seen)
            continue;
        const struct llm_gpu_fit *f0 = &start.dflt;
        gsl_vector_set(xg, 0, logit(f0->eta_compute));
        gsl_vector_set(xg, 1, logit(f0->eta_mem));
        gsl_vector_set(xg, 2, clamp_log(f0->p - 1));
        gsl_vector_set(xg, 3, clamp_log(f0->kernel_us));
        for (int k = 0; k < LLM_ELEM_N; k++)
            gsl_vector_set(xe, k, logit(f0->eta_elem[k]));
        gsl_vector_set(xe, LLM_ELEM_N, clamp_log(f0->elem_us));
        struct kfit_ctx kg = { d, gpu, c, 1 }, ke = { d, gpu, c, 0 };
        if (minimize(kfit_f, &kg, xg, err) < 0)
            goto out;
        kfit_f(xg, &kg);
        if (minimize(kfit_f, &ke, xe, err) < 0)
            goto out;
        kfit_f(xe, &ke);
        /* what it was fitted on: its profiles' files */
        char data[LLM_TEXT_MAX];
        size_t n = (size_t)snprintf(data, sizeof data, "Vidur per-layer kernel times:");
        for (int j = i, first = 1; j < d->nprof; j++)
            if (d->prof[j].gpu == gpu && n < sizeof data) {
                n += (size_t)snprintf(data + n, sizeof data - n, "%s %s", first ? "" : ",",
                                      d->prof[j].file);
                first = 0;
            }
        llm_set_gpu_data(c, gpu, data);
        if (nfrom < sizeof from)
            nfrom += (size_t)snprintf(from + nfrom, sizeof from - nfrom, "%s%s",
                                      ntypes ? ", " : "", catalog_gpu(llm_gpus(c), gpu)->name);
        ntypes++;
        const struct llm_gpu_fit *f = llm_gpu_fit(c, gpu, NULL);
        lsum[0] += log(f->eta_compute);
        lsum[1] += log(f->eta_mem);
        lsum[2] += log(f->p);
        lsum[3] += log(f->kernel_us);
        for (int k = 0; k < LLM_ELEM_N; k++)
            lsum[4 + k] += log(f->eta_elem[k]);
        lsum[4 + LLM_ELEM_N] += log(f->elem_us);
    }
    struct llm_fit sys = *llm_fit_of(c);
    sys.eta_link = start.eta_link;
    sys.lat_factor = start.lat_factor;
    sys.coll_us = start.coll_us;
    sys.iter_ms = start.iter_ms;
    sys.seq_ms = 0;
    sys.first_ms = start.first_ms;
    if (ntypes > 0) {
        double n = ntypes;
        sys.dflt.eta_compute = exp(lsum[0] / n);
        sys.dflt.eta_mem = exp(lsum[1] / n);
        sys.dflt.p = exp(lsum[2] / n);
        sys.dflt.kernel_us = exp(lsum[3] / n);
        for (int k = 0; k < LLM_ELEM_N; k++)
            sys.dflt.eta_elem[k] = exp(lsum[4 + k] / n);
        sys.dflt.elem_us = exp(lsum[4 + LLM_ELEM_N] / n);
        llm_set_fit(c, &sys);
        llm_set_default_from(c, from);
    }
    /* 2. links */
    struct lfit_ctx k = { d, c };
    if (d->nar > 0) {
        gsl_vector_set(y, 0, logit(sys.eta_link));
        gsl_vector_set(y, 1, clamp_log(sys.lat_factor));
        gsl_vector_set(y, 2, clamp_log(sys.coll_us));
        if (minimize(lfit_f, &k, y, err) < 0)
            goto out;
        lfit_f(y, &k);      /* leaves the optimum in c */
    }
    /* 3. the engine's overheads: iter_ms and first_ms on single requests, then seq_ms on
       batched decode steps */
    int nfit = 0, nbatched = 0;
    for (int i = 0; i < d->npt; i++) {
        nfit += d->pt[i].fit[0] || d->pt[i].fit[1];
        nbatched += d->pt[i].batch > 1 && d->pt[i].fit[1];
    }
    if (nfit > 0) {
        sys = *llm_fit_of(c);
        sys.iter_ms = start.iter_ms;
        sys.first_ms = start.first_ms;
        sys.seq_ms = 0;
        llm_set_fit(c, &sys);
        gsl_vector *z = gsl_vector_alloc(2), *zb = gsl_vector_alloc(1);
        if (z == NULL || zb == NULL) {
            gsl_vector_free(z);
            gsl_vector_free(zb);
            err_run(err, "out of memory");
            goto out;
        }
        gsl_vector_set(z, 0, clamp_log(sys.iter_ms));
        gsl_vector_set(z, 1, clamp_log(sys.first_ms));
        gsl_vector_set(zb, 0, 0);      /* half of one sequence's iteration overhead */
        int r3 = fit_overheads(&k, z, err);
        if (r3 == 0 && nbatched > 0)
            r3 = fit_overheads(&k, zb, err);
        gsl_vector_free(z);
        gsl_vector_free(zb);
        if (r3 < 0)
            goto out;
        /* a term the rows push to zero is zero (the logistic never reaches it) */
        sys = *llm_fit_of(c);
        if (sys.seq_ms < 1e-6) {
            sys.iter_ms += sys.seq_ms;
            sys.seq_ms = 0;
            llm_set_fit(c, &sys);
        }
        /* the overheads are the fitted rows' engine's: its profile, its source kept */
        const struct llm_engine *old = llm_engine_find(c, d->source);
        struct llm_engine e = { 0 };
        if (old != NULL) {
            e = *old;
        } else {
            snprintf(e.name, sizeof e.name, "%s", d->source);
            snprintf(e.source, sizeof e.source, "the '%s' rows of %s", d->source, d->points);
            snprintf(e.licence, sizeof e.licence, "as that file's source states");
        }
        sys = *llm_fit_of(c);
        e.iter_ms = sys.iter_ms;
        e.seq_ms = sys.seq_ms;
        e.first_ms = sys.first_ms;
        if (llm_set_engine(c, &e) < 0 || llm_use_engine(c, e.name) < 0) {
            err_run(err, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    gsl_vector_free(xg);
    gsl_vector_free(xe);
    gsl_vector_free(y);
    return rc;
}

/* ---------------------------------------------------------------- residuals */

static int cmp_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

/* Summarize the signed errors e[0..n) (percent, n >= 1) into r: median |e| and the
 * largest. */
static void group(struct llm_resid *r, double *e, int n)
{
    qsort(e, (size_t)n, sizeof *e, cmp_abs);
    r->n = n;
    r->err_pct = n % 2 ? fabs(e[n / 2]) : (fabs(e[n / 2 - 1]) + fabs(e[n / 2])) / 2;
    r->max_pct = e[n - 1];
}

int llm_fit_residuals(const llm_fit_data *d, const llm_catalog *c, struct llm_resid *out,
                      int cap)
{
    int k = 0, maxn = 0;
    for (int i = 0; i < d->nprof; i++)
        maxn += d->prof[i].n;
    if (d->nar > maxn)
        maxn = d->nar;
    double *e = malloc((size_t)(maxn > 0 ? maxn : 1) * sizeof *e);
    if (e == NULL)
        return 0;
    const catalog *cat = llm_gpus(c);
    /* kernels: one group per (GPU type, op) over all the type's profiles */
    for (int i = 0; i < d->nprof; i++) {
        int gpu = d->prof[i].gpu, seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = d->prof[j].gpu == gpu;
        if (seen)
            continue;
        for (int col = 0; col < NCOLS && k < cap; col++) {
            int n = 0;
            for (int q = i; q < d->nprof; q++) {
                const struct profile *p = &d->prof[q];
                if (p->gpu != gpu)
                    continue;
                for (int j = 0; j < p->n; j++) {
                    const struct prow *r = &p->rows[j];
                    if (r->ms[col] > 0)
                        e[n++] = (llm_op_s(c, gpu, &p->arch, r->tp, col_op[col], r->T) * 1e3 /
                                      r->ms[col] -
                                  1) * 100;
                }
            }
            if (n == 0)
                continue;               /* no row timed this kernel: nothing to report */
            struct llm_resid *r = &out[k++];
            memset(r, 0, sizeof *r);
            r->kind = LLM_RESID_OP;
            r->fitted = 1;
            snprintf(r->what, sizeof r->what, "%s %s", catalog_gpu(cat, gpu)->name,
                     col_names[col]);
            group(r, e, n);
        }
    }
    /* all-reduce: one group per (GPU count, link) */
    for (int i = 0; i < d->nar && k < cap; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = d->ar[j].n == d->ar[i].n && d->ar[j].link == d->ar[i].link;
        if (seen)
            continue;
        int n = 0;
        for (int j = i; j < d->nar; j++)
            if (d->ar[j].n == d->ar[i].n && d->ar[j].link == d->ar[i].link)
                e[n++] = (llm_allreduce_s(c, d->ar[j].link, d->ar[j].n, d->ar[j].bytes) * 1e3 /
                              d->ar[j].ms -
                          1) * 100;
        struct llm_resid *r = &out[k++];
        memset(r, 0, sizeof *r);
        r->kind = LLM_RESID_ALLREDUCE;
        r->fitted = 1;
        snprintf(r->what, sizeof r->what, "all-reduce %d x %s", d->ar[i].n,
                 catalog_link(cat, d->ar[i].link)->name);
        group(r, e, n);
    }
    for (int i = 0; i < d->npt; i++) {
        const struct point *p = &d->pt[i];
        double m[2];
        struct errbuf why;
        point_model(c, p, &m[0], &m[1], &why);     /* the reader refused rows it cannot run */
        const double meas[2] = { p->ttft_ms, p->tpot_ms };
        for (int which = 0; which < 2 && k < cap; which++) {
            if (!(meas[which] > 0))
                continue;
            struct llm_resid *r = &out[k++];
            memset(r, 0, sizeof *r);
            r->kind = LLM_RESID_POINT;
            r->fitted = p->fit[which];
            r->n = 1;
            snprintf(r->what, sizeof r->what, "%s %s %s tp%d b%d p%g %s", p->source,
                     catalog_gpu(cat, p->gpu)->name, p->arch->name, p->tp, p->batch, p->prompt,
                     which == 0 ? "ttft" : "tpot");
            r->measured_ms = meas[which];
            r->model_ms = m[which];
            r->err_pct = (m[which] / meas[which] - 1) * 100;
            r->max_pct = r->err_pct;
        }
    }
    free(e);
    return k;
}

/* ---------------------------------------------------------------- the data file */

/* s as a JSON string */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* One GPU type's factors; the default also names the types it was fitted on ("from"), a
 * calibrated type its data ("data"). */
static void put_gpu_fit(FILE *f, const struct llm_gpu_fit *g, const char *from,
                        const char *data)
{
    fprintf(f, "{ \"eta_compute\": %.4f, \"eta_mem\": %.4f, \"p\": %.3f, \"kernel_us\": %.3f,\n"
            "      \"eta_elem\": { ", g->eta_compute, g->eta_mem, g->p, g->kernel_us);
    for (int k = 0; k < LLM_ELEM_N; k++)
        fprintf(f, "%s\"%s\": %.4f", k ? ", " : "", llm_elem_names[k], g->eta_elem[k]);
    fprintf(f, " }, \"elem_us\": %.3f", g->elem_us);
    if (from != NULL && from[0] != '\0') {
        /* "A, B" -> ["A", "B"] */
        fprintf(f, ",\n      \"from\": [\"");
        for (const char *p = from; *p != '\0'; p++) {
            if (p[0] == ',' && p[1] == ' ') {
                fprintf(f, "\", \"");
                p++;
            } else {
                fputc(*p, f);
            }
        }
        fprintf(f, "\"]");
    }
    if (data != NULL && data[0] != '\0') {
        fprintf(f, ",\n      \"data\": ");
        put_str(f, data);
    }
    fprintf(f, " }");
}

int llm_fit_write(FILE *f, const llm_catalog *c, const struct llm_resid *r, int n,
                  const char *note)
{
    const struct llm_fit *s = llm_fit_of(c);
    const catalog *cat = llm_gpus(c);
    fprintf(f, "{\n  \"note\": ");
    put_str(f, note);
    fprintf(f, ",\n");
    fprintf(f, "  \"method\": \"models/llm_fit.h: least squares on log(model / measured) by "
            "Nelder-Mead, in three steps: per profiled GPU type the kernel factors on all its "
            "Vidur per-layer kernel times; the link factors on Vidur's all-reduce times (a ring "
            "carrying 2 (n-1)/n of the message over each link at most at its bandwidth, "
            "eta_link <= 1); the fitted engine's iter_ms and first_ms on its single-request "
            "rows, then its seq_ms on its batched decode steps; eta_attn is not fitted (the "
            "rows cannot tell it apart: attention is a few percent of a 2,048-token prefill) "
            "but set to 0.6 of peak, inside the 50-73%% FlashAttention-2 reports for its "
            "forward pass on A100; GPU types without a profile borrow 'default', the geometric "
            "mean of the profiled types' factors.\",\n");
    fprintf(f, "  \"default\": ");
    put_gpu_fit(f, &s->dflt, llm_default_from(c), NULL);
    fprintf(f, ",\n  \"gpus\": {");
    int first = 1;
    for (int g = 0; g < catalog_ngpus(cat); g++) {
        int fitted;
        const struct llm_gpu_fit *gf = llm_gpu_fit(c, g, &fitted);
        if (!fitted)
            continue;
        fprintf(f, "%s\n    ", first ? "" : ",");
        put_str(f, catalog_gpu(cat, g)->name);
        fprintf(f, ": ");
        put_gpu_fit(f, gf, NULL, llm_gpu_data(c, g));
        first = 0;
    }
    fprintf(f, "\n  },\n  \"system\": { \"eta_attn\": %.4f, \"eta_link\": %.4f, "
            "\"lat_factor\": %.4f, \"coll_us\": %.3f },\n", s->eta_attn, s->eta_link,
            s->lat_factor, s->coll_us);
    /* the engines, the one in use first (a catalog starts with the file's first) */
    const struct llm_engine *use = llm_engine_in_use(c);
    fprintf(f, "  \"engines\": {");
    for (int i = -1, k = 0; i < llm_nengines(c); i++) {
        const struct llm_engine *e = i < 0 ? use : llm_engine_at(c, i);
        if (e == NULL || (i >= 0 && e == use))
            continue;
        fprintf(f, "%s\n    ", k++ ? "," : "");
        put_str(f, e->name);
        fprintf(f, ": { \"iter_ms\": %.4f, \"seq_ms\": %.4f, \"first_ms\": %.4f,\n"
                "      \"source\": ", e->iter_ms, e->seq_ms, e->first_ms);
        put_str(f, e->source);
        fprintf(f, ",\n      \"licence\": ");
        put_str(f, e->licence);
        fprintf(f, " }");
    }
    fprintf(f, "\n  },\n");
    fprintf(f, "  \"residuals\": [");
    for (int i = 0; i < n; i++) {
        char line[sizeof r[i].what + 128];     /* a row names what the input named: escaped */
        if (r[i].kind == LLM_RESID_POINT)
            snprintf(line, sizeof line, "%s %s: measured %.1f ms, model %.1f ms, %+.1f%%",
                     r[i].fitted ? "fit" : "check", r[i].what, r[i].measured_ms,
                     r[i].model_ms, r[i].err_pct);
        else
            snprintf(line, sizeof line, "fit %s: %d points, median |error| %.1f%%, worst "
                     "%+.1f%%", r[i].what, r[i].n, r[i].err_pct, r[i].max_pct);
        fprintf(f, "%s\n    ", i ? "," : "");
        put_str(f, line);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
