/*
 * pollux: the Pollux-compatible world — the mechanism of Pollux's own simulator (OSDI 2021
 * artifact, petuum/adaptdl osdi21-artifact @c793c70, simulator/simulator.py: Cluster.step,
 * Job.step, Job.reallocate, Job.update_local_bsz), for calibrating hetsim against it and
 * reproducing Pollux- and Sia-style experiments number for number ("mode": "pollux").
 *
 * Jobs are elastic applications (models/elastic.h) from a Pollux workload (the "pollux"
 * format): time moves in fixed ticks, a job progresses in its application's epochs at the
 * goodput its placement and batch give, every reallocation costs a restart penalty, and an
 * elastic policy (sim/train/elastic_view.h) chooses per-node GPU lists each tick.
 * sim/train/pollux.c lists the mechanism step by step.  The cluster is hetsim's: its nodes
 * in cluster order are Pollux's nodes 0, 1, ...; one GPU type, with a profile of every
 * application the workload names.
 *
 * Per-job rows: job_type is the application, workers the trace's num_replicas, work the
 * epochs to completion; ftf_rho and t_iso_s are NULL (Pollux defines no isolated run).
 * throughput_norm_window counts the jobs holding GPUs (their restart penalty included), each
 * as 1: Pollux's jobs have no single reference speed.
 *
 * Ownership: everything passed in is borrowed for the duration of pollux_run.
 */
#ifndef HETSIM_POLLUX_H
#define HETSIM_POLLUX_H

#include "elastic_view.h"
#include "train.h"

struct pollux_config {
    simtime        tick;            /* Pollux's --interval, 60 s */
    double         restart_s;       /* Job.reallocate's rescale_time, 30 s */
    simtime        sample_period;   /* 0: no time series */
    simtime        until;           /* SIM_NEVER: until every job completes */
    uint64_t       max_events;      /* ticks; 0: no limit */
    struct window  measure;         /* as train_config's */
};

/* The job as Pollux's mechanism takes it: a known application with a profile on the
 * cluster's GPU type, a batch size within its validated sizes, at least one of its smallest
 * local batch, and no more GPUs than the cluster has.  0, or -1 naming file, line and field.
 * `gpu` is the cluster's GPU type. */
int pollux_job_check(const cluster *cl, const elastic *apps, int gpu,
                     const struct job_spec *s, struct errbuf *err);

/* The cluster's one GPU type, or -1 with the reason (several types, none profiled, a node of
 * more than 9 GPUs, which Pollux's placement names cannot hold). */
int pollux_cluster_gpu(const cluster *cl, const elastic *apps, struct errbuf *err);

int pollux_run(const cluster *cl, const elastic *apps, const struct pollux_config *cfg,
               struct entity_source *src, const struct train_decider *dec,
               const struct train_sink *sink, struct train_totals *out, struct errbuf *err);

#endif
