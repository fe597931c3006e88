/*
 * bench_heet: one Heet round at scale — 1,000 GPUs (84 hosts of 4 T4, 83 of 4 A10, 83 of 4
 * V100) and 2,000 active elastic jobs of Heet's six models (ranges [1, 4], seeded sizes and
 * work long enough that none finishes), ten 120 s rounds in the training world.  The figure
 * is CPU seconds (getrusage, this process) per round, world included (applying 1,000 GPUs of
 * grants), the completion once per job type included in the first; the target is
 * under 1 s per round.  AFS and SRSF are timed the same way for comparison.  Then every
 * policy of sia_3types (160 jobs on 64 GPUs of three types), a whole run each, without a
 * database: the target is under 5 CPU s for sia.  A plain program, not a test.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "../models/catalog.h"
#include "../models/tput.h"
#include "../sched/policy.h"
#include "../sim/base/path.h"
#include "../sim/run/experiment.h"
#include "../sim/run/run.h"
#include "../sim/train/train.h"

enum { JOBS = 2000, ROUNDS = 10 };

static double cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec * 1e-6;
}

struct src {
    const struct job_spec *jobs;
    int n, next;
};

static int src_next(void *ctx, void *spec, struct errbuf *err)
{
    (void)err;
    struct src *s = ctx;
    if (s->next == s->n)
        return 0;
    *(struct job_spec *)spec = s->jobs[s->next++];
    return 1;
}

static int fail(const struct errbuf *err)
{
    fprintf(stderr, "bench_heet: %s\n", err->msg);
    return 1;
}

int main(void)
{
    static const char *const types[] = {
        "VGG-19 CIFAR-10 (batch size 64)", "VGG-19 CIFAR-10 (batch size 512)",
        "ResNet-152 CIFAR-10 (batch size 64)", "ResNet-152 CIFAR-10 (batch size 512)",
        "DenseNet-121 CIFAR-10 (batch size 64)", "DenseNet-121 CIFAR-10 (batch size 512)" };
    static const char *const policies[] = { "heet", "afs", "srsf" };
    struct errbuf err;
    err_clear(&err);
    char g[PATH_MAX_LEN], l[PATH_MAX_LEN], j[PATH_MAX_LEN], p[PATH_MAX_LEN];
    path_resolve(g, sizeof g, NULL, experiment_default_gpus);
    path_resolve(l, sizeof l, NULL, experiment_default_links);
    path_resolve(j, sizeof j, NULL, experiment_default_jobtypes);
    catalog *cat = NULL;
    tput *m = NULL;
    if (catalog_load(&cat, g, l, &err) < 0 || tput_create(&m, cat, &err) < 0 ||
        tput_load_types(m, j, &err) < 0)
        return fail(&err);
    for (int i = 0; experiment_default_profiles[i] != NULL; i++) {
        path_resolve(p, sizeof p, NULL, experiment_default_profiles[i]);
        if (tput_load_profile(m, p, &err) < 0)
            return fail(&err);
    }
    char cpath[64];
    snprintf(cpath, sizeof cpath, "/tmp/hetsim-bench-heet-%d.json", (int)getpid());
    FILE *f = fopen(cpath, "w");
    if (f == NULL)
        return 1;
    fprintf(f, "{\"name\": \"b\", \"network\": \"ethernet-25g\", \"groups\": ["
               "{\"count\": 84, \"gpu\": \"T4\", \"gpus_per_node\": 4, \"intra\": \"pcie3\"},"
               "{\"count\": 83, \"gpu\": \"A10\", \"gpus_per_node\": 4, \"intra\": \"pcie4\"},"
               "{\"count\": 83, \"gpu\": \"V100\", \"gpus_per_node\": 4, \"intra\": \"nvlink2\"}]}\n");
    fclose(f);
    cluster *cl = NULL;
    int rc = cluster_load(&cl, cat, cpath, &err);
    remove(cpath);
    if (rc < 0)
        return fail(&err);
    static struct job_spec jobs[JOBS];
    unsigned long x = 42;
    for (int i = 0; i < JOBS; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        unsigned r = (unsigned)(x >> 33);
        int w = (int[]){ 1, 1, 2, 4 }[r % 4];
        jobs[i] = (struct job_spec){ .id = i, .arrival = 0, .jtype = tput_find(m, types[(r >> 3) % 6]),
                                     .workers = w, .min_workers = 1, .max_workers = 4,
                                     .work = 1e9 + (r >> 10), .weight = 1 };
    }
    printf("Heet at scale: %d GPUs (T4/A10/V100), %d active elastic jobs, %d rounds of 120 s; "
           "CPU s per round (getrusage), world included; target < 1 s for heet\n",
           cluster_ngpus(cl), JOBS, ROUNDS);
    for (size_t k = 0; k < sizeof policies / sizeof policies[0]; k++) {
        struct policy_env env = { 1, cl, m, NULL, 0 };
        policy *pol;
        if (policy_open(&pol, policies[k], NULL, &env, &err) < 0)
            return fail(&err);
        struct src s = { jobs, JOBS, 0 };
        struct entity_source es = { &s, src_next };
        struct train_sink sink = { 0 };
        struct train_config cfg = { .restore_delay_s = 30,
                                    .until = sim_from_sec(120.0 * ROUNDS - 1) };
        train *w;
        if (train_create(&w, cl, m, &cfg, &es, policy_decider(pol), &sink, &err) < 0)
            return fail(&err);
        double t0 = cpu_s();
        struct train_totals tot;
        if (train_run(w, &tot, &err) < 0)
            return fail(&err);
        double used = cpu_s() - t0;
        printf("  %-5s %llu decisions, %.4f CPU s per round (%.3f CPU s in all)\n", policies[k],
               (unsigned long long)tot.decisions, used / (double)tot.decisions, used);
        train_destroy(w);
        policy_close(pol);
    }
    cluster_destroy(cl);
    tput_destroy(m);
    catalog_destroy(cat);

    static const char *const sia_policies[] = { "sia", "heet", "afs", "srsf" };
    printf("sia_3types: 160 Philly-derived elastic jobs on 64 GPUs (T4/A10/V100), whole runs "
           "without a database, CPU s (getrusage); target < 5 s for sia\n");
    for (size_t k = 0; k < sizeof sia_policies / sizeof sia_policies[0]; k++) {
        struct experiment *e = NULL;
        struct run_env env = { 0 };
        struct run_result res;
        if (experiment_load(&e, "sia_3types", NULL, 0, &err) < 0 ||
            experiment_only_policy(e, sia_policies[k], &err) < 0 ||
            run_env_open(&env, e, &err) < 0)
            return fail(&err);
        struct run_opts opts = { 0 };
        double t0 = cpu_s();
        if (run_one(e, 0, &env, &opts, &res, &err) < 0)
            return fail(&err);
        printf("  %-5s %.3f CPU s, mean JCT %.1f s\n", sia_policies[k], cpu_s() - t0,
               run_metric(&res, "jct_mean"));
        run_env_close(&env);
        experiment_free(e);
    }
    return 0;
}
