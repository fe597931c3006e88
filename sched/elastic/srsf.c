/*
 * srsf: fixed-size shortest remaining service first, the first baseline of Heet (ASPLOS'24,
 * section 5: "SRSF"; Tiresias's SRSF, NSDI'19, section 3.2 with known durations).
 *
 * Every round (120 s by default, Heet's prototype) the active jobs are ranked by remaining
 * service, the GPU-time they still need at the size they asked for:
 *   S_j = R_j / thr_j(d_j) * d_j,   thr_j(d_j) their rate with d_j workers on their fastest type,
 * R_j the iterations left.  Walking that order (ties: earlier arrival), a job gets d_j GPUs:
 * the type it runs on if that still has d_j free (no restart), else the fastest type with
 * d_j free; a job that fits nowhere waits and later, smaller jobs may still start (work
 * conserving).  Jobs that lose their GPUs are preempted and pay the restart delay when they
 * resume (the world charges it).
 *
 * Assumptions the papers leave open: the size is the job's requested `workers` (never its
 * elastic range); the rate is the measured table or throughput model of the job's type at a
 * consolidated placement (the view's rate), not an estimate; decisions only at round
 * boundaries, so arrivals and freed GPUs wait for the next round, as in Heet's simulator.
 * Cost per round: O(A log A + A T) for A active jobs and T types.
 */
#include <stdlib.h>

#include "../plan.h"
#include "../policy.h"

struct srsf {
    occ              *scratch;
    struct key       *keys;
    size_t            kcap;
    struct plan_pick *picks;
    size_t            pcap;
};

struct key {
    double  s;
    int64_t id;
    int32_t slot;
};

static int srsf_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)params;
    struct srsf *s = calloc(1, sizeof *s);
    if (s == NULL || (s->scratch = occ_create(env->cl)) == NULL) {
        free(s);
        return err_run(err, "out of memory");
    }
    *self = s;
    return 0;
}

static void srsf_destroy(void *self)
{
    struct srsf *s = self;
    occ_destroy(s->scratch);
    free(s->keys);
    free(s->picks);
    free(s);
}

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int srsf_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct srsf *s = self;
    int failed = 0;
    s->keys = plan_grow(s->keys, &s->kcap, (size_t)v->n_active, sizeof *s->keys, &failed);
    s->picks = plan_grow(s->picks, &s->pcap, (size_t)v->n_active, sizeof *s->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");
    const int *types;
    int nt = cluster_types(v->cl, &types);
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        double best = 0;
        for (int i = 0; i < nt; i++) {
            double r = train_view_rate(v, j, types[i], j->workers);
            if (r > best)
                best = r;
        }
        double left = j->work - train_view_done(j, v->now);
        s->keys[n++] = (struct key){ best > 0 ? left / best * j->workers : 1e300, j->id, j->slot };
    }
    qsort(s->keys, n, sizeof *s->keys, cmp_key);
    int freec[CLUSTER_MAX_TYPES], npicks = 0;
    for (int i = 0; i < nt; i++)
        freec[i] = train_view_type_cap(v, types[i]);
    for (size_t k = 0; k < n; k++) {
        const struct train_job *j = &v->jobs[s->keys[k].slot];
        int at = -1;
        if (j->state == JOB_RUNNING && j->ngpu == j->workers) {
            int c = cluster_type_slot(v->cl, j->gpu_type);
            if (freec[c] >= j->workers)
                at = c;
        }
        double bestr = 0;
        for (int i = 0; i < nt && at < 0; i++) {
            double r = freec[i] >= j->workers ? train_view_rate(v, j, types[i], j->workers) : 0;
            if (r > bestr) {
                bestr = r;
                at = i;
            }
        }
        if (at < 0)
            continue;
        freec[at] -= j->workers;
        s->picks[npicks++] = (struct plan_pick){ j, types[at], j->workers };
    }
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    return plan_commit(&p, s->picks, npicks, err);
}

static const struct train_hooks srsf_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 120,
    .decide = srsf_train,
};

const struct policy_ops policy_srsf = {
    .name = "srsf",
    .domain = "training",
    .summary = "elastic baseline: fixed-size shortest remaining service (GPU-time) first, per "
               "round (Heet's SRSF)",
    .create = srsf_create,
    .train = &srsf_hooks,
    .destroy = srsf_destroy,
};
