/*
 * test_siaprof: Sia's per-cluster profiles as job types (models/siaprof.h), against rows of
 * Sia's files picked by hand (../shared/traces/pollux_sia/sia_sosp23/traces; skipped when
 * absent, as the files are not shipped), and the end-to-end run of sia_workload.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/siaprof.h"
#include "../sim/base/path.h"
#include "helpers.h"

TestSuite(siaprof, .init = th_models_init, .fini = th_models_fini);

static const char *sia_dir(void)
{
    static char d[1024];
    snprintf(d, sizeof d, "%s/pollux_sia/sia_sosp23/traces", th_shared_dir("traces"));
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/cifar10/placements-rtx.csv", d);
    FILE *f = fopen(probe, "r");
    if (f == NULL)
        return NULL;
    fclose(f);
    return d;
}

static tput *loaded(const char *const *gpus, int n)
{
    const char *d = sia_dir();
    if (d == NULL)
        cr_skip_test("no Sia profiles under %s", th_shared_dir("traces"));
    int ids[8];
    for (int i = 0; i < n; i++) {
        ids[i] = catalog_gpu_find(th_cat, gpus[i]);
        cr_assert_geq(ids[i], 0, "%s", gpus[i]);
    }
    tput *t;
    struct errbuf err;
    err_clear(&err);
    char apps[PATH_MAX_LEN];
    snprintf(apps, sizeof apps, "%s/models/data/pollux/applications.json", path_data_root());
    cr_assert_eq(tput_create(&t, th_cat, &err), 0, "%s", err.msg);
    cr_assert_eq(siaprof_load(t, th_cat, ids, n, apps, d, "test", &err), 0, "%s", err.msg);
    return t;
}

static int type_of(const tput *t, const char *app, int batch)
{
    char name[JT_NAME_MAX];
    cr_assert_eq(siaprof_type_name(name, sizeof name, app, batch), 0);
    int jt = tput_find(t, name);
    cr_assert_geq(jt, 0, "%s", name);
    return jt;
}

/* Rows of Sia's files, by hand.  A batch that divides evenly runs at exactly its size (no
 * accumulation: each local batch is within the files' largest), so the rate is 1 / step. */
Test(siaprof, rates_are_the_profiles_rows)
{
    const char *const gpus[] = { "A100-40GB", "RTX2080Ti" };
    tput *t = loaded(gpus, 2);
    int a100 = catalog_gpu_find(th_cat, "A100-40GB"), rtx = catalog_gpu_find(th_cat, "RTX2080Ti");
    /* rtx, cifar10 at 4096 on 4 GPUs of one node: placements-rtx.csv "1024,0.32084202766418457,
     * 0.017011620521545413,4" */
    int c4096 = type_of(t, "cifar10", 4096), c2048 = type_of(t, "cifar10", 2048);
    cr_assert_float_eq(tput_measured(t, c4096, rtx, 4, 0), 1 / 0.32084202766418457, 1e-12);
    /* rtx, cifar10 at 2048 on 2 GPUs of two nodes: "1024,0.3138747364282608,...,11" */
    cr_assert_float_eq(tput_measured(t, c2048, rtx, 2, 1), 1 / 0.3138747364282608, 1e-12);
    /* dgx-ext (A100), cifar10 at 2048 on 8 GPUs of one node: local 256, between the rows
     * "182,0.040203869342803955,...,8" and "257,0.04911188781261444,...,8" */
    double step = 0.040203869342803955 +
                  (0.04911188781261444 - 0.040203869342803955) * (256 - 182) / (257 - 182.0);
    cr_assert_float_eq(tput_measured(t, c2048, a100, 8, 0), 1 / step, 1e-12);
    /* 16 A100 are two full nodes in both classes ("88") */
    cr_assert_float_eq(tput_measured(t, c2048, a100, 16, 0), tput_measured(t, c2048, a100, 16, 1),
                       0);
    /* the type counts global steps of its batch, and has the steps of its completion */
    cr_assert_eq(tput_type(t, c2048)->scaling, JT_STRONG);
    cr_assert_eq(tput_type(t, c2048)->batch, 2048);
    cr_assert_gt(tput_type(t, c2048)->steps, 0);
    /* fewer steps at the larger batch, each slower */
    cr_assert_lt(tput_type(t, c4096)->steps, tput_type(t, c2048)->steps);
    /* a type Sia did not profile (T4 is not asked for here) has no entries; beyond what the
     * files can say the rate is 0: 128 GPUs would be 16 nodes of 8, local batch 16 < 32 */
    cr_assert_lt(tput_measured(t, c2048, catalog_gpu_find(th_cat, "T4"), 1, 0), 0);
    cr_assert_float_eq(tput_measured(t, c2048, a100, 128, 1), 0, 0);
    tput_destroy(t);
}

/* A configuration's goodput with gradient accumulation, by hand: cifar10 at a global batch
 * of 4096 on one RTX 2080Ti, whose largest local batch is 1024, accumulates 3 steps of 1024
 * (B' = B, so no change of statistical efficiency): one optimizer step is step + 3 (step -
 * sync), the row "1024,0.3097095489501953,0.0002873400039970875,1" of placements-rtx.csv:
 * 0.309710 + 3 x 0.309422 = 1.237976 s, 0.807770 steps/s.  At 2048: one accumulation,
 * 0.619132 s. */
Test(siaprof, accumulation_by_hand)
{
    const char *const gpus[] = { "RTX2080Ti" };
    tput *t = loaded(gpus, 1);
    int rtx = catalog_gpu_find(th_cat, "RTX2080Ti");
    const double step = 0.3097095489501953, sync = 0.0002873400039970875;
    cr_assert_float_eq(tput_measured(t, type_of(t, "cifar10", 4096), rtx, 1, 0),
                       1 / (step + 3 * (step - sync)), 1e-12);
    cr_assert_float_eq(tput_measured(t, type_of(t, "cifar10", 4096), rtx, 1, 0), 0.807770,
                       1e-6);
    cr_assert_float_eq(tput_measured(t, type_of(t, "cifar10", 2048), rtx, 1, 0),
                       1 / (step + (step - sync)), 1e-12);
    tput_destroy(t);
}

/* A cluster with none of Sia's types is an error, not an empty model */
Test(siaprof, a_cluster_without_sia_types)
{
    const char *d = sia_dir();
    if (d == NULL)
        cr_skip_test("no Sia profiles");
    int k80 = catalog_gpu_find(th_cat, "K80");
    tput *t;
    struct errbuf err;
    err_clear(&err);
    char apps[PATH_MAX_LEN];
    snprintf(apps, sizeof apps, "%s/models/data/pollux/applications.json", path_data_root());
    cr_assert_eq(tput_create(&t, th_cat, &err), 0);
    cr_assert_eq(siaprof_load(t, th_cat, &k80, 1, apps, d, "models.elastic_sia", &err), -1);
    cr_assert(strstr(err.msg, "none of the GPU types Sia profiled") != NULL, "%s", err.msg);
    tput_destroy(t);
}

/* sia_workload end to end: every job of Sia's workload-1 runs as a native elastic job of its
 * application and batch, its row carrying its range and batch; the run repeats itself */
Test(siaprof, sia_workload_end_to_end, .timeout = 120)
{
    if (sia_dir() == NULL)
        cr_skip_test("no Sia profiles");
    char set[1200], db[512], db2[512];
    snprintf(set, sizeof set, "models.elastic_sia=%s", sia_dir());
    snprintf(db, sizeof db, "%s/siawl.db", th_tmpdir());
    snprintf(db2, sizeof db2, "%s/siawl2.db", th_tmpdir());
    remove(db);
    remove(db2);
    char wl[1200];
    snprintf(wl, sizeof wl, "workload.trace=%s/pollux_sia/sia_sosp23/workloads/"
             "philly_workload-1.csv", th_shared_dir("traces"));
    for (int k = 0; k < 2; k++) {
        struct th_out o = th_hetsim((const char *const[]){ "run", "sia_workload", "--policy",
                                                           "sia", "--set", set, "--set", wl,
                                                           "--db", k ? db2 : db, "-q", NULL });
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NOT NULL AND "
                                 "min_workers = 1 AND max_workers = 16 AND batch > 0 AND "
                                 "job_type = printf('%s (batch size %d)', substr(job_type, 1, "
                                 "instr(job_type, ' ') - 1), batch)"), 160);
    cr_assert_eq(th_db_value(db, "SELECT value FROM metrics WHERE name = 'sia_ilp_limit_hits'"),
                 0);
    char *a = th_db_dump(db), *b = th_db_dump(db2);
    cr_assert_str_eq(a, b, "the same run twice wrote different rows");
    free(a);
    free(b);
}

/* A run that can make no more progress stops: fixed-size SRSF runs yolov3 at batch 64 on its
 * trace's 4 GPUs, a size no GPU type of Sia's cluster can run it at, so jobs 31, 51 and 52
 * wait on an idle cluster once the others are done.  The run stops "stalled" a week (and a
 * thousand decisions) later, with those three unfinished, instead of deciding the same thing
 * until an event limit; and says so. */
Test(siaprof, a_run_that_cannot_progress_stops_stalled, .timeout = 120)
{
    if (sia_dir() == NULL)
        cr_skip_test("no Sia profiles");
    char set[1200], db[512], wl[1200];
    snprintf(set, sizeof set, "models.elastic_sia=%s", sia_dir());
    snprintf(db, sizeof db, "%s/siastall.db", th_tmpdir());
    remove(db);
    snprintf(wl, sizeof wl, "workload.trace=%s/pollux_sia/sia_sosp23/workloads/"
             "philly_workload-1.csv", th_shared_dir("traces"));
    struct th_out o = th_hetsim((const char *const[]){ "run", "sia_workload", "--policy", "srsf",
                                                       "--set", set, "--set", wl, "--set",
                                                       "workload.max_jobs=60", "--db", db, "-q",
                                                       NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "sia_workload under srsf stalled at") != NULL, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE stop_reason = 'stalled'"), 1);
    cr_assert_eq(th_db_value(db, "SELECT value FROM metrics WHERE name = 'jobs_unfinished'"), 3);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NULL AND "
                                 "first_start_s IS NULL AND job_id IN (31, 51, 52)"), 3);
    /* stopped a week after the last job ended, not later: the stall rule's bound */
    double last = th_db_value(db, "SELECT max(finish_s) FROM jobs");
    double end = th_db_value(db, "SELECT sim_end_s FROM runs");
    cr_assert(end >= last + 7 * 86400 && end < last + 7 * 86400 + 86400, "end %g, last %g",
              end, last);
    /* a policy that runs it (AFS, on fewer GPUs) drains */
    o = th_hetsim((const char *const[]){ "run", "sia_workload", "--policy", "afs", "--set", set,
                                         "--set", wl, "--set", "workload.max_jobs=60", "--db",
                                         db, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM runs WHERE stop_reason = 'drained'"), 1);
}

/* Sia's quad profile (RTX 6000) was measured on one node: its points lie on one plane and
 * cannot be triangulated.  Sia interpolates only for placements its traces lack, so a
 * cluster with one 4-GPU RTX 6000 node runs (every placement on it is measured), and its
 * GPUs are used; before, loading the profile refused the run. */
Test(siaprof, a_single_node_quad_profile_serves_its_node, .timeout = 120)
{
    if (sia_dir() == NULL)
        cr_skip_test("no Sia profiles");
    char set[1200], cl[512], db[512], wl[1200];
    snprintf(set, sizeof set, "models.elastic_sia=%s", sia_dir());
    snprintf(db, sizeof db, "%s/siaquad.db", th_tmpdir());
    remove(db);
    free(th_write("quad.json", "{ \"name\": \"quad\", \"network\": \"ethernet-25g\", \"groups\": "
                               "[ { \"count\": 24, \"gpu\": \"T4\", \"gpus_per_node\": 4 }, "
                               "{ \"count\": 4, \"gpu\": \"RTX6000\", \"gpus_per_node\": 4 } ] }"));
    snprintf(cl, sizeof cl, "cluster=%s/quad.json", th_tmpdir());
    snprintf(wl, sizeof wl, "workload.trace=%s/pollux_sia/sia_sosp23/workloads/"
             "philly_workload-1.csv", th_shared_dir("traces"));
    struct th_out o = th_hetsim((const char *const[]){ "run", "sia_workload", "--policy", "sia",
                                                       "--set", set, "--set", wl, "--set", cl,
                                                       "--db", db, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(th_db_value(db, "SELECT count(*) FROM jobs WHERE finish_s IS NOT NULL"), 160);
    cr_assert_gt(th_db_value(db, "SELECT avg(value) FROM samples WHERE name = 'util_RTX6000'"),
                 0.1, "the RTX 6000 node is used");
}
