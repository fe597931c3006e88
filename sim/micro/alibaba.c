/*
 * alibaba: call trees from an Alibaba call-graph trace (alibaba.h).
 *
 * Columns by header name: traceid, rpcid, um, dm and rt are required; timestamp is used
 * when present; every other column (the unnamed index, rpctype, interface, the 2022
 * release's service and instance ids) is ignored.  A column without a name is allowed only
 * first (the index).  The file is held in memory (the samples are small; the full releases
 * are split per hour).
 *
 * Rebuilding a trace:
 *   - one call per rpcid; Alibaba logs an rpc on both sides, the callee unknown ("(?)") on
 *     one, so of two rows with one rpcid the one with a known dm is kept (an empty um or
 *     dm is unknown too: the entry call, rpcid 0, has no caller);
 *   - a call's parent is the longest rpcid prefix present in the trace (a sample cut mid-
 *     trace loses some calls); calls with none are the roots, and a trace with several gets
 *     one more call above them, to the first root's caller (um);
 *   - siblings run in parallel when one starts (timestamp) before the previous ones have
 *     ended (timestamp + rt, rt when known), else in the next stage.
 * Identical trees (same services, same stages, children of a stage in any order) are one
 * graph type; the max_graphs most frequent are kept (ties: first seen) with their trace
 * counts as weights, named g0, g1, ... by rank.  Services are named by the first 10 characters
 * of their hashed name (longer when two would clash), "unknown" for "(?)".
 *
 * Latencies: a call's exclusive time is its rt less the slowest child of each stage (children
 * of unknown rt count 0); a service's base latency L0 is the median of its positive exclusive
 * times (default_ms when it has none).  Its fit (Derm's form) then has mean L0 at no load,
 * a shift of shift_frac L0, and a rate falling by `slowdown` of its value at max_load:
 * b = 1 / ((1 - shift_frac) L0), a = -b slowdown / max_load.
 */
#define _POSIX_C_SOURCE 200809L
#include "alibaba.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/path.h"
#include "../base/tio.h"
#include "calltree.h"

enum { C_TRACE, C_RPC, C_UM, C_DM, C_RT, C_TS, C_NUM };
static const char *const colnames[C_NUM] = { "traceid", "rpcid", "um", "dm", "rt",
                                             "timestamp" };

struct row {
    char  *trace, *rpc;
    int    um, dm;          /* service name ids */
    double rt, ts;          /* rt < 0: unknown (cleaned) */
    long   line;
};

/* interned service names */
struct names {
    char   **s;
    int      n, cap;
    int     *slot;          /* open addressing: id + 1 */
    int      nslot;
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int names_id(struct names *t, const char *s)
{
    if (t->n * 2 >= t->nslot) {
        int ns = t->nslot ? 2 * t->nslot : 256;
        int *sl = calloc((size_t)ns, sizeof *sl);
        if (sl == NULL)
            return -1;
        for (int i = 0; i < t->n; i++) {
            uint64_t h = fnv(t->s[i]) & (uint64_t)(ns - 1);
            while (sl[h])
                h = (h + 1) & (uint64_t)(ns - 1);
            sl[h] = i + 1;
        }
        free(t->slot);
        t->slot = sl;
        t->nslot = ns;
    }
    uint64_t h = fnv(s) & (uint64_t)(t->nslot - 1);
    while (t->slot[h]) {
        if (strcmp(t->s[t->slot[h] - 1], s) == 0)
            return t->slot[h] - 1;
        h = (h + 1) & (uint64_t)(t->nslot - 1);
    }
    if (t->n == t->cap) {
        int nc = t->cap ? 2 * t->cap : 64;
        char **ns = realloc(t->s, (size_t)nc * sizeof *ns);
        if (ns == NULL)
            return -1;
        t->s = ns;
        t->cap = nc;
    }
    t->s[t->n] = strdup(s);
    if (t->s[t->n] == NULL)
        return -1;
    t->slot[h] = t->n + 1;
    return t->n++;
}

static void names_free(struct names *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
}

/* rpcids compare component by component, numerically ("0.1.10" after "0.1.9") */
static int rpc_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        char *ea, *eb;
        long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        a = *ea == '.' ? ea + 1 : ea;
        b = *eb == '.' ? eb + 1 : eb;
        if (ea == a && eb == b)
            break;
    }
    return (*a != 0) - (*b != 0);
}

static int row_cmp(const void *x, const void *y)
{
    const struct row *a = x, *b = y;
    int c = strcmp(a->trace, b->trace);
    if (c)
        return c;
    c = rpc_cmp(a->rpc, b->rpc);
    if (c)
        return c;
    return (a->line > b->line) - (a->line < b->line);
}

/* a well-formed rpcid: numbers separated by dots */
static int rpc_ok(const char *s)
{
    if (*s == '\0')
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p == '.' && p != s && p[1] != '\0' && p[1] != '.')))
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- one trace */

struct node {
    const struct row *r;
    int parent, service;
    int stage;
    double excl;            /* exclusive time estimate, ms (< 0: unknown) */
};

struct gtype {
    char  *key;             /* canonical tree */
    long   count;
    struct micro_call *calls;
    int    ncalls;
    long   first;
};

/* canonical form of the subtree at i (caller frees) */
static char *canon(const struct node *nd, int n, int i)
{
    int nk = 0;
    for (int j = 0; j < n; j++)
        nk += nd[j].parent == i;
    char **kid = calloc((size_t)nk + 1, sizeof *kid);
    int *kst = calloc((size_t)nk + 1, sizeof *kst);
    if (kid == NULL || kst == NULL) {
        free(kid);
        free(kst);
        return NULL;
    }
    int k = 0;
    size_t len = 32;
    for (int j = 0; j < n; j++)
        if (nd[j].parent == i) {
            kid[k] = canon(nd, n, j);
            if (kid[k] == NULL) {
                for (int q = 0; q < k; q++)
                    free(kid[q]);
                free(kid);
                free(kst);
                return NULL;
            }
            kst[k] = nd[j].stage;
            len += strlen(kid[k]) + 4;
            k++;
        }
    /* children sorted by (stage, canonical form): order inside a stage does not matter */
    for (int a = 1; a < nk; a++)
        for (int b = a; b > 0 && (kst[b - 1] > kst[b] ||
                                  (kst[b - 1] == kst[b] && strcmp(kid[b - 1], kid[b]) > 0));
             b--) {
            char *t = kid[b];
            kid[b] = kid[b - 1];
            kid[b - 1] = t;
            int u = kst[b];
            kst[b] = kst[b - 1];
            kst[b - 1] = u;
        }
    char *s = malloc(len);
    if (s != NULL) {
        size_t o = (size_t)snprintf(s, len, "%d(", nd[i].service);
        for (int a = 0; a < nk; a++) {
            if (a > 0)
                s[o++] = kst[a] == kst[a - 1] ? ',' : '|';
            size_t l = strlen(kid[a]);
            memcpy(s + o, kid[a], l);
            o += l;
        }
        s[o++] = ')';
        s[o] = '\0';
    }
    for (int a = 0; a < nk; a++)
        free(kid[a]);
    free(kid);
    free(kst);
    return s;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct sibling {
    int    idx;
    double ts, end;
};

static int sib_cmp(const void *x, const void *y)
{
    const struct sibling *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* stages among each call's children, and exclusive times */
static void stages(struct node *nd, int n, struct sibling *sib)
{
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < n; j++)
            if (nd[j].parent == i) {
                double ts = nd[j].r ? nd[j].r->ts : 0, rt = nd[j].r ? nd[j].r->rt : -1;
                sib[k++] = (struct sibling){ j, ts, ts + (rt > 0 ? rt : 0) };
            }
        qsort(sib, (size_t)k, sizeof *sib, sib_cmp);
        int stage = 0;
        double end = -INFINITY;
        double slow = 0, known = nd[i].r && nd[i].r->rt > 0 ? nd[i].r->rt : -1;
        for (int q = 0; q < k; q++) {
            if (q > 0 && !(sib[q].ts < end)) {
                known = known >= 0 ? known - slow : known;
                slow = 0;
                stage++;
            }
            nd[sib[q].idx].stage = stage;
            end = sib[q].end > end ? sib[q].end : end;
            double crt = nd[sib[q].idx].r ? nd[sib[q].idx].r->rt : -1;
            slow = crt > slow ? crt : slow;
        }
        if (known >= 0)
            known -= slow;
        nd[i].excl = known > 0 ? known : -1;
    }
}

/* ---------------------------------------------------------------- the file */

int alibaba_load(struct alibaba_app *a, const struct jobj *o, const char *base_dir,
                 struct errbuf *err)
{
    static const char *const keys[] = { "alibaba", "max_graphs", "service", "note", NULL };
    static const char *const skeys[] = { "max_load", "slowdown", "shift_frac", "default_ms",
                                         "containers", "cpus", "memory_gb", "concurrency",
                                         "note", NULL };
    memset(a, 0, sizeof *a);
    const char *file;
    int64_t max_graphs = 16, init = 1, conc = 1;
    double max_load = 200, slowdown = 0.5, shift_frac = 0.5, default_ms = 1, cpus = 0.2,
           mem = 1;
    struct jobj sv;
    if (jobj_known(o, keys, err) < 0 || jobj_str(o, "alibaba", JREQ, &file, err) < 0 ||
        jobj_int(o, "max_graphs", JOPT, 1, 4096, &max_graphs, err) < 0 ||
        jobj_obj(&sv, o, "service", JOPT, err) < 0)
        return -1;
    if (sv.node != NULL &&
        (jobj_known(&sv, skeys, err) < 0 ||
         jobj_num(&sv, "max_load", JOPT, 1e-6, 1e9, &max_load, err) < 0 ||
         jobj_num(&sv, "slowdown", JOPT, 0, 0.99, &slowdown, err) < 0 ||
         jobj_num(&sv, "shift_frac", JOPT, 0, 0.99, &shift_frac, err) < 0 ||
         jobj_num(&sv, "default_ms", JOPT, 1e-6, 1e7, &default_ms, err) < 0 ||
         jobj_int(&sv, "containers", JOPT, 1, 1000000, &init, err) < 0 ||
         jobj_int(&sv, "concurrency", JOPT, 1, 100000, &conc, err) < 0 ||
         jobj_num(&sv, "cpus", JOPT, 1e-4, 1e4, &cpus, err) < 0 ||
         jobj_num(&sv, "memory_gb", JOPT, 1e-4, 1e5, &mem, err) < 0))
        return -1;
    char path[PATH_MAX_LEN];
    char field[256];
    snprintf(field, sizeof field, "%s%salibaba", o->path, o->path[0] ? "." : "");
    if (path_resolve(path, sizeof path, base_dir, file) < 0)
        return jsonf_error(o->doc, cJSON_GetObjectItemCaseSensitive(o->node, "alibaba"), field,
                           err, "file '%s' not found (looked next to the experiment, in the "
                           "current directory and under %s)", file, path_data_root());
    snprintf(a->source, sizeof a->source, "%s", path);

    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    struct names nm = { 0 };
    struct row *rows = NULL;
    size_t nrows = 0, caprows = 0;
    struct gtype *types = NULL;
    int ntypes = 0, captypes = 0, rc = -1;
    struct node *nd = NULL;
    struct sibling *sib = NULL;
    int *map = NULL;
    double *est = NULL;
    char *line, *f[64];
    size_t len;
    int pos[C_NUM];
    for (int c = 0; c < C_NUM; c++)
        pos[c] = -1;
    int got = tio_next(r, &line, &len, err);
    if (got <= 0) {
        if (got == 0)
            err_input(err, path, 1, NULL, "empty file: an Alibaba call-graph trace starts with "
                      "a header (traceid, rpcid, um, dm, rt, ...)");
        goto out;
    }
    int ncols = tio_split(line, ',', f, 64);
    if (ncols < 0 || ncols > 64) {
        err_input(err, path, 1, NULL, "header: unterminated quote or more than 64 columns");
        goto out;
    }
    for (int i = 0; i < ncols; i++) {
        if (f[i][0] == '\0') {
            if (i == 0)
                continue;       /* the index column */
            err_input(err, path, 1, NULL, "column %d has no name", i + 1);
            goto out;
        }
        for (int c = 0; c < C_NUM; c++)
            if (strcmp(f[i], colnames[c]) == 0) {
                if (pos[c] >= 0) {
                    err_input(err, path, 1, f[i], "column named twice");
                    goto out;
                }
                pos[c] = i;
            }
    }
    for (int c = 0; c < C_TS; c++)
        if (pos[c] < 0) {
            err_input(err, path, 1, colnames[c], "column missing (an Alibaba call-graph trace "
                      "of the 2021 or 2022 release has traceid, rpcid, um, dm and rt)");
            goto out;
        }
    int unknown = names_id(&nm, "(?)");
    if (unknown < 0)
        goto oom;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        long ln = tio_lineno(r);
        if (tio_skippable(line))
            continue;
        int nf = tio_split(line, ',', f, 64);
        if (nf != ncols) {
            err_input(err, path, ln, NULL, "%d fields, the header has %d", nf, ncols);
            goto out;
        }
        const char *tr = f[pos[C_TRACE]], *rpc = f[pos[C_RPC]];
        if (tr[0] == '\0') {
            err_input(err, path, ln, "traceid", "empty");
            goto out;
        }
        if (!rpc_ok(rpc)) {
            err_input(err, path, ln, "rpcid", "'%s' is not an rpc position (numbers joined by "
                      "dots, as 0.1.3)", rpc);
            goto out;
        }
        double rt, ts = 0;
        if (tio_double(f[pos[C_RT]], &rt) < 0 || !isfinite(rt)) {
            err_input(err, path, ln, "rt", "'%s' is not a response time in ms",
                      f[pos[C_RT]]);
            goto out;
        }
        if (pos[C_TS] >= 0 && (tio_double(f[pos[C_TS]], &ts) < 0 || !isfinite(ts))) {
            err_input(err, path, ln, "timestamp", "'%s' is not a time in ms", f[pos[C_TS]]);
            goto out;
        }
        if (rt <= 0) {
            a->cleaned++;
            rt = -1;
        }
        if (nrows == caprows) {
            size_t nc = caprows ? 2 * caprows : 1024;
            struct row *nr = realloc(rows, nc * sizeof *nr);
            if (nr == NULL)
                goto oom;
            rows = nr;
            caprows = nc;
        }
        struct row *w = &rows[nrows];
        w->trace = strdup(tr);
        w->rpc = strdup(rpc);
        if (w->trace == NULL || w->rpc == NULL) {
            free(w->trace);
            free(w->rpc);
            goto oom;
        }
        nrows++;
        /* an empty caller or callee is unknown, as "(?)" (the entry call has no caller) */
        w->um = names_id(&nm, f[pos[C_UM]][0] ? f[pos[C_UM]] : "(?)");
        w->dm = names_id(&nm, f[pos[C_DM]][0] ? f[pos[C_DM]] : "(?)");
        if (w->um < 0 || w->dm < 0)
            goto oom;
        w->rt = rt;
        w->ts = ts;
        w->line = ln;
    }
    if (got < 0)
        goto out;
    if (nrows == 0) {
        err_input(err, path, tio_lineno(r), NULL, "no calls after the header");
        goto out;
    }
    qsort(rows, nrows, sizeof *rows, row_cmp);
    /* services of the graphs kept, and each service's exclusive times */
    nd = calloc(nrows + 1, sizeof *nd);
    sib = calloc(nrows + 1, sizeof *sib);
    if (nd == NULL || sib == NULL)
        goto oom;
    double **svc_est = calloc((size_t)nm.n, sizeof *svc_est);
    int *svc_n = calloc((size_t)nm.n, sizeof *svc_n), *svc_cap = calloc((size_t)nm.n, sizeof *svc_cap);
    if (svc_est == NULL || svc_n == NULL || svc_cap == NULL) {
        free(svc_est), free(svc_n), free(svc_cap);
        goto oom;
    }
    int oom_in_trace = 0;
    for (size_t i = 0; i < nrows && !oom_in_trace;) {
        size_t j = i;
        while (j < nrows && strcmp(rows[j].trace, rows[i].trace) == 0)
            j++;
        /* one call per rpcid: the row with a known callee */
        int n = 0;
        for (size_t k = i; k < j; k++) {
            if (n > 0 && strcmp(nd[n - 1].r->rpc, rows[k].rpc) == 0) {
                if (nd[n - 1].r->dm == unknown && rows[k].dm != unknown)
                    nd[n - 1].r = &rows[k];
                continue;
            }
            nd[n++] = (struct node){ &rows[k], -1, 0, 0, -1 };
        }
        /* parents: the longest rpcid prefix present (rows are sorted, so look back) */
        int roots = 0;
        for (int k = 0; k < n; k++) {
            char pre[512];
            snprintf(pre, sizeof pre, "%s", nd[k].r->rpc);
            nd[k].parent = -1;
            char *dot;
            while (nd[k].parent < 0 && (dot = strrchr(pre, '.')) != NULL) {
                *dot = '\0';
                for (int q = k - 1; q >= 0; q--)
                    if (strcmp(nd[q].r->rpc, pre) == 0) {
                        nd[k].parent = q;
                        break;
                    }
            }
            roots += nd[k].parent < 0;
            nd[k].service = nd[k].r->dm;
        }
        if (roots > 1) {
            /* one more call above the roots, to the first root's caller */
            int first = -1;
            for (int k = 0; k < n; k++)
                if (nd[k].parent < 0) {
                    if (first < 0)
                        first = k;
                    nd[k].parent = n;
                }
            nd[n] = (struct node){ NULL, -1, nd[first].r->um, 0, -1 };
            n++;
        }
        stages(nd, n, sib);
        for (int k = 0; k < n; k++) {
            if (nd[k].excl <= 0)
                continue;
            int s = nd[k].service;
            if (svc_n[s] == svc_cap[s]) {
                int nc = svc_cap[s] ? 2 * svc_cap[s] : 8;
                double *ne = realloc(svc_est[s], (size_t)nc * sizeof *ne);
                if (ne == NULL) {
                    oom_in_trace = 1;
                    break;
                }
                svc_est[s] = ne;
                svc_cap[s] = nc;
            }
            svc_est[s][svc_n[s]++] = nd[k].excl;
        }
        /* its graph type */
        int root = 0;
        while (nd[root].parent >= 0)
            root++;
        char *key = canon(nd, n, root);
        if (key == NULL) {
            oom_in_trace = 1;
            break;
        }
        int t = 0;
        while (t < ntypes && strcmp(types[t].key, key) != 0)
            t++;
        if (t < ntypes) {
            types[t].count++;
            free(key);
        } else {
            if (ntypes == captypes) {
                int nc = captypes ? 2 * captypes : 16;
                struct gtype *ng = realloc(types, (size_t)nc * sizeof *ng);
                if (ng == NULL) {
                    free(key);
                    oom_in_trace = 1;
                    break;
                }
                types = ng;
                captypes = nc;
            }
            struct micro_call *calls = calloc((size_t)n, sizeof *calls);
            if (calls == NULL) {
                free(key);
                oom_in_trace = 1;
                break;
            }
            for (int k = 0; k < n; k++)
                calls[k] = (struct micro_call){ nd[k].service, 1, nd[k].parent, nd[k].stage };
            types[ntypes++] = (struct gtype){ key, 1, calls, n, (long)a->traces };
        }
        a->traces++;
        i = j;
    }
    if (oom_in_trace) {
        for (int s = 0; s < nm.n; s++)
            free(svc_est[s]);
        free(svc_est), free(svc_n), free(svc_cap);
        goto oom;
    }
    /* most frequent first, ties by first appearance */
    for (int x = 1; x < ntypes; x++)
        for (int y = x; y > 0 && (types[y - 1].count < types[y].count ||
                                  (types[y - 1].count == types[y].count &&
                                   types[y - 1].first > types[y].first)); y--) {
            struct gtype t = types[y];
            types[y] = types[y - 1];
            types[y - 1] = t;
        }
    int keep = ntypes < max_graphs ? ntypes : (int)max_graphs;
    map = calloc((size_t)nm.n, sizeof *map);
    est = calloc((size_t)nm.n + 1, sizeof *est);
    if (map == NULL || est == NULL) {
        for (int s = 0; s < nm.n; s++)
            free(svc_est[s]);
        free(svc_est), free(svc_n), free(svc_cap);
        goto oom;
    }
    for (int s = 0; s < nm.n; s++)
        map[s] = -1;
    int nsvc = 0;
    for (int t = 0; t < keep; t++)
        for (int k = 0; k < types[t].ncalls; k++)
            if (map[types[t].calls[k].service] < 0)
                map[types[t].calls[k].service] = nsvc++;
    a->svc = calloc((size_t)nsvc, sizeof *a->svc);
    a->graph = calloc((size_t)keep, sizeof *a->graph);
    if (a->svc == NULL || a->graph == NULL) {
        for (int s = 0; s < nm.n; s++)
            free(svc_est[s]);
        free(svc_est), free(svc_n), free(svc_cap);
        goto oom;
    }
    for (int s = 0; s < nm.n; s++) {
        int k = map[s];
        if (k < 0) {
            free(svc_est[s]);
            continue;
        }
        struct micro_service *m = &a->svc[k];
        const char *raw = nm.s[s];
        if (s == unknown)
            snprintf(m->name, sizeof m->name, "unknown");
        else {
            /* the shortest prefix of 10 or more characters no other kept name shares */
            size_t l = 10;
            for (int o2 = 0; o2 < nm.n; o2++)
                if (o2 != s && map[o2] >= 0)
                    while (l < strlen(raw) && strncmp(raw, nm.s[o2], l) == 0)
                        l++;
            snprintf(m->name, sizeof m->name, "%.*s", (int)(l < MICRO_NAME_MAX - 1 ? l : MICRO_NAME_MAX - 1), raw);
        }
        double l0 = default_ms;
        if (svc_n[s] > 0) {
            qsort(svc_est[s], (size_t)svc_n[s], sizeof(double), cmp_dbl);
            int h = svc_n[s];
            l0 = h % 2 ? svc_est[s][h / 2] : 0.5 * (svc_est[s][h / 2 - 1] + svc_est[s][h / 2]);
        }
        free(svc_est[s]);
        double b = 1.0 / ((1 - shift_frac) * l0 * 1e-3);
        m->lat = (struct mslat){ .kind = MSLAT_DERM, .shift = shift_frac * l0 * 1e-3,
                                 .a = -b * slowdown / max_load, .b = b, .max_load = max_load };
        m->cpus = cpus;
        m->memory_gb = mem;
        m->init = (int)init;
        m->concurrency = (int)conc;
    }
    free(svc_est), free(svc_n), free(svc_cap);
    a->nservices = nsvc;
    for (int t = 0; t < keep; t++) {
        struct micro_graph *g = &a->graph[t];
        snprintf(g->name, sizeof g->name, "g%d", t);
        g->weight = (double)types[t].count;
        for (int k = 0; k < types[t].ncalls; k++)
            types[t].calls[k].service = map[types[t].calls[k].service];
        if (calltree_build(g, a->svc, a->nservices, types[t].calls, types[t].ncalls, path, 0,
                           g->name, err) < 0)
            goto out;
        a->ngraphs = t + 1;
    }
    rc = 0;
    goto out;
oom:
    err_run(err, "out of memory");
out:
    tio_close(r);
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].trace);
        free(rows[i].rpc);
    }
    free(rows);
    for (int t = 0; t < ntypes; t++) {
        free(types[t].key);
        free(types[t].calls);
    }
    free(types);
    free(nd);
    free(sib);
    free(map);
    free(est);
    names_free(&nm);
    return rc;
}
