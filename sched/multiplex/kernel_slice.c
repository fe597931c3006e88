/*
 * kernel_slice: kernel-level time slicing of shared GPUs — the "kernel-level sharing"
 * baseline of IADeep (SC'23, section 5), as CUDA shares a GPU among processes without MPS
 * (contexts take turns: a kernel of one job never runs beside a kernel of another) and as
 * Tally (Zhao et al., ASPLOS 2025) measures it ("time_slicing"); Salus (Yu and Chowdhury,
 * MLSys 2020) and TGS (Wu et al., NSDI 2023) share by turns in the same spirit.
 *
 * What it computes: a one-worker job goes, in arrival order, to the GPU with the fewest
 * holders whose memory still holds it (ties: least memory used, then lowest id), at most
 * `max_jobs` per GPU (default 4, as mps_even), and every holder of a GPU gets an even time
 * share 1000 / n, re-split whenever one joins or leaves; its grants are time-sliced
 * (grant.h sliced = 1), so the world rates job i at
 *     rate_i = solo_i x (1000 / n) / 1000 x (1 - slice_overhead)        (n >= 2 holders)
 * and solo_i alone (sim/train/share.h): the co-runners' types do not matter, only how many
 * there are.  Placement is mps_even's on purpose, so that the two differ only in how a GPU
 * is shared (space, with interference, against turns, with switching).  Multi-worker jobs
 * take whole free GPUs.
 *
 * Open assumptions: every job keeps the GPU busy through its slice (a job with idle gaps,
 * data loading or small kernels, would give them to its co-runners under real time
 * slicing; here it does not, which is this model's bias against time slicing for jobs with
 * low solo GPU use); the switching loss is one number for every job and GPU type
 * (multiplex.slice_overhead, 0.12 from Tally's A100 pairs: see share_read); no priority
 * among holders (equal slices, as the CUDA default); memory is the only admission check.
 * Cost per decision: O(GPUs) per job placed.
 */
#include "../policy.h"
#include "mux.h"

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    return mux_even_create(self, params, env, 1, err);
}

static const char *const params[] = { "max_jobs", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = mux_even_decide,
};

const struct policy_ops policy_kernel_slice = {
    .name = "kernel_slice",
    .domain = "training",
    .summary = "kernel-level time slicing: jobs share GPUs by turns, even slices, no overlap",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = mux_even_destroy,
    .train = &hooks,
};
