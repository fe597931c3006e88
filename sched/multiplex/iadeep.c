/*
 * iadeep: interference-aware placement and per-GPU batch-size tuning (Chen et al., "IADeep:
 * An Intelligent Scheduler for Deep Learning Jobs Sharing GPUs", SC 2023; ../shared/
 * PAPERS.md section 4).
 *
 * Degradation of job i on its GPU (models/stateff.h):
 *     PD_i = (t_co / t_m0) (m0 / m) / E,   E = (GNS + m0) / (GNS + m),
 * computed as the job's rate alone at its original batch over its predicted rate at batch m
 * with its co-runners — both from the world's own speed model (sim/train/mux_view.h), i.e.
 * from the profiled interference table completed by low-rank factorisation (models/
 * interference.h), which is what IADeep predicts with.
 *
 * Tuning (every time a GPU's holders change, and for each GPU a new job is tried on): the
 * batches of the GPU's k holders, each over the candidates in [m0/2, 1.5 m0) (`candidates`
 * of them, default 8, models/stateff.h stateff_candidates), exhaustively (8^k, k <= max_jobs
 * = 3 by default), minimizing sum_i PD_i among the combinations whose memory fits; the
 * untuned point (every job at m0) is the reference and a combination replaces it only when
 * strictly better, so tuning is never worse than not tuning by this measure.  Shares are
 * even (IADeep shares by MPS).
 *
 * Placement: a one-worker job in arrival order goes to a free GPU when there is one (its PD
 * there is its tuned solo PD, no one else degrades); otherwise to the GPU where the increase
 * of sum PD after re-tuning is smallest, provided the GPU's mean PD after it stays below
 * `slack` x k (default 1.0: sharing must beat giving each of the k jobs 1/k of the time);
 * else it waits.  Multi-worker jobs take whole GPUs.  Open assumptions: the paper's online
 * update of the interference table from observed rows is not modelled (the table is the
 * profile); tuning considers only its own GPU (jobs have one worker); PD's last factor is
 * taken as 1/E (see models/stateff.h for why).
 * Cost per decision: O(GPUs x candidates^max_jobs x max_jobs^2) rate evaluations at most.
 */
#include <stdlib.h>
#include <string.h>

#include "../../models/stateff.h"
#include "../policy.h"
#include "mux.h"

enum { MAX_CAND = 16 };

struct sig {                        /* the holders a GPU was last tuned for */
    int     n;
    int64_t id[MUX_MAX_JOBS];
};

struct iadeep {
    struct mux m;
    int        max_jobs, ncand;
    double     slack;
    struct sig *sig;                /* by GPU */
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    struct iadeep *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    int64_t mj = 3, nc = 8;
    p->slack = 1.0;
    if (jobj_int(params, "max_jobs", JOPT, 1, 4, &mj, err) < 0 ||
        jobj_int(params, "candidates", JOPT, 1, MAX_CAND, &nc, err) < 0 ||
        jobj_num(params, "slack", JOPT, 0, 8, &p->slack, err) < 0) {
        free(p);
        return -1;
    }
    p->max_jobs = (int)mj;
    p->ncand = (int)nc;
    p->sig = calloc((size_t)cluster_ngpus(env->cl) + 1, sizeof *p->sig);
    if (p->sig == NULL || mux_init(&p->m, env->cl) < 0) {
        free(p->sig);
        free(p);
        return err_run(err, "out of memory");
    }
    *self = p;
    return 0;
}

static void destroy(void *self)
{
    struct iadeep *p = self;
    mux_fini(&p->m);
    free(p->sig);
    free(p);
}

/* sum PD of a GPU's holders at the picture's batches; huge when a job cannot run. */
static double pd_sum(const struct mux *m, const struct train_view *v, int gpu)
{
    const struct mux_gpu *g = &m->g[gpu];
    double s = 0;
    for (int i = 0; i < g->n; i++) {
        const struct train_job *j = &v->jobs[g->slot[i]];
        double r = mux_rate(m, v, gpu, i), solo = mux_view_solo(v, j, gpu);
        s += r > 0 ? solo / r : 1e9;
    }
    return s;
}

static double mem_of(const struct mux *m, const struct train_view *v, int gpu)
{
    const struct mux_gpu *g = &m->g[gpu];
    double s = 0;
    for (int i = 0; i < g->n; i++)
        s += mux_view_mem_gb(v, v->jobs[g->slot[i]].jtype, g->batch[i]);
    return s;
}

/* Tune gpu's batches (see the header); leaves the best in the picture, even shares.
 * Returns its sum PD.  Not static: tests/test_mux.c checks it against the untuned point. */
double iadeep_tune(struct mux *m, const struct train_view *v, int gpu, int ncand);
double iadeep_tune(struct mux *m, const struct train_view *v, int gpu, int ncand)
{
    struct mux_gpu *g = &m->g[gpu];
    int n = g->n, cand[MUX_MAX_JOBS][MAX_CAND], nc[MUX_MAX_JOBS], idx[MUX_MAX_JOBS] = { 0 };
    int32_t best[MUX_MAX_JOBS];
    double cap = mux_view_gpu_mem_gb(v, gpu);
    mux_even(m, gpu);
    for (int i = 0; i < n; i++) {
        int m0 = mux_view_m0(v, v->jobs[g->slot[i]].jtype);
        nc[i] = stateff_candidates(m0, cand[i], ncand);
        best[i] = g->batch[i] = m0;         /* the untuned point */
    }
    double bsum = mem_of(m, v, gpu) <= cap + 1e-9 ? pd_sum(m, v, gpu) : 1e18;
    for (;;) {
        for (int i = 0; i < n; i++)
            g->batch[i] = cand[i][idx[i]];
        if (mem_of(m, v, gpu) <= cap + 1e-9) {
            double s = pd_sum(m, v, gpu);
            if (s < bsum - 1e-12) {
                bsum = s;
                memcpy(best, g->batch, (size_t)n * sizeof *best);
            }
        }
        int k = 0;
        while (k < n && ++idx[k] == nc[k])
            idx[k++] = 0;
        if (k == n)
            break;
    }
    memcpy(g->batch, best, (size_t)n * sizeof *best);
    g->mem_gb = mem_of(m, v, gpu);
    g->changed = 1;
    return bsum;
}

static int same_sig(const struct sig *s, const struct mux_gpu *g, const struct train_view *v)
{
    if (s->n != g->n)
        return 0;
    for (int i = 0; i < g->n; i++) {
        int found = 0;
        for (int k = 0; k < s->n && !found; k++)
            found = s->id[k] == v->jobs[g->slot[i]].id;
        if (!found)
            return 0;
    }
    return 1;
}

static void set_sig(struct sig *s, const struct mux_gpu *g, const struct train_view *v)
{
    s->n = g->n;
    for (int i = 0; i < g->n; i++)
        s->id[i] = v->jobs[g->slot[i]].id;
}

static int decide(void *self, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    struct iadeep *p = self;
    struct mux *m = &p->m;
    mux_load(m, v, out);
    for (int gpu = 0; gpu < m->ngpu; gpu++) {       /* re-tune what changed */
        struct mux_gpu *g = &m->g[gpu];
        if (g->whole || same_sig(&p->sig[gpu], g, v))
            continue;
        if (g->n > 0)
            iadeep_tune(m, v, gpu, p->ncand);
        set_sig(&p->sig[gpu], g, v);
    }
    struct mux_gpu save;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        if (j->workers > 1) {
            if (mux_place_whole(m, v, j, err) < 0)
                return -1;
            continue;
        }
        int gpu = mux_free_gpu(m, v);
        if (gpu < 0) {
            double best = 1e300;
            int32_t min_batch = (mux_view_m0(v, j->jtype) + 1) / 2;
            for (int k = 0; k < m->ngpu; k++) {
                struct mux_gpu *g = &m->g[k];
                if (g->n == 0 || !mux_fits(m, v, k, j->jtype, min_batch, p->max_jobs))
                    continue;
                save = *g;
                double before = pd_sum(m, v, k);
                mux_join(m, v, k, j->slot, 0, OCC_WHOLE);
                double after = iadeep_tune(m, v, k, p->ncand);
                *g = save;
                if (after / (save.n + 1) <= p->slack * (save.n + 1) && after - before < best) {
                    best = after - before;
                    gpu = k;
                }
            }
        }
        if (gpu < 0)
            continue;
        mux_join(m, v, gpu, j->slot, 0, OCC_WHOLE);
        iadeep_tune(m, v, gpu, p->ncand);
        set_sig(&p->sig[gpu], &m->g[gpu], v);
    }
    return mux_emit(m, v, err);
}

static const char *const params[] = { "max_jobs", "candidates", "slack", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = decide,
};

const struct policy_ops policy_iadeep = {
    .name = "iadeep",
    .domain = "training",
    .summary = "IADeep: place by predicted interference degradation, tune batches per GPU",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = destroy,
    .train = &hooks,
};
