/*
 * dayrate: a rate envelope over the day, f(time of day) of time-weighted mean 1, that a
 * generator multiplies its mean rate by (llm_synthetic's "day").  Either a sine of a peak to
 * trough ratio r peaking at a given hour, or steps: rate k holds from its start hour until
 * the next step's, the last until the first step's the next day (the envelope is periodic,
 * so a first step after 00:00 covers the hours before it with the last rate).  Steps come
 * from evenly spaced rates ("hourly") or from a CSV rate series read here:
 *
 *   hour,rate        the header (these two columns, any order)
 *   0,0.41           hour of the day in [0, 24), strictly ascending; rate >= 0 in any unit
 *   7.5,1.2          (requests a second, a minute, counts per bin: scaled to mean 1)
 *
 * Blank and '#' lines are skipped; at most DAYRATE_MAX_STEPS rows; not every rate 0.
 *
 * Ownership: a dayrate is a plain value (no heap); dayrate_read only reads its file.
 */
#ifndef HETSIM_DAYRATE_H
#define HETSIM_DAYRATE_H

#include "../sim/base/err.h"

enum { DAYRATE_MAX_STEPS = 1440 };  /* at most one step a minute */
#define DAYRATE_DAY_S 86400.0

struct dayrate {
    int    nsteps;                  /* 0: the sine */
    double amp, peak_s;             /* the sine: f = 1 + amp cos(2 pi (tod - peak_s) / day) */
    double at_s[DAYRATE_MAX_STEPS]; /* steps: their start, seconds into the day, ascending */
    double f[DAYRATE_MAX_STEPS];    /* their f, time-weighted mean 1 over the day */
    double fmax;                    /* the largest f: the thinning's bound */
};

/* The sine of peak to trough ratio `ratio` >= 1 peaking at `peak_hour`. */
void dayrate_sine(struct dayrate *d, double ratio, double peak_hour);

/* Steps starting at hour[k] (ascending in [0, 24)) with rates rate[k] >= 0, 1 <= n <=
 * DAYRATE_MAX_STEPS, scaled to time-weighted mean 1.  0 ok; -1 when every rate is 0, -2 when
 * they cannot be scaled in doubles (a mean that overflows or underflows); the caller names
 * the field. */
int dayrate_steps(struct dayrate *d, const double *hour, const double *rate, int n);

/* The steps of the CSV rate series at `path` (see the top).  Errors name path:line: column. */
int dayrate_read(struct dayrate *d, const char *path, struct errbuf *err);

/* f at time of day tod_s in [0, DAYRATE_DAY_S). */
double dayrate_f(const struct dayrate *d, double tod_s);

#endif
