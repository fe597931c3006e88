/*
 * rules: what a broker's decision must respect (colo_view.h), as a function of the view alone,
 * so that the world refuses a decision and a test checks a planner by the same code.
 * Complexity O(nodes) with one scratch array.
 */
#include <stdlib.h>

#include "colo_view.h"

int colo_live_packs(const struct colo_view *v, const int *move)
{
    enum { DOWN = 1, SERVES = 2 };
    int n = v->nnodes, live = 0, *flag = calloc((size_t)(n > 0 ? n : 1), sizeof *flag);
    if (flag == NULL)
        return -1;
    for (int k = 0; k < n; k++) {
        const struct colo_node *c = &v->node[k];
        int p = c->pack >= 0 && c->pack < n ? c->pack : k;
        if (c->holder != COLO_SERVING || c->moving || c->loading ||
            (move != NULL && move[k]))
            flag[p] |= DOWN;
        if (c->serve_cap > 0)
            flag[p] |= SERVES;
    }
    for (int k = 0; k < n; k++)
        live += flag[k] == SERVES;
    free(flag);
    return live;
}

int colo_check_moves(const struct colo_view *v, const int *move, struct errbuf *err)
{
    for (int k = 0; k < v->nnodes; k++) {
        const struct colo_node *c = &v->node[k];
        if (c->pack < 0 || c->pack > k || v->node[c->pack].pack != c->pack)
            return err_run(err, "node %d's pack %d is not the lowest node of a pack", k,
                           c->pack);
        if (!move[k])
            continue;
        if (c->moving)
            return err_run(err, "policy moved node %d while it was being handed over", k);
        if (c->home == COLO_TRAINING)
            return err_run(err, "policy moved node %d, one of training's own: only serving's "
                           "nodes are lent and reclaimed", k);
    }
    for (int k = 0; k < v->nnodes; k++) {
        int p = v->node[k].pack;
        if (move[k] != move[p])
            return err_run(err, "policy moved node %d without node %d: a serving instance "
                           "ties them (one pack), so they move together", move[k] ? k : p,
                           move[k] ? p : k);
    }
    int before = colo_live_packs(v, NULL), after = colo_live_packs(v, move);
    if (before < 0 || after < 0)
        return err_run(err, "out of memory");
    if (before > 0 && after == 0)
        return err_run(err, "policy lent every node on which serving's instances take "
                       "requests: serving keeps at least one");
    return 0;
}
