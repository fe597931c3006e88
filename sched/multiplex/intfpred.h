/*
 * intfpred: a multiplexing policy's predictions of how fast a job runs beside given
 * co-runners on a shared GPU, and how wrong they turned out.  Two kinds:
 *
 *  - learned (the default, IADeep's: Chen et al., SC 2023): the policy's own interference
 *    model (models/interference.h), filled with what a scheduler could know — the pairs of
 *    job types it profiled offline (a fraction `known_pairs` of them, each measured by a
 *    profiling run, sim/train/mux_view.h mux_view_profile) and the slowdowns it observes on
 *    the GPUs it shares (the view's realised rates) — and completed by low-rank
 *    factorisation, refitted whenever it learns something;
 *  - oracle: the world's own rates (mux_view_rate with co-runners), a labelled upper bound.
 *
 * Both are scored the same way: the predictions for every shared GPU a decision leaves
 * changed are kept, and compared with the GPU's realised rates once that configuration has
 * run (intfpred.c says how); pred_error_mean is the mean relative error of the predicted
 * slowdowns (pred_unseen_error_mean: of those for combinations the learned kind had not
 * measured when it predicted them).  The oracle's is measured, not set: 0 up to rounding.
 *
 * Ownership: intfpred_create allocates, intfpred_destroy frees.  The mux picture and the
 * view are the caller's, valid for one decision.  Costs: intfpred_begin O(running jobs +
 * new pairs profiled + a refit when something was learned); intfpred_rate O(log
 * combinations + holders) for the learned kind, one call of the world's hook for the oracle.
 */
#ifndef HETSIM_INTFPRED_H
#define HETSIM_INTFPRED_H

#include "mux.h"

struct policy_env;
struct policy_metric_sink;

struct intfpred_opts {
    int    oracle;          /* 1: read the world's rates (upper bound); 0: learn */
    double known_pairs;     /* learned: probability that a pair of job types was profiled */
    double pressure_exp;    /* learned: the batch-pressure exponent it believes */
};

typedef struct intfpred intfpred;

int  intfpred_create(intfpred **out, const struct intfpred_opts *o,
                     const struct policy_env *env, struct errbuf *err);
void intfpred_destroy(intfpred *p);

/* At the start of a decision, after mux_load: profile the pairs of job types seen for the
 * first time, observe (and score) the shared GPUs whose configuration has run, refit what
 * was learned.  learned[gpu] (ngpu entries, may be NULL) is set to 1 where an observation
 * taught the predictor a combination it had not seen, else 0.  0, or -1 (out of memory). */
int  intfpred_begin(intfpred *p, const struct mux *m, const struct train_view *v,
                    uint8_t *learned, struct errbuf *err);

/* The predicted rate (iterations/s of its original batch) of holder i of gpu with the
 * picture's batches, shares and co-holders. */
double intfpred_rate(const intfpred *p, const struct mux *m, const struct train_view *v,
                     int gpu, int i);

/* Remember the predictions for every changed GPU of the picture (call before mux_emit). */
void intfpred_commit(intfpred *p, const struct mux *m, const struct train_view *v);

/* pred_error_mean (when something was scored), pred_unseen_error_mean (when a prediction for
 * a combination the learned kind had not measured was scored), pred_scored,
 * pred_unseen_scored, pred_profiled (pairs x GPU types), pred_observed (configurations). */
int  intfpred_metrics(const intfpred *p, const struct policy_metric_sink *out,
                      struct errbuf *err);

#endif
