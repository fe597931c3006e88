/*
 * simtime: simulated time is an integer count of microseconds, never a float, so that event
 * order is exact and the same on every machine.  Conversions to and from seconds happen only
 * at the edges (input parsing, model rates, database output).
 */
#ifndef HETSIM_SIMTIME_H
#define HETSIM_SIMTIME_H

#include <stdint.h>
#include <math.h>

typedef int64_t simtime;

#define SIM_USEC    ((simtime)1)
#define SIM_SEC     ((simtime)1000000)
#define SIM_NEVER   INT64_MAX

static inline double sim_to_sec(simtime t) { return (double)t / 1e6; }

/* Seconds to microseconds, rounded to nearest; saturates instead of overflowing.
 * NaN maps to SIM_NEVER so a broken model rate can never schedule an event in the past. */
static inline simtime sim_from_sec(double s)
{
    if (!(s == s) || s >= 9.2e12)
        return SIM_NEVER;
    if (s <= -9.2e12)
        return -SIM_NEVER;
    return (simtime)llround(s * 1e6);
}

/* Seconds to microseconds rounded up: a completion must never be scheduled before the work
 * is done, or the job would finish with a sliver of work left. */
static inline simtime sim_from_sec_ceil(double s)
{
    if (!(s == s) || s >= 9.2e12)
        return SIM_NEVER;
    return (simtime)ceil(s * 1e6);
}

#endif
