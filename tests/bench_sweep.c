/*
 * bench_sweep: `make bench`'s sweep case.  1,000 runs of the default experiment (its two
 * policies x 500 seeds):
 *   1. in one process, without a database: the simulation alone;
 *   2. in one process, with a database: what writing the rows adds per run;
 *   3. `hetsim sweep -j 1` and `-j 2` (worker processes, runs committed into one file by
 *      concurrent writers): runs per CPU second, and what two workers cost beyond one.
 * Every figure is CPU seconds, user + system (this process's for 1 and 2; the sweep's and its
 * workers', from wait4, for 3): the machine is shared, and wall time says more of the others'
 * load than of hetsim.  The wall-clock speed-up of -j 2 over -j 1 is printed beside, as what
 * it is: it depends on how many of the cores were free.
 * Target: 1,000 runs in a few minutes on 2 cores; the part of a run that holds the file's
 * write lock (the copy of its rows) far shorter than the run, so that writers never queue.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/run/run.h"

enum { SEEDS = 500 };

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec * 1e-6;
}

/* CPU seconds (user + system) this process has used */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return seconds(&ru);
}

static void remove_db(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    char p[256];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

/* Every run of the sweep in this process; db_path NULL: no database.  Returns CPU seconds;
 * *commit_s gets the (wall) time spent copying runs into the file under its write lock. */
static double in_process(const char *db_path, int *nruns, double *commit_s)
{
    struct errbuf err;
    err_clear(&err);
    db *d = NULL;
    if (db_path != NULL && db_open(&d, db_path, &err) < 0) {
        fprintf(stderr, "bench_sweep: %s\n", err.msg);
        exit(1);
    }
    *nruns = 0;
    *commit_s = 0;
    double t0 = cpu_s();
    for (int seed = 1; seed <= SEEDS; seed++) {
        char set[32];
        snprintf(set, sizeof set, "seed=%d", seed);
        char *sets[] = { set };
        struct experiment *e = NULL;
        struct run_env env = { 0 };
        if (experiment_load(&e, "default", sets, 1, &err) < 0 || run_env_open(&env, e, &err) < 0) {
            fprintf(stderr, "bench_sweep: %s\n", err.msg);
            exit(1);
        }
        for (int p = 0; p < e->npolicies; p++) {
            struct run_result res;
            struct run_opts o = { .db = d };
            if (run_one(e, p, &env, &o, &res, &err) < 0) {
                fprintf(stderr, "bench_sweep: %s\n", err.msg);
                exit(1);
            }
            (*nruns)++;
            *commit_s += res.commit_s;
        }
        run_env_close(&env);
        experiment_free(e);
    }
    double dt = cpu_s() - t0;
    db_close(d);
    return dt;
}

/* `hetsim sweep FILE --db DB -j N -q`; returns its CPU seconds and those of its workers
 * (wait4 counts the descendants it waited for); *wall its wall time. */
static double sweep_cli(const char *file, const char *db_path, const char *jobs, double *wall)
{
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid == 0) {
        execl(HETSIM_BIN, HETSIM_BIN, "sweep", file, "--db", db_path, "-j", jobs, "-q",
              (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_sweep: hetsim sweep -j %s failed\n", jobs);
        exit(1);
    }
    *wall = wall_now() - t0;
    return seconds(&ru);
}

int main(void)
{
    char dir[] = "/tmp/hetsim-bench-sweep-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("bench_sweep: mkdtemp");
        return 1;
    }
    char file[128], dbp[128];
    snprintf(file, sizeof file, "%s/sweep.json", dir);
    snprintf(dbp, sizeof dbp, "%s/sweep.db", dir);
    FILE *f = fopen(file, "w");
    if (f == NULL) {
        perror("bench_sweep: writing the sweep");
        return 1;
    }
    fprintf(f, "{ \"name\": \"bench\", \"experiment\": \"default\", \"grid\": { \"seed\": [");
    for (int s = 1; s <= SEEDS; s++)
        fprintf(f, "%s%d", s > 1 ? ", " : "", s);
    fprintf(f, "] } }\n");
    fclose(f);

    int n = 0;
    double commit = 0;
    double sim = in_process(NULL, &n, &commit);
    double with_db = in_process(dbp, &n, &commit);
    remove_db(dbp);
    double w1, w2;
    double j1 = sweep_cli(file, dbp, "1", &w1);
    remove_db(dbp);
    double j2 = sweep_cli(file, dbp, "2", &w2);
    remove_db(dbp);
    printf("sweep: %d runs of the default experiment (2 policies x %d seeds, 300 jobs each)\n",
           n, SEEDS);
    printf("  in one process, no database:   %6.2f CPU s, %7.1f runs per CPU s\n", sim, n / sim);
    printf("  in one process, with database: %6.2f CPU s, %7.1f runs per CPU s (database: %.0f%% "
           "of a run, %.1f CPU ms)\n", with_db, n / with_db, 100 * (with_db - sim) / with_db,
           1e3 * (with_db - sim) / n);
    printf("    of which under the file's write lock: %.2f ms per run (wall), so concurrent "
           "writers cap a sweep at %.0f runs/s\n", 1e3 * commit / n, n / commit);
    printf("  hetsim sweep -j 1:             %6.2f CPU s, %7.1f runs per CPU s (one worker "
           "process)\n", j1, n / j1);
    printf("  hetsim sweep -j 2:             %6.2f CPU s, %7.1f runs per CPU s (%+.0f%% CPU "
           "against -j 1; wall %.2f s against %.2f, %.2fx, as free cores allowed)\n", j2,
           n / j2, 100 * (j2 / j1 - 1), w2, w1, w1 / w2);
    unlink(file);
    rmdir(dir);
    return 0;
}
