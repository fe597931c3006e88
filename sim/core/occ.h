/*
 * occ: cluster occupancy — how much of each GPU is granted, in thousandths ("milli") so
 * that shares add up exactly (1000 = a whole GPU).  The training world keeps the live one;
 * a policy may copy it (or start from a clear one) to plan a decision without touching the
 * world.
 *
 * Picking free GPUs: occ_alloc takes n whole free GPUs of one type, either packed onto the
 * fewest nodes (best fit: the node whose free count is the smallest that still fits, else the
 * emptiest nodes first) or spread one per node.  Per type, nodes sit in buckets by their free
 * GPU count, so a pick costs O(gpus per node + n), not O(nodes).
 *
 * Ownership: occ_create allocates (the cluster must outlive it), occ_destroy frees.
 */
#ifndef HETSIM_OCC_H
#define HETSIM_OCC_H

#include "cluster.h"

typedef struct occ occ;

enum { OCC_WHOLE = 1000 };
enum occ_mode { OCC_PACK, OCC_SPREAD };

occ *occ_create(const cluster *c);
void occ_destroy(occ *o);
void occ_copy(occ *dst, const occ *src);    /* both of the same cluster */
void occ_clear(occ *o);                      /* everything free */

int occ_used(const occ *o, int gpu_id);     /* milli granted on that GPU */
int occ_free_whole(const occ *o, int gpu_type);    /* fully free GPUs of a type */
int occ_free_on_node(const occ *o, int node);      /* fully free GPUs on a node */
/* Most fully free GPUs of type `gpu_type` on any one node. */
int occ_max_free_node(const occ *o, int gpu_type);

/* 1 if `milli` more fits on each of the n GPUs. */
int  occ_fits(const occ *o, const int *ids, int n, int milli);
/* Grant / return `milli` of each GPU.  Over- or under-flow is a broken invariant (assert). */
void occ_take(occ *o, const int *ids, int n, int milli);
void occ_release(occ *o, const int *ids, int n, int milli);

/* Take n fully free GPUs of `gpu_type` into ids[] (sorted ascending) and return 0; return -1
 * and change nothing if fewer than n are free. */
int occ_alloc(occ *o, int gpu_type, int n, int mode, int *ids);

#endif
