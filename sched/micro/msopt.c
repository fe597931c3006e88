/*
 * msopt: Derm's container minimization (msopt.h).
 *
 * In the loads per container w_k (n_k = gamma_k / w_k), the Lagrangian of
 * min sum gamma_k / w_k s.t. G(w) >= q is stationary where gamma_k / w_k^2 = mu g_k, with
 * g_k = -dG/dw_k (G falls as loads grow): w_k = sqrt(gamma_k / (mu g_k)).  Each iteration
 * takes G and its gradient (forward differences) at the current w, picks the multiplier mu
 * that meets the constraint to first order (G + sum_k -g_k (w_k(mu) - w_k) = q, monotone in
 * mu: bisection on log mu), moves w halfway there (damping), and rounds the iterate up to
 * whole containers; the cheapest iterate that meets the constraint exactly (not to first
 * order) is kept, as Derm keeps its allocated_resource_min.  Loads stay within each fit's
 * range (w_k <= max_load_k, Derm's cutoffMax).
 *
 * Beyond the paper: when no iterate is feasible, a common factor on all loads is bisected
 * to the largest that is; and with `trim`, containers are then removed one at a time (the
 * largest allocation first) while the constraint still holds — a local search that closes
 * most of the gap to the integer optimum (tests/test_derm.c measures it against brute force).
 *
 * Cost: (iterations x (services + 1) + trims) evaluations of G, each O(chains x m^2) for m
 * services per chain (models/hypoexp.h); a gradient's evaluation for service k recomputes
 * only the chains that call k and reuses the others' terms as computed at w, so that G is
 * the same to the last bit as a full evaluation.  G at whole allocations (the rounded
 * iterates, the fallback's bisection, the trim) goes through a memo of the allocations tried
 * in this solve: a chain whose services have the containers of one tried before takes its
 * term from there, the same double (a chain's term depends on those containers only).
 */
#include "msopt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/hypoexp.h"

/* no service needs more containers than this (a bound far past any cluster) */
#define MAX_CONTAINERS 10000000

/* every service's rate at loads w (per container) into lam */
static void rates_at(const struct msopt_problem *p, const double *w, double *lam)
{
    for (int k = 0; k < p->app->nservices; k++)
        lam[k] = mslat_rate(&p->app->svc[k].lat, w[k]);
}

/* chain c's P(E <= x) at the services' rates lam */
static double chain_cdf(const struct msopt_problem *p, int c, const double *lam, double x)
{
    const struct micro_app *a = p->app;
    const struct msopt_chain *ch = &p->chain[c];
    double rates[HYPOEXP_MAX], shift = 0;
    int m = 0;
    for (int k = 0; k < a->nservices && m < HYPOEXP_MAX; k++) {
        double n = ch->calls[k];
        if (!(n > 0))
            continue;
        rates[m++] = lam[k] / n;
        shift += n * a->svc[k].lat.shift;
    }
    return hypoexp_cdf(rates, m, x - shift);
}

/* G from the chains' cdf (entries of chains of no weight are not read) */
static double mix_of(const struct msopt_problem *p, const double *cdf)
{
    double tot = 0, acc = 0;
    for (int c = 0; c < p->nchains; c++) {
        if (!(p->chain[c].weight > 0))
            continue;
        tot += p->chain[c].weight;
        acc += p->chain[c].weight * cdf[c];
    }
    return tot > 0 ? acc / tot : 1;
}

/* G at loads w; cdf (nchains) receives each chain's, lam (nservices) the rates */
static double prob_w(const struct msopt_problem *p, const double *w, double x, double *cdf,
                     double *lam)
{
    rates_at(p, w, lam);
    for (int c = 0; c < p->nchains; c++)
        cdf[c] = p->chain[c].weight > 0 ? chain_cdf(p, c, lam, x) : 0;
    return mix_of(p, cdf);
}

int msopt_floor(const struct msopt_problem *p, int k)
{
    double need = p->gamma[k] / p->app->svc[k].lat.max_load;
    if (!(need < MAX_CONTAINERS))
        return MAX_CONTAINERS;
    int f = (int)ceil(need - 1e-9);
    return f < 1 ? 1 : f;
}

static void loads_of(const struct msopt_problem *p, const int *n, double *w)
{
    for (int k = 0; k < p->app->nservices; k++)
        w[k] = p->gamma[k] / (n[k] > 0 ? n[k] : 1);
}

double msopt_prob(const struct msopt_problem *p, const int *n, double x)
{
    double *w = malloc(2 * (size_t)p->app->nservices * sizeof *w);
    double *cdf = malloc(((size_t)p->nchains + 1) * sizeof *cdf);
    double g = 0;
    if (w != NULL && cdf != NULL) {
        loads_of(p, n, w);
        g = prob_w(p, w, x, cdf, w + p->app->nservices);
    }
    free(w), free(cdf);
    return g;
}

/* The allocations evaluated in one solve, with each chain's P(E <= SLA): a chain's term
 * depends only on the containers of the services it calls, so an allocation that agrees
 * with one already evaluated on those services takes that chain's term as it was computed
 * (the Lagrangian's rounded iterates repeat, and a trim step changes one service).  A ring
 * of MEMO_CAP allocations, searched newest first. */
enum { MEMO_CAP = 32 };

struct memo {
    int     S, C, used, next;
    int    *n;              /* [MEMO_CAP][S] */
    double *cdf;            /* [MEMO_CAP][C] */
    int    *svc, *off;      /* chain c calls services svc[off[c] .. off[c + 1]) */
    double *w, *lam, *out;  /* scratch: loads, rates, this evaluation's terms */
};

static int memo_init(struct memo *m, const struct msopt_problem *p)
{
    int S = p->app->nservices, C = p->nchains;
    memset(m, 0, sizeof *m);
    m->S = S;
    m->C = C;
    m->n = malloc((size_t)MEMO_CAP * (size_t)S * sizeof *m->n);
    m->cdf = malloc((size_t)MEMO_CAP * ((size_t)C + 1) * sizeof *m->cdf);
    m->svc = malloc(((size_t)C * (size_t)S + 1) * sizeof *m->svc);
    m->off = malloc(((size_t)C + 1) * sizeof *m->off);
    m->w = malloc(2 * (size_t)S * sizeof *m->w);
    m->out = malloc(((size_t)C + 1) * sizeof *m->out);
    m->lam = m->w != NULL ? m->w + S : NULL;
    if (!m->n || !m->cdf || !m->svc || !m->off || !m->w || !m->out)
        return -1;
    int t = 0;
    for (int c = 0; c < C; c++) {
        m->off[c] = t;
        for (int k = 0; k < S; k++)
            if (p->chain[c].calls[k] > 0)
                m->svc[t++] = k;
    }
    m->off[C] = t;
    return 0;
}

static void memo_fini(struct memo *m)
{
    free(m->n), free(m->cdf), free(m->svc), free(m->off), free(m->w), free(m->out);
}

/* whether allocations x and y agree on every service chain c calls */
static int agree(const struct memo *m, int c, const int *x, const int *y)
{
    for (int i = m->off[c]; i < m->off[c + 1]; i++)
        if (x[m->svc[i]] != y[m->svc[i]])
            return 0;
    return 1;
}

/* msopt_prob(p, n, T), as it computes it, through the memo */
static double memo_prob(struct memo *m, const struct msopt_problem *p, const int *n, double T)
{
    int S = m->S, rated = 0;
    for (int c = 0; c < p->nchains; c++) {
        if (!(p->chain[c].weight > 0)) {
            m->out[c] = 0;
            continue;
        }
        int e = -1;
        for (int i = 0; i < m->used && e < 0; i++) {
            int slot = (m->next - 1 - i + MEMO_CAP) % MEMO_CAP;
            if (agree(m, c, n, m->n + (size_t)slot * S))
                e = slot;
        }
        if (e >= 0) {
            m->out[c] = m->cdf[(size_t)e * (m->C + 1) + c];
            continue;
        }
        if (!rated) {
            loads_of(p, n, m->w);
            rates_at(p, m->w, m->lam);
            rated = 1;
        }
        m->out[c] = chain_cdf(p, c, m->lam, T);
    }
    memcpy(m->n + (size_t)m->next * S, n, (size_t)S * sizeof *n);
    memcpy(m->cdf + (size_t)m->next * (m->C + 1), m->out, (size_t)m->C * sizeof *m->out);
    m->next = (m->next + 1) % MEMO_CAP;
    if (m->used < MEMO_CAP)
        m->used++;
    return mix_of(p, m->out);
}

static long long round_up(const struct msopt_problem *p, const double *w, int *n)
{
    long long total = 0;
    for (int k = 0; k < p->app->nservices; k++) {
        double v = w[k] > 0 ? p->gamma[k] / w[k] : 1;
        int c = v > MAX_CONTAINERS ? MAX_CONTAINERS : (int)ceil(v - 1e-9);
        int f = msopt_floor(p, k);
        n[k] = c < f ? f : c;
        total += n[k];
    }
    return total;
}

static double cpus_of(const struct msopt_problem *p, const int *n)
{
    double c = 0;
    for (int k = 0; k < p->app->nservices; k++)
        c += n[k] * p->app->svc[k].cpus;
    return c;
}

static int within_cap(const struct msopt_problem *p, const int *n)
{
    return !(p->cap_cpus > 0) || cpus_of(p, n) <= p->cap_cpus + 1e-9;
}

double msopt_step(const struct msopt_problem *p, double G, const double *g, double *w,
                  double *wm)
{
    const struct micro_app *a = p->app;
    int S = a->nservices;
    double q = p->quantile, mu = 0;
    /* the multiplier that meets the constraint to first order: the linearized constraint
     * grows with mu (loads fall), so bisect on log mu */
    double lo = -70, hi = 70;
    for (int b = 0; b < 100; b++) {
        double lin = G;
        mu = exp(0.5 * (lo + hi));
        for (int k = 0; k < S; k++) {
            if (!(g[k] > 0)) {
                wm[k] = w[k];
                continue;
            }
            double v = sqrt(p->gamma[k] / (mu * g[k]));
            double wmax = a->svc[k].lat.max_load;
            v = v > wmax ? wmax : v < 1e-9 * wmax ? 1e-9 * wmax : v;
            wm[k] = v;
            lin -= g[k] * (v - w[k]);
        }
        double was_lo = lo, was_hi = hi;
        if (lin >= q)
            hi = 0.5 * (lo + hi);
        else
            lo = 0.5 * (lo + hi);
        /* the interval no longer narrows: every later step would repeat this one */
        if (lo == was_lo && hi == was_hi)
            break;
    }
    /* damped: half way to the multiplier's loads */
    for (int k = 0; k < S; k++)
        if (g[k] > 0)
            w[k] += 0.5 * (wm[k] - w[k]);
    return mu;
}

static int solve_all(const struct msopt_problem *p, int *n, struct msopt_result *res,
                     struct errbuf *err)
{
    const struct micro_app *a = p->app;
    int S = a->nservices;
    double *w = calloc((size_t)S, sizeof *w), *wt = calloc((size_t)S, sizeof *wt);
    double *g = calloc((size_t)S, sizeof *g), *wm = calloc((size_t)S, sizeof *wm);
    int *cand = calloc((size_t)S, sizeof *cand), *best = calloc((size_t)S, sizeof *best);
    char *active = calloc((size_t)S, 1);
    double *cdf = calloc((size_t)p->nchains + 1, sizeof *cdf);
    double *cdft = calloc((size_t)p->nchains + 1, sizeof *cdft);
    double *lam = calloc((size_t)S, sizeof *lam), *lamt = calloc((size_t)S, sizeof *lamt);
    struct memo memo;
    int memo_ok = memo_init(&memo, p) == 0;
    if (!w || !wt || !g || !wm || !cand || !best || !active || !cdf || !cdft || !lam || !lamt ||
        !memo_ok) {
        free(w), free(wt), free(g), free(wm), free(cand), free(best), free(active);
        free(cdf), free(cdft), free(lam), free(lamt);
        memo_fini(&memo);
        return err_run(err, "out of memory");
    }
    memset(res, 0, sizeof *res);
    for (int k = 0; k < S; k++)
        for (int c = 0; c < p->nchains; c++)
            if (p->chain[c].weight > 0 && p->chain[c].calls[k] > 0 && p->gamma[k] > 0)
                active[k] = 1;
    for (int k = 0; k < S; k++) {
        double wmax = a->svc[k].lat.max_load;
        w[k] = active[k] ? 0.5 * wmax : wmax;
        if (p->gamma[k] > 0 && w[k] > p->gamma[k])
            w[k] = p->gamma[k];      /* one container at least */
    }
    double q = p->quantile, T = p->sla_s;
    long long best_total = -1;
    for (int it = 0; it < p->iterations; it++) {
        double G = prob_w(p, w, T, cdf, lam);
        int any = 0;
        for (int k = 0; k < S; k++) {
            g[k] = 0;
            if (!active[k])
                continue;
            double d = 1e-3 * w[k] + 1e-12;
            memcpy(lamt, lam, (size_t)S * sizeof *lamt);
            lamt[k] = mslat_rate(&a->svc[k].lat, w[k] + d);
            /* only the chains that call k change: the others' terms are reused as they are */
            for (int c = 0; c < p->nchains; c++)
                cdft[c] = p->chain[c].weight > 0 && p->chain[c].calls[k] > 0
                              ? chain_cdf(p, c, lamt, T) : cdf[c];
            g[k] = (G - mix_of(p, cdft)) / d;
            if (g[k] > 0)
                any = 1;
        }
        if (!any)
            break;
        msopt_step(p, G, g, w, wm);
        long long total = round_up(p, w, cand);
        if (within_cap(p, cand) && memo_prob(&memo, p, cand, T) >= q) {
            res->feasible_iterates++;
            if (best_total < 0 || total < best_total) {
                best_total = total;
                memcpy(best, cand, (size_t)S * sizeof *best);
            }
        }
    }
    if (best_total < 0) {
        /* no feasible iterate: the largest common factor on the loads that is */
        double lo = 0, hi = 1;
        int found = 0;
        for (int b = 0; b < 60; b++) {
            double f = b == 0 ? 1 : 0.5 * (lo + hi);
            for (int k = 0; k < S; k++)
                wt[k] = w[k] * f;
            round_up(p, wt, cand);
            int ok = within_cap(p, cand) && memo_prob(&memo, p, cand, T) >= q;
            if (ok) {
                found = 1;
                lo = f;
                memcpy(best, cand, (size_t)S * sizeof *best);
                if (b == 0)
                    break;
            } else {
                hi = f;
            }
        }
        if (!found) {
            /* infeasible within the cap: the fastest allocation the cap allows */
            double f = 1e-3;
            for (int k = 0; k < S; k++)
                wt[k] = w[k] * f;
            round_up(p, wt, best);
            double c = cpus_of(p, best);
            if (p->cap_cpus > 0 && c > p->cap_cpus)
                for (int k = 0; k < S; k++) {
                    int v = (int)floor(best[k] * p->cap_cpus / c);
                    int fl = msopt_floor(p, k);
                    best[k] = v < fl ? fl : v;
                }
        }
    }
    double prob = memo_prob(&memo, p, best, T);
    res->feasible = prob >= q && within_cap(p, best);
    if (res->feasible && p->trim) {
        /* remove containers one at a time, the largest allocation first, while feasible */
        for (int changed = 1; changed;) {
            changed = 0;
            for (int k = 0; k < S; k++)
                cand[k] = k;
            for (int x = 1; x < S; x++)
                for (int y = x; y > 0 && best[cand[y - 1]] < best[cand[y]]; y--) {
                    int t = cand[y];
                    cand[y] = cand[y - 1];
                    cand[y - 1] = t;
                }
            for (int i = 0; i < S; i++) {
                int k = cand[i];
                if (best[k] <= msopt_floor(p, k))
                    continue;
                best[k]--;
                if (memo_prob(&memo, p, best, T) >= q)
                    changed = 1;
                else
                    best[k]++;
            }
        }
        prob = memo_prob(&memo, p, best, T);
    }
    res->prob = prob;
    res->total = 0;
    for (int k = 0; k < S; k++) {
        n[k] = best[k];
        res->total += best[k];
    }
    free(w), free(wt), free(g), free(wm), free(cand), free(best), free(active);
    free(cdf), free(cdft), free(lam), free(lamt);
    memo_fini(&memo);
    return 0;
}

/* mean latency of call i's subtree at loads w, and the path under it into calls */
static double path_mean(const struct micro_app *a, const struct micro_graph *g, int i,
                        const double *w, double *calls)
{
    const struct micro_call *c = &g->calls[i];
    double t = c->count * mslat_mean(&a->svc[c->service].lat, w[c->service]);
    if (calls != NULL)
        calls[c->service] += c->count;
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        int best = -1;
        double m = -1;
        for (int j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
            double v = path_mean(a, g, g->child[j], w, NULL);
            if (v > m) {
                m = v;
                best = g->child[j];
            }
        }
        if (best >= 0)
            path_mean(a, g, best, w, calls);
        t += m;
    }
    return t;
}

void msopt_path_calls(const struct micro_app *a, int g, const double *w, double *calls)
{
    for (int k = 0; k < a->nservices; k++)
        calls[k] = 0;
    path_mean(a, &a->graph[g], 0, w, calls);
}

int msopt_solve(const struct msopt_problem *p, int *n, struct msopt_result *res,
                struct errbuf *err)
{
    if (p->paths != MSOPT_CRITICAL)
        return solve_all(p, n, res, err);
    const struct micro_app *a = p->app;
    int S = a->nservices, C = p->nchains;
    double *calls = calloc((size_t)C * (size_t)S, sizeof *calls);
    double *prev = calloc((size_t)C * (size_t)S, sizeof *prev);
    double *w = calloc((size_t)S, sizeof *w), *one = calloc((size_t)S, sizeof *one);
    struct msopt_chain *ch = calloc((size_t)C, sizeof *ch);
    if (!calls || !prev || !w || !one || !ch) {
        free(calls), free(prev), free(w), free(one), free(ch);
        return err_run(err, "out of memory");
    }
    for (int k = 0; k < S; k++)
        w[k] = 0.5 * a->svc[k].lat.max_load;
    struct msopt_problem q = *p;
    q.chain = ch;
    q.paths = MSOPT_ALL;
    int rc = 0;
    for (int round = 0; round < 4; round++) {
        for (int c = 0; c < C; c++) {
            double *cc = calls + (size_t)c * S;
            if (p->chain[c].graph >= 0) {
                msopt_path_calls(a, p->chain[c].graph, w, cc);
            } else {
                for (int k = 0; k < S; k++)
                    cc[k] = 0;
                for (int g = 0; g < a->ngraphs; g++) {
                    msopt_path_calls(a, g, w, one);
                    for (int k = 0; k < S; k++)
                        cc[k] = one[k] > cc[k] ? one[k] : cc[k];
                }
            }
            ch[c] = (struct msopt_chain){ cc, p->chain[c].weight, p->chain[c].graph };
        }
        if (round > 0 && memcmp(calls, prev, (size_t)C * S * sizeof *calls) == 0)
            break;
        memcpy(prev, calls, (size_t)C * S * sizeof *calls);
        if ((rc = solve_all(&q, n, res, err)) < 0)
            break;
        loads_of(p, n, w);
    }
    free(calls), free(prev), free(w), free(one), free(ch);
    return rc;
}

double msopt_prob_idle(const struct msopt_problem *p)
{
    const struct micro_app *a = p->app;
    int S = a->nservices, C = p->nchains;
    double *w = calloc((size_t)S, sizeof *w), *calls = calloc((size_t)C * S + 1, sizeof *calls);
    struct msopt_chain *ch = calloc((size_t)C + 1, sizeof *ch);
    double *one = calloc((size_t)S + 1, sizeof *one);
    double g = 0;
    if (w != NULL && calls != NULL && ch != NULL && one != NULL) {
        struct msopt_problem q = *p;
        for (int c = 0; c < C; c++) {
            double *cc = calls + (size_t)c * S;
            if (p->paths != MSOPT_CRITICAL)
                memcpy(cc, p->chain[c].calls, (size_t)S * sizeof *cc);
            else if (p->chain[c].graph >= 0)
                msopt_path_calls(a, p->chain[c].graph, w, cc);
            else
                for (int gg = 0; gg < a->ngraphs; gg++) {
                    msopt_path_calls(a, gg, w, one);
                    for (int k = 0; k < S; k++)
                        cc[k] = one[k] > cc[k] ? one[k] : cc[k];
                }
            ch[c] = (struct msopt_chain){ cc, p->chain[c].weight, p->chain[c].graph };
        }
        q.chain = ch;
        double *cdf = calloc((size_t)C + 1, sizeof *cdf), *lam = calloc((size_t)S + 1, sizeof *lam);
        if (cdf != NULL && lam != NULL)
            g = prob_w(&q, w, p->sla_s, cdf, lam);
        free(cdf), free(lam);
    }
    free(w), free(calls), free(ch), free(one);
    return g;
}
