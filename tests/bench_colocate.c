/*
 * bench_colocate: issue 25's scale targets for the colocate domain (doc/colocate.md).
 *
 * (a) A week of colocate_day under `loan` on about 1,000 GPUs: `hetsim run colocate_day` with
 *     its cluster's node counts times k (k = 18: 36 x 8 A100-80GB, 18 x 8 H100, 72 x 4
 *     V100-16GB, 72 x 4 T4, 1,008 GPUs; serving's groups stay a100 and h100), both tenants'
 *     arrival rates times k (serving 2k requests a second on its day's sine, training 16k jobs
 *     an hour), sim.until_s a week, and the request and job counts a week of those rates (so
 *     the week's end, not the count, stops arrivals).  Everything else is the shipped file's.
 *     COLO_POLICY=static (or hetero_loan) runs the week under that broker instead.
 *     Target: under 60 CPU s at k = 18.  The run is repeated at the smaller scales of
 *     COLO_SCALES (default 1,2,4,18) and each capped at CPU_CAP_S; the growth exponent is the
 *     least-squares slope of log CPU s against log k over those that finished.  At the first
 *     scale whose week is capped, one day is run instead, and a week put at seven of it.
 * (b) The co-simulation's cost: colocate_day (a day) under `static` against the sum of its
 *     two tenants each run alone as a single-domain experiment of the same sections (serving
 *     on the a100 and h100 groups, training on the v100 and t4 groups, the same seed and
 *     until_s).  Target: a ratio of at most 1.2.
 * Every run is `hetsim run ... --db` in a child process, exactly as a user starts it; CPU s
 * (user + system) and peak RSS from wait4.  A plain program, not a test.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "childrun.h"

#ifndef HETSIM_BIN
#define HETSIM_BIN "./hetsim"
#endif

enum { CPU_CAP_S = 300, MAX_SCALES = 8, WEEK_S = 7 * 86400, DAY_S = 86400 };

/* Run HETSIM_BIN with argv (NULL-terminated, argv[0] included) in a child under the CPU cap;
 * 0 (measured, possibly capped) or -1 (it failed). */
static int run_child(char *const *argv, struct childrun *m)
{
    char who[128];
    snprintf(who, sizeof who, "bench_colocate: %s %s", argv[1], argv[2]);
    return childrun(argv, CPU_CAP_S, who, m);
}

/* (a): `until_s` (a week, or a day when the week is over the cap) of colocate_day under
 * policy, scaled by k. */
static int week(int k, int until_s, const char *policy, const char *db, struct childrun *m)
{
    char cluster[512], srate[64], sreq[64], trate[64], tjobs[64], until[64];
    snprintf(cluster, sizeof cluster,
             "cluster={\"name\": \"colo_day_x%d\", \"network\": \"ib-200g\", \"groups\": ["
             "{\"name\": \"a100\", \"count\": %d, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 8, "
             "\"intra\": \"nvswitch\"}, "
             "{\"name\": \"h100\", \"count\": %d, \"gpu\": \"H100\", \"gpus_per_node\": 8, "
             "\"intra\": \"nvswitch4\"}, "
             "{\"name\": \"v100\", \"count\": %d, \"gpu\": \"V100-16GB\", \"gpus_per_node\": 4, "
             "\"intra\": \"nvlink2\"}, "
             "{\"name\": \"t4\", \"count\": %d, \"gpu\": \"T4\", \"gpus_per_node\": 4, "
             "\"intra\": \"pcie3\"}]}", k, 2 * k, k, 4 * k, 4 * k);
    snprintf(srate, sizeof srate, "tenants.serving.workload.rate_per_s=%d", 2 * k);
    snprintf(sreq, sizeof sreq, "tenants.serving.workload.requests=%ld", 2L * k * WEEK_S);
    snprintf(trate, sizeof trate, "tenants.training.workload.rate_per_hour=%d", 16 * k);
    snprintf(tjobs, sizeof tjobs, "tenants.training.workload.jobs=%ld", 16L * k * 7 * 24);
    snprintf(until, sizeof until, "sim.until_s=%d", until_s);
    char *argv[] = { HETSIM_BIN, "run", "colocate_day", "--policy", (char *)policy,
                     "--set", cluster, "--set", srate, "--set", sreq, "--set", trate,
                     "--set", tjobs, "--set", until, "--db", (char *)db, "--quiet", NULL };
    unlink(db);
    int rc = run_child(argv, m);
    unlink(db);
    return rc;
}

/* Write text to path; 0 or -1. */
static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* colocate_day's tenants as single-domain experiments: its sections, its seed and limits. */
static const char serve_alone[] =
    "{ \"name\": \"colocate_day_serving\", \"domain\": \"serving\", \"seed\": 1,\n"
    "  \"cluster\": { \"name\": \"colo_day_serving\", \"network\": \"ib-200g\", \"groups\": [\n"
    "    { \"name\": \"a100\", \"count\": 2, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 8,\n"
    "      \"intra\": \"nvswitch\" },\n"
    "    { \"name\": \"h100\", \"count\": 1, \"gpu\": \"H100\", \"gpus_per_node\": 8,\n"
    "      \"intra\": \"nvswitch4\" } ] },\n"
    "  \"model\": \"llama-2-70b\", \"slo\": { \"ttft_s\": 2 }, \"policies\": [\"hexgen\"],\n"
    "  \"workload\": { \"format\": \"llm_synthetic\", \"requests\": 800000, \"rate_per_s\": 2,\n"
    "    \"day\": { \"peak_to_trough\": 3, \"peak_hour\": 14 } },\n"
    "  \"sim\": { \"overlong\": \"truncate\", \"sample_s\": 600, \"until_s\": 86400 } }\n";

static const char train_alone[] =
    "{ \"name\": \"colocate_day_training\", \"domain\": \"training\", \"seed\": 1,\n"
    "  \"cluster\": { \"name\": \"colo_day_training\", \"network\": \"ib-200g\", \"groups\": [\n"
    "    { \"name\": \"v100\", \"count\": 4, \"gpu\": \"V100-16GB\", \"gpus_per_node\": 4,\n"
    "      \"intra\": \"nvlink2\" },\n"
    "    { \"name\": \"t4\", \"count\": 4, \"gpu\": \"T4\", \"gpus_per_node\": 4,\n"
    "      \"intra\": \"pcie3\" } ] },\n"
    "  \"policies\": [\"fifo\"],\n"
    "  \"workload\": { \"format\": \"synthetic\", \"jobs\": 400, \"rate_per_hour\": 16,\n"
    "    \"start\": \"stationary\", \"reference_gpu\": \"V100-16GB\",\n"
    "    \"workers\": { \"1\": 18869, \"2\": 353, \"4\": 455, \"8\": 265 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 888, \"sigma\": 2.04,\n"
    "      \"clamp_min_s\": 60, \"clamp_max_s\": 172800 },\n"
    "    \"job_types\": { \"ResNet-18 (batch size 64)\": 1, \"ResNet-50 (batch size 64)\": 1,\n"
    "      \"Transformer (batch size 64)\": 1, \"LM (batch size 20)\": 1,\n"
    "      \"Recommendation (batch size 2048)\": 1, \"CycleGAN\": 0.5, \"A3C\": 0.5 } },\n"
    "  \"sim\": { \"restore_fixed_s\": 10, \"storage_gbs\": 2, \"sample_s\": 600,\n"
    "    \"until_s\": 86400 } }\n";

/* One run of experiment exp (a name or a file) under policy (NULL: its list); best of 3. */
static int best_of_3(const char *exp, const char *policy, const char *db, struct childrun *m)
{
    m->cpu_s = INFINITY;
    for (int i = 0; i < 3; i++) {
        char *argv[] = { HETSIM_BIN, "run", (char *)exp, "--db", (char *)db, "--quiet",
                         policy ? "--policy" : NULL, (char *)policy, NULL };
        struct childrun one;
        unlink(db);
        int rc = run_child(argv, &one);
        unlink(db);
        if (rc < 0 || one.capped)
            return -1;
        if (one.cpu_s < m->cpu_s)
            *m = one;
    }
    return 0;
}

/* The scales of COLO_SCALES ("1,2,4,18"), ascending as given; returns how many. */
static int scales(int *k)
{
    const char *s = getenv("COLO_SCALES");
    if (s == NULL)
        s = "1,2,4,18";
    int n = 0;
    while (*s != '\0' && n < MAX_SCALES) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000) {
            fprintf(stderr, "bench_colocate: COLO_SCALES: expected a list like 1,4,18\n");
            return -1;
        }
        k[n++] = (int)v;
        s = end + (*end == ',');
    }
    return n;
}

int main(void)
{
    char db[64], sfile[64], tfile[64];
    snprintf(db, sizeof db, "/tmp/hetsim-bench-colo-%d.db", (int)getpid());
    snprintf(sfile, sizeof sfile, "/tmp/hetsim-bench-colo-s-%d.json", (int)getpid());
    snprintf(tfile, sizeof tfile, "/tmp/hetsim-bench-colo-t-%d.json", (int)getpid());
    int k[MAX_SCALES], nk = scales(k);
    if (nk < 0)
        return 2;
    int rc = 0;

    const char *policy = getenv("COLO_POLICY") != NULL ? getenv("COLO_POLICY") : "loan";
    printf("colocate, a week: colocate_day under %s with its node counts and both tenants' "
           "rates times k (k = 18: 1,008 GPUs, 36 x 8 A100-80GB + 18 x 8 H100 serving's, 72 x 4 "
           "V100-16GB + 72 x 4 T4 training's; 36 requests/s on the day's sine, 288 jobs/h), "
           "sim.until_s 604800, with the database; CPU s (user + system), capped at %d; "
           "target < 60 CPU s at k = 18\n", policy, CPU_CAP_S);
    double lx[MAX_SCALES], ly[MAX_SCALES];
    int done = 0;
    for (int i = 0; i < nk; i++) {
        struct childrun m;
        int gpus = 56 * k[i];
        if (week(k[i], WEEK_S, policy, db, &m) < 0) {
            /* a known defect of the run, not of the bench (doc/speed.md): shown, and the
             * other benches of `make bench` still run */
            printf("  k = %3d  %5d GPUs  failed (hetsim's message above)\n", k[i], gpus);
            continue;
        }
        if (m.capped) {
            printf("  k = %3d  %5d GPUs  > %d CPU s (capped)", k[i], gpus, CPU_CAP_S);
            /* what a day costs there: the week is the day's sine seven times */
            if (week(k[i], DAY_S, policy, db, &m) == 0 && !m.capped)
                printf("; one day %.2f CPU s, %.0f MB: a week some %.0f%s", m.cpu_s, m.rss_mb,
                       7 * m.cpu_s, k[i] == 18 ? "  target not met" : "");
            printf("\n");
            break;
        }
        printf("  k = %3d  %5d GPUs  %8.2f CPU s  %6.0f MB  %.4f CPU s per GPU-day%s\n", k[i],
               gpus, m.cpu_s, m.rss_mb, m.cpu_s / (gpus * 7.0),
               k[i] == 18 ? (m.cpu_s < 60 ? "  target met" : "  target not met") : "");
        lx[done] = log(k[i]);
        ly[done++] = log(m.cpu_s);
    }
    if (done >= 2) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < done; i++) {
            sx += lx[i];
            sy += ly[i];
            sxx += lx[i] * lx[i];
            sxy += lx[i] * ly[i];
        }
        printf("  growth exponent of CPU s in k: %.2f (1.0: linear in the cluster and its "
               "load)\n", (done * sxy - sx * sy) / (done * sxx - sx * sx));
    }

    printf("colocate, co-simulation cost: colocate_day (a day) under static against its two "
           "tenants each run alone (the same sections as single-domain experiments), with the "
           "database; best of 3 CPU s; target ratio <= 1.2\n");
    struct childrun co, s, t;
    if (write_file(sfile, serve_alone) < 0 || write_file(tfile, train_alone) < 0 ||
        best_of_3("colocate_day", "static", db, &co) < 0 ||
        best_of_3(sfile, NULL, db, &s) < 0 || best_of_3(tfile, NULL, db, &t) < 0) {
        printf("  failed\n");
        rc = 1;
    } else {
        double ratio = co.cpu_s / (s.cpu_s + t.cpu_s);
        printf("  colocated %.2f CPU s; serving alone %.2f + training alone %.2f = %.2f; "
               "ratio %.2f  target %s\n", co.cpu_s, s.cpu_s, t.cpu_s, s.cpu_s + t.cpu_s, ratio,
               ratio <= 1.2 ? "met" : "not met");
    }
    unlink(sfile);
    unlink(tfile);
    unlink(db);
    return rc;
}
