/*
 * fuzz_llm: llm_load on an architectures file and a fitted-factors file taken from the input,
 * against the shipped GPU catalog, and the same files read for their names only (the GPU
 * catalog NULL: what an experiment's check does).
 *
 * Input: LLMS JSON \0 FIT JSON (both written to the scratch directory).  A catalog that
 * loads is checked and used as the serving world and `hetsim model llm` use it: its engine
 * in use is the file's first and every engine can be chosen by name; a calibrated GPU type
 * states its data, a borrowed one none and holds the default's factors; every architecture's
 * what-if on every GPU type is finite and positive; and no all-reduce or send of any size
 * over any link of the catalog carries more bytes a second than the link's bandwidth (the
 * loader keeps eta_link <= 1, whatever the file says).
 */
#include <math.h>
#include <string.h>

#include "../../models/llm.h"
#include "fuzzutil.h"

static void check_engines(llm_catalog *c)
{
    if (llm_nengines(c) < 1 || llm_engine_in_use(c) != llm_engine_at(c, 0))
        fz_fail("%d engines, the first not in use", llm_nengines(c));
    for (int i = llm_nengines(c) - 1; i >= 0; i--) {
        const struct llm_engine *e = llm_engine_at(c, i);
        if (llm_engine_find(c, e->name) != e || e->source[0] == '\0' || e->licence[0] == '\0')
            fz_fail("engine %d ('%s') does not find itself or states no source", i, e->name);
        if (llm_use_engine(c, e->name) < 0 || llm_fit_of(c)->iter_ms != e->iter_ms ||
            llm_fit_of(c)->seq_ms != e->seq_ms || llm_fit_of(c)->first_ms != e->first_ms)
            fz_fail("engine '%s' cannot be used", e->name);
    }
}

static void check_model(const llm_catalog *c)
{
    const catalog *cat = llm_gpus(c);
    for (int g = 0; g < catalog_ngpus(cat); g++) {
        int fitted;
        const struct llm_gpu_fit *f = llm_gpu_fit(c, g, &fitted);
        if ((llm_gpu_data(c, g) != NULL) != fitted ||
            (!fitted && memcmp(f, &llm_fit_of(c)->dflt, sizeof *f) != 0))
            fz_fail("GPU %d: calibrated %d, data %s", g, fitted,
                    llm_gpu_data(c, g) ? llm_gpu_data(c, g) : "(none)");
    }
    for (int l = 0; l < catalog_nlinks(cat); l++) {
        double bw = catalog_link(cat, l)->bw_gbs * 1e9;
        for (double bytes = 1; bytes < 1e10; bytes *= 37) {
            double t = llm_send_s(c, l, bytes);
            if (!(t > 0) || bytes / t > bw * (1 + 1e-12))
                fz_fail("a send of %g B over link %d: %g s", bytes, l, t);
            for (int n = 2; n <= 8; n++) {
                t = llm_allreduce_s(c, l, n, bytes);
                if (!(t > 0) || 2.0 * (n - 1) / n * bytes / t > bw * (1 + 1e-12))
                    fz_fail("an all-reduce of %g B on %d GPUs over link %d: %g s", bytes, n,
                            l, t);
            }
        }
    }
    for (int i = 0; i < llm_narch(c); i++) {
        const struct llm_arch *a = llm_arch_at(c, i);
        for (int g = 0; g < catalog_ngpus(cat); g++) {
            const struct gpu_spec *gs = catalog_gpu(cat, g);
            struct llm_whatif w = { .gpu = g, .tp = 2, .pp = a->layers > 1 ? 2 : 1,
                                    .link = gs->pcie, .stage_link = gs->pcie, .batch = 3,
                                    .prompt = a->max_context > 2 ? a->max_context / 2 : 1,
                                    .context = a->max_context };
            double pre, dec;
            struct errbuf err;
            err_clear(&err);
            int rc = llm_whatif_s(c, a, &w, &pre, &dec, &err);
            fz_check_err(rc, &err, "llm_whatif_s");
            if (rc == 0 && !(isfinite(pre) && isfinite(dec) && pre > 0 && dec > 0))
                fz_fail("%s on GPU %d: prefill %g s, decode %g s", a->name, g, pre, dec);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t alen, flen;
    const uint8_t *a = fz_cut(&data, &size, 0, &alen);
    const uint8_t *f = fz_cut(&data, &size, 0, &flen);
    char apath[4096], fpath[4096];
    fz_write(apath, sizeof apath, "llms.json", a, alen);
    fz_write(fpath, sizeof fpath, "llm_fit.json", f, flen);

    struct errbuf err;
    err_clear(&err);
    llm_catalog *names = NULL, *c = NULL;
    int rc = llm_load(&names, NULL, apath, fpath, &err);
    fz_check_err(rc, &err, "llm_load (names)");
    if (rc == 0) {
        if (llm_narch(names) < 1 || llm_nengines(names) < 1)
            fz_fail("names: %d architectures, %d engines", llm_narch(names),
                    llm_nengines(names));
        llm_destroy(names);
    }
    err_clear(&err);
    rc = llm_load(&c, fz_catalog(), apath, fpath, &err);
    fz_check_err(rc, &err, "llm_load");
    if (rc < 0) {
        if (c != NULL)
            fz_fail("llm_load failed but returned a catalog");
        return 0;
    }
    check_model(c);
    check_engines(c);
    llm_destroy(c);
    return 0;
}
