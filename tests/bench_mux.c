/*
 * bench_mux: the cost of re-rating co-runners on a shared GPU (sim/train/share.h through the
 * training world, sim/train/train.c's rerate) — it must follow the co-runners of the GPU that
 * changed, not the jobs in the world.
 *
 * For a cluster of N V100s (N = 64, 512, 4096, eight per server) with Gavel's co-location
 * pairs as the interference model: N long background jobs, one alone on each GPU, and CHURN
 * short jobs that join GPUs 0-3 one after another, four a second, each running about D
 * seconds (D = 0.1 or 3: the background job and about 4 D / 4 churn jobs share a GPU) and
 * leave.  The cost of the churn is the CPU time (getrusage, user + system) of the run with it
 * minus that of the same run without it, per join-or-leave event; the rate evaluations per
 * event are counted by wrapping the speed hook.  Flat in N (and about k + 1 evaluations per
 * event) is O(co-runners); an O(jobs) re-rating would evaluate N.  Targets: the evaluations
 * per event independent of N, and the CPU time per event at N = 4096 within 2x of N = 64.
 * A plain program, not a test.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../models/interference.h"
#include "../sim/base/jobj.h"
#include "../sim/base/path.h"
#include "../sim/run/experiment.h"
#include "../sim/train/share.h"
#include "../sim/train/train.h"

enum { CHURN = 200000 };

static double cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec * 1e-6;
}

static void die(const char *what, const struct errbuf *err)
{
    fprintf(stderr, "bench_mux: %s: %s\n", what, err->msg);
    exit(1);
}

/* ---- jobs: background ones first, then the churn ---- */
struct src {
    int     n, churn, next, jtype;
    double  bg_work, churn_work;
};

static int src_next(void *ctx, void *out, struct errbuf *err)
{
    (void)err;
    struct src *s = ctx;
    int total = s->n + s->churn;
    if (s->next == total)
        return 0;
    int i = s->next++;
    struct job_spec *j = out;
    /* churn jobs arrive four a second, one per GPU of 0-3 in turn */
    double at = i < s->n ? 0 : 1 + (double)(i - s->n) / 4;
    *j = (struct job_spec){ .id = i, .arrival = sim_from_sec(at), .jtype = s->jtype,
                            .workers = 1, .work = i < s->n ? s->bg_work : s->churn_work,
                            .weight = 1 };
    return 1;
}

static int nbg;

/* background job i on GPU i; churn jobs on GPUs 0-3; an eighth of a GPU each (8 fit) */
static int decide(void *ctx, const struct train_view *v, struct grant_list *out,
                  struct errbuf *err)
{
    (void)ctx;
    (void)err;
    for (const struct train_job *j = train_view_first_waiting(v); j;
         j = train_view_next_waiting(v, j)) {
        int g = j->id < nbg ? (int)j->id : (int)(j->id % 4);
        if (grant_add(out, j->slot, &g, 1, 125) < 0)
            return -1;
    }
    return 0;
}

static long calls;
static const struct train_speed *inner;
static double count_rate(const struct train_speed *s, const cluster *c, const tput *m,
                         const struct train_speed_query *q)
{
    (void)s;
    calls++;
    return inner->rate(inner, c, m, q);
}
static double count_mem(const struct train_speed *s, const tput *m, int jt, int b)
{
    (void)s;
    return inner->mem_gb(inner, m, jt, b);
}

struct result {
    double cpu_s;
    long   calls;
    uint64_t events;
};

static struct result one(const cluster *cl, const tput *model, struct src s)
{
    struct errbuf err;
    err_clear(&err);
    static struct train_speed counting;
    counting = (struct train_speed){ "counting", 1, count_rate, NULL, count_mem };
    struct entity_source es = { &s, src_next };
    struct train_decider dec = { .decide = decide, .wake = WAKE_ARRIVAL | WAKE_COMPLETION };
    struct train_sink sink = { 0 };
    struct train_config cfg = { .restore_delay_s = 0, .until = SIM_NEVER, .speed = &counting,
                                .measure = { 0, 1e9 } };
    train *w;
    calls = 0;
    double t0 = cpu_s();
    if (train_create(&w, cl, model, &cfg, &es, &dec, &sink, &err) < 0)
        die("train_create", &err);
    struct train_totals tot;
    /* the background jobs never finish: stop once the churn is over */
    if (train_run(w, &tot, &err) < 0)
        die("train_run", &err);
    train_destroy(w);
    return (struct result){ cpu_s() - t0, calls, tot.events };
}

int main(void)
{
    struct errbuf err;
    err_clear(&err);
    char g[PATH_MAX_LEN], l[PATH_MAX_LEN], jt[PATH_MAX_LEN], pr[PATH_MAX_LEN], ip[PATH_MAX_LEN];
    path_resolve(g, sizeof g, NULL, experiment_default_gpus);
    path_resolve(l, sizeof l, NULL, experiment_default_links);
    path_resolve(jt, sizeof jt, NULL, experiment_default_jobtypes);
    path_resolve(pr, sizeof pr, NULL, experiment_default_profiles[0]);
    path_resolve(ip, sizeof ip, NULL, "models/data/interference/gavel_pairs.csv");
    catalog *cat;
    tput *model;
    if (catalog_load(&cat, g, l, &err) < 0 || tput_create(&model, cat, &err) < 0 ||
        tput_load_types(model, jt, &err) < 0 || tput_load_profile(model, pr, &err) < 0)
        die("models", &err);
    intf *m;
    if (intf_create(&m, tput_ntypes(model), catalog_ngpus(cat)) < 0 ||
        intf_load_gavel(m, model, ip, &err) < 0 || intf_fit(m, &intf_mf_default, 1, &err) < 0)
        die("interference", &err);
    share *sh;
    struct share_params p = { .overhead = 0.1, .gns_ratio = 4, .pressure_exp = 0.5,
                              .context_gb = 0.5 };
    if (share_create(&sh, model, m, &p, &err) < 0)
        die("share", &err);
    inner = share_speed(sh);
    int rn = tput_find(model, "ResNet-18 (batch size 64)");
    double solo = tput_measured(model, rn, catalog_gpu_find(cat, "V100-16GB"), 1, 0);
    printf("re-rating on a shared GPU: %d churn jobs joining and leaving GPUs 0-3 beside one "
           "background job per GPU\n", CHURN);
    printf("%8s %4s %12s %14s %16s %18s\n", "GPUs", "D s", "events", "CPU us/event",
           "rates/event", "O(jobs) would be");
    static const int sizes[] = { 64, 512, 4096 };
    double base_us[2] = { 0, 0 };
    int ok = 1;
    for (int ki = 0; ki < 2; ki++) {
        double dur = ki == 0 ? 0.1 : 3;
        double per_event_calls0 = -1;
        for (int si = 0; si < 3; si++) {
            int n = sizes[si];
            char cj[256];
            snprintf(cj, sizeof cj, "{ \"name\": \"b\", \"network\": \"ib-100g\", \"groups\": [ "
                     "{ \"count\": %d, \"gpu\": \"V100\", \"gpus_per_node\": 8 } ] }", n / 8);
            jsonf *d;
            struct jobj o;
            cluster *cl;
            if (jsonf_parse(&d, "bench cluster", cj, strlen(cj), &err) < 0 ||
                jobj_root(&o, d, &err) < 0 || cluster_from_json(&cl, cat, &o, &err) < 0)
                die("cluster", &err);
            jsonf_destroy(d);
            nbg = n;
            /* D seconds of work at the type's speed slowed about 2x by its co-runners */
            struct src s = { .n = n, .jtype = rn, .bg_work = 1e12,
                             .churn_work = dur * solo / 2 };
            struct src s0 = s;
            s0.churn = 0;
            s.churn = CHURN;
            struct result a = one(cl, model, s0);
            struct result b = one(cl, model, s);
            double ev = 2.0 * CHURN;            /* a join and a leave each */
            double us = (b.cpu_s - a.cpu_s) / ev * 1e6;
            double pc = (double)(b.calls - a.calls) / ev;
            printf("%8d %4.1f %12llu %14.2f %16.2f %18d\n", n, dur, (unsigned long long)b.events, us,
                   pc, n);
            if (si == 0) {
                base_us[ki] = us;
                per_event_calls0 = pc;
            } else {
                if (pc > per_event_calls0 * 1.01 + 0.01)
                    ok = 0;
                if (n == 4096 && us > 2 * base_us[ki] + 1)
                    ok = 0;
            }
            cluster_destroy(cl);
        }
    }
    printf("%s\n", ok ? "target met: rate evaluations per event flat in the cluster size, CPU "
                        "time per event within 2x"
                      : "TARGET MISSED");
    share_destroy(sh);
    tput_destroy(model);
    catalog_destroy(cat);
    return ok ? 0 : 1;
}
