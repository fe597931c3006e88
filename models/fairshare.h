/*
 * fairshare: the throughput a job gets from an exclusive equal share of a heterogeneous
 * cluster — the yardstick of finish-time fairness (Themis, FFT, Gavel's FTF policy).
 *
 * A 1/n share holds cap[t] / n GPUs of every type t.  A job needing `scale` GPUs can use type
 * t for at most a fraction cap[t] / (n * scale) of the time, and one type at a time; the best
 * it can do is run on its fastest types first until its time is used up:
 *   rate = sum over types in decreasing rate order of  f_t * rate[t],
 *   f_t = min(1 - sum of earlier f, cap[t] / (n * scale)).
 * Pure function; O(T^2) for T types (T <= 16).
 */
#ifndef HETSIM_FAIRSHARE_H
#define HETSIM_FAIRSHARE_H

double fairshare_rate(const double *rate, const double *cap, int ntypes, int scale, double n);

#endif
