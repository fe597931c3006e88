/*
 * cluster: reads node groups and lays out nodes and GPUs.
 * Input checks beyond types and ranges: a group's intra-node link must be one its GPU type can
 * have (catalog_gpu_intra_ok: no T4 on NVLink, no K80 on NVSwitch, no PCIe 3 GPU at PCIe 4
 * speed), and no two groups may be given the same name.  A group without "gpu" is a CPU node
 * group ("cpus", "memory_gb"): it takes none of the GPU fields, needs no network, and is not
 * laid out into GPU nodes (cluster_cpu_group lists it).  A GPU group's "host_cpus" and
 * "host_memory_gb" (cores and GB each server leaves to containers) come together: both 0 (the
 * default) or both positive.
 * Invariants: nodes[k].first + nodes[k].ngpus == nodes[k+1].first; gpu_node is the inverse.
 * Placement queries are O(n) in the GPUs named (a bitmap-free scan with a small node list).
 */
#define _POSIX_C_SOURCE 200809L
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GROUP_NAME_MAX = 64 };

struct group {
    char name[GROUP_NAME_MAX];
    int  named;         /* the name was given (else it is the GPU type's) */
    int  gpu, count, per_node, intra, net;      /* gpu < 0: a CPU group */
    double host_cpus, host_mem;     /* a GPU group: what each server leaves to containers */
};

struct cluster {
    char                 name[128];
    const catalog       *cat;
    struct group        *groups;
    int                  ngroups;
    struct cluster_node *nodes;
    int                  nnodes;
    int                 *gpu_node;
    int                  ngpus;
    int                  types[CLUSTER_MAX_TYPES];
    int                  ntypes;
    int                  type_count[CLUSTER_MAX_TYPES];
    int                  max_per_node;
    struct cluster_cpu_group *cpu;
    int                  ncpu;
    int                  placeholder;   /* "placeholder": true: named, loaded, not simulated */
};

const char *cluster_name(const cluster *c) { return c->name; }
const catalog *cluster_catalog(const cluster *c) { return c->cat; }
int cluster_ngpus(const cluster *c) { return c->ngpus; }
int cluster_placeholder(const cluster *c) { return c->placeholder; }
int cluster_nnodes(const cluster *c) { return c->nnodes; }
int cluster_max_gpus_per_node(const cluster *c) { return c->max_per_node; }
const struct cluster_node *cluster_node(const cluster *c, int node) { return &c->nodes[node]; }
int cluster_ngroups(const cluster *c) { return c->ngroups; }
const char *cluster_group_name(const cluster *c, int group) { return c->groups[group].name; }
int cluster_gpu_node(const cluster *c, int gpu_id) { return c->gpu_node[gpu_id]; }
int cluster_gpu_type(const cluster *c, int gpu_id) { return c->nodes[c->gpu_node[gpu_id]].gpu; }

int cluster_ncpu_groups(const cluster *c) { return c->ncpu; }
const struct cluster_cpu_group *cluster_cpu_group(const cluster *c, int i) { return &c->cpu[i]; }

int cluster_types(const cluster *c, const int **types)
{
    *types = c->types;
    return c->ntypes;
}

int cluster_type_slot(const cluster *c, int gpu)
{
    for (int i = 0; i < c->ntypes; i++)
        if (c->types[i] == gpu)
            return i;
    return -1;
}

int cluster_type_count(const cluster *c, int gpu)
{
    int s = cluster_type_slot(c, gpu);
    return s < 0 ? 0 : c->type_count[s];
}

int cluster_type_max_per_node(const cluster *c, int gpu)
{
    int m = 0;
    for (int g = 0; g < c->ngroups; g++)
        if (gpu >= 0 && c->groups[g].gpu == gpu && c->groups[g].per_node > m)
            m = c->groups[g].per_node;
    return m;
}


/* A node of GPU type `gpu` with intra-node link `link`: physically possible, or an error at
 * g.intra listing the links that type can have (it would otherwise run at the link's speed). */
static int intra_possible(const catalog *cat, const struct jobj *g, int gpu, int link,
                          struct errbuf *err)
{
    if (catalog_gpu_intra_ok(cat, gpu, link))
        return 0;
    char p[256], list[512];
    snprintf(p, sizeof p, "%s.intra", g->path);
    catalog_gpu_intra_list(cat, gpu, list, sizeof list);
    const char *gname = catalog_gpu(cat, gpu)->name;
    return jsonf_error(g->doc, cJSON_GetObjectItemCaseSensitive(g->node, "intra"), p, err,
                       "a %s node cannot have '%s' (links a %s can have: %s)", gname,
                       catalog_link(cat, link)->name, gname, list);
}

/* Group i's given name: it fits, and no earlier group was given the same one. */
static int group_name(cluster *c, int i, const struct jobj *g, const char *gpath,
                      const char *name, struct errbuf *err)
{
    char p[256];
    snprintf(p, sizeof p, "%s.name", g->path);
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(g->node, "name");
    if (strlen(name) >= GROUP_NAME_MAX)
        return jsonf_error(g->doc, node, p, err, "longer than %d characters",
                           GROUP_NAME_MAX - 1);
    for (int k = 0; k < i; k++)
        if (c->groups[k].named && strcmp(c->groups[k].name, name) == 0)
            return jsonf_error(g->doc, node, p, err, "%s[%d] has the name '%s' too: group "
                               "names must differ", gpath, k, name);
    snprintf(c->groups[i].name, sizeof c->groups[i].name, "%s", name);
    c->groups[i].named = 1;
    return 0;
}

/* Group i, which names no "gpu": a CPU node group.  The GPU fields have no meaning there. */
static int cpu_group(cluster *c, int i, const struct jobj *g, const char *gpath,
                     struct errbuf *err)
{
    static const char *const gpu_only[] = { "gpus_per_node", "intra", "host_cpus",
                                            "host_memory_gb", NULL };
    struct group *gr = &c->groups[i];
    struct cluster_cpu_group *cg = &c->cpu[c->ncpu];
    int64_t count = 0;
    for (int k = 0; gpu_only[k] != NULL; k++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(g->node, gpu_only[k]);
        if (n != NULL) {
            char p[256];
            snprintf(p, sizeof p, "%s.%s", g->path, gpu_only[k]);
            return jsonf_error(g->doc, n, p, err, "a CPU node group (no \"gpu\") has no %s%s",
                               gpu_only[k], k >= 2 ? " (its own are cpus and memory_gb)" : "");
        }
    }
    if (jobj_int(g, "count", JREQ, 1, 1000000, &count, err) < 0 ||
        jobj_num(g, "cpus", JREQ, 1e-3, 1e6, &cg->cpus, err) < 0 ||
        jobj_num(g, "memory_gb", JREQ, 1e-3, 1e9, &cg->memory_gb, err) < 0)
        return -1;
    gr->gpu = -1;
    gr->count = (int)count;
    cg->count = (int)count;
    cg->gpu_node = -1;
    snprintf(cg->name, sizeof cg->name, "%s", gr->named ? gr->name : "cpu");
    if (!gr->named)
        snprintf(gr->name, sizeof gr->name, "cpu");
    const char *file;
    jsonf_where(g->doc, g->node, &file, &cg->line);
    snprintf(cg->file, sizeof cg->file, "%s", file);
    snprintf(cg->field, sizeof cg->field, "%s[%d]", gpath, i);
    c->ncpu++;
    return 0;
}

/* Lay out c's GPU groups into nodes and GPU ids, and list its types: 0, -1 (out of
 * memory) or -2 (more than CLUSTER_MAX_TYPES types). */
static int layout(cluster *c)
{
    long nodes = 0, gpus = 0;
    for (int gi = 0; gi < c->ngroups; gi++)
        if (c->groups[gi].gpu >= 0) {
            nodes += c->groups[gi].count;
            gpus += (long)c->groups[gi].count * c->groups[gi].per_node;
        }
    c->nnodes = (int)nodes;
    c->ngpus = (int)gpus;
    /* a CPU-only cluster has no GPU nodes: keep one slot so that the arrays are never NULL */
    c->nodes = calloc((size_t)c->nnodes + 1, sizeof *c->nodes);
    c->gpu_node = calloc((size_t)c->ngpus + 1, sizeof *c->gpu_node);
    if (c->nodes == NULL || c->gpu_node == NULL)
        return -1;
    int node = 0, gid = 0;
    c->max_per_node = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        struct group *gr = &c->groups[gi];
        if (gr->gpu < 0)
            continue;
        if (gr->per_node > c->max_per_node)
            c->max_per_node = gr->per_node;
        for (int k = 0; k < gr->count; k++, node++) {
            c->nodes[node] = (struct cluster_node){ gi, gr->gpu, gid, gr->per_node, gr->intra,
                                                    gr->net };
            for (int q = 0; q < gr->per_node; q++)
                c->gpu_node[gid++] = node;
        }
    }
    /* distinct types in catalog order */
    c->ntypes = 0;
    for (int t = 0; t < catalog_ngpus(c->cat); t++) {
        int cnt = 0;
        for (int gi = 0; gi < c->ngroups; gi++)
            if (c->groups[gi].gpu == t)
                cnt += c->groups[gi].count * c->groups[gi].per_node;
        if (cnt == 0)
            continue;
        if (c->ntypes == CLUSTER_MAX_TYPES)
            return -2;
        c->type_count[c->ntypes] = cnt;
        c->types[c->ntypes++] = t;
    }
    return 0;
}

int cluster_subset(cluster **out, const cluster *c, const int *keep, struct errbuf *err)
{
    *out = NULL;
    cluster *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    *s = (struct cluster){ .cat = c->cat, .placeholder = c->placeholder };
    snprintf(s->name, sizeof s->name, "%s", c->name);
    s->groups = calloc((size_t)c->ngroups + 1, sizeof *s->groups);
    s->cpu = calloc(1, sizeof *s->cpu);
    if (s->groups == NULL || s->cpu == NULL) {
        cluster_destroy(s);
        return err_run(err, "out of memory");
    }
    for (int g = 0; g < c->ngroups; g++)
        if (keep[g] && c->groups[g].gpu >= 0)
            s->groups[s->ngroups++] = c->groups[g];
    if (layout(s) < 0) {
        cluster_destroy(s);
        return err_run(err, "out of memory");
    }
    *out = s;
    return 0;
}

int cluster_cpu_part(cluster **out, const cluster *c, struct errbuf *err)
{
    *out = NULL;
    cluster *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    *s = (struct cluster){ .cat = c->cat, .placeholder = c->placeholder };
    snprintf(s->name, sizeof s->name, "%s", c->name);
    s->groups = calloc((size_t)c->ngroups + 1, sizeof *s->groups);
    s->cpu = calloc((size_t)c->ngroups + 1, sizeof *s->cpu);
    if (s->groups == NULL || s->cpu == NULL) {
        cluster_destroy(s);
        return err_run(err, "out of memory");
    }
    for (int g = 0; g < c->ngroups; g++)
        if (c->groups[g].gpu < 0)
            s->groups[s->ngroups++] = c->groups[g];
    memcpy(s->cpu, c->cpu, (size_t)c->ncpu * sizeof *s->cpu);
    s->ncpu = c->ncpu;
    /* the host parts of the GPU groups, after the CPU groups (each node keeps its number) */
    for (int g = 0, node = 0; g < c->ngroups; g++) {
        const struct group *gr = &c->groups[g];
        if (gr->gpu < 0)
            continue;
        if (gr->host_cpus > 0 && gr->host_mem > 0) {
            struct cluster_cpu_group *h = &s->cpu[s->ncpu++];
            *h = (struct cluster_cpu_group){ .count = gr->count, .cpus = gr->host_cpus,
                                             .memory_gb = gr->host_mem, .gpu_node = node };
            snprintf(h->name, sizeof h->name, "%s", gr->name);
            snprintf(h->field, sizeof h->field, "groups[%d]", g);
        }
        node += gr->count;
    }
    if (layout(s) < 0) {
        cluster_destroy(s);
        return err_run(err, "out of memory");
    }
    *out = s;
    return 0;
}

int cluster_from_json(cluster **out, const catalog *cat, const struct jobj *o,
                      struct errbuf *err)
{
    static const char *const top_keys[] = { "name", "network", "groups", "note", "source",
                                              "placeholder", NULL };
    static const char *const gkeys[] = { "name", "count", "gpu", "gpus_per_node", "intra",
                                         "network", "note", "cpus", "memory_gb",
                                         "host_cpus", "host_memory_gb", NULL };
    *out = NULL;
    cluster *c = calloc(1, sizeof *c);
    if (c == NULL)
        return err_run(err, "out of memory");
    c->cat = cat;
    const char *name = "cluster", *text;
    const cJSON *groups;
    int net = -1;
    if (jobj_known(o, top_keys, err) < 0 || jobj_str(o, "name", JOPT, &name, err) < 0 ||
        jobj_str(o, "note", JOPT, &text, err) < 0 ||
        jobj_str(o, "source", JOPT, &text, err) < 0 ||
        jobj_bool(o, "placeholder", JOPT, &c->placeholder, err) < 0 ||
        catalog_link_field(cat, o, "network", LINK_INTER, &net, err) < 0 ||
        jobj_arr(o, "groups", JREQ, &groups, err) < 0)
        goto fail;
    if (strlen(name) >= sizeof c->name) {
        char p[256];
        snprintf(p, sizeof p, "%s%sname", o->path, o->path[0] ? "." : "");
        jsonf_error(o->doc, cJSON_GetObjectItemCaseSensitive(o->node, "name"), p, err,
                    "longer than %zu characters", sizeof c->name - 1);
        goto fail;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    char gpath[224];
    snprintf(gpath, sizeof gpath, "%s%sgroups", o->path, o->path[0] ? "." : "");
    c->ngroups = cJSON_GetArraySize(groups);
    if (c->ngroups == 0) {
        jsonf_error(o->doc, groups, gpath, err, "at least one node group is needed");
        goto fail;
    }
    c->groups = calloc((size_t)c->ngroups, sizeof *c->groups);
    c->cpu = calloc((size_t)c->ngroups, sizeof *c->cpu);
    if (c->groups == NULL || c->cpu == NULL)
        goto oom;
    long total_nodes = 0, total_gpus = 0;
    int i = 0;
    for (const cJSON *e = groups->child; e != NULL; e = e->next, i++) {
        struct jobj g;
        struct group *gr = &c->groups[i];
        const char *gname = NULL, *gpu = NULL;
        int64_t count = 0, per = 0;
        if (jobj_elem(&g, o, "groups", e, i, err) < 0 || jobj_known(&g, gkeys, err) < 0 ||
            jobj_str(&g, "gpu", JOPT, &gpu, err) < 0 ||
            jobj_str(&g, "name", JOPT, &gname, err) < 0 ||
            jobj_str(&g, "note", JOPT, &text, err) < 0)
            goto fail;
        if (gname != NULL && group_name(c, i, &g, gpath, gname, err) < 0)
            goto fail;
        if (gpu == NULL && (cJSON_GetObjectItemCaseSensitive(e, "cpus") != NULL ||
                            cJSON_GetObjectItemCaseSensitive(e, "memory_gb") != NULL)) {
            if (cpu_group(c, i, &g, gpath, err) < 0)
                goto fail;
            continue;
        }
        static const char *const cpu_only[] = { "cpus", "memory_gb", NULL };
        for (int k = 0; gpu != NULL && cpu_only[k] != NULL; k++) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, cpu_only[k]);
            if (n != NULL) {
                char p[256];
                snprintf(p, sizeof p, "%s.%s", g.path, cpu_only[k]);
                jsonf_error(o->doc, n, p, err, "a GPU node group has no %s (a CPU node group "
                            "gives cpus and memory_gb and no gpu)", cpu_only[k]);
                goto fail;
            }
        }
        if (jobj_str(&g, "gpu", JREQ, &gpu, err) < 0 ||
            jobj_int(&g, "count", JREQ, 1, 1000000, &count, err) < 0 ||
            jobj_int(&g, "gpus_per_node", JREQ, 1, 64, &per, err) < 0 ||
            jobj_num(&g, "host_cpus", JOPT, 0, 1e6, &gr->host_cpus, err) < 0 ||
            jobj_num(&g, "host_memory_gb", JOPT, 0, 1e9, &gr->host_mem, err) < 0)
            goto fail;
        if ((gr->host_cpus > 0) != (gr->host_mem > 0)) {
            const char *given = gr->host_cpus > 0 ? "host_cpus" : "host_memory_gb";
            const char *other = gr->host_cpus > 0 ? "host_memory_gb" : "host_cpus";
            char p[256];
            snprintf(p, sizeof p, "%s.%s", g.path, given);
            jsonf_error(o->doc, cJSON_GetObjectItemCaseSensitive(e, given), p, err,
                        "a server that leaves %s to containers leaves %s too (give both, "
                        "or neither)", given, other);
            goto fail;
        }
        gr->gpu = catalog_gpu_find(cat, gpu);
        if (gr->gpu < 0) {
            const char **names = malloc((size_t)(catalog_ngpus(cat) + 1) * sizeof *names);
            if (names == NULL) {
                err_run(err, "out of memory");
                goto fail;
            }
            catalog_gpu_names(cat, names);
            const char *hint = jsonf_suggest(gpu, names);
            char p[256];
            snprintf(p, sizeof p, "%s.gpu", g.path);
            jsonf_error(o->doc, cJSON_GetObjectItemCaseSensitive(e, "gpu"), p, err,
                        "unknown GPU type '%s'%s%s%s (see `hetsim list gpus`)", gpu,
                        hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
            free(names);
            goto fail;
        }
        const struct gpu_spec *spec = catalog_gpu(cat, gr->gpu);
        gr->intra = spec->nvlink >= 0 ? spec->nvlink : spec->pcie;
        gr->net = net;
        if (catalog_link_field(cat, &g, "intra", LINK_INTRA, &gr->intra, err) < 0 ||
            intra_possible(cat, &g, gr->gpu, gr->intra, err) < 0 ||
            catalog_link_field(cat, &g, "network", LINK_INTER, &gr->net, err) < 0)
            goto fail;
        if (gr->net < 0) {
            jsonf_error(o->doc, e, g.path, err,
                        "no inter-node network: set \"network\" on the cluster or the group");
            goto fail;
        }
        gr->count = (int)count;
        gr->per_node = (int)per;
        if (gname == NULL)
            snprintf(gr->name, sizeof gr->name, "%s", spec->name);
        total_nodes += count;
        total_gpus += count * per;
        if (total_gpus > 4000000) {
            jsonf_error(o->doc, e, g.path, err, "more than 4,000,000 GPUs in all");
            goto fail;
        }
        if (per > c->max_per_node)
            c->max_per_node = (int)per;
    }
    (void)total_nodes;
    int rc = layout(c);
    if (rc == -1)
        goto oom;
    if (rc == -2) {
        jsonf_error(o->doc, groups, gpath, err, "more than %d distinct GPU types",
                    CLUSTER_MAX_TYPES);
        goto fail;
    }
    *out = c;
    return 0;
oom:
    err_run(err, "out of memory");
fail:
    cluster_destroy(c);
    return -1;
}

int cluster_load(cluster **out, const catalog *cat, const char *path, struct errbuf *err)
{
    jsonf *doc;
    *out = NULL;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    struct jobj root;
    int rc = jobj_root(&root, doc, err);
    if (rc == 0)
        rc = cluster_from_json(out, cat, &root, err);
    jsonf_destroy(doc);
    return rc;
}

void cluster_destroy(cluster *c)
{
    if (c == NULL)
        return;
    free(c->groups);
    free(c->cpu);
    free(c->nodes);
    free(c->gpu_node);
    free(c);
}

static double bw(const catalog *cat, int link)
{
    return catalog_link(cat, link)->bw_gbs;
}

void cluster_placement(const cluster *c, const int *ids, int n, struct placement *p, int *mixed)
{
    p->workers = n;
    p->nodes = 0;
    p->link = -1;
    p->gpu = n > 0 ? cluster_gpu_type(c, ids[0]) : -1;
    *mixed = 0;
    int slow = -1, last_node = -1;
    for (int i = 0; i < n; i++) {
        int nd = c->gpu_node[ids[i]];
        const struct cluster_node *node = &c->nodes[nd];
        if (node->gpu != p->gpu)
            *mixed = 1;
        /* count distinct nodes; ids of one node are usually adjacent, so check cheaply first */
        int seen = nd == last_node;
        for (int k = 0; k < i && !seen; k++)
            seen = c->gpu_node[ids[k]] == nd;
        if (!seen)
            p->nodes++;
        last_node = nd;
        if (n > 1 && (slow < 0 || bw(c->cat, node->intra) < bw(c->cat, slow)))
            slow = node->intra;
    }
    if (p->nodes > 1)
        for (int i = 0; i < n; i++) {
            int net = c->nodes[c->gpu_node[ids[i]]].net;
            if (bw(c->cat, net) < bw(c->cat, slow))
                slow = net;
        }
    p->link = n > 1 ? slow : -1;
}

void cluster_best_placement(const cluster *c, int gpu, int n, struct placement *p)
{
    p->gpu = gpu;
    p->workers = n;
    p->nodes = 1;
    p->link = -1;
    /* best group: fewest nodes needed, then fastest links */
    double best_bw = -1;
    int best_nodes = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        const struct group *g = &c->groups[gi];
        if (g->gpu != gpu || gpu < 0)
            continue;
        int nodes = (n + g->per_node - 1) / g->per_node;
        if (nodes > g->count)
            nodes = g->count;
        int link = nodes > 1 ? (bw(c->cat, g->net) < bw(c->cat, g->intra) ? g->net : g->intra)
                             : g->intra;
        double b = bw(c->cat, link);
        if (best_nodes == 0 || nodes < best_nodes || (nodes == best_nodes && b > best_bw)) {
            best_nodes = nodes;
            best_bw = b;
            p->nodes = nodes;
            p->link = n > 1 ? link : -1;
        }
    }
}
