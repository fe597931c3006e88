/*
 * assign: successive shortest augmenting paths over the kinds (see assign.h).
 *
 * State: out[i] (each job's kind or -1) and used[t].  Per augmentation: the cheapest entry
 * into each kind from an unassigned job (enter[t], by whom), the cheapest move of an
 * assigned job from kind t to kind u (move[t][u], by whom), a Bellman-Ford from the entries
 * over the moves, and the kind with a free slot at the least distance ends the path.  Ties go
 * to the lower job index and then the lower kind, so the answer is deterministic.
 */
#include "assign.h"

#include <math.h>
#include <stdlib.h>

int assign_solve(const double *cost, int njobs, int nkinds, const int *cap, int *out,
                 double *total)
{
    enum { T = ASSIGN_MAX_KINDS };
    if (njobs < 0 || nkinds < 1 || nkinds > T)
        return -1;
    int used[T] = { 0 }, slots = 0;
    for (int t = 0; t < nkinds; t++)
        slots += cap[t] > 0 ? cap[t] : 0;
    for (int i = 0; i < njobs; i++)
        out[i] = -1;
    double *move = malloc(sizeof(double) * T * T);
    int *mover = malloc(sizeof(int) * T * T);
    if (move == NULL || mover == NULL) {
        free(move);
        free(mover);
        return -1;
    }
    int pairs = 0;
    while (pairs < njobs && pairs < slots) {
        double enter[T], dist[T];
        int by[T], pred[T];
        for (int t = 0; t < nkinds; t++) {
            enter[t] = INFINITY;
            by[t] = -1;
            for (int u = 0; u < nkinds; u++) {
                move[t * T + u] = INFINITY;
                mover[t * T + u] = -1;
            }
        }
        for (int i = 0; i < njobs; i++) {
            const double *c = cost + (size_t)i * nkinds;
            int at = out[i];
            if (at < 0) {
                for (int t = 0; t < nkinds; t++)
                    if (c[t] < enter[t]) {
                        enter[t] = c[t];
                        by[t] = i;
                    }
                continue;
            }
            for (int u = 0; u < nkinds; u++) {
                double d = c[u] - c[at];
                if (u != at && d < move[at * T + u]) {
                    move[at * T + u] = d;
                    mover[at * T + u] = i;
                }
            }
        }
        for (int t = 0; t < nkinds; t++) {
            dist[t] = enter[t];
            pred[t] = -1;
        }
        for (int round = 0; round < nkinds; round++) {
            int changed = 0;
            for (int t = 0; t < nkinds; t++) {
                if (isinf(dist[t]))
                    continue;
                for (int u = 0; u < nkinds; u++) {
                    double d = dist[t] + move[t * T + u];
                    if (d < dist[u] && (isinf(dist[u]) || d < dist[u] - 1e-12 * (1 + fabs(dist[u])))) {
                        dist[u] = d;
                        pred[u] = t;
                        changed = 1;
                    }
                }
            }
            if (!changed)
                break;
        }
        int end = -1;
        for (int t = 0; t < nkinds; t++)
            if (used[t] < cap[t] && !isinf(dist[t]) && (end < 0 || dist[t] < dist[end]))
                end = t;
        if (end < 0)
            break;                  /* no augmenting path: the matching is maximum */
        /* walk back: each kind on the path hands one job on to the next */
        used[end]++;
        int u = end, steps = 0;
        while (pred[u] >= 0 && steps++ < nkinds) {
            int t = pred[u];
            out[mover[t * T + u]] = u;
            u = t;
        }
        out[by[u]] = u;
        pairs++;
    }
    double w = 0;
    for (int i = 0; i < njobs; i++)
        if (out[i] >= 0)
            w += cost[(size_t)i * nkinds + out[i]];
    *total = w;
    free(move);
    free(mover);
    return pairs;
}
