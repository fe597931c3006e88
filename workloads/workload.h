/*
 * workload: turns an experiment's "workload" object into a stream of jobs.  The formats
 * (`hetsim list formats`) are found by name in workload_registry (workloads/reader.h says
 * what a format is; workloads/registry.c lists them):
 *   hetsim     hetsim's own CSV (doc/experiments.md, "hetsim's trace format"), streamed
 *   gavel      Gavel's tab-separated traces, 7-field (old) and 10-field (current), streamed
 *   philly     the Philly-derived job list (submit time, duration, GPUs, VC), sorted in memory
 *   synthetic  Poisson arrivals with job-type, worker-count and duration distributions (GSL)
 * Durations are turned into work on the workload's reference GPU type
 * (reader_work_from_duration).
 *
 * Ownership: workload_open allocates and opens files; workload_close frees.  The model must
 * outlive it.
 */
#ifndef HETSIM_WORKLOAD_H
#define HETSIM_WORKLOAD_H

#include <stdint.h>

#include "../models/tput.h"
#include "../sim/base/jobj.h"
#include "../sim/base/simtime.h"
#include "../sim/core/entity.h"

typedef struct workload workload;

struct workload_env {
    const tput *model;
    uint64_t    seed;
    const char *base_dir;       /* the experiment file's directory, for relative paths */
};

int  workload_open(workload **out, const struct jobj *cfg, const struct workload_env *env,
                   struct errbuf *err);
void workload_close(workload *w);
struct entity_source *workload_source(workload *w);
/* The domain its format's entities are for ("training"). */
const char *workload_domain(const workload *w);

struct workload_format;

/* Every format, NULL-terminated, in the order `hetsim list formats` prints. */
extern const struct workload_format *const workload_registry[];
const struct workload_format *workload_format_find(const char *name);

/* 1 when the experiment's seed changes the jobs of this workload object (a generator, a
 * job-type draw, arrival jitter), 0 when it does not or the object is malformed. */
int workload_seeded(const struct jobj *cfg);

#endif
