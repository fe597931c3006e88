/*
 * run: the driver (run.h).  A world writes through the writer below: its rows go straight
 * to the database writer, which spools them to a file until the commit, so memory follows
 * what the world keeps, not the trace; its metrics are both stored and kept in the
 * run_result.
 *
 * The progress line (run_opts.progress) is drawn by a thread of its own from the last state
 * the world reported, four times a second, so that it moves on (elapsed, ETA) while the
 * world is busy in one long decision; the world's calls only store the state under a lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../models/siaprof.h"
#include "../../sched/policy.h"
#include "../../workloads/workload.h"
#include "../core/engine.h"
#include "../base/version.h"

int run_env_open(struct run_env *env, const struct experiment *e, struct errbuf *err)
{
    memset(env, 0, sizeof *env);
    if (catalog_load(&env->cat, e->gpus_path, e->links_path, err) < 0 ||
        tput_create(&env->model, env->cat, err) < 0 ||
        tput_load_types(env->model, e->jobtypes_path, err) < 0)
        goto fail;
    for (int i = 0; i < e->nprofiles; i++)
        if (tput_load_profile(env->model, e->profiles[i], err) < 0)
            goto fail;
    if (e->gavel_tput_path[0] && tput_load_gavel(env->model, e->gavel_tput_path, err) < 0)
        goto fail;
    if (e->cluster.node != NULL ? cluster_from_json(&env->cl, env->cat, &e->cluster, err)
                                : cluster_load(&env->cl, env->cat, e->cluster_path, err))
        goto fail;
    /* Sia's profiles, for the cluster's GPU types (a profile's triangulation is built only
     * where it is used) */
    const int *types;
    int ntypes = cluster_types(env->cl, &types);
    if (e->elastic_sia_path[0] &&
        siaprof_load(env->model, env->cat, types, ntypes, e->elastic_apps_path,
                     e->elastic_sia_path, "models.elastic_sia", err) < 0)
        goto fail;
    return 0;
fail:
    run_env_close(env);
    return -1;
}

void run_env_close(struct run_env *env)
{
    cluster_destroy(env->cl);
    tput_destroy(env->model);
    catalog_destroy(env->cat);
    memset(env, 0, sizeof *env);
}

double run_metric(const struct run_result *r, const char *name)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0)
            return r->metrics[i].value;
    return NAN;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- the world's writer */

struct writer_ctx {
    db                *db;          /* NULL: rows go nowhere */
    struct run_result *res;
    const struct run_opts *o;
    double             t0;
    /* progress: the last state reported, and the thread that draws it */
    int                watch;       /* o->progress or o->on_progress */
    pthread_mutex_t    mu;
    pthread_cond_t     cv;
    pthread_t          ticker;
    int                ticking, stop;
    struct progress_run now;
};

static int w_row(void *ctx, const char *table, const char *const *cols,
                 const struct row_value *v, int n, struct errbuf *err)
{
    struct writer_ctx *w = ctx;
    return w->db != NULL ? db_row(w->db, table, cols, v, n, err) : 0;
}

static int w_sample(void *ctx, simtime t, const char *name, double value, struct errbuf *err)
{
    struct writer_ctx *w = ctx;
    return w->db != NULL ? db_sample(w->db, sim_to_sec(t), name, value, err) : 0;
}

static int w_metric(void *ctx, const char *name, double value, struct errbuf *err)
{
    struct writer_ctx *w = ctx;
    struct run_result *r = w->res;
    if (r->nmetrics == RUN_MAX_METRICS)
        return err_run(err, "more than %d metrics in one run", RUN_MAX_METRICS);
    snprintf(r->metrics[r->nmetrics].name, sizeof r->metrics[0].name, "%s", name);
    r->metrics[r->nmetrics++].value = value;
    return w->db != NULL ? db_metric(w->db, name, value, err) : 0;
}

static void report_progress(struct writer_ctx *w, simtime t, int64_t done, uint64_t events,
                            int have_events)
{
    if (!w->watch)
        return;
    pthread_mutex_lock(&w->mu);
    w->now.sim_s = sim_to_sec(t);
    w->now.done = done;
    if (have_events)
        w->now.events = events;
    w->now.wall_s = wall_now() - w->t0;
    struct progress_run snap = w->now;
    pthread_mutex_unlock(&w->mu);
    if (w->o->on_progress != NULL)
        w->o->on_progress(w->o->progress_ctx, &snap);
}

static void w_progress(void *ctx, simtime t, int64_t done)
{
    report_progress(ctx, t, done, 0, 0);
}

static void w_progress_events(void *ctx, simtime t, int64_t done, uint64_t events)
{
    report_progress(ctx, t, done, events, 1);
}

/* The ticker thread: redraw the line from the last state until told to stop. */
static void *tick_main(void *arg)
{
    struct writer_ctx *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        int rc = 0;
        while (!w->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
        if (w->stop)
            break;
        w->now.wall_s = wall_now() - w->t0;
        char line[512];
        progress_run_line(line, sizeof line, &w->now);
        pthread_mutex_unlock(&w->mu);
        /* \033[K: clear what a longer earlier line left */
        fprintf(stderr, "\r%s\033[K", line);
        fflush(stderr);
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void progress_start(struct writer_ctx *w, const char *label, const char *entity,
                           const struct experiment *e)
{
    w->t0 = wall_now();
    w->watch = w->o->progress || w->o->on_progress != NULL;
    w->now = (struct progress_run){
        .label = label, .entity = entity, .total = w->o->total,
        .until_s = e->sim.until != SIM_NEVER ? sim_to_sec(e->sim.until) : 0 };
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (w->o->progress)
        w->ticking = pthread_create(&w->ticker, NULL, tick_main, w) == 0;
}

/* Stop the ticker and clear its line. */
static void progress_stop(struct writer_ctx *w)
{
    if (w->ticking) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->ticker, NULL);
        fputs("\r\033[K", stderr);
        w->ticking = 0;
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

static const char *stop_name(int stop)
{
    switch (stop) {
    case ENGINE_UNTIL:      return "time_limit";
    case ENGINE_MAX_EVENTS: return "event_limit";
    case ENGINE_STALLED:    return "stalled";
    default:                return "drained";
    }
}

/* ---------------------------------------------------------------- checks */

/* An input error at policy i of e: its element of "policies", or --policy. */
static int policy_error(const struct experiment *e, const struct experiment_policy *ep,
                        struct errbuf *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int policy_error(const struct experiment *e, const struct experiment_policy *ep,
                        struct errbuf *err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ep->node == NULL)
        return err_input(err, "--policy", 0, NULL, "%s", msg);
    return jsonf_error(e->doc, ep->node, ep->field, err, "%s", msg);
}

/* What an opened policy must be for this experiment: of its domain, and what its world asks
 * of it.  run_check and run_one both ask, so that `validate` accepts exactly what `run`
 * accepts. */
static int check_policy(const struct experiment *e, const struct experiment_policy *ep,
                        const policy *p, struct errbuf *err)
{
    const struct policy_ops *ops = policy_ops_of(p);
    char why[384];
    if (strcmp(ops->domain, e->domain) != 0)
        return policy_error(e, ep, err, "policy '%s' is for the %s domain; the experiment is "
                            "%s", ops->name, ops->domain, e->domain);
    if (e->world->check_policy != NULL &&
        e->world->check_policy(e->world_config, policy_decider(p), why, sizeof why) < 0)
        return policy_error(e, ep, err, "policy '%s' %s", ops->name, why);
    return 0;
}

/* Tenant k's policy under broker policy entry pi: the entry's "tenants" one, else the
 * section's. */
static const struct experiment_policy *tenant_policy(const struct experiment *e, int pi, int k)
{
    const struct experiment_policy *q = &e->tenant_policy[pi][k];
    return q->name != NULL ? q : &e->tenant[k]->policies[0];
}

/* The workload of e, checked against the domain of its format. */
static int open_workload(const struct experiment *e, const struct run_env *env, workload **wl,
                         struct errbuf *err)
{
    struct workload_env wenv = { env->model, e->seed, e->base_dir };
    if (workload_open(wl, &e->workload, &wenv, err) < 0)
        return -1;
    const char *domain = workload_domain(*wl);
    if (strcmp(domain, e->domain) != 0) {
        workload_close(*wl);
        *wl = NULL;
        return jsonf_error(e->doc, e->workload.node, JOBJ_FIELD(&e->workload, "format"), err,
                           "the format is for the %s domain; the experiment is %s", domain,
                           e->domain);
    }
    return 0;
}

/* ---------------------------------------------------------------- tenants */

/* A tenant's writer: its rows as they are, its samples and metrics under its name
 * ("serving_ttft_p99"), no progress of its own. */
struct tenant_writer {
    const struct world_writer *up;
    const char *name;
};

static int t_row(void *ctx, const char *table, const char *const *cols,
                 const struct row_value *v, int n, struct errbuf *err)
{
    const struct tenant_writer *t = ctx;
    return t->up->row(t->up->ctx, table, cols, v, n, err);
}

static int t_sample(void *ctx, simtime at, const char *name, double value, struct errbuf *err)
{
    const struct tenant_writer *t = ctx;
    char full[96];
    snprintf(full, sizeof full, "%s_%s", t->name, name);
    return t->up->sample(t->up->ctx, at, full, value, err);
}

static int t_metric(void *ctx, const char *name, double value, struct errbuf *err)
{
    const struct tenant_writer *t = ctx;
    char full[96];
    snprintf(full, sizeof full, "%s_%s", t->name, name);
    return t->up->metric(t->up->ctx, full, value, err);
}

/* An error of tenant `name`'s: its name before the message, unless the message names a
 * field of its section (tenants.NAME.FIELD), which says so already. */
static int tenant_error(struct errbuf *err, const char *name)
{
    char at[96];
    snprintf(at, sizeof at, ": tenants.%s.", name);
    if (strstr(err->msg, at) == NULL)
        err_prefix(err, "tenant %s: ", name);
    return -1;
}

struct tenant_run {
    workload            *wl;
    policy              *pol;
    cluster             *sub;           /* its part of the cluster (NULL: all of it) */
    struct tenant_writer tw;
    struct world_writer  out;
    struct world_sim     sim;
    struct world_env     env;
};

struct tenants {
    struct tenant_run   t[EXPERIMENT_MAX_TENANTS];
    struct world_tenant wt[EXPERIMENT_MAX_TENANTS];
    int                 n;
};

static int check_policy(const struct experiment *e, const struct experiment_policy *ep,
                        const policy *p, struct errbuf *err);
static const struct experiment_policy *tenant_policy(const struct experiment *e, int pi, int k);
static int open_workload(const struct experiment *e, const struct run_env *env, workload **wl,
                         struct errbuf *err);

/* Open each tenant of e (its workload, its policy under broker policy entry pi, its world,
 * created) writing through up. */
static int tenants_open(struct tenants *ts, const struct experiment *e, int pi,
                        const struct run_env *env, const struct world_writer *up,
                        struct errbuf *err)
{
    memset(ts, 0, sizeof *ts);
    for (int i = 0; i < e->ntenants; i++) {
        const struct experiment *te = e->tenant[i];
        struct tenant_run *t = &ts->t[i];
        ts->n = i + 1;
        if (e->world->tenant_cluster != NULL &&
            e->world->tenant_cluster(e->world_config, e->tenant_name[i], env->cl, &t->sub,
                                     err) < 0)
            return -1;
        const cluster *cl = t->sub != NULL ? t->sub : env->cl;
        struct policy_env penv = { e->seed, cl, env->model, e->base_dir, te->policy_timeout_s };
        ts->wt[i] = (struct world_tenant){ .name = e->tenant_name[i], .ops = te->world,
                                           .cl = cl };
        const struct experiment_policy *tp = tenant_policy(e, pi, i);
        if (open_workload(te, env, &t->wl, err) < 0 ||
            policy_open(&t->pol, tp->name, &tp->params, &penv, err) < 0 ||
            check_policy(te, tp, t->pol, err) < 0)
            return tenant_error(err, e->tenant_name[i]);
        t->tw = (struct tenant_writer){ up, e->tenant_name[i] };
        t->out = (struct world_writer){ .ctx = &t->tw, .row = up->row != NULL ? t_row : NULL,
                                        .sample = t_sample, .metric = t_metric };
        t->sim = te->sim;
        t->sim.timeline = 0;        /* the broker's timeline shows who holds each GPU */
        t->env = (struct world_env){ .cl = cl, .model = env->model, .seed = e->seed,
                                     .sim = &t->sim, .config = te->world_config,
                                     .source = workload_source(t->wl),
                                     .decider = policy_decider(t->pol), .out = &t->out };
        if (te->world->create(&ts->wt[i].world, &t->env, err) < 0)
            return tenant_error(err, e->tenant_name[i]);
    }
    return 0;
}

/* The tenants' policies' own figures, under the tenant's name (their decision times, wall
 * clock, are not kept: the run's solver_time_* are the broker's). */
static int tenants_metrics(struct tenants *ts, struct errbuf *err)
{
    for (int i = 0; i < ts->n; i++) {
        struct tenant_run *t = &ts->t[i];
        struct policy_metric_sink pm = { &t->tw, t_metric };
        if (policy_metrics(t->pol, &pm, err) < 0)
            return -1;
    }
    return 0;
}

static void tenants_close(struct tenants *ts)
{
    for (int i = 0; i < ts->n; i++) {
        if (ts->wt[i].world != NULL)
            ts->wt[i].ops->destroy(ts->wt[i].world);
        policy_close(ts->t[i].pol);
        workload_close(ts->t[i].wl);
        cluster_destroy(ts->t[i].sub);
    }
    ts->n = 0;
}

/* ---------------------------------------------------------------- one run */

int run_one(const struct experiment *e, int pi, const struct run_env *env,
            const struct run_opts *o, struct run_result *res, struct errbuf *err)
{
    memset(res, 0, sizeof *res);
    const struct experiment_policy *ep = &e->policies[pi];
    const struct world_ops *wo = e->world;
    res->policy = ep->label;
    workload *wl = NULL;
    policy *pol = NULL;
    void *world = NULL;
    struct tenants *ts = NULL;
    char *config = experiment_config_json(e, pi);
    int rc = -1, watching = 0;
    double t0 = wall_now();
    if (config == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    struct policy_env penv = { e->seed, env->cl, env->model, e->base_dir, e->policy_timeout_s };
    if ((e->ntenants == 0 && open_workload(e, env, &wl, err) < 0) ||
        policy_open(&pol, ep->name, &ep->params, &penv, err) < 0 ||
        check_policy(e, ep, pol, err) < 0)
        goto out;
    if (o->db != NULL) {
        struct db_run dr = { .experiment = e->name, .domain = e->domain, .policy = ep->label,
                             .cluster = e->cluster_ref, .cluster_name = cluster_name(env->cl),
                             .config_json = config, .version = HETSIM_VERSION,
                             .seed = (int64_t)e->seed, .sweep = o->sweep, .params = o->params,
                             .nparams = o->nparams, .sample_repeats = e->sample_repeats };
        if (db_run_begin(o->db, &dr, err) < 0)
            goto out;
    }
    struct writer_ctx wc = { .db = o->db, .res = res, .o = o };
    struct world_writer writer = { .ctx = &wc, .row = o->db != NULL ? w_row : NULL,
                                   .sample = w_sample, .metric = w_metric,
                                   .progress = w_progress,
                                   .progress_events = w_progress_events };
    struct world_env we = { .cl = env->cl, .model = env->model, .seed = e->seed,
                            .sim = &e->sim, .config = e->world_config,
                            .source = wl != NULL ? workload_source(wl) : NULL,
                            .decider = policy_decider(pol), .out = &writer };
    if (e->ntenants > 0) {
        if ((ts = malloc(sizeof *ts)) == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        if (tenants_open(ts, e, pi, env, &writer, err) < 0)
            goto out;
        we.tenants = ts->wt;
        we.ntenants = ts->n;
    }
    progress_start(&wc, ep->label, wo->entity, e);
    watching = 1;
    int ran = wo->create(&world, &we, err) == 0 && wo->run(world, &res->tot, err) == 0;
    progress_stop(&wc);
    watching = 0;
    if (!ran)
        goto out;
    if (res->tot.stop == ENGINE_STALLED)
        fprintf(stderr, "hetsim: note: %s under %s stalled at %.0f s: every GPU idle, nothing "
                "left to arrive, and waiting work the policy never starts (left unfinished; "
                "stop_reason 'stalled')\n", e->name, ep->label, sim_to_sec(res->tot.end));
    /* the policy's solver times: every domain's decisions go through the timed dispatch */
    struct policy_stats ps;
    policy_get_stats(pol, &ps);
    if (ps.calls > 0 &&
        (w_metric(&wc, "solver_time_mean", ps.time_total_s / (double)ps.calls, err) < 0 ||
         w_metric(&wc, "solver_time_max", ps.time_max_s, err) < 0))
        goto out;
    /* and its own figures (sia's branch-and-bound counts) */
    struct policy_metric_sink pm = { &wc, w_metric };
    if (policy_metrics(pol, &pm, err) < 0 || (ts != NULL && tenants_metrics(ts, err) < 0))
        goto out;
    res->wall_s = wall_now() - t0;
    if (o->db != NULL) {
        struct db_run_end end = { sim_to_sec(res->tot.end), res->wall_s,
                                  stop_name(res->tot.stop), (int64_t)res->tot.events,
                                  (int64_t)res->tot.decisions, res->tot.entities_in };
        double c0 = wall_now();
        if (db_run_commit(o->db, &end, &res->run_id, err) < 0)
            goto out;
        res->commit_s = wall_now() - c0;
    }
    rc = 0;
out:
    if (rc < 0 && o->db != NULL)
        db_run_abort(o->db);
    if (watching)
        progress_stop(&wc);
    if (world != NULL)
        wo->destroy(world);
    if (ts != NULL)
        tenants_close(ts);
    free(ts);
    policy_close(pol);
    workload_close(wl);
    free(config);
    return rc;
}

int run_check(const struct experiment *e, const struct run_env *env, struct errbuf *err)
{
    for (int i = 0; i < e->ntenants; i++) {     /* each on its part of the cluster */
        struct run_env tenv = *env;
        cluster *sub = NULL;
        if (e->world->tenant_cluster != NULL &&
            e->world->tenant_cluster(e->world_config, e->tenant_name[i], env->cl, &sub,
                                     err) < 0)
            return -1;
        if (sub != NULL)
            tenv.cl = sub;
        int rc = run_check(e->tenant[i], &tenv, err);
        /* and the policies the broker's entries give it instead of its own */
        struct policy_env tpenv = { e->seed, tenv.cl, env->model, e->base_dir,
                                    e->tenant[i]->policy_timeout_s };
        for (int pi = 0; pi < e->npolicies && rc == 0; pi++) {
            const struct experiment_policy *q = &e->tenant_policy[pi][i];
            policy *p;
            if (q->name == NULL)
                continue;
            rc = policy_open(&p, q->name, &q->params, &tpenv, err);
            if (rc == 0) {
                rc = check_policy(e->tenant[i], q, p, err);
                policy_close(p);
            }
        }
        cluster_destroy(sub);
        if (rc < 0)
            return tenant_error(err, e->tenant_name[i]);
    }
    workload *wl;
    if (e->ntenants == 0) {
        if (open_workload(e, env, &wl, err) < 0)
            return -1;
        workload_close(wl);
    }
    struct policy_env penv = { e->seed, env->cl, env->model, e->base_dir, e->policy_timeout_s };
    for (int i = 0; i < e->npolicies; i++) {
        policy *p;
        if (policy_open(&p, e->policies[i].name, &e->policies[i].params, &penv, err) < 0)
            return -1;
        int rc = check_policy(e, &e->policies[i], p, err);
        policy_close(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int run_seed_matters(const struct experiment *e, const struct run_env *env, char *why,
                     size_t cap)
{
    for (int i = 0; i < e->ntenants; i++)
        if (run_seed_matters(e->tenant[i], env, why, cap))
            return 1;
    if (e->ntenants > 0) {
        snprintf(why, cap, "in experiment '%s' the seed changes nothing (no tenant's workload "
                 "or policy draws at random)", e->name);
        return 0;
    }
    if (workload_seeded(&e->workload))
        return 1;
    struct policy_env penv = { e->seed, env->cl, env->model, e->base_dir, e->policy_timeout_s };
    for (int i = 0; i < e->npolicies; i++) {
        policy *p;
        struct errbuf ignored;
        if (policy_open(&p, e->policies[i].name, &e->policies[i].params, &penv, &ignored) < 0)
            continue;
        int seeded = (policy_ops_of(p)->flags & POLICY_SEEDED) ||
                     (e->world->uses_seed != NULL &&
                      e->world->uses_seed(e->world_config, policy_decider(p)));
        policy_close(p);
        if (seeded)
            return 1;
    }
    const char *fmt = "?";
    jobj_str(&e->workload, "format", JOPT, &fmt, &(struct errbuf){ 0 });
    snprintf(why, cap, "in experiment '%s' the seed changes nothing (its workload, format "
             "'%s', draws nothing at random%s, and none of its policies does)", e->name, fmt,
             strcmp(fmt, "hetsim") == 0 ? " without a workload.job_types mix" : "");
    return 0;
}

int run_list(const struct experiment *e, const struct run_env *env, FILE *out,
             int64_t *count, struct errbuf *err)
{
    workload *wl;
    *count = 0;
    for (int i = 0; i < e->ntenants; i++) {
        int64_t n;
        if (run_list(e->tenant[i], env, out, &n, err) < 0)
            return tenant_error(err, e->tenant_name[i]);
        *count += n;
    }
    if (e->ntenants > 0)
        return 0;
    if (open_workload(e, env, &wl, err) < 0)
        return -1;
    struct world_env we = { .cl = env->cl, .model = env->model, .seed = e->seed,
                            .sim = &e->sim, .config = e->world_config,
                            .source = workload_source(wl) };
    int rc = e->world->check_source(&we, out, count, err);
    workload_close(wl);
    return rc;
}
