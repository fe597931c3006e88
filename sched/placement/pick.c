/*
 * pick: filter, score, select with random ties, reserve GPUs (see the header).
 */
#include "pick.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>

#include "../../sim/base/grow.h"
#include "../../sim/base/rng.h"

int pick_init(struct pick *pk, uint64_t seed, const char *stream)
{
    *pk = (struct pick){ .seed = seed };
    pk->ties = rng_stream(seed, stream);
    return pk->ties != NULL ? 0 : -1;
}

void pick_fini(struct pick *pk)
{
    if (pk->ties != NULL)
        gsl_rng_free(pk->ties);
    free(pk->score);
    free(pk->cand);
    free(pk->gpu);
    free(pk->rank);
    *pk = (struct pick){ 0 };
}

const char *const pick_params[] = { "ties", NULL };

int pick_read_ties(struct pick *pk, const struct jobj *params, struct errbuf *err)
{
    static const char *const ties[] = { "order", "random", NULL };
    int k = 0;
    if (params != NULL && jobj_enum(params, "ties", JOPT, ties, &k, err) < 0)
        return -1;
    pk->random_ties = k == 1;
    return 0;
}

int pick_policy_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    struct pick *pk = calloc(1, sizeof *pk);
    if (pk == NULL || pick_init(pk, env->seed, "place_ties") < 0) {
        pick_policy_destroy(pk);
        return err_run(err, "out of memory");
    }
    if (pick_read_ties(pk, params, err) < 0) {
        pick_policy_destroy(pk);
        return -1;
    }
    *self = pk;
    return 0;
}

void pick_policy_destroy(void *self)
{
    if (self == NULL)
        return;
    pick_fini(self);
    free(self);
}

static int reserve(struct pick *pk, int n)
{
    if (n <= pk->cap)
        return 0;
    int failed = 0;
    pk->score = grow_array(pk->score, (size_t)n, sizeof *pk->score, &failed);
    pk->cand = grow_array(pk->cand, (size_t)n, sizeof *pk->cand, &failed);
    pk->gpu = grow_array(pk->gpu, (size_t)n, sizeof *pk->gpu, &failed);
    if (failed)
        return -1;
    pk->cap = n;
    return 0;
}

/* the tie order of the view's nodes: a permutation of their ranks, drawn once per run */
static int ranks(struct pick *pk, int n)
{
    if (pk->nrank == n)
        return 0;
    free(pk->rank);
    pk->nrank = 0;
    if ((pk->rank = malloc((size_t)n * sizeof *pk->rank)) == NULL)
        return -1;
    gsl_rng *r = rng_stream(pk->seed, "place_nodes");
    if (r == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        pk->rank[i] = i;
    gsl_ran_shuffle(r, pk->rank, (size_t)n, sizeof *pk->rank);
    gsl_rng_free(r);
    pk->nrank = n;
    return 0;
}

int pick_filter(struct pick *pk, const struct place_view *v, const struct place_pod *p)
{
    if (reserve(pk, v->nnodes) < 0 || ranks(pk, v->nnodes) < 0)
        return -1;
    int k = 0;
    for (int i = 0; i < v->nnodes; i++)
        if (place_view_fits(&v->nodes[i], p))
            pk->cand[k++] = i;
    return k;
}

/* a uniform index in [0, n) from the tie stream (no draw when n is 1) */
static int draw(struct pick *pk, int n)
{
    return n > 1 ? (int)gsl_rng_uniform_int(pk->ties, (unsigned long)n) : 0;
}

void pick_gpus_whole(const struct place_node *n, const struct place_pod *p,
                     struct place_choice *out)
{
    out->ngpus = 0;
    for (int g = 0; g < n->ngpus && out->ngpus < p->num_gpu; g++)
        if (n->gpu_free[g] == PLACE_MILLI)
            out->gpus[out->ngpus++] = g;
}

void pick_gpus(struct pick *pk, int gpus, const struct place_node *n, const struct place_pod *p,
               struct place_choice *out)
{
    out->ngpus = 0;
    if (p->num_gpu == 0)
        return;
    if (p->gpu_milli == PLACE_MILLI) {
        pick_gpus_whole(n, p, out);
        return;
    }
    int best = -1, nfit = 0, fit[PLACE_MAX_GPUS];
    for (int g = 0; g < n->ngpus; g++) {
        if (n->gpu_free[g] < p->gpu_milli)
            continue;
        fit[nfit++] = g;
        if (best < 0 || n->gpu_free[g] < n->gpu_free[best])
            best = g;
    }
    if (nfit == 0)
        return;
    out->gpus[0] = gpus == PICK_GPUS_RANDOM ? fit[draw(pk, nfit)] : best;
    out->ngpus = 1;
}

int pick_decide(struct pick *pk, const struct pick_rule *r, void *self,
                const struct place_view *v, const struct place_pod *p,
                struct place_choice *out, struct errbuf *err)
{
    out->node = -1;
    out->ngpus = 0;
    int k = pick_filter(pk, v, p);
    if (k < 0)
        return err_run(err, "out of memory");
    if (k == 0)
        return 0;
    int64_t hi = INT64_MIN, lo = INT64_MAX;
    for (int i = 0; i < k; i++) {
        pk->gpu[i] = -1;
        pk->score[i] = r->score(self, v, pk->cand[i], p, &pk->gpu[i]);
        if (pk->score[i] > hi)
            hi = pk->score[i];
        if (pk->score[i] < lo)
            lo = pk->score[i];
    }
    if (r->normalize) {
        /* Kubernetes' 0..100 range, in integers as FGD's NormalizeScore */
        for (int i = 0; i < k; i++)
            pk->score[i] = hi == lo ? 0 : (pk->score[i] - lo) * 100 / (hi - lo);
        hi = hi == lo ? 0 : 100;
    }
    int at = -1;
    if (pk->random_ties) {
        int nties = 0;
        for (int i = 0; i < k; i++)
            nties += pk->score[i] == hi;
        int pick = draw(pk, nties);
        for (int i = 0; i < k && at < 0; i++)
            if (pk->score[i] == hi && pick-- == 0)
                at = i;
    } else {
        for (int i = 0; i < k; i++)
            if (pk->score[i] == hi &&
                (at < 0 || pk->rank[pk->cand[i]] < pk->rank[pk->cand[at]]))
                at = i;
    }
    const struct place_node *n = &v->nodes[pk->cand[at]];
    out->node = pk->cand[at];
    if (r->gpus == PICK_GPUS_SCORE && p->num_gpu == 1 && p->gpu_milli < PLACE_MILLI) {
        out->gpus[0] = pk->gpu[at];
        out->ngpus = 1;
    } else {
        pick_gpus(pk, r->gpus, n, p, out);
    }
    return 0;
}
