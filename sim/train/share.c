/*
 * share: rates and memory on shared GPUs (see the header for the model and its sources).
 */
#include "share.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/jobj.h"
#include "../base/path.h"

const double share_slice_overhead_default = 0.12;

struct share {
    struct train_speed  hook;
    const tput         *model;
    intf               *intf;
    struct share_params p;
    struct stateff_job *job;        /* by job type */
    int                 ntypes;
};

static const share *of(const struct train_speed *s)
{
    return s->ctx;
}

double share_ns(const share *s, int gpu_type, int gpu, int jt, uint16_t shr, int sliced,
                const struct train_corunner *co, int nco)
{
    int others[64], k = 0;
    if (sliced) {                   /* kernels take turns: the time share, less switching */
        for (int i = 0; i < nco; i++)
            k += co[i].gpu == gpu;
        return shr / 1000.0 * (k > 0 ? 1 - s->p.slice_overhead : 1);
    }
    double pressure = 0;
    for (int i = 0; i < nco; i++) {
        if (co[i].gpu != gpu)
            continue;
        const struct stateff_job *o = &s->job[co[i].jtype];
        double m = co[i].batch > 0 ? co[i].batch : o->m0;
        pressure += pow(m / o->m0, s->p.pressure_exp);
        if (k < (int)(sizeof others / sizeof others[0]))
            others[k++] = co[i].jtype;
    }
    if (k == 0)
        return shr / 1000.0;
    return intf_ns(intf_slowdown(s->intf, gpu_type, jt, others, k), pressure, k, shr);
}

static double rate(const struct train_speed *sp, const cluster *cl, const tput *m,
                   const struct train_speed_query *q)
{
    const share *s = of(sp);
    const struct train_job *j = q->job;
    double solo = train_speed_placed(cl, m, j->jtype, q->gpus, q->ngpu);
    if (!(solo > 0))
        return 0;
    double ns = 1;
    for (int i = 0; i < q->ngpu; i++) {     /* data parallelism: the slowest GPU's pace */
        double x = share_ns(s, cluster_gpu_type(cl, q->gpus[i]), q->gpus[i], j->jtype, q->share,
                            j->sliced, q->co, q->nco);
        if (x < ns)
            ns = x;
    }
    const struct stateff_job *b = &s->job[j->jtype];
    return solo * stateff_progress(b, j->batch > 0 ? j->batch : b->m0, ns);
}

static double mem_gb(const struct train_speed *sp, const tput *m, int jtype, int batch)
{
    (void)m;
    const struct stateff_job *b = &of(sp)->job[jtype];
    return stateff_mem_gb(b, batch > 0 ? batch : b->m0);
}

int share_create(share **out, const tput *model, intf *interference,
                 const struct share_params *p, struct errbuf *err)
{
    *out = NULL;
    share *s = calloc(1, sizeof *s);
    int nt = tput_ntypes(model);
    if (s == NULL || (s->job = calloc((size_t)nt + 1, sizeof *s->job)) == NULL) {
        free(s);
        intf_destroy(interference);
        return err_run(err, "out of memory");
    }
    s->model = model;
    s->intf = interference;
    s->p = *p;
    s->p.gns = NULL;
    s->ntypes = nt;
    for (int t = 0; t < nt; t++) {
        const struct jobtype *jt = tput_type(model, t);
        struct stateff_job *b = &s->job[t];
        b->m0 = jt->batch > 0 ? jt->batch : 1;
        b->gns = p->gns != NULL && p->gns[t] > 0 ? p->gns[t] : p->gns_ratio * b->m0;
        b->overhead = p->overhead;
        double fixed = p->context_gb + 16e-3 * jt->params_m;
        if (jt->mem_gb > fixed) {
            b->fixed_gb = fixed;
            b->per_sample_gb = (jt->mem_gb - fixed) / b->m0;
        } else {
            b->fixed_gb = jt->mem_gb / 2;
            b->per_sample_gb = jt->mem_gb / 2 / b->m0;
        }
    }
    s->hook = (struct train_speed){ .name = "shared", .corunners = 1, .rate = rate, .ctx = s,
                                    .mem_gb = mem_gb };
    *out = s;
    return 0;
}

void share_destroy(share *s)
{
    if (s == NULL)
        return;
    intf_destroy(s->intf);
    free(s->job);
    free(s);
}

const struct train_speed *share_speed(const share *s)
{
    return &s->hook;
}

const struct stateff_job *share_job(const share *s, int jt)
{
    return &s->job[jt];
}

/* ---------------------------------------------------------------- configuration */

static const char *const mux_keys[] = { "interference", "overhead", "gns_ratio", "pressure_exp",
                                        "context_gb", "slice_overhead", "gns", "factorisation",
                                        NULL };
static const char *const src_keys[] = { "format", "path", "gpu", "models", NULL };
static const char *const mf_keys[] = { "rank", "lr", "reg", "epochs", "seed", NULL };

int share_read(struct share_config *c, const struct jobj *root, const char *base_dir,
               struct errbuf *err)
{
    static const char *const formats[] = { "gavel", "iadeep", "lucid", NULL };
    memset(c, 0, sizeof *c);
    /* slice_overhead 0.12: Tally (tally-bench tally_results_demo, one A100; calibration only,
     * its licence is not stated) co-locates an inference server at half load with a training
     * job under CUDA time slicing; where the training job keeps the GPU busy alone (solo
     * gpu_util >= 85%: 10 of its 12 pairs), the GPU time both get, sum_j util_j x
     * throughput_j (each normalised to solo), is 0.877 on average (sd 0.011): 12.3% of the
     * time is lost to switching.  The whisper pairs (50% solo use) are left out: there the
     * GPU is not the bottleneck.  tests/test_mux.c (share/slice_overhead_from_tally) refits
     * it from ../shared. */
    c->p = (struct share_params){ .overhead = 0.1, .gns_ratio = 4,
                                  .pressure_exp = intf_pressure_exp_default, .context_gb = 0.5,
                                  .slice_overhead = share_slice_overhead_default };
    c->mf = intf_mf_default;
    c->mf_seed = 1;
    struct jobj mx, mf;
    if (jobj_obj(&mx, root, "multiplex", JOPT, err) < 0)
        return -1;
    if (mx.node == NULL)
        return 0;
    c->on = 1;
    snprintf(c->at, sizeof c->at, "%s", mx.path);
    const cJSON *arr = NULL;
    int64_t rank = c->mf.rank, epochs = c->mf.epochs, seed = 1;
    if (jobj_known(&mx, mux_keys, err) < 0 ||
        jobj_num(&mx, "overhead", JOPT, 0, 0.99, &c->p.overhead, err) < 0 ||
        jobj_num(&mx, "gns_ratio", JOPT, 1e-3, 1e6, &c->p.gns_ratio, err) < 0 ||
        jobj_num(&mx, "pressure_exp", JOPT, 0, 4, &c->p.pressure_exp, err) < 0 ||
        jobj_num(&mx, "context_gb", JOPT, 0, 64, &c->p.context_gb, err) < 0 ||
        jobj_num(&mx, "slice_overhead", JOPT, 0, 0.99, &c->p.slice_overhead, err) < 0 ||
        jobj_arr(&mx, "interference", JREQ, &arr, err) < 0 ||
        jobj_obj(&mf, &mx, "factorisation", JOPT, err) < 0)
        return -1;
    if (mf.node != NULL &&
        (jobj_known(&mf, mf_keys, err) < 0 ||
         jobj_int(&mf, "rank", JOPT, 1, 16, &rank, err) < 0 ||
         jobj_num(&mf, "lr", JOPT, 0, 1, &c->mf.lr, err) < 0 ||
         jobj_num(&mf, "reg", JOPT, 0, 100, &c->mf.reg, err) < 0 ||
         jobj_int(&mf, "epochs", JOPT, 0, 100000, &epochs, err) < 0 ||
         jobj_int(&mf, "seed", JOPT, 0, INT64_MAX, &seed, err) < 0))
        return -1;
    c->mf.rank = (int)rank;
    c->mf.epochs = (int)epochs;
    c->mf_seed = (uint64_t)seed;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        struct jobj s;
        const char *path = NULL, *gpu = NULL;
        if (c->nsrc == SHARE_MAX_SOURCES)
            return jsonf_error(root->doc, e, JOBJ_FIELD(&mx, "interference"), err,
                               "at most %d tables", SHARE_MAX_SOURCES);
        int k = c->nsrc;
        if (jobj_elem(&s, &mx, "interference", e, k, err) < 0 || jobj_known(&s, src_keys, err) < 0 ||
            jobj_enum(&s, "format", JREQ, formats, &c->src[k].format, err) < 0 ||
            jobj_str(&s, "path", JREQ, &path, err) < 0 ||
            jobj_str(&s, "gpu", c->src[k].format != 0 ? JREQ : JOPT, &gpu, err) < 0)
            return -1;
        const cJSON *map = cJSON_GetObjectItemCaseSensitive(e, "models");
        if (map != NULL && c->src[k].format != 2)
            return jsonf_error(root->doc, map, JOBJ_FIELD(&mx, "interference.models"), err,
                               "only Lucid's pairs (format lucid) map their model names");
        if (map != NULL && !cJSON_IsObject(map))
            return jsonf_error(root->doc, map, JOBJ_FIELD(&mx, "interference.models"), err,
                               "an object: Lucid's model name -> hetsim job type");
        const cJSON *me;
        c->src[k].nmap = 0;
        cJSON_ArrayForEach(me, map) {
            int x = c->src[k].nmap;
            if (x == SHARE_MAX_MAP)
                return jsonf_error(root->doc, me, JOBJ_FIELD(&mx, "interference.models"), err,
                                   "at most %d models", SHARE_MAX_MAP);
            if (!cJSON_IsString(me) || strlen(me->string) >= 64 || strlen(me->valuestring) >= 64)
                return jsonf_error(root->doc, me, JOBJ_FIELD(&mx, "interference.models"), err,
                                   "'%s': a job type name (a string of fewer than 64 characters)",
                                   me->string);
            snprintf(c->src[k].map[x][0], 64, "%s", me->string);
            snprintf(c->src[k].map[x][1], 64, "%s", me->valuestring);
            const char *mfile;
            jsonf_where(root->doc, me, &mfile, &c->src[k].map_line[x]);
            c->src[k].nmap++;
        }
        if (c->src[k].format == 0 && gpu != NULL)
            return jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(e, "gpu"),
                               JOBJ_FIELD(&mx, "interference.gpu"), err, "Gavel's pairs name their "
                               "GPU type on every row (worker_type): no gpu field");
        if (path_resolve(c->src[k].path, sizeof c->src[k].path, base_dir, path) < 0)
            return jsonf_error(root->doc, cJSON_GetObjectItemCaseSensitive(e, "path"),
                               JOBJ_FIELD(&mx, "interference.path"), err, "'%s' not found (looked "
                               "next to the experiment, in the current directory and under %s)",
                               path, path_data_root());
        snprintf(c->src[k].gpu, sizeof c->src[k].gpu, "%s", gpu ? gpu : "");
        const char *file = NULL;
        jsonf_where(root->doc, e, &file, &c->src[k].line);
        snprintf(c->src[k].file, sizeof c->src[k].file, "%s", file ? file : "");
        c->nsrc++;
    }
    if (c->nsrc == 0)
        return jsonf_error(root->doc, arr, JOBJ_FIELD(&mx, "interference"), err,
                           "needs at least one table");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(mx.node, "gns");
    if (g != NULL && !cJSON_IsObject(g))
        return jsonf_error(root->doc, g, JOBJ_FIELD(&mx, "gns"), err,
                           "an object: job type -> gradient noise scale (samples)");
    cJSON_ArrayForEach(e, g) {
        if (c->ngns == SHARE_MAX_GNS)
            return jsonf_error(root->doc, e, JOBJ_FIELD(&mx, "gns"), err, "at most %d job types",
                               SHARE_MAX_GNS);
        if (!cJSON_IsNumber(e) || !(e->valuedouble > 0) || e->valuedouble > 1e9)
            return jsonf_error(root->doc, e, JOBJ_FIELD(&mx, "gns"), err, "'%s': a gradient "
                               "noise scale in samples, > 0", e->string);
        const char *file;
        snprintf(c->gns[c->ngns].name, sizeof c->gns[c->ngns].name, "%s", e->string);
        c->gns[c->ngns].gns = e->valuedouble;
        jsonf_where(root->doc, e, &file, &c->gns[c->ngns].line);
        snprintf(c->gns[c->ngns].file, sizeof c->gns[c->ngns].file, "%s", file ? file : "");
        c->ngns++;
    }
    return 0;
}

/* The path of a field of c's "multiplex" section, into a buffer of the caller's block. */
static const char *mux_field(const struct share_config *c, const char *rel, char *buf,
                             size_t cap)
{
    snprintf(buf, cap, "%s.%s", c->at, rel);
    return buf;
}
#define MUX_FIELD(c, rel) mux_field((c), (rel), (char[256]){ 0 }, 256)

int share_open(share **out, const struct share_config *c, const tput *model,
               struct errbuf *err)
{
    *out = NULL;
    const catalog *cat = tput_catalog(model);
    intf *m;
    int nt = tput_ntypes(model);
    if (intf_create(&m, nt, catalog_ngpus(cat)) < 0)
        return err_run(err, "out of memory");
    for (int i = 0; i < c->nsrc; i++) {
        int rc;
        const char *map[2 * SHARE_MAX_MAP];
        for (int k = 0; k < c->src[i].nmap; k++) {
            map[2 * k] = c->src[i].map[k][0];
            map[2 * k + 1] = c->src[i].map[k][1];
            if (tput_find(model, map[2 * k + 1]) < 0) {
                intf_destroy(m);
                return err_input(err, c->src[i].file, c->src[i].map_line[k],
                                 MUX_FIELD(c, "interference.models"), "'%s' is not a known job "
                                 "type (hetsim list models)", map[2 * k + 1]);
            }
        }
        if (c->src[i].format == 0) {
            rc = intf_load_gavel(m, model, c->src[i].path, err);
        } else {
            int gpu = catalog_gpu_find(cat, c->src[i].gpu);
            rc = gpu < 0 ? err_input(err, c->src[i].file, c->src[i].line,
                                     MUX_FIELD(c, "interference.gpu"), "'%s' is not a GPU type of "
                                     "the catalog (hetsim list gpus)", c->src[i].gpu)
                         : c->src[i].format == 1
                         ? intf_load_iadeep(m, model, c->src[i].path, gpu, err)
                         : intf_load_lucid(m, model, c->src[i].path, gpu, map, c->src[i].nmap,
                                           err);
        }
        if (rc < 0) {
            intf_destroy(m);
            return -1;
        }
    }
    if (intf_fit(m, &c->mf, c->mf_seed, err) < 0) {
        intf_destroy(m);
        return -1;
    }
    double *gns = calloc((size_t)nt + 1, sizeof *gns);
    if (gns == NULL) {
        intf_destroy(m);
        return err_run(err, "out of memory");
    }
    for (int i = 0; i < c->ngns; i++) {
        int t = tput_find(model, c->gns[i].name);
        if (t < 0) {
            free(gns);
            intf_destroy(m);
            return err_input(err, c->gns[i].file, c->gns[i].line, MUX_FIELD(c, "gns"),
                             "'%s' is not a known job type (hetsim list models)",
                             c->gns[i].name);
        }
        gns[t] = c->gns[i].gns;
    }
    struct share_params p = c->p;
    p.gns = gns;
    int rc = share_create(out, model, m, &p, err);
    free(gns);
    return rc;
}
