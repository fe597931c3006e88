/*
 * cmd_sweep: `hetsim sweep` loads the sweep (every point checked before anything runs), keeps
 * the tasks of its shard and MPI rank, skips those already in the database, and runs the rest
 * through the process pool; each child simulates one run and appends it to the database.
 * `hetsim merge` joins databases.
 *
 * Work split: task k (in the sweep's fixed order) belongs to shard k mod N; within a shard,
 * the j-th task belongs to MPI rank j mod size.  With several ranks each writes its own file
 * (DB with ".rankR" before the extension), and rank 0 merges them into DB at the end.
 * Failures are listed at the end in the sweep's order (that of --list), not in the order
 * the workers finished them.
 *
 * The progress line (a terminal, not --quiet): redrawn four times a second from what has
 * ended and what the runs in flight report (their entities done over their total, sent by
 * the workers through the pool).  Each run weighs its size, the entities of its workload,
 * counted in the parent before the runs start (each distinct workload and seed once, for at
 * most two seconds; runs not counted by then weigh the mean of those that were), so the ETA
 * is the elapsed time scaled by the share of the work done, not of the runs.
 */
#define _GNU_SOURCE
#include "cmd.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../results/merge.h"
#include "../batch/par.h"
#include "../base/path.h"
#include "../base/progress.h"
#include "../batch/pool.h"
#include "../run/run.h"
#include "../batch/sweep.h"

static const char sweep_usage[] = "SWEEP.json [-j N] [--db FILE] [--shard I/N] [--set KEY=VAL] "
                                  "[--list] [-q]";

static const char sweep_help[] =
    "usage: hetsim sweep SWEEP.json [options]\n"
    "Run every point of a sweep (a base experiment, fixed overrides, and axes over any\n"
    "experiment field, crossed as a grid or zipped) into the metrics database, N runs at a\n"
    "time.  Runs already in the database (same configuration) are skipped, so running the\n"
    "same command again resumes an interrupted sweep and retries failed runs.  One failing\n"
    "run never stops the others; failures are listed at the end, in the order of --list\n"
    "(exit 1).\n\n"
    "  -j, --jobs N        runs at once (default: the number of cores; 1 per MPI rank)\n"
    "  -d, --db FILE       database to append to (default " HETSIM_DEFAULT_DB ")\n"
    "      --shard I/N     run only shard I of N (0 <= I < N): tasks k with k mod N == I;\n"
    "                      the union of the N shards is the whole sweep\n"
    "  -S, --set KEY=VAL   override a field of every point (after the sweep's own values)\n"
    "  -l, --list          list the runs of this shard and whether each is done; run nothing\n"
    "  -q, --quiet         no progress; only the summary and failures\n"
    "  -h, --help          this help\n\n"
    "Under MPI (make MPI=1; mpirun -np K hetsim sweep ...) the runs are shared among the\n"
    "ranks; each writes DB.rankR and rank 0 merges them into DB at the end.\n";

static int usage(const char *cmd, const char *use, const char *fmt, const char *arg)
{
    fprintf(stderr, "hetsim %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: hetsim %s %s\nTry 'hetsim %s --help'.\n", cmd, use, cmd);
    return 2;
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* Models and clusters, loaded once in the parent for every distinct set of files and cluster
 * the runs use; the children inherit them through fork instead of each loading its own. */
struct env_entry {
    char          *key;
    struct run_env env;
};

struct sweep_ctx {
    sweep              *sw;
    struct env_entry   *envs;
    size_t              nenvs;
    struct run_env    **env_of;         /* by todo index; NULL: the child loads its own */
    struct sweep_task **todo;
    size_t              ntodo, ndone, nfailed, nstopped;
    unsigned char      *failed;         /* by todo index: 1 if that run failed */
    char              **fail_msg;       /* by todo index: its error (last line of stderr) */
    const char         *db_path;
    int                 quiet, tty, rank, nranks;
    double              t0;
    /* the progress line */
    int64_t            *size;           /* by todo index: its entities (NULL: not counted) */
    double             *frac;           /* by todo index: how far it is (1 once ended) */
    int                 width;          /* runs at once */
    double              weight_all, next_draw, worker_next;
    int                 drawn;          /* a line is on the terminal */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Say so when a sweep's seeds change nothing: its runs would repeat one another. */
static void seed_note(const sweep *sw)
{
    const struct experiment *e = sweep_experiment(sw, 0);
    struct run_env env;
    struct errbuf err;
    char why[256];
    err_clear(&err);
    if (run_env_open(&env, e, &err) < 0)
        return;
    if (!run_seed_matters(e, &env, why, sizeof why))
        fprintf(stderr, "hetsim: note: sweep '%s': its %d seeds give the same runs: %s\n",
                sweep_name(sw), sweep_nseeds(sw), why);
    run_env_close(&env);
}

/* A worker's connection to the database, opened by its first run and kept for the next. */
static db *worker_db;

/* In a worker: the run's progress to the parent, four times a second at most. */
static void worker_progress(void *ctx, const struct progress_run *p)
{
    struct sweep_ctx *c = ctx;
    if (p->wall_s < c->worker_next)
        return;
    c->worker_next = p->wall_s + 0.25;
    pool_progress(progress_run_fraction(p));
}

/* The runs of `tasks` already in db_path (done) get this sweep's run_params rows where they
 * lack them (made by `hetsim run`, another sweep or a merge), in one transaction, so that
 * reports of the sweep count them; *runs receives how many runs gained rows. */
static int adopt_done(struct sweep_ctx *c, struct sweep_task *const *tasks, size_t n,
                      const char *db_path, long *runs, struct errbuf *err)
{
    *runs = 0;
    db *d = NULL;
    if (db_open(&d, db_path, err) < 0)
        return -1;
    int rc = db_exec(d, "BEGIN IMMEDIATE", err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!tasks[i]->done)
            continue;
        const struct db_param *params;
        int np = sweep_params(c->sw, tasks[i]->point, &params);
        long rows = 0;
        rc = db_sweep_adopt(d, sweep_name(c->sw), tasks[i]->config, params, np, &rows, err);
        *runs += rows > 0;
    }
    struct errbuf ignored;
    if (rc == 0)
        rc = db_exec(d, "COMMIT", err);
    else
        db_exec(d, "ROLLBACK", &ignored);
    db_close(d);
    return rc;
}

/* In a worker: one run into the database. */
static int run_task(void *ctx, size_t i)
{
    struct sweep_ctx *c = ctx;
    const struct sweep_task *t = c->todo[i];
    const struct experiment *e = sweep_experiment(c->sw, t->point);
    struct errbuf err;
    err_clear(&err);
    struct run_env own = { 0 }, *env = c->env_of[i];
    struct run_result res;
    const struct db_param *params;
    int np = sweep_params(c->sw, t->point, &params);
    int rc = 0;
    if (env == NULL && run_env_open(&own, e, &err) == 0)
        env = &own;
    int ready = env != NULL &&
                (worker_db != NULL || db_open(&worker_db, c->db_path, &err) == 0);
    struct run_opts o = { .db = worker_db, .sweep = sweep_name(c->sw), .params = params,
                          .nparams = np };
    if (c->size != NULL) {
        c->worker_next = 0;
        o.total = c->size[i];
        o.on_progress = worker_progress;
        o.progress_ctx = c;
    }
    if (!ready || run_one(e, t->policy, env, &o, &res, &err) < 0) {
        fprintf(stderr, "hetsim: %s\n", err.msg);
        rc = err.code == ERR_INPUT ? 2 : 1;
    }
    run_env_close(&own);
    return rc;
}

/* In a worker with no more runs to do. */
static void worker_done(void *ctx)
{
    (void)ctx;
    db_close(worker_db);
    worker_db = NULL;
}

/* The line, now (force) or when a quarter of a second has passed since the last. */
static void draw(struct sweep_ctx *c, int force)
{
    double now = now_s();
    if (!force && now < c->next_draw)
        return;
    c->next_draw = now + 0.25;
    double w = 0;
    for (size_t i = 0; i < c->ntodo; i++)
        w += c->frac[i] * (double)c->size[i];
    /* the pool keeps `width` runs in flight while there are runs left */
    size_t left = c->ntodo - c->ndone - c->nstopped;
    size_t running = left < (size_t)c->width ? left : (size_t)c->width;
    char prefix[32] = "", line[256];
    if (c->nranks > 1)
        snprintf(prefix, sizeof prefix, "rank %d: ", c->rank);
    struct progress_sweep p = { prefix, c->ndone, c->ntodo, c->nfailed, running,
                                c->weight_all > 0 ? w / c->weight_all : 0, now - c->t0 };
    progress_sweep_line(line, sizeof line, &p);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    c->drawn = 1;
}

static void on_tick(void *ctx)
{
    struct sweep_ctx *c = ctx;
    if (c->size != NULL)
        draw(c, 0);
}

static void on_progress(void *ctx, size_t i, double frac)
{
    struct sweep_ctx *c = ctx;
    if (c->size == NULL)
        return;
    c->frac[i] = frac < 0 ? 0 : frac > 1 ? 1 : frac;
}

/* How many entities each run to do reads: its workload drained once per distinct workload
 * and seed, for two seconds at most; the rest weigh the mean.  Only for the progress line. */
static void count_sizes(struct sweep_ctx *c)
{
    c->size = calloc(c->ntodo + 1, sizeof *c->size);
    c->frac = calloc(c->ntodo + 1, sizeof *c->frac);
    char **keys = calloc(c->ntodo + 1, sizeof *keys);
    if (c->size == NULL || c->frac == NULL || keys == NULL) {
        free(c->size);
        free(c->frac);
        free(keys);
        c->size = NULL;
        c->frac = NULL;
        return;
    }
    double t0 = now_s();
    int64_t sum = 0, counted = 0;
    for (size_t i = 0; i < c->ntodo; i++) {
        c->size[i] = -1;
        const struct experiment *e = sweep_experiment(c->sw, c->todo[i]->point);
        char *w = e->workload.node ? cJSON_PrintUnformatted(e->workload.node) : NULL;
        if (w == NULL)
            continue;
        size_t len = strlen(w) + 32;
        if ((keys[i] = malloc(len)) != NULL)
            snprintf(keys[i], len, "%s|%llu", w, (unsigned long long)e->seed);
        free(w);
        for (size_t k = 0; keys[i] != NULL && k < i && c->size[i] < 0; k++)
            if (keys[k] != NULL && c->size[k] >= 0 && strcmp(keys[k], keys[i]) == 0)
                c->size[i] = c->size[k];
        if (c->size[i] < 0 && now_s() - t0 < 2 && c->env_of[i] != NULL) {
            struct errbuf err;
            err_clear(&err);
            int64_t n = 0;
            /* the workload's own notes were printed when the sweep loaded */
            if (run_list(e, c->env_of[i], NULL, &n, &err) == 0)
                c->size[i] = n;
        }
        if (c->size[i] >= 0) {
            sum += c->size[i];
            counted++;
        }
    }
    int64_t mean = counted > 0 ? sum / counted : 1;
    c->weight_all = 0;
    for (size_t i = 0; i < c->ntodo; i++) {
        if (c->size[i] < 1)
            c->size[i] = c->size[i] == 0 ? 1 : (mean > 0 ? mean : 1);
        c->weight_all += (double)c->size[i];
        free(keys[i]);
    }
    free(keys);
}

/* The last non-empty line of a child's stderr (where its error is). */
static char *last_line(const char *out)
{
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    size_t b = n;
    while (b > 0 && out[b - 1] != '\n')
        b--;
    char *s = malloc(n - b + 1);
    if (s != NULL) {
        memcpy(s, out + b, n - b);
        s[n - b] = '\0';
    }
    return s;
}

/* What run_env_open reads from e, as one string. */
static char *env_key(const struct experiment *e)
{
    char *cl = e->cluster.node ? cJSON_PrintUnformatted(e->cluster.node) : NULL;
    size_t n = strlen(e->gpus_path) + strlen(e->links_path) + strlen(e->jobtypes_path) +
               strlen(e->gavel_tput_path) + strlen(e->cluster_path) + (cl ? strlen(cl) : 0) + 16;
    for (int i = 0; i < e->nprofiles; i++)
        n += strlen(e->profiles[i]) + 1;
    char *k = malloc(n);
    if (k != NULL) {
        size_t m = (size_t)snprintf(k, n, "%s|%s|%s|%s|%s|%s|", e->gpus_path, e->links_path,
                                    e->jobtypes_path, e->gavel_tput_path, e->cluster_path,
                                    cl ? cl : "");
        for (int i = 0; i < e->nprofiles; i++)
            m += (size_t)snprintf(k + m, n - m, "%s|", e->profiles[i]);
    }
    free(cl);
    return k;
}

/* Load, in the parent, the environment of every run to do; a run whose environment cannot be
 * loaded here gets none and reports the error itself. */
static void share_envs(struct sweep_ctx *c)
{
    c->envs = calloc(c->ntodo + 1, sizeof *c->envs);
    c->env_of = calloc(c->ntodo + 1, sizeof *c->env_of);
    if (c->envs == NULL || c->env_of == NULL)
        return;
    for (size_t i = 0; i < c->ntodo; i++) {
        const struct experiment *e = sweep_experiment(c->sw, c->todo[i]->point);
        char *key = env_key(e);
        if (key == NULL)
            continue;
        size_t k = 0;
        while (k < c->nenvs && strcmp(c->envs[k].key, key) != 0)
            k++;
        if (k == c->nenvs) {
            struct errbuf err;
            err_clear(&err);
            if (run_env_open(&c->envs[k].env, e, &err) < 0) {
                free(key);
                continue;
            }
            c->envs[c->nenvs++].key = key;
        } else {
            free(key);
        }
        c->env_of[i] = &c->envs[k].env;
    }
}

static void free_envs(struct sweep_ctx *c)
{
    for (size_t k = 0; k < c->nenvs; k++) {
        run_env_close(&c->envs[k].env);
        free(c->envs[k].key);
    }
    free(c->envs);
    free(c->env_of);
}

/* In the parent, as each run ends. */
static void task_done(void *ctx, size_t i, const struct pool_result *r)
{
    struct sweep_ctx *c = ctx;
    char label[512];
    sweep_task_label(c->sw, c->todo[i], label, sizeof label);
    if (r->status == POOL_STOPPED) {
        c->nstopped++;
        return;
    }
    c->ndone++;
    if (r->status != 0) {
        c->fail_msg[i] = last_line(r->output);
        c->failed[i] = 1;
        c->nfailed++;
    }
    if (c->size != NULL)
        c->frac[i] = 1;
    if (c->quiet)
        return;
    char prefix[32] = "";
    if (c->nranks > 1)
        snprintf(prefix, sizeof prefix, "rank %d: ", c->rank);
    if (c->tty && c->size != NULL) {
        draw(c, 1);
    } else if (c->tty) {
        return;
    } else {
        fprintf(stderr, "%s[%zu/%zu] %s %.2f s  %s\n", prefix, c->ndone, c->ntodo,
                r->status == 0 ? "ok    " : "FAILED", r->wall_s, label);
    }
}

/* "dir/name.db" -> "dir/name.rankR.db" (or "PATH.rankR" without an extension). */
static void rank_path(char *out, size_t cap, const char *db_file, int rank)
{
    const char *slash = strrchr(db_file, '/'), *dot = strrchr(db_file, '.');
    if (dot != NULL && (slash == NULL || dot > slash + 1))
        snprintf(out, cap, "%.*s.rank%d%s", (int)(dot - db_file), db_file, rank, dot);
    else
        snprintf(out, cap, "%s.rank%d", db_file, rank);
}

static void remove_db_files(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    char p[PATH_MAX_LEN + 16];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

/* Rank 0, after every rank is done: fold the rank files into db. */
static int merge_ranks(const char *db_file, int nranks, int quiet)
{
    int rc = 0;
    long copied = 0, skipped = 0;
    for (int r = 0; r < nranks; r++) {
        char rp[PATH_MAX_LEN];
        rank_path(rp, sizeof rp, db_file, r);
        if (access(rp, F_OK) != 0)
            continue;           /* that rank had nothing to run */
        struct errbuf err;
        err_clear(&err);
        long c = 0, s = 0;
        if (merge_db(db_file, rp, &c, &s, &err) < 0) {
            fprintf(stderr, "hetsim: merging %s: %s (the file is kept)\n", rp, err.msg);
            rc = 1;
            continue;
        }
        copied += c;
        skipped += s;
        remove_db_files(rp);
    }
    if (!quiet)
        fprintf(stderr, "merged the ranks' runs into %s: %ld new, %ld already there\n",
                db_file, copied, skipped);
    return rc;
}

struct sweep_args {
    int         jobs, shard, nshards, list, quiet;
    const char *db, *file;
    char      **sets;
    int         nsets;
};

static int parse_sweep_args(int argc, char **argv, struct sweep_args *a, int *done)
{
    static const struct option opts[] = {
        { "jobs", required_argument, NULL, 'j' }, { "db", required_argument, NULL, 'd' },
        { "shard", required_argument, NULL, 'H' }, { "set", required_argument, NULL, 'S' },
        { "list", no_argument, NULL, 'l' },       { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
    };
    *done = 0;
    a->db = HETSIM_DEFAULT_DB;
    a->nshards = 1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "j:d:S:lqh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'j': {
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || v < 1 || v > 4096)
                return usage("sweep", sweep_usage, "--jobs needs an integer from 1 to 4096, "
                             "not '%s'", optarg);
            a->jobs = (int)v;
            break;
        }
        case 'H': {
            long i = strtol(optarg, &end, 10), n = 0;
            if (end != optarg && *end == '/')
                n = strtol(end + 1, &end, 10);
            if (*end != '\0' || n < 1 || n > 1000000 || i < 0 || i >= n)
                return usage("sweep", sweep_usage, "--shard needs I/N with 0 <= I < N, not "
                             "'%s'", optarg);
            a->shard = (int)i;
            a->nshards = (int)n;
            break;
        }
        case 'd': a->db = optarg; break;
        case 'S': a->sets[a->nsets++] = optarg; break;
        case 'l': a->list = 1; break;
        case 'q': a->quiet = 1; break;
        case 'h':
            fputs(sweep_help, stdout);
            *done = 1;
            return 0;
        default:
            return usage("sweep", sweep_usage, "unknown or incomplete option '%s'",
                         argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage("sweep", sweep_usage, "%s",
                     optind >= argc ? "missing SWEEP.json" : "too many arguments");
    a->file = argv[optind];
    return 0;
}

/* Run this process's share; fills the context's counters.  Returns 0, or -1 if the pool
 * could not start processes. */
static int run_share(struct sweep_ctx *c, int jobs)
{
    struct sigaction sa = { 0 }, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    c->t0 = now_s();
    c->width = jobs < 1 ? 1 : (size_t)jobs > c->ntodo ? (int)c->ntodo : jobs;
    static const struct pool_ops ops = { .job = run_task, .done = task_done,
                                         .worker_exit = worker_done, .progress = on_progress,
                                         .tick = on_tick };
    if (c->size != NULL)
        draw(c, 1);
    int rc = pool_run(c->ntodo, jobs, &ops, c, &stop_flag);
    /* the line ends on its own line, finished or interrupted */
    if (c->drawn) {
        draw(c, 1);
        fputc('\n', stderr);
        c->drawn = 0;
    }
    /* workers that close together may each leave the final checkpoint to the other: one
     * more connection, alone, folds the WAL into the file, so that the file alone holds
     * every run (and can be copied by itself) */
    struct errbuf err;
    err_clear(&err);
    db *d = NULL;
    if (c->ntodo > 0 && db_open(&d, c->db_path, &err) == 0)
        db_close(d);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc < 0)
        perror("hetsim sweep: starting a run");
    return rc;
}

static void list_tasks(sweep *sw, struct sweep_task **mine, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char label[512];
        sweep_task_label(sw, mine[i], label, sizeof label);
        printf("%s  %s  %s\n", mine[i]->done ? "done" : "todo", mine[i]->hash, label);
    }
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_args a = { 0 };
    a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
    if (a.sets == NULL)
        return 1;
    int done, rc = parse_sweep_args(argc, argv, &a, &done);
    if (rc != 0 || done) {
        free(a.sets);
        return rc;
    }
    if (par_init(&argc, &argv) < 0) {
        fprintf(stderr, "hetsim sweep: MPI could not start\n");
        free(a.sets);
        return 1;
    }
    int rank = par_rank(), nranks = par_size();
    if (a.jobs == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        a.jobs = nranks > 1 || cores < 1 ? 1 : (int)cores;
    }
    struct errbuf err;
    err_clear(&err);
    sweep *sw = NULL;
    struct sweep_ctx c = { .quiet = a.quiet, .tty = isatty(2), .rank = rank, .nranks = nranks };
    char my_db[PATH_MAX_LEN];
    if (nranks > 1)
        rank_path(my_db, sizeof my_db, a.db, rank);
    else
        snprintf(my_db, sizeof my_db, "%s", a.db);
    c.db_path = my_db;
    size_t skipped = 0, s2 = 0;
    if (sweep_load(&sw, a.file, a.sets, a.nsets, &err) < 0 ||
        sweep_mark_done(sw, a.db, &skipped, &err) < 0 ||
        (nranks > 1 && sweep_mark_done(sw, my_db, &s2, &err) < 0)) {
        fprintf(stderr, "hetsim: %s\n", err.msg);
        rc = err.code == ERR_INPUT ? 2 : 1;
        goto out;
    }
    if (rank == 0 && sweep_nseeds(sw) > 1)
        seed_note(sw);
    size_t ntasks = sweep_ntasks(sw);
    c.sw = sw;
    c.todo = calloc(ntasks + 1, sizeof *c.todo);
    c.failed = calloc(ntasks + 1, sizeof *c.failed);
    c.fail_msg = calloc(ntasks + 1, sizeof *c.fail_msg);
    struct sweep_task **mine = calloc(ntasks + 1, sizeof *mine);
    if (c.todo == NULL || c.failed == NULL || c.fail_msg == NULL || mine == NULL) {
        free(mine);
        rc = 1;
        goto out;
    }
    size_t nmine = 0, mine_done = 0;
    for (size_t k = 0, j = 0; k < ntasks; k++) {
        if ((int)(k % (size_t)a.nshards) != a.shard)
            continue;
        if ((int)(j++ % (size_t)nranks) != rank)
            continue;
        struct sweep_task *t = sweep_task(sw, k);
        mine[nmine++] = t;
        if (t->done)
            mine_done++;
        else
            c.todo[c.ntodo++] = t;
    }
    if (a.list) {
        list_tasks(sw, mine, nmine);
        free(mine);
        goto out;
    }
    long adopted = 0;
    if (mine_done > 0 && adopt_done(&c, mine, nmine, a.db, &adopted, &err) < 0) {
        fprintf(stderr, "hetsim: %s\n", err.msg);
        free(mine);
        rc = 1;
        goto out;
    }
    free(mine);
    if (!a.quiet) {
        if (rank == 0)
            fprintf(stderr, "sweep %s: %d points, %zu runs\n", sweep_name(sw),
                    sweep_npoints(sw), ntasks);
        char who[32] = "";
        if (nranks > 1)
            snprintf(who, sizeof who, "rank %d: ", rank);
        char joined[64] = "";
        if (adopted > 0)
            snprintf(joined, sizeof joined, " (%ld made elsewhere, now counted in it)",
                     adopted);
        fprintf(stderr, "%s%zu runs to do%s, %zu already in %s%s; %d at a time\n", who, c.ntodo,
                a.nshards > 1 ? " in this shard" : "", mine_done, a.db, joined,
                c.ntodo > 0 && c.ntodo < (size_t)a.jobs ? (int)c.ntodo : a.jobs);
    }
    if (c.ntodo > 0) {
        share_envs(&c);
        if (c.tty && !a.quiet && c.env_of != NULL)
            count_sizes(&c);
        if (c.env_of == NULL || run_share(&c, a.jobs) < 0)
            rc = 1;
    }
    /* every rank makes the same collective calls, in the same order */
    long failed_all = par_sum((long)c.nfailed), stopped_all = par_sum((long)c.nstopped);
    long ok_all = par_sum((long)(c.ndone - c.nfailed)), skipped_all = par_sum((long)mine_done);
    /* in the sweep's order (that of --list), whatever order the workers finished in */
    if (c.nfailed > 0)
        fprintf(stderr, "%zu run%s failed:\n", c.nfailed, c.nfailed == 1 ? "" : "s");
    for (size_t i = 0; i < c.ntodo; i++) {
        if (!c.failed[i])
            continue;
        char label[512];
        sweep_task_label(sw, c.todo[i], label, sizeof label);
        fprintf(stderr, "  %s\n    %s\n", label, c.fail_msg[i] && c.fail_msg[i][0]
                                                    ? c.fail_msg[i] : "(no message)");
    }
    if (nranks > 1 && rank == 0 && merge_ranks(a.db, nranks, a.quiet) != 0)
        rc = 1;
    if (rank == 0)
        fprintf(stderr, "sweep %s: %ld runs done, %ld skipped (already in the database), "
                "%ld failed%s\n", sweep_name(sw), ok_all, skipped_all, failed_all,
                stopped_all ? "; interrupted: run the same command again to resume" : "");
    if (stopped_all > 0 || stop_flag)
        rc = 130;
    else if (failed_all > 0 && rc == 0)
        rc = 1;
out:
    free(c.size);
    free(c.frac);
    free_envs(&c);
    if (c.fail_msg != NULL)
        for (size_t i = 0; i < c.ntodo; i++)
            free(c.fail_msg[i]);
    free(c.fail_msg);
    free(c.failed);
    free(c.todo);
    sweep_free(sw);
    free(a.sets);
    par_finalize();
    return rc;
}

static const char merge_usage[] = "OUT.db IN.db...";

static const char merge_help[] =
    "usage: hetsim merge OUT.db IN.db...\n"
    "Copy the runs of each IN.db (shards of a sweep, or any metrics databases) into OUT.db,\n"
    "created if needed.  A run whose configuration is already in OUT.db is skipped, so\n"
    "merging twice adds nothing.  One transaction per input.\n";

int cmd_merge(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(merge_help, stdout);
        return 0;
    }
    if (argc < 3)
        return usage("merge", merge_usage, "%s", "expected OUT.db and at least one IN.db");
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-')
            return usage("merge", merge_usage, "unknown option '%s'", argv[i]);
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        struct errbuf err;
        err_clear(&err);
        long copied, skipped;
        if (merge_db(argv[1], argv[i], &copied, &skipped, &err) < 0) {
            fprintf(stderr, "hetsim: %s\n", err.msg);
            rc = rc == 2 || err.code == ERR_INPUT ? 2 : 1;
            continue;
        }
        printf("%s: %ld runs copied, %ld already in %s\n", argv[i], copied, skipped, argv[1]);
    }
    return rc;
}
