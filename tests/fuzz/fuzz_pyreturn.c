/*
 * fuzz_pyreturn: what a Python policy's decide hook returns, through the bridge's conversion
 * and check (sched/python/pybridge.c), on a fixed training view.
 *
 * The input is the text of the answer: the policy (written once into the scratch directory)
 * reads it with ast.literal_eval and returns it, each entry's first element made the Job of
 * the view's active list at that index when it is an integer in range.  An answer the bridge
 * accepts must satisfy the world's rules, checked here independently: every job once and
 * active, a share in 1..1000 and a GPU count in the job's range when it gets GPUs, GPU ids in
 * range and distinct, and on every GPU the jobs that keep theirs plus the grants within 1000.
 * An answer it refuses must be an input error (exit 2) naming the policy file and the hook's
 * line.  The view: mixed_small (48 GPUs), 8 jobs, the first 3 running on GPUs 0-3, 8-9, 16.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/policy.h"
#include "fuzzutil.h"

enum { NJ = 8 };

static const char echo_policy[] =
    "DOMAIN = 'training'\n"
    "import ast, os\n"
    "HERE = os.path.dirname(__file__)\n"
    "def decide(view):\n"
    "    spec = ast.literal_eval(open(os.path.join(HERE, 'answer.txt'), encoding='latin-1')"
    ".read())\n"
    "    if not isinstance(spec, list):\n"
    "        return spec\n"
    "    jobs = list(view.active)\n"
    "    out = []\n"
    "    for e in spec:\n"
    "        if isinstance(e, tuple) and e and isinstance(e[0], int) and 0 <= e[0] < len(jobs):\n"
    "            e = (jobs[e[0]],) + e[1:]\n"
    "        out.append(e)\n"
    "    return out\n";

static cluster *cl;
static policy *pol;
static char py_path[4096];
static struct train_job jobs[NJ];
static int held[NJ][4];
static int32_t next_active[NJ], next_waiting[NJ], next_running[NJ];
static struct train_view view;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct errbuf err;
    err_clear(&err);
    char cpath[4096];
    fz_shipped(cpath, sizeof cpath, "workloads/clusters/mixed_small.json");
    if (cluster_load(&cl, fz_catalog(), cpath, &err) < 0)
        fz_fail("cluster_load: %s", err.msg);
    fz_write(py_path, sizeof py_path, "echo.py", echo_policy, sizeof echo_policy - 1);
    char name[4200];
    snprintf(name, sizeof name, "py:%s", py_path);
    struct policy_env env = { 1, cl, fz_models(), NULL, 60 };
    if (policy_open(&pol, name, NULL, &env, &err) < 0)
        fz_fail("policy_open: %s", err.msg);
    /* the view: jobs 0..2 running, the others waiting */
    static const int run_gpus[3][4] = { { 0, 1, 2, 3 }, { 8, 9 }, { 16 } };
    static const int run_n[3] = { 4, 2, 1 };
    occ *o = occ_create(cl);
    view = (struct train_view){ .now = 100000000, .cl = cl, .occ = o, .model = fz_models(),
                                .jobs = jobs, .active_head = 0, .waiting_head = 3,
                                .running_head = 0, .n_active = NJ, .n_waiting = NJ - 3,
                                .n_running = 3, .next_active = next_active,
                                .next_waiting = next_waiting, .next_running = next_running,
                                .restore_delay_s = 10, .storage_gbs = 1 };
    for (int i = 0; i < NJ; i++) {
        int w = i < 3 ? run_n[i] : 1 + i % 3;
        jobs[i] = (struct train_job){ .id = 10 + i, .slot = i, .workers = w, .min_workers = w,
                                      .max_workers = w, .work = 1e6, .state = JOB_QUEUED,
                                      .first_start = -1, .gpu_type = -1 };
        next_active[i] = i + 1 < NJ ? i + 1 : -1;
        next_waiting[i] = i >= 3 && i + 1 < NJ ? i + 1 : -1;
        next_running[i] = i < 2 ? i + 1 : -1;
        if (i < 3) {
            memcpy(held[i], run_gpus[i], sizeof held[i]);
            jobs[i].state = JOB_RUNNING;
            jobs[i].ngpu = w;
            jobs[i].share = 1000;
            jobs[i].gpus = held[i];
            jobs[i].gpu_type = cluster_gpu_type(cl, held[i][0]);
            jobs[i].first_start = 0;
            occ_take(o, held[i], w, 1000);
        }
    }
    return 0;
}

/* The world's rules on an accepted list, independently of grant_check. */
static void check_valid(const struct grant_list *out)
{
    int seen[NJ] = { 0 }, use[64] = { 0 };
    int ng = cluster_ngpus(cl);
    for (size_t k = 0; k < out->n; k++) {
        const struct grant *g = &out->g[k];
        if (g->slot < 0 || g->slot >= NJ || seen[g->slot]++)
            fz_fail("accepted: grant %zu names slot %d (again)", k, g->slot);
        const struct train_job *j = &jobs[g->slot];
        if (g->ngpu > 0 && (g->share < 1 || g->share > 1000 || g->ngpu < j->min_workers ||
                            g->ngpu > j->max_workers))
            fz_fail("accepted: job %lld gets %d GPUs at %d/1000", (long long)j->id, g->ngpu,
                    g->share);
        const int *ids = grant_ids(out, g);
        for (int x = 0; x < g->ngpu; x++) {
            if (ids[x] < 0 || ids[x] >= ng)
                fz_fail("accepted: GPU %d out of range", ids[x]);
            for (int y = 0; y < x; y++)
                if (ids[x] == ids[y])
                    fz_fail("accepted: GPU %d twice", ids[x]);
            use[ids[x]] += g->share;
        }
    }
    for (int i = 0; i < NJ; i++)
        if (!seen[i] && jobs[i].state == JOB_RUNNING)
            for (int x = 0; x < jobs[i].ngpu; x++)
                use[jobs[i].gpus[x]] += 1000;
    for (int g = 0; g < ng; g++)
        if (use[g] > 1000)
            fz_fail("accepted: GPU %d holds %d/1000", g, use[g]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char path[4096];
    fz_write(path, sizeof path, "answer.txt", data, size);
    const struct train_decider *d = policy_decider(pol);
    struct grant_list out;
    grant_list_init(&out);
    struct errbuf err;
    err_clear(&err);
    int rc = d->decide(d->ctx, &view, &out, &err);
    fz_check_err(rc, &err, "decide");
    if (rc == 0) {
        check_valid(&out);
    } else {
        char at[4200];
        snprintf(at, sizeof at, "%s:", py_path);
        if (err.code != ERR_INPUT || strstr(err.msg, at) == NULL)
            fz_fail("refused without an input error at the file: code %d: %s", err.code,
                    err.msg);
    }
    grant_list_fini(&out);
    return 0;
}
