/*
 * assign: minimum-weight full matching of jobs to slots, where the slots come in kinds of
 * identical slots (Heet: slots of s GPUs of one type; every slot of a type is worth the
 * same to a job).  "Full" is maximum cardinality: as many pairs as the allowed edges permit
 * (min(jobs, slots) when every edge is allowed), and among those the least total weight.
 *
 * With identical slots the assignment problem is a transportation problem: jobs x kinds,
 * kind t holding cap[t] slots.  It is solved exactly by successive shortest augmenting paths
 * (min-cost flow from jobs to kinds): each augmentation assigns one more job along a cheapest
 * path source -> unassigned job -> kind -> (a job moved to another kind)* -> kind with a free
 * slot.  Such a path visits each kind at most once, so its shortest form is a Bellman-Ford
 * over the kinds, where moving from kind t to kind u costs the cheapest (c[j][u] - c[j][t])
 * over the jobs j on t.  SSP keeps the matching of least weight for its size at every step,
 * so the last one is a minimum-weight maximum matching.
 * Cost: O(pairs * (m T + T^3)) for m jobs and T kinds (T <= ASSIGN_MAX_KINDS).
 * tests/test_assign.c checks it against brute force on small instances.
 *
 * Pure function; the caller owns every array.
 */
#ifndef HETSIM_ASSIGN_H
#define HETSIM_ASSIGN_H

enum { ASSIGN_MAX_KINDS = 64 };

/* cost[i * nkinds + t]: job i on a slot of kind t, finite >= 0, or INFINITY (not allowed).
 * out[i]: the kind job i gets, -1 for none.  *total: the matching's weight.  Returns the
 * number of pairs, or -1 on bad arguments or no memory. */
int assign_solve(const double *cost, int njobs, int nkinds, const int *cap, int *out,
                 double *total);

#endif
