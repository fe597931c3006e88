/*
 * srtf: preemptive shortest remaining time first.
 *
 * At every arrival and completion, jobs are ranked by remaining time = remaining iterations /
 * the job's throughput on its fastest GPU type (with its requested workers, best placement);
 * ties go to the earlier arrival.  Walking that order, each job is given `workers` GPUs if
 * they are still free: a waiting job goes to the fastest type with room; a running job keeps
 * its very GPUs (no restart) unless a faster type has room and the restore delay plus the
 * remaining time there is shorter than its remaining time where it is.  Jobs that lose their
 * place are preempted and pay the checkpoint-restore delay when they resume.  Jobs that do not
 * fit are skipped, so smaller jobs further down may still start (work-conserving).
 * Cost per decision: O(A log A) for A active jobs, plus placements.
 */
#include <stdlib.h>

#include "../plan.h"
#include "../policy.h"

struct srtf {
    occ   *scratch;
    struct rank { double key; int64_t id; int32_t slot; } *rank;
    size_t cap;
};

static int srtf_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)params;
    struct srtf *s = calloc(1, sizeof *s);
    if (s == NULL || (s->scratch = occ_create(env->cl)) == NULL) {
        free(s);
        return err_run(err, "out of memory");
    }
    *self = s;
    return 0;
}

static void srtf_destroy(void *self)
{
    struct srtf *s = self;
    occ_destroy(s->scratch);
    free(s->rank);
    free(s);
}

static int by_key(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static double best_rate(const struct train_view *v, const struct train_job *j)
{
    const int *types;
    int nt = cluster_types(v->cl, &types);
    double best = 0;
    for (int i = 0; i < nt; i++) {
        double r = train_view_rate(v, j, types[i], j->workers);
        if (r > best)
            best = r;
    }
    return best;
}

static int srtf_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct srtf *s = self;
    if ((size_t)v->n_active > s->cap) {
        size_t nc = (size_t)v->n_active * 2;
        struct rank *r = realloc(s->rank, nc * sizeof *r);
        if (r == NULL)
            return err_run(err, "out of memory");
        s->rank = r;
        s->cap = nc;
    }
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        double r = best_rate(v, j);
        double left = j->work - train_view_done(j, v->now);
        s->rank[n++] = (struct rank){ r > 0 ? left / r : 1e300, j->id, j->slot };
    }
    qsort(s->rank, n, sizeof *s->rank, by_key);

    /* count who runs on which type; plan_commit then keeps the running ones on their GPUs
     * and places the newcomers on what is left */
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    struct plan_pick *picks = calloc(n ? n : 1, sizeof *picks);
    if (picks == NULL)
        return err_run(err, "out of memory");
    const int *types;
    int nt = cluster_types(v->cl, &types), npicks = 0;
    int freec[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)
        freec[i] = cluster_type_count(v->cl, types[i]);
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[s->rank[k].slot];
        int slot = -1, cur = j->state == JOB_RUNNING ? cluster_type_slot(v->cl, j->gpu_type) : -1;
        double br = 0;
        for (int i = 0; i < nt; i++) {
            double r = freec[i] >= j->workers ? train_view_rate(v, j, types[i], j->workers) : 0;
            if (r > br) {
                br = r;
                slot = i;
            }
        }
        if (cur >= 0 && slot != cur) {
            /* move a running job only if the faster type pays for the restart */
            double left = j->work - train_view_done(j, v->now);
            if (!(j->rate > 0) || slot < 0 ||
                train_view_restore_s(v, j) + left / br >= left / j->rate)
                slot = cur;
        }
        if (slot >= 0 && freec[slot] >= j->workers) {
            freec[slot] -= j->workers;
            picks[npicks++] = (struct plan_pick){ j, types[slot], j->workers };
        }
    }
    int rc = plan_commit(&p, picks, npicks, err);
    free(picks);
    return rc;
}

static const struct train_hooks srtf_hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = srtf_train,
};

const struct policy_ops policy_srtf = {
    .name = "srtf",
    .domain = "training",
    .summary = "preemptive shortest remaining time first (time on the job's fastest type)",
    .create = srtf_create,
    .train = &srtf_hooks,
    .destroy = srtf_destroy,
};
