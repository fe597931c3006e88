/*
 * workload: turns an experiment's "workload" object into a stream of jobs for the training
 * world.  Formats:
 *   hetsim     hetsim's own CSV (README, "Trace format"), streamed
 *   gavel      Gavel's tab-separated traces, 7-field (old) and 10-field (current), streamed
 *   philly     the Philly-derived job list (submit time, duration, GPUs, VC), sorted in memory
 *   synthetic  Poisson arrivals with job-type, worker-count and duration distributions (GSL)
 * Durations are turned into work on the workload's reference GPU type (see wl_work_from_duration).
 *
 * Ownership: wl_open allocates and opens files; wl_close frees.  The model must outlive it.
 */
#ifndef HETSIM_WORKLOAD_H
#define HETSIM_WORKLOAD_H

#include <stdint.h>

#include "../sim/jsonf.h"
#include "../sim/train.h"

typedef struct workload workload;

struct wl_env {
    const tput *model;
    uint64_t    seed;
    const char *base_dir;       /* the experiment file's directory, for relative paths */
};

int  wl_open(workload **out, const struct jobj *cfg, const struct wl_env *env,
             struct errbuf *err);
void wl_close(workload *w);
struct job_source *wl_source(workload *w);

/* Work (iterations) that takes `duration_s` for `workers` GPUs of type `gpu` on one node with
 * the GPU's own link — the convention for traces that give durations.  0 if it cannot run. */
double wl_work_from_duration(const tput *m, int jtype, int gpu, int workers, double duration_s);

#endif
