/*
 * timeline: one row per (interval, resource) through the world's writer, by the column names
 * of results/schema.sql.  The column list is one static array, so the writer prepares its
 * insert once per run.  O(n) per interval on n resources.
 */
#include "timeline.h"

#include <assert.h>

#include "world.h"

static const char *const state_names[TL_NSTATES] = {
    [TL_QUEUED] = "queued", [TL_RUNNING] = "running", [TL_SHARED] = "shared",
    [TL_RESTORING] = "restoring",
};

static const char *const cause_names[TL_NCAUSES] = {
    [TL_ARRIVAL] = "arrival", [TL_START] = "start",     [TL_RESUME] = "resume",
    [TL_MIGRATE] = "migrate", [TL_RESIZE] = "resize",   [TL_RESHARE] = "reshare",
    [TL_RESTORED] = "restored", [TL_PREEMPT] = "preempt", [TL_FINISH] = "finish",
    [TL_DROP] = "drop",       [TL_STOP] = "stop",
};

const char *timeline_state_name(int state)
{
    assert(state >= 0 && state < TL_NSTATES);
    return state_names[state];
}

const char *timeline_cause_name(int cause)
{
    assert(cause >= 0 && cause < TL_NCAUSES);
    return cause_names[cause];
}

static const char *const cols[] = { "entity", "resource", "node", "resource_type", "start_s",
                                    "end_s", "state", "share", "cause", "ends" };
enum { NCOLS = sizeof cols / sizeof cols[0] };

int timeline_row(const struct world_writer *out, int64_t entity, int64_t resource,
                 int64_t node, const char *type, simtime from, simtime to, int state,
                 double share, int cause, int ends, struct errbuf *err)
{
    if (out->row == NULL || to <= from)
        return 0;
    int held = resource >= 0 && state != TL_QUEUED;
    struct row_value v[NCOLS] = {
        row_int(entity),
        held ? row_int(resource) : row_null(),
        held && node >= 0 ? row_int(node) : row_null(),
        held && type != NULL ? row_text(type) : row_null(),
        row_real(sim_to_sec(from)),
        row_real(sim_to_sec(to)),
        row_text(timeline_state_name(state)),
        held ? row_real(share) : row_null(),
        row_text(timeline_cause_name(cause)),
        row_text(timeline_cause_name(ends)),
    };
    return out->row(out->ctx, "timeline", cols, v, NCOLS, err);
}

int timeline_gpus(const struct world_writer *out, const cluster *cl, int64_t entity,
                  const int *gpus, int n, simtime from, simtime to, int state, double share,
                  int cause, int ends, struct errbuf *err)
{
    if (out->row == NULL || to <= from)
        return 0;
    if (n == 0)
        return timeline_row(out, entity, -1, -1, NULL, from, to, TL_QUEUED, 0, cause, ends,
                            err);
    const catalog *cat = cluster_catalog(cl);
    for (int i = 0; i < n; i++)
        if (timeline_row(out, entity, gpus[i], cluster_gpu_node(cl, gpus[i]),
                         catalog_gpu(cat, cluster_gpu_type(cl, gpus[i]))->name, from, to,
                         state, share, cause, ends, err) < 0)
            return -1;
    return 0;
}
