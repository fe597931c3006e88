/*
 * catalog: reads the GPU and link catalogs and answers lookups by name.
 * Every field is checked: numbers in range, link references of the right scope, names and
 * aliases unique, "source"/"price_source" naming an entry of the file's "sources", and an
 * NVSwitch only for a GPU with NVLink, carrying no more than that NVLink.
 * Lookups are linear over a few dozen entries; callers resolve names once, at load time.
 */
#define _POSIX_C_SOURCE 200809L
#include "catalog.h"

#include <assert.h>
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

int catalog_gpu_intra_ok(const catalog *c, int gpu, int link)
{
    assert(gpu >= 0 && gpu < c->ngpus);
    const struct gpu_spec *g = &c->gpus[gpu];
    if (link < 0 || link >= c->nlinks || c->links[link].scope != LINK_INTRA)
        return 0;
    if (link == g->nvlink || link == g->nvswitch || link == g->pcie)
        return 1;
    if (c->links[link].bw_gbs > c->links[g->pcie].bw_gbs)
        return 0;
    for (int i = 0; i < c->ngpus; i++)
        if (c->gpus[i].pcie == link)
            return 1;       /* an older PCIe generation: the GPU runs at the host's speed */
    return 0;
}

void catalog_gpu_intra_list(const catalog *c, int gpu, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nlinks; i++) {
        if (!catalog_gpu_intra_ok(c, gpu, i))
            continue;
        size_t need = strlen(c->links[i].name) + (n ? 2 : 0);
        if (n + need + 4 >= cap) {
            snprintf(buf + n, cap - n, "%s...", n ? ", " : "");
            return;
        }
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", c->links[i].name);
    }
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

/* The file's "sources" object: every member a citation string.  src->node is NULL if absent. */
static int read_sources(const struct jobj *root, struct jobj *src, struct errbuf *err)
{
    if (jobj_obj(src, root, "sources", JOPT, err) < 0)
        return -1;
    for (const cJSON *m = src->node ? src->node->child : NULL; m != NULL; m = m->next) {
        const char *text;
        if (jobj_str(src, m->string, JREQ, &text, err) < 0)
            return -1;
    }
    return 0;
}

/* An entry's citation field `key`: optional, but when given it names a member of "sources". */
static int source_ref(const struct jobj *src, const struct jobj *o, const char *key,
                      struct errbuf *err)
{
    const char *name = NULL;
    if (jobj_str(o, key, JOPT, &name, err) < 0)
        return -1;
    if (name == NULL ||
        (src->node != NULL && cJSON_GetObjectItemCaseSensitive(src->node, name) != NULL))
        return 0;
    char p[256];
    snprintf(p, sizeof p, "%s.%s", o->path, key);
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(o->node, key);
    int n = src->node ? cJSON_GetArraySize(src->node) : 0;
    const char **keys = malloc((size_t)(n + 1) * sizeof *keys);
    if (keys == NULL)
        return err_run(err, "out of memory");
    int k = 0;
    for (const cJSON *m = src->node ? src->node->child : NULL; m != NULL; m = m->next)
        keys[k++] = m->string;
    keys[k] = NULL;
    const char *hint = jsonf_suggest(name, keys);
    int rc = jsonf_error(o->doc, node, p, err, "'%s' is not an entry of \"sources\"%s%s%s", name,
                         hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    free(keys);
    return rc;
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
    struct jobj root, src;
    const cJSON *arr;
    const char *note;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_str(&root, "note", JOPT, &note, err) < 0 || read_sources(&root, &src, err) < 0 ||
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
            jobj_num(&o, "lat_us", JREQ, 0, 1e6, &l->lat_us, err) < 0 ||
            source_ref(&src, &o, "source", err) < 0 ||
            jobj_str(&o, "note", JOPT, &note, err) < 0)
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

int catalog_link_field(const catalog *cat, const struct jobj *o, const char *key, int scope,
                       int *out, struct errbuf *err)
{
    const char *name = NULL;
    if (jobj_str(o, key, JOPT, &name, err) < 0)
        return -1;
    if (name == NULL)
        return 0;
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(o->node, key);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", o->path, o->path[0] ? "." : "", key);
    int id = catalog_link_find(cat, name);
    if (id >= 0 && catalog_link(cat, id)->scope != scope)
        return jsonf_error(o->doc, node, p, err, "'%s' is an %s-node link; this field needs an "
                           "%s-node link", name, scope == LINK_INTRA ? "inter" : "intra",
                           scope == LINK_INTRA ? "intra" : "inter");
    if (id < 0) {
        /* the candidates of the right scope, for a suggestion and the list of known links */
        int nl = catalog_nlinks(cat), k = 0;
        const char **cand = malloc((size_t)(nl + 1) * sizeof *cand);
        if (cand == NULL)
            return err_run(err, "out of memory");
        for (int i = 0; i < nl; i++)
            if (catalog_link(cat, i)->scope == scope)
                cand[k++] = catalog_link(cat, i)->name;
        cand[k] = NULL;
        const char *hint = jsonf_suggest(name, cand);
        char list[512] = "";
        for (int i = 0; i < k; i++) {
            size_t n = strlen(list);
            if (n + strlen(cand[i]) + 8 >= sizeof list) {
                snprintf(list + n, sizeof list - n, "%s...", i ? ", " : "");
                break;
            }
            snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", cand[i]);
        }
        const char *what = scope == LINK_INTRA ? "intra" : "inter";
        int rc = hint != NULL
                     ? jsonf_error(o->doc, node, p, err, "unknown %s-node link '%s' (did you "
                                   "mean '%s'?)", what, name, hint)
                     : jsonf_error(o->doc, node, p, err, "unknown %s-node link '%s'; known: %s",
                                   what, name, list);
        free(cand);
        return rc;
    }
    *out = id;
    return 0;
}

static int load_gpus(catalog *c, const char *path, struct errbuf *err)
{
    static const char *const top_keys[] = { "gpus", "sources", "note", NULL };
    static const char *const keys[] = { "name",   "aliases",    "vendor",     "arch",
                                        "mem_gb", "fp32_tflops", "fp16_tflops", "mem_bw_gbs",
                                        "nvlink", "nvswitch",    "pcie",       "price_hr",
                                        "source", "price_source", "note",      NULL };
    jsonf *doc;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root, src;
    const cJSON *arr;
    const char *text;
    int rc = -1;
    if (jobj_root(&root, doc, err) < 0 || jobj_known(&root, top_keys, err) < 0 ||
        jobj_str(&root, "note", JOPT, &text, err) < 0 || read_sources(&root, &src, err) < 0 ||
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
        g->nvlink = g->nvswitch = g->pcie = -1;     /* none unless named */
        if (jobj_elem(&o, &root, "gpus", e, i, err) < 0 || jobj_known(&o, keys, err) < 0 ||
            jobj_str(&o, "name", JREQ, &name, err) < 0 ||
            copy_name(g->name, name, &o, "name", err) < 0 ||
            jobj_num(&o, "mem_gb", JREQ, 0.1, 1e5, &g->mem_gb, err) < 0 ||
            jobj_num(&o, "fp32_tflops", JREQ, 1e-3, 1e5, &g->fp32_tflops, err) < 0 ||
            jobj_num(&o, "fp16_tflops", JREQ, 1e-3, 1e5, &g->fp16_tflops, err) < 0 ||
            jobj_num(&o, "mem_bw_gbs", JREQ, 1e-3, 1e6, &g->mem_bw_gbs, err) < 0 ||
            jobj_num(&o, "price_hr", JREQ, 0, 1e4, &g->price_hr, err) < 0 ||
            catalog_link_field(c, &o, "nvlink", LINK_INTRA, &g->nvlink, err) < 0 ||
            catalog_link_field(c, &o, "nvswitch", LINK_INTRA, &g->nvswitch, err) < 0 ||
            catalog_link_field(c, &o, "pcie", LINK_INTRA, &g->pcie, err) < 0 ||
            jobj_arr(&o, "aliases", JOPT, &aliases, err) < 0 ||
            jobj_str(&o, "vendor", JOPT, &text, err) < 0 ||
            jobj_str(&o, "arch", JOPT, &text, err) < 0 ||
            source_ref(&src, &o, "source", err) < 0 ||
            source_ref(&src, &o, "price_source", err) < 0 ||
            jobj_str(&o, "note", JOPT, &text, err) < 0)
            goto out;
        if (g->nvswitch >= 0) {
            /* an NVSwitch joins NVLink ports: no NVLink, no switch; and a GPU pushes no more
             * through the switch than its own NVLinks carry */
            char p[256];
            snprintf(p, sizeof p, "%s.nvswitch", o.path);
            const cJSON *node = cJSON_GetObjectItemCaseSensitive(e, "nvswitch");
            const struct link_spec *sw = &c->links[g->nvswitch];
            if (g->nvlink < 0) {
                jsonf_error(doc, node, p, err, "'%s' needs NVLink, and this GPU type has no "
                            "\"nvlink\"", sw->name);
                goto out;
            }
            const struct link_spec *nv = &c->links[g->nvlink];
            if (sw->bw_gbs > nv->bw_gbs) {
                jsonf_error(doc, node, p, err, "'%s' carries %g GB/s per GPU, more than the "
                            "GPU's own NVLink '%s' (%g GB/s)", sw->name, sw->bw_gbs, nv->name,
                            nv->bw_gbs);
                goto out;
            }
        }
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
            if (!cJSON_IsString(al) || al->valuestring[0] == '\0' ||
                strlen(al->valuestring) >= CATALOG_NAME_MAX || a >= CATALOG_MAX_ALIASES) {
                jsonf_error(doc, al, p, err, "must be a short non-empty string (at most %d "
                            "aliases)", CATALOG_MAX_ALIASES);
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
