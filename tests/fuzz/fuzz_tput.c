/*
 * fuzz_tput: the throughput readers of models/tput.h — a profile (tput_load_profile, which
 * tells hetsim's profile CSV, Heet's CSV (models/heet_csv.c) and a JSON file of fits apart by
 * their first line) and Gavel's simulation_throughputs.json (tput_load_gavel).
 *
 * Input: one selector byte (even: a profile, odd: Gavel JSON), then the file, written to the
 * scratch directory.  The table is loaded on top of the shipped catalog and job types (read
 * once, copied for each input), as an experiment's "models" does; after a successful load the
 * model is asked for the rate of every job type the file touched (a table entry or a fit on
 * some GPU type, at the worker counts asked) on every GPU type with 1 to 8 workers, packed and
 * spread (>= 0, never NaN).  The rates of the types it did not touch do not depend on the input
 * (the shipped types carry no table): asking for them each run took a fifth of its time.
 */
#include <math.h>
#include <stdlib.h>

#include "../../sim/run/experiment.h"
#include "fuzzutil.h"

/* whether the loaded file gave job type jt a table entry or a fit the rates below can see */
static int touched(const tput *t, int jt)
{
    const catalog *c = tput_catalog(t);
    for (int g = 0; g < catalog_ngpus(c); g++) {
        if (tput_fit_of(t, jt, g) != NULL)
            return 1;
        for (int w = 1; w <= 8; w *= 2)
            for (int s = 0; s <= (w > 1); s++)
                if (tput_measured(t, jt, g, w, s) >= 0)
                    return 1;
    }
    return 0;
}

static void rates(const tput *t)
{
    const catalog *c = tput_catalog(t);
    int eth = catalog_link_find(c, "ethernet-25g");
    for (int jt = 0; jt < tput_ntypes(t); jt++) {
        if (!touched(t, jt))
            continue;
        for (int g = 0; g < catalog_ngpus(c); g++) {
            const struct gpu_spec *gs = catalog_gpu(c, g);
            for (int w = 1; w <= 8; w *= 2)
                for (int nodes = 1; nodes <= 2; nodes++) {
                    struct placement p = { g, w, nodes, -1 };
                    if (w > 1)
                        p.link = nodes > 1 ? eth : gs->nvlink >= 0 ? gs->nvlink : gs->pcie;
                    double r = tput_rate(t, jt, &p);
                    if (isnan(r) || r < 0)
                        fz_fail("tput_rate('%s', %s, %d workers, %d nodes) = %g",
                                tput_type(t, jt)->name, gs->name, w, nodes, r);
                }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int gavel = data[0] & 1;
    char path[4096], types[4096];
    fz_write(path, sizeof path, gavel ? "tput.json" : "profile.csv", data + 1, size - 1);

    struct errbuf err;
    err_clear(&err);
    /* the shipped job types, read once: a copy of them per input */
    static tput *base;
    if (base == NULL) {
        if (tput_create(&base, fz_catalog(), &err) < 0)
            fz_fail("tput_create: %s", err.msg);
        fz_shipped(types, sizeof types, experiment_default_jobtypes);
        if (tput_load_types(base, types, &err) < 0)
            fz_fail("shipped job types: %s", err.msg);
    }
    tput *t = NULL;
    if (tput_copy(&t, base, &err) < 0)
        fz_fail("tput_copy: %s", err.msg);
    int rc = gavel ? tput_load_gavel(t, path, &err) : tput_load_profile(t, path, &err);
    fz_check_err(rc, &err, gavel ? "tput_load_gavel" : "tput_load_profile");
    if (rc == 0)
        rates(t);
    tput_destroy(t);
    return 0;
}
