/*
 * synth: the synthetic training workload's duration laws (workloads/synth.c), for its tests.
 */
#ifndef HETSIM_SYNTH_H
#define HETSIM_SYNTH_H

enum synth_dist { SYNTH_LOGNORMAL, SYNTH_EXPONENTIAL, SYNTH_UNIFORM };

/* E[min(max(D, lo), hi)] for D lognormal (a = median, b = sigma), exponential (a = mean) or
 * uniform on [a, b], lo <= hi: in closed form. */
double synth_clamped_mean(enum synth_dist dist, double a, double b, double lo, double hi);

#endif
