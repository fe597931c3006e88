/*
 * fifo: first in, first out, heterogeneity-agnostic.
 *
 * Jobs start in arrival order, each on `workers` whole GPUs of one type, packed onto the
 * fewest nodes; a started job runs to completion (no preemption).  The type is the one with
 * the most free GPUs that can hold the job — the policy does not look at speeds, which is
 * what "agnostic" means here (Gavel's FIFO draws a type at random instead; see
 * ../shared/reference/README.md, item 9, for why hetsim does not copy that).
 *
 * Strict FIFO (the default) stops at the first job that does not fit, so a large job at the
 * head blocks the queue; with "backfill": true later jobs that fit may start meanwhile.
 * Cost per decision: O(jobs started + 1) placements, plus an O(GPUs) scratch copy.
 */
#include <stdlib.h>

#include "../plan.h"
#include "../policy.h"

struct fifo {
    occ *scratch;
    int  backfill;
    int  mode;          /* OCC_PACK or OCC_SPREAD */
};

static int fifo_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    static const char *const placements[] = { "pack", "spread", NULL };
    struct fifo *f = calloc(1, sizeof *f);
    if (f == NULL)
        return err_run(err, "out of memory");
    f->mode = OCC_PACK;
    if (jobj_bool(params, "backfill", JOPT, &f->backfill, err) < 0 ||
        jobj_enum(params, "placement", JOPT, placements, &f->mode, err) < 0 ||
        (f->scratch = occ_create(env->cl)) == NULL) {
        free(f);
        return err->code ? -1 : err_run(err, "out of memory");
    }
    *self = f;
    return 0;
}

static void fifo_destroy(void *self)
{
    struct fifo *f = self;
    occ_destroy(f->scratch);
    free(f);
}

static int fifo_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct fifo *f = self;
    struct plan p;
    plan_begin(&p, v, f->scratch, out, PLAN_DELTA);
    for (const struct train_job *j = tv_first_waiting(v); j; j = tv_next_waiting(v, j)) {
        int type = plan_most_free_type(&p, j->workers);
        int rc = type < 0 ? 1 : plan_place(&p, j, type, j->workers, f->mode, err);
        if (rc < 0)
            return -1;
        if (rc > 0 && !f->backfill)
            break;
    }
    return 0;
}

static const char *const fifo_params[] = { "backfill", "placement", NULL };

const struct policy_ops policy_fifo = {
    .name = "fifo",
    .domain = "training",
    .summary = "first come first served, any GPU type, no preemption (optional backfill)",
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .params = fifo_params,
    .create = fifo_create,
    .train = fifo_train,
    .destroy = fifo_destroy,
};
