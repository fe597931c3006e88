/*
 * timeline: the rows of the per-run `timeline` table (results/schema.sql), which a world
 * writes when the experiment sets sim.timeline (struct world_sim.timeline): who held which
 * resource when, and in what state.  One row is one interval of one entity (a training job, a
 * serving request, a microservice) on one resource (a GPU, an instance, a container group),
 * or on none while it waits; an entity on n resources at once has n rows per interval.
 *
 * The world keeps each entity's open interval and writes it when something ends it, so a row
 * is written once, complete, in the order intervals end.  Intervals of zero length are not
 * written.  `cause` says what began an interval (the policy's decision or the event) and
 * `ends` what ended it, from one list of names for every domain, so that tools (hetsim trace,
 * SQL) read every world's rows alike.
 *
 * Ownership: nothing is kept; the writer and cluster are borrowed for the call.
 */
#ifndef HETSIM_TIMELINE_H
#define HETSIM_TIMELINE_H

#include <stdint.h>

#include "../base/err.h"
#include "../base/simtime.h"
#include "cluster.h"

struct world_writer;

enum timeline_state {
    TL_QUEUED,          /* waiting: holds no resource (resource NULL) */
    TL_RUNNING,         /* holds the whole resource and makes progress */
    TL_SHARED,          /* holds a share < 1 of it (share column) and makes progress */
    TL_RESTORING,       /* holds it but makes no progress yet (checkpoint restore) */
    TL_NSTATES
};

/* What began or ended an interval. */
enum timeline_cause {
    TL_ARRIVAL,         /* began: the entity arrived */
    TL_START,           /* began: first grant; ended (a queued interval): granted */
    TL_RESUME,          /* began: granted again after a preemption */
    TL_MIGRATE,         /* began / ended: moved to other resources while running */
    TL_RESIZE,          /* began / ended: its number of resources changed while running */
    TL_RESHARE,         /* began / ended: the same resources at another share */
    TL_RESTORED,        /* ended: the restore finished, progress begins */
    TL_PREEMPT,         /* began (queued) / ended (running): preempted */
    TL_FINISH,          /* ended: the entity finished */
    TL_DROP,            /* ended: the world gave up on it (Gavel: 5 failed micro-tasks) */
    TL_STOP,            /* ended: the run stopped (sim.until_s, sim.max_events) */
    TL_NCAUSES
};

/* Names as stored: "queued", "running", "shared", "restoring"; "arrival", "start", ... */
const char *timeline_state_name(int state);
const char *timeline_cause_name(int cause);

/* One interval of `entity` on one resource (resource < 0: none, node and type ignored):
 * [from, to) of simulated time, share of the resource in (0, 1] (ignored for TL_QUEUED).
 * A row of zero length is not written.  0, or -1 with the writer's message. */
int timeline_row(const struct world_writer *out, int64_t entity, int64_t resource,
                 int64_t node, const char *type, simtime from, simtime to, int state,
                 double share, int cause, int ends, struct errbuf *err);

/* The same interval on each of n GPUs of cluster cl (n = 0: one queued row), the node and GPU
 * type of each taken from the cluster. */
int timeline_gpus(const struct world_writer *out, const cluster *cl, int64_t entity,
                  const int *gpus, int n, simtime from, simtime to, int state, double share,
                  int cause, int ends, struct errbuf *err);

#endif
