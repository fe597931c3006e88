/*
 * plan: building a decision on a scratch copy of the cluster's occupancy, shared by policies.
 *
 * plan_begin starts either from what is granted now (DELTA: the list only changes some jobs)
 * or from an empty cluster (FULL: the list is the whole allocation, and running jobs left out
 * are preempted).  plan_place picks GPUs for a job and appends its grant; plan_keep re-grants a
 * running job its current GPUs (FULL mode), so that it is not restarted.
 *
 * Ownership: the policy owns the scratch occ (occ_create at create time); a plan only borrows
 * the view, the scratch and the output list for one decide call.
 */
#ifndef HETSIM_PLAN_H
#define HETSIM_PLAN_H

#include "../sim/train/train_view.h"

struct plan {
    const struct train_view *v;
    occ                     *occ;
    struct grant_list       *out;
};

enum { PLAN_DELTA = 0, PLAN_FULL = 1 };

void plan_begin(struct plan *p, const struct train_view *v, occ *scratch,
                struct grant_list *out, int mode);

/* Grant j n whole GPUs of gpu_type (packed or spread).  0 granted, 1 no room, -1 error. */
int plan_place(struct plan *p, const struct train_job *j, int gpu_type, int n, int mode,
               struct errbuf *err);
/* Re-grant j what it holds.  0 granted, 1 no room (its GPUs were taken), -1 error. */
int plan_keep(struct plan *p, const struct train_job *j, struct errbuf *err);
/* Resize running job j to n whole GPUs of its type, keeping as many of its own as it can: its
 * first n GPUs when n < what it holds (the others are released in the plan, so a later
 * placement may take them), all of them and n - held more of its type (packed or spread) when
 * n is larger.  A DELTA plan's job: shrink before placing what the freed GPUs should hold.
 * 0 granted, 1 no room for the extra GPUs, -1 error. */
int plan_resize(struct plan *p, const struct train_job *j, int n, int mode, struct errbuf *err);

int plan_free(const struct plan *p, int gpu_type);

/* Policies that keep state per job index it by slot (the view's job index) and store the
 * job's id in it to tell when a slot was reused.  `st = plan_slot_state(v, st, &cap,
 * sizeof *st, &failed)` grows such an array to cover every active job's slot; new entries are
 * filled with 0xFF bytes, so an int64_t id field reads -1, "nobody".  `a = plan_grow(a, &cap,
 * n, sizeof *a, &failed)` grows any array to at least n elements.  On failure both return the
 * array unchanged and set *failed (see sim/base/grow.h). */
void *plan_slot_state(const struct train_view *v, void *arr, size_t *cap, size_t size,
                      int *failed);
void *plan_grow(void *arr, size_t *cap, size_t n, size_t size, int *failed);

/* A job chosen to run this decision, on `n` whole GPUs of `gpu_type`. */
struct plan_pick {
    const struct train_job *job;
    int                     gpu_type;
    int                     n;
};

/* Grant every pick.  Picks that are running on their type with the same GPU count keep their
 * very GPUs (no restart); the others are placed afterwards, packed on the fewest nodes.  The
 * picks must fit by count (per type, sum of n <= free GPUs); with that, every pick is placed.
 * Returns 0, or -1 with err set. */
int plan_commit(struct plan *p, const struct plan_pick *picks, int npicks, struct errbuf *err);

/* The cluster type with the most free whole GPUs, at least n of them; -1 if none.  Ties go
 * to the type listed first (catalog order). */
int plan_most_free_type(const struct plan *p, int n);
/* The type on which j runs fastest with n workers and that has n free GPUs; -1 if none. */
int plan_fastest_type(const struct plan *p, const struct train_job *j, int n);

#endif
