/*
 * mps_even: NVIDIA MPS with an even share per client — the "MPS" baseline of IADeep (SC'23,
 * section 5) and of AntMan (OSDI'20).
 *
 * A one-worker job goes, in arrival order, to the GPU with the fewest holders whose memory
 * still holds it (ties: least memory used, then lowest id), at most `max_jobs` per GPU
 * (default 4); every holder of a GPU gets 1000 / n of it, re-split whenever one joins or
 * leaves.  It does not look at interference: which jobs share a GPU is an accident of
 * arrival order.  Multi-worker jobs take whole free GPUs.  Open assumptions: MPS's thread
 * percentage is the share (models the even split CUDA_MPS_ACTIVE_THREAD_PERCENTAGE gives);
 * memory is the only admission check, as with MPS (an out-of-memory job would crash).
 * Cost per decision: O(GPUs) per job placed.
 */
#include "../policy.h"
#include "mux.h"

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    return mux_even_create(self, params, env, 0, err);
}

static const char *const params[] = { "max_jobs", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = mux_even_decide,
};

const struct policy_ops policy_mps_even = {
    .name = "mps_even",
    .domain = "training",
    .summary = "MPS: jobs share GPUs in arrival order, even shares, blind to interference",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = mux_even_destroy,
    .train = &hooks,
};
