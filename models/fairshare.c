/* fairshare: greedy fill of the fastest types within an equal share (see the header). */
#include "fairshare.h"

double fairshare_rate(const double *rate, const double *cap, int ntypes, int scale, double n)
{
    int order[64];
    if (ntypes > 64)
        ntypes = 64;
    for (int i = 0; i < ntypes; i++)
        order[i] = i;
    for (int a = 1; a < ntypes; a++)        /* insertion sort: fastest first, stable */
        for (int b = a; b > 0 && rate[order[b]] > rate[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    if (n < 1)
        n = 1;
    double left = 1, r = 0;
    for (int k = 0; k < ntypes && left > 0; k++) {
        int t = order[k];
        if (!(rate[t] > 0))
            break;
        double f = cap[t] / (n * scale);
        if (f > left)
            f = left;
        r += f * rate[t];
        left -= f;
    }
    return r;
}
