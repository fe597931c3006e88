/*
 * share: the speed hook of shared GPUs — a multiplexed job's rate from its own batch size
 * and every co-runner on its GPUs, through an interference model (models/interference.h),
 * and its GPU memory, so that the world can refuse a GPU whose jobs do not fit.
 *
 * Rate (iterations of its original batch m0 per second):
 *   solo x progress(m, ns)  with  progress = ns (m / m0) E / (t(m) / t(m0))  (models/stateff.h)
 * where solo is the throughput model's rate alone at m0 and ns the normalized speed on its
 * worst GPU.  Alone on a GPU, ns = share / 1000 (an MPS thread limit, as the rigid hook).
 * With k - 1 co-runners, ns = 1 / (1 + w d): d is the interference model's slowdown given
 * all co-runners' job types, scaled by their mean batch pressure (m_k / m0_k)^theta (a larger
 * batch launches larger kernels; theta 0.655 is fitted on Lucid's pairs, where the co-runner's
 * batch varies: models/interference.c says how, intf_pressure_exp_default), and w weighs it by
 * share, w = (1 - share / 1000) k / (k - 1): 1 for equal shares (MPS, Gandiva's packing),
 * below 1 for a job that holds most of the GPU (AntMan's guaranteed job) and above 1 for the
 * jobs that yield to it (its opportunistic ones).
 *
 * Time slicing (a grant with sliced = 1, grant.h: kernel-level sharing, the CUDA default
 * without MPS): the holders' kernels take turns and never overlap, so no co-runner contends
 * for SMs or memory bandwidth while a job's kernel runs; with k >= 2 holders a job runs at
 * ns = (share / 1000) (1 - slice_overhead), where slice_overhead is the share of the GPU's
 * time lost to context switches and to the slices' idle tails (default 0.12, from Tally's
 * time-slicing measurements on an A100: see share_read); alone it is share / 1000.
 *
 * Memory: fixed_gb + per_sample_gb x batch, with fixed_gb = context_gb + 16 bytes per
 * parameter (fp32 weights, gradients and two Adam moments: Rajbhandari et al., ZeRO, SC'20,
 * section 3.1) and per_sample_gb from the job type's footprint at m0 (models/data/
 * jobtypes.json mem_gb); a type whose footprint is below fixed_gb counts half of it as
 * fixed and half as activations.
 *
 * Ownership: share_create allocates and takes the interference model; share_destroy frees
 * both.  The cluster and throughput model are borrowed.  Rates are pure reads: O(ngpu x nco).
 */
#ifndef HETSIM_SHARE_H
#define HETSIM_SHARE_H

#include "../../models/interference.h"
#include "../../models/stateff.h"
#include "speed.h"

struct share_params {
    double overhead;        /* stateff overhead of every job type, [0, 1) */
    double gns_ratio;       /* gradient noise scale as a multiple of m0, where not given */
    double pressure_exp;    /* theta */
    double context_gb;      /* CUDA context and allocator slack per job */
    double slice_overhead;  /* share of a time-sliced GPU's time lost to switching, [0, 1) */
    const double *gns;      /* by job type: its GNS in samples, 0 = gns_ratio x m0 (may be NULL) */
};

typedef struct share share;

/* The default switching loss of time-sliced GPUs (multiplex.slice_overhead): see share.c. */
extern const double share_slice_overhead_default;

/* The experiment's "multiplex" object, read (share_read) before the job types are known and
 * turned into a model per run (share_open). */
enum { SHARE_MAX_SOURCES = 8, SHARE_MAX_GNS = 64, SHARE_MAX_MAP = 32 };
struct share_config {
    int    on;                          /* the experiment has a "multiplex" section */
    char   at[192];                     /* its path ("multiplex", a tenant's
                                           "tenants.training.multiplex"), for messages */
    int    nsrc;
    struct {
        int  format;                    /* 0 gavel, 1 iadeep, 2 lucid */
        char path[4096];
        char gpu[64];                   /* iadeep, lucid: the GPU type its table was measured on */
        char file[256];                 /* where "gpu" was written, for messages */
        long line;
        int  nmap;                      /* lucid: "models", its model -> hetsim job type */
        char map[SHARE_MAX_MAP][2][64];
        long map_line[SHARE_MAX_MAP];
    } src[SHARE_MAX_SOURCES];
    struct share_params p;
    struct intf_mf mf;
    uint64_t mf_seed;
    int    ngns;
    struct {
        char   name[64];
        double gns;
        char   file[256];
        long   line;
    } gns[SHARE_MAX_GNS];
};

/* Read "multiplex" (absent: c->on = 0).  Paths are resolved against base_dir (see
 * sim/base/path.h).  0 or -1 with file:line:field. */
int  share_read(struct share_config *c, const struct jobj *root, const char *base_dir,
                struct errbuf *err);
/* The model of one run: read the tables, fit the completion.  0 or -1. */
int  share_open(share **out, const struct share_config *c, const tput *model,
                struct errbuf *err);

int  share_create(share **out, const tput *model, intf *interference,
                  const struct share_params *p, struct errbuf *err);
void share_destroy(share *s);

const struct train_speed *share_speed(const share *s);

/* The batch model of job type jt (m0, GNS, overhead, memory). */
const struct stateff_job *share_job(const share *s, int jt);

/* The normalized speed (0, 1] of job type jt at `share` on one GPU of type gpu_type with
 * co-runners co[0..nco) (only those with .gpu == gpu are counted). */
double share_ns(const share *s, int gpu_type, int gpu, int jt, uint16_t share, int sliced,
                const struct train_corunner *co, int nco);

#endif
