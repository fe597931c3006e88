/*
 * catalog: reads the GPU and link catalogs and answers lookups by name.
 * Lookups are linear over a few dozen entries; callers resolve names once, at load time.
 */
#define _POSIX_C_SOURCE 200809L
#include "catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../sim/base/jobj.h"

struct catalog {
    struct gpu_spec  *gpus;
    int               ngpus;
    struct link_spec *links;
    int               nlinks;
};

int catalog_ngpus(const catalog *c) { return c->ngpus; }
int catalog_nlinks(const catalog *c) { return c->nlinks; }
const struct gpu_spec *catalog_gpu(const catalog *c, int id) { return &c->gpus[id]; }
const struct link_spec *catalog_link(const catalog *c, int id) { return &c->links[id]; }

int catalog_gpu_find(const catalog *c, const char *name)
{
    for (int i = 0; i < c->ngpus; i++) {
        if (strcasecmp(c->gpus[i].name, name) == 0)
            return i;
        for (int a = 0; a < c->gpus[i].naliases; a++)
            if (strcasecmp(c->gpus[i].aliases[a], name) == 0)
                return i;
    }
    return -1;
}

int catalog_link_find(const catalog *c, const char *name)
{
    for (int i = 0; i < c->nlinks; i++)
        if (strcasecmp(c->links[i].name, name) == 0)
            return i;
    return -1;
}

void catalog_gpu_names(const catalog *c, const char **out)
{
    for (int i = 0; i < c->ngpus; i++)
        out[i] = c->gpus[i].name;
    out[c->ngpus] = NULL;
}

void catalog_link_names(const catalog *c, const char **out)
{
    for (int i = 0; i < c->nlinks; i++)
        out[i] = c->links[i].name;
    out[c->nlinks] = NULL;
}

static int copy_name(char *dst, const char *src, const struct jobj *o, const char *key,
                     struct errbuf *err)
{
    if (strlen(src) >= CATALOG_NAME_MAX) {
        char p[256];
        snprintf(p, sizeof p, "%s.%s", o->path, key);
        return jsonf_error(o->doc, o->node, p, err, "longer than %d characters",
                           CATALOG_NAME_MAX - 1);
    }
    strcpy(dst, src);
    return 0;
}

static int load_links(catalog *c, const char *path, struct errbuf *err)
{
    static const char *const top_keys[] = { "links", "sources", "note", NULL };
    static const char *const keys[] = { "name", "scope", "bw_gbs", "lat_us", "source", "note",
                                        NULL };
    static const char *const scopes[] = { "intra", "inter", NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    const cJSON *arr;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_arr(&root, "links", JREQ, &arr, err) < 0)
        goto out;
    int n = cJSON_GetArraySize(arr);
    if (n == 0) {
        jsonf_error(doc, arr, "links", err, "empty: at least one link is needed");
        goto out;
    }
    c->links = calloc((size_t)n, sizeof *c->links);
    if (c->links == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj o;
        struct link_spec *l = &c->links[i];
        const char *name = NULL;
        if (jobj_elem(&o, &root, "links", e, i, err) < 0 || jobj_known(&o, keys, err) < 0 ||
            jobj_str(&o, "name", JREQ, &name, err) < 0 ||
            copy_name(l->name, name, &o, "name", err) < 0 ||
            jobj_enum(&o, "scope", JREQ, scopes, &l->scope, err) < 0 ||
            jobj_num(&o, "bw_gbs", JREQ, 1e-6, 1e6, &l->bw_gbs, err) < 0 ||
            jobj_num(&o, "lat_us", JREQ, 0, 1e6, &l->lat_us, err) < 0)
            goto out;
        if (catalog_link_find(c, name) >= 0) {
            jsonf_error(doc, e, o.path, err, "link '%s' is defined twice", name);
            goto out;
        }
        c->nlinks = i + 1;
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

static int link_ref(const catalog *c, const struct jobj *o, const char *key, int want_scope,
                    int *out, struct errbuf *err)
{
    const char *name = NULL;
    *out = -1;
    if (jobj_str(o, key, JOPT, &name, err) < 0)
        return -1;
    if (name == NULL)
        return 0;
    char p[256];
    snprintf(p, sizeof p, "%s.%s", o->path, key);
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(o->node, key);
    int id = catalog_link_find(c, name);
    if (id < 0)
        return jsonf_error(o->doc, node, p, err, "unknown link '%s' (see links.json)", name);
    if (c->links[id].scope != want_scope)
        return jsonf_error(o->doc, node, p, err, "'%s' is not an %s-node link", name,
                           want_scope == LINK_INTRA ? "intra" : "inter");
    *out = id;
    return 0;
}

static int load_gpus(catalog *c, const char *path, struct errbuf *err)
{
    static const char *const top_keys[] = { "gpus", "sources", "note", NULL };
    static const char *const keys[] = { "name",   "aliases",    "vendor",     "arch",
                                        "mem_gb", "fp32_tflops", "fp16_tflops", "mem_bw_gbs",
                                        "nvlink", "pcie",        "price_hr",   "source",
                                        "price_source", "note",  NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    const cJSON *arr;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_arr(&root, "gpus", JREQ, &arr, err) < 0)
        goto out;
    int n = cJSON_GetArraySize(arr);
    if (n == 0) {
        jsonf_error(doc, arr, "gpus", err, "empty: at least one GPU type is needed");
        goto out;
    }
    c->gpus = calloc((size_t)n, sizeof *c->gpus);
    if (c->gpus == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    int i = 0;
    for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
        struct jobj o;
        struct gpu_spec *g = &c->gpus[i];
        const char *name = NULL;
        const cJSON *aliases = NULL;
        if (jobj_elem(&o, &root, "gpus", e, i, err) < 0 || jobj_known(&o, keys, err) < 0 ||
            jobj_str(&o, "name", JREQ, &name, err) < 0 ||
            copy_name(g->name, name, &o, "name", err) < 0 ||
            jobj_num(&o, "mem_gb", JREQ, 0.1, 1e5, &g->mem_gb, err) < 0 ||
            jobj_num(&o, "fp32_tflops", JREQ, 1e-3, 1e5, &g->fp32_tflops, err) < 0 ||
            jobj_num(&o, "fp16_tflops", JREQ, 1e-3, 1e5, &g->fp16_tflops, err) < 0 ||
            jobj_num(&o, "mem_bw_gbs", JREQ, 1e-3, 1e6, &g->mem_bw_gbs, err) < 0 ||
            jobj_num(&o, "price_hr", JREQ, 0, 1e4, &g->price_hr, err) < 0 ||
            link_ref(c, &o, "nvlink", LINK_INTRA, &g->nvlink, err) < 0 ||
            link_ref(c, &o, "pcie", LINK_INTRA, &g->pcie, err) < 0 ||
            jobj_arr(&o, "aliases", JOPT, &aliases, err) < 0)
            goto out;
        if (g->pcie < 0) {
            char p[256];
            snprintf(p, sizeof p, "%s.pcie", o.path);
            jsonf_error(doc, e, p, err, "required field is missing");
            goto out;
        }
        int a = 0;
        for (const cJSON *al = aliases ? aliases->child : NULL; al != NULL; al = al->next, a++) {
            char p[256];
            snprintf(p, sizeof p, "%s.aliases[%d]", o.path, a);
            if (!cJSON_IsString(al) || strlen(al->valuestring) >= CATALOG_NAME_MAX ||
                a >= CATALOG_MAX_ALIASES) {
                jsonf_error(doc, al, p, err, "must be a short string (at most %d aliases)",
                            CATALOG_MAX_ALIASES);
                goto out;
            }
            strcpy(g->aliases[a], al->valuestring);
        }
        g->naliases = a;
        c->ngpus = i;   /* lookups below see only the earlier entries */
        if (catalog_gpu_find(c, name) >= 0) {
            jsonf_error(doc, e, o.path, err, "GPU type '%s' is defined twice", name);
            goto out;
        }
        for (int k = 0; k < g->naliases; k++)
            if (catalog_gpu_find(c, g->aliases[k]) >= 0) {
                jsonf_error(doc, e, o.path, err, "alias '%s' already names another GPU",
                            g->aliases[k]);
                goto out;
            }
        c->ngpus = i + 1;
    }
    rc = 0;
out:
    jsonf_destroy(doc);
    return rc;
}

int catalog_load(catalog **out, const char *gpus_path, const char *links_path, struct errbuf *err)
{
    *out = NULL;
    catalog *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    if (load_links(c, links_path, err) < 0 || load_gpus(c, gpus_path, err) < 0) {
        catalog_destroy(c);
        return -1;
    }
    *out = c;
    return 0;
}

void catalog_destroy(catalog *c)
{
    if (c == NULL)
        return;
    free(c->gpus);
    free(c->links);
    free(c);
}
