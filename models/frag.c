/*
 * frag: FGD's node fragmentation and its typical-pod distribution (see the header).  The
 * arithmetic follows FGD's simulator (pkg/utils/frag.go: NodeGpuShareFragAmount,
 * GetNodePodFrag, GetTypicalPods) so that a score built on it ties and breaks ties where
 * FGD's does: amounts accumulate per category in type order, and the fragment is the sum of
 * the categories but Q3 in category order.  frag_node and frag_of_fits share that arithmetic
 * (add, total), so both give the same amounts for the same node.
 */
#include "frag.h"

#include <stdlib.h>
#include <string.h>

static inline struct frag_fit fit_of(const struct frag_type *t, const struct frag_node *n)
{
    struct frag_fit f = { 0, 0 };
    for (int g = 0; t->gpu_milli > 0 && g < n->ngpus; g++)
        if (n->gpu_free[g] >= t->gpu_milli) {
            f.gpus++;
            f.milli += n->gpu_free[g];
        }
    return f;
}

static inline int category_of(const struct frag_type *t, int64_t cpu_free, int model,
                       struct frag_fit f)
{
    int cpu_ok = cpu_free >= t->cpu_milli;
    if (t->gpu_milli == 0)
        return cpu_ok ? FRAG_XL_SATISFIED : FRAG_XR_LACK_CPU;
    if (t->models != 0 && (model < 0 || model > 63 || !(t->models & (UINT64_C(1) << model))))
        return FRAG_NO_ACCESS;
    if (f.gpus >= t->num_gpu)
        return cpu_ok ? FRAG_Q3_SATISFIED : FRAG_Q4_LACK_CPU;
    return cpu_ok ? FRAG_Q2_LACK_GPU : FRAG_Q1_LACK_BOTH;
}

int frag_category(const struct frag_type *t, const struct frag_node *n)
{
    return category_of(t, n->cpu_free, n->model, fit_of(t, n));
}

/* one type's share of the idle milli into its categories: where it fits (Q3) the GPUs too
 * full for it are its fragment (counted as Q2) and the rest it can use; elsewhere all of it */
static inline void add(double *a, const struct frag_type *t, int64_t cpu_free, int model,
                int64_t idle, struct frag_fit f)
{
    int c = category_of(t, cpu_free, model, f);
    if (c == FRAG_Q3_SATISFIED) {
        int64_t below = idle - f.milli;
        a[FRAG_Q2_LACK_GPU] += t->p * (double)below;
        a[FRAG_Q3_SATISFIED] += t->p * (double)(idle - below);
    } else {
        a[c] += t->p * (double)idle;
    }
}

/* the fragment: every category but Q3, in category order */
static double total(const double *a, double *amount)
{
    double frag = 0;
    for (int c = 0; c < FRAG_NCAT; c++)
        if (c != FRAG_Q3_SATISFIED)
            frag += a[c];
    if (amount != NULL)
        memcpy(amount, a, FRAG_NCAT * sizeof *a);
    return frag;
}

double frag_node(const struct frag_type *types, int nt, const struct frag_node *n,
                 double *amount)
{
    double a[FRAG_NCAT] = { 0 };
    int64_t idle = 0;
    for (int g = 0; g < n->ngpus; g++)
        idle += n->gpu_free[g];
    for (int i = 0; i < nt; i++)
        add(a, &types[i], n->cpu_free, n->model, idle, fit_of(&types[i], n));
    return total(a, amount);
}

void frag_fits(const struct frag_type *types, int nt, const struct frag_node *n,
               struct frag_fit *fits)
{
    for (int i = 0; i < nt; i++)
        fits[i] = fit_of(&types[i], n);
}

double frag_of_fits(const struct frag_type *types, int nt, int model, int64_t idle,
                    const struct frag_fit *fits, const struct frag_change *ch, double *amount)
{
    double a[FRAG_NCAT] = { 0 };
    int k = ch->k;
    int64_t left = idle - (int64_t)k * (ch->from - ch->to);
    for (int i = 0; i < nt; i++) {
        struct frag_fit f = fits[i];
        int32_t m = types[i].gpu_milli;
        if (k > 0 && m > 0) {       /* the changed GPUs leave and re-enter the fit */
            if (ch->from >= m) {
                f.gpus -= k;
                f.milli -= k * ch->from;
            }
            if (ch->to >= m) {
                f.gpus += k;
                f.milli += k * ch->to;
            }
        }
        add(a, &types[i], ch->cpu_free, model, left, f);
    }
    return total(a, amount);
}

/* ------------------------------------------------------------------ typical pods */

/* the request order of FGD's PodResource.Less: CPU, GPU milli, GPU count, models text */
static int request_cmp(const struct frag_type *a, const struct frag_type *b)
{
    if (a->cpu_milli != b->cpu_milli)
        return a->cpu_milli < b->cpu_milli ? -1 : 1;
    if (a->gpu_milli != b->gpu_milli)
        return a->gpu_milli < b->gpu_milli ? -1 : 1;
    if (a->num_gpu != b->num_gpu)
        return a->num_gpu < b->num_gpu ? -1 : 1;
    return strcmp(a->spec != NULL ? a->spec : "", b->spec != NULL ? b->spec : "");
}

static int by_request(const void *x, const void *y)
{
    return request_cmp(x, y);
}

/* most frequent first; equal counts: the larger request first (FGD sorts in reverse) */
static int by_count_desc(const void *x, const void *y)
{
    const struct frag_type *a = x, *b = y;
    if (a->p != b->p)
        return a->p > b->p ? -1 : 1;
    return -request_cmp(a, b);
}

int frag_types_from_pods(const struct frag_type *pods, size_t n, double share,
                         struct frag_type **out, int *nt)
{
    *out = NULL;
    *nt = 0;
    if (n == 0)
        return -1;
    struct frag_type *s = malloc(n * sizeof *s);
    if (s == NULL)
        return -1;
    memcpy(s, pods, n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        if (s[i].gpu_milli == 0) {      /* a CPU-only pod has no GPU key */
            s[i].num_gpu = 0;
            s[i].models = 0;
            s[i].spec = "";
        }
        if (s[i].spec == NULL)
            s[i].spec = "";
    }
    qsort(s, n, sizeof *s, by_request);
    /* one entry per distinct request, p = its count */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && request_cmp(&s[k - 1], &s[i]) == 0) {
            s[k - 1].p += 1;
            continue;
        }
        s[k] = s[i];
        s[k].p = 1;
        k++;
    }
    qsort(s, k, sizeof *s, by_count_desc);
    /* the fewest that reach the share, as FGD counts it (a percentage of the pods) */
    double total = (double)n, expected = share * 100.0 * total / 100.0, cum = 0;
    size_t m = 0;
    while (m < k && cum < expected)
        cum += s[m++].p;
    for (size_t i = 0; i < m; i++)
        s[i].p = m == k ? s[i].p / total : s[i].p / total / (cum / total);
    *out = s;
    *nt = (int)m;
    return 0;
}
