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
    int    gpu, tp, batch, fitted;
    const struct llm_arch *arch;
    double prompt, out, ttft_ms, tpot_ms;   /* < 0: not reported */
};

struct llm_fit_data {
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
    *n = tio_split(line, ',', f, MAX_FIELDS);
    if (*n < 0 || *n > MAX_FIELDS)
        return err_input(err, path, tio_lineno(r), NULL, "header: bad quoting or too many "
                         "columns");
    /* the fields point into the reader's line, which the next read overwrites */
    for (int i = 0; i < *n; i++)
        if ((f[i] = strdup(f[i])) == NULL)
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
        double v[NDIMS];
        for (int k = 0; k < NDIMS; k++) {
            if (k == 4) {
                v[k] = strcasecmp(f[pos[NCOLS + k]], "true") == 0;
                continue;
            }
            if (num_at(f, pos[NCOLS + k], path, ln, dims[k], &v[k], err) < 0)
                goto out;
        }
        if (p.n == 0) {
            struct llm_arch *a = &p.arch;
            snprintf(a->name, sizeof a->name, "profile");
            a->layers = 1;
            a->heads = (int)v[0];
            a->kv_heads = (int)v[1];
            a->hidden = (int)v[2];
            a->intermediate = (int)v[3];
            a->gated = v[4] != 0;
            if (a->heads < 1 || a->kv_heads < 1 || a->hidden < a->heads) {
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
        pr->tp = (int)v[6];
        if (!(pr->T >= 1) || pr->tp < 1) {
            err_input(err, path, ln, "num_tokens", "needs num_tokens and TP degree >= 1");
            goto out;
        }
        for (int k = 0; k < NCOLS; k++)
            if (empty_field(f[pos[k]]) || tio_double(f[pos[k]], &pr->ms[k]) < 0)
                pr->ms[k] = -1;
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
        if (!(n >= 2 && n < 17) || link_of[(int)n] < 0 || !(ms > 0) || !(size > 0))
            continue;
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

int llm_fit_add_points(llm_fit_data *d, const char *path, const llm_catalog *c,
                       const char *fit_source, struct errbuf *err)
{
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
        double tp, batch;
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
        if (num_at(f, pos[3], path, ln, "tp", &tp, err) < 0 ||
            num_at(f, pos[4], path, ln, "batch", &batch, err) < 0 ||
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
        p.tp = (int)tp;
        p.batch = (int)batch;
        if (p.tp < 1 || p.batch < 1 || !(p.prompt >= 1)) {
            err_input(err, path, ln, "tp", "needs tp, batch and prompt_tokens >= 1");
            goto out;
        }
        p.fitted = p.tp == 1 && p.batch == 1 && fit_source != NULL && strcmp(p.source, fit_source) == 0;
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

static int best_intra(const catalog *cat, int gpu)
{
    const struct gpu_spec *g = catalog_gpu(cat, gpu);
    return g->nvswitch >= 0 ? g->nvswitch : g->nvlink >= 0 ? g->nvlink : g->pcie;
}

/* First-token latency and time per output token of a measured row, ms. */
static void point_model(const llm_catalog *c, const struct point *p, double *ttft,
                        double *tpot)
{
    struct llm_whatif w = { .gpu = p->gpu, .tp = p->tp, .pp = 1,
                            .link = best_intra(llm_gpus(c), p->gpu), .stage_link = -1,
                            .batch = p->batch, .prompt = p->prompt,
                            .context = p->prompt + p->out / 2 };
    struct errbuf e;
    double pre = NAN, dec = NAN;
    if (llm_whatif_s(c, p->arch, &w, &pre, &dec, &e) < 0)
        pre = dec = NAN;
    *ttft = pre * 1e3;
    *tpot = dec * 1e3;
}

static double sq_log(double model, double measured)
{
    double e = log(model / measured);
    return e == e ? e * e : 1e6;
}

/* ---------------------------------------------------------------- the three fits */

static double logistic(double x) { return 1 / (1 + exp(-x)); }
static double logit(double p) { return log(p / (1 - p)); }

static int is_gemm(int col)
{
    return col_op[col] <= LLM_OP_DOWN;
}

struct kfit_ctx {
    const struct profile *p;
    llm_catalog          *c;
    int                   gemm;     /* 1: the GEMM factors, 0: the elementwise ones */
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
    struct llm_gpu_fit f = *llm_gpu_fit(k->c, k->p->gpu, NULL);
    kfit_params(x, k->gemm, &f);
    if (f.p > 64)
        return 1e12;
    llm_set_gpu_fit(k->c, k->p->gpu, &f);
    double s = 0;
    for (int i = 0; i < k->p->n; i++) {
        const struct prow *r = &k->p->rows[i];
        for (int col = 0; col < NCOLS; col++)
            if (r->ms[col] > 0 && is_gemm(col) == k->gemm)
                s += sq_log(llm_op_s(k->c, k->p->gpu, &k->p->arch, r->tp, col_op[col], r->T) *
                                1e3,
                            r->ms[col]);
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
    llm_set_fit(k->c, &f);
    double s = 0;
    for (int i = 0; i < k->d->nar; i++) {
        const struct arrow *a = &k->d->ar[i];
        s += sq_log(llm_allreduce_s(k->c, a->link, a->n, a->bytes) * 1e3, a->ms);
    }
    return s;
}

static double pfit_f(const gsl_vector *x, void *arg)
{
    struct lfit_ctx *k = arg;
    struct llm_fit f = *llm_fit_of(k->c);
    f.iter_ms = exp(gsl_vector_get(x, 0));
    f.first_ms = exp(gsl_vector_get(x, 1));
    llm_set_fit(k->c, &f);
    double s = 0;
    for (int i = 0; i < k->d->npt; i++) {
        const struct point *p = &k->d->pt[i];
        double ttft, tpot;
        if (!p->fitted)
            continue;
        point_model(k->c, p, &ttft, &tpot);
        if (p->ttft_ms > 0)
            s += sq_log(ttft, p->ttft_ms);
        if (p->tpot_ms > 0)
            s += sq_log(tpot, p->tpot_ms);
    }
    return s;
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
    /* 1. kernels, per profiled GPU type; the default is their geometric mean */
    double lsum[4 + LLM_ELEM_N + 1] = { 0 };
    for (int i = 0; i < d->nprof; i++) {
        const struct llm_gpu_fit *f0 = &start.dflt;
        gsl_vector_set(xg, 0, logit(f0->eta_compute));
        gsl_vector_set(xg, 1, logit(f0->eta_mem));
        gsl_vector_set(xg, 2, clamp_log(f0->p - 1));
        gsl_vector_set(xg, 3, clamp_log(f0->kernel_us));
        for (int k = 0; k < LLM_ELEM_N; k++)
            gsl_vector_set(xe, k, logit(f0->eta_elem[k]));
        gsl_vector_set(xe, LLM_ELEM_N, clamp_log(f0->elem_us));
        struct kfit_ctx kg = { &d->prof[i], c, 1 }, ke = { &d->prof[i], c, 0 };
        if (minimize(kfit_f, &kg, xg, err) < 0)
            goto out;
        kfit_f(xg, &kg);
        if (minimize(kfit_f, &ke, xe, err) < 0)
            goto out;
        kfit_f(xe, &ke);
        const struct llm_gpu_fit *f = llm_gpu_fit(c, d->prof[i].gpu, NULL);
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
    sys.first_ms = start.first_ms;
    if (d->nprof > 0) {
        double n = d->nprof;
        sys.dflt.eta_compute = exp(lsum[0] / n);
        sys.dflt.eta_mem = exp(lsum[1] / n);
        sys.dflt.p = exp(lsum[2] / n);
        sys.dflt.kernel_us = exp(lsum[3] / n);
        for (int k = 0; k < LLM_ELEM_N; k++)
            sys.dflt.eta_elem[k] = exp(lsum[4 + k] / n);
        sys.dflt.elem_us = exp(lsum[4 + LLM_ELEM_N] / n);
        llm_set_fit(c, &sys);
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
    /* 3. serving overheads */
    int nfit = 0;
    for (int i = 0; i < d->npt; i++)
        nfit += d->pt[i].fitted;
    if (nfit > 0) {
        sys = *llm_fit_of(c);
        gsl_vector *z = gsl_vector_alloc(2);
        if (z == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        gsl_vector_set(z, 0, clamp_log(sys.iter_ms));
        gsl_vector_set(z, 1, clamp_log(sys.first_ms));
        int r3 = minimize(pfit_f, &k, z, err);
        pfit_f(z, &k);
        gsl_vector_free(z);
        if (r3 < 0)
            goto out;
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

/* Summarize the signed errors e[0..n) (percent) into r: median |e| and the largest. */
static void group(struct llm_resid *r, double *e, int n)
{
    qsort(e, (size_t)n, sizeof *e, cmp_abs);
    r->n = n;
    r->err_pct = n == 0 ? NAN : n % 2 ? fabs(e[n / 2]) : (fabs(e[n / 2 - 1]) + fabs(e[n / 2])) / 2;
    r->max_pct = n == 0 ? NAN : e[n - 1];
}

int llm_fit_residuals(const llm_fit_data *d, const llm_catalog *c, struct llm_resid *out,
                      int cap)
{
    int k = 0, maxn = 0;
    for (int i = 0; i < d->nprof; i++)
        if (d->prof[i].n > maxn)
            maxn = d->prof[i].n;
    if (d->nar > maxn)
        maxn = d->nar;
    double *e = malloc((size_t)(maxn > 0 ? maxn : 1) * sizeof *e);
    if (e == NULL)
        return 0;
    const catalog *cat = llm_gpus(c);
    for (int i = 0; i < d->nprof; i++) {
        const struct profile *p = &d->prof[i];
        for (int col = 0; col < NCOLS && k < cap; col++) {
            int n = 0;
            for (int j = 0; j < p->n; j++) {
                const struct prow *r = &p->rows[j];
                if (r->ms[col] > 0)
                    e[n++] = (llm_op_s(c, p->gpu, &p->arch, r->tp, col_op[col], r->T) * 1e3 /
                                  r->ms[col] -
                              1) * 100;
            }
            struct llm_resid *r = &out[k++];
            memset(r, 0, sizeof *r);
            r->kind = LLM_RESID_OP;
            r->fitted = 1;
            snprintf(r->what, sizeof r->what, "%s %s", catalog_gpu(cat, p->gpu)->name,
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
        point_model(c, p, &m[0], &m[1]);
        const double meas[2] = { p->ttft_ms, p->tpot_ms };
        for (int which = 0; which < 2 && k < cap; which++) {
            if (!(meas[which] > 0))
                continue;
            struct llm_resid *r = &out[k++];
            memset(r, 0, sizeof *r);
            r->kind = LLM_RESID_POINT;
            r->fitted = p->fitted;
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

static void put_gpu_fit(FILE *f, const struct llm_gpu_fit *g)
{
    fprintf(f, "{ \"eta_compute\": %.4f, \"eta_mem\": %.4f, \"p\": %.3f, \"kernel_us\": %.3f,\n"
            "      \"eta_elem\": { ", g->eta_compute, g->eta_mem, g->p, g->kernel_us);
    for (int k = 0; k < LLM_ELEM_N; k++)
        fprintf(f, "%s\"%s\": %.4f", k ? ", " : "", llm_elem_names[k], g->eta_elem[k]);
    fprintf(f, " }, \"elem_us\": %.3f }", g->elem_us);
}

int llm_fit_write(FILE *f, const llm_catalog *c, const struct llm_resid *r, int n,
                  const char *note)
{
    const struct llm_fit *s = llm_fit_of(c);
    const catalog *cat = llm_gpus(c);
    fprintf(f, "{\n  \"note\": \"%s\",\n", note);
    fprintf(f, "  \"method\": \"models/llm_fit.h: least squares on log(model / measured) by "
            "Nelder-Mead, in three steps: per profiled GPU type the kernel factors on Vidur's "
            "per-layer kernel times; the link factors on Vidur's all-reduce times; iter_ms and "
            "first_ms on the end-to-end rows marked fit; eta_attn is not fitted (the rows "
            "cannot tell it apart: attention is a few percent of a 2,048-token prefill) but "
            "set to 0.6 of peak, inside the 50-73%% FlashAttention-2 reports for its forward "
            "pass on A100; GPU types without a profile take 'default', the geometric mean of "
            "the profiled types' factors.\",\n");
    fprintf(f, "  \"default\": ");
    put_gpu_fit(f, &s->dflt);
    fprintf(f, ",\n  \"gpus\": {");
    int first = 1;
    for (int g = 0; g < catalog_ngpus(cat); g++) {
        int fitted;
        const struct llm_gpu_fit *gf = llm_gpu_fit(c, g, &fitted);
        if (!fitted)
            continue;
        fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", catalog_gpu(cat, g)->name);
        put_gpu_fit(f, gf);
        first = 0;
    }
    fprintf(f, "\n  },\n  \"system\": { \"eta_attn\": %.4f, \"iter_ms\": %.4f, \"first_ms\": %.4f,\n"
            "    \"eta_link\": %.4f, \"lat_factor\": %.4f, \"coll_us\": %.3f },\n", s->eta_attn,
            s->iter_ms, s->first_ms, s->eta_link, s->lat_factor, s->coll_us);
    fprintf(f, "  \"residuals\": [");
    for (int i = 0; i < n; i++) {
        if (r[i].kind == LLM_RESID_POINT)
            fprintf(f, "%s\n    \"%s %s: measured %.1f ms, model %.1f ms, %+.1f%%\"",
                    i ? "," : "", r[i].fitted ? "fit" : "check", r[i].what, r[i].measured_ms,
                    r[i].model_ms, r[i].err_pct);
        else
            fprintf(f, "%s\n    \"fit %s: %d points, median |error| %.1f%%, worst %+.1f%%\"",
                    i ? "," : "", r[i].what, r[i].n, r[i].err_pct, r[i].max_pct);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
