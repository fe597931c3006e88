/*
 * alibaba: an application from an Alibaba microservice call-graph trace (the 2021 release's
 * MSCallGraph or the 2022 release's CallGraph, columns found by header name).
 *
 * Call trees are rebuilt from traceid and rpcid (rpcid 0.1.3 is a child of 0.1); identical
 * trees are one graph type, weighted by how many traces have it; the services are the
 * callees (dm).  Rows whose response time rt is <= 0 (about half of the 2021 sample) are
 * cleaned: the call stays in its tree, its rt is not used, and app->cleaned counts them.
 * Service latencies come from the cleaned rts and a template (alibaba.c).
 *
 * It builds on calltree (the tables of each graph) and knows nothing of app.c, which calls it.
 *
 * Ownership: alibaba_load fills *out; what it allocated (svc, graph and each graph's tables,
 * calltree_free) is the caller's, also when it fails (the counts say how much was built).
 */
#ifndef HETSIM_ALIBABA_H
#define HETSIM_ALIBABA_H

#include "../base/jobj.h"
#include "micro_view.h"

/* What a trace gives: its services and graph types, and its counts. */
struct alibaba_app {
    struct micro_service *svc;
    struct micro_graph   *graph;
    int                   nservices, ngraphs;
    int64_t               cleaned;      /* calls whose rt was <= 0 (not used) */
    int64_t               traces;       /* call trees read */
    char                  source[4096]; /* the trace file, resolved */
};

/* Read {"alibaba": FILE, "max_graphs": N, "service": {...}} at `o` into *out (zeroed here). */
int alibaba_load(struct alibaba_app *out, const struct jobj *o, const char *base_dir,
                 struct errbuf *err);

#endif
