/*
 * keepocc: the occupancy a from-empty plan reaches after its keepers, kept from one decision to
 * the next instead of replayed.
 *
 * A policy that plans from an empty cluster (occ_clear) re-takes the GPUs of every job that
 * keeps running, in its priority order, before it places the others (plan_commit).  occ_alloc
 * then takes the first node of a bucket list (sim/core/occ.c), and that order is the history of
 * the takes: every take moves a node to the head of its new bucket.  So after the keepers,
 * each bucket (type, free GPUs) lists the nodes some keeper holds a GPU on by their last take,
 * latest first — the largest (priority, GPU id) among their held GPUs, priorities compared as
 * (q, id) ascending in pick order — and then the nodes nobody holds, in node order.  A keepocc
 * stores that order as a heap per bucket keyed by exactly this, so that it is a function of who
 * holds what at which priority and of nothing else: a change costs O(GPUs per node + log
 * nodes), and keepocc_place takes the GPUs occ_alloc (OCC_PACK) would take on the replayed
 * occupancy.  Placements of one decision are kept apart (nodes they touched sit at the head of
 * their buckets, latest first, as occ relinks them) until keepocc_settle files those nodes by
 * their keys again.
 *
 * Whole GPUs only (a holder holds the whole GPU).  Ownership: keepocc_create allocates (the
 * cluster must outlive it), keepocc_destroy frees.
 */
#ifndef HETSIM_KEEPOCC_H
#define HETSIM_KEEPOCC_H

#include <stdint.h>

#include "../sim/core/cluster.h"

typedef struct keepocc keepocc;

keepocc *keepocc_create(const cluster *c);      /* everything free; NULL: no memory */
void keepocc_destroy(keepocc *k);

/* GPUs are held through keepocc_place; the n GPUs ids[] (all held) are free again. */
void keepocc_free(keepocc *k, const int *ids, int n);
/* Their holder's priority is now (q, id). */
void keepocc_rekey(keepocc *k, const int *ids, int n, int q, int64_t id);
/* The free GPUs ids[] (ascending) are another tenant's (a training view's base): held below
 * every job's priority, so that their nodes come after the keepers' and before the nodes
 * nobody holds, as in a plan that starts from the base (plan_begin) — among themselves by GPU
 * id, not by the order a broker withheld them.  keepocc_free gives them back. */
void keepocc_deny(keepocc *k, const int *ids, int n);
/* 1 if GPU g is held. */
int keepocc_held(const keepocc *k, int g);

/* Take n free GPUs of cluster type slot `type_slot` for a job of priority (q, id), packed on
 * the fewest nodes as occ_alloc(OCC_PACK) picks them, into ids[] (ascending); 0, or -1 and
 * nothing changed when fewer than n are free. */
int keepocc_place(keepocc *k, int type_slot, int n, int q, int64_t id, int *ids);
/* End of a decision's placements: the nodes they touched take their places by key. */
void keepocc_settle(keepocc *k);

#endif
