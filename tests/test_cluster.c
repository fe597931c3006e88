/*
 * test_cluster: cluster layout, placement descriptions (nodes spanned, slowest link), and the
 * occupancy tracker: best-fit packing, spreading, all-or-nothing allocation, and its
 * bookkeeping checked against a brute-force recount after random operations, and the
 * assertion against over-allocation (a death test that names the assertion it expects).
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gsl/gsl_rng.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/core/occ.h"
#include "../sim/base/rng.h"
#include "helpers.h"

static const char mixed[] =
    "{ \"name\": \"t\", \"network\": \"ethernet-25g\", \"groups\": [\n"
    "  { \"count\": 2, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 8, \"intra\": \"nvswitch\" },\n"
    "  { \"count\": 3, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
    "  { \"count\": 2, \"gpu\": \"V100\", \"gpus_per_node\": 4, \"intra\": \"pcie3\", \"network\": \"ib-100g\" },\n"
    "  { \"count\": 4, \"gpu\": \"T4\", \"gpus_per_node\": 1 }\n"
    "] }";

static catalog *cat;
static cluster *cl;

static void setup(void)
{
    cat = th_catalog();
    cl = th_cluster(cat, mixed);
}

static void teardown(void)
{
    cluster_destroy(cl);
    catalog_destroy(cat);
}

TestSuite(cluster, .init = setup, .fini = teardown);

Test(cluster, layout)
{
    cr_assert_eq(cluster_ngpus(cl), 16 + 12 + 8 + 4);
    cr_assert_eq(cluster_nnodes(cl), 2 + 3 + 2 + 4);
    const int *types;
    cr_assert_eq(cluster_types(cl, &types), 3);
    cr_assert_eq(cluster_type_count(cl, catalog_gpu_find(cat, "V100-16GB")), 20);
    cr_assert_eq(cluster_type_count(cl, catalog_gpu_find(cat, "H100")), 0);
    /* GPUs are numbered node by node, groups in file order */
    cr_assert_eq(cluster_gpu_node(cl, 0), 0);
    cr_assert_eq(cluster_gpu_node(cl, 15), 1);
    cr_assert_eq(cluster_gpu_node(cl, 16), 2);
    cr_assert_eq(cluster_gpu_type(cl, 16), catalog_gpu_find(cat, "V100"));
    /* the default intra link of a V100 group is the GPU's own NVLink */
    cr_assert_eq(cluster_node(cl, 2)->intra, catalog_link_find(cat, "nvlink2"));
    cr_assert_eq(cluster_node(cl, 5)->intra, catalog_link_find(cat, "pcie3"));
    cr_assert_eq(cluster_node(cl, 5)->net, catalog_link_find(cat, "ib-100g"));
}

/* A subset keeps the chosen groups, in order, laid out anew: node 0 of {groups 1, 3} is
 * the cluster's node 2, GPU 0 its GPU 16; the types and counts are the subset's. */
Test(cluster, subset_lays_out_the_chosen_groups)
{
    struct errbuf err;
    err_clear(&err);
    cluster *s;
    int keep[4] = { 0, 1, 0, 1 };
    cr_assert_eq(cluster_subset(&s, cl, keep, &err), 0, "%s", err.msg);
    cr_assert_eq(cluster_nnodes(s), 3 + 4);
    cr_assert_eq(cluster_ngpus(s), 12 + 4);
    cr_assert_eq(cluster_ngroups(s), 2);
    cr_assert_str_eq(cluster_group_name(s, 0), cluster_group_name(cl, 1));
    cr_assert_eq(cluster_node(s, 0)->gpu, cluster_node(cl, 2)->gpu);
    cr_assert_eq(cluster_node(s, 0)->intra, cluster_node(cl, 2)->intra);
    cr_assert_eq(cluster_node(s, 3)->first, 12);
    cr_assert_eq(cluster_node(s, 3)->intra, cluster_node(cl, 7)->intra);
    cr_assert_eq(cluster_gpu_node(s, 12), 3);
    const int *types;
    int nt = cluster_types(s, &types), total = 0;
    for (int i = 0; i < nt; i++)
        total += cluster_type_count(s, types[i]);
    cr_assert_eq(total, 16);
    cr_assert_eq(cluster_max_gpus_per_node(s), 4);
    cluster_destroy(s);
}

Test(cluster, placement_nodes_and_slowest_link)
{
    struct placement p;
    int mixed_types;
    int one_node[] = { 16, 17, 18, 19 };
    cluster_placement(cl, one_node, 4, &p, &mixed_types);
    cr_assert_eq(p.nodes, 1);
    cr_assert_eq(p.link, catalog_link_find(cat, "nvlink2"));
    cr_assert_eq(mixed_types, 0);
    int two_nodes[] = { 16, 17, 20, 21 };
    cluster_placement(cl, two_nodes, 4, &p, &mixed_types);
    cr_assert_eq(p.nodes, 2);
    cr_assert_eq(p.link, catalog_link_find(cat, "ethernet-25g"));
    /* an NVLink node and a PCIe node joined by ethernet: ethernet is the slowest */
    int pcie_and_nv[] = { 19, 28 };
    cluster_placement(cl, pcie_and_nv, 2, &p, &mixed_types);
    cr_assert_eq(p.link, catalog_link_find(cat, "ethernet-25g"));
    /* two PCIe nodes on IB: IB (12.5 GB/s) is slower than PCIe 3 (15.75) */
    int pcie_pair[] = { 28, 32 };
    cluster_placement(cl, pcie_pair, 2, &p, &mixed_types);
    cr_assert_eq(p.link, catalog_link_find(cat, "ib-100g"));
    int single[] = { 3 };
    cluster_placement(cl, single, 1, &p, &mixed_types);
    cr_assert_eq(p.link, -1);
    cr_assert_eq(p.nodes, 1);
    int hetero[] = { 0, 16 };
    cluster_placement(cl, hetero, 2, &p, &mixed_types);
    cr_assert_eq(mixed_types, 1);
}

Test(cluster, best_placement_prefers_fewest_nodes_then_fastest_links)
{
    struct placement p;
    int v100 = catalog_gpu_find(cat, "V100");
    cluster_best_placement(cl, v100, 4, &p);
    cr_assert_eq(p.nodes, 1);
    cr_assert_eq(p.link, catalog_link_find(cat, "nvlink2"));
    cluster_best_placement(cl, v100, 8, &p);
    cr_assert_eq(p.nodes, 2);
    /* both groups need 2 nodes; IB (12.5) beats ethernet-25g (3.125) */
    cr_assert_eq(p.link, catalog_link_find(cat, "ib-100g"));
    cluster_best_placement(cl, catalog_gpu_find(cat, "A100-40GB"), 8, &p);
    cr_assert_eq(p.nodes, 1);
    cr_assert_eq(p.link, catalog_link_find(cat, "nvswitch"));
}

Test(cluster, errors_name_file_line_and_field)
{
    struct errbuf err;
    err_clear(&err);
    const char *bad = "{ \"network\": \"ethernet-25g\",\n \"groups\": [\n"
                      "  { \"count\": 2, \"gpu\": \"V10\", \"gpus_per_node\": 4 } ] }";
    jsonf *doc;
    cr_assert_eq(jsonf_parse(&doc, "c.json", bad, strlen(bad), &err), 0);
    struct jobj root;
    jobj_root(&root, doc, &err);
    cluster *c2 = NULL;
    cr_assert_lt(cluster_from_json(&c2, cat, &root, &err), 0);
    cr_assert(strstr(err.msg, "c.json:3: groups[0].gpu: unknown GPU type 'V10'") != NULL, "%s",
              err.msg);
    cr_assert(strstr(err.msg, "did you mean") != NULL, "%s", err.msg);
    cr_assert_eq(err.code, ERR_INPUT);
    jsonf_destroy(doc);

    err_clear(&err);
    const char *nonet = "{ \"groups\": [ { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 1 } ] }";
    cr_assert_eq(jsonf_parse(&doc, "n.json", nonet, strlen(nonet), &err), 0);
    jobj_root(&root, doc, &err);
    cr_assert_lt(cluster_from_json(&c2, cat, &root, &err), 0);
    cr_assert(strstr(err.msg, "no inter-node network") != NULL, "%s", err.msg);
    jsonf_destroy(doc);
}

/* cluster_from_json on `text` named "c.json": 0 and the cluster, or -1 with err set. */
static int load_text(const char *text, cluster **out, struct errbuf *err)
{
    jsonf *doc;
    err_clear(err);
    cr_assert_eq(jsonf_parse(&doc, "c.json", text, strlen(text), err), 0, "%s", err->msg);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, err), 0);
    int rc = cluster_from_json(out, cat, &root, err);
    if (rc < 0)
        cr_assert_null(*out, "no cluster on failure");
    jsonf_destroy(doc);
    return rc;
}

/* one group of `gpu` with intra-node link `intra`, the group on line 3 */
static int one_group(const char *gpu, const char *intra, cluster **out, struct errbuf *err)
{
    char text[512];
    snprintf(text, sizeof text, "{ \"network\": \"ib-100g\",\n \"groups\": [\n"
             "  { \"count\": 2, \"gpu\": \"%s\", \"gpus_per_node\": 4, \"intra\": \"%s\" } ] }",
             gpu, intra);
    return load_text(text, out, err);
}

Test(cluster, impossible_intra_links_are_errors)
{
    /* what no vendor builds: each would silently run at the link's speed */
    static const struct {
        const char *gpu, *intra, *want;
    } cases[] = {
        { "T4", "nvlink3", "c.json:3: groups[0].intra: a T4 node cannot have 'nvlink3' (links a "
                           "T4 can have: pcie3)" },
        { "K80", "nvswitch", "c.json:3: groups[0].intra: a K80 node cannot have 'nvswitch' "
                             "(links a K80 can have: pcie3)" },
        { "T4", "pcie4", "c.json:3: groups[0].intra: a T4 node cannot have 'pcie4'" },
        { "K80", "pcie5", "c.json:3: groups[0].intra: a K80 node cannot have 'pcie5'" },
        { "V100", "nvswitch", "c.json:3: groups[0].intra: a V100-16GB node cannot have "
                              "'nvswitch' (links a V100-16GB can have: nvlink2, nvswitch2, "
                              "pcie3)" },
        { "V100", "nvlink3", "c.json:3: groups[0].intra: a V100-16GB node cannot have 'nvlink3'" },
        { "A100", "nvlink2", "c.json:3: groups[0].intra: a A100-40GB node cannot have 'nvlink2'" },
        { "A100", "nvswitch4", "c.json:3: groups[0].intra: a A100-40GB node cannot have "
                               "'nvswitch4' (links a A100-40GB can have: nvlink3, nvswitch, "
                               "pcie3, pcie4)" },
        { "H100", "nvswitch", "c.json:3: groups[0].intra: a H100 node cannot have 'nvswitch'" },
        { "A10", "pcie5", "c.json:3: groups[0].intra: a A10 node cannot have 'pcie5'" },
        { "P100", "nvswitch2", "c.json:3: groups[0].intra: a P100 node cannot have 'nvswitch2' "
                               "(links a P100 can have: nvlink1, pcie3)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct errbuf err;
        cluster *c = NULL;
        cr_assert_eq(one_group(cases[i].gpu, cases[i].intra, &c, &err), -1, "%s on %s accepted",
                     cases[i].gpu, cases[i].intra);
        cr_assert_eq(err.code, ERR_INPUT);
        cr_assert(strncmp(err.msg, cases[i].want, strlen(cases[i].want)) == 0,
                  "\n got  %s\n want %s", err.msg, cases[i].want);
    }
}

Test(cluster, possible_intra_links_load_at_their_speed)
{
    /* real machines: an older host slows a newer GPU down; NVSwitch boards of each NVLink
     * generation; a GPU's own NVLink */
    static const struct {
        const char *gpu, *intra;
    } cases[] = {
        { "A100", "pcie3" },     { "A100-80GB", "pcie4" }, { "H100", "pcie4" },
        { "H100", "nvswitch4" }, { "A100", "nvswitch" },   { "V100", "nvswitch2" },
        { "V100-32GB", "nvlink2" }, { "P100", "nvlink1" }, { "A10", "pcie3" },
        { "L4", "pcie3" },       { "RTX3090", "pcie4" },   { "K80", "pcie3" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct errbuf err;
        cluster *c = NULL;
        cr_assert_eq(one_group(cases[i].gpu, cases[i].intra, &c, &err), 0, "%s on %s: %s",
                     cases[i].gpu, cases[i].intra, err.msg);
        cr_assert_eq(cluster_node(c, 0)->intra, catalog_link_find(cat, cases[i].intra));
        struct placement p;
        int ids[] = { 0, 1, 2, 3 }, mixed_types;
        cluster_placement(c, ids, 4, &p, &mixed_types);
        cr_assert_eq(p.link, catalog_link_find(cat, cases[i].intra), "%s", cases[i].gpu);
        cluster_destroy(c);
    }
}

Test(cluster, group_names_must_differ)
{
    struct errbuf err;
    cluster *c = NULL;
    const char *twice = "{ \"network\": \"ib-100g\", \"groups\": [\n"
                        "  { \"name\": \"fast\", \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
                        "  { \"name\": \"slow\", \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 4 },\n"
                        "  { \"count\": 1, \"gpu\": \"K80\", \"gpus_per_node\": 4,\n"
                        "    \"name\": \"fast\" } ] }";
    cr_assert_eq(load_text(twice, &c, &err), -1, "two groups named 'fast' accepted");
    cr_assert_str_eq(err.msg, "c.json:5: groups[2].name: groups[0] has the name 'fast' too: "
                              "group names must differ");
    cr_assert_eq(err.code, ERR_INPUT);
    /* names are compared as given: "Fast" is another name; unnamed groups of one GPU type
     * (the fixture's two V100 groups) are not named alike */
    const char *other_case = "{ \"network\": \"ib-100g\", \"groups\": [\n"
                             "  { \"name\": \"fast\", \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
                             "  { \"name\": \"Fast\", \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
                             "  { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
                             "  { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 4 } ] }";
    cr_assert_eq(load_text(other_case, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(cluster_ngpus(c), 16);
    cluster_destroy(c);
}

Test(cluster, names_and_notes_are_checked)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        { "{ \"network\": \"ib-100g\",\n \"note\": 5,\n \"groups\": [ { \"count\": 1, "
          "\"gpu\": \"T4\", \"gpus_per_node\": 1 } ] }", "c.json:2: note: must be a string" },
        { "{ \"network\": \"ib-100g\", \"source\": \"\",\n \"groups\": [ { \"count\": 1, "
          "\"gpu\": \"T4\", \"gpus_per_node\": 1 } ] }", "c.json:1: source: must not be empty" },
        { "{ \"network\": \"ib-100g\", \"groups\": [\n { \"count\": 1, \"gpu\": \"T4\", "
          "\"gpus_per_node\": 1, \"note\": true } ] }", "c.json:2: groups[0].note: must be a string" },
        { "{ \"network\": \"ib-100g\", \"groups\": [\n { \"count\": 1, \"gpu\": \"T4\", "
          "\"gpus_per_node\": 1, \"name\": "
          "\"a-group-name-of-sixty-four-characters-is-one-more-than-fits-here\" } ] }",
          "c.json:2: groups[0].name: longer than 63 characters" },
        { "{ \"name\": \"a-cluster-name-of-128-characters-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\n \"network\": "
          "\"ib-100g\", \"groups\": [ { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 1 } ] }",
          "c.json:1: name: longer than 127 characters" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct errbuf err;
        cluster *c = NULL;
        cr_assert_eq(load_text(cases[i].text, &c, &err), -1, "case %zu accepted", i);
        cr_assert_str_eq(err.msg, cases[i].want);
    }
}

TestSuite(occ, .init = setup, .fini = teardown);

Test(occ, best_fit_packing)
{
    occ *o = occ_create(cl);
    int v100 = catalog_gpu_find(cat, "V100");
    int ids[16];
    /* leave V100 nodes with 4, 1 and 3 free GPUs (nodes 2, 3, 4 hold ids 16..27) */
    int busy[] = { 20, 21, 22, 24 };
    occ_take(o, busy, 4, OCC_WHOLE);
    cr_assert_eq(occ_free_whole(o, v100), 20 - 4);
    /* 3 GPUs: the node with exactly 3 free (node 4), not the emptiest */
    cr_assert_eq(occ_alloc(o, v100, 3, OCC_PACK, ids), 0);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(cluster_gpu_node(cl, ids[i]), 4, "id %d", ids[i]);
    /* 1 GPU: the node with exactly 1 free (node 3) */
    cr_assert_eq(occ_alloc(o, v100, 1, OCC_PACK, ids), 0);
    cr_assert_eq(ids[0], 23);
    occ_destroy(o);
}

Test(occ, larger_than_any_node_uses_the_fewest_nodes)
{
    occ *o = occ_create(cl);
    int v100 = catalog_gpu_find(cat, "V100");
    int ids[20];
    cr_assert_eq(occ_alloc(o, v100, 6, OCC_PACK, ids), 0);
    int nodes[16] = { 0 }, nn = 0;
    for (int i = 0; i < 6; i++) {
        int nd = cluster_gpu_node(cl, ids[i]);
        if (!nodes[nd]++)
            nn++;
        cr_assert(i == 0 || ids[i] > ids[i - 1], "ids sorted");
    }
    cr_assert_eq(nn, 2);
    occ_destroy(o);
}

Test(occ, spread_puts_one_gpu_per_node)
{
    occ *o = occ_create(cl);
    int ids[8];
    cr_assert_eq(occ_alloc(o, catalog_gpu_find(cat, "V100"), 5, OCC_SPREAD, ids), 0);
    int nodes[16] = { 0 };
    for (int i = 0; i < 5; i++)
        cr_assert_eq(nodes[cluster_gpu_node(cl, ids[i])]++, 0, "two GPUs on one node");
    occ_destroy(o);
}

Test(occ, all_or_nothing)
{
    occ *o = occ_create(cl);
    int t4 = catalog_gpu_find(cat, "T4"), ids[8];
    cr_assert_eq(occ_alloc(o, t4, 5, OCC_PACK, ids), -1);
    cr_assert_eq(occ_free_whole(o, t4), 4, "a failed alloc changes nothing");
    cr_assert_eq(occ_alloc(o, catalog_gpu_find(cat, "H100"), 1, OCC_PACK, ids), -1);
    occ_destroy(o);
}

Test(occ, shares_add_up_exactly)
{
    occ *o = occ_create(cl);
    int g[] = { 36 };   /* a T4 */
    occ_take(o, g, 1, 300);
    occ_take(o, g, 1, 700);
    cr_assert_eq(occ_used(o, 36), 1000);
    cr_assert_not(occ_fits(o, g, 1, 1));
    occ_release(o, g, 1, 700);
    cr_assert(occ_fits(o, g, 1, 700));
    cr_assert_not(occ_fits(o, g, 1, 701));
    /* a partly used GPU is not whole-free */
    cr_assert_eq(occ_free_whole(o, catalog_gpu_find(cat, "T4")), 3);
    occ_destroy(o);
}

Test(occ, over_allocation_is_an_invariant_violation, .signal = SIGABRT)
{
    th_expect_abort("occ_take: Assertion");
    occ *o = occ_create(cl);
    int g[] = { 0 };
    occ_take(o, g, 1, 600);
    occ_take(o, g, 1, 600);
}

/* A death test passes only by the assertion it names: here occ_take's fires where the test
 * expects occ_release's, and the process exits 3 instead of aborting. */
Test(occ, a_death_test_fails_on_another_assertion)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        /* the helper's complaint goes to the stderr it found: here /dev/null */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull < 0 || dup2(devnull, 2) < 0)
            _exit(4);
        th_expect_abort("occ_release: Assertion");
        occ *o = occ_create(cl);
        int g[] = { 0 };
        occ_take(o, g, 1, 600);
        occ_take(o, g, 1, 600);
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x", status);
}

/* Recount free GPUs by brute force and compare with the tracker. */
static void check_counts(const occ *o)
{
    const int *types;
    int nt = cluster_types(cl, &types);
    for (int t = 0; t < nt; t++) {
        int free_whole = 0, maxnode = 0;
        for (int nd = 0; nd < cluster_nnodes(cl); nd++) {
            const struct cluster_node *n = cluster_node(cl, nd);
            if (n->gpu != types[t])
                continue;
            int f = 0;
            for (int g = n->first; g < n->first + n->ngpus; g++)
                f += occ_used(o, g) == 0;
            cr_assert_eq(occ_free_on_node(o, nd), f);
            free_whole += f;
            if (f > maxnode)
                maxnode = f;
        }
        cr_assert_eq(occ_free_whole(o, types[t]), free_whole);
        cr_assert_eq(occ_max_free_node(o, types[t]), maxnode);
    }
}

Test(occ, random_operations_match_a_recount)
{
    occ *o = occ_create(cl), *copy = occ_create(cl);
    gsl_rng *r = rng_stream(7, "occ-test");
    const int *types;
    int nt = cluster_types(cl, &types);
    int held[64][16], nheld[64] = { 0 }, nh = 0;
    for (int step = 0; step < 3000; step++) {
        if (nh < 64 && gsl_rng_uniform(r) < 0.55) {
            int t = types[gsl_rng_uniform_int(r, (unsigned long)nt)];
            int n = 1 + (int)gsl_rng_uniform_int(r, 9);
            int before = occ_free_whole(o, t);
            int rc = occ_alloc(o, t, n, gsl_rng_uniform(r) < 0.8 ? OCC_PACK : OCC_SPREAD, held[nh]);
            cr_assert_eq(rc == 0, before >= n);
            if (rc == 0) {
                for (int i = 0; i < n; i++)
                    cr_assert_eq(cluster_gpu_type(cl, held[nh][i]), t);
                nheld[nh++] = n;
            }
        } else if (nh > 0) {
            int k = (int)gsl_rng_uniform_int(r, (unsigned long)nh);
            occ_release(o, held[k], nheld[k], OCC_WHOLE);
            nh--;
            memcpy(held[k], held[nh], sizeof held[k]);
            nheld[k] = nheld[nh];
        }
        check_counts(o);
    }
    occ_copy(copy, o);
    check_counts(copy);
    occ_clear(o);
    for (int t = 0; t < nt; t++)
        cr_assert_eq(occ_free_whole(o, types[t]), cluster_type_count(cl, types[t]));
    check_counts(o);
    /* cleared is as new: the same picks as a fresh occupancy, to the order of the free lists */
    occ *fresh = occ_create(cl);
    for (int step = 0; step < 200; step++) {
        int t = types[step % nt], n = 1 + step % 7, a[16], b[16];
        int mode = step % 3 ? OCC_PACK : OCC_SPREAD;
        int ra = occ_alloc(o, t, n, mode, a), rb = occ_alloc(fresh, t, n, mode, b);
        cr_assert_eq(ra, rb, "step %d", step);
        for (int i = 0; ra == 0 && i < n; i++)
            cr_assert_eq(a[i], b[i], "step %d: GPU %d of %d", step, i, n);
    }
    occ_destroy(fresh);
    gsl_rng_free(r);
    occ_destroy(o);
    occ_destroy(copy);
}
