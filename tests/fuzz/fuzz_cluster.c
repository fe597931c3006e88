/*
 * fuzz_cluster: cluster_from_json on a cluster file from the input, with the shipped catalog
 * (models/data/gpus.json, links.json, loaded once).  The input is written to a scratch file
 * and read with jsonf_load, as cluster_load does (fuzz_jsonf covers jsonf_parse itself).  A
 * cluster that loads is checked against its invariants (GPU ids node by node, types in
 * catalog order, counts adding up, every node's intra-node link one its GPU type can have) and
 * asked for placements: GPUs of one node, GPUs spread over nodes, the best placement per type;
 * a cluster of CPU groups alone has no GPU to check.  Its CPU part (cluster_cpu_part) holds the
 * CPU groups, then one group per GPU group with host cores ("host_cpus", "host_memory_gb"),
 * each naming GPU nodes of that group.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/core/cluster.h"
#include "fuzzutil.h"

static void check_cpu_part(const cluster *c)
{
    struct errbuf err;
    err_clear(&err);
    cluster *p = NULL;
    if (cluster_cpu_part(&p, c, &err) < 0)
        fz_fail("cluster_cpu_part: %s", err.msg);
    int ncpu = cluster_ncpu_groups(c), n = cluster_ncpu_groups(p), next = 0;
    if (n < ncpu || cluster_ngpus(p) != 0 || cluster_nnodes(p) != 0)
        fz_fail("CPU part: %d groups of %d, %d GPUs", n, ncpu, cluster_ngpus(p));
    for (int i = 0; i < n; i++) {
        const struct cluster_cpu_group *g = cluster_cpu_group(p, i);
        if (g->count < 1 || !(g->cpus > 0) || !(g->memory_gb > 0))
            fz_fail("CPU part group %d: %d nodes of %g cores, %g GB", i, g->count, g->cpus,
                    g->memory_gb);
        if ((i < ncpu) != (g->gpu_node < 0))
            fz_fail("CPU part group %d: gpu_node %d", i, g->gpu_node);
        if (g->gpu_node < 0)
            continue;
        /* a host part: whole GPU groups, in node order, none twice */
        int last = g->gpu_node + g->count - 1;
        if (g->gpu_node < next || last >= cluster_nnodes(c) ||
            cluster_node(c, g->gpu_node)->group != cluster_node(c, last)->group ||
            (g->gpu_node > 0 && cluster_node(c, g->gpu_node - 1)->group ==
                                    cluster_node(c, g->gpu_node)->group))
            fz_fail("host part %d: GPU nodes %d..%d", i, g->gpu_node, last);
        next = last + 1;
    }
    cluster_destroy(p);
}

static void check(const cluster *c)
{
    const catalog *cat = fz_catalog();
    int ngpus = cluster_ngpus(c), nnodes = cluster_nnodes(c), next = 0, maxper = 0;
    check_cpu_part(c);
    if (ngpus == 0 && nnodes == 0 && cluster_ncpu_groups(c) > 0)
        return;     /* CPU groups alone */
    if (ngpus < 1 || nnodes < 1 || cluster_catalog(c) != cat)
        fz_fail("cluster with %d GPUs, %d nodes", ngpus, nnodes);
    for (int k = 0; k < nnodes; k++) {
        const struct cluster_node *nd = cluster_node(c, k);
        if (nd->first != next || nd->ngpus < 1 || nd->gpu < 0 || nd->gpu >= catalog_ngpus(cat) ||
            nd->intra < 0 || nd->intra >= catalog_nlinks(cat) || nd->net < 0 ||
            nd->net >= catalog_nlinks(cat) || catalog_link(cat, nd->net)->scope != LINK_INTER ||
            catalog_link(cat, nd->intra)->scope != LINK_INTRA)
            fz_fail("node %d is inconsistent", k);
        if (!catalog_gpu_intra_ok(cat, nd->gpu, nd->intra))
            fz_fail("node %d: GPU type %d on link %d, which it cannot have", k, nd->gpu,
                    nd->intra);
        for (int q = 0; q < nd->ngpus; q++)
            if (cluster_gpu_node(c, nd->first + q) != k || cluster_gpu_type(c, nd->first + q) != nd->gpu)
                fz_fail("GPU %d is not on node %d", nd->first + q, k);
        next += nd->ngpus;
        if (nd->ngpus > maxper)
            maxper = nd->ngpus;
    }
    if (next != ngpus || maxper != cluster_max_gpus_per_node(c))
        fz_fail("GPU count or per-node maximum does not add up");
    const int *types;
    int nt = cluster_types(c, &types), total = 0;
    if (nt < 1 || nt > CLUSTER_MAX_TYPES)
        fz_fail("%d types", nt);
    for (int i = 0; i < nt; i++) {
        if ((i > 0 && types[i] <= types[i - 1]) || cluster_type_slot(c, types[i]) != i)
            fz_fail("types not in catalog order");
        total += cluster_type_count(c, types[i]);
        struct placement p;
        int per = cluster_type_max_per_node(c, types[i]);
        if (per < 1 || per > maxper)
            fz_fail("type %d: %d GPUs per node", types[i], per);
        for (int n = 1; n <= 2 * per + 1; n++) {
            cluster_best_placement(c, types[i], n, &p);
            if (p.gpu != types[i] || p.workers != n || p.nodes < 1 ||
                (n > 1 && (p.link < 0 || p.link >= catalog_nlinks(cat))))
                fz_fail("best placement of %d x type %d", n, types[i]);
        }
    }
    if (total != ngpus)
        fz_fail("type counts add up to %d of %d GPUs", total, ngpus);
    /* placements: the first GPUs in order, then GPUs strided over the nodes */
    int ids[64], n = ngpus < 64 ? ngpus : 64, mixed;
    struct placement p;
    for (int i = 0; i < n; i++)
        ids[i] = i;
    for (int k = 1; k <= n; k++) {
        cluster_placement(c, ids, k, &p, &mixed);
        if (p.workers != k || p.nodes < 1 || p.nodes > k || (k > 1) != (p.link >= 0))
            fz_fail("placement of the first %d GPUs", k);
    }
    int stride = ngpus / n;
    for (int i = 0; i < n; i++)
        ids[i] = i * stride;
    cluster_placement(c, ids, n, &p, &mixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    char path[4096];
    fz_write(path, sizeof path, "cluster.json", data, size);
    int rc = jsonf_load(&d, path, &err);
    fz_check_err(rc, &err, "jsonf_load");
    if (rc < 0)
        return 0;
    struct jobj root;
    err_clear(&err);
    rc = jobj_root(&root, d, &err);
    fz_check_err(rc, &err, "jobj_root");
    if (rc == 0) {
        cluster *c = NULL;
        err_clear(&err);
        rc = cluster_from_json(&c, fz_catalog(), &root, &err);
        fz_check_err(rc, &err, "cluster_from_json");
        if (rc == 0)
            check(c);
        else if (c != NULL)
            fz_fail("cluster_from_json failed but returned a cluster");
        cluster_destroy(c);
    }
    jsonf_destroy(d);
    return 0;
}
