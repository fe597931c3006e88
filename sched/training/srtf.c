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
 * Cost per decision: O(A) for A active jobs, plus placements.  The order is kept from one
 * decision to the next (sched/rank.h) rather than re-sorted: a waiting job's key does not
 * change, and running jobs' keys all fall, at the same pace when they run on their fastest
 * type, so few jobs change places between two decisions; repairing the order costs O(A + k
 * log k) for k jobs that moved.  Each job's rates on every type (and the types by speed) are
 * read once from the view's rate memo, when the policy first sees it.
 */
#include <stdlib.h>
#include <string.h>

#include "../plan.h"
#include "../policy.h"
#include "../rank.h"

struct jrates {                 /* per slot; id tells whether it still describes the job */
    int64_t id;
    double  best;               /* its rate on its fastest type (0: it runs nowhere) */
    double  r[CLUSTER_MAX_TYPES];       /* with its workers on each type (cluster order) */
    int8_t  ord[CLUSTER_MAX_TYPES];     /* types it can run on, fastest first, ties to the
                                           earlier type */
    int8_t  nord;
};

struct srtf {
    occ              *scratch;
    rank             *rank;
    struct jrates    *jr;
    size_t            jrcap;
    struct plan_pick *picks;
    size_t            pcap;
};

static int srtf_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)params;
    struct srtf *s = calloc(1, sizeof *s);
    if (s == NULL || (s->scratch = occ_create(env->cl)) == NULL ||
        (s->rank = rank_create()) == NULL) {
        if (s != NULL)
            occ_destroy(s->scratch);
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
    rank_destroy(s->rank);
    free(s->jr);
    free(s->picks);
    free(s);
}

/* Job j's rates, filled the first time its slot holds it; NULL on no memory. */
static const struct jrates *rates_of(struct srtf *s, const struct train_view *v,
                                     const struct train_job *j)
{
    if ((size_t)j->slot >= s->jrcap) {     /* new entries: id -1, nobody */
        size_t old = s->jrcap;
        int failed = 0;
        s->jr = plan_grow(s->jr, &s->jrcap, (size_t)j->slot + 1, sizeof *s->jr, &failed);
        if (failed)
            return NULL;
        memset(s->jr + old, 0xFF, (s->jrcap - old) * sizeof *s->jr);
    }
    struct jrates *c = &s->jr[j->slot];
    if (c->id == j->id)
        return c;
    const int *types;
    int nt = cluster_types(v->cl, &types);
    c->id = j->id;
    c->best = 0;
    c->nord = 0;
    for (int i = 0; i < nt; i++) {
        c->r[i] = train_view_rate(v, j, types[i], j->workers);
        if (c->r[i] > c->best)
            c->best = c->r[i];
        if (!(c->r[i] > 0))
            continue;
        int k = c->nord++;      /* insert, keeping faster first and equal rates in type order */
        for (; k > 0 && c->r[c->ord[k - 1]] < c->r[i]; k--)
            c->ord[k] = c->ord[k - 1];
        c->ord[k] = (int8_t)i;
    }
    return c;
}

static int srtf_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct srtf *s = self;
    int failed = 0;
    s->picks = plan_grow(s->picks, &s->pcap, (size_t)v->n_active, sizeof *s->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");
    rank_begin(s->rank);
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        const struct jrates *c = rates_of(s, v, j);
        if (c == NULL)
            return err_run(err, "out of memory");
        double left = j->work - train_view_done(j, v->now);
        if (rank_set(s->rank, j->slot, j->id, c->best > 0 ? left / c->best : 1e300) < 0)
            return err_run(err, "out of memory");
    }
    const struct rank_entry *order;
    size_t n = rank_order(s->rank, &order);
    if (n == (size_t)-1)
        return err_run(err, "out of memory");

    /* count who runs on which type; plan_commit then keeps the running ones on their GPUs
     * and places the newcomers on what is left */
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    const int *types;
    int nt = cluster_types(v->cl, &types), npicks = 0;
    int freec[CLUSTER_MAX_TYPES];
    for (int i = 0; i < nt; i++)        /* the cluster but what another tenant holds */
        freec[i] = plan_free(&p, types[i]);
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[order[k].slot];
        const struct jrates *c = &s->jr[j->slot];
        int slot = -1, cur = j->state == JOB_RUNNING ? cluster_type_slot(v->cl, j->gpu_type) : -1;
        for (int o = 0; o < c->nord && slot < 0; o++)    /* the fastest type with room */
            if (freec[c->ord[o]] >= j->workers)
                slot = c->ord[o];
        if (cur >= 0 && slot != cur) {
            /* move a running job only if the faster type pays for the restart */
            double left = j->work - train_view_done(j, v->now);
            if (!(j->rate > 0) || slot < 0 ||
                train_view_restore_s(v, j) + left / c->r[slot] >= left / j->rate)
                slot = cur;
        }
        if (slot >= 0 && freec[slot] >= j->workers) {
            freec[slot] -= j->workers;
            s->picks[npicks++] = (struct plan_pick){ j, types[slot], j->workers };
        }
    }
    return plan_commit(&p, s->picks, npicks, err);
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
