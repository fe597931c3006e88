/*
 * intfpred: learned and oracle predictions of shared-GPU rates, and their scoring (see the
 * header for the two kinds).
 *
 * What the learned kind knows, and when:
 *  - solo profiles: a job's rate alone at any batch and share (mux_view_solo_at), its memory
 *    (mux_view_mem_gb), as every multiplexing policy here;
 *  - the share law of the world (models/interference.h intf_ns: how a table slowdown, the
 *    co-runners' batch pressure and a job's share make its normalized speed), with its own
 *    belief of the pressure exponent (`pressure_exp`, default the published fit on Lucid's
 *    pairs, intf_pressure_exp_default) — a structural assumption, not measured data;
 *  - profiled pairs: each unordered pair of job types {a, b} (a = b included) is profiled
 *    with probability known_pairs, independently (one uniform draw per pair, in type order,
 *    from the stream "intfpred_profile" of the experiment seed: about known_pairs of the
 *    pairs); a profiled pair is measured on every GPU type of the cluster by one profiling
 *    run (both at their own batches and half the GPU: mux_view_profile) when the second of
 *    its two types first appears in the view, as though it had been profiled offline;
 *  - observations: a shared GPU's configuration (holders by id, their batches and shares) is
 *    observed once, at the first decision after it began at which it is unchanged and every
 *    holder is past its restore (it has run: what a scheduler measures is iterations
 *    completed, not a plan).  Holder i's realised normalized speed is its rate in the view
 *    over its solo rate at its batch, ns_i = rate_i / solo_i(m_i); the share law's inverse
 *    (intf_unshare) turns it into the slowdown at original batches under the believed
 *    exponent, and the holders' slowdowns are added as one measured combination (repeats
 *    average).
 * After new data the factorisation is refitted (intf_fit, IADeep's settings intf_mf_default:
 * rank 2, lr 2e-4, reg 0.02, 50 epochs) on every known pair.  A prediction asks the belief
 * for the holder's slowdown beside its co-holders (a measured combination, else the sum of
 * its pairs, known or completed; nothing known at all: 0) and applies the share law:
 * rate = intf_ns(d, pressure, k, share) x solo(m).  A time-sliced GPU is predicted at its
 * time share (the switching loss is the world's, and IADeep never slices).
 *
 * Scoring: intfpred_commit keeps, for each changed GPU with two holders or more, the
 * configuration and each holder's predicted slowdown s = solo(m) / predicted rate; when that
 * configuration is observed, each holder adds |s - s_real| / s_real to the error, with s_real
 * = solo(m) / realised rate.  A configuration that changes before it has run is not scored.
 * The learned kind's predictions for a combination (the holder and its co-holders' types) it
 * had neither profiled nor observed when it made them are also scored apart ("unseen").
 */
#include "intfpred.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../../models/interference.h"
#include "../../sim/base/rng.h"
#include "../policy.h"

/* A shared GPU's configuration, holders in id order. */
struct cfg {
    int      n;                     /* 0: nothing kept */
    int64_t  id[MUX_MAX_JOBS];
    int32_t  batch[MUX_MAX_JOBS];
    uint16_t share[MUX_MAX_JOBS];
    simtime  since;                 /* when it began (as far as the policy knows) */
    int      observed;              /* its observation is done */
    int      scored;                /* pred[] holds the predictions made for it */
    double   pred[MUX_MAX_JOBS];    /* predicted slowdowns solo(m) / rate */
    uint8_t  unseen[MUX_MAX_JOBS];  /* learned: the belief had not measured that combination */
};

/* What one observation adds to the belief. */
struct obs {
    int    gpu_type, n, novel;
    int    jt[MUX_MAX_JOBS];
    double d[MUX_MAX_JOBS];
};

struct intfpred {
    int       oracle;
    double    known, theta;
    uint64_t  seed;
    int       ntypes, ngpu;
    intf     *belief;
    int       dirty;                /* the belief has data it was not fitted on */
    uint8_t  *seen;                 /* by job type: its pairs are profiled */
    double   *draw;                 /* by unordered pair: profiled iff draw < known */
    int       ntg;                  /* GPU types of the cluster, one GPU of each */
    int      *tg_type, *tg_gpu;
    struct cfg *cfg;                /* by GPU */
    struct obs *obs;                /* one decision's observations, by GPU */
    double    err_sum, unseen_sum;
    int64_t   scored, unseen, profiled, observed;
};

static size_t pair_index(int a, int b, int n)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return (size_t)a * (size_t)n - (size_t)(a * (a - 1) / 2) + (size_t)(b - a);
}

int intfpred_create(intfpred **out, const struct intfpred_opts *o,
                    const struct policy_env *env, struct errbuf *err)
{
    *out = NULL;
    intfpred *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    p->oracle = o->oracle;
    p->known = o->known_pairs;
    p->theta = o->pressure_exp;
    p->seed = env->seed;
    p->ntypes = tput_ntypes(env->model);
    p->ngpu = cluster_ngpus(env->cl);
    size_t npairs = (size_t)p->ntypes * (size_t)(p->ntypes + 1) / 2;
    p->seen = calloc((size_t)p->ntypes + 1, 1);
    p->draw = malloc((npairs + 1) * sizeof *p->draw);
    p->tg_type = malloc(((size_t)p->ngpu + 1) * sizeof *p->tg_type);
    p->tg_gpu = malloc(((size_t)p->ngpu + 1) * sizeof *p->tg_gpu);
    p->cfg = calloc((size_t)p->ngpu + 1, sizeof *p->cfg);
    p->obs = calloc((size_t)p->ngpu + 1, sizeof *p->obs);
    gsl_rng *g = rng_stream(env->seed, "intfpred_profile");
    if (p->seen == NULL || p->draw == NULL || p->tg_type == NULL || p->tg_gpu == NULL ||
        p->cfg == NULL || p->obs == NULL || g == NULL ||
        intf_create(&p->belief, p->ntypes, catalog_ngpus(tput_catalog(env->model))) < 0) {
        gsl_rng_free(g);
        intfpred_destroy(p);
        return err_run(err, "out of memory");
    }
    for (int a = 0; a < p->ntypes; a++)         /* in type order: the same pairs every run */
        for (int b = a; b < p->ntypes; b++)
            p->draw[pair_index(a, b, p->ntypes)] = gsl_rng_uniform(g);
    gsl_rng_free(g);
    for (int gpu = 0; gpu < p->ngpu; gpu++) {
        int t = cluster_gpu_type(env->cl, gpu), k = 0;
        while (k < p->ntg && p->tg_type[k] != t)
            k++;
        if (k == p->ntg) {
            p->tg_type[p->ntg] = t;
            p->tg_gpu[p->ntg++] = gpu;
        }
    }
    *out = p;
    return 0;
}

void intfpred_destroy(intfpred *p)
{
    if (p == NULL)
        return;
    intf_destroy(p->belief);
    free(p->seen);
    free(p->draw);
    free(p->tg_type);
    free(p->tg_gpu);
    free(p->cfg);
    free(p->obs);
    free(p);
}

/* Profile the chosen pairs of job type jt with every type seen so far (itself included). */
static int profile_type(intfpred *p, const struct train_view *v, int jt)
{
    p->seen[jt] = 1;
    for (int u = 0; u < p->ntypes; u++) {
        if (!p->seen[u] || !(p->draw[pair_index(jt, u, p->ntypes)] < p->known))
            continue;
        for (int k = 0; k < p->ntg; k++) {
            double d[2];
            if (mux_view_profile(v, p->tg_gpu[k], jt, u, d) < 0)
                continue;                       /* one of them cannot run there */
            if (intf_add(p->belief, p->tg_type[k], (const int[]){ jt, u }, 2, d) < 0)
                return -1;
            p->dirty = 1;
            p->profiled++;
        }
    }
    return 0;
}

/* The configuration of gpu in the picture, holders in id order; ord[r] = the picture's index
 * of the r-th.  n = 0 for a GPU that is not shared (space-shared by two holders or more). */
static void cfg_of(const struct mux *m, const struct train_view *v, int gpu, struct cfg *c,
                   int *ord)
{
    const struct mux_gpu *g = &m->g[gpu];
    memset(c, 0, sizeof *c);
    if (g->n < 2 || g->whole || g->sliced)
        return;
    for (int i = 0; i < g->n; i++) {
        int r = i;
        while (r > 0 && v->jobs[g->slot[ord[r - 1]]].id > v->jobs[g->slot[i]].id) {
            ord[r] = ord[r - 1];
            r--;
        }
        ord[r] = i;
    }
    c->n = g->n;
    for (int r = 0; r < g->n; r++) {
        c->id[r] = v->jobs[g->slot[ord[r]]].id;
        c->batch[r] = g->batch[ord[r]];
        c->share[r] = g->share[ord[r]];
    }
}

static int same_cfg(const struct cfg *a, const struct cfg *b)
{
    if (a->n != b->n)
        return 0;
    for (int r = 0; r < a->n; r++)
        if (a->id[r] != b->id[r] || a->batch[r] != b->batch[r] || a->share[r] != b->share[r])
            return 0;
    return 1;
}

/* Summed batch pressure on holder i of gpu under the believed exponent. */
static double pressure_on(const intfpred *p, const struct mux *m, const struct train_view *v,
                          int gpu, int i)
{
    const struct mux_gpu *g = &m->g[gpu];
    double s = 0;
    for (int k = 0; k < g->n; k++)
        if (k != i)
            s += pow((double)g->batch[k] / mux_view_m0(v, v->jobs[g->slot[k]].jtype), p->theta);
    return s;
}

/* Observe gpu's configuration c (ord: the picture's index of each of its holders): score
 * what was predicted for it and, learned, fill *o with what it shows (o->n = 0: nothing). */
static void observe(intfpred *p, const struct mux *m, const struct train_view *v, int gpu,
                    struct cfg *c, const int *ord, struct obs *o)
{
    const struct mux_gpu *g = &m->g[gpu];
    int n = g->n, ok = 1;
    for (int r = 0; r < n; r++) {
        const struct train_job *j = &v->jobs[g->slot[ord[r]]];
        double solo = mux_view_solo_at(v, j, c->batch[r], gpu);
        o->jt[r] = j->jtype;
        if (!(solo > 0) || !(j->rate > 0)) {
            ok = 0;
            continue;
        }
        double real = solo / j->rate;
        if (c->scored) {
            double e = fabs(c->pred[r] - real) / real;
            p->err_sum += e;
            p->scored++;
            if (c->unseen[r]) {
                p->unseen_sum += e;
                p->unseen++;
            }
        }
        o->d[r] = intf_unshare(1 / real, pressure_on(p, m, v, gpu, ord[r]), n - 1,
                               c->share[r]);
        ok &= !isnan(o->d[r]);
    }
    c->observed = 1;
    o->n = 0;
    if (p->oracle || !ok || n > INTF_MAX_JOBS)
        return;
    o->n = n;
    o->gpu_type = cluster_gpu_type(v->cl, gpu);
    /* judged against the belief as the last refit left it (nothing is added before) */
    o->novel = !intf_measured(p->belief, o->gpu_type, o->jt[0], o->jt + 1, n - 1);
}

int intfpred_begin(intfpred *p, const struct mux *m, const struct train_view *v,
                   uint8_t *learned, struct errbuf *err)
{
    if (learned != NULL)
        memset(learned, 0, (size_t)p->ngpu);
    for (int gpu = 0; gpu < p->ngpu; gpu++) {
        struct cfg now;
        int ord[MUX_MAX_JOBS];
        p->obs[gpu].n = 0;
        cfg_of(m, v, gpu, &now, ord);
        struct cfg *c = &p->cfg[gpu];
        if (now.n == 0) {
            c->n = 0;
            continue;
        }
        if (!same_cfg(c, &now)) {
            now.since = v->now;
            *c = now;
            continue;
        }
        if (c->observed || !(v->now > c->since))
            continue;
        int ran = 1;
        for (int r = 0; r < now.n; r++)
            ran &= v->now > v->jobs[m->g[gpu].slot[ord[r]]].run_from;
        if (ran)
            observe(p, m, v, gpu, c, ord, &p->obs[gpu]);
    }
    for (int gpu = 0; gpu < p->ngpu; gpu++) {
        const struct obs *o = &p->obs[gpu];
        if (o->n == 0)
            continue;
        if (intf_add(p->belief, o->gpu_type, o->jt, o->n, o->d) < 0)
            return err_run(err, "out of memory");
        p->dirty = 1;
        p->observed++;
        if (learned != NULL)
            learned[gpu] = (uint8_t)o->novel;
    }
    if (!p->oracle)                     /* newcomers' types: their pairs, profiled offline */
        for (int list = 0; list < 2; list++)
            for (const struct train_job *j = list ? train_view_first_running(v)
                                                  : train_view_first_waiting(v);
                 j; j = list ? train_view_next_running(v, j) : train_view_next_waiting(v, j))
                if (!p->seen[j->jtype] && profile_type(p, v, j->jtype) < 0)
                    return err_run(err, "out of memory");
    if (p->dirty) {
        if (intf_fit(p->belief, &intf_mf_default, p->seed, err) < 0)
            return -1;
        p->dirty = 0;
    }
    return 0;
}

double intfpred_rate(const intfpred *p, const struct mux *m, const struct train_view *v,
                     int gpu, int i)
{
    if (p->oracle)
        return mux_rate(m, v, gpu, i);
    const struct mux_gpu *g = &m->g[gpu];
    const struct train_job *j = &v->jobs[g->slot[i]];
    double solo = mux_view_solo_at(v, j, g->batch[i], gpu);
    int k = g->n - 1, others[MUX_MAX_JOBS];
    if (k == 0 || g->sliced)
        return solo * g->share[i] / 1000.0;
    for (int x = 0, n = 0; x < g->n; x++)
        if (x != i)
            others[n++] = v->jobs[g->slot[x]].jtype;
    double d = intf_slowdown(p->belief, cluster_gpu_type(v->cl, gpu), j->jtype, others, k);
    return solo * intf_ns(d, pressure_on(p, m, v, gpu, i), k, g->share[i]);
}

void intfpred_commit(intfpred *p, const struct mux *m, const struct train_view *v)
{
    for (int gpu = 0; gpu < p->ngpu; gpu++) {
        if (!m->g[gpu].changed)
            continue;
        struct cfg *c = &p->cfg[gpu];
        int ord[MUX_MAX_JOBS];
        cfg_of(m, v, gpu, c, ord);
        c->since = v->now;
        for (int r = 0; r < c->n; r++) {
            const struct mux_gpu *g = &m->g[gpu];
            const struct train_job *j = &v->jobs[g->slot[ord[r]]];
            double rate = intfpred_rate(p, m, v, gpu, ord[r]);
            c->pred[r] = rate > 0 ? mux_view_solo_at(v, j, c->batch[r], gpu) / rate : HUGE_VAL;
            int others[MUX_MAX_JOBS], k = 0;
            for (int x = 0; x < g->n; x++)
                if (x != ord[r])
                    others[k++] = v->jobs[g->slot[x]].jtype;
            c->unseen[r] = (uint8_t)(!p->oracle && !intf_measured(p->belief,
                                     cluster_gpu_type(v->cl, gpu), j->jtype, others, k));
        }
        c->scored = c->n > 0;
    }
}

int intfpred_metrics(const intfpred *p, const struct policy_metric_sink *out,
                     struct errbuf *err)
{
    if (p->scored > 0 &&
        out->put(out->ctx, "pred_error_mean", p->err_sum / (double)p->scored, err) < 0)
        return -1;
    if (p->unseen > 0 &&
        out->put(out->ctx, "pred_unseen_error_mean", p->unseen_sum / (double)p->unseen, err) < 0)
        return -1;
    return out->put(out->ctx, "pred_scored", (double)p->scored, err) < 0 ||
           out->put(out->ctx, "pred_unseen_scored", (double)p->unseen, err) < 0 ||
           out->put(out->ctx, "pred_profiled", (double)p->profiled, err) < 0 ||
           out->put(out->ctx, "pred_observed", (double)p->observed, err) < 0
               ? -1
               : 0;
}
