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
 * The same fit as a queue (the microservice world's queueing truth, sim/micro/mqueue.h).  A
 * FIFO server of service rate mu fed Poisson calls at rate w has an exponential sojourn of
 * rate mu - w, so a container whose server runs at
 *
 *     mu(w) = rate(w) + w            (w within [0, max_load])
 *
 * gives, at a steady load w, the fit's latency s + Exp(rate(w)) exactly (the shift s is
 * transit outside the queue).  The fits need the service rate to depend on the load: their
 * latency grows with load far faster than a server of fixed rate would (Derm's TrainTicket
 * fits lose |a| = 4 to 85 per second of rate per call/s, a fixed-rate server 1), as when the
 * work each call leaves behind (background work, a CPU quota) slows its container's other
 * calls; a fixed rate cannot reproduce them at more than one load.  Past max_load the queue
 * saturates: where the fit's rate falls faster than 1 per call/s at max_load (slope
 * rate'(max_load) < -1, every Derm fit with |a| > 1), the rate continues along its tangent
 * and the server's rate, rate + w, falls with it to the load where the rate reaches 0, the
 * capacity, and stays there; otherwise the server keeps its rate at max_load, mu(max_load),
 * which is then the capacity.  Past the capacity calls arrive faster than they are served.
 * With c servers per container (M/M/c) the per-server rate is the one whose mean sojourn
 * (Erlang C) is the fit's mean, 1 / (mu(w) - w) as above, up to the capacity, and
 * capacity / c past it (the sojourn is then not exponential: its P95 differs, see
 * doc/microservices.md).
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

/* The queueing truth: the service rate of a single-server container at load w (calls/s per
 * ready container), and the capacity, the load past which it cannot keep up. */
double mslat_queue_rate(const struct mslat *m, double w);
double mslat_capacity(const struct mslat *m);
/* The per-server rate of a container with c servers at load w (c = 1: mslat_queue_rate). */
double mslat_queue_rate_c(const struct mslat *m, int c, double w);

/* M/M/c with c servers of rate mu fed at rate w (FIFO): the probability that a call waits
 * (Erlang C), its mean sojourn and P(sojourn > t); INFINITY / 1 when w >= c mu. */
double mslat_erlang_c(double mu, int c, double w);
double mslat_mmc_mean(double mu, int c, double w);
double mslat_mmc_sf(double mu, int c, double w, double t);

/* 0 when the rate is positive at every load of [0, max_load] (both fits are piecewise
 * linear, so the ends and the inflection decide); else -1 with *at the load where it is not,
 * *rate the rate there (erms: the L(w) - s that is not positive, as a rate of 0). */
int mslat_check(const struct mslat *m, double *at, double *rate);

#endif
