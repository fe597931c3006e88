/*
 * heet: the pure pieces of Heet's round (sched/elastic/heet.c says what it models and which
 * equations of the paper they are), exposed so that tests can hold each against values
 * computed by hand.  The policy itself is policy_heet (sched/policy.h's registry).
 */
#ifndef HETSIM_HEET_H
#define HETSIM_HEET_H

/* The slot size (section 4.2): r = gpus / active; 1 if r <= 1.5, 4 if r >= 3, else 2 (4
 * when no job is active), then at most kmax. */
int heet_slot_size(int gpus, int active, int kmax);

/* The matching weight of a job with `left` iterations to go on a slot of a GPU type where it
 * runs thr1 iterations/s on one GPU and thr_s on the GPUs of the slot it uses:
 * w = R t(s)^2 / t(1) with t = 1 / thr (seconds per iteration); INFINITY (no edge) when
 * either rate is not positive. */
double heet_weight(double left, double thr1, double thr_s);

/* The trading prices (section 4.3): a scheduled job on n GPUs gives one up at
 * p1 = 2 (thr(n) - thr(n-1)) / thr(n) (0 when thr(n) is not positive); a waiting job bids
 * p2 = thr(1) / thr(s) (both rates positive).  One GPU moves when p1 <= p2. */
double heet_price_donor(double thr_n, double thr_n1);
double heet_price_taker(double thr1, double thr_s);

#endif
