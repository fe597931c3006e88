/*
 * fuzz_pollapps: Pollux's applications.json (elastic_load, models/elastic.h) — the GPU type,
 * each application's constants, and its folder of profiles read beside the file.
 *
 * Input: the JSON file itself, written beside a cut of the shipped applications' folders
 * (fz_pollux_apps: a few placements, three epochs of validation), so that the names it
 * lists find their profiles.  A rejected file must leave a message.  A loaded one must give
 * every application a profile on its GPU type, with limits that hold together (1 <= smallest
 * local batch <= largest, 1 <= max_epochs; the first, largest and Pollux's batch within the
 * validated sizes, the first <= the largest), validated batch sizes in ascending order, progress that starts at 0 and never falls, and a step time
 * on one GPU at the smallest local batch that is either finite and > 0 or an error with a
 * message.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/elastic.h"
#include "fuzzutil.h"

static void check_app(const elastic *e, int i)
{
    const char *name = elastic_app_name(e, i);
    const elastic_app *a = NULL;
    for (int g = 0; g < catalog_ngpus(fz_catalog()) && a == NULL; g++)
        a = elastic_get(e, i, g);
    if (a == NULL || strcmp(elastic_name(a), name) != 0 || elastic_find(e, name) != i)
        fz_fail("application %d ('%s') has no profile or does not find itself", i, name);
    const struct elastic_limits *l = elastic_limits(a);
    if (!(l->min_local_bsz >= 1 && l->min_local_bsz <= l->max_local_bsz && l->init_bsz >= 1 &&
          l->max_bsz >= 1 && l->max_epochs >= 1))
        fz_fail("%s: local batch %d-%d, batch %d-%d, %d epochs", name, l->min_local_bsz,
                l->max_local_bsz, l->init_bsz, l->max_bsz, l->max_epochs);
    int nb = elastic_nbsz(a);
    if (nb < 1)
        fz_fail("%s: no validated batch size", name);
    for (int k = 1; k < nb; k++)
        if (elastic_bsz(a, k) <= elastic_bsz(a, k - 1))
            fz_fail("%s: validated batch sizes out of order at %d", name, k);
    int lo = elastic_bsz(a, 0), hi = elastic_bsz(a, nb - 1);
    if (l->init_bsz < lo || l->init_bsz > l->max_bsz || l->max_bsz > hi ||
        (l->pollux_bsz != 0 && (l->pollux_bsz < lo || l->pollux_bsz > hi)))
        fz_fail("%s: batches %d-%d (Pollux's %d) beyond the validated %d-%d", name,
                l->init_bsz, l->max_bsz, l->pollux_bsz, lo, hi);
    double last = 0;
    for (int ep = 0; ep <= l->max_epochs; ep++) {
        double p = elastic_progress(a, ep);
        if (!isfinite(p) || p < last || (ep == 0 && p != 0))
            fz_fail("%s: progress %g at epoch %d after %g", name, p, ep, last);
        last = p;
    }
    int one[1] = { 1 };
    double step, sync;
    struct errbuf err;
    err_clear(&err);
    int rc = elastic_step_time(a, one, 1, l->min_local_bsz, &step, &sync, &err);
    fz_check_err(rc, &err, "elastic_step_time");
    if (rc == 0 && !(isfinite(step) && step > 0 && isfinite(sync) && sync >= 0))
        fz_fail("%s: step %g s, sync %g s on one GPU", name, step, sync);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_pollux_apps(NULL);
    char path[4096];
    fz_write(path, sizeof path, "models/data/pollux/fuzzed.json", data, size);
    struct errbuf err;
    err_clear(&err);
    elastic *e = NULL;
    int rc = elastic_load(&e, fz_catalog(), path, &err);
    fz_check_err(rc, &err, "elastic_load");
    if (rc == 0) {
        if (elastic_napps(e) < 1)
            fz_fail("no application loaded");
        for (int i = 0; i < elastic_napps(e); i++)
            check_app(e, i);
    } else if (e != NULL) {
        fz_fail("elastic_load failed but returned a set");
    }
    elastic_destroy(e);
    return 0;
}
