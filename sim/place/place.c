/*
 * place: the arrival sequence, the placement loop and its accounting (see the header).
 * Invariants, checked as each answer is applied: no node's CPU, memory or GPU goes below
 * zero free; a GPU pod holds num_gpu distinct GPUs of its node with its milli each; the
 * fragmentation of a node is recomputed whenever the node changes, so the cluster's is the
 * sum over nodes in node order (the same rounding at every sample).
 */
#define _POSIX_C_SOURCE 200809L
#include "place.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

#include "../base/grow.h"
#include "../base/rng.h"
#include "../core/engine.h"
#include "pod.h"

enum { MAX_SEQ = 1 << 26 };         /* pods in one sequence */

struct ppod {
    char       *name;
    char       *spec;
    int64_t     row;
    int64_t     cpu, mem;
    int32_t     ngpu, milli;
    uint64_t    mask;
    const char *origin;
    long        line;
};

struct slot {
    int32_t pod;                    /* index into pods */
    int32_t draw;                   /* -1: listed; else its number among the draws */
};

struct place {
    const struct place_config *cfg;
    struct ppod       *pods;
    int64_t            npods;
    struct slot       *seq;
    int64_t            nseq, drawn, dropped;
    struct frag_type  *types;
    int                ntypes;
    struct place_node *nodes;
    double           (*amount)[FRAG_NCAT];  /* each node's idle milli by category */
    double            *frag;                /* each node's fragmented milli */
};

void place_destroy(place *p)
{
    if (p == NULL)
        return;
    for (int64_t i = 0; i < p->npods; i++) {
        free(p->pods[i].name);
        free(p->pods[i].spec);
    }
    free(p->pods);
    free(p->seq);
    free(p->types);
    free(p->nodes);
    free(p->amount);
    free(p->frag);
    free(p);
}

int64_t place_npods(const place *p)
{
    return p->nseq;
}

/* ---------------------------------------------------------------- the sequence */

static int read_pods(place *p, struct entity_source *src, struct errbuf *err)
{
    const struct nodes *ns = p->cfg->nodes;
    struct pod_spec ps;
    int64_t cap = 0;
    simtime last = 0;
    int rc, failed = 0;
    while ((rc = src->next(src->ctx, &ps, err)) > 0) {
        if (ps.arrival < last)
            return err_input(err, ps.origin, ps.line, NULL, "pods must come in list order");
        last = ps.arrival;
        if (p->npods == MAX_SEQ)
            return err_input(err, ps.origin, ps.line, NULL, "more than %d pods", MAX_SEQ);
        if (p->npods == cap) {
            cap = cap ? 2 * cap : 1024;
            p->pods = grow_array(p->pods, (size_t)cap, sizeof *p->pods, &failed);
            if (failed)
                return err_run(err, "out of memory");
        }
        struct ppod *q = &p->pods[p->npods];
        memset(q, 0, sizeof *q);
        /* a CPU-only pod's gpu_spec means nothing (FGD does not read it either) */
        const char *spec = ps.num_gpu > 0 ? ps.gpu_spec : "";
        if (ps.num_gpu > 0 &&
            nodes_spec_mask(ns, spec, ps.origin, ps.line, &q->mask, err) < 0)
            return -1;
        q->name = strdup(ps.name);
        q->spec = strdup(spec);
        p->npods++;
        if (q->name == NULL || q->spec == NULL)
            return err_run(err, "out of memory");
        q->row = ps.row;
        q->cpu = ps.cpu_milli;
        q->mem = ps.mem_mib;
        q->ngpu = ps.num_gpu;
        q->milli = ps.gpu_milli;
        q->origin = ps.origin;
        q->line = ps.line;
    }
    if (rc < 0)
        return -1;
    if (p->npods == 0)
        return err_input(err, NULL, 0, "workload", "no pods to place (the pod list is empty "
                         "after skip_jobs and max_jobs)");
    return 0;
}

static int64_t pod_milli(const struct ppod *q)
{
    return (int64_t)q->ngpu * q->milli;
}

/* FGD's workload tuning: draw pods from the list until the target load has arrived, or drop
 * pods from the sequence until it is not exceeded */
static int tune(place *p, uint64_t seed, struct errbuf *err)
{
    const struct place_config *c = p->cfg;
    double capacity = (double)(c->nodes->gpus * PLACE_MILLI), target = c->load * capacity;
    int64_t total = 0;
    for (int64_t i = 0; i < p->nseq; i++)
        total += pod_milli(&p->pods[p->seq[i].pod]);
    if (total == 0)
        return err_input(err, c->load_file, c->load_line, "sim.load", "the pods ask for no "
                         "GPU, so their GPU load cannot be brought to %g of the cluster's",
                         c->load);
    gsl_rng *r = rng_stream(seed, "place_draws");
    if (r == NULL)
        return err_run(err, "out of memory");
    int rc = 0;
    if ((double)total > target) {
        while ((double)total > target && p->nseq > 0) {
            int64_t k = (int64_t)gsl_rng_uniform_int(r, (unsigned long)p->nseq);
            total -= pod_milli(&p->pods[p->seq[k].pod]);
            memmove(&p->seq[k], &p->seq[k + 1], (size_t)(p->nseq - k - 1) * sizeof *p->seq);
            p->nseq--;
            p->dropped++;
        }
    } else {
        int64_t cap = p->nseq;
        int failed = 0;
        for (;;) {
            int64_t k = (int64_t)gsl_rng_uniform_int(r, (unsigned long)p->npods);
            const struct ppod *q = &p->pods[k];
            /* FGD compares the per-GPU request (podRes.MilliGpu), then adds the whole */
            if ((double)(total + q->milli) > target)
                break;
            if (p->nseq == MAX_SEQ) {
                rc = err_input(err, c->load_file, c->load_line, "sim.load", "a load of %g takes "
                               "more than %d pods", c->load, MAX_SEQ);
                break;
            }
            if (p->nseq == cap) {
                cap = 2 * cap + 1024;
                p->seq = grow_array(p->seq, (size_t)cap, sizeof *p->seq, &failed);
                if (failed) {
                    rc = err_run(err, "out of memory");
                    break;
                }
            }
            total += pod_milli(q);
            p->seq[p->nseq++] = (struct slot){ (int32_t)k, (int32_t)p->drawn++ };
        }
    }
    gsl_rng_free(r);
    return rc;
}

static int build_sequence(place *p, uint64_t seed, struct errbuf *err)
{
    p->seq = malloc((size_t)p->npods * sizeof *p->seq);
    if (p->seq == NULL)
        return err_run(err, "out of memory");
    for (int64_t i = 0; i < p->npods; i++)
        p->seq[i] = (struct slot){ (int32_t)i, -1 };
    p->nseq = p->npods;
    if (p->cfg->order == PLACE_ORDER_SHUFFLED) {
        gsl_rng *r = rng_stream(seed, "place_order");
        if (r == NULL)
            return err_run(err, "out of memory");
        gsl_ran_shuffle(r, p->seq, (size_t)p->nseq, sizeof *p->seq);
        gsl_rng_free(r);
    }
    return p->cfg->load > 0 ? tune(p, seed, err) : 0;
}

static int build_types(place *p, struct errbuf *err)
{
    struct frag_type *all = malloc((size_t)p->npods * sizeof *all);
    if (all == NULL)
        return err_run(err, "out of memory");
    for (int64_t i = 0; i < p->npods; i++) {
        const struct ppod *q = &p->pods[i];
        all[i] = (struct frag_type){ .cpu_milli = q->cpu, .gpu_milli = q->milli,
                                     .num_gpu = q->ngpu, .models = q->mask, .spec = q->spec };
    }
    int rc = frag_types_from_pods(all, (size_t)p->npods, p->cfg->type_share, &p->types,
                                  &p->ntypes);
    free(all);
    return rc < 0 ? err_run(err, "out of memory") : 0;
}

int place_create(place **out, const struct place_config *cfg, uint64_t seed,
                 struct entity_source *src, struct errbuf *err)
{
    *out = NULL;
    place *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_run(err, "out of memory");
    p->cfg = cfg;
    if (read_pods(p, src, err) < 0 || build_types(p, err) < 0 ||
        build_sequence(p, seed, err) < 0) {
        place_destroy(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* the name of sequence slot s ("<name>-tuned-<i>" for a draw, FGD's naming) */
static const char *slot_name(const place *p, const struct slot *s, char *buf, size_t cap)
{
    const struct ppod *q = &p->pods[s->pod];
    if (s->draw < 0)
        return q->name;
    snprintf(buf, cap, "%s-tuned-%d", q->name, s->draw);
    return buf;
}

int place_list(const place *p, FILE *f, struct errbuf *err)
{
    char buf[320];
    fprintf(f, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
    for (int64_t i = 0; i < p->nseq; i++) {
        const struct ppod *q = &p->pods[p->seq[i].pod];
        fprintf(f, "%s,%lld,%lld,%d,%d,%s\n", slot_name(p, &p->seq[i], buf, sizeof buf),
                (long long)q->cpu, (long long)q->mem, q->ngpu, q->milli, q->spec);
    }
    return ferror(f) ? err_run(err, "write error") : 0;
}

/* ---------------------------------------------------------------- the run */

static void node_frag(place *p, int n)
{
    struct frag_node fn = place_view_frag_node(&p->nodes[n]);
    p->frag[n] = frag_node(p->types, p->ntypes, &fn, p->amount[n]);
}

static int init_nodes(place *p, struct errbuf *err)
{
    const struct nodes *ns = p->cfg->nodes;
    p->nodes = calloc((size_t)ns->n, sizeof *p->nodes);
    p->amount = calloc((size_t)ns->n, sizeof *p->amount);
    p->frag = calloc((size_t)ns->n, sizeof *p->frag);
    if (p->nodes == NULL || p->amount == NULL || p->frag == NULL)
        return err_run(err, "out of memory");
    for (int i = 0; i < ns->n; i++) {
        const struct nodes_node *d = &ns->v[i];
        struct place_node *n = &p->nodes[i];
        *n = (struct place_node){ .name = d->sn, .model = d->model, .ngpus = d->ngpus,
                                  .cpu_milli = d->cpu_milli, .mem_mib = d->mem_mib,
                                  .cpu_free = d->cpu_milli, .mem_free = d->mem_mib };
        for (int g = 0; g < n->ngpus; g++)
            n->gpu_free[g] = PLACE_MILLI;
        node_frag(p, i);
    }
    return 0;
}

struct acct {
    int64_t gpus_used, milli_used, milli_arrived, cpu_used, mem_used;
    int64_t placed, unallocated;
};

static void apply(place *p, const struct place_pod *pod, const struct place_choice *c,
                  struct acct *a)
{
    struct place_node *n = &p->nodes[c->node];
    n->cpu_free -= pod->cpu_milli;
    n->mem_free -= pod->mem_mib;
    for (int i = 0; i < c->ngpus; i++) {
        int g = c->gpus[i];
        a->gpus_used += n->gpu_free[g] == PLACE_MILLI;
        n->gpu_free[g] -= pod->gpu_milli;
    }
    if (pod->tag >= 0 && n->tag_pods[pod->tag]++ == 0)
        n->ntags++;
    n->version++;
    a->milli_used += (int64_t)pod->num_gpu * pod->gpu_milli;
    a->cpu_used += pod->cpu_milli;
    a->mem_used += pod->mem_mib;
    node_frag(p, c->node);
}

/* the cluster's fragmentation: the nodes' in node order */
static double cluster_frag(const place *p, double amount[FRAG_NCAT])
{
    double f = 0;
    memset(amount, 0, FRAG_NCAT * sizeof *amount);
    for (int i = 0; i < p->cfg->nodes->n; i++) {
        f += p->frag[i];
        for (int c = 0; c < FRAG_NCAT; c++)
            amount[c] += p->amount[i][c];
    }
    return f;
}

static int sample(place *p, const struct place_sink *s, simtime t, const struct acct *a,
                  struct errbuf *err)
{
    const struct nodes *ns = p->cfg->nodes;
    double amount[FRAG_NCAT], frag = cluster_frag(p, amount);
    double milli = (double)(ns->gpus * PLACE_MILLI), idle = milli - (double)a->milli_used;
    struct { const char *name; double v; } pts[] = {
        { "arrived_gpu_frac", (double)a->milli_arrived / milli },
        { "gpu_alloc_frac", (double)a->gpus_used / (double)ns->gpus },
        { "milli_alloc_frac", (double)a->milli_used / milli },
        { "frag_frac", idle > 0 ? frag / idle : 0 },
        { "frag_cluster_frac", frag / milli },
        { "pods_unallocated", (double)a->unallocated },
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        if (s->sample(s->ctx, t, pts[i].name, pts[i].v, err) < 0)
            return -1;
    return 0;
}

static struct place_pod view_pod(const place *p, const struct slot *s, char *buf, size_t cap)
{
    const struct ppod *q = &p->pods[s->pod];
    int tag = q->ngpu == 0 ? -1 : q->milli < PLACE_MILLI ? PLACE_TAG_SHARE : q->ngpu;
    if (tag > PLACE_MAX_GPUS)
        tag = -1;                   /* no node has that many GPUs: it never lands */
    return (struct place_pod){ .name = slot_name(p, s, buf, cap), .cpu_milli = q->cpu,
                               .mem_mib = q->mem, .num_gpu = q->ngpu, .gpu_milli = q->milli,
                               .models = q->mask, .tag = tag };
}

int place_run(place *p, const struct place_decider *d, const struct place_sink *sink,
              struct place_totals *out, struct errbuf *err)
{
    const struct place_config *cfg = p->cfg;
    const struct nodes *ns = cfg->nodes;
    memset(out, 0, sizeof *out);
    if (init_nodes(p, err) < 0)
        return -1;
    struct place_view v = { .nodes = p->nodes, .nnodes = ns->n,
                            .models = (const char *const *)ns->models,
                            .nmodels = ns->nmodels, .types = p->types, .ntypes = p->ntypes };
    struct acct a = { 0 };
    double milli = (double)(ns->gpus * PLACE_MILLI);
    int64_t grid = 1;               /* the next sample at grid x sample_load arrived */
    int stop = ENGINE_DRAINED, sampled_last = 0;
    int64_t k = 0;
    char name[320];
    for (; k < p->nseq; k++) {
        simtime t = k * SIM_SEC;
        if (cfg->max_events > 0 && (uint64_t)k >= cfg->max_events) {
            stop = ENGINE_MAX_EVENTS;
            break;
        }
        if (t > cfg->until) {
            stop = ENGINE_UNTIL;
            break;
        }
        const struct slot *s = &p->seq[k];
        const struct ppod *q = &p->pods[s->pod];
        struct place_pod pod = view_pod(p, s, name, sizeof name);
        struct place_choice c = { .node = -1 };
        a.milli_arrived += pod_milli(q);
        v.seq = k;
        if (d->decide(d->ctx, &v, &pod, &c, err) < 0 || place_view_check(&v, &pod, &c, err) < 0)
            return -1;
        if (c.node >= 0) {
            apply(p, &pod, &c, &a);
            a.placed++;
        } else {
            a.unallocated++;
        }
        double arrived = (double)a.milli_arrived / milli;
        struct place_record r = {
            .seq = k, .name = pod.name, .row = q->row, .drawn = s->draw >= 0,
            .cpu_milli = q->cpu, .mem_mib = q->mem, .num_gpu = q->ngpu, .gpu_milli = q->milli,
            .gpu_spec = q->spec, .node = c.node >= 0 ? p->nodes[c.node].name : NULL,
            .node_index = c.node,
            .gpus = c.gpus, .ngpus = c.node >= 0 ? c.ngpus : 0, .arrived_gpu_frac = arrived,
        };
        if (sink->pod(sink->ctx, &r, err) < 0)
            return -1;
        sampled_last = 0;
        if (cfg->sample_load > 0 && arrived >= (double)grid * cfg->sample_load) {
            if (sample(p, sink, t, &a, err) < 0)
                return -1;
            sampled_last = 1;
            while ((double)grid * cfg->sample_load <= arrived)
                grid++;
        }
    }
    if (cfg->sample_load > 0 && k > 0 && !sampled_last &&
        sample(p, sink, (k - 1) * SIM_SEC, &a, err) < 0)
        return -1;
    out->end = k > 0 ? (k - 1) * SIM_SEC : 0;
    out->stop = stop;
    out->pods_listed = p->npods;
    out->pods_total = k;
    out->pods_drawn = p->drawn;
    out->pods_dropped = p->dropped;
    out->pods_placed = a.placed;
    out->pods_unallocated = a.unallocated;
    out->gpus = ns->gpus;
    out->gpus_used = a.gpus_used;
    out->milli_total = ns->gpus * PLACE_MILLI;
    out->milli_used = a.milli_used;
    out->milli_arrived = a.milli_arrived;
    out->cpu_total = ns->cpu_milli;
    out->cpu_used = a.cpu_used;
    out->mem_total = ns->mem_mib;
    out->mem_used = a.mem_used;
    out->frag = cluster_frag(p, out->amount);
    out->ntypes = p->ntypes;
    return 0;
}
