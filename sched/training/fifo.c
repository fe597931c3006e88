/*
 * fifo, fifo_perf: first in, first out — heterogeneity-agnostic, and heterogeneity-aware.
 *
 * Jobs start in arrival order, each on `workers` whole GPUs of one type, packed onto the
 * fewest nodes; a started job runs to completion (no preemption).  The type is the one with
 * the most free GPUs that can hold the job — the policy does not look at speeds, which is
 * what "agnostic" means here (Gavel's FIFO draws a type at random, then places the job on
 * the alphabetically last type that still has a free GPU, over-committing that type: a
 * defect of its simulator that hetsim does not copy).
 *
 * fifo_perf is the same queue, but each job goes to the free type on which it runs fastest
 * (Gavel's FIFO_Perf).  In Gavel-compatible mode its allocation is Gavel's: rebuilt at every
 * recompute in job-id order, each job to the type with the highest throughput among those
 * with enough free GPUs (ties: alphabetical type name), stopping at the first job that fits
 * nowhere; x = 1 on the chosen type.
 *
 * Strict FIFO (the default) stops at the first job that does not fit, so a large job at the
 * head blocks the queue; with "backfill": true later jobs that fit may start meanwhile.
 * Cost per decision: O(jobs started + 1) placements, plus an O(GPUs) scratch copy.
 */
#include <stdlib.h>
#include <strings.h>

#include "../alloc.h"
#include "../plan.h"
#include "../policy.h"

struct fifo {
    occ           *scratch;
    int            backfill;
    int            mode;        /* OCC_PACK or OCC_SPREAD */
    int            perf;        /* fifo_perf: fastest free type */
    const catalog *cat;
};

static int create(void **self, const struct jobj *params, const struct policy_env *env, int perf,
                  struct errbuf *err)
{
    static const char *const placements[] = { "pack", "spread", NULL };
    struct fifo *f = calloc(1, sizeof *f);
    if (f == NULL)
        return err_run(err, "out of memory");
    f->mode = OCC_PACK;
    f->perf = perf;
    f->cat = cluster_catalog(env->cl);
    if (jobj_bool(params, "backfill", JOPT, &f->backfill, err) < 0 ||
        jobj_enum(params, "placement", JOPT, placements, &f->mode, err) < 0 ||
        (f->scratch = occ_create(env->cl)) == NULL) {
        free(f);
        return err->code ? -1 : err_run(err, "out of memory");
    }
    *self = f;
    return 0;
}

static int fifo_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    return create(self, params, env, 0, err);
}

static int fifo_perf_create(void **self, const struct jobj *params,
                            const struct policy_env *env, struct errbuf *err)
{
    return create(self, params, env, 1, err);
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
    for (const struct train_job *j = train_view_first_waiting(v); j; j = train_view_next_waiting(v, j)) {
        int type = f->perf ? plan_fastest_type(&p, j, j->workers)
                           : plan_most_free_type(&p, j->workers);
        int rc = type < 0 ? 1 : plan_place(&p, j, type, j->workers, f->mode, err);
        if (rc < 0)
            return -1;
        if (rc > 0 && !f->backfill)
            break;
    }
    return 0;
}

/* Gavel's FIFO_Perf allocation (Gavel-compatible mode). */
static int fifo_perf_allocate(void *self, const struct alloc_problem *p, double *x,
                              struct errbuf *err)
{
    struct fifo *f = self;
    (void)err;
    int T = p->ntypes, order[CLUSTER_MAX_TYPES];
    double avail[CLUSTER_MAX_TYPES];
    for (int w = 0; w < T; w++) {
        order[w] = w;
        avail[w] = p->cap[w];
    }
    for (int a = 1; a < T; a++)         /* alphabetical by type name */
        for (int b = a; b > 0 && strcasecmp(catalog_gpu(f->cat, p->types[order[b]])->name,
                                            catalog_gpu(f->cat, p->types[order[b - 1]])->name) < 0;
             b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int j = 0; j < p->njobs; j++) {       /* the problem lists jobs in id order */
        int best = -1;
        double bt = -1;
        for (int k = 0; k < T; k++) {
            int w = order[k];
            if (avail[w] >= p->scale[j] && p->thr[j * T + w] > bt) {
                bt = p->thr[j * T + w];
                best = w;
            }
        }
        if (best < 0)
            break;
        avail[best] -= p->scale[j];
        if (p->thr[j * T + best] > 0)       /* x on a type it cannot run on would be void */
            x[j * T + best] = 1;
    }
    return 0;
}

static const char *const fifo_params[] = { "backfill", "placement", NULL };

static const struct train_hooks fifo_hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = fifo_train,
};

const struct policy_ops policy_fifo = {
    .name = "fifo",
    .domain = "training",
    .summary = "first come first served, any GPU type, no preemption (optional backfill)",
    .flags = POLICY_AGNOSTIC | POLICY_FIFO,
    .params = fifo_params,
    .create = fifo_create,
    .train = &fifo_hooks,
    .destroy = fifo_destroy,
};

static const struct train_hooks fifo_perf_hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .round_s = 360,
    .decide = fifo_train,
    .allocate = fifo_perf_allocate,
};

const struct policy_ops policy_fifo_perf = {
    .name = "fifo_perf",
    .domain = "training",
    .summary = "first come first served on the fastest free GPU type, no preemption",
    .flags = POLICY_FIFO,
    .params = fifo_params,
    .create = fifo_perf_create,
    .train = &fifo_perf_hooks,
    .destroy = fifo_destroy,
};
