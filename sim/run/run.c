/*
 * run: glue between an experiment, the training world, a policy and the database.
 * The world reports each job as it leaves; the sink writes its rows at once (inside the run's
 * transaction) and keeps only the few numbers the summary needs, so memory follows the active
 * jobs, not the trace.
 */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../sched/policy.h"
#include "../../workloads/workload.h"
#include "../train/gavel.h"
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

struct sink_ctx {
    db            *db;
    summary       *sum;
    const cluster *cl;
    const tput    *model;
    const char    *policy;
    int            progress;
    int64_t        left;
    double         next_print;
};

static void progress_line(struct sink_ctx *s, double t_sim)
{
    double now = wall_now();
    if (now < s->next_print)
        return;
    s->next_print = now + 0.5;
    fprintf(stderr, "\r%-16s sim %12.0f s   jobs done %10lld ", s->policy, t_sim,
            (long long)s->left);
}

static int sink_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    struct sink_ctx *s = ctx;
    const struct train_job *j = r->job;
    double arrival = sim_to_sec(j->arrival);
    double first = j->first_start >= 0 ? sim_to_sec(j->first_start) : -1;
    double finish = r->finish >= 0 ? sim_to_sec(r->finish) : -1;
    if (summary_job(s->sum, j->id, finish >= 0 ? finish - arrival : -1,
                    first >= 0 ? first - arrival : -1, r->rho) < 0)
        return err_run(err, "out of memory");
    if (s->progress && ((++s->left) & 1023) == 0)
        progress_line(s, finish >= 0 ? finish : arrival);
    if (s->db == NULL)
        return 0;
    struct db_job row = {
        .job_id = r->trace_id, .user = j->user, .workers = j->workers,
        .preemptions = j->preemptions, .migrations = j->migrations,
        .job_type = tput_type(s->model, j->jtype)->name, .work = j->work,
        .arrival_s = arrival, .first_start_s = first, .finish_s = finish, .n_avg = r->n_avg,
        .t_iso_s = r->t_iso, .ftf_rho = r->rho,
        .attained = train_view_attained(j, j->updated),
    };
    if (db_job(s->db, &row, err) < 0)
        return -1;
    const int *types;
    int nt = cluster_types(s->cl, &types);
    for (int i = 0; i < nt; i++)
        if (r->gpu_s[i] > 0 &&
            db_job_gpu(s->db, r->trace_id, catalog_gpu(cluster_catalog(s->cl), types[i])->name,
                       r->gpu_s[i], err) < 0)
            return -1;
    return 0;
}

static int sink_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    struct sink_ctx *s = ctx;
    return s->db ? db_sample(s->db, sim_to_sec(t), name, v, err) : 0;
}

static const char *stop_name(int stop)
{
    switch (stop) {
    case ENGINE_UNTIL:      return "time_limit";
    case ENGINE_MAX_EVENTS: return "event_limit";
    default:             return "drained";
    }
}

/* An input error at policy i of e: its element of "policies", or --policy. */
static int policy_error(const struct experiment *e, int i, struct errbuf *err, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static int policy_error(const struct experiment *e, int i, struct errbuf *err, const char *fmt,
                        ...)
{
    char msg[512], field[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const cJSON *node = e->policies[i].node;
    if (node == NULL)
        return err_input(err, "--policy", 0, NULL, "%s", msg);
    snprintf(field, sizeof field, "policies[%d]", i);
    return jsonf_error(e->doc, node, field, err, "%s", msg);
}

/* What an opened policy must be for this experiment: of its domain, and with an allocation
 * rule in Gavel-compatible mode.  run_check and run_training both ask, so that `validate`
 * accepts exactly what `run` accepts. */
static int check_policy(const struct experiment *e, int i, const policy *p, struct errbuf *err)
{
    const struct policy_ops *ops = policy_ops_of(p);
    if (strcmp(ops->domain, e->domain) != 0)
        return policy_error(e, i, err, "policy '%s' is for the %s domain; the experiment is %s",
                            ops->name, ops->domain, e->domain);
    if (e->mode == EXPERIMENT_GAVEL && ops->allocate == NULL)
        return policy_error(e, i, err, "policy '%s' has no allocation rule, which "
                            "Gavel-compatible mode (\"mode\": \"gavel\") needs (fifo_perf, "
                            "gavel_las, gavel_las_perf, gavel_ftf and the other round-based "
                            "policies have one)", ops->name);
    return 0;
}

int run_training(const struct experiment *e, int pi, const struct run_env *env,
                 const struct run_opts *o, struct run_result *res, struct errbuf *err)
{
    memset(res, 0, sizeof *res);
    const struct experiment_policy *ep = &e->policies[pi];
    res->policy = ep->name;
    workload *wl = NULL;
    policy *pol = NULL;
    train *world = NULL;
    summary *sum = summary_create(e->steady_first, e->steady_last);
    char *config = experiment_config_json(e, pi);
    int rc = -1;
    double t0 = wall_now();
    if (sum == NULL || config == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    struct workload_env wenv = { env->model, e->seed, e->base_dir };
    struct policy_env penv = { e->seed, env->cl, env->model };
    if (workload_open(&wl, &e->workload, &wenv, err) < 0 ||
        policy_open(&pol, ep->name, &ep->params, &penv, err) < 0 ||
        check_policy(e, pi, pol, err) < 0)
        goto out;
    res->policy = policy_label(pol);
    if (o->db != NULL) {
        struct db_run dr = { .experiment = e->name, .domain = e->domain, .policy = res->policy,
                             .cluster = e->cluster_ref, .cluster_name = cluster_name(env->cl),
                             .config_json = config, .version = HETSIM_VERSION,
                             .seed = (int64_t)e->seed, .sweep = o->sweep, .params = o->params,
                             .nparams = o->nparams, .sample_repeats = e->sample_repeats };
        if (db_run_begin(o->db, &dr, err) < 0)
            goto out;
    }
    struct sink_ctx sc = { o->db, sum, env->cl, env->model, res->policy,
                           o->progress, 0, wall_now() + 0.5 };
    struct train_sink sink = { &sc, sink_job, sink_sample };
    const struct policy_ops *ops = policy_ops_of(pol);
    double gavel_util = -1;
    if (e->mode == EXPERIMENT_GAVEL) {
        struct gavel_config gc = { e->seed, policy_round(pol), e->gavel_min_realloc_s,
                                   e->sim.sample_period, e->sim.round_samples,
                                   e->sim.max_events, e->sim.measure };
        struct gavel_allocator ga = { pol, policy_allocate, !!(ops->flags & POLICY_AGNOSTIC),
                                      !!(ops->flags & POLICY_FIFO) };
        struct gavel_totals gt;
        if (gavel_run(env->cl, env->model, &gc, workload_source(wl), &ga, &sink, &gt, err) < 0)
            goto out;
        res->tot = gt.t;
        gavel_util = gt.utilization;
    } else {
        struct train_decider dec = { pol, policy_train_decide, ops->wake, policy_round(pol) };
        if (train_create(&world, env->cl, env->model, &e->sim, workload_source(wl), &dec, &sink,
                         err) < 0 ||
            train_run(world, &res->tot, err) < 0)
            goto out;
    }
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");

    struct policy_stats ps;
    policy_get_stats(pol, &ps);
    const int *types;
    struct summary_run sr = {
        .makespan_s = sim_to_sec(res->tot.makespan),
        .horizon_s = res->tot.jobs_done == res->tot.jobs_in ? sim_to_sec(res->tot.makespan)
                                                            : sim_to_sec(res->tot.end),
        .preemptions = res->tot.preemptions, .migrations = res->tot.migrations,
        .solver_calls = (long)ps.calls, .solver_total_s = ps.time_total_s,
        .solver_max_s = ps.time_max_s, .ntypes = cluster_types(env->cl, &types),
        .window_from_s = res->tot.window.from, .window_to_s = res->tot.window.to,
        .window_norm_s = res->tot.window_norm_s,
    };
    for (int i = 0; i < sr.ntypes; i++) {
        const struct gpu_spec *g = catalog_gpu(env->cat, types[i]);
        sr.type_name[i] = g->name;
        sr.type_count[i] = cluster_type_count(env->cl, types[i]);
        sr.type_busy_s[i] = res->tot.busy_gpu_s[i];
        sr.type_price_hr[i] = g->price_hr;
        sr.type_window_busy_s[i] = res->tot.window_busy_gpu_s[i];
    }
    res->nmetrics = summary_finish(sum, &sr, res->metrics, RUN_MAX_METRICS);
    if (gavel_util >= 0 && res->nmetrics < RUN_MAX_METRICS) {
        /* Gavel's own utilization figure (micro-task time from the round start), for
         * comparison with Gavel's simulator; util_total is hetsim's busy-GPU measure */
        snprintf(res->metrics[res->nmetrics].name, sizeof res->metrics[0].name,
                 "gavel_utilization");
        res->metrics[res->nmetrics++].value = gavel_util;
    }
    res->wall_s = wall_now() - t0;
    if (o->db != NULL) {
        for (size_t i = 0; i < res->nmetrics; i++)
            if (db_metric(o->db, res->metrics[i].name, res->metrics[i].value, err) < 0)
                goto out;
        struct db_run_end end = { sim_to_sec(res->tot.end), res->wall_s,
                                  stop_name(res->tot.stop), (int64_t)res->tot.events,
                                  (int64_t)res->tot.decisions, res->tot.jobs_in };
        double c0 = wall_now();
        if (db_run_commit(o->db, &end, &res->run_id, err) < 0)
            goto out;
        res->commit_s = wall_now() - c0;
    }
    rc = 0;
out:
    if (rc < 0 && o->db != NULL)
        db_run_abort(o->db);
    if (rc < 0 && o->progress)
        fprintf(stderr, "\n");
    train_destroy(world);
    res->policy = ep->label;    /* policy_label's string goes with the policy */
    policy_close(pol);
    workload_close(wl);
    summary_destroy(sum);
    free(config);
    return rc;
}

int run_check(const struct experiment *e, const struct run_env *env, struct errbuf *err)
{
    workload *wl;
    struct workload_env wenv = { env->model, e->seed, e->base_dir };
    if (workload_open(&wl, &e->workload, &wenv, err) < 0)
        return -1;
    workload_close(wl);
    struct policy_env penv = { e->seed, env->cl, env->model };
    for (int i = 0; i < e->npolicies; i++) {
        policy *p;
        if (policy_open(&p, e->policies[i].name, &e->policies[i].params, &penv, err) < 0)
            return -1;
        int rc = check_policy(e, i, p, err);
        policy_close(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int run_seed_matters(const struct experiment *e, char *why, size_t cap)
{
    if (workload_seeded(&e->workload))
        return 1;
    for (int i = 0; i < e->npolicies; i++) {
        const struct policy_ops *ops = policy_find(e->policies[i].name);
        if (ops == NULL)
            continue;
        if (ops->flags & POLICY_SEEDED)
            return 1;
        if (e->mode == EXPERIMENT_GAVEL && (ops->flags & POLICY_AGNOSTIC))
            return 1;       /* Gavel shuffles an agnostic policy's type order with it */
    }
    const char *fmt = "?";
    jobj_str(&e->workload, "format", JOPT, &fmt, &(struct errbuf){ 0 });
    snprintf(why, cap, "in experiment '%s' the seed changes nothing (its workload, format "
             "'%s', draws nothing at random%s, and none of its policies does)", e->name, fmt,
             strcmp(fmt, "hetsim") == 0 ? " without a workload.job_types mix" : "");
    return 0;
}

int run_list_jobs(const struct experiment *e, const struct run_env *env, FILE *out,
                  int64_t *njobs, struct errbuf *err)
{
    workload *wl;
    struct workload_env wenv = { env->model, e->seed, e->base_dir };
    *njobs = 0;
    if (workload_open(&wl, &e->workload, &wenv, err) < 0)
        return -1;
    struct job_source *src = workload_source(wl);
    struct job_spec js;
    int rc;
    simtime last = 0;
    if (out != NULL)
        fprintf(out, "id,arrival_s,job_type,workers,iterations,user,weight\n");
    while ((rc = src->next(src->ctx, &js, err)) > 0) {
        if (js.arrival < last) {
            rc = err_input(err, js.origin, js.line, "arrival", "arrivals must not decrease");
            break;
        }
        last = js.arrival;
        /* the world's own check of every job it reads */
        if ((e->mode == EXPERIMENT_GAVEL ? gavel_job_check : train_job_check)(env->cl,
                env->model, &js, err) < 0) {
            rc = -1;
            break;
        }
        (*njobs)++;
        if (out != NULL)
            fprintf(out, "%lld,%.6f,\"%s\",%d,%.17g,%d,%.17g\n", (long long)js.id,
                    sim_to_sec(js.arrival), tput_type(env->model, js.jtype)->name, js.workers,
                    js.work, js.user, js.weight);
    }
    workload_close(wl);
    return rc < 0 ? -1 : 0;
}
