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
 * Ownership: alibaba_load fills the services and graphs of an empty app (app.c frees them).
 */
#ifndef HETSIM_ALIBABA_H
#define HETSIM_ALIBABA_H

#include "../base/jobj.h"
#include "app.h"

/* Read {"alibaba": FILE, "max_graphs": N, "service": {...}} at `o`. */
int alibaba_load(struct app *a, const struct jobj *o, const char *base_dir, struct errbuf *err);

#endif
