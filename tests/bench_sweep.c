/*
 * bench_sweep: `make bench`'s sweep case.  1,000 runs of the default experiment (its two
 * policies x 500 seeds):
 *   1. in one process, without a database: the simulation alone;
 *   2. in one process, with a database: what writing the rows adds per run;
 *   3. `hetsim sweep -j 1` and `-j 2` (worker processes, runs committed into one file by
 *      concurrent writers): runs per second, and the speed-up of -j 2 over -j 1.
 * Target: 1,000 runs in a few minutes on 2 cores; the part of a run that holds the file's
 * write lock (the copy of its rows) far shorter than the run, so that writers never queue.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void remove_db(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    char p[256];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

/* Every run of the sweep in this process; db_path NULL: no database.  Returns seconds;
 * *commit_s gets the time spent copying runs into the file under its write lock. */
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
    double t0 = wall_now();
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
    double dt = wall_now() - t0;
    db_close(d);
    return dt;
}

/* `hetsim sweep FILE --db DB -j N -q`; returns seconds. */
static double sweep_cli(const char *file, const char *db_path, const char *jobs)
{
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid == 0) {
        execl(HETSIM_BIN, HETSIM_BIN, "sweep", file, "--db", db_path, "-j", jobs, "-q",
              (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_sweep: hetsim sweep -j %s failed\n", jobs);
        exit(1);
    }
    return wall_now() - t0;
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
    double j1 = sweep_cli(file, dbp, "1");
    remove_db(dbp);
    double j2 = sweep_cli(file, dbp, "2");
    remove_db(dbp);
    printf("sweep: %d runs of the default experiment (2 policies x %d seeds, 300 jobs each)\n",
           n, SEEDS);
    printf("  in one process, no database:   %6.2f s, %7.1f runs/s\n", sim, n / sim);
    printf("  in one process, with database: %6.2f s, %7.1f runs/s (database: %.0f%% of a run, "
           "%.1f ms)\n", with_db, n / with_db, 100 * (with_db - sim) / with_db,
           1e3 * (with_db - sim) / n);
    printf("    of which under the file's write lock: %.2f ms per run, so concurrent writers "
           "cap a sweep at %.0f runs/s\n", 1e3 * commit / n, n / commit);
    printf("  hetsim sweep -j 1:             %6.2f s, %7.1f runs/s (one worker process)\n", j1,
           n / j1);
    printf("  hetsim sweep -j 2:             %6.2f s, %7.1f runs/s (%.2fx -j 1)\n", j2, n / j2,
           j1 / j2);
    unlink(file);
    rmdir(dir);
    return 0;
}
