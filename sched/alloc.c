/*
 * alloc: building allocation problems from the training view, and realizing a target
 * allocation as one round's placement.
 *
 * Realization (Gavel's round mechanism, adapted to a placement-aware world):
 *   priority(j, t) = x[j][t] / (recv[j][t] / seen[j])   (x[j][t] * 1e9 if never served on t;
 *                    0 if x[j][t] = 0), where seen counts the rounds job j has been active and
 *                    recv[j][t] those in which it ran on t;
 *   (job, type) pairs with x > 0 are taken in priority order (ties: larger x, then earlier
 *   job), a job at most once, while its type has `scale` GPUs free by count; plan_commit then
 *   keeps jobs that stay on their type on their GPUs and packs the others.
 * Over many rounds each job runs on type t for about x[j][t] of them.
 * Capacity: per type, the GPUs the view lets the policy use (train_view_type_cap: the
 * cluster's less those a broker gave another tenant); a job has throughput 0 on a type whose
 * capacity is below its workers, as on a cluster with that few.
 * Costs per round: O(J T log(J T)) for the sort, O(J T) to build the problem, plus the
 * policy's solve when the job set or a capacity changed (or every round if it asks).
 */
#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/grow.h"
#include "plan.h"

int alloc_base_init(struct alloc_base *b, const struct policy_env *env, alloc_fn fn,
                    int every_round, struct errbuf *err)
{
    memset(b, 0, sizeof *b);
    b->allocate = fn;
    b->every_round = every_round;
    b->scratch = occ_create(env->cl);
    if (b->scratch == NULL)
        return err_run(err, "out of memory");
    return 0;
}

void alloc_base_fini(struct alloc_base *b)
{
    occ_destroy(b->scratch);
    free(b->id);
    free(b->scale);
    free(b->user);
    free(b->cur_type);
    free(b->slot);
    free(b->weight);
    free(b->thr);
    free(b->work);
    free(b->remaining);
    free(b->age_s);
    free(b->attained_s);
    free(b->restore_s);
    free(b->x);
    free(b->b_id);
    free(b->b_seen);
    free(b->b_recv);
    memset(b, 0, sizeof *b);
}

static int reserve(struct alloc_base *b, size_t njobs, size_t nslots)
{
    int failed = 0;
    if (njobs > b->cap) {
        size_t n = njobs * 2, nt = n * CLUSTER_MAX_TYPES;
        b->id = grow_array(b->id, n, sizeof *b->id, &failed);
        b->scale = grow_array(b->scale, n, sizeof *b->scale, &failed);
        b->user = grow_array(b->user, n, sizeof *b->user, &failed);
        b->cur_type = grow_array(b->cur_type, n, sizeof *b->cur_type, &failed);
        b->slot = grow_array(b->slot, n, sizeof *b->slot, &failed);
        b->weight = grow_array(b->weight, n, sizeof *b->weight, &failed);
        b->thr = grow_array(b->thr, nt, sizeof *b->thr, &failed);
        b->x = grow_array(b->x, nt, sizeof *b->x, &failed);
        b->work = grow_array(b->work, n, sizeof *b->work, &failed);
        b->remaining = grow_array(b->remaining, n, sizeof *b->remaining, &failed);
        b->age_s = grow_array(b->age_s, n, sizeof *b->age_s, &failed);
        b->attained_s = grow_array(b->attained_s, n, sizeof *b->attained_s, &failed);
        b->restore_s = grow_array(b->restore_s, n, sizeof *b->restore_s, &failed);
        if (failed)
            return -1;
        b->cap = n;
    }
    if (nslots > b->bcap) {
        size_t n = nslots * 2;
        b->b_id = grow_array(b->b_id, n, sizeof *b->b_id, &failed);
        b->b_seen = grow_array(b->b_seen, n, sizeof *b->b_seen, &failed);
        b->b_recv = grow_array(b->b_recv, n * CLUSTER_MAX_TYPES, sizeof *b->b_recv, &failed);
        if (failed)
            return -1;
        for (size_t s = b->bcap; s < n; s++)
            b->b_id[s] = -1;
        b->bcap = n;
    }
    return 0;
}

/* Fill the problem from the view; returns the hash of the capacities and the job set (the
 * capacities are the view's: another tenant's GPUs are not this policy's, train_view.h). */
static uint64_t build(struct alloc_base *b, const struct train_view *v, struct alloc_problem *p)
{
    const int *types;
    memset(p, 0, sizeof *p);
    p->ntypes = cluster_types(v->cl, &types);
    uint64_t sig = 1469598103u;
    for (int t = 0; t < p->ntypes; t++) {
        p->types[t] = types[t];
        p->cap[t] = train_view_type_cap(v, types[t]);
        sig = (sig ^ (uint64_t)p->cap[t]) * 0x100000001b3ULL;
    }
    p->now = v->now;
    p->round_s = sim_to_sec(v->round);
    int n = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j), n++) {
        b->id[n] = j->id;
        b->slot[n] = j->slot;
        b->scale[n] = j->workers;
        b->user[n] = j->user;
        b->weight[n] = j->weight;
        b->work[n] = j->work;
        b->remaining[n] = j->work - train_view_done(j, v->now);
        b->age_s[n] = sim_to_sec(v->now - j->arrival);
        b->attained_s[n] = train_view_attained(j, v->now);
        b->restore_s[n] = train_view_restore_s(v, j);
        b->cur_type[n] = j->state == JOB_RUNNING ? cluster_type_slot(v->cl, j->gpu_type) : -1;
        for (int t = 0; t < p->ntypes; t++)     /* 0 where its workers exceed the capacity */
            b->thr[n * p->ntypes + t] = p->cap[t] < j->workers
                                            ? 0 : train_view_rate(v, j, types[t], j->workers);
        sig = (sig ^ (uint64_t)j->id) * 0x100000001b3ULL;
    }
    p->njobs = n;
    p->id = b->id;
    p->scale = b->scale;
    p->user = b->user;
    p->weight = b->weight;
    p->thr = b->thr;
    p->work = b->work;
    p->remaining = b->remaining;
    p->age_s = b->age_s;
    p->attained_s = b->attained_s;
    p->cur_type = b->cur_type;
    p->restore_s = b->restore_s;
    return sig ^ (uint64_t)n;
}

struct cand {
    double  prio, x;
    int64_t id;
    int     j, t;
};

static int by_prio(const void *a, const void *b)
{
    const struct cand *p = a, *q = b;
    if (p->prio != q->prio)
        return p->prio > q->prio ? -1 : 1;
    if (p->x != q->x)
        return p->x > q->x ? -1 : 1;
    if (p->id != q->id)
        return p->id < q->id ? -1 : 1;
    return (p->t > q->t) - (p->t < q->t);
}

int alloc_train(void *self, const struct train_view *v, struct grant_list *out,
                struct errbuf *err)
{
    struct alloc_base *b = self;
    if (reserve(b, (size_t)v->n_active, (size_t)v->n_active + 1) < 0)
        return err_run(err, "out of memory");
    /* slots index the bookkeeping; make room for the largest slot in use */
    int32_t maxslot = 0;
    for (const struct train_job *j = train_view_first_active(v); j; j = train_view_next_active(v, j))
        if (j->slot > maxslot)
            maxslot = j->slot;
    if (reserve(b, 0, (size_t)maxslot + 1) < 0)
        return err_run(err, "out of memory");

    struct alloc_problem p;
    uint64_t sig = build(b, v, &p);
    int T = p.ntypes, J = p.njobs;
    if (b->every_round || sig != b->sig || !(v->reason & WAKE_ROUND)) {
        memset(b->x, 0, (size_t)J * (size_t)T * sizeof *b->x);
        if (b->allocate(self, &p, b->x, err) < 0)
            return -1;
        if (alloc_check(&p, b->x, 1e-6, err) < 0) {
            err_prefix(err, "allocation: ");
            return -1;
        }
        b->sig = sig;
    }
    /* bookkeeping of rounds seen / received, reset when a slot holds a new job */
    for (int j = 0; j < J; j++) {
        int s = b->slot[j];
        if (b->b_id[s] != b->id[j]) {
            b->b_id[s] = b->id[j];
            b->b_seen[s] = 0;
            memset(&b->b_recv[(size_t)s * CLUSTER_MAX_TYPES], 0, CLUSTER_MAX_TYPES * sizeof(double));
        }
        b->b_seen[s] += 1;
    }
    struct cand *c = malloc((size_t)(J * T + 1) * sizeof *c);
    struct plan_pick *picks = malloc((size_t)(J + 1) * sizeof *picks);
    uint8_t *taken = calloc((size_t)J + 1, 1);
    if (c == NULL || picks == NULL || taken == NULL) {
        free(c);
        free(picks);
        free(taken);
        return err_run(err, "out of memory");
    }
    int nc = 0;
    for (int j = 0; j < J; j++)
        for (int t = 0; t < T; t++) {
            double x = b->x[j * T + t];
            if (x <= 1e-9 || b->thr[j * T + t] <= 0)
                continue;
            int s = b->slot[j];
            double recv = b->b_recv[(size_t)s * CLUSTER_MAX_TYPES + t] / b->b_seen[s];
            c[nc++] = (struct cand){ recv > 0 ? x / recv : x * 1e9, x, b->id[j], j, t };
        }
    qsort(c, (size_t)nc, sizeof *c, by_prio);
    int freec[CLUSTER_MAX_TYPES], np = 0;
    for (int t = 0; t < T; t++)
        freec[t] = (int)p.cap[t];
    for (int k = 0; k < nc; k++) {
        int j = c[k].j, t = c[k].t;
        if (taken[j] || freec[t] < b->scale[j])
            continue;
        taken[j] = 1;
        freec[t] -= b->scale[j];
        picks[np++] = (struct plan_pick){ &v->jobs[b->slot[j]], p.types[t], b->scale[j] };
        b->b_recv[(size_t)b->slot[j] * CLUSTER_MAX_TYPES + t] += 1;
    }
    struct plan pl;
    plan_begin(&pl, v, b->scratch, out, PLAN_FULL);
    int rc = plan_commit(&pl, picks, np, err);
    free(c);
    free(picks);
    free(taken);
    return rc;
}

int alloc_check(const struct alloc_problem *p, const double *x, double tol, struct errbuf *err)
{
    int T = p->ntypes;
    double used[CLUSTER_MAX_TYPES] = { 0 };
    for (int j = 0; j < p->njobs; j++) {
        double row = 0;
        for (int t = 0; t < T; t++) {
            double v = x[j * T + t];
            if (!(v >= -tol && v <= 1 + tol))
                return err_run(err, "x[job %lld][type %d] = %g is outside [0, 1]",
                               (long long)p->id[j], t, v);
            if (v > tol && p->thr[j * T + t] <= 0)
                return err_run(err, "job %lld is given %g of a GPU type it cannot run on",
                               (long long)p->id[j], v);
            row += v;
            used[t] += p->scale[j] * v;
        }
        if (row > 1 + tol)
            return err_run(err, "job %lld is given %g of the time (more than 1)",
                           (long long)p->id[j], row);
    }
    for (int t = 0; t < T; t++)
        if (used[t] > p->cap[t] * (1 + tol) + tol)
            return err_run(err, "type %d is allocated %g GPUs of %g", t, used[t], p->cap[t]);
    return 0;
}
