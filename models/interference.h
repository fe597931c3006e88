/*
 * interference: how much slower a training job runs when other jobs share its GPU.
 *
 * The unit is IADeep's relative slowdown d = (t_co - t_solo) / t_solo of one job's
 * iteration time (0: no slowdown); its normalized speed is 1 / (1 + d).  Three sources:
 *  - measured combinations of 2..INTF_MAX_JOBS jobs on one GPU type (intf_add; the readers
 *    below): a combination measured several times keeps the mean;
 *  - for an unmeasured pair (victim a, aggressor b) on a GPU type, a low-rank completion of
 *    that type's victim x aggressor matrix (intf_fit: SGD matrix factorisation, IADeep's
 *    rank 2, learning rate 2e-4, regularisation 0.02, 50 epochs, seeded);
 *  - for an unmeasured combination of three or more jobs, the sum of the victim's pairwise
 *    slowdowns (measured or completed) — each co-runner adds its own contention.
 * A GPU type with no measurement at all borrows the first measured type's tables.
 * Negative measured slowdowns (measurement noise: a job faster shared than alone) count as 0.
 *
 * Ownership: intf_create allocates, intf_destroy frees.  After intf_fit every query is a pure
 * read.  Costs: intf_add O(1) amortized; intf_fit O(epochs x pairs x rank) per GPU type;
 * intf_slowdown O(log combinations + jobs).
 */
#ifndef HETSIM_INTERFERENCE_H
#define HETSIM_INTERFERENCE_H

#include <stdint.h>

#include "tput.h"

typedef struct intf intf;

enum { INTF_MAX_JOBS = 4 };     /* jobs in one measured combination */

/* Matrix factorisation settings (IADeep's by default: intf_mf_default). */
struct intf_mf {
    int    rank;
    double lr, reg;
    int    epochs;
};
extern const struct intf_mf intf_mf_default;

/* One known cell of a matrix (row, col) = value, for the factorisation. */
struct intf_rating {
    int    row, col;
    double value;
};

/* A fitted factorisation: value(r, c) ~ mu + br[r] + bc[c] + p[r] . q[c]. */
struct intf_mf_model {
    int     rows, cols, rank;
    double  mu;
    double *br, *bc, *p, *q;        /* rows, cols, rows x rank, cols x rank */
};

/* Fit by SGD over the ratings in a seeded shuffled order each epoch (factors start from
 * N(0, 0.1^2), biases from 0).  0, or -1 (out of memory).  Free with intf_mf_free. */
int    intf_mf_fit(const struct intf_rating *r, int n, int rows, int cols,
                   const struct intf_mf *p, uint64_t seed, struct intf_mf_model *out);
double intf_mf_predict(const struct intf_mf_model *m, int row, int col);
void   intf_mf_free(struct intf_mf_model *m);
/* Root mean square error of the model on these ratings. */
double intf_mf_rmse(const struct intf_mf_model *m, const struct intf_rating *r, int n);

/* The batch-pressure exponent theta fitted on Lucid's pairs (interference.c says how): the
 * world's default (multiplex.pressure_exp) and a policy's default belief. */
extern const double intf_pressure_exp_default;

/* The share law of sim/train/share.h, for the world and for a policy that predicts with it:
 * the normalized speed (0, 1] of a space-shared job holding `share` thousandths of its GPU
 * beside k >= 1 co-runners that slow it by d at their original batches (intf_slowdown's
 * unit) and whose batch pressures (m / m0)^theta sum to `pressure`:
 *     ns = 1 / (1 + w d pressure / k),   w = max(0, (1 - share / 1000) (k + 1) / k). */
double intf_ns(double d, double pressure, int k, double share);
/* Its inverse in d: the slowdown at original batches that a measured ns implies (negative
 * when the job ran faster than alone); NAN where the law loses d (w or pressure 0, ns <= 0). */
double intf_unshare(double ns, double pressure, int k, double share);

/* The model over job types 0..ntypes-1 (tput ids) and GPU types 0..ngpu-1 (catalog ids). */
int  intf_create(intf **out, int ntypes, int ngpu);
void intf_destroy(intf *m);

/* A measurement: jobs jt[0..n) (any order, 2 <= n <= INTF_MAX_JOBS) on one GPU of type gpu,
 * job jt[i] slowed by slow[i].  0, or -1 (out of memory).  Queries answer 0 from the last
 * intf_add until the next intf_fit; measurements may follow a fit (an online predictor's
 * observations), and the next fit merges them with the earlier ones. */
int  intf_add(intf *m, int gpu, const int *jt, int n, const double *slow);

/* Gavel's co-location pairs as ../shared/traces/gpu_colocation/ flattens them (columns by
 * header name: worker_type, job_a, job_b, norm_speed_a, norm_speed_b required;
 * scale_factor_a/b, iso_tput_*_steps_per_s, coloc_tput_*_steps_per_s checked when present).
 * Pairs whose scale factors are not both 1 are skipped (multi-GPU jobs share no GPU here). */
int  intf_load_gavel(intf *m, const tput *t, const char *path, struct errbuf *err);
/* IADeep's combination table (interference.csv, online_interference.csv): a presence column
 * and a `<name>_num` column (copies, written in binary) per model, whose names are hetsim job
 * types, and the sum of the jobs' slowdowns (`sum_interference` or `online_interference`),
 * split evenly over the jobs; rows of one job are skipped.  All on GPU type `gpu`. */
int  intf_load_iadeep(intf *m, const tput *t, const char *path, int gpu, struct errbuf *err);

/* Lucid's co-location pairs (S-Lab-System-Group/Lucid simulation/data/colocate_info.csv:
 * an unnamed index column, then per job model1/2, dataset1/2, gpu_num1/2, batchsize1/2,
 * amp1/2, speed1/2, and gpu_util, gmem_util, gmem; columns by header name, model1/2 and
 * speed1/2 required, the rest checked when present, unused otherwise).  speed = co-located
 * over solo throughput, slowdown 1 / speed - 1.  A model is the job type map[2k+1] where
 * map[2k] names it (nmap pairs); with nmap = 0 every model must itself be a job type, else
 * rows with a model outside the map are skipped.  Rows of multi-GPU jobs (gpu_num > 1) and
 * mixed precision (amp 1: hetsim's job types train in fp32) are skipped; of the batch sizes
 * a model was measured at, only the one nearest its job type's m0 (by ratio, ties the
 * smaller) is used, since the speed model's batch pressure is relative to m0.  All on GPU
 * type `gpu` (Lucid profiled on an RTX 3090).  0 or -1 (file:line: field). */
int  intf_load_lucid(intf *m, const tput *t, const char *path, int gpu, const char *const *map,
                     int nmap, struct errbuf *err);

/* The batch-pressure exponent theta of sim/train/share.h: a co-runner at batch m slows its
 * victim (m / m0)^theta times as much as at m0.  Observations: a victim's slowdown d beside
 * one co-runner at batch ratio r, in a group that fixes everything but the co-runner's batch
 * (the victim, its batch, the co-runner's model). */
struct intf_press_obs {
    int    group;
    double r, d;
};
struct intf_press_fit {
    double theta, rmse;             /* least squares over every observation */
    int    n, groups, held;
    double fold_theta[3];           /* each held-out fold's fit */
    double held_rmse;               /* error on held-out rows at the folds' theta */
    double held_rmse_0, held_rmse_half;     /* the same at theta 0 and 0.5 */
};
/* Least squares: d = a_g r^theta with a free a_g per group (closed form at each theta),
 * theta on a grid lo..hi by step (first minimum).  Held-out error: fold f (0..2) leaves out
 * the f-th, (f+3)-th ... row of every group of 3 or more, fits on the rest, predicts them.
 * 0 or -1 (out of memory). */
int  intf_pressure_fit(const struct intf_press_obs *o, int n, double lo, double hi, double step,
                       struct intf_press_fit *out);
/* Lucid's pairs as pressure observations: every fp32 one-GPU row gives two (each job as the
 * victim of the other), grouped by (victim model, its batch, co-runner model); r is the
 * co-runner's batch / 64.  Needs model1/2, batchsize1/2, amp1/2, gpu_num1/2, speed1/2.
 * *out is the caller's to free.  0 or -1 (file:line: field). */
int  intf_lucid_pressure_obs(const char *path, struct intf_press_obs **out, int *n,
                             struct errbuf *err);

/* Merge repeated combinations into their means (over every measurement so far) and complete
 * every GPU type's pairwise matrix; call after the last measurement, and again after more. */
int  intf_fit(intf *m, const struct intf_mf *p, uint64_t seed, struct errbuf *err);

/* Relative slowdown of job type jt on GPU type gpu sharing it with others[0..n) (n = 0: 0). */
double intf_slowdown(const intf *m, int gpu, int jt, const int *others, int n);
/* 1 if that exact combination was measured. */
int    intf_measured(const intf *m, int gpu, int jt, const int *others, int n);
/* Number of distinct measured combinations (all GPU types). */
int    intf_count(const intf *m);
/* The measured pairwise ratings of GPU type gpu (victim row, aggressor column, slowdown), for
 * tests of the completion; returns their number, at most cap written. */
int    intf_pairs(const intf *m, int gpu, struct intf_rating *out, int cap);

#endif
