/*
 * afs: GPUs handed out one at a time by marginal gain, the elastic-sharing baseline of Heet
 * (ASPLOS'24, section 5), after AFS (Hwang et al., "Elastic Resource Sharing for Distributed
 * Deep Learning", NSDI'21, section 4: each GPU goes to the job whose throughput it raises
 * most, so jobs that scale well get more while every job keeps progressing).
 *
 * Every round (120 s by default) the allocation is rebuilt from an empty cluster.  While GPUs
 * are free, the next one goes to the job with the largest gain per GPU, in units of the job's
 * own best single-GPU speed b_j = max_i thr_j,i(1) (so jobs of different speeds compare):
 *   a job holding nothing:   g = thr_j,i(m_j) / (m_j b_j) for its min_workers m_j GPUs of
 *                            type i (its current type if that has m_j free, else the type
 *                            with the largest g);
 *   a job holding n of i:    g = (thr_j,i(n + 1) - thr_j,i(n)) / b_j, while n < max_workers
 *                            and type i has a free GPU.
 * Ties go to the job with less remaining time R_j / b_j (AFS-L's short-job preference),
 * then the earlier arrival.  It stops when no gain is > 0: a GPU that would slow a job down
 * (Heet's batch-64 profiles) stays idle.
 *
 * Assumptions left open: a job's GPUs are of one type (the world's placements are); rates
 * are the measured table or throughput model at a consolidated placement (the view's rate),
 * not estimates; decisions only at round boundaries, as in Heet's simulator; AFS's
 * two-job pairwise rule (AFS-L compares a pair's JCT with and without the GPU) is replaced
 * by the gain per GPU with the short-job tie-break.
 * Cost per round: O(G A T) for G GPUs, A active jobs and T types.
 */
#include <stdlib.h>

#include "../plan.h"
#include "../policy.h"

struct cand {
    const struct train_job *job;
    double  b1, left_s;         /* best single-GPU rate; remaining time at that rate */
    int     n, type;            /* what it holds so far (type: cluster slot, -1 none) */
};

struct afs {
    occ              *scratch;
    struct cand      *c;
    size_t            ccap;
    struct plan_pick *picks;
    size_t            pcap;
};

static int afs_create(void **self, const struct jobj *params, const struct policy_env *env,
                      struct errbuf *err)
{
    (void)params;
    struct afs *s = calloc(1, sizeof *s);
    if (s == NULL || (s->scratch = occ_create(env->cl)) == NULL) {
        free(s);
        return err_run(err, "out of memory");
    }
    *self = s;
    return 0;
}

static void afs_destroy(void *self)
{
    struct afs *s = self;
    occ_destroy(s->scratch);
    free(s->c);
    free(s->picks);
    free(s);
}

/* The gain per GPU of c's next step and the type it takes; 0 when it has none. */
static double next_gain(const struct train_view *v, const struct cand *c, const int *types,
                        int nt, const int *freec, int *type)
{
    const struct train_job *j = c->job;
    if (!(c->b1 > 0))
        return 0;
    if (c->n == 0) {
        int m = j->min_workers, cur = -1, best = -1;
        double bestg = 0;
        if (j->state == JOB_RUNNING)
            cur = cluster_type_slot(v->cl, j->gpu_type);
        for (int i = 0; i < nt; i++) {
            if (freec[i] < m)
                continue;
            double g = train_view_rate(v, j, types[i], m) / (m * c->b1);
            if (i == cur && g > 0) {
                *type = i;
                return g;
            }
            if (g > bestg) {
                bestg = g;
                best = i;
            }
        }
        *type = best;
        return best >= 0 ? bestg : 0;
    }
    if (c->n >= j->max_workers || freec[c->type] < 1)
        return 0;
    *type = c->type;
    return (train_view_rate(v, j, types[c->type], c->n + 1) -
            train_view_rate(v, j, types[c->type], c->n)) / c->b1;
}

static int afs_train(void *self, const struct train_view *v, struct grant_list *out,
                     struct errbuf *err)
{
    struct afs *s = self;
    int failed = 0;
    s->c = plan_grow(s->c, &s->ccap, (size_t)v->n_active, sizeof *s->c, &failed);
    s->picks = plan_grow(s->picks, &s->pcap, (size_t)v->n_active, sizeof *s->picks, &failed);
    if (failed)
        return err_run(err, "out of memory");
    const int *types;
    int nt = cluster_types(v->cl, &types), freec[CLUSTER_MAX_TYPES], nfree = 0;
    for (int i = 0; i < nt; i++)
        nfree += freec[i] = train_view_type_cap(v, types[i]);
    size_t n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j)) {
        struct cand *c = &s->c[n++];
        *c = (struct cand){ .job = j, .type = -1 };
        for (int i = 0; i < nt; i++) {
            double r = train_view_rate(v, j, types[i], 1);
            if (r > c->b1)
                c->b1 = r;
        }
        c->left_s = c->b1 > 0 ? (j->work - train_view_done(j, v->now)) / c->b1 : 1e300;
    }
    while (nfree > 0) {
        int best = -1, btype = -1;
        double bg = 0;
        for (size_t k = 0; k < n; k++) {
            int t = -1;
            double g = next_gain(v, &s->c[k], types, nt, freec, &t);
            if (!(g > 0))
                continue;
            const struct cand *b = best >= 0 ? &s->c[best] : NULL;
            if (b == NULL || g > bg ||
                (g == bg && (s->c[k].left_s < b->left_s ||
                             (s->c[k].left_s == b->left_s && s->c[k].job->id < b->job->id)))) {
                best = (int)k;
                bg = g;
                btype = t;
            }
        }
        if (best < 0)
            break;
        struct cand *c = &s->c[best];
        int step = c->n == 0 ? c->job->min_workers : 1;
        c->type = btype;
        c->n += step;
        freec[btype] -= step;
        nfree -= step;
    }
    int npicks = 0;
    for (size_t k = 0; k < n; k++)
        if (s->c[k].n > 0)
            s->picks[npicks++] = (struct plan_pick){ s->c[k].job, types[s->c[k].type], s->c[k].n };
    struct plan p;
    plan_begin(&p, v, s->scratch, out, PLAN_FULL);
    return plan_commit(&p, s->picks, npicks, err);
}

static const struct train_hooks afs_hooks = {
    .wake = WAKE_ROUND,
    .round_s = 120,
    .decide = afs_train,
};

const struct policy_ops policy_afs = {
    .name = "afs",
    .domain = "training",
    .summary = "elastic baseline: GPUs one at a time to the job they speed up most (AFS, "
               "NSDI'21), per round",
    .create = afs_create,
    .train = &afs_hooks,
    .destroy = afs_destroy,
};
