/*
 * fuzz_openb: Alibaba's openb lists and the placement world — the node list (nodes_load), the
 * pod list through workload_open / workload_source (format "openb"), and, when both read,
 * a whole placement run (place_create, place_run) with one of the placement policies.
 *
 * Input: FLAGS NODES \0 PODS.  FLAGS (one byte): bit 0 shuffles the pods, bits 1-3 the target
 * load (0, 0.25, ..., 1.75 of the cluster's GPUs; 0 keeps the list), bits 4-6 the policy
 * (fgd, random, dotprod, bestfit, clustering, gpupacking).  At most 3,000 pods are read
 * (max_jobs) and nodes are capped at 300, to keep an execution short.  Every pod must be
 * sane (a name, a GPU request by the openb rules), and a run's figures must hold: every pod
 * placed or not, no more GPUs, milli-GPU, CPU or memory used than the nodes have, a
 * fragmentation between 0 and the idle milli.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sched/policy.h"
#include "../../sim/place/place.h"
#include "../../sim/place/pod.h"
#include "../../workloads/workload.h"
#include "fuzzutil.h"

enum { PODS_CAP = 3000, NODES_CAP = 300 };

static const char *const policies[] = { "fgd", "random", "dotprod", "bestfit", "clustering",
                                        "gpupacking", "fgd", "random" };

static void check_pod(const struct pod_spec *s)
{
    if (s->name == NULL || s->name[0] == '\0' || s->num_gpu < 0 || s->cpu_milli < 0 ||
        s->mem_mib < 0 || (s->num_gpu == 0 && s->gpu_milli != 0) ||
        (s->num_gpu == 1 && (s->gpu_milli < 1 || s->gpu_milli > 1000)) ||
        (s->num_gpu > 1 && s->gpu_milli != 1000) || s->gpu_spec == NULL)
        fz_fail("pod line %ld: %d GPUs of %d milli, cpu %lld, memory %lld", s->line,
                s->num_gpu, s->gpu_milli, (long long)s->cpu_milli, (long long)s->mem_mib);
}

static double c_load(uint8_t flags)
{
    return ((flags >> 1) & 7) * 0.25;
}

struct count {
    int64_t pods, placed;
};

static int on_pod(void *ctx, const struct place_record *r, struct errbuf *err)
{
    (void)err;
    struct count *n = ctx;
    n->pods++;
    n->placed += r->node != NULL;
    if (r->node != NULL && r->ngpus != r->num_gpu)
        fz_fail("pod %s placed with %d GPUs of %d", r->name, r->ngpus, r->num_gpu);
    return 0;
}

static int on_sample(void *ctx, simtime t, const char *name, double v, struct errbuf *err)
{
    (void)ctx;
    (void)err;
    if (!(v >= 0) || t < 0)
        fz_fail("sample %s = %g at %lld", name, v, (long long)t);
    return 0;
}

/* the pod list alone, drained and checked */
static void drain(const char *json_path, const tput *m)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *d;
    struct jobj cfg;
    if (jsonf_load(&d, json_path, &err) < 0)
        fz_fail("the harness's own workload JSON: %s", err.msg);
    if (jobj_root(&cfg, d, &err) < 0)
        fz_fail("%s", err.msg);
    struct workload_env env = { m, 1, fz_dir() };
    workload *w = NULL;
    int rc = workload_open(&w, &cfg, &env, &err);
    fz_check_err(rc, &err, "workload_open (openb)");
    if (rc == 0) {
        struct entity_source *src = workload_source(w);
        struct pod_spec s;
        for (;;) {
            err_clear(&err);
            rc = src->next(src->ctx, &s, &err);
            fz_check_err(rc, &err, "pod source next");
            if (rc <= 0)
                break;
            check_pod(&s);
        }
        workload_close(w);
    }
    jsonf_destroy(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    data++;
    size--;
    size_t nlen;
    const uint8_t *ndata = fz_cut(&data, &size, 0, &nlen);
    char npath[4096], ppath[4096], jpath[4096], json[8300];
    fz_write(npath, sizeof npath, "nodes.csv", ndata, nlen);
    fz_write(ppath, sizeof ppath, "pods.csv", data, size);
    snprintf(json, sizeof json, "{\"format\": \"openb\", \"trace\": \"%s\", \"max_jobs\": %d}",
             ppath, PODS_CAP);
    fz_write(jpath, sizeof jpath, "workload.json", json, strlen(json));
    const tput *m = fz_models();
    drain(jpath, m);

    struct errbuf err;
    err_clear(&err);
    struct nodes *ns = NULL;
    int rc = nodes_load(&ns, npath, &err);
    fz_check_err(rc, &err, "nodes_load");
    if (rc < 0)
        return 0;
    if (ns->n > NODES_CAP || ns->gpus <= 0 || ns->nmodels < 1) {
        nodes_free(ns);
        return 0;
    }
    /* a run on those nodes (a load draws pods up to it: keep the cluster small then) */
    if (c_load(flags) > 0 && ns->gpus > 256) {
        nodes_free(ns);
        return 0;
    }
    jsonf *d;
    struct jobj cfg;
    if (jsonf_load(&d, jpath, &err) < 0 || jobj_root(&cfg, d, &err) < 0)
        fz_fail("%s", err.msg);
    struct workload_env env = { m, 1, fz_dir() };
    workload *w = NULL;
    if (workload_open(&w, &cfg, &env, &err) < 0) {
        jsonf_destroy(d);
        nodes_free(ns);
        return 0;
    }
    struct place_config c = { .nodes = ns, .order = flags & 1, .load = c_load(flags),
                              .type_share = 0.95, .sample_load = 0.05, .until = SIM_NEVER };
    struct policy_env penv = { .seed = 1 };
    policy *pol = NULL;
    if (policy_open(&pol, policies[(flags >> 4) & 7], NULL, &penv, &err) < 0)
        fz_fail("policy_open: %s", err.msg);
    place *p = NULL;
    err_clear(&err);
    rc = place_create(&p, &c, 1, workload_source(w), &err);
    fz_check_err(rc, &err, "place_create");
    if (rc == 0) {
        struct count n = { 0 };
        struct place_sink sink = { &n, on_pod, on_sample };
        struct place_totals t;
        err_clear(&err);
        rc = place_run(p, policy_decider(pol), &sink, &t, &err);
        fz_check_err(rc, &err, "place_run");
        if (rc < 0)
            fz_fail("a run of a policy failed: %s", err.msg);
        double idle = (double)(t.milli_total - t.milli_used);
        if (t.pods_placed + t.pods_unallocated != t.pods_total || n.pods != t.pods_total ||
            n.placed != t.pods_placed || t.gpus_used > t.gpus || t.milli_used > t.milli_total ||
            t.cpu_used > t.cpu_total || t.mem_used > t.mem_total || t.frag < -1e-6 ||
            t.frag > idle + 1e-6 || t.gpus != ns->gpus)
            fz_fail("totals: %lld pods, %lld placed, %lld unallocated, rows %lld/%lld; GPUs "
                    "%lld/%lld, milli %lld/%lld, frag %g of %g idle",
                    (long long)t.pods_total, (long long)t.pods_placed,
                    (long long)t.pods_unallocated, (long long)n.pods, (long long)n.placed,
                    (long long)t.gpus_used, (long long)t.gpus, (long long)t.milli_used,
                    (long long)t.milli_total, t.frag, idle);
        place_destroy(p);
    }
    policy_close(pol);
    workload_close(w);
    jsonf_destroy(d);
    nodes_free(ns);
    return 0;
}
