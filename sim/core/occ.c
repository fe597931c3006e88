/*
 * occ: per-GPU granted milli, per-node free counts, per-type buckets of nodes by free count.
 * Invariants: node k is in bucket[type(k)][nfree(k)]; nfree(k) = #GPUs of k with used == 0;
 * free_whole[type] = sum of nfree over that type's nodes.
 * A clear occupancy is always the same state, so occ_create builds it once and keeps a copy
 * of its node arrays: occ_clear is then a memset and four memcpys, not a walk that relinks
 * every node (a policy that plans from an empty cluster clears at every decision).
 */
#include "occ.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct occ {
    const cluster *c;
    int            ngpus, nnodes, ntypes, maxpn;
    uint16_t      *used;        /* per GPU, milli */
    int           *nfree;       /* per node */
    int           *prev, *next; /* per node, bucket links */
    int           *head;        /* [type slot][0..maxpn] -> node or -1 */
    int           *free_whole;  /* per type slot */
    int           *slot_of;     /* per node: its type slot */
    int           *clean;       /* nfree, prev, next, head, free_whole when all is free */
};

/* the node arrays in the order of `clean`, and their lengths */
static void node_arrays(const occ *o, int *arr[5], size_t len[5])
{
    arr[0] = o->nfree;
    arr[1] = o->prev;
    arr[2] = o->next;
    arr[3] = o->head;
    arr[4] = o->free_whole;
    len[0] = len[1] = len[2] = (size_t)o->nnodes;
    len[3] = (size_t)o->ntypes * (size_t)(o->maxpn + 1);
    len[4] = (size_t)o->ntypes;
}

static int *bucket(const occ *o, int slot, int k)
{
    return &o->head[slot * (o->maxpn + 1) + k];
}

static void unlink_node(occ *o, int nd)
{
    int *h = bucket(o, o->slot_of[nd], o->nfree[nd]);
    if (o->prev[nd] >= 0)
        o->next[o->prev[nd]] = o->next[nd];
    else
        *h = o->next[nd];
    if (o->next[nd] >= 0)
        o->prev[o->next[nd]] = o->prev[nd];
}

static void link_node(occ *o, int nd)
{
    int *h = bucket(o, o->slot_of[nd], o->nfree[nd]);
    o->prev[nd] = -1;
    o->next[nd] = *h;
    if (*h >= 0)
        o->prev[*h] = nd;
    *h = nd;
}

/* Build the clear state from the cluster. */
static void clear_by_walk(occ *o)
{
    memset(o->used, 0, (size_t)o->ngpus * sizeof *o->used);
    for (int s = 0; s < o->ntypes * (o->maxpn + 1); s++)
        o->head[s] = -1;
    memset(o->free_whole, 0, (size_t)o->ntypes * sizeof *o->free_whole);
    /* link in reverse so that each bucket lists nodes in ascending id order */
    for (int nd = o->nnodes - 1; nd >= 0; nd--) {
        o->nfree[nd] = cluster_node(o->c, nd)->ngpus;
        o->free_whole[o->slot_of[nd]] += o->nfree[nd];
        link_node(o, nd);
    }
}

void occ_clear(occ *o)
{
    memset(o->used, 0, (size_t)o->ngpus * sizeof *o->used);
    int *arr[5];
    size_t len[5];
    node_arrays(o, arr, len);
    const int *src = o->clean;
    for (int k = 0; k < 5; k++) {
        memcpy(arr[k], src, len[k] * sizeof *src);
        src += len[k];
    }
}

occ *occ_create(const cluster *c)
{
    occ *o = calloc(1, sizeof *o);
    if (o == NULL)
        return NULL;
    const int *types;
    o->c = c;
    o->ngpus = cluster_ngpus(c);
    o->nnodes = cluster_nnodes(c);
    o->ntypes = cluster_types(c, &types);
    o->maxpn = cluster_max_gpus_per_node(c);
    o->used = calloc((size_t)o->ngpus, sizeof *o->used);
    o->nfree = calloc((size_t)o->nnodes, sizeof *o->nfree);
    o->prev = calloc((size_t)o->nnodes, sizeof *o->prev);
    o->next = calloc((size_t)o->nnodes, sizeof *o->next);
    o->slot_of = calloc((size_t)o->nnodes, sizeof *o->slot_of);
    o->head = calloc((size_t)o->ntypes * (size_t)(o->maxpn + 1), sizeof *o->head);
    o->free_whole = calloc((size_t)o->ntypes, sizeof *o->free_whole);
    if (!o->used || !o->nfree || !o->prev || !o->next || !o->slot_of || !o->head ||
        !o->free_whole) {
        occ_destroy(o);
        return NULL;
    }
    for (int nd = 0; nd < o->nnodes; nd++)
        o->slot_of[nd] = cluster_type_slot(c, cluster_node(c, nd)->gpu);
    clear_by_walk(o);
    int *arr[5];
    size_t len[5], total = 0;
    node_arrays(o, arr, len);
    for (int k = 0; k < 5; k++)
        total += len[k];
    if ((o->clean = malloc(total * sizeof *o->clean)) == NULL) {
        occ_destroy(o);
        return NULL;
    }
    int *dst = o->clean;
    for (int k = 0; k < 5; k++) {
        memcpy(dst, arr[k], len[k] * sizeof *dst);
        dst += len[k];
    }
    return o;
}

void occ_destroy(occ *o)
{
    if (o == NULL)
        return;
    free(o->used);
    free(o->nfree);
    free(o->prev);
    free(o->next);
    free(o->slot_of);
    free(o->head);
    free(o->free_whole);
    free(o->clean);
    free(o);
}

void occ_copy(occ *dst, const occ *src)
{
    assert(dst->c == src->c);
    memcpy(dst->used, src->used, (size_t)src->ngpus * sizeof *src->used);
    memcpy(dst->nfree, src->nfree, (size_t)src->nnodes * sizeof *src->nfree);
    memcpy(dst->prev, src->prev, (size_t)src->nnodes * sizeof *src->prev);
    memcpy(dst->next, src->next, (size_t)src->nnodes * sizeof *src->next);
    memcpy(dst->head, src->head, (size_t)src->ntypes * (size_t)(src->maxpn + 1) * sizeof *src->head);
    memcpy(dst->free_whole, src->free_whole, (size_t)src->ntypes * sizeof *src->free_whole);
}

int occ_used(const occ *o, int gpu_id) { return o->used[gpu_id]; }
int occ_free_on_node(const occ *o, int node) { return o->nfree[node]; }

int occ_free_whole(const occ *o, int gpu_type)
{
    int s = cluster_type_slot(o->c, gpu_type);
    return s < 0 ? 0 : o->free_whole[s];
}

int occ_max_free_node(const occ *o, int gpu_type)
{
    int s = cluster_type_slot(o->c, gpu_type);
    if (s < 0)
        return 0;
    for (int k = o->maxpn; k > 0; k--)
        if (*bucket(o, s, k) >= 0)
            return k;
    return 0;
}

int occ_fits(const occ *o, const int *ids, int n, int milli)
{
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= o->ngpus || o->used[ids[i]] + milli > OCC_WHOLE)
            return 0;
    return 1;
}

static void set_used(occ *o, int g, int v)
{
    assert(g >= 0 && g < o->ngpus && v >= 0 && v <= OCC_WHOLE);
    int was_free = o->used[g] == 0, now_free = v == 0;
    o->used[g] = (uint16_t)v;
    if (was_free == now_free)
        return;
    int nd = cluster_gpu_node(o->c, g);
    unlink_node(o, nd);
    o->nfree[nd] += now_free ? 1 : -1;
    o->free_whole[o->slot_of[nd]] += now_free ? 1 : -1;
    link_node(o, nd);
}

void occ_take(occ *o, const int *ids, int n, int milli)
{
    for (int i = 0; i < n; i++) {
        assert(milli > 0 && o->used[ids[i]] + milli <= OCC_WHOLE);
        set_used(o, ids[i], o->used[ids[i]] + milli);
    }
}

void occ_release(occ *o, const int *ids, int n, int milli)
{
    for (int i = 0; i < n; i++) {
        assert(milli > 0 && o->used[ids[i]] >= milli);
        set_used(o, ids[i], o->used[ids[i]] - milli);
    }
}

/* Take up to `want` free GPUs of node nd, lowest ids first; returns how many. */
static int take_from_node(occ *o, int nd, int want, int *ids)
{
    const struct cluster_node *node = cluster_node(o->c, nd);
    int got = 0;
    for (int g = node->first; g < node->first + node->ngpus && got < want; g++)
        if (o->used[g] == 0) {
            set_used(o, g, OCC_WHOLE);
            ids[got++] = g;
        }
    return got;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int occ_alloc(occ *o, int gpu_type, int n, int mode, int *ids)
{
    int s = cluster_type_slot(o->c, gpu_type);
    if (s < 0 || n < 1 || o->free_whole[s] < n)
        return -1;
    int got = 0;
    while (got < n) {
        int need = n - got, nd = -1;
        if (mode == OCC_SPREAD) {
            for (int k = o->maxpn; k > 0 && nd < 0; k--)
                nd = *bucket(o, s, k);
            got += take_from_node(o, nd, 1, ids + got);
            continue;
        }
        /* best fit for what is left, else the emptiest node */
        for (int k = need; k <= o->maxpn && nd < 0; k++)
            nd = *bucket(o, s, k);
        for (int k = o->maxpn; k > 0 && nd < 0; k--)
            nd = *bucket(o, s, k);
        assert(nd >= 0);
        got += take_from_node(o, nd, need, ids + got);
    }
    qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    return 0;
}
