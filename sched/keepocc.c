/*
 * keepocc: per GPU its holder's priority (q, id; id -1: free); per node its free count, its key
 * (the largest (q, id, GPU) it holds, or (-1, -node, 0) when it holds nothing, so that free
 * nodes come after held ones and in node order) and where it sits; per bucket (type slot,
 * free count) a max-heap of its nodes by key.  Nodes touched by this decision's placements
 * leave their heaps for a LIFO list per bucket (head: the latest), as occ relinks them, until
 * keepocc_settle.
 * Invariants outside a decision's placements: node k is in the heap of bucket (type(k),
 * nfree(k)) with key(k) computed from its GPUs; bfree[type] = sum of nfree over its nodes.
 */
#include "keepocc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct nkey {
    int32_t q, g;
    int64_t id;
};

struct keepocc {
    const cluster *c;
    int            ngpus, nnodes, ntypes, maxpn;
    int32_t       *hq;          /* per GPU: holder's queue */
    int64_t       *hid;         /* per GPU: holder's id, -1 free */
    int           *nfree;       /* per node */
    int           *slot_of;     /* per node: its type slot */
    struct nkey   *key;         /* per node */
    int           *pos;         /* per node: index in its bucket's heap, -1 in the LIFO lists */
    int           *heap;        /* per bucket, from base[bucket]: nodes */
    int           *base, *hn;   /* per bucket: heap offset, heap size */
    int           *lprev, *lnext, *lhead;    /* LIFO lists: per node links, per bucket head */
    int           *touched;     /* nodes in the LIFO lists */
    int            ntouched;
    int           *bfree;       /* per type slot: free GPUs */
};

static int bucket_of(const keepocc *k, int nd)
{
    return k->slot_of[nd] * (k->maxpn + 1) + k->nfree[nd];
}

/* (q, id, GPU) of x after y's */
static int key_above(const struct nkey *x, const struct nkey *y)
{
    if (x->q != y->q)
        return x->q > y->q;
    if (x->id != y->id)
        return x->id > y->id;
    return x->g > y->g;
}

static int above(const keepocc *k, int a, int b)
{
    return key_above(&k->key[a], &k->key[b]);
}

static void heap_set(keepocc *k, int b, int i, int nd)
{
    k->heap[k->base[b] + i] = nd;
    k->pos[nd] = i;
}

static void sift(keepocc *k, int b, int i)
{
    int *h = k->heap + k->base[b], n = k->hn[b], nd = h[i];
    while (i > 0 && above(k, nd, h[(i - 1) / 2])) {
        heap_set(k, b, i, h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && above(k, h[c + 1], h[c]))
            c++;
        if (!above(k, h[c], nd))
            break;
        heap_set(k, b, i, h[c]);
        i = c;
    }
    heap_set(k, b, i, nd);
}

static void heap_insert(keepocc *k, int nd)
{
    int b = bucket_of(k, nd);
    k->heap[k->base[b] + k->hn[b]] = nd;
    sift(k, b, k->hn[b]++);
}

static void heap_remove(keepocc *k, int nd)
{
    int b = bucket_of(k, nd), i = k->pos[nd], last = k->heap[k->base[b] + --k->hn[b]];
    k->pos[nd] = -1;
    if (last != nd) {
        heap_set(k, b, i, last);
        sift(k, b, i);
    }
}

static void compute_key(keepocc *k, int nd)
{
    const struct cluster_node *node = cluster_node(k->c, nd);
    struct nkey best = { -1, 0, -(int64_t)nd };
    int nf = 0;
    for (int g = node->first; g < node->first + node->ngpus; g++) {
        if (k->hid[g] < 0) {
            nf++;
            continue;
        }
        struct nkey x = { k->hq[g], g, k->hid[g] };
        if (key_above(&x, &best))
            best = x;
    }
    k->key[nd] = best;
    k->nfree[nd] = nf;
}

/* Set the holder of GPUs ids[] (id -1: free them) and refile their nodes. */
static void set_holders(keepocc *k, const int *ids, int n, int q, int64_t id)
{
    assert(k->ntouched == 0);
    for (int i = 0; i < n; i++) {
        int g = ids[i], nd = cluster_gpu_node(k->c, g);
        assert(g >= 0 && g < k->ngpus);
        if ((k->hid[g] < 0) != (id < 0))
            k->bfree[k->slot_of[nd]] += id < 0 ? 1 : -1;
        k->hid[g] = id;
        k->hq[g] = q;
    }
    for (int i = 0; i < n; i++) {
        int nd = cluster_gpu_node(k->c, ids[i]);
        if (i > 0 && cluster_gpu_node(k->c, ids[i - 1]) == nd)
            continue;           /* ids ascending: one refile per node */
        heap_remove(k, nd);
        compute_key(k, nd);
        heap_insert(k, nd);
    }
}

void keepocc_free(keepocc *k, const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        assert(k->hid[ids[i]] >= 0);
    set_holders(k, ids, n, 0, -1);
}

void keepocc_rekey(keepocc *k, const int *ids, int n, int q, int64_t id)
{
    assert(q >= 0 && id >= 0);
    set_holders(k, ids, n, q, id);
}

void keepocc_deny(keepocc *k, const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        assert(k->hid[ids[i]] < 0);
    set_holders(k, ids, n, -1, 0);      /* (q -1, id 0): above only the free nodes' keys */
}

int keepocc_held(const keepocc *k, int g)
{
    return k->hid[g] >= 0;
}

/* everything free */
static void clear(keepocc *k)
{
    for (int g = 0; g < k->ngpus; g++)
        k->hid[g] = -1;
    memset(k->hn, 0, (size_t)k->ntypes * (size_t)(k->maxpn + 1) * sizeof *k->hn);
    memset(k->bfree, 0, (size_t)k->ntypes * sizeof *k->bfree);
    for (int b = 0; b < k->ntypes * (k->maxpn + 1); b++)
        k->lhead[b] = -1;
    k->ntouched = 0;
    for (int nd = 0; nd < k->nnodes; nd++) {
        compute_key(k, nd);
        k->bfree[k->slot_of[nd]] += k->nfree[nd];
        heap_insert(k, nd);
    }
}

keepocc *keepocc_create(const cluster *c)
{
    keepocc *k = calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    const int *types;
    k->c = c;
    k->ngpus = cluster_ngpus(c);
    k->nnodes = cluster_nnodes(c);
    k->ntypes = cluster_types(c, &types);
    k->maxpn = cluster_max_gpus_per_node(c);
    size_t nb = (size_t)k->ntypes * (size_t)(k->maxpn + 1), gn = (size_t)k->ngpus,
           nn = (size_t)k->nnodes;
    k->hq = calloc(gn, sizeof *k->hq);
    k->hid = calloc(gn, sizeof *k->hid);
    k->nfree = calloc(nn, sizeof *k->nfree);
    k->slot_of = calloc(nn, sizeof *k->slot_of);
    k->key = calloc(nn, sizeof *k->key);
    k->pos = calloc(nn, sizeof *k->pos);
    k->heap = calloc(nn * (size_t)(k->maxpn + 1) + 1, sizeof *k->heap);
    k->base = calloc(nb, sizeof *k->base);
    k->hn = calloc(nb, sizeof *k->hn);
    k->lprev = calloc(nn, sizeof *k->lprev);
    k->lnext = calloc(nn, sizeof *k->lnext);
    k->lhead = calloc(nb, sizeof *k->lhead);
    k->touched = calloc(nn + 1, sizeof *k->touched);
    k->bfree = calloc((size_t)k->ntypes + 1, sizeof *k->bfree);
    if (!k->hq || !k->hid || !k->nfree || !k->slot_of || !k->key || !k->pos || !k->heap ||
        !k->base || !k->hn || !k->lprev || !k->lnext || !k->lhead || !k->touched || !k->bfree) {
        keepocc_destroy(k);
        return NULL;
    }
    /* each bucket of a type has room for all of that type's nodes */
    int per_type[CLUSTER_MAX_TYPES] = { 0 };
    for (int nd = 0; nd < k->nnodes; nd++) {
        k->slot_of[nd] = cluster_type_slot(c, cluster_node(c, nd)->gpu);
        per_type[k->slot_of[nd]]++;
    }
    int off = 0;
    for (int s = 0; s < k->ntypes; s++)
        for (int f = 0; f <= k->maxpn; f++) {
            k->base[s * (k->maxpn + 1) + f] = off;
            off += per_type[s];
        }
    clear(k);
    return k;
}

void keepocc_destroy(keepocc *k)
{
    if (k == NULL)
        return;
    free(k->hq);
    free(k->hid);
    free(k->nfree);
    free(k->slot_of);
    free(k->key);
    free(k->pos);
    free(k->heap);
    free(k->base);
    free(k->hn);
    free(k->lprev);
    free(k->lnext);
    free(k->lhead);
    free(k->touched);
    free(k->bfree);
    free(k);
}

/* The node occ_alloc would find first in bucket (s, f): the latest touched by this decision's
 * placements, else the largest key; -1 if empty. */
static int head(const keepocc *k, int s, int f)
{
    int b = s * (k->maxpn + 1) + f;
    if (k->lhead[b] >= 0)
        return k->lhead[b];
    return k->hn[b] > 0 ? k->heap[k->base[b]] : -1;
}

static void list_unlink(keepocc *k, int nd)
{
    int b = bucket_of(k, nd);
    if (k->lprev[nd] >= 0)
        k->lnext[k->lprev[nd]] = k->lnext[nd];
    else
        k->lhead[b] = k->lnext[nd];
    if (k->lnext[nd] >= 0)
        k->lprev[k->lnext[nd]] = k->lprev[nd];
}

static void list_link(keepocc *k, int nd)
{
    int b = bucket_of(k, nd);
    k->lprev[nd] = -1;
    k->lnext[nd] = k->lhead[b];
    if (k->lhead[b] >= 0)
        k->lprev[k->lhead[b]] = nd;
    k->lhead[b] = nd;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int keepocc_place(keepocc *k, int type_slot, int n, int q, int64_t id, int *ids)
{
    int s = type_slot;
    if (s < 0 || s >= k->ntypes || n < 1 || k->bfree[s] < n)
        return -1;
    int got = 0;
    while (got < n) {
        int need = n - got, nd = -1;
        /* best fit for what is left, else the emptiest node (occ_alloc's OCC_PACK) */
        for (int f = need; f <= k->maxpn && nd < 0; f++)
            nd = head(k, s, f);
        for (int f = k->maxpn; f > 0 && nd < 0; f--)
            nd = head(k, s, f);
        assert(nd >= 0);
        if (k->pos[nd] >= 0) {
            heap_remove(k, nd);
            k->touched[k->ntouched++] = nd;
        } else {
            list_unlink(k, nd);
        }
        const struct cluster_node *node = cluster_node(k->c, nd);
        for (int g = node->first; g < node->first + node->ngpus && got < n; g++)
            if (k->hid[g] < 0) {
                k->hid[g] = id;
                k->hq[g] = q;
                k->nfree[nd]--;
                k->bfree[s]--;
                ids[got++] = g;
            }
        list_link(k, nd);
    }
    qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    return 0;
}

void keepocc_settle(keepocc *k)
{
    for (int i = 0; i < k->ntouched; i++)
        k->lhead[bucket_of(k, k->touched[i])] = -1;
    for (int i = 0; i < k->ntouched; i++) {
        int nd = k->touched[i];
        compute_key(k, nd);
        heap_insert(k, nd);
    }
    k->ntouched = 0;
}
