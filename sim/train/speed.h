/*
 * speed: the training world's speed hook — a job's rate (iterations/s) from what it holds:
 * its GPUs, its share of each, its batch size and the jobs it shares those GPUs with.  Rigid
 * jobs (train_speed_rigid) run at the throughput model's rate for their placement, scaled by
 * their share; elastic jobs (a goodput model) and multiplexed jobs (an interference model)
 * are other `struct train_speed`s, new files, not changes to the world.  When a hook says its
 * rates depend on co-runners, the world re-rates every co-runner of a GPU whenever a job joins
 * it, leaves it or changes its share.
 *
 * Ownership: hooks are static tables; queries live for one call.
 */
#ifndef HETSIM_SPEED_H
#define HETSIM_SPEED_H

#include "train_view.h"

/* Another job on one of the job's GPUs. */
struct train_corunner {
    int32_t  jtype;
    int32_t  batch;             /* its batch size (0: its job type's) */
    int      gpu;               /* the GPU they share */
    uint16_t share;             /* its share of that GPU, thousandths */
    uint8_t  sliced;            /* its grant time-slices the GPU (grant.h) */
};

struct train_speed_query {
    const struct train_job *job;        /* jtype, workers, batch */
    const int *gpus;                    /* the GPUs it holds, ngpu of them */
    int        ngpu;
    uint16_t   share;                   /* thousandths of each */
    const struct train_corunner *co;    /* every other holder of those GPUs, nco of them */
    int        nco;
};

struct train_speed {
    const char *name;
    int         corunners;      /* 1: rates depend on co-runners (re-rate them on changes) */
    double    (*rate)(const struct train_speed *s, const cluster *cl, const tput *m,
                      const struct train_speed_query *q);
    const void *ctx;            /* the hook's own data */
    /* GB of GPU memory job type jtype takes at batch `batch` (0: its type's); NULL: memory is
     * not modelled (the rigid world: a job's memory is checked against its GPU type by the
     * throughput model).  With it, the world refuses a decision that over-commits a GPU. */
    double    (*mem_gb)(const struct train_speed *s, const tput *m, int jtype, int batch);
};

/* The rigid model: the rate of the placement (sim/train/train_view.h's train_view_rate_on)
 * times the share; co-runners do not matter. */
extern const struct train_speed train_speed_rigid;

/* Iterations/s of job type jtype on exactly these GPUs, whole: the throughput model at the
 * placement they make (nodes spanned, slowest link), at the pace of the slowest GPU type
 * when they mix types.  0 when n is 0 or it cannot run there. */
double train_speed_placed(const cluster *cl, const tput *m, int jtype, const int *ids, int n);

/* The same for a job that sets its own global batch (batch > 0; 0: train_speed_placed):
 * optimizer steps/s with Pollux's batch rules (models/elastic.h: elastic_batch_rules, no
 * one-GPU accumulation) — local = ceil(batch / n), accumulation steps = ceil(local /
 * max_local_batch) - 1 (none when the type gives no max_local_batch), atomic = ceil(local /
 * (accum + 1)) — and one optimizer step taking step(atomic) + (step(atomic) - sync) * accum,
 * where the type's iteration at its own batch is split by tput_step_split into sync (kept
 * as it is at the type's batch), a fixed compute part and one linear in the local batch
 * (compute(a) = fixed + (step - sync - fixed) x a / (type batch / n)).  Strong-scaling types only (an iteration is one global step); the trace readers
 * refuse a batch for the others.  At a batch equal to the type's, on a placement that splits
 * it evenly, the rate is train_speed_placed's. */
double train_speed_batch(const cluster *cl, const tput *m, int jtype, int batch,
                         const int *ids, int n);
/* ... on placement p (one GPU type). */
double train_speed_batch_on(const tput *m, int jtype, int batch, const struct placement *p);

#endif
