/*
 * loan: Lyra's capacity loaning (Li et al., "Lyra: Elastic Scheduling for Deep Learning
 * Clusters", EuroSys 2023).  Serving's servers that its load does not need are lent to
 * training while training has jobs waiting; when serving's load rises above what it holds,
 * loaned servers come back, those whose jobs cost least to preempt first (loan_plan,
 * sched/loan.h).  Lyra's servers are alike, so the order it lends in carries no information:
 * here, node order.  Its demand estimate is the tokens that arrived over the last broker
 * period (a router's knowledge: prompts, and the mean finished output per request), against
 * the modelled capacity of the instances on each node, with a headroom.
 * Parameters: "headroom" (default 0.2: serving keeps 1.2 x its demand); "lend" ("waiting",
 * the default: only while training has jobs waiting, as many GPUs as they ask for; "spare":
 * every node serving can spare, for elastic jobs to grow onto, as Lyra lends its idle
 * inference servers to the training cluster).
 * Assumptions the paper leaves open or hetsim does not model: its knapsack allocation of the
 * loaned servers to elastic jobs is the training tenant's own policy here (a job's grant on a
 * loaned node is its policy's choice: `lyra`, sched/elastic/lyra_grow.c, is Lyra's);
 * preemption cost is the GPU-seconds of restore.
 */
#include <stdlib.h>

#include "../loan.h"
#include "../policy.h"

struct lyra {
    struct loan_params p;
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    (void)env;
    struct lyra *l = calloc(1, sizeof *l);
    if (l == NULL)
        return err_run(err, "out of memory");
    l->p.headroom = 0.2;
    static const char *const lends[] = { "waiting", "spare", NULL };
    if (jobj_num(params, "headroom", JOPT, 0, 100, &l->p.headroom, err) < 0 ||
        jobj_enum(params, "lend", JOPT, lends, &l->p.lend_spare, err) < 0) {
        free(l);
        return -1;
    }
    *self = l;
    return 0;
}

static void destroy(void *self) { free(self); }

static int decide(void *self, const struct colo_view *v, int *move, struct errbuf *err)
{
    struct lyra *l = self;
    double same[CLUSTER_MAX_TYPES] = { 0 };     /* servers alike: node order decides */
    return loan_plan(v, &l->p, same, move, err);
}

static const struct colo_hooks hooks = { .decide = decide };
static const char *const params[] = { "headroom", "lend", NULL };

const struct policy_ops policy_loan = {
    .name = "loan",
    .domain = "colocate",
    .summary = "Lyra's capacity loaning: serving's idle nodes lent to waiting training jobs, "
               "reclaimed at least preemption cost when serving's load rises",
    .params = params,
    .create = create,
    .destroy = destroy,
    .colo = &hooks,
};
