/*
 * nodes: the placement world's machines — an openb node list (Alibaba cluster-trace-gpu-v2023,
 * e.g. openb_node_list_gpu_node.csv: 1,213 nodes, 6,212 GPUs of 7 models), read by column
 * name (sim/place/openb.h):
 *   sn          the node's name, unique
 *   cpu_milli   CPU, 1/1000 of a core, an integer >= 1
 *   memory_mib  memory, MiB, an integer >= 1
 *   gpu         GPUs, an integer in [1, PLACE_MAX_GPUS]: a node without GPUs is an error (the
 *               placement world places on GPU nodes, as FGD's experiments do with the GPU-node
 *               list; the all-node list's CPU-only nodes are rejected at their line)
 *   model       the GPU model (P100, T4, V100M16, V100M32, A10, G1-G3 ...): a name of letters,
 *               digits, '.', '_' and '-'; at most PLACE_MAX_MODELS distinct ones
 * Models are numbered in order of first appearance; pods name them in gpu_spec.
 *
 * Ownership: nodes_load allocates, nodes_free frees (strings included).
 */
#ifndef HETSIM_NODES_H
#define HETSIM_NODES_H

#include <stdint.h>

#include "../base/err.h"
#include "place_view.h"

struct nodes_node {
    char   *sn;
    int64_t cpu_milli, mem_mib;
    int     ngpus;
    int     model;              /* index into nodes.models */
    long    line;
};

struct nodes {
    struct nodes_node *v;
    int                n;
    char              *models[PLACE_MAX_MODELS];
    int                nmodels;
    int64_t            gpus;        /* GPUs of every node */
    int64_t            cpu_milli, mem_mib;
};

int  nodes_load(struct nodes **out, const char *path, struct errbuf *err);
void nodes_free(struct nodes *ns);

/* The index of GPU model `name` (exact), or -1. */
int  nodes_model(const struct nodes *ns, const char *name);

/* The bit mask of the models of a pod's gpu_spec ("T4|V100M16"; "" any: 0); -1 with err set
 * (naming file:line: gpu_spec and the models the list has) when one is not in the list. */
int  nodes_spec_mask(const struct nodes *ns, const char *spec, const char *file, long line,
                     uint64_t *mask, struct errbuf *err);

#endif
