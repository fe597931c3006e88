/*
 * calltree: a graph type's call tree in the tables policies walk (micro_view.h's struct
 * micro_graph), built from a list of calls that name their parents and checked for one
 * root, known parents and no cycle.  Both application readers build their graphs through
 * it (app.c: JSON files and Derm's fits; alibaba.c: trees rebuilt from a trace), so that
 * neither depends on the other.
 *
 * Ownership: calltree_build allocates the tables it sets in the graph; calltree_free frees
 * them (the graph itself is the caller's).
 */
#ifndef HETSIM_CALLTREE_H
#define HETSIM_CALLTREE_H

#include "../base/err.h"
#include "micro_view.h"

/* The tree tables, per-service call counts and minimum latency of graph g (whose name is
 * set) from its n calls (parents by index in raw, -1 for the root; services index svc, of
 * which there are nservices).  Checks one root, known parents and no cycle; `file`, `line`
 * and `field` name the graph in errors.  raw is not kept. */
int  calltree_build(struct micro_graph *g, const struct micro_service *svc, int nservices,
                    struct micro_call *raw, int n, const char *file, long line,
                    const char *field, struct errbuf *err);
void calltree_free(struct micro_graph *g);

#endif
