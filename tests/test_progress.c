/*
 * test_progress: the progress lines (sim/base/progress.c) — their text from hand-made
 * numbers (clock, spans, ETA, a run's fraction by entities or by sim.until_s, a sweep's by
 * weighted work) — and, end to end on a pseudo-terminal, what a person sees: `hetsim run`
 * redraws one line (simulated time, jobs done of the total, events/s, elapsed, ETA) and
 * clears it; nothing of it when stderr is not a terminal; `hetsim sweep` moves its line
 * while a run is in flight, weighs its share of the work by the runs' sizes (a small run
 * done is a small share), and after an interrupt ends the line before its summary.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/progress.h"
#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

Test(progress, clocks_spans_and_eta)
{
    char b[64];
    progress_clock(b, sizeof b, 42);
    cr_assert_str_eq(b, "0:42");
    progress_clock(b, sizeof b, 3723.4);
    cr_assert_str_eq(b, "1:02:03");
    progress_clock(b, sizeof b, NAN);
    cr_assert_str_eq(b, "-");
    progress_span(b, sizeof b, 42);
    cr_assert_str_eq(b, "42 s");
    progress_span(b, sizeof b, 750);
    cr_assert_str_eq(b, "12.5 min");
    progress_span(b, sizeof b, 4 * 3600);
    cr_assert_str_eq(b, "4.00 h");
    progress_span(b, sizeof b, 3 * 86400);
    cr_assert_str_eq(b, "3.00 d");
    /* a quarter done after 10 s: 30 s left */
    cr_assert_float_eq(progress_eta(10, 0.25), 30, 1e-12);
    cr_assert(isnan(progress_eta(10, 0)));
    cr_assert_float_eq(progress_eta(10, 1), 0, 0);
}

Test(progress, a_run_line)
{
    struct progress_run p = { .label = "fifo", .entity = "jobs", .sim_s = 7200, .done = 120,
                              .total = 300, .events = 1210000, .wall_s = 12 };
    /* 40% done in 12 s: 18 s left */
    cr_assert_float_eq(progress_run_fraction(&p), 0.4, 1e-12);
    char b[256];
    progress_run_line(b, sizeof b, &p);
    cr_assert_str_eq(b, "fifo  sim 2.00 h  jobs 120/300 (40%)  101 k events/s  0:12 elapsed  "
                        "ETA 0:18");
    /* sim.until_s nearer the end than the jobs are: its fraction */
    p.until_s = 9000;
    cr_assert_float_eq(progress_run_fraction(&p), 0.8, 1e-12);
    /* no total: no fraction, no ETA */
    p = (struct progress_run){ .label = "srtf", .entity = "jobs", .sim_s = 30, .done = 7,
                               .events = 2e7, .wall_s = 4 };
    progress_run_line(b, sizeof b, &p);
    cr_assert_str_eq(b, "srtf  sim 30 s  jobs 7 done  5.00 M events/s  0:04 elapsed  ETA -");
}

Test(progress, a_sweep_line)
{
    struct progress_sweep p = { "", 37, 100, 1, 2, 0.25, 60 };
    char b[256];
    progress_sweep_line(b, sizeof b, &p);
    /* a quarter of the work in a minute: three minutes left */
    cr_assert_str_eq(b, "37/100 runs (25% of the work), 2 running, 1 failed, 1:00 elapsed, "
                        "ETA 3:00");
    p = (struct progress_sweep){ "rank 1: ", 4, 4, 0, 0, 1, 75 };
    progress_sweep_line(b, sizeof b, &p);
    cr_assert_str_eq(b, "rank 1: 4/4 runs (100% of the work), 0 running, 1:15 elapsed, "
                        "ETA 0:00");
}

/* ---- on a terminal ---- */

struct tty_out {
    int   status;
    char *text;         /* everything the terminal got */
};

/* Run hetsim with a pseudo-terminal as stdin, stdout and stderr.  With `interrupt_at`, send
 * it SIGINT once that text has been seen `times` times. */
static struct tty_out on_tty(const char *const *args, const char *interrupt_at, int times)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(m, 0);
    cr_assert_eq(grantpt(m), 0);
    cr_assert_eq(unlockpt(m), 0);
    const char *slave = ptsname(m);
    cr_assert_not_null(slave);
    const char *argv[64] = { HETSIM_BIN };
    int n = 1;
    for (; args[n - 1] != NULL && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setsid();
        int s = open(slave, O_RDWR);
        if (s < 0)
            _exit(127);
        dup2(s, 0);
        dup2(s, 1);
        dup2(s, 2);
        close(m);
        if (s > 2)
            close(s);
        execv(HETSIM_BIN, (char *const *)argv);
        _exit(127);
    }
    struct tty_out o = { 0 };
    size_t len = 0, cap = 65536;
    o.text = malloc(cap);
    int sent = 0;
    for (int idle = 0; idle < 1200;) {      /* at most 2 minutes without output */
        struct pollfd pf = { m, POLLIN, 0 };
        int r = poll(&pf, 1, 100);
        if (r == 0) {
            idle++;
            continue;
        }
        idle = 0;
        if (len + 4097 > cap)
            o.text = realloc(o.text, cap *= 2);
        ssize_t got = read(m, o.text + len, 4096);
        if (got <= 0)
            break;              /* EIO: every holder of the terminal has closed it */
        len += (size_t)got;
        o.text[len] = '\0';
        if (interrupt_at != NULL && !sent) {
            int seen = 0;
            for (const char *p = o.text; (p = strstr(p, interrupt_at)) != NULL; p++)
                seen++;
            if (seen >= times) {
                kill(pid, SIGINT);
                sent = 1;
            }
        }
    }
    o.text[len] = '\0';
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    close(m);
    return o;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

Test(progress, a_run_on_a_terminal_shows_one_line, .timeout = 120)
{
    char db[512];
    snprintf(db, sizeof db, "%s/tty_run.db", th_tmpdir());
    /* long enough for several redraws (four a second) on a fast machine */
    const char *const args[] = { "run", "mixed_synthetic", "--policy", "fifo", "--db", db,
                                 "--set", "workload.jobs=600000", NULL };
    struct tty_out o = on_tty(args, NULL, 0);
    cr_assert_eq(o.status, 0, "%s", o.text);
    /* redrawn in place (carriage returns), with every part, then cleared before the rest */
    cr_assert_geq(count(o.text, "\rfifo  sim "), 2, "%s", o.text);
    cr_assert(strstr(o.text, "jobs ") != NULL && strstr(o.text, "/600000 (") != NULL, "%s",
              o.text);
    cr_assert(strstr(o.text, " events/s  ") != NULL, "%s", o.text);
    cr_assert(strstr(o.text, " elapsed  ETA ") != NULL, "%s", o.text);
    cr_assert(strstr(o.text, "\r\033[Krun 1: mixed_synthetic, fifo: 600000 jobs done") != NULL,
              "the line is cleared before the run's own line: %s", o.text);
    free(o.text);
    /* not a terminal: not a trace of it */
    struct th_out p = RUN("run", "mixed_synthetic", "--policy", "fifo", "--db", db, "--set",
                          "workload.jobs=60000");
    cr_assert_eq(p.status, 0, "%s", p.err);
    cr_assert_null(strstr(p.err, "ETA"), "%s", p.err);
    cr_assert_null(strchr(p.err, '\r'), "%s", p.err);
    th_out_free(&p);
}

Test(progress, a_sweep_on_a_terminal_moves_weighs_and_ends_its_line, .timeout = 180)
{
    /* two runs, one a hundredth of the other's size (the big one far longer than the
     * test waits for it, on any machine), one at a time; interrupted during the big
     * one */
    char *sweep = th_write("tty_sweep.json",
        "{ \"name\": \"tty_sweep\", \"experiment\": \"mixed_synthetic\",\n"
        "  \"set\": { \"sim.sample_s\": 0 },\n"
        "  \"grid\": { \"policy\": [\"fifo\"], \"workload.jobs\": [8000, 800000] } }\n");
    char db[512];
    snprintf(db, sizeof db, "%s/tty_sweep.db", th_tmpdir());
    const char *const args[] = { "sweep", sweep, "--db", db, "-j", "1", NULL };
    /* interrupt once the big run has shown progress a few times */
    struct tty_out o = on_tty(args, "\r1/2 runs (", 4);
    cr_assert_eq(o.status, 130, "exit %d: %s", o.status, o.text);
    /* in flight: the share of the work moves while the big run runs (no run ends then) */
    cr_assert(strstr(o.text, "\r0/2 runs (0% of the work), 1 running") != NULL, "%s", o.text);
    int lo = 101, hi = -1;
    for (const char *p = o.text; (p = strstr(p, "\r1/2 runs (")) != NULL; p++) {
        int pct;
        if (sscanf(p, "\r1/2 runs (%d%%", &pct) == 1) {
            lo = pct < lo ? pct : lo;
            hi = pct > hi ? pct : hi;
        }
    }
    cr_assert_gt(hi, lo, "no progress while the big run was in flight: %s", o.text);
    /* weighed: the small run done is about a hundredth of the work, not half */
    int first = -1;
    const char *p = strstr(o.text, "\r1/2 runs (");
    cr_assert_not_null(p);
    cr_assert_eq(sscanf(p, "\r1/2 runs (%d%%", &first), 1);
    cr_assert_lt(first, 20, "one run of a hundredth of the work done reads %d%%", first);
    /* the summary starts on a line of its own */
    const char *s = strstr(o.text, "sweep tty_sweep: ");
    cr_assert_not_null(s);
    const char *last = NULL;
    for (const char *q = o.text; (q = strstr(q, "sweep tty_sweep: ")) != NULL; q++)
        last = q;
    cr_assert(last[-1] == '\n', "the summary follows the progress line: %.80s", last - 40);
    cr_assert(strstr(last, "interrupted") != NULL, "%s", last);
    free(o.text);
    free(sweep);
}
