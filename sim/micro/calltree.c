/*
 * calltree: call trees (calltree.h).  Calls are renumbered breadth first from the root, a
 * call's children by (stage, order given), so that parents come before children.
 */
#include "calltree.h"

#include <stdio.h>
#include <stdlib.h>

struct order {
    int idx, stage;
};

static int cmp_order(const void *x, const void *y)
{
    const struct order *a = x, *b = y;
    return a->stage != b->stage ? (a->stage < b->stage ? -1 : 1) : (a->idx > b->idx) - (a->idx < b->idx);
}

static double min_latency(const struct micro_service *svc, const struct micro_graph *g, int i)
{
    const struct micro_call *c = &g->calls[i];
    double t = c->count * svc[c->service].lat.shift;
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        double m = 0;
        for (int j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
            double v = min_latency(svc, g, g->child[j]);
            m = v > m ? v : m;
        }
        t += m;
    }
    return t;
}

int calltree_build(struct micro_graph *g, const struct micro_service *svc, int nservices,
                   struct micro_call *raw, int n, const char *file, long line, const char *field,
                   struct errbuf *err)
{
    int root = -1;
    for (int i = 0; i < n; i++)
        if (raw[i].parent < 0) {
            if (root >= 0)
                return err_input(err, file, line, field, "graph '%s' has two root calls "
                                 "(calls %d and %d name no parent): a request enters at one",
                                 g->name, root, i);
            root = i;
        }
    /* a parent chain that never reaches the root goes round a cycle */
    for (int i = 0; i < n; i++) {
        int at = i, steps = 0;
        while (at >= 0 && steps <= n) {
            at = raw[at].parent;
            steps++;
        }
        if (at >= 0) {
            char path[512];
            int len = 0, k = i;
            for (int s = 0; s <= n && len < 400; s++) {
                len += snprintf(path + len, sizeof path - len, "%s%d", s ? " -> " : "", k);
                k = raw[k].parent;
                if (k == i) {
                    snprintf(path + len, sizeof path - len, " -> %d", k);
                    break;
                }
            }
            return err_input(err, file, line, field, "graph '%s' has a cycle of calls "
                             "(each the parent of the next, by position): %s", g->name, path);
        }
    }
    if (root < 0)
        return err_input(err, file, line, field, "graph '%s' has no root call (every call "
                         "names a parent)", g->name);
    struct micro_call *calls = calloc((size_t)n, sizeof *calls);
    int *stage_off = calloc((size_t)n + 1, sizeof *stage_off);
    int *child_off = calloc((size_t)n + 1, sizeof *child_off);
    int *child = calloc((size_t)n + 1, sizeof *child);
    int *newidx = calloc((size_t)n, sizeof *newidx), *queue = calloc((size_t)n, sizeof *queue);
    struct order *kids = calloc((size_t)n, sizeof *kids);
    double *per = calloc((size_t)nservices + 1, sizeof *per);
    if (!calls || !stage_off || !child_off || !child || !newidx || !queue || !kids || !per) {
        free(calls), free(stage_off), free(child_off), free(child);
        free(newidx), free(queue), free(kids), free(per);
        return err_run(err, "out of memory");
    }
    /* breadth first from the root: children of a call in (stage, file order) */
    int head = 0, tail = 0, nstages = 0, nchild = 0;
    queue[tail++] = root;
    newidx[root] = 0;
    while (head < tail) {
        int r = queue[head];
        int me = head++;
        calls[me] = raw[r];
        int nk = 0;
        for (int j = 0; j < n; j++)
            if (raw[j].parent == r)
                kids[nk++] = (struct order){ j, raw[j].stage };
        qsort(kids, (size_t)nk, sizeof *kids, cmp_order);
        stage_off[me] = nstages;
        for (int k = 0; k < nk; k++) {
            if (k == 0 || kids[k].stage != kids[k - 1].stage)
                child_off[nstages++] = nchild;
            newidx[kids[k].idx] = tail;
            child[nchild++] = tail;
            queue[tail++] = kids[k].idx;
        }
    }
    stage_off[n] = nstages;
    child_off[nstages] = nchild;
    for (int i = 0; i < n; i++) {
        calls[i].parent = raw[queue[i]].parent < 0 ? -1 : newidx[raw[queue[i]].parent];
        per[calls[i].service] += calls[i].count;
    }
    /* stage_off must be monotone for calls without children: fill from the right */
    for (int i = n - 1; i >= 0; i--)
        if (stage_off[i] > stage_off[i + 1])
            stage_off[i] = stage_off[i + 1];
    free(newidx);
    free(queue);
    free(kids);
    g->ncalls = n;
    g->calls = calls;
    g->stage_off = stage_off;
    g->child_off = child_off;
    g->child = child;
    g->calls_per_service = per;
    g->min_latency_s = min_latency(svc, g, 0);
    return 0;
}

void calltree_free(struct micro_graph *g)
{
    free((void *)g->calls);
    free((void *)g->stage_off);
    free((void *)g->child_off);
    free((void *)g->child);
    free((void *)g->calls_per_service);
    g->calls = NULL;
    g->stage_off = g->child_off = g->child = NULL;
    g->calls_per_service = NULL;
}
