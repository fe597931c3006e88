/*
 * group: rows to groups through a hash table with linear probing.  The hash is FNV-1a over
 * the bits of each entry (zero of either sign hashed as +0, so that rows equal under == hash
 * alike); a slot holds the first row of its group, and a probe compares rows with ==.  The
 * table has a power of two of at least 2n slots, so it is at most half full and a probe
 * visits two slots on average.
 */
#include "group.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t row_hash(const double *r, int width)
{
    uint64_t h = 1469598103934665603ULL;
    for (int k = 0; k < width; k++) {
        double v = r[k] == 0 ? 0.0 : r[k];
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        for (int b = 0; b < 8; b++) {
            h ^= (bits >> (8 * b)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}

static int row_equal(const double *a, const double *b, int width)
{
    for (int k = 0; k < width; k++)
        if (!(a[k] == b[k]))
            return 0;
    return 1;
}

int group_rows(const double *rows, int n, int width, int *group, struct errbuf *err)
{
    size_t size = 16;
    while (size < 2 * (size_t)n)
        size *= 2;
    int *slot = malloc(size * sizeof *slot);        /* first row of the group there, -1 */
    if (slot == NULL)
        return err_run(err, "out of memory");
    memset(slot, 0xff, size * sizeof *slot);
    int ngroups = 0;
    for (int i = 0; i < n; i++) {
        const double *r = &rows[(size_t)i * (size_t)width];
        size_t h = (size_t)row_hash(r, width) & (size - 1);
        while (slot[h] >= 0 && !row_equal(&rows[(size_t)slot[h] * (size_t)width], r, width))
            h = (h + 1) & (size - 1);
        if (slot[h] < 0) {
            slot[h] = i;
            group[i] = ngroups++;
        } else {
            group[i] = group[slot[h]];
        }
    }
    free(slot);
    return ngroups;
}
