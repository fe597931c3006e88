/*
 * exclusive: one job per GPU — the baseline every multiplexing paper starts from (IADeep,
 * SC'23, section 5: "exclusive GPUs").
 *
 * Jobs start in arrival order, each on `workers` whole free GPUs of the type with most free,
 * packed onto the fewest nodes; later jobs that fit start while an earlier one waits
 * (backfill: the multiplexing policies here all backfill, so that what differs between them
 * is only how they share).  No preemption, no batch change.
 * Cost per decision: O(GPUs + running jobs) for the picture, O(1) placement per job started.
 */
#include <stdlib.h>

#include "../policy.h"
#include "mux.h"

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    (void)params;
    struct mux *m = calloc(1, sizeof *m);
    if (m == NULL || mux_init(m, env->cl) < 0) {
        free(m);
        return err_run(err, "out of memory");
    }
    *self = m;
    return 0;
}

static void destroy(void *self)
{
    mux_fini(self);
    free(self);
}

static int decide(void *self, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    struct mux *m = self;
    mux_load(m, v, out);
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j))
        if (mux_place_whole(m, v, j, err) < 0)
            return -1;
    return 0;
}

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = decide,
};

const struct policy_ops policy_exclusive = {
    .name = "exclusive",
    .domain = "training",
    .summary = "multiplexing baseline: one job per GPU, arrival order with backfill",
    .flags = POLICY_FIFO,
    .create = create,
    .destroy = destroy,
    .train = &hooks,
};
