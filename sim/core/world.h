/*
 * world: the interface between the domain-neutral driver (sim/run) and a simulated world —
 * training today, serving and microservices next.  ROSS's tw_lptype and SQLite's sqlite3_vfs
 * are the models: the driver reaches a world only through its `const struct world_ops`, found
 * by the experiment's "domain" in one registry (sim/run/world_registry.c), as policies are
 * found by name; a world knows the driver only through the few structs below.
 *
 * A run, as the driver does it (sim/run/run.c):
 *   read     the world's own fields of the experiment (top level and "sim"), once per
 *            experiment, with file:line errors;
 *   check    an opened policy against them (is it one this world can run in this mode?);
 *   create   the world for one run: the cluster, the models, the seed, the workload's
 *            source of entities, the policy's decider and where its results go;
 *   run      to completion or a limit; the world writes its per-entity rows, its time series
 *            and its summary metrics through the writer as it goes and when it ends;
 *   destroy.
 * A run on a shared engine (co-simulation: several worlds on one cluster, sim/colocate) puts
 * two calls in place of run:
 *   attach   the world's events onto an engine it does not own: it becomes one of the
 *            engine's clients (sim/core/engine.h), its events carry its client tag, so that
 *            the engine hands each event to the world that pushed it and calls each world's
 *            end-of-instant hook when that world had an event; it reads its first entity;
 *   (the owner of the engine advances it, with its own limits, until it stops)
 *   finish   given why the engine stopped: what run does when its loop ends (the rows of
 *            the entities still in it, the summary metrics, the totals, whose `events` are
 *            the world's own).
 * A world that can share an engine builds its run on these two (world_run_alone: an engine
 * of its own, attach, advance under world_sim's limits, finish), so that one world alone is
 * the one-client case of the same code.  Worlds never call each other: whatever one world's
 * state does to another's goes through the code that owns the engine (the broker).
 *
 * Tenancy (the colocate domain, sim/colocate): a world on a shared cluster runs on the part
 * of it the tenant may ever hold (world_ops.tenant_cluster: a cluster of its own, laid out
 * anew; the whole cluster when NULL), and a broker takes GPUs from it and gives them back
 * (take, give), by the ids of the tenant's cluster: a GPU taken is one the world must not use
 * until it is given back.  Training lets go at once (its jobs on
 * them preempted or shrunk, their restores charged); serving lets go of an instance once it
 * has drained, and takes requests again on one given back once its weights are loaded.  A
 * world says through `released` when taken GPUs are free.  What a broker may know of a
 * tenant's load and of what taking GPUs costs it comes through load and take_cost.
 * Entities (jobs, requests) come from the workload as a stream of specs whose type the world
 * knows (sim/core/entity.h; struct job_spec for training); the policy's decider is likewise
 * the struct its view header declares (struct train_decider).  Rows go to the per-run tables of
 * results/schema.sql by table and column name, so a world never includes results/.
 *
 * The timeline (sim.timeline, off by default): with world_sim.timeline set and rows kept, a
 * world writes the `timeline` table through sim/core/timeline.h — one row per interval of one
 * entity on one resource, with its state (queued, running, shared, restoring), what began it
 * and what ended it — so that every moment of an entity's life between its arrival and its
 * end is covered (intervals of zero length aside).  What each world writes:
 *   training  (entity: jobs.job_id; resource: GPU id, with its node and GPU type) native:
 *             queued from arrival and after each preemption; each grant as restoring (while
 *             its checkpoint restore lasts) then running or shared, begun by start, resume,
 *             migrate, resize or reshare; Gavel mode: each micro-task (consecutive ones on
 *             the same GPUs joined), GPUs as positions among the type's (it does not place);
 *             Pollux mode: each list as restoring for restart_s then running, on the
 *             lowest free GPUs of its nodes (Pollux counts GPUs per node);
 *   placement (entity: pods.pod_seq; resource: GPU id numbered node by node in the node
 *             list) time is the arrival sequence (pod k at k s, the run over [0, N) s): a
 *             placed pod running or shared (gpu_milli / 1000) on each of its GPUs to the end,
 *             an unplaced GPU pod queued; a pod asking for no GPU has no row;
 *   serving   (entity: requests.request_id; resource: instance index, with the node of its
 *             first GPU and its GPU types) queued, running on its instance (share 1: its
 *             requests share it), after a preemption queued again (resume); handed from a
 *             prefill-only instance, restoring on its decode instance while its KV moves;
 *   micro     (entity: a service's index; resource: one of its containers, type: its name,
 *             no node) running while ready, restoring while starting: its rows alive at a
 *             moment are its containers then.
 * Without the flag a world writes no timeline row and does no timeline work, so results and
 * their cost are those of a run without it.
 *
 * Ownership: the driver owns everything in world_env and keeps it alive across create, run
 * and destroy; read's config is freed with free_config; create's world with destroy.
 */
#ifndef HETSIM_WORLD_H
#define HETSIM_WORLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../models/tput.h"
#include "../base/display.h"
#include "../base/jobj.h"
#include "../base/row.h"
#include "../base/simtime.h"
#include "../base/window.h"
#include "cluster.h"
#include "entity.h"

struct engine;      /* engine.h */

/* Where a world's results go: the run's rows in the database (or nowhere, for validation). */
struct world_writer {
    void *ctx;
    /* One row of the per-run table `table`: n values for the columns `cols` (run_id aside).
     * NULL when rows are not kept (validation, a run without a database). */
    int  (*row)(void *ctx, const char *table, const char *const *cols,
                const struct row_value *v, int n, struct errbuf *err);
    /* One point of the time series `name`, in time order within the series. */
    int  (*sample)(void *ctx, simtime t, const char *name, double value, struct errbuf *err);
    /* One summary figure (the metrics table; names are a stable interface, doc/database.md). */
    int  (*metric)(void *ctx, const char *name, double value, struct errbuf *err);
    /* Now and then, for a progress line: simulated time and entities done (may be NULL). */
    void (*progress)(void *ctx, simtime t, int64_t done);
    /* The same with the events handled so far (the line's events/s), as often as the world
     * likes (after each decision, say): the driver decides when to print.  May be NULL. */
    void (*progress_events)(void *ctx, simtime t, int64_t done, uint64_t events);
};

/* The settings every world shares (the experiment's generic "sim" fields). */
struct world_sim {
    simtime       sample_period;    /* 0: no time series */
    simtime       until;            /* SIM_NEVER: run until every entity is done */
    uint64_t      max_events;       /* 0: no limit */
    struct window measure;          /* the measurement window of time-averaged figures;
                                       to <= from: from the first arrival to the last */
    int64_t       steady_first, steady_last;    /* the steady-state window of entities by
                                                   arrival index; first < 0: none */
    int           timeline;         /* sim.timeline: write the `timeline` rows (below) */
};

/* A tenant world of a co-simulation, created by the driver for the colocate world. */
struct world_tenant {
    const char             *name;       /* its key under "tenants" (world_ops.tenants) */
    const struct world_ops *ops;
    void                   *world;      /* created, not yet attached */
    const cluster          *cl;         /* the part of the cluster it may hold (its GPU ids) */
};

/* What the driver gives a world for one run. */
struct world_env {
    const cluster         *cl;
    const tput            *model;   /* training throughput (models/tput.h) */
    uint64_t               seed;
    const struct world_sim *sim;
    const void            *config;  /* what read returned */
    struct entity_source  *source;  /* the workload's entities (job_specs for training) */
    const void            *decider; /* the policy's decider (struct train_decider for training) */
    const struct world_writer *out;
    const struct world_tenant *tenants; /* the colocate domain: its tenants (else NULL, 0) */
    int                    ntenants;
};

/* What a broker hears from a tenant (tenancy, above). */
struct world_tenancy {
    void *ctx;
    /* Taken GPUs that are now free (all or some of a take's), at time t. */
    void (*released)(void *ctx, const int *gpus, int n, simtime t);
};

/* A tenant's load, as a broker may know it now. */
struct world_load {
    double arrived;             /* serving: the work arrived so far, tokens (prompts and the
                                   mean finished output per request); training: 0 */
    int    waiting;             /* training: GPUs its waiting jobs ask for at least */
    /* serving, over the requests whose first token came since the previous load call (the
     * run's start for the first): how many (slo_seen), and the fraction of them whose TTFT
     * exceeded its objective slo.ttft_s (slo_miss, in [0, 1]; -1 with no such request or no
     * objective).  A load call ends the window: call it once a decision.  Training: 0, -1. */
    int64_t slo_seen;
    double  slo_miss;
    double gain[CLUSTER_MAX_TYPES];     /* by type slot (cluster_types order): training, the
                                           mean job's rate there over its best type's;
                                           serving, tokens/s per GPU its instances there give
                                           when full (0: none there) */
};

/* How a run ended. */
struct world_totals {
    simtime  end;               /* clock when it stopped */
    int      stop;              /* enum engine_stop */
    uint64_t events, decisions;
    int64_t  entities_in, entities_done;
    double   busy_gpu_s[CLUSTER_MAX_TYPES];    /* GPU-seconds busy by type slot of the world's
                                                  cluster (cluster_types order), as its
                                                  util_<type> metrics count them; 0 where a
                                                  world does not say */
};

struct world_ops {
    const char *domain;         /* the experiment's "domain": "training", ... */
    const char *summary;        /* one line for `hetsim list domains` */
    const char *entity;         /* what it simulates, plural: "jobs", "requests" */
    const char *const *top_keys;    /* its own fields of the experiment (NULL-terminated) */
    const char *const *sim_keys;    /* its own fields of the experiment's "sim" object */
    const char *const *model_keys;  /* its own fields of the "models" object (its data files;
                                       read reads them from root's "models") */
    const char *const *tenants;     /* a domain of tenants (colocate): the keys of its
                                       "tenants" object, each a section of one tenant, which
                                       the driver reads as an experiment section, opens and
                                       creates (world_env.tenants); NULL: none, a "workload".
                                       Each section is optional to the driver: the world's
                                       read says which it requires */
    const char *const *tenant_domains;  /* the domain of each of `tenants` (same order), where
                                           a key is not one ("microservices": "micro"); NULL:
                                           every key is its domain */
    /* A domain of tenants: the part of the cluster tenant `name` may ever hold, as a cluster
     * of its own (*sub; NULL: the whole cluster), which the driver opens the tenant's policy
     * and world on and frees after the run.  NULL: every tenant runs on the whole cluster.
     * Errors name the experiment's field, file and line. */
    int  (*tenant_cluster)(const void *config, const char *name, const cluster *cl,
                           cluster **sub, struct errbuf *err);
    const struct display *display;      /* how its results are reported and drawn */

    /* Read its fields of the experiment: `root` and its "sim" object (node NULL when
     * absent); files it names resolve against `base_dir`, the experiment's folder
     * (sim/base/path.h).  Errors name file:line:field. */
    int  (*read)(void **config, const struct jobj *root, const struct jobj *sim,
                 const char *base_dir, struct errbuf *err);
    void (*free_config)(void *config);
    /* Can this world run a policy with this decider under this config?  0, or -1 with the
     * reason in msg, worded to follow "policy 'NAME' " (the driver says where the policy
     * was named). */
    int  (*check_policy)(const void *config, const void *decider, char *msg, size_t cap);
    /* Does the seed change the world's own choices under this config and decider (beyond
     * the workload's and the policy's)?  NULL: never. */
    int  (*uses_seed)(const void *config, const void *decider);
    /* What `hetsim validate` says of this config beyond the common line (e.g. which truth
     * measures a run), into buf; NULL: nothing. */
    void (*describe)(const void *config, char *buf, size_t cap);
    /* Read every entity of env->source and check it as a run will (env->decider and out may
     * be NULL), counting them; with `list` != NULL write them as the world's trace format
     * (`hetsim workload`). */
    int  (*check_source)(const struct world_env *env, FILE *list, int64_t *count,
                         struct errbuf *err);

    int  (*create)(void **world, const struct world_env *env, struct errbuf *err);
    /* Run to the end or a limit; writes rows, samples and the summary metrics. */
    int  (*run)(void *world, struct world_totals *out, struct errbuf *err);
    void (*destroy)(void *world);

    /* On a shared engine (above): NULL where the world cannot share one; a world that can
     * may still refuse a config (Gavel's rounds own their loop), with the reason in err.
     * Attach at most once per created world; finish once, after the engine stopped with
     * `stop` (enum engine_stop), writes what run writes when it ends. */
    int  (*attach)(void *world, struct engine *e, struct errbuf *err);
    int  (*finish)(void *world, int stop, struct world_totals *out, struct errbuf *err);

    /* Tenancy (above), after attach; take, give and load NULL where the world cannot be a
     * tenant.  The ids are GPU ids of its cluster, or, for a world on CPU nodes alone (the
     * microservices: a cluster_cpu_part), its CPU node numbers.  take returns 1 when the
     * GPUs are free at once (released is not called), 0 when released will say when, for
     * each of them; *affected counts the entities it disturbed (jobs preempted or shrunk,
     * instances drained).  tenancy (NULL: take always
     * returns 1) sets where released goes.  take_cost (NULL: nothing): what taking the GPUs
     * now would cost the world (training: the GPU-seconds of restore its jobs pay);
     * capacity (NULL: none): what they give it when full (serving: tokens/s of its
     * instances on them).  ties (NULL: nothing ties GPUs, all work runs): by GPU id of its
     * cluster, unit[g] the smallest GPU id that work on g is bound to, directly or through
     * other work (serving: the GPUs of an instance, and of instances sharing one, are one
     * unit: taking any GPU of it stops all of its work), and up[g] 0 when work placed on g
     * does not run now (serving: an instance loading its weights, draining or down), 1
     * otherwise. */
    void   (*tenancy)(void *world, const struct world_tenancy *t);
    int    (*take)(void *world, const int *gpus, int n, int64_t *affected, struct errbuf *err);
    int    (*give)(void *world, const int *gpus, int n, struct errbuf *err);
    double (*take_cost)(void *world, const int *gpus, int n);
    double (*capacity)(void *world, const int *gpus, int n);
    void   (*ties)(void *world, int *unit /* out */, unsigned char *up /* out */);
    void   (*load)(void *world, struct world_load *out);
};

/* run built on attach and finish: an engine of the world's own, advanced under sim's until
 * and max_events.  0, or -1 with the message in err. */
int world_run_alone(const struct world_ops *ops, void *world, const struct world_sim *sim,
                    struct world_totals *out, struct errbuf *err);

#endif
