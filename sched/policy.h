/*
 * policy: the scheduler interface, the registry of every policy, and the dispatch layer the
 * simulation calls them through.
 *
 * A policy is one file holding one `const struct policy_ops` with designated initializers,
 * listed once in sched/registry.c.  It reads a snapshot of the world and returns decisions;
 * it never mutates world state.  The dispatch layer reads the common parameters (round_s),
 * rejects unknown parameters, times each decision (solver_time_* metrics) and traces
 * decisions to stderr when HETSIM_TRACE is set.  Common parameters of every policy: "round_s"
 * (round length of round-based policies) and "label" (the name its runs are stored under, so
 * that two settings of one policy can be told apart).
 *
 * Ownership: policy_open allocates an instance (the ops' create allocates its private state);
 * policy_close frees both.  The env's cluster and model must outlive the instance.
 */
#ifndef HETSIM_POLICY_H
#define HETSIM_POLICY_H

#include <stdint.h>

#include "../sim/base/jobj.h"
#include "../sim/colocate/colo_view.h"
#include "../sim/micro/micro_view.h"
#include "../sim/place/place_view.h"
#include "../sim/serve/serve_view.h"
#include "../sim/train/train_view.h"

struct alloc_problem;
struct elastic_view;
struct elastic_alloc;

struct policy_env {
    uint64_t       seed;        /* the experiment seed: derive streams with rng_stream */
    const cluster *cl;
    const tput    *model;
    /* Python policies (py:FILE, sched/python/pybridge.h) only: the directory of the
     * experiment file, where a relative FILE is looked for after the working directory
     * (NULL: none), and sim.policy_timeout_s, the CPU seconds one hook call may take
     * (0: the default) */
    const char    *base_dir;
    double         timeout_s;
};

/* What a policy is beyond its hooks: how it behaves inside Gavel's round mechanism
 * (Gavel-compatible mode, sim/train/gavel.c, which keys these on Gavel's policy names), and
 * whether it draws random numbers (so that the seed matters). */
enum policy_flags {
    POLICY_AGNOSTIC = 1u << 0,  /* heterogeneity-agnostic: Gavel shuffles the type order */
    POLICY_FIFO     = 1u << 1,  /* FIFO: Gavel never picks a job whose priority is 0 */
    POLICY_SEEDED   = 1u << 2   /* draws random numbers (from policy_env.seed) */
};

/* A training policy's decisions (domain "training", sim/train/train_view.h): when it is asked,
 * and what it answers. */
struct train_hooks {
    unsigned wake;              /* enum train_wake bits: when decide is called */
    double   round_s;           /* default round length when wake has WAKE_ROUND */
    int  (*decide)(void *self, const struct train_view *v, struct grant_list *out,
                   struct errbuf *err);
    /* Allocation policies only (sched/alloc.h): solve a problem into x[j][t].  Their decide
     * hook is alloc_train; Gavel-compatible mode calls this directly. */
    int  (*allocate)(void *self, const struct alloc_problem *p, double *x, struct errbuf *err);
    /* Elastic policies (sched/elastic/, sim/train/elastic_view.h): each active job's GPUs as
     * per-node lists.  Pollux-compatible mode calls this; a policy with only this hook has
     * no decide. */
    int  (*elastic)(void *self, const struct elastic_view *v, struct elastic_alloc *out,
                    struct errbuf *err);
    /* Elastic policies whose jobs pick their batch from their fitted goodput (Pollux): the
     * world then runs Pollux's agent for each job (train_decider.adaptive_batch). */
    int  adaptive_batch;
};

/* A placement policy's decision (domain "placement", sim/place/place_view.h): a node and GPUs
 * for each arriving pod, or none. */
struct place_hooks {
    int  (*decide)(void *self, const struct place_view *v, const struct place_pod *pod,
                   struct place_choice *out, struct errbuf *err);
};

/* A serving policy's decisions (domain "serving", sim/serve/serve_view.h): the deployment,
 * the routing of each request and, for policies that deploy attention workers, the dispatch
 * of KV heads; redispatch_s is the default of its "round_s" (how often a Hetis instance
 * offers its running requests for rebalancing; 0: never). */
struct serve_hooks {
    int  (*deploy)(void *self, const struct serve_env_view *v, struct serve_deployment *out,
                   struct errbuf *err);
    int  (*route)(void *self, const struct serve_view *v, const struct serve_req_view *r,
                  int32_t *inst, struct errbuf *err);
    int  (*dispatch)(void *self, struct serve_dispatch *d, struct errbuf *err);
    double redispatch_s;
};

/* A microservice policy's decisions (domain "micro", sim/micro/micro_view.h): asked every
 * decision interval, it writes the containers it wants per service. */
struct micro_hooks {
    int  (*decide)(void *self, const struct micro_view *v, int *containers, struct errbuf *err);
};

/* A broker policy's decision (domain "colocate", sim/colocate/colo_view.h): asked every
 * broker period, it names the nodes to hand to the tenant not holding them. */
struct colo_hooks {
    int  (*decide)(void *self, const struct colo_view *v, int *move, struct errbuf *err);
    /* NULL or 0: the decisions do not watch serving's TTFT objective (colo_decider) */
    int  (*watches_slo)(const void *self);
};

/* Where a policy writes the figures it kept over a run (policy_ops.metrics). */
struct policy_metric_sink {
    void *ctx;
    int (*put)(void *ctx, const char *name, double value, struct errbuf *err);
};

/* Every policy: a head that every domain shares, and the hook table of its domain. */
struct policy_ops {
    const char *name;           /* as in experiments and `hetsim list policies` */
    const char *domain;         /* the experiment "domain" it decides for: "training", ... */
    const char *summary;        /* one line */
    unsigned    flags;          /* enum policy_flags */
    const char *const *params;  /* accepted parameters besides round_s, NULL-terminated */
    int  (*create)(void **self, const struct jobj *params, const struct policy_env *env,
                   struct errbuf *err);
    void (*destroy)(void *self);
    /* Figures the policy kept over the run (its solver's statistics), written beside the
     * run's metrics when it ends; NULL: none.  Never wall clock: the same run gives the
     * same figures. */
    int  (*metrics)(void *self, const struct policy_metric_sink *out, struct errbuf *err);
    /* the hooks of its domain: exactly the one its domain names is set */
    const struct train_hooks *train;    /* "training" */
    const struct place_hooks *place;    /* "placement" */
    const struct serve_hooks *serve;    /* "serving" */
    const struct micro_hooks *micro;    /* "micro" */
    const struct colo_hooks  *colo;     /* "colocate" */
};

/* The registry, NULL-terminated, in the order `hetsim list policies` prints. */
extern const struct policy_ops *const policy_registry[];

const struct policy_ops *policy_find(const char *name);
/* 1 for the name of a policy written in Python, "py:FILE" (sched/python/pybridge.h): not in
 * the registry, checked when it opens. */
int policy_is_python(const char *name);

/* " (did you mean 'fifo'?)" for a name close to a registered one, else "". */
const char *policy_hint(const char *name, char *buf, size_t cap);

typedef struct policy policy;

struct policy_stats {
    uint64_t calls;
    double   time_total_s, time_max_s;  /* wall-clock seconds inside decide */
};

/* `params` may be NULL (all defaults) or an object node of an experiment. */
int  policy_open(policy **out, const char *name, const struct jobj *params,
                 const struct policy_env *env, struct errbuf *err);
void policy_close(policy *p);

const struct policy_ops *policy_ops_of(const policy *p);
/* The name runs are stored under: the "label" parameter if given, else the policy's name. */
const char *policy_label(const policy *p);
simtime policy_round(const policy *p);
void policy_get_stats(const policy *p, struct policy_stats *out);
/* Write the policy's own figures (policy_ops.metrics) to out: 0, or -1 with err set. */
int  policy_metrics(const policy *p, const struct policy_metric_sink *out, struct errbuf *err);

/* The decider the world of the policy's domain calls, bound to this policy through the
 * timed dispatch below: a struct train_decider for "training", a struct place_decider for
 * "placement", a struct serve_decider for "serving", a struct micro_decider for "micro", a
 * struct colo_decider for "colocate".
 * Valid while p is open. */
const void *policy_decider(const policy *p);

/* The dispatch of training decisions (what policy_decider's train_decider points at), timed
 * and checked; also for tests that drive a world by hand. */
int policy_allocate(void *p, const struct alloc_problem *prob, double *x, struct errbuf *err);
int policy_train_decide(void *p, const struct train_view *v, struct grant_list *out,
                        struct errbuf *err);
int policy_elastic(void *p, const struct elastic_view *v, struct elastic_alloc *out,
                   struct errbuf *err);
/* The dispatch of placement decisions (what policy_decider's place_decider points at). */
int policy_place_decide(void *p, const struct place_view *v, const struct place_pod *pod,
                        struct place_choice *out, struct errbuf *err);
/* The dispatch of serving decisions (what policy_decider's serve_decider points at). */
int policy_serve_deploy(void *p, const struct serve_env_view *v, struct serve_deployment *out,
                        struct errbuf *err);
int policy_serve_route(void *p, const struct serve_view *v, const struct serve_req_view *r,
                       int32_t *inst, struct errbuf *err);
int policy_serve_dispatch(void *p, struct serve_dispatch *d, struct errbuf *err);
/* The dispatch of microservice decisions (what the micro_decider points at), timed. */
int policy_micro_decide(void *p, const struct micro_view *v, int *containers,
                        struct errbuf *err);
/* The dispatch of broker decisions (what the colo_decider points at), timed. */
int policy_colo_decide(void *p, const struct colo_view *v, int *move, struct errbuf *err);

#endif
