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
#include <stdlib.h>

#include "../policy.h"
#include "mux.h"

struct mps {
    struct mux m;
    int        max_jobs;
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    struct mps *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    int64_t mj = 4;
    if (jobj_int(params, "max_jobs", JOPT, 1, MUX_MAX_JOBS, &mj, err) < 0) {
        free(p);
        return -1;
    }
    p->max_jobs = (int)mj;
    if (mux_init(&p->m, env->cl) < 0) {
        free(p);
        return err_run(err, "out of memory");
    }
    *self = p;
    return 0;
}

static void destroy(void *self)
{
    struct mps *p = self;
    mux_fini(&p->m);
    free(p);
}

static int decide(void *self, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    struct mps *p = self;
    return mux_decide_even(&p->m, v, out, p->max_jobs, 0, err);
}

static const char *const params[] = { "max_jobs", NULL };

static const struct train_hooks hooks = {
    .wake = WAKE_ARRIVAL | WAKE_COMPLETION,
    .decide = decide,
};

const struct policy_ops policy_mps_even = {
    .name = "mps_even",
    .domain = "training",
    .summary = "MPS: jobs share GPUs in arrival order, even shares, blind to interference",
    .flags = POLICY_FIFO,
    .params = params,
    .create = create,
    .destroy = destroy,
    .train = &hooks,
};
