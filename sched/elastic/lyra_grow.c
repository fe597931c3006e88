/*
 * lyra: Lyra's job scheduler for elastic jobs (Li et al., "Lyra: Elastic Scheduling for Deep
 * Learning Clusters", EuroSys 2023): queued jobs first get their base demand in arrival order,
 * then the GPUs left over go to elastic jobs by a multiple-choice knapsack whose value is each
 * extra worker's reduction of the job's completion time.  It is the training half of Lyra; the
 * broker `loan` (sched/colocate/lyra.c) is the capacity-loaning half, and with it as the
 * colocate broker this policy allocates the loaned servers' GPUs.
 *
 * At every arrival and completion (and when the broker gives training GPUs back, which wakes
 * the policy as a completion does):
 *   1. The flexible pool.  Each running elastic job j on whole GPUs holds its base demand
 *      m_j = min_workers plus n_j - m_j extra GPUs; the extras count as free for steps 2-3
 *      (Lyra's base demands come before elastic extras).
 *   2. Base demands, FIFO.  Waiting jobs in the order they entered the queue, each on m_j
 *      GPUs (a rigid job's m_j is its `workers`) of the type with the most free GPUs, packed
 *      on the fewest nodes — fifo's rule and placement (sched/plan.h), over the live
 *      occupancy, so GPUs the broker withholds are never granted.  Strict FIFO stops at the
 *      first job that does not fit; "backfill": true lets later ones start.
 *   3. The knapsack, per GPU type t (a job's GPUs are of one type): with G_t GPUs of t free
 *      after step 2, job j on t may take x_j in [0, min(max_workers - m_j, G_t)] GPUs beyond
 *      m_j, with value (seconds of JCT saved)
 *          value_j(x) = R_j / thr_j(n_j) - R_j / thr_j(m_j + x) - restore_j [m_j + x != n_j]
 *      for a running job (n_j what it holds; a change of its GPU count restarts it), and
 *          value_j(x) = R_j / thr_j(m_j) - R_j / thr_j(m_j + x)
 *      for a job starting now (n_j := m_j, no extra restart); R_j its iterations left,
 *      thr_j(k) its rate on k GPUs of t.  maximize sum_j value_j(x_j) s.t. sum_j x_j <= G_t,
 *      solved exactly by loan_grow (sched/loan.h).  A job then runs on m_j + x_j GPUs: starting
 *      jobs are placed at that size, running ones grow (their GPUs plus more of their type)
 *      or shrink (they keep their first GPUs), or keep their GPUs when x_j = n_j - m_j.
 *
 * Reproduced from Lyra: base demand before elastic scaling; elastic extras taken back for
 * queued jobs' base demands; the allocation of the remaining GPUs as a multiple-choice
 * knapsack (one item per job and worker count, weight its GPUs) over "the JCT reduction value
 * defined for each additional worker".  Assumed (the paper's details are not at hand here):
 * its queue order is FIFO (fifo's, with optional backfill); the GPU type of a job is fifo's
 * (most free), not a speed-aware choice; the JCT reduction is the remaining time at the
 * current size minus at the new one, charging the restart a resize costs (the world's
 * restore time, as the view gives it); the knapsack is solved exactly per type rather than by
 * Lyra's heuristic; a shrinking job keeps its lowest-numbered GPUs.  Belief: thr_j(k) is the
 * view's rate of j's job type with k GPUs of t at a consolidated placement (the measured
 * table or throughput model the elastic policies afs and srsf also use), and R_j the work
 * the trace gives, as they use it: what the job's real placement yields is the world's.
 * Cost per decision: O(Q + sum_t J_t G_t E) for Q waiting jobs, J_t knapsack jobs on type t,
 * G_t its free GPUs and E the largest extra, plus an O(GPUs) scratch copy twice.
 */
#include <math.h>
#include <stdlib.h>

#include "../loan.h"
#include "../plan.h"
#include "../policy.h"

/* A job the knapsack sizes: running elastic, or starting in this decision. */
struct cand {
    const struct train_job *job;
    int type;           /* its GPU type (catalog id) */
    int now;            /* GPUs held; 0: starting now */
    int extra;          /* the largest x it may take */
    int x;              /* the knapsack's answer */
    size_t val;         /* its value table's offset in lyra.val */
};

struct lyra {
    occ               *scratch;
    struct grant_list  trial;       /* step 2's starts, to learn who starts where */
    int                backfill;
    struct cand       *c;
    size_t             ccap;
    double            *val;
    size_t             vcap;
    const double     **row;
    int               *extra, *x;
    size_t             rcap, xcap, ecap;
};

static int lyra_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    struct lyra *l = calloc(1, sizeof *l);
    if (l == NULL)
        return err_run(err, "out of memory");
    grant_list_init(&l->trial);
    if (jobj_bool(params, "backfill", JOPT, &l->backfill, err) < 0 ||
        (l->scratch = occ_create(env->cl)) == NULL) {
        grant_list_fini(&l->trial);
        free(l);
        return err->code ? -1 : err_run(err, "out of memory");
    }
    *self = l;
    return 0;
}

static void lyra_destroy(void *self)
{
    struct lyra *l = self;
    occ_destroy(l->scratch);
    grant_list_fini(&l->trial);
    free(l->c);
    free(l->val);
    free(l->row);
    free(l->extra);
    free(l->x);
    free(l);
}

/* Can j change its GPU count (a running job on whole GPUs of its own, with a range)? */
static int flexible(const struct train_view *v, const struct train_job *j)
{
    return j->max_workers > j->min_workers && j->share == OCC_WHOLE && !j->sliced &&
           j->ngpu >= j->min_workers && train_view_rate(v, j, j->gpu_type, j->ngpu) > 0;
}

/* Seconds to finish R iterations at j's believed rate on k GPUs of its type; INFINITY when
 * it cannot run so. */
static double left_s(const struct train_view *v, const struct train_job *j, int type, int k,
                     double r)
{
    double thr = train_view_rate(v, j, type, k);
    return thr > 0 ? r / thr : INFINITY;
}

/* Fill c's value table (c->extra + 1 entries at l->val + c->val), as the header says. */
static void values(const struct train_view *v, const struct cand *c, double *val)
{
    const struct train_job *j = c->job;
    int m = j->min_workers, n = c->now > 0 ? c->now : m;
    double r = j->work - train_view_done(j, v->now);
    double t_now = left_s(v, j, c->type, n, r);
    double restore = c->now > 0 ? train_view_restore_s(v, j) : 0;
    for (int x = 0; x <= c->extra; x++) {
        double t = left_s(v, j, c->type, m + x, r);
        val[x] = isinf(t) ? -HUGE_VAL : t_now - t - (m + x != n ? restore : 0);
    }
}

/* Steps 1 and 2 on the scratch: the candidates, in l->c; returns how many, -1 on error. */
static int pool_and_starts(struct lyra *l, const struct train_view *v, struct errbuf *err)
{
    struct plan a;
    grant_list_reset(&l->trial);
    plan_begin(&a, v, l->scratch, &l->trial, PLAN_DELTA);
    int failed = 0;
    l->c = plan_grow(l->c, &l->ccap, (size_t)v->n_active, sizeof *l->c, &failed);
    if (failed)
        return err_run(err, "out of memory");
    int n = 0;
    for (const struct train_job *j = train_view_first_running(v); j;
         j = train_view_next_running(v, j))
        if (flexible(v, j)) {
            l->c[n++] = (struct cand){ .job = j, .type = j->gpu_type, .now = j->ngpu };
            occ_release(l->scratch, j->gpus + j->min_workers, j->ngpu - j->min_workers,
                        OCC_WHOLE);
        }
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        int type = plan_most_free_type(&a, j->min_workers);
        int rc = type < 0 ? 1 : plan_place(&a, j, type, j->min_workers, OCC_PACK, err);
        if (rc < 0)
            return -1;
        if (rc > 0 && !l->backfill)
            break;
        if (rc == 0)
            l->c[n++] = (struct cand){ .job = j, .type = type, .now = 0 };
    }
    return n;
}

/* Step 3 for the candidates of one type: their x. */
static int knapsack(struct lyra *l, const struct train_view *v, int type, int gpus, int n,
                    struct errbuf *err)
{
    int k = 0, failed = 0;
    size_t nval = 0;
    for (int i = 0; i < n; i++) {
        struct cand *c = &l->c[i];
        if (c->type != type)
            continue;
        const struct train_job *j = c->job;
        int room = j->max_workers - j->min_workers;
        c->extra = room < gpus ? room : gpus;
        if (c->now == 0 && !(train_view_rate(v, j, type, j->min_workers) > 0))
            c->extra = 0;       /* no belief to size it by: it starts at its base */
        c->val = nval;
        nval += (size_t)c->extra + 1;
        k++;
    }
    l->val = plan_grow(l->val, &l->vcap, nval, sizeof *l->val, &failed);
    l->row = plan_grow(l->row, &l->rcap, (size_t)k, sizeof *l->row, &failed);
    l->extra = plan_grow(l->extra, &l->ecap, (size_t)k, sizeof *l->extra, &failed);
    l->x = plan_grow(l->x, &l->xcap, (size_t)k, sizeof *l->x, &failed);
    if (failed)
        return err_run(err, "out of memory");
    k = 0;
    for (int i = 0; i < n; i++) {
        struct cand *c = &l->c[i];
        if (c->type != type)
            continue;
        values(v, c, l->val + c->val);
        l->row[k] = l->val + c->val;
        l->extra[k++] = c->extra;
    }
    if (isnan(loan_grow(l->row, l->extra, k, gpus, l->x, err)))
        return -1;
    k = 0;
    for (int i = 0; i < n; i++)
        if (l->c[i].type == type)
            l->c[i].x = l->x[k++];
    return 0;
}

/* The GPU count the knapsack gives c. */
static int size(const struct cand *c)
{
    return c->job->min_workers + c->x;
}

/* A placement's outcome: 1 (no room) cannot happen when the counts are right. */
static int placed(int rc, const struct cand *c, struct errbuf *err)
{
    if (rc > 0)
        return err_run(err, "lyra: job %lld's %d GPUs do not fit where the plan counted them "
                       "free", (long long)c->job->id, size(c));
    return rc;
}

static int lyra_train(void *self, const struct train_view *v, struct grant_list *out,
                      struct errbuf *err)
{
    struct lyra *l = self;
    int n = pool_and_starts(l, v, err);
    if (n < 0)
        return -1;
    /* step 3, type by type, with the GPUs step 2 left free */
    const int *types;
    int nt = cluster_types(v->cl, &types);
    for (int t = 0; t < nt; t++) {
        int any = 0;
        for (int i = 0; i < n && !any; i++)
            any = l->c[i].type == types[t];
        if (any && knapsack(l, v, types[t], occ_free_whole(l->scratch, types[t]), n, err) < 0)
            return -1;
    }
    /* the grants, on the live occupancy: shrinks first (their GPUs may go to others), then
     * the starts in queue order, then the growths; they fit by count, so each is placed */
    struct plan p;
    plan_begin(&p, v, l->scratch, out, PLAN_DELTA);
    for (int i = 0; i < n; i++)
        if (l->c[i].now > 0 && size(&l->c[i]) < l->c[i].now &&
            plan_resize(&p, l->c[i].job, size(&l->c[i]), OCC_PACK, err) < 0)
            return -1;
    for (int i = 0; i < n; i++)
        if (l->c[i].now == 0 &&
            placed(plan_place(&p, l->c[i].job, l->c[i].type, size(&l->c[i]), OCC_PACK, err),
                   &l->c[i], err) < 0)
            return -1;
    for (int i = 0; i < n; i++)
        if (l->c[i].now > 0 && size(&l->c[i]) > l->c[i].now &&
            placed(plan_resize(&p, l->c[i].job, size(&l->c[i]), OCC_PACK, err), &l->c[i],
                   err) < 0)
            return -1;
    return 0;
}

static const char *const lyra_params[] = { "backfill", NULL };

static const struct train_hooks lyra_hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = lyra_train,
};

const struct policy_ops policy_lyra = {
    .name = "lyra",
    .domain = "training",
    .summary = "Lyra's job scheduler: base demands FIFO, then the free GPUs to elastic jobs by "
               "a multiple-choice knapsack of JCT reduction (EuroSys'23)",
    .params = lyra_params,
    .create = lyra_create,
    .train = &lyra_hooks,
    .destroy = lyra_destroy,
};
