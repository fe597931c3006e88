/*
 * rate_memo: the training world's memo of train_view_rate — the throughput of a job type with
 * n workers of one GPU type, placed as well as the cluster allows (fewest nodes, best links).
 *
 * That rate depends only on (job type, workers, GPU type) while the cluster and the models
 * stay fixed, as they do for a whole run; policies ask for it for every active job on every
 * GPU type at every decision, and each direct answer searches the cluster's node groups for
 * the best placement and then hashes the placement in the model.  The memo answers in O(1)
 * (two array indexings) after the first time.
 *
 * Ownership: rate_memo_create allocates, rate_memo_destroy frees; the cluster and the models
 * must outlive the memo and must not change while it lives (no table or job type loaded).
 * rate_memo_get fills the memo as it goes but never changes an answer, so a world may hand
 * one memo to every decision through its views.
 */
#ifndef HETSIM_RATE_MEMO_H
#define HETSIM_RATE_MEMO_H

#include "../core/cluster.h"
#include "../../models/tput.h"

typedef struct rate_memo rate_memo;

rate_memo *rate_memo_create(const cluster *cl, const tput *model);     /* NULL: no memory */
void       rate_memo_destroy(rate_memo *m);

/* Iterations/s of job type `jtype` with n workers of `gpu_type`, best placement; 0 when it
 * cannot run there (n < 1, fewer than n such GPUs, or the model says 0).  The same value as
 * rate_memo_compute, bit for bit. */
double rate_memo_get(rate_memo *m, int jtype, int gpu_type, int n);

/* What the memo remembers, computed directly: cluster_best_placement, then tput_rate. */
double rate_memo_compute(const cluster *cl, const tput *model, int jtype, int gpu_type, int n);

#endif
