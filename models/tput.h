/*
 * tput: training throughput of a job type on a placement, in iterations per second.
 *
 * Three sources, one answer, in this order:
 *  - profiled tables (job type x GPU type x workers x consolidated/spread), from hetsim's own
 *    CSV format, from Heet's published CSV (models/heet_csv.h reads it) or read straight from
 *    Gavel's simulation_throughputs.json;
 *  - fitted step-time models per (job type, GPU type) (struct tput_fit, a JSON file of fits:
 *    models/data/profiles/heet_fit.json, written by `hetsim model fit heet`), for data whose
 *    licence lets hetsim ship parameters fitted on it but not the table itself;
 *  - an analytical model for what neither covers: per-worker compute time from the GPU's
 *    peak FLOP/s (calibrated on the nearest measured or fitted GPU when one exists) plus ring
 *    all-reduce 2 (n-1)/n * S / B + 2 (n-1) * latency over the slowest link the placement
 *    crosses.
 *
 * Units.  A job type's "iteration" is what its table counts.  For data-parallel jobs with a
 * fixed per-worker batch (scaling "weak", Gavel's convention) the rate is summed over
 * workers: n workers each stepping every t seconds give n / t.  For a fixed global batch
 * (scaling "strong", the Heet/Pollux profiles) an iteration is one global step: 1 / t.
 *
 * Ownership: tput_create and tput_copy allocate, tput_destroy frees; the catalog must outlive
 * it.  After loading, every function is a pure read: no hidden state, safe to share.
 */
#ifndef HETSIM_TPUT_H
#define HETSIM_TPUT_H

#include "catalog.h"
#include "../sim/base/err.h"

typedef struct tput tput;

enum { JT_NAME_MAX = 64 };
enum jt_scaling { JT_WEAK, JT_STRONG };

struct jobtype {
    char   name[JT_NAME_MAX];
    int    batch;               /* per worker (weak) or global (strong) */
    int    scaling;             /* enum jt_scaling */
    int    fp16;                /* 1: mixed precision, uses the GPU's FP16 peak */
    double params_m;            /* parameters, millions: gradient = 4 bytes each */
    double gflops_per_sample;   /* training (forward + backward) GFLOP per sample */
    double efficiency;          /* achieved fraction of peak FLOP/s */
    double mem_gb;              /* per-worker training memory */
    double ckpt_gb;             /* checkpoint written at preemption, read at restore */
    int    max_local_batch;     /* largest per-GPU (atomic) batch, 0: no limit given; a
                                   job's own batch beyond it accumulates gradients */
    int    analytic;            /* 1 if the fields above were given (not a table-only type) */
    double steps;               /* an elastic application's type (models/siaprof.h): global
                                   steps at `batch` to completion; 0 for every other type */
};

int  tput_create(tput **out, const catalog *cat, struct errbuf *err);
void tput_destroy(tput *t);
/* A deep copy of src (its job types, tables and fits, on the same catalog), which then
 * changes independently of it: 0, or -1 when out of memory.  Loading a model once and
 * copying it is far cheaper than reading its files again (the fuzz harnesses do). */
int  tput_copy(tput **out, const tput *src, struct errbuf *err);

/*
 * A fitted step-time model of one job type on one GPU type, n workers sharing `link`, each
 * running `samples` = batch (weak) or batch / n (strong) per step:
 *   t(n) = step_s + sample_s * samples
 *          + max(0, sync_s * 2 (n-1)/n + worker_s * (n-1) + extra_s - overlap * sample_s * samples)
 * (the all-reduce, hidden behind the fraction `overlap` of the compute as DDP's gradient
 * buckets are; nothing to hide at n = 1).  extra_s is what a slower link than `link` adds.
 */
struct tput_fit {
    double sample_s;            /* compute seconds per sample on one worker */
    double step_s;              /* fixed seconds per step (launches, optimizer, data) */
    double sync_s;              /* S / B_eff: the all-reduce's bandwidth term on `link` */
    double worker_s;            /* seconds per extra worker (latency, stragglers) */
    double overlap;             /* in [0, 1]: fraction of the compute that hides all-reduce */
    int    link;                /* catalog link the fitted workers shared (one host) */
};

/* Seconds per step of a fit; samples per worker, extra_s >= 0 added to the all-reduce. */
double tput_fit_step_s(const struct tput_fit *f, double samples, int workers, double extra_s);

int tput_load_types(tput *t, const char *jobtypes_json, struct errbuf *err);
/* A profile: hetsim's CSV (header job_type,gpu,workers,placement,iters_per_s), Heet's CSV
 * (gpu_type,model,batch_size,workers,epoch_time_s,batch_time_s: one global step per
 * batch_time_s, consolidated) or a JSON file of fits ({"fits": [...]}, the job types it
 * names loaded before).  Told apart by their first line. */
int tput_load_profile(tput *t, const char *csv_path, struct errbuf *err);
int tput_load_gavel(tput *t, const char *json_path, struct errbuf *err);

const catalog *tput_catalog(const tput *t);
int tput_ntypes(const tput *t);
const struct jobtype *tput_type(const tput *t, int id);
int tput_find(const tput *t, const char *name);     /* -1 if unknown */

/* Iterations/s of job type `jt` on `p`; 0 if it cannot run there (too little memory, or a
 * table says 0). */
double tput_rate(const tput *t, int jt, const struct placement *p);

/* A measured table entry, or -1 if none: (jt, gpu, workers, spread 0/1). */
double tput_measured(const tput *t, int jt, int gpu, int workers, int spread);

/* The fit of (jt, gpu), or NULL; tput_set_fit adds or replaces one (0, or -1 out of memory). */
const struct tput_fit *tput_fit_of(const tput *t, int jt, int gpu);
int tput_set_fit(tput *t, int jt, int gpu, const struct tput_fit *f);

/* What a profiler would have told about (jt, gpu, workers, spread): the measured entry, else
 * the fit's rate on its own link when spread is 0 (or workers 1), else -1.  The stand-in
 * for "measured" of everything that calibrates on profiles (Heet's completion, the
 * analytical model's nearest-GPU calibration). */
double tput_profiled(const tput *t, int jt, int gpu, int workers, int spread);

/* The pieces of the analytical model, exposed for tests and for policies' estimates. */
double tput_compute_s(const tput *t, int jt, int gpu, int workers);    /* per iteration */
double tput_allreduce_s(const tput *t, int jt, int workers, int link);  /* per iteration */

/* One iteration of job type jt at its own batch on p (tput_rate's), split for gradient
 * accumulation: *step its seconds, *sync the part that synchronizes, *fixed the part of the
 * compute that does not grow with the batch.  Where (jt, p's GPU) has a fit and no
 * measurement: the fit's compute is step_s + sample_s x samples per worker, *fixed its
 * step_s, and *sync the rest of the step (its exposed all-reduce).  Otherwise *fixed is 0 and
 * *sync the analytic ring all-reduce over p's slowest link (tput_allreduce_s), at most the
 * whole step, 0 on one GPU or for a type without parameters (then accumulation repeats the
 * whole step).  step - sync is compute.  0, or -1 when it cannot run there. */
int tput_step_split(const tput *t, int jt, const struct placement *p, double *step,
                    double *sync, double *fixed);

/* Seconds to restore a job from its checkpoint: fixed_s + ckpt_gb / storage_gbs. */
double tput_restore_s(const tput *t, int jt, double fixed_s, double storage_gbs);

/* A table-only job type of strong scaling (one iteration = one global step of `batch`)
 * taking `steps` steps to complete (> 0), for the elastic applications' profiles
 * (models/siaprof.h): its id, or -1 with err set (the name taken, too long, no memory). */
int tput_add_steps_type(tput *t, const char *name, int batch, double steps, struct errbuf *err);
/* Set a table entry (jt, gpu, workers, spread 0/1) to `rate` iterations/s (>= 0; 0: it cannot
 * run there).  0, or -1 when out of memory. */
int tput_put_measured(tput *t, int jt, int gpu, int workers, int spread, double rate,
                      struct errbuf *err);

/* Write every table entry as hetsim's profile CSV (the format tput_load_profile reads). */
int tput_write_profile(const tput *t, const char *csv_path, struct errbuf *err);

#endif
