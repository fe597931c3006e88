/*
 * bench_gavel: wall time of Gavel-compatible runs on Gavel's Philly-VC trace
 * (workloads/experiments/gavel_philly.json: 2,000 jobs, 36 V100 + 36 P100 + 36 K80, 360 s
 * rounds), each policy three times, with the database written as in `hetsim run`.  Gavel's
 * own simulator needs 102 CPU seconds (max_min_fairness_perf) to 474 (fifo) for these runs
 * on the same kind of machine (../shared/reference/README.md); the targets are under 1 s and
 * at least 100 times faster.  A plain program, not a test.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "../sim/run/run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    static const struct { const char *policy; double gavel_cpu_s; } cases[] = {
        { "gavel_las_perf", 102 }, { "gavel_las", 0 }, { "fifo_perf", 0 },
    };
    char dbp[64];
    snprintf(dbp, sizeof dbp, "/tmp/hetsim-bench-gavel-%d.db", (int)getpid());
    printf("Gavel-compatible mode, gavel_philly (2,000 jobs, 108 GPUs), best of 3 with the "
           "database\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double best = 1e9, jct = 0;
        for (int rep = 0; rep < 3; rep++) {
            struct errbuf err;
            err_clear(&err);
            struct experiment *e = NULL;
            struct run_env env = { 0 };
            db *d = NULL;
            remove(dbp);
            double t0 = now_s();
            if (experiment_load(&e, "gavel_philly", NULL, 0, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            if (experiment_only_policy(e, cases[c].policy, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                experiment_free(e);
                return 1;
            }
            struct run_result res;
            if (run_env_open(&env, e, &err) < 0 || db_open(&d, dbp, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            struct run_opts o = { .db = d };
            if (run_one(e, 0, &env, &o, &res, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            double dt = now_s() - t0;
            if (dt < best)
                best = dt;
            jct = run_metric(&res, "jct_mean");
            db_close(d);
            run_env_close(&env);
            experiment_free(e);
        }
        printf("  %-15s %6.3f s  mean JCT %12.1f s", cases[c].policy, best, jct);
        if (cases[c].gavel_cpu_s > 0)
            printf("  (%.0fx faster than Gavel's %.0f CPU s)", cases[c].gavel_cpu_s / best,
                   cases[c].gavel_cpu_s);
        printf("\n");
    }
    remove(dbp);
    return 0;
}
