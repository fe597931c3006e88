/*
 * bench: `make bench`, kept apart from the tests.  Prints plain lines:
 *   1. the bare event core (sim/core/evq.h), per CPU second, in the hold model — pop the earliest event, push one an
 *      exponential increment later — at 1e3 .. 1e6 pending events, then the same with 10% of
 *      pushes cancelled later (each cancel that hits is replaced by a push, so the pending
 *      count stays put).  Increments are drawn with GSL (fixed seed) before timing starts.
 *      Beside it, in the same run and on the same increments, a plain 4-ary heap of the same
 *      32-byte entries (time, sequence number, arg, kind; no cancel; tests/plain_heap.c), and
 *      the ratio of the two: both queues are built once per size and run in alternating turns,
 *      and each side's best turn counts, so that a burst of the machine's other load lands on
 *      one turn of one side, not on the ratio.
 *   2. a 100,000-job synthetic trace under fifo on a 1,024-GPU mixed cluster, through the
 *      library exactly as `hetsim run` does it, once with a database and once without; then
 *      1,000,000 jobs the same two ways, and the ratio of the per-job costs.  Each run is
 *      in a forked child so that its peak RSS is its own.  Then 100,000 jobs with the database
 *      and sim.timeline on (the timeline rows: one per interval of a job on a GPU), against
 *      the same run without it: the timeline's cost in time, rows and file size.
 * Targets: >= 10 M events/s at 1e4 pending and >= 90% of the plain heap's rate at every size;
 * 100k jobs in < 2 s and < 200 MB; 1M jobs with a per-job cost within 1.5 x of 100k's (no
 * quadratic step) and in < 1 GB.
 */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/core/evq.h"
#include "../sim/run/run.h"
#include "plain_heap.h"

enum { NINC = 1 << 20 };       /* pre-drawn increments, cycled */

/* CPU seconds (user + system) this process has used: what a loaded machine does not stretch,
 * so that time the machine gives to others counts against neither queue of the core bench */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;      /* Linux: kilobytes */
}

/* Hold model on `pending` events for `steps` pop+push pairs; every `cancel_every`-th push
 * (0: none) is cancelled about pending/40 steps later, and replaced by another push when the
 * cancel hit a pending event.  Returns pops per CPU second; *cancels_out counts the hits. */
static double hold(size_t pending, long steps, int cancel_every, const simtime *inc,
                   long *cancels_out)
{
    evq *q = evq_create(pending);
    size_t k = 0;
    for (size_t i = 0; i < pending; i++)
        evq_push(q, inc[k++ & (NINC - 1)], 0, i, NULL);
    size_t nring = pending / 400 > 0 ? pending / 400 : 1, ri = 0;
    evq_handle *ring = calloc(nring, sizeof *ring);
    long cancels = 0;
    struct evq_event ev;
    double t0 = cpu_s();
    for (long s = 0; s < steps; s++) {
        evq_pop(q, &ev);
        simtime t = ev.time + inc[k++ & (NINC - 1)];
        if (cancel_every == 0 || s % cancel_every != 0) {
            evq_push(q, t, 0, ev.arg, NULL);
            continue;
        }
        evq_handle old = ring[ri];
        evq_push(q, t, 0, ev.arg, &ring[ri]);
        ri = ri + 1 == nring ? 0 : ri + 1;
        if (evq_pending(q, old)) {
            evq_cancel(q, old);
            evq_push(q, t + inc[k++ & (NINC - 1)], 0, ev.arg, NULL);
            cancels++;
        }
    }
    double dt = cpu_s() - t0;
    if (evq_size(q) != pending)
        fprintf(stderr, "bench: queue size drifted to %zu (want %zu)\n", evq_size(q), pending);
    free(ring);
    evq_destroy(q);
    *cancels_out = cancels;
    return (double)steps / dt;
}

/* The comparison with the plain heap: both queues built once per size with the same
 * `pending` events, then run in turns, segment after segment of `seg` pop + push pairs of the
 * hold model without cancels, on the same increments (each queue walks the same sequence).
 * A segment's CPU time is taken alone, so the best segment of each side is what the machine
 * gave when it was least disturbed; alternating the order in every pair of turns (plain then
 * evq, evq then plain) keeps either side from always running just after the other. */
struct hold_pair {
    evq              *q;
    struct plain_heap p;
    size_t            kq, kp;      /* the next increment of each */
};

static void pair_init(struct hold_pair *h, size_t pending, const simtime *inc)
{
    size_t cap = pending < 16 ? 16 : pending;          /* as evq_create(pending) */
    h->q = evq_create(pending);
    h->p = (struct plain_heap){ malloc(cap * sizeof *h->p.h), 0, cap, 0 };
    h->kq = h->kp = 0;
    for (size_t i = 0; i < pending; i++) {
        evq_push(h->q, inc[h->kq++ & (NINC - 1)], 0, i, NULL);
        plain_push(&h->p, inc[h->kp++ & (NINC - 1)], 0, i);
    }
}

/* seg steps on the event core; returns the CPU seconds they took */
static double seg_evq(struct hold_pair *h, long seg, const simtime *inc)
{
    struct evq_event ev;
    double t0 = cpu_s();
    for (long s = 0; s < seg; s++) {
        evq_pop(h->q, &ev);
        evq_push(h->q, ev.time + inc[h->kq++ & (NINC - 1)], 0, ev.arg, NULL);
    }
    return cpu_s() - t0;
}

/* the same on the plain heap */
static double seg_plain(struct hold_pair *h, long seg, const simtime *inc)
{
    double t0 = cpu_s();
    for (long s = 0; s < seg; s++) {
        struct plain_entry ev = plain_pop(&h->p);
        plain_push(&h->p, ev.time + inc[h->kp++ & (NINC - 1)], 0, ev.arg);
    }
    return cpu_s() - t0;
}

static void bench_core(void)
{
    simtime *inc = malloc(NINC * sizeof *inc);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);
    for (size_t i = 0; i < NINC; i++)     /* mean 1 s, in microseconds */
        inc[i] = 1 + (simtime)gsl_ran_exponential(r, 1e6);
    gsl_rng_free(r);
    static const size_t sizes[] = { 1000, 10000, 100000, 1000000 };
    enum { TURNS = 12 };
    const long seg = 1000000, steps = 4000000;
    printf("event core, hold model (pop + push at an exponential increment), per CPU second: "
           "the event core and the plain heap in %d alternating turns of %ld steps each, "
           "best turn of each (slowest in brackets)\n", TURNS, seg);
    for (int i = 0; i < 4; i++) {
        struct hold_pair h;
        pair_init(&h, sizes[i], inc);
        double bq = 1e300, bp = 1e300, wq = 0, wp = 0;
        for (int t = 0; t < TURNS; t++) {
            double dq, dp;
            if (t % 2 == 0) {
                dp = seg_plain(&h, seg, inc);
                dq = seg_evq(&h, seg, inc);
            } else {
                dq = seg_evq(&h, seg, inc);
                dp = seg_plain(&h, seg, inc);
            }
            bq = dq < bq ? dq : bq;
            bp = dp < bp ? dp : bp;
            wq = dq > wq ? dq : wq;
            wp = dp > wp ? dp : wp;
        }
        if (evq_size(h.q) != sizes[i] || h.p.n != sizes[i] || h.kq != h.kp)
            fprintf(stderr, "bench: the two queues drifted apart\n");
        evq_destroy(h.q);
        free(h.p.h);
        printf("  %-13s pending %7zu: %6.2f M events/s (%5.2f), %5.1f ns/event\n",
               "plain heap", sizes[i], seg / bp / 1e6, seg / wp / 1e6, 1e9 * bp / seg);
        printf("  %-13s pending %7zu: %6.2f M events/s (%5.2f), %5.1f ns/event, "
               "%.0f%% of the plain heap\n", "pop+push", sizes[i], seg / bq / 1e6,
               seg / wq / 1e6, 1e9 * bq / seg, 100.0 * bp / bq);
    }
    printf("event core with cancels, %ld steps, per CPU second, best of 5 (slowest in "
           "brackets)\n", steps);
    for (int i = 0; i < 4; i++) {
        long cancels = 0;
        double best = 0, worst = 1e300;
        for (int rep = 0; rep < 5; rep++) {
            double rate = hold(sizes[i], steps, 10, inc, &cancels);
            best = rate > best ? rate : best;
            worst = rate < worst ? rate : worst;
        }
        printf("  %-13s pending %7zu: %6.2f M events/s (%5.2f), %5.1f ns/event, "
               "%.1f cancels of a pending event per 100 pops\n", "10% cancelled", sizes[i],
               best / 1e6, worst / 1e6, 1e9 / best, 100.0 * (double)cancels / (double)steps);
    }
    free(inc);
}

/* 1,024 GPUs of three generations; arrivals and durations chosen so that fifo keeps the
 * cluster about three quarters busy and the queue stays short however long the trace: memory
 * then follows the active jobs (plus 8 bytes per finished job, the JCTs kept for exact
 * percentiles), not the trace.  At 420 jobs/h the queue grows without bound instead. */
#define RATE_PER_HOUR "360"
static const char experiment_fmt[] =
    "{\n"
    "  \"name\": \"bench_trace\",\n"
    "  \"seed\": 1,\n"
    "  \"cluster\": {\n"
    "    \"name\": \"bench-1024\",\n"
    "    \"network\": \"ib-100g\",\n"
    "    \"groups\": [\n"
    "      { \"name\": \"a100\", \"count\": 32, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 8, \"intra\": \"nvswitch\" },\n"
    "      { \"name\": \"v100-nvlink\", \"count\": 64, \"gpu\": \"V100-16GB\", \"gpus_per_node\": 4, \"intra\": \"nvlink2\" },\n"
    "      { \"name\": \"v100-pcie\", \"count\": 32, \"gpu\": \"V100-16GB\", \"gpus_per_node\": 4, \"intra\": \"pcie3\" },\n"
    "      { \"name\": \"t4\", \"count\": 96, \"gpu\": \"T4\", \"gpus_per_node\": 4, \"intra\": \"pcie3\", \"network\": \"ethernet-25g\" }\n"
    "    ]\n"
    "  },\n"
    "  \"workload\": {\n"
    "    \"format\": \"synthetic\",\n"
    "    \"jobs\": %ld,\n"
    "    \"rate_per_hour\": " RATE_PER_HOUR ",\n"
    "    \"workers\": { \"1\": 0.7, \"2\": 0.1, \"4\": 0.15, \"8\": 0.05 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, \"sigma\": 1.0,\n"
    "                  \"clamp_min_s\": 60, \"clamp_max_s\": 172800 },\n"
    "    \"job_types\": {\n"
    "      \"ResNet-18 (batch size 64)\": 1, \"ResNet-50 (batch size 64)\": 1,\n"
    "      \"Transformer (batch size 64)\": 1, \"LM (batch size 20)\": 1,\n"
    "      \"Recommendation (batch size 2048)\": 1, \"CycleGAN\": 0.5, \"A3C\": 0.5\n"
    "    }\n"
    "  },\n"
    "  \"policies\": [\"fifo\"],\n"
    "  \"sim\": { \"sample_s\": 600 }\n"
    "}\n";

static const char *timeline_set[] = { "sim.timeline=true" };
static int with_timeline;       /* the next trace_run sets sim.timeline */

/* One run as cmd_run does it, in a child process of its own; prints its line.  Returns 0 or
 * 1.  *cpu_out gets its CPU seconds (user + system, from loading the experiment to the
 * committed rows): wall time on a shared machine says more of the others' load. */
static int trace_run(const char *experiment_path, const char *db_path, double *cpu_out)
{
    struct errbuf err;
    err_clear(&err);
    struct experiment *e = NULL;
    struct run_env env = { 0 };
    db *d = NULL;
    struct run_result res;
    int rc = 1;
    double t0 = cpu_s();
    if (experiment_load(&e, experiment_path, (char *const *)timeline_set, with_timeline, &err) < 0 ||
        run_env_open(&env, e, &err) < 0 ||
        (db_path != NULL && db_open(&d, db_path, &err) < 0))
        goto out;
    struct run_opts o = { .db = d };
    if (run_one(e, 0, &env, &o, &res, &err) < 0)
        goto out;
    db_close(d);
    d = NULL;
    double cpu = cpu_s() - t0;
    *cpu_out = cpu;
    printf("  %-12s jobs %lld (done %lld), events %llu, %.2f M events per CPU s, %.2f CPU s, "
           "peak %.1f MB, util_total %.2f\n",
           with_timeline ? "+ timeline:" : db_path ? "with db:" : "without db:",
           (long long)res.tot.entities_in,
           (long long)res.tot.entities_done, (unsigned long long)res.tot.events,
           (double)res.tot.events / cpu / 1e6, cpu, peak_mb(), run_metric(&res, "util_total"));
    rc = 0;
out:
    if (rc != 0)
        fprintf(stderr, "bench: %s\n", err.msg);
    db_close(d);
    run_env_close(&env);
    experiment_free(e);
    return rc;
}

/* The child reports its CPU time through a pipe, so the parent can compare run sizes. */
static int run_forked(const char *experiment_path, const char *db_path, double *cpu_out)
{
    int fd[2];
    if (pipe(fd) < 0) {
        perror("bench: pipe");
        return 1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench: fork");
        return 1;
    }
    if (pid == 0) {
        close(fd[0]);
        double cpu = 0;
        int rc = trace_run(experiment_path, db_path, &cpu);
        fflush(stdout);
        rc |= write(fd[1], &cpu, sizeof cpu) != (ssize_t)sizeof cpu;
        _exit(rc);
    }
    close(fd[1]);
    int status;
    ssize_t got = read(fd[0], cpu_out, sizeof *cpu_out);
    close(fd[0]);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        got != (ssize_t)sizeof *cpu_out) {
        fprintf(stderr, "bench: trace run failed\n");
        return 1;
    }
    return 0;
}

static void remove_db(const char *db_path)
{
    static const char *const suffixes[] = { "", "-journal", "-wal", "-shm" };
    char side[160];
    for (int i = 0; i < 4; i++) {
        snprintf(side, sizeof side, "%s%s", db_path, suffixes[i]);
        unlink(side);
    }
}

static int write_experiment(const char *experiment_path, long jobs)
{
    FILE *f = fopen(experiment_path, "w");
    if (f == NULL) {
        perror("bench: writing the experiment");
        return 1;
    }
    fprintf(f, experiment_fmt, jobs);
    return fclose(f) != 0;
}

/* rows of the timeline table and the file's size in MB */
static void db_size(const char *db_path, long long *rows, double *mb)
{
    sqlite3 *h;
    *rows = -1;
    if (sqlite3_open_v2(db_path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM timeline", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            *rows = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    sqlite3_close(h);
    struct stat st;
    *mb = stat(db_path, &st) == 0 ? (double)st.st_size / 1048576.0 : -1;
}

/* The 100,000-job run with the database (its file at db_path), again without and with
 * sim.timeline, in CPU seconds (wall time on a shared machine says more of the others' load
 * than of the timeline), and what the timeline added to the time and the file. */
static int bench_timeline(const char *experiment_path, const char *db_path)
{
    long long rows0, rows1;
    double mb0, mb1, plain = 0, tl = 0;
    remove_db(db_path);
    int rc = run_forked(experiment_path, db_path, &plain);
    db_size(db_path, &rows0, &mb0);
    remove_db(db_path);
    with_timeline = 1;
    rc = rc || run_forked(experiment_path, db_path, &tl);
    with_timeline = 0;
    db_size(db_path, &rows1, &mb1);
    if (rc == 0)
        printf("  timeline: %lld rows (%.1f per job), %.2f CPU s against %.2f without "
               "(%+.0f%%), file %.1f MB against %.1f MB\n", rows1, rows1 / 1e5, tl, plain,
               100 * (tl / plain - 1), mb1, mb0);
    remove_db(db_path);
    return rc;
}

/* 100,000 and 1,000,000 jobs, each with and without the database: the per-job cost of the
 * large run over the small one shows whether anything grows faster than linearly. */
static int bench_trace(void)
{
    char dir[] = "/tmp/hetsim-bench-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("bench: mkdtemp");
        return 1;
    }
    char experiment_path[128], db_path[128];
    snprintf(experiment_path, sizeof experiment_path, "%s/bench.json", dir);
    snprintf(db_path, sizeof db_path, "%s/bench.db", dir);
    printf("trace: synthetic jobs, fifo, 1,024 GPUs (256 A100, 384 V100, 384 T4), "
           RATE_PER_HOUR " jobs/h\n");
    double small = 0, small_nodb = 0, large = 0, large_nodb = 0;
    /* in CPU seconds, the child's own, so that the others' load is left out */
    int rc = write_experiment(experiment_path, 100000);
    rc = rc || run_forked(experiment_path, db_path, &small) || run_forked(experiment_path, NULL, &small_nodb);
    rc = rc || bench_timeline(experiment_path, db_path);
    rc = rc || write_experiment(experiment_path, 1000000) || run_forked(experiment_path, db_path, &large) ||
         run_forked(experiment_path, NULL, &large_nodb);
    if (rc == 0) {
        printf("  1,000,000 jobs: %.2f CPU s with the database, %.2f without: %.2f x "
               "(issue 16's target: at most 2 x)\n", large, large_nodb, large / large_nodb);
        printf("  scaling, per-job CPU cost of 1,000,000 jobs over 100,000 (1.00 is linear): "
               "%.2f x with the database, %.2f x without\n", large / small / 10.0,
               large_nodb / small_nodb / 10.0);
    }
    remove_db(db_path);
    unlink(experiment_path);
    rmdir(dir);
    return rc;
}

/* BENCH_ONLY=timeline: the 100,000-job run with the database, with and without the
 * timeline (make readme-figures' timeline-cost) */
static int bench_timeline_only(void)
{
    char dir[] = "/tmp/hetsim-bench-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("bench: mkdtemp");
        return 1;
    }
    char experiment_path[128], db_path[128];
    snprintf(experiment_path, sizeof experiment_path, "%s/bench.json", dir);
    snprintf(db_path, sizeof db_path, "%s/bench.db", dir);
    printf("trace: synthetic jobs, fifo, 1,024 GPUs (256 A100, 384 V100, 384 T4), "
           RATE_PER_HOUR " jobs/h\n");
    int rc = write_experiment(experiment_path, 100000) ||
             bench_timeline(experiment_path, db_path);
    unlink(experiment_path);
    rmdir(dir);
    return rc;
}

int main(void)
{
    const char *only = getenv("BENCH_ONLY");
    if (only != NULL && strcmp(only, "timeline") == 0)
        return bench_timeline_only();
    if (only != NULL && strcmp(only, "trace") == 0)
        return bench_trace();
    if (only != NULL && strcmp(only, "core") == 0) {
        bench_core();
        return 0;
    }
    int rc = bench_trace();
    bench_core();
    return rc;
}
