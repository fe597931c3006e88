/*
 * test_python: policies written in Python (sched/python/), through the command line and the
 * database they write, and the bridge's check of what a hook returns.
 *
 *  - examples_match_their_c_policies: each example of sched/python/ and its C counterpart run
 *    on shipped experiments (and with parameters), one database each; every row of the
 *    run's per-entity tables, its samples and metrics (solver times aside, they are wall
 *    clock) and the run's end, events and decisions must be equal byte for byte.
 *  - parameters, seed, sweeps with -j 2, resume, report: what a C policy does, a Python one
 *    does.
 *  - checker_agrees_with_brute_force: random answers (good, over-allocating, duplicated,
 *    out of range, of the wrong type) fed through a Python decide hook; the bridge accepts
 *    exactly those a brute-force check of the world's rules accepts, and refuses the others
 *    as input errors naming the file and the hook's line.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sched/policy.h"
#include "../sim/base/rng.h"
#include "helpers.h"

extern char **environ;

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

static char *tmp(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    remove(p);
    return p;
}

/* What must be equal between two runs of one experiment: everything the run wrote but its
 * name, policy, config, and wall-clock figures. */
static const char *const same_rows[] = {
    "SELECT experiment, seed, sim_end_s, stop_reason, events, decisions, jobs_total FROM runs",
    "SELECT * FROM jobs ORDER BY run_id, job_id",
    "SELECT * FROM job_gpu_seconds ORDER BY run_id, job_id, gpu_type",
    "SELECT * FROM requests ORDER BY run_id, request_id",
    "SELECT * FROM pods ORDER BY run_id, pod_seq",
    "SELECT * FROM samples ORDER BY run_id, name, t_s",
    "SELECT * FROM metrics WHERE name NOT LIKE 'solver_time%' ORDER BY run_id, name",
    NULL,
};

/* Run policy `pol` of experiment `exp` (extra: one --set or NULL) into a fresh database and
 * return the dump of its rows. */
static char *rows_of(const char *exp, const char *pol, const char *set, const char *dbname)
{
    char *db = tmp(dbname);
    struct th_out o = set ? RUN("run", exp, "--policy", pol, "--db", db, "-q", "--set", set)
                          : RUN("run", exp, "--policy", pol, "--db", db, "-q");
    cr_assert_eq(o.status, 0, "%s under %s: exit %d: %s", exp, pol, o.status, o.err);
    th_out_free(&o);
    char *d = th_query_dump(db, same_rows);
    free(db);
    return d;
}

static void same(const char *exp, const char *c, const char *py, const char *set)
{
    char *a = rows_of(exp, c, set, "c.db"), *b = rows_of(exp, py, set, "py.db");
    cr_assert_gt(strlen(a), 2000, "%s under %s: too few rows to compare", exp, c);
    cr_assert_str_eq(a, b, "%s: %s and %s differ", exp, c, py);
    free(a);
    free(b);
}

Test(python, examples_match_their_c_policies, .timeout = 600)
{
    static const char *const exps[] = { "default", "mixed_synthetic", "fft_philly", NULL };
    static const char *const pairs[][2] = {
        { "fifo", "py:sched/python/fifo.py" },
        { "srtf", "py:sched/python/srtf.py" },
        { "tiresias", "py:sched/python/tiresias.py" },
    };
    for (int e = 0; exps[e] != NULL; e++)
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
            same(exps[e], pairs[k][0], pairs[k][1], NULL);
}

/* As the training tenant of a shared cluster, under a broker that lends and reclaims nodes:
 * the Python examples plan on the GPUs they are not denied (view.type_count less the
 * broker's) and give their C versions' rows. */
Test(python, examples_match_their_c_policies_as_colocate_tenants, .timeout = 600)
{
    static const char *const pairs[][2] = {
        { "srtf", "py:sched/python/srtf.py" },
        { "tiresias", "py:sched/python/tiresias.py" },
    };
    static const char *const rows[] = {
        "SELECT sim_end_s, stop_reason, jobs_total FROM runs",
        "SELECT * FROM jobs ORDER BY run_id, job_id",
        "SELECT * FROM job_gpu_seconds ORDER BY run_id, job_id, gpu_type",
        "SELECT * FROM metrics WHERE name NOT LIKE '%solver_time%' ORDER BY run_id, name",
        NULL,
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        char *dump[2];
        for (int l = 0; l < 2; l++) {
            char *db = tmp(l ? "colo_py.db" : "colo_c.db"), set[96];
            snprintf(set, sizeof set, "tenants.training.policies=[\"%s\"]", pairs[k][l]);
            struct th_out o = RUN("run", "colocate_day", "--policy", "loan", "--db", db, "-q",
                                  "--set", set, "--set", "sim.until_s=30000", "--set",
                                  "tenants.serving.workload.requests=40000");
            cr_assert_eq(o.status, 0, "%s: exit %d: %s", pairs[k][l], o.status, o.err);
            th_out_free(&o);
            cr_assert_gt(th_db_value(db, "SELECT value FROM metrics WHERE name = 'loans'"), 0);
            dump[l] = th_query_dump(db, rows);
            free(db);
        }
        cr_assert_str_eq(dump[0], dump[1], "%s and %s differ", pairs[k][0], pairs[k][1]);
        free(dump[0]);
        free(dump[1]);
    }
}

/* bestfit on FGD's openb lists (../shared, not shipped: skipped without them), at half the
 * load, with both tie rules: the Python version draws from the same GSL streams. */
Test(python, bestfit_matches_on_the_openb_lists, .timeout = 300)
{
    char nodes[1024], trace[1024], sn[3000];
    snprintf(nodes, sizeof nodes, "%s/openb_node_list_gpu_node.csv",
             th_shared_dir("traces/alibaba_gpu2023"));
    snprintf(trace, sizeof trace, "%s/openb_pod_list_default.csv",
             th_shared_dir("traces/alibaba_gpu2023"));
    if (access(nodes, R_OK) != 0 || access(trace, R_OK) != 0)
        cr_skip_test("the openb lists are not in ../shared");
    snprintf(sn, sizeof sn, "{ \"name\": \"x\", \"seed\": 42, \"domain\": \"placement\", "
             "\"cluster\": \"node_list\", \"nodes\": \"%s\",\n \"workload\": { \"format\": "
             "\"openb\", \"trace\": \"%s\" },\n \"sim\": { \"order\": \"shuffled\", "
             "\"load\": 0.6 },\n \"policies\": [\"bestfit\", \"py:sched/python/bestfit.py\",\n"
             " { \"name\": \"bestfit\", \"ties\": \"random\", \"label\": \"c_r\" },\n"
             " { \"name\": \"py:sched/python/bestfit.py\", \"ties\": \"random\", "
             "\"label\": \"py_r\" }] }\n", nodes, trace);
    char *exp = th_write("openb.json", sn);
    same(exp, "bestfit", "py:sched/python/bestfit.py", NULL);
    same(exp, "c_r", "py_r", NULL);
    free(exp);
}

/* A round-robin router against highend_only's round robin on the shipped Azure code trace:
 * two H100 replicas, so the turn matters (least_work, the default, gives other rows). */
static const char rr_exp[] =
    "{ \"name\": \"rr\", \"domain\": \"serving\", \"seed\": 1, \"cluster\": \"a100_h100\",\n"
    "  \"model\": \"llama-2-70b\", \"slo\": { \"ttft_s\": 5, \"tpot_s\": 0.1 },\n"
    "  \"workload\": { \"format\": \"azure_llm\", \"trace\": "
    "\"workloads/traces/azure_llm/AzureLLMInferenceTrace_code.csv\", \"arrival_scale\": 0.25 },\n"
    "  \"policies\": [{ \"name\": \"highend_only\", \"routing\": \"round_robin\", "
    "\"label\": \"c_rr\" },\n"
    "    { \"name\": \"py:sched/python/round_robin.py\", \"label\": \"py_rr\" },\n"
    "    \"highend_only\"],\n"
    "  \"sim\": { \"sample_s\": 60, \"overlong\": \"truncate\" } }\n";

Test(python, round_robin_matches_highend_only_round_robin, .timeout = 300)
{
    char *exp = th_write("rr.json", rr_exp);
    same(exp, "c_rr", "py_rr", NULL);
    char *a = rows_of(exp, "py_rr", NULL, "a.db"), *b = rows_of(exp, "highend_only", NULL, "b.db");
    cr_assert_str_neq(a, b, "the routing rule changed nothing");
    free(a);
    free(b);
    free(exp);
}

/* static_worst on the shipped socialNetwork experiment (the merged queueing truth): the
 * Python version calls the same solver (view.solve, msopt.h) with the same worst case. */
Test(python, static_worst_matches_on_socialnet, .timeout = 600)
{
    same("socialnet", "static_worst", "py:sched/python/static_worst.py", NULL);
}

/* The same policies with parameters, from an experiment file: labels pick each one. */
static const char params_exp[] =
    "{ \"name\": \"params\", \"seed\": 3, \"cluster\": \"mixed_small\",\n"
    "  \"workload\": { \"format\": \"synthetic\", \"jobs\": 300, \"rate_per_hour\": 30,\n"
    "    \"job_types\": { \"ResNet-50 (batch size 64)\": 1, \"LM (batch size 20)\": 1 },\n"
    "    \"workers\": { \"1\": 3, \"2\": 1, \"4\": 1, \"8\": 1 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 3600, \"sigma\": 1.5 } },\n"
    "  \"policies\": [\n"
    "    { \"name\": \"tiresias\", \"label\": \"c_t\", \"promote_knob\": 0.5,\n"
    "      \"thresholds\": [1000, 8000] },\n"
    "    { \"name\": \"py:sched/python/tiresias.py\", \"label\": \"py_t\",\n"
    "      \"promote_knob\": 0.5, \"thresholds\": [1000, 8000] },\n"
    "    { \"name\": \"fifo\", \"label\": \"c_bf\", \"backfill\": true },\n"
    "    { \"name\": \"py:sched/python/fifo.py\", \"label\": \"py_bf\", \"backfill\": true },\n"
    "    { \"name\": \"py:sched/python/fifo.py\", \"label\": \"py_strict\" }\n"
    "  ] }\n";

Test(python, parameters_reach_the_module, .timeout = 300)
{
    char *exp = th_write("params.json", params_exp);
    same(exp, "c_t", "py_t", NULL);
    same(exp, "c_bf", "py_bf", NULL);
    /* and they matter: strict FIFO is another run */
    char *a = rows_of(exp, "py_bf", NULL, "a.db"), *b = rows_of(exp, "py_strict", NULL, "b.db");
    cr_assert_str_neq(a, b, "backfill changed nothing");
    free(a);
    free(b);
    free(exp);
}

/* A policy that draws: FIFO in a random order of the waiting jobs. */
static const char random_policy[] =
    "import hetsim\n"
    "DOMAIN = 'training'\n"
    "SEEDED = True\n"
    "rng = None\n"
    "def init(params, r):\n"
    "    global rng\n"
    "    rng = r\n"
    "def decide(view):\n"
    "    plan = view.plan()\n"
    "    jobs = list(view.waiting)\n"
    "    rng.shuffle(jobs)\n"
    "    for j in jobs:\n"
    "        t = plan.most_free_type(j.workers)\n"
    "        if t is not None:\n"
    "            plan.place(j, t, j.workers)\n"
    "    return plan\n";

Test(python, the_seed_reaches_the_module_as_a_generator, .timeout = 120)
{
    char *py = th_write("rand.py", random_policy), pol[600];
    snprintf(pol, sizeof pol, "py:%s", py);
    char *a = rows_of("default", pol, "seed=1", "s1.db");
    char *b = rows_of("default", pol, "seed=1", "s1b.db");
    char *c = rows_of("default", pol, "seed=2", "s2.db");
    cr_assert_str_eq(a, b, "one seed, two results");
    /* the rows differ in more than the runs' seed column */
    cr_assert_str_neq(strchr(a, '\n'), strchr(c, '\n'), "the seed changed nothing");
    /* the generator is random.Random(rng_derive_seed(seed, "python_policy")) */
    char code[256];
    snprintf(code, sizeof code, "%llu",
             (unsigned long long)rng_derive_seed(1, "python_policy"));
    cr_assert_neq(strcmp(code, "1"), 0);
    free(a);
    free(b);
    free(c);
    free(py);
}

static const char py_sweep[] =
    "{ \"name\": \"pysweep\", \"experiment\": \"default\",\n"
    "  \"set\": { \"workload.max_jobs\": 60 },\n"
    "  \"grid\": { \"policy\": [\"py:sched/python/fifo.py\", \"py:sched/python/srtf.py\",\n"
    "                         \"srtf\"],\n"
    "            \"seed\": [1, 2] } }\n";

Test(python, sweeps_with_workers_resume_and_report, .timeout = 300)
{
    char *f = th_write("pysweep.json", py_sweep);
    char *one = tmp("pys_j1.db"), *two = tmp("pys_j2.db");
    struct th_out o = RUN("sweep", f, "--db", one, "-q", "-j", "1");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("sweep", f, "--db", two, "-q", "-j", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *d1 = th_db_dump_by_config(one), *d2 = th_db_dump_by_config(two);
    cr_assert_str_eq(d1, d2, "-j1 and -j2 differ");
    cr_assert_float_eq(th_db_value(two, "SELECT count(*) FROM runs"), 6, 0);
    /* the Python srtf and the C srtf: the same jobs rows, seed by seed */
    cr_assert_float_eq(th_db_value(two, "SELECT count(*) FROM (SELECT j.job_id, j.finish_s, "
                                        "r.seed FROM jobs j JOIN runs r ON r.id = j.run_id "
                                        "WHERE r.policy = 'srtf' EXCEPT SELECT j.job_id, "
                                        "j.finish_s, r.seed FROM jobs j JOIN runs r ON "
                                        "r.id = j.run_id WHERE r.policy = "
                                        "'py:sched/python/srtf.py')"), 0, 0);
    /* resume: nothing left to do */
    o = RUN("sweep", f, "--db", two, "-j", "2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, "0 runs done, 6 skipped") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("report", "--db", two);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "py:sched/python/fifo.py") != NULL, "%s", o.out);
    th_out_free(&o);
    free(d1);
    free(d2);
    free(one);
    free(two);
    free(f);
}

/* `mpirun -np 2` of the MPI build (make MPI=1) runs the Python sweep: each rank starts its
 * own interpreter; the rows equal a plain sweep's.  Skipped without build/mpi/hetsim. */
Test(python, mpi_ranks_run_python_policies, .timeout = 300)
{
    if (access(HETSIM_MPI_BIN, X_OK) != 0 || system("command -v mpirun >/dev/null") != 0)
        cr_skip_test("no MPI build (make MPI=1) or no mpirun");
    char *f = th_write("pympi.json", py_sweep);
    char *mpi = tmp("pympi.db"), *plain = tmp("pympi_plain.db");
    const char *argv[] = { "mpirun", "--oversubscribe", geteuid() == 0 ? "--allow-run-as-root"
                                                                       : "--oversubscribe",
                           "-np", "2", HETSIM_MPI_BIN, "sweep", f, "--db", mpi, "-q", NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawnp(&pid, "mpirun", &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mpirun status %d", status);
    struct th_out o = RUN("sweep", f, "--db", plain, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *a = th_db_dump_by_config(mpi), *b = th_db_dump_by_config(plain);
    cr_assert_gt(strlen(a), 10000);
    cr_assert_str_eq(a, b, "the MPI sweep differs from a plain one");
    free(a);
    free(b);
    free(mpi);
    free(plain);
    free(f);
}

/* ---------------------------------------------------------------- the checker */

/* The hook returns what the test wrote into answer.txt, with job indices made Job objects:
 * each entry (i, gpus, share); i an index into view.active, or anything else as it is. */
static const char echo_policy[] =
    "DOMAIN = 'training'\n"
    "import ast, os\n"
    "HERE = os.path.dirname(__file__)\n"
    "def decide(view):\n"
    "    spec = ast.literal_eval(open(os.path.join(HERE, 'answer.txt')).read())\n"
    "    if not isinstance(spec, list):\n"
    "        return spec\n"
    "    jobs = list(view.active)\n"
    "    out = []\n"
    "    for e in spec:\n"
    "        i = e[0]\n"
    "        j = jobs[i] if isinstance(i, int) and 0 <= i < len(jobs) else i\n"
    "        out.append((j,) + tuple(e[1:]))\n"
    "    return out\n";

enum { NJ = 10, MAXG = 8 };

struct answer {
    int n;
    struct {
        int  job;               /* index, or -1: a string instead of a job */
        int  ngpu, share;       /* share -1: no share given (1000) */
        int  ids[MAXG];
        int  bad_id;            /* 1: one id is a string */
    } g[6];
    int  junk;                  /* 1: not a list at all */
};

/* The world's rules, by brute force: every job once, a share in 1..1000 and a count in its
 * range when it gets GPUs, ids in range and distinct, and every GPU's holders (those not
 * regranted keep theirs) within 1000. */
static int brute_valid(const struct answer *a, const struct train_job *jobs, int ngpus)
{
    if (a->junk)
        return 0;
    int seen[NJ] = { 0 }, use[64] = { 0 };
    for (int k = 0; k < a->n; k++) {
        int i = a->g[k].job, n = a->g[k].ngpu, sh = a->g[k].share < 0 ? 1000 : a->g[k].share;
        if (i < 0 || a->g[k].bad_id || seen[i]++)
            return 0;
        if (n > 0 && (sh < 1 || sh > 1000 || n < jobs[i].min_workers || n > jobs[i].max_workers))
            return 0;
        for (int x = 0; x < n; x++) {
            if (a->g[k].ids[x] < 0 || a->g[k].ids[x] >= ngpus)
                return 0;
            for (int y = 0; y < x; y++)
                if (a->g[k].ids[x] == a->g[k].ids[y])
                    return 0;
        }
    }
    for (int i = 0; i < NJ; i++)       /* holders that keep their GPUs */
        if (!seen[i] && jobs[i].state == JOB_RUNNING)
            for (int x = 0; x < jobs[i].ngpu; x++)
                use[jobs[i].gpus[x]] += 1000;
    for (int k = 0; k < a->n; k++)
        for (int x = 0; x < a->g[k].ngpu; x++)
            use[a->g[k].ids[x]] += a->g[k].share < 0 ? 1000 : a->g[k].share;
    for (int g = 0; g < ngpus; g++)
        if (use[g] > 1000)
            return 0;
    return 1;
}

static void write_answer(const char *path, const struct answer *a)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    if (a->junk) {
        fprintf(f, "%s\n", a->n % 2 ? "42" : "'no'");
    } else {
        fprintf(f, "[");
        for (int k = 0; k < a->n; k++) {
            if (a->g[k].job < 0)
                fprintf(f, "('job %d', [", k);
            else
                fprintf(f, "(%d, [", a->g[k].job);
            for (int x = 0; x < a->g[k].ngpu; x++)
                fprintf(f, x == 0 && a->g[k].bad_id ? "'%d', " : "%d, ", a->g[k].ids[x]);
            if (a->g[k].share >= 0)
                fprintf(f, "], %d), ", a->g[k].share);
            else
                fprintf(f, "]), ");
        }
        fprintf(f, "]\n");
    }
    fclose(f);
}

Test(python, checker_agrees_with_brute_force, .init = th_mixed_init, .fini = th_mixed_fini,
     .timeout = 300)
{
    char *py = th_write("echo.py", echo_policy), *ans = tmp("answer.txt"), name[600];
    snprintf(name, sizeof name, "py:%s", py);
    struct policy_env env = { 1, th_cl, th_m, NULL, 10 };
    struct errbuf err = { 0 };
    policy *pol;
    cr_assert_eq(policy_open(&pol, name, NULL, &env, &err), 0, "%s", err.msg);
    const struct train_decider *d = policy_decider(pol);
    int ngpus = cluster_ngpus(th_cl);
    cr_assert_leq(ngpus, 64);
    gsl_rng *r = rng_stream(7, "test_python");
    int accepted = 0, refused = 0;
    for (int round = 0; round < 400; round++) {
        /* a state: some jobs running on GPUs of their own, the others waiting */
        struct train_job jobs[NJ];
        int held[NJ][MAXG], next = 0;
        memset(jobs, 0, sizeof jobs);
        for (int i = 0; i < NJ; i++) {
            int w = 1 + (int)gsl_rng_uniform_int(r, 2);
            jobs[i] = (struct train_job){ .id = 100 + i, .jtype = 0, .workers = w,
                                          .min_workers = w, .max_workers = w, .work = 1e6,
                                          .state = JOB_QUEUED, .first_start = -1,
                                          .gpu_type = -1 };
            if (gsl_rng_uniform(r) < 0.4 && next + w <= ngpus) {
                for (int x = 0; x < w; x++)
                    held[i][x] = next++;
                jobs[i].state = JOB_RUNNING;
                jobs[i].ngpu = w;
                jobs[i].share = 1000;
                jobs[i].gpus = held[i];
                jobs[i].gpu_type = cluster_gpu_type(th_cl, held[i][0]);
                jobs[i].first_start = 0;
            }
        }
        struct th_view tv;
        th_view_init(&tv, th_cl, th_m, jobs, NJ, 100, 0, 0);
        /* an answer, mostly plausible, sometimes wrong in one way */
        struct answer a = { .n = (int)gsl_rng_uniform_int(r, 5), .junk = gsl_rng_uniform(r) < 0.05 };
        for (int k = 0; k < a.n; k++) {
            double u = gsl_rng_uniform(r);
            int i = (int)gsl_rng_uniform_int(r, NJ);
            a.g[k].job = u < 0.03 ? -1 : i;
            int n = u < 0.1 ? 0 : jobs[i].workers + (u > 0.95 ? 1 : 0);
            a.g[k].ngpu = n > MAXG ? MAXG : n;
            a.g[k].share = u > 0.9 && u < 0.93 ? (int)gsl_rng_uniform_int(r, 1200) : -1;
            a.g[k].bad_id = u > 0.03 && u < 0.05 && n > 0;
            for (int x = 0; x < a.g[k].ngpu; x++)
                a.g[k].ids[x] = (int)gsl_rng_uniform_int(r, (unsigned long)ngpus + 1) -
                                (u > 0.5 && u < 0.52);
        }
        write_answer(ans, &a);
        struct grant_list out;
        grant_list_init(&out);
        err_clear(&err);
        int rc = d->decide(d->ctx, tv.v, &out, &err);
        int want = brute_valid(&a, jobs, ngpus);
        cr_assert_eq(rc == 0, want, "round %d: the bridge %s an answer the rules %s: %s", round,
                     rc == 0 ? "accepted" : "refused", want ? "allow" : "forbid", err.msg);
        if (rc < 0) {
            char at[700];
            snprintf(at, sizeof at, "%s:4: decide: ", py);
            cr_assert_eq(err.code, ERR_INPUT, "round %d: %s", round, err.msg);
            cr_assert(strstr(err.msg, at) != NULL, "round %d: no '%s' in: %s", round, at,
                      err.msg);
            refused++;
        } else {
            accepted++;
        }
        grant_list_fini(&out);
        th_view_fini(&tv);
    }
    cr_assert_gt(accepted, 40);
    cr_assert_gt(refused, 40);
    gsl_rng_free(r);
    policy_close(pol);
    free(ans);
    free(py);
}
