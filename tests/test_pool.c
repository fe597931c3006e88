/*
 * test_pool: the worker pool behind `hetsim sweep -j N` — every job runs exactly once and its
 * status and stderr come back to it (also when a job writes more than a pipe holds), a
 * crashing job takes only its worker down and the next job gets a new one, workers are
 * reused, the stop flag cuts busy jobs short, and every worker runs its exit hook.
 *
 * Jobs report to the parent through a shared file (each appends one line), so that the test
 * sees what ran where.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/batch/pool.h"
#include "helpers.h"

enum { MAXJ = 64 };

struct rec {
    int    status[MAXJ], seen[MAXJ];
    char  *out[MAXJ];
    double wall[MAXJ];
    int    ndone;
    char   log[512];            /* jobs and exiting workers append "kind index pid" */
    int    crash_at, big_at, slow_from;
    volatile sig_atomic_t *stop;
    int    stop_after;
};

static void append_log(const struct rec *r, const char *kind, long v)
{
    FILE *f = fopen(r->log, "a");
    if (f != NULL) {
        fprintf(f, "%s %ld %d\n", kind, v, (int)getpid());
        fclose(f);
    }
}

static int job(void *ctx, size_t i)
{
    struct rec *r = ctx;
    append_log(r, "job", (long)i);
    if ((int)i == r->crash_at)
        abort();
    if ((int)i == r->big_at) {
        /* 200 KB: three times a pipe's buffer, while the parent waits for its status */
        for (int k = 0; k < 4000; k++)
            fprintf(stderr, "line %04d of a long output, padded to fifty bytes.\n", k);
    }
    if (r->slow_from >= 0 && (int)i >= r->slow_from)
        sleep(30);
    fprintf(stderr, "job %zu says hello\n", i);
    return (int)(i % 3);
}

static void done(void *ctx, size_t i, const struct pool_result *res)
{
    struct rec *r = ctx;
    cr_assert_lt(i, (size_t)MAXJ);
    r->seen[i]++;
    r->status[i] = res->status;
    r->out[i] = strdup(res->output);
    r->wall[i] = res->wall_s;
    r->ndone++;
    if (r->stop != NULL && r->ndone == r->stop_after)
        *r->stop = 1;
}

static void worker_exit(void *ctx)
{
    append_log(ctx, "exit", 0);
}

static const struct pool_ops ops = { .job = job, .done = done, .worker_exit = worker_exit };

static void rec_init(struct rec *r, const char *name)
{
    memset(r, 0, sizeof *r);
    snprintf(r->log, sizeof r->log, "%s/%s", th_tmpdir(), name);
    remove(r->log);
    r->crash_at = r->big_at = r->slow_from = -1;
}

static void rec_free(struct rec *r)
{
    for (int i = 0; i < MAXJ; i++)
        free(r->out[i]);
}

/* Distinct pids among the log's lines of one kind. */
static int count_pids(const struct rec *r, const char *kind, int *lines)
{
    FILE *f = fopen(r->log, "r");
    cr_assert_not_null(f);
    int pids[256], np = 0, pid;
    long v;
    char k[16];
    *lines = 0;
    while (fscanf(f, "%15s %ld %d", k, &v, &pid) == 3) {
        if (strcmp(k, kind) != 0)
            continue;
        (*lines)++;
        int i = 0;
        while (i < np && pids[i] != pid)
            i++;
        if (i == np && np < 256)
            pids[np++] = pid;
    }
    fclose(f);
    return np;
}

Test(pool, every_job_once_with_its_status_and_output_on_reused_workers)
{
    struct rec r;
    rec_init(&r, "pool_all.log");
    volatile sig_atomic_t stop = 0;
    cr_assert_eq(pool_run(40, 3, &ops, &r, &stop), 0);
    cr_assert_eq(r.ndone, 40);
    for (int i = 0; i < 40; i++) {
        cr_assert_eq(r.seen[i], 1, "job %d reported %d times", i, r.seen[i]);
        cr_assert_eq(r.status[i], i % 3);
        char want[64];
        snprintf(want, sizeof want, "job %d says hello\n", i);
        cr_assert_str_eq(r.out[i], want, "job %d's output went elsewhere", i);
        cr_assert_geq(r.wall[i], 0);
    }
    int lines, workers = count_pids(&r, "job", &lines);
    cr_assert_eq(lines, 40);
    cr_assert(workers >= 1 && workers <= 3, "40 jobs ran in %d processes", workers);
    int exits, exited = count_pids(&r, "exit", &exits);
    cr_assert_eq(exits, workers, "%d workers, %d exit hooks", workers, exits);
    cr_assert_eq(exited, workers);
    rec_free(&r);
}

Test(pool, a_crash_fails_only_its_job_and_a_long_output_keeps_its_tail)
{
    struct rec r;
    rec_init(&r, "pool_crash.log");
    r.crash_at = 4;
    r.big_at = 7;
    volatile sig_atomic_t stop = 0;
    cr_assert_eq(pool_run(12, 2, &ops, &r, &stop), 0);
    cr_assert_eq(r.ndone, 12);
    cr_assert_eq(r.status[4], 128 + SIGABRT);
    for (int i = 0; i < 12; i++) {
        cr_assert_eq(r.seen[i], 1);
        if (i != 4)
            cr_assert_eq(r.status[i], i % 3, "job %d after the crash", i);
    }
    /* the last 16 KB are kept, marked as cut, and end with what the job wrote last */
    cr_assert_eq(strncmp(r.out[7], "[...]", 5), 0);
    cr_assert_leq(strlen(r.out[7]), 16384);
    cr_assert_not_null(strstr(r.out[7], "line 3999 of a long output"));
    cr_assert_not_null(strstr(r.out[7], "job 7 says hello\n"));
    /* two workers at most at a time, one more for the crashed one's successor */
    int lines, workers = count_pids(&r, "job", &lines);
    cr_assert_eq(lines, 12);
    cr_assert(workers >= 2 && workers <= 3, "%d workers", workers);
    rec_free(&r);
}

Test(pool, stop_cuts_busy_jobs_short_and_starts_no_more, .timeout = 20)
{
    struct rec r;
    rec_init(&r, "pool_stop.log");
    volatile sig_atomic_t stop = 0;
    r.stop = &stop;
    r.stop_after = 1;       /* the done callback raises the flag, as a signal handler would */
    r.slow_from = 1;        /* from job 1 on, a job takes 30 s */
    cr_assert_eq(pool_run(10, 2, &ops, &r, &stop), 0);
    cr_assert_eq(r.seen[0], 1);
    cr_assert_eq(r.status[0], 0);
    cr_assert_eq(r.seen[1], 1);
    cr_assert_eq(r.status[1], POOL_STOPPED, "the job in flight is reported stopped");
    for (int i = 2; i < 10; i++)
        cr_assert_eq(r.seen[i], 0, "job %d started after the stop", i);
    rec_free(&r);
}
