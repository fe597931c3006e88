/*
 * train: event handlers of the training world.
 *
 * Events: ARRIVAL (the next job of the source), FINISH (arg = slot; cancelled and re-pushed
 * whenever the job's rate changes), ROUND (period of round-based policies), SAMPLE (period of
 * the time series), TIMER (the wake-up a policy asked for; one at a time, replaced by each
 * new request).  The policy is asked at the end of an instant (the engine's end-of-instant
 * hook), once, after every arrival, completion and round boundary of that instant.
 *
 * Progress: a running job advances at `rate` iterations/s from `run_from` (grant time plus
 * the restore delay); `done` is settled whenever its rate changes, so FINISH is exact:
 * run_from + ceil((work - done) / rate) microseconds.  The rate comes from the speed hook
 * (speed.h: rigid jobs by default); when the hook's rates depend on co-runners, the world
 * keeps each GPU's holders and, after every decision and every completion, re-rates every
 * holder of a GPU that gained or lost a job.
 *
 * Accounting kept as running integrals, updated before anything they depend on changes:
 * busy milli-GPUs per type (utilization) and the number of active jobs (finish-time fairness:
 * a job's N is the mean of that count over its life).  Inside the measurement window
 * (sim/base/window.h) the world also integrates busy GPUs and each job's progress over its
 * fastest type's rate (normalized throughput).  The default window ends at the last arrival,
 * known only once the source is drained; until then every interval credited ends at or
 * before the next arrival (it is the next event of its kind), so nothing needs clipping.
 *
 * Timeline (sim.timeline, a segment sink): each job keeps the start and cause of its open
 * interval; a grant change, a finish or the end of the run writes it (split at run_from into
 * restoring and running), so a row is written once, when it ends.  Without the sink nothing
 * of this runs.
 *
 * Invariants: a slot is on the active list iff its job arrived and is not done; it is on
 * exactly one of waiting/running; the live occ equals the sum of running jobs' grants.
 * Costs: arrival and finish O(1) plus the policy; applying g grants O(sum of their GPUs).
 */
#include "train.h"

#include "rate_memo.h"
#include "speed.h"

#include "../../models/fairshare.h"
#include "../core/timeline.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ev_kind { EV_ARRIVAL = 1, EV_FINISH, EV_ROUND, EV_SAMPLE, EV_TIMER };

/* A stall (on_instant_end) stops the run after this many idle decisions over this long. */
enum { STALL_DECISIONS = 1000 };
#define STALL_S (7 * 86400.0)

struct jobx {                       /* world-private part of a job, by slot */
    evq_handle finish_ev;
    int32_t    prev_active, prev_waiting, prev_running;
    int        gcap;                /* capacity of the job's gpus array */
    int       *gpus;
    int64_t    trace_id;
    int        elastic;             /* its spec gave a range of GPU counts */
    double     best_rate;           /* its rate on its fastest type: normalizes throughput */
    double     type_rate[CLUSTER_MAX_TYPES];    /* its rate on each type (cluster_types
                                                   order), placed as well as it can be */
    double     active_int_at_arrival;
    double     gpu_s[CLUSTER_MAX_TYPES];
    simtime    seg_from;            /* sim.timeline: its open interval began here, */
    int        seg_cause;           /*   for this reason (enum timeline_cause) */
};

/* the jobs holding one GPU (kept when the speed hook depends on co-runners) */
struct holders {
    int32_t *slot;
    int      n, cap;
};

struct train {
    const cluster      *cl;
    const tput         *model;
    rate_memo          *rates;      /* train_view_rate's memo, handed to every view */
    struct train_config cfg;
    const struct train_speed *speed;
    struct holders     *hold;       /* by GPU id; NULL when co-runners do not matter */
    int                *touched;    /* GPUs whose holders changed since the last re-rating */
    int                 ntouched, captouched;
    uint32_t           *stamp;      /* by slot: the re-rating it last took part in */
    uint32_t            stamp_now;
    struct train_corunner *co;      /* scratch for a speed query */
    int                 capco;
    struct entity_source  *src;
    struct train_decider dec;
    struct train_sink   sink;
    engine             *eng;        /* the engine it is attached to (train_attach) */
    engine             *own;        /* train_run's engine of its own, or NULL */
    uint32_t            tag;        /* its client tag on eng, ORed into its kinds */
    uint64_t            nevents;    /* its events handled (the engine's may hold others') */
    occ                *occ;
    int                 ntypes;
    const int          *types;

    struct train_job   *jobs;       /* by slot */
    struct jobx        *x;
    int32_t            *next_active, *next_waiting, *next_running;
    int32_t             cap, nused;
    int32_t             free_head;  /* recycled slots, linked through next_active */
    int32_t             active_head, active_tail, waiting_head, waiting_tail, running_head;
    int32_t             n_active, n_waiting, n_running;
    /* a stall: decisions in a row that left every GPU idle with jobs waiting and none to
     * arrive, since when, and whether the run was stopped for it */
    int64_t             stall_decisions;
    simtime             stall_since;
    int                 stalled;
    int64_t             next_id;

    struct job_spec     pending;    /* next job of the source */
    int                 have_pending;
    simtime             last_arrival;

    unsigned            reason;     /* why the policy is asked at the end of this instant */
    int                 rounds_on, samples_on;
    evq_handle          timer;      /* the policy's pending wake-up request */
    int64_t             round_index;
    struct grant_list   grants;
    uint8_t            *granted;    /* per slot: mentioned in the current grant list */

    /* integrals */
    simtime             acct_t;
    double              active_int;
    int64_t             busy_milli[CLUSTER_MAX_TYPES];
    double              busy_int[CLUSTER_MAX_TYPES];    /* milli-GPU-seconds */
    struct window       win;            /* the measurement window, seconds */
    double              win_norm;       /* normalized progress inside it, job-seconds */
    double              win_busy[CLUSTER_MAX_TYPES];    /* milli-GPU-seconds inside it */
    double              sample_busy[CLUSTER_MAX_TYPES];
    double              round_last[CLUSTER_MAX_TYPES + 1];  /* last round samples written */
    int                 round_logged;

    /* tenancy (co-simulation): the GPUs a broker withholds, taken whole in occ and in base
     * (an occupancy of those alone, where a plan from an empty cluster starts) */
    uint8_t            *withheld;   /* by GPU id; NULL until the first withhold */
    occ                *base;
    int                 nwithheld;
    uint64_t            base_epoch;     /* withholds and gives so far (train_view.base_epoch) */
    int64_t             reclaimed_jobs;     /* jobs preempted or shrunk by a withhold */

    struct train_totals tot;
};

/* ---------------------------------------------------------------- lists */

#define LIST_FNS(name)                                                                   \
    static void name##_push_back(train *w, int32_t s)                                    \
    {                                                                                    \
        w->x[s].prev_##name = w->name##_tail;                                            \
        w->next_##name[s] = -1;                                                          \
        if (w->name##_tail >= 0)                                                         \
            w->next_##name[w->name##_tail] = s;                                          \
        else                                                                             \
            w->name##_head = s;                                                          \
        w->name##_tail = s;                                                              \
        w->n_##name++;                                                                   \
    }                                                                                    \
    static void name##_remove(train *w, int32_t s)                                       \
    {                                                                                    \
        int32_t p = w->x[s].prev_##name, n = w->next_##name[s];                          \
        if (p >= 0)                                                                      \
            w->next_##name[p] = n;                                                       \
        else                                                                             \
            w->name##_head = n;                                                          \
        if (n >= 0)                                                                      \
            w->x[n].prev_##name = p;                                                     \
        else                                                                             \
            w->name##_tail = p;                                                          \
        w->n_##name--;                                                                   \
    }
LIST_FNS(active)
LIST_FNS(waiting)
#undef LIST_FNS

static void running_push_front(train *w, int32_t s)
{
    w->x[s].prev_running = -1;
    w->next_running[s] = w->running_head;
    if (w->running_head >= 0)
        w->x[w->running_head].prev_running = s;
    w->running_head = s;
    w->n_running++;
}

static void running_remove(train *w, int32_t s)
{
    int32_t p = w->x[s].prev_running, n = w->next_running[s];
    if (p >= 0)
        w->next_running[p] = n;
    else
        w->running_head = n;
    if (n >= 0)
        w->x[n].prev_running = p;
    w->n_running--;
}

/* ---------------------------------------------------------------- accounting */

static simtime now(const train *w) { return engine_now(w->eng); }

/* Bring the integrals up to `t`; call before n_active or any grant changes. */
static void account(train *w, simtime t)
{
    if (t <= w->acct_t)
        return;
    double dt = sim_to_sec(t - w->acct_t);
    double in = window_overlap(&w->win, sim_to_sec(w->acct_t), sim_to_sec(t));
    w->active_int += w->n_active * dt;
    for (int i = 0; i < w->ntypes; i++) {
        w->busy_int[i] += (double)w->busy_milli[i] * dt;
        w->win_busy[i] += (double)w->busy_milli[i] * in;
    }
    w->acct_t = t;
}

/* Credit a running job's progress and service up to `t`. */
static void settle(train *w, struct train_job *j, simtime t)
{
    if (j->state == JOB_RUNNING && t > j->updated) {
        simtime from = j->run_from > j->updated ? j->run_from : j->updated;
        double before = j->done;
        if (t > from)
            j->done += j->rate * sim_to_sec(t - from);
        if (j->done > j->work)
            j->done = j->work;
        double best = w->x[j->slot].best_rate;
        if (t > from && best > 0)
            w->win_norm += window_share(&w->win, sim_to_sec(from), sim_to_sec(t),
                                        (j->done - before) / best);
        double dt = sim_to_sec(t - j->updated), frac = j->share / 1000.0;
        j->attained += j->ngpu * frac * dt;
        struct jobx *x = &w->x[j->slot];
        for (int i = 0; i < j->ngpu; i++)
            x->gpu_s[cluster_type_slot(w->cl, cluster_gpu_type(w->cl, x->gpus[i]))] += frac * dt;
    }
    j->updated = t;
}

/* ---------------------------------------------------------------- timeline */

/* Write job j's open interval, [seg_from, t) on its current grant, ended by `ends` (enum
 * timeline_cause): a grant is restoring until run_from, then running (or shared).  Only with
 * sim.timeline (a segment sink). */
static int seg_close(train *w, const struct train_job *j, simtime t, int ends,
                     struct errbuf *err)
{
    if (w->sink.segment == NULL)
        return 0;
    const struct jobx *x = &w->x[j->slot];
    struct train_segment sg = { .trace_id = x->trace_id, .gpus = x->gpus, .ngpu = j->ngpu,
                                .share = j->share / 1000.0, .from = x->seg_from, .to = t,
                                .state = TL_QUEUED, .cause = x->seg_cause, .ends = ends };
    if (j->ngpu == 0)
        return sg.from < t ? w->sink.segment(w->sink.ctx, &sg, err) : 0;
    if (j->run_from > sg.from) {
        sg.to = j->run_from < t ? j->run_from : t;
        sg.state = TL_RESTORING;
        sg.ends = j->run_from < t ? TL_RESTORED : ends;
        if (sg.from < sg.to && w->sink.segment(w->sink.ctx, &sg, err) < 0)
            return -1;
        sg.from = sg.to;
        sg.to = t;
        sg.ends = ends;
    }
    sg.state = j->share < OCC_WHOLE ? TL_SHARED : TL_RUNNING;
    return sg.from < t ? w->sink.segment(w->sink.ctx, &sg, err) : 0;
}

static void seg_open(struct jobx *x, simtime t, int cause)
{
    x->seg_from = t;
    x->seg_cause = cause;
}

/* ---------------------------------------------------------------- rates */

/* ---------------------------------------------------------------- co-runners */

static int touch(train *w, int gpu)
{
    if (w->ntouched == w->captouched) {
        int nc = w->captouched ? 2 * w->captouched : 64;
        int *p = realloc(w->touched, (size_t)nc * sizeof *p);
        if (p == NULL)
            return -1;
        w->touched = p;
        w->captouched = nc;
    }
    w->touched[w->ntouched++] = gpu;
    return 0;
}

static int holders_add(train *w, int gpu, int32_t slot)
{
    struct holders *h = &w->hold[gpu];
    if (h->n == h->cap) {
        int nc = h->cap ? 2 * h->cap : 4;
        int32_t *p = realloc(h->slot, (size_t)nc * sizeof *p);
        if (p == NULL)
            return -1;
        h->slot = p;
        h->cap = nc;
    }
    h->slot[h->n++] = slot;
    return touch(w, gpu);
}

static int holders_remove(train *w, int gpu, int32_t slot)
{
    struct holders *h = &w->hold[gpu];
    for (int i = 0; i < h->n; i++)
        if (h->slot[i] == slot) {
            h->slot[i] = h->slot[--h->n];
            break;
        }
    return touch(w, gpu);
}

/* Job j's rate from the speed hook: its grant and, when they matter, its co-runners. */
static double rate_of(train *w, const struct train_job *j)
{
    struct train_speed_query q = { .job = j, .gpus = j->gpus, .ngpu = j->ngpu,
                                   .share = j->share };
    if (w->hold != NULL) {
        int n = 0;
        for (int i = 0; i < j->ngpu; i++)
            n += w->hold[j->gpus[i]].n - 1;
        if (n > w->capco) {
            struct train_corunner *p = realloc(w->co, (size_t)n * sizeof *p);
            if (p == NULL)
                return 0;           /* a job that cannot be rated makes no progress */
            w->co = p;
            w->capco = n;
        }
        for (int i = 0; i < j->ngpu; i++) {
            const struct holders *h = &w->hold[j->gpus[i]];
            for (int k = 0; k < h->n; k++) {
                const struct train_job *o = &w->jobs[h->slot[k]];
                if (o != j)
                    w->co[q.nco++] = (struct train_corunner){ o->jtype, o->batch, j->gpus[i],
                                                              o->share, o->sliced };
            }
        }
        q.co = w->co;
    }
    return w->speed->rate(w->speed, w->cl, w->model, &q);
}

/* ---------------------------------------------------------------- events */

static int push(train *w, simtime t, int kind, uint64_t arg, evq_handle *h, struct errbuf *err)
{
    if (engine_at(w->eng, t, (uint32_t)kind | w->tag, arg, h) < 0)
        return err_run(err, "out of memory (event queue)");
    return 0;
}

static void request(train *w, unsigned why)
{
    w->reason |= why & w->dec.wake;
}

static int work_left(const train *w)
{
    return w->n_active > 0 || w->have_pending;
}

/* Start the periodic events again after an idle stretch. */
static int wake_periodic(train *w, struct errbuf *err)
{
    if ((w->dec.wake & WAKE_ROUND) && !w->rounds_on) {
        w->rounds_on = 1;
        if (push(w, now(w), EV_ROUND, 0, NULL, err) < 0)
            return -1;
    }
    if (w->cfg.sample_period > 0 && !w->samples_on) {
        w->samples_on = 1;
        simtime p = w->cfg.sample_period, t = (now(w) / p + 1) * p;
        if (push(w, t, EV_SAMPLE, 0, NULL, err) < 0)
            return -1;
        for (int i = 0; i < w->ntypes; i++)
            w->sample_busy[i] = w->busy_int[i];
    }
    return 0;
}

static int grow_slots(train *w, struct errbuf *err)
{
    int32_t nc = w->cap ? w->cap * 2 : 1024;
    struct train_job *j = realloc(w->jobs, (size_t)nc * sizeof *j);
    if (j == NULL)
        return err_run(err, "out of memory (jobs)");
    w->jobs = j;
    struct jobx *x = realloc(w->x, (size_t)nc * sizeof *x);
    if (x == NULL)
        return err_run(err, "out of memory (jobs)");
    w->x = x;
    int32_t **lists[] = { &w->next_active, &w->next_waiting, &w->next_running };
    for (int k = 0; k < 3; k++) {
        int32_t *p = realloc(*lists[k], (size_t)nc * sizeof *p);
        if (p == NULL)
            return err_run(err, "out of memory (jobs)");
        *lists[k] = p;
    }
    uint8_t *g = realloc(w->granted, (size_t)nc);
    if (g == NULL)
        return err_run(err, "out of memory (jobs)");
    w->granted = g;
    uint32_t *st = realloc(w->stamp, (size_t)nc * sizeof *st);
    if (st == NULL)
        return err_run(err, "out of memory (jobs)");
    w->stamp = st;
    memset(w->stamp + w->cap, 0, (size_t)(nc - w->cap) * sizeof *w->stamp);
    memset(w->granted + w->cap, 0, (size_t)(nc - w->cap));
    memset(w->x + w->cap, 0, (size_t)(nc - w->cap) * sizeof *w->x);
    w->cap = nc;
    return 0;
}

int train_job_check(const cluster *cl, const tput *model, const struct job_spec *s,
                    struct errbuf *err)
{
    const char *f = s->origin ? s->origin : "workload";
    if (s->app != NULL)
        return err_input(err, f, s->line, "application", "job %s is an elastic application's "
                         "(%s): it runs in Pollux-compatible mode (\"mode\": \"pollux\")",
                         s->name ? s->name : "?", s->app);
    if (s->jtype < 0 || s->jtype >= tput_ntypes(model))
        return err_input(err, f, s->line, "job_type", "job %lld has no known job type",
                         (long long)s->id);
    const int *types;
    int ntypes = cluster_types(cl, &types), fits = 0;
    for (int i = 0; i < ntypes && !fits; i++)
        fits = cluster_type_count(cl, types[i]) >= s->workers;
    if (s->workers < 1 || !fits)
        return err_input(err, f, s->line, s->field ? s->field : "workers",
                         "job %lld asks for %d GPUs; no GPU type of cluster '%s' has that many",
                         (long long)s->id, s->workers, cluster_name(cl));
    /* elastic jobs: min_workers <= workers <= max_workers (0: both are workers) */
    int lo = s->min_workers > 0 ? s->min_workers : s->workers;
    int hi = s->max_workers > 0 ? s->max_workers : s->workers;
    if (s->min_workers < 0 || lo > s->workers)
        return err_input(err, f, s->line, "min_workers", "job %lld: min_workers %d must be "
                         ">= 1 and at most its %d workers", (long long)s->id, s->min_workers,
                         s->workers);
    if (s->max_workers < 0 || hi < s->workers)
        return err_input(err, f, s->line, "max_workers", "job %lld: max_workers %d must be at "
                         "least its %d workers", (long long)s->id, s->max_workers, s->workers);
    if (!(s->work > 0) || s->work > 1e18)
        return err_input(err, f, s->line, "work", "job %lld: work must be > 0", (long long)s->id);
    return 0;
}

static int read_next(train *w, struct errbuf *err)
{
    int rc = w->src->next(w->src->ctx, &w->pending, err);
    if (rc < 0)
        return -1;
    w->have_pending = rc > 0;
    if (!w->have_pending) {
        if (isinf(w->win.to))
            w->win.to = sim_to_sec(w->last_arrival);
        return 0;
    }
    const struct job_spec *s = &w->pending;
    if (s->arrival < w->last_arrival)
        return err_input(err, s->origin ? s->origin : "workload", s->line, "arrival",
                         "job %lld arrives at %.6f s, before the previous job (%.6f s): "
                         "arrivals must not decrease", (long long)s->id,
                         sim_to_sec(s->arrival), sim_to_sec(w->last_arrival));
    if (train_job_check(w->cl, w->model, s, err) < 0)
        return -1;
    w->last_arrival = s->arrival;
    return push(w, s->arrival, EV_ARRIVAL, 0, NULL, err);
}

/* Its throughput with its requested workers on each GPU type, placed as well as the cluster
 * allows, and on the fastest (the unit of normalized throughput), once at arrival. */
static void type_rates(const train *w, const struct train_job *j, struct jobx *x)
{
    struct train_view v = { .cl = w->cl, .model = w->model, .rates = w->rates,
                            .speed = w->speed };
    x->best_rate = 0;
    for (int i = 0; i < w->ntypes; i++) {
        x->type_rate[i] = train_view_rate(&v, j, w->types[i], j->workers);
        if (x->type_rate[i] > x->best_rate)
            x->best_rate = x->type_rate[i];
    }
}

static int on_arrival(train *w, struct errbuf *err)
{
    account(w, now(w));
    if (w->free_head < 0 && w->nused == w->cap && grow_slots(w, err) < 0)
        return -1;
    int32_t s;
    if (w->free_head >= 0) {
        s = w->free_head;
        w->free_head = w->next_active[s];
    } else {
        s = w->nused++;
    }
    const struct job_spec *sp = &w->pending;
    struct train_job *j = &w->jobs[s];
    struct jobx *x = &w->x[s];
    *j = (struct train_job){
        .id = w->next_id++, .slot = s, .jtype = sp->jtype, .workers = sp->workers,
        .min_workers = sp->min_workers > 0 ? sp->min_workers : sp->workers,
        .max_workers = sp->max_workers > 0 ? sp->max_workers : sp->workers,
        .batch = sp->batch,
        .user = sp->user, .weight = sp->weight, .arrival = sp->arrival, .work = sp->work,
        .state = JOB_QUEUED, .first_start = -1, .gpu_type = -1, .gpus = x->gpus,
        .updated = now(w), .last_grant = now(w),
    };
    x->finish_ev = EVQ_NONE;
    x->trace_id = sp->id;
    x->elastic = sp->min_workers > 0 || sp->max_workers > 0;
    seg_open(x, now(w), TL_ARRIVAL);
    type_rates(w, j, x);
    x->active_int_at_arrival = w->active_int;
    memset(x->gpu_s, 0, sizeof x->gpu_s);
    active_push_back(w, s);
    waiting_push_back(w, s);
    w->tot.jobs_in++;
    if (read_next(w, err) < 0 || wake_periodic(w, err) < 0)
        return -1;
    request(w, WAKE_ARRIVAL);
    return 0;
}

/* Best throughput from an exclusive 1/N share of every GPU type (models/fairshare.h). */
static double iso_rate(const train *w, const struct jobx *x, const struct train_job *j,
                       double n_avg)
{
    double cap[CLUSTER_MAX_TYPES];
    for (int i = 0; i < w->ntypes; i++)
        cap[i] = cluster_type_count(w->cl, w->types[i]);
    return fairshare_rate(x->type_rate, cap, w->ntypes, j->workers, n_avg);
}

static int emit(train *w, struct train_job *j, simtime finish, struct errbuf *err)
{
    struct jobx *x = &w->x[j->slot];
    struct train_record r = { .job = j, .trace_id = x->trace_id, .finish = finish,
                              .gpu_s = x->gpu_s, .rho = -1, .t_iso = -1,
                              .elastic = x->elastic };
    simtime life = (finish >= 0 ? finish : now(w)) - j->arrival;
    r.n_avg = life > 0 ? (w->active_int - x->active_int_at_arrival) / sim_to_sec(life)
                       : (double)w->n_active;
    if (r.n_avg < 1)
        r.n_avg = 1;
    r.best_rate = x->best_rate;
    double iso = iso_rate(w, x, j, r.n_avg);
    if (iso > 0) {
        r.t_iso = j->work / iso;
        if (finish >= 0)
            r.rho = sim_to_sec(finish - j->arrival) / r.t_iso;
    }
    return w->sink.job ? w->sink.job(w->sink.ctx, &r, err) : 0;
}

/* Give back what job j holds on its GPUs (occupancy, busy counts, its place among their
 * holders). */
static int release_gpus(train *w, struct train_job *j)
{
    struct jobx *x = &w->x[j->slot];
    occ_release(w->occ, x->gpus, j->ngpu, j->share);
    for (int i = 0; i < j->ngpu; i++) {
        w->busy_milli[cluster_type_slot(w->cl, cluster_gpu_type(w->cl, x->gpus[i]))] -= j->share;
        if (w->hold != NULL && holders_remove(w, x->gpus[i], j->slot) < 0)
            return -1;
    }
    return 0;
}

static int schedule_finish(train *w, struct train_job *j, struct errbuf *err);

/* Re-rate every holder of the GPUs whose holders changed (the speed hook's co-runners):
 * each is settled at the old rate up to now, then goes on at its new one. */
static int rerate(train *w, struct errbuf *err)
{
    if (w->hold == NULL || w->ntouched == 0)
        return 0;
    simtime t = now(w);
    w->stamp_now++;
    for (int k = 0; k < w->ntouched; k++) {
        const struct holders *h = &w->hold[w->touched[k]];
        for (int i = 0; i < h->n; i++) {
            int32_t s = h->slot[i];
            if (w->stamp[s] == w->stamp_now)
                continue;
            w->stamp[s] = w->stamp_now;
            struct train_job *j = &w->jobs[s];
            settle(w, j, t);
            j->rate = rate_of(w, j);
            if (schedule_finish(w, j, err) < 0)
                return -1;
        }
    }
    w->ntouched = 0;
    return 0;
}

static int release_grant(train *w, struct train_job *j)
{
    if (j->ngpu == 0)
        return 0;
    if (release_gpus(w, j) < 0)
        return -1;
    j->ngpu = 0;
    j->gpu_type = -1;
    j->share = 0;
    j->sliced = 0;
    j->rate = 0;
    return 0;
}

static int on_finish(train *w, int32_t s, struct errbuf *err)
{
    struct train_job *j = &w->jobs[s];
    simtime t = now(w);
    account(w, t);
    settle(w, j, t);
    j->done = j->work;
    w->x[s].finish_ev = EVQ_NONE;
    if (seg_close(w, j, t, TL_FINISH, err) < 0)
        return -1;
    if (release_grant(w, j) < 0 || rerate(w, err) < 0)
        return err_run(err, "out of memory");
    running_remove(w, s);
    active_remove(w, s);
    j->state = JOB_DONE;
    w->tot.jobs_done++;
    w->tot.makespan = t;
    w->tot.preemptions += j->preemptions;
    w->tot.migrations += j->migrations;
    if (emit(w, j, t, err) < 0)
        return -1;
    w->next_active[s] = w->free_head;       /* recycle the slot */
    w->free_head = s;
    request(w, WAKE_COMPLETION);
    return 0;
}

static double restore_s(const train *w, int jtype)
{
    if (w->cfg.restore_by_type != NULL && w->cfg.restore_by_type[jtype] >= 0)
        return w->cfg.restore_by_type[jtype];
    return train_view_restore_for(w->model, jtype, w->cfg.restore_delay_s,
                                  w->cfg.restore_fixed_s, w->cfg.storage_gbs);
}

static int schedule_finish(train *w, struct train_job *j, struct errbuf *err)
{
    struct jobx *x = &w->x[j->slot];
    engine_cancel(w->eng, x->finish_ev);
    x->finish_ev = EVQ_NONE;
    if (j->state != JOB_RUNNING || !(j->rate > 0))
        return 0;
    simtime from = j->run_from > now(w) ? j->run_from : now(w);
    simtime dt = sim_from_sec_ceil((j->work - j->done) / j->rate);
    simtime t = dt >= SIM_NEVER - from ? SIM_NEVER : from + dt;
    return push(w, t, EV_FINISH, (uint64_t)j->slot, &x->finish_ev, err);
}

/* Check a grant list against the world before anything changes (grant.c, shared with the
 * policy layers that check a list before they return it). */
static int validate(train *w, struct grant_list *l, struct errbuf *err)
{
    if (grant_check(l, w->jobs, w->nused, cluster_ngpus(w->cl), w->granted, err) < 0)
        return -1;
    if (w->withheld == NULL)
        return 0;
    for (size_t k = 0; k < l->n; k++) {
        const struct grant *g = &l->g[k];
        for (int i = 0; i < g->ngpu; i++)
            if (w->withheld[grant_ids(l, g)[i]])
                return err_run(err, "policy granted job %lld GPU %d, which the broker has "
                               "given to another tenant (a policy must plan on the GPUs its "
                               "view leaves it, train_view_type_cap and the view's base: see "
                               "doc/colocate.md)",
                               (long long)w->jobs[g->slot].id, grant_ids(l, g)[i]);
    }
    return 0;
}

/* Install a changed grant.  A running job's old GPUs were already released. */
static int set_grant(train *w, struct train_job *j, const int *ids, int n, int share,
                     int32_t batch, int sliced, struct errbuf *err)
{
    if (batch > 0)
        j->batch = batch;               /* settled at the old batch by apply */
    struct jobx *x = &w->x[j->slot];
    simtime t = now(w);
    int was_running = j->state == JOB_RUNNING;
    int same_gpus = was_running && j->ngpu == n &&
                    memcmp(x->gpus, ids, (size_t)n * sizeof *ids) == 0;
    if (w->sink.segment != NULL) {
        int cause = n == 0            ? TL_PREEMPT
                    : same_gpus       ? TL_RESHARE
                    : was_running     ? (j->ngpu != n ? TL_RESIZE : TL_MIGRATE)
                    : j->first_start < 0 ? TL_START
                                         : TL_RESUME;
        if (seg_close(w, j, t, cause, err) < 0)
            return -1;
        seg_open(x, t, cause);
    }
    j->last_grant = t;
    j->sliced = (uint8_t)(n > 0 && sliced);
    if (n == 0) {                           /* preempt */
        j->ngpu = 0;
        j->gpu_type = -1;
        j->share = 0;
        j->rate = 0;
        running_remove(w, j->slot);
        waiting_push_back(w, j->slot);
        j->state = JOB_PREEMPTED;
        j->preemptions++;
        return schedule_finish(w, j, err);
    }
    if (n > x->gcap) {
        int nc = n < 8 ? 8 : n;
        int *p = realloc(x->gpus, (size_t)nc * sizeof *p);
        if (p == NULL)
            return err_run(err, "out of memory");
        x->gpus = p;
        x->gcap = nc;
    }
    j->gpus = x->gpus;
    memcpy(x->gpus, ids, (size_t)n * sizeof *ids);
    j->ngpu = n;
    j->share = (uint16_t)share;
    j->gpu_type = cluster_gpu_type(w->cl, ids[0]);
    occ_take(w->occ, ids, n, share);
    for (int i = 0; i < n; i++) {
        w->busy_milli[cluster_type_slot(w->cl, cluster_gpu_type(w->cl, ids[i]))] += share;
        if (w->hold != NULL && holders_add(w, ids[i], j->slot) < 0)
            return err_run(err, "out of memory");
    }
    /* with co-runners, every holder of the GPUs it joined is rated once the whole decision
     * is in (rerate), so that it sees its final co-runners */
    j->rate = w->hold == NULL ? rate_of(w, j) : 0;
    if (same_gpus) {
        /* only the share changed: no restart, progress goes on at the new rate */
        if (j->run_from < t)
            j->run_from = t;
    } else if (j->first_start < 0) {
        j->first_start = t;
        j->run_from = t;
    } else {
        /* resuming after preemption, or moving / resizing while running */
        j->run_from = t + sim_from_sec(restore_s(w, j->jtype));
        if (was_running)
            j->migrations++;
    }
    if (!was_running) {
        waiting_remove(w, j->slot);
        running_push_front(w, j->slot);
    }
    j->state = JOB_RUNNING;
    return schedule_finish(w, j, err);
}

/* With a memory model: the holders of every shared GPU that changed fit in its memory (a
 * job alone is the throughput model's business: a measured table may say it runs).
 * O(holders of those GPUs). */
static int check_memory(train *w, struct errbuf *err)
{
    const catalog *cat = cluster_catalog(w->cl);
    for (int k = 0; k < w->ntouched; k++) {
        int gpu = w->touched[k];
        const struct holders *h = &w->hold[gpu];
        if (h->n < 2)
            continue;
        double used = 0, cap = catalog_gpu(cat, cluster_gpu_type(w->cl, gpu))->mem_gb;
        for (int i = 0; i < h->n; i++) {
            const struct train_job *j = &w->jobs[h->slot[i]];
            used += w->speed->mem_gb(w->speed, w->model, j->jtype, j->batch);
        }
        if (used > cap + 1e-9)
            return err_run(err, "policy over-committed GPU %d: its %d jobs need %.2f GB of its "
                           "%.0f GB", gpu, h->n, used, cap);
    }
    return 0;
}

static int apply(train *w, struct grant_list *l, struct errbuf *err)
{
    int rc = validate(w, l, err);
    if (rc == 0 && l->full)             /* preempt running jobs the list leaves out */
        for (int32_t s = w->running_head; s >= 0 && rc == 0; s = w->next_running[s])
            if (!w->granted[s] && grant_preempt(l, s) < 0)
                rc = err_run(err, "out of memory");
    grant_check_clear(l, w->nused, w->granted);    /* marks are only needed up to here */
    simtime t = now(w);
    account(w, t);
    /* drop the grants that stay as they are; release the old GPUs of the others first, so a
     * job may move onto GPUs that another job leaves in the same decision */
    size_t nchanged = 0;
    for (size_t k = 0; k < l->n && rc == 0; k++) {
        struct grant *g = &l->g[k];
        struct train_job *j = &w->jobs[g->slot];
        if (grant_same(j, grant_ids(l, g), g->ngpu, g->share, g->batch, g->sliced))
            continue;
        l->g[nchanged++] = *g;
        settle(w, j, t);
        if (j->state == JOB_RUNNING)
            rc = release_gpus(w, j) < 0 ? err_run(err, "out of memory") : 0;
    }
    /* a failed check leaves the world half-changed, but the run fails with it */
    for (size_t k = 0; k < nchanged && rc == 0; k++) {
        const struct grant *g = &l->g[k];
        if (g->ngpu > 0 && !occ_fits(w->occ, l->ids + g->first, g->ngpu, g->share))
            rc = err_run(err, "policy over-allocated: job %lld was granted GPU %d beyond its "
                              "capacity", (long long)w->jobs[g->slot].id, l->ids[g->first]);
        else
            rc = set_grant(w, &w->jobs[g->slot], grant_ids(l, g), g->ngpu, g->share,
                           g->batch, g->sliced, err);
    }
    if (rc == 0 && w->speed->mem_gb != NULL)
        rc = check_memory(w, err);
    /* the co-runners of every GPU that gained or lost a job go on at their new rates */
    return rc == 0 ? rerate(w, err) : rc;
}

static void fill_view(const train *w, struct train_view *v)
{
    *v = (struct train_view){
        .now = now(w), .reason = w->reason, .cl = w->cl, .occ = w->occ, .model = w->model,
        .rates = w->rates,
        .jobs = w->jobs, .active_head = w->active_head, .waiting_head = w->waiting_head,
        .running_head = w->running_head, .n_active = w->n_active, .n_waiting = w->n_waiting,
        .n_running = w->n_running, .next_active = w->next_active,
        .next_waiting = w->next_waiting, .next_running = w->next_running,
        .round = (w->dec.wake & WAKE_ROUND) ? w->dec.round : 0, .round_index = w->round_index,
        .restore_delay_s = w->cfg.restore_delay_s, .restore_fixed_s = w->cfg.restore_fixed_s,
        .storage_gbs = w->cfg.storage_gbs, .speed = w->speed,
        .restore_by_type = w->cfg.restore_by_type,
        .base = w->nwithheld > 0 ? w->base : NULL, .base_epoch = w->base_epoch,
    };
}

/* The allocation a round's decision made: GPUs granted per type, jobs running — recorded
 * when it differs from the last round's (a step function: a value holds until the next). */
static int round_samples(train *w, struct errbuf *err)
{
    if (w->sink.sample == NULL)
        return 0;
    const catalog *cat = cluster_catalog(w->cl);
    char name[64];
    for (int i = 0; i <= w->ntypes; i++) {
        double v = i < w->ntypes ? w->busy_milli[i] / 1000.0 : (double)w->n_running;
        if (w->round_logged && v == w->round_last[i])
            continue;
        w->round_last[i] = v;
        if (i < w->ntypes)
            snprintf(name, sizeof name, "round_gpus_%s", catalog_gpu(cat, w->types[i])->name);
        else
            snprintf(name, sizeof name, "round_jobs_running");
        if (w->sink.sample(w->sink.ctx, now(w), name, v, err) < 0)
            return -1;
    }
    w->round_logged = 1;
    return 0;
}

static int on_instant_end(void *ctx, struct errbuf *err)
{
    train *w = ctx;
    if (w->reason == 0)
        return ENGINE_CONTINUE;
    if (w->n_active == 0) {
        w->reason = 0;
        return ENGINE_CONTINUE;
    }
    struct train_view v;
    fill_view(w, &v);
    w->reason = 0;
    grant_list_reset(&w->grants);
    w->tot.decisions++;
    if (w->dec.decide(w->dec.ctx, &v, &w->grants, err) < 0 || apply(w, &w->grants, err) < 0)
        return ENGINE_FAIL;
    /* Every GPU idle, nothing to arrive, jobs waiting, and the policy starts none of them:
     * what it will see next differs from this view only by the clock (e.g. a fixed-size
     * policy whose job runs on no GPU type at its size).  After STALL_DECISIONS such decisions
     * in a row over STALL_S of simulated time, the run stops ("stalled"), its waiting jobs
     * unfinished, instead of deciding the same thing until a limit. */
    if (!w->have_pending && w->n_running == 0 && w->n_active > 0 && w->nwithheld == 0) {
        if (w->stall_decisions++ == 0)
            w->stall_since = now(w);
        if (w->stall_decisions >= STALL_DECISIONS &&
            now(w) - w->stall_since >= sim_from_sec(STALL_S)) {
            w->stalled = 1;
            return ENGINE_STOP;
        }
    } else {
        w->stall_decisions = 0;
    }
    if ((v.reason & WAKE_ROUND) && w->cfg.round_samples && round_samples(w, err) < 0)
        return ENGINE_FAIL;
    if (w->sink.tick != NULL)
        w->sink.tick(w->sink.ctx, now(w), engine_events(w->eng));
    if (w->grants.wake_at > now(w)) {
        engine_cancel(w->eng, w->timer);
        if (push(w, w->grants.wake_at, EV_TIMER, 0, &w->timer, err) < 0)
            return ENGINE_FAIL;
    }
    return ENGINE_CONTINUE;
}

static int on_round(train *w, struct errbuf *err)
{
    if (!work_left(w)) {
        w->rounds_on = 0;
        return 0;
    }
    w->round_index++;
    if (push(w, now(w) + w->dec.round, EV_ROUND, 0, NULL, err) < 0)
        return -1;
    request(w, WAKE_ROUND);
    return 0;
}

static int on_sample(train *w, struct errbuf *err)
{
    simtime t = now(w);
    account(w, t);
    double period = sim_to_sec(w->cfg.sample_period);
    const catalog *cat = cluster_catalog(w->cl);
    char name[64];
    if (w->sink.sample) {
        double busy = 0, total = 0;
        for (int i = 0; i < w->ntypes; i++) {
            double b = (w->busy_int[i] - w->sample_busy[i]) / 1000.0 / period;
            int cnt = cluster_type_count(w->cl, w->types[i]);
            snprintf(name, sizeof name, "util_%s", catalog_gpu(cat, w->types[i])->name);
            if (w->sink.sample(w->sink.ctx, t, name, b / cnt, err) < 0)
                return -1;
            busy += b;
            total += cnt;
        }
        if (w->sink.sample(w->sink.ctx, t, "util_total", busy / total, err) < 0 ||
            w->sink.sample(w->sink.ctx, t, "queue_len", w->n_waiting, err) < 0 ||
            w->sink.sample(w->sink.ctx, t, "running_jobs", w->n_running, err) < 0)
            return -1;
    }
    for (int i = 0; i < w->ntypes; i++)
        w->sample_busy[i] = w->busy_int[i];
    if (!work_left(w)) {
        w->samples_on = 0;
        return 0;
    }
    return push(w, t + w->cfg.sample_period, EV_SAMPLE, 0, NULL, err);
}

static int handle(void *ctx, const struct evq_event *ev, struct errbuf *err)
{
    train *w = ctx;
    int rc;
    w->nevents++;
    switch (ev->kind) {
    case EV_ARRIVAL: rc = on_arrival(w, err); break;
    case EV_FINISH:  rc = on_finish(w, (int32_t)ev->arg, err); break;
    case EV_ROUND:   rc = on_round(w, err); break;
    case EV_SAMPLE:  rc = on_sample(w, err); break;
    case EV_TIMER:   w->reason |= WAKE_TIMER; w->timer = EVQ_NONE; rc = 0; break;
    default:
        assert(!"unknown event kind");
        rc = -1;
    }
    return rc < 0 ? ENGINE_FAIL : ENGINE_CONTINUE;
}

/* ---------------------------------------------------------------- lifecycle */

int train_create(train **out, const cluster *cl, const tput *model,
                 const struct train_config *cfg, struct entity_source *src,
                 const struct train_decider *dec, const struct train_sink *sink,
                 struct errbuf *err)
{
    *out = NULL;
    if ((dec->wake & WAKE_ROUND) && dec->round <= 0)
        return err_input(err, NULL, 0, "round_s", "a round-based policy needs a round > 0");
    train *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->cl = cl;
    w->model = model;
    w->cfg = *cfg;
    w->speed = cfg->speed != NULL ? cfg->speed : &train_speed_rigid;
    if (w->speed->corunners &&
        (w->hold = calloc((size_t)cluster_ngpus(cl) + 1, sizeof *w->hold)) == NULL) {
        free(w);
        return err_run(err, "out of memory");
    }
    w->src = src;
    w->dec = *dec;
    w->sink = *sink;
    w->ntypes = cluster_types(cl, &w->types);
    w->active_head = w->active_tail = w->waiting_head = w->waiting_tail = -1;
    w->running_head = w->free_head = -1;
    grant_list_init(&w->grants);
    w->occ = occ_create(cl);
    w->rates = rate_memo_create(cl, model);
    if (w->occ == NULL || w->rates == NULL || grow_slots(w, err) < 0) {
        train_destroy(w);
        return err_run(err, "out of memory");
    }
    *out = w;
    return 0;
}

void train_destroy(train *w)
{
    if (w == NULL)
        return;
    for (int32_t s = 0; s < w->cap && w->x; s++)
        free(w->x[s].gpus);
    free(w->jobs);
    free(w->x);
    free(w->next_active);
    free(w->next_waiting);
    free(w->next_running);
    free(w->granted);
    free(w->stamp);
    if (w->hold != NULL)
        for (int g = 0; g < cluster_ngpus(w->cl); g++)
            free(w->hold[g].slot);
    free(w->hold);
    free(w->touched);
    free(w->co);
    free(w->withheld);
    occ_destroy(w->base);
    grant_list_fini(&w->grants);
    occ_destroy(w->occ);
    rate_memo_destroy(w->rates);
    engine_destroy(w->own);
    free(w);
}

/* ---------------------------------------------------------------- tenancy */

/* The restart a job pays when it resumes after a preemption or a resize, in GPU-seconds at
 * the size it resumes at. */
static double restart_gpu_s(const train *w, const struct train_job *j, int ngpu)
{
    return restore_s(w, j->jtype) * ngpu;
}

/* How many of job j's GPUs are marked in `mark`. */
static int marked(const struct train_job *j, const uint8_t *mark)
{
    int k = 0;
    for (int i = 0; i < j->ngpu; i++)
        k += mark[j->gpus[i]];
    return k;
}

/* Would job j, losing k of its GPUs, shrink (an elastic job left at or above its minimum, on
 * whole GPUs) rather than be preempted? */
static int shrinks(const struct train_job *j, int k)
{
    return j->ngpu - k >= j->min_workers && j->ngpu - k > 0 && j->share == OCC_WHOLE;
}

double train_reclaim_cost(train *w, const int *gpus, int n)
{
    uint8_t *mark = calloc((size_t)cluster_ngpus(w->cl), 1);
    if (mark == NULL)
        return INFINITY;
    for (int i = 0; i < n; i++)
        mark[gpus[i]] = 1;
    double cost = 0;
    for (int32_t s = w->running_head; s >= 0; s = w->next_running[s]) {
        const struct train_job *j = &w->jobs[s];
        int k = marked(j, mark);
        if (k > 0)
            cost += restart_gpu_s(w, j, shrinks(j, k) ? j->ngpu - k : j->ngpu);
    }
    free(mark);
    return cost;
}

int train_withhold(train *w, const int *gpus, int n, int64_t *affected, struct errbuf *err)
{
    int ng = cluster_ngpus(w->cl);
    *affected = 0;
    if (w->withheld == NULL) {
        w->withheld = calloc((size_t)ng, 1);
        w->base = occ_create(w->cl);
        if (w->withheld == NULL || w->base == NULL)
            return err_run(err, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (gpus[i] < 0 || gpus[i] >= ng || w->withheld[gpus[i]])
            return err_run(err, "broker withheld GPU %d, which the training world does not "
                           "hold", gpus[i]);
        w->withheld[gpus[i]] = 1;
    }
    /* the jobs on them: shrink the elastic ones that can, preempt the others (a DELTA list
     * through the policy's path: the restore on resume and the timeline come with it) */
    grant_list_reset(&w->grants);
    int *left = NULL, cap = 0, rc = 0;
    for (int32_t s = w->running_head; s >= 0 && rc == 0; s = w->next_running[s]) {
        const struct train_job *j = &w->jobs[s];
        int k = marked(j, w->withheld);
        if (k == 0)
            continue;
        (*affected)++;
        if (!shrinks(j, k)) {
            rc = grant_preempt(&w->grants, s);
            continue;
        }
        if (j->ngpu > cap) {
            int *p = realloc(left, (size_t)j->ngpu * sizeof *p);
            if (p == NULL) {
                rc = -1;
                break;
            }
            left = p;
            cap = j->ngpu;
        }
        int m = 0;
        for (int i = 0; i < j->ngpu; i++)
            if (!w->withheld[j->gpus[i]])
                left[m++] = j->gpus[i];
        rc = grant_add(&w->grants, s, left, m, j->share);
    }
    free(left);
    if (rc < 0)
        return err_run(err, "out of memory");
    /* the GPUs newly withheld are not in occ yet: apply sees them as the policy's GPUs, which
     * is what a shrunk job keeps (never a withheld one) */
    for (int i = 0; i < n; i++)
        w->withheld[gpus[i]] = 0;
    rc = apply(w, &w->grants, err);
    for (int i = 0; i < n; i++)
        w->withheld[gpus[i]] = 1;
    if (rc < 0)
        return -1;
    occ_take(w->occ, gpus, n, OCC_WHOLE);
    occ_take(w->base, gpus, n, OCC_WHOLE);
    w->nwithheld += n;
    w->base_epoch++;
    w->reclaimed_jobs += *affected;
    /* what the policy decides next sees the cluster without them */
    w->reason |= w->dec.wake & (WAKE_ARRIVAL | WAKE_COMPLETION);
    engine_touch(w->eng, w->tag);
    return 0;
}

int train_give(train *w, const int *gpus, int n, struct errbuf *err)
{
    for (int i = 0; i < n; i++)
        if (w->withheld == NULL || gpus[i] < 0 || gpus[i] >= cluster_ngpus(w->cl) ||
            !w->withheld[gpus[i]])
            return err_run(err, "broker gave GPU %d, which the training world was not "
                           "denied", gpus[i]);
    for (int i = 0; i < n; i++)
        w->withheld[gpus[i]] = 0;
    occ_release(w->occ, gpus, n, OCC_WHOLE);
    occ_release(w->base, gpus, n, OCC_WHOLE);
    w->nwithheld -= n;
    w->base_epoch++;
    w->reason |= w->dec.wake & (WAKE_ARRIVAL | WAKE_COMPLETION);
    engine_touch(w->eng, w->tag);
    return 0;
}

void train_type_gain(const train *w, double *gain)
{
    for (int t = 0; t < w->ntypes; t++)
        gain[t] = 0;
    int n = 0;
    for (int32_t s = w->active_head; s >= 0; s = w->next_active[s]) {
        const struct jobx *x = &w->x[s];
        if (!(x->best_rate > 0))
            continue;
        for (int t = 0; t < w->ntypes; t++)
            gain[t] += x->type_rate[t] / x->best_rate;
        n++;
    }
    for (int t = 0; t < w->ntypes && n > 0; t++)
        gain[t] /= n;
}

int train_waiting_gpus(const train *w)
{
    int64_t n = 0;
    for (int32_t s = w->waiting_head; s >= 0; s = w->next_waiting[s])
        n += w->jobs[s].min_workers;
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

int train_attach(train *w, engine *e, struct errbuf *err)
{
    if (w->eng != NULL)
        return err_run(err, "training world attached twice");
    if (engine_attach(e, handle, on_instant_end, w, &w->tag) < 0)
        return err_run(err, "more than %d worlds on one engine", ENGINE_MAX_CLIENTS);
    w->eng = e;
    memset(&w->tot, 0, sizeof w->tot);
    int explicit_window = w->cfg.measure.to > w->cfg.measure.from;
    /* the default window: nothing is measured before the first arrival is known, and its
     * end is set when the source is drained (read_next) */
    w->win = explicit_window ? w->cfg.measure : (struct window){ INFINITY, INFINITY };
    if (read_next(w, err) < 0)
        return -1;
    if (!explicit_window && w->have_pending)
        w->win.from = sim_to_sec(w->pending.arrival);
    return 0;
}

int train_finish(train *w, int stop, struct train_totals *out, struct errbuf *err)
{
    if (stop == ENGINE_FAILED)
        return -1;
    if (w->stalled)
        stop = ENGINE_STALLED;
    simtime t = engine_now(w->eng);
    account(w, t);
    /* jobs still active when a limit stopped the run leave unfinished */
    for (int32_t s = w->active_head; s >= 0; s = w->next_active[s]) {
        settle(w, &w->jobs[s], t);
        if (seg_close(w, &w->jobs[s], t, TL_STOP, err) < 0 ||
            emit(w, &w->jobs[s], -1, err) < 0)
            return -1;
    }
    w->tot.end = t;
    w->tot.stop = stop;
    w->tot.events = w->nevents;
    for (int i = 0; i < w->ntypes; i++) {
        w->tot.busy_gpu_s[i] = w->busy_int[i] / 1000.0;
        w->tot.window_busy_gpu_s[i] = w->win_busy[i] / 1000.0;
    }
    w->tot.window = w->win;
    if (w->tot.window.to > sim_to_sec(t))       /* what was not simulated is not measured */
        w->tot.window.to = sim_to_sec(t);
    w->tot.window_norm_s = w->win_norm;
    *out = w->tot;
    return 0;
}

int train_run(train *w, struct train_totals *out, struct errbuf *err)
{
    if (w->own == NULL && (w->own = engine_create(1024)) == NULL)
        return err_run(err, "out of memory");
    if (train_attach(w, w->own, err) < 0)
        return -1;
    struct engine_limits lim = { w->cfg.until, w->cfg.max_events };
    return train_finish(w, engine_advance(w->own, &lim, err), out, err);
}
