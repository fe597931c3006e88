/*
 * gavel: the Gavel-compatible world — Gavel's own simulator mechanism (OSDI 2020 artifact,
 * stanford-futuredata/gavel scheduler.py, simulate()), for calibrating hetsim against it and
 * for reproducing Gavel-style experiments number for number.
 *
 * It differs from the native training world on purpose: speeds come only from the measured
 * table (consolidated entries: placement never matters), preemption and migration are free,
 * time advances in rounds whose length is set by the slowest micro-task, jobs join only at
 * round boundaries, and the allocation is recomputed only when jobs arrived or left and at
 * least `min_realloc` after the previous recompute.  sim/train/gavel.c lists the mechanism
 * step by step, as Gavel's scheduler.py (stanford-futuredata/gavel @c4fa400) runs it.
 *
 * Ownership: everything passed in is borrowed for the duration of gavel_run.
 */
#ifndef HETSIM_GAVEL_H
#define HETSIM_GAVEL_H

#include "alloc_view.h"
#include "train.h"

struct gavel_config {
    uint64_t seed;              /* shuffles the type order of agnostic policies */
    simtime  round;             /* Gavel's time_per_iteration, 360 s */
    double   min_realloc_s;     /* Gavel's minimum_time_between_allocation_resets, 1920 s */
    simtime  sample_period;     /* 0: no time series */
    int      round_samples;     /* 1: GPUs granted per type and jobs running, every round */
    uint64_t max_events;        /* 0: no limit */
    struct window measure;      /* as train_config's: to <= from means first to last arrival */
};

struct gavel_totals {
    struct train_totals t;
    double  utilization;        /* Gavel's: mean over GPUs of micro-task time / final time */
    int64_t dropped;            /* jobs dropped after 5 failed micro-tasks in a row */
};

/* train_job_check, and what Gavel's mechanism needs besides: a measured throughput on a GPU
 * type with enough GPUs, and a whole number of steps.  The world checks every job with it;
 * so does `hetsim validate` for an experiment in Gavel mode. */
int gavel_job_check(const cluster *cl, const tput *model, const struct job_spec *s,
                    struct errbuf *err);

int gavel_run(const cluster *cl, const tput *model, const struct gavel_config *cfg,
              struct entity_source *src, const struct train_decider *alloc,
              const struct train_sink *sink, struct gavel_totals *out, struct errbuf *err);

#endif
