/*
 * grow: resizing arrays without type punning.  `p = grow_array(p, n, sizeof *p, &failed)`
 * returns the block resized to n elements; when memory runs out it returns p unchanged and
 * sets *failed, and once *failed is set further calls do nothing, so several arrays can be
 * grown in a row and checked once.
 */
#ifndef HETSIM_GROW_H
#define HETSIM_GROW_H

#include <stdlib.h>

static inline void *grow_array(void *p, size_t n, size_t elem, int *failed)
{
    if (*failed)
        return p;
    void *q = realloc(p, (n ? n : 1) * elem);
    if (q == NULL) {
        *failed = 1;
        return p;
    }
    return q;
}

#endif
