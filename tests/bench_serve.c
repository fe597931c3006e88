/*
 * bench_serve: speed of the serving world.  (1) One hour of the Azure LLM code trace (8,819
 * requests) on the Hetis testbed (12 GPUs of three types), every serving policy, best of
 * three, with the database written as `hetsim run` writes it; target under 1 CPU s a run.
 * (2) A million synthetic requests (the llm_synthetic defaults, Poisson at 2 a second) on
 * the same testbed with highend_only and with hetis, without a database; target under 60
 * CPU s, with memory bounded by the requests in flight (the peak resident size is printed,
 * and that of 200,000 requests beside it: the million may not peak 25% higher).  Each case
 * runs in its own child process so that its peak is its own.  (3) The timeline's cost: the
 * hour under hetis with the database, best of three without and with sim.timeline (CPU s
 * and their ratio, rows), and 200,000 and 1,000,000 synthetic requests under highend_only
 * with the database and the timeline (rows are written as intervals end: the million may
 * not peak 25% higher either).  Times are CPU seconds of the
 * process (getrusage: user + system), never wall time: the machine is shared.  A plain
 * program, not a test; it exits 1 when a target is missed.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/run/run.h"

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* One run of `policy` on hetis_testbed with the overrides; its CPU seconds and figures. */
static int one(const char *policy, char *const *sets, int nsets, const char *dbp, double *cpu,
               struct run_result *res)
{
    struct errbuf err;
    err_clear(&err);
    struct experiment *e = NULL;
    struct run_env env = { 0 };
    db *d = NULL;
    int rc = -1;
    if (dbp != NULL)
        remove(dbp);
    double t0 = cpu_s();
    if (experiment_load(&e, "hetis_testbed", sets, nsets, &err) < 0 ||
        experiment_only_policy(e, policy, &err) < 0 || run_env_open(&env, e, &err) < 0 ||
        (dbp != NULL && db_open(&d, dbp, &err) < 0))
        goto out;
    struct run_opts o = { .db = d };
    if (run_one(e, 0, &env, &o, res, &err) < 0)
        goto out;
    *cpu = cpu_s() - t0;
    rc = 0;
out:
    if (rc < 0)
        fprintf(stderr, "bench: %s\n", err.msg);
    db_close(d);
    run_env_close(&env);
    experiment_free(e);
    if (dbp != NULL)
        remove(dbp);
    return rc;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* In a child: n synthetic requests, without a database (dbp NULL) or with it and the
 * timeline; prints one line and writes its CPU seconds and peak to fd. */
static void synthetic(const char *policy, long n, const char *dbp, int fd)
{
    char reqs[128];
    snprintf(reqs, sizeof reqs, "workload={\"format\": \"llm_synthetic\", \"requests\": %ld, "
             "\"rate_per_s\": 2, \"prompt\": { \"max\": 4000 }}", n);
    char *sets[] = { reqs, "sim.sample_s=600", "sim.timeline=true" };
    double cpu;
    struct run_result res;
    if (one(policy, sets, dbp != NULL ? 3 : 2, dbp, &cpu, &res) < 0)
        exit(1);
    double fig[2] = { cpu, peak_mb() };
    printf("  %-13s %8ld requests (done %lld), %9llu events, %6.2f CPU s, %5.2f M events/s, "
           "peak %6.1f MB\n", policy, n, (long long)res.tot.entities_done,
           (unsigned long long)res.tot.events, cpu, res.tot.events / cpu / 1e6, fig[1]);
    fflush(stdout);
    exit(write(fd, fig, sizeof fig) == (ssize_t)sizeof fig ? 0 : 1);
}

/* rows of the timeline table in dbp */
static long long timeline_rows(const char *dbp)
{
    sqlite3 *h;
    long long n = -1;
    if (sqlite3_open_v2(dbp, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM timeline", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            n = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    sqlite3_close(h);
    return n;
}

/* The hour under hetis with the database, best of 3 without and with the timeline. */
static int timeline_hour(void)
{
    char dbp[64];
    snprintf(dbp, sizeof dbp, "/tmp/hetsim-bench-serve-tl-%d.db", (int)getpid());
    char *sets[] = { "sim.timeline=true" };
    double best[2] = { 1e9, 1e9 };
    long long rows = -1;
    struct run_result res;
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < 2; k++) {
            /* as one(), keeping the file to count its rows */
            remove(dbp);
            struct errbuf err;
            err_clear(&err);
            struct experiment *e = NULL;
            struct run_env env = { 0 };
            db *d = NULL;
            double t0 = cpu_s(), cpu;
            if (experiment_load(&e, "hetis_testbed", sets, k, &err) < 0 ||
                experiment_only_policy(e, "hetis", &err) < 0 ||
                run_env_open(&env, e, &err) < 0 || db_open(&d, dbp, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            struct run_opts o = { .db = d };
            int rc = run_one(e, 0, &env, &o, &res, &err);
            db_close(d);
            cpu = cpu_s() - t0;
            run_env_close(&env);
            experiment_free(e);
            if (rc < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            if (cpu < best[k])
                best[k] = cpu;
            if (k == 1)
                rows = timeline_rows(dbp);
            remove(dbp);
        }
    printf("serving timeline: the hour under hetis with the database, best of 3: %.3f CPU s "
           "without, %.3f with (x%.2f), %lld rows (%.1f per request)\n", best[0], best[1],
           best[1] / best[0], rows, rows / 8819.0);
    return 0;
}

int main(void)
{
    static const char *const policies[] = { "highend_only", "uniform_pp", "hexgen",
                                            "splitwise", "hetis" };
    char dbp[64];
    snprintf(dbp, sizeof dbp, "/tmp/hetsim-bench-serve-%d.db", (int)getpid());
    int fail = 0;
    /* BENCH_ONLY=timeline: the timeline's cost alone (3) */
    const char *only = getenv("BENCH_ONLY");
    int tl_only = only != NULL && strcmp(only, "timeline") == 0;
    if (!tl_only)
        printf("serving: one hour of the Azure LLM code trace (8,819 requests), Llama-2-13B on "
               "the Hetis testbed (4 A100-80GB, 4 RTX 3090, 4 P100), best of 3 with the "
               "database\n");
    for (size_t p = 0; !tl_only && p < sizeof policies / sizeof policies[0]; p++) {
        double best = 1e9, cpu;
        struct run_result res;
        for (int rep = 0; rep < 3; rep++) {
            if (one(policies[p], NULL, 0, dbp, &cpu, &res) < 0)
                return 1;
            if (cpu < best)
                best = cpu;
        }
        printf("  %-13s %6.3f CPU s  %7llu events  ttft_p50 %6.3f s  tokens_per_s %7.1f%s\n",
               policies[p], best, (unsigned long long)res.tot.events,
               run_metric(&res, "ttft_p50"), run_metric(&res, "tokens_per_s"),
               best < 1 ? "" : "  (over the 1 s target)");
        fail |= best >= 1;
    }
    if (!tl_only)
        printf("serving: synthetic requests (Azure-fitted lengths, Poisson 2/s), no database, "
               "one process each\n");
    static const char *const big[] = { "highend_only", "hetis", "highend_only" };
    for (size_t p = tl_only ? 2 : 0; p < 3; p++) {
        if (p == 2) {
            fail |= timeline_hour();
            printf("serving: synthetic requests as above, with the database and the timeline\n");
        }
        double fig[2][2] = { { 0 } };     /* 200,000 and 1,000,000: CPU s, peak MB */
        for (int k = 0; k < 2; k++) {
            long n = k == 0 ? 200000 : 1000000;
            int fds[2];
            if (pipe(fds) < 0)
                return 1;
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                close(fds[0]);
                synthetic(big[p], n, p == 2 ? dbp : NULL, fds[1]);
            }
            close(fds[1]);
            int st;
            ssize_t got = read(fds[0], fig[k], sizeof fig[k]);
            close(fds[0]);
            waitpid(pid, &st, 0);
            fail |= !WIFEXITED(st) || WEXITSTATUS(st) != 0 || got != (ssize_t)sizeof fig[k];
        }
        int slow = fig[1][0] >= 60, grows = fig[1][1] > 1.25 * fig[0][1];
        if (slow || grows)
            printf("  %s:%s%s\n", big[p], slow ? " over the 60 CPU s target" : "",
                   grows ? " memory grows with the trace" : "");
        fail |= slow || grows;
    }
    return fail;
}
