/*
 * trace: one run's timeline rows (the `timeline` table, written with sim.timeline) as a Chrome
 * trace-event JSON file, the format Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 *
 * Layout: one process per node, named by its GPU type and sorted by type then node, so the
 * nodes of a type sit together; one thread (track) per GPU of the node; one complete event
 * ("X") per timeline interval on a GPU, named by the entity and the decision that began it
 * ("job 17 (migrate)", "job 17 restoring (resume)"), its row in the args.  Intervals of
 * entities that share a GPU overlap, and a track's slices must nest, so a GPU's overlapping
 * slices go to extra tracks of that GPU ("GPU 3 (2)").  A first process ("<experiment>:
 * <policy>") holds the counter tracks — entities waiting and busy GPUs per GPU type, exact
 * step functions of the timeline, and each type's sampled utilization when the run has
 * samples — and two tracks of instant events: arrivals and completions.  Timestamps are the
 * simulated microseconds: one second of trace time is one simulated second.
 *
 * Everything comes from the database: the export needs no world, cluster or catalog.  The
 * rows are streamed (ordered by GPU, then time), so memory does not grow with the run.
 *
 * Ownership: the database is opened read-only and closed before trace_export returns; with
 * out_path the file is created (and removed again if the export fails).
 */
#ifndef HETSIM_TRACE_H
#define HETSIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/base/display.h"
#include "../sim/base/err.h"

struct trace_opts {
    const char *db_path;
    int64_t     run;            /* the run; <= 0: the latest run with timeline rows */
    const char *out_path;       /* write this file; NULL: `out`, or when that is NULL too,
                                   results/out/run<N>.trace.json (its folder made) */
    display_fn  display_of;     /* names of the run's domain ("job", "GPU"); may be NULL */
};

struct trace_stats {
    int64_t run;                /* the run exported */
    int64_t slices, counters, instants, tracks;
    char    path[4096];         /* the file written ("" for `out`) */
};

/* Write the trace.  A missing database, run or timeline is an input error naming --db or
 * --run (code 2); an unwritable file a run error (1). */
int trace_export(const struct trace_opts *o, FILE *out, struct trace_stats *st /* out */,
                 struct errbuf *err);

#endif
