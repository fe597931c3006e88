/*
 * fuzz_pollux: Pollux's and Sia's workload CSV and the Pollux-compatible world — the job list
 * drained through workload_open / workload_source (format "pollux"), and, when it reads and
 * is short, a whole run (pollux_run) of one elastic policy on 2 nodes x 4 T4 with the shipped
 * profiles.
 *
 * Input: FLAGS CSV.  FLAGS (one byte): bit 0 picks the policy (pollux_tiresias, optimus),
 * bits 1-2 the tick (60, 30, 120, 7 s).  At most 24 jobs are read (max_jobs) and a run is
 * capped at 3,000 ticks, to keep an execution short.  Every job must be sane (a name and an
 * application, at least one GPU and one sample, a submission >= 0), a job the world cannot
 * take must be rejected with a message (application unknown, batch outside the validated
 * sizes, more GPUs than the cluster has), and a run's figures must hold: every job reported
 * once, a finished one no earlier than the tick after its submission plus the restart
 * penalty, attained GPU-seconds at most 8 x its time in the system, busy GPU-seconds at most
 * 8 x the run's length.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/elastic.h"
#include "../../sched/policy.h"
#include "../../sim/base/path.h"
#include "../../sim/train/pollux.h"
#include "../../workloads/workload.h"
#include "fuzzutil.h"

enum { JOBS_CAP = 24, TICKS_CAP = 3000, GPUS = 8 };

static const char *const policies[] = { "pollux_tiresias", "optimus" };
static const double ticks[] = { 60, 30, 120, 7 };

static const elastic *apps(void)
{
    static elastic *e;
    if (e == NULL) {
        struct errbuf err;
        err_clear(&err);
        char p[PATH_MAX_LEN];
        fz_shipped(p, sizeof p, "models/data/pollux/applications.json");
        if (elastic_load(&e, fz_catalog(), p, &err) < 0)
            fz_fail("shipped profiles: %s", err.msg);
    }
    return e;
}

static const cluster *two_nodes(void)
{
    static cluster *cl;
    if (cl == NULL) {
        static const char json[] = "{\"network\": \"ethernet-25g\", \"groups\": [{\"count\": "
                                   "2, \"gpu\": \"T4\", \"gpus_per_node\": 4}]}";
        struct errbuf err;
        err_clear(&err);
        jsonf *doc;
        struct jobj root;
        if (jsonf_parse(&doc, "cluster.json", json, strlen(json), &err) < 0 ||
            jobj_root(&root, doc, &err) < 0 || cluster_from_json(&cl, fz_catalog(), &root, &err) < 0)
            fz_fail("the harness's cluster: %s", err.msg);
        /* the cluster keeps what it needs; the document may go */
        jsonf_destroy(doc);
    }
    return cl;
}

static void check_job(const struct job_spec *s)
{
    if (s->name == NULL || s->name[0] == '\0' || s->app == NULL || s->app[0] == '\0' ||
        s->workers < 1 || s->batch < 1 || s->arrival < 0)
        fz_fail("job line %ld: name %s, application %s, %d GPUs, batch %d, at %lld", s->line,
                s->name ? s->name : "(null)", s->app ? s->app : "(null)", s->workers, s->batch,
                (long long)s->arrival);
}

struct seen {
    int64_t n;
    double  tick, restart;
    uint8_t got[JOBS_CAP];
};

static int on_job(void *ctx, const struct train_record *r, struct errbuf *err)
{
    (void)err;
    struct seen *s = ctx;
    const struct train_job *j = r->job;
    if (r->trace_id < 0 || r->trace_id >= JOBS_CAP || s->got[r->trace_id]++)
        fz_fail("job %lld reported twice or out of range", (long long)r->trace_id);
    s->n++;
    double arrival = sim_to_sec(j->arrival);
    if (r->finish >= 0) {
        double first_tick = ceil(arrival / s->tick) * s->tick;
        if (first_tick == 0)
            first_tick = s->tick;
        if (sim_to_sec(r->finish) < first_tick + s->restart - 1e-6)
            fz_fail("job %lld done at %.3f s, submitted at %.3f s", (long long)r->trace_id,
                    sim_to_sec(r->finish), arrival);
        if (j->attained > GPUS * (sim_to_sec(r->finish) - arrival) + 1e-6)
            fz_fail("job %lld attained %g GPU-s", (long long)r->trace_id, j->attained);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    data++;
    size--;
    char tpath[4096], jpath[4096], json[4400];
    fz_write(tpath, sizeof tpath, "workload.csv", data, size);
    snprintf(json, sizeof json, "{\"format\": \"pollux\", \"trace\": \"%s\", \"max_jobs\": %d}",
             tpath, JOBS_CAP);
    fz_write(jpath, sizeof jpath, "workload.json", json, strlen(json));
    const tput *m = fz_models();
    struct errbuf err;
    err_clear(&err);
    jsonf *d;
    struct jobj cfg;
    if (jsonf_load(&d, jpath, &err) < 0 || jobj_root(&cfg, d, &err) < 0)
        fz_fail("the harness's own workload JSON: %s", err.msg);
    struct workload_env env = { m, 1, fz_dir() };
    workload *w = NULL;
    int rc = workload_open(&w, &cfg, &env, &err);
    fz_check_err(rc, &err, "workload_open (pollux)");
    int njobs = 0, readable = rc == 0;
    if (rc == 0) {
        struct entity_source *src = workload_source(w);
        struct job_spec s;
        for (;;) {
            err_clear(&err);
            rc = src->next(src->ctx, &s, &err);
            fz_check_err(rc, &err, "job source next");
            if (rc < 0)
                readable = 0;
            if (rc <= 0)
                break;
            check_job(&s);
            njobs++;
        }
        workload_close(w);
    }
    if (!readable || njobs == 0) {
        jsonf_destroy(d);
        return 0;
    }
    /* a run over the same list, read again */
    err_clear(&err);
    if (workload_open(&w, &cfg, &env, &err) < 0)
        fz_fail("the list read once but not twice: %s", err.msg);
    struct policy_env penv = { .seed = 1, .cl = two_nodes() };
    policy *pol = NULL;
    if (policy_open(&pol, policies[flags & 1], NULL, &penv, &err) < 0)
        fz_fail("policy_open: %s", err.msg);
    struct seen seen = { .tick = ticks[(flags >> 1) & 3], .restart = 30 };
    struct pollux_config pc = { .tick = sim_from_sec(seen.tick), .restart_s = 30,
                                .until = SIM_NEVER, .max_events = TICKS_CAP };
    struct train_sink sink = { .ctx = &seen, .job = on_job };
    struct train_totals t;
    err_clear(&err);
    rc = pollux_run(two_nodes(), apps(), &pc, workload_source(w), policy_decider(pol), &sink,
                    &t, &err);
    fz_check_err(rc, &err, "pollux_run");
    if (rc == 0) {
        if (seen.n != njobs || t.jobs_in != njobs || t.jobs_done > njobs)
            fz_fail("%lld of %d jobs reported, %lld in, %lld done", (long long)seen.n, njobs,
                    (long long)t.jobs_in, (long long)t.jobs_done);
        if (t.busy_gpu_s[0] > GPUS * sim_to_sec(t.end) + 1e-6 || t.busy_gpu_s[0] < 0)
            fz_fail("busy %g GPU-s in %g s", t.busy_gpu_s[0], sim_to_sec(t.end));
    }
    policy_close(pol);
    workload_close(w);
    jsonf_destroy(d);
    return 0;
}
