/*
 * mslat: one microservice call's latency as a function of its service's load per container
 * w (calls per second per ready container): a shifted exponential s + Exp(rate(w)), with the
 * rate from one of two fits, chosen per service:
 *   derm   rate(w) = a w + b (Derm, ISCA 2024: a < 0, the rate falls as load grows);
 *   erms   Erms' piecewise-linear P95 latency L(w) (models/erms.h) at the experiment's
 *          interference, read as the call's 95th percentile: rate = ln 20 / (L(w) - s).
 * A fit holds on [0, max_load].  Past it the service is overloaded and the mean excess
 * latency grows in proportion to the load: rate(w) = rate(max_load) max_load / w, which keeps
 * the model continuous and every rate positive, the same rule for every policy.
 * Times in seconds, rates per second.
 *
 * Pure functions.
 */
#ifndef HETSIM_MSLAT_H
#define HETSIM_MSLAT_H

#include "erms.h"

enum mslat_kind { MSLAT_DERM, MSLAT_ERMS };

struct mslat {
    int             kind;       /* enum mslat_kind */
    double          shift;      /* s, seconds */
    double          max_load;   /* where the fit ends, calls/s per container */
    double          a, b;       /* derm: rate = a w + b, per second */
    struct erms_fit erms;       /* erms: L(w), seconds */
    double          cpu, mem;   /* erms: the interference its slopes are read at */
};

/* The exponential rate of one call at load w >= 0 (overload extension past max_load); 0 or
 * less only for a fit that mslat_check rejects. */
double mslat_rate(const struct mslat *m, double w);
double mslat_mean(const struct mslat *m, double w);    /* s + 1 / rate */
double mslat_p95(const struct mslat *m, double w);     /* s + ln 20 / rate */

/* 0 when the rate is positive at every load of [0, max_load] (both fits are piecewise
 * linear, so the ends and the inflection decide); else -1 with *at the load where it is not,
 * *rate the rate there (erms: the L(w) - s that is not positive, as a rate of 0). */
int mslat_check(const struct mslat *m, double *at, double *rate);

#endif
