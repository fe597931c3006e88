/*
 * bench_python: what a policy written in Python costs against its C version, on the shipped
 * pai_scale experiment (6,742 GPUs, a stationary start).  Each run is `hetsim run pai_scale
 * --policy P --set workload.jobs=N` with a database, exactly as a user starts it, in a child
 * whose CPU time (user + system) comes from wait4; the database gives its decisions and the
 * mean time inside one decision (solver_time_mean: wall clock of the hook, as the dispatch
 * layer times every policy).  fifo at 100,000 jobs; srtf, whose Python walks every live job at
 * every decision (about 800 here), at 10,000.
 * Targets (issue 26): the Python fifo under 30 CPU s at 100,000 jobs and within 10x of the C
 * fifo's CPU time.  A plain program, not a test.
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

struct measure {
    double cpu_s, decisions, decide_s;
};

static double db_value(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *q = NULL;
    double v = NAN;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
    return v;
}

static int run_child(const char *policy, long jobs, const char *db, struct measure *m)
{
    char set[64], who[128];
    snprintf(set, sizeof set, "workload.jobs=%ld", jobs);
    snprintf(who, sizeof who, "bench_python: %s at %ld jobs", policy, jobs);
    char *argv[] = { HETSIM_BIN, "run", "pai_scale", "--policy", (char *)policy, "--set", set,
                     "--db", (char *)db, "--quiet", NULL };
    unlink(db);
    struct childrun c;
    if (childrun(argv, 0, who, &c) < 0)
        return -1;
    m->cpu_s = c.cpu_s;
    m->decisions = db_value(db, "SELECT decisions FROM runs");
    m->decide_s = db_value(db, "SELECT value FROM metrics WHERE name = 'solver_time_mean'");
    unlink(db);
    return 0;
}

int main(void)
{
    static const struct {
        const char *c, *py;
        long jobs;
    } pairs[] = {
        { "fifo", "py:sched/python/fifo.py", 100000 },
        { "srtf", "py:sched/python/srtf.py", 10000 },
    };
    char db[64];
    snprintf(db, sizeof db, "/tmp/hetsim-bench-python-%d.db", (int)getpid());
    printf("python: pai_scale, `hetsim run` with a database; CPU s (user + system) of the whole "
           "run, decisions, mean wall time inside one decision\n");
    printf("  %-26s %8s  %10s  %12s  %12s  %12s\n", "policy", "jobs", "CPU s", "decisions",
           "us/decision", "CPU x of C");
    int rc = 0;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        struct measure c, py;
        if (run_child(pairs[k].c, pairs[k].jobs, db, &c) < 0 ||
            run_child(pairs[k].py, pairs[k].jobs, db, &py) < 0) {
            rc = 1;
            continue;
        }
        printf("  %-26s %8ld  %10.2f  %12.0f  %12.2f  %12s\n", pairs[k].c, pairs[k].jobs,
               c.cpu_s, c.decisions, c.decide_s * 1e6, "1");
        char x[32];
        snprintf(x, sizeof x, "%.1f", py.cpu_s / c.cpu_s);
        printf("  %-26s %8ld  %10.2f  %12.0f  %12.2f  %12s\n", pairs[k].py, pairs[k].jobs,
               py.cpu_s, py.decisions, py.decide_s * 1e6, x);
        printf("  %-26s %8s  %10s  %12s  %12.1f\n", "  per decision, Python / C", "", "", "",
               py.decide_s / c.decide_s);
        if (k == 0)
            printf("  target: py fifo under 30 CPU s at 100,000 jobs (%s) and within 10x of C "
                   "fifo (%s)\n", py.cpu_s < 30 ? "met" : "NOT met",
                   py.cpu_s <= 10 * c.cpu_s ? "met" : "NOT met");
    }
    return rc;
}
