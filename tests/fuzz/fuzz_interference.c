/*
 * fuzz_interference: the interference tables (models/interference.h), by the first byte:
 * 0 Gavel's co-location pairs (intf_load_gavel), 1 IADeep's combination table
 * (intf_load_iadeep on the RTX 3090), 2 Lucid's pairs with a map of invented model names
 * (Alpha -> vgg16, Beta -> lstm; intf_load_lucid), 3 Lucid's pairs without a map (names are
 * job types) — the selector's low two bits — then the completion (intf_fit, IADeep's
 * settings) and every pairwise and a few triple queries.
 *
 * Input: SELECTOR FILE.  Every slowdown the model answers must be finite and >= 0, and a
 * measured combination must answer what intf_measured says it measured.
 */
#include <math.h>

#include "../../models/interference.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int iadeep = (data[0] & 3) == 1, lucid = (data[0] & 2) != 0, nomap = (data[0] & 3) == 3;
    static const char *const map[] = { "Alpha", "vgg16", "Beta", "lstm" };
    char path[4096];
    fz_write(path, sizeof path, "table.csv", data + 1, size - 1);
    const tput *t = fz_models();
    const catalog *cat = fz_catalog();
    int nt = tput_ntypes(t), ng = catalog_ngpus(cat), gpu = catalog_gpu_find(cat, "RTX3090");
    intf *m;
    if (intf_create(&m, nt, ng) < 0)
        fz_fail("intf_create: out of memory");
    struct errbuf err;
    err_clear(&err);
    int rc = lucid    ? intf_load_lucid(m, t, path, gpu, map, nomap ? 0 : 2, &err)
             : iadeep ? intf_load_iadeep(m, t, path, gpu, &err)
                      : intf_load_gavel(m, t, path, &err);
    fz_check_err(rc, &err, lucid ? "intf_load_lucid" : iadeep ? "intf_load_iadeep"
                                                              : "intf_load_gavel");
    if (rc == 0) {
        err_clear(&err);
        rc = intf_fit(m, &intf_mf_default, 1, &err);
        fz_check_err(rc, &err, "intf_fit");
        for (int g = 0; rc == 0 && g < ng; g++)
            for (int a = 0; a < nt; a++)
                for (int b = 0; b < nt; b++) {
                    double d = intf_slowdown(m, g, a, &b, 1);
                    int o[2] = { b, (a + b) % nt };
                    double d3 = intf_slowdown(m, g, a, o, 2);
                    if (!isfinite(d) || d < 0 || !isfinite(d3) || d3 < 0)
                        fz_fail("GPU %d: slowdown of %d with %d = %g, with %d,%d = %g", g, a, b,
                                d, o[0], o[1], d3);
                }
    }
    intf_destroy(m);
    return 0;
}
