/*
 * bench_micro: the microservice world's speed, against the targets of its issues.
 *   per request   one hour at 500 requests/s over the social-network graph (socialnet at a
 *                 constant rate: 1.8 million requests, 7 graph types, 12 services), every
 *                 request followed through the queueing truth's containers (some 16 million
 *                 events), Derm deciding every minute, rows of 2% of the requests kept, with
 *                 the database: under 10 s; then the same under the fit's truth;
 *   analytical    a 1,000-point sweep of socialnet in the analytical mode (batches of a
 *                 minute, the sweep resolution of 512 lattice points): 10 peak rates x 25
 *                 SLAs x the four policies, one hour each, one process, with the database:
 *                 under 10 s in all.
 * CPU seconds (user + system, getrusage) of this process, which a machine shared with other
 * jobs does not stretch as it does wall time; best of three for the first; a plain program,
 * not a test.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../sim/run/run.h"

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* one run of socialnet with these overrides and policy into d; its CPU seconds */
static double one(char *const *sets, int nsets, const char *policy, db *d,
                  struct run_result *res)
{
    struct errbuf err;
    err_clear(&err);
    struct experiment *e = NULL;
    struct run_env env = { 0 };
    double t0 = cpu_s();
    if (experiment_load(&e, "socialnet", sets, nsets, &err) < 0 ||
        experiment_only_policy(e, policy, &err) < 0 || run_env_open(&env, e, &err) < 0) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    struct run_opts o = { .db = d };
    if (run_one(e, 0, &env, &o, res, &err) < 0) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    run_env_close(&env);
    experiment_free(e);
    return cpu_s() - t0;
}

int main(void)
{
    char dbp[64];
    snprintf(dbp, sizeof dbp, "/tmp/hetsim-bench-micro-%d.db", (int)getpid());
    struct errbuf err;
    err_clear(&err);
    db *d = NULL;

    /* per request, under each truth */
    static const char *const truths[] = { "truth=queueing", "truth=fit" };
    struct run_result res;
    for (int t = 0; t < 2; t++) {
        char *req[] = { "workload.rate_shape=[1]", "workload.duration_s=3600",
                        "workload.rate_per_s=500", (char *)truths[t] };
        double best = 1e9;
        for (int rep = 0; rep < 3; rep++) {
            remove(dbp);
            if (db_open(&d, dbp, &err) < 0) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            double c = one(req, 4, "derm", d, &res);
            db_close(d);
            best = c < best ? c : best;
        }
        printf("micro, per request, %s truth: socialnet, one hour at 500 requests/s (%lld "
               "requests, %llu events), derm, with the database: %.2f CPU s (best of 3; "
               "target < 10 s), %.2f M requests per CPU s, e2e_p95 %.4f s\n",
               t ? "fit's" : "queueing", (long long)res.tot.entities_in,
               (unsigned long long)res.tot.events, best, res.tot.entities_in / best / 1e6,
               run_metric(&res, "e2e_p95"));
    }

    /* analytical sweep */
    static const char *const policies[] = { "static_worst", "erms", "firm", "derm" };
    remove(dbp);
    if (db_open(&d, dbp, &err) < 0) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    double t0 = cpu_s(), per[4] = { 0 };
    int runs = 0;
    for (int p = 0; p < 4; p++)
        for (int r = 0; r < 10; r++)
            for (int s = 0; s < 25; s++) {
                char rate[64], sla[64];
                snprintf(rate, sizeof rate, "workload.rate_per_s=%d", 100 + 50 * r);
                snprintf(sla, sizeof sla, "sla_ms=%d", 40 + 10 * s);
                char *sets[] = { "mode=analytical", "workload.batch_s=60",
                                 "sim.lattice_points=512", rate, sla };
                per[p] += one(sets, 5, policies[p], d, &res);
                runs++;
            }
    double total = cpu_s() - t0;
    db_close(d);
    remove(dbp);
    printf("micro, analytical: a %d-point sweep of socialnet (one hour each, 10 rates x 25 SLAs "
           "x 4 policies), one process, with the database: %.2f CPU s in all (target < 10 s), "
           "%.1f runs per CPU s\n", runs, total, runs / total);
    for (int p = 0; p < 4; p++)
        printf("  %-13s %.2f CPU s for 250 runs, %.1f ms a run\n", policies[p], per[p],
               4 * per[p]);
    return 0;
}
