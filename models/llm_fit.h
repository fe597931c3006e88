/*
 * llm_fit: calibration of the LLM latency model's free terms (models/llm.h) on public
 * measurements, in three steps, each a least-squares fit of log(model / measured) (every
 * point weighs the same whatever its size) by GSL's Nelder-Mead simplex:
 *   1. kernels   per profiled GPU type, eta_compute, eta_mem, p and kernel_us on the GEMMs
 *                and eta_elem (per kind) and elem_us on the elementwise kernels of Vidur's
 *                per-layer kernel times (every op of every token count and TP degree);
 *                the default factors of the other GPU types are the geometric means of the
 *                profiled types' factors;
 *   2. links     eta_link, lat_factor and coll_us on measured all-reduce times (each row's
 *                GPU count mapped to the link it crosses);
 *   3. serving   iter_ms and first_ms on end-to-end rows (first-token latency = one prefill
 *                iteration of the batch + first_ms; time per output token = one decode step
 *                at the mean context of the output), the rows marked for the fit only; the
 *                others are the check.  eta_attn is left as the catalog has it: the rows
 *                cannot identify it (prefill attention is a few percent of a 2,048-token
 *                prompt's time).
 * The residuals of every row (or, for the kernel profiles, of every op per GPU type: median
 * and worst) are reported, fitted and checked rows alike.
 *
 * Ownership: llm_fit_data_create allocates, llm_fit_data_destroy frees; the llm catalog
 * passed to the loaders and to llm_fit_solve must outlive the data.
 */
#ifndef HETSIM_LLM_FIT_H
#define HETSIM_LLM_FIT_H

#include <stdio.h>

#include "llm.h"

typedef struct llm_fit_data llm_fit_data;

llm_fit_data *llm_fit_data_create(void);
void          llm_fit_data_destroy(llm_fit_data *d);

/* A Vidur mlp.csv (per-layer kernel times by num_tokens and TP degree) measured on GPU type
 * `gpu`; the architecture is taken from its own columns. */
int llm_fit_add_profile(llm_fit_data *d, const char *path, int gpu, struct errbuf *err);
/* A Vidur all_reduce.csv; link_of[n] is the link a collective of n GPUs crosses (-1: rows
 * of that size are skipped), for n < 17. */
int llm_fit_add_allreduce(llm_fit_data *d, const char *path, const int *link_of,
                          struct errbuf *err);
/* measured_points.csv (source,gpu,model,tp,batch,prompt_tokens,output_tokens,ttft_ms,tpot_ms,
 * out_tok_s); models and GPUs are looked up in c.  A row is fitted when it is a single request
 * (batch 1) on one GPU (TP degree 1) from source `fit_source`; the others are check rows. */
int llm_fit_add_points(llm_fit_data *d, const char *path, const llm_catalog *c,
                       const char *fit_source, struct errbuf *err);

/* One line of the residual report. */
enum { LLM_RESID_OP, LLM_RESID_ALLREDUCE, LLM_RESID_POINT };
struct llm_resid {
    int    kind;            /* enum above */
    int    fitted;          /* the row (or group) was used by the fit; else a check */
    char   what[160];       /* "A100-80GB mlp_up_proj", "all-reduce 4 x pcie4", or
                               "lmdeploy A100-80GB llama-2-7b tp1 b1 p128 ttft" */
    int    n;               /* points in the group */
    double measured_ms, model_ms;   /* POINT rows */
    double err_pct;         /* POINT: (model - measured) / measured * 100; groups: median of
                               |err| */
    double max_pct;         /* groups: largest |err| (signed as it came) */
};

/* Fit every term with data in d into c (steps without data keep c's factors). */
int llm_fit_solve(llm_fit_data *d, llm_catalog *c, struct errbuf *err);
/* The residuals of c's factors on d, into out (room for cap); returns how many. */
int llm_fit_residuals(const llm_fit_data *d, const llm_catalog *c, struct llm_resid *out,
                      int cap);
/* Write c's factors as models/data/llm_fit.json, with the method, the residuals r[0..n) and
 * `note`. */
int llm_fit_write(FILE *f, const llm_catalog *c, const struct llm_resid *r, int n,
                  const char *note);

#endif
