/*
 * test_msopt: Derm's container minimization (sched/micro/msopt.c) on random instances —
 * every allocation it calls feasible meets the SLA by the model; it finds one whenever brute
 * force does; on small instances (2 or 3 services, enumerated exhaustively) it uses no more
 * containers than brute force's best by more than the stated gap, 10% or one container
 * (whichever is larger); and the critical-path model needs fewer containers than the sum of
 * every call when a graph fans out.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/micro/msopt.h"
#include "../sim/base/jsonf.h"
#include "../sim/micro/app.h"
#include "helpers.h"

static struct app *app_from(const char *json)
{
    char *p = th_write("msopt_app.json", json);
    char text[700];
    snprintf(text, sizeof text, "{ \"app\": \"%s\" }", p);
    jsonf *doc;
    struct errbuf err = { 0 };
    cr_assert_eq(jsonf_parse(&doc, "t.json", text, strlen(text), &err), 0);
    struct jobj root;
    cr_assert_eq(jobj_root(&root, doc, &err), 0);
    struct app *a;
    struct app_opts o = { 0, 0 };
    cr_assert_eq(app_load(&a, &root, "app", "/", &o, &err), 0, "%s", err.msg);
    jsonf_destroy(doc);
    free(p);
    return a;
}

/* a random application: S services, G chain graphs calling random subsets */
static struct app *random_app(unsigned *seed, int S, int G)
{
    char json[8192];
    size_t o = (size_t)snprintf(json, sizeof json, "{ \"services\": [");
    for (int k = 0; k < S; k++) {
        double b = 0.5 + 3.0 * rand_r(seed) / RAND_MAX;         /* per ms */
        double maxl = 20 + 80.0 * rand_r(seed) / RAND_MAX;
        double a = -(b - 0.3) / maxl * (0.3 + 0.6 * rand_r(seed) / RAND_MAX);
        double s = 0.2 + 2.0 * rand_r(seed) / RAND_MAX;
        o += (size_t)snprintf(json + o, sizeof json - o, "%s{ \"name\": \"s%d\", \"latency\": { "
                              "\"model\": \"derm\", \"a\": %.6g, \"b\": %.6g, \"shift_ms\": %.4g, "
                              "\"max_load\": %.4g } }", k ? ", " : "", k, a, b, s, maxl);
    }
    o += (size_t)snprintf(json + o, sizeof json - o, "], \"graphs\": [");
    for (int g = 0; g < G; g++) {
        o += (size_t)snprintf(json + o, sizeof json - o, "%s{ \"name\": \"g%d\", \"calls\": [",
                              g ? ", " : "", g);
        int first = 1;
        for (int k = 0; k < S; k++) {
            if (k > 0 && rand_r(seed) % 3 == 0)
                continue;
            int count = 1 + rand_r(seed) % 3;
            if (first)
                o += (size_t)snprintf(json + o, sizeof json - o, "{ \"id\": \"c%d\", \"service\": "
                                      "\"s%d\", \"count\": %d }", k, k, count);
            else
                o += (size_t)snprintf(json + o, sizeof json - o, ", { \"id\": \"c%d\", "
                                      "\"service\": \"s%d\", \"count\": %d, \"parent\": \"c0\", "
                                      "\"stage\": %d }", k, k, count, k);
            first = 0;
        }
        o += (size_t)snprintf(json + o, sizeof json - o, "] }");
    }
    snprintf(json + o, sizeof json - o, "] }");
    return app_from(json);
}

struct inst {
    struct app *a;
    double gamma[8], p[8];
    struct msopt_chain ch[8];
    struct msopt_problem pr;
};

static void instance(struct inst *in, unsigned *seed, int S, int G)
{
    in->a = random_app(seed, S, G);
    const struct micro_app *v = &in->a->view;
    double rate = 20 + 200.0 * rand_r(seed) / RAND_MAX, tot = 0;
    for (int g = 0; g < G; g++)
        tot += in->p[g] = 0.2 + rand_r(seed) / (double)RAND_MAX;
    memset(in->gamma, 0, sizeof in->gamma);
    for (int g = 0; g < G; g++) {
        in->p[g] /= tot;
        in->ch[g] = (struct msopt_chain){ v->graph[g].calls_per_service, in->p[g], g };
        for (int k = 0; k < S; k++)
            in->gamma[k] += rate * in->p[g] * v->graph[g].calls_per_service[k];
    }
    /* an SLA between the slowest graph's no-load latency and twice it */
    double slow = 0;
    for (int g = 0; g < G; g++) {
        double t = 0;
        for (int k = 0; k < S; k++)
            t += v->graph[g].calls_per_service[k] *
                 (v->svc[k].lat.shift + 1 / v->svc[k].lat.b);
        slow = t > slow ? t : slow;
    }
    in->pr = (struct msopt_problem){ .app = v, .gamma = in->gamma, .chain = in->ch,
                                     .nchains = G,
                                     .sla_s = slow * (1.3 + 1.5 * rand_r(seed) / RAND_MAX),
                                     .quantile = 0.95, .iterations = 30, .trim = 1 };
}

/* the fewest containers meeting the SLA with n_k in [floor_k, floor_k + R) */
static int brute(const struct msopt_problem *p, int *best_n)
{
    enum { R = 14 };
    int S = p->app->nservices, n[8], f[8], best = -1;
    for (int k = 0; k < S; k++)
        f[k] = msopt_floor(p, k);
    long total = 1;
    for (int k = 0; k < S; k++)
        total *= R;
    for (long c = 0; c < total; c++) {
        long x = c;
        int sum = 0;
        for (int k = 0; k < S; k++) {
            n[k] = f[k] + (int)(x % R);
            x /= R;
            sum += n[k];
        }
        if (best >= 0 && sum >= best)
            continue;
        if (msopt_prob(p, n, p->sla_s) >= p->quantile) {
            best = sum;
            memcpy(best_n, n, (size_t)S * sizeof *n);
        }
    }
    return best;
}

Test(msopt, meets_the_sla_and_stays_near_brute_force, .timeout = 120)
{
    unsigned seed = 11;
    int compared = 0;
    double worst_gap = 0;
    for (int t = 0; t < 60; t++) {
        int S = 2 + t % 2, G = 1 + t % 3;
        struct inst in;
        instance(&in, &seed, S, G);
        int n[8], bn[8];
        struct msopt_result res;
        struct errbuf err = { 0 };
        cr_assert_eq(msopt_solve(&in.pr, n, &res, &err), 0);
        double prob = msopt_prob(&in.pr, n, in.pr.sla_s);
        if (res.feasible)
            cr_assert_geq(prob, 0.95, "instance %d: feasible by name only (%g)", t, prob);
        for (int k = 0; k < S; k++)
            cr_assert_geq(n[k], msopt_floor(&in.pr, k));
        int best = brute(&in.pr, bn);
        if (best >= 0) {
            cr_assert(res.feasible, "instance %d: brute force meets the SLA with %d", t, best);
            double gap = (double)(res.total - best) / best;
            worst_gap = gap > worst_gap ? gap : worst_gap;
            cr_assert(res.total <= best + (best / 10 > 1 ? best / 10 : 1),
                      "instance %d: %lld containers, brute force %d", t, res.total, best);
            cr_assert_geq(res.total, best);
            compared++;
        }
        app_free(in.a);
    }
    cr_assert_gt(compared, 40);
    cr_log_info("msopt against brute force: %d instances, worst gap %.1f%%", compared,
                100 * worst_gap);
}

Test(msopt, feasible_on_larger_random_instances, .timeout = 60)
{
    unsigned seed = 5;
    for (int t = 0; t < 40; t++) {
        struct inst in;
        instance(&in, &seed, 8, 4);
        int n[8];
        struct msopt_result res;
        struct errbuf err = { 0 };
        cr_assert_eq(msopt_solve(&in.pr, n, &res, &err), 0);
        cr_assert(res.feasible, "instance %d", t);
        cr_assert_geq(msopt_prob(&in.pr, n, in.pr.sla_s), 0.95);
        /* and no service can give back a container without breaking it (trim) */
        for (int k = 0; k < 8; k++) {
            if (n[k] <= msopt_floor(&in.pr, k))
                continue;
            n[k]--;
            cr_assert_lt(msopt_prob(&in.pr, n, in.pr.sla_s), 0.95, "instance %d service %d", t, k);
            n[k]++;
        }
        app_free(in.a);
    }
}

/* the solve evaluates each chain once per allocation it tries and takes the others' terms
 * from the allocations it tried before: the probability it reports is msopt_prob's at its
 * answer to the last bit, and its answer the same as a second, fresh solve's */
Test(msopt, remembered_terms_are_the_evaluated_ones, .timeout = 60)
{
    unsigned seed = 23;
    for (int t = 0; t < 30; t++) {
        struct inst in;
        instance(&in, &seed, 6 + t % 3, 2 + t % 3);
        int n[8], n2[8];
        struct msopt_result res, res2;
        struct errbuf err = { 0 };
        cr_assert_eq(msopt_solve(&in.pr, n, &res, &err), 0);
        double prob = msopt_prob(&in.pr, n, in.pr.sla_s);
        cr_assert(res.prob == prob, "instance %d: %.17g reported, %.17g evaluated", t,
                  res.prob, prob);
        cr_assert_eq(msopt_solve(&in.pr, n2, &res2, &err), 0);
        cr_assert_arr_eq(n, n2, (size_t)in.a->view.nservices * sizeof *n);
        app_free(in.a);
    }
}

Test(msopt, critical_path_needs_fewer_containers_on_fan_out)
{
    /* a root calling eight identical leaves in parallel: the sum of every call is eight
     * times a leaf, the critical path one leaf */
    char json[4096];
    size_t o = (size_t)snprintf(json, sizeof json, "{ \"services\": [ { \"name\": \"root\", "
        "\"latency\": { \"model\": \"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 1, "
        "\"max_load\": 100 } }, { \"name\": \"leaf\", \"latency\": { \"model\": \"derm\", "
        "\"a\": -0.01, \"b\": 1, \"shift_ms\": 2, \"max_load\": 60 } } ], \"graphs\": [ "
        "{ \"name\": \"fan\", \"calls\": [ { \"id\": \"r\", \"service\": \"root\" }");
    for (int i = 0; i < 8; i++)
        o += (size_t)snprintf(json + o, sizeof json - o, ", { \"id\": \"l%d\", \"service\": "
                              "\"leaf\", \"parent\": \"r\" }", i);
    snprintf(json + o, sizeof json - o, " ] } ] }");
    struct app *a = app_from(json);
    double gamma[2] = { 100, 800 };
    struct msopt_chain ch = { a->view.graph[0].calls_per_service, 1, 0 };
    struct msopt_problem p = { .app = &a->view, .gamma = gamma, .chain = &ch, .nchains = 1,
                               .sla_s = 0.030, .quantile = 0.95, .iterations = 30, .trim = 1 };
    int n_all[2], n_crit[2];
    struct msopt_result r_all, r_crit;
    struct errbuf err = { 0 };
    cr_assert_eq(msopt_solve(&p, n_all, &r_all, &err), 0);
    p.paths = MSOPT_CRITICAL;
    cr_assert_eq(msopt_solve(&p, n_crit, &r_crit, &err), 0);
    cr_assert(r_crit.feasible);
    cr_assert_lt(r_crit.total, r_all.total, "critical %lld, all %lld", r_crit.total,
                 r_all.total);
    /* the critical path's calls: the root once and one leaf */
    double w[2] = { 10, 10 }, calls[2];
    msopt_path_calls(&a->view, 0, w, calls);
    cr_assert_float_eq(calls[0], 1, 0);
    cr_assert_float_eq(calls[1], 1, 0);
    app_free(a);
}

/* One Lagrangian step (msopt_step) worked by hand.  Two services, loads w = (10, 20)
 * calls/s per container, workloads gamma = (100, 400), the constraint G = 0.9 against
 * q = 0.95 and its gradient g = (0.01, 0.02).  The multiplier's loads are
 * w_k(mu) = sqrt(gamma_k / (mu g_k)) = sqrt(gamma_k g_k) / (g_k sqrt(mu)), so the
 * linearized constraint is G + sum g_k w_k - (sqrt(1) + sqrt(8)) / sqrt(mu)
 * = 1.4 - 3.828427 / sqrt(mu) = 0.95: sqrt(mu) = 8.507616, mu = 72.37953; then
 * w(mu) = (1 / 0.0850762, 2.828427 / 0.1701523) = (11.75417, 16.62291), and the step goes
 * half way: (10.87709, 18.31146). */
Test(msopt, lagrangian_step_by_hand)
{
    struct app *a = app_from("{ \"services\": [\n"
        "  { \"name\": \"x\", \"latency\": { \"model\": \"derm\", \"a\": -1e-9, \"b\": 1, "
        "\"max_load\": 1000000 } },\n"
        "  { \"name\": \"y\", \"latency\": { \"model\": \"derm\", \"a\": -1e-9, \"b\": 1, "
        "\"max_load\": 1000000 } } ],\n"
        "  \"graphs\": [ { \"name\": \"g\", \"calls\": [ { \"id\": \"x\", \"service\": \"x\" },"
        " { \"id\": \"y\", \"service\": \"y\", \"parent\": \"x\" } ] } ] }");
    double gamma[2] = { 100, 400 }, g[2] = { 0.01, 0.02 }, w[2] = { 10, 20 }, wm[2];
    struct msopt_chain ch = { a->view.graph[0].calls_per_service, 1, 0 };
    struct msopt_problem p = { .app = &a->view, .gamma = gamma, .chain = &ch, .nchains = 1,
                               .sla_s = 0.1, .quantile = 0.95, .iterations = 30 };
    double mu = msopt_step(&p, 0.9, g, w, wm);
    double r = 3.8284271247461903 / 0.45;
    cr_assert_float_eq(mu, r * r, 1e-9 * r * r);
    cr_assert_float_eq(wm[0], 1 / (0.01 * r), 1e-9);
    cr_assert_float_eq(wm[1], sqrt(8.0) / (0.02 * r), 1e-9);
    cr_assert_float_eq(w[0], 10 + 0.5 * (1 / (0.01 * r) - 10), 1e-9);
    cr_assert_float_eq(w[1], 20 + 0.5 * (sqrt(8.0) / (0.02 * r) - 20), 1e-9);
    cr_assert_float_eq(w[0], 10.87709, 1e-5);
    cr_assert_float_eq(w[1], 18.31146, 1e-5);
    /* a service the constraint does not feel (g <= 0) stays; a load past max_load is held
     * at it */
    double g2[2] = { 0, 0.02 }, v[2] = { 10, 20 };
    msopt_step(&p, 0.9, g2, v, wm);
    cr_assert_float_eq(v[0], 10, 0);
    cr_assert_lt(v[1], 20);
    app_free(a);
}
