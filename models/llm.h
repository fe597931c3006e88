/*
 * llm: LLM architectures and their serving latency on a GPU type — a roofline per kernel with
 * fitted efficiency factors (the fit: models/llm_fit.h; its method and residuals: doc/serving.md,
 * "The LLM latency model").
 *
 * One transformer layer of a batch of T new tokens (prefill tokens of every prompt chunk plus
 * one token per decoding request), on one GPU of a tensor-parallel group of degree t:
 *   GEMMs       QKV (h x (h + 2 kv)/t), O ((h/t) x h), MLP up (h x 2f/t gated, h x f/t plain),
 *               MLP down ((f/t) x h); each  (c^p + m^p)^(1/p) + kernel, with the compute time
 *               c = 2 T K N / (F eta_compute) and the memory time m = 2 (K N + T K + T N) /
 *               (B eta_mem) (F: the GPU's fp16 FLOP/s, B: its memory bandwidth, 2 bytes a value)
 *   elementwise two norms, rotary embedding, activation, two residual adds: their bytes /
 *               (B eta_elem[kind]) + elem_us each
 *   attention   prefill: 4 c (k + (c + 1)/2) d H/t FLOPs for a chunk of c tokens after k cached
 *               (causal), at F eta_attn, against reading its K and V; decode: its K and V
 *               (2 C kv/t values for a context of C tokens) read at B eta_mem; one kernel each
 *   all-reduce  two per layer of T h values over the group's link when t > 1:
 *               coll + 2 (t-1) lat lat_factor + 2 (t-1)/t S / (bw eta_link)  (a ring: every
 *               link carries 2 (t-1)/t of the message one way, at most its bandwidth bw,
 *               the catalog's per direction; eta_link <= 1)
 * A stage of a pipeline runs some layers and, if it is the first, the embedding, if the last,
 * the final norm and the LM head (a GEMM of the tokens that produce logits against V/t rows).
 * Activations move between stages point to point: lat lat_factor + S / (bw eta_link).  No
 * modelled transfer carries more bytes a second than its link's bandwidth (a test checks
 * every link, size and group).
 *
 * The serving engine's own costs are a named profile (models/data/llm_fit.json "engines",
 * each with its source): an iteration of a batch of n sequences (prompt chunks and decoding
 * requests) adds iter_ms + seq_ms n, a request's first token first_ms.  A catalog uses one
 * engine at a time (the file's first unless llm_use_engine names another).
 *
 * GPU types with a kernel profile have factors fitted on it ("calibrated", with the data
 * named); the others borrow the default, fitted on the calibrated types (llm_default_from).
 * Pure functions of their arguments; nothing is cached.
 *
 * Ownership: llm_load allocates a catalog of architectures and fitted factors, llm_destroy
 * frees it; the GPU catalog it was loaded against must outlive it.  Returned pointers live as
 * long as the llm catalog.
 */
#ifndef HETSIM_LLM_H
#define HETSIM_LLM_H

#include <stdint.h>

#include "../sim/base/err.h"
#include "catalog.h"

enum { LLM_NAME_MAX = 32 };

struct llm_arch {
    char   name[LLM_NAME_MAX];
    int    layers, hidden, heads, kv_heads, intermediate, vocab, max_context;
    int    gated;           /* SiLU-gated MLP: three matrices a layer; else two (ReLU) */
    int    tied_head;       /* the LM head is the token embedding */
    int    positions;       /* learned position embeddings (rows), 0 for rotary */
    int    biases;          /* projections and MLP carry biases */
    int    head_dim;        /* hidden / heads */
    double params_b;        /* as the file states it (checked against llm_params) */
};

/* The elementwise kernels, each with its own bandwidth efficiency. */
enum { LLM_ELEM_NORM, LLM_ELEM_ROPE, LLM_ELEM_ACT, LLM_ELEM_ADD, LLM_ELEM_N };
extern const char *const llm_elem_names[LLM_ELEM_N];     /* "norm", "rope", "act", "add" */

/* The efficiency factors of one GPU type (models/data/llm_fit.json). */
struct llm_gpu_fit {
    double eta_compute;     /* fraction of peak fp16 FLOP/s a GEMM reaches */
    double eta_mem;         /* fraction of memory bandwidth of GEMM and attention traffic */
    double p;               /* roofline exponent: (c^p + m^p)^(1/p); large p -> max(c, m) */
    double kernel_us;       /* fixed time of a GEMM or attention kernel */
    double eta_elem[LLM_ELEM_N];    /* fraction of memory bandwidth of each elementwise kind */
    double elem_us;         /* fixed time of an elementwise kernel */
};

/* The range of every factor a fit file may hold: what llm_load accepts, and so what a fit
 * (models/llm_fit.h) may reach.  Every eta_* is in [LLM_ETA_MIN, 1], p in [1, LLM_P_MAX],
 * every other term in [0, its maximum]. */
#define LLM_ETA_MIN       1e-3
#define LLM_P_MAX         64.0
#define LLM_KERNEL_US_MAX 1e4       /* kernel_us and elem_us */
#define LLM_COLL_US_MAX   1e6
#define LLM_LAT_MAX       1e3       /* lat_factor */
#define LLM_ITER_MS_MAX   1e4
#define LLM_SEQ_MS_MAX    1e3
#define LLM_FIRST_MS_MAX  1e5

/* Every factor of the model: per GPU type (fitted where a profile exists, else the default),
 * those of the whole system, and the overheads of the engine in use. */
struct llm_fit {
    struct llm_gpu_fit dflt;
    double eta_attn;        /* fraction of peak FLOP/s of prefill attention */
    double iter_ms;         /* the engine in use: fixed time of one iteration (scheduling,
                               sampling) */
    double seq_ms;          /* ... and its time per sequence in the batch */
    double first_ms;        /* ... and a request's first token beyond its prefill
                               (admission, tokenization, returning the token) */
    double eta_link;        /* fraction of a link's bandwidth a transfer reaches (<= 1) */
    double lat_factor;      /* link latency multiplier per collective step or transfer */
    double coll_us;         /* fixed time of one collective call (launch and synchronize) */
};

/* A serving engine's overheads, as a profile of the fit file names them. */
enum { LLM_TEXT_MAX = 256 };
struct llm_engine {
    char   name[LLM_NAME_MAX];
    double iter_ms, seq_ms, first_ms;   /* as struct llm_fit's */
    char   source[LLM_TEXT_MAX];        /* the measurements its terms were fitted on */
    char   licence[LLM_TEXT_MAX];       /* theirs */
};

typedef struct llm_catalog llm_catalog;

/* The shipped files, relative to the data root (sim/base/path.h). */
extern const char llm_default_models[], llm_default_fit[];

/* Load the architectures (models/data/llms.json) and the fitted factors
 * (models/data/llm_fit.json), whose GPU names must be in `gpus`.  With gpus NULL, the
 * architectures only, and with a fit_path the engines of that file (to check names; no time
 * may be asked of it). */
int  llm_load(llm_catalog **out, const catalog *gpus, const char *arch_path,
              const char *fit_path, struct errbuf *err);
void llm_destroy(llm_catalog *c);
/* A catalog of no architectures with the given factors for every GPU type (tests, the fit). */
llm_catalog *llm_create(const catalog *gpus, const struct llm_fit *fit);

int  llm_narch(const llm_catalog *c);
const struct llm_arch *llm_arch_at(const llm_catalog *c, int i);
/* By name (case-insensitive), NULL if unknown; llm_hint: " (did you mean 'x'?)" or "". */
const struct llm_arch *llm_find(const llm_catalog *c, const char *name);
const char *llm_hint(const llm_catalog *c, const char *name, char *buf, size_t cap);
const catalog *llm_gpus(const llm_catalog *c);
const struct llm_fit *llm_fit_of(const llm_catalog *c);
/* The factors of GPU type `gpu`, and whether they were fitted for it (else the default). */
const struct llm_gpu_fit *llm_gpu_fit(const llm_catalog *c, int gpu, int *fitted);
/* Set the factors of one GPU type (the fit writes what it found); it is then calibrated. */
void llm_set_gpu_fit(llm_catalog *c, int gpu, const struct llm_gpu_fit *f);
/* Nonzero when every factor is in its range (above): one GPU type's, or the default's and
 * the system's and the engine terms'. */
int  llm_gpu_fit_in_range(const struct llm_gpu_fit *f);
int  llm_fit_in_range(const struct llm_fit *f);
void llm_set_fit(llm_catalog *c, const struct llm_fit *f);
/* What a calibrated GPU type was fitted on ("" when the file does not say; NULL for a type
 * that borrows the default), and the types the default was fitted on ("A100-80GB, H100";
 * "" when not stated).  The setters copy (truncating at LLM_TEXT_MAX). */
const char *llm_gpu_data(const llm_catalog *c, int gpu);
const char *llm_default_from(const llm_catalog *c);
void llm_set_gpu_data(llm_catalog *c, int gpu, const char *data);
void llm_set_default_from(llm_catalog *c, const char *types);

/* The engine profiles of the fit file, in its order. */
int llm_nengines(const llm_catalog *c);
const struct llm_engine *llm_engine_at(const llm_catalog *c, int i);
const struct llm_engine *llm_engine_find(const llm_catalog *c, const char *name);
/* The profile in use: NULL when the catalog's overheads are no profile's (llm_create). */
const struct llm_engine *llm_engine_in_use(const llm_catalog *c);
/* Use engine `name`'s overheads from now on: 0, or -1 when the file has no such engine. */
int llm_use_engine(llm_catalog *c, const char *name);
/* Add engine e, or replace the one of its name (its terms become the catalog's when it is
 * the one in use); -1 when out of memory. */
int llm_set_engine(llm_catalog *c, const struct llm_engine *e);
/* The names of the engines, ", "-separated, into buf (for messages). */
const char *llm_engine_names(const llm_catalog *c, char *buf, size_t cap);

/* ---- sizes (bytes, fp16) ---- */

/* Parameters the architecture implies. */
double llm_params(const struct llm_arch *a);
/* Weights one GPU of a TP group of degree tp holds for `layers` layers, plus the embedding
 * (first stage) and the LM head and final norm (last stage). */
double llm_weight_bytes(const struct llm_arch *a, int layers, int tp, int first, int last);
/* KV cache of one token for `layers` layers on one GPU of a TP group (KV heads are split over
 * the group, at least one whole head per GPU). */
double llm_kv_bytes(const struct llm_arch *a, int layers, int tp);
/* KV cache of one token, one layer, one KV head (2 vectors of head_dim values). */
double llm_kv_head_bytes(const struct llm_arch *a);
/* Peak activation memory of one GPU for an iteration of up to max_tokens tokens and max_seqs
 * sequences (what vLLM's profiling pass reserves): the layer's widest intermediates for the
 * tokens and fp32 logits for the sequences. */
double llm_activation_bytes(const struct llm_arch *a, int tp, int64_t max_tokens,
                            int64_t max_seqs);

/* ---- times (seconds) ---- */

/* One GEMM of T x K by K x N on GPU type gpu. */
double llm_gemm_s(const llm_catalog *c, int gpu, double T, double K, double N);
/* One elementwise kernel of kind `kind` (LLM_ELEM_*) moving `bytes`. */
double llm_elem_s(const llm_catalog *c, int gpu, int kind, double bytes);
/* Ring all-reduce of `bytes` over n GPUs joined by `link` (0 when n < 2). */
double llm_allreduce_s(const llm_catalog *c, int link, int n, double bytes);
/* One point-to-point transfer of `bytes` over `link`. */
double llm_send_s(const llm_catalog *c, int link, double bytes);

/* The work of one iteration, summed over the requests of its batch. */
struct llm_batch {
    double tokens;          /* new tokens: prefill chunk tokens + one per decoding request */
    double logits;          /* tokens that produce a next-token distribution (one per
                               decoding request, one per prompt whose last chunk this is) */
    double prefill_pairs;   /* sum over prefill chunks of c (k + (c + 1)/2): causal
                               query-key pairs, for attention FLOPs */
    double prefill_kv;      /* sum over prefill chunks of k + c: K/V tokens read */
    double decode_ctx;      /* sum over decoding requests of their context length C */
    double decode_reqs;     /* decoding requests */
    double seqs;            /* sequences: prefill chunks and decoding requests */
};

/* Add a prefill chunk of c tokens after k cached (last: it ends its prompt) or one decode
 * step at context C (the tokens the request holds, the new one included) to a batch.
 * Inline: the serving world adds every request of every batch. */
static inline void llm_batch_prefill(struct llm_batch *b, double c, double k, int last)
{
    b->tokens += c;
    b->prefill_pairs += c * (k + (c + 1) / 2);
    b->prefill_kv += k + c;
    b->seqs += 1;
    if (last)
        b->logits += 1;
}

static inline void llm_batch_decode(struct llm_batch *b, double C)
{
    b->tokens += 1;
    b->logits += 1;
    b->decode_ctx += C;
    b->decode_reqs += 1;
    b->seqs += 1;
}
/* The engine's overhead of one iteration of batch b: (iter_ms + seq_ms b->seqs) ms. */
double llm_iter_s(const llm_catalog *c, const struct llm_batch *b);

/* Attention of a batch on one GPU holding `heads` query heads and `kv_heads` KV heads (a TP
 * share, or a Hetis split), for one layer: prefill and decode parts. */
double llm_attn_prefill_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                          double heads, double kv_heads, const struct llm_batch *b);
double llm_attn_decode_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                         double heads, double kv_heads, const struct llm_batch *b);
/* The same by KV head: one GPU reading `ctx_heads` head-tokens of K and V (sum over its
 * requests of context x the KV heads it holds of them) for `req_heads` request-heads (sum of
 * those heads), each with its group of query heads; what an attention worker of a Hetis
 * split does per layer. */
double llm_attn_decode_heads_s(const llm_catalog *c, int gpu, const struct llm_arch *a,
                               double ctx_heads, double req_heads);
/* The kernels of one layer outside attention, as Vidur profiles them (one call each; a layer
 * runs the norm and the residual add twice). */
enum llm_op {
    LLM_OP_QKV, LLM_OP_O, LLM_OP_UP, LLM_OP_DOWN,       /* GEMMs */
    LLM_OP_NORM, LLM_OP_ROPE, LLM_OP_ACT, LLM_OP_ADD,   /* elementwise */
    LLM_OP_N
};
extern const char *const llm_op_names[LLM_OP_N];     /* Vidur's names: "attn_pre_proj", ... */
/* One kernel of one layer for T tokens on one GPU of a TP group of degree tp. */
double llm_op_s(const llm_catalog *c, int gpu, const struct llm_arch *a, int tp, int op,
                double T);
/* One layer of the batch without its attention kernel and all-reduce: the GEMMs and the
 * elementwise kernels of one GPU of a TP group of degree tp. */
double llm_layer_dense_s(const llm_catalog *c, int gpu, const struct llm_arch *a, int tp,
                         const struct llm_batch *b);

/* A pipeline stage: `layers` layers on a TP group of `tp` GPUs of type `gpu` joined by
 * `link` (-1 when tp = 1), first and/or last of its pipeline.  The time of one iteration
 * of the batch there (attention included, the per-iteration overhead not). */
struct llm_stage {
    int gpu, tp, link, layers, first, last;
};
double llm_stage_s(const llm_catalog *c, const struct llm_arch *a, const struct llm_stage *s,
                   const struct llm_batch *b);
/* llm_stage_s in parts, for callers that keep the first by token count.  The part of one
 * layer that depends only on the batch's tokens (GEMMs and elementwise kernels, and one
 * all-reduce, of which a layer has two); a layer given it, with its attention (attn_decode_s
 * < 0: the stage's own decode attention, else the given per-layer time, a Hetis split);
 * the stage given it; and the stage's ends alone (embedding, final norm and head).
 * llm_stage_s(b) is exactly llm_stage_with_s(b, llm_layer_part(b->tokens)), summed in the
 * same order. */
struct llm_layer_part {
    double dense_s, allreduce_s;
};
struct llm_layer_part llm_layer_part(const llm_catalog *c, const struct llm_arch *a,
                                     const struct llm_stage *s, double tokens);
double llm_layer_with_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b,
                        const struct llm_layer_part *p, double attn_decode_s);
/* One layer's decode attention on a stage (its TP share of the heads): what
 * llm_layer_with_s computes when given none.  It depends on the stage's GPU type and TP
 * degree and on b's decode_ctx and decode_reqs alone. */
double llm_stage_attn_decode_s(const llm_catalog *c, const struct llm_arch *a,
                               const struct llm_stage *s, const struct llm_batch *b);
double llm_stage_with_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b,
                        const struct llm_layer_part *p);
/* The stage given one layer's time (llm_layer_with_s, which depends on the stage's gpu, tp
 * and link but not on its layers or ends): llm_stage_with_s is exactly this of it, so that
 * a caller may time one layer for every stage of a shape. */
double llm_stage_of_layer_s(const llm_catalog *c, const struct llm_arch *a,
                            const struct llm_stage *s, const struct llm_batch *b,
                            double layer_s);
double llm_stage_ends_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, const struct llm_batch *b);
/* A last stage's final norm and head over `logits` tokens (the vocabulary gather apart): it
 * depends on the stage's GPU type and TP degree and the count alone.  llm_stage_of_layer_s
 * given it (head_s < 0: computed) is bit-identical. */
double llm_stage_head_s(const llm_catalog *c, const struct llm_arch *a,
                        const struct llm_stage *s, double logits);
double llm_stage_of_layer_head_s(const llm_catalog *c, const struct llm_arch *a,
                                 const struct llm_stage *s, const struct llm_batch *b,
                                 double layer_s, double head_s);

/* What `hetsim model llm` answers: a prompt batch of `batch` prompts of `prompt` tokens
 * (prefill, first token included: the iteration's overhead and first_ms added), and one
 * decode step of `batch` requests at context `context`, on pp stages of tp GPUs each (layers
 * split evenly, the first stages taking the remainder), the TP group joined by `link`,
 * stages by `stage_link`; iteration overhead included, stages one after another (one batch
 * in flight). */
struct llm_whatif {
    int    gpu, tp, pp, link, stage_link;
    int    batch;
    double prompt, context;
};
int llm_whatif_s(const llm_catalog *c, const struct llm_arch *a, const struct llm_whatif *w,
                 double *prefill_s, double *decode_s, struct errbuf *err);

#endif
