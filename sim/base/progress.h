/*
 * progress: the text of the progress lines hetsim prints on a terminal — one run's (simulated
 * time, entities done over the total, events/s, elapsed, ETA) and a sweep's (runs done, the
 * share of the work done counting runs in flight, elapsed, ETA) — and the clock and duration
 * formats they use.  Pure functions of their inputs; who prints, and when, is the caller's.
 *
 * The ETA is elapsed x (1 - f) / f for the fraction f of the work done; unknown (shown as
 * "-") until some work is done.  A run's f is its entities done over their total, or its
 * simulated time over sim.until_s when that is nearer the end; a sweep's f weighs each run by
 * its size (its entities), a run in flight by the fraction it reported.
 */
#ifndef HETSIM_PROGRESS_H
#define HETSIM_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* "0:42", "12:03", "1:02:03" (hours grow as needed); "-" for NaN or a negative value. */
void progress_clock(char *out, size_t cap, double seconds);
/* A simulated span, readable: "42 s", "12.5 min", "3.20 h", "4.12 d". */
void progress_span(char *out, size_t cap, double seconds);
/* Seconds left at fraction f done after `elapsed` seconds: NAN when f is not in (0, 1]. */
double progress_eta(double elapsed, double f);

struct progress_run {
    const char *label;          /* the policy's label */
    const char *entity;         /* what is counted, plural: "jobs" */
    double      sim_s;          /* simulated time reached */
    double      until_s;        /* sim.until_s, or <= 0 when none */
    int64_t     done, total;    /* entities done, of total (total 0: unknown) */
    uint64_t    events;         /* events handled */
    double      wall_s;         /* since the run began */
};

/* The fraction of a run done (0 when nothing says). */
double progress_run_fraction(const struct progress_run *p);
/* "fifo  sim 3.20 h  jobs 120/300 (40%)  1.21 M events/s  0:12 elapsed  ETA 0:18" */
void progress_run_line(char *out, size_t cap, const struct progress_run *p);

struct progress_sweep {
    const char *prefix;         /* "rank 1: " or "" */
    size_t      done, total, failed, running;   /* runs */
    double      work_frac;      /* share of the work done, runs in flight included */
    double      wall_s;
};

/* "37/100 runs (41% of the work), 2 running, 1 failed, 0:42 elapsed, ETA 1:03" */
void progress_sweep_line(char *out, size_t cap, const struct progress_sweep *p);

#endif
