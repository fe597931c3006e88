/*
 * rank: a policy's jobs kept in order of (key, id) from one decision to the next.
 *
 * Policies that order every active job at every decision (srtf by remaining time; tiresias
 * did by queue, until a stable split of the id-ordered active list replaced it) would sort
 * them from scratch each time, although most keep their relative order between two
 * decisions.  A rank remembers the last order.  At a decision the policy states every
 * member's current key, then asks for the order back:
 *
 *     rank_begin(r);
 *     for each job: rank_set(r, slot, id, key);      // any order, each job once
 *     size_t n = rank_order(r, &e);                  // e[0..n): ascending (key, id)
 *
 * Members not set since rank_begin leave at rank_order.  The order returned is exactly the one
 * a full sort by (key, then id) gives: ids are unique, so that order is unique, and the same
 * comparisons decide it (keys compared with < and !=, as the policies' qsort comparators did).
 *
 * How it keeps the order: members stay where they were unless they are new, their key rose,
 * or they now come before the member kept just ahead of them; those are taken out, sorted
 * and merged back in.  A member taken out because it overtook the one ahead is charged to a
 * pair of members that changed order, so rank_order costs O(n + k log k) with k at most the
 * new members, plus the keys that rose, plus the pairs that changed order since the last call;
 * at worst (everything reordered) O(n log n), as a full sort.  rank_set is O(1).
 *
 * Ownership: rank_create allocates, rank_destroy frees.  The array rank_order returns belongs
 * to the rank and is valid until the next rank_set or rank_order.  Keys must not be NaN.
 */
#ifndef HETSIM_RANK_H
#define HETSIM_RANK_H

#include <stddef.h>
#include <stdint.h>

typedef struct rank rank;

struct rank_entry {
    double   key;
    int64_t  id;        /* unique among members: the tie-break, and who the member is */
    int32_t  slot;      /* the policy's index of the member (a view slot), >= 0 */
    uint32_t round;     /* the rank_begin it was last set in (internal) */
};

rank *rank_create(void);                /* NULL: no memory */
void  rank_destroy(rank *r);

void rank_begin(rank *r);
/* State member (slot, id)'s key for this decision.  0, or -1 when memory ran out (then the
 * rank is unchanged and the decision should fail). */
int rank_set(rank *r, int32_t slot, int64_t id, double key);
/* Drop the members not set since rank_begin and restore the order; *out = the members in
 * ascending (key, id).  Returns their number, or (size_t)-1 when memory ran out. */
size_t rank_order(rank *r, const struct rank_entry **out);

#endif
