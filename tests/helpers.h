/*
 * helpers: what several test files need — scratch files, the shared data, running the hetsim
 * binary, death tests that keep their assertion text to themselves, loading the shipped
 * catalog and models, and dumping a database for comparisons.
 *
 * Ownership: strings returned by th_* are heap-allocated and freed by the caller, except
 * th_tmpdir's and th_shared_dir's, which live until the process ends.
 */
#ifndef HETSIM_TEST_HELPERS_H
#define HETSIM_TEST_HELPERS_H

#include <stddef.h>

#include "../models/catalog.h"
#include "../models/tput.h"
#include "../sim/base/simtime.h"
#include "../sim/core/cluster.h"

/* An entity source over an array (struct entity_source { &a, th_array_next }): items[0..n),
 * `size` bytes each, in order from `next`. */
struct errbuf;
struct th_array {
    const void *items;
    size_t      size;
    int         n, next;
};
int th_array_next(void *ctx, void *out, struct errbuf *err);

/* A fresh directory for this test process, removed with everything in it when the process
 * exits (a test that crashes leaves it). */
const char *th_tmpdir(void);
/* Write `text` to <tmpdir>/<name>; returns the full path (caller frees). */
char *th_write(const char *name, const char *text);

/* The shared data (real traces, reference results): the folder ../shared next to the
 * project root (HETSIM_DATADIR), or its subfolder `sub` ("traces"; NULL: the folder itself).
 * No environment variable moves it; a test that has its own (test_workload's
 * HETSIM_TRACES) falls back to this. */
const char *th_shared_dir(const char *sub);

/* Death tests: call first in a `.signal = SIGABRT` test.  The process's stderr goes to a
 * scratch file, so the assertion's text stays out of the test output, and the abort counts
 * only if that text contains `want` (e.g. "engine_at: Assertion"): another assertion ends
 * the process with exit code 3 and its text on the real stderr, and the test fails. */
void th_expect_abort(const char *want);

struct th_out {
    int   status;       /* exit code, or 128 + signal */
    char *out, *err;    /* captured stdout and stderr (caller frees with th_out_free) */
};
/* Run the hetsim binary with a NULL-terminated argument list (argv[0] excluded). */
struct th_out th_hetsim(const char *const *args);
/* The same in the directory `dir` (NULL: this process's), e.g. for a command line that
 * writes the default database (results/out/hetsim.db) as the user would. */
struct th_out th_hetsim_in(const char *dir, const char *const *args);
void th_out_free(struct th_out *o);

/* The shipped catalog / models (asserts on failure). */
catalog *th_catalog(void);
tput    *th_models(const catalog *c);   /* job types + both shipped profiles */
/* A cluster from JSON text (asserts on failure). */
cluster *th_cluster(const catalog *c, const char *json);

/* The fixture most policy suites share: the shipped catalog and models in th_cat and th_m,
 * set up before each test and torn down after it.  A suite that needs nothing more uses
 * TestSuite(name, .init = th_models_init, .fini = th_models_fini); one with a cluster calls
 * them from its own init and fini. */
extern catalog *th_cat;
extern tput    *th_m;
void th_models_init(void);
void th_models_fini(void);
/* The same with th_mixed_cluster in th_cl (.init = th_mixed_init, .fini = th_mixed_fini). */
extern cluster *th_cl;
void th_mixed_init(void);
void th_mixed_fini(void);

/* ---- running a policy in the training world, with jobs given in an array ---- */
struct job_spec;
struct train_config;

struct th_rec {                 /* what the world reported for one job */
    long long id;
    int       user, workers;
    double    arrival, first, finish, rho, attained;
    int       preemptions, migrations;
    double    work, best_rate;  /* iterations; its rate with its workers on its fastest type */
};

struct th_result {
    struct th_rec *r;           /* in the order jobs left */
    int            n;
    long long      decisions, events;
    double         makespan, end;
    int            max_busy;    /* most GPUs granted at once (checked at every decision) */
    double         busy_gpu_s;  /* granted GPU-seconds, every type */
    int            batch_set;   /* 1: some grant set a job's batch (IADeep's tuning) */
};

/* Run `policy` (params: JSON object text or NULL) on the jobs; asserts the run succeeds.
 * Free with th_result_free. */
struct th_result th_run_policy(const cluster *cl, const tput *m, const struct job_spec *jobs,
                               int n, const char *policy, const char *params,
                               const struct train_config *cfg);
void th_result_free(struct th_result *r);
/* What every run of rigid jobs must satisfy (asserts, naming `what`): all n jobs finished,
 * each started at or after its arrival and finished no sooner than it would alone on its
 * fastest GPU type (unless the policy set batches: a smaller batch may progress faster by
 * its statistical efficiency), holding no more GPU-seconds than its workers between its
 * start and its end; the jobs' GPU-seconds add up to what the world granted, within the
 * cluster's capacity over the run, and no more GPUs were ever granted than it has. */
void th_check_run(const struct th_result *r, int n, const cluster *cl, const char *what);
const struct th_rec *th_find(const struct th_result *r, long long id);
/* Called by th_run_policy after each decision, before the world applies it, with the view the
 * policy saw and the list it returned (NULL: none, the default).  A test that checks every
 * decision sets it, runs, and sets it back to NULL. */
struct train_view;
struct grant_list;
extern void (*th_check_decision)(void *ctx, const struct train_view *v,
                                 const struct grant_list *out);
extern void *th_check_ctx;

/* A training view built by hand, for calling a policy or one of its mechanisms on a state
 * the test chose: jobs[0..n) all active, slot = index, in index order; the running ones
 * (state JOB_RUNNING, with ngpu, gpu_type and gpus set) hold their GPUs in the occupancy;
 * the others wait.  Rates come from the model (no memo); a restart costs restore_s; round_s
 * > 0 is the round's length.  th_view_fini frees what th_view_init allocated (the jobs stay
 * the caller's). */
enum { TH_VIEW_MAX = 64 };
struct train_job;
struct th_view {
    struct train_view *v;
    int32_t            next_active[TH_VIEW_MAX], next_waiting[TH_VIEW_MAX],
                       next_running[TH_VIEW_MAX];
};
void th_view_init(struct th_view *tv, const cluster *cl, const tput *m, struct train_job *jobs,
                  int n, double now_s, double round_s, double restore_s);
void th_view_fini(struct th_view *tv);

/* 8 V100 (2 NVLink servers), 8 T4 (2 PCIe servers), 8 A100 (1 NVSwitch server), IB between
 * them: the small mixed cluster the policy tests share (JSON text for th_cluster). */
extern const char th_mixed_cluster[];

/* n jobs with Poisson arrivals (mean gap mean_gap_s), Gavel job types (ResNet-18/50,
 * Transformer, LM), 1-8 workers (mostly 1) and exponential work: the random workload the
 * policy tests share.  Caller frees. */
struct job_spec *th_random_jobs(const tput *m, int n, unsigned long seed, double mean_gap_s);

/* Every row of every table except wall-clock columns (runs.wall_s, created, solver_time_*), as
 * text with reals in hex (%a), ordered — for byte-for-byte determinism checks.  Caller frees. */
char *th_db_dump(const char *db_path);
/* The same keyed by runs.config_hash instead of run ids, for comparing files whose runs were
 * written in another order (parallel sweeps, shards, merges). */
char *th_db_dump_by_config(const char *db_path);
/* Rows of each query (NULL-terminated list) as text, reals in hex.  Caller frees. */
char *th_query_dump(const char *db_path, const char *const *queries);
/* A single value of a query (first column, first row) as double; NAN if none. */
double th_db_value(const char *db_path, const char *sql);
/* Metric `name` of run `run` in the database (th_db_value of its row). */
double th_db_metric(const char *db_path, int run, const char *name);
/* Each of the ngpu GPUs' holdings in run's timeline tile [0, end): they sum to the run and
 * never overlap (one holder of each GPU at every moment, a colocate run's broker rows). */
void th_holds_every_gpu_once(const char *db_path, int run, int ngpu, double end);

/* A jobs row (and a job_gpu_seconds row) for tests that fill a database by hand, written
 * through the generic row writer as the training world writes them: times < 0 are NULL,
 * jct_s and queue_delay_s are derived. */
struct th_job {
    int64_t     job_id, user, workers, preemptions, migrations;
    const char *job_type;
    double      work, arrival_s, first_start_s, finish_s, n_avg, t_iso_s, ftf_rho, attained;
};
struct db;
struct errbuf;
int th_db_job(struct db *d, const struct th_job *j, struct errbuf *err);
int th_db_job_gpu(struct db *d, int64_t job_id, const char *gpu_type, double gpu_s,
                  struct errbuf *err);

/* ---- running a serving policy in the serving world, with requests in an array ---- */
struct request_spec;
struct serve_config;
struct serve_record;
struct llm_catalog;

/* The shipped LLM architectures and fitted factors for catalog c (asserts on failure). */
struct llm_catalog *th_llm(const catalog *c);

struct th_serve {
    struct serve_record *r;     /* every request that left, in the order it left */
    int    n;
    double samples_kv_max;      /* the largest kv_util sample */
    int    nsamples;
    long long events, decisions, preemptions, iterations;
    double tokens_out, kv_moved_bytes;
    double window_tokens;       /* output tokens in the measurement window */
    int    hops, hops_alone;    /* pipeline boundaries' hops, and those no other transfer
                                   crosses (serve_hops_alone) */
};

/* The serving defaults of an experiment (vLLM's budget, block size, memory use) into cfg. */
void th_serve_config(struct serve_config *cfg);
/* Run `policy` (params: JSON object text or NULL) serving `model` on cl with requests
 * q[0..n); asserts the run succeeds.  Free with th_serve_free. */
struct th_serve th_serve_run(const cluster *cl, const char *model, const struct request_spec *q,
                             int n, const char *policy, const char *params,
                             const struct serve_config *cfg);
void th_serve_free(struct th_serve *r);
/* Where th_serve_run's runs write their timeline rows (NULL, the default: none). */
struct world_writer;
extern const struct world_writer *th_serve_timeline;
/* Nonzero: th_serve_run's worlds take no shortcut (serve_no_shortcuts): every port booked,
 * no memo. */
extern int th_serve_no_shortcuts;
/* A world_writer's series and metrics dropped (its .sample and .metric, for a test that keeps
 * only rows). */
int th_no_sample(void *ctx, simtime t, const char *name, double value, struct errbuf *err);
int th_no_metric(void *ctx, const char *name, double value, struct errbuf *err);
/* The record of request id (asserts it left). */
const struct serve_record *th_serve_find(const struct th_serve *r, long long id);

#endif
