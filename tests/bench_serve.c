/*
 * bench_serve: speed of the serving world.  (1) One hour of the Azure LLM code trace (8,819
 * requests) on the Hetis testbed (12 GPUs of three types), every serving policy, best of
 * three, with the database written as `hetsim run` writes it; target under 1 s a run.
 * (2) A million synthetic requests (the llm_synthetic defaults, Poisson at 2 a second) on
 * the same testbed with highend_only and with hetis, without a database; target under 60 s,
 * with memory bounded by the requests in flight (the peak resident size is printed, and the
 * size of 200,000 requests beside it: the same peak means memory does not grow with the
 * trace).  Each case runs in its own child process so that its peak is its own.  A plain
 * program, not a test.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/run/run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One run of `policy` on hetis_testbed with the overrides; the wall time and figures. */
static int one(const char *policy, char *const *sets, int nsets, const char *dbp, double *wall,
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
    double t0 = now_s();
    if (experiment_load(&e, "hetis_testbed", sets, nsets, &err) < 0 ||
        experiment_only_policy(e, policy, &err) < 0 || run_env_open(&env, e, &err) < 0 ||
        (dbp != NULL && db_open(&d, dbp, &err) < 0))
        goto out;
    struct run_opts o = { .db = d };
    if (run_one(e, 0, &env, &o, res, &err) < 0)
        goto out;
    *wall = now_s() - t0;
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

/* In a child: n synthetic requests, no database; prints one line. */
static void synthetic(const char *policy, long n)
{
    char reqs[128];
    snprintf(reqs, sizeof reqs, "workload={\"format\": \"llm_synthetic\", \"requests\": %ld, "
             "\"rate_per_s\": 2, \"prompt\": { \"max\": 4000 }}", n);
    char *sets[] = { reqs, "sim.sample_s=600" };
    double wall;
    struct run_result res;
    if (one(policy, sets, 2, NULL, &wall, &res) < 0)
        exit(1);
    printf("  %-13s %8ld requests (done %lld), %9llu events, %6.2f s, %5.2f M events/s, "
           "peak %6.1f MB\n", policy, n, (long long)res.tot.entities_done,
           (unsigned long long)res.tot.events, wall, res.tot.events / wall / 1e6, peak_mb());
    fflush(stdout);
    exit(0);
}

int main(void)
{
    static const char *const policies[] = { "highend_only", "uniform_pp", "hexgen",
                                            "splitwise", "hetis" };
    char dbp[64];
    snprintf(dbp, sizeof dbp, "/tmp/hetsim-bench-serve-%d.db", (int)getpid());
    printf("serving: one hour of the Azure LLM code trace (8,819 requests), Llama-2-13B on the "
           "Hetis testbed (4 A100-80GB, 4 RTX 3090, 4 P100), best of 3 with the database\n");
    int fail = 0;
    for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
        double best = 1e9, wall;
        struct run_result res;
        for (int rep = 0; rep < 3; rep++) {
            if (one(policies[p], NULL, 0, dbp, &wall, &res) < 0)
                return 1;
            if (wall < best)
                best = wall;
        }
        printf("  %-13s %6.3f s  %7llu events  ttft_p50 %6.3f s  tokens_per_s %7.1f%s\n",
               policies[p], best, (unsigned long long)res.tot.events,
               run_metric(&res, "ttft_p50"), run_metric(&res, "tokens_per_s"),
               best < 1 ? "" : "  (over the 1 s target)");
        fail |= best >= 1;
    }
    printf("serving: synthetic requests (Azure-fitted lengths, Poisson 2/s), no database, one "
           "process each\n");
    static const char *const big[] = { "highend_only", "hetis" };
    for (size_t p = 0; p < 2; p++)
        for (long n = 200000; n <= 1000000; n += 800000) {
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0)
                synthetic(big[p], n);
            int st;
            waitpid(pid, &st, 0);
            fail |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        }
    return fail;
}
