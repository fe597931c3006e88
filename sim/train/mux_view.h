/*
 * mux_view: what a multiplexing policy may ask of the world about shared GPUs, and which of
 * its answers are the world's truth.  All are answered by the world's own speed hook
 * (sim/train/share.h when the experiment has a "multiplex" section):
 *  - what a scheduler can know before it shares a GPU: a job's rate alone (its solo profile,
 *    at any batch and share), memory footprints, GPU memory, a job type's batch;
 *  - what a profiling run measures (mux_view_profile): two job types run together once,
 *    offline — a policy that assumes it profiled only some pairs asks only for those;
 *  - what the world charges a job beside given co-runners (mux_view_rate with nco > 0): the
 *    interference truth, which only a policy's labelled oracle may read.
 * What a running job actually makes is its rate in the view (struct train_job.rate): the
 * realised speed a scheduler observes on the GPUs it shares.
 *
 * Ownership: pure reads of the view; valid during the decide call.
 */
#ifndef HETSIM_MUX_VIEW_H
#define HETSIM_MUX_VIEW_H

#include "speed.h"
#include "train_view.h"

/* 1 if the world models shared GPUs (memory and interference), else 0: then a policy should
 * grant whole GPUs only. */
int    mux_view_shared(const struct train_view *v);

/* Iterations/s (of its original batch) job j would make on GPU `gpu` at batch `batch`
 * (0: its type's) and `share` thousandths, the GPU time-sliced (sliced 1) or space-shared (0),
 * beside co-runners co[0..nco) (their .gpu = gpu).  With co-runners this is the world's
 * interference truth: an oracle's question, not a prediction. */
double mux_view_rate(const struct train_view *v, const struct train_job *j, int32_t batch,
                     int gpu, uint16_t share, int sliced, const struct train_corunner *co,
                     int nco);
/* Its rate alone on that GPU, whole, at its type's batch (the reference of PD). */
double mux_view_solo(const struct train_view *v, const struct train_job *j, int gpu);
/* Its rate alone on that GPU, whole, at batch `batch` (0: its type's): its solo profile. */
double mux_view_solo_at(const struct train_view *v, const struct train_job *j, int32_t batch,
                        int gpu);
/* A profiling run of job types a and b together on GPU `gpu`, each at its own batch and half
 * the GPU (space-shared, MPS's even split): d[0] = t_co / t_solo - 1 of a, d[1] of b, the
 * slowdowns in the interference tables' unit.  0, or -1 if either cannot run there alone. */
int    mux_view_profile(const struct train_view *v, int gpu, int a, int b, double d[2]);

/* GB of memory job type jtype needs at batch (0: its type's); 0 without a memory model. */
double mux_view_mem_gb(const struct train_view *v, int jtype, int32_t batch);
/* GB of memory of a GPU. */
double mux_view_gpu_mem_gb(const struct train_view *v, int gpu);
/* A job type's original batch m0. */
int32_t mux_view_m0(const struct train_view *v, int jtype);

#endif
