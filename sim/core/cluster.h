/*
 * cluster: the simulated machines — node groups of one GPU type each, with an intra-node link
 * (NVLink, NVSwitch, PCIe) and an inter-node network (Ethernet, InfiniBand); and CPU node
 * groups ("cpus" and "memory_gb", no "gpu") for worlds that place containers, not GPUs (the
 * microservice world).  A GPU group may leave each server's "host_cpus" cores and
 * "host_memory_gb" GB to containers (default 0: none), which cluster_cpu_part lists as CPU
 * nodes of their own.  A cluster may hold either kind or both; GPU ids and nodes count only
 * the GPU groups, so a GPU cluster reads and lays out as it did before CPU groups existed.
 *
 * GPUs are numbered 0..ngpus-1 node by node, groups in file order, so a GPU id is stable for a
 * given cluster file.  GPU types are catalog ids; a cluster holds at most CLUSTER_MAX_TYPES
 * distinct types, listed in catalog order by cluster_types.
 *
 * Ownership: cluster_load/cluster_from_json allocate, cluster_destroy frees; the catalog must
 * outlive the cluster.  A cluster never changes after loading (occupancy lives in occ).
 */
#ifndef HETSIM_CLUSTER_H
#define HETSIM_CLUSTER_H

#include "../base/err.h"
#include "../base/jobj.h"
#include "../../models/catalog.h"

typedef struct cluster cluster;

enum { CLUSTER_MAX_TYPES = 16 };

struct cluster_node {
    int group;
    int gpu;            /* GPU type id */
    int first;          /* id of its first GPU */
    int ngpus;
    int intra;          /* link id inside the node */
    int net;            /* link id to other nodes */
};

/* A CPU node group: `count` nodes of `cpus` cores and `memory_gb` GB each.  file:line is where
 * the group was given (for a world's errors about it), field its path ("groups[2]").
 * gpu_node >= 0 only in cluster_cpu_part's: the host part of a GPU group (its servers'
 * "host_cpus" and "host_memory_gb"), whose node q is the whole cluster's GPU node
 * gpu_node + q; -1 for a CPU node group. */
struct cluster_cpu_group {
    char   name[64];
    int    count;
    double cpus, memory_gb;
    int    gpu_node;
    char   file[256];
    long   line;
    char   field[240];
};

/* Read the cluster object `o` (a file's root or an inline experiment field). */
int  cluster_from_json(cluster **out, const catalog *cat, const struct jobj *o,
                       struct errbuf *err);
int  cluster_load(cluster **out, const catalog *cat, const char *path, struct errbuf *err);
/* The cluster of c's GPU groups g with keep[g] != 0 (by group, file order), laid out anew:
 * its nodes and GPU ids count only those groups, in the same order; name, catalog and links
 * are c's.  (A co-simulation's tenant sees only the part of the cluster it may hold.) */
int  cluster_subset(cluster **out, const cluster *c, const int *keep, struct errbuf *err);
/* The cluster of c's CPU groups alone (no GPU node), in file order, then, as CPU groups of
 * their own (gpu_node >= 0, in file order), the host parts of c's GPU groups that leave
 * cores and memory to containers ("host_cpus", "host_memory_gb" > 0): what a tenant that
 * places containers on CPU nodes may hold of a shared cluster.  Its CPU nodes are numbered
 * group by group in that order, so a CPU group's nodes keep the numbers they have without
 * host parts. */
int  cluster_cpu_part(cluster **out, const cluster *c, struct errbuf *err);
void cluster_destroy(cluster *c);

const char *cluster_name(const cluster *c);
const catalog *cluster_catalog(const cluster *c);
int cluster_ngpus(const cluster *c);
/* 1 for a file marked "placeholder": true, which a domain names without simulating its
 * machines (the placement world's node_list: its pods go on a node list instead) */
int cluster_placeholder(const cluster *c);
int cluster_nnodes(const cluster *c);
int cluster_max_gpus_per_node(const cluster *c);
const struct cluster_node *cluster_node(const cluster *c, int node);
/* The node groups in file order (GPU and CPU ones) and the name of each: its "name", else its
 * GPU type's. */
int cluster_ngroups(const cluster *c);
const char *cluster_group_name(const cluster *c, int group);
int cluster_gpu_node(const cluster *c, int gpu_id);
int cluster_gpu_type(const cluster *c, int gpu_id);

/* The CPU node groups, in file order (0 when the cluster has none). */
int cluster_ncpu_groups(const cluster *c);
const struct cluster_cpu_group *cluster_cpu_group(const cluster *c, int i);

/* The distinct GPU types present, in catalog order; returns how many (<= CLUSTER_MAX_TYPES). */
int cluster_types(const cluster *c, const int **types);
/* GPUs of type `gpu` in the cluster (0 if absent). */
int cluster_type_count(const cluster *c, int gpu);
/* Position of `gpu` in cluster_types, -1 if absent. */
int cluster_type_slot(const cluster *c, int gpu);
/* The most GPUs of one type a single node offers. */
int cluster_type_max_per_node(const cluster *c, int gpu);

/* Describe where `n` GPUs (ids) sit: type of the first GPU, nodes spanned, slowest link the
 * ring crosses.  *mixed is set to 1 when the GPUs are not all of one type. */
void cluster_placement(const cluster *c, const int *ids, int n, struct placement *p, int *mixed);

/* The placement that n GPUs of type `gpu` would get on the fewest nodes of the best-linked
 * group (what a policy assumes when it estimates a job's speed on a type). */
void cluster_best_placement(const cluster *c, int gpu, int n, struct placement *p);

#endif
