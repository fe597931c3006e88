/*
 * hetero_loan: capacity loaning by GPU type, which none of Lyra's kind does.  Lending and
 * reclaiming as in `loan` (loan_plan), but serving's nodes are lent in order of what training
 * gains per unit of serving capacity lost on their GPU type (loan_type_scores: the mean
 * training job's rate on the type over its best type's, over serving's tokens/s per GPU of
 * the type over its best type's, both measured on the run's tenants): the types serving is
 * relatively best on stay with serving (prefill on the high-end GPUs, say), the others go
 * first.  The same headroom keeps serving's demand covered.
 * Parameters: "headroom" (default 0.2), "lend" ("waiting" or "spare") and the SLO guard's
 * "slo_guard", "slo_decrease", "slo_increase" (off by default; hetsim's, sched/loan.h), as
 * loan's.
 */
#include <stdlib.h>

#include "../loan.h"
#include "../policy.h"

struct hetero {
    struct loan_params p;
    struct loan_guard  g;       /* the SLO guard's state over the run (off by default) */
};

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    (void)env;
    struct hetero *h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_run(err, "out of memory");
    h->p.headroom = 0.2;
    static const char *const lends[] = { "waiting", "spare", NULL };
    if (jobj_num(params, "headroom", JOPT, 0, 100, &h->p.headroom, err) < 0 ||
        jobj_enum(params, "lend", JOPT, lends, &h->p.lend_spare, err) < 0 ||
        loan_guard_read(&h->g, params, err) < 0) {
        free(h);
        return -1;
    }
    *self = h;
    return 0;
}

static void destroy(void *self) { free(self); }

static int decide(void *self, const struct colo_view *v, int *move, struct errbuf *err)
{
    struct hetero *h = self;
    double score[CLUSTER_MAX_TYPES];
    loan_type_scores(v->train_gain, v->serve_gain, v->ntypes, score);
    loan_guard_update(&h->g, v->serve_slo_miss, v->serve_slo_seen);
    return loan_plan_scaled(v, &h->p, score, h->g.f, move, err);
}

static int metrics(void *self, const struct policy_metric_sink *out, struct errbuf *err)
{
    const struct hetero *h = self;
    return loan_guard_metrics(&h->g, out, err);
}

static int watches_slo(const void *self)
{
    return loan_guard_on(&((const struct hetero *)self)->g);
}

static const struct colo_hooks hooks = { .decide = decide, .watches_slo = watches_slo };
static const char *const params[] = { "headroom", "lend", "slo_guard", "slo_decrease",
                                      "slo_increase", NULL };

const struct policy_ops policy_hetero_loan = {
    .name = "hetero_loan",
    .domain = "colocate",
    .summary = "loaning by GPU type: lend first the types where training gains most per unit "
               "of serving capacity lost, with a headroom for serving",
    .params = params,
    .create = create,
    .destroy = destroy,
    .metrics = metrics,
    .colo = &hooks,
};
