/*
 * alloc_view: what an allocation policy sees — jobs x GPU types with throughputs — and solves
 * into a target allocation x[j][t], the fraction of time job j should spend on type t
 * (row sums <= 1, sum_j scale_j x[j][t] <= capacity_t).  Built by the native round realizer
 * (sched/alloc.c) from a train_view, and by the Gavel-compatible world (sim/train/gavel.c) from
 * Gavel's throughput table.
 *
 * Ownership: the arrays belong to whoever built the problem and live for one allocate call.
 */
#ifndef HETSIM_ALLOC_VIEW_H
#define HETSIM_ALLOC_VIEW_H

#include <stdint.h>

#include "../core/cluster.h"
#include "../base/simtime.h"

struct alloc_problem {
    int            njobs, ntypes;
    int            types[CLUSTER_MAX_TYPES];    /* catalog GPU type ids */
    double         cap[CLUSTER_MAX_TYPES];      /* GPUs of each type */
    simtime        now;
    double         round_s;
    /* per job, length njobs, in a stable order (arrival / id) */
    const int64_t *id;
    const int     *scale;       /* GPUs it needs */
    const int     *user;
    const double  *weight;
    const double  *thr;         /* [j * ntypes + t]: iterations/s of the whole job; 0 = cannot */
    const double  *work;        /* total iterations */
    const double  *remaining;   /* iterations left */
    const double  *age_s;       /* now - arrival */
    const double  *attained_s;  /* GPU-seconds received so far */
    const int     *cur_type;    /* index into types[] of the type it runs on now, -1 */
    const double  *restore_s;   /* seconds a restart costs it */
};

typedef int (*alloc_fn)(void *self, const struct alloc_problem *p, double *x,
                        struct errbuf *err);

#endif
