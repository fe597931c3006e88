/*
 * test_srtf: shortest remaining time first on hand-made cases — order on one GPU,
 * preemption by a shorter arrival with the restore delay on resume, and moving a running job
 * to a faster type only when that pays for the restart.
 */
#include <criterion/criterion.h>

#include "../sim/train/train.h"
#include "helpers.h"

TestSuite(srtf, .init = th_models_init, .fini = th_models_fini);

/* ResNet-50 (batch size 64): 4.394774823323071 it/s on one V100 (Gavel's measurement) */
#define R50 "ResNet-50 (batch size 64)"
static const double v100_rate = 4.394774823323071;

static struct job_spec j1(int id, double at, double seconds_on_v100)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at), .jtype = tput_find(th_m, R50),
                              .workers = 1, .work = seconds_on_v100 * v100_rate, .weight = 1 };
}

Test(srtf, shortest_first_on_one_gpu)
{
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": "
                                     "[{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1}]}");
    struct job_spec jobs[] = { j1(0, 0, 1000), j1(1, 0, 100), j1(2, 0, 300) };
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 3, "srtf", NULL, &cfg);
    cr_assert_float_eq(th_find(&r, 1)->finish, 100, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 400, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 1400, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(srtf, a_shorter_arrival_preempts)
{
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": "
                                     "[{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1}]}");
    struct job_spec jobs[] = { j1(0, 0, 1000), j1(1, 100, 50) };
    struct train_config cfg = { .restore_delay_s = 7, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "srtf", NULL, &cfg);
    /* job 1 runs 100-150; job 0 resumes at 150, restores 7 s, has 900 s left */
    cr_assert_float_eq(th_find(&r, 1)->finish, 150, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 1057, 1e-5);
    cr_assert_eq(th_find(&r, 0)->preemptions, 1);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(srtf, moves_to_a_faster_type_only_when_it_pays)
{
    /* one T4 and one V100.  Job 0 (long) and job 1 (short) arrive together: job 1 gets the
     * V100, job 0 the T4.  When job 1 is done, job 0 moves to the V100 if the restore delay
     * is small, and stays on the T4 if it is larger than what moving would save. */
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                                     "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1},"
                                     "{\"count\": 1, \"gpu\": \"T4\", \"gpus_per_node\": 1}]}");
    struct job_spec jobs[] = { j1(0, 0, 10000), j1(1, 0, 10) };
    struct train_config fast = { .restore_delay_s = 5, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "srtf", NULL, &fast);
    cr_assert_eq(th_find(&r, 0)->migrations, 1);
    th_result_free(&r);
    struct train_config slow = { .restore_delay_s = 1e6, .until = SIM_NEVER };
    r = th_run_policy(cl, th_m, jobs, 2, "srtf", NULL, &slow);
    cr_assert_eq(th_find(&r, 0)->migrations, 0);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(srtf, equal_rates_go_to_the_type_listed_first)
{
    /* one V100-16GB and a 2-GPU V100-32GB server, on which one worker of ResNet-18 runs
     * exactly as fast.  The short job 0 takes the type listed first (catalog order:
     * V100-16GB), so the 2-worker job 1 finds both V100-32GB free and starts at once; had
     * job 0 taken a V100-32GB, job 1 would wait for it. */
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                                     "{\"count\": 1, \"gpu\": \"V100-32GB\", \"gpus_per_node\": 2},"
                                     "{\"count\": 1, \"gpu\": \"V100-16GB\", \"gpus_per_node\": 1}]}");
    const int *types;
    cr_assert_eq(cluster_types(cl, &types), 2);
    cr_assert_eq(types[0], catalog_gpu_find(th_cat, "V100-16GB"));
    int jt = tput_find(th_m, "ResNet-18 (batch size 64)");
    struct train_view v = { .cl = cl, .model = th_m };
    struct train_job probe = { .jtype = jt, .workers = 1 };
    double rate = train_view_rate(&v, &probe, types[0], 1);
    cr_assert(rate > 0 && rate == train_view_rate(&v, &probe, types[1], 1),
              "the case needs equal rates");
    struct job_spec jobs[] = {
        { .id = 0, .jtype = jt, .workers = 1, .work = 100 * rate, .weight = 1 },
        { .id = 1, .jtype = jt, .workers = 2, .work = 10000 * rate, .weight = 1 },
    };
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER };
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "srtf", NULL, &cfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 100, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->first, 0, 1e-9, "job 1 waited for job 0");
    th_result_free(&r);
    cluster_destroy(cl);
}
