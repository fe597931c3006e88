/*
 * catalog: the hardware the simulator knows — GPU types and the links between GPUs.
 *
 * Loaded from models/data/gpus.json and models/data/links.json (each entry cites its spec sheet).
 * GPU types are referred to everywhere by their catalog index (a "gpu type id"); names are
 * matched case-insensitively against the name and its aliases ("v100" -> V100-16GB).
 *
 * Ownership: cat_load allocates, cat_destroy frees.  Returned spec pointers live as long as
 * the catalog.  Nothing here changes after loading, so a catalog may be shared read-only.
 */
#ifndef HETSIM_CATALOG_H
#define HETSIM_CATALOG_H

#include "../sim/errbuf.h"

typedef struct catalog catalog;

enum { CAT_NAME_MAX = 32, CAT_MAX_ALIASES = 6 };

struct gpu_spec {
    char   name[CAT_NAME_MAX];
    char   aliases[CAT_MAX_ALIASES][CAT_NAME_MAX];
    int    naliases;
    double mem_gb;          /* device memory */
    double fp32_tflops;     /* peak dense FP32 */
    double fp16_tflops;     /* peak dense FP16 (tensor cores where present) */
    double mem_bw_gbs;      /* device memory bandwidth, GB/s */
    int    nvlink;          /* link id of the GPU's own NVLink generation, -1 if none */
    int    pcie;            /* link id of its host interface */
    double price_hr;        /* on-demand USD per GPU-hour */
};

enum link_scope { LINK_INTRA, LINK_INTER };

struct link_spec {
    char   name[CAT_NAME_MAX];
    int    scope;           /* enum link_scope: inside a node or between nodes */
    double bw_gbs;          /* per direction, per GPU, GB/s */
    double lat_us;          /* one-hop latency */
};

int  cat_load(catalog **out, const char *gpus_path, const char *links_path, struct errbuf *err);
void cat_destroy(catalog *c);

int cat_ngpus(const catalog *c);
int cat_nlinks(const catalog *c);
const struct gpu_spec  *cat_gpu(const catalog *c, int id);
const struct link_spec *cat_link(const catalog *c, int id);

/* Index of the GPU type or link named `name` (or an alias), -1 if unknown. */
int cat_gpu_find(const catalog *c, const char *name);
int cat_link_find(const catalog *c, const char *name);

/* Fill `out` (room for cat_ngpus + 1 entries) with the GPU names, NULL-terminated, for
 * did-you-mean suggestions. */
void cat_gpu_names(const catalog *c, const char **out);
void cat_link_names(const catalog *c, const char **out);

#endif
