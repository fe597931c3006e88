/*
 * forest: disjoint sets over 0..n-1 in a parent array (union-find), each set named by its
 * smallest member, so that the name of a set does not depend on the order of the joins.
 * forest_root halves the path it walks; forest_join links the larger root under the smaller.
 * Invariant: parent[x] <= x for every x; a root is its own parent.
 */
#ifndef HETSIM_FOREST_H
#define HETSIM_FOREST_H

/* Every element its own set. */
static inline void forest_init(int *parent, int n)
{
    for (int x = 0; x < n; x++)
        parent[x] = x;
}

/* The smallest member of x's set. */
static inline int forest_root(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Join the sets of a and b; returns the joined set's root. */
static inline int forest_join(int *parent, int a, int b)
{
    int ra = forest_root(parent, a), rb = forest_root(parent, b);
    if (ra < rb) {
        parent[rb] = ra;
        return ra;
    }
    parent[ra] = rb;
    return rb;
}

/* Every parent[x] its set's root. */
static inline void forest_flatten(int *parent, int n)
{
    for (int x = 0; x < n; x++)
        parent[x] = forest_root(parent, x);
}

#endif
