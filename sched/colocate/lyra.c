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
 * "slo_guard" (off by default) is hetsim's addition, not Lyra's: Lyra trusts the modelled
 * capacity; with it on, the policy plans on a factor f of it that an AIMD rule keeps from the
 * observed fraction of serving's first tokens that missed its TTFT objective each period
 * (struct loan_guard, sched/loan.h; "slo_decrease" 0.8 and "slo_increase" 0.05 by default).
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
    struct loan_guard  g;       /* the SLO guard's state over the run (off by default) */
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
        jobj_enum(params, "lend", JOPT, lends, &l->p.lend_spare, err) < 0 ||
        loan_guard_read(&l->g, params, err) < 0) {
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
    loan_guard_update(&l->g, v->serve_slo_miss, v->serve_slo_seen);
    return loan_plan_scaled(v, &l->p, same, l->g.f, move, err);
}

static int metrics(void *self, const struct policy_metric_sink *out, struct errbuf *err)
{
    const struct lyra *l = self;
    return loan_guard_metrics(&l->g, out, err);
}

static int watches_slo(const void *self)
{
    return loan_guard_on(&((const struct lyra *)self)->g);
}

static const struct colo_hooks hooks = { .decide = decide, .watches_slo = watches_slo };
static const char *const params[] = { "headroom", "lend", "slo_guard", "slo_decrease",
                                      "slo_increase", NULL };

const struct policy_ops policy_loan = {
    .name = "loan",
    .domain = "colocate",
    .summary = "Lyra's capacity loaning: serving's idle nodes lent to waiting training jobs, "
               "reclaimed at least preemption cost when serving's load rises",
    .params = params,
    .create = create,
    .destroy = destroy,
    .metrics = metrics,
    .colo = &hooks,
};
