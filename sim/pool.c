/*
 * pool: fork per job, one pipe per child for its stderr, poll() over the pipes.  A child's
 * end is seen as EOF on its pipe, then reaped with waitpid.  poll() wakes at least every
 * 200 ms to look at the stop flag.  O(width) per wake-up.
 */
#define _POSIX_C_SOURCE 200809L
#include "pool.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OUT_KEEP = 16384, CHUNK = 4096 };
_Static_assert(CHUNK < OUT_KEEP, "a read must fit in the kept output");

struct slot {
    pid_t  pid;             /* 0: free */
    int    fd;
    size_t index;
    char   buf[OUT_KEEP + 16];
    size_t len;
    int    truncated, killed;
    double t0;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int start(struct slot *sl, struct slot *all, int width, size_t index, pool_job_fn job,
                 void *ctx)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        for (int i = 0; i < width; i++)
            if (all[i].pid != 0)
                close(all[i].fd);
        close(p[0]);
        dup2(p[1], 2);
        close(p[1]);
        int st = job(ctx, index);
        fflush(NULL);
        _exit(st & 0xff);
    }
    close(p[1]);
    *sl = (struct slot){ .pid = pid, .fd = p[0], .index = index, .t0 = now_s() };
    return 0;
}

/* Read what is there; returns 1 at EOF. */
static int drain(struct slot *sl)
{
    char chunk[CHUNK];
    ssize_t got = read(sl->fd, chunk, sizeof chunk);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (got == 0)
        return 1;
    size_t g = (size_t)got;         /* <= CHUNK < OUT_KEEP */
    if (sl->len + g > OUT_KEEP) {   /* keep the tail: the error is at the end */
        size_t drop = sl->len + g - OUT_KEEP;
        memmove(sl->buf, sl->buf + drop, sl->len - drop);
        sl->len -= drop;
        sl->truncated = 1;
    }
    memcpy(sl->buf + sl->len, chunk, g);
    sl->len += g;
    return 0;
}

static void finish(struct slot *sl, pool_done_fn done, void *ctx)
{
    close(sl->fd);
    int st = 0;
    while (waitpid(sl->pid, &st, 0) < 0 && errno == EINTR)
        ;
    struct pool_result r = { 0, NULL, now_s() - sl->t0 };
    if (WIFEXITED(st))
        r.status = WEXITSTATUS(st);
    else
        r.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    if (sl->killed && WIFSIGNALED(st))
        r.status = POOL_STOPPED;
    sl->buf[sl->len] = '\0';
    char *out = sl->buf;
    if (sl->truncated) {            /* mark the cut at the start of the kept tail */
        const char mark[] = "[...]";
        memcpy(out, mark, sizeof mark - 1);
    }
    r.output = out;
    done(ctx, sl->index, &r);
    sl->pid = 0;
}

int pool_run(size_t n, int width, pool_job_fn job, pool_done_fn done, void *ctx,
             volatile sig_atomic_t *stop)
{
    if (width < 1)
        width = 1;
    if ((size_t)width > n)
        width = n > 0 ? (int)n : 1;
    struct slot *sl = calloc((size_t)width, sizeof *sl);
    struct pollfd *pf = calloc((size_t)width, sizeof *pf);
    int *which = calloc((size_t)width, sizeof *which);
    if (sl == NULL || pf == NULL || which == NULL) {
        free(sl);
        free(pf);
        free(which);
        errno = ENOMEM;
        return -1;
    }
    size_t next = 0;
    int running = 0, rc = 0, signalled = 0;
    while ((next < n && !*stop && rc == 0) || running > 0) {
        for (int i = 0; i < width && next < n && !*stop && rc == 0; i++)
            if (sl[i].pid == 0) {
                if (start(&sl[i], sl, width, next, job, ctx) < 0)
                    rc = -1;
                else {
                    next++;
                    running++;
                }
            }
        if (*stop && !signalled) {
            for (int i = 0; i < width; i++)
                if (sl[i].pid != 0) {
                    kill(sl[i].pid, SIGTERM);
                    sl[i].killed = 1;
                }
            signalled = 1;
        }
        int k = 0;
        for (int i = 0; i < width; i++)
            if (sl[i].pid != 0) {
                pf[k] = (struct pollfd){ .fd = sl[i].fd, .events = POLLIN };
                which[k++] = i;
            }
        if (k == 0)
            continue;
        if (poll(pf, (nfds_t)k, 200) < 0)
            continue;           /* EINTR: look at the stop flag */
        for (int j = 0; j < k; j++)
            if ((pf[j].revents & (POLLIN | POLLHUP | POLLERR)) && drain(&sl[which[j]])) {
                finish(&sl[which[j]], done, ctx);
                running--;
            }
    }
    free(sl);
    free(pf);
    free(which);
    return rc;
}
