/*
 * antman: AntMan's guaranteed and opportunistic jobs (Xiao et al., "AntMan: Dynamic Scaling
 * on GPU Clusters for Deep Learning", OSDI 2020, sections 3.2 and 4).
 *
 * A one-worker job in arrival order that finds a free GPU starts there as that GPU's
 * guaranteed job.  When no GPU is free it starts as an opportunistic job on a GPU that has a
 * guaranteed job, fewer than `max_opportunistic` (default 1) opportunistic ones and the
 * memory for it (AntMan's memory is elastic, but a job needs its working set; ties: fewest
 * holders, least memory used, lowest id).  AntMan's local coordinator gives the guaranteed
 * job priority and lets opportunistic jobs use what it leaves; hetsim expresses that as
 * shares: the guaranteed job holds `guaranteed_share` (default 900 thousandths) of a shared
 * GPU and the opportunistic ones split the rest, so that the interference model slows the
 * guaranteed job little and the opportunistic ones a lot (sim/train/share.h, share
 * weighting).  When a guaranteed job leaves, the opportunistic job that came first becomes
 * the guaranteed one (the GPU is now its quota).  Multi-worker jobs take whole GPUs.
 * It predicts no interference: it acts on its guaranteed / opportunistic split and the
 * memory a job needs (its working set), never on how fast a job would run beside another.
 * Open assumptions: no quotas per tenant (every job is entitled to a guaranteed GPU in
 * arrival order); AntMan's dynamic memory growth is not modelled; its guaranteed jobs see
 * no more slowdown than the share weighting gives (AntMan reports a few per cent).
 * Cost per decision: O(GPUs) per job placed.
 */
#include <stdlib.h>

#include "../policy.h"
#include "mux.h"

struct antman {
    struct mux m;
    int        max_opp;
    int        gshare;
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    struct antman *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    int64_t mo = 1, gs = 900;
    if (jobj_int(params, "max_opportunistic", JOPT, 0, MUX_MAX_JOBS - 1, &mo, err) < 0 ||
        jobj_int(params, "guaranteed_share", JOPT, 500, 999, &gs, err) < 0) {
        free(p);
        return -1;
    }
    p->max_opp = (int)mo;
    p->gshare = (int)gs;
    if (mux_init(&p->m, env->cl) < 0) {
        free(p);
        return err_run(err, "out of memory");
    }
    *self = p;
    return 0;
}

static void destroy(void *self)
{
    struct antman *p = self;
    mux_fini(&p->m);
    free(p);
}

/* The guaranteed holder: the largest share, then the earliest job. */
static int guaranteed(const struct mux_gpu *g, const struct train_view *v)
{
    int k = 0;
    for (int i = 1; i < g->n; i++) {
        const struct train_job *a = &v->jobs[g->slot[i]], *b = &v->jobs[g->slot[k]];
        if (g->share[i] > g->share[k] || (g->share[i] == g->share[k] && a->id < b->id))
            k = i;
    }
    return k;
}

/* Shares for guaranteed holder k: the whole GPU alone, else gshare and the rest split. */
static void set_shares(struct antman *p, int gpu, int k)
{
    struct mux_gpu *g = &p->m.g[gpu];
    uint16_t want[MUX_MAX_JOBS];
    for (int i = 0; i < g->n; i++)
        want[i] = g->n == 1 ? OCC_WHOLE
                  : i == k  ? (uint16_t)p->gshare
                            : (uint16_t)((OCC_WHOLE - p->gshare) / (g->n - 1));
    for (int i = 0; i < g->n; i++)
        if (g->share[i] != want[i]) {
            for (int x = 0; x < g->n; x++)
                g->share[x] = want[x];
            g->changed = 1;
            return;
        }
}

static int decide(void *self, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    struct antman *p = self;
    struct mux *m = &p->m;
    mux_load(m, v, out);
    for (int gpu = 0; gpu < m->ngpu; gpu++)     /* promotions after a guaranteed job left */
        if (m->g[gpu].n > 0)
            set_shares(p, gpu, guaranteed(&m->g[gpu], v));
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        if (j->workers > 1) {
            if (mux_place_whole(m, v, j, err) < 0)
                return -1;
            continue;
        }
        int gpu = mux_free_gpu(m, v);
        if (gpu >= 0) {
            mux_join(m, v, gpu, j->slot, 0, OCC_WHOLE);
            continue;
        }
        for (int k = 0; k < m->ngpu; k++) {
            const struct mux_gpu *g = &m->g[k], *b = gpu >= 0 ? &m->g[gpu] : NULL;
            if (g->n == 0 || g->n - 1 >= p->max_opp ||
                !mux_fits(m, v, k, j->jtype, 0, MUX_MAX_JOBS))
                continue;
            if (b == NULL || g->n < b->n || (g->n == b->n && g->mem_gb < b->mem_gb))
                gpu = k;
        }
        if (gpu < 0)
            continue;
        int k = guaranteed(&m->g[gpu], v);
        mux_join(m, v, gpu, j->slot, 0, 0);         /* the smallest share: opportunistic */
        set_shares(p, gpu, k);
    }
    return mux_emit(m, v, err);
}

static const char *const params[] = { "max_opportunistic", "guaranteed_share", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = decide,
};

const struct policy_ops policy_antman = {
    .name = "antman",
    .domain = "training",
    .summary = "AntMan: guaranteed job per GPU plus opportunistic jobs that yield to it",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = destroy,
    .train = &hooks,
};
