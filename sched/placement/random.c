/*
 * random: random fit, FGD's "Random" baseline (ATC 2023, section 6.1; its artifact's
 * RandomScore plugin with the random GPU selection): each pod goes to a node drawn uniformly
 * from those that fit it, and a pod sharing a GPU to a GPU of that node drawn uniformly from
 * those with room; whole GPUs are the node's first fully free ones by index.  Parameters:
 * none.  O(nodes) per pod.
 */

#include "../policy.h"
#include "pick.h"

static int random_decide(void *self, const struct place_view *v, const struct place_pod *p,
                         struct place_choice *out, struct errbuf *err)
{
    struct pick *pk = self;
    out->node = -1;
    out->ngpus = 0;
    int k = pick_filter(pk, v, p);
    if (k < 0)
        return err_run(err, "out of memory");
    if (k == 0)
        return 0;
    out->node = pk->cand[gsl_rng_uniform_int(pk->ties, (unsigned long)k)];
    pick_gpus(pk, PICK_GPUS_RANDOM, &v->nodes[out->node], p, out);
    return 0;
}

static const struct place_hooks hooks = { .decide = random_decide };

const struct policy_ops policy_random = {
    .name = "random",
    .domain = "placement",
    .summary = "random fit: a node drawn uniformly among those that fit, a random GPU with room",
    .flags = POLICY_SEEDED,
    .create = pick_policy_create,
    .destroy = pick_policy_destroy,
    .place = &hooks,
};
