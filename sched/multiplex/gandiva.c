/*
 * gandiva: Gandiva's packing (Xiao et al., "Gandiva: Introspective Cluster Scheduling for
 * Deep Learning", OSDI 2018, section 4.2 "Packing" and 5.2) — pack, observe, unpack.
 *
 * A one-worker job in arrival order takes a free GPU if there is one; otherwise it is packed
 * beside one holder whose GPU still has the memory (at most `max_jobs`, default 2: Gandiva
 * packs pairs), both at half the GPU.  Gandiva cannot know beforehand how two jobs interfere,
 * and here it predicts nothing: `observe_s` (default 300 s) after the later of them was
 * packed, and once both are past their restore, it measures their progress — each job's
 * realised rate in the view over its rate alone, its solo profile — and when the pair's
 * summed normalized progress is below `unpack_below` (default 1.0: worse than giving each the
 * GPU half of the time) it unpacks the job packed last back into the queue and never packs
 * those two job types together again ("it learns which jobs pack well").  It never asks the
 * world how fast a job would run beside another (tests/test_mux.c share/
 * learned_and_measuring_policies_never_read_the_interference_truth).  Multi-worker jobs take
 * whole GPUs.  Open assumptions: Gandiva's time-slicing of over-subscribed GPUs and its migration
 * are not modelled (packing is the part that shares a GPU); an unpacked job pays the restore
 * delay like any preempted job; a pair is judged once, when its observation is due.
 * Cost per decision: O(GPUs) per job placed plus O(GPUs) for the observations.
 */
#include <stdlib.h>

#include "../policy.h"
#include "mux.h"

struct gandiva {
    struct mux m;
    int        max_jobs;
    double     observe_s, unpack_below;
    int        ntypes;
    uint8_t   *bad;             /* ntypes x ntypes: these types do not pack */
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    struct gandiva *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    int64_t mj = 2;
    p->observe_s = 300;
    p->unpack_below = 1.0;
    if (jobj_int(params, "max_jobs", JOPT, 1, MUX_MAX_JOBS, &mj, err) < 0 ||
        jobj_num(params, "observe_s", JOPT, 0, 1e7, &p->observe_s, err) < 0 ||
        jobj_num(params, "unpack_below", JOPT, 0, 8, &p->unpack_below, err) < 0) {
        free(p);
        return -1;
    }
    p->max_jobs = (int)mj;
    p->ntypes = tput_ntypes(env->model);
    p->bad = calloc((size_t)p->ntypes * (size_t)p->ntypes + 1, 1);
    if (p->bad == NULL || mux_init(&p->m, env->cl) < 0) {
        free(p->bad);
        free(p);
        return err_run(err, "out of memory");
    }
    *self = p;
    return 0;
}

static void destroy(void *self)
{
    struct gandiva *p = self;
    mux_fini(&p->m);
    free(p->bad);
    free(p);
}

static int bad_with(const struct gandiva *p, const struct train_view *v, const struct mux_gpu *g,
                    int jt)
{
    for (int i = 0; i < g->n; i++)
        if (p->bad[(size_t)jt * (size_t)p->ntypes + (size_t)v->jobs[g->slot[i]].jtype])
            return 1;
    return 0;
}

/* Judge every shared GPU whose newest holder has run observe_s; unpack the bad ones.
 * Returns the earliest observation still due (SIM_NEVER: none). */
static simtime observe(struct gandiva *p, const struct train_view *v, struct errbuf *err,
                       int *failed)
{
    struct mux *m = &p->m;
    simtime next = SIM_NEVER, wait = sim_from_sec(p->observe_s);
    for (int gpu = 0; gpu < m->ngpu; gpu++) {
        struct mux_gpu *g = &m->g[gpu];
        if (g->n < 2)
            continue;
        int newest = 0;
        for (int i = 1; i < g->n; i++) {
            const struct train_job *a = &v->jobs[g->slot[i]], *b = &v->jobs[g->slot[newest]];
            if (a->last_grant > b->last_grant || (a->last_grant == b->last_grant && a->id > b->id))
                newest = i;
        }
        simtime due = v->jobs[g->slot[newest]].last_grant + wait;
        for (int i = 0; i < g->n; i++)          /* a rate is measured once it runs */
            if (v->jobs[g->slot[i]].run_from >= due)
                due = v->jobs[g->slot[i]].run_from + 1;
        if (due > v->now) {
            if (due < next)
                next = due;
            continue;
        }
        double sum = 0;
        for (int i = 0; i < g->n; i++) {
            const struct train_job *j = &v->jobs[g->slot[i]];
            double solo = mux_view_solo(v, j, gpu);
            sum += solo > 0 ? j->rate / solo : 0;
        }
        if (sum >= p->unpack_below)
            continue;
        int32_t out_slot = g->slot[newest];
        int jt = v->jobs[out_slot].jtype;
        for (int i = 0; i < g->n; i++) {
            int kt = v->jobs[g->slot[i]].jtype;
            if (i == newest)
                continue;
            p->bad[(size_t)jt * (size_t)p->ntypes + (size_t)kt] = 1;
            p->bad[(size_t)kt * (size_t)p->ntypes + (size_t)jt] = 1;
        }
        mux_leave(m, v, gpu, out_slot);
        mux_even(m, gpu);
        if (grant_preempt(m->plan.out, out_slot) < 0) {
            *failed = err_run(err, "out of memory");
            return next;
        }
    }
    return next;
}

static int decide(void *self, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    struct gandiva *p = self;
    struct mux *m = &p->m;
    mux_load(m, v, out);
    for (int gpu = 0; gpu < m->ngpu; gpu++)
        for (int i = 0; i < m->g[gpu].n; i++)
            if (m->g[gpu].share[i] != OCC_WHOLE / m->g[gpu].n) {
                mux_even(m, gpu);
                break;
            }
    int failed = 0;
    simtime next = observe(p, v, err, &failed);
    if (failed)
        return -1;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        if (j->workers > 1) {
            if (mux_place_whole(m, v, j, err) < 0)
                return -1;
            continue;
        }
        int gpu = mux_free_gpu(m, v);
        if (gpu < 0)                    /* pack: the first GPU that takes it */
            for (int k = 0; k < m->ngpu && gpu < 0; k++)
                if (m->g[k].n > 0 && mux_fits(m, v, k, j->jtype, 0, p->max_jobs) &&
                    !bad_with(p, v, &m->g[k], j->jtype))
                    gpu = k;
        if (gpu < 0)
            continue;
        mux_join(m, v, gpu, j->slot, 0, OCC_WHOLE);
        mux_even(m, gpu);
        if (m->g[gpu].n > 1) {
            simtime due = v->now + sim_from_sec(p->observe_s);
            if (due < next)
                next = due;
        }
    }
    if (next != SIM_NEVER && next > v->now)
        out->wake_at = next;
    return mux_emit(m, v, err);
}

static const char *const params[] = { "max_jobs", "observe_s", "unpack_below", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = decide,
};

const struct policy_ops policy_gandiva = {
    .name = "gandiva",
    .domain = "training",
    .summary = "Gandiva: pack jobs in pairs, observe their progress, unpack pairs that lose",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = destroy,
    .train = &hooks,
};
