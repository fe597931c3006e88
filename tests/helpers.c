/*
 * helpers: scratch directory, process spawning with captured output, database dumps.
 */
#define _GNU_SOURCE     /* realpath, posix_spawn_file_actions_addchdir_np */
#include "helpers.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../results/db.h"
#include "../sched/policy.h"
#include "../sim/run/experiment.h"
#include "../sim/base/path.h"
#include "../sim/base/rng.h"
#include "../sim/serve/serve.h"
#include "../sim/train/train.h"

extern char **environ;

/* LeakSanitizer's hook, read at exit.  Criterion 2.4's runner process loses a 48-byte block of
 * its run statistics when several tests run at once (--jobs 2), with no frame of ours on the
 * stack.  Leak checking is therefore off in the runner alone: test workers (boxfort gives them
 * BXFI_MAP) run every test body and are still checked, and so are the hetsim processes that
 * the CLI tests start. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return getenv("BXFI_MAP") == NULL;
}

static char tmpdir[256];
static pid_t tmpdir_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* At the test process's exit, its scratch directory goes (a child it forked exits too, but
 * only the process that made the directory removes it). */
static void tmpdir_remove(void)
{
    if (tmpdir[0] != '\0' && getpid() == tmpdir_owner)
        nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *th_tmpdir(void)
{
    if (tmpdir[0] == '\0') {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/hetsim-test-XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
        tmpdir_owner = getpid();
        atexit(tmpdir_remove);
    }
    return tmpdir;
}

char *th_write(const char *name, const char *text)
{
    char *path = malloc(512);
    snprintf(path, 512, "%s/%s", th_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

const char *th_shared_dir(const char *sub)
{
    /* one string per distinct sub, kept for the process's life (a short list) */
    static struct shared_dir {
        char *sub, *path;
    } dirs[16];
    const char *key = sub != NULL ? sub : "";
    int i = 0;
    for (; i < 16 && dirs[i].sub != NULL; i++)
        if (strcmp(dirs[i].sub, key) == 0)
            return dirs[i].path;
    cr_assert_lt(i, 16, "th_shared_dir: too many distinct folders");
    char real[PATH_MAX];
    /* "/work/shared" rather than "/work/main/../shared" in messages, when it exists */
    const char *root = realpath(HETSIM_DATADIR "/../shared", real) ? real
                                                                    : HETSIM_DATADIR "/../shared";
    size_t cap = strlen(root) + strlen(key) + 2;
    dirs[i].sub = strdup(key);
    dirs[i].path = malloc(cap);
    cr_assert(dirs[i].sub != NULL && dirs[i].path != NULL);
    snprintf(dirs[i].path, cap, "%s%s%s", root, *key ? "/" : "", key);
    return dirs[i].path;
}

/* th_expect_abort's state, read by the SIGABRT handler */
static char abort_want[256], abort_file[512];
static int  abort_stderr = -1;      /* the real stderr */

static void put(int fd, const char *s)
{
    for (size_t n = strlen(s); n > 0;) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* Only async-signal-safe calls, strstr aside (it touches nothing but its arguments). */
static void on_abort(int sig)
{
    char text[4096];
    ssize_t n = 0;
    int fd = open(abort_file, O_RDONLY);
    if (fd >= 0) {
        n = read(fd, text, sizeof text - 1);
        close(fd);
    }
    text[n > 0 ? n : 0] = '\0';
    unlink(abort_file);
    if (strstr(text, abort_want) != NULL) {
        signal(sig, SIG_DFL);
        raise(sig);             /* the death the test expects */
        return;
    }
    put(abort_stderr, "th_expect_abort: expected an abort by '");
    put(abort_stderr, abort_want);
    put(abort_stderr, "', but stderr says: ");
    put(abort_stderr, n > 0 ? text : "(nothing)\n");
    _exit(3);
}

void th_expect_abort(const char *want)
{
    snprintf(abort_want, sizeof abort_want, "%s", want);
    snprintf(abort_file, sizeof abort_file, "%s/abort.%d.err", th_tmpdir(), (int)getpid());
    fflush(stderr);
    abort_stderr = dup(2);
    int fd = open(abort_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(abort_stderr >= 0 && fd >= 0, "cannot redirect stderr to %s", abort_file);
    cr_assert_eq(dup2(fd, 2), 2);
    close(fd);
    struct sigaction sa = { 0 };
    sa.sa_handler = on_abort;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGABRT, &sa, NULL), 0);
}

static char *slurp_fd(int fd)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    ssize_t got;
    while ((got = read(fd, b + n, cap - n - 1)) > 0) {
        n += (size_t)got;
        if (n + 1 == cap)
            b = realloc(b, cap *= 2);
    }
    b[n] = '\0';
    return b;
}

struct th_out th_hetsim(const char *const *args)
{
    return th_hetsim_in(NULL, args);
}

struct th_out th_hetsim_in(const char *dir, const char *const *args)
{
    char outp[512], errp[512];
    static int seq;
    snprintf(outp, sizeof outp, "%s/out.%d.%d", th_tmpdir(), (int)getpid(), seq);
    snprintf(errp, sizeof errp, "%s/err.%d.%d", th_tmpdir(), (int)getpid(), seq++);
    const char *argv[64] = { HETSIM_BIN };
    int n = 1;
    for (; args[n - 1] != NULL && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (dir != NULL)
        cr_assert_eq(posix_spawn_file_actions_addchdir_np(&fa, dir), 0);
    pid_t pid;
    int rc = posix_spawn(&pid, HETSIM_BIN, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s", HETSIM_BIN);
    int status;
    waitpid(pid, &status, 0);
    struct th_out o;
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(outp, "r");
    o.out = slurp_fd(fileno(f));
    fclose(f);
    f = fopen(errp, "r");
    o.err = slurp_fd(fileno(f));
    fclose(f);
    unlink(outp);
    unlink(errp);
    return o;
}

void th_out_free(struct th_out *o)
{
    free(o->out);
    free(o->err);
}

catalog *th_catalog(void)
{
    struct errbuf err;
    err_clear(&err);
    char g[PATH_MAX_LEN], l[PATH_MAX_LEN];
    path_resolve(g, sizeof g, NULL, experiment_default_gpus);
    path_resolve(l, sizeof l, NULL, experiment_default_links);
    catalog *c = NULL;
    cr_assert_eq(catalog_load(&c, g, l, &err), 0, "%s", err.msg);
    return c;
}

tput *th_models(const catalog *c)
{
    struct errbuf err;
    err_clear(&err);
    char j[PATH_MAX_LEN], pp[PATH_MAX_LEN];
    path_resolve(j, sizeof j, NULL, experiment_default_jobtypes);
    tput *t = NULL;
    cr_assert_eq(tput_create(&t, c, &err), 0);
    cr_assert_eq(tput_load_types(t, j, &err), 0, "%s", err.msg);
    for (int i = 0; experiment_default_profiles[i] != NULL; i++) {
        path_resolve(pp, sizeof pp, NULL, experiment_default_profiles[i]);
        cr_assert_eq(tput_load_profile(t, pp, &err), 0, "%s", err.msg);
    }
    return t;
}

catalog *th_cat;
tput    *th_m;

void th_models_init(void)
{
    th_cat = th_catalog();
    th_m = th_models(th_cat);
}

void th_models_fini(void)
{
    tput_destroy(th_m);
    catalog_destroy(th_cat);
    th_m = NULL;
    th_cat = NULL;
}

cluster *th_cl;

void th_mixed_init(void)
{
    th_models_init();
    th_cl = th_cluster(th_cat, th_mixed_cluster);
}

void th_mixed_fini(void)
{
    cluster_destroy(th_cl);
    th_cl = NULL;
    th_models_fini();
}

cluster *th_cluster(const catalog *c, const char *json)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *doc;
    cr_assert_eq(jsonf_parse(&doc, "cluster.json", json, strlen(json), &err), 0, "%s", err.msg);
    struct jobj root;
    cluster *cl = NULL;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    cr_assert_eq(cluster_from_json(&cl, c, &root, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);
    return cl;
}

static void append(char **buf, size_t *n, size_t *cap, const char *s)
{
    size_t k = strlen(s);
    while (*n + k + 1 > *cap)
        *buf = realloc(*buf, *cap = *cap ? *cap * 2 : 4096);
    memcpy(*buf + *n, s, k + 1);
    *n += k;
}

char *th_query_dump(const char *db_path, const char *const *queries)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 30000);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (int q = 0; queries[q] != NULL; q++) {
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(h, queries[q], -1, &st, NULL), SQLITE_OK, "%s",
                     sqlite3_errmsg(h));
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                /* reals in hex, every bit of them: "equal" means byte for byte (the type is
                 * read before any conversion to text) */
                char real[40];
                int type = sqlite3_column_type(st, c);
                const char *v = "NULL";
                if (type == SQLITE_FLOAT) {
                    snprintf(real, sizeof real, "%a", sqlite3_column_double(st, c));
                    v = real;
                } else if (type != SQLITE_NULL) {
                    v = (const char *)sqlite3_column_text(st, c);
                }
                append(&buf, &n, &cap, v);
                append(&buf, &n, &cap, "|");
            }
            append(&buf, &n, &cap, "\n");
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return buf ? buf : strdup("");
}

char *th_db_dump(const char *db_path)
{
    static const char *const queries[] = {
        "SELECT id, experiment, domain, policy, seed, cluster, config_json, config_hash, version, "
        "sim_end_s, stop_reason, events, decisions, jobs_total, group_hash FROM runs ORDER BY id",
        "SELECT * FROM jobs ORDER BY run_id, job_id",
        "SELECT * FROM job_gpu_seconds ORDER BY run_id, job_id, gpu_type",
        "SELECT * FROM samples ORDER BY run_id, name, t_s",
        "SELECT * FROM metrics WHERE name NOT LIKE 'solver_time%' ORDER BY run_id, name",
        "SELECT * FROM run_params ORDER BY run_id, key",
        "SELECT * FROM timeline ORDER BY run_id, entity, start_s, resource",
        NULL,
    };
    return th_query_dump(db_path, queries);
}

char *th_db_dump_by_config(const char *db_path)
{
    static const char *const queries[] = {
        "SELECT experiment, domain, policy, seed, cluster, config_json, config_hash, version, "
        "sim_end_s, stop_reason, events, decisions, jobs_total, group_hash FROM runs "
        "ORDER BY config_hash",
        "SELECT r.config_hash, j.job_id, j.user, j.job_type, j.workers, j.work, j.arrival_s, "
        "j.first_start_s, j.finish_s, j.jct_s, j.queue_delay_s, j.n_avg, j.t_iso_s, j.ftf_rho, "
        "j.attained_gpu_s, j.preemptions, j.migrations FROM jobs j JOIN runs r ON "
        "r.id = j.run_id ORDER BY r.config_hash, j.job_id",
        "SELECT r.config_hash, g.job_id, g.gpu_type, g.gpu_s FROM job_gpu_seconds g "
        "JOIN runs r ON r.id = g.run_id ORDER BY r.config_hash, g.job_id, g.gpu_type",
        "SELECT r.config_hash, s.t_s, s.name, s.value FROM samples s JOIN runs r ON "
        "r.id = s.run_id ORDER BY r.config_hash, s.name, s.t_s",
        "SELECT r.config_hash, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run_id "
        "WHERE m.name NOT LIKE 'solver_time%' ORDER BY r.config_hash, m.name",
        "SELECT r.config_hash, p.sweep, p.key, p.value, p.num FROM run_params p JOIN runs r ON "
        "r.id = p.run_id ORDER BY r.config_hash, p.key",
        NULL,
    };
    return th_query_dump(db_path, queries);
}

double th_db_value(const char *db_path, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 30000);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    double v = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
                   ? sqlite3_column_double(st, 0)
                   : NAN;
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

double th_db_metric(const char *db_path, int run, const char *name)
{
    char q[256];
    snprintf(q, sizeof q, "SELECT value FROM metrics WHERE run_id = %d AND name = '%s'", run,
             name);
    return th_db_value(db_path, q);
}

void th_holds_every_gpu_once(const char *db_path, int run, int ngpu, double end)
{
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*) FROM (SELECT resource, sum(end_s - start_s) "
             "AS s FROM timeline WHERE run_id = %d GROUP BY resource) WHERE abs(s - %.17g) "
             "> 1e-6", run, end);
    cr_assert_eq(th_db_value(db_path, q), 0, "run %d: a GPU held for other than the run", run);
    snprintf(q, sizeof q, "SELECT count(DISTINCT resource) FROM timeline WHERE run_id = %d",
             run);
    cr_assert_eq(th_db_value(db_path, q), ngpu, "run %d", run);
    snprintf(q, sizeof q, "SELECT count(*) FROM timeline a JOIN timeline b ON a.run_id = "
             "b.run_id AND a.resource = b.resource AND a.rowid < b.rowid AND a.start_s < "
             "b.end_s AND b.start_s < a.end_s WHERE a.run_id = %d", run);
    cr_assert_eq(th_db_value(db_path, q), 0, "run %d: two holders of one GPU at once", run);
}

int th_array_next(void *ctx, void *out, struct errbuf *err)
{
    (void)err;
    struct th_array *a = ctx;
    if (a->next == a->n)
        return 0;
    memcpy(out, (const char *)a->items + (size_t)a->next++ * a->size, a->size);
    return 1;
}

static int keep_rec(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct th_result *res = ctx;
    const struct train_job *j = r->job;
    res->r = realloc(res->r, (size_t)(res->n + 1) * sizeof *res->r);
    res->r[res->n++] = (struct th_rec){
        r->trace_id, j->user, j->workers, sim_to_sec(j->arrival),
        j->first_start >= 0 ? sim_to_sec(j->first_start) : -1,
        r->finish >= 0 ? sim_to_sec(r->finish) : -1, r->rho, train_view_attained(j, j->updated),
        j->preemptions, j->migrations, j->work, r->best_rate };
    return 0;
}

void (*th_check_decision)(void *ctx, const struct train_view *v, const struct grant_list *out);
void *th_check_ctx;

struct watch {
    policy           *p;
    struct th_result *res;
};

/* wraps the policy's decide to record how many GPUs were granted after each decision */
static int watched(void *ctx, const struct train_view *v, struct grant_list *out,
                   struct errbuf *err)
{
    struct watch *w = ctx;
    int rc = policy_train_decide(w->p, v, out, err);
    if (rc == 0 && th_check_decision != NULL)
        th_check_decision(th_check_ctx, v, out);
    for (size_t k = 0; rc == 0 && k < out->n; k++)
        w->res->batch_set |= out->g[k].batch > 0;
    int busy = 0;
    for (int g = 0; g < cluster_ngpus(v->cl); g++)
        busy += occ_used(v->occ, g) > 0;
    if (busy > w->res->max_busy)
        w->res->max_busy = busy;
    return rc;
}

struct th_result th_run_policy(const cluster *cl, const tput *m, const struct job_spec *jobs,
                               int n, const char *name, const char *params,
                               const struct train_config *cfg)
{
    struct errbuf err;
    err_clear(&err);
    struct th_result res = { 0 };
    jsonf *doc = NULL;
    struct jobj pj = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0, "%s", err.msg);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    }
    struct policy_env env = { 1, cl, m, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, name, params ? &pj : NULL, &env, &err), 0, "%s", err.msg);
    struct th_array src = { jobs, sizeof *jobs, n, 0 };
    struct entity_source js = { &src, th_array_next };
    struct watch w = { p, &res };
    struct train_decider dec = *(const struct train_decider *)policy_decider(p);
    dec.ctx = &w;
    dec.decide = watched;
    struct train_sink sink = { .ctx = &res, .job = keep_rec };
    train *world;
    cr_assert_eq(train_create(&world, cl, m, cfg, &js, &dec, &sink, &err), 0, "%s", err.msg);
    struct train_totals tot;
    cr_assert_eq(train_run(world, &tot, &err), 0, "%s: %s", name, err.msg);
    res.decisions = (long long)tot.decisions;
    res.events = (long long)tot.events;
    res.makespan = sim_to_sec(tot.makespan);
    res.end = sim_to_sec(tot.end);
    for (int i = 0; i < CLUSTER_MAX_TYPES; i++)
        res.busy_gpu_s += tot.busy_gpu_s[i];
    train_destroy(world);
    policy_close(p);
    jsonf_destroy(doc);
    return res;
}

void th_check_run(const struct th_result *r, int n, const cluster *cl, const char *what)
{
    cr_assert_eq(r->n, n, "%s: %d of %d jobs reported", what, r->n, n);
    double attained = 0;
    for (int k = 0; k < r->n; k++) {
        const struct th_rec *x = &r->r[k];
        cr_assert_geq(x->finish, x->arrival, "%s: job %lld unfinished", what, x->id);
        cr_assert(x->first >= x->arrival && x->first <= x->finish, "%s: job %lld started at "
                  "%g, arrived at %g, finished at %g", what, x->id, x->first, x->arrival,
                  x->finish);
        double alone = x->work / x->best_rate;
        cr_assert(r->batch_set || x->finish - x->arrival >= alone * (1 - 1e-9), "%s: job %lld "
                  "took %g s, alone on its fastest type %g s", what, x->id,
                  x->finish - x->arrival, alone);
        cr_assert_leq(x->attained, x->workers * (x->finish - x->first) * (1 + 1e-9) + 1e-6,
                      "%s: job %lld holds %g GPU-s in %g s on %d GPUs", what, x->id,
                      x->attained, x->finish - x->first, x->workers);
        attained += x->attained;
    }
    cr_assert_float_eq(attained, r->busy_gpu_s, 1e-6 * r->busy_gpu_s, "%s: jobs hold %.6f "
                       "GPU-s, the world granted %.6f", what, attained, r->busy_gpu_s);
    cr_assert_leq(r->busy_gpu_s, cluster_ngpus(cl) * r->end * (1 + 1e-9), "%s", what);
    cr_assert_leq(r->max_busy, cluster_ngpus(cl), "%s", what);
    cr_assert_gt(r->max_busy, 0, "%s: no GPU ever granted", what);
}

void th_result_free(struct th_result *r)
{
    free(r->r);
    memset(r, 0, sizeof *r);
}

const struct th_rec *th_find(const struct th_result *r, long long id)
{
    for (int i = 0; i < r->n; i++)
        if (r->r[i].id == id)
            return &r->r[i];
    cr_assert_fail("job %lld not reported", id);
    return NULL;
}

const char th_mixed_cluster[] =
    "{ \"name\": \"c\", \"network\": \"ib-100g\", \"groups\": [\n"
    " { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
    " { \"count\": 2, \"gpu\": \"T4\", \"gpus_per_node\": 4 },\n"
    " { \"count\": 1, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 8 } ] }";

void th_view_init(struct th_view *tv, const cluster *cl, const tput *m, struct train_job *jobs,
                  int n, double now_s, double round_s, double restore_s)
{
    cr_assert(n >= 0 && n <= TH_VIEW_MAX);
    struct train_view *v = calloc(1, sizeof *v);
    occ *o = occ_create(cl);
    cr_assert(v != NULL && o != NULL);
    *v = (struct train_view){ .now = sim_from_sec(now_s), .cl = cl, .occ = o, .model = m,
                              .jobs = jobs, .active_head = -1, .waiting_head = -1,
                              .running_head = -1, .next_active = tv->next_active,
                              .next_waiting = tv->next_waiting,
                              .next_running = tv->next_running,
                              .round = round_s > 0 ? sim_from_sec(round_s) : 0,
                              .restore_delay_s = restore_s, .restore_fixed_s = 0,
                              .storage_gbs = 1 };
    int32_t *tail[3] = { &v->active_head, &v->waiting_head, &v->running_head };
    for (int k = n - 1; k >= 0; k--) {         /* built back to front: index order */
        struct train_job *j = &jobs[k];
        j->slot = k;
        int run = j->state == JOB_RUNNING;
        tv->next_active[k] = *tail[0];
        *tail[0] = k;
        v->n_active++;
        if (run) {
            tv->next_running[k] = *tail[2];
            *tail[2] = k;
            v->n_running++;
            cr_assert(j->ngpu > 0 && j->gpus != NULL);
            occ_take(o, j->gpus, j->ngpu, OCC_WHOLE);
        } else {
            tv->next_waiting[k] = *tail[1];
            *tail[1] = k;
            v->n_waiting++;
        }
    }
    tv->v = v;
}

void th_view_fini(struct th_view *tv)
{
    occ_destroy((occ *)tv->v->occ);
    free(tv->v);
    tv->v = NULL;
}

struct job_spec *th_random_jobs(const tput *m, int n, unsigned long seed, double mean_gap_s)
{
    static const char *const names[] = { "ResNet-18 (batch size 64)", "ResNet-50 (batch size 64)",
                                         "Transformer (batch size 64)", "LM (batch size 20)" };
    static const int workers[] = { 1, 1, 1, 2, 4, 8 };
    gsl_rng *r = rng_stream(seed, "test-jobs");
    struct job_spec *j = calloc((size_t)n, sizeof *j);
    cr_assert_not_null(j);
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += gsl_ran_exponential(r, mean_gap_s);
        j[i] = (struct job_spec){ .id = i, .arrival = sim_from_sec(t),
                                  .jtype = tput_find(m, names[gsl_rng_uniform_int(r, 4)]),
                                  .workers = workers[gsl_rng_uniform_int(r, 6)],
                                  .work = 1000 + gsl_ran_exponential(r, 20000), .weight = 1 };
    }
    gsl_rng_free(r);
    return j;
}

static const char *const th_job_cols[] = {
    "job_id", "user", "job_type", "workers", "work", "arrival_s", "first_start_s", "finish_s",
    "jct_s", "queue_delay_s", "n_avg", "t_iso_s", "ftf_rho", "attained_gpu_s", "preemptions",
    "migrations" };

int th_db_job(struct db *d, const struct th_job *j, struct errbuf *err)
{
    struct row_value v[] = {
        row_int(j->job_id), row_int(j->user), row_text(j->job_type), row_int(j->workers),
        row_real(j->work), row_real(j->arrival_s), row_opt(j->first_start_s),
        row_opt(j->finish_s), row_opt(j->finish_s < 0 ? -1 : j->finish_s - j->arrival_s),
        row_opt(j->first_start_s < 0 ? -1 : j->first_start_s - j->arrival_s),
        row_real(j->n_avg), row_opt(j->t_iso_s), row_opt(j->ftf_rho), row_real(j->attained),
        row_int(j->preemptions), row_int(j->migrations) };
    return db_row(d, "jobs", th_job_cols, v, (int)(sizeof v / sizeof v[0]), err);
}

static const char *const th_gpu_cols[] = { "job_id", "gpu_type", "gpu_s" };

int th_db_job_gpu(struct db *d, int64_t job_id, const char *gpu_type, double gpu_s,
                  struct errbuf *err)
{
    struct row_value v[] = { row_int(job_id), row_text(gpu_type), row_real(gpu_s) };
    return db_row(d, "job_gpu_seconds", th_gpu_cols, v, 3, err);
}

/* ---------------------------------------------------------------- serving */

struct llm_catalog *th_llm(const catalog *c)
{
    struct errbuf err;
    err_clear(&err);
    char ap[PATH_MAX_LEN], fp[PATH_MAX_LEN];
    path_resolve(ap, sizeof ap, NULL, llm_default_models);
    path_resolve(fp, sizeof fp, NULL, llm_default_fit);
    llm_catalog *lc = NULL;
    cr_assert_eq(llm_load(&lc, c, ap, fp, &err), 0, "%s", err.msg);
    return lc;
}

void th_serve_config(struct serve_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->set = (struct serve_settings){ .max_batch_tokens = 2048, .max_seqs = 256,
                                        .block_tokens = 16, .chunked_prefill = 1,
                                        .mem_util = 0.9 };
    cfg->until = SIM_NEVER;
}

static int keep_req(void *ctx, const struct serve_record *rec, struct errbuf *err)
{
    (void)err;
    struct th_serve *r = ctx;
    r->r = realloc(r->r, (size_t)(r->n + 1) * sizeof *r->r);
    cr_assert_not_null(r->r);
    r->r[r->n] = *rec;
    r->r[r->n].cls = NULL;      /* the world's string does not outlive the run */
    r->n++;
    return 0;
}

static int keep_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    (void)t;
    (void)err;
    struct th_serve *r = ctx;
    if (strcmp(name, "kv_util") == 0) {
        r->nsamples++;
        if (v > r->samples_kv_max)
            r->samples_kv_max = v;
    }
    return 0;
}

const struct world_writer *th_serve_timeline;

int th_serve_no_shortcuts;

int th_no_sample(void *ctx, simtime t, const char *name, double value, struct errbuf *err)
{
    (void)ctx, (void)t, (void)name, (void)value, (void)err;
    return 0;
}

int th_no_metric(void *ctx, const char *name, double value, struct errbuf *err)
{
    (void)ctx, (void)name, (void)value, (void)err;
    return 0;
}

struct th_serve th_serve_run(const cluster *cl, const char *model, const struct request_spec *q,
                             int n, const char *name, const char *params,
                             const struct serve_config *cfg)
{
    struct errbuf err;
    err_clear(&err);
    struct th_serve res = { 0 };
    jsonf *doc = NULL;
    struct jobj pj = { 0 };
    if (params != NULL) {
        cr_assert_eq(jsonf_parse(&doc, "params", params, strlen(params), &err), 0, "%s", err.msg);
        cr_assert_eq(jobj_root(&pj, doc, &err), 0);
    }
    llm_catalog *lc = th_llm(cluster_catalog(cl));
    const struct llm_arch *a = llm_find(lc, model);
    cr_assert_not_null(a, "%s", model);
    struct policy_env env = { 1, cl, NULL, NULL, 0 };
    policy *p;
    cr_assert_eq(policy_open(&p, name, params ? &pj : NULL, &env, &err), 0, "%s", err.msg);
    struct th_array src = { q, sizeof *q, n, 0 };
    struct entity_source es = { &src, th_array_next };
    struct serve_sink sink = { &res, keep_req, keep_sample, th_serve_timeline };
    serve *w;
    cr_assert_eq(serve_create(&w, cl, lc, a, cfg, &es, policy_decider(p), &sink, &err), 0, "%s",
                 err.msg);
    if (th_serve_no_shortcuts)
        serve_no_shortcuts(w);
    res.hops_alone = serve_hops_alone(w, &res.hops);
    struct serve_totals tot;
    cr_assert_eq(serve_run(w, &tot, &err), 0, "%s: %s", name, err.msg);
    res.events = (long long)tot.events;
    res.decisions = (long long)tot.decisions;
    res.preemptions = tot.preemptions;
    res.iterations = tot.iterations;
    res.tokens_out = tot.tokens_out;
    res.kv_moved_bytes = tot.kv_moved_bytes;
    res.window_tokens = tot.window_tokens;
    serve_destroy(w);
    policy_close(p);
    llm_destroy(lc);
    jsonf_destroy(doc);
    return res;
}

void th_serve_free(struct th_serve *r)
{
    free(r->r);
    memset(r, 0, sizeof *r);
}

const struct serve_record *th_serve_find(const struct th_serve *r, long long id)
{
    for (int i = 0; i < r->n; i++)
        if (r->r[i].id == id)
            return &r->r[i];
    cr_assert_fail("request %lld not reported", id);
    return NULL;
}
