/*
 * mux: the shared-GPU picture a multiplexing policy builds each decision — who holds each
 * GPU, at which batch and share, how much memory is left — and the grants that carry its
 * changes back (every holder of a GPU that changed is re-granted, so that shares stay
 * consistent: they sum to at most 1000 on every GPU).
 *
 * Jobs with one worker share GPUs; a job with several holds whole GPUs (placed by
 * sched/plan.h on the scratch occupancy) and nobody shares them.
 *
 * Ownership: the policy owns a struct mux (mux_init / mux_fini); mux_load fills it from one
 * view, valid for that decide call.  Costs: mux_load O(GPUs + running jobs); the rest
 * O(holders of the GPU concerned).
 */
#ifndef HETSIM_MUX_H
#define HETSIM_MUX_H

#include "../../sim/train/mux_view.h"
#include "../plan.h"

enum { MUX_MAX_JOBS = 8 };      /* holders of one GPU a policy may ask for */

struct mux_gpu {
    int      n;                 /* single-worker holders */
    int32_t  slot[MUX_MAX_JOBS];
    int32_t  batch[MUX_MAX_JOBS];   /* > 0 */
    uint16_t share[MUX_MAX_JOBS];
    int      whole;             /* held by a multi-worker job, or by another tenant */
    int      changed;           /* re-grant its holders */
    int      sliced;            /* its holders time-slice it (grant.h); 0: space-shared */
    double   mem_gb;            /* used by its holders */
};

struct mux {
    int             ngpu;
    struct mux_gpu *g;
    occ            *scratch;
    struct plan     plan;
};

int  mux_init(struct mux *m, const cluster *cl);
void mux_fini(struct mux *m);

/* The picture of the view's running jobs; starts a DELTA plan into `out`.  The GPUs another
 * tenant holds (the view's base) are marked held whole, so nothing joins or takes them. */
void mux_load(struct mux *m, const struct train_view *v, struct grant_list *out);

/* 1 if job type jt at `batch` fits on gpu beside its holders: not held whole, fewer than
 * max_jobs holders, memory (the world's model) enough; always on an empty GPU (whether a
 * job fits alone is the throughput model's answer, as in the rigid world). */
int  mux_fits(const struct mux *m, const struct train_view *v, int gpu, int jt, int32_t batch,
              int max_jobs);
/* Add / remove a holder (marks the GPU changed; shares are the caller's to set). */
void mux_join(struct mux *m, const struct train_view *v, int gpu, int32_t slot, int32_t batch,
              uint16_t share);
void mux_leave(struct mux *m, const struct train_view *v, int gpu, int32_t slot);
/* Give every holder of gpu 1000 / n. */
void mux_even(struct mux *m, int gpu);

/* The co-runners of holder i of gpu as the world sees them (batches as in the picture). */
int  mux_corunners(const struct mux *m, const struct train_view *v, int gpu, int i,
                   struct train_corunner *co);
/* Rate of holder i of gpu with the picture's batches and shares. */
double mux_rate(const struct mux *m, const struct train_view *v, int gpu, int i);

/* A GPU with no holder at all (free whole), lowest id first from `from`; -1 if none. */
int  mux_free_gpu(const struct mux *m, const struct train_view *v);

/* Place j on `workers` whole free GPUs of one type (the type with most free), packed.
 * 0 placed, 1 no room, -1 error. */
int  mux_place_whole(struct mux *m, const struct train_view *v, const struct train_job *j,
                     struct errbuf *err);

/* Grant every holder of every changed GPU its GPU, share and batch.  0 or -1. */
int  mux_emit(struct mux *m, const struct train_view *v, struct errbuf *err);

/* An even-share policy (mps_even, kernel_slice): its state, and the create / destroy /
 * decide its policy table points at.  The decision: every GPU whose holders' shares are no
 * longer 1000 / n (someone left) is split anew; each waiting one-worker job, in arrival
 * order, joins the GPU with the fewest holders whose memory still holds it (ties: least
 * memory used, then lowest id), at most max_jobs a GPU (parameter max_jobs, default 4), and
 * that GPU is split evenly again; multi-worker jobs take whole free GPUs.  `sliced` marks the
 * shared GPUs' grants as time-sliced (kernel_slice) or space-shared (mps_even). */
struct mux_even {
    struct mux m;
    int        max_jobs;
    int        sliced;
};
struct jobj;
struct policy_env;
int  mux_even_create(void **self, const struct jobj *params, const struct policy_env *env,
                     int sliced, struct errbuf *err);
void mux_even_destroy(void *self);
int  mux_even_decide(void *self, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err);

#endif
