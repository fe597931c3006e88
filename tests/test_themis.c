/*
 * test_themis: finish-time fairness auctions — rho estimates against a hand computation, the
 * worst-off job winning the lease on a hand-made instance, the fairness knob changing who
 * bids — and, on random workloads: no GPU over-allocated, every job finishes, determinism,
 * and a lower worst-case rho than FIFO.
 */
#include <criterion/criterion.h>

#include "../sched/policy.h"
#include "../sim/train/train.h"
#include "helpers.h"

/* exported by sched/training/themis.c for this test */
double themis_rho_estimate(const struct train_view *v, const struct train_job *j, double n);

TestSuite(themis, .init = th_models_init, .fini = th_models_fini);

#define R50 "ResNet-50 (batch size 64)"
/* Gavel's measurements, one GPU (models/data/profiles/gavel.csv) */
static const double r_v100 = 4.394774823323071, r_k80 = 0.61902822022465731;

Test(themis, rho_estimate_by_hand)
{
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                                     "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1},"
                                     "{\"count\": 1, \"gpu\": \"K80\", \"gpus_per_node\": 1}]}");
    const int *types;
    cr_assert_eq(cluster_types(cl, &types), 2);
    int k80 = types[0], v100 = types[1];
    cr_assert_str_eq(catalog_gpu(th_cat, k80)->name, "K80");
    struct train_view v = { .now = sim_from_sec(300), .cl = cl, .model = th_m };
    /* 1000 s of work on a V100; ran 100 s there; preempted since */
    struct train_job j = { .jtype = tput_find(th_m, R50), .workers = 1, .arrival = 0,
                           .work = 1000 * r_v100, .state = JOB_PREEMPTED, .first_start = 0,
                           .gpu_type = -1, .done = 100 * r_v100, .updated = sim_from_sec(300) };
    cr_assert_float_eq(train_view_rate(&v, &j, v100, 1), r_v100, 1e-9);
    cr_assert_float_eq(train_view_rate(&v, &j, k80, 1), r_k80, 1e-9);
    /* waiting: T_sh = age 300 + 900 s left at its best rate = 1200.
     * n = 2: a 1/2 share is half a V100 and half a K80; run on the V100 half the time, the
     * K80 the other half: iso = (r_v + r_k) / 2, T_id = 1000 r_v / iso. */
    double tid2 = 1000 * r_v100 / ((r_v100 + r_k80) / 2);
    cr_assert_float_eq(themis_rho_estimate(&v, &j, 2), 1200 / tid2, 1e-9);
    /* n = 4: a quarter of each */
    double tid4 = 1000 * r_v100 / ((r_v100 + r_k80) / 4);
    cr_assert_float_eq(themis_rho_estimate(&v, &j, 4), 1200 / tid4, 1e-9);
    /* n = 1: the whole V100: T_id = 1000 s */
    cr_assert_float_eq(themis_rho_estimate(&v, &j, 1), 1.2, 1e-9);
    /* running on the K80 now: the rest goes at the K80's rate */
    j.state = JOB_RUNNING;
    j.rate = r_k80;
    j.ngpu = 1;
    j.gpu_type = k80;
    j.run_from = j.updated;
    cr_assert_float_eq(themis_rho_estimate(&v, &j, 2), (300 + 900 * r_v100 / r_k80) / tid2,
                       1e-9);
    cluster_destroy(cl);
}

static struct job_spec job(int id, double at, double seconds_on_v100)
{
    return (struct job_spec){ .id = id, .arrival = sim_from_sec(at), .jtype = tput_find(th_m, R50),
                              .workers = 1, .work = seconds_on_v100 * r_v100, .weight = 1 };
}

#define ONE_V100 "{\"network\": \"ethernet-25g\", \"groups\": " \
                 "[{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1}]}"

/* One V100, leases of 600 s from t = 0.  Z (600 s) arrives at 0, A (1000 s) at 100, B (800 s)
 * at 300.  N is the average number of active jobs over a job's life. */
static const struct train_config kcfg = { .restore_delay_s = 5, .until = SIM_NEVER };

Test(themis, worst_rho_job_wins_the_lease)
{
    /* f = 0.8: one bidder per offer, the worst rho.
     * 600: Z done.  A: age 500, N = (2*200 + 3*300) / 500 = 2.6, T_id = 2600,
     *      rho = (500 + 1000) / 2600 = 0.577; B: age 300, N = 3, T_id = 2400,
     *      rho = (300 + 800) / 2400 = 0.458.  A wins: 600-1200.
     * 1200: A: age 1100, N = 2500 / 1100, rho = (1100 + 400) / 2272.7 = 0.660;
     *       B: age 900, N = 2100 / 900, rho = (900 + 800) / 1866.7 = 0.911.  B wins and A
     *       is preempted with 400 s left: B 1200-2000.
     * 1800: B: rho = (1500 + 200) / 1760 = 0.966; A: rho = 2100 / 2176.5 = 0.965: B keeps.
     * 2000: B done; A resumes, restores 5 s: ends at 2405. */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct job_spec jobs[] = { job(0, 0, 600), job(1, 100, 1000), job(2, 300, 800) };
    struct th_result r = th_run_policy(cl, th_m, jobs, 3, "themis", NULL, &kcfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->first, 1200, 1e-5);
    cr_assert_eq(th_find(&r, 1)->preemptions, 1);
    cr_assert_float_eq(th_find(&r, 2)->finish, 2000, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 2405, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(themis, fairness_knob_changes_who_bids)
{
    /* f = 0: A and B both bid at 600.  Gains log(rho(0) / rho(V100)) per GPU, with
     * rho(0) counting a wait of one lease: A log((500+600+1000) / (500+1000)) = 0.336,
     * B log((300+600+800) / (300+800)) = 0.435: B wins, though A's rho is worse; at 1200
     * B (gain 0.435 to keep) beats A (0.251) again.  B 600-1400, A 1400-2400.
     * With f = 0.8 (worst_rho_job_wins_the_lease) A got the GPU at 600. */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct job_spec jobs[] = { job(0, 0, 600), job(1, 100, 1000), job(2, 300, 800) };
    struct th_result r = th_run_policy(cl, th_m, jobs, 3, "themis", "{\"fairness_knob\": 0}",
                                       &kcfg);
    cr_assert_float_eq(th_find(&r, 2)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 1400, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->first, 1400, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 2400, 1e-5);
    cr_assert_eq(th_find(&r, 1)->preemptions, 0);
    th_result_free(&r);
    /* f = 1 behaves as f = 0.8 here (one bidder either way) */
    r = th_run_policy(cl, th_m, jobs, 3, "themis", "{\"fairness_knob\": 1}", &kcfg);
    cr_assert_float_eq(th_find(&r, 1)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->first, 1200, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(themis, average_contention_changes_the_ranking)
{
    /* f = 1 (one bidder), A (1000 s) at 100, B (500 s) at 300, Z as above.  At 600:
     *   average N: A N = 2.6, rho = 1500 / 2600 = 0.577; B N = 3, rho = 800 / 1500 = 0.533:
     *              A wins (600-1200); at 1200 B (rho (900 + 500) / (500 * 2100 / 900) = 1.2)
     *              beats A (0.660): B 1200-1700, A resumes 1705, ends 2105.
     *   current N = 2: A rho = 1500 / 2000 = 0.75, B rho = 800 / 1000 = 0.8: B wins
     *              (600-1100), A runs 1100-2100 when B is done. */
    cluster *cl = th_cluster(th_cat, ONE_V100);
    struct job_spec jobs[] = { job(0, 0, 600), job(1, 100, 1000), job(2, 300, 500) };
    struct th_result r = th_run_policy(cl, th_m, jobs, 3, "themis", "{\"fairness_knob\": 1}",
                                       &kcfg);
    cr_assert_float_eq(th_find(&r, 1)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->first, 1200, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 1700, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 2105, 1e-5);
    th_result_free(&r);
    r = th_run_policy(cl, th_m, jobs, 3, "themis",
                      "{\"fairness_knob\": 1, \"contention\": \"current\"}", &kcfg);
    cr_assert_float_eq(th_find(&r, 2)->first, 600, 1e-5);
    cr_assert_float_eq(th_find(&r, 2)->finish, 1100, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->first, 1100, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 2100, 1e-5);
    th_result_free(&r);
    cluster_destroy(cl);
}

Test(themis, valuations_pick_types_by_speed)
{
    /* one V100 and one K80; at 0 arrive X, ResNet-50 (100 s on a V100, 7.1x slower on the
     * K80), and Y, A3C (150 s on a V100, 2.09x slower on the K80).  Gains per GPU with a
     * lease of 600: X on V100 log(700 / 100) = 1.95, on K80 log(700 / 710) < 0; Y on V100
     * log(750 / 150) = 1.61, on K80 log(750 / 313) = 0.87. */
    static const double a3c_v100 = 7.1757671796679876, a3c_k80 = 3.4387678290723933;
    cluster *cl = th_cluster(th_cat, "{\"network\": \"ethernet-25g\", \"groups\": ["
                                     "{\"count\": 1, \"gpu\": \"V100\", \"gpus_per_node\": 1},"
                                     "{\"count\": 1, \"gpu\": \"K80\", \"gpus_per_node\": 1}]}");
    struct job_spec jobs[] = { job(0, 0, 100), job(1, 0, 0) };
    jobs[1].jtype = tput_find(th_m, "A3C");
    jobs[1].work = 150 * a3c_v100;
    /* f = 0, both bid: the product is largest with X on the V100 and Y on the K80 */
    struct th_result r = th_run_policy(cl, th_m, jobs, 2, "themis", "{\"fairness_knob\": 0}",
                                       &kcfg);
    cr_assert_float_eq(th_find(&r, 0)->finish, 100, 1e-5);
    cr_assert_float_eq(th_find(&r, 1)->finish, 150 * a3c_v100 / a3c_k80, 1e-5);
    th_result_free(&r);
    /* f = 0.8: only the worse-off bids.  rho at age 0 is iso / best rate with iso half a V100
     * plus half a K80: X 0.5 (1 + 1 / 7.10) = 0.57, Y 0.5 (1 + 1 / 2.09) = 0.74.  Y takes the
     * V100 (0-150); X gets the K80 as leftover, and at the lease expiry (600) its bid moves
     * it to the V100: 605 + what is left at the V100's rate. */
    r = th_run_policy(cl, th_m, jobs, 2, "themis", NULL, &kcfg);
    cr_assert_float_eq(th_find(&r, 1)->finish, 150, 1e-5);
    cr_assert_float_eq(th_find(&r, 0)->finish, 605 + (100 * r_v100 - 600 * r_k80) / r_v100, 1e-5);
    cr_assert_eq(th_find(&r, 0)->migrations, 1);
    th_result_free(&r);
    cluster_destroy(cl);
}

/* ---- random workloads ---- */

static struct job_spec *random_jobs(int n, unsigned long seed)
{
    return th_random_jobs(th_m, n, seed, 120);
}

static const struct train_config rcfg = { .restore_delay_s = 10, .until = SIM_NEVER };

Test(themis, random_workload_all_finish_no_overallocation)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    struct job_spec *jobs = random_jobs(300, 5);
    static const char *const params[] = { NULL, "{\"fairness_knob\": 0}",
                                          "{\"fairness_knob\": 1, \"contention\": \"current\"}",
                                          "{\"round_s\": 120}" };
    for (int k = 0; k < 4; k++) {
        struct th_result r = th_run_policy(cl, th_m, jobs, 300, "themis", params[k], &rcfg);
        cr_assert_eq(r.n, 300);
        cr_assert_leq(r.max_busy, cluster_ngpus(cl));
        for (long long id = 0; id < 300; id++) {
            const struct th_rec *x = th_find(&r, id);
            cr_assert_geq(x->finish, x->first);
            cr_assert_geq(x->first, x->arrival);
        }
        th_result_free(&r);
    }
    free(jobs);
    cluster_destroy(cl);
}

static double max_rho(const struct th_result *r)
{
    double mx = 0;
    for (int i = 0; i < r->n; i++)
        if (r->r[i].rho > mx)
            mx = r->r[i].rho;
    return mx;
}

Test(themis, lower_worst_rho_than_fifo)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    for (unsigned long seed = 1; seed <= 3; seed++) {
        struct job_spec *jobs = random_jobs(300, seed);
        struct th_result t = th_run_policy(cl, th_m, jobs, 300, "themis", NULL, &rcfg);
        struct th_result f = th_run_policy(cl, th_m, jobs, 300, "fifo", NULL, &rcfg);
        cr_assert_eq(t.n, 300);
        cr_log_info("seed %lu: max rho themis %.3f, fifo %.3f", seed, max_rho(&t), max_rho(&f));
        cr_assert_lt(max_rho(&t), max_rho(&f), "seed %lu: themis max rho %g, fifo %g", seed,
                     max_rho(&t), max_rho(&f));
        th_result_free(&t);
        th_result_free(&f);
        free(jobs);
    }
    cluster_destroy(cl);
}

Test(themis, deterministic)
{
    cluster *cl = th_cluster(th_cat, th_mixed_cluster);
    struct job_spec *jobs = random_jobs(200, 11);
    struct th_result a = th_run_policy(cl, th_m, jobs, 200, "themis", NULL, &rcfg);
    struct th_result b = th_run_policy(cl, th_m, jobs, 200, "themis", NULL, &rcfg);
    cr_assert_eq(a.n, b.n);
    cr_assert_eq(memcmp(a.r, b.r, (size_t)a.n * sizeof *a.r), 0);
    th_result_free(&a);
    th_result_free(&b);
    free(jobs);
    cluster_destroy(cl);
}

Test(themis, bad_parameters_are_rejected)
{
    cluster *cl = th_cluster(th_cat, ONE_V100);
    static const char *const bad[] = { "{\"fairness_knob\": 1.5}", "{\"contention\": \"max\"}",
                                       "{\"fairness\": 0.5}" };
    for (int k = 0; k < 3; k++) {
        struct errbuf err;
        err_clear(&err);
        jsonf *doc;
        cr_assert_eq(jsonf_parse(&doc, "exp.json", bad[k], strlen(bad[k]), &err), 0);
        struct jobj o;
        jobj_root(&o, doc, &err);
        struct policy_env env = { 1, cl, th_m, NULL, 0 };
        policy *pol;
        cr_assert_lt(policy_open(&pol, "themis", &o, &env, &err), 0, "%s accepted", bad[k]);
        cr_assert_eq(err.code, ERR_INPUT);
        jsonf_destroy(doc);
    }
    cluster_destroy(cl);
}
