/*
 * pool: a worker is a fork with three pipes — jobs in (an index), statuses out (index and
 * status), and its stderr.  A worker writes a job's status only after flushing what the job
 * wrote on stderr, so when the parent reads a status, the job's whole output is already in
 * the stderr pipe and one non-blocking drain collects it.  EOF on a worker's pipes means it
 * has exited or died; it is reaped with waitpid, and its job, if it had one, reported with
 * the signal.  The status pipe also carries a job's progress (kind MSG_PROGRESS) before its
 * status, in order, so a job's progress never arrives after its end.  poll() wakes at least every 200 ms to look at the stop flag.  O(width) per
 * wake-up.  SIGPIPE is ignored while the pool runs, so a dead worker's job pipe is an error
 * to handle, not the end of the parent.
 */
#define _POSIX_C_SOURCE 200809L
#include "pool.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OUT_KEEP = 16384, CHUNK = 4096 };
_Static_assert(CHUNK < OUT_KEEP, "a read must fit in the kept output");

enum { MSG_DONE, MSG_PROGRESS };

struct status_msg {
    uint64_t index;
    int32_t  status, kind;      /* enum above */
    double   frac;              /* MSG_PROGRESS: how far the job is */
};
_Static_assert(sizeof(struct status_msg) <= PIPE_BUF, "a status is written atomically");

struct worker {
    pid_t  pid;             /* 0: none */
    int    jobs, status, err;   /* parent's ends: write jobs, read statuses and stderr */
    int    busy, killed;
    size_t index;
    char   buf[OUT_KEEP + 16];
    size_t len;
    int    truncated;
    double t0;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Transfer exactly n bytes; returns n, 0 at EOF, -1 on error (EINTR retried). */
static ssize_t read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int write_full(int fd, const void *p, size_t n)
{
    size_t put = 0;
    while (put < n) {
        ssize_t r = write(fd, (const char *)p + put, n - put);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        put += (size_t)r;
    }
    return 0;
}

static void close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}

/* in a worker: its status pipe and current job, for pool_progress */
static int worker_status = -1;
static uint64_t worker_index;

void pool_progress(double frac)
{
    if (worker_status < 0)
        return;
    struct status_msg m = { worker_index, 0, MSG_PROGRESS, frac };
    (void)write_full(worker_status, &m, sizeof m);
}

/* The worker's life: jobs until its job pipe closes. */
static void worker_main(int jobs, int status, const struct pool_ops *ops, void *ctx)
{
    uint64_t index;
    worker_status = status;
    while (read_full(jobs, &index, sizeof index) == (ssize_t)sizeof index) {
        worker_index = index;
        int st = ops->job(ctx, (size_t)index);
        fflush(NULL);
        struct status_msg m = { index, st & 0xff, MSG_DONE, 0 };
        if (write_full(status, &m, sizeof m) < 0)
            break;
    }
    if (ops->worker_exit != NULL)
        ops->worker_exit(ctx);
    fflush(NULL);
    _exit(0);
}

static int spawn(struct worker *w, struct worker *all, int width, const struct pool_ops *ops,
                 void *ctx)
{
    int jp[2] = { -1, -1 }, sp[2] = { -1, -1 }, ep[2] = { -1, -1 };
    if (pipe(jp) < 0 || pipe(sp) < 0 || pipe(ep) < 0) {
        close_pair(jp);
        close_pair(sp);
        close_pair(ep);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close_pair(jp);
        close_pair(sp);
        close_pair(ep);
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        /* the other workers' pipes: holding their job pipes open would delay their end
         * until this worker's */
        for (int i = 0; i < width; i++)
            if (all[i].pid != 0) {
                close(all[i].jobs);
                close(all[i].status);
                close(all[i].err);
            }
        close(jp[1]);
        close(sp[0]);
        close(ep[0]);
        dup2(ep[1], 2);
        close(ep[1]);
        worker_main(jp[0], sp[1], ops, ctx);
    }
    close(jp[0]);
    close(sp[1]);
    close(ep[1]);
    fcntl(ep[0], F_SETFL, fcntl(ep[0], F_GETFL) | O_NONBLOCK);
    *w = (struct worker){ .pid = pid, .jobs = jp[1], .status = sp[0], .err = ep[0] };
    return 0;
}

/* Read the worker's stderr until it would block; returns 1 at EOF. */
static int drain(struct worker *w)
{
    for (;;) {
        char chunk[CHUNK];
        ssize_t got = read(w->err, chunk, sizeof chunk);
        if (got < 0)
            return errno == EINTR ? 0 : errno == EAGAIN ? 0 : 1;
        if (got == 0)
            return 1;
        size_t g = (size_t)got;         /* <= CHUNK < OUT_KEEP */
        if (w->len + g > OUT_KEEP) {    /* keep the tail: the error is at the end */
            size_t drop = w->len + g - OUT_KEEP;
            memmove(w->buf, w->buf + drop, w->len - drop);
            w->len -= drop;
            w->truncated = 1;
        }
        memcpy(w->buf + w->len, chunk, g);
        w->len += g;
    }
}

static void report(struct worker *w, int status, const struct pool_ops *ops, void *ctx)
{
    w->buf[w->len] = '\0';
    if (w->truncated) {             /* mark the cut at the start of the kept tail */
        const char mark[] = "[...]";
        memcpy(w->buf, mark, sizeof mark - 1);
    }
    struct pool_result r = { status, w->buf, now_s() - w->t0 };
    w->busy = 0;
    ops->done(ctx, w->index, &r);
}

/* The worker has exited or died: collect the rest of its output, reap it, and report its job
 * if it had one. */
static void bury(struct worker *w, const struct pool_ops *ops, void *ctx,
                 volatile sig_atomic_t *stop)
{
    if (w->jobs >= 0)
        close(w->jobs);
    close(w->status);
    fcntl(w->err, F_SETFL, fcntl(w->err, F_GETFL) & ~O_NONBLOCK);
    while (!drain(w))
        ;
    close(w->err);
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
    if (!w->busy)
        return;
    int status = WIFEXITED(st) ? (WEXITSTATUS(st) != 0 ? WEXITSTATUS(st) : 1)
                 : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    /* killed by us, or by the interrupt that also stopped us (a terminal's ^C reaches the
     * whole process group) */
    if (WIFSIGNALED(st) && (w->killed || *stop))
        status = POOL_STOPPED;
    report(w, status, ops, ctx);
}

static int assign(struct worker *w, size_t index)
{
    uint64_t i = index;
    if (write_full(w->jobs, &i, sizeof i) < 0)
        return -1;
    w->busy = 1;
    w->index = index;
    w->len = 0;
    w->truncated = 0;
    w->t0 = now_s();
    return 0;
}

/* Handle what poll saw on worker w; returns the number of jobs it finished (0 or 1). */
static int serve(struct worker *w, short st_ev, short err_ev, const struct pool_ops *ops,
                 void *ctx, volatile sig_atomic_t *stop)
{
    int was_busy = w->busy;
    if (st_ev & (POLLIN | POLLHUP | POLLERR)) {
        struct status_msg m;
        ssize_t got = read_full(w->status, &m, sizeof m);
        if (got == (ssize_t)sizeof m && m.kind == MSG_PROGRESS) {
            if (w->busy && m.index == w->index && ops->progress != NULL)
                ops->progress(ctx, w->index, m.frac);
            return 0;
        }
        if (got == (ssize_t)sizeof m && w->busy && m.index == w->index) {
            int eof = drain(w);
            report(w, m.status, ops, ctx);
            if (eof)
                bury(w, ops, ctx, stop);
            return 1;
        }
        bury(w, ops, ctx, stop);
        return was_busy;
    }
    if ((err_ev & (POLLIN | POLLHUP | POLLERR)) && drain(w)) {
        bury(w, ops, ctx, stop);
        return was_busy;
    }
    return 0;
}

int pool_run(size_t n, int width, const struct pool_ops *ops, void *ctx,
             volatile sig_atomic_t *stop)
{
    if (width < 1)
        width = 1;
    if ((size_t)width > n)
        width = n > 0 ? (int)n : 1;
    struct worker *w = calloc((size_t)width, sizeof *w);
    struct pollfd *pf = calloc(2 * (size_t)width, sizeof *pf);
    int *which = calloc((size_t)width, sizeof *which);
    if (w == NULL || pf == NULL || which == NULL) {
        free(w);
        free(pf);
        free(which);
        errno = ENOMEM;
        return -1;
    }
    struct sigaction ign = { 0 }, old_pipe;
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);

    size_t next = 0;
    int busy = 0, rc = 0, signalled = 0;
    while ((next < n && !*stop && rc == 0) || busy > 0) {
        for (int i = 0; i < width && next < n && !*stop && rc == 0; i++) {
            if (w[i].busy)
                continue;
            if (w[i].pid == 0 && spawn(&w[i], w, width, ops, ctx) < 0) {
                rc = -1;
                break;
            }
            if (assign(&w[i], next) < 0)
                bury(&w[i], ops, ctx, stop);    /* it died idle: the next pass respawns */
            else {
                next++;
                busy++;
            }
        }
        if (*stop && !signalled) {
            for (int i = 0; i < width; i++)
                if (w[i].busy) {
                    kill(w[i].pid, SIGTERM);
                    w[i].killed = 1;
                }
            signalled = 1;
        }
        int k = 0;
        for (int i = 0; i < width; i++)
            if (w[i].busy) {
                pf[2 * k] = (struct pollfd){ .fd = w[i].status, .events = POLLIN };
                pf[2 * k + 1] = (struct pollfd){ .fd = w[i].err, .events = POLLIN };
                which[k++] = i;
            }
        if (k == 0)
            continue;
        if (poll(pf, 2 * (nfds_t)k, 200) < 0)
            continue;           /* EINTR: look at the stop flag */
        for (int j = 0; j < k; j++)
            busy -= serve(&w[which[j]], pf[2 * j].revents, pf[2 * j + 1].revents, ops, ctx,
                          stop);
        if (ops->tick != NULL)
            ops->tick(ctx);
    }
    /* no more work: close every job pipe first, so that the workers finish together */
    for (int i = 0; i < width; i++)
        if (w[i].pid != 0) {
            close(w[i].jobs);
            w[i].jobs = -1;
        }
    for (int i = 0; i < width; i++)
        if (w[i].pid != 0)
            bury(&w[i], ops, ctx, stop);
    sigaction(SIGPIPE, &old_pipe, NULL);
    free(w);
    free(pf);
    free(which);
    return rc;
}
