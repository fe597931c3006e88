/*
 * nodes: an openb node list into memory (see the header).  O(nodes) with a hash set of the
 * names for duplicates.
 */
#define _POSIX_C_SOURCE 200809L
#include "nodes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/grow.h"
#include "../base/tio.h"
#include "openb.h"

enum col { C_SN, C_CPU, C_MEM, C_GPU, C_MODEL, C_N };
static const char *const colnames[] = { "sn", "cpu_milli", "memory_mib", "gpu", "model", NULL };
static const struct openb_cols cols = { colnames, 0x1f, "node list" };

enum { SN_MAX = 255, MODEL_MAX = 63 };

void nodes_free(struct nodes *ns)
{
    if (ns == NULL)
        return;
    for (int i = 0; i < ns->n; i++)
        free(ns->v[i].sn);
    for (int m = 0; m < ns->nmodels; m++)
        free(ns->models[m]);
    free(ns->v);
    free(ns);
}

int nodes_model(const struct nodes *ns, const char *name)
{
    for (int m = 0; m < ns->nmodels; m++)
        if (strcmp(ns->models[m], name) == 0)
            return m;
    return -1;
}

static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

static int model_name_ok(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
            return 0;
    return 1;
}

/* "A, B, C": the list's models */
static void model_list(const struct nodes *ns, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int m = 0; m < ns->nmodels && n < cap; m++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", m ? ", " : "", ns->models[m]);
}

int nodes_spec_mask(const struct nodes *ns, const char *spec, const char *file, long line,
                    uint64_t *mask, struct errbuf *err)
{
    *mask = 0;
    const char *p = spec;
    while (*p) {
        size_t k = strcspn(p, "|");
        if (k > 0) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(k < 127 ? k : 127), p);
            int m = k < 127 ? nodes_model(ns, name) : -1;
            if (m < 0) {
                char have[1024];
                model_list(ns, have, sizeof have);
                return err_input(err, file, line, "gpu_spec", "unknown GPU model '%s' (the "
                                 "node list has: %s)", name, have);
            }
            *mask |= UINT64_C(1) << m;
        }
        p += k;
        if (*p == '|')
            p++;
    }
    return 0;
}

/* the names seen, for duplicates: open addressing over indices into v (+1; 0 empty) */
struct nameset {
    int   *slot;
    size_t cap;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* the earlier node named like v[i], or -1; -2 out of memory */
static int nameset_add(struct nameset *s, const struct nodes_node *v, int i)
{
    if (2 * ((size_t)i + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 256;
        int *ns = calloc(nc, sizeof *ns);
        if (ns == NULL)
            return -2;
        for (int k = 0; k < i; k++) {
            size_t j = hash(v[k].sn) & (nc - 1);
            while (ns[j] != 0)
                j = (j + 1) & (nc - 1);
            ns[j] = k + 1;
        }
        free(s->slot);
        s->slot = ns;
        s->cap = nc;
    }
    size_t j = hash(v[i].sn) & (s->cap - 1);
    for (; s->slot[j] != 0; j = (j + 1) & (s->cap - 1))
        if (strcmp(v[s->slot[j] - 1].sn, v[i].sn) == 0)
            return s->slot[j] - 1;
    s->slot[j] = i + 1;
    return -1;
}

static int read_row(struct nodes *ns, const char *path, long ln, char **f, const int *pos,
                    struct nodes_node *nd, struct errbuf *err)
{
    const char *sn = f[pos[C_SN]], *model = f[pos[C_MODEL]];
    int64_t gpus;
    if (openb_name(path, ln, "sn", sn, SN_MAX, err) < 0 ||
        openb_int(path, ln, "cpu_milli", f[pos[C_CPU]], 1, INT64_C(1) << 40,
                  "a milli-CPU count >= 1", &nd->cpu_milli, err) < 0 ||
        openb_int(path, ln, "memory_mib", f[pos[C_MEM]], 1, INT64_C(1) << 40,
                  "a memory size in MiB >= 1", &nd->mem_mib, err) < 0 ||
        openb_int(path, ln, "gpu", f[pos[C_GPU]], 0, 1 << 20, "a GPU count >= 0", &gpus,
                  err) < 0)
        return -1;
    if (gpus == 0)
        return err_input(err, path, ln, "gpu", "node '%s' has no GPUs: the placement world "
                         "places pods on GPU nodes (FGD's experiments use the GPU-node list, "
                         "openb_node_list_gpu_node.csv)", sn);
    if (gpus > PLACE_MAX_GPUS)
        return err_input(err, path, ln, "gpu", "%lld GPUs: at most %d per node",
                         (long long)gpus, PLACE_MAX_GPUS);
    if (blank(model))
        return err_input(err, path, ln, "model", "empty: a node with GPUs names their model");
    if (!model_name_ok(model) || strlen(model) > MODEL_MAX)
        return err_input(err, path, ln, "model", "'%s' is not a GPU model name (letters, "
                         "digits, '.', '_' and '-', at most %d)", model, MODEL_MAX);
    int m = nodes_model(ns, model);
    if (m < 0) {
        if (ns->nmodels == PLACE_MAX_MODELS)
            return err_input(err, path, ln, "model", "more than %d GPU models in one node list",
                             PLACE_MAX_MODELS);
        if ((ns->models[ns->nmodels] = strdup(model)) == NULL)
            return err_run(err, "out of memory");
        m = ns->nmodels++;
    }
    nd->ngpus = (int)gpus;
    nd->model = m;
    nd->line = ln;
    if ((nd->sn = strdup(sn)) == NULL)
        return err_run(err, "out of memory");
    return 0;
}

int nodes_load(struct nodes **out, const char *path, struct errbuf *err)
{
    *out = NULL;
    struct nodes *ns = calloc(1, sizeof *ns);
    tio *r = NULL;
    struct nameset seen = { 0 };
    int pos[C_N], ncols, rc, cap = 0, failed = 0;
    char *f[OPENB_MAX_FIELDS];
    long ln;
    if (ns == NULL)
        return err_run(err, "out of memory");
    if (tio_open(&r, path, err) < 0 || openb_header(r, path, &cols, pos, &ncols, err) < 0)
        goto fail;
    while ((rc = openb_row(r, path, ncols, f, &ln, err)) > 0) {
        if (ns->n == cap) {
            cap = cap ? 2 * cap : 256;
            ns->v = grow_array(ns->v, (size_t)cap, sizeof *ns->v, &failed);
            if (failed) {
                err_run(err, "out of memory");
                goto fail;
            }
        }
        struct nodes_node *nd = &ns->v[ns->n];
        memset(nd, 0, sizeof *nd);
        if (read_row(ns, path, ln, f, pos, nd, err) < 0) {
            free(nd->sn);
            goto fail;
        }
        ns->n++;
        int dup = nameset_add(&seen, ns->v, ns->n - 1);
        if (dup == -2) {
            err_run(err, "out of memory");
            goto fail;
        }
        if (dup >= 0) {
            err_input(err, path, ln, "sn", "node '%s' is listed twice (line %ld)", nd->sn,
                      ns->v[dup].line);
            goto fail;
        }
        ns->gpus += nd->ngpus;
        ns->cpu_milli += nd->cpu_milli;
        ns->mem_mib += nd->mem_mib;
    }
    if (rc < 0)
        goto fail;
    if (ns->n == 0) {
        err_input(err, path, 0, NULL, "no nodes after the header");
        goto fail;
    }
    tio_close(r);
    free(seen.slot);
    *out = ns;
    return 0;
fail:
    tio_close(r);
    free(seen.slot);
    nodes_free(ns);
    return -1;
}
