/*
 * dayrate: a day's rate envelope (dayrate.h).  Steps are normalised by their time-weighted
 * mean, sum_k rate_k span_k / 24 h, span_k the time until the next step's start (the last's
 * wrapping past midnight to the first's), so that f's mean over a day is 1 whatever the
 * spacing; evenly spaced rates (llm_synthetic's "hourly") go through the same code, so a rate
 * series naming the same hours gives the same f, bit for bit.  Looking f up is a binary
 * search over the starts: O(log n).  The reader holds one row at a time besides the result.
 */
#define _POSIX_C_SOURCE 200809L
#include "dayrate.h"

#include <math.h>
#include <stdlib.h>

#include "../sim/base/tio.h"
#include "reader.h"

#define TWO_PI 6.283185307179586

void dayrate_sine(struct dayrate *d, double ratio, double peak_hour)
{
    d->nsteps = 0;
    d->amp = (ratio - 1) / (ratio + 1);
    d->peak_s = peak_hour * 3600;
    d->fmax = 1 + d->amp;
}

int dayrate_steps(struct dayrate *d, const double *hour, const double *rate, int n)
{
    /* the mean over the starts as the lookup holds them, in seconds: a step a rounding
       wide (23.99999923 h) must weigh what dayrate_f gives it */
    double area = 0, at_s[DAYRATE_MAX_STEPS];
    for (int k = 0; k < n; k++)
        at_s[k] = hour[k] * 3600;
    for (int k = 0; k < n; k++) {
        double next = k + 1 < n ? at_s[k + 1] : at_s[0] + DAYRATE_DAY_S;
        area += rate[k] * (next - at_s[k]);
    }
    if (!(area > 0))
        return -1;
    double mean = area / DAYRATE_DAY_S;
    if (!(mean > 0) || !isfinite(mean))
        return -2;
    d->nsteps = n;
    d->fmax = 0;
    for (int k = 0; k < n; k++) {
        d->at_s[k] = at_s[k];
        d->f[k] = rate[k] / mean;
        if (d->f[k] > d->fmax)
            d->fmax = d->f[k];
    }
    return isfinite(d->fmax) ? 0 : -2;
}

double dayrate_f(const struct dayrate *d, double tod_s)
{
    if (d->nsteps == 0)
        return 1 + d->amp * cos(TWO_PI * (tod_s - d->peak_s) / DAYRATE_DAY_S);
    if (tod_s < d->at_s[0])             /* before the first start: the last step, wrapped */
        return d->f[d->nsteps - 1];
    int lo = 0, hi = d->nsteps - 1;     /* the last start <= tod_s is in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (d->at_s[mid] <= tod_s)
            lo = mid;
        else
            hi = mid - 1;
    }
    return d->f[lo];
}

int dayrate_read(struct dayrate *d, const char *path, struct errbuf *err)
{
    static const char *const names[] = { "hour", "rate", NULL };
    enum { HOUR, RATE };
    double *hour = malloc(2 * DAYRATE_MAX_STEPS * sizeof *hour);
    tio *r = NULL;
    if (hour == NULL)
        return err_run(err, "out of memory");
    double *rate = hour + DAYRATE_MAX_STEPS;
    if (tio_open(&r, path, err) < 0)
        goto fail;
    int pos[2], ncols, n = 0, rc;
    char *f[READER_MAX_COLS];
    long ln = 0;
    if (reader_header(r, path, names, HOUR, RATE, READER_MAX_COLS, "hour,rate", "hour, rate",
                      pos, &ncols, err) < 0)
        goto fail;
    while ((rc = reader_row(r, path, ncols, n, "rates", f, READER_MAX_COLS, &ln, err)) > 0) {
        double h, x;
        if (n == DAYRATE_MAX_STEPS) {
            err_input(err, path, ln, NULL, "more than %d rows (at most one a minute)",
                      DAYRATE_MAX_STEPS);
            goto fail;
        }
        if (tio_double(f[pos[HOUR]], &h) < 0) {
            err_input(err, path, ln, "hour", "'%s' is not a number", f[pos[HOUR]]);
            goto fail;
        }
        if (h < 0 || h >= 24) {
            err_input(err, path, ln, "hour", "%g is not an hour of the day in [0, 24)", h);
            goto fail;
        }
        if (n > 0 && !(h > hour[n - 1])) {
            err_input(err, path, ln, "hour", "%g is not after the row before's (%g): hours "
                      "must increase", h, hour[n - 1]);
            goto fail;
        }
        if (tio_double(f[pos[RATE]], &x) < 0 || x < 0) {
            err_input(err, path, ln, "rate", "'%s' is not a rate >= 0", f[pos[RATE]]);
            goto fail;
        }
        hour[n] = h;
        rate[n++] = x;
    }
    if (rc < 0)
        goto fail;
    rc = dayrate_steps(d, hour, rate, n);
    if (rc == -1)
        err_input(err, path, 0, "rate", "the rates are all 0: no request would ever arrive");
    else if (rc < 0)
        err_input(err, path, 0, "rate", "the rates cannot be scaled to mean 1 (too large or "
                  "too small to hold in a double)");
    tio_close(r);
    free(hour);
    return rc < 0 ? -1 : 0;
fail:
    tio_close(r);
    free(hour);
    return -1;
}
