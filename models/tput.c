/*
 * tput: profiled tables + analytical model of data-parallel training throughput.
 *
 * Model (per iteration, n workers of one GPU type, ring all-reduce, no compute/communication
 * overlap — a conservative choice, since overlap varies by framework and model):
 *   t_iter(n) = t_compute(n) + t_allreduce(n)
 *   t_compute(n) = b(n) * F / (P * eff)          b(n) = batch (weak) or batch / n (strong)
 *   t_allreduce(n) = 2 (n-1)/n * S / B + 2 (n-1) * lat      S = 4 bytes * params
 * with F the training GFLOP per sample, P the GPU's peak (FP16 or FP32), B and lat of the
 * slowest link the workers' ring crosses.
 *
 * Calibration order for t_compute on GPU type g:
 *   1. a measured 1-worker rate of this job type on g:       t_compute = 1 / rate;
 *   2. else a measured 1-worker rate on g' (the measured type whose peak is closest to g's):
 *      t_compute = t'(g') * P(g') / P(g);
 *   3. else the FLOP formula above (needs the job type's analytic fields).
 * A measured rate for the exact (type, GPU, workers, placement class) is used as is, except
 * that a placement whose slowest link is slower than the one the measurement ran on pays the
 * extra all-reduce time.  Assumed measurement links: consolidated = the GPU's NVLink if it has
 * one, else its PCIe; spread = ethernet-25g (Gavel's and Pollux's clouds).  A measurement of
 * the other class at the same worker count is converted by swapping its all-reduce time.
 * With no measurement on this GPU at all, the modelled time gets the scaling overhead that
 * the nearest measured GPU shows beyond the model at the same worker count (measured time
 * minus modelled compute and all-reduce, when positive), so that a modelled GPU does not
 * scale better than the measured ones only because the model is optimistic.
 * A table entry of 0 means "cannot run there" and is respected.
 *
 * Fits (struct tput_fit, tput.h) sit between the two: where (type, GPU) has a fit and no
 * measurement at this worker count in either class, the fit's step time is the answer, and a
 * placement whose slowest link is slower than the fit's pays the extra nominal all-reduce
 * time, as a measurement does.  For the calibrations above (nearest GPU, scaling overhead) a
 * fitted GPU counts as measured on the fit's link (tput_profiled).
 *
 * Lookups hash (job type, GPU, workers, class) to a rate: O(1).  tput_rate remembers what it
 * computed for each (job type, GPU, workers, class, link), since the model's fallbacks search
 * the catalog: the memo is emptied whenever a table or a job type changes.
 */
#define _POSIX_C_SOURCE 200809L
#include "tput.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../sim/base/jobj.h"
#include "../sim/base/tio.h"
#include "heet_csv.h"

enum { JT_MAX_ALIASES = 4 };

struct jt_entry {
    struct jobtype jt;
    char           aliases[JT_MAX_ALIASES][JT_NAME_MAX];
    int            naliases;
};

struct meas {
    uint64_t key;       /* 0: empty slot */
    double   rate;
};

/* key -> rate, open addressing with linear probing, at most half full */
struct rate_tab {
    struct meas *slot;
    size_t       cap, n;        /* cap 0 or a power of two */
};

struct fit_entry {
    int             jt, gpu;
    struct tput_fit f;
};

struct tput {
    const catalog   *cat;
    struct jt_entry *types;
    int              ntypes, capt;
    struct rate_tab  meas;          /* measured rates */
    struct fit_entry *fits;
    int              nfits, capf;
    struct rate_tab  fit_at;        /* mkey(jt, gpu, 0, 0) -> index into fits (exact in a double) */
    int              spread_link;    /* assumed link of spread measurements */
    /* tput_rate's answers: behind a pointer, so that a const tput's memo still fills (it
     * changes no answer) */
    struct rate_tab *memo;
};

static double link_bw(const tput *t, int link);
static double rate_of(const struct jobtype *j, double t_iter, int workers);

static void memo_clear(tput *t)
{
    t->memo->n = 0;
    if (t->memo->cap > 0)
        memset(t->memo->slot, 0, t->memo->cap * sizeof *t->memo->slot);
}

static uint64_t mkey(int jt, int gpu, int workers, int spread)
{
    /* +1 keeps key 0 free as the empty marker */
    return ((uint64_t)(jt + 1) << 32) | ((uint64_t)gpu << 20) | ((uint64_t)workers << 1) |
           (uint64_t)(spread != 0);
}

static size_t mhash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

/* The slot holding key, or the empty slot where it would go (cap > 0). */
static struct meas *rt_slot(const struct rate_tab *rt, uint64_t key)
{
    size_t j = mhash(key) & (rt->cap - 1);
    while (rt->slot[j].key && rt->slot[j].key != key)
        j = (j + 1) & (rt->cap - 1);
    return &rt->slot[j];
}

/* The rate stored for key, or NULL. */
static const struct meas *rt_find(const struct rate_tab *rt, uint64_t key)
{
    if (rt->cap == 0)
        return NULL;
    const struct meas *m = rt_slot(rt, key);
    return m->key ? m : NULL;
}

static int rt_put(struct rate_tab *rt, uint64_t key, double rate)
{
    if (2 * (rt->n + 1) > rt->cap) {
        struct rate_tab g = { calloc(rt->cap ? rt->cap * 2 : 256, sizeof *g.slot),
                              rt->cap ? rt->cap * 2 : 256, rt->n };
        if (g.slot == NULL)
            return -1;
        for (size_t i = 0; i < rt->cap; i++)
            if (rt->slot[i].key)
                *rt_slot(&g, rt->slot[i].key) = rt->slot[i];
        free(rt->slot);
        *rt = g;
    }
    struct meas *m = rt_slot(rt, key);
    if (!m->key)
        rt->n++;
    *m = (struct meas){ key, rate };
    return 0;
}

static int tab_put(tput *t, uint64_t key, double rate)
{
    memo_clear(t);
    return rt_put(&t->meas, key, rate);
}

double tput_measured(const tput *t, int jt, int gpu, int workers, int spread)
{
    if (workers == 1)
        spread = 0;
    const struct meas *m = rt_find(&t->meas, mkey(jt, gpu, workers, spread));
    return m != NULL ? m->rate : -1;
}

const struct tput_fit *tput_fit_of(const tput *t, int jt, int gpu)
{
    const struct meas *m = rt_find(&t->fit_at, mkey(jt, gpu, 0, 0));
    return m != NULL ? &t->fits[(int)m->rate].f : NULL;
}

int tput_set_fit(tput *t, int jt, int gpu, const struct tput_fit *f)
{
    memo_clear(t);
    const struct meas *m = rt_find(&t->fit_at, mkey(jt, gpu, 0, 0));
    if (m != NULL) {
        t->fits[(int)m->rate].f = *f;
        return 0;
    }
    if (t->nfits == t->capf) {
        int nc = t->capf ? 2 * t->capf : 16;
        struct fit_entry *n = realloc(t->fits, (size_t)nc * sizeof *n);
        if (n == NULL)
            return -1;
        t->fits = n;
        t->capf = nc;
    }
    if (rt_put(&t->fit_at, mkey(jt, gpu, 0, 0), t->nfits) < 0)
        return -1;
    t->fits[t->nfits++] = (struct fit_entry){ jt, gpu, *f };
    return 0;
}

double tput_fit_step_s(const struct tput_fit *f, double samples, int workers, double extra_s)
{
    double compute = f->sample_s * samples;
    if (workers <= 1)
        return f->step_s + compute;
    double n = workers;
    double ar = f->sync_s * 2 * (n - 1) / n + f->worker_s * (n - 1) + extra_s;
    return f->step_s + compute + fmax(0, ar - f->overlap * compute);
}

int tput_create(tput **out, const catalog *cat, struct errbuf *err)
{
    *out = calloc(1, sizeof **out);
    if (*out == NULL || ((*out)->memo = calloc(1, sizeof *(*out)->memo)) == NULL) {
        free(*out);
        *out = NULL;
        return err_run(err, "out of memory");
    }
    (*out)->cat = cat;
    (*out)->spread_link = catalog_link_find(cat, "ethernet-25g");
    return 0;
}

void tput_destroy(tput *t)
{
    if (t == NULL)
        return;
    free(t->types);
    free(t->meas.slot);
    free(t->fits);
    free(t->fit_at.slot);
    free(t->memo->slot);
    free(t->memo);
    free(t);
}

static int rt_copy(struct rate_tab *dst, const struct rate_tab *src)
{
    *dst = (struct rate_tab){ NULL, 0, 0 };
    if (src->cap == 0)
        return 0;
    if ((dst->slot = malloc(src->cap * sizeof *dst->slot)) == NULL)
        return -1;
    memcpy(dst->slot, src->slot, src->cap * sizeof *dst->slot);
    dst->cap = src->cap;
    dst->n = src->n;
    return 0;
}

int tput_copy(tput **out, const tput *src, struct errbuf *err)
{
    tput *t;
    if (tput_create(&t, src->cat, err) < 0)
        return -1;
    t->spread_link = src->spread_link;
    int failed = rt_copy(&t->meas, &src->meas) < 0 || rt_copy(&t->fit_at, &src->fit_at) < 0;
    if (!failed && src->ntypes > 0) {
        failed = (t->types = malloc((size_t)src->ntypes * sizeof *t->types)) == NULL;
        if (!failed) {
            memcpy(t->types, src->types, (size_t)src->ntypes * sizeof *t->types);
            t->ntypes = t->capt = src->ntypes;
        }
    }
    if (!failed && src->nfits > 0) {
        failed = (t->fits = malloc((size_t)src->nfits * sizeof *t->fits)) == NULL;
        if (!failed) {
            memcpy(t->fits, src->fits, (size_t)src->nfits * sizeof *t->fits);
            t->nfits = t->capf = src->nfits;
        }
    }
    if (failed) {
        tput_destroy(t);
        return err_run(err, "out of memory");
    }
    *out = t;
    return 0;
}

const catalog *tput_catalog(const tput *t) { return t->cat; }
int tput_ntypes(const tput *t) { return t->ntypes; }
const struct jobtype *tput_type(const tput *t, int id) { return &t->types[id].jt; }

int tput_find(const tput *t, const char *name)
{
    for (int i = 0; i < t->ntypes; i++) {
        if (strcasecmp(t->types[i].jt.name, name) == 0)
            return i;
        for (int a = 0; a < t->types[i].naliases; a++)
            if (strcasecmp(t->types[i].aliases[a], name) == 0)
                return i;
    }
    return -1;
}

static struct jt_entry *add_type(tput *t, const char *name)
{
    memo_clear(t);
    if (t->ntypes == t->capt) {
        int nc = t->capt ? 2 * t->capt : 32;
        struct jt_entry *n = realloc(t->types, (size_t)nc * sizeof *n);
        if (n == NULL)
            return NULL;
        t->types = n;
        t->capt = nc;
    }
    struct jt_entry *e = &t->types[t->ntypes++];
    memset(e, 0, sizeof *e);
    snprintf(e->jt.name, sizeof e->jt.name, "%s", name);
    e->jt.scaling = JT_WEAK;
    e->jt.efficiency = 0.3;
    return e;
}

/* "(batch size N)" inside a Gavel job name, else 0 */
static int batch_from_name(const char *name)
{
    const char *p = strstr(name, "batch size ");
    return p ? atoi(p + 11) : 0;
}

int tput_load_types(tput *t, const char *path, struct errbuf *err)
{
    static const char *const top_keys[] = { "job_types", "sources", "note", NULL };
    static const char *const keys[] = { "name", "aliases", "model", "dataset", "batch",
                                        "scaling", "precision", "params_m",
                                        "gflops_per_sample", "efficiency", "mem_gb", "ckpt_gb",
                                        "max_local_batch", "source", "note", NULL };
    memo_clear(t);          /* the types' fields change below */
    static const char *const scalings[] = { "weak", "strong", NULL };
    static const char *const precisions[] = { "fp32", "fp16", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    const cJSON *arr;
    int rc = -1, i = 0;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_arr(&root, "job_types", JREQ, &arr, err) < 0)
        goto out;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj o;
        const char *name = NULL;
        const cJSON *aliases = NULL;
        int64_t batch = 0, max_local = 0;
        if (jobj_elem(&o, &root, "job_types", e, i, err) < 0 ||
            jobj_known(&o, keys, err) < 0 || jobj_str(&o, "name", JREQ, &name, err) < 0)
            goto out;
        if (strlen(name) >= JT_NAME_MAX || tput_find(t, name) >= 0) {
            jsonf_error(doc, e, o.path, err, "job type '%s' is too long or defined twice", name);
            goto out;
        }
        struct jt_entry *je = add_type(t, name);
        if (je == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        struct jobtype *jt = &je->jt;
        jt->ckpt_gb = -1;
        if (jobj_int(&o, "batch", JREQ, 1, 1 << 24, &batch, err) < 0 ||
            jobj_enum(&o, "scaling", JREQ, scalings, &jt->scaling, err) < 0 ||
            jobj_enum(&o, "precision", JREQ, precisions, &jt->fp16, err) < 0 ||
            jobj_num(&o, "params_m", JREQ, 1e-6, 1e7, &jt->params_m, err) < 0 ||
            jobj_num(&o, "gflops_per_sample", JREQ, 1e-9, 1e9, &jt->gflops_per_sample, err) < 0 ||
            jobj_num(&o, "efficiency", JOPT, 1e-3, 1, &jt->efficiency, err) < 0 ||
            jobj_num(&o, "mem_gb", JREQ, 0, 1e5, &jt->mem_gb, err) < 0 ||
            jobj_num(&o, "ckpt_gb", JOPT, 0, 1e6, &jt->ckpt_gb, err) < 0 ||
            jobj_int(&o, "max_local_batch", JOPT, 1, 1 << 24, &max_local, err) < 0 ||
            jobj_arr(&o, "aliases", JOPT, &aliases, err) < 0)
            goto out;
        jt->batch = (int)batch;
        jt->max_local_batch = (int)max_local;
        jt->analytic = 1;
        if (jt->ckpt_gb < 0)    /* weights + two Adam moments, fp32 */
            jt->ckpt_gb = jt->params_m * 1e6 * 12 / 1e9;
        int a = 0;
        for (const cJSON *al = aliases ? aliases->child : NULL; al; al = al->next, a++) {
            if (!cJSON_IsString(al) || strlen(al->valuestring) >= JT_NAME_MAX ||
                a >= JT_MAX_ALIASES || tput_find(t, al->valuestring) >= 0) {
                jsonf_error(doc, al, o.path, err,
                            "aliases must be new short strings, at most %d", JT_MAX_ALIASES);
                goto out;
            }
            strcpy(je->aliases[a], al->valuestring);
            je->naliases = a + 1;
        }
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

static int find_or_add(tput *t, const char *name, struct errbuf *err)
{
    int id = tput_find(t, name);
    if (id >= 0)
        return id;
    if (strlen(name) >= JT_NAME_MAX)
        return err_run(err, "job type name too long: %s", name), -1;
    struct jt_entry *e = add_type(t, name);
    if (e == NULL)
        return err_run(err, "out of memory"), -1;
    e->jt.batch = batch_from_name(name);
    return t->ntypes - 1;
}

int tput_add_steps_type(tput *t, const char *name, int batch, double steps, struct errbuf *err)
{
    if (tput_find(t, name) >= 0)
        return err_run(err, "job type '%s' is defined twice", name), -1;
    if (strlen(name) >= JT_NAME_MAX)
        return err_run(err, "job type name too long: %s", name), -1;
    struct jt_entry *e = add_type(t, name);
    if (e == NULL)
        return err_run(err, "out of memory"), -1;
    e->jt.batch = batch;
    e->jt.scaling = JT_STRONG;
    e->jt.steps = steps;
    return t->ntypes - 1;
}

int tput_put_measured(tput *t, int jt, int gpu, int workers, int spread, double rate,
                      struct errbuf *err)
{
    if (tab_put(t, mkey(jt, gpu, workers, workers > 1 && spread), rate) < 0)
        return err_run(err, "out of memory");
    return 0;
}

/* Which kind of profile a file is, from its first line that is not blank or a comment. */
enum { PROF_HETSIM, PROF_HEET, PROF_FITS };

static int profile_kind(const char *path, struct errbuf *err)
{
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *line;
    size_t len;
    int got, kind = PROF_HETSIM;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        if (tio_skippable(line))
            continue;
        const char *s = line + strspn(line, " \t");
        if (*s == '{')
            kind = PROF_FITS;
        else if (strncmp(s, "gpu_type,", 9) == 0)
            kind = PROF_HEET;
        break;
    }
    tio_close(r);
    return got < 0 ? -1 : kind;
}

/* Heet's CSV as measured consolidated rates, iters/s = 1 / batch_time_s (a global step). */
static int load_heet_csv(tput *t, const char *path, struct errbuf *err)
{
    struct heet_point *pt;
    int n;
    if (heet_csv_read(t->cat, path, &pt, &n, err) < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char name[JT_NAME_MAX];
        heet_csv_jobtype(pt[i].model, pt[i].batch, name, sizeof name);
        int jt = find_or_add(t, name, err);
        if (jt < 0)
            rc = -1;
        else if (tab_put(t, mkey(jt, pt[i].gpu, pt[i].workers, 0), 1 / pt[i].batch_s) < 0)
            rc = err_run(err, "out of memory");
    }
    free(pt);
    return rc;
}

/* A JSON file of fits: every entry checked before any is kept. */
static int load_fits(tput *t, const char *path, struct errbuf *err)
{
    static const char *const top_keys[] = { "fits", "note", "source", "method", "command",
                                            NULL };
    static const char *const keys[] = { "job_types", "gpu", "link", "sample_s", "step_s",
                                        "sync_s", "worker_s", "overlap", "points",
                                        "median_err", "max_err", "note", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    const cJSON *arr;
    struct fit_entry *got = NULL;
    int rc = -1, n = 0, cap = 0, i = 0;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_arr(&root, "fits", JREQ, &arr, err) < 0)
        goto out;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj o;
        const char *gname, *lname;
        const cJSON *names;
        struct tput_fit f = { 0 };
        int64_t points = 0;
        double med = 0, mx = 0;
        if (jobj_elem(&o, &root, "fits", e, i, err) < 0 || jobj_known(&o, keys, err) < 0 ||
            jobj_arr(&o, "job_types", JREQ, &names, err) < 0 ||
            jobj_str(&o, "gpu", JREQ, &gname, err) < 0 ||
            jobj_str(&o, "link", JREQ, &lname, err) < 0 ||
            jobj_num(&o, "sample_s", JREQ, 0, 1e3, &f.sample_s, err) < 0 ||
            jobj_num(&o, "step_s", JREQ, 0, 1e5, &f.step_s, err) < 0 ||
            jobj_num(&o, "sync_s", JREQ, 0, 1e5, &f.sync_s, err) < 0 ||
            jobj_num(&o, "worker_s", JREQ, 0, 1e5, &f.worker_s, err) < 0 ||
            jobj_num(&o, "overlap", JREQ, 0, 1, &f.overlap, err) < 0 ||
            jobj_int(&o, "points", JOPT, 1, 1 << 20, &points, err) < 0 ||
            jobj_num(&o, "median_err", JOPT, 0, 1e6, &med, err) < 0 ||
            jobj_num(&o, "max_err", JOPT, 0, 1e6, &mx, err) < 0)
            goto out;
        char fp[sizeof o.path + 16];
        int gpu = catalog_gpu_find(t->cat, gname);
        if (gpu < 0) {
            snprintf(fp, sizeof fp, "%s.gpu", o.path);
            jsonf_error(doc, cJSON_GetObjectItemCaseSensitive(e, "gpu"), fp, err,
                        "unknown GPU type '%s'", gname);
            goto out;
        }
        f.link = catalog_link_find(t->cat, lname);
        if (f.link < 0) {
            snprintf(fp, sizeof fp, "%s.link", o.path);
            jsonf_error(doc, cJSON_GetObjectItemCaseSensitive(e, "link"), fp, err,
                        "unknown link '%s'", lname);
            goto out;
        }
        if (!(f.step_s + f.sample_s > 0)) {
            jsonf_error(doc, e, o.path, err, "step_s + sample_s must be > 0 (a step takes time)");
            goto out;
        }
        snprintf(fp, sizeof fp, "%s.job_types", o.path);
        if (names->child == NULL) {
            jsonf_error(doc, names, fp, err, "must name at least one job type");
            goto out;
        }
        for (const cJSON *nm = names->child; nm != NULL; nm = nm->next) {
            int jt = cJSON_IsString(nm) ? tput_find(t, nm->valuestring) : -1;
            if (jt < 0 || t->types[jt].jt.batch < 1) {
                jsonf_error(doc, nm, fp, err, "'%s' is not a job type with a "
                            "batch size (job_types file)", cJSON_IsString(nm) ? nm->valuestring
                                                                               : "?");
                goto out;
            }
            for (int k = 0; k < n; k++)
                if (got[k].jt == jt && got[k].gpu == gpu) {
                    jsonf_error(doc, nm, fp, err, "job type '%s' on %s is fitted twice",
                                nm->valuestring, gname);
                    goto out;
                }
            if (n == cap) {
                int nc = cap ? 2 * cap : 32;
                struct fit_entry *g = realloc(got, (size_t)nc * sizeof *g);
                if (g == NULL) {
                    err_run(err, "out of memory");
                    goto out;
                }
                got = g;
                cap = nc;
            }
            got[n++] = (struct fit_entry){ jt, gpu, f };
        }
    }
    for (int k = 0; k < n; k++)
        if (tput_set_fit(t, got[k].jt, got[k].gpu, &got[k].f) < 0) {
            err_run(err, "out of memory");
            goto out;
        }
    rc = 0;
out:
    free(got);
    jsonf_destroy(doc);
    return rc;
}

int tput_load_profile(tput *t, const char *path, struct errbuf *err)
{
    int kind = profile_kind(path, err);
    if (kind < 0)
        return -1;
    if (kind == PROF_HEET)
        return load_heet_csv(t, path, err);
    if (kind == PROF_FITS)
        return load_fits(t, path, err);
    static const char *const header[] = { "job_type", "gpu", "workers", "placement",
                                          "iters_per_s" };
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    char *line, *f[8];
    size_t len;
    int rc = -1, got, seen_header = 0;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        long ln = tio_lineno(r);
        if (tio_skippable(line))
            continue;
        int nf = tio_split(line, ',', f, 8);
        if (!seen_header) {
            if (nf != 5) {
                err_input(err, path, ln, NULL, "header must be: job_type,gpu,workers,placement,iters_per_s");
                goto out;
            }
            for (int k = 0; k < 5; k++)
                if (strcmp(f[k], header[k]) != 0) {
                    err_input(err, path, ln, f[k], "header column %d must be '%s'", k + 1,
                              header[k]);
                    goto out;
                }
            seen_header = 1;
            continue;
        }
        if (nf != 5) {
            err_input(err, path, ln, NULL, "expected 5 fields, found %d", nf < 0 ? 0 : nf);
            goto out;
        }
        int gpu = catalog_gpu_find(t->cat, f[1]);
        long long workers;
        double rate;
        if (gpu < 0) {
            err_input(err, path, ln, "gpu", "unknown GPU type '%s'", f[1]);
            goto out;
        }
        if (tio_int64(f[2], &workers) < 0 || workers < 1 || workers > 4096) {
            err_input(err, path, ln, "workers", "'%s' is not a worker count in [1, 4096]", f[2]);
            goto out;
        }
        int spread = strcmp(f[3], "spread") == 0;
        if (!spread && strcmp(f[3], "consolidated") != 0) {
            err_input(err, path, ln, "placement", "'%s' must be consolidated or spread", f[3]);
            goto out;
        }
        if (tio_double(f[4], &rate) < 0 || rate < 0) {
            err_input(err, path, ln, "iters_per_s", "'%s' is not a rate >= 0", f[4]);
            goto out;
        }
        int jt = find_or_add(t, f[0], err);
        if (jt < 0)
            goto out;
        if (tab_put(t, mkey(jt, gpu, (int)workers, workers > 1 && spread), rate) < 0) {
            err_run(err, "out of memory");
            goto out;
        }
    }
    if (got < 0)
        goto out;
    if (!seen_header) {
        err_input(err, path, 0, NULL, "empty file: expected a header line");
        goto out;
    }
    rc = 0;
out:
    tio_close(r);
    return rc;
}

/* Parse Gavel's "('ResNet-50 (batch size 64)', 2)" into name and scale factor. */
static int parse_gavel_key(const char *key, char *name, size_t cap, int *sf)
{
    const char *a = strchr(key, '\'');
    const char *b = a ? strrchr(key, '\'') : NULL;
    if (a == NULL || b == NULL || b <= a + 1 || (size_t)(b - a - 1) >= cap)
        return -1;
    memcpy(name, a + 1, (size_t)(b - a - 1));
    name[b - a - 1] = '\0';
    const char *comma = strchr(b, ',');
    if (comma == NULL)
        return -1;
    *sf = atoi(comma + 1);
    return *sf >= 1 ? 0 : -1;
}

int tput_load_gavel(tput *t, const char *path, struct errbuf *err)
{
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    int rc = -1;
    const cJSON *root = jsonf_root(doc);
    if (!cJSON_IsObject(root)) {
        jsonf_error(doc, root, NULL, err, "expected an object of worker types");
        goto out;
    }
    for (const cJSON *w = root->child; w != NULL; w = w->next) {
        char wname[CATALOG_NAME_MAX + 16];
        snprintf(wname, sizeof wname, "%s", w->string);
        char *suffix = strstr(wname, "_unconsolidated");
        int spread = suffix != NULL;
        if (suffix)
            *suffix = '\0';
        int gpu = catalog_gpu_find(t->cat, wname);
        if (gpu < 0) {
            jsonf_error(doc, w, w->string, err, "unknown worker type '%s'", wname);
            goto out;
        }
        if (!cJSON_IsObject(w)) {
            jsonf_error(doc, w, w->string, err, "must be an object of job keys");
            goto out;
        }
        for (const cJSON *j = w->child; j != NULL; j = j->next) {
            char name[JT_NAME_MAX];
            int sf;
            if (parse_gavel_key(j->string, name, sizeof name, &sf) < 0) {
                jsonf_error(doc, j, j->string, err, "job key must look like \"('name', 2)\"");
                goto out;
            }
            const cJSON *iso = cJSON_GetObjectItemCaseSensitive(j, "null");
            if (!cJSON_IsNumber(iso) || !isfinite(iso->valuedouble) || iso->valuedouble < 0) {
                jsonf_error(doc, j, j->string, err, "\"null\" must be a throughput >= 0");
                goto out;
            }
            if (sf == 1 && spread)
                continue;       /* same as the consolidated entry */
            int jt = find_or_add(t, name, err);
            if (jt < 0)
                goto out;
            if (tab_put(t, mkey(jt, gpu, sf, spread), iso->valuedouble) < 0) {
                err_run(err, "out of memory");
                goto out;
            }
        }
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

static double peak_tflops(const tput *t, int jt, int gpu)
{
    const struct gpu_spec *g = catalog_gpu(t->cat, gpu);
    return t->types[jt].jt.fp16 ? g->fp16_tflops : g->fp32_tflops;
}

double tput_compute_s(const tput *t, int jt, int gpu, int workers)
{
    const struct jobtype *j = &t->types[jt].jt;
    double split = j->scaling == JT_STRONG ? (double)workers : 1.0;
    double m = tput_profiled(t, jt, gpu, 1, 0);
    if (m == 0)
        return -1;
    if (m > 0)
        return 1.0 / m / split;
    /* nearest measured GPU by peak FLOP/s (log distance) */
    int best = -1;
    double bestd = INFINITY, bestm = 0, p = peak_tflops(t, jt, gpu);
    for (int g = 0; g < catalog_ngpus(t->cat); g++) {
        double mg = tput_profiled(t, jt, g, 1, 0);
        if (mg <= 0)
            continue;
        double d = fabs(log(peak_tflops(t, jt, g) / p));
        if (d < bestd) {
            bestd = d;
            best = g;
            bestm = mg;
        }
    }
    if (!j->analytic && best < 0)
        return -1;
    if (j->analytic && j->mem_gb > catalog_gpu(t->cat, gpu)->mem_gb)
        return -1;
    if (best >= 0)
        return 1.0 / bestm * peak_tflops(t, jt, best) / p / split;
    double samples = (double)j->batch / split;
    return samples * j->gflops_per_sample / (p * 1e3 * j->efficiency);
}

double tput_allreduce_s(const tput *t, int jt, int workers, int link)
{
    if (workers <= 1 || link < 0)
        return 0;
    const struct link_spec *l = catalog_link(t->cat, link);
    double gb = t->types[jt].jt.params_m * 4e6 / 1e9;
    double n = workers;
    return 2 * (n - 1) / n * gb / l->bw_gbs + 2 * (n - 1) * l->lat_us * 1e-6;
}

static double iter_time(const struct jobtype *j, double rate, int workers)
{
    return j->scaling == JT_WEAK ? workers / rate : 1.0 / rate;
}

static double rate_of(const struct jobtype *j, double t_iter, int workers)
{
    return j->scaling == JT_WEAK ? workers / t_iter : 1.0 / t_iter;
}

static int measured_link(const tput *t, int gpu, int spread)
{
    const struct gpu_spec *g = catalog_gpu(t->cat, gpu);
    if (spread)
        return t->spread_link;
    return g->nvlink >= 0 ? g->nvlink : g->pcie;
}

static double link_bw(const tput *t, int link)
{
    return link < 0 ? INFINITY : catalog_link(t->cat, link)->bw_gbs;
}

/* The GPU nearest to `gpu` by peak FLOP/s (log distance) that has a measurement of job type
 * jt with n workers in either placement class; -1 if none.  *spread_out tells which class,
 * preferring `spread`. */
static int nearest_measured(const tput *t, int jt, int gpu, int n, int spread, int *spread_out)
{
    int best = -1;
    double bestd = INFINITY, p = peak_tflops(t, jt, gpu);
    for (int g = 0; g < catalog_ngpus(t->cat); g++) {
        if (g == gpu)
            continue;
        for (int k = 0; k < 2; k++) {
            int cls = k == 0 ? spread : !spread;
            if (tput_profiled(t, jt, g, n, cls) <= 0)
                continue;
            double d = fabs(log(peak_tflops(t, jt, g) / p));
            if (d < bestd) {
                bestd = d;
                best = g;
                *spread_out = cls;
            }
            break;
        }
    }
    return best;
}

/* Seconds per step of jt's fit f with n workers over `link` (unused at n = 1). */
static double fit_time(const tput *t, int jt, const struct tput_fit *f, int n, int link)
{
    const struct jobtype *j = &t->types[jt].jt;
    double samples = j->scaling == JT_STRONG ? (double)j->batch / n : j->batch;
    double extra = 0;
    if (n > 1 && link >= 0 && link_bw(t, link) < link_bw(t, f->link))
        extra = tput_allreduce_s(t, jt, n, link) - tput_allreduce_s(t, jt, n, f->link);
    return tput_fit_step_s(f, samples, n, extra);
}

double tput_profiled(const tput *t, int jt, int gpu, int workers, int spread)
{
    double m = tput_measured(t, jt, gpu, workers, spread);
    if (m >= 0)
        return m;
    const struct tput_fit *f = tput_fit_of(t, jt, gpu);
    if (f == NULL || workers < 1 || (spread && workers > 1))
        return -1;
    return rate_of(&t->types[jt].jt, fit_time(t, jt, f, workers, f->link), workers);
}

/* The link a profiled rate of (jt, g, class) ran on: a measurement's assumed link, else the
 * fit's. */
static int profiled_link(const tput *t, int jt, int g, int n, int spread)
{
    const struct tput_fit *f = tput_fit_of(t, jt, g);
    if (f != NULL && tput_measured(t, jt, g, n, spread) < 0)
        return f->link;
    return measured_link(t, g, spread);
}

static double rate_of_placement(const tput *t, int jt, const struct placement *p)
{
    const struct jobtype *j = &t->types[jt].jt;
    int n = p->workers, spread = p->nodes > 1;
    if (n < 1)
        return 0;
    double m = tput_measured(t, jt, p->gpu, n, spread);
    if (m == 0)
        return 0;
    double ar = tput_allreduce_s(t, jt, n, p->link);
    if (m > 0) {
        /* measured: used as is, unless this placement's slowest link is slower than the
         * one the measurement ran on — then the extra all-reduce time is added */
        int ml = measured_link(t, p->gpu, spread);
        if (n == 1 || link_bw(t, p->link) >= link_bw(t, ml))
            return m;
        double tm = iter_time(j, m, n);
        return rate_of(j, tm + ar - tput_allreduce_s(t, jt, n, ml), n);
    }
    const struct tput_fit *f = tput_fit_of(t, jt, p->gpu);
    if (f != NULL && (n == 1 || tput_measured(t, jt, p->gpu, n, !spread) < 0))
        return rate_of(j, fit_time(t, jt, f, n, p->link), n);
    double tc = tput_compute_s(t, jt, p->gpu, n);
    if (tc < 0)
        return 0;
    double mo = n > 1 ? tput_measured(t, jt, p->gpu, n, !spread) : -1;
    if (mo == 0)
        return 0;
    if (mo > 0) {
        /* the other placement class was measured: swap its all-reduce for this one's */
        double ml = measured_link(t, p->gpu, !spread);
        double tm = iter_time(j, mo, n) - tput_allreduce_s(t, jt, n, (int)ml);
        return rate_of(j, fmax(tm, tc) + ar, n);
    }
    if (n > 1) {
        /* no measurement on this GPU: carry over the scaling overhead measured on the nearest
         * GPU beyond what the model explains (synchronization, stragglers, framework), so
         * that measured and modelled GPUs scale alike */
        int cls, g = nearest_measured(t, jt, p->gpu, n, spread, &cls);
        double tcg = g >= 0 ? tput_compute_s(t, jt, g, n) : -1;
        if (g >= 0 && tcg >= 0) {
            double tm = iter_time(j, tput_profiled(t, jt, g, n, cls), n);
            double ovh = tm - tcg - tput_allreduce_s(t, jt, n, profiled_link(t, jt, g, n, cls));
            if (ovh > 0)
                return rate_of(j, tc + ar + ovh, n);
        }
    }
    return rate_of(j, tc + ar, n);
}

/* The memo's key: 0 when a field is beyond its bits (then the rate is not remembered). */
static uint64_t memo_key(int jt, const struct placement *p)
{
    int spread = p->nodes > 1 && p->workers > 1;
    if (jt < 0 || jt >= 1 << 20 || p->gpu < 0 || p->gpu >= 255 || p->link < -1 ||
        p->link >= 254 || p->workers < 0 || p->workers >= 1 << 22)
        return 0;
    return ((uint64_t)(jt + 1) << 40) | ((uint64_t)p->gpu << 32) |
           ((uint64_t)(p->link + 1) << 24) | ((uint64_t)p->workers << 1) | (uint64_t)spread;
}

double tput_rate(const tput *t, int jt, const struct placement *p)
{
    uint64_t key = memo_key(jt, p);
    if (key == 0)
        return rate_of_placement(t, jt, p);
    const struct meas *m = rt_find(t->memo, key);
    if (m != NULL)
        return m->rate;
    double rate = rate_of_placement(t, jt, p);
    rt_put(t->memo, key, rate);     /* out of memory: the rate is just not remembered */
    return rate;
}

int tput_step_split(const tput *t, int jt, const struct placement *p, double *step,
                    double *sync, double *fixed)
{
    double r = tput_rate(t, jt, p);
    if (!(r > 0))
        return -1;
    const struct jobtype *j = &t->types[jt].jt;
    *step = iter_time(j, r, p->workers);
    *fixed = 0;
    const struct tput_fit *f = tput_fit_of(t, jt, p->gpu);
    if (f != NULL && tput_measured(t, jt, p->gpu, p->workers, p->nodes > 1) < 0) {
        /* the fit tells its compute apart: what is left of the step is exposed sync */
        double b = j->scaling == JT_STRONG ? (double)j->batch / p->workers : j->batch;
        double compute = f->step_s + f->sample_s * b;
        *sync = fmax(0, fmin(*step - compute, *step));
        *fixed = fmin(f->step_s, *step - *sync);
        return 0;
    }
    *sync = j->params_m > 0 ? fmin(tput_allreduce_s(t, jt, p->workers, p->link), *step) : 0;
    return 0;
}

double tput_restore_s(const tput *t, int jt, double fixed_s, double storage_gbs)
{
    double gb = t->types[jt].jt.ckpt_gb;
    return fixed_s + (storage_gbs > 0 ? gb / storage_gbs : 0);
}

int tput_write_profile(const tput *t, const char *path, struct errbuf *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return err_run(err, "%s: cannot write", path);
    fprintf(f, "job_type,gpu,workers,placement,iters_per_s\n");
    /* deterministic order: job type, GPU, workers, class */
    for (int jt = 0; jt < t->ntypes; jt++)
        for (int g = 0; g < catalog_ngpus(t->cat); g++)
            for (int w = 1; w <= 4096; w++)
                for (int s = 0; s <= (w > 1); s++) {
                    double m = tput_measured(t, jt, g, w, s);
                    if (m >= 0)
                        fprintf(f, "\"%s\",%s,%d,%s,%.17g\n", t->types[jt].jt.name,
                                catalog_gpu(t->cat, g)->name, w, s ? "spread" : "consolidated", m);
                }
    if (fclose(f) != 0)
        return err_run(err, "%s: write failed", path);
    return 0;
}
