/*
 * catalog: the hardware the simulator knows — GPU types and the links between GPUs.
 *
 * Loaded from models/data/gpus.json and models/data/links.json (each entry cites its spec sheet).
 * GPU types are referred to everywhere by their catalog index (a "gpu type id"); names are
 * matched case-insensitively against the name and its aliases ("v100" -> V100-16GB).
 *
 * Ownership: catalog_load allocates, catalog_destroy frees.  Returned spec pointers live as long as
 * the catalog.  Nothing here changes after loading, so a catalog may be shared read-only.
 */
#ifndef HETSIM_CATALOG_H
#define HETSIM_CATALOG_H

#include <stddef.h>

#include "../sim/base/err.h"

typedef struct catalog catalog;

enum { CATALOG_NAME_MAX = 32, CATALOG_MAX_ALIASES = 6 };

struct gpu_spec {
    char   name[CATALOG_NAME_MAX];
    char   aliases[CATALOG_MAX_ALIASES][CATALOG_NAME_MAX];
    int    naliases;
    double mem_gb;          /* device memory */
    double fp32_tflops;     /* peak dense FP32 */
    double fp16_tflops;     /* peak dense FP16 (tensor cores where present) */
    double mem_bw_gbs;      /* device memory bandwidth, GB/s */
    int    nvlink;          /* link id of the GPU's own NVLink generation, -1 if none */
    int    nvswitch;        /* link id of the NVSwitch fabric of that generation, -1 if none */
    int    pcie;            /* link id of its host interface */
    double price_hr;        /* on-demand USD per GPU-hour */
};

/* Where a job's workers sit: the GPU type, the nodes spanned and the
 * slowest link crossed (what the performance models depend on). */
struct placement {
    int gpu;                    /* GPU type id (catalog) */
    int workers;
    int nodes;                  /* distinct nodes spanned */
    int link;                   /* link id of the slowest link the ring crosses; -1: none */
};

enum link_scope { LINK_INTRA, LINK_INTER };

struct link_spec {
    char   name[CATALOG_NAME_MAX];
    int    scope;           /* enum link_scope: inside a node or between nodes */
    double bw_gbs;          /* per direction, per GPU, GB/s */
    double lat_us;          /* one-hop latency */
};

int  catalog_load(catalog **out, const char *gpus_path, const char *links_path, struct errbuf *err);
void catalog_destroy(catalog *c);

int catalog_ngpus(const catalog *c);
int catalog_nlinks(const catalog *c);
const struct gpu_spec  *catalog_gpu(const catalog *c, int id);
const struct link_spec *catalog_link(const catalog *c, int id);

/* Index of the GPU type or link named `name` (or an alias), -1 if unknown. */
int catalog_gpu_find(const catalog *c, const char *name);
int catalog_link_find(const catalog *c, const char *name);

struct jobj;
/* Read the optional link name at o.key (a cluster's "intra" or "network", a GPU's "nvlink",
 * "nvswitch" or "pcie") into *out, which must be a link of `scope` (enum link_scope): an
 * unknown name is an error with a did-you-mean among the links of that scope (or their list),
 * a link of the other scope says so.  *out is untouched when the key is absent. */
int catalog_link_field(const catalog *cat, const struct jobj *o, const char *key, int scope,
                       int *out, struct errbuf *err);

/* The intra-node links a node of GPU type `gpu` may have (models/data/gpus.json's note): the
 * GPU's own NVLink, the NVSwitch of that NVLink generation, or a PCIe generation (a link that
 * is some GPU type's host interface) no faster than the GPU's own host interface.
 * catalog_gpu_intra_ok: 1 if `link` is one of them.  catalog_gpu_intra_list: their names in
 * catalog order, ", "-separated, into buf (truncated with "..." if it does not fit). */
int  catalog_gpu_intra_ok(const catalog *c, int gpu, int link);
void catalog_gpu_intra_list(const catalog *c, int gpu, char *buf, size_t cap);

/* Fill `out` (room for catalog_ngpus + 1 entries) with the GPU names, NULL-terminated, for
 * did-you-mean suggestions. */
void catalog_gpu_names(const catalog *c, const char **out);
void catalog_link_names(const catalog *c, const char **out);

#endif
