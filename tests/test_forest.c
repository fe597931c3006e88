/*
 * test_forest: the union-find of sim/base/forest.h against a brute-force labelling: after
 * random joins, two elements share a root exactly when the naive relabelling put them in one
 * set, and every root is its set's smallest member.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../sim/base/forest.h"

Test(forest, roots_are_the_smallest_members_of_the_naive_sets)
{
    enum { N = 40, TRIALS = 200 };
    unsigned seed = 7;
    for (int t = 0; t < TRIALS; t++) {
        int parent[N], label[N];
        forest_init(parent, N);
        for (int x = 0; x < N; x++)
            label[x] = x;
        int joins = (int)(rand_r(&seed) % N);
        for (int j = 0; j < joins; j++) {
            int a = (int)(rand_r(&seed) % N), b = (int)(rand_r(&seed) % N);
            forest_join(parent, a, b);
            int from = label[b], to = label[a];     /* naive: relabel b's set as a's */
            for (int x = 0; x < N; x++)
                if (label[x] == from)
                    label[x] = to;
        }
        forest_flatten(parent, N);
        for (int x = 0; x < N; x++) {
            int smallest = x;
            for (int y = 0; y < N; y++)
                if (label[y] == label[x] && y < smallest)
                    smallest = y;
            cr_assert_eq(parent[x], smallest, "trial %d: element %d's root %d, its set's "
                         "smallest %d", t, x, parent[x], smallest);
            cr_assert_eq(forest_root(parent, x), smallest);
        }
    }
}
