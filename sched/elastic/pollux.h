/*
 * pollux (the policy): the pure pieces of Pollux's objective (sched/elastic/pollux.c says
 * what it models and which equations of the paper they are), exposed so that tests can hold
 * each against values computed by hand.  Not the Pollux-compatible world, which is
 * sim/train/pollux.h.
 */
#ifndef HETSIM_POLLUX_POLICY_H
#define HETSIM_POLLUX_POLICY_H

#include "../../sim/train/elastic_view.h"

/* The fair share of A jobs on G GPUs in N nodes: fair_r = ceil(G / A) replicas (at least 1),
 * fair_n = ceil(N / G) nodes (at least 1, at most fair_r). */
void pollux_fair_share(int gpus, int nodes, int jobs, int *fair_n /* out */,
                       int *fair_r /* out */);

/* The goodput a job's speedups are relative to: goodput_optimize's at its fair share, or on
 * one GPU when that is not positive; 1 for a job with no model yet (has_perf 0). */
double pollux_fair_goodput(const struct elastic_job *j, int fair_n, int fair_r);

/* SPEEDUP_j(n, r): goodput_optimize's goodput on n nodes and r replicas over fair_goodput;
 * without a model, Pollux's prior r / fair_r; 0 for r = 0. */
double pollux_speedup(const struct elastic_job *j, int n, int r, double fair_goodput,
                      int fair_r);

/* The restart factor of a job whose allocation would change: max(age - restarts x D, 0) /
 * (age + D), D the restart delay in seconds, age = now - submission. */
double pollux_restart_factor(double age_s, int restarts, double restart_s);

#endif
