/*
 * tput: training throughput of a job type on a placement, in iterations per second.
 *
 * Two sources, one answer:
 *  - profiled tables (job type x GPU type x workers x consolidated/spread), from hetsim's own
 *    CSV format or read straight from Gavel's simulation_throughputs.json;
 *  - an analytical model for what no table covers: per-worker compute time from the GPU's
 *    peak FLOP/s (calibrated on the nearest measured GPU when one exists) plus ring all-reduce
 *    2 (n-1)/n * S / B + 2 (n-1) * latency over the slowest link the placement crosses.
 *
 * Units.  A job type's "iteration" is what its table counts.  For data-parallel jobs with a
 * fixed per-worker batch (scaling "weak", Gavel's convention) the rate is summed over
 * workers: n workers each stepping every t seconds give n / t.  For a fixed global batch
 * (scaling "strong", the Heet/Pollux profiles) an iteration is one global step: 1 / t.
 *
 * Ownership: tput_create allocates, tput_destroy frees; the catalog must outlive it.  After
 * loading, every function is a pure read: no hidden state, safe to share.
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
};

int  tput_create(tput **out, const catalog *cat, struct errbuf *err);
void tput_destroy(tput *t);

int tput_load_types(tput *t, const char *jobtypes_json, struct errbuf *err);
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

/* The pieces of the analytical model, exposed for tests and for policies' estimates. */
double tput_compute_s(const tput *t, int jt, int gpu, int workers);    /* per iteration */
double tput_allreduce_s(const tput *t, int jt, int workers, int link);  /* per iteration */

/* One iteration of job type jt at its own batch on p (tput_rate's), split for gradient
 * accumulation: *step its seconds, *sync the part that synchronizes — the analytic ring
 * all-reduce over p's slowest link (tput_allreduce_s), at most the whole step, 0 on one GPU
 * or for a type without parameters (a table-only type: then accumulation repeats the whole
 * step).  The rest, step - sync, is compute.  0, or -1 when it cannot run there. */
int tput_step_split(const tput *t, int jt, const struct placement *p, double *step,
                    double *sync);

/* Seconds to restore a job from its checkpoint: fixed_s + ckpt_gb / storage_gbs. */
double tput_restore_s(const tput *t, int jt, double fixed_s, double storage_gbs);

/* Write every table entry as hetsim's profile CSV (the format tput_load_profile reads). */
int tput_write_profile(const tput *t, const char *csv_path, struct errbuf *err);

#endif
