/*
 * llm: the architectures, the fitted factors, the engine profiles and the latency model of
 * llm.h.  Every field of both files is checked (ranges, known GPU names, a parameter count
 * that matches the shape, engines with their source and licence); the formulas are the
 * header's, one function per term so that tests can check each against a hand computation.
 * Lookups are linear over a few entries, done at load time.
 */
#define _POSIX_C_SOURCE 200809L
#include "llm.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../sim/base/jobj.h"

struct llm_catalog {
    const catalog      *gpus;
    struct llm_arch    *arch;
    int                 narch;
    struct llm_fit      fit;
    struct llm_gpu_fit *gfit;       /* by GPU type id */
    int                *fitted;     /* 1 where the file gives the type its own factors */
    char              (*gdata)[LLM_TEXT_MAX];   /* by GPU type id: what it was fitted on */
    char                default_from[LLM_TEXT_MAX];
    struct llm_engine  *eng;
    int                 neng;
    int                 in_use;     /* index into eng, -1: the overheads are no profile's */
};

const char llm_default_models[] = "models/data/llms.json";
const char llm_default_fit[] = "models/data/llm_fit.json";

int llm_narch(const llm_catalog *c) { return c->narch; }
const struct llm_arch *llm_arch_at(const llm_catalog *c, int i) { return &c->arch[i]; }
const catalog *llm_gpus(const llm_catalog *c) { return c->gpus; }
const struct llm_fit *llm_fit_of(const llm_catalog *c) { return &c->fit; }

const struct llm_gpu_fit *llm_gpu_fit(const llm_catalog *c, int gpu, int *fitted)
{
    assert(gpu >= 0 && gpu < catalog_ngpus(c->gpus));
    if (fitted != NULL)
        *fitted = c->fitted[gpu];
    return &c->gfit[gpu];
}

void llm_set_gpu_fit(llm_catalog *c, int gpu, const struct llm_gpu_fit *f)
{
    c->gfit[gpu] = *f;
    c->fitted[gpu] = 1;
}

static int within(double v, double lo, double hi)
{
    return v >= lo && v <= hi;
}

int llm_gpu_fit_in_range(const struct llm_gpu_fit *f)
{
    int ok = within(f->eta_compute, LLM_ETA_MIN, 1) && within(f->eta_mem, LLM_ETA_MIN, 1) &&
             within(f->p, 1, LLM_P_MAX) && within(f->kernel_us, 0, LLM_KERNEL_US_MAX) &&
             within(f->elem_us, 0, LLM_KERNEL_US_MAX);
    for (int k = 0; k < LLM_ELEM_N; k++)
        ok = ok && within(f->eta_elem[k], LLM_ETA_MIN, 1);
    return ok;
}

int llm_fit_in_range(const struct llm_fit *f)
{
    return llm_gpu_fit_in_range(&f->dflt) && within(f->eta_attn, LLM_ETA_MIN, 1) &&
           within(f->eta_link, LLM_ETA_MIN, 1) && within(f->lat_factor, 0, LLM_LAT_MAX) &&
           within(f->coll_us, 0, LLM_COLL_US_MAX) && within(f->iter_ms, 0, LLM_ITER_MS_MAX) &&
           within(f->seq_ms, 0, LLM_SEQ_MS_MAX) && within(f->first_ms, 0, LLM_FIRST_MS_MAX);
}

void llm_set_fit(llm_catalog *c, const struct llm_fit *f)
{
    c->fit = *f;
    for (int g = 0; g < catalog_ngpus(c->gpus); g++)
        if (!c->fitted[g])
            c->gfit[g] = f->dflt;
}

const char *llm_gpu_data(const llm_catalog *c, int gpu)
{
    assert(gpu >= 0 && gpu < catalog_ngpus(c->gpus));
    return c->fitted[gpu] ? c->gdata[gpu] : NULL;
}

const char *llm_default_from(const llm_catalog *c) { return c->default_from; }

void llm_set_gpu_data(llm_catalog *c, int gpu, const char *data)
{
    assert(gpu >= 0 && gpu < catalog_ngpus(c->gpus));
    snprintf(c->gdata[gpu], LLM_TEXT_MAX, "%s", data);
}

void llm_set_default_from(llm_catalog *c, const char *types)
{
    snprintf(c->default_from, sizeof c->default_from, "%s", types);
}

/* ---------------------------------------------------------------- engines */

int llm_nengines(const llm_catalog *c) { return c->neng; }
const struct llm_engine *llm_engine_at(const llm_catalog *c, int i) { return &c->eng[i]; }

const struct llm_engine *llm_engine_find(const llm_catalog *c, const char *name)
{
    for (int i = 0; i < c->neng; i++)
        if (strcmp(c->eng[i].name, name) == 0)
            return &c->eng[i];
    return NULL;
}

const struct llm_engine *llm_engine_in_use(const llm_catalog *c)
{
    return c->in_use >= 0 ? &c->eng[c->in_use] : NULL;
}

static void take_engine(llm_catalog *c, int i)
{
    c->in_use = i;
    c->fit.iter_ms = c->eng[i].iter_ms;
    c->fit.seq_ms = c->eng[i].seq_ms;
    c->fit.first_ms = c->eng[i].first_ms;
}

int llm_use_engine(llm_catalog *c, const char *name)
{
    const struct llm_engine *e = llm_engine_find(c, name);
    if (e == NULL)
        return -1;
    take_engine(c, (int)(e - c->eng));
    return 0;
}

int llm_set_engine(llm_catalog *c, const struct llm_engine *e)
{
    const struct llm_engine *old = llm_engine_find(c, e->name);
    int i = old != NULL ? (int)(old - c->eng) : c->neng;
    if (old == NULL) {
        struct llm_engine *grown = realloc(c->eng, (size_t)(c->neng + 1) * sizeof *grown);
        if (grown == NULL)
            return -1;
        c->eng = grown;
        c->neng++;
    }
    c->eng[i] = *e;
    if (c->in_use == i)
        take_engine(c, i);
    return 0;
}

const char *llm_engine_names(const llm_catalog *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->neng && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", c->eng[i].name);
    return buf;
}

const struct llm_arch *llm_find(const llm_catalog *c, const char *name)
{
    for (int i = 0; i < c->narch; i++)
        if (strcasecmp(c->arch[i].name, name) == 0)
            return &c->arch[i];
    return NULL;
}

const char *llm_hint(const llm_catalog *c, const char *name, char *buf, size_t cap)
{
    const char *names[65];
    int n = 0;
    for (; n < c->narch && n < 64; n++)
        names[n] = c->arch[n].name;
    names[n] = NULL;
    const char *close = jsonf_suggest(name, names);
    if (close == NULL)
        return "";
    snprintf(buf, cap, " (did you mean '%s'?)", close);
    return buf;
}

static llm_catalog *alloc_catalog(const catalog *gpus)
{
    llm_catalog *c = calloc(1, sizeof *c);
    int n = gpus != NULL ? catalog_ngpus(gpus) : 1;
    if (c == NULL)
        return NULL;
    c->gpus = gpus;
    c->in_use = -1;
    c->gfit = calloc((size_t)n, sizeof *c->gfit);
    c->fitted = calloc((size_t)n, sizeof *c->fitted);
    c->gdata = calloc((size_t)n, sizeof *c->gdata);
    if (c->gfit == NULL || c->fitted == NULL || c->gdata == NULL) {
        llm_destroy(c);
        return NULL;
    }
    return c;
}

llm_catalog *llm_create(const catalog *gpus, const struct llm_fit *fit)
{
    llm_catalog *c = alloc_catalog(gpus);
    if (c != NULL)
        llm_set_fit(c, fit);
    return c;
}

void llm_destroy(llm_catalog *c)
{
    if (c == NULL)
        return;
    free(c->arch);
    free(c->gfit);
    free(c->fitted);
    free(c->gdata);
    free(c->eng);
    free(c);
}

/* ---------------------------------------------------------------- loading */

static int read_int(const struct jobj *o, const char *key, int flags, int64_t lo, int64_t hi,
                    int *out, struct errbuf *err)
{
    int64_t v = *out;
    if (jobj_int(o, key, flags, lo, hi, &v, err) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int field_error(const struct jobj *o, const char *key, struct errbuf *err,
                       const char *msg)
{
    char p[256];
    snprintf(p, sizeof p, "%s.%s", o->path, key);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o->node, key);
    return jsonf_error(o->doc, n != NULL ? n : o->node, p, err, "%s", msg);
}

static int read_arch(const struct jobj *o, const struct jobj *src, struct llm_arch *a,
                     struct errbuf *err)
{
    static const char *const keys[] = { "name", "layers", "hidden", "heads", "kv_heads",
                                        "intermediate", "vocab", "max_context", "mlp",
                                        "tied_head", "positions", "biases", "params_b",
                                        "source", "note", NULL };
    static const char *const mlps[] = { "relu", "silu_gated", NULL };
    const char *name = NULL, *text, *source = NULL;
    memset(a, 0, sizeof *a);
    if (jobj_known(o, keys, err) < 0 || jobj_str(o, "name", JREQ, &name, err) < 0 ||
        read_int(o, "layers", JREQ, 1, 1000, &a->layers, err) < 0 ||
        read_int(o, "hidden", JREQ, 1, 1 << 20, &a->hidden, err) < 0 ||
        read_int(o, "heads", JREQ, 1, 4096, &a->heads, err) < 0 ||
        read_int(o, "kv_heads", JREQ, 1, 4096, &a->kv_heads, err) < 0 ||
        read_int(o, "intermediate", JREQ, 1, 1 << 22, &a->intermediate, err) < 0 ||
        read_int(o, "vocab", JREQ, 1, 1 << 24, &a->vocab, err) < 0 ||
        read_int(o, "max_context", JREQ, 1, 1 << 24, &a->max_context, err) < 0 ||
        jobj_enum(o, "mlp", JREQ, mlps, &a->gated, err) < 0 ||
        jobj_bool(o, "tied_head", JOPT, &a->tied_head, err) < 0 ||
        read_int(o, "positions", JOPT, 0, 1 << 24, &a->positions, err) < 0 ||
        jobj_bool(o, "biases", JOPT, &a->biases, err) < 0 ||
        jobj_num(o, "params_b", JREQ, 1e-3, 1e5, &a->params_b, err) < 0 ||
        jobj_str(o, "source", JOPT, &source, err) < 0 ||
        jobj_str(o, "note", JOPT, &text, err) < 0)
        return -1;
    if (strlen(name) == 0 || strlen(name) >= LLM_NAME_MAX)
        return field_error(o, "name", err, "must be a non-empty name shorter than 32 characters");
    strcpy(a->name, name);
    if (source != NULL && (src->node == NULL ||
                           cJSON_GetObjectItemCaseSensitive(src->node, source) == NULL))
        return field_error(o, "source", err, "not an entry of \"sources\"");
    if (a->hidden % a->heads != 0)
        return field_error(o, "heads", err, "must divide hidden (the head size is hidden / "
                           "heads)");
    if (a->kv_heads > a->heads || a->heads % a->kv_heads != 0)
        return field_error(o, "kv_heads", err, "must divide heads (grouped-query attention)");
    a->head_dim = a->hidden / a->heads;
    double implied = llm_params(a) / 1e9;
    if (fabs(implied - a->params_b) > 0.005 * a->params_b) {
        char msg[160];
        snprintf(msg, sizeof msg, "%g billion, but the fields imply %.3f billion (a field is "
                 "wrong)", a->params_b, implied);
        return field_error(o, "params_b", err, msg);
    }
    return 0;
}

static int load_arch(llm_catalog *c, const char *path, struct errbuf *err)
{
    static const char *const top[] = { "models", "sources", "note", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root, src;
    const cJSON *arr;
    const char *note;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top, err) < 0 ||
        jobj_str(&root, "note", JOPT, &note, err) < 0 ||
        jobj_obj(&src, &root, "sources", JOPT, err) < 0 ||
        jobj_arr(&root, "models", JREQ, &arr, err) < 0)
        goto out;
    int n = cJSON_GetArraySize(arr);
    if (n == 0) {
        jsonf_error(doc, arr, "models", err, "empty: at least one model is needed");
        goto out;
    }
    if ((c->arch = calloc((size_t)n, sizeof *c->arch)) == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj o;
        if (jobj_elem(&o, &root, "models", e, i, err) < 0 ||
            read_arch(&o, &src, &c->arch[i], err) < 0)
            goto out;
        if (llm_find(c, c->arch[i].name) != NULL) {
            jsonf_error(doc, e, o.path, err, "model '%s' is defined twice", c->arch[i].name);
            goto out;
        }
        c->narch = i + 1;
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

const char *const llm_elem_names[LLM_ELEM_N] = { "norm", "rope", "act", "add" };

/* The factors of one GPU type; `extra` names the one more key its object may have ("from"
 * for the default, "data" for a calibrated type). */
static int read_gpu_fit(const struct jobj *o, const char *extra, struct llm_gpu_fit *f,
                        struct errbuf *err)
{
    const char *const keys[] = { "eta_compute", "eta_mem", "p", "kernel_us", "eta_elem",
                                 "elem_us", "note", extra, NULL };
    static const char *const elem_keys[] = { "norm", "rope", "act", "add", NULL };
    const char *note;
    struct jobj e;
    if (jobj_known(o, keys, err) < 0 ||
        jobj_num(o, "eta_compute", JREQ, LLM_ETA_MIN, 1, &f->eta_compute, err) < 0 ||
        jobj_num(o, "eta_mem", JREQ, LLM_ETA_MIN, 1, &f->eta_mem, err) < 0 ||
        jobj_num(o, "p", JREQ, 1, LLM_P_MAX, &f->p, err) < 0 ||
        jobj_num(o, "kernel_us", JREQ, 0, LLM_KERNEL_US_MAX, &f->kernel_us, err) < 0 ||
        jobj_num(o, "elem_us", JREQ, 0, LLM_KERNEL_US_MAX, &f->elem_us, err) < 0 ||
        jobj_str(o, "note", JOPT, &note, err) < 0 ||
        jobj_obj(&e, o, "eta_elem", JREQ, err) < 0 ||
        jobj_known(&e, elem_keys, err) < 0)
        return -1;
    for (int k = 0; k < LLM_ELEM_N; k++)
        if (jobj_num(&e, llm_elem_names[k], JREQ, LLM_ETA_MIN, 1, &f->eta_elem[k], err) < 0)
            return -1;
    return 0;
}

/* A string of at most LLM_TEXT_MAX - 1 characters into out. */
static int read_text(const struct jobj *o, const char *key, int flags, char *out,
                     struct errbuf *err)
{
    const char *v = NULL;
    if (jobj_str(o, key, flags, &v, err) < 0)
        return -1;
    if (v == NULL)
        return 0;
    if (strlen(v) >= LLM_TEXT_MAX)
        return field_error(o, key, err, "longer than 255 characters");
    strcpy(out, v);
    return 0;
}

/* "engines": { NAME: { iter_ms, seq_ms, first_ms, source, licence }, ... }, at least one */
static int read_engines(llm_catalog *c, const struct jobj *root, struct errbuf *err)
{
    static const char *const keys[] = { "iter_ms", "seq_ms", "first_ms", "source", "licence",
                                        "note", NULL };
    struct jobj es;
    const char *note;
    if (jobj_obj(&es, root, "engines", JREQ, err) < 0)
        return -1;
    if (es.node->child == NULL)
        return jsonf_error(es.doc, es.node, "engines", err, "empty: at least one engine "
                           "profile (iteration and first-token overheads) is needed");
    for (const cJSON *m = es.node->child; m != NULL; m = m->next) {
        struct jobj o;
        struct llm_engine e = { 0 };
        if (jobj_obj(&o, &es, m->string, JREQ, err) < 0)
            return -1;
        if (strlen(m->string) == 0 || strlen(m->string) >= LLM_NAME_MAX)
            return jsonf_error(o.doc, m, o.path, err, "an engine's name must be non-empty and "
                               "shorter than 32 characters");
        strcpy(e.name, m->string);
        if (jobj_known(&o, keys, err) < 0 ||
            jobj_num(&o, "iter_ms", JREQ, 0, LLM_ITER_MS_MAX, &e.iter_ms, err) < 0 ||
            jobj_num(&o, "seq_ms", JREQ, 0, LLM_SEQ_MS_MAX, &e.seq_ms, err) < 0 ||
            jobj_num(&o, "first_ms", JREQ, 0, LLM_FIRST_MS_MAX, &e.first_ms, err) < 0 ||
            read_text(&o, "source", JREQ, e.source, err) < 0 ||
            read_text(&o, "licence", JREQ, e.licence, err) < 0 ||
            jobj_str(&o, "note", JOPT, &note, err) < 0)
            return -1;
        if (llm_set_engine(c, &e) < 0)
            return err_run(err, "out of memory");
    }
    take_engine(c, 0);
    return 0;
}

/* "from": the GPU types the default was fitted on, each a calibrated type of the file */
static int read_default_from(llm_catalog *c, const struct jobj *d, const struct jobj *g,
                             struct errbuf *err)
{
    const cJSON *arr;
    if (jobj_arr(d, "from", JOPT, &arr, err) < 0)
        return -1;
    size_t n = 0;
    int i = 0;
    for (const cJSON *e = arr != NULL ? arr->child : NULL; e != NULL; e = e->next, i++) {
        char p[224];
        snprintf(p, sizeof p, "%s.from[%d]", d->path, i);
        int id = cJSON_IsString(e) ? catalog_gpu_find(c->gpus, e->valuestring) : -1;
        if (id < 0)
            return jsonf_error(d->doc, e, p, err, "not a GPU type (see `hetsim list gpus`)");
        const char *name = catalog_gpu(c->gpus, id)->name;
        const cJSON *k = g->node != NULL ? g->node->child : NULL;
        while (k != NULL && catalog_gpu_find(c->gpus, k->string) != id)
            k = k->next;
        if (k == NULL)
            return jsonf_error(d->doc, e, p, err, "'%s' has no factors of its own under "
                               "\"gpus\": the default is fitted on calibrated types", name);
        n += (size_t)snprintf(c->default_from + n, n < LLM_TEXT_MAX ? LLM_TEXT_MAX - n : 0,
                              "%s%s", i ? ", " : "", name);
    }
    return 0;
}

static int load_fit(llm_catalog *c, const char *path, struct errbuf *err)
{
    static const char *const top[] = { "note", "method", "default", "gpus", "system",
                                       "engines", "residuals", NULL };
    static const char *const sys_keys[] = { "eta_attn", "eta_link", "lat_factor", "coll_us",
                                            "note", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root, d, g, s;
    const char *text;
    const cJSON *resid;
    struct llm_fit f = { 0 };
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top, err) < 0 ||
        read_engines(c, &root, err) < 0)
        goto out;
    if (c->gpus == NULL) {      /* the names only */
        rc = 0;
        goto out;
    }
    if (jobj_str(&root, "note", JOPT, &text, err) < 0 ||
        jobj_str(&root, "method", JOPT, &text, err) < 0 ||
        jobj_arr(&root, "residuals", JOPT, &resid, err) < 0 ||
        jobj_obj(&d, &root, "default", JREQ, err) < 0 ||
        read_gpu_fit(&d, "from", &f.dflt, err) < 0 ||
        jobj_obj(&s, &root, "system", JREQ, err) < 0)
        goto out;
    /* the engine's overheads were system terms before they were profiles */
    static const char *const moved[] = { "iter_ms", "first_ms", NULL };
    for (int k = 0; moved[k] != NULL; k++)
        if (cJSON_GetObjectItemCaseSensitive(s.node, moved[k]) != NULL) {
            field_error(&s, moved[k], err, "an engine's overhead: it belongs under "
                        "\"engines\" (doc/serving.md, \"The LLM latency model\")");
            goto out;
        }
    if (jobj_known(&s, sys_keys, err) < 0 ||
        jobj_num(&s, "eta_attn", JREQ, LLM_ETA_MIN, 1, &f.eta_attn, err) < 0 ||
        jobj_num(&s, "coll_us", JREQ, 0, LLM_COLL_US_MAX, &f.coll_us, err) < 0 ||
        jobj_num(&s, "eta_link", JREQ, LLM_ETA_MIN, 1, &f.eta_link, err) < 0 ||
        jobj_num(&s, "lat_factor", JREQ, 0, LLM_LAT_MAX, &f.lat_factor, err) < 0 ||
        jobj_str(&s, "note", JOPT, &text, err) < 0 ||
        jobj_obj(&g, &root, "gpus", JOPT, err) < 0 ||
        read_default_from(c, &d, &g, err) < 0)
        goto out;
    f.iter_ms = c->fit.iter_ms;
    f.seq_ms = c->fit.seq_ms;
    f.first_ms = c->fit.first_ms;
    llm_set_fit(c, &f);
    for (const cJSON *m = g.node != NULL ? g.node->child : NULL; m != NULL; m = m->next) {
        struct jobj o;
        struct llm_gpu_fit gf;
        int id = catalog_gpu_find(c->gpus, m->string);
        if (id < 0) {
            char p[256];
            snprintf(p, sizeof p, "gpus.%s", m->string);
            jsonf_error(doc, m, p, err, "unknown GPU type '%s' (see `hetsim list gpus`)",
                        m->string);
            goto out;
        }
        if (jobj_obj(&o, &g, m->string, JREQ, err) < 0 ||
            read_gpu_fit(&o, "data", &gf, err) < 0 ||
            read_text(&o, "data", JOPT, c->gdata[id], err) < 0)
            goto out;
        llm_set_gpu_fit(c, id, &gf);
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

int llm_load(llm_catalog **out, const catalog *gpus, const char *arch_path,
             const char *fit_path, struct errbuf *err)
{
    *out = NULL;
    llm_catalog *c = alloc_catalog(gpus);
    if (c == NULL)
        return err_run(err, "out of memory");
    if (load_arch(c, arch_path, err) < 0 ||
        (fit_path != NULL && load_fit(c, fit_path, err) < 0)) {
        llm_destroy(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* ---------------------------------------------------------------- sizes */

static double kv_dim(const struct llm_arch *a)
{
    return (double)a->kv_heads * a->head_dim;
}

/* parameters of one layer */
static double layer_params(const struct llm_arch *a)
{
    double h = a->hidden, f = a->intermediate, kv = kv_dim(a);
    double p = h * (h + 2 * kv) + h * h + (a->gated ? 3 : 2) * h * f;
    if (a->biases)
        p += (h + 2 * kv) + h + (a->gated ? 2 : 1) * f + h;
    /* two norms: RMSNorm a weight vector, LayerNorm (OPT, with biases) weight and bias */
    p += (a->biases ? 4 : 2) * h;
    return p;
}

double llm_params(const struct llm_arch *a)
{
    double h = a->hidden, V = a->vocab;
    double emb = V * h + (double)a->positions * h;
    double head = a->tied_head ? 0 : V * h;
    double final_norm = (a->biases ? 2 : 1) * h;
    return a->layers * layer_params(a) + emb + head + final_norm;
}

double llm_weight_bytes(const struct llm_arch *a, int layers, int tp, int first, int last)
{
    assert(tp >= 1);
    double h = a->hidden, V = a->vocab;
    double b = layers * layer_params(a) / tp;
    if (first)
        b += V * h / tp + (double)a->positions * h;
    if (last)
        /* a tied head is the embedding: held again unless this stage holds it already */
        b += (a->tied_head && first ? 0 : V * h / tp) + (a->biases ? 2 : 1) * h;
    return 2 * b;
}

double llm_kv_head_bytes(const struct llm_arch *a)
{
    return 2.0 * a->head_dim * 2;
}

double llm_kv_bytes(const struct llm_arch *a, int layers, int tp)
{
    double heads = (double)a->kv_heads / tp;
    if (heads < 1)
        heads = 1;      /* a KV head is not split: TP beyond kv_heads replicates */
    return layers * heads * llm_kv_head_bytes(a);
}

double llm_activation_bytes(const struct llm_arch *a, int tp, int64_t max_tokens,
                            int64_t max_seqs)
{
    double h = a->hidden, f = a->intermediate, kv = kv_dim(a);
    /* live at once in the widest step: the residual stream and the norm's output (2 h), the
       fused QKV output or the MLP's up projection and its activation, whichever is wider */
    double qkv = (h + 2 * kv) / tp, mlp = (a->gated ? 3 : 2) * f / tp;
    double per_token = 2 * h + (qkv > mlp ? qkv : mlp);
    return 2.0 * (double)max_tokens * per_token + 4.0 * (double)max_seqs * a->vocab / tp;
}

/* ---------------------------------------------------------------- times */

static double roofline(const struct llm_gpu_fit *f, double c, double m)
{
    if (c <= 0)
        return m;
    if (m <= 0)
        return c;
    /* (c^p + m^p)^(1/p) computed as big * (1 + (small/big)^p)^(1/p), which cannot overflow */
    double big = c > m ? c : m, small = c > m ? m : c;
    return big * pow(1 + pow(small / big, f->p), 1 / f->p);
}

double llm_gemm_s(const llm_catalog *c, int gpu, double T, double K, double N)
{
    if (T <= 0)
        return 0;
    const struct gpu_spec *g = catalog_gpu(c->gpus, gpu);
    const struct llm_gpu_fit *f = &c->gfit[gpu];
    double flops = 2 * T * K * N, bytes = 2 * (K * N + T * K + T * N);
    return roofline(f, flops / (g->fp16_tflops * 1e12 * f->eta_compute),
                    bytes / (g->mem_bw_gbs * 1e9 * f->eta_mem)) +
           f->kernel_us * 1e-6;
}

double llm_elem_s(const llm_catalog *c, int gpu, int kind, double bytes)
{
    if (bytes <= 0)
        return 0;
    assert(kind >= 0 && kind < LLM_ELEM_N);
    const struct gpu_spec *g = catalog_gpu(c->gpus, gpu);
    const struct llm_gpu_fit *f = &c->gfit[gpu];
    return bytes / (g->mem_bw_gbs * 1e9 * f->eta_elem[kind]) + f->elem_us * 1e-6;
}

double llm_allreduce_s(const llm_catalog *c, int link, int n, double bytes)
{
    if (n < 2 || bytes <= 0)
        return 0;
    assert(link >= 0);
    const struct link_spec *l = catalog_link(c->gpus, link);
    double steps = 2.0 * (n - 1);
    return c->fit.coll_us * 1e-6 + steps * l->lat_us * 1e-6 * c->fit.lat_factor +
           steps / n * bytes / (l->bw_gbs * 1e9 * c->fit.eta_link);
}

double llm_send_s(const llm_catalog *c, int link, double bytes)
{
    if (bytes <= 0)
        return 0;
    assert(link >= 0);
    const struct link_spec *l = catalog_link(c->gpus, link);
    return l->lat_us * 1e-6 * c->fit.lat_factor + bytes / (l->bw_gbs * 1e9 * c->fit.eta_link);
}

double llm_iter_s(const llm_catalog *c, const struct llm_batch *b)
{
    return (c->fit.iter_ms + c->fit.seq_ms * b->seqs) * 1e-3;
}

double llm_attn_prefill_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                          double heads, double kv_heads, const struct llm_batch *b)
{
    if (b->prefill_pairs <= 0 || heads <= 0)
        return 0;
    const struct gpu_spec *g = catalog_gpu(c->gpus, gpu);
    const struct llm_gpu_fit *f = &c->gfit[gpu];
    double d = a->head_dim;
    double flops = 4 * b->prefill_pairs * d * heads;
    /* flash attention reads Q and writes O once and streams K and V of the context */
    double bytes = 2 * (2 * (b->tokens - b->decode_reqs) * d * heads +
                        2 * b->prefill_kv * d * kv_heads);
    return roofline(f, flops / (g->fp16_tflops * 1e12 * c->fit.eta_attn),
                    bytes / (g->mem_bw_gbs * 1e9 * f->eta_mem)) +
           f->kernel_us * 1e-6;
}

double llm_attn_decode_heads_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                               double ctx_heads, double req_heads)
{
    if (ctx_heads <= 0 || req_heads <= 0)
        return 0;
    const struct gpu_spec *g = catalog_gpu(c->gpus, gpu);
    const struct llm_gpu_fit *f = &c->gfit[gpu];
    double d = a->head_dim, group = (double)a->heads / a->kv_heads;
    /* QK^T and AV over the context for every query head of the group */
    double flops = 4 * ctx_heads * group * d;
    /* K and V of the context, q read and o written */
    double bytes = ctx_heads * llm_kv_head_bytes(a) + 2 * 2 * req_heads * group * d;
    return roofline(f, flops / (g->fp16_tflops * 1e12 * f->eta_compute),
                    bytes / (g->mem_bw_gbs * 1e9 * f->eta_mem)) +
           f->kernel_us * 1e-6;
}

double llm_attn_decode_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                         double heads, double kv_heads, const struct llm_batch *b)
{
    if (b->decode_reqs <= 0 || heads <= 0)
        return 0;
    (void)heads;        /* the query heads follow from the KV heads (the model's group) */
    return llm_attn_decode_heads_s(c, gpu, a, b->decode_ctx * kv_heads,
                                   b->decode_reqs * kv_heads);
}

const char *const llm_op_names[LLM_OP_N] = {
    "attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj",
    "input_layernorm", "attn_rope", "mlp_act", "add",
};

double llm_op_s(const llm_catalog *c, int gpu, const struct llm_arch *a, int tp, int op,
                double T)
{
    double h = a->hidden, f = a->intermediate, kv = kv_dim(a), t = tp;
    switch (op) {
    case LLM_OP_QKV:  return llm_gemm_s(c, gpu, T, h, (h + 2 * kv) / t);
    case LLM_OP_O:    return llm_gemm_s(c, gpu, T, h / t, h);
    case LLM_OP_UP:   return llm_gemm_s(c, gpu, T, h, (a->gated ? 2 : 1) * f / t);
    case LLM_OP_DOWN: return llm_gemm_s(c, gpu, T, f / t, h);
    case LLM_OP_NORM:   /* read and write T x h */
        return llm_elem_s(c, gpu, LLM_ELEM_NORM, 2 * 2 * T * h);
    case LLM_OP_ROPE:   /* q and k rotated in place; learned positions have no such kernel */
        return a->positions ? 0 : llm_elem_s(c, gpu, LLM_ELEM_ROPE, 2 * 2 * T * (h + kv) / t);
    case LLM_OP_ACT:    /* read (gate and) up, write their product */
        return llm_elem_s(c, gpu, LLM_ELEM_ACT, 2 * T * (a->gated ? 3 : 2) * f / t);
    case LLM_OP_ADD:    /* read two, write one */
        return llm_elem_s(c, gpu, LLM_ELEM_ADD, 3 * 2 * T * h);
    default:          assert(0); return 0;
    }
}

double llm_layer_dense_s(const llm_catalog *c, int gpu, const struct llm_arch *a, int tp,
                         const struct llm_batch *b)
{
    double T = b->tokens;
    if (T <= 0)
        return 0;
    double s = 0;
    for (int op = 0; op < LLM_OP_N; op++)
        s += (op == LLM_OP_NORM || op == LLM_OP_ADD ? 2 : 1) * llm_op_s(c, gpu, a, tp, op, T);
    return s;
}

struct llm_layer_part llm_layer_part(const llm_catalog *c, const struct llm_arch *a,
                                     const struct llm_stage *s, double tokens)
{
    struct llm_batch b = { .tokens = tokens };
    return (struct llm_layer_part){
        .dense_s = llm_layer_dense_s(c, s->gpu, a, s->tp, &b),
        .allreduce_s = llm_allreduce_s(c, s->link, s->tp, 2 * tokens * a->hidden) };
}

/* A stage's TP share of the query and KV heads (a KV head is not split: TP beyond kv_heads
 * replicates). */
static void stage_heads(const struct llm_arch *a, const struct llm_stage *s, double *heads,
                        double *kvh)
{
    double tp = s->tp;
    *heads = a->heads / tp;
    *kvh = a->kv_heads / tp < 1 ? 1 : a->kv_heads / tp;
}

double llm_stage_attn_decode_s(const llm_catalog *c, const struct llm_arch *a,
                               const struct llm_stage *s, const struct llm_batch *b)
{
    double heads, kvh;
    stage_heads(a, s, &heads, &kvh);
    return llm_attn_decode_s(c, s->gpu, a, heads, kvh, b);
}

double llm_layer_with_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b,
                        const struct llm_layer_part *p, double attn_decode_s)
{
    double heads, kvh;
    stage_heads(a, s, &heads, &kvh);
    if (attn_decode_s < 0)
        attn_decode_s = llm_attn_decode_s(c, s->gpu, a, heads, kvh, b);
    return p->dense_s + llm_attn_prefill_s(c, s->gpu, a, heads, kvh, b) + attn_decode_s +
           2 * p->allreduce_s;
}

double llm_stage_head_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, double logits)
{
    return llm_elem_s(c, s->gpu, LLM_ELEM_NORM, 2 * 2 * logits * a->hidden) +
           llm_gemm_s(c, s->gpu, logits, a->hidden, a->vocab / (double)s->tp);
}

/* t plus the stage's embedding (first stage) and final norm and head (last stage; head_s
 * < 0: computed, else llm_stage_head_s's for b's logits) */
static double stage_ends(const llm_catalog *c, const struct llm_arch *a,
                         const struct llm_stage *s, const struct llm_batch *b, double t,
                         double head_s)
{
    if (s->first)
        t += llm_elem_s(c, s->gpu, LLM_ELEM_ADD, 2 * 2 * b->tokens * a->hidden);  /* embedding */
    if (s->last && b->logits > 0) {
        t += head_s >= 0 ? head_s : llm_stage_head_s(c, a, s, b->logits);
        if (s->tp > 1)      /* gathering the vocabulary shards: half an all-reduce */
            t += 0.5 * llm_allreduce_s(c, s->link, s->tp, 2 * b->logits * a->vocab);
    }
    return t;
}

double llm_stage_ends_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b)
{
    return b->tokens <= 0 ? 0 : stage_ends(c, a, s, b, 0, -1);
}

double llm_stage_of_layer_s(const llm_catalog *c, const struct llm_arch *a,
                            const struct llm_stage *s, const struct llm_batch *b,
                            double layer_s)
{
    return llm_stage_of_layer_head_s(c, a, s, b, layer_s, -1);
}

double llm_stage_of_layer_head_s(const llm_catalog *c, const struct llm_arch *a,
                                 const struct llm_stage *s, const struct llm_batch *b,
                                 double layer_s, double head_s)
{
    return b->tokens <= 0 ? 0 : stage_ends(c, a, s, b, s->layers * layer_s, head_s);
}

double llm_stage_with_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b,
                        const struct llm_layer_part *p)
{
    if (b->tokens <= 0)
        return 0;
    return llm_stage_of_layer_s(c, a, s, b, llm_layer_with_s(c, a, s, b, p, -1));
}

double llm_stage_s(const llm_catalog *c, const struct llm_arch *a, const struct llm_stage *s,
                   const struct llm_batch *b)
{
    struct llm_layer_part p = llm_layer_part(c, a, s, b->tokens);
    return llm_stage_with_s(c, a, s, b, &p);
}

int llm_whatif_s(const llm_catalog *c, const struct llm_arch *a, const struct llm_whatif *w,
                 double *prefill_s, double *decode_s, struct errbuf *err)
{
    if (w->pp < 1 || w->pp > a->layers)
        return err_input(err, "--pp", 0, NULL, "%d stages: give 1 to %d (the layers of %s)",
                         w->pp, a->layers, a->name);
    if (w->tp < 1)
        return err_input(err, "--tp", 0, NULL, "must be >= 1");
    if (w->prompt + 1 > a->max_context || w->context > a->max_context)
        return err_input(err, "--prompt", 0, NULL, "%g tokens and its first output exceed "
                         "the context of %s (%d)", w->prompt, a->name, a->max_context);
    struct llm_batch pre = { 0 }, dec = { 0 };
    for (int i = 0; i < w->batch; i++) {
        llm_batch_prefill(&pre, w->prompt, 0, 1);
        llm_batch_decode(&dec, w->context);
    }
    double tp_ = 0, td = 0;
    int base = a->layers / w->pp, extra = a->layers % w->pp;
    for (int s = 0; s < w->pp; s++) {
        struct llm_stage st = { w->gpu, w->tp, w->link, base + (s < extra), s == 0,
                                s == w->pp - 1 };
        tp_ += llm_stage_s(c, a, &st, &pre);
        td += llm_stage_s(c, a, &st, &dec);
        if (s + 1 < w->pp) {
            tp_ += llm_send_s(c, w->stage_link, 2 * pre.tokens * a->hidden);
            td += llm_send_s(c, w->stage_link, 2 * dec.tokens * a->hidden);
        }
    }
    *prefill_s = tp_ + llm_iter_s(c, &pre) + c->fit.first_ms * 1e-3;
    *decode_s = td + llm_iter_s(c, &dec);
    return 0;
}
