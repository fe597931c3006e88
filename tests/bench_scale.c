/*
 * bench_scale: every training policy on the shipped pai_scale experiment (Alibaba PAI's 2020
 * cluster, 6,742 GPUs of five types; a Philly-fitted workload that starts stationary, with
 * 263 jobs in progress at time 0) at 10,000, 50,000 and 100,000 jobs.  Each run is `hetsim run pai_scale
 * --policy P --set workload.jobs=N` with a database, exactly as a user starts it, in a child
 * process whose CPU time (user + system) and peak RSS come from wait4.  A run is stopped at
 * CPU_CAP_S of CPU time (shown as "> cap"), and a policy that hits the cap skips the larger
 * sizes.  The growth exponent is the least-squares slope of log CPU time against log jobs
 * over the sizes measured: 1.0 is linear in the trace, i.e. flat per job.
 * How many jobs are live depends on the policy (one that places jobs on slow GPUs first keeps
 * them longer: about 830 under fifo against 240 under themis) and still grows with the trace
 * for such policies, as their population settles above the stationary start's.  So the run's
 * database also gives each run's mean live jobs (running + queued, hourly samples up to the
 * last arrival), and a second exponent is fitted to CPU time per live job: a policy whose
 * cost per decision is flat per live job has 1.0 there.
 * Targets: every policy under 30 CPU s at 100,000 jobs, exponent at most 1.1, peak RSS under
 * 100 MB.  SCALE_POLICIES=fft,oef (a comma-separated list) measures only those policies.
 * A plain program, not a test.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "childrun.h"

#include <sqlite3.h>

#ifndef HETSIM_BIN
#define HETSIM_BIN "./hetsim"
#endif

enum { NSIZES = 3, CPU_CAP_S = 300 };

static const long sizes[NSIZES] = { 10000, 50000, 100000 };

static const char *const policies[] = {
    "fifo", "fifo_perf", "srtf", "tiresias", "themis", "gavel_las", "gavel_las_perf",
    "gavel_ftf", "oef", "fft",
};

struct measure {
    double cpu_s, rss_mb;
    double live;        /* mean running + queued jobs up to the last arrival, from the DB */
    int    capped;      /* stopped at CPU_CAP_S */
};

/* The run's mean live jobs: running + queued, over the hourly samples up to the last arrival. */
static double mean_live(const char *db)
{
    static const char sql[] =
        "SELECT avg(v) FROM (SELECT t_s, sum(value) AS v FROM samples WHERE name IN "
        "('running_jobs', 'queue_len') AND t_s <= (SELECT max(arrival_s) FROM jobs) "
        "GROUP BY t_s)";
    sqlite3 *h = NULL;
    sqlite3_stmt *q = NULL;
    double live = NAN;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        live = sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
    return live;
}

/* One run in a child; returns 0 (measured, possibly capped) or -1 (it failed). */
static int run_child(const char *policy, long jobs, const char *db, struct measure *m)
{
    char set[64], who[128];
    snprintf(set, sizeof set, "workload.jobs=%ld", jobs);
    snprintf(who, sizeof who, "bench_scale: %s at %ld jobs", policy, jobs);
    char *argv[] = { HETSIM_BIN, "run", "pai_scale", "--policy", (char *)policy, "--set", set,
                     "--db", (char *)db, "--quiet", NULL };
    unlink(db);
    struct childrun c;
    int rc = childrun(argv, CPU_CAP_S, who, &c);
    m->cpu_s = c.cpu_s;
    m->rss_mb = c.rss_mb;
    m->capped = c.capped;
    m->live = rc == 0 && !c.capped ? mean_live(db) : NAN;
    unlink(db);
    return rc;
}

/* Is `name` in the comma-separated `list` (NULL: every policy)? */
static int selected(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *s = list; *s != '\0';) {
        size_t len = strcspn(s, ",");
        if (len == n && strncmp(s, name, n) == 0)
            return 1;
        s += len + (s[len] == ',');
    }
    return 0;
}

/* Least-squares slope of log y against log x over the first n points; y is the CPU time,
 * or with per_live the CPU time per mean live job. */
static double loglog_slope(const long *x, const struct measure *y, int n, int per_live)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double lx = log((double)x[i]);
        double ly = log(per_live ? y[i].cpu_s / y[i].live : y[i].cpu_s);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

int main(void)
{
    char db[64];
    snprintf(db, sizeof db, "/tmp/hetsim-bench-scale-%d.db", (int)getpid());
    printf("scale: pai_scale (6,742 GPUs, a stationary start), `hetsim run` with a database, CPU "
           "s (user + system) and peak RSS per run, capped at %d CPU s; live: mean running + "
           "queued jobs; exponents of CPU s and of CPU s per live job\n", CPU_CAP_S);
    printf("  %-15s", "policy");
    for (int s = 0; s < NSIZES; s++) {
        char head[32];
        snprintf(head, sizeof head, "%ld jobs", sizes[s]);
        printf("  %25s", head);
    }
    printf("  %8s  %8s\n", "exponent", "per live");
    int rc = 0;
    const char *only = getenv("SCALE_POLICIES");
    for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
        if (!selected(only, policies[p]))
            continue;
        struct measure m[NSIZES];
        int n = 0;
        printf("  %-15s", policies[p]);
        for (int s = 0; s < NSIZES; s++) {
            if (run_child(policies[p], sizes[s], db, &m[s]) < 0) {
                printf("  %25s", "failed");
                rc = 1;
                break;
            }
            if (m[s].capped) {
                printf("  %10s %5.0f MB %5s", "> cap", m[s].rss_mb, "");
                break;
            }
            printf("  %8.2f s %5.0f MB %5.0f", m[s].cpu_s, m[s].rss_mb, m[s].live);
            n = s + 1;
        }
        for (int s = n + 1; s < NSIZES; s++)
            printf("  %25s", "-");
        if (n >= 2)
            printf("  %8.2f  %8.2f", loglog_slope(sizes, m, n, 0), loglog_slope(sizes, m, n, 1));
        printf("\n");
    }
    return rc;
}
