/*
 * app: the microservice application — services with their latency fits and container sizes,
 * graph types as call trees (calltree.h) — read from a JSON file, Derm's fit file or an
 * Alibaba call-graph trace (app.c, alibaba.c: app.c calls the Alibaba reader, never the
 * reverse).  Its micro_app is what policies see (micro_view.h).
 *
 * Ownership: app_load allocates an application and everything it points at; app_free frees
 * it.
 */
#ifndef HETSIM_APP_H
#define HETSIM_APP_H

#include <stdint.h>

#include "../base/jobj.h"
#include "micro_view.h"

/* An application with its tree tables (the micro_app view and what it points at). */
struct app {
    struct micro_app      view;
    struct micro_service *svc;
    struct micro_graph   *graph;
    char                  source[4096]; /* where it came from: a file, for messages */
    int64_t               cleaned;      /* Alibaba: calls whose rt was <= 0 (not used) */
    int64_t               traces;       /* Alibaba: call trees read */
};

/* Options an application's latency fits are read with. */
struct app_opts {
    double cpu_inter, mem_inter;    /* Erms fits: the interference (cores, MiB) */
};

/* Load the application named by the experiment's field `key` of `root` ("app"): a JSON file,
 * a Derm fit file (its all_pars.csv), or an object {"alibaba": FILE, ...}; paths resolve
 * against base_dir.  Errors name file:line:field. */
int  app_load(struct app **out, const struct jobj *root, const char *key, const char *base_dir,
              const struct app_opts *o, struct errbuf *err);
void app_free(struct app *a);
int  app_graph_find(const struct app *a, const char *name);

#endif
