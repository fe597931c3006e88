/*
 * merge: joins metrics databases — the per-shard or per-rank files of a sweep — into one.
 *
 * Each run of the input is copied, with its rows in every table, under a new run id, unless
 * a run with the same configuration (config_hash and config_json) is already in the output:
 * merging the same file twice, or shards that overlap, adds nothing the second time.  One
 * transaction per input file, so a failed merge leaves the output as it was.
 *
 * Ownership: nothing is kept; both files are opened and closed inside the call.
 */
#ifndef HETSIM_MERGE_H
#define HETSIM_MERGE_H

#include "../sim/base/err.h"

int merge_db(const char *out_path, const char *in_path, long *copied, long *skipped,
             struct errbuf *err);

#endif
