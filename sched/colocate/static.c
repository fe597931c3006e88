/*
 * static: the fixed partition, the baseline of Lyra's evaluation (separate inference and
 * training clusters).  Every node stays with its home tenant for the whole run: the
 * experiment's serving_groups serve, the rest train, and nothing is lent, so what `loan` and
 * `hetero_loan` gain is measured against the same cluster, workloads and seed without loans.
 */
#include <stdlib.h>

#include "../policy.h"

static int create(void **self, const struct jobj *params, const struct policy_env *env,
                  struct errbuf *err)
{
    (void)params;
    (void)env;
    (void)err;
    *self = NULL;
    return 0;
}

static void destroy(void *self) { (void)self; }

static int decide(void *self, const struct colo_view *v, int *move, struct errbuf *err)
{
    (void)self;
    (void)err;
    for (int k = 0; k < v->nnodes; k++)
        move[k] = 0;
    return 0;
}

static const struct colo_hooks hooks = { .decide = decide };

const struct policy_ops policy_static = {
    .name = "static",
    .domain = "colocate",
    .summary = "fixed partition: serving keeps its nodes, training its own; no loans "
               "(the baseline)",
    .create = create,
    .destroy = destroy,
    .colo = &hooks,
};
