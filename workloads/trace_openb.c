/*
 * trace_openb: Alibaba's openb pod lists (cluster-trace-gpu-v2023, the traces of FGD, ATC
 * 2023: openb_pod_list_default.csv and its resamples), for the placement world.  A CSV whose
 * header names its columns (sim/place/openb.h: any order; a column without a name, given
 * twice or not of the family is an error).  Required, as every release has them:
 *   name            the pod's name, unique
 *   cpu_milli       CPU asked for, 1/1000 of a core, an integer >= 0
 *   memory_mib      memory asked for, MiB, an integer >= 0
 *   num_gpu         GPUs asked for, an integer >= 0 (0: a CPU-only pod)
 *   gpu_milli       per GPU, 1/1000 of one: 0 for a CPU-only pod; 1..1000 for one GPU (below
 *                   1000 the pod shares the GPU); exactly 1000 for several (only a one-GPU pod
 *                   shares)
 * Optional, as the 2023 lists have them (the multi-GPU resamples of FGD's artifact do not):
 *   gpu_spec        the GPU models the pod may use, '|'-separated ("V100M16|V100M32"); empty
 *                   parts are dropped, as FGD does; empty: any model.  Each must be a model of
 *                   the experiment's node list (the world checks; a CPU-only pod's is ignored,
 *                   as in FGD)
 *   qos             LS, BE, Burstable or Guaranteed
 *   pod_phase       Pending, Running, Succeeded, Failed or Unknown
 *   creation_time, deletion_time, scheduled_time   seconds, integers >= 0, or empty
 * The placement world reads the requests; the other columns are checked, not used (FGD's
 * experiments place pods without their times).  FGD's own converter maps a gpu_milli above
 * 1000 to 1000 and one of 0 to none; here they are errors at their line.
 *
 * The list is streamed; a pod's arrival is its row (the first pod at 0 s), which the world
 * keeps as the trace order.  O(1) per row, with a hash set of names for duplicates.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "../sim/place/openb.h"
#include "../sim/place/place_view.h"
#include "../sim/place/pod.h"
#include "reader.h"

enum col { C_NAME, C_CPU, C_MEM, C_NGPU, C_MILLI, C_SPEC, C_QOS, C_PHASE, C_CREATE, C_DELETE,
           C_SCHED, C_N };
static const char *const colnames[] = { "name", "cpu_milli", "memory_mib", "num_gpu",
                                        "gpu_milli", "gpu_spec", "qos", "pod_phase",
                                        "creation_time", "deletion_time", "scheduled_time",
                                        NULL };
static const struct openb_cols cols = { colnames, 0x1f, "pod list" };
static const char *const qos_names[] = { "LS", "BE", "Burstable", "Guaranteed", NULL };
static const char *const phase_names[] = { "Pending", "Running", "Succeeded", "Failed",
                                           "Unknown", NULL };

enum { NAME_MAX_LEN = 255, SPEC_MAX = 1023, MAX_GPU = 1024 };

struct ost {
    tio                *r;
    int                 pos[C_N];
    int                 ncols;
    int64_t             row;
    struct reader_names names;      /* pod names -> first row */
    long               *lines;      /* line of each name, by its number */
    size_t              cap_lines;
    char                spec[SPEC_MAX + 1];
};

static void ost_close(void *p)
{
    struct ost *s = p;
    tio_close(s->r);
    reader_names_free(&s->names);
    free(s->lines);
    free(s);
}

static int one_of(const char *path, long ln, const char *field, const char *v,
                  const char *const *names, const char *list, struct errbuf *err)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], v) == 0)
            return 0;
    const char *hint = jsonf_suggest(v, names);
    return err_input(err, path, ln, field, "'%s' is not one of: %s%s%s%s", v, list,
                     hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
}

/* gpu_spec without its empty parts, each part a model name */
static int read_spec(struct ost *s, const char *path, long ln, const char *v,
                     struct errbuf *err)
{
    size_t n = 0;
    const char *p = v;
    while (*p) {
        size_t k = strcspn(p, "|");
        for (size_t i = 0; i < k; i++)
            if (!isalnum((unsigned char)p[i]) && p[i] != '.' && p[i] != '_' && p[i] != '-')
                return err_input(err, path, ln, "gpu_spec", "'%s' is not a list of GPU models "
                                 "(names of letters, digits, '.', '_' and '-', separated by "
                                 "'|')", v);
        if (k > 0) {
            if (n + k + 1 > SPEC_MAX)
                return err_input(err, path, ln, "gpu_spec", "longer than %d characters",
                                 SPEC_MAX);
            if (n > 0)
                s->spec[n++] = '|';
            memcpy(s->spec + n, p, k);
            n += k;
        }
        p += k;
        if (*p == '|')
            p++;
    }
    s->spec[n] = '\0';
    return 0;
}

/* the name, once in the list */
static int read_name(struct ost *s, const char *path, long ln, const char *name,
                     struct errbuf *err)
{
    if (openb_name(path, ln, "name", name, NAME_MAX_LEN, err) < 0)
        return -1;
    size_t before = s->names.n;
    int32_t id = reader_names_id(&s->names, name);
    if (id < 0)
        return err_run(err, "out of memory");
    if (s->names.n == before)
        return err_input(err, path, ln, "name", "pod '%s' is listed twice (line %ld)", name,
                         s->lines[id]);
    if (s->names.n > s->cap_lines) {
        size_t nc = s->cap_lines ? 2 * s->cap_lines : 1024;
        long *l = realloc(s->lines, nc * sizeof *l);
        if (l == NULL)
            return err_run(err, "out of memory");
        s->lines = l;
        s->cap_lines = nc;
    }
    s->lines[id] = ln;
    return 0;
}

static int ost_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct ost *s = p;
    struct pod_spec *out = spec;
    char *f[OPENB_MAX_FIELDS];
    long ln;
    int rc = openb_row(s->r, c->path, s->ncols, f, &ln, err);
    if (rc == 0 && s->row == 0)
        return err_input(err, c->path, 0, NULL, "empty pod list: no pods after the header");
    if (rc <= 0)
        return rc;
    const char *path = c->path;
    int64_t cpu, mem, ngpu, milli, t;
    if (read_name(s, path, ln, f[s->pos[C_NAME]], err) < 0 ||
        openb_int(path, ln, "cpu_milli", f[s->pos[C_CPU]], 0, INT64_C(1) << 40,
                  "a milli-CPU count >= 0", &cpu, err) < 0 ||
        openb_int(path, ln, "memory_mib", f[s->pos[C_MEM]], 0, INT64_C(1) << 40,
                  "a memory size in MiB >= 0", &mem, err) < 0 ||
        openb_int(path, ln, "num_gpu", f[s->pos[C_NGPU]], 0, MAX_GPU, "a GPU count >= 0",
                  &ngpu, err) < 0 ||
        openb_int(path, ln, "gpu_milli", f[s->pos[C_MILLI]], INT64_MIN / 2, INT64_MAX / 2,
                  "an integer (milli-GPU per GPU)", &milli, err) < 0)
        return -1;
    if (ngpu == 0 && milli != 0)
        return err_input(err, path, ln, "gpu_milli", "%lld, but the pod asks for no GPU "
                         "(num_gpu 0): a CPU-only pod has gpu_milli 0", (long long)milli);
    if (ngpu == 1 && (milli < 1 || milli > PLACE_MILLI))
        return err_input(err, path, ln, "gpu_milli", "%lld is not a share of one GPU: 1 to "
                         "1000 (1000 = the whole GPU)%s", (long long)milli,
                         milli == 0 ? "; 0 would ask for no GPU" : "");
    if (ngpu > 1 && milli != PLACE_MILLI)
        return err_input(err, path, ln, "gpu_milli", "%lld for %lld GPUs: a pod of several "
                         "GPUs takes them whole (1000); only a one-GPU pod shares its GPU",
                         (long long)milli, (long long)ngpu);
    s->spec[0] = '\0';
    if (s->pos[C_SPEC] >= 0 && read_spec(s, path, ln, f[s->pos[C_SPEC]], err) < 0)
        return -1;
    if (s->pos[C_QOS] >= 0 &&
        one_of(path, ln, "qos", f[s->pos[C_QOS]], qos_names, "LS, BE, Burstable, Guaranteed",
               err) < 0)
        return -1;
    if (s->pos[C_PHASE] >= 0 &&
        one_of(path, ln, "pod_phase", f[s->pos[C_PHASE]], phase_names,
               "Pending, Running, Succeeded, Failed, Unknown", err) < 0)
        return -1;
    for (int k = C_CREATE; k <= C_SCHED; k++)
        if (s->pos[k] >= 0 && !reader_blank(f[s->pos[k]]) &&
            openb_int(path, ln, colnames[k], f[s->pos[k]], 0, INT64_C(1) << 40,
                      "a time in seconds >= 0 (or empty)", &t, err) < 0)
            return -1;
    *out = (struct pod_spec){ .arrival = s->row * SIM_SEC, .row = s->row,
                              .name = f[s->pos[C_NAME]], .cpu_milli = cpu, .mem_mib = mem,
                              .num_gpu = (int32_t)ngpu, .gpu_milli = (int32_t)milli,
                              .gpu_spec = s->spec, .origin = c->path, .line = ln };
    s->row++;
    return 1;
}

static int ost_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    (void)cfg;
    struct ost *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (tio_open(&s->r, c->path, err) < 0 ||
        openb_header(s->r, c->path, &cols, s->pos, &s->ncols, err) < 0) {
        ost_close(s);
        return -1;
    }
    *r = (struct reader){ s, ost_next, ost_close };
    return 0;
}

const struct workload_format trace_openb_format = {
    .name = "openb",
    .domain = "placement",
    .arrival_at = offsetof(struct pod_spec, arrival),
    .summary = "Alibaba's openb pod lists (cluster-trace-gpu-v2023, FGD's traces): CPU, "
               "memory, GPUs and milli-GPU per pod",
    .flags = FORMAT_TRACE,
    .open = ost_open,
};
