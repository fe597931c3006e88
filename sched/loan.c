/*
 * loan: lend (greedy in score order), reclaim (covering 0/1 knapsack, exact DP over
 * capacities capped at the deficit), grow (multiple-choice knapsack, exact DP over GPUs), and
 * hetero_loan's type scores.  See loan.h for the model and Lyra's mechanism each follows.
 * Complexity: lend O(n log n); reclaim O(n * deficit) time and memory; grow O(jobs * G *
 * max extra) time, O(jobs * G) memory; loan_plan O(nodes log nodes + nodes * 2,000); the
 * SLO guard's update O(1).
 */
#include "loan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/jobj.h"
#include "policy.h"

/* ---------------------------------------------------------------- lend */

struct ranked {
    double score;
    int    i;
};

static int by_score(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int loan_lend(const struct loan_offer *nodes, int n, double need, double headroom,
                int *lent)
{
    double kept = 0, target = need * (1 + headroom);
    struct ranked small[64], *r = n <= 64 ? small : malloc((size_t)n * sizeof *r);
    int nlent = 0;
    for (int i = 0; i < n; i++) {
        lent[i] = 0;
        kept += nodes[i].cap;
    }
    if (r == NULL)                  /* no scratch: lend nothing, the safe answer for serving */
        return 0;
    for (int i = 0; i < n; i++)
        r[i] = (struct ranked){ nodes[i].score, i };
    qsort(r, (size_t)n, sizeof *r, by_score);
    /* a relative slack, so that keeping exactly the target is not lost to rounding */
    double eps = 1e-9 * (target > 1 ? target : 1);
    for (int k = 0; k < n; k++) {
        int i = r[k].i;
        if (kept - nodes[i].cap >= target - eps) {
            lent[i] = 1;
            kept -= nodes[i].cap;
            nlent++;
        }
    }
    if (r != small)
        free(r);
    return nlent;
}

/* ---------------------------------------------------------------- reclaim */

int loan_reclaim(const struct loan_loaned *nodes, int n, int deficit, int *take,
                   double *cost, struct errbuf *err)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        take[i] = 0;
        total += nodes[i].cap;
    }
    if (cost != NULL)
        *cost = 0;
    if (deficit <= 0 || n == 0)
        return 0;
    if (total < deficit) {          /* not enough on loan: everything comes back */
        for (int i = 0; i < n; i++) {
            take[i] = 1;
            if (cost != NULL)
                *cost += nodes[i].cost;
        }
        return n;
    }
    /* best[c]: least (cost, count) covering min(c, deficit) with the items so far; pred[i][c]:
     * the covered capacity before item i when the best at c took it, else -1 */
    size_t w = (size_t)deficit + 1;
    double *best = malloc(w * sizeof *best), *nbest = malloc(w * sizeof *nbest);
    int *cnt = malloc(w * sizeof *cnt), *ncnt = malloc(w * sizeof *ncnt);
    int *pred = malloc((size_t)n * w * sizeof *pred);
    int rc = -1;
    if (best == NULL || nbest == NULL || cnt == NULL || ncnt == NULL || pred == NULL) {
        err_run(err, "out of memory (loan reclaim)");
        goto out;
    }
    for (size_t c = 0; c < w; c++) {
        best[c] = INFINITY;
        cnt[c] = 0;
    }
    best[0] = 0;
    for (int i = 0; i < n; i++) {
        memcpy(nbest, best, w * sizeof *best);
        memcpy(ncnt, cnt, w * sizeof *cnt);
        int *p = pred + (size_t)i * w;
        for (size_t c = 0; c < w; c++)
            p[c] = -1;
        for (size_t c = 0; c < w; c++) {
            if (isinf(best[c]))
                continue;
            size_t to = c + (size_t)nodes[i].cap < w ? c + (size_t)nodes[i].cap : w - 1;
            double v = best[c] + nodes[i].cost;
            int k = cnt[c] + 1;
            /* strictly better: lower cost, or as cheap with fewer nodes */
            if (v < nbest[to] - 1e-12 || (fabs(v - nbest[to]) <= 1e-12 && k < ncnt[to])) {
                nbest[to] = v;
                ncnt[to] = k;
                p[to] = (int)c;
            }
        }
        double *t = best;
        best = nbest;
        nbest = t;
        int *u = cnt;
        cnt = ncnt;
        ncnt = u;
    }
    /* walk back from full coverage */
    int c = deficit;
    rc = 0;
    if (cost != NULL)
        *cost = best[deficit];
    for (int i = n - 1; i >= 0; i--) {
        int from = pred[(size_t)i * w + (size_t)c];
        if (from >= 0) {
            take[i] = 1;
            rc++;
            c = from;
        }
    }
out:
    free(best);
    free(nbest);
    free(cnt);
    free(ncnt);
    free(pred);
    return rc;
}

/* ---------------------------------------------------------------- grow */

double loan_grow(const double *const *value, const int *extra, int njobs, int gpus, int *x,
                   struct errbuf *err)
{
    for (int j = 0; j < njobs; j++)
        x[j] = 0;
    if (njobs == 0 || gpus <= 0)
        return 0;
    size_t w = (size_t)gpus + 1;
    /* best[g]: the most gained with the jobs so far using at most g GPUs; pick[j][g]: the x
     * of job j in that best */
    double *best = calloc(w, sizeof *best), *nbest = malloc(w * sizeof *nbest);
    int *pick = malloc((size_t)njobs * w * sizeof *pick);
    double total = NAN;
    if (best == NULL || nbest == NULL || pick == NULL) {
        err_run(err, "out of memory (loan knapsack)");
        goto out;
    }
    for (int j = 0; j < njobs; j++) {
        int *p = pick + (size_t)j * w;
        for (size_t g = 0; g < w; g++) {
            nbest[g] = best[g];
            p[g] = 0;
            for (int k = 1; k <= extra[j] && (size_t)k <= g; k++) {
                double v = best[g - (size_t)k] + (value[j][k] - value[j][0]);
                if (v > nbest[g] + 1e-12) {     /* ties: fewer GPUs to this job */
                    nbest[g] = v;
                    p[g] = k;
                }
            }
        }
        double *t = best;
        best = nbest;
        nbest = t;
    }
    total = best[gpus];
    size_t g = (size_t)gpus;
    for (int j = njobs - 1; j >= 0; j--) {
        x[j] = pick[(size_t)j * w + g];
        g -= (size_t)x[j];
    }
out:
    free(best);
    free(nbest);
    free(pick);
    return total;
}

/* ---------------------------------------------------------------- hetero_loan */

void loan_type_scores(const double *train_gain, const double *serve_cap, int ntypes,
                        double *score)
{
    double tmax = 0, smax = 0;
    for (int t = 0; t < ntypes; t++) {
        if (train_gain[t] > tmax)
            tmax = train_gain[t];
        if (serve_cap[t] > smax)
            smax = serve_cap[t];
    }
    for (int t = 0; t < ntypes; t++) {
        double gain = tmax > 0 ? train_gain[t] / tmax : 0;
        double lost = smax > 0 ? serve_cap[t] / smax : 0;
        score[t] = lost > 0 ? gain / lost : gain > 0 ? INFINITY : 0;
    }
}

/* ---------------------------------------------------------------- a broker's decision */

/* A pack of nodes (colo_view.h: moved whole), as a decision sees it. */
struct pack {
    int    first;           /* its lowest node */
    int    holder;          /* its nodes' holder (enum colo_holder); -1 when they differ */
    int    settled;         /* none of its nodes is being handed over */
    int    lendable;        /* every node a serving home node */
    int    live;            /* serving's, settled, none loading, an instance on it */
    int    gpus;
    double cap, cost, score;
};

/* The packs of v into pk (v->nnodes of room), in order of their first node; of[k] the index
 * of node k's pack.  A pack's score: the GPU-weighted mean of its nodes' type scores. */
static int gather(const struct colo_view *v, const double *type_score, struct pack *pk,
                  int *of)
{
    int m = 0;
    for (int k = 0; k < v->nnodes; k++) {
        const struct colo_node *c = &v->node[k];
        if (c->pack >= k || c->pack < 0) {     /* its pack's first node (or malformed) */
            pk[m] = (struct pack){ .first = k, .holder = c->holder, .settled = 1,
                                   .lendable = 1, .live = 1 };
            of[k] = m++;
        } else {
            of[k] = of[c->pack];        /* c->pack < k: gathered already */
        }
        struct pack *p = &pk[of[k]];
        if (c->holder != p->holder)
            p->holder = -1;
        p->settled &= !c->moving;
        p->lendable &= c->home == COLO_SERVING;
        p->live &= c->holder == COLO_SERVING && !c->moving && !c->loading;
        p->gpus += c->gpus;
        p->cap += c->serve_cap;
        p->cost += c->take_cost;
        p->score += type_score[c->type] * c->gpus;
    }
    for (int i = 0; i < m; i++) {
        pk[i].live &= pk[i].cap > 0;
        pk[i].score = pk[i].gpus > 0 ? pk[i].score / pk[i].gpus : 0;
    }
    return m;
}

/* Reclaim the cheapest cover of serving's deficit among the loaned packs with instances. */
static int plan_reclaim(const struct colo_view *v, double target, const struct pack *pk,
                        int m, int *idx, int *pick, struct loan_loaned *ln, int *take,
                        struct errbuf *err)
{
    int n = 0;
    double total = 0;
    for (int i = 0; i < m; i++)
        if (pk[i].lendable && pk[i].holder == COLO_TRAINING && pk[i].settled &&
            pk[i].cap > 0) {
            idx[n++] = i;
            total += pk[i].cap;
        }
    if (n == 0)
        return 0;
    double unit = total / 2000 > 1 ? total / 2000 : 1;
    for (int i = 0; i < n; i++)
        ln[i] = (struct loan_loaned){ (int)ceil(pk[idx[i]].cap / unit), pk[idx[i]].cost };
    int deficit = (int)ceil((target - v->serve_held) / unit - 1e-9);
    if (loan_reclaim(ln, n, deficit, pick, NULL, err) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        take[idx[i]] = pick[i];
    return 0;
}

/* Lend serving's packs in score order while training waits (see loan.h). */
static void plan_lend(const struct colo_view *v, const struct loan_params *p,
                      const struct pack *pk, int m, int *idx, int *pick, struct loan_offer *of,
                      int *take)
{
    int n = 0, live = 0;
    for (int i = 0; i < m; i++) {
        if (!pk[i].lendable || pk[i].holder != COLO_SERVING || !pk[i].settled)
            continue;
        idx[n] = i;
        of[n++] = (struct loan_offer){ pk[i].cap, pk[i].score };
        live += pk[i].live;
    }
    loan_lend(of, n, v->serve_demand, p->headroom, pick);
    /* the packs loan_lend spares, in its order (score, then node), until training's waiting
     * GPUs are covered; serving keeps one pack whose instances take requests */
    int lent = 0;
    while (lent < v->train_waiting || p->lend_spare) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (pick[i] && (best < 0 || of[i].score > of[best].score))
                best = i;
        if (best < 0)
            break;
        pick[best] = 0;
        const struct pack *c = &pk[idx[best]];
        if (c->live && live <= 1)
            continue;
        take[idx[best]] = 1;
        lent += c->gpus;
        live -= c->live;
    }
}

int loan_plan(const struct colo_view *v, const struct loan_params *p, const double *type_score,
              int *move, struct errbuf *err)
{
    return loan_plan_scaled(v, p, type_score, 1, move, err);
}

int loan_plan_scaled(const struct colo_view *v, const struct loan_params *p,
                     const double *type_score, double cap_factor, int *move,
                     struct errbuf *err)
{
    struct colo_view sv;
    struct colo_node *scaled = NULL;
    if (cap_factor != 1) {      /* the belief: every capacity the plan reads, scaled */
        scaled = malloc((size_t)(v->nnodes > 0 ? v->nnodes : 1) * sizeof *scaled);
        if (scaled == NULL) {
            for (int k = 0; k < v->nnodes; k++)
                move[k] = 0;
            return err_run(err, "out of memory (loan plan)");
        }
        for (int k = 0; k < v->nnodes; k++) {
            scaled[k] = v->node[k];
            scaled[k].serve_cap *= cap_factor;
        }
        sv = *v;
        sv.node = scaled;
        sv.serve_held *= cap_factor;
        v = &sv;
    }
    int n = v->nnodes > 0 ? v->nnodes : 1, rc = 0;
    double target = v->serve_demand * (1 + p->headroom);
    int *idx = calloc((size_t)n, sizeof *idx), *pick = calloc((size_t)n, sizeof *pick);
    int *of = calloc((size_t)n, sizeof *of), *take = calloc((size_t)n, sizeof *take);
    struct pack *pk = calloc((size_t)n, sizeof *pk);
    struct loan_loaned *ln = calloc((size_t)n, sizeof *ln);
    struct loan_offer *off = calloc((size_t)n, sizeof *off);
    if (idx == NULL || pick == NULL || of == NULL || take == NULL || pk == NULL ||
        ln == NULL || off == NULL) {
        rc = err_run(err, "out of memory (loan plan)");
    } else {
        int m = gather(v, type_score, pk, of);
        if (v->serve_held < target)
            rc = plan_reclaim(v, target, pk, m, idx, pick, ln, take, err);
        else if (v->train_waiting > 0 || p->lend_spare)
            plan_lend(v, p, pk, m, idx, pick, off, take);
    }
    for (int k = 0; k < v->nnodes; k++)
        move[k] = rc == 0 && take != NULL && of != NULL ? take[of[k]] : 0;
    free(idx);
    free(pick);
    free(of);
    free(take);
    free(pk);
    free(ln);
    free(off);
    free(scaled);
    return rc;
}

/* ---------------------------------------------------------------- the SLO guard */

void loan_guard_init(struct loan_guard *g)
{
    *g = (struct loan_guard){ .threshold = -1, .decrease = 0.8, .increase = 0.05, .f = 1,
                              .f_min = 1 };
}

int loan_guard_update(struct loan_guard *g, double miss, int64_t seen)
{
    int kind = LOAN_GUARD_EMPTY;
    if (loan_guard_on(g) && seen > 0 && miss >= 0) {
        kind = miss > g->threshold ? LOAN_GUARD_MISSED : LOAN_GUARD_CLEAN;
        if (kind == LOAN_GUARD_MISSED)
            g->f = fmax(g->f * g->decrease, LOAN_GUARD_FMIN);
        else
            g->f = fmin(1, g->f + g->increase);
        g->periods++;
        g->missed += kind == LOAN_GUARD_MISSED;
    }
    g->decisions++;
    g->f_sum += g->f;
    g->f_min = fmin(g->f_min, g->f);
    return kind;
}

int loan_guard_read(struct loan_guard *g, const struct jobj *params, struct errbuf *err)
{
    loan_guard_init(g);
    if (jobj_num(params, "slo_guard", JOPT, 0, 1, &g->threshold, err) < 0 ||
        jobj_num(params, "slo_decrease", JOPT, 0.01, 0.99, &g->decrease, err) < 0 ||
        jobj_num(params, "slo_increase", JOPT, 0.001, 1, &g->increase, err) < 0)
        return -1;
    static const char *const tuning[] = { "slo_decrease", "slo_increase", NULL };
    for (int i = 0; !loan_guard_on(g) && params->node != NULL && tuning[i] != NULL; i++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(params->node, tuning[i]);
        if (n != NULL) {
            char path[256];
            snprintf(path, sizeof path, "%s%s%s", params->path, params->path[0] ? "." : "",
                     tuning[i]);
            return jsonf_error(params->doc, n, path, err, "has no effect without slo_guard "
                               "(the miss fraction that turns the SLO guard on)");
        }
    }
    return 0;
}

int loan_guard_metrics(const struct loan_guard *g, const struct policy_metric_sink *out,
                       struct errbuf *err)
{
    if (!loan_guard_on(g))
        return 0;
    if (out->put(out->ctx, "slo_guard_periods", (double)g->periods, err) < 0 ||
        out->put(out->ctx, "slo_guard_missed", (double)g->missed, err) < 0 ||
        out->put(out->ctx, "slo_guard_f_min", g->f_min, err) < 0)
        return -1;
    return g->decisions > 0 ? out->put(out->ctx, "slo_guard_f_mean",
                                       g->f_sum / (double)g->decisions, err) : 0;
}
