/*
 * test_openb: the readers of Alibaba's openb lists (sim/place/openb.c, the node list of
 * sim/place/nodes.c and the pod-list format of workloads/trace_openb.c) — columns found by
 * name in any order, both column sets of the family (11 and 5 pod columns), the values a
 * pod and a node carry, gpu_spec against the node list's models, and the shipped 2023 lists
 * in ../shared/traces/alibaba_gpu2023/ read whole (their counts as SOURCE.txt gives them).
 * Malformed rows end to end through the CLI, with their file:line:field, are in
 * tests/test_inputs.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/place/nodes.h"
#include "../sim/place/pod.h"
#include "../workloads/workload.h"
#include "helpers.h"

TestSuite(openb, .init = th_models_init, .fini = th_models_fini);

static const char *shared(const char *file)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/%s", th_shared_dir("traces/alibaba_gpu2023"), file);
    return p;
}

/* ---- node lists ---- */

Test(openb, node_list_columns_by_name)
{
    char *p = th_write("n.csv", "model,gpu,sn,memory_mib,cpu_milli\n"
                                "T4,2,a,1024,8000\nV100M16,8,b,4096,96000\n"
                                "T4,1,c,512,4000\n");
    struct nodes *ns;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(nodes_load(&ns, p, &err), 0, "%s", err.msg);
    cr_assert_eq(ns->n, 3);
    cr_assert_eq(ns->gpus, 11);
    cr_assert_eq(ns->cpu_milli, 108000);
    cr_assert_eq(ns->mem_mib, 5632);
    cr_assert_eq(ns->nmodels, 2, "models numbered by first appearance");
    cr_assert_str_eq(ns->models[0], "T4");
    cr_assert_str_eq(ns->v[1].sn, "b");
    cr_assert_eq(ns->v[1].model, 1);
    cr_assert_eq(ns->v[1].ngpus, 8);
    cr_assert_eq(ns->v[2].line, 4);
    uint64_t m;
    cr_assert_eq(nodes_spec_mask(ns, "V100M16||T4|", "x", 1, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m, 3);
    cr_assert_eq(nodes_spec_mask(ns, "", "x", 1, &m, &err), 0);
    cr_assert_eq(m, 0, "no models: any");
    cr_assert_eq(nodes_spec_mask(ns, "T4|G2", "pods.csv", 7, &m, &err), -1);
    cr_assert_str_eq(err.msg, "pods.csv:7: gpu_spec: unknown GPU model 'G2' (the node list "
                              "has: T4, V100M16)");
    cr_assert_eq(err.code, ERR_INPUT);
    nodes_free(ns);
    free(p);
}

static void node_error(const char *text, const char *want)
{
    char *p = th_write("bad_nodes.csv", text);
    struct nodes *ns = (struct nodes *)1;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(nodes_load(&ns, p, &err), -1, "accepted: %s", text);
    cr_assert_null(ns);
    cr_assert_eq(err.code, ERR_INPUT, "%s", err.msg);
    char full[1024];
    snprintf(full, sizeof full, "%s%s", p, want);
    cr_assert(strncmp(err.msg, full, strlen(full)) == 0, "\n got  %s\n want %s", err.msg,
              full);
    free(p);
}

#define NHDR "sn,cpu_milli,memory_mib,gpu,model\n"

Test(openb, node_list_errors)
{
    node_error(NHDR "a,8000,1024,0,\n", ":2: gpu: node 'a' has no GPUs");
    node_error(NHDR "a,8000,1024,2,T4\na,8000,1024,2,T4\n",
               ":3: sn: node 'a' is listed twice (line 2)");
    node_error("sn,cpu_milli,gpu,model\n", ":1: memory_mib: required column is missing");
    node_error("sn,cpu_mili,memory_mib,gpu,model\n",
               ":1: cpu_mili: not a column of an openb node list (did you mean 'cpu_milli'?)");
    node_error(NHDR "a,8000,1024,2,\n", ":2: model: empty");
    node_error(NHDR "a,8000,1024,2,T 4\n", ":2: model: 'T 4' is not a GPU model name");
    node_error(NHDR "a,8000,1024,17,T4\n", ":2: gpu: 17 GPUs: at most 16 per node");
    node_error(NHDR "a,8000.5,1024,2,T4\n", ":2: cpu_milli: '8000.5' is not a milli-CPU");
    node_error(NHDR "a,8000,1024,2\n", ":2: expected 5 fields (as the header), found 4");
    node_error(NHDR, ": no nodes after the header");
    node_error("", ": empty file: expected the header of an openb node list");
    node_error("sn,cpu_milli,memory_mib,gpu,model,\n", ":1: header: column 6 has no name "
               "(a trailing comma?)");
    node_error("sn,cpu_milli,memory_mib,gpu,model,gpu\n", ":1: gpu: column given twice "
               "(columns 4 and 6)");
}

Test(openb, shipped_node_lists)
{
    struct nodes *ns;
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(nodes_load(&ns, shared("openb_node_list_gpu_node.csv"), &err), 0, "%s",
                 err.msg);
    cr_assert_eq(ns->n, 1213);
    cr_assert_eq(ns->gpus, 6212);
    cr_assert_eq(ns->nmodels, 7);
    cr_assert_eq(ns->cpu_milli, 107018000);
    int64_t g2 = 0;
    for (int i = 0; i < ns->n; i++)
        g2 += strcmp(ns->models[ns->v[i].model], "G2") == 0 ? ns->v[i].ngpus : 0;
    cr_assert_eq(g2, 4392, "SOURCE.txt: G2 4392");
    nodes_free(ns);
    /* the all-node list starts with CPU-only nodes, which the placement world rejects */
    err_clear(&err);
    cr_assert_eq(nodes_load(&ns, shared("openb_node_list_all_node.csv"), &err), -1);
    cr_assert(strstr(err.msg, "openb_node_list_all_node.csv:2: gpu: node 'openb-node-0000' "
                              "has no GPUs") != NULL, "%s", err.msg);
}

/* ---- pod lists ---- */

struct pods {
    struct pod_spec v[64];
    char            names[64][32], specs[64][64];
    int             n;
};

/* Read pod list `path` whole through the workload layer; 0, or -1 with err set. */
static int read_pods(const char *path, struct pods *ps, struct errbuf *err)
{
    char json[1200];
    snprintf(json, sizeof json, "{\"workload\": {\"format\": \"openb\", \"trace\": \"%s\"}}",
             path);
    jsonf *doc;
    err_clear(err);
    cr_assert_eq(jsonf_parse(&doc, "e.json", json, strlen(json), err), 0);
    struct jobj root, cfg;
    cr_assert_eq(jobj_root(&root, doc, err), 0);
    cr_assert_eq(jobj_obj(&cfg, &root, "workload", JREQ, err), 0);
    struct workload_env env = { .model = th_m, .seed = 1, .base_dir = th_tmpdir() };
    workload *w;
    int rc = workload_open(&w, &cfg, &env, err);
    if (rc == 0) {
        cr_assert_str_eq(workload_domain(w), "placement");
        struct entity_source *src = workload_source(w);
        ps->n = 0;
        struct pod_spec s;
        while ((rc = src->next(src->ctx, &s, err)) > 0) {
            cr_assert_lt(ps->n, 64);
            snprintf(ps->names[ps->n], 32, "%s", s.name);
            snprintf(ps->specs[ps->n], 64, "%s", s.gpu_spec);
            s.name = ps->names[ps->n];
            s.gpu_spec = ps->specs[ps->n];
            ps->v[ps->n++] = s;
        }
        workload_close(w);
    }
    jsonf_destroy(doc);
    return rc < 0 ? -1 : 0;
}

Test(openb, pod_lists_of_both_column_sets)
{
    /* the 2023 lists' 11 columns, in another order */
    char *p = th_write("p11.csv", "gpu_spec,name,num_gpu,gpu_milli,cpu_milli,memory_mib,qos,"
                                  "pod_phase,creation_time,deletion_time,scheduled_time\n"
                                  ",p0,1,460,6000,12288,LS,Running,0,12902960,427061\n"
                                  "V100M16||V100M32|,p1,2,1000,16000,32768,BE,Pending,5,9,\n"
                                  ",p2,0,0,32000,65536,Burstable,Failed,7,,\n");
    struct pods ps;
    struct errbuf err;
    cr_assert_eq(read_pods(p, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.n, 3);
    cr_assert_str_eq(ps.v[0].name, "p0");
    cr_assert_eq(ps.v[0].gpu_milli, 460);
    cr_assert_eq(ps.v[0].num_gpu, 1);
    cr_assert_eq(ps.v[0].cpu_milli, 6000);
    cr_assert_eq(ps.v[0].mem_mib, 12288);
    cr_assert_str_eq(ps.v[0].gpu_spec, "");
    cr_assert_str_eq(ps.v[1].gpu_spec, "V100M16|V100M32", "empty parts dropped");
    cr_assert_eq(ps.v[2].num_gpu, 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(ps.v[i].row, i);
        cr_assert_eq(ps.v[i].arrival, i * SIM_SEC, "a pod arrives at its row");
        cr_assert_eq(ps.v[i].line, i + 2);
    }
    free(p);
    /* the multi-GPU resamples' five */
    p = th_write("p5.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                           "q0,88000,327680,8,1000\nq1,4000,15258,1,220\n");
    cr_assert_eq(read_pods(p, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.n, 2);
    cr_assert_eq(ps.v[0].num_gpu, 8);
    cr_assert_str_eq(ps.v[1].gpu_spec, "");
    free(p);
}

static void pod_error(const char *text, const char *want)
{
    char *p = th_write("bad_pods.csv", text);
    struct pods ps;
    struct errbuf err;
    cr_assert_eq(read_pods(p, &ps, &err), -1, "accepted: %s", text);
    cr_assert_eq(err.code, ERR_INPUT, "%s", err.msg);
    char full[1024];
    snprintf(full, sizeof full, "%s%s", p, want);
    cr_assert(strncmp(err.msg, full, strlen(full)) == 0, "\n got  %s\n want %s", err.msg,
              full);
    free(p);
}

#define PHDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"

Test(openb, pod_values)
{
    pod_error(PHDR "a,1,1,1,0\n", ":2: gpu_milli: 0 is not a share of one GPU: 1 to 1000");
    pod_error(PHDR "a,1,1,1,1001\n", ":2: gpu_milli: 1001 is not a share of one GPU");
    pod_error(PHDR "a,1,1,2,500\n", ":2: gpu_milli: 500 for 2 GPUs: a pod of several GPUs "
              "takes them whole");
    pod_error(PHDR "a,1,1,0,500\n", ":2: gpu_milli: 500, but the pod asks for no GPU");
    pod_error(PHDR "a,1,1,1,500\na,1,1,1,500\n", ":3: name: pod 'a' is listed twice (line 2)");
    pod_error(PHDR "a,-1,1,1,500\n", ":2: cpu_milli: '-1' is not a milli-CPU count >= 0");
    pod_error("name,cpu_milli,num_gpu,gpu_milli\n", ":1: memory_mib: required column is missing");
    pod_error("name,cpu_milli,memory_mib,num_gpus,gpu_milli\n",
              ":1: num_gpus: not a column of an openb pod list (did you mean 'num_gpu'?)");
    pod_error(PHDR, ": empty pod list: no pods after the header");
    pod_error("name,cpu_milli,memory_mib,num_gpu,gpu_milli,qos\na,1,1,1,500,Gold\n",
              ":2: qos: 'Gold' is not one of: LS, BE, Burstable, Guaranteed");
    pod_error("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\na,1,1,1,500,T4 V100\n",
              ":2: gpu_spec: 'T4 V100' is not a list of GPU models");
    pod_error("name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\na,1,1,1,500,x\n",
              ":2: creation_time: 'x' is not a time in seconds >= 0 (or empty)");
}

Test(openb, shipped_pod_lists)
{
    struct { const char *file; int pods, cpu, one, frac, multi, spec; } want[] = {
        { "openb_pod_list_default.csv", 8152, 1088, 6989, 3078, 75, 0 },
        { "openb_pod_list_gpuspec33.csv", 8152, 1088, 6989, 3078, 75, 2388 },
        { "openb_pod_list_gpushare100.csv", 8152, 1088, 7064, 7064, 0, 0 },
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char json[1200];
        snprintf(json, sizeof json, "{\"workload\": {\"format\": \"openb\", \"trace\": "
                 "\"%s\"}}", shared(want[k].file));
        jsonf *doc;
        struct errbuf err;
        err_clear(&err);
        cr_assert_eq(jsonf_parse(&doc, "e.json", json, strlen(json), &err), 0);
        struct jobj root, cfg;
        cr_assert_eq(jobj_root(&root, doc, &err), 0);
        cr_assert_eq(jobj_obj(&cfg, &root, "workload", JREQ, &err), 0);
        struct workload_env env = { .model = th_m, .seed = 1, .base_dir = th_tmpdir() };
        workload *w;
        cr_assert_eq(workload_open(&w, &cfg, &env, &err), 0, "%s", err.msg);
        struct entity_source *src = workload_source(w);
        struct pod_spec s;
        int rc, n = 0, cpu = 0, one = 0, frac = 0, multi = 0, spec = 0;
        while ((rc = src->next(src->ctx, &s, &err)) > 0) {
            n++;
            cpu += s.num_gpu == 0;
            one += s.num_gpu == 1;
            frac += s.num_gpu == 1 && s.gpu_milli < 1000;
            multi += s.num_gpu > 1;
            spec += s.gpu_spec[0] != '\0';
        }
        cr_assert_eq(rc, 0, "%s", err.msg);
        cr_assert_eq(n, want[k].pods, "%s", want[k].file);
        cr_assert_eq(cpu, want[k].cpu, "%s: %d CPU-only", want[k].file, cpu);
        cr_assert_eq(one, want[k].one, "%s: %d one-GPU", want[k].file, one);
        cr_assert_eq(frac, want[k].frac, "%s: %d sharing", want[k].file, frac);
        cr_assert_eq(multi, want[k].multi, "%s: %d multi-GPU", want[k].file, multi);
        cr_assert_eq(spec, want[k].spec, "%s: %d with gpu_spec", want[k].file, spec);
        workload_close(w);
        jsonf_destroy(doc);
    }
}
