/*
 * pool: runs independent jobs in worker processes, at most `width` at once.
 *
 * Workers are forks of the caller, so they see everything the caller has loaded.  A worker
 * takes one job after another (a fork per job cost more than a short run itself: page faults
 * on a fresh address space, a new database connection); a job that crashes takes only its
 * worker down, and the job is reported with the signal and a new worker takes the next one.
 * A job's stderr is collected and handed back with its exit status when it ends; the
 * caller's `done` callback runs in the parent, in the order jobs finish, and may print
 * progress.  A job may report how far it is (pool_progress, in the worker): the parent hears
 * it through `progress`, and `tick` runs in the parent at least every 200 ms while jobs are
 * in flight, so that a progress line moves while long jobs run.
 *
 * Stopping: when *stop becomes non-zero (a signal handler sets it), no further job starts,
 * busy workers are sent SIGTERM, idle ones are told to finish, and pool_run returns after
 * reaping them all; jobs cut short are reported with status POOL_STOPPED.
 */
#ifndef HETSIM_POOL_H
#define HETSIM_POOL_H

#include <signal.h>
#include <stddef.h>

enum { POOL_STOPPED = -1 };

struct pool_result {
    int         status;     /* the job's return value; 128 + N when its worker was killed by
                               signal N; POOL_STOPPED when stopped before it ended */
    const char *output;     /* what it wrote on stderr (the last 16 KB), NUL-terminated */
    double      wall_s;
};

struct pool_ops {
    /* In a worker: do job `index` and return its status (0 ok, 1-255 failed). */
    int  (*job)(void *ctx, size_t index);
    /* In the parent, when job `index` has ended. */
    void (*done)(void *ctx, size_t index, const struct pool_result *r);
    /* In a worker that is told to finish, before it exits (may be NULL): release what its
     * jobs kept open, such as a database connection. */
    void (*worker_exit)(void *ctx);
    /* In the parent: job `index` said it is `frac` (0 to 1) done (may be NULL). */
    void (*progress)(void *ctx, size_t index, double frac);
    /* In the parent, after every wake-up of the pool's loop (may be NULL). */
    void (*tick)(void *ctx);
};

/* In a worker, during a job: tell the parent the job is `frac` done.  Cheap (one small
 * write), but the caller should not call it more than a few times a second.  Does nothing
 * outside a worker. */
void pool_progress(double frac);

/* Run jobs 0 .. n-1.  Returns 0, or -1 if a process or pipe could not be created (errno). */
int pool_run(size_t n, int width, const struct pool_ops *ops, void *ctx,
             volatile sig_atomic_t *stop);

#endif
