/*
 * window: a measurement window of simulated time, [from, to] in seconds, and the part of an
 * interval that falls inside it.  Time-averaged figures (throughput, utilization) are
 * measured over a window in which jobs keep arriving, so that they do not hang on the last
 * job's completion.  A world that measures over "the first to the last arrival" knows `to`
 * only once its source is drained: until then it is INFINITY, which is exact as long as the
 * world credits intervals that end no later than the next arrival.
 */
#ifndef HETSIM_WINDOW_H
#define HETSIM_WINDOW_H

#include <math.h>

struct window {
    double from, to;            /* seconds; to = INFINITY while unknown */
};

/* Seconds of [a, b] inside the window (0 when they do not meet). */
static inline double window_overlap(const struct window *w, double a, double b)
{
    double lo = a > w->from ? a : w->from, hi = b < w->to ? b : w->to;
    return hi > lo ? hi - lo : 0;
}

/* Credit `amount`, spread evenly over [a, b], to the window: the share inside it. */
static inline double window_share(const struct window *w, double a, double b, double amount)
{
    if (!(b > a))
        return 0;
    return amount * window_overlap(w, a, b) / (b - a);
}

#endif
