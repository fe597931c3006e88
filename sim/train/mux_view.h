/*
 * mux_view: what a multiplexing policy may ask of the world about shared GPUs — the speed
 * a job would have on one GPU with given co-runners, batch and share, and GPU memory — all
 * answered by the world's own speed hook (sim/train/share.h when the experiment has a
 * "multiplex" section), so that a policy predicts with the model the world runs on.
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
 * beside co-runners co[0..nco) (their .gpu = gpu). */
double mux_view_rate(const struct train_view *v, const struct train_job *j, int32_t batch,
                     int gpu, uint16_t share, int sliced, const struct train_corunner *co,
                     int nco);
/* Its rate alone on that GPU, whole, at its type's batch (the reference of PD). */
double mux_view_solo(const struct train_view *v, const struct train_job *j, int gpu);

/* GB of memory job type jtype needs at batch (0: its type's); 0 without a memory model. */
double mux_view_mem_gb(const struct train_view *v, int jtype, int32_t batch);
/* GB of memory of a GPU. */
double mux_view_gpu_mem_gb(const struct train_view *v, int gpu);
/* A job type's original batch m0. */
int32_t mux_view_m0(const struct train_view *v, int jtype);

#endif
