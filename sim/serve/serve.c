/*
 * serve: event handlers of the serving world (serve.h).
 *
 * Events: ARRIVAL (the next request of the source, read one ahead), BATCH (arg: instance and
 * batch slot; an iteration ends), LAUNCH (arg: instance; a pipeline's first stage is free
 * again), XFER (arg: request slot; its KV reached its decode instance), SAMPLE.  Batches are
 * formed at the end of an instant (the engine's end-of-instant hook) on every instance that
 * something happened to, so that requests arriving together are scheduled together.
 *
 * A request's KV: `filled` tokens held, in ceil(filled / block) blocks, and after every step
 * filled = prompt + generated - 1 once its prompt is in (a decode step appends the KV of the
 * last token and produces the next; a preempted request is re-prefilled over its prompt and
 * every token it generated, which produces its next token).  An instance's KV lives on its
 * devices: each stage of a pipeline (bytes a token for its layers and TP share, the same for
 * every request), or for a Hetis instance its primaries and attention workers (bytes a token
 * for the heads of each request each holds).  Invariant, asserted: no device ever holds more
 * than its room.
 *
 * Pipelines: a batch runs its stages in order; stage s starts when the batch arrives there
 * and the stage is free; up to one batch per stage is in flight, and a request is in at most
 * one; the next batch starts as soon as the first stage and a slot are free.  Time of stage
 * s: the latency model's (models/llm.h) for the batch; between stages the activations move
 * over the link between them; the iteration overhead is paid once.
 *
 * Links (linkbook.h): every transfer holds the ports it crosses — a GPU's link into its node
 * and a node's network link, each direction on its own — for its bytes at the link's rate,
 * no two transfers on one port at once: a pipeline's activations when its stage is done, a
 * prefilled request's KV to its decode instance (streamed during its last prefill), a Hetis
 * iteration's traffic with its workers (queries and new K/V out, outputs back, prefilled KV
 * of offloaded heads) and the KV its rebalancing moves.  So however many transfers run at
 * once, no link carries more than its bandwidth; a transfer that finds its ports busy waits
 * (a Hetis iteration ends no earlier than its traffic, a KV move arrives later).  A port of
 * a pipeline boundary that nothing else can cross (mark_alone) is not booked: that
 * boundary's own batches find it free (book_route), so the times are the same.
 *
 * The timeline (sink->timeline): a request is queued (no resource) from its arrival until
 * admitted, running on its instance (the resource; an instance's requests share it, each row
 * at share 1) until it finishes, is preempted (queued again, then resume) or, prefilled on a
 * prefill-only instance, moves on: restoring on its decode instance while its KV travels
 * (migrate -> restored), queued there, running again (migrate).  Each request keeps its open
 * interval in its slot and writes it when it ends, so nothing stays of a finished request.
 *
 * Costs: a batch O(its requests + instance devices), its stages' layers timed once per
 * shape (GPU type, TP degree, link) however deep the pipeline, a layer's token-count part,
 * its decode attention and the last stage's head kept by what each depends on (layer_part,
 * decode_attn, stage_head: contexts and counts recur); a transfer's reservation
 * O(its shared ports x log(their intervals)) (linkbook.c), the forget horizon O(1) from the
 * launch-ordered list of the prefill-only instances' batches in flight (the only ones that
 * book a link ready before now; without them every port keeps only what ends after now);
 * routing O(instances); a Hetis dispatch is the
 * policy's LP.  Utilization is credited when a batch ends (a sample period's figure
 * may lag by one iteration).
 */
#define _POSIX_C_SOURCE 200809L
#include "serve.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/forest.h"
#include "../base/grow.h"
#include "../core/engine.h"
#include "../core/timeline.h"
#include "linkbook.h"
#include "xfer.h"

enum ev_kind { EV_ARRIVAL = 1, EV_BATCH, EV_LAUNCH, EV_XFER, EV_SAMPLE, EV_UP };

/* An instance's tenancy (co-simulation): it takes requests only when up; draining, it
 * finishes what it admitted and takes nothing new; down, its GPUs are another tenant's;
 * loading, they are back and its weights are on their way. */
enum inst_state { I_UP, I_DRAINING, I_DOWN, I_LOADING };

enum req_state {
    R_FREE, R_WAITING, R_RUNNING, R_XFER, R_DONE
};

struct req {
    int64_t  id, index;
    simtime  arrival, start, first;
    int32_t  prompt, output;
    int32_t  cls;               /* interned class */
    int32_t  inst;
    int32_t  state;             /* enum req_state */
    int32_t  target;            /* tokens its prefill must cover (prompt, or more after a
                                   preemption) */
    int32_t  filled;            /* KV tokens held */
    int32_t  generated;
    int32_t  blocks;
    int32_t  preempts;
    int32_t  chunk;             /* in flight: prefill tokens of this iteration (0: decode) */
    int32_t  batch;             /* in flight: its batch slot, else -1 */
    int32_t  kv_ready;          /* arrived at a decode instance with its KV (to allocate) */
    int32_t  prev, next;        /* the instance's waiting or running list */
    simtime  tl_from;           /* the timeline: the open interval, from tl_from, in tl_state
                                   on instance tl_inst, begun by tl_cause */
    int32_t  tl_inst;
    int8_t   tl_state, tl_cause;
    uint8_t  heads[SERVE_MAX_DEV];  /* Hetis: its KV heads per device */
};

struct batch {
    int32_t *r;
    int32_t  n, cap;
    int      busy;
    simtime  launched;
    int32_t  fly_prev, fly_next;    /* busy: the batches in flight, in launch order */
    double   iter_s;
    double   stage_s[SERVE_MAX_STAGES];     /* compute (a Hetis instance: its primaries') */
    double   send_bytes[SERVE_MAX_STAGES];  /* activations to the next stage */
    double   send_s[SERVE_MAX_STAGES];      /* ... their time on a free link */
    double   dev_s[SERVE_MAX_DEV];      /* Hetis: compute seconds per device */
    double   dev_out[SERVE_MAX_DEV];    /* Hetis: bytes worker d sends the primaries, and */
    double   dev_in[SERVE_MAX_DEV];     /* those it receives, this iteration */
};

struct dev {                    /* a KV device of an instance: a stage, or a Hetis device */
    double cap, used;           /* bytes */
    double tok_bytes;           /* pipelines: bytes one token takes (per GPU of the stage) */
    double ctx_heads, req_heads;    /* Hetis: decoding load (head-tokens, heads) */
};

struct inst {
    const struct serve_instance *spec;
    int      S;                 /* stages */
    int      hetis;
    int      ndev;
    struct dev dev[SERVE_MAX_DEV > SERVE_MAX_STAGES ? SERVE_MAX_DEV : SERVE_MAX_STAGES];
    struct serve_attn_dev adev[SERVE_MAX_DEV];  /* Hetis: what dispatch sees */
    double   head_bytes;        /* Hetis: bytes of one head-token over every layer */
    double   cap_tokens;        /* KV tokens a single request could ever hold */
    simtime  stage_free[SERVE_MAX_STAGES];
    int32_t  wait_head, wait_tail, run_head, run_tail;
    int32_t  nwait, nrun;
    int64_t  pending_prefill;
    struct batch b[SERVE_MAX_STAGES];
    int      inflight;
    int      dirty, launch_pending;
    simtime  last_rebalance;
    struct serve_inst_load *load;
    struct llm_stage lstage[SERVE_MAX_STAGES];  /* its stages as the latency model takes them */
    int      send_link[SERVE_MAX_STAGES];   /* the link from stage s to s + 1 */
    struct xfer_route *route;   /* by stage s < S - 1: the ports its activations cross */
    struct llm_layer_part *tok[SERVE_MAX_STAGES];  /* by token count (dense_s < 0: unknown) */
    int      tok_cap;
    double  *head;              /* its last stage's norm and head by logits count, up to
                                   max_seqs (< 0: unknown; NULL for a Hetis instance) */
    int      state;             /* enum inst_state */
    int      tl_node;           /* the timeline: the node of its first GPU, and its GPU types */
    char     tl_type[128];      /* in stage order, attention workers last ("A100-80GB+T4") */
};

/* One layer's decode attention of a batch on a stage shape, kept by what it depends on
 * (llm_stage_attn_decode_s): most batches' contexts recur, and it is an iteration's costliest
 * part that the token-count tables do not hold. */
struct attn_memo {
    double ctx, reqs;
    int    gpu, tp;
    double s;
};
enum { ATTN_MEMO = 1 << 14 };

struct serve {
    const cluster         *cl;
    linkbook              *lb;          /* when each link's ports are busy */
    const llm_catalog     *llm;
    const struct llm_arch *arch;
    struct serve_config    cfg;
    struct entity_source  *src;
    const struct serve_decider *dec;
    const struct serve_sink *sink;
    engine                *eng;         /* the engine it is attached to (serve_attach) */
    engine                *own;         /* serve_run's engine of its own, or NULL */
    uint32_t               tag;         /* its client tag on eng, ORed into its kinds */
    uint64_t               nevents;     /* its events handled (eng's may hold others') */
    struct serve_env_view  env;
    struct serve_deployment *dep;
    struct inst           *in;
    int                    ninst;
    struct serve_inst_load *load;
    struct req            *r;
    int32_t                nr, cap_r, free_head;
    /* the request read ahead */
    struct request_spec    pending;
    int                    have_pending, drained;
    simtime                first_arrival, last_arrival;
    simtime                admit_delay;     /* first_ms: a request reaches its router so
                                               much after it arrives */
    char                 **cls;         /* interned class names */
    int                    ncls;
    int32_t                fly_head, fly_tail;  /* prefill-only instances' batches in
                                               flight, oldest first (as instance x
                                               SERVE_MAX_STAGES + slot; -1) */
    int32_t                dirty_list[SERVE_MAX_INSTANCES];
    int                    ndirty;
    int                    ntypes;
    const int             *types;
    double                 busy_period[CLUSTER_MAX_TYPES];
    simtime                last_sample;
    double                 kv_int;      /* integral of the KV used fraction */
    simtime                kv_since;
    double                 kv_used_all, kv_cap_all;
    double                 out_sum, out_n;   /* finished requests' outputs (router's view) */
    /* the default window's end is the last arrival, known only when the source is found
       empty, at that arrival's event (admit_delay later): what was counted in it over the
       last admit_delay, to take back what came after the last arrival (window_count) */
    struct late { simtime t; double tokens, done; } *late;
    int32_t                nlate, late_head, late_cap;
    int64_t                in_system;
    int                    no_shortcuts;    /* serve_no_shortcuts: every port booked, no
                                               memos */
    struct attn_memo      *attn;        /* ATTN_MEMO entries, direct-mapped */
    struct serve_totals    tot;
    struct window          win;
    struct serve_dispatch_req *dreq;
    int32_t                *dslot;
    int                    dcap;
    /* tenancy (co-simulation) */
    struct serve_tenancy   ten;
    uint8_t               *denied;      /* by GPU id: taken by the broker (NULL: none yet) */
    int                    ndraining;
    double                 arrived_prompt;  /* prompt tokens of every request arrived */
    int64_t                firsts, firsts_late; /* first tokens, those past cfg.slo_ttft */
    int64_t                drains, loads;
};

/* ---------------------------------------------------------------- checks */

int serve_request_check(const struct llm_arch *a, int overlong, struct request_spec *s,
                        struct errbuf *err)
{
    const char *pf = s->prompt_field != NULL ? s->prompt_field : "prompt_tokens";
    if (s->prompt < 1)
        return err_input(err, s->origin, s->line, pf, "%d: a request needs at least one "
                         "prompt token", s->prompt);
    if (s->output < 1)
        return err_input(err, s->origin, s->line, "output_tokens", "%d: a request needs at "
                         "least one output token", s->output);
    if ((int64_t)s->prompt + s->output <= a->max_context)
        return 0;
    if (overlong == SERVE_OVERLONG_ERROR)
        return err_input(err, s->origin, s->line, pf, "%d prompt + %d output tokens exceed "
                         "the context of %s (%d tokens; \"sim\": { \"overlong\": "
                         "\"truncate\" } cuts such requests to fit)", s->prompt, s->output,
                         a->name, a->max_context);
    if (s->output > a->max_context - 1)
        s->output = a->max_context - 1;
    s->prompt = a->max_context - s->output;
    return 0;
}

/* ---------------------------------------------------------------- requests and lists */

static int new_slot(serve *w, struct errbuf *err)
{
    if (w->free_head >= 0) {
        int32_t s = w->free_head;
        w->free_head = w->r[s].next;
        return s;
    }
    if (w->nr == w->cap_r) {
        int failed = 0;
        int32_t cap = w->cap_r ? 2 * w->cap_r : 256;
        w->r = grow_array(w->r, (size_t)cap, sizeof *w->r, &failed);
        if (failed)
            return err_run(err, "out of memory");
        w->cap_r = cap;
    }
    return w->nr++;
}

static void free_slot(serve *w, int32_t s)
{
    w->r[s].state = R_FREE;
    w->r[s].next = w->free_head;
    w->free_head = s;
}

static void list_push_back(serve *w, int32_t *head, int32_t *tail, int32_t s)
{
    struct req *r = &w->r[s];
    r->next = -1;
    r->prev = *tail;
    if (*tail >= 0)
        w->r[*tail].next = s;
    else
        *head = s;
    *tail = s;
}

static void list_push_front(serve *w, int32_t *head, int32_t *tail, int32_t s)
{
    struct req *r = &w->r[s];
    r->prev = -1;
    r->next = *head;
    if (*head >= 0)
        w->r[*head].prev = s;
    else
        *tail = s;
    *head = s;
}

static void list_remove(serve *w, int32_t *head, int32_t *tail, int32_t s)
{
    struct req *r = &w->r[s];
    if (r->prev >= 0)
        w->r[r->prev].next = r->next;
    else
        *head = r->next;
    if (r->next >= 0)
        w->r[r->next].prev = r->prev;
    else
        *tail = r->prev;
    r->prev = r->next = -1;
}

/* Count `tokens` output tokens and `done` finished requests now in the measurement window. */
static void window_count(serve *w, double tokens, double done)
{
    simtime now = engine_now(w->eng);
    double t = sim_to_sec(now);
    if (!(t >= w->win.from && t <= w->win.to))
        return;
    w->tot.window_tokens += tokens;
    w->tot.window_done += done;
    if (w->drained || w->win.to != INFINITY)
        return;
    /* the default window, its end not known yet: keep the counts of the last admit_delay */
    while (w->late_head < w->nlate && w->late[w->late_head].t <= now - w->admit_delay)
        w->late_head++;
    if (w->late_head == w->nlate)
        w->late_head = w->nlate = 0;
    if (w->nlate == w->late_cap) {
        int failed = 0;
        int32_t cap = w->late_cap ? 2 * w->late_cap : 64;
        struct late *l = grow_array(w->late, (size_t)cap, sizeof *l, &failed);
        if (failed) {           /* the count stays, as before this record existed */
            w->late_head = w->nlate = 0;
            return;
        }
        w->late = l;
        w->late_cap = cap;
    }
    w->late[w->nlate++] = (struct late){ now, tokens, done };
}

/* The source is empty: the default window ends at the last arrival, so what was counted
 * after it (between it and its event, admit_delay later) leaves the window. */
static void window_close(serve *w)
{
    for (int32_t k = w->late_head; k < w->nlate; k++)
        if (w->late[k].t > w->last_arrival) {
            w->tot.window_tokens -= w->late[k].tokens;
            w->tot.window_done -= w->late[k].done;
        }
    w->late_head = w->nlate = 0;
}

static void mark_dirty(serve *w, int i)
{
    if (!w->in[i].dirty) {
        w->in[i].dirty = 1;
        w->dirty_list[w->ndirty++] = i;
    }
}

static int32_t blocks_for(const serve *w, int64_t tokens)
{
    int64_t b = w->cfg.set.block_tokens;
    return (int32_t)((tokens + b - 1) / b);
}

/* ---------------------------------------------------------------- the KV cache */

static void kv_account(serve *w)
{
    simtime now = engine_now(w->eng);
    if (w->kv_cap_all > 0 && now > w->kv_since)
        w->kv_int += w->kv_used_all / w->kv_cap_all * sim_to_sec(now - w->kv_since);
    w->kv_since = now;
}

/* Bytes of one block of request r on device d of instance in. */
static double block_bytes(const serve *w, const struct inst *in, const struct req *r, int d)
{
    double bt = w->cfg.set.block_tokens;
    return in->hetis ? bt * r->heads[d] * in->head_bytes : bt * in->dev[d].tok_bytes;
}

/* Room for r to hold `tokens` KV tokens on every device of its instance? */
static int kv_fits(const serve *w, const struct inst *in, const struct req *r, int64_t tokens)
{
    int32_t extra = blocks_for(w, tokens) - r->blocks;
    if (extra <= 0)
        return 1;
    for (int d = 0; d < in->ndev; d++)
        if (in->dev[d].used + extra * block_bytes(w, in, r, d) > in->dev[d].cap * (1 + 1e-12))
            return 0;
    return 1;
}

static void kv_set_blocks(serve *w, struct inst *in, struct req *r, int32_t blocks)
{
    kv_account(w);
    int32_t extra = blocks - r->blocks;
    for (int d = 0; d < in->ndev; d++) {
        double b = extra * block_bytes(w, in, r, d);
        in->dev[d].used += b;
        w->kv_used_all += b;
        assert(in->dev[d].used <= in->dev[d].cap * (1 + 1e-9) + 1);
        if (in->dev[d].used < 0.5)      /* rounding of a full release */
            in->dev[d].used = 0;
    }
    r->blocks = blocks;
}

/* Hetis: the decoding load of r on its devices, added (sign 1) or taken away (-1). */
static void hetis_load(struct inst *in, const struct req *r, int sign)
{
    if (!in->hetis)
        return;
    for (int d = 0; d < in->ndev; d++) {
        in->dev[d].ctx_heads += sign * (double)r->filled * r->heads[d];
        in->dev[d].req_heads += sign * (double)r->heads[d];
    }
}

static int decoding(const struct req *r)
{
    return r->state == R_RUNNING && r->filled >= r->target && r->target > 0;
}

/* Release r's KV (it finished, was preempted or dropped). */
static void kv_release(serve *w, struct inst *in, struct req *r)
{
    if (decoding(r))
        hetis_load(in, r, -1);
    kv_set_blocks(w, in, r, 0);
    memset(r->heads, 0, sizeof r->heads);
}

/* ---------------------------------------------------------------- leaving */

static int emit(serve *w, struct req *r, int dropped, struct errbuf *err)
{
    struct serve_record rec = {
        .id = r->id, .index = r->index, .cls = w->cls[r->cls],
        .arrival = sim_to_sec(r->arrival), .start = r->start >= 0 ? sim_to_sec(r->start) : -1,
        .first = r->first >= 0 ? sim_to_sec(r->first) : -1, .finish = -1,
        .prompt = r->prompt, .output = r->output, .generated = r->generated,
        .preemptions = r->preempts, .dropped = dropped,
    };
    if (r->state == R_DONE)
        rec.finish = sim_to_sec(engine_now(w->eng));
    return w->sink->request(w->sink->ctx, &rec, err);
}

/* ---------------------------------------------------------------- the timeline */

static int tl_write(serve *w, const struct req *r, int ends, struct errbuf *err)
{
    const struct inst *in = r->tl_inst >= 0 ? &w->in[r->tl_inst] : NULL;
    return timeline_row(w->sink->timeline, r->id, in ? r->tl_inst : -1, in ? in->tl_node : -1,
                        in ? in->tl_type : NULL, r->tl_from, engine_now(w->eng), r->tl_state,
                        1, r->tl_cause, ends, err);
}

/* End r's open interval now (`ends`: what ended it) and open the next: `state` on instance
 * `inst` (-1 while queued), begun by `cause`. */
static int tl_next(serve *w, struct req *r, int ends, int state, int inst, int cause,
                   struct errbuf *err)
{
    if (w->sink->timeline == NULL)
        return 0;
    if (tl_write(w, r, ends, err) < 0)
        return -1;
    r->tl_from = engine_now(w->eng);
    r->tl_state = (int8_t)state;
    r->tl_inst = state == TL_QUEUED ? -1 : inst;
    r->tl_cause = (int8_t)cause;
    return 0;
}

static int tl_end(serve *w, const struct req *r, int ends, struct errbuf *err)
{
    return w->sink->timeline == NULL ? 0 : tl_write(w, r, ends, err);
}

/* ---------------------------------------------------------------- leaving (cont.) */

static int finish(serve *w, int32_t s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    struct inst *in = &w->in[r->inst];
    kv_release(w, in, r);
    list_remove(w, &in->run_head, &in->run_tail, s);
    in->nrun--;
    r->state = R_DONE;
    w->tot.reqs_done++;
    window_count(w, 0, 1);
    w->out_sum += r->output;
    w->out_n++;
    w->in_system--;
    int rc = tl_end(w, r, TL_FINISH, err) < 0 ? -1 : emit(w, r, 0, err);
    free_slot(w, s);
    return rc;
}

static int drop(serve *w, int32_t s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    w->tot.reqs_dropped++;
    w->in_system--;
    int rc = tl_end(w, r, TL_DROP, err) < 0 ? -1 : emit(w, r, 1, err);
    free_slot(w, s);
    return rc;
}

/* ---------------------------------------------------------------- routing */

static void refresh_load(serve *w, int i)
{
    struct inst *in = &w->in[i];
    double used = 0, cap = 0;
    for (int d = 0; d < in->ndev; d++) {
        used += in->dev[d].used;
        cap += in->dev[d].cap;
    }
    in->load->waiting = in->nwait;
    in->load->running = in->nrun;
    in->load->pending_prefill = in->pending_prefill;
    in->load->kv_free = cap > 0 ? 1 - used / cap : 0;
}

static int route(serve *w, int32_t s, int want, int from, int32_t *out, struct errbuf *err)
{
    struct req *r = &w->r[s];
    for (int i = 0; i < w->ninst; i++)
        refresh_load(w, i);
    struct serve_view v = { engine_now(w->eng), &w->env, w->dep, w->ninst, w->load,
                            w->out_n > 0 ? w->out_sum / w->out_n : 0 };
    struct serve_req_view rv = { r->id, r->prompt, want, from };
    int32_t i = -1;
    w->tot.decisions++;
    if (w->dec->route(w->dec->ctx, &v, &rv, &i, err) < 0)
        return -1;
    if (serve_view_route_check(&v, &rv, i, err) < 0)
        return -1;
    if (w->in[i].state != I_UP)
        return err_run(err, "policy routed request %lld to instance %d, whose GPUs the "
                       "broker has taken (a router must skip instances whose load says "
                       "they are not up)", (long long)r->id, i);
    *out = i;
    return 0;
}

/* Put r at the end of instance i's waiting list (or drop it when it can never fit). */
static int enqueue(serve *w, int32_t s, int i, struct errbuf *err)
{
    struct req *r = &w->r[s];
    struct inst *in = &w->in[i];
    r->inst = i;
    /* its prompt (or its KV when it arrives with it) and the next token must fit */
    if ((double)r->target + 1 > in->cap_tokens)
        return drop(w, s, err);
    r->state = R_WAITING;
    list_push_back(w, &in->wait_head, &in->wait_tail, s);
    in->nwait++;
    if (!r->kv_ready)
        in->pending_prefill += r->target - r->filled;
    mark_dirty(w, i);
    return 0;
}

/* ---------------------------------------------------------------- preemption */

/* Recompute: r gives back its KV and goes to the front of the waiting list, to prefill its
 * prompt and every token it generated. */
static int preempt(serve *w, int32_t s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    struct inst *in = &w->in[r->inst];
    assert(r->batch < 0);
    kv_release(w, in, r);
    list_remove(w, &in->run_head, &in->run_tail, s);
    in->nrun--;
    r->target = r->prompt + r->generated;
    r->filled = 0;
    r->kv_ready = 0;
    r->preempts++;
    r->state = R_WAITING;
    list_push_front(w, &in->wait_head, &in->wait_tail, s);
    in->nwait++;
    in->pending_prefill += r->target;
    w->tot.preemptions++;
    return tl_next(w, r, TL_PREEMPT, TL_QUEUED, -1, TL_PREEMPT, err);
}

/* The latest admitted running request not in flight whose release would help r grow to
 * `tokens`: any, when every request holds every device (pipelines); for a Hetis instance
 * one holding heads on a device short of room.  -1 if none. */
static int32_t victim(serve *w, const struct inst *in, const struct req *r, int64_t tokens)
{
    int short_of[SERVE_MAX_DEV] = { 0 };
    if (in->hetis) {
        int32_t extra = blocks_for(w, tokens) - r->blocks;
        for (int d = 0; d < in->ndev; d++)
            short_of[d] = r->heads[d] > 0 &&
                          in->dev[d].used + extra * block_bytes(w, in, r, d) > in->dev[d].cap;
    }
    for (int32_t s = in->run_tail; s >= 0; s = w->r[s].prev) {
        const struct req *v = &w->r[s];
        if (v->batch >= 0)
            continue;
        if (!in->hetis || v == r)
            return s;
        for (int d = 0; d < in->ndev; d++)
            if (short_of[d] && v->heads[d] > 0)
                return s;
    }
    return -1;
}

/* ---------------------------------------------------------------- batches */

/* The batches in flight that may still book a link from their launch on: a prefill-only
 * instance's, whose requests' KV streams to their decode instance while it computes
 * (send_kv: ready up to the batch's compute before its end).  Every other reservation is
 * made at a launch, for then or later, or is ready now, so the links forget up to now or
 * this list's oldest launch (reserve).  A list in launch order: launches happen at the
 * engine's time, so appending keeps it sorted by `launched` (O(1) each way). */
static int books_late(const struct inst *in)
{
    return in->spec->role == SERVE_PREFILL;
}

static struct batch *fly_batch(serve *w, int32_t id)
{
    return &w->in[id / SERVE_MAX_STAGES].b[id % SERVE_MAX_STAGES];
}

static void fly_append(serve *w, int i, int slot)
{
    int32_t id = i * SERVE_MAX_STAGES + slot;
    struct batch *b = fly_batch(w, id);
    assert(w->fly_tail < 0 || fly_batch(w, w->fly_tail)->launched <= b->launched);
    b->fly_prev = w->fly_tail;
    b->fly_next = -1;
    if (w->fly_tail >= 0)
        fly_batch(w, w->fly_tail)->fly_next = id;
    else
        w->fly_head = id;
    w->fly_tail = id;
}

static void fly_remove(serve *w, int i, int slot)
{
    struct batch *b = &w->in[i].b[slot];
    if (b->fly_prev >= 0)
        fly_batch(w, b->fly_prev)->fly_next = b->fly_next;
    else
        w->fly_head = b->fly_next;
    if (b->fly_next >= 0)
        fly_batch(w, b->fly_next)->fly_prev = b->fly_prev;
    else
        w->fly_tail = b->fly_prev;
}

static int batch_add(struct batch *b, int32_t s, struct errbuf *err)
{
    if (b->n == b->cap) {
        int failed = 0;
        int32_t cap = b->cap ? 2 * b->cap : 64;
        b->r = grow_array(b->r, (size_t)cap, sizeof *b->r, &failed);
        if (failed)
            return err_run(err, "out of memory");
        b->cap = cap;
    }
    b->r[b->n++] = s;
    return 0;
}

static int grow_dispatch(serve *w, int n, struct errbuf *err)
{
    if (n <= w->dcap)
        return 0;
    int failed = 0;
    int cap = n > 2 * w->dcap ? n : 2 * w->dcap;
    w->dreq = grow_array(w->dreq, (size_t)cap, sizeof *w->dreq, &failed);
    w->dslot = grow_array(w->dslot, (size_t)cap, sizeof *w->dslot, &failed);
    if (failed)
        return err_run(err, "out of memory");
    w->dcap = cap;
    return 0;
}

static void fill_adev(struct inst *in)
{
    for (int d = 0; d < in->ndev; d++) {
        in->adev[d].used_bytes = in->dev[d].used;
        in->adev[d].ctx_heads = in->dev[d].ctx_heads;
        in->adev[d].req_heads = in->dev[d].req_heads;
    }
}

/* Check a dispatch's heads: every request's sum to the model's KV heads (or, when placing
 * admissions, to 0: it waits). */
static int check_heads(serve *w, int i, const struct serve_dispatch_req *q, int n, int may_wait,
                       struct errbuf *err)
{
    struct inst *in = &w->in[i];
    for (int k = 0; k < n; k++) {
        int sum = 0;
        for (int d = 0; d < in->ndev; d++) {
            if (q[k].heads[d] < 0 || q[k].heads[d] > w->arch->kv_heads)
                return err_run(err, "dispatch put %d heads of request %lld on device %d",
                               q[k].heads[d], (long long)q[k].id, d);
            sum += q[k].heads[d];
        }
        if (sum != w->arch->kv_heads && !(may_wait && sum == 0))
            return err_run(err, "dispatch placed %d of the %d KV heads of request %lld", sum,
                           w->arch->kv_heads, (long long)q[k].id);
    }
    return 0;
}

/* Hetis: place the KV heads of the waiting requests cand[0..n) that this batch admits.  On
 * return heads are set; a request whose heads do not fit stays unplaced (heads all zero). */
static int hetis_place(serve *w, int i, const int32_t *cand, int n, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    if (grow_dispatch(w, n, err) < 0)
        return -1;
    fill_adev(in);
    for (int k = 0; k < n; k++) {
        const struct req *r = &w->r[cand[k]];
        memset(&w->dreq[k], 0, sizeof w->dreq[k]);
        w->dreq[k].id = r->id;
        w->dreq[k].context = r->target + 1;
    }
    struct serve_dispatch d = { engine_now(w->eng), &w->env, i, in->ndev, in->adev, n,
                                w->dreq, SERVE_PLACE, 0 };
    w->tot.decisions++;
    if (w->dec->dispatch(w->dec->ctx, &d, err) < 0 ||
        check_heads(w, i, w->dreq, n, 1, err) < 0)
        return -1;
    for (int k = 0; k < n; k++)
        for (int dd = 0; dd < in->ndev; dd++)
            w->r[cand[k]].heads[dd] = (uint8_t)w->dreq[k].heads[dd];
    return 0;
}

/* ---------------------------------------------------------------- links */

enum { MAX_PORTS = XFER_MAX_PORTS };

/* The ports of a Hetis instance's traffic with its workers (xfer_hetis_ports). */
static int hetis_ports(const serve *w, const struct inst *in, const double *out,
                       const double *inb, struct linkbook_port *p)
{
    const struct serve_stage *pr = &in->spec->stages[0];
    return xfer_hetis_ports(w->cl, w->llm, pr->gpus, pr->ngpu, in->adev, in->ndev, out, inb,
                            p);
}

/* Hold ports p[0..n) from `ready` on; *end: when the last of them is free again.  `floor`:
 * no reservation still to come is ready earlier (intervals ended before it are forgotten,
 * as are those before now and before a prefill-only batch in flight was launched: fly_*). */
static int reserve(serve *w, const struct linkbook_port *p, int n, simtime ready,
                   simtime floor, simtime *end, struct errbuf *err)
{
    simtime h = engine_now(w->eng), start;
    if (floor < h)
        h = floor;
    if (ready < h)
        h = ready;
    if (w->fly_head >= 0 && fly_batch(w, w->fly_head)->launched < h)
        h = fly_batch(w, w->fly_head)->launched;
    linkbook_forget(w->lb, h);
    if (linkbook_reserve(w->lb, p, n, ready, &start) < 0)
        return err_run(err, "out of memory");
    simtime longest = 0;
    for (int i = 0; i < n; i++)
        if (p[i].dur > longest)
            longest = p[i].dur;
    *end = start + longest;
    return 0;
}

/* A pipeline boundary's activations, ready at `ready` over route r's ports p[0..n): *end,
 * when the last port is free again.  The ports no other transfer ever crosses (r's `alone`
 * hops, mark_alone) are left out of the link book: this boundary's batches pass them in
 * launch order, each ready only once the one before has left the stage (stage_free), so
 * they are free at `ready` and the book would put the start where the shared ports alone
 * put it.  The same times, without booking them. */
static int book_route(serve *w, const struct xfer_route *r, struct linkbook_port *p, int n,
                      simtime ready, simtime *end, struct errbuf *err)
{
    if (w->no_shortcuts)    /* every port, as the book would have it (for tests) */
        return reserve(w, p, n, ready, ready, end, err);
    simtime all = 0, shared = 0;
    int m = 0;
    for (int k = 0; k < n; k++) {
        if (p[k].dur > all)
            all = p[k].dur;
        if (r->p[k].alone)
            continue;
        if (p[k].dur > shared)
            shared = p[k].dur;
        p[m++] = p[k];
    }
    simtime start = ready;
    if (m > 0) {
        if (reserve(w, p, m, ready, ready, end, err) < 0)
            return -1;
        start = *end - shared;
    }
    *end = start + all;
    return 0;
}

/* Hetis: KV of instance i moving between its devices now (out[d] leaving device d, in[d]
 * reaching it, each over its link to the primaries): the seconds until it has all moved. */
static int hetis_move(serve *w, int i, const double *out, const double *inb, double *delay,
                      struct errbuf *err)
{
    struct linkbook_port p[MAX_PORTS];
    int n = hetis_ports(w, &w->in[i], out, inb, p);
    simtime now = engine_now(w->eng), end;
    if (reserve(w, p, n, now, now, &end, err) < 0)
        return -1;
    *delay = sim_to_sec(end - now);
    return 0;
}

/* Hetis: offer every running request for rebalancing; moved KV costs its transfer, which
 * the returned seconds charge to the next iteration. */
static int hetis_rebalance(serve *w, int i, double *delay, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    *delay = 0;
    int n = 0;
    for (int32_t s = in->run_head; s >= 0; s = w->r[s].next)
        if (decoding(&w->r[s]))
            n++;
    if (n == 0 || grow_dispatch(w, n, err) < 0)
        return n == 0 ? 0 : -1;
    /* the devices as they would be without these requests */
    n = 0;
    for (int32_t s = in->run_head; s >= 0; s = w->r[s].next) {
        struct req *r = &w->r[s];
        if (!decoding(r))
            continue;
        w->dslot[n] = s;
        struct serve_dispatch_req *q = &w->dreq[n++];
        q->id = r->id;
        q->context = r->filled + 1;
        for (int d = 0; d < SERVE_MAX_DEV; d++)
            q->heads[d] = d < in->ndev ? r->heads[d] : 0;
    }
    fill_adev(in);
    for (int k = 0; k < n; k++) {
        const struct req *r = &w->r[w->dslot[k]];
        for (int d = 0; d < in->ndev; d++) {
            in->adev[d].used_bytes -= r->blocks * block_bytes(w, in, r, d);
            in->adev[d].ctx_heads -= (double)r->filled * r->heads[d];
            in->adev[d].req_heads -= r->heads[d];
        }
    }
    struct serve_dispatch d = { engine_now(w->eng), &w->env, i, in->ndev, in->adev, n,
                                w->dreq, SERVE_REBALANCE, 0 };
    w->tot.decisions++;
    if (w->dec->dispatch(w->dec->ctx, &d, err) < 0 ||
        check_heads(w, i, w->dreq, n, 0, err) < 0)
        return -1;
    /* the new placement must fit: recount every device from scratch */
    double used[SERVE_MAX_DEV], moved_in[SERVE_MAX_DEV] = { 0 }, moved_out[SERVE_MAX_DEV] = { 0 };
    for (int dd = 0; dd < in->ndev; dd++)
        used[dd] = in->adev[dd].used_bytes;
    for (int k = 0; k < n; k++) {
        const struct req *r = &w->r[w->dslot[k]];
        for (int dd = 0; dd < in->ndev; dd++) {
            double bytes = (double)r->blocks * w->cfg.set.block_tokens * in->head_bytes;
            used[dd] += bytes * w->dreq[k].heads[dd];
            int delta = w->dreq[k].heads[dd] - r->heads[dd];
            if (delta > 0)
                moved_in[dd] += delta * (double)r->filled * in->head_bytes;
            else
                moved_out[dd] -= delta * (double)r->filled * in->head_bytes;
        }
    }
    for (int dd = 0; dd < in->ndev; dd++)
        if (used[dd] > in->dev[dd].cap * (1 + 1e-12))
            return err_run(err, "rebalancing puts %.3g bytes of KV on device %d, which holds "
                           "%.3g", used[dd], dd, in->dev[dd].cap);
    /* apply: every request's blocks at its new heads */
    kv_account(w);
    for (int k = 0; k < n; k++) {
        struct req *r = &w->r[w->dslot[k]];
        int32_t blocks = r->blocks;
        kv_release(w, in, r);
        for (int dd = 0; dd < in->ndev; dd++)
            r->heads[dd] = (uint8_t)w->dreq[k].heads[dd];
        kv_set_blocks(w, in, r, blocks);
        hetis_load(in, r, 1);
    }
    /* each device sends and receives its moved KV over its link to the primaries */
    double moved = 0;
    for (int dd = 0; dd < in->ndev; dd++)
        moved += moved_in[dd];
    if (moved > 0 && hetis_move(w, i, moved_out, moved_in, delay, err) < 0)
        return -1;
    w->tot.kv_moved_bytes += moved;
    w->tot.rebalances += moved > 0;
    return 0;
}

/* Hetis: r (running, decoding) cannot grow where its heads are; its policy may place it
 * anew, the moved KV costing its transfer (returned as seconds to wait). */
static int hetis_replace(serve *w, int i, int32_t s, double *delay, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    struct req *r = &w->r[s];
    *delay = 0;
    if (grow_dispatch(w, 1, err) < 0)
        return -1;
    fill_adev(in);
    for (int d = 0; d < in->ndev; d++) {     /* the devices without r */
        in->adev[d].used_bytes -= r->blocks * block_bytes(w, in, r, d);
        in->adev[d].ctx_heads -= (double)r->filled * r->heads[d];
        in->adev[d].req_heads -= r->heads[d];
    }
    struct serve_dispatch_req *q = &w->dreq[0];
    memset(q, 0, sizeof *q);
    q->id = r->id;
    q->context = r->filled + 1;
    for (int d = 0; d < in->ndev; d++)
        q->heads[d] = r->heads[d];
    struct serve_dispatch dd = { engine_now(w->eng), &w->env, i, in->ndev, in->adev, 1, q,
                                 SERVE_REPLACE, 0 };
    w->tot.decisions++;
    if (w->dec->dispatch(w->dec->ctx, &dd, err) < 0 || check_heads(w, i, q, 1, 1, err) < 0)
        return -1;
    int sum = 0;
    for (int d = 0; d < in->ndev; d++)
        sum += q->heads[d];
    if (sum == 0)
        return 0;       /* nowhere to go: the world preempts */
    struct req moved = *r;
    for (int d = 0; d < in->ndev; d++)
        moved.heads[d] = (uint8_t)q->heads[d];
    moved.blocks = 0;
    /* the new placement must hold r's KV and one more token where r is not already */
    for (int d = 0; d < in->ndev; d++) {
        double now_b = r->blocks * block_bytes(w, in, r, d);
        double new_b = blocks_for(w, r->filled + 1) * block_bytes(w, in, &moved, d);
        if (in->dev[d].used - now_b + new_b > in->dev[d].cap * (1 + 1e-12))
            return 0;
    }
    int32_t blocks = r->blocks;
    double bytes = 0, out[SERVE_MAX_DEV] = { 0 }, inb[SERVE_MAX_DEV] = { 0 };
    for (int d = 0; d < in->ndev; d++) {
        double b = (q->heads[d] - r->heads[d]) * (double)r->filled * in->head_bytes;
        if (b > 0) {
            inb[d] = b;
            bytes += b;
        } else {
            out[d] = -b;
        }
    }
    if (bytes > 0 && hetis_move(w, i, out, inb, delay, err) < 0)
        return -1;
    kv_release(w, in, r);
    for (int d = 0; d < in->ndev; d++)
        r->heads[d] = (uint8_t)q->heads[d];
    kv_set_blocks(w, in, r, blocks);
    hetis_load(in, r, 1);
    w->tot.kv_moved_bytes += bytes;
    return 0;
}

/* The part of one layer of stage s that depends only on the batch's tokens, kept by count:
 * most of an iteration's arithmetic, the same for every batch of that many tokens.  *own
 * holds it when the count is beyond the table. */
static const struct llm_layer_part *layer_part(serve *w, struct inst *in, int s, double tokens,
                                               struct llm_layer_part *own)
{
    int64_t T = (int64_t)tokens;
    if ((double)T != tokens || T < 0 || T >= in->tok_cap || in->tok[s] == NULL) {
        *own = llm_layer_part(w->llm, w->arch, &in->lstage[s], tokens);
        return own;
    }
    if (in->tok[s][T].dense_s < 0)
        in->tok[s][T] = llm_layer_part(w->llm, w->arch, &in->lstage[s], tokens);
    return &in->tok[s][T];
}

/* One layer's decode attention of lb on stage shape ls: llm_stage_attn_decode_s's, from the
 * memo when it holds it. */
static double decode_attn(serve *w, const struct llm_stage *ls, const struct llm_batch *lb)
{
    if (w->no_shortcuts)
        return llm_stage_attn_decode_s(w->llm, w->arch, ls, lb);
    uint64_t h = ((uint64_t)lb->decode_ctx * UINT64_C(0x9E3779B97F4A7C15)) ^
                 ((uint64_t)lb->decode_reqs * UINT64_C(0xC2B2AE3D27D4EB4F)) ^
                 ((uint64_t)(ls->gpu * 64 + ls->tp) * UINT64_C(0x165667B19E3779F9));
    struct attn_memo *m = &w->attn[(h ^ h >> 29) & (ATTN_MEMO - 1)];
    if (m->ctx == lb->decode_ctx && m->reqs == lb->decode_reqs && m->gpu == ls->gpu &&
        m->tp == ls->tp)
        return m->s;
    *m = (struct attn_memo){ lb->decode_ctx, lb->decode_reqs, ls->gpu, ls->tp,
                             llm_stage_attn_decode_s(w->llm, w->arch, ls, lb) };
    return m->s;
}

/* A pipeline's last stage's norm and head for lb's logits (llm_stage_head_s), kept by count
 * (-1 for the latency model to compute: a count beyond max_seqs, or no shortcuts). */
static double stage_head(serve *w, struct inst *in, const struct llm_batch *lb)
{
    int64_t n = (int64_t)lb->logits;
    if (w->no_shortcuts || (double)n != lb->logits || n < 1 || n > w->cfg.set.max_seqs)
        return -1;
    if (in->head[n] < 0)
        in->head[n] = llm_stage_head_s(w->llm, w->arch, &in->lstage[in->S - 1], lb->logits);
    return in->head[n];
}

/* The modelled duration of batch b of instance i, with its per-stage (or per-device) parts. */
static void batch_time(serve *w, int i, struct batch *b)
{
    struct inst *in = &w->in[i];
    const struct serve_instance *sp = in->spec;
    struct llm_batch lb = { 0 };
    /* Hetis: per device, decoding head-tokens and heads, and prefilled KV to ship (zeroed
       for its devices only: a batch is timed at every iteration) */
    double ctx[SERVE_MAX_DEV], req[SERVE_MAX_DEV], ship[SERVE_MAX_DEV];
    if (in->hetis)
        for (int d = 0; d < in->ndev; d++)
            ctx[d] = req[d] = ship[d] = 0;
    for (int k = 0; k < b->n; k++) {
        const struct req *r = &w->r[b->r[k]];
        if (r->chunk > 0) {
            llm_batch_prefill(&lb, r->chunk, r->filled, r->filled + r->chunk >= r->target);
            if (in->hetis)
                for (int d = 1; d < in->ndev; d++)
                    ship[d] += (double)r->chunk * r->heads[d] * in->head_bytes;
        } else {
            llm_batch_decode(&lb, r->filled + 1);
            if (in->hetis)
                for (int d = 0; d < in->ndev; d++) {
                    ctx[d] += (double)(r->filled + 1) * r->heads[d];
                    req[d] += r->heads[d];
                }
        }
    }
    const llm_catalog *c = w->llm;
    double iter = llm_iter_s(c, &lb);
    /* the last stage sends nothing (every other's is set below) */
    b->send_bytes[in->S - 1] = b->send_s[in->S - 1] = 0;
    struct llm_layer_part own;
    if (!in->hetis) {
        /* a layer's time depends on its stage's GPU type, TP degree and link alone: it is
           timed once per batch for all stages alike (a deep pipeline has a few shapes over
           dozens of stages), O(stages x shapes) */
        struct serve_shape shape[SERVE_MAX_STAGES];
        int nshape = 0, nsend = 0, send_link[SERVE_MAX_STAGES];
        double send_s[SERVE_MAX_STAGES];
        for (int s = 0; s < in->S; s++) {
            const struct llm_stage *ls = &in->lstage[s];
            int k = serve_shape_of(shape, &nshape, ls);
            if (shape[k].layer_s < 0)
                shape[k].layer_s = llm_layer_with_s(c, w->arch, ls, &lb,
                                                    layer_part(w, in, s, lb.tokens, &own),
                                                    decode_attn(w, ls, &lb));
            b->stage_s[s] = llm_stage_of_layer_head_s(c, w->arch, ls, &lb, shape[k].layer_s,
                                                      ls->last ? stage_head(w, in, &lb) : -1);
            if (s + 1 < in->S) {    /* the activations to the next stage */
                b->send_bytes[s] = 2 * lb.tokens * w->arch->hidden;
                int q = 0;      /* the same bytes every boundary: once per link */
                while (q < nsend && send_link[q] != in->send_link[s])
                    q++;
                if (q == nsend) {
                    send_link[nsend] = in->send_link[s];
                    send_s[nsend++] = llm_send_s(c, in->send_link[s], b->send_bytes[s]);
                }
                b->send_s[s] = send_s[q];
            }
        }
        b->iter_s = iter;
        return;
    }
    b->dev_s[0] = 0;        /* the primaries' compute is stage 0's */
    double attn = serve_view_attn_split_s(&w->env, in->ndev, in->adev, ctx, req);
    b->stage_s[0] = serve_view_hetis_s(&w->env, sp, &lb, layer_part(w, in, 0, lb.tokens, &own),
                                       attn);
    /* the iteration's traffic with each worker: every layer the queries and new K/V of
       its request-heads out and their outputs back (serve_view_attn_split_s's bytes), and
       the prefilled KV of its heads, streamed layer by layer while the primaries compute */
    double group = (double)w->arch->heads / w->arch->kv_heads, hd = w->arch->head_dim;
    double to = 2 * (group * hd + 2 * hd), from = 2 * group * hd, L = w->arch->layers;
    for (int d = 1; d < in->ndev; d++) {
        b->dev_in[d] = L * to * req[d] + ship[d];
        b->dev_out[d] = L * from * req[d];
        b->dev_s[d] = w->arch->layers *
                      llm_attn_decode_heads_s(c, cluster_gpu_type(w->cl, in->adev[d].gpu),
                                              w->arch, ctx[d], req[d]);
    }
    b->iter_s = iter;
}

/* Admit r (waiting) into the running list. */
static int admit(serve *w, struct inst *in, int32_t s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    int cause = r->kv_ready ? TL_MIGRATE : r->preempts > 0 ? TL_RESUME : TL_START;
    list_remove(w, &in->wait_head, &in->wait_tail, s);
    in->nwait--;
    r->state = R_RUNNING;
    list_push_back(w, &in->run_head, &in->run_tail, s);
    in->nrun++;
    if (r->start < 0)
        r->start = engine_now(w->eng);
    return tl_next(w, r, cause, TL_RUNNING, (int)(in - w->in), cause, err);
}

/* Room for running request s to hold `tokens`: a Hetis request may first be placed anew;
 * then the latest admitted requests give way (preempted) until it fits or none is left to.
 * When s itself is the one to give way it is preempted, or dropped when it is alone (it
 * cannot fit the whole cache); *gone says so.  *next (the caller's cursor) moves past a
 * preempted neighbour. */
static int make_room(serve *w, int i, int32_t s, int64_t tokens, int32_t *next, int *gone,
                     double *delay, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    struct req *r = &w->r[s];
    *gone = 0;
    if (in->hetis && !kv_fits(w, in, r, tokens)) {
        double d = 0;
        if (hetis_replace(w, i, s, &d, err) < 0)
            return -1;
        if (d > *delay)     /* reservations from now: the latest ends last */
            *delay = d;
    }
    while (!kv_fits(w, in, r, tokens)) {
        int32_t v = victim(w, in, r, tokens);
        if (v < 0)
            break;          /* only batches in flight could give way: wait for them */
        if (v == s) {
            *gone = 1;
            if (in->nrun == 1) {
                /* alone, and still longer than the whole cache */
                kv_release(w, in, r);
                list_remove(w, &in->run_head, &in->run_tail, s);
                in->nrun--;
                if (drop(w, s, err) < 0)
                    return -1;
            } else {
                /* the latest admitted gives way: r itself */
                if (preempt(w, s, err) < 0)
                    return -1;
            }
            return 0;
        }
        if (v == *next)
            *next = w->r[v].next;
        if (preempt(w, v, err) < 0)
            return -1;
    }
    return 0;
}

/* Form and start one batch on instance i if it can take one.  Returns 1 if launched. */
static int moves_off(const serve *w, int i);

static int try_launch(serve *w, int i, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    simtime now = engine_now(w->eng);
    if (in->inflight >= in->S || moves_off(w, i))
        return 0;
    if (in->stage_free[0] > now) {
        /* a slot is free but the first stage is not (a batch just launched, or one ended
           while a later one holds it): look again when it is */
        if (!in->launch_pending) {
            in->launch_pending = 1;
            if (engine_at(w->eng, in->stage_free[0], EV_LAUNCH | w->tag, (uint64_t)i, NULL) < 0)
                return err_run(err, "out of memory");
        }
        return 0;
    }
    int slot = 0;
    while (in->b[slot].busy)
        slot++;
    struct batch *b = &in->b[slot];
    b->n = 0;
    double delay = 0;
    if (in->hetis && w->dec->redispatch_s > 0 &&
        sim_to_sec(now - in->last_rebalance) >= w->dec->redispatch_s) {
        in->last_rebalance = now;
        if (hetis_rebalance(w, i, &delay, err) < 0)
            return -1;
    }
    b->launched = now;
    const struct serve_settings *set = &w->cfg.set;
    int64_t budget = set->max_batch_tokens, seqs = 0;
    /* 1. one token for every decoding request not in flight, the oldest first */
    for (int32_t s = in->run_head; s >= 0 && budget > 0 && seqs < set->max_seqs;) {
        struct req *r = &w->r[s];
        int32_t next = r->next;
        if (r->batch >= 0 || !decoding(r)) {
            s = next;
            continue;
        }
        int gone = 0;
        if (make_room(w, i, s, r->filled + 1, &next, &gone, &delay, err) < 0)
            return -1;
        if (gone || !kv_fits(w, in, r, r->filled + 1)) {
            s = next;
            continue;
        }
        kv_set_blocks(w, in, r, blocks_for(w, r->filled + 1));
        r->chunk = 0;
        r->batch = slot;
        if (batch_add(b, s, err) < 0)
            return -1;
        budget--;
        seqs++;
        s = next;
    }
    /* 2. prompts: those being prefilled in chunks, then the waiting ones in arrival order */
    for (int32_t s = in->run_head; s >= 0 && budget > 0 && seqs < set->max_seqs;) {
        struct req *r = &w->r[s];
        int32_t next = r->next;
        if (r->batch >= 0 || decoding(r)) {
            s = next;
            continue;
        }
        int64_t chunk = r->target - r->filled;
        if (chunk > budget)
            chunk = budget;     /* only chunked prompts are left half done */
        int gone = 0;
        if (make_room(w, i, s, r->filled + chunk, &next, &gone, &delay, err) < 0)
            return -1;
        if (gone) {
            s = next;
            continue;
        }
        if (!kv_fits(w, in, r, r->filled + chunk))
            break;
        kv_set_blocks(w, in, r, blocks_for(w, r->filled + chunk));
        r->chunk = (int32_t)chunk;
        r->batch = slot;
        if (batch_add(b, s, err) < 0)
            return -1;
        budget -= chunk;
        seqs++;
        s = next;
    }
    /* the waiting requests this batch can take, for a Hetis placement in one dispatch */
    int ncand = 0;
    if (in->hetis) {
        int64_t bud = budget, sq = seqs;
        for (int32_t s = in->wait_head; s >= 0 && bud > 0 && sq < set->max_seqs;
             s = w->r[s].next) {
            struct req *r = &w->r[s];
            int64_t need = r->target - r->filled;
            if (need > bud && !set->chunked_prefill)
                break;
            if (grow_dispatch(w, ncand + 1, err) < 0)
                return -1;
            w->dslot[ncand++] = s;
            bud -= need < bud ? need : bud;
            sq++;
        }
        if (ncand > 0) {
            int32_t *cand = malloc((size_t)ncand * sizeof *cand);
            if (cand == NULL)
                return err_run(err, "out of memory");
            memcpy(cand, w->dslot, (size_t)ncand * sizeof *cand);
            int rc = hetis_place(w, i, cand, ncand, err);
            free(cand);
            if (rc < 0)
                return -1;
        }
    }
    for (int32_t s = in->wait_head; s >= 0 && budget > 0 && seqs < set->max_seqs;) {
        struct req *r = &w->r[s];
        int32_t next = r->next;
        if (r->kv_ready) {
            /* a prefilled request come with its KV: it needs room for it and a token */
            if (!kv_fits(w, in, r, r->filled + 1))
                break;
            if (admit(w, in, s, err) < 0)
                return -1;
            r->kv_ready = 0;
            kv_set_blocks(w, in, r, blocks_for(w, r->filled + 1));
            r->chunk = 0;
            r->batch = slot;
            if (batch_add(b, s, err) < 0)
                return -1;
            budget--;
            seqs++;
            s = next;
            continue;
        }
        int64_t chunk = r->target - r->filled;
        if (chunk > budget) {
            if (!set->chunked_prefill)
                break;          /* a whole prompt waits for a batch it fits */
            chunk = budget;
        }
        if (in->hetis) {
            int placed = 0;
            for (int d = 0; d < in->ndev; d++)
                placed += r->heads[d];
            if (placed == 0)
                break;
        }
        if (!kv_fits(w, in, r, r->filled + chunk)) {
            if (in->hetis)
                memset(r->heads, 0, sizeof r->heads);
            break;
        }
        if (admit(w, in, s, err) < 0)
            return -1;
        kv_set_blocks(w, in, r, blocks_for(w, r->filled + chunk));
        r->chunk = (int32_t)chunk;
        r->batch = slot;
        if (batch_add(b, s, err) < 0)
            return -1;
        budget -= chunk;
        seqs++;
        s = next;
    }
    /* placements made for requests this batch did not take are forgotten */
    if (in->hetis)
        for (int k = 0; k < ncand; k++)
            if (w->r[w->dslot[k]].state == R_WAITING)
                memset(w->r[w->dslot[k]].heads, 0, sizeof w->r[w->dslot[k]].heads);
    if (b->n == 0)
        return 0;
    for (int k = 0; k < b->n; k++) {
        const struct req *r = &w->r[b->r[k]];
        in->pending_prefill -= r->chunk;
    }
    batch_time(w, i, b);
    /* walk the stages: each starts when the batch reaches it and the stage is free, sends
       its activations on when it is done and their ports are free */
    simtime t = now + sim_from_sec_ceil(b->iter_s + delay);
    struct linkbook_port p[MAX_PORTS];
    struct xfer_memo memo;
    memo.n = 0;
    for (int s = 0; s < in->S; s++) {
        if (in->stage_free[s] > t)
            t = in->stage_free[s];
        simtime done = t + sim_from_sec_ceil(b->stage_s[s]);
        if (in->hetis) {
            /* its traffic with the workers holds their links: it ends no sooner */
            simtime end;
            int n = hetis_ports(w, in, b->dev_out, b->dev_in, p);
            if (reserve(w, p, n, t, t, &end, err) < 0)
                return -1;
            if (end > done)
                done = end;
        } else if (s + 1 < in->S) {
            int n = xfer_route_ports(w->llm, &in->route[s], b->send_bytes[s], &memo, p);
            if (book_route(w, &in->route[s], p, n, done, &done, err) < 0)
                return -1;
        }
        t = done;
        in->stage_free[s] = t;
    }
    b->busy = 1;
    if (books_late(in))
        fly_append(w, i, slot);
    in->inflight++;
    w->tot.iterations++;
    if (engine_at(w->eng, t, EV_BATCH | w->tag, (uint64_t)i << 8 | (uint64_t)slot, NULL) < 0)
        return err_run(err, "out of memory");
    return 1;       /* instant_end tries again: a pipeline's next launch is booked there */
}

/* Credit the GPU time of a finished batch to its types. */
static void credit_busy(serve *w, const struct inst *in, const struct batch *b)
{
    const struct serve_instance *sp = in->spec;
    for (int s = 0; s < in->S; s++) {
        int slot = cluster_type_slot(w->cl, cluster_gpu_type(w->cl, sp->stages[s].gpus[0]));
        double x = (b->stage_s[s] + b->send_s[s] + (s == 0 ? b->iter_s : 0)) *
                   sp->stages[s].ngpu;
        w->busy_period[slot] += x;
        w->tot.busy_gpu_s[slot] += x;
    }
    for (int d = 1; d < in->ndev && in->hetis; d++) {
        int slot = cluster_type_slot(w->cl, cluster_gpu_type(w->cl, sp->attn[d - 1]));
        w->busy_period[slot] += b->dev_s[d];
        w->tot.busy_gpu_s[slot] += b->dev_s[d];
    }
}

static int start_transfer(serve *w, int32_t s, double compute_s, struct errbuf *err);
static int evacuate(serve *w, int i, struct errbuf *err);

static int batch_done(serve *w, int i, int slot, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    struct batch *b = &in->b[slot];
    simtime now = engine_now(w->eng);
    double t = sim_to_sec(now);
    credit_busy(w, in, b);
    b->busy = 0;
    if (books_late(in))
        fly_remove(w, i, slot);
    in->inflight--;
    for (int k = 0; k < b->n; k++) {
        int32_t s = b->r[k];
        struct req *r = &w->r[s];
        r->batch = -1;
        int produced = 0;
        if (r->chunk > 0) {
            r->filled += r->chunk;
            r->chunk = 0;
            if (r->filled >= r->target) {   /* the prompt is in: a token comes out */
                produced = 1;
                hetis_load(in, r, 1);
            }
        } else {
            hetis_load(in, r, -1);
            r->filled++;
            produced = 1;
            hetis_load(in, r, 1);
        }
        if (!produced)
            continue;
        r->generated++;
        if (r->first < 0) {
            r->first = now;
            w->firsts++;
            w->firsts_late += w->cfg.slo_ttft > 0 &&
                              t - sim_to_sec(r->arrival) > w->cfg.slo_ttft;
        }
        w->tot.tokens_out++;
        window_count(w, 1, 0);
        if (r->generated >= r->output) {
            if (finish(w, s, err) < 0)
                return -1;
        } else if (in->spec->role == SERVE_PREFILL) {
            double compute = 0;
            for (int st = 0; st < in->S; st++)
                compute += b->stage_s[st];
            if (start_transfer(w, s, compute, err) < 0)
                return -1;
        }
    }
    mark_dirty(w, i);
    return evacuate(w, i, err);         /* a draining instance's requests move on */
}

static int send_kv(serve *w, int32_t s, int from, int32_t to, double compute_s,
                   struct errbuf *err);

/* A prefilled request of a prefill-only instance: its KV (prompt tokens, every layer and
 * head) moves to the decode instance its policy routes it to, each GPU's shard over the
 * intra-node link in parallel when both sit on one node, else all of it over the network.
 * The transfer streams layer by layer while the prefill computes (`compute_s`, its batch's
 * time), so what remains is the larger of one layer's share and what the prefill did not
 * cover. */
static int start_transfer(serve *w, int32_t s, double compute_s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    struct inst *src = &w->in[r->inst];
    int32_t to;
    if (route(w, s, SERVE_DECODE, r->inst, &to, err) < 0)
        return -1;
    int from = r->inst;
    kv_release(w, src, r);
    list_remove(w, &src->run_head, &src->run_tail, s);
    src->nrun--;
    mark_dirty(w, from);
    return send_kv(w, s, from, to, compute_s, err);
}

/* Request s's KV (its filled tokens) from instance `from`'s last stage to instance to's
 * first, streamed during the last compute_s seconds of its computing there (0: it starts
 * now); s is on neither instance's lists meanwhile.  Its link ports are booked; it arrives
 * (EV_XFER) when the last of them is done. */
static int send_kv(serve *w, int32_t s, int from, int32_t to, double compute_s,
                   struct errbuf *err)
{
    struct req *r = &w->r[s];
    struct inst *src = &w->in[from];
    const struct serve_stage *a = &src->spec->stages[src->S - 1];
    const struct serve_stage *b = &w->in[to].spec->stages[0];
    double bytes = (double)r->filled * llm_kv_bytes(w->arch, w->arch->layers, 1);
    struct linkbook_port p[MAX_PORTS];
    int n = xfer_group_ports(w->cl, w->llm, a->gpus, a->ngpu, b->gpus, b->ngpu, bytes, p);
    simtime xfer = 0, now = engine_now(w->eng), end;
    for (int k = 0; k < n; k++)
        if (p[k].dur > xfer)
            xfer = p[k].dur;
    /* layer l's KV exists l/L of the way into the prefill: the transfer may start one
       layer in, and cannot end sooner than the last layer's share after the prefill */
    double L = w->arch->layers, lead = compute_s < sim_to_sec(xfer) ? compute_s
                                                                     : sim_to_sec(xfer);
    simtime ready = now - (simtime)floor(lead * (L - 1) / L * 1e6);
    if (reserve(w, p, n, ready, now - sim_from_sec_ceil(compute_s), &end, err) < 0)
        return -1;
    w->tot.kv_moved_bytes += bytes;
    r->inst = to;
    r->state = R_XFER;
    if (tl_next(w, r, TL_MIGRATE, TL_RESTORING, to, TL_MIGRATE, err) < 0)
        return -1;
    if (engine_at(w->eng, end, EV_XFER | w->tag, (uint64_t)s, NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

/* The KV of request s reached its decode instance: it waits there for room. */
static int xfer_done(serve *w, int32_t s, struct errbuf *err)
{
    struct req *r = &w->r[s];
    int i = r->inst;
    r->kv_ready = 1;
    if (enqueue(w, s, i, err) < 0)
        return -1;
    /* not dropped: it waits on its decode instance (or moves on, if that one drains) */
    if (r->state == R_WAITING && tl_next(w, r, TL_RESTORED, TL_QUEUED, -1, TL_MIGRATE, err) < 0)
        return -1;
    return w->in[i].state == I_DRAINING ? evacuate(w, i, err) : 0;
}

/* ---------------------------------------------------------------- arrivals */

static int intern_class(serve *w, const char *name, int32_t *out, struct errbuf *err)
{
    if (name == NULL)
        name = "default";
    for (int i = 0; i < w->ncls; i++)
        if (strcmp(w->cls[i], name) == 0) {
            *out = i;
            return 0;
        }
    int failed = 0;
    w->cls = grow_array(w->cls, (size_t)w->ncls + 1, sizeof *w->cls, &failed);
    char *copy = failed ? NULL : strdup(name);
    if (copy == NULL)
        return err_run(err, "out of memory");
    w->cls[w->ncls] = copy;
    *out = w->ncls++;
    return 0;
}

/* Read the next request ahead and schedule its arrival; mark the source drained at its end. */
static int read_next(serve *w, struct errbuf *err)
{
    int rc = w->src->next(w->src->ctx, &w->pending, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        w->have_pending = 0;
        w->drained = 1;
        if (w->win.to == INFINITY) {    /* the default window ends at the last arrival */
            w->win.to = sim_to_sec(w->last_arrival);
            window_close(w);
        }
        return 0;
    }
    if (w->pending.arrival < w->last_arrival)
        return err_input(err, w->pending.origin, w->pending.line, "arrival",
                         "arrivals must not decrease");
    if (serve_request_check(w->arch, w->cfg.overlong, &w->pending, err) < 0)
        return -1;
    w->have_pending = 1;
    w->last_arrival = w->pending.arrival;
    if (engine_at(w->eng, w->pending.arrival + w->admit_delay, EV_ARRIVAL | w->tag, 0,
                  NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

static int arrival(serve *w, struct errbuf *err)
{
    const struct request_spec *q = &w->pending;
    int32_t s = new_slot(w, err);
    if (s < 0)
        return -1;
    struct req *r = &w->r[s];
    memset(r, 0, sizeof *r);
    r->id = q->id;
    r->index = w->tot.reqs_in++;
    r->arrival = q->arrival;
    r->start = r->first = -1;
    r->prompt = q->prompt;
    r->output = q->output;
    r->target = q->prompt;
    r->batch = -1;
    r->prev = r->next = -1;
    r->inst = -1;
    r->tl_from = r->arrival;
    r->tl_inst = -1;
    r->tl_state = TL_QUEUED;
    r->tl_cause = TL_ARRIVAL;
    if (intern_class(w, q->cls, &r->cls, err) < 0)
        return -1;
    w->in_system++;
    w->arrived_prompt += r->prompt;
    int32_t i;
    if (route(w, s, SERVE_PREFILL, -1, &i, err) < 0 || enqueue(w, s, i, err) < 0)
        return -1;
    return read_next(w, err);
}

/* ---------------------------------------------------------------- samples */

static int sample(serve *w, struct errbuf *err)
{
    simtime now = engine_now(w->eng);
    double period = sim_to_sec(now - w->last_sample);
    w->last_sample = now;
    if (period <= 0)
        return 0;
    const catalog *cat = cluster_catalog(w->cl);
    double busy = 0, gpus = 0;
    for (int k = 0; k < w->ntypes; k++) {
        char name[64];
        int n = cluster_type_count(w->cl, w->types[k]);
        snprintf(name, sizeof name, "util_%s", catalog_gpu(cat, w->types[k])->name);
        double u = w->busy_period[k] / (n * period);
        if (u > 1)
            u = 1;      /* a batch longer than the period is credited when it ends */
        if (w->sink->sample(w->sink->ctx, now, name, u, err) < 0)
            return -1;
        busy += w->busy_period[k];
        gpus += n;
        w->busy_period[k] = 0;
    }
    int64_t waiting = 0, running = 0;
    for (int i = 0; i < w->ninst; i++) {
        waiting += w->in[i].nwait;
        running += w->in[i].nrun;
    }
    double ut = busy / (gpus * period);
    if (w->sink->sample(w->sink->ctx, now, "util_total", ut > 1 ? 1 : ut, err) < 0 ||
        w->sink->sample(w->sink->ctx, now, "kv_util",
                        w->kv_cap_all > 0 ? w->kv_used_all / w->kv_cap_all : 0, err) < 0 ||
        w->sink->sample(w->sink->ctx, now, "queue_len", (double)waiting, err) < 0 ||
        w->sink->sample(w->sink->ctx, now, "running_reqs", (double)running, err) < 0)
        return -1;
    /* the series stops once nothing is left to happen */
    if ((w->in_system > 0 || w->have_pending) &&
        engine_at(w->eng, now + w->cfg.sample_period, EV_SAMPLE | w->tag, 0, NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

/* ---------------------------------------------------------------- the engine's hooks */

static int touches_denied(const serve *w, int i);

static int handle(void *world, const struct evq_event *ev, struct errbuf *err)
{
    serve *w = world;
    int rc = 0;
    w->nevents++;
    switch (ev->kind) {
    case EV_ARRIVAL:
        rc = arrival(w, err);
        break;
    case EV_BATCH:
        rc = batch_done(w, (int)(ev->arg >> 8), (int)(ev->arg & 0xff), err);
        break;
    case EV_LAUNCH:
        w->in[ev->arg].launch_pending = 0;
        mark_dirty(w, (int)ev->arg);
        break;
    case EV_XFER:
        rc = xfer_done(w, (int32_t)ev->arg, err);
        break;
    case EV_UP:
        w->in[ev->arg].state = I_UP;
        w->in[ev->arg].load->up = 1;
        /* taken again while its weights were loading: it drains (down at once) */
        if (w->denied != NULL && touches_denied(w, (int)ev->arg))
            rc = serve_drain(w, (int)ev->arg, err);
        break;
    case EV_SAMPLE:
        if (w->in_system == 0 && !w->have_pending) {
            w->last_sample = ev->time;
            break;
        }
        rc = sample(w, err);
        break;
    default:
        assert(0);
    }
    return rc < 0 ? ENGINE_FAIL : ENGINE_CONTINUE;
}

/* ---------------------------------------------------------------- tenancy */

/* Every GPU of instance i (stages, then attention workers), into ids; returns how many. */
static int inst_gpus(const serve *w, int i, int *ids)
{
    const struct serve_instance *sp = w->in[i].spec;
    int n = 0;
    for (int s = 0; s < sp->nstages; s++)
        for (int g = 0; g < sp->stages[s].ngpu; g++)
            ids[n++] = sp->stages[s].gpus[g];
    for (int g = 0; g < sp->nattn; g++)
        ids[n++] = sp->attn[g];
    return n;
}

enum { INST_MAX_GPUS = SERVE_MAX_STAGES * SERVE_MAX_TP + SERVE_MAX_ATTN };

static int touches_denied(const serve *w, int i)
{
    int ids[INST_MAX_GPUS], n = inst_gpus(w, i, ids);
    for (int k = 0; k < n; k++)
        if (w->denied[ids[k]])
            return 1;
    return 0;
}

/* Instance i is down: its GPUs the broker took are free. */
static int release_denied(serve *w, int i)
{
    int ids[INST_MAX_GPUS], n = inst_gpus(w, i, ids), m = 0;
    for (int k = 0; k < n; k++)
        if (w->denied != NULL && w->denied[ids[k]])
            ids[m++] = ids[k];
    if (m > 0)
        w->ten.released(w->ten.ctx, ids, m, engine_now(w->eng));
    return 0;
}

/* Send the requests waiting on draining instance i that hold no KV (never admitted, or
 * preempted to recompute) to the instances that are up; those that arrived with their KV (a
 * decode instance's) stay and are served. */
static int reroute_waiting(serve *w, int i, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    int32_t s = in->wait_head;
    while (s >= 0) {
        int32_t next = w->r[s].next;
        struct req *r = &w->r[s];
        if (!r->kv_ready) {
            list_remove(w, &in->wait_head, &in->wait_tail, s);
            in->nwait--;
            in->pending_prefill -= r->target - r->filled;
            int32_t to;
            int want = in->spec->role == SERVE_DECODE ? SERVE_DECODE : SERVE_PREFILL;
            if (route(w, s, want, -1, &to, err) < 0 || enqueue(w, s, to, err) < 0)
                return -1;
        }
        s = next;
    }
    return 0;
}

/* Whether draining instance i moves its requests off (serve_config.drain) rather than
 * finishing them. */
static int moves_off(const serve *w, int i)
{
    return w->cfg.drain == SERVE_DRAIN_MIGRATE && w->in[i].state == I_DRAINING &&
           !w->in[i].hetis;
}

/* Draining instance i, moving its requests off (SERVE_DRAIN_MIGRATE): every admitted request
 * not in a batch in flight leaves now, a decoding one with its KV to an instance that is up
 * (of its role: a decode instance's to a decode instance, else to one that takes prompts),
 * one still in its prompt preempted (its KV released, to start over); then every waiting
 * request leaves, with its KV if it came with it.  Requests in flight leave when their batch
 * ends (batch_done calls this again). */
static int evacuate(serve *w, int i, struct errbuf *err)
{
    if (!moves_off(w, i))
        return 0;
    struct inst *in = &w->in[i];
    int want = in->spec->role == SERVE_DECODE ? SERVE_DECODE : SERVE_PREFILL;
    for (int32_t s = in->run_head; s >= 0;) {
        struct req *r = &w->r[s];
        int32_t next = r->next, to;
        if (r->batch < 0 && !decoding(r) && preempt(w, s, err) < 0)
            return -1;
        if (r->batch < 0 && r->state == R_RUNNING) {
            if (route(w, s, want, want == SERVE_DECODE ? i : -1, &to, err) < 0)
                return -1;
            kv_release(w, in, r);
            list_remove(w, &in->run_head, &in->run_tail, s);
            in->nrun--;
            w->tot.drain_moves++;
            if (send_kv(w, s, i, to, 0, err) < 0)
                return -1;
        }
        s = next;
    }
    for (int32_t s = in->wait_head; s >= 0;) {
        struct req *r = &w->r[s];
        int32_t next = r->next, to;
        if (r->kv_ready) {
            if (route(w, s, want, want == SERVE_DECODE ? i : -1, &to, err) < 0)
                return -1;
            list_remove(w, &in->wait_head, &in->wait_tail, s);
            in->nwait--;
            r->kv_ready = 0;
            w->tot.drain_moves++;
            if (send_kv(w, s, i, to, 0, err) < 0)
                return -1;
        }
        s = next;
    }
    mark_dirty(w, i);
    return reroute_waiting(w, i, err);
}

/* The draining instances that hold nothing any more are down: their GPUs go to the broker. */
static int drains_done(serve *w, struct errbuf *err)
{
    for (int i = 0; i < w->ninst; i++) {
        struct inst *in = &w->in[i];
        if (in->state != I_DRAINING)
            continue;
        if (in->nwait > 0 && reroute_waiting(w, i, err) < 0)
            return -1;
        if (in->nwait > 0 || in->nrun > 0 || in->inflight > 0)
            continue;
        in->state = I_DOWN;
        w->ndraining--;
        if (w->ten.released != NULL && release_denied(w, i) < 0)
            return err_run(err, "out of memory");
    }
    return 0;
}

void serve_set_tenancy(serve *w, const struct serve_tenancy *t) { w->ten = *t; }

void serve_no_shortcuts(serve *w) { w->no_shortcuts = 1; }

int serve_hops_alone(const serve *w, int *hops)
{
    int n = 0;
    *hops = 0;
    for (int i = 0; i < w->ninst; i++)
        for (int s = 0; s + 1 < w->in[i].S; s++)
            for (int k = 0; k < w->in[i].route[s].n; k++) {
                n += w->in[i].route[s].p[k].alone;
                ++*hops;
            }
    return n;
}

const struct serve_deployment *serve_deployment_of(const serve *w) { return w->dep; }

int serve_instance_state(const serve *w, int i) { return w->in[i].state; }

double serve_instance_speed(const serve *w, int i) { return w->in[i].load->speed; }

double serve_weights_load_s(const serve *w, int i)
{
    const struct serve_instance *sp = w->in[i].spec;
    const catalog *cat = cluster_catalog(w->cl);
    double worst = 0;
    for (int s = 0; s < sp->nstages; s++) {
        const struct serve_stage *st = &sp->stages[s];
        double bytes = llm_weight_bytes(w->arch, st->layers, st->ngpu, s == 0,
                                        s == sp->nstages - 1);
        const struct gpu_spec *g = catalog_gpu(cat, cluster_gpu_type(w->cl, st->gpus[0]));
        double t = bytes / (catalog_link(cat, g->pcie)->bw_gbs * 1e9);
        if (t > worst)
            worst = t;
    }
    return worst;
}

int serve_drain(serve *w, int i, struct errbuf *err)
{
    if (i < 0 || i >= w->ninst || w->in[i].state != I_UP)
        return err_run(err, "broker drained instance %d, which is not up", i);
    struct inst *in = &w->in[i];
    in->state = I_DRAINING;
    in->load->up = 0;
    w->ndraining++;
    w->drains++;
    if (reroute_waiting(w, i, err) < 0 || evacuate(w, i, err) < 0)
        return -1;
    engine_touch(w->eng, w->tag);       /* an idle instance is down at the end of the instant */
    return 0;
}

int serve_load(serve *w, int i, struct errbuf *err)
{
    if (i < 0 || i >= w->ninst || w->in[i].state != I_DOWN)
        return err_run(err, "broker gave back instance %d, which is not down", i);
    w->in[i].state = I_LOADING;
    w->loads++;
    simtime t = engine_now(w->eng) + sim_from_sec_ceil(serve_weights_load_s(w, i));
    if (engine_at(w->eng, t, EV_UP | w->tag, (uint64_t)i, NULL) < 0)
        return err_run(err, "out of memory");
    return 0;
}

int serve_take(serve *w, const int *gpus, int n, int64_t *drained, struct errbuf *err)
{
    int ng = cluster_ngpus(w->cl);
    *drained = 0;
    if (w->denied == NULL && (w->denied = calloc((size_t)ng, 1)) == NULL)
        return err_run(err, "out of memory");
    for (int k = 0; k < n; k++) {
        if (gpus[k] < 0 || gpus[k] >= ng || w->denied[gpus[k]])
            return err_run(err, "broker took GPU %d, which the serving world does not hold",
                           gpus[k]);
        w->denied[gpus[k]] = 1;
    }
    /* the instances on them drain; one loading drains once up; one down already is free */
    int later = 0;
    for (int i = 0; i < w->ninst; i++) {
        int st = w->in[i].state;
        if (st == I_DOWN || !touches_denied(w, i))
            continue;
        later = 1;
        if (st == I_UP) {
            if (serve_drain(w, i, err) < 0)
                return -1;
            (*drained)++;
        }
    }
    if (!later)
        return 1;
    /* say now which of them are free already (on no instance, or on one down) */
    int *now_free = malloc((size_t)n * sizeof *now_free), m = 0;
    if (now_free == NULL)
        return err_run(err, "out of memory");
    for (int k = 0; k < n; k++) {
        int busy = 0;
        for (int i = 0; i < w->ninst && !busy; i++) {
            if (w->in[i].state == I_DOWN)
                continue;
            int ids[INST_MAX_GPUS], c = inst_gpus(w, i, ids);
            for (int q = 0; q < c && !busy; q++)
                busy = ids[q] == gpus[k];
        }
        if (!busy)
            now_free[m++] = gpus[k];
    }
    if (m > 0 && w->ten.released != NULL)
        w->ten.released(w->ten.ctx, now_free, m, engine_now(w->eng));
    free(now_free);
    return 0;
}

int serve_give(serve *w, const int *gpus, int n, struct errbuf *err)
{
    for (int k = 0; k < n; k++)
        if (w->denied == NULL || gpus[k] < 0 || gpus[k] >= cluster_ngpus(w->cl) ||
            !w->denied[gpus[k]])
            return err_run(err, "broker gave GPU %d, which the serving world was not "
                           "denied", gpus[k]);
    for (int k = 0; k < n; k++)
        w->denied[gpus[k]] = 0;
    for (int i = 0; i < w->ninst; i++)
        if (w->in[i].state == I_DOWN && !touches_denied(w, i) && serve_load(w, i, err) < 0)
            return -1;
    return 0;
}

double serve_capacity(const serve *w, const int *gpus, int n)
{
    double cap = 0;
    for (int i = 0; i < w->ninst; i++) {
        int ids[INST_MAX_GPUS], c = inst_gpus(w, i, ids), in = 0;
        for (int q = 0; q < c; q++)
            for (int k = 0; k < n; k++)
                in += ids[q] == gpus[k];
        cap += w->in[i].load->speed * in / c;
    }
    return cap;
}

void serve_ties(const serve *w, int *unit, unsigned char *up)
{
    int ng = cluster_ngpus(w->cl);
    forest_init(unit, ng);
    for (int g = 0; g < ng; g++)
        up[g] = 1;
    for (int i = 0; i < w->ninst; i++) {
        int ids[INST_MAX_GPUS], c = inst_gpus(w, i, ids);
        for (int q = 1; q < c; q++)
            forest_join(unit, ids[0], ids[q]);
        for (int q = 0; q < c && w->in[i].state != I_UP; q++)
            up[ids[q]] = 0;
    }
    forest_flatten(unit, ng);
}

void serve_type_speed(const serve *w, double *per_gpu)
{
    double gpus[CLUSTER_MAX_TYPES] = { 0 };
    for (int t = 0; t < w->ntypes; t++)
        per_gpu[t] = 0;
    for (int i = 0; i < w->ninst; i++) {
        int ids[INST_MAX_GPUS], c = inst_gpus(w, i, ids);
        for (int q = 0; q < c; q++) {
            int t = cluster_type_slot(w->cl, cluster_gpu_type(w->cl, ids[q]));
            per_gpu[t] += w->in[i].load->speed / c;
            gpus[t] += 1;
        }
    }
    for (int t = 0; t < w->ntypes; t++)
        per_gpu[t] = gpus[t] > 0 ? per_gpu[t] / gpus[t] : 0;
}

void serve_demand(const serve *w, double *prompt_tokens, int64_t *requests,
                  double *mean_output)
{
    *prompt_tokens = w->arrived_prompt;
    *requests = w->tot.reqs_in;
    *mean_output = w->out_n > 0 ? w->out_sum / w->out_n : 0;
}

void serve_first_tokens(const serve *w, int64_t *firsts, int64_t *late)
{
    *firsts = w->firsts;
    *late = w->firsts_late;
}

static int instant_end(void *world, struct errbuf *err)
{
    serve *w = world;
    /* launching on one instance never dirties another, but keep taking batches while an
       instance can (a pipeline fills its stages one batch at a time) */
    for (int k = 0; k < w->ndirty; k++) {
        int i = w->dirty_list[k];
        struct inst *in = &w->in[i];
        in->dirty = 0;
        int rc;
        for (;;) {
            while ((rc = try_launch(w, i, err)) > 0)
                ;
            if (rc < 0)
                return ENGINE_FAIL;
            /* running requests always make progress: with nothing in flight a batch starts
               (a batch that left the first stage is in flight until it ends) */
            assert(in->inflight > 0 || in->nrun == 0);
            /* nothing runs, nothing will free room, and the first waiting request cannot
               start: it never will (its policy finds no room for it), so it is dropped */
            if (in->inflight > 0 || in->nrun > 0 || in->wait_head < 0)
                break;
            int32_t s = in->wait_head;
            list_remove(w, &in->wait_head, &in->wait_tail, s);
            in->nwait--;
            in->pending_prefill -= w->r[s].target - w->r[s].filled;
            if (drop(w, s, err) < 0)
                return ENGINE_FAIL;
        }
    }
    w->ndirty = 0;
    if (w->ndraining > 0 && drains_done(w, err) < 0)
        return ENGINE_FAIL;
    return ENGINE_CONTINUE;
}

/* ---------------------------------------------------------------- create, run */

/* The timeline's node and type of an instance: the node of its first GPU, and its GPU types
 * each once, in stage order then its attention workers'. */
static void tl_describe(const serve *w, struct inst *in)
{
    const struct serve_instance *sp = in->spec;
    const catalog *cat = cluster_catalog(w->cl);
    int seen[CLUSTER_MAX_TYPES], nseen = 0;
    size_t n = 0;
    in->tl_node = cluster_gpu_node(w->cl, sp->stages[0].gpus[0]);
    in->tl_type[0] = '\0';
    for (int s = 0; s <= sp->nstages; s++) {
        const int32_t *g = s < sp->nstages ? sp->stages[s].gpus : sp->attn;
        int ng = s < sp->nstages ? sp->stages[s].ngpu : sp->nattn;
        for (int k = 0; k < ng; k++) {
            int t = cluster_gpu_type(w->cl, g[k]), j = 0;
            while (j < nseen && seen[j] != t)
                j++;
            if (j < nseen || nseen == CLUSTER_MAX_TYPES)
                continue;
            seen[nseen++] = t;
            int m = snprintf(in->tl_type + n, sizeof in->tl_type - n, "%s%s", n ? "+" : "",
                             catalog_gpu(cat, t)->name);
            if (m > 0 && (size_t)m < sizeof in->tl_type - n)
                n += (size_t)m;
        }
    }
}

static int setup_instance(serve *w, int i, struct errbuf *err)
{
    struct inst *in = &w->in[i];
    const struct serve_instance *sp = &w->dep->inst[i];
    in->spec = sp;
    in->S = sp->nattn > 0 ? 1 : sp->nstages;
    in->hetis = sp->nattn > 0;
    in->wait_head = in->wait_tail = in->run_head = in->run_tail = -1;
    in->load = &w->load[i];
    in->load->role = sp->role;
    in->load->speed = serve_view_rate(&w->env, sp, 1024, 128) * (1024 + 128);
    in->load->up = 1;
    in->last_rebalance = 0;
    /* the stages as the latency model takes them, and their per-token-count parts */
    int64_t cap = w->cfg.set.max_batch_tokens + w->cfg.set.max_seqs + 1;
    in->tok_cap = (int)(cap < (1 << 16) ? cap : (1 << 16));
    if (in->S > 1 && (in->route = malloc((size_t)(in->S - 1) * sizeof *in->route)) == NULL)
        return err_run(err, "out of memory");
    for (int s = 0; s < in->S; s++) {
        const struct serve_stage *st = &sp->stages[s];
        in->lstage[s] = (struct llm_stage){ cluster_gpu_type(w->cl, st->gpus[0]), st->ngpu,
                                            serve_view_group_link(w->cl, st->gpus, st->ngpu),
                                            st->layers, s == 0, s == in->S - 1 };
        if (s + 1 < in->S) {        /* the activations' way to the next stage */
            in->send_link[s] = serve_view_pair_link(w->cl, st->gpus[0],
                                                    sp->stages[s + 1].gpus[0]);
            xfer_group_route(w->cl, st->gpus, 1, sp->stages[s + 1].gpus, 1, &in->route[s]);
        }
        in->tok[s] = malloc((size_t)in->tok_cap * sizeof *in->tok[s]);
        if (in->tok[s] == NULL)
            return err_run(err, "out of memory");
        for (int k = 0; k < in->tok_cap; k++)
            in->tok[s][k].dense_s = -1;
    }
    if (!in->hetis) {
        int64_t n = w->cfg.set.max_seqs + 1;
        if ((in->head = malloc((size_t)n * sizeof *in->head)) == NULL)
            return err_run(err, "out of memory");
        for (int64_t k = 0; k < n; k++)
            in->head[k] = -1;
    }
    if (in->hetis) {
        if (w->dec->dispatch == NULL)
            return err_run(err, "policy deployed attention workers but has no dispatch");
        serve_view_attn_devices(&w->env, sp, in->adev, &in->ndev);
        in->head_bytes = w->arch->layers * llm_kv_head_bytes(w->arch);
        double total = 0, best = 0;
        for (int d = 0; d < in->ndev; d++) {
            in->dev[d].cap = in->adev[d].cap_bytes;
            total += in->dev[d].cap;
            if (in->dev[d].cap > best)
                best = in->dev[d].cap;
        }
        /* a single request's heads may spread over every device */
        in->cap_tokens = total / (in->head_bytes * w->arch->kv_heads);
    } else {
        in->ndev = sp->nstages;
        in->cap_tokens = INFINITY;
        for (int s = 0; s < sp->nstages; s++) {
            const struct serve_stage *st = &sp->stages[s];
            in->dev[s].cap = serve_view_stage_room(&w->env, sp, s);
            in->dev[s].tok_bytes = llm_kv_bytes(w->arch, st->layers, st->ngpu);
            /* whole blocks only */
            double blocks = floor(in->dev[s].cap / (in->dev[s].tok_bytes *
                                                    w->cfg.set.block_tokens));
            double tokens = blocks * w->cfg.set.block_tokens;
            if (tokens < in->cap_tokens)
                in->cap_tokens = tokens;
        }
    }
    for (int d = 0; d < in->ndev; d++)
        w->kv_cap_all += in->dev[d].cap;
    if (w->sink->timeline != NULL)
        tl_describe(w, in);
    return 0;
}

/* A port's slot in mark_alone's counts: GPU ports first, then nodes', out then in. */
static int port_slot(const serve *w, int dir, int32_t id)
{
    int in = dir == LINKBOOK_GPU_IN || dir == LINKBOOK_NET_IN;
    int net = dir == LINKBOOK_NET_OUT || dir == LINKBOOK_NET_IN;
    return (net ? 2 * cluster_ngpus(w->cl) : 0) + 2 * id + in;
}

/* Count 2 (another's) on the ports a KV move or Hetis traffic of instance i may cross: its
 * first stage's ways in and last stage's ways out (send_kv), every port of a Hetis
 * instance's GPUs and their nodes. */
static void count_foreign(const serve *w, int i, int *c)
{
    const struct serve_instance *sp = w->in[i].spec;
    const struct serve_stage *first = &sp->stages[0], *last = &sp->stages[sp->nstages - 1];
    for (int g = 0; g < first->ngpu; g++) {
        c[port_slot(w, LINKBOOK_GPU_IN, first->gpus[g])] += 2;
        c[port_slot(w, LINKBOOK_NET_IN, cluster_gpu_node(w->cl, first->gpus[g]))] += 2;
    }
    for (int g = 0; g < last->ngpu; g++) {
        c[port_slot(w, LINKBOOK_GPU_OUT, last->gpus[g])] += 2;
        c[port_slot(w, LINKBOOK_NET_OUT, cluster_gpu_node(w->cl, last->gpus[g]))] += 2;
    }
    if (!w->in[i].hetis)
        return;
    int gpus[INST_MAX_GPUS], n = inst_gpus(w, i, gpus);
    for (int k = 0; k < n; k++) {
        int node = cluster_gpu_node(w->cl, gpus[k]);
        for (int dir = LINKBOOK_GPU_OUT; dir <= LINKBOOK_GPU_IN; dir++)
            c[port_slot(w, dir, gpus[k])] += 2;
        for (int dir = LINKBOOK_NET_OUT; dir <= LINKBOOK_NET_IN; dir++)
            c[port_slot(w, dir, node)] += 2;
    }
}

/* Mark the hops of the pipeline boundaries that no other transfer ever crosses: not another
 * boundary's (of any instance), nor a KV move's or Hetis traffic's (count_foreign).  The
 * deployment is fixed for the run, so this holds throughout. */
static int mark_alone(serve *w)
{
    int *c = calloc((size_t)(2 * cluster_ngpus(w->cl) + 2 * cluster_nnodes(w->cl)), sizeof *c);
    if (c == NULL)
        return -1;
    for (int i = 0; i < w->ninst; i++) {
        count_foreign(w, i, c);
        for (int s = 0; s + 1 < w->in[i].S; s++)
            for (int k = 0; k < w->in[i].route[s].n; k++)
                c[port_slot(w, w->in[i].route[s].p[k].dir, w->in[i].route[s].p[k].id)]++;
    }
    for (int i = 0; i < w->ninst; i++)
        for (int s = 0; s + 1 < w->in[i].S; s++)
            for (int k = 0; k < w->in[i].route[s].n; k++) {
                struct xfer_hop *h = &w->in[i].route[s].p[k];
                h->alone = c[port_slot(w, h->dir, h->id)] == 1;
            }
    free(c);
    return 0;
}

int serve_create(serve **out, const cluster *cl, const llm_catalog *llm,
                 const struct llm_arch *arch, const struct serve_config *cfg,
                 struct entity_source *src, const struct serve_decider *dec,
                 const struct serve_sink *sink, struct errbuf *err)
{
    *out = NULL;
    serve *w = calloc(1, sizeof *w);
    if (w == NULL)
        return err_run(err, "out of memory");
    w->cl = cl;
    w->llm = llm;
    w->arch = arch;
    w->cfg = *cfg;
    w->src = src;
    w->dec = dec;
    w->sink = sink;
    w->free_head = -1;
    w->fly_head = w->fly_tail = -1;
    w->env = (struct serve_env_view){ cl, llm, arch, &w->cfg.set };
    w->admit_delay = sim_from_sec(llm_fit_of(llm)->first_ms * 1e-3);
    w->ntypes = cluster_types(cl, &w->types);
    w->dep = calloc(1, sizeof *w->dep);
    w->lb = linkbook_create(cluster_ngpus(cl), cluster_nnodes(cl));
    if (w->dep == NULL || w->lb == NULL) {
        serve_destroy(w);
        return err_run(err, "out of memory");
    }
    char msg[512];
    w->tot.decisions++;
    if (dec->deploy(dec->ctx, &w->env, w->dep, err) < 0) {
        serve_destroy(w);
        return -1;
    }
    if (serve_check_deployment(&w->env, w->dep, msg, sizeof msg) < 0) {
        serve_destroy(w);
        return err_input(err, NULL, 0, NULL, "the policy's deployment %s", msg);
    }
    w->ninst = w->dep->n;
    w->in = calloc((size_t)w->ninst, sizeof *w->in);
    w->load = calloc((size_t)w->ninst, sizeof *w->load);
    w->attn = calloc(ATTN_MEMO, sizeof *w->attn);
    if (w->in == NULL || w->load == NULL || w->attn == NULL) {
        serve_destroy(w);
        return err_run(err, "out of memory");
    }
    for (int i = 0; i < w->ninst; i++)
        if (setup_instance(w, i, err) < 0) {
            serve_destroy(w);
            return -1;
        }
    if (mark_alone(w) < 0) {
        serve_destroy(w);
        return err_run(err, "out of memory");
    }
    *out = w;
    return 0;
}

void serve_destroy(serve *w)
{
    if (w == NULL)
        return;
    for (int i = 0; w->in != NULL && i < w->ninst; i++) {
        for (int s = 0; s < SERVE_MAX_STAGES; s++) {
            free(w->in[i].b[s].r);
            free(w->in[i].tok[s]);
        }
        free(w->in[i].route);
        free(w->in[i].head);
    }
    for (int i = 0; i < w->ncls; i++)
        free(w->cls[i]);
    free(w->cls);
    free(w->in);
    free(w->load);
    free(w->attn);
    free(w->r);
    free(w->late);
    free(w->dep);
    free(w->dreq);
    free(w->dslot);
    free(w->denied);
    engine_destroy(w->own);
    linkbook_destroy(w->lb);
    free(w);
}

int serve_attach(serve *w, engine *e, struct errbuf *err)
{
    if (w->eng != NULL)
        return err_run(err, "serving world attached twice");
    if (engine_attach(e, handle, instant_end, w, &w->tag) < 0)
        return err_run(err, "more than %d worlds on one engine", ENGINE_MAX_CLIENTS);
    w->eng = e;
    int explicit_window = w->cfg.measure.to > w->cfg.measure.from;
    w->win = explicit_window ? w->cfg.measure : (struct window){ INFINITY, INFINITY };
    w->tot.ntypes = w->ntypes;
    if (read_next(w, err) < 0)
        return -1;
    if (!explicit_window && w->have_pending)
        w->win.from = sim_to_sec(w->pending.arrival);
    if (w->cfg.sample_period > 0 && w->have_pending &&
        engine_at(w->eng, w->pending.arrival + w->cfg.sample_period, EV_SAMPLE | w->tag, 0,
                  NULL) < 0)
        return err_run(err, "out of memory");
    w->first_arrival = w->last_sample = w->have_pending ? w->pending.arrival : 0;
    w->kv_since = w->last_sample;
    return 0;
}

int serve_finish(serve *w, int stop, struct serve_totals *out, struct errbuf *err)
{
    if (stop == ENGINE_FAILED)
        return -1;
    kv_account(w);
    simtime t = engine_now(w->eng);
    /* requests still in the system when a limit stopped the run leave unfinished */
    for (int32_t s = 0; s < w->nr; s++)
        if (w->r[s].state != R_FREE && w->r[s].state != R_DONE &&
            (tl_end(w, &w->r[s], TL_STOP, err) < 0 || emit(w, &w->r[s], 0, err) < 0))
            return -1;
    w->tot.end = t;
    w->tot.stop = stop;
    w->tot.events = w->nevents;
    w->tot.window = w->win;
    if (w->tot.window.to > sim_to_sec(t))
        w->tot.window.to = sim_to_sec(t);
    double from = sim_to_sec(w->first_arrival);
    w->tot.kv_util_mean = sim_to_sec(t) > from ? w->kv_int / (sim_to_sec(t) - from) : 0;
    *out = w->tot;
    return 0;
}

int serve_run(serve *w, struct serve_totals *out, struct errbuf *err)
{
    if (w->own == NULL && (w->own = engine_create(1024)) == NULL)
        return err_run(err, "out of memory");
    if (serve_attach(w, w->own, err) < 0)
        return -1;
    struct engine_limits lim = { w->cfg.until, w->cfg.max_events };
    return serve_finish(w, engine_advance(w->own, &lim, err), out, err);
}
