/*
 * fuzz_dayrate: a day's rate series (workloads/dayrate.h, llm_synthetic's day.rates_file)
 * read by dayrate_read from arbitrary bytes.
 *
 * Input: the CSV file itself.  A rejected file must leave a message (fz_check_err); an
 * accepted one must hold 1 to DAYRATE_MAX_STEPS steps whose starts are ascending in
 * [0, 24 h), whose f are finite and >= 0 with the largest as fmax, and whose time-weighted
 * mean over the day is 1 (to 1e-9); f looked up at every start, just before it and at 97
 * points of the day must be one of the steps' (the last one's before the first start).
 */
#include <math.h>

#include "../../workloads/dayrate.h"
#include "fuzzutil.h"

static void check_lookup(const struct dayrate *d, double tod, int want)
{
    double f = dayrate_f(d, tod);
    if (want >= 0 ? f != d->f[want] : !(f >= 0 && f <= d->fmax))
        fz_fail("dayrate_f(%.17g) = %g, expected step %d (%g)", tod, f, want,
                want >= 0 ? d->f[want] : NAN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct dayrate d;
    char path[4096];
    fz_write(path, sizeof path, "rates.csv", data, size);
    struct errbuf err;
    err_clear(&err);
    int rc = dayrate_read(&d, path, &err);
    fz_check_err(rc, &err, "dayrate_read");
    if (rc < 0)
        return 0;
    int n = d.nsteps;
    if (n < 1 || n > DAYRATE_MAX_STEPS)
        fz_fail("%d steps", n);
    double area = 0, top = 0;
    for (int k = 0; k < n; k++) {
        double next = k + 1 < n ? d.at_s[k + 1] : d.at_s[0] + DAYRATE_DAY_S;
        if (!(d.at_s[k] >= 0 && d.at_s[k] < DAYRATE_DAY_S) || next < d.at_s[k])
            fz_fail("step %d starts at %.17g s, the next at %.17g", k, d.at_s[k], next);
        if (!isfinite(d.f[k]) || d.f[k] < 0)
            fz_fail("step %d: f = %g", k, d.f[k]);
        area += d.f[k] * (next - d.at_s[k]);
        top = d.f[k] > top ? d.f[k] : top;
    }
    if (top != d.fmax || !(top > 0))
        fz_fail("fmax %g, the largest f %g", d.fmax, top);
    if (fabs(area / DAYRATE_DAY_S - 1) > 1e-9)
        fz_fail("time-weighted mean of f %.17g, not 1", area / DAYRATE_DAY_S);
    for (int k = 0; k < n; k++) {
        /* a start shared with the next (hours a rounding apart) is the later step's */
        int last = k;
        while (last + 1 < n && d.at_s[last + 1] == d.at_s[k])
            last++;
        check_lookup(&d, d.at_s[k], last);
        if (k == 0 && d.at_s[0] > 0)
            check_lookup(&d, nextafter(d.at_s[0], 0), n - 1);
    }
    for (int i = 0; i <= 96; i++)
        check_lookup(&d, fmin(i * 900.0, nextafter(DAYRATE_DAY_S, 0)), -1);
    return 0;
}
