/*
 * test_catalog: the shipped GPU and link catalogs (every GPU type of the issue list, names
 * and aliases matched case-insensitively, specs and link scopes as written in the JSON files)
 * and broken catalogs written to the scratch directory, whose errors must read
 * "FILE:LINE: FIELD: message".
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../models/catalog.h"
#include "helpers.h"

Test(catalog, every_gpu_of_the_issue_list)
{
    catalog *c = th_catalog();
    static const char *const names[] = { "K80",  "P100",      "V100-16GB", "V100-32GB",
                                         "T4",   "A10",       "A100-40GB", "A100-80GB",
                                         "H100", "L4",        "RTX3090",   "RTX6000",
                                         "RTX2080Ti", NULL };
    int n = 0;
    for (; names[n] != NULL; n++) {
        int id = catalog_gpu_find(c, names[n]);
        cr_assert_geq(id, 0, "%s missing from gpus.json", names[n]);
        cr_assert_str_eq(catalog_gpu(c, id)->name, names[n]);
    }
    cr_assert_eq(catalog_ngpus(c), n, "gpus.json has %d types, want %d", catalog_ngpus(c), n);
    /* ids follow the file order */
    for (int i = 0; i < n; i++)
        cr_assert_eq(catalog_gpu_find(c, names[i]), i, "%s", names[i]);
    const char *out[16];
    catalog_gpu_names(c, out);
    for (int i = 0; i < n; i++)
        cr_assert_str_eq(out[i], names[i]);
    cr_assert_null(out[n], "the name list is NULL-terminated");
    catalog_destroy(c);
}

Test(catalog, names_and_aliases_ignore_case)
{
    catalog *c = th_catalog();
    static const struct {
        const char *name, *is;
    } cases[] = {
        { "v100", "V100-16GB" },      { "V100", "V100-16GB" },     { "v100-16gb", "V100-16GB" },
        { "V100M32", "V100-32GB" },   { "v100m32", "V100-32GB" },  { "V100-32", "V100-32GB" },
        { "MISC", "K80" },            { "misc", "K80" },           { "k80", "K80" },
        { "P100-16GB", "P100" },      { "a100", "A100-40GB" },     { "A100-80", "A100-80GB" },
        { "h100-80gb", "H100" },      { "3090", "RTX3090" },       { "rtx3090", "RTX3090" },
        { "t4", "T4" },               { "L4", "L4" },              { "a10", "A10" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int id = catalog_gpu_find(c, cases[i].name);
        cr_assert_geq(id, 0, "'%s' not found", cases[i].name);
        cr_assert_str_eq(catalog_gpu(c, id)->name, cases[i].is, "'%s'", cases[i].name);
    }
    static const char *const unknown[] = { "V200", "", "V100-", "A100-40", "RTX 3090", "K8",
                                           "nvlink2", NULL };
    for (int i = 0; unknown[i] != NULL; i++)
        cr_assert_eq(catalog_gpu_find(c, unknown[i]), -1, "'%s' must be unknown", unknown[i]);
    const struct gpu_spec *k80 = catalog_gpu(c, catalog_gpu_find(c, "K80"));
    cr_assert_eq(k80->naliases, 2);
    cr_assert_str_eq(k80->aliases[0], "k80");
    cr_assert_str_eq(k80->aliases[1], "MISC");
    catalog_destroy(c);
}

Test(catalog, gpu_specs_as_in_the_file)
{
    catalog *c = th_catalog();
    static const struct {
        const char *name;
        double      mem, fp32, fp16, bw, price;
        const char *nvlink, *nvswitch, *pcie;  /* NULL: none */
    } cases[] = {
        { "K80", 12, 4.37, 4.37, 240, 0.90, NULL, NULL, "pcie3" },
        { "P100", 16, 9.3, 18.7, 732, 1.46, "nvlink1", NULL, "pcie3" },
        { "V100-16GB", 16, 15.7, 125, 900, 3.06, "nvlink2", "nvswitch2", "pcie3" },
        { "V100-32GB", 32, 15.7, 125, 900, 3.90, "nvlink2", "nvswitch2", "pcie3" },
        { "T4", 16, 8.1, 65, 320, 0.35, NULL, NULL, "pcie3" },
        { "A10", 24, 31.2, 125, 600, 1.006, NULL, NULL, "pcie4" },
        { "A100-40GB", 40, 19.5, 312, 1555, 4.10, "nvlink3", "nvswitch", "pcie4" },
        { "A100-80GB", 80, 19.5, 312, 2039, 5.12, "nvlink3", "nvswitch", "pcie4" },
        { "H100", 80, 67, 989, 3350, 12.29, "nvlink4", "nvswitch4", "pcie5" },
        { "L4", 24, 30.3, 121, 300, 0.805, NULL, NULL, "pcie4" },
        { "RTX3090", 24, 35.6, 71, 936, 0.40, NULL, NULL, "pcie4" },
        { "RTX6000", 24, 16.3, 130.5, 672, 0.50, NULL, NULL, "pcie3" },
        { "RTX2080Ti", 11, 13.4, 53.8, 616, 0.25, NULL, NULL, "pcie3" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int id = catalog_gpu_find(c, cases[i].name);
        cr_assert_geq(id, 0);
        const struct gpu_spec *g = catalog_gpu(c, id);
        cr_assert_eq(g->mem_gb, cases[i].mem, "%s mem_gb", g->name);
        cr_assert_eq(g->fp32_tflops, cases[i].fp32, "%s fp32", g->name);
        cr_assert_eq(g->fp16_tflops, cases[i].fp16, "%s fp16", g->name);
        cr_assert_eq(g->mem_bw_gbs, cases[i].bw, "%s mem_bw", g->name);
        cr_assert_eq(g->price_hr, cases[i].price, "%s price", g->name);
        if (cases[i].nvlink == NULL)
            cr_assert_eq(g->nvlink, -1, "%s has no NVLink", g->name);
        else
            cr_assert_str_eq(catalog_link(c, g->nvlink)->name, cases[i].nvlink, "%s", g->name);
        if (cases[i].nvswitch == NULL)
            cr_assert_eq(g->nvswitch, -1, "%s has no NVSwitch", g->name);
        else
            cr_assert_str_eq(catalog_link(c, g->nvswitch)->name, cases[i].nvswitch, "%s",
                             g->name);
        cr_assert_geq(g->pcie, 0);
        cr_assert_str_eq(catalog_link(c, g->pcie)->name, cases[i].pcie, "%s", g->name);
    }
    catalog_destroy(c);
}

/* The intra-node links each shipped GPU type may have (the rule in gpus.json's note), by hand
 * from the data sheets: its own NVLink, the NVSwitch of that generation (DGX-2/HGX-2 for V100,
 * HGX A100, HGX H100), and every PCIe generation up to its own host interface. */
Test(catalog, intra_links_each_gpu_can_have)
{
    catalog *c = th_catalog();
    static const struct {
        const char *gpu, *links;
    } cases[] = {
        { "K80", "pcie3" },
        { "P100", "nvlink1, pcie3" },
        { "V100-16GB", "nvlink2, nvswitch2, pcie3" },
        { "V100-32GB", "nvlink2, nvswitch2, pcie3" },
        { "T4", "pcie3" },
        { "A10", "pcie3, pcie4" },
        { "A100-40GB", "nvlink3, nvswitch, pcie3, pcie4" },
        { "A100-80GB", "nvlink3, nvswitch, pcie3, pcie4" },
        { "H100", "nvlink4, nvswitch4, pcie3, pcie4, pcie5" },
        { "L4", "pcie3, pcie4" },
        { "RTX3090", "pcie3, pcie4" },
        { "RTX6000", "pcie3" },
        { "RTX2080Ti", "pcie3" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int g = catalog_gpu_find(c, cases[i].gpu);
        char list[256];
        catalog_gpu_intra_list(c, g, list, sizeof list);
        cr_assert_str_eq(list, cases[i].links, "%s", cases[i].gpu);
        /* the list and the predicate agree, and no inter-node link is ever allowed */
        int n = 0;
        for (int l = 0; l < catalog_nlinks(c); l++) {
            int ok = catalog_gpu_intra_ok(c, g, l);
            n += ok;
            if (catalog_link(c, l)->scope == LINK_INTER)
                cr_assert_eq(ok, 0, "%s on %s", cases[i].gpu, catalog_link(c, l)->name);
        }
        int commas = 0;
        for (const char *p = list; *p; p++)
            commas += *p == ',';
        cr_assert_eq(n, commas + 1, "%s: %d links allowed, list '%s'", cases[i].gpu, n, list);
    }
    /* the physically impossible combinations of the issue */
    int t4 = catalog_gpu_find(c, "T4"), k80 = catalog_gpu_find(c, "K80");
    int v100 = catalog_gpu_find(c, "V100"), a100 = catalog_gpu_find(c, "A100");
    cr_assert_eq(catalog_gpu_intra_ok(c, t4, catalog_link_find(c, "nvlink3")), 0);
    cr_assert_eq(catalog_gpu_intra_ok(c, k80, catalog_link_find(c, "nvswitch")), 0);
    cr_assert_eq(catalog_gpu_intra_ok(c, t4, catalog_link_find(c, "pcie4")), 0);
    cr_assert_eq(catalog_gpu_intra_ok(c, v100, catalog_link_find(c, "nvswitch")), 0,
                 "A100's NVSwitch would double a V100's NVLink bandwidth");
    cr_assert_eq(catalog_gpu_intra_ok(c, a100, catalog_link_find(c, "nvlink2")), 0);
    cr_assert_eq(catalog_gpu_intra_ok(c, a100, -1), 0);
    cr_assert_eq(catalog_gpu_intra_ok(c, a100, catalog_nlinks(c)), 0);
    /* a list that does not fit is cut with "..." */
    char small[16];
    catalog_gpu_intra_list(c, catalog_gpu_find(c, "H100"), small, sizeof small);
    cr_assert_str_eq(small, "nvlink4, ...");
    catalog_destroy(c);
}

Test(catalog, links_as_in_the_file)
{
    catalog *c = th_catalog();
    static const struct {
        const char *name;
        int         scope;
        double      bw, lat;
    } cases[] = {
        { "nvlink1", LINK_INTRA, 80, 2 },          { "nvlink2", LINK_INTRA, 150, 2 },
        { "nvlink3", LINK_INTRA, 300, 2 },         { "nvlink4", LINK_INTRA, 450, 2 },
        { "nvswitch2", LINK_INTRA, 150, 3 },       { "nvswitch", LINK_INTRA, 300, 3 },
        { "nvswitch4", LINK_INTRA, 450, 3 },
        { "pcie3", LINK_INTRA, 15.75, 5 },         { "pcie4", LINK_INTRA, 31.5, 5 },
        { "pcie5", LINK_INTRA, 63, 5 },            { "ethernet-10g", LINK_INTER, 1.25, 30 },
        { "ethernet-25g", LINK_INTER, 3.125, 20 }, { "ethernet-100g", LINK_INTER, 12.5, 15 },
        { "ib-100g", LINK_INTER, 12.5, 1.5 },      { "ib-200g", LINK_INTER, 25, 1.2 },
        { "ib-400g", LINK_INTER, 50, 1.0 },
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    cr_assert_eq(catalog_nlinks(c), n);
    const char *names[32];
    catalog_link_names(c, names);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(catalog_link_find(c, cases[i].name), i, "%s at its file position",
                     cases[i].name);
        const struct link_spec *l = catalog_link(c, i);
        cr_assert_str_eq(l->name, cases[i].name);
        cr_assert_str_eq(names[i], cases[i].name);
        cr_assert_eq(l->scope, cases[i].scope, "%s scope", l->name);
        cr_assert_eq(l->bw_gbs, cases[i].bw, "%s bw", l->name);
        cr_assert_eq(l->lat_us, cases[i].lat, "%s latency", l->name);
    }
    cr_assert_null(names[n]);
    cr_assert_eq(catalog_link_find(c, "PCIE3"), catalog_link_find(c, "pcie3"), "case-insensitive");
    cr_assert_eq(catalog_link_find(c, "pcie6"), -1);
    cr_assert_eq(catalog_link_find(c, "V100"), -1, "GPU names are not links");
    catalog_destroy(c);
}

/* ---- broken catalogs ---- */

static const char *const good_links =
    "{ \"links\": [\n"
    "  { \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 15.75, \"lat_us\": 5 },\n"
    "  { \"name\": \"nvlink2\", \"scope\": \"intra\", \"bw_gbs\": 150, \"lat_us\": 2 },\n"
    "  { \"name\": \"ib-100g\", \"scope\": \"inter\", \"bw_gbs\": 12.5, \"lat_us\": 1.5 }\n"
    "] }\n";

/* a GPU entry on one line; `extra` replaces the fields after the name */
#define GPU(name, rest)                                                                   \
    "  { \"name\": \"" name "\", \"mem_gb\": 16, \"fp32_tflops\": 15.7, "                  \
    "\"fp16_tflops\": 125, \"mem_bw_gbs\": 900, \"price_hr\": 3" rest " }"
#define PCIE ", \"pcie\": \"pcie3\""

static const char *const good_gpus =
    "{ \"gpus\": [\n"
    GPU("V100", ", \"aliases\": [\"v\"], \"nvlink\": \"nvlink2\"" PCIE) ",\n"
    GPU("K80", PCIE) "\n"
    "] }\n";

/* Load `gpus`/`links` text written under `tag`; returns the catalog or NULL with err set. */
static catalog *load(const char *tag, const char *gpus, const char *links, struct errbuf *err,
                     char **gpath, char **lpath)
{
    char gn[64], ln[64];
    snprintf(gn, sizeof gn, "%s_gpus.json", tag);
    snprintf(ln, sizeof ln, "%s_links.json", tag);
    *gpath = th_write(gn, gpus);
    *lpath = th_write(ln, links);
    err_clear(err);
    catalog *c = (catalog *)1;
    int rc = catalog_load(&c, *gpath, *lpath, err);
    if (rc < 0) {
        cr_assert_null(c, "no catalog on failure");
        return NULL;
    }
    cr_assert_not_null(c);
    return c;
}

Test(catalog, small_good_catalog)
{
    struct errbuf err;
    char *g, *l;
    catalog *c = load("good", good_gpus, good_links, &err, &g, &l);
    cr_assert_not_null(c, "%s", err.msg);
    cr_assert_eq(catalog_ngpus(c), 2);
    cr_assert_eq(catalog_nlinks(c), 3);
    cr_assert_eq(catalog_gpu_find(c, "V"), 0);
    cr_assert_eq(catalog_gpu(c, 0)->nvlink, 1);
    cr_assert_eq(catalog_gpu(c, 1)->nvlink, -1);
    cr_assert_eq(catalog_gpu(c, 0)->nvswitch, -1, "no \"nvswitch\": none");
    cr_assert_eq(catalog_gpu(c, 1)->pcie, 0);
    cr_assert_eq(catalog_link(c, 2)->scope, LINK_INTER);
    catalog_destroy(c);
    free(g);
    free(l);
}

Test(catalog, broken_files)
{
    static const struct {
        const char *tag, *gpus, *links;
        int         in_links;   /* the error names the links file */
        const char *want;       /* after the file name */
    } cases[] = {
        { "unknown_link",
          "{ \"gpus\": [\n" GPU("V100", ", \"nvlink\": \"nvlink9\"" PCIE) "\n] }", NULL, 0,
          ":2: gpus[0].nvlink: unknown intra-node link 'nvlink9' (did you mean 'nvlink2'?)" },
        { "inter_as_pcie",
          "{ \"gpus\": [\n" GPU("V100", PCIE) ",\n" GPU("T4", ", \"pcie\": \"ib-100g\"") "\n] }",
          NULL, 0, ":3: gpus[1].pcie: 'ib-100g' is an inter-node link; this field needs an intra-node link" },
        { "missing_pcie", "{ \"gpus\": [\n" GPU("V100", PCIE) ",\n\n" GPU("T4", "") "\n] }", NULL,
          0, ":4: gpus[1].pcie: required field is missing" },
        { "dup_name",
          "{ \"gpus\": [\n" GPU("V100", PCIE) ",\n" GPU("K80", PCIE) ",\n" GPU("V100", PCIE)
          "\n] }",
          NULL, 0, ":4: gpus[2]: GPU type 'V100' is defined twice" },
        { "dup_name_case", "{ \"gpus\": [\n" GPU("V100", PCIE) ",\n" GPU("v100", PCIE) "\n] }",
          NULL, 0, ":3: gpus[1]: GPU type 'v100' is defined twice" },
        { "name_is_alias",
          "{ \"gpus\": [\n" GPU("V100-16GB", ", \"aliases\": [\"V100\"]" PCIE) ",\n"
          GPU("V100", PCIE) "\n] }",
          NULL, 0, ":3: gpus[1]: GPU type 'V100' is defined twice" },
        { "alias_clash",
          "{ \"gpus\": [\n" GPU("V100-16GB", ", \"aliases\": [\"v100\"]" PCIE) ",\n"
          GPU("V100-32GB", ", \"aliases\": [\"V100M32\", \"V100\"]" PCIE) "\n] }",
          NULL, 0, ":3: gpus[1]: alias 'V100' already names another GPU" },
        { "alias_is_name",
          "{ \"gpus\": [\n" GPU("K80", PCIE) ",\n" GPU("T4", ", \"aliases\": [\"k80\"]" PCIE)
          "\n] }",
          NULL, 0, ":3: gpus[1]: alias 'k80' already names another GPU" },
        { "neg_price",
          "{ \"gpus\": [\n  { \"name\": \"V100\", \"mem_gb\": 16, \"fp32_tflops\": 15.7,\n"
          "    \"fp16_tflops\": 125, \"mem_bw_gbs\": 900,\n    \"price_hr\": -1" PCIE " }\n] }",
          NULL, 0, ":4: gpus[0].price_hr: -1 is out of range [0, 10000]" },
        { "neg_fp32",
          "{ \"gpus\": [\n  { \"name\": \"V100\", \"mem_gb\": 16,\n    \"fp32_tflops\": -15.7,"
          " \"fp16_tflops\": 125, \"mem_bw_gbs\": 900, \"price_hr\": 1" PCIE " }\n] }",
          NULL, 0, ":3: gpus[0].fp32_tflops: -15.7 is out of range [0.001, 100000]" },
        { "zero_mem",
          "{ \"gpus\": [\n  { \"name\": \"V100\",\n    \"mem_gb\": 0, \"fp32_tflops\": 15.7,"
          " \"fp16_tflops\": 125, \"mem_bw_gbs\": 900, \"price_hr\": 1" PCIE " }\n] }",
          NULL, 0, ":3: gpus[0].mem_gb: 0 is out of range [0.1, 100000]" },
        { "unknown_gpu_field",
          "{ \"gpus\": [\n  { \"name\": \"V100\",\n    \"mem_gbs\": 16 }\n] }", NULL, 0,
          ":3: gpus[0].mem_gbs: unknown field (did you mean 'mem_gb'?" },
        { "string_number",
          "{ \"gpus\": [\n  { \"name\": \"V100\",\n    \"mem_gb\": \"16\" }\n] }", NULL, 0,
          ":3: gpus[0].mem_gb: must be a number" },
        { "too_many_aliases",
          "{ \"gpus\": [\n" GPU("V100", ", \"aliases\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\"]"
                             PCIE) "\n] }",
          NULL, 0, ":2: gpus[0].aliases[6]: must be a short non-empty string (at most 6 "
          "aliases)" },
        { "empty_alias",
          "{ \"gpus\": [\n" GPU("V100", ", \"aliases\": [\"v\", \"\"]" PCIE) "\n] }", NULL, 0,
          ":2: gpus[0].aliases[1]: must be a short non-empty string" },
        { "nvswitch_without_nvlink",
          "{ \"gpus\": [\n" GPU("K80", PCIE ", \"nvswitch\": \"nvlink2\"") "\n] }", NULL, 0,
          ":2: gpus[0].nvswitch: 'nvlink2' needs NVLink, and this GPU type has no \"nvlink\"" },
        { "nvswitch_faster_than_nvlink",
          "{ \"gpus\": [\n" GPU("P100", ", \"nvlink\": \"pcie3\", \"nvswitch\": \"nvlink2\""
                             PCIE) "\n] }", NULL, 0,
          ":2: gpus[0].nvswitch: 'nvlink2' carries 150 GB/s per GPU, more than the GPU's own "
          "NVLink 'pcie3' (15.75 GB/s)" },
        { "nvswitch_is_inter",
          "{ \"gpus\": [\n" GPU("V100", ", \"nvlink\": \"nvlink2\", \"nvswitch\": \"ib-100g\""
                             PCIE) "\n] }", NULL, 0,
          ":2: gpus[0].nvswitch: 'ib-100g' is an inter-node link; this field needs an intra-node link" },
        { "source_unknown",
          "{ \"sources\": { \"v100\": \"V100 data sheet\" },\n  \"gpus\": [\n"
          GPU("V100", PCIE ", \"source\": \"v10\"") "\n] }", NULL, 0,
          ":3: gpus[0].source: 'v10' is not an entry of \"sources\" (did you mean 'v100'?)" },
        { "price_source_without_sources",
          "{ \"gpus\": [\n" GPU("V100", PCIE ", \"price_source\": \"aws\"") "\n] }", NULL, 0,
          ":2: gpus[0].price_source: 'aws' is not an entry of \"sources\"" },
        { "source_not_string",
          "{ \"sources\": {\n    \"v100\": 5 },\n  \"gpus\": [\n" GPU("V100", PCIE) "\n] }", NULL,
          0, ":2: sources.v100: must be a string" },
        { "vendor_number",
          "{ \"gpus\": [\n" GPU("V100", PCIE ", \"vendor\": 10") "\n] }", NULL, 0,
          ":2: gpus[0].vendor: must be a string" },
        { "arch_empty",
          "{ \"gpus\": [\n" GPU("V100", PCIE ", \"arch\": \"\"") "\n] }", NULL, 0,
          ":2: gpus[0].arch: must not be empty" },
        { "gpus_note_number", "{ \"note\": [],\n  \"gpus\": [\n" GPU("V100", PCIE) "\n] }", NULL,
          0, ":1: note: must be a string" },
        { "long_name",
          "{ \"gpus\": [\n" GPU("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", PCIE) "\n] }", NULL, 0,
          ":2: gpus[0].name: longer than 31 characters" },
        { "empty_gpus", "{\n  \"gpus\": []\n}", NULL, 0,
          ":2: gpus: empty: at least one GPU type is needed" },
        { "no_gpus", "{\n  \"gpu\": []\n}", NULL, 0,
          ":2: gpu: unknown field (did you mean 'gpus'?" },
        { "gpu_syntax", "{ \"gpus\": [\n" GPU("V100", PCIE) ",\n] }", NULL, 0,
          ":3: JSON syntax error" },
        { "dup_link", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 15.75, \"lat_us\": 5 },\n"
          "  { \"name\": \"nvlink2\", \"scope\": \"intra\", \"bw_gbs\": 150, \"lat_us\": 2 },\n"
          "  { \"name\": \"PCIe3\", \"scope\": \"intra\", \"bw_gbs\": 31.5, \"lat_us\": 5 }\n"
          "] }",
          1, ":4: links[2]: link 'PCIe3' is defined twice" },
        { "neg_bw", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\", \"scope\": \"intra\",\n    \"bw_gbs\": -5, \"lat_us\": 5 }\n"
          "] }",
          1, ":3: links[0].bw_gbs: -5 is out of range [1e-06, 1e+06]" },
        { "neg_lat", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 5,\n    \"lat_us\": -1 }\n"
          "] }",
          1, ":3: links[0].lat_us: -1 is out of range [0, 1e+06]" },
        { "bad_scope", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\",\n    \"scope\": \"intra-node\", \"bw_gbs\": 5, \"lat_us\": 1 }\n"
          "] }",
          1, ":3: links[0].scope: 'intra-node' is not one of: intra, inter" },
        { "scope_typo", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\",\n    \"scope\": \"iner\", \"bw_gbs\": 5, \"lat_us\": 1 }\n"
          "] }",
          1, ":3: links[0].scope: 'iner' is not one of: intra, inter (did you mean 'inter'?)" },
        { "link_no_name", good_gpus,
          "{ \"links\": [\n  { \"scope\": \"intra\", \"bw_gbs\": 5, \"lat_us\": 1 }\n] }", 1,
          ":2: links[0].name: required field is missing" },
        { "link_not_object", good_gpus, "{ \"links\": [\n  \"pcie3\"\n] }", 1,
          ":2: links[0]: must be an object" },
        { "empty_links", good_gpus, "{ \"links\": [] }", 1,
          ":1: links: empty: at least one link is needed" },
        { "link_source_unknown", good_gpus,
          "{ \"sources\": { \"pcie\": \"PCI-SIG\" },\n  \"links\": [\n"
          "  { \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 15.75, \"lat_us\": 5,\n"
          "    \"source\": \"pci\" }\n] }", 1,
          ":4: links[0].source: 'pci' is not an entry of \"sources\" (did you mean 'pcie'?)" },
        { "link_note_number", good_gpus,
          "{ \"links\": [\n"
          "  { \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 15.75, \"lat_us\": 5,\n"
          "    \"note\": 3 }\n] }", 1, ":3: links[0].note: must be a string" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct errbuf err;
        char *g, *l;
        catalog *c = load(cases[i].tag, cases[i].gpus,
                          cases[i].links ? cases[i].links : good_links, &err, &g, &l);
        cr_assert_null(c, "%s: broken catalog accepted", cases[i].tag);
        char want[1024];
        snprintf(want, sizeof want, "%s%s", cases[i].in_links ? l : g, cases[i].want);
        cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "%s:\n got  %s\n want %s",
                  cases[i].tag, err.msg, want);
        cr_assert_eq(err.code, ERR_INPUT, "%s", cases[i].tag);
        free(g);
        free(l);
    }
}

Test(catalog, negative_memory_and_duplicate_key)
{
    /* a key given twice is refused before its value is looked at */
    struct errbuf err;
    char *g, *l;
    catalog *c = load("neg_mem_dup",
                      "{ \"gpus\": [\n" GPU("V100", PCIE ",\n    \"mem_gb\": -16") "\n] }",
                      good_links, &err, &g, &l);
    cr_assert_null(c);
    char want[700];
    snprintf(want, sizeof want, "%s:3: gpus[0].mem_gb: field given twice", g);
    cr_assert_str_eq(err.msg, want);
    free(g);
    free(l);

    c = load("neg_mem",
             "{ \"gpus\": [\n  { \"name\": \"V100\",\n    \"mem_gb\": -16, \"fp32_tflops\": 15.7,"
             " \"fp16_tflops\": 125, \"mem_bw_gbs\": 900, \"price_hr\": 1" PCIE " }\n] }",
             good_links, &err, &g, &l);
    cr_assert_null(c);
    snprintf(want, sizeof want, "%s:3: gpus[0].mem_gb: -16 is out of range [0.1, 100000]", g);
    cr_assert_str_eq(err.msg, want);
    free(g);
    free(l);
}

Test(catalog, missing_files)
{
    struct errbuf err;
    err_clear(&err);
    catalog *c;
    char *l = th_write("mf_links.json", good_links);
    cr_assert_eq(catalog_load(&c, "/nonexistent/gpus.json", l, &err), -1);
    cr_assert(strncmp(err.msg, "/nonexistent/gpus.json: cannot open", 35) == 0, "%s", err.msg);
    char *g = th_write("mf_gpus.json", good_gpus);
    err_clear(&err);
    cr_assert_eq(catalog_load(&c, g, "/nonexistent/links.json", &err), -1);
    cr_assert(strncmp(err.msg, "/nonexistent/links.json: cannot open", 36) == 0, "%s", err.msg);
    free(g);
    free(l);
}
