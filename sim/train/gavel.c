/*
 * gavel: Gavel's simulator mechanism, step by step (the steps below, as Gavel's own
 * stanford-futuredata/gavel @c4fa400 runs them in scheduler.py: simulate, _update_priorities,
 * _reset_time_run_so_far, _schedule_jobs_on_workers_helper, _done_callback).
 *
 * One ROUND event per loop iteration of Gavel's simulate():
 *  1. time jumps to the latest finish of the running micro-tasks (the previous round's end
 *     becomes this round's start), or to the next arrival when nothing runs;
 *  2. every micro-task completes: its steps are split over the job's workers (floor(s/sf),
 *     the last takes the rest); a worker with no steps fails the micro-task (5 failures in a
 *     row drop the job); on success the steps count and the job's time on that type grows
 *     by (finish - round start), Gavel's "execution time";
 *  3. jobs that arrived by now join (time so far R/2 on every type, priority and deficit 0);
 *  4. if jobs came or went and the last reset is at least min_realloc ago (or at 0), the
 *     deficits absorb the old allocation's shortfall, times reset to R/2, and the policy
 *     computes a new allocation;
 *  5. priority(j, w) = x / (time so far / worker time), x * 1e9 if that is 0, 0 if x = 0 or
 *     the job cannot run on w or has no allocation yet;
 *  6. types in Gavel's order (fastest first; shuffled each round for agnostic policies),
 *     jobs per type by (priority, deficit, x) descending, stable; greedily pick jobs that
 *     are not yet picked, can run, fit, and (FIFO) have priority > 0; a picked job without an
 *     allocation holds its GPUs idle;
 *  7. each picked job runs min(floor(T * R), remaining) steps, finishing at now + steps / T.
 * Arithmetic is in double seconds as in Gavel; simtime only orders the events.
 * Cost per round: for each type, O(C) to rank in a heap its candidates C, the unpicked jobs
 * with a share of it (kept between rounds, so jobs without one cost nothing), O(log C) per
 * pick, then the zero-priority jobs in their kept order only while the type has GPUs left;
 * O(R log R) to order the R finished micro-tasks; O(A / 64) to gather the picks in act
 * order (A active jobs); plus the policy's allocation when asked, after which the candidate
 * lists are rebuilt in O(A log A).  Rows do not depend on any of this: the picks are those of
 * Gavel's sort over every active job.
 */
#include "gavel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../../models/fairshare.h"
#include "../core/engine.h"
#include "../core/timeline.h"
#include "../base/grow.h"
#include "../base/rng.h"

enum { MAX_FAILED_ATTEMPTS = 5, EV_ROUND = 1 };

struct gjob {
    int64_t     id;                         /* Gavel's job id (the trace's) */
    int64_t     index;                      /* arrival order in this run, from 0 */
    int         jtype, sf, user;
    double      weight, arrival, best;      /* best: its fastest type's rate */
    int64_t     total, done;
    double      T[CLUSTER_MAX_TYPES];
    double      x[CLUSTER_MAX_TYPES], deficit[CLUSTER_MAX_TYPES];
    double      tsf[CLUSTER_MAX_TYPES];     /* Gavel's job_time_so_far */
    int         in_alloc, failures;
    int         pos;                        /* its index in act */
    /* this round's micro-task */
    int         run_w;                      /* -1: not running */
    int64_t     run_steps;
    double      run_start, run_finish;
    int         last_w;                     /* type of its previous micro-task, -1 */
    int64_t     last_round;
    /* what the database gets */
    double      first_start, finish, attained, active_int_at_arrival;
    double      gpu_s[CLUSTER_MAX_TYPES];
    int         preemptions, migrations;
    const char *origin;
    long        line;
    /* its open timeline interval (sim.timeline): queued since seg_from, or running on the
     * GPUs `gpu` from seg_from to the end of its micro-task of round seg_round (seg_to) */
    int        *gpu;                        /* sf GPU ids of type seg_w; NULL without */
    int         seg_running, seg_w, seg_cause, seg_started;
    int64_t     seg_round;
    double      seg_from, seg_to;
};

struct key { double prio; int i; };            /* pick's heap: (priority, entry) */

struct gw {
    const cluster          *cl;
    const tput             *m;
    struct gavel_config     cfg;
    struct entity_source      *src;
    struct train_decider    al;
    struct train_sink       sink;
    engine                 *eng;
    double                  R;
    int                     T;
    int                     types[CLUSTER_MAX_TYPES];
    double                  cap[CLUSTER_MAX_TYPES];
    int                     order[CLUSTER_MAX_TYPES];   /* Gavel's type order */
    struct gjob           **act;                        /* active jobs, in id order */
    int                     nact, capact;
    struct gjob           **run, **run_tmp;              /* run_tmp: sort scratch */
    int                     nrun;
    struct job_spec         pending;
    int                     have_pending;
    double                  last_arrival;
    double                  now, round_start, round_end, last_reset;
    int                     have_round_end, need_update, idle_loops;
    double                  worker_time[CLUSTER_MAX_TYPES];
    double                  round_last[CLUSTER_MAX_TYPES + 1];
    int                     round_logged;
    int64_t                 round;
    gsl_rng                *shuffle;
    /* allocation problem buffers */
    size_t                  pcap;
    int64_t                *p_id;
    int                    *p_scale, *p_user, *p_cur;
    double                 *p_weight, *p_thr, *p_work, *p_rem, *p_age, *p_att, *p_restore, *p_x;
    /* accounting */
    double                  active_int, acct_t, worker_cum;
    double                  busy[CLUSTER_MAX_TYPES];
    double                 *bucket;                     /* [period * T + t] busy GPU-s */
    size_t                  nbuckets;
    /* the measurement window, and the last round's micro-tasks still to be credited to it */
    struct window           win;
    double                  win_norm, win_busy[CLUSTER_MAX_TYPES];
    struct credit { double from, to, norm; int t, sf; } *credit;
    int                     ncredit;
    struct gavel_totals     tot;
    /* the timeline: each type's GPU ids, in id order; which GPUs this round's micro-tasks
     * hold (by GPU id) */
    int                    *type_gpu[CLUSTER_MAX_TYPES];
    unsigned char          *gpu_used;
    /* the candidates of each type, kept between rounds: cand[t] the jobs with a nonzero
     * share of t (in act order), whose priorities move every round; zero[t] (not for FIFO)
     * the others that can run on t, whose priority is 0 until the next reallocation, in
     * Gavel's order (deficit descending, then act order) */
    struct gjob           **cand[CLUSTER_MAX_TYPES], **zero[CLUSTER_MAX_TYPES];
    int                     ncand[CLUSTER_MAX_TYPES], nzero[CLUSTER_MAX_TYPES];
    struct gjob           **prev;                       /* last round's jobs still active */
    int                     nprev;
    uint64_t               *picked;                     /* this round's picks, by pos */
    /* pick scratch: one type's candidates with their priorities */
    struct entry { double prio, deficit, x; int64_t index; struct gjob *j; } *ent;
    struct key             *keys;                       /* pick's heap, as long as ent */
};

static void account(struct gw *w, double t)
{
    if (t > w->acct_t) {
        w->active_int += w->nact * (t - w->acct_t);
        w->acct_t = t;
    }
}

/* ---- the timeline (sim.timeline): Gavel does not place jobs, so a micro-task's GPUs are
 * positions among its type's, kept from one round to the next while a job stays on a type
 * (the others take the lowest free ones).  A job holds its GPUs from its micro-task's start
 * to the round's end when it runs again in the next round (consecutive micro-tasks on the
 * same GPUs are one row), else to its micro-task's end; queued otherwise. */

static void job_free(struct gjob *j)
{
    if (j != NULL)
        free(j->gpu);
    free(j);
}

static int seg_emit(struct gw *w, struct gjob *j, double from, double to, int ends,
                    struct errbuf *err)
{
    struct train_segment sg = {
        .trace_id = j->id, .gpus = j->gpu, .ngpu = j->seg_running ? j->sf : 0, .share = 1,
        .from = sim_from_sec(from), .to = sim_from_sec(to),
        .state = j->seg_running ? TL_RUNNING : TL_QUEUED, .cause = j->seg_cause, .ends = ends };
    return w->sink.segment(w->sink.ctx, &sg, err);
}

/* End the job's open interval at `t` (running: at its last micro-task's end) with `ends`. */
static int seg_close(struct gw *w, struct gjob *j, double t, int ends, struct errbuf *err)
{
    if (w->sink.segment == NULL)
        return 0;
    return seg_emit(w, j, j->seg_from, j->seg_running ? j->seg_to : t, ends, err);
}

/* After a round's picks: every picked job's GPUs and interval, every job left out queued. */
static int seg_round(struct gw *w, struct errbuf *err)
{
    if (w->sink.segment == NULL)
        return 0;
    memset(w->gpu_used, 0, (size_t)cluster_ngpus(w->cl));
    /* who stays on its type keeps its GPUs */
    for (int k = 0; k < w->nrun; k++) {
        struct gjob *j = w->run[k];
        if (j->seg_running && j->seg_round == w->round - 1 && j->seg_w == j->run_w)
            for (int i = 0; i < j->sf; i++)
                w->gpu_used[j->gpu[i]] = 1;
    }
    for (int k = 0; k < w->nact; k++) {
        struct gjob *j = w->act[k];
        int t = j->run_w;
        if (t < 0) {
            if (j->seg_running) {           /* not picked: preempted at its task's end */
                if (seg_close(w, j, j->seg_to, TL_PREEMPT, err) < 0)
                    return -1;
                j->seg_running = 0;
                j->seg_from = j->seg_to;
                j->seg_cause = TL_PREEMPT;
            }
            continue;
        }
        if (j->seg_running && j->seg_round == w->round - 1 && j->seg_w == t) {
            j->seg_round = w->round;        /* the same GPUs: one interval goes on */
            j->seg_to = j->run_finish;
            continue;
        }
        int cause = j->seg_running ? TL_MIGRATE : j->seg_started ? TL_RESUME : TL_START;
        /* a job moving to another type held its old GPUs to the round's end */
        if (j->seg_running)
            j->seg_to = w->now;
        if (seg_close(w, j, w->now, cause, err) < 0)
            return -1;
        for (int i = 0, p = 0; i < j->sf; i++) {
            while (w->gpu_used[w->type_gpu[t][p]])
                p++;
            j->gpu[i] = w->type_gpu[t][p];
            w->gpu_used[j->gpu[i]] = 1;
        }
        j->seg_running = 1;
        j->seg_started = 1;
        j->seg_w = t;
        j->seg_round = w->round;
        j->seg_cause = cause;
        j->seg_from = w->now;
        j->seg_to = j->run_finish;
    }
    return 0;
}

/* Add busy GPU-seconds of one micro-task to the sample buckets it overlaps. */
static int add_busy(struct gw *w, int t, double from, double to, int sf)
{
    w->busy[t] += sf * (to - from);
    if (w->cfg.sample_period <= 0 || to <= from)
        return 0;
    double P = sim_to_sec(w->cfg.sample_period);
    size_t last = (size_t)(to / P);
    if (last + 1 > w->nbuckets) {
        size_t n = (last + 1) * 2;
        int failed = 0;
        w->bucket = grow_array(w->bucket, n * (size_t)w->T, sizeof *w->bucket, &failed);
        if (failed)
            return -1;
        memset(w->bucket + w->nbuckets * (size_t)w->T, 0,
               (n - w->nbuckets) * (size_t)w->T * sizeof *w->bucket);
        w->nbuckets = n;
    }
    for (size_t b = (size_t)(from / P); b <= last; b++) {
        double b0 = (double)b * P, b1 = (double)(b + 1) * P;
        double lo = from > b0 ? from : b0, hi = to < b1 ? to : b1;     /* fmax, fmin */
        if (hi > lo)
            w->bucket[b * (size_t)w->T + (size_t)t] += sf * (hi - lo);
    }
    return 0;
}

static int emit(struct gw *w, struct gjob *j, int dropped, struct errbuf *err)
{
    account(w, w->now);
    struct train_job tj = {
        .id = j->index, .slot = -1, .jtype = j->jtype, .workers = j->sf, .user = j->user,
        .weight = j->weight, .arrival = sim_from_sec(j->arrival), .work = (double)j->total,
        .state = JOB_DONE, .first_start = j->first_start >= 0 ? sim_from_sec(j->first_start) : -1,
        .preemptions = j->preemptions, .migrations = j->migrations, .gpu_type = -1,
        .done = (double)j->done, .attained = j->attained,
    };
    tj.updated = sim_from_sec(w->now);
    struct train_record r = { .job = &tj, .trace_id = j->id, .gpu_s = j->gpu_s, .rho = -1,
                              .t_iso = -1, .finish = dropped ? -1 : sim_from_sec(j->finish) };
    double life = (dropped ? w->now : j->finish) - j->arrival;
    r.n_avg = life > 0 ? (w->active_int - j->active_int_at_arrival) / life : w->nact;
    if (r.n_avg < 1)
        r.n_avg = 1;
    double iso = fairshare_rate(j->T, w->cap, w->T, j->sf, r.n_avg);
    for (int t = 0; t < w->T; t++)
        r.best_rate = fmax(r.best_rate, j->T[t]);
    if (iso > 0) {
        r.t_iso = (double)j->total / iso;
        if (!dropped)
            r.rho = (j->finish - j->arrival) / r.t_iso;
    }
    return w->sink.job ? w->sink.job(w->sink.ctx, &r, err) : 0;
}

/* Take j out of list a[0..*n), keeping the order of the others. */
static void list_remove(struct gjob **a, int *n, const struct gjob *j)
{
    int k = 0;
    while (k < *n && a[k] != j)
        k++;
    if (k == *n)
        return;
    memmove(&a[k], &a[k + 1], (size_t)(*n - k - 1) * sizeof *a);
    (*n)--;
}

static void remove_active(struct gw *w, struct gjob *j)
{
    account(w, w->now);
    for (int k = j->pos; k + 1 < w->nact; k++) {
        w->act[k] = w->act[k + 1];
        w->act[k]->pos = k;
    }
    w->nact--;
    for (int t = 0; t < w->T; t++) {
        list_remove(w->cand[t], &w->ncand[t], j);
        list_remove(w->zero[t], &w->nzero[t], j);
    }
    w->need_update = 1;
}

/* Gavel pops its heap of (-finish, job id): latest finish first, ties by id. */
static int finishes_first(const struct gjob *p, const struct gjob *q)
{
    if (p->run_finish != q->run_finish)
        return p->run_finish > q->run_finish;
    return p->id < q->id;
}

/* Sort a[0..n) in that order (a total order: ids are unique), with tmp[0..n) as scratch:
 * insertion sort on runs of 8, then bottom-up merges.  O(n log n) with the comparison
 * inlined; this runs every round, where qsort's indirect calls were a tenth of a run. */
static void sort_by_finish(struct gjob **a, struct gjob **tmp, int n)
{
    enum { RUN = 8 };
    for (int lo = 0; lo < n; lo += RUN) {
        int hi = lo + RUN < n ? lo + RUN : n;
        for (int i = lo + 1; i < hi; i++) {
            struct gjob *v = a[i];
            int k = i;
            for (; k > lo && finishes_first(v, a[k - 1]); k--)
                a[k] = a[k - 1];
            a[k] = v;
        }
    }
    struct gjob **src = a, **dst = tmp;
    for (int width = RUN; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, k = mid, o = lo;
            while (i < mid && k < hi)
                dst[o++] = finishes_first(src[k], src[i]) ? src[k++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (k < hi)
                dst[o++] = src[k++];
        }
        struct gjob **t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
}

/* Step 2: the micro-tasks of the round that just ended. */
static int complete_round(struct gw *w, struct errbuf *err)
{
    sort_by_finish(w->run, w->run_tmp, w->nrun);
    w->nprev = 0;
    for (int k = 0; k < w->nrun; k++) {
        struct gjob *j = w->run[k];
        int t = j->run_w;
        double exec = j->run_finish - w->round_start;
        int64_t per = j->sf == 1 ? j->run_steps : j->run_steps / j->sf;
        int64_t lastw = j->run_steps - per * (j->sf - 1);
        int ok = exec > 0 && lastw > 0 && (j->sf == 1 || per > 0);
        j->run_w = -1;
        w->credit[w->ncredit++] = (struct credit){
            j->run_start, j->run_finish, ok ? (double)j->run_steps / j->best : 0, t, j->sf };
        if (!ok) {
            w->need_update = 1;
            if (++j->failures >= MAX_FAILED_ATTEMPTS) {
                remove_active(w, j);
                w->tot.dropped++;
                if (seg_close(w, j, j->run_finish, TL_DROP, err) < 0 || emit(w, j, 1, err) < 0)
                    return -1;
                job_free(j);
            } else {
                w->prev[w->nprev++] = j;
            }
            continue;
        }
        j->failures = 0;
        j->done += j->run_steps;
        j->tsf[t] += exec;
        w->worker_time[t] += exec;
        w->worker_cum += j->sf * exec;
        if (j->done >= j->total) {
            j->finish = j->run_finish;
            remove_active(w, j);
            w->tot.t.jobs_done++;
            w->tot.t.preemptions += j->preemptions;
            w->tot.t.migrations += j->migrations;
            if (j->finish > sim_to_sec(w->tot.t.makespan))
                w->tot.t.makespan = sim_from_sec(j->finish);
            if (seg_close(w, j, j->finish, TL_FINISH, err) < 0 || emit(w, j, 0, err) < 0)
                return -1;
            job_free(j);
        } else {
            w->prev[w->nprev++] = j;
        }
    }
    w->nrun = 0;
    return 0;
}

int gavel_job_check(const cluster *cl, const tput *model, const struct job_spec *s,
                    struct errbuf *err)
{
    if (train_job_check(cl, model, s, err) < 0)
        return -1;
    const char *f = s->origin ? s->origin : "workload";
    const int *types;
    int T = cluster_types(cl, &types), any = 0;
    for (int t = 0; t < T && !any; t++)
        any = tput_measured(model, s->jtype, types[t], s->workers, 0) > 0 &&
              cluster_type_count(cl, types[t]) >= s->workers;
    if (!any)
        return err_input(err, f, s->line, "job_type", "'%s' with %d workers has no measured "
                         "throughput on a GPU type of the cluster with that many GPUs (Gavel "
                         "mode uses measured throughputs only)",
                         tput_type(model, s->jtype)->name, s->workers);
    if (s->work < 1 || s->work != floor(s->work))
        return err_input(err, f, s->line, "total_steps", "Gavel mode needs a whole number of "
                         "steps >= 1");
    return 0;
}

static int read_pending(struct gw *w, struct errbuf *err)
{
    int rc = w->src->next(w->src->ctx, &w->pending, err);
    if (rc < 0)
        return -1;
    w->have_pending = rc > 0;
    if (!w->have_pending) {
        if (isinf(w->win.to))
            w->win.to = w->last_arrival;    /* the default window ends at the last arrival */
        return 0;
    }
    const struct job_spec *s = &w->pending;
    if (sim_to_sec(s->arrival) < w->last_arrival)
        return err_input(err, s->origin ? s->origin : "workload", s->line, "arrival",
                         "job %lld arrives at %.6f s, before the previous job (%.6f s): "
                         "arrivals must not decrease", (long long)s->id,
                         sim_to_sec(s->arrival), w->last_arrival);
    if (gavel_job_check(w->cl, w->m, s, err) < 0)
        return -1;
    w->last_arrival = sim_to_sec(s->arrival);
    return 0;
}

/* Credit the last round's micro-tasks to the measurement window.  Called after the arrivals
 * up to now were admitted, so the next arrival (if any) lies beyond every micro-task that
 * ended by now, and the window's end is known wherever it matters. */
static void credit_window(struct gw *w)
{
    for (int k = 0; k < w->ncredit; k++) {
        const struct credit *c = &w->credit[k];
        w->win_norm += window_share(&w->win, c->from, c->to, c->norm);
        w->win_busy[c->t] += c->sf * window_overlap(&w->win, c->from, c->to);
    }
    w->ncredit = 0;
}

/* Step 3: jobs that arrived by now. */
static int admit(struct gw *w, struct errbuf *err)
{
    while (w->have_pending && sim_to_sec(w->pending.arrival) <= w->now) {
        const struct job_spec *s = &w->pending;
        struct gjob *j = calloc(1, sizeof *j);
        if (j == NULL)
            return err_run(err, "out of memory");
        *j = (struct gjob){ .id = s->id, .jtype = s->jtype, .sf = s->workers, .user = s->user,
                            .weight = s->weight, .arrival = sim_to_sec(s->arrival),
                            .total = (int64_t)s->work, .index = w->tot.t.jobs_in,
                            .run_w = -1, .last_w = -1,
                            .last_round = -2, .first_start = -1, .origin = s->origin,
                            .line = s->line, .seg_from = sim_to_sec(s->arrival),
                            .seg_cause = TL_ARRIVAL };
        if (w->sink.segment != NULL && (j->gpu = calloc((size_t)j->sf, sizeof *j->gpu)) == NULL) {
            free(j);
            return err_run(err, "out of memory");
        }
        for (int t = 0; t < w->T; t++) {
            double m = tput_measured(w->m, j->jtype, w->types[t], j->sf, 0);
            j->T[t] = m > 0 ? m : 0;
            j->tsf[t] = w->R / 2;
            j->best = fmax(j->best, j->T[t]);
        }
        account(w, w->now);
        j->active_int_at_arrival = w->active_int;
        if (w->nact == w->capact) {
            int n = w->capact ? 2 * w->capact : 256;
            int failed = 0;
            w->act = grow_array(w->act, (size_t)n, sizeof *w->act, &failed);
            w->run = grow_array(w->run, (size_t)n, sizeof *w->run, &failed);
            w->run_tmp = grow_array(w->run_tmp, (size_t)n, sizeof *w->run_tmp, &failed);
            w->credit = grow_array(w->credit, (size_t)n, sizeof *w->credit, &failed);
            w->ent = grow_array(w->ent, (size_t)n, sizeof *w->ent, &failed);
            w->keys = grow_array(w->keys, (size_t)n, sizeof *w->keys, &failed);
            w->prev = grow_array(w->prev, (size_t)n, sizeof *w->prev, &failed);
            for (int t = 0; t < w->T; t++) {
                w->cand[t] = grow_array(w->cand[t], (size_t)n, sizeof **w->cand, &failed);
                w->zero[t] = grow_array(w->zero[t], (size_t)n, sizeof **w->zero, &failed);
            }
            size_t words = (size_t)n / 64 + 1;
            w->picked = grow_array(w->picked, words, sizeof *w->picked, &failed);
            if (failed) {
                job_free(j);
                return err_run(err, "out of memory");
            }
            memset(w->picked, 0, words * sizeof *w->picked);
            w->capact = n;
        }
        /* no share yet: priority 0 wherever it can run, deficit 0, so it joins each zero
         * list behind every job of deficit >= 0 (all of them come before it in act) */
        for (int t = 0; t < w->T && !w->al.fifo; t++) {
            if (j->T[t] <= 0)
                continue;
            struct gjob **z = w->zero[t];
            int k = w->nzero[t]++;
            for (; k > 0 && z[k - 1]->deficit[t] < 0; k--)
                z[k] = z[k - 1];
            z[k] = j;
        }
        j->pos = w->nact;
        w->act[w->nact++] = j;
        w->tot.t.jobs_in++;
        w->need_update = 1;
        if (read_pending(w, err) < 0)
            return -1;
    }
    return 0;
}

static int reserve_problem(struct gw *w, size_t n)
{
    if (n <= w->pcap)
        return 0;
    size_t c = n * 2, TT = CLUSTER_MAX_TYPES;
    int failed = 0;
    w->p_id = grow_array(w->p_id, c, sizeof *w->p_id, &failed);
    w->p_scale = grow_array(w->p_scale, c, sizeof *w->p_scale, &failed);
    w->p_user = grow_array(w->p_user, c, sizeof *w->p_user, &failed);
    w->p_cur = grow_array(w->p_cur, c, sizeof *w->p_cur, &failed);
    w->p_weight = grow_array(w->p_weight, c, sizeof *w->p_weight, &failed);
    w->p_thr = grow_array(w->p_thr, c * TT, sizeof *w->p_thr, &failed);
    w->p_x = grow_array(w->p_x, c * TT, sizeof *w->p_x, &failed);
    w->p_work = grow_array(w->p_work, c, sizeof *w->p_work, &failed);
    w->p_rem = grow_array(w->p_rem, c, sizeof *w->p_rem, &failed);
    w->p_age = grow_array(w->p_age, c, sizeof *w->p_age, &failed);
    w->p_att = grow_array(w->p_att, c, sizeof *w->p_att, &failed);
    w->p_restore = grow_array(w->p_restore, c, sizeof *w->p_restore, &failed);
    if (failed)
        return -1;
    w->pcap = c;
    return 0;
}

/* Gavel's order among jobs of priority 0 on a type: deficit descending, then act order. */
static int by_deficit(const void *a, const void *b)
{
    const struct entry *p = a, *q = b;
    if (p->deficit != q->deficit)
        return p->deficit > q->deficit ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* After a reallocation: every type's candidates, from the new x and deficits. */
static void build_candidates(struct gw *w)
{
    for (int t = 0; t < w->T; t++) {
        int nc = 0, nz = 0;
        for (int k = 0; k < w->nact; k++) {
            struct gjob *j = w->act[k];
            if (j->T[t] <= 0)
                continue;
            if (j->x[t] != 0)
                w->cand[t][nc++] = j;
            else if (!w->al.fifo)
                w->ent[nz++] = (struct entry){ 0, j->deficit[t], 0, j->index, j };
        }
        qsort(w->ent, (size_t)nz, sizeof *w->ent, by_deficit);
        for (int k = 0; k < nz; k++)
            w->zero[t][k] = w->ent[k].j;
        w->ncand[t] = nc;
        w->nzero[t] = nz;
    }
}

/* Step 4, second half: ask the policy for x over the active jobs. */
static int reallocate(struct gw *w, struct errbuf *err)
{
    int J = w->nact, T = w->T;
    if (reserve_problem(w, (size_t)J + 1) < 0)
        return err_run(err, "out of memory");
    struct alloc_problem p = { .njobs = J, .ntypes = T, .now = sim_from_sec(w->now),
                               .round_s = w->R };
    memcpy(p.types, w->types, sizeof p.types);
    memcpy(p.cap, w->cap, sizeof p.cap);
    for (int k = 0; k < J; k++) {
        const struct gjob *j = w->act[k];
        w->p_id[k] = j->id;
        w->p_scale[k] = j->sf;
        w->p_user[k] = j->user;
        w->p_cur[k] = j->last_w;
        w->p_weight[k] = j->weight;
        w->p_work[k] = (double)j->total;
        w->p_rem[k] = (double)(j->total - j->done);
        w->p_age[k] = w->now - j->arrival;
        w->p_att[k] = j->attained;
        w->p_restore[k] = 0;            /* restarts are free in Gavel's simulator */
        for (int t = 0; t < T; t++) {
            w->p_thr[k * T + t] = j->T[t];
            w->p_x[k * T + t] = 0;
        }
    }
    p.id = w->p_id;
    p.scale = w->p_scale;
    p.user = w->p_user;
    p.weight = w->p_weight;
    p.thr = w->p_thr;
    p.work = w->p_work;
    p.remaining = w->p_rem;
    p.age_s = w->p_age;
    p.attained_s = w->p_att;
    p.cur_type = w->p_cur;
    p.restore_s = w->p_restore;
    w->tot.t.decisions++;
    if (J > 0 && w->al.allocate(w->al.ctx, &p, w->p_x, err) < 0)
        return -1;
    for (int k = 0; k < J; k++) {
        struct gjob *j = w->act[k];
        j->in_alloc = 1;
        for (int t = 0; t < T; t++)
            j->x[t] = w->p_x[k * T + t];
    }
    build_candidates(w);
    return 0;
}

/* Step 4 (step 5 is priority(), asked by schedule()). */
static int update_priorities(struct gw *w, struct errbuf *err)
{
    int T = w->T;
    int reset = w->need_update &&
                (w->now - w->last_reset >= w->cfg.min_realloc_s || w->last_reset == 0);
    if (reset) {
        double elapsed = w->now - w->last_reset;
        for (int t = 0; t < T; t++) {
            w->worker_time[t] = 0;
            for (int k = 0; k < w->nact; k++) {
                struct gjob *j = w->act[k];
                double received = j->tsf[t] - w->R / 2;
                double should = j->in_alloc ? j->x[t] * elapsed : 0;
                j->deficit[t] += should - received;
                j->tsf[t] = w->R / 2;
                w->worker_time[t] += j->tsf[t];
            }
        }
        w->last_reset = w->now;
        if (reallocate(w, err) < 0)
            return -1;
        w->need_update = 0;
    }
    return 0;
}

/* Step 5 for one (job, type), computed when schedule() looks at the pair: nothing it reads
 * (x, the time so far, the worker time) changes between the update and the picks, and jobs
 * already picked on an earlier type are never asked, which saves most of an O(J T) pass. */
static double priority(const struct gw *w, const struct gjob *j, int t)
{
    double fraction = w->worker_time[t] == 0 ? 0 : j->tsf[t] / w->worker_time[t];
    if (!j->in_alloc || j->x[t] == 0 || j->T[t] == 0)
        return 0;
    if (fraction > 0)
        return j->x[t] / fraction;
    return j->x[t] * 1e9;
}

/* Gavel's order for one type: (priority, deficit, x) descending, then id order (its sort is
 * stable).  1 if a comes before b. */
static int before(const struct entry *a, const struct entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit;
    if (a->x != b->x)
        return a->x > b->x;
    return a->index < b->index;
}

/* A binary heap in that order: picking stops once the type is full, usually after a few
 * dozen jobs, so popping in order beats sorting every active job every round.  It holds
 * (priority, entry) keys (struct key), which decide almost every comparison by the priority
 * alone. */
static int key_before(const struct key *a, const struct key *b, const struct entry *e)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    return before(&e[a->i], &e[b->i]);
}

/* The child of i in h[0..n) that comes first, -1 for a leaf. */
static int first_child(const struct key *h, int n, int i, const struct entry *ent)
{
    int c = 2 * i + 1;
    if (c >= n)
        return -1;
    return c + 1 < n && key_before(&h[c + 1], &h[c], ent) ? c + 1 : c;
}

static void sift_down(struct key *h, int n, int i, const struct entry *ent)
{
    struct key e = h[i];
    for (;;) {
        int c = first_child(h, n, i, ent);
        if (c < 0 || !key_before(&h[c], &e, ent))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

/* Remove the root of h[0..n): the hole it leaves goes down the better child of each level
 * to a leaf (one comparison a level), and the last key climbs back from there, usually a
 * level or two: about half the comparisons of sifting the last key down from the root. */
static void pop_root(struct key *h, int n, const struct entry *ent)
{
    struct key last = h[n - 1];
    n--;
    int i = 0;
    for (int c; (c = first_child(h, n, i, ent)) >= 0; i = c)
        h[i] = h[c];
    while (i > 0 && key_before(&last, &h[(i - 1) / 2], ent)) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = last;
}

/* Take j for type t. */
static void take(struct gw *w, struct gjob *j, int t, int *left)
{
    *left -= j->sf;
    j->run_w = t;
    w->picked[j->pos / 64] |= (uint64_t)1 << (j->pos % 64);
}

/* Pick jobs of h[0..n) for type t in Gavel's order while it has GPUs left: a job that does
 * not fit is passed over, so smaller ones further down may still start. */
static void pick(struct gw *w, struct entry *h, int n, int t, int *left)
{
    /* when they all fit, each fits at its turn whatever the order: no need to order them */
    int need = 0;
    for (int i = 0; i < n && need <= *left; i++)
        need += h[i].j->sf;
    if (need <= *left) {
        for (int i = 0; i < n; i++)
            take(w, h[i].j, t, left);
        return;
    }
    struct key *k = w->keys;
    for (int i = 0; i < n; i++)
        k[i] = (struct key){ h[i].prio, i };
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(k, n, i, h);
    while (n > 0 && *left > 0) {
        struct gjob *j = h[k[0].i].j;
        pop_root(k, n--, h);
        if (j->sf <= *left)
            take(w, j, t, left);
    }
}

/* Pick, in Gavel's order, the unpicked jobs of priority <= 0 on type t: the zero list, in
 * its kept order, merged with h[0..n) (jobs with a share whose priority is not positive;
 * none while x >= 0, as x / fraction >= x when the fraction is at most 1). */
static void pick_rest(struct gw *w, struct entry *h, int n, int t, int *left)
{
    for (int a = 1; a < n; a++)         /* insertion sort: n is 0 but for odd policies */
        for (int b = a; b > 0 && before(&h[b], &h[b - 1]); b--) {
            struct entry e = h[b];
            h[b] = h[b - 1];
            h[b - 1] = e;
        }
    struct gjob **z = w->zero[t];
    int nz = w->nzero[t], i = 0, k = 0;
    while (*left > 0 && (i < nz || k < n)) {
        struct gjob *j;
        if (i < nz && z[i]->run_w != -1) {
            i++;                        /* picked on an earlier type */
            continue;
        }
        if (i < nz && k < n) {
            struct entry e = { 0, z[i]->deficit[t], 0, z[i]->index, z[i] };
            j = before(&e, &h[k]) ? z[i++] : h[k++].j;
        } else {
            j = i < nz ? z[i++] : h[k++].j;
        }
        if (j->sf <= *left)
            take(w, j, t, left);
    }
}

/* Start j's micro-task on its type for this round. */
static int start(struct gw *w, struct gjob *j)
{
    int t = j->run_w;
    int64_t steps = (int64_t)(j->T[t] * w->R);
    if (steps > j->total - j->done)
        steps = j->total - j->done;
    j->run_steps = steps;
    j->run_start = w->now;
    j->run_finish = w->now + (double)steps / j->T[t];
    if (j->first_start < 0)
        j->first_start = w->now;
    if (j->last_round == w->round - 1 && j->last_w != t)
        j->migrations++;
    j->last_w = t;
    j->last_round = w->round;
    double run_s = (double)steps / j->T[t];
    j->gpu_s[t] += j->sf * run_s;
    j->attained += j->sf * run_s;
    if (add_busy(w, t, w->now, j->run_finish, j->sf) < 0)
        return -1;
    w->run[w->nrun++] = j;
    return 0;
}

/* Steps 6 and 7.  Every active job enters with run_w = -1. */
static int schedule(struct gw *w, struct errbuf *err)
{
    if (update_priorities(w, err) < 0)
        return -1;
    int order[CLUSTER_MAX_TYPES], T = w->T;
    memcpy(order, w->order, sizeof order);
    if (w->al.agnostic)
        gsl_ran_shuffle(w->shuffle, order, (size_t)T, sizeof *order);
    int left[CLUSTER_MAX_TYPES];
    for (int t = 0; t < T; t++)
        left[t] = (int)w->cap[t];
    w->round++;
    for (int oi = 0; oi < T; oi++) {
        int t = order[oi], np = 0, nr = 0;
        struct entry *rest = w->ent + w->ncand[t];  /* non-positive ones fill down from the end */
        for (int k = 0; k < w->ncand[t]; k++) {
            struct gjob *j = w->cand[t][k];
            if (j->run_w != -1)
                continue;               /* picked on an earlier type */
            double prio = priority(w, j, t);
            if (w->al.fifo && prio <= 0)
                continue;
            struct entry e = { prio, j->deficit[t], j->x[t], j->index, j };
            if (e.prio > 0)
                w->ent[np++] = e;
            else
                *--rest = e, nr++;
        }
        /* priorities are >= 0, so every positive one comes first: the zero ones (no share of
         * this type) are ordered only when the positive ones leave GPUs free */
        pick(w, w->ent, np, t, &left[t]);
        if (left[t] > 0 && !w->al.fifo)
            pick_rest(w, rest, nr, t, &left[t]);
    }
    /* the picks in act order (add_busy's sums follow it), from the bit set */
    w->nrun = 0;
    int words = w->nact / 64 + 1;
    for (int q = 0; q < words; q++) {
        uint64_t bits = w->picked[q];
        w->picked[q] = 0;
        while (bits != 0) {
            struct gjob *j = w->act[q * 64 + __builtin_ctzll(bits)];
            bits &= bits - 1;
            if (!j->in_alloc)
                j->run_w = -1;          /* picked without an allocation: its GPUs idle */
            else if (start(w, j) < 0)
                return err_run(err, "out of memory");
        }
    }
    for (int k = 0; k < w->nprev; k++)
        if (w->prev[k]->run_w < 0)
            w->prev[k]->preemptions++;  /* ran last round, not in this one */
    if (seg_round(w, err) < 0)
        return -1;
    if (w->cfg.round_samples && w->sink.sample != NULL) {
        /* GPUs per type that run a micro-task, and the micro-tasks: recorded on change */
        const catalog *cat = cluster_catalog(w->cl);
        simtime at = sim_from_sec(w->now);
        double busy[CLUSTER_MAX_TYPES + 1] = { 0 };
        for (int k = 0; k < w->nrun; k++)
            busy[w->run[k]->run_w] += w->run[k]->sf;
        busy[T] = w->nrun;
        for (int t = 0; t <= T; t++) {
            if (w->round_logged && busy[t] == w->round_last[t])
                continue;
            w->round_last[t] = busy[t];
            char name[64];
            if (t < T)
                snprintf(name, sizeof name, "round_gpus_%s", catalog_gpu(cat, w->types[t])->name);
            else
                snprintf(name, sizeof name, "round_jobs_running");
            if (w->sink.sample(w->sink.ctx, at, name, busy[t], err) < 0)
                return -1;
        }
        w->round_logged = 1;
    }
    return 0;
}

static int on_round(void *ctx, const struct evq_event *ev, struct errbuf *err)
{
    (void)ev;
    struct gw *w = ctx;
    if (!w->have_pending && w->nrun == 0)
        w->last_reset = 0;              /* Gavel forces a reset when nothing is left to wait for */
    double max_finish = 0;
    for (int k = 0; k < w->nrun; k++)
        if (w->run[k]->run_finish > max_finish)
            max_finish = w->run[k]->run_finish;
    if (w->nrun > 0 && max_finish > 0) {
        if (w->have_round_end)
            w->round_start = w->round_end;
        w->round_end = max_finish;
        w->have_round_end = 1;
        w->now = max_finish;
    } else if (w->have_pending) {
        w->now = sim_to_sec(w->pending.arrival);
    }
    if (complete_round(w, err) < 0 || admit(w, err) < 0)
        return ENGINE_FAIL;
    credit_window(w);
    if (w->nact == 0 && !w->have_pending)
        return ENGINE_CONTINUE;            /* every job is done: nothing more to schedule */
    int had_update = w->need_update;
    if (schedule(w, err) < 0)
        return ENGINE_FAIL;
    if (w->sink.tick != NULL)
        w->sink.tick(w->sink.ctx, sim_from_sec(w->now), engine_events(w->eng));
    simtime next;
    if (w->nrun > 0) {
        double mf = 0;
        for (int k = 0; k < w->nrun; k++)
            if (w->run[k]->run_finish > mf)
                mf = w->run[k]->run_finish;
        next = sim_from_sec(mf);
        w->idle_loops = 0;
    } else if (w->have_pending) {
        next = w->pending.arrival;
        w->idle_loops = 0;
    } else {
        /* nothing runs and nothing will arrive: Gavel loops at the same instant, which helps
         * only if the allocation is still to be recomputed */
        if (!had_update || ++w->idle_loops > 2)
            return err_run(err, "Gavel mode stalled at t=%.3f s: %d jobs can run nowhere "
                           "under this policy's allocation", w->now, w->nact),
                   ENGINE_FAIL;
        next = sim_from_sec(w->now);
    }
    if (next < engine_now(w->eng))
        next = engine_now(w->eng);
    if (engine_at(w->eng, next, EV_ROUND, 0, NULL) < 0)
        return err_run(err, "out of memory"), ENGINE_FAIL;
    return ENGINE_CONTINUE;
}

static int emit_samples(struct gw *w, struct errbuf *err)
{
    if (w->sink.sample == NULL || w->cfg.sample_period <= 0)
        return 0;
    double P = sim_to_sec(w->cfg.sample_period), total = 0;
    for (int t = 0; t < w->T; t++)
        total += w->cap[t];
    size_t n = (size_t)(w->now / P) + 1;
    const catalog *cat = cluster_catalog(w->cl);
    for (size_t b = 0; b < n && b < w->nbuckets; b++) {
        simtime at = sim_from_sec((double)(b + 1) * P);
        double all = 0;
        for (int t = 0; t < w->T; t++) {
            char name[64];
            double v = w->bucket[b * (size_t)w->T + (size_t)t];
            snprintf(name, sizeof name, "util_%s", catalog_gpu(cat, w->types[t])->name);
            if (w->sink.sample(w->sink.ctx, at, name, v / (w->cap[t] * P), err) < 0)
                return -1;
            all += v;
        }
        if (w->sink.sample(w->sink.ctx, at, "util_total", all / (total * P), err) < 0)
            return -1;
    }
    return 0;
}

static void free_world(struct gw *w)
{
    for (int k = 0; k < w->nact; k++)
        job_free(w->act[k]);
    for (int t = 0; t < w->T; t++)
        free(w->type_gpu[t]);
    free(w->gpu_used);
    free(w->act);
    free(w->run);
    free(w->run_tmp);
    free(w->credit);
    free(w->ent);
    free(w->keys);
    free(w->prev);
    free(w->picked);
    for (int t = 0; t < w->T; t++) {
        free(w->cand[t]);
        free(w->zero[t]);
    }
    free(w->bucket);
    free(w->p_id);
    free(w->p_scale);
    free(w->p_user);
    free(w->p_cur);
    free(w->p_weight);
    free(w->p_thr);
    free(w->p_x);
    free(w->p_work);
    free(w->p_rem);
    free(w->p_age);
    free(w->p_att);
    free(w->p_restore);
    if (w->shuffle)
        gsl_rng_free(w->shuffle);
    engine_destroy(w->eng);
}

int gavel_run(const cluster *cl, const tput *model, const struct gavel_config *cfg,
              struct entity_source *src, const struct train_decider *alloc,
              const struct train_sink *sink, struct gavel_totals *out, struct errbuf *err)
{
    struct gw w = { .cl = cl, .m = model, .cfg = *cfg, .src = src, .al = *alloc,
                    .sink = *sink, .R = sim_to_sec(cfg->round) };
    memset(out, 0, sizeof *out);
    const int *types;
    w.T = cluster_types(cl, &types);
    const catalog *cat = cluster_catalog(cl);
    for (int t = 0; t < w.T; t++) {
        w.types[t] = types[t];
        w.cap[t] = cluster_type_count(cl, types[t]);
        w.order[t] = t;
    }
    /* Gavel's order is v100, p100, k80: fastest first; here by peak FP32, then name */
    for (int a = 1; a < w.T; a++)
        for (int b = a; b > 0; b--) {
            const struct gpu_spec *p = catalog_gpu(cat, w.types[w.order[b - 1]]),
                                  *q = catalog_gpu(cat, w.types[w.order[b]]);
            if (q->fp32_tflops > p->fp32_tflops ||
                (q->fp32_tflops == p->fp32_tflops && strcmp(q->name, p->name) < 0)) {
                int x = w.order[b];
                w.order[b] = w.order[b - 1];
                w.order[b - 1] = x;
            } else {
                break;
            }
        }
    w.eng = engine_create(16);
    w.shuffle = rng_stream(cfg->seed, "gavel-type-order");
    int rc = -1, oom = w.eng == NULL || w.shuffle == NULL;
    if (sink->segment != NULL) {
        int ng = cluster_ngpus(cl);
        oom |= (w.gpu_used = calloc((size_t)ng + 1, 1)) == NULL;
        for (int t = 0; t < w.T && !oom; t++) {
            int n = 0;
            if ((w.type_gpu[t] = malloc(((size_t)w.cap[t] + 1) * sizeof **w.type_gpu)) == NULL)
                oom = 1;
            for (int g = 0; g < ng && !oom; g++)
                if (cluster_gpu_type(cl, g) == w.types[t])
                    w.type_gpu[t][n++] = g;
        }
    }
    if (oom) {
        err_run(err, "out of memory");
        goto out;
    }
    int explicit_window = cfg->measure.to > cfg->measure.from;
    w.win = explicit_window ? cfg->measure : (struct window){ INFINITY, INFINITY };
    if (read_pending(&w, err) < 0)
        goto out;
    if (!explicit_window && w.have_pending)
        w.win.from = sim_to_sec(w.pending.arrival);
    if (w.have_pending) {
        w.now = sim_to_sec(w.pending.arrival);
        if (engine_at(w.eng, w.pending.arrival, EV_ROUND, 0, NULL) < 0) {
            err_run(err, "out of memory");
            goto out;
        }
    }
    struct engine_limits lim = { SIM_NEVER, cfg->max_events };
    int stop = engine_run(w.eng, on_round, NULL, &w, &lim, err);
    if (stop == ENGINE_FAILED)
        goto out;
    /* jobs still active when a limit stopped the run leave unfinished */
    while (w.nact > 0) {
        struct gjob *j = w.act[0];
        remove_active(&w, j);
        if (seg_close(&w, j, w.now, TL_STOP, err) < 0 || emit(&w, j, 1, err) < 0) {
            job_free(j);
            goto out;
        }
        job_free(j);
    }
    if (emit_samples(&w, err) < 0)
        goto out;
    out->t.end = sim_from_sec(w.now);
    out->t.makespan = w.tot.t.makespan;
    out->t.jobs_in = w.tot.t.jobs_in;
    out->t.jobs_done = w.tot.t.jobs_done;
    out->t.preemptions = w.tot.t.preemptions;
    out->t.migrations = w.tot.t.migrations;
    out->t.decisions = w.tot.t.decisions;
    out->t.events = engine_events(w.eng);
    out->t.stop = stop;
    credit_window(&w);
    for (int t = 0; t < w.T; t++) {
        out->t.busy_gpu_s[t] = w.busy[t];
        out->t.window_busy_gpu_s[t] = w.win_busy[t];
    }
    out->t.window = w.win;
    if (out->t.window.to > w.now)
        out->t.window.to = w.now;
    out->t.window_norm_s = w.win_norm;
    double N = 0;
    for (int t = 0; t < w.T; t++)
        N += w.cap[t];
    out->utilization = w.now > 0 ? w.worker_cum / (N * w.now) : 0;
    out->dropped = w.tot.dropped;
    rc = 0;
out:
    free_world(&w);
    return rc;
}
