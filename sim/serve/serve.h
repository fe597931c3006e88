/*
 * serve: the LLM serving world — requests arrive, a policy routes each to a model instance
 * it deployed, and every instance runs iterations the way vLLM schedules them: a token
 * budget and a cap on requests per iteration, the decoding requests first (one token each),
 * then prompts in arrival order (whole, or chunked to fill the budget), prefill and decode
 * in one batch; a paged KV cache whose room is each GPU's memory less its weights and
 * activations; when a decoding request cannot grow, the latest admitted one is preempted and
 * recomputed later.  A prefill-only instance hands each prefilled request to a decode-only
 * instance, its KV moving over the link between them.  A pipeline keeps one batch per stage
 * in flight.  A Hetis instance keeps each request's KV heads where its policy's dispatch put
 * them, and its decode attention takes the slowest device's time with the transfers to and
 * from the primaries.  Iteration times come from the latency model (serve_view.h); every
 * transfer between GPUs holds the links it crosses (linkbook.h), so that transfers running
 * at once share a link instead of each taking all of it.
 *
 * Events: arrivals (one read ahead), the end of each batch, pipeline stage slots, KV
 * transfers and samples — thousands per instance for an hour of traffic.  Memory follows the
 * requests in the system (slots reused); a finished request leaves only its figures.
 *
 * Ownership: serve_create allocates; serve_destroy frees it and the engine serve_run made
 * (an engine given to serve_attach is the caller's).  The cluster, model, source,
 * decider and sink are borrowed and must outlive the world.
 */
#ifndef HETSIM_SERVE_H
#define HETSIM_SERVE_H

#include <stdint.h>

#include "../base/window.h"
#include "../core/entity.h"
#include "request.h"
#include "serve_view.h"

struct serve_config {
    struct serve_settings set;
    int      overlong;          /* enum serve_overlong */
    int      drain;             /* enum serve_drain */
    simtime  sample_period;     /* 0: no samples */
    simtime  until;             /* SIM_NEVER: until every request is done */
    uint64_t max_events;        /* 0: none */
    struct window measure;      /* seconds; to <= from: the first arrival to the last */
    double   slo_ttft;          /* seconds: a first token later than this after its request's
                                   arrival is late (serve_first_tokens); <= 0: none */
};

/* A request longer than the model's context: an input error, or cut to fit (the prompt
 * shortened so that prompt + output fits, the output cut to the context less one token if
 * it alone does not). */
enum serve_overlong { SERVE_OVERLONG_ERROR, SERVE_OVERLONG_TRUNCATE };

/* What an instance a broker drains does with the requests it admitted: finish them in place
 * (it takes no new ones), or move them at once: each decoding request's KV crosses to an
 * instance that is up when its batch in flight ends, a request still in its prompt starts
 * over there (a recompute preemption).  A Hetis instance (attention on workers) always
 * finishes in place. */
enum serve_drain { SERVE_DRAIN_FINISH, SERVE_DRAIN_MIGRATE };

/* A request leaving the world: finished, dropped (it can never fit its instance's KV
 * cache), or still in the system when the run stopped. */
struct serve_record {
    int64_t     id;
    int64_t     index;          /* arrival order, from 0 */
    const char *cls;
    double      arrival, start, first, finish;  /* seconds; < 0: did not happen */
    int32_t     prompt, output, generated;
    int32_t     preemptions;
    int         dropped;
};

struct world_writer;
struct engine;

struct serve_sink {
    void *ctx;
    int (*request)(void *ctx, const struct serve_record *r, struct errbuf *err);
    int (*sample)(void *ctx, simtime t, const char *name, double value, struct errbuf *err);
    /* sim.timeline: where the timeline rows go (sim/core/timeline.h); NULL: none is kept,
     * and none is computed */
    const struct world_writer *timeline;
};

struct serve_totals {
    simtime  end;               /* clock when the run stopped */
    int      stop;              /* enum engine_stop */
    uint64_t events, decisions;
    int64_t  reqs_in, reqs_done, reqs_dropped;
    int64_t  preemptions, iterations, rebalances;
    int64_t  drain_moves;       /* requests moved off draining instances with their KV */
    double   tokens_out;        /* output tokens produced */
    double   kv_moved_bytes;    /* moved by prefill-to-decode transfers, rebalancing and
                                   drain moves */
    struct window window;       /* the measurement window used, seconds */
    double   window_tokens, window_done;     /* output tokens and finished requests in it */
    int      ntypes;            /* GPU types of the cluster (cluster_types order) */
    double   busy_gpu_s[CLUSTER_MAX_TYPES];  /* GPU-seconds computing, by type slot */
    double   kv_util_mean;      /* time-average of the KV cache's used fraction */
};

typedef struct serve serve;

/* The request as the world takes it: tokens >= 1, and prompt + output within the model's
 * context (cut when overlong is TRUNCATE: *s is changed).  0, or -1 with the message naming
 * its file, line and field.  `hetsim validate` checks every request with this. */
int serve_request_check(const struct llm_arch *a, int overlong, struct request_spec *s,
                        struct errbuf *err);


int  serve_create(serve **out, const cluster *cl, const llm_catalog *llm,
                  const struct llm_arch *arch, const struct serve_config *cfg,
                  struct entity_source *src, const struct serve_decider *dec,
                  const struct serve_sink *sink, struct errbuf *err);
void serve_destroy(serve *w);
/* Run to the end (or a limit) on an engine of its own: serve_attach, engine_advance under
 * cfg's until and max_events, serve_finish.  0, or -1 with the message in err. */
int  serve_run(serve *w, struct serve_totals *out, struct errbuf *err);

/* On an engine it does not own (co-simulation): attach its handler and hook to e as a client
 * and read its first request; whoever owns e advances it; then finish with why e stopped
 * (enum engine_stop): the records of the requests still in the system and the totals, as
 * serve_run ends.  `events` in the totals are this world's own.  0, or -1 with the message
 * in err (ENGINE_FAILED: the message is already there). */
int  serve_attach(serve *w, struct engine *e, struct errbuf *err);
int  serve_finish(serve *w, int stop, struct serve_totals *out, struct errbuf *err);

/* Tenancy (co-simulation, after serve_attach): a broker takes an instance's GPUs and gives
 * them back.  serve_drain stops routing to the instance (its load's `up` is 0, so routers
 * skip it), sends the requests waiting on it without KV to the instances that are up, and
 * lets it finish what it admitted; once it holds nothing it is down and `released` is called
 * (at the end of an instant: at once for an idle instance).  serve_load gives a down
 * instance its GPUs back: it takes requests again once its weights have crossed each GPU's
 * host link (serve_weights_load_s: its largest stage shard over its GPU type's PCIe link).
 * 0, or -1 with the message in err (draining an instance that is not up, loading one that is
 * not down; a drain that leaves no instance up fails at its next routing). */
struct serve_tenancy {
    void *ctx;
    /* GPUs the broker took (serve_take) that are free now */
    void (*released)(void *ctx, const int *gpus, int n, simtime t);
};
void   serve_set_tenancy(serve *w, const struct serve_tenancy *t);
/* The broker's side, by GPU: serve_take marks the GPUs taken and drains every instance up on
 * any of them (one loading drains once up); returns 1 when they are free at once (no
 * instance left to drain), else 0 and `released` names them as they come free (those free
 * already, at once).  serve_give clears them and loads every instance down that no taken GPU
 * touches any more.  *drained: the instances it drained.  serve_capacity: tokens/s when full
 * of the instances on the GPUs (each instance's share by its GPUs among them);
 * serve_type_speed: by type slot, tokens/s per GPU of the instances there (0: none).
 * serve_ties: by GPU id, unit[g] the smallest GPU id g shares an instance with, directly or
 * through other instances (its own id on no instance), and up[g] 0 when an instance on g is
 * not up (world_ops.ties). */
int    serve_take(serve *w, const int *gpus, int n, int64_t *drained, struct errbuf *err);
int    serve_give(serve *w, const int *gpus, int n, struct errbuf *err);
double serve_capacity(const serve *w, const int *gpus, int n);
void   serve_ties(const serve *w, int *unit /* out */, unsigned char *up /* out */);
void   serve_type_speed(const serve *w, double *per_gpu /* out, CLUSTER_MAX_TYPES */);
int    serve_drain(serve *w, int inst, struct errbuf *err);
int    serve_load(serve *w, int inst, struct errbuf *err);
/* The deployment the policy made, an instance's state (0 up, 1 draining, 2 down, 3 loading),
 * its modelled tokens/s when full (serve_inst_load.speed), its weights' load time. */
const struct serve_deployment *serve_deployment_of(const serve *w);
int    serve_instance_state(const serve *w, int inst);
double serve_instance_speed(const serve *w, int inst);
double serve_weights_load_s(const serve *w, int inst);
/* What has arrived so far, as a router can know it: prompt tokens, requests, and the mean
 * output of the finished ones (0 before the first). */
void   serve_demand(const serve *w, double *prompt_tokens, int64_t *requests,
                    double *mean_output);
/* First tokens so far, as a production broker may observe serving's latency: how many
 * requests have had their first token, and how many of those came later than cfg.slo_ttft
 * after the arrival (ttft > slo_ttft, as reqstats judges the objective; 0 without one).
 * Counted once a request, when its first token comes. */
void   serve_first_tokens(const serve *w, int64_t *firsts, int64_t *late);
/* For tests of the world's shortcuts: how many hops of pipeline boundaries no other
 * transfer crosses, which the world leaves out of its link book (book_route in serve.c;
 * *hops: all of them); and, before the first event, a world that takes no shortcut: every
 * port booked, decode attention and the last stage's head computed at every batch (neither
 * memo used).  The same times, slower. */
int    serve_hops_alone(const serve *w, int *hops /* out */);
void   serve_no_shortcuts(serve *w);

#endif
