/*
 * grant: what a training policy returns — a list of grants (job, GPU ids, share).  A grant
 * with no GPUs preempts the job.  Two modes: in a FULL list (grant_full) every job not
 * granted is preempted, the natural mode for policies that recompute the whole allocation
 * each round; in a DELTA list (the default) jobs not mentioned keep what they hold, the
 * natural mode for event-driven policies that only start or stop a few jobs.
 *
 * Ownership: the list belongs to whoever calls the policy (init / fini); a policy appends to
 * it.  Amortized O(1) per grant.
 */
#ifndef HETSIM_GRANT_H
#define HETSIM_GRANT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "../base/simtime.h"

struct train_job;

struct grant {
    int32_t  slot;          /* job slot */
    int32_t  ngpu;          /* 0: preempt */
    uint32_t first;         /* offset of its GPU ids in grant_list.ids */
    uint16_t share;         /* thousandths of each GPU */
    int32_t  batch;         /* > 0: the job's batch size from now on; 0: unchanged */
    uint8_t  sliced;        /* 1: its GPU is time-sliced among its holders (kernels take
                               turns, no two at once), 0: space-shared (MPS); see speed.h */
};

struct grant_list {
    struct grant *g;
    size_t        n, cap;
    int          *ids;
    size_t        nids, idcap;
    int           full;     /* 1: jobs not granted are preempted */
    simtime       wake_at;  /* > now: call the policy again by then (WAKE_TIMER); it replaces
                             * the previous request.  0: no request */
};

void grant_list_init(struct grant_list *l);
void grant_list_fini(struct grant_list *l);
void grant_list_reset(struct grant_list *l);        /* empty, DELTA mode */
static inline void grant_full(struct grant_list *l) { l->full = 1; }

/* Append a grant; returns 0 or -1 (out of memory). */
int grant_add(struct grant_list *l, int32_t slot, const int *ids, int n, int share);
/* The same with a batch size (> 0; multiplexing policies that tune batches). */
int grant_add_batch(struct grant_list *l, int32_t slot, const int *ids, int n, int share,
                    int32_t batch);
/* The same, time-sliced (sliced 1) or space-shared (0): multiplexing policies that choose
 * how co-runners share a GPU.  Every holder of one GPU should be granted the same mode. */
int grant_add_sliced(struct grant_list *l, int32_t slot, const int *ids, int n, int share,
                     int32_t batch, int sliced);
/* Grant job j exactly what it holds now. */
int grant_keep(struct grant_list *l, const struct train_job *j);
int grant_preempt(struct grant_list *l, int32_t slot);

/* The check a training world applies to a policy's list before anything changes (train.c),
 * shared so that a policy layer may run the very same check first (sched/python/): every
 * grant names a job of jobs[0..nslots) that is not done, at most once; when it grants GPUs,
 * a share in 1..1000 and a GPU count in the job's [min_workers, max_workers]; GPU ids in
 * [0, ngpus), each once (each grant's ids are sorted in place).  marks has nslots bytes, all 0
 * on entry; the slots granted are left marked (1), also on failure, for the caller to clear
 * (grant_check_clear).  Returns 0, or -1 with err set (ERR_RUN). */
int grant_check(struct grant_list *l, const struct train_job *jobs, int32_t nslots, int ngpus,
                uint8_t *marks, struct errbuf *err);
/* Clear the marks grant_check set for l's grants. */
void grant_check_clear(const struct grant_list *l, int32_t nslots, uint8_t *marks);
/* 1 when granting j (ids sorted, n, share, batch, sliced) changes nothing it holds now: the
 * world then leaves it alone (no restart). */
int grant_same(const struct train_job *j, const int *ids, int n, int share, int batch,
               int sliced);

static inline const int *grant_ids(const struct grant_list *l, const struct grant *g)
{
    return l->ids != NULL ? l->ids + g->first : NULL;  /* a list of preemptions has no ids */
}

#endif
