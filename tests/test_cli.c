/*
 * test_cli: hetsim end to end through its command line and the database it writes — the
 * default experiment, determinism (same seed, same rows; another seed, other rows), bad input
 * rejected with file:line:field and exit 2 and nothing written, usage errors, the report,
 * validate, workload and plot commands, every listing of `hetsim list` by its content, the
 * doc/experiments.md's --set example run as printed, and an LP policy's run keeping its heap (its minor
 * page faults).
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

static char *dbpath(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

#define RUN(...)                                                                           \
    th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

Test(cli, default_experiment_end_to_end)
{
    char *db = dbpath("default.db");
    struct th_out o = RUN("run", "default", "--db", db, "--quiet");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 2, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM jobs"), 600, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NULL"), 0, 0);
    cr_assert_float_eq(th_db_value(db, "SELECT count(DISTINCT run_id) FROM metrics "
                                       "WHERE name = 'jct_mean'"), 2, 0);
    /* the metrics agree with the per-job rows they summarize */
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'jct_mean'"),
                       th_db_value(db, "SELECT avg(jct_s) FROM jobs WHERE run_id = 1"), 1e-6);
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 2 AND name = 'makespan'"),
                       th_db_value(db, "SELECT max(finish_s) FROM jobs WHERE run_id = 2"), 1e-6);
    cr_assert_float_eq(th_db_value(db, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'jobs_done'"),
                       300, 0);
    cr_assert_gt(th_db_value(db, "SELECT count(*) FROM samples WHERE name = 'util_total'"), 10);
    /* GPU-seconds by type add up to the attained service */
    cr_assert_float_eq(th_db_value(db, "SELECT sum(gpu_s) FROM job_gpu_seconds WHERE run_id = 2"),
                       th_db_value(db, "SELECT sum(attained_gpu_s) FROM jobs WHERE run_id = 2"), 1e-3);
    th_out_free(&o);

    o = RUN("report", "--db", db, "--baseline", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "srtf") && strstr(o.out, "\nratios to fifo (x)"), "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", db, "--format", "csv");
    cr_assert_eq(o.status, 0);
    cr_assert(strncmp(o.out, "run,experiment,policy,jobs_done,jct_mean", 40) == 0, "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", db, "--format", "markdown");
    cr_assert(strstr(o.out, "| run | experiment |") != NULL, "%s", o.out);
    th_out_free(&o);

    char out[512];
    snprintf(out, sizeof out, "%s/plots", th_tmpdir());
    o = RUN("plot", "--db", db, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    char png[600];
    snprintf(png, sizeof png, "%s/default_jct_cdf.png", out);
    struct stat st;
    cr_assert_eq(stat(png, &st), 0, "no %s", png);
    cr_assert_gt(st.st_size, 5000, "a near-empty image");
    th_out_free(&o);
    /* readers leave nothing beside the file: the last connection's close tidies up */
    char side[600];
    snprintf(side, sizeof side, "%s-wal", db);
    cr_assert_neq(stat(side, &st), 0, "%s is left behind", side);
    snprintf(side, sizeof side, "%s-shm", db);
    cr_assert_neq(stat(side, &st), 0, "%s is left behind", side);
    free(db);
}

Test(cli, same_seed_same_rows)
{
    char *a = dbpath("det_a.db"), *b = dbpath("det_b.db");
    struct th_out o1 = RUN("run", "default", "--db", a, "-q");
    struct th_out o2 = RUN("run", "default", "--db", b, "-q");
    cr_assert_eq(o1.status, 0);
    cr_assert_eq(o2.status, 0);
    char *da = th_db_dump(a), *dbb = th_db_dump(b);
    cr_assert_gt(strlen(da), 10000);
    cr_assert_str_eq(da, dbb);
    free(da);
    free(dbb);
    th_out_free(&o1);
    th_out_free(&o2);
    free(a);
    free(b);
}

static const char synth_exp[] =
    "{ \"name\": \"synth\", \"seed\": 1, \"cluster\": \"mixed_small\",\n"
    "  \"workload\": { \"format\": \"synthetic\", \"jobs\": 60, \"rate_per_hour\": 40,\n"
    "    \"job_types\": { \"ResNet-50 (batch size 64)\": 1, \"LM (batch size 20)\": 1 },\n"
    "    \"workers\": { \"1\": 3, \"4\": 1 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 1800, \"sigma\": 1 } },\n"
    "  \"policies\": [\"srtf\"] }\n";

Test(cli, another_seed_other_rows)
{
    char *exp = th_write("synth.json", synth_exp);
    char *a = dbpath("seed1.db"), *b = dbpath("seed2.db"), *c = dbpath("seed1b.db");
    struct th_out o = RUN("run", exp, "--db", a, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", exp, "--db", b, "-q", "--seed", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", exp, "--db", c, "-q", "--set", "seed=1");
    th_out_free(&o);
    char *da = th_db_dump(a), *db2 = th_db_dump(b), *dc = th_db_dump(c);
    cr_assert_str_neq(da, db2);
    cr_assert_str_eq(da, dc);
    cr_assert_float_eq(th_db_value(b, "SELECT seed FROM runs"), 2, 0);
    free(da);
    free(db2);
    free(dc);
    free(exp);
    free(a);
    free(b);
    free(c);
}

/* a bad input: exit 2, the message names file:line: field, and the database has no run */
static void rejected(const char *const *args, const char *db, const char *want)
{
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 2, "exit %d, stderr: %s", o.status, o.err);
    cr_assert(strstr(o.err, want) != NULL, "expected '%s' in: %s", want, o.err);
    if (db != NULL) {
        struct stat st;
        if (stat(db, &st) == 0)
            cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs"), 0, 0);
    }
    th_out_free(&o);
}

Test(cli, bad_experiment_fields)
{
    char *db = dbpath("bad.db");
    char *e1 = th_write("typo.json", "{\n  \"name\": \"x\",\n  \"cluster\": \"mixed_small\",\n"
                                     "  \"polices\": [\"fifo\"]\n}\n");
    rejected((const char *const[]){ "run", e1, "--db", db, NULL }, db,
             "typo.json:4: polices: unknown field (did you mean 'policies'?");
    char *e2 = th_write("syntax.json", "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}\n");
    rejected((const char *const[]){ "run", e2, "--db", db, NULL }, db,
             "syntax.json:3: JSON syntax error");
    rejected((const char *const[]){ "run", "default", "--db", db, "--set", "workload.max_jobs=-3", NULL },
             db, "--set workload.max_jobs: workload.max_jobs: -3 is out of range");
    rejected((const char *const[]){ "run", "default", "--db", db, "--policy", "fifoo", NULL }, db,
             "unknown policy 'fifoo' (did you mean 'fifo'?)");
    rejected((const char *const[]){ "run", "default", "--db", db, "--set", "cluster=nosuch", NULL },
             db, "no cluster file or shipped cluster 'nosuch'");
    rejected((const char *const[]){ "run", "no_such_experiment", "--db", db, NULL }, db,
             "no_such_experiment: no such experiment");
    free(e1);
    free(e2);
    free(db);
}

Test(cli, bad_trace_line_midway_writes_nothing)
{
    /* 40 good jobs, then a bad worker count on line 43: the run fails after it has started */
    char trace[8192] = "# a comment\narrival_s,job_type,workers,iterations\n";
    for (int i = 0; i < 40; i++) {
        size_t n = strlen(trace);
        snprintf(trace + n, sizeof trace - n, "%d,ResNet-50 (batch size 64),1,5000\n", i * 10);
    }
    strcat(trace, "400,ResNet-50 (batch size 64),zero,5000\n");
    char *tp = th_write("midway.csv", trace);
    char *exp = malloc(1024);
    snprintf(exp, 1024, "{ \"name\": \"m\", \"cluster\": \"mixed_small\", \"workload\": "
                        "{ \"format\": \"hetsim\", \"trace\": \"%s\" }, \"policies\": [\"fifo\"] }", tp);
    char *ep = th_write("midway.json", exp);
    char *db = dbpath("midway.db");
    char want[600];
    snprintf(want, sizeof want, "%s:43: workers: 'zero' is not a GPU count", tp);
    rejected((const char *const[]){ "run", ep, "--db", db, NULL }, db, want);
    /* and a job larger than the cluster can hold */
    char big[] = "arrival_s,job_type,workers,iterations\n0,LM (batch size 20),64,10\n";
    char *bp = th_write("big.csv", big);
    snprintf(exp, 1024, "{ \"name\": \"m\", \"cluster\": \"mixed_small\", \"workload\": "
                        "{ \"format\": \"hetsim\", \"trace\": \"%s\" }, \"policies\": [\"fifo\"] }", bp);
    char *ep2 = th_write("big.json", exp);
    snprintf(want, sizeof want, "%s:2: workers: job 0 asks for 64 GPUs", bp);
    rejected((const char *const[]){ "run", ep2, "--db", db, NULL }, db, want);
    rejected((const char *const[]){ "validate", ep2, NULL }, NULL, want);
    free(tp);
    free(bp);
    free(exp);
    free(ep);
    free(ep2);
    free(db);
}

Test(cli, usage)
{
    struct th_out o = RUN("--help");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "usage: hetsim COMMAND") != NULL);
    th_out_free(&o);
    o = RUN("run", "--help");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "--policy NAME") != NULL);
    th_out_free(&o);
    rejected((const char *const[]){ "run", "default", "--bogus", NULL }, NULL,
             "unknown or incomplete option '--bogus'");
    rejected((const char *const[]){ "run", NULL }, NULL, "missing EXPERIMENT");
    rejected((const char *const[]){ "frobnicate", NULL }, NULL, "unknown command 'frobnicate'");
    rejected((const char *const[]){ "report", "--format", "xml", NULL }, NULL,
             "--format must be table, csv or markdown");
}

Test(cli, list_validate_workload)
{
    struct th_out o = RUN("list", "policies");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "fifo ") && strstr(o.out, "srtf "), "%s", o.out);
    th_out_free(&o);
    o = RUN("validate", "default");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "ok: experiment 'default', 300 jobs") != NULL, "%s", o.out);
    cr_assert(strstr(o.out, "; the seed changes nothing\n") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("workload", "default", "--set", "workload.max_jobs=3");
    cr_assert_eq(o.status, 0, "%s", o.err);
    int lines = 0;
    for (const char *p = o.out; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 4, "header + 3 jobs: %s", o.out);
    th_out_free(&o);
}

/* Lines of text, and the widest in columns (UTF-8 code points). */
static int count_lines(const char *text, int *widest)
{
    int n = 0, cols = 0;
    *widest = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            n++;
            cols = 0;
        } else if (((unsigned char)*p & 0xC0) != 0x80 && ++cols > *widest) {
            *widest = cols;
        }
    }
    return n;
}

/* `hetsim list WHAT`: nlines lines, none wider than max_cols (0: no limit), each of want. */
static void assert_listing(const char *what, int nlines, int max_cols, const char *const *want)
{
    struct th_out o = RUN("list", what);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_str_empty(o.err);
    int widest, n = count_lines(o.out, &widest);
    cr_assert_eq(n, nlines, "list %s: %d lines:\n%s", what, n, o.out);
    if (max_cols > 0)
        cr_assert_leq(widest, max_cols, "list %s: a line of %d columns:\n%s", what, widest,
                      o.out);
    for (int i = 0; want[i] != NULL; i++)
        cr_assert(strstr(o.out, want[i]) != NULL, "list %s: expected\n%s\nin\n%s", what,
                  want[i], o.out);
    th_out_free(&o);
}

/* Shipped experiments and sweeps with the first sentence of their description, cut to fit;
 * clusters with their GPUs by type, in the order of their groups (a placeholder, which no
 * run simulates, with its note). */
Test(cli, list_describes_shipped_files)
{
    assert_listing("experiments", 28, 100, (const char *const[]){
        "default            The embedded default experiment (make run): 300 Philly jobs...\n",
        "\noef_tenants        OEF's setting (Middleware 2024): four tenants whose models gain "
        "very...\n",
        "\nphilly_slice       How workloads/traces/philly_300.csv was made: 300 jobs of the "
        "Philly job list...\n",
        "\nderm_trainticket   Derm's setting (ISCA 2024): TrainTicket's 12 services, 4 graph "
        "types whose mix...\n", "\nsocialnet          DeathStarBench's social network",
        "\npollux_wl1         Pollux-compatible mode on Pollux's workload-1 (160 jobs, OSDI "
        "2021 artifact)...\n",
        "\nsia_workload       Sia's own workload on Sia's own cluster (SOSP'23 artifact): the "
        "160 jobs of...\n", NULL });
    assert_listing("sweeps", 22, 100, (const char *const[]){
        "\nload                The README's sweep tour: four policies on the 48-GPU mixed "
        "cluster as the...\n", "derm_load           Derm's headline comparison (ISCA 2024)",
        NULL });
    assert_listing("clusters", 16, 100, (const char *const[]){
        "alibaba_pai2020     6742 GPUs: 1596 P100, 994 T4, 2240 K80, 1080 V100-32GB, "
        "832 V100-16GB\n",
        "\ngavel_108           108 GPUs: 36 V100-16GB, 36 P100, 36 K80\n",
        "\nmixed_small         48 GPUs: 16 A100-40GB, 16 V100-16GB, 16 T4\n",
        "\nnode_list           placeholder, not simulated: The placement domain's pods go on "
        "the node list...\n",
        "\ncpu_10x52           10 CPU nodes of 52 cores, 128 GB\n",
        "\npollux_t4_64        64 GPUs: 64 T4\n",
        "\nsia_sim_64          64 GPUs: 24 T4, 16 A100-40GB, 24 RTX2080Ti\n", NULL });
    assert_listing("traces", 6, 100, (const char *const[]){
        "azure_llm\ndeathstarbench\nfft_philly_600.csv\ngavel\nphilly_300.csv\npollux\n", NULL });
}

Test(cli, list_gpus_formats_and_bad_names)
{
    assert_listing("gpus", 14, 0, (const char *const[]){
        "  links          aliases\n",
        "\nK80             12      4.37       4.4       240     0.900  pcie3          k80, MISC\n",
        "\nV100-16GB       16     15.70     125.0       900     3.060  nvlink2 pcie3  V100, v100\n",
        "\nA100-80GB       80     19.50     312.0      2039     5.120  nvlink3 pcie4  a100-80\n",
        "\nRTX3090", "  rtx3090, 3090\n",
        "\nRTX6000         24     16.30     130.5       672     0.500  pcie3          rtx6000, "
        "quadro-rtx6000\n", "\nRTX2080Ti", NULL });
    /* every format of workloads/registry.c, in its order, with its domain and summary, the
     * names padded to the longest (llm_synthetic, micro_poisson) */
    assert_listing("formats", 11, 0, (const char *const[]){
        "hetsim        training   hetsim's CSV job trace (arrival_s, job_type, workers, "
        "iterations or duration_s)\n"
        "gavel         training   Gavel's tab-separated job traces, 7-field (old) and "
        "10-field (current)\n"
        "philly        training   the Philly job list",
        "\npollux        training   Pollux's and Sia's workload CSV",
        "\nsynthetic     training   Poisson arrivals",
        "\nopenb         placement  Alibaba's openb pod lists",
        "\nazure_llm     serving    the Azure LLM inference trace",
        "\nllm_synthetic serving    synthetic LLM requests",
        "\nmicro_poisson micro      Poisson microservice requests",
        "\nmicro_trace   micro      microservice requests as a CSV (arrival_s, graph, id)\n",
        NULL });
    rejected((const char *const[]){ "list", "gpu", NULL }, NULL,
             "hetsim list: cannot list 'gpu' (did you mean 'gpus'?); one of: domains policies "
             "gpus links models llms formats experiments sweeps clusters traces");
    rejected((const char *const[]){ "list", NULL }, NULL, "hetsim list: expected one of: "
             "domains policies gpus links models llms formats experiments sweeps clusters traces");
}

/* every policy of sched/registry.c, one line each */
Test(cli, list_policies_counts_every_policy)
{
    assert_listing("policies", 42, 0, (const char *const[]){
        "\nkernel_slice     training   kernel-level time slicing: jobs share GPUs by turns",
        "\niadeep           training   IADeep: place by predicted interference degradation",
        NULL });
}

Test(cli, list_domains_names_each_worlds_policies_and_formats)
{
    /* every world of sim/run/world_registry.c, with the policies of its domain and the
     * formats whose entities it takes */
    assert_listing("domains", 15, 0, (const char *const[]){
        "training: DL training jobs on GPU clusters",
        "\n  policies: fifo fifo_perf srtf oef fft tiresias themis gavel_las gavel_las_perf "
        "gavel_ftf pollux_tiresias optimus pollux exclusive mps_even gandiva antman iadeep "
        "kernel_slice srsf afs lyra heet sia\n",
        "\n  formats: hetsim gavel philly pollux synthetic\n",
        "\nplacement: pods asking for fractions of a GPU",
        "\n  policies: fgd random dotprod bestfit clustering gpupacking\n",
        "\n  formats: openb\n",
        "\nserving: LLM inference requests",
        "\n  policies: highend_only uniform_pp hexgen splitwise hetis\n",
        "\n  formats: azure_llm requests llm_synthetic\n",
        "\nmicro: requests over microservice call graphs",
        "\n  policies: static_worst erms firm derm\n",
        "\n  formats: micro_poisson micro_trace\n",
        "\ncolocate: one cluster shared by an LLM serving tenant and a training tenant",
        "\n  policies: static loan hetero_loan\n  tenants: serving training microservices\n", NULL });
}

static void mkdirs(const char *root, const char *const *subs)
{
    char p[1024];
    for (int i = 0; subs[i] != NULL; i++) {
        snprintf(p, sizeof p, "%s/%s", root, subs[i]);
        cr_assert(mkdir(p, 0755) == 0, "mkdir %s", p);
    }
}

static void put_file(const char *root, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* A data root of hand-made files: the first sentence only, whitespace made one space, a cut
 * after the last word that fits ("..."), a cut inside a word too long for the line, no
 * description at all; GPUs named by an alias counted under the catalog's name; and a bad
 * description: file, line and field, exit 2, and nothing listed. */
Test(cli, list_cuts_descriptions_to_one_line)
{
    char root[600], models[700];
    snprintf(root, sizeof root, "%s/listroot", th_tmpdir());
    cr_assert_eq(mkdir(root, 0755), 0);
    mkdirs(root, (const char *const[]){ "workloads", "workloads/experiments",
                                        "workloads/clusters", "workloads/sweeps", NULL });
    snprintf(models, sizeof models, "%s/models", root);
    cr_assert_eq(symlink(HETSIM_DATADIR "/models", models), 0);
    char words[400] = "", longword[200];
    for (int i = 1; i <= 30; i++) {
        size_t n = strlen(words);
        snprintf(words + n, sizeof words - n, "%sword%02d", i > 1 ? " " : "", i);
    }
    memset(longword, 'x', 150);
    longword[150] = '\0';
    char text[600];
    put_file(root, "workloads/experiments/a_short.json",
             "{ \"name\": \"a\", \"description\": \"Caf\u00e9 runs,\\n  one   sentence (v1.2). "
             "And a second one.\" }");
    snprintf(text, sizeof text, "{ \"description\": \"%s. Second.\" }", words);
    put_file(root, "workloads/experiments/c_long.json", text);
    snprintf(text, sizeof text, "{ \"description\": \"%s\" }", longword);
    put_file(root, "workloads/experiments/d_word.json", text);
    put_file(root, "workloads/experiments/b_none.json", "{ \"name\": \"b\" }");
    put_file(root, "workloads/clusters/two.json",
             "{ \"name\": \"two\", \"network\": \"ib-100g\", \"groups\": [\n"
             "  { \"count\": 2, \"gpu\": \"t4\", \"gpus_per_node\": 4 },\n"
             "  { \"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 8 },\n"
             "  { \"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 2 } ] }\n");
    put_file(root, "workloads/sweeps/bad.json", "{ \"name\": \"bad\",\n"
                                                "  \"description\": 3 }\n");
    put_file(root, "workloads/sweeps/good.json", "{ \"description\": \"Fine.\" }\n");
    const char *was = getenv("HETSIM_DATA");
    char *saved = was ? strdup(was) : NULL;
    setenv("HETSIM_DATA", root, 1);

    struct th_out o = RUN("list", "experiments");
    cr_assert_eq(o.status, 0, "%s", o.err);
    /* names padded to the longest (7) + 2: descriptions get 91 columns; a cut keeps the
     * longest prefix ending before a space with room for "..." (88 columns) */
    char want[1200];
    snprintf(want, sizeof want,
             "a_short  Caf\u00e9 runs, one sentence (v1.2).\n"
             "b_none\n"
             "c_long   %.83s...\n"
             "d_word   %.88s...\n", words, longword);
    cr_assert_str_eq(o.out, want);
    th_out_free(&o);

    o = RUN("list", "clusters");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_str_eq(o.out, "two  18 GPUs: 10 T4, 8 V100-16GB\n");
    th_out_free(&o);

    char where[700];
    snprintf(where, sizeof where, "hetsim: %s/workloads/sweeps/bad.json:2: description: ", root);
    o = RUN("list", "sweeps");
    cr_assert_eq(o.status, 2, "%s", o.err);
    cr_assert(strncmp(o.err, where, strlen(where)) == 0, "expected '%s' in: %s", where, o.err);
    cr_assert_str_empty(o.out, "half a listing: %s", o.out);
    th_out_free(&o);
    if (saved != NULL)
        setenv("HETSIM_DATA", saved, 1);
    free(saved);
}

/* doc/experiments.md's --set example for a policy's parameters, run exactly as it is printed (in a
 * scratch directory, so that it writes results/out/hetsim.db there): the policy's field
 * reaches the run. */
Test(cli, readme_set_policy_example_runs)
{
    static const char line[] =
        "./hetsim run default --policy fifo --set 'policies.0={\"name\": \"fifo\", "
        "\"backfill\": true}'";
    char readme[600];
    snprintf(readme, sizeof readme, "%s/doc/experiments.md", HETSIM_DATADIR);
    FILE *f = fopen(readme, "r");
    cr_assert_not_null(f);
    char buf[1024];
    int found = 0;
    while (!found && fgets(buf, sizeof buf, f) != NULL)
        found = strncmp(buf, line, strlen(line)) == 0 && strchr(" \n", buf[strlen(line)]);
    fclose(f);
    cr_assert(found, "doc/experiments.md has no line '%s'", line);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/readme_set", th_tmpdir());
    cr_assert_eq(mkdir(dir, 0755), 0);
    struct th_out o = th_hetsim_in(dir, (const char *const[]){
        "run", "default", "--policy", "fifo", "--set",
        "policies.0={\"name\": \"fifo\", \"backfill\": true}", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    const char *row = strstr(o.out, "\n1 ");
    cr_assert(row != NULL && strstr(row, " default ") != NULL && strstr(row, " fifo ") != NULL &&
              strstr(row, " 300 ") != NULL, "%s", o.out);
    th_out_free(&o);
    char db[700], plain[700];
    snprintf(db, sizeof db, "%s/results/out/hetsim.db", dir);
    cr_assert_float_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE policy = 'fifo' AND "
                                       "json_extract(config_json, '$.policies[0].backfill') "
                                       "= 1 AND json_array_length(config_json, '$.policies') "
                                       "= 1"), 1, 0);
    /* and backfill changed the run: plain fifo's mean JCT differs */
    snprintf(plain, sizeof plain, "%s/plain.db", dir);
    o = RUN("run", "default", "--policy", "fifo", "--db", plain, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    const char *jct = "SELECT value FROM metrics WHERE name = 'jct_mean'";
    cr_assert_float_neq(th_db_value(db, jct), th_db_value(plain, jct), 1e-9);
}

/* A reader's note (what a trace filter left out) is said once, not once per run: philly_slice
 * opens its trace for the check and again for each of its two policies. */
static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

Test(cli, a_trace_note_is_said_once_per_command)
{
    char db[600];
    snprintf(db, sizeof db, "%s/note_once.db", th_tmpdir());
    struct th_out o = RUN("run", "philly_slice", "--db", db);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_eq(count_of(o.err, "left out 19 jobs of more than 16 GPUs"), 1, "%s", o.err);
    cr_assert_eq(count_of(o.err, " jobs done, "), 2, "both policies ran: %s", o.err);
    th_out_free(&o);
}

/* An LP policy's run does not give its heap back to the kernel between solver calls
 * (sim/cli/main.c keep_heap): gavel_ftf on pai_scale at 5,000 jobs took 94,589 minor page
 * faults (0.25 of its 0.82 CPU s in the kernel) when glibc trimmed the heap after every
 * glp_simplex, 1,225 since.  Not under a sanitizer, whose allocator is another. */
Test(cli, an_lp_policy_keeps_its_heap, .timeout = 120)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("ASan's allocator, not glibc's");
#endif
    char db[600];
    snprintf(db, sizeof db, "%s/heap.db", th_tmpdir());
    remove(db);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(HETSIM_BIN, HETSIM_BIN, "run", "pai_scale", "--policy", "gavel_ftf", "--set",
              "workload.jobs=5000", "--db", db, "-q", (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "hetsim run failed");
    cr_assert_lt(ru.ru_minflt, 20000, "%ld minor page faults: the heap is trimmed and taken "
                 "again between solver calls", ru.ru_minflt);
}
