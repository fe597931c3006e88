/*
 * hetis: the rounding of Hetis' dispatch (sched/serving/hetis.c says what it models),
 * exposed so that tests can hold it against hand-computed answers and brute force.
 *
 * Ownership: the caller owns every array; nothing is kept between calls.
 */
#ifndef HETSIM_HETIS_H
#define HETSIM_HETIS_H

#include <stdint.h>

/* Whole KV heads of one request from the LP's reals x[0..D) (summing to H, within the
 * solver's tolerance): each device its floor (a value within 1e-9 below an integer counts
 * as that integer, a negative one as 0), then the heads still missing to the largest
 * remainders (ties: the lower device), or the heads beyond H taken from the smallest; then,
 * while a device's heads take more than its room (`bytes` a head), one of them moves to
 * the device with the most room left that can take it.  heads[0..D) out; room[] loses
 * what the heads take.  0, or -1 (heads and room unspecified) when no device can take a
 * head that does not fit. */
int hetis_round_heads(const double *x, int D, int H, double bytes, double *room,
                      int32_t *heads /* out */);

#endif
