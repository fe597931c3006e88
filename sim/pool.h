/*
 * pool: runs independent jobs in child processes, at most `width` at once.
 *
 * Each job runs in a fork of the caller, so it sees everything the caller has loaded, and a
 * job that crashes or leaks harms nothing but itself.  A job's stderr is collected through a
 * pipe and handed back with its exit status when it ends; the caller's `done` callback runs
 * in the parent, in the order jobs finish, and may print progress.
 *
 * Stopping: when *stop becomes non-zero (a signal handler sets it), no further job starts,
 * running ones are sent SIGTERM, and pool_run returns after reaping them; they are reported
 * with status POOL_STOPPED.
 */
#ifndef HETSIM_POOL_H
#define HETSIM_POOL_H

#include <signal.h>
#include <stddef.h>

enum { POOL_STOPPED = -1 };

struct pool_result {
    int         status;     /* the job's exit status; 128 + N when killed by signal N;
                               POOL_STOPPED when stopped before it ended */
    const char *output;     /* what it wrote on stderr (the last 16 KB), NUL-terminated */
    double      wall_s;
};

/* Runs in the child: do job `index` and return its exit status (0 ok). */
typedef int (*pool_job_fn)(void *ctx, size_t index);
/* Runs in the parent when job `index` has ended. */
typedef void (*pool_done_fn)(void *ctx, size_t index, const struct pool_result *r);

/* Run jobs 0 .. n-1.  Returns 0, or -1 if a process or pipe could not be created (errno). */
int pool_run(size_t n, int width, pool_job_fn job, pool_done_fn done, void *ctx,
             volatile sig_atomic_t *stop);

#endif
