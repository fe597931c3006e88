/*
 * pollux: Pollux's simulator mechanism, step by step (petuum/adaptdl osdi21-artifact
 * @c793c70, simulator/simulator.py, as `python3 simulator.py WORKLOAD --policy P` runs it
 * with its defaults: 60 s interval, no interference, no autoscaling).
 *
 * The clock starts at 0 and moves one tick (60 s) per loop until every job has completed;
 * ticks while no job is active are skipped, as nothing happens in them.  Each tick:
 *  1. every job holding GPUs runs for the tick (Job.step):
 *     a. the restart penalty left (rescale_time) passes first: no progress, but its GPUs
 *        count as attained service;
 *     b. then, until the tick is used up or the job completes: its placement is the run
 *        lengths of its allocation list ([3, 3, 5] -> (2, 1)), r its GPUs; the batch is
 *        B = r * atomic * (accum + 1), scale = B / init batch; the step and sync time of the
 *        placement at the atomic batch (models/elastic.h), the gradient statistics of B at
 *        the current epoch, gain = (var + sqr) / (var / scale + sqr), and goodput = gain /
 *        (step + (step - sync) * accum);
 *     c. if progress + goodput * left stays below the progress at the end of the epoch, it
 *        all goes to progress; otherwise the epoch ends after delta = round((boundary -
 *        progress) / goodput) seconds (Python's round: half to even), the epoch count
 *        rises, and when it passes the completion epoch the job completes at now + delta;
 *     d. the batch rules are applied again between epochs (Job.update_local_bsz: with a fixed
 *        target batch they give the same atomic batch and accumulation);
 *  2. the clock moves on by the tick;
 *  3. jobs whose submission time is at or before the new time join (in workload order);
 *     completed jobs leave with their GPUs;
 *  4. if any job is active, the policy gets them (in workload order) with their current
 *     allocation lists and the nodes' GPU counts, and returns new lists;
 *  5. each job whose list changed is reallocated (Job.reallocate): a non-empty list sets its
 *     placement and batch (local = ceil(B / r - 1e-8), accum, atomic: elastic_batch_fixed
 *     with Job's r = 1 rule) and a restart penalty of 30 s, counting a restart after the
 *     first start; an empty list takes its GPUs away at once.
 * JCT = completion - submission.  The batch B is the trace's batch_size (Tiresias and
 * Optimus fix it), unless the policy's jobs choose theirs (adaptive_batch, the pollux
 * policy): then each job runs Pollux's agent (simulator.py's Job with no target batch; ncf
 * keeps the 32768 its application fixes):
 *  - in 1b, every step taken records the job's gradient statistics, and the first step at a
 *    (nodes, replicas, atomic batch) not seen before adds (step, sync) to its observations
 *    and refits its throughput model on all of them (models/goodput.h: goodput_fit);
 *  - in 1d and 5, with a model: the batch and accumulation goodput_optimize picks for the
 *    placement within the application's limits (B0 to max batch, min to max local batch,
 *    accumulation allowed); before any observation: the fixed rules at B = max(B0, min local
 *    batch x r); in both cases the atomic batch capped at max batch / (r (accum + 1)).
 *  The policy sees each job's model, statistics and most replicas observed (elastic_job).
 * The timeline (sink.segment): a job is queued from its submission to its first list, and
 * after a list is taken away (preempt); each list is an interval on GPUs that Pollux does not
 * name (it counts GPUs per node), so the world gives a list the lowest free GPUs of its
 * nodes, kept until the list changes; restoring for restart_s from the decision, running
 * after, to its completion (finish), its next list (migrate: as many GPUs; resize: another
 * count; preempt) or the run's end (stop).  Its GPU-seconds are the attained service, as
 * Job.step counts the penalty.
 * Arithmetic is in double seconds as in Pollux; the clock is a whole number of seconds
 * plus the jobs' fractional submission times.  Cost per tick: O(jobs) steps, each O(epochs
 * crossed) memoized profile lookups, plus the policy.
 */
#include "pollux.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/goodput.h"
#include "../base/grow.h"
#include "../core/engine.h"
#include "../core/timeline.h"

struct pjob {
    int64_t            id;              /* index in the workload */
    char               name[256];
    int                app;
    const elastic_app *prof;
    double             submit;
    int                target_r, target_b;
    double             completion;      /* < 0 until complete */
    double             rescale;         /* restart penalty left, seconds */
    int32_t           *alloc;           /* node of each GPU */
    int                nalloc, capalloc;
    int                place[128];      /* run lengths of alloc */
    int                nplace;
    struct elastic_batch batch;
    double             progress;
    int                epoch;
    double             attained;
    int                restarts;        /* -1 before the first start (Pollux's None) */
    /* Pollux's agent (adaptive batches only) */
    int                adaptive;
    struct goodput_obs *obs;            /* one per (nodes, replicas, atomic) observed */
    int                nobs, capobs, max_profiled, has_perf;
    int                last_bsz;        /* the global batch of its last step (its row's) */
    struct goodput_perf perf;
    struct goodput_grad grad;
    /* for the database */
    double             first_start;
    int                preemptions, migrations;
    double             active_at_arrival;
    const char        *origin;
    long               line;
    /* the timeline (sink.segment set): the open interval, from tl_from, begun by tl_cause;
     * a grant (tl_ngpu > 0, the GPU ids in gpu) restores for restart_s, then runs */
    int               *gpu;
    int                tl_ngpu, capgpu;
    double             tl_from;
    int                tl_cause;
};

struct pw {
    const cluster          *cl;
    const elastic          *apps;
    int                     gpu;
    struct pollux_config    cfg;
    struct entity_source   *src;
    struct train_decider    dec;
    struct train_sink       sink;
    double                  tick_s;
    int32_t                *node_gpus, *node_type;
    int                     nnodes;
    struct pjob           **act;        /* arrived, unfinished, in workload order */
    int                     nact, capact;
    struct elastic_job     *view_jobs;
    struct elastic_alloc    ans;
    struct job_spec         pending;
    int                     have_pending;
    simtime                 last_arrival;
    double                  now;
    /* accounting */
    double                  active_int, acct_t;
    struct window           win;
    double                  win_norm, win_busy, busy;
    double                  next_sample;
    struct train_totals     tot;
    unsigned char          *held;       /* timeline: each GPU held by some job */
};

int pollux_cluster_gpu(const cluster *cl, const elastic *apps, struct errbuf *err)
{
    const int *types;
    int nt = cluster_types(cl, &types);
    const catalog *cat = cluster_catalog(cl);
    if (nt != 1)
        return err_input(err, NULL, 0, "cluster", "Pollux-compatible mode simulates one GPU "
                         "type, as Pollux's simulator does; cluster '%s' has %d", cluster_name(cl),
                         nt);
    for (int n = 0; n < cluster_nnodes(cl); n++)
        if (cluster_node(cl, n)->ngpus > 9)
            return err_input(err, NULL, 0, "cluster", "node %d of cluster '%s' has %d GPUs: "
                             "Pollux names placements by one digit per node (at most 9)", n,
                             cluster_name(cl), cluster_node(cl, n)->ngpus);
    int any = 0;
    for (int a = 0; a < elastic_napps(apps) && !any; a++)
        any = elastic_get(apps, a, types[0]) != NULL;
    if (!any)
        return err_input(err, NULL, 0, "models.elastic", "no elastic application has a profile "
                         "on %s (the shipped Pollux profiles are T4's)",
                         catalog_gpu(cat, types[0])->name);
    return types[0];
}

int pollux_job_check(const cluster *cl, const elastic *apps, int gpu,
                     const struct job_spec *s, struct errbuf *err)
{
    const char *f = s->origin ? s->origin : "workload";
    char hint[96];
    if (s->app == NULL)
        return err_input(err, f, s->line, "job_type", "job %lld is not an elastic "
                         "application's: Pollux-compatible mode reads the \"pollux\" workload "
                         "format", (long long)s->id);
    int a = elastic_find(apps, s->app);
    if (a < 0)
        return err_input(err, f, s->line, "application", "unknown application '%s'%s: "
                         "models.elastic lists the known ones", s->app,
                         elastic_hint(apps, s->app, hint, sizeof hint));
    const elastic_app *p = elastic_get(apps, a, gpu);
    if (p == NULL)
        return err_input(err, f, s->line, "application", "'%s' has no profile on %s", s->app,
                         catalog_gpu(cluster_catalog(cl), gpu)->name);
    const struct elastic_limits *l = elastic_limits(p);
    int lo = elastic_bsz(p, 0), hi = elastic_bsz(p, elastic_nbsz(p) - 1);
    if (s->batch < lo || s->batch > hi || s->batch < l->min_local_bsz)
        return err_input(err, f, s->line, "batch_size", "%d is outside %s's validated batch "
                         "sizes %d to %d", s->batch, s->app, lo, hi);
    if (s->workers < 1 || s->workers > cluster_ngpus(cl))
        return err_input(err, f, s->line, "num_replicas", "job %s asks for %d GPUs; cluster "
                         "'%s' has %d", s->name ? s->name : "?", s->workers, cluster_name(cl),
                         cluster_ngpus(cl));
    return 0;
}

static void account(struct pw *w, double t)
{
    if (t > w->acct_t) {
        w->active_int += w->nact * (t - w->acct_t);
        w->acct_t = t;
    }
}

static int read_pending(struct pw *w, struct errbuf *err)
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
        return err_input(err, s->origin ? s->origin : "workload", s->line, "time",
                         "job %s is submitted at %.6f s, before the previous job (%.6f s): "
                         "submissions must not decrease", s->name ? s->name : "?",
                         sim_to_sec(s->arrival), sim_to_sec(w->last_arrival));
    if (pollux_job_check(w->cl, w->apps, w->gpu, s, err) < 0)
        return -1;
    w->last_arrival = s->arrival;
    return 0;
}

static int admit(struct pw *w, struct errbuf *err)
{
    while (w->have_pending && sim_to_sec(w->pending.arrival) <= w->now) {
        const struct job_spec *s = &w->pending;
        struct pjob *j = calloc(1, sizeof *j);
        if (j == NULL)
            return err_run(err, "out of memory");
        j->id = s->id;
        snprintf(j->name, sizeof j->name, "%s", s->name ? s->name : "");
        j->app = elastic_find(w->apps, s->app);
        j->prof = elastic_get(w->apps, j->app, w->gpu);
        j->submit = sim_to_sec(s->arrival);
        j->target_r = s->workers;
        j->target_b = s->batch;
        if (w->dec.adaptive_batch) {
            j->adaptive = 1;
            j->target_b = elastic_limits(j->prof)->pollux_bsz;
        }
        j->completion = -1;
        j->restarts = -1;
        j->first_start = -1;
        j->origin = s->origin;
        j->line = s->line;
        j->tl_from = j->submit;
        j->tl_cause = TL_ARRIVAL;
        account(w, w->now);
        j->active_at_arrival = w->active_int;
        if (w->nact == w->capact) {
            int n = w->capact ? 2 * w->capact : 256, failed = 0;
            w->act = grow_array(w->act, (size_t)n, sizeof *w->act, &failed);
            w->view_jobs = grow_array(w->view_jobs, (size_t)n, sizeof *w->view_jobs, &failed);
            if (failed) {
                free(j);
                return err_run(err, "out of memory");
            }
            w->capact = n;
        }
        w->act[w->nact++] = j;
        w->tot.jobs_in++;
        if (read_pending(w, err) < 0)
            return -1;
    }
    return 0;
}

/* Job.update_local_bsz: a fixed target batch's rules, or the agent's choice. */
static void rebatch(struct pjob *j)
{
    int r = 0;
    for (int k = 0; k < j->nplace; k++)
        r += j->place[k];
    const struct elastic_limits *l = elastic_limits(j->prof);
    if (j->target_b > 0) {
        elastic_batch_fixed(j->prof, j->target_b, r, ELASTIC_R1_ABOVE_INIT, &j->batch);
    } else if (!j->has_perf) {
        int b = l->min_local_bsz * r > l->init_bsz ? l->min_local_bsz * r : l->init_bsz;
        elastic_batch_fixed(j->prof, b, r, ELASTIC_R1_ABOVE_INIT, &j->batch);
    } else {
        struct goodput_limits gl = { l->init_bsz, l->max_bsz, l->min_local_bsz,
                                     l->max_local_bsz, 1 };
        struct goodput_choice c;
        goodput_optimize(&j->perf, &j->grad, &gl, j->nplace, r, &c);
        int cap = (int)((double)l->max_bsz / (r * (c.accum + 1)));
        j->batch = (struct elastic_batch){ c.atomic * (c.accum + 1),  c.accum,
                                           c.atomic < cap ? c.atomic : cap };
    }
}

/* Job.update_params: the statistics of the step just taken, and its time when this
 * configuration is new (then the model is refitted on every observation). */
static int observe(struct pjob *j, int r, int atomic, double step, double sync, double sqr,
                   double var, struct errbuf *err)
{
    j->grad = (struct goodput_grad){ sqr, var };
    for (int i = 0; i < j->nobs; i++)
        if (j->obs[i].nodes == j->nplace && j->obs[i].replicas == r &&
            j->obs[i].atomic == atomic)
            return 0;
    if (j->nobs == j->capobs) {
        int failed = 0;
        int c = j->capobs ? 2 * j->capobs : 8;
        j->obs = grow_array(j->obs, (size_t)c, sizeof *j->obs, &failed);
        if (failed)
            return err_run(err, "out of memory");
        j->capobs = c;
    }
    j->obs[j->nobs++] = (struct goodput_obs){ j->nplace, r, atomic, step, sync };
    if (r > j->max_profiled)
        j->max_profiled = r;
    /* a failed solve keeps the start or the last iterate, as Pollux keeps L-BFGS-B's */
    (void)goodput_fit(j->obs, j->nobs, 1, &j->perf, NULL);
    j->has_perf = 1;
    return 0;
}

/* Step 1 for one job: `seconds` of the tick that starts at `t`. */
static int step_job(struct pw *w, struct pjob *j, double t, double seconds, struct errbuf *err)
{
    if (j->nplace == 0)
        return 0;
    int r = j->nalloc;
    double delay = fmin(j->rescale, seconds);
    t += delay;
    j->attained += delay * r;
    j->rescale -= delay;
    seconds -= delay;
    const struct elastic_limits *l = elastic_limits(j->prof);
    while (seconds > 0 && j->completion < 0) {
        if (j->epoch >= l->max_epochs)
            return err_run(err, "job %s: epoch %d past max_epochs %d", j->name, j->epoch,
                           l->max_epochs);
        int atomic = j->batch.atomic, accum = j->batch.accum;
        double bsz = (double)r * atomic * (accum + 1);
        double scale = bsz / l->init_bsz, step, sync, sqr, var;
        j->last_bsz = (int)bsz;
        if (elastic_step_time(j->prof, j->place, j->nplace, atomic, &step, &sync, err) < 0 ||
            elastic_grad_stats(j->prof, bsz, j->epoch, &sqr, &var, err) < 0) {
            err_prefix(err, "job %s (%s:%ld) at t=%.0f s: ", j->name, j->origin ? j->origin : "",
                       j->line, w->now);
            return -1;
        }
        if (j->adaptive && observe(j, r, atomic, step, sync, sqr, var, err) < 0)
            return -1;
        double gain = elastic_gain(sqr, var, scale);
        double goodput = gain / elastic_iter_time(step, sync, accum);
        double next = elastic_progress(j->prof, j->epoch + 1);
        if (j->progress + goodput * seconds < next) {
            j->progress += goodput * seconds;
            t += seconds;
            j->attained += seconds * r;
            seconds = 0;
        } else {
            j->epoch++;
            double delta = rint((next - j->progress) / goodput);
            if (delta > seconds)
                return err_run(err, "job %s: epoch boundary %.0f s into a %.0f s step", j->name,
                               delta, seconds);
            if (j->epoch > elastic_completion_epoch(j->prof, bsz))
                j->completion = t + delta;
            j->progress = next;
            t += delta;
            j->attained += delta * r;
            seconds -= delta;
        }
        rebatch(j);
    }
    return 0;
}

static int emit(struct pw *w, struct pjob *j, struct errbuf *err)
{
    double finish = j->completion;
    double gpu_s[CLUSTER_MAX_TYPES] = { j->attained };
    struct train_job tj = {
        .id = j->id, .slot = -1, .jtype = -1, .workers = j->target_r,
        .min_workers = 1, .max_workers = j->target_r,
        .batch = j->adaptive ? j->last_bsz : j->target_b, .user = 0,
        .weight = 1, .arrival = sim_from_sec(j->submit),
        .work = elastic_completion_epoch(j->prof, j->target_b) + 1,
        .state = finish >= 0 ? JOB_DONE : JOB_PREEMPTED,
        .first_start = j->first_start >= 0 ? sim_from_sec(j->first_start) : -1,
        .preemptions = j->preemptions, .migrations = j->migrations, .gpu_type = -1,
        .done = j->epoch, .attained = j->attained, .updated = sim_from_sec(w->now),
    };
    account(w, w->now);
    double life = (finish >= 0 ? finish : w->now) - j->submit;
    struct train_record rec = {
        .job = &tj, .trace_id = j->id, .finish = finish >= 0 ? sim_from_sec(finish) : -1,
        .n_avg = life > 0 ? (w->active_int - j->active_at_arrival) / life : w->nact,
        .t_iso = -1, .rho = -1, .gpu_s = gpu_s, .best_rate = 1,
        .type_name = elastic_name(j->prof), .elastic = 1,
    };
    if (rec.n_avg < 1)
        rec.n_avg = 1;
    return w->sink.job ? w->sink.job(w->sink.ctx, &rec, err) : 0;
}

/* ---- the timeline: each job's open interval, written when it ends */

static int segment(struct pw *w, const struct pjob *j, double from, double to, int state,
                   int ends, struct errbuf *err)
{
    struct train_segment sg = { .trace_id = j->id, .gpus = j->gpu, .ngpu = j->tl_ngpu,
                                .share = 1, .from = sim_from_sec(from), .to = sim_from_sec(to),
                                .state = state, .cause = j->tl_cause, .ends = ends };
    return w->sink.segment(w->sink.ctx, &sg, err);
}

/* End j's open interval at t (`ends`: what ended it) and give back its GPUs: a grant is
 * restoring for the restart penalty from its start (Job.step spends it first, counting it as
 * attained service) and running after. */
static int tl_close(struct pw *w, struct pjob *j, double t, int ends, struct errbuf *err)
{
    if (w->sink.segment == NULL)
        return 0;
    int rc = 0;
    if (j->tl_ngpu == 0) {
        rc = segment(w, j, j->tl_from, t, TL_QUEUED, ends, err);
    } else {
        double restored = j->tl_from + w->cfg.restart_s;
        if (t <= restored)
            rc = segment(w, j, j->tl_from, t, TL_RESTORING, ends, err);
        else
            rc = segment(w, j, j->tl_from, restored, TL_RESTORING, TL_RESTORED, err) < 0 ||
                 segment(w, j, restored, t, TL_RUNNING, ends, err) < 0 ? -1 : 0;
        for (int i = 0; i < j->tl_ngpu; i++)
            w->held[j->gpu[i]] = 0;
    }
    j->tl_ngpu = 0;
    return rc;
}

/* Open j's next interval at now: its grant (j->alloc, the node of each GPU) takes the lowest
 * free GPUs of those nodes, since Pollux counts GPUs per node and names none. */
static int tl_open(struct pw *w, struct pjob *j, int cause, struct errbuf *err)
{
    if (w->sink.segment == NULL)
        return 0;
    j->tl_from = w->now;
    j->tl_cause = cause;
    if (j->nalloc > j->capgpu) {
        int failed = 0;
        j->gpu = grow_array(j->gpu, (size_t)j->nalloc, sizeof *j->gpu, &failed);
        if (failed)
            return err_run(err, "out of memory");
        j->capgpu = j->nalloc;
    }
    for (int i = 0; i < j->nalloc; i++) {
        const struct cluster_node *nd = cluster_node(w->cl, j->alloc[i]);
        int g = nd->first;
        while (g < nd->first + nd->ngpus && w->held[g])
            g++;
        if (g == nd->first + nd->ngpus)
            return err_run(err, "job %s: the policy gave it more GPUs of node %d than it has",
                           j->name, j->alloc[i]);
        w->held[g] = 1;
        j->gpu[i] = g;
    }
    j->tl_ngpu = j->nalloc;
    return 0;
}

static void remove_at(struct pw *w, int k)
{
    account(w, w->now);
    free(w->act[k]->alloc);
    free(w->act[k]->obs);
    free(w->act[k]->gpu);
    free(w->act[k]);
    memmove(&w->act[k], &w->act[k + 1], (size_t)(w->nact - k - 1) * sizeof *w->act);
    w->nact--;
}

/* Step 5 for one job: its new list (n GPUs). */
static int reallocate(struct pw *w, struct pjob *j, const int32_t *nodes, int n,
                      struct errbuf *err)
{
    int had = j->nalloc > 0;
    if (n > j->capalloc) {
        int failed = 0;
        j->alloc = grow_array(j->alloc, (size_t)n, sizeof *j->alloc, &failed);
        if (failed)
            return err_run(err, "out of memory");
        j->capalloc = n;
    }
    if (n > 0)
        memcpy(j->alloc, nodes, (size_t)n * sizeof *nodes);
    j->nalloc = n;
    j->nplace = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || nodes[i] != nodes[i - 1]) {
            if (j->nplace == (int)(sizeof j->place / sizeof j->place[0]))
                return err_run(err, "job %s: more than %d nodes", j->name, j->nplace);
            j->place[j->nplace++] = 1;
        } else {
            j->place[j->nplace - 1]++;
        }
    }
    if (n > 0) {
        rebatch(j);
        j->rescale = w->cfg.restart_s;
        j->restarts++;
        if (j->first_start < 0)
            j->first_start = w->now;
        if (had)
            j->migrations++;
    } else {
        j->batch.atomic = 0;
        if (had)
            j->preemptions++;
    }
    return 0;
}

/* Steps 4 and 5. */
static int decide(struct pw *w, struct errbuf *err)
{
    for (int k = 0; k < w->nact; k++) {
        const struct pjob *j = w->act[k];
        w->view_jobs[k] = (struct elastic_job){
            .id = j->id, .name = j->name, .app = j->app, .prof = j->prof,
            .submit_s = j->submit, .age_s = w->now - j->submit, .attained_s = j->attained,
            .target_replicas = j->target_r, .target_bsz = j->target_b, .epoch = j->epoch,
            .progress = j->progress, .restarts = j->restarts < 0 ? 0 : j->restarts,
            .nalloc = j->nalloc, .alloc = j->alloc, .has_perf = j->has_perf,
            .perf = j->perf, .grad = j->grad, .max_profiled = j->max_profiled,
            .batch = j->nalloc * j->batch.atomic * (j->batch.accum + 1),
            .accum = j->nalloc > 0 ? j->batch.accum : 0 };
    }
    struct elastic_view v = { .now_s = w->now, .nnodes = w->nnodes, .node_gpus = w->node_gpus,
                              .node_type = w->node_type, .apps = w->apps, .njobs = w->nact,
                              .jobs = w->view_jobs };
    if (elastic_alloc_begin(&w->ans, (size_t)w->nact) < 0)
        return err_run(err, "out of memory");
    w->tot.decisions++;
    if (w->dec.elastic(w->dec.ctx, &v, &w->ans, err) < 0)
        return -1;
    /* the timeline ends every changed job's interval before any takes GPUs, so that a GPU
     * one gives up is free for another in the same decision */
    for (int pass = w->sink.segment != NULL ? 0 : 1; pass < 2; pass++)
        for (int k = 0; k < w->nact; k++) {
            struct pjob *j = w->act[k];
            const int32_t *nodes = w->ans.nodes + w->ans.off[k];
            int n = w->ans.off[k + 1] - w->ans.off[k];
            if (n == j->nalloc &&
                (n == 0 || memcmp(nodes, j->alloc, (size_t)n * sizeof *nodes) == 0))
                continue;
            int cause = n == 0 ? TL_PREEMPT
                        : j->nalloc == 0 ? (j->first_start < 0 ? TL_START : TL_RESUME)
                        : n != j->nalloc ? TL_RESIZE : TL_MIGRATE;
            if (pass == 0) {
                if (tl_close(w, j, w->now, cause, err) < 0)
                    return -1;
                continue;
            }
            if (reallocate(w, j, nodes, n, err) < 0 ||
                (w->sink.segment != NULL && tl_open(w, j, cause, err) < 0))
                return -1;
        }
    return 0;
}

/* GPUs held now, and jobs making progress, over [from, to) for the window and the series. */
static int credit(struct pw *w, double from, double to, struct errbuf *err)
{
    double held = 0, moving = 0;
    for (int k = 0; k < w->nact; k++) {
        held += w->act[k]->nalloc;
        moving += w->act[k]->nalloc > 0;
    }
    w->busy += held * (to - from);
    w->win_busy += held * window_overlap(&w->win, from, to);
    w->win_norm += window_share(&w->win, from, to, moving * (to - from));
    if (w->sink.sample == NULL || w->cfg.sample_period <= 0)
        return 0;
    double P = sim_to_sec(w->cfg.sample_period);
    while (w->next_sample <= to) {
        simtime at = sim_from_sec(w->next_sample);
        char name[64];
        snprintf(name, sizeof name, "util_%s", catalog_gpu(cluster_catalog(w->cl), w->gpu)->name);
        int waiting = 0;
        for (int k = 0; k < w->nact; k++)
            waiting += w->act[k]->nalloc == 0;
        if (w->sink.sample(w->sink.ctx, at, name, held / cluster_ngpus(w->cl), err) < 0 ||
            w->sink.sample(w->sink.ctx, at, "util_total", held / cluster_ngpus(w->cl), err) < 0 ||
            w->sink.sample(w->sink.ctx, at, "queue_len", waiting, err) < 0)
            return -1;
        w->next_sample += P;
    }
    return 0;
}

static int tick(struct pw *w, struct errbuf *err)
{
    double t0 = w->now;
    for (int k = 0; k < w->nact; k++)
        if (step_job(w, w->act[k], t0, w->tick_s, err) < 0)
            return -1;
    /* occupancy until the decision at the tick's end: a job that completed holds its GPUs
     * until then, as in Pollux */
    if (credit(w, t0, t0 + w->tick_s, err) < 0)
        return -1;
    w->now = t0 + w->tick_s;
    for (int k = 0; k < w->nact;) {
        struct pjob *j = w->act[k];
        if (j->completion < 0) {
            k++;
            continue;
        }
        w->tot.jobs_done++;
        w->tot.preemptions += j->preemptions;
        w->tot.migrations += j->migrations;
        if (sim_from_sec(j->completion) > w->tot.makespan)
            w->tot.makespan = sim_from_sec(j->completion);
        if (tl_close(w, j, j->completion, TL_FINISH, err) < 0 || emit(w, j, err) < 0)
            return -1;
        remove_at(w, k);
    }
    if (admit(w, err) < 0)
        return -1;
    if (w->nact > 0 && decide(w, err) < 0)
        return -1;
    return 0;
}

int pollux_run(const cluster *cl, const elastic *apps, const struct pollux_config *cfg,
               struct entity_source *src, const struct train_decider *dec,
               const struct train_sink *sink, struct train_totals *out, struct errbuf *err)
{
    memset(out, 0, sizeof *out);
    if (dec->elastic == NULL)
        return err_input(err, NULL, 0, "policy", "Pollux-compatible mode needs an elastic "
                         "policy");
    struct pw w = { .cl = cl, .apps = apps, .cfg = *cfg, .src = src, .dec = *dec,
                    .sink = *sink, .tick_s = sim_to_sec(cfg->tick) };
    elastic_alloc_init(&w.ans);
    int rc = -1;
    if ((w.gpu = pollux_cluster_gpu(cl, apps, err)) < 0)
        goto out;
    w.nnodes = cluster_nnodes(cl);
    w.node_gpus = malloc((size_t)w.nnodes * sizeof *w.node_gpus);
    w.node_type = malloc((size_t)w.nnodes * sizeof *w.node_type);
    if (w.node_gpus == NULL || w.node_type == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    for (int n = 0; n < w.nnodes; n++) {
        w.node_gpus[n] = cluster_node(cl, n)->ngpus;
        w.node_type[n] = cluster_node(cl, n)->gpu;
    }
    if (sink->segment != NULL &&
        (w.held = calloc((size_t)cluster_ngpus(cl), sizeof *w.held)) == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    int explicit_window = cfg->measure.to > cfg->measure.from;
    w.win = explicit_window ? cfg->measure : (struct window){ INFINITY, INFINITY };
    w.next_sample = sim_to_sec(cfg->sample_period);
    if (read_pending(&w, err) < 0)
        goto out;
    if (!explicit_window && w.have_pending)
        w.win.from = sim_to_sec(w.pending.arrival);
    double until = cfg->until == SIM_NEVER ? INFINITY : sim_to_sec(cfg->until);
    int stop = ENGINE_DRAINED;
    while (w.nact > 0 || w.have_pending) {
        if (w.nact == 0) {
            /* nothing is active until the tick at or after the next submission */
            double a = sim_to_sec(w.pending.arrival);
            double k = ceil(a / w.tick_s) - 1;
            if (k * w.tick_s > w.now) {
                if (credit(&w, w.now, k * w.tick_s, err) < 0)
                    goto out;
                w.now = k * w.tick_s;
            }
        }
        if (w.now >= until || (cfg->max_events && w.tot.events >= cfg->max_events)) {
            stop = w.now >= until ? ENGINE_UNTIL : ENGINE_MAX_EVENTS;
            break;
        }
        if (tick(&w, err) < 0)
            goto out;
        w.tot.events++;
    }
    /* jobs still active when a limit stopped the run leave unfinished */
    while (w.nact > 0) {
        if (tl_close(&w, w.act[0], w.now, TL_STOP, err) < 0 || emit(&w, w.act[0], err) < 0)
            goto out;
        remove_at(&w, 0);
    }
    *out = w.tot;
    out->stop = stop;
    out->end = sim_from_sec(w.now);
    out->busy_gpu_s[0] = w.busy;
    out->window_busy_gpu_s[0] = w.win_busy;
    out->window = w.win;
    if (out->window.to > w.now)
        out->window.to = w.now;
    out->window_norm_s = w.win_norm;
    rc = 0;
out:
    for (int k = 0; k < w.nact; k++) {
        free(w.act[k]->alloc);
        free(w.act[k]->obs);
        free(w.act[k]->gpu);
        free(w.act[k]);
    }
    free(w.held);
    free(w.act);
    free(w.view_jobs);
    free(w.node_gpus);
    free(w.node_type);
    elastic_alloc_fini(&w.ans);
    return rc;
}
