/*
 * serve_view: what a serving policy sees and what it returns (the serving world: serve.h).
 *
 * A policy answers three questions through a serve_decider (the end of this file), bound by
 * the policy layer:
 *   deploy    once, before the run (and when a run is checked): the model instances — each a
 *             pipeline of stages, a stage a tensor-parallel group of GPUs of one type holding
 *             some layers, plus, for a Hetis instance, attention workers (GPUs that hold no
 *             weights, only KV heads, and run decode attention); an instance serves every
 *             phase, or only prefill or only decode (disaggregation, KV moved between them);
 *   route     each arriving request to an instance that serves prefill, and each prefilled
 *             request of a prefill-only instance to a decode instance;
 *   dispatch  (Hetis instances only) where the KV heads of the requests a batch admits go
 *             among the instance's attention devices, and, when asked, where every running
 *             request's heads should move.
 * A policy reads the views below and fills the structs it is given; it never changes the
 * world.  The world checks every answer (GPUs used once, layers summing to the model's,
 * weights that fit, heads summing to the model's KV heads on devices that have room) and
 * fails the run with the policy's name when one is wrong.
 *
 * Ownership: every view and pointer reachable from it belongs to the world and is valid only
 * during the call; the out structs belong to the caller.
 */
#ifndef HETSIM_SERVE_VIEW_H
#define HETSIM_SERVE_VIEW_H

#include <stdint.h>

#include "../../models/llm.h"
#include "../base/err.h"
#include "../base/simtime.h"
#include "../core/cluster.h"

enum {
    SERVE_MAX_TP = 8,           /* GPUs of one stage */
    SERVE_MAX_STAGES = 32,      /* stages of one pipeline */
    SERVE_MAX_ATTN = 31,        /* attention workers of one Hetis instance */
    SERVE_MAX_DEV = SERVE_MAX_ATTN + 1,    /* its attention devices: primaries + workers */
    SERVE_MAX_INSTANCES = 128
};

/* ---- settings the policy may read (the experiment's, the world's defaults) ---- */

struct serve_settings {
    int64_t max_batch_tokens;   /* token budget of one iteration */
    int64_t max_seqs;           /* requests in one iteration */
    int32_t block_tokens;       /* tokens of one KV cache block */
    int     chunked_prefill;    /* split prompts to fill the budget (else whole prompts) */
    double  mem_util;           /* fraction of a GPU's memory the server may use */
};

/* ---- the deployment: what deploy returns ---- */

enum serve_role { SERVE_UNIFIED, SERVE_PREFILL, SERVE_DECODE };

struct serve_stage {
    int32_t ngpu;                       /* its tensor-parallel degree */
    int32_t gpus[SERVE_MAX_TP];         /* cluster GPU ids, all of one type */
    int32_t layers;                     /* consecutive layers, >= 1 */
};

struct serve_instance {
    int32_t role;                       /* enum serve_role */
    int32_t nstages;                    /* in pipeline order (first: embedding) */
    struct serve_stage stages[SERVE_MAX_STAGES];
    /* Hetis: GPUs holding KV heads and running decode attention for this instance, beside
     * its primaries (an instance with attention workers must have one stage) */
    int32_t nattn;
    int32_t attn[SERVE_MAX_ATTN];
};

struct serve_deployment {
    int32_t n;
    struct serve_instance inst[SERVE_MAX_INSTANCES];
};

/* ---- what deploy sees ---- */

struct serve_env_view {
    const cluster         *cl;
    const llm_catalog     *llm;         /* latency model and factors */
    const struct llm_arch *arch;        /* the model being served */
    const struct serve_settings *set;
};

/* ---- what route sees: each instance's load now ---- */

struct serve_inst_load {
    int32_t role;
    int32_t waiting;                    /* routed, not admitted */
    int32_t running;                    /* admitted (prefilling or decoding) */
    int64_t pending_prefill;            /* prompt tokens not yet prefilled, waiting or running */
    double  kv_free;                    /* fraction of its KV cache free */
    double  speed;                      /* its modelled tokens/s when full (serve_view_rate
                                           of a 1,024 + 128-token request), for normalizing */
    int32_t up;                         /* 1: it takes requests; 0: a broker took its GPUs
                                           (co-simulation): a router must skip it */
};

struct serve_view {
    simtime now;
    const struct serve_env_view *env;
    const struct serve_deployment *dep;
    int32_t n;                          /* instances */
    const struct serve_inst_load *load; /* by instance */
    double  mean_output;                /* mean output tokens of the requests finished so far
                                           (0 before the first): what a router can observe */
};

/* A request being routed: its size as the router knows it (its output length is unknown). */
struct serve_req_view {
    int64_t id;
    int32_t prompt;
    int32_t want_role;                  /* SERVE_PREFILL: an instance for its prompt (unified
                                           or prefill-only); SERVE_DECODE: a decode-only
                                           instance for its decoding, after prefill on `from` */
    int32_t from;                       /* with SERVE_DECODE: the prefill instance */
};

/* ---- what dispatch sees (a Hetis instance) ---- */

struct serve_attn_dev {
    int32_t gpu;                        /* its first GPU (cluster id) */
    int32_t ngpu;                       /* GPUs sharing its heads (the primaries' TP degree;
                                           1 for a worker) */
    int32_t link;                       /* link it is reached through from the primaries
                                           (-1: it is the primaries) */
    int32_t remote;                     /* on another node than the primaries: transfers to
                                           every remote device share the primaries' network
                                           link */
    double  cap_bytes;                  /* KV room of its GPUs together */
    double  used_bytes;                 /* KV held now */
    double  ctx_heads;                  /* sum over its requests of context x KV heads:
                                           what its decode attention reads, in head-tokens */
    double  req_heads;                  /* sum over its requests of KV heads: what moves
                                           to and from it each layer */
};

enum serve_dispatch_mode { SERVE_PLACE, SERVE_REBALANCE, SERVE_REPLACE };

struct serve_dispatch_req {
    int64_t id;
    double  context;                    /* tokens of KV it will hold after this iteration */
    int32_t heads[SERVE_MAX_DEV];       /* in: its KV heads per device now (all 0 for a
                                           request being admitted); out: where they go */
};

struct serve_dispatch {
    simtime now;
    const struct serve_env_view *env;
    int32_t inst;
    int32_t ndev;                       /* devices: [0] the primaries, then the workers */
    const struct serve_attn_dev *dev;   /* their state, these requests left out */
    int32_t nreq;
    struct serve_dispatch_req *req;
    int32_t rebalance;                  /* SERVE_PLACE: requests being admitted, each placed
                                           (heads summing to the model's KV heads on devices
                                           with room for `context` tokens) or left waiting
                                           (all 0); SERVE_REBALANCE: every running request,
                                           which may move (moving KV costs its transfer);
                                           SERVE_REPLACE: requests that cannot grow where
                                           their heads are, to be placed anew (or all 0:
                                           preempted) */
    double  layer_attn_s;               /* out: the modelled per-layer decode attention time
                                           of the instance after this dispatch (traced) */
};

/* ---- helpers (serve_view.c): the latency model applied to deployments ---- */

/* The link a group of GPUs communicates over: their node's intra-node link when they share
 * a node, else the slower of it and the network (-1 for one GPU). */
int serve_view_group_link(const cluster *cl, const int32_t *gpus, int n);
/* The link between two GPUs: the intra-node link on one node, else the network. */
int serve_view_pair_link(const cluster *cl, int a, int b);

/* Bytes of KV room one GPU of `stage` has beside its weights and activations (may be
 * negative: the weights do not fit). */
double serve_view_stage_room(const struct serve_env_view *v, const struct serve_instance *in,
                             int stage);
/* KV tokens the instance holds (the fullest stage's limit; for a Hetis instance, the room of
 * every attention device at the model's KV heads per token); 0 when a stage's weights do not
 * fit. */
double serve_view_kv_tokens(const struct serve_env_view *v, const struct serve_instance *in);
/* Modelled time of one iteration of `b` on the instance, every stage one after another, its
 * decode attention (for a Hetis instance) spread over its devices in proportion to their
 * memory bandwidth. */
/* A pipeline's stage shapes: one layer's time depends on its stage's GPU type, TP degree and
 * link alone (llm_stage_of_layer_s gives each stage's time from it), so a batch times one
 * layer per shape however deep the pipeline.  serve_shape_of: the index in s[0..*n) of
 * st's shape, appended (layer_s < 0, for the caller to time) when new. */
struct serve_shape {
    int    gpu, tp, link;
    double layer_s;
};
int serve_shape_of(struct serve_shape *s, int *n, const struct llm_stage *st);

double serve_view_iter_s(const struct serve_env_view *v, const struct serve_instance *in,
                         const struct llm_batch *b);
/* Modelled requests/s the instance serves of a reference request (`prompt` tokens in,
 * `output` out) when full: n = min(max_seqs, what its KV holds at prompt + output tokens a
 * request) requests at once per batch in flight (a pipeline keeps one batch per stage), their
 * prompts prefilled in iterations of max_batch_tokens, then `output` decode steps at the
 * mean context; n over the time of those iterations, each iteration of a pipeline taking its
 * slowest stage or its whole time over the stages, whichever is longer.  0 when one request
 * does not fit. */
double serve_view_rate(const struct serve_env_view *v, const struct serve_instance *in,
                       double prompt, double output);

/* The attention devices of a Hetis instance (room ndev = nattn + 1): [0] its primaries,
 * then its workers, with their links and KV room; loads zero. */
void serve_view_attn_devices(const struct serve_env_view *v, const struct serve_instance *in,
                             struct serve_attn_dev *dev, int *ndev);
/* Per-layer decode attention time of a Hetis split: each device reading ctx_heads[i]
 * head-tokens for req_heads[i] request-heads (its GPUs share them evenly); a worker on the
 * primaries' node receives its queries and new K/V over its link and returns its outputs; the
 * workers on other nodes share the primaries' network link both ways and compute in
 * parallel; the slowest path sets the time. */
double serve_view_attn_split_s(const struct serve_env_view *v, int ndev,
                               const struct serve_attn_dev *dev, const double *ctx_heads,
                               const double *req_heads);
/* The layers of a Hetis instance's iteration: dense modules and prefill attention on its
 * primaries (one TP group), decode attention taking attn_layer_s a layer, plus embedding and
 * head; the iteration overhead not included.  part: the primaries' llm_layer_part for b's
 * tokens when the caller keeps it, NULL to compute it. */
double serve_view_hetis_s(const struct serve_env_view *v, const struct serve_instance *in,
                          const struct llm_batch *b, const struct llm_layer_part *part,
                          double attn_layer_s);

/* ---- the world's checks of a policy's answers (shared with policy layers that check an
 * answer before they return it, sched/python/) ---- */

/* Check a deployment against the cluster and the model: GPUs known and used once, every
 * stage of one GPU type, layers summing to the model's, weights that fit with room for at
 * least one KV block, a Hetis instance's single stage.  0, or -1 with the reason in msg. */
int serve_check_deployment(const struct serve_env_view *v, const struct serve_deployment *d,
                           char *msg, size_t cap);

/* Is instance `inst` one that serves what request r wants (prompts: unified or prefill-only;
 * decoding: decode-only)?  0, or -1 with err set (ERR_RUN). */
int serve_view_route_check(const struct serve_view *v, const struct serve_req_view *r,
                           int32_t inst, struct errbuf *err);

/* ---- the decider: what the world calls, a policy behind the dispatch layer ---- */

struct serve_decider {
    void          *ctx;
    const cluster *cl;          /* the cluster the policy was opened for: the world checks a
                                   deployment when it checks the policy, before any run */
    int (*deploy)(void *ctx, const struct serve_env_view *v, struct serve_deployment *out,
                  struct errbuf *err);
    int (*route)(void *ctx, const struct serve_view *v, const struct serve_req_view *r,
                 int32_t *inst, struct errbuf *err);
    /* NULL: the policy deploys no attention workers */
    int (*dispatch)(void *ctx, struct serve_dispatch *d, struct errbuf *err);
    double redispatch_s;        /* how often (simulated seconds) a Hetis instance offers its
                                   running requests for rebalancing; 0: never */
};

#endif
