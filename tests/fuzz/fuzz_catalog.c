/*
 * fuzz_catalog: catalog_load on a gpus.json and a links.json taken from the input.
 *
 * Input: GPUS JSON \0 LINKS JSON (both written to the scratch directory).  A catalog that loads
 * is checked (every name and alias finds its own entry, link references are intra-node
 * links, an NVSwitch comes with an NVLink no slower than it, a GPU type can have its own
 * links and no inter-node one inside a node) and then used as the rest of hetsim uses it: the shipped job types are loaded on it
 * and the throughput model is asked for every job type on every GPU type (rates must be
 * >= 0, never NaN), and clusters are read on it — one that should load, and two naming an
 * unknown link and an unknown GPU type, which build did-you-mean lists of every name.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/core/cluster.h"
#include "../../sim/run/experiment.h"
#include "fuzzutil.h"

static void check_catalog(const catalog *c)
{
    if (catalog_ngpus(c) < 1 || catalog_nlinks(c) < 1)
        fz_fail("catalog with %d GPUs and %d links", catalog_ngpus(c), catalog_nlinks(c));
    for (int i = 0; i < catalog_nlinks(c); i++)
        if (catalog_link_find(c, catalog_link(c, i)->name) != i)
            fz_fail("link %d does not find itself", i);
    for (int i = 0; i < catalog_ngpus(c); i++) {
        const struct gpu_spec *g = catalog_gpu(c, i);
        if (catalog_gpu_find(c, g->name) != i)
            fz_fail("GPU %d does not find itself", i);
        for (int a = 0; a < g->naliases; a++)
            if (catalog_gpu_find(c, g->aliases[a]) != i)
                fz_fail("alias %d of GPU %d finds another entry", a, i);
        if (g->pcie < 0 || g->pcie >= catalog_nlinks(c) || g->nvlink >= catalog_nlinks(c) ||
            catalog_link(c, g->pcie)->scope != LINK_INTRA ||
            (g->nvlink >= 0 && catalog_link(c, g->nvlink)->scope != LINK_INTRA))
            fz_fail("GPU %d has bad link references", i);
        if (g->nvswitch >= catalog_nlinks(c) ||
            (g->nvswitch >= 0 && (g->nvlink < 0 ||
                                  catalog_link(c, g->nvswitch)->scope != LINK_INTRA ||
                                  catalog_link(c, g->nvswitch)->bw_gbs >
                                      catalog_link(c, g->nvlink)->bw_gbs)))
            fz_fail("GPU %d has a bad NVSwitch", i);
        if (!catalog_gpu_intra_ok(c, i, g->pcie) ||
            (g->nvlink >= 0 && !catalog_gpu_intra_ok(c, i, g->nvlink)) ||
            (g->nvswitch >= 0 && !catalog_gpu_intra_ok(c, i, g->nvswitch)))
            fz_fail("GPU %d cannot have its own links", i);
        for (int l = 0; l < catalog_nlinks(c); l++)
            if (catalog_gpu_intra_ok(c, i, l) && catalog_link(c, l)->scope != LINK_INTRA)
                fz_fail("GPU %d may have inter-node link %d inside a node", i, l);
        char list[64];
        catalog_gpu_intra_list(c, i, list, sizeof list);
        if (list[0] == '\0')
            fz_fail("GPU %d: intra-node list '%s'", i, list);
    }
}

static void model_on(const catalog *c)
{
    struct errbuf err;
    err_clear(&err);
    tput *t = NULL;
    char p[4096];
    if (tput_create(&t, c, &err) < 0)
        fz_fail("tput_create: %s", err.msg);
    fz_shipped(p, sizeof p, experiment_default_jobtypes);
    int rc = tput_load_types(t, p, &err);
    fz_check_err(rc, &err, "tput_load_types");
    int inter = -1;
    for (int i = 0; i < catalog_nlinks(c) && inter < 0; i++)
        if (catalog_link(c, i)->scope == LINK_INTER)
            inter = i;
    for (int jt = 0; rc == 0 && jt < tput_ntypes(t); jt++)
        for (int g = 0; g < catalog_ngpus(c); g++) {
            const struct gpu_spec *gs = catalog_gpu(c, g);
            static const int workers[] = { 1, 2, 8 };
            for (int w = 0; w < 3; w++)
                for (int nodes = 1; nodes <= 2; nodes++) {
                    struct placement pl = { g, workers[w], nodes, -1 };
                    if (workers[w] > 1)
                        pl.link = nodes > 1 && inter >= 0 ? inter
                                  : gs->nvlink >= 0 ? gs->nvlink : gs->pcie;
                    double r = tput_rate(t, jt, &pl);
                    if (isnan(r) || r < 0)
                        fz_fail("tput_rate(%d, GPU %d, %d workers, %d nodes) = %g", jt, g,
                                workers[w], nodes, r);
                }
        }
    tput_destroy(t);
}

/* Read {"network": net, "groups": [{"count": 2, "gpu": gpu, "gpus_per_node": 2}]} on c. */
static int cluster_on(const catalog *c, const char *net, const char *gpu)
{
    cJSON *o = cJSON_CreateObject(), *groups = cJSON_AddArrayToObject(o, "groups");
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "network", net);
    cJSON_AddNumberToObject(g, "count", 2);
    cJSON_AddStringToObject(g, "gpu", gpu);
    cJSON_AddNumberToObject(g, "gpus_per_node", 2);
    cJSON_AddItemToArray(groups, g);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (text == NULL)
        fz_fail("out of memory");
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    struct jobj root;
    cluster *cl = NULL;
    if (jsonf_parse(&d, "cluster.json", text, strlen(text), &err) < 0 ||
        jobj_root(&root, d, &err) < 0)
        fz_fail("cluster text does not parse: %s\n%s", err.msg, text);
    int rc = cluster_from_json(&cl, c, &root, &err);
    fz_check_err(rc, &err, "cluster_from_json");
    cluster_destroy(cl);
    jsonf_destroy(d);
    free(text);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t glen, llen;
    const uint8_t *g = fz_cut(&data, &size, 0, &glen);
    const uint8_t *l = fz_cut(&data, &size, 0, &llen);
    char gpath[4096], lpath[4096];
    fz_write(gpath, sizeof gpath, "gpus.json", g, glen);
    fz_write(lpath, sizeof lpath, "links.json", l, llen);

    struct errbuf err;
    err_clear(&err);
    catalog *c = NULL;
    int rc = catalog_load(&c, gpath, lpath, &err);
    fz_check_err(rc, &err, "catalog_load");
    if (rc < 0) {
        if (c != NULL)
            fz_fail("catalog_load failed but returned a catalog");
        return 0;
    }
    check_catalog(c);
    model_on(c);
    const char *inter = NULL;
    for (int i = 0; i < catalog_nlinks(c) && inter == NULL; i++)
        if (catalog_link(c, i)->scope == LINK_INTER)
            inter = catalog_link(c, i)->name;
    const char *gpu0 = catalog_gpu(c, 0)->name;
    if (inter != NULL && cluster_on(c, inter, gpu0) < 0)
        fz_fail("a cluster of GPU '%s' over link '%s' does not load", gpu0, inter);
    cluster_on(c, "\x01no-such-link", gpu0);
    cluster_on(c, inter != NULL ? inter : "\x01no-such-link", "\x01no-such-gpu");
    catalog_destroy(c);
    return 0;
}
