/*
 * fuzz_llmfit: the readers of `hetsim model fit` (models/llm_fit.h).  By the selector's low
 * two bits: 0 a Vidur kernel profile (llm_fit_add_profile) on the GPU type the selector's
 * high bits pick, 1 a Vidur all-reduce file (llm_fit_add_allreduce; collectives of 2 on the
 * first NVLink, of 4 on the first PCIe link), 2 end-to-end measurements (llm_fit_add_points)
 * fitted for lmdeploy, 3 the same as check rows only.
 *
 * Input: SELECTOR FILE.  A rejected file must leave a message.  An accepted one gets its
 * residuals under the shipped factors (llm_fit_residuals): every row's must be finite, and
 * the fit file llm_fit_write makes of them must load (llm_load).  The fit itself
 * (llm_fit_solve) is not run here: it takes 0.1-0.3 s an input; tests/test_llm_fit.c fits
 * on data that pulls factors out of range.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../models/llm.h"
#include "../../models/llm_fit.h"
#include "fuzzutil.h"

/* The first link of the catalog whose name starts with `prefix` */
static int link_named(const catalog *cat, const char *prefix)
{
    for (int l = 0; l < catalog_nlinks(cat); l++)
        if (strncmp(catalog_link(cat, l)->name, prefix, strlen(prefix)) == 0)
            return l;
    fz_fail("no %s link in the shipped catalog", prefix);
}

/* What the fit wrote loads back */
static void check_written(const llm_catalog *c, const struct llm_resid *r, int n)
{
    char path[4096], llms[4096];
    fz_write(path, sizeof path, "llm_fit.json", "", 0);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fz_fail("cannot write %s", path);
    int rc = llm_fit_write(f, c, r, n, "fuzz");
    if (fclose(f) != 0 || rc < 0)
        fz_fail("llm_fit_write failed");
    fz_shipped(llms, sizeof llms, llm_default_models);
    llm_catalog *back;
    struct errbuf err;
    err_clear(&err);
    if (llm_load(&back, fz_catalog(), llms, path, &err) < 0)
        fz_fail("the written fit does not load: %s", err.msg);
    llm_destroy(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llm_catalog *c;          /* the shipped factors, read once: nothing here changes them */
    if (size < 1)
        return 0;
    const catalog *cat = fz_catalog();
    struct errbuf err;
    if (c == NULL) {
        char llms[4096], fit[4096];
        fz_shipped(llms, sizeof llms, llm_default_models);
        fz_shipped(fit, sizeof fit, llm_default_fit);
        err_clear(&err);
        if (llm_load(&c, cat, llms, fit, &err) < 0)
            fz_fail("the shipped LLM catalog: %s", err.msg);
    }
    int kind = data[0] & 3, gpu = (data[0] >> 2) % catalog_ngpus(cat);
    char path[4096];
    fz_write(path, sizeof path, "input.csv", data + 1, size - 1);
    llm_fit_data *d = llm_fit_data_create();
    if (d == NULL)
        fz_fail("llm_fit_data_create: out of memory");
    int link_of[17];
    for (int i = 0; i < 17; i++)
        link_of[i] = -1;
    link_of[2] = link_named(cat, "nvlink");
    link_of[4] = link_named(cat, "pcie");
    err_clear(&err);
    int rc = kind == 0   ? llm_fit_add_profile(d, path, gpu, &err)
             : kind == 1 ? llm_fit_add_allreduce(d, path, link_of, &err)
                         : llm_fit_add_points(d, path, c, kind == 2 ? "lmdeploy" : NULL, &err);
    fz_check_err(rc, &err, kind == 0 ? "llm_fit_add_profile" : kind == 1 ? "llm_fit_add_allreduce"
                                                                         : "llm_fit_add_points");
    if (rc == 0) {
        enum { CAP = 256 };
        static struct llm_resid r[CAP];
        int n = llm_fit_residuals(d, c, r, CAP);
        for (int i = 0; i < n; i++)
            if (r[i].n < 0 || !isfinite(r[i].err_pct) || !isfinite(r[i].max_pct) ||
                (r[i].kind == LLM_RESID_POINT &&
                 !(isfinite(r[i].model_ms) && r[i].model_ms > 0 && r[i].measured_ms > 0)))
                fz_fail("residual '%s': %g%% (worst %g%%), model %g ms, measured %g ms",
                        r[i].what, r[i].err_pct, r[i].max_pct, r[i].model_ms,
                        r[i].measured_ms);
        check_written(c, r, n);
    }
    llm_fit_data_destroy(d);
    return 0;
}
