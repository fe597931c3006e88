/*
 * main: the hetsim command line.  Subcommands come from one table; each parses its own
 * options with getopt_long, prints --help to stdout (exit 0) and names a bad option on stderr
 * (exit 2).  Exit codes: 0 ok, 1 a run failed, 2 bad usage or bad input.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../models/llm.h"
#include "../../results/export.h"
#include "../../results/html.h"
#include "../../results/plot.h"
#include "../../results/report.h"
#include "../../results/trace.h"
#include "../../sched/policy.h"
#include "../../workloads/reader.h"
#include "../base/path.h"
#include "../run/run.h"
#include "../run/world_registry.h"
#include "cmd.h"
#include "../base/version.h"

#define DEFAULT_DB HETSIM_DEFAULT_DB

struct cmd {
    const char *name;
    int       (*fn)(int argc, char **argv);
    const char *usage;
    const char *summary;
};

static const struct cmd *cur;

/* How a domain's results are reported and drawn: its world's display. */
static const struct display *display_of(const char *domain)
{
    const struct world_ops *w = world_find(domain);
    return w != NULL ? w->display : NULL;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "hetsim %s: ", cur->name);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: hetsim %s %s\nTry 'hetsim %s --help'.\n", cur->name, cur->usage,
            cur->name);
    return 2;
}

static int fail(const struct errbuf *err)
{
    fprintf(stderr, "hetsim: %s\n", err->msg);
    return err->code == ERR_INPUT ? 2 : 1;
}

/* Parse the options shared by run / validate / workload. */
struct experiment_args {
    const char *policy, *db, *out;
    char      **sets;
    int         nsets;
    long long   seed;
    int         have_seed, quiet;
};

static int parse_exp_args(int argc, char **argv, struct experiment_args *a, const char *help,
                          int *done)
{
    static const struct option opts[] = {
        { "policy", required_argument, NULL, 'p' }, { "seed", required_argument, NULL, 's' },
        { "db", required_argument, NULL, 'd' },     { "set", required_argument, NULL, 'S' },
        { "out", required_argument, NULL, 'o' },    { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    memset(a, 0, sizeof *a);
    a->db = DEFAULT_DB;
    a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
    if (a->sets == NULL)
        return 1;
    *done = 0;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "p:s:d:S:o:qh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'p': a->policy = optarg; break;
        case 'd': a->db = optarg; break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'S': a->sets[a->nsets++] = optarg; break;
        case 's':
            errno = 0;
            a->seed = strtoll(optarg, &end, 10);
            if (end == optarg || *end != '\0' || errno == ERANGE || a->seed < 0)
                return usage_error("--seed needs an integer >= 0, not '%s'", optarg);
            a->have_seed = 1;
            break;
        case 'h':
            fputs(help, stdout);
            *done = 1;
            return 0;
        default:
            return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error("%s", optind >= argc ? "missing EXPERIMENT" : "too many arguments");
    return 0;
}

static int load_experiment(const struct experiment_args *a, const char *name, struct experiment **e,
                           struct errbuf *err)
{
    if (experiment_load(e, name, a->sets, a->nsets, err) < 0)
        return -1;
    if (a->have_seed)
        experiment_set_seed(*e, (uint64_t)a->seed);
    if (a->policy != NULL && experiment_only_policy(*e, a->policy, err) < 0)
        return -1;
    return 0;
}

/* What run, validate and workload share: options, the experiment, its models and cluster. */
struct session {
    struct experiment_args    a;
    struct errbuf      err;
    struct experiment *e;
    struct run_env     env;
};

/* Returns -1 when the command should go on, else the exit status to return (after --help,
 * bad usage or bad input, with the message printed). */
static int session_open(struct session *s, int argc, char **argv, const char *help)
{
    memset(s, 0, sizeof *s);
    err_clear(&s->err);
    int done, rc = parse_exp_args(argc, argv, &s->a, help, &done);
    if (rc != 0 || done)
        return rc;
    if (load_experiment(&s->a, argv[optind], &s->e, &s->err) < 0 ||
        run_env_open(&s->env, s->e, &s->err) < 0)
        return fail(&s->err);
    return -1;
}

static void session_close(struct session *s)
{
    run_env_close(&s->env);
    experiment_free(s->e);
    free(s->a.sets);
}

static const char run_help[] =
    "usage: hetsim run EXPERIMENT [options]\n"
    "Run every policy of EXPERIMENT (a file, or the name of a shipped experiment) and store\n"
    "each run in the metrics database, then print a comparison table.\n\n"
    "  -p, --policy NAME   run only this policy (need not be listed in the experiment;\n"
    "                      py:FILE: a policy written in Python, doc/python.md)\n"
    "  -s, --seed N        override the experiment's seed\n"
    "  -d, --db FILE       database to append to (default " DEFAULT_DB ")\n"
    "  -S, --set KEY=VAL   override any experiment field, e.g. --set workload.max_jobs=100\n"
    "                      or --set sim.restore_delay_s=0 (VAL is JSON, or else a string)\n"
    "  -q, --quiet         no progress line and no table\n"
    "  -h, --help          this help\n";

static int cmd_run(int argc, char **argv)
{
    struct session ss;
    int rc = session_open(&ss, argc, argv, run_help);
    if (rc >= 0) {
        session_close(&ss);
        return rc;
    }
    rc = 0;
    struct experiment *e = ss.e;
    db *d = NULL;
    int64_t ids[EXPERIMENT_MAX_POLICIES];
    int nids = 0;
    if (run_check(e, &ss.env, &ss.err) < 0 || db_open(&d, ss.a.db, &ss.err) < 0) {
        rc = fail(&ss.err);
        goto out;
    }
    char why[256];
    if (ss.a.have_seed && !run_seed_matters(e, &ss.env, why, sizeof why))
        fprintf(stderr, "hetsim: note: --seed %lld gives the rows of any other seed: %s\n",
                ss.a.seed, why);
    struct run_opts o = { .db = d, .progress = !ss.a.quiet && isatty(2) };
    /* the total of the progress line: the entities of the workload, counted once (every
     * policy of the experiment reads the same ones) */
    if (o.progress && run_list(e, &ss.env, NULL, &o.total, &ss.err) < 0) {
        rc = fail(&ss.err);
        goto out;
    }
    for (int i = 0; i < e->npolicies; i++) {
        struct run_result res;
        if (run_one(e, i, &ss.env, &o, &res, &ss.err) < 0) {
            rc = fail(&ss.err);
            goto out;
        }
        ids[nids++] = res.run_id;
        if (!ss.a.quiet)
            fprintf(stderr, "run %lld: %s, %s: %lld %s done, %llu events in %.2f s\n",
                    (long long)res.run_id, e->name, res.policy, (long long)res.tot.entities_done,
                    e->world->entity, (unsigned long long)res.tot.events, res.wall_s);
    }
    if (!ss.a.quiet) {
        struct report_opts ro = { .format = REPORT_TABLE,
                                  .baseline = e->npolicies > 1 ? e->policies[0].label : NULL,
                                  .run_ids = ids, .n_run_ids = nids,
                                  .display_of = display_of };
        if (report_print(ss.a.db, &ro, stdout, &ss.err) < 0)
            rc = fail(&ss.err);
    }
out:
    db_close(d);
    session_close(&ss);
    return rc;
}

static const char validate_help[] =
    "usage: hetsim validate EXPERIMENT [options]\n"
    "Check an experiment without running it: every field, the cluster, the models, every job\n"
    "of the workload, and the parameters of every policy.  Exit 0 if all is well, 2 if not.\n\n"
    "  -p, --policy NAME   check only this policy (need not be listed in the experiment)\n"
    "  -s, --seed N        the seed to draw the jobs with (synthetic workloads, job types)\n"
    "  -S, --set KEY=VAL   override any experiment field, as in hetsim run\n"
    "  -h, --help          this help\n";

static int cmd_validate(int argc, char **argv)
{
    struct session ss;
    int rc = session_open(&ss, argc, argv, validate_help);
    if (rc >= 0) {
        session_close(&ss);
        return rc;
    }
    rc = 0;
    struct experiment *e = ss.e;
    int64_t njobs = 0;
    /* what run checks when it opens, then every job as the world will take it */
    if (run_check(e, &ss.env, &ss.err) < 0 ||
        run_list(e, &ss.env, NULL, &njobs, &ss.err) < 0) {
        rc = fail(&ss.err);
        goto out;
    }
    char why[256];
    int seeded = run_seed_matters(e, &ss.env, why, sizeof why);
    char size[64];
    int cpu_nodes = 0;
    for (int i = 0; i < cluster_ncpu_groups(ss.env.cl); i++)
        cpu_nodes += cluster_cpu_group(ss.env.cl, i)->count;
    if (cluster_ngpus(ss.env.cl) == 0 && cpu_nodes > 0)
        snprintf(size, sizeof size, "%d CPU nodes", cpu_nodes);
    else
        snprintf(size, sizeof size, "%d GPUs", cluster_ngpus(ss.env.cl));
    char more[512] = "";
    if (e->world->describe != NULL) {
        more[0] = ';';
        more[1] = ' ';
        e->world->describe(e->world_config, more + 2, sizeof more - 2);
    }
    printf("%s: ok: experiment '%s', %lld %s, cluster '%s' with %s, %d polic%s; the seed "
           "%s%s\n", e->path, e->name, (long long)njobs, e->world->entity,
           cluster_name(ss.env.cl), size, e->npolicies, e->npolicies == 1 ? "y" : "ies",
           seeded ? "changes the runs" : "changes nothing", more);
out:
    session_close(&ss);
    return rc;
}

static const char workload_help[] =
    "usage: hetsim workload EXPERIMENT [options]\n"
    "Write the jobs EXPERIMENT would run, after trace conversion or generation, as a hetsim\n"
    "CSV trace (to stdout, or FILE).\n\n"
    "  -s, --seed N        the seed to draw the jobs with (synthetic workloads, job types)\n"
    "  -S, --set KEY=VAL   override any experiment field, as in hetsim run\n"
    "  -o, --out FILE      write FILE instead of standard output\n"
    "  -h, --help          this help\n";

static int cmd_workload(int argc, char **argv)
{
    struct session ss;
    int rc = session_open(&ss, argc, argv, workload_help);
    if (rc >= 0) {
        session_close(&ss);
        return rc;
    }
    rc = 0;
    int64_t njobs = 0;
    FILE *out = ss.a.out != NULL ? fopen(ss.a.out, "w") : stdout;
    if (out == NULL) {
        fprintf(stderr, "hetsim: %s: cannot write\n", ss.a.out);
        session_close(&ss);
        return 1;
    }
    if (run_list(ss.e, &ss.env, out, &njobs, &ss.err) < 0)
        rc = fail(&ss.err);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "hetsim: %s: write failed\n", ss.a.out);
        rc = 1;
    }
    session_close(&ss);
    return rc;
}

/* One more --where: -1 (go on parsing), or exit code 1 when out of memory. */
static int where_opt(char **where, const char *expr)
{
    if (report_where_add(where, expr) == 0)
        return -1;
    fputs("hetsim: out of memory\n", stderr);
    return 1;
}

static const char report_help[] =
    "usage: hetsim report [--db FILE] [--format table|csv|markdown] [--baseline POLICY]\n"
    "                     [--group] [--experiment NAME] [--sweep NAME] [--where EXPR]\n"
    "                     [--columns NAME[,NAME...] | --all]\n"
    "       hetsim report --html OUT.html [--sweep NAME | --experiment NAME] [--db FILE]\n"
    "                     [--baseline POLICY]\n"
    "Compare runs from the metrics database: one row per run with a handful of its domain's\n"
    "metrics, and in the last column (overrides, when some row has one) the settings in which\n"
    "its experiment differs from the other rows', as --set takes them (policy and seed\n"
    "aside).  A table's header gives each metric's name, then its unit (s, fraction, ratio,\n"
    "jobs, requests, pods, containers, tokens/s ...); the ratios to a baseline follow in a\n"
    "table of their own, so that each fits 100 columns.  Markdown headers say \"name (unit)\".\n\n"
    "  -d, --db FILE          the database (default " DEFAULT_DB ")\n"
    "  -f, --format FMT       table (aligned, the default), csv (RFC 4180 quoting, full\n"
    "                         precision, bare metric names, empty for a missing value) or\n"
    "                         markdown\n"
    "  -c, --columns LIST     the metrics to show, comma-separated (may be repeated), each\n"
    "                         one some run in the database has (default: the runs'\n"
    "                         domain's own: training jobs_done, jct_mean, jct_p99, makespan,\n"
    "                         ftf_mean; serving ttft_p50, ttft_p99, tpot_p99, tokens_per_s,\n"
    "                         slo_attainment; microservices containers_mean,\n"
    "                         sla_violation_prob, e2e_p95, e2e_p99; placement gpu_alloc_frac,\n"
    "                         milli_alloc_frac, frag_frac, gpus_unallocated); a run without\n"
    "                         one shows it empty\n"
    "  -a, --all              the default columns, then every other metric the runs have\n"
    "  -b, --baseline POLICY  add each metric's ratio to the baseline run: the latest run of\n"
    "                         POLICY with the same experiment, seed and config apart from the\n"
    "                         policy (below 1 is better, except where higher is better:\n"
    "                         throughput, utilization, jain_index, jobs_done)\n"
    "  -g, --group            one row per group of runs that differ only in their seed (equal\n"
    "                         runs.group_hash): n, the number of seeds, and per metric the mean\n"
    "                         over the seeds \u00b1 the half-width of its 95% confidence interval\n"
    "                         (Student t, n-1 degrees of freedom; CSV: columns METRIC and\n"
    "                         METRIC_ci95).  A seed run twice counts once, with its latest run.\n"
    "                         Ratios are paired: each seed's run / its baseline run, then mean\n"
    "                         \u00b1 half-width over the n_paired seeds that have a baseline run\n"
    "  -e, --experiment NAME  only runs of this experiment\n"
    "  -s, --sweep NAME       only runs of this sweep, with its swept fields as columns\n"
    "  -w, --where EXPR       only runs for which the SQL expression EXPR holds.  It may name\n"
    "                         the columns of runs (id, experiment, policy, seed, cluster, ...)\n"
    "                         and call param('KEY') (a swept field, or any config field by its\n"
    "                         --set path) and metric('NAME'); given twice, both must hold:\n"
    "                           --where \"policy IN ('fifo','fft') AND seed < 3\"\n"
    "                           --where \"param('workload.arrival_scale') >= 1\"\n"
    "  -H, --html OUT.html    write one self-contained page instead (no network, no\n"
    "                         script): the run table, the ratio table against the baseline\n"
    "                         (default fifo when the runs have it, else the first run's\n"
    "                         policy; paired by seed and grouped when runs differ only in\n"
    "                         their seed), every figure of hetsim plot as inline SVG, the\n"
    "                         settings that differ between the runs, each run's config and\n"
    "                         group hashes and hetsim version; with --sweep or --experiment\n"
    "                         only those runs\n"
    "  -h, --help             this help\n"
    "Grouping is not the default, so that a report's columns do not depend on the data; the\n"
    "table says when runs differ only in their seed.\n";

static char *plain_config(const char *name);

static int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },       { "format", required_argument, NULL, 'f' },
        { "baseline", required_argument, NULL, 'b' }, { "experiment", required_argument, NULL, 'e' },
        { "sweep", required_argument, NULL, 's' },    { "where", required_argument, NULL, 'w' },
        { "group", no_argument, NULL, 'g' },          { "columns", required_argument, NULL, 'c' },
        { "all", no_argument, NULL, 'a' },            { "html", required_argument, NULL, 'H' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *html = NULL;
    int table_opts = 0;         /* options of the table that --html does not take */
    struct report_opts o = { .format = REPORT_TABLE, .display_of = display_of };
    struct report_query q = { .group = 0 };
    const char *dbp = DEFAULT_DB;
    char *where = NULL;
    /* at most argc --columns values */
    const char **columns = calloc((size_t)argc + 1, sizeof *columns);
    if (columns == NULL)
        return 1;
    q.columns = columns;
    int c, rc = -1;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, "d:f:b:e:s:w:gc:aH:h", opts, NULL)) != -1) {
        table_opts += c == 'g' || c == 'c' || c == 'w' || c == 'f' || c == 'a';
        switch (c) {
        case 'd': dbp = optarg; break;
        case 'b': o.baseline = optarg; break;
        case 'e': o.experiment = optarg; break;
        case 's': q.sweep = optarg; break;
        case 'g': q.group = 1; break;
        case 'c': columns[q.ncolumns++] = optarg; break;
        case 'a': q.all = 1; break;
        case 'w': rc = where_opt(&where, optarg); break;
        case 'H': html = optarg; break;
        case 'f':
            if (strcmp(optarg, "table") == 0)
                o.format = REPORT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                o.format = REPORT_CSV;
            else if (strcmp(optarg, "markdown") == 0)
                o.format = REPORT_MARKDOWN;
            else
                rc = usage_error("--format must be table, csv or markdown, not '%s'", optarg);
            break;
        case 'h': fputs(report_help, stdout); rc = 0; break;
        default: rc = usage_error("unknown or incomplete option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0 && optind != argc)
        rc = usage_error("unexpected argument '%s'", argv[optind]);
    if (rc < 0 && q.all && q.ncolumns > 0)
        rc = usage_error("%s", "--all or --columns, not both (--all: the default columns, then "
                               "every other metric)");
    if (rc < 0 && html != NULL && table_opts > 0)
        rc = usage_error("%s", "--html takes --sweep or --experiment, --baseline and --db (the "
                               "page has its own tables: no --format, --group, --where, "
                               "--columns or --all)");
    if (rc < 0 && html != NULL && q.sweep != NULL && o.experiment != NULL)
        rc = usage_error("%s", "--html takes --sweep or --experiment, not both");
    if (rc < 0 && access(dbp, R_OK) != 0) {
        fprintf(stderr, "hetsim: %s: no such database (run an experiment first: hetsim run "
                "default)\n", dbp);
        rc = 2;
    }
    if (rc < 0 && html != NULL) {
        struct errbuf err;
        err_clear(&err);
        struct html_opts ho = { .db_path = dbp, .out_path = html, .experiment = o.experiment,
                                .sweep = q.sweep, .baseline = o.baseline,
                                .display_of = display_of, .plain_config = plain_config };
        struct html_stats st;
        if (html_report(&ho, &st, &err) < 0) {
            rc = fail(&err);
        } else {
            printf("wrote %s: %d runs, %d figures\n", html, st.runs, st.figures);
            rc = 0;
        }
    }
    if (rc < 0) {
        struct errbuf err;
        err_clear(&err);
        q.where = where;
        rc = report_print_query(dbp, &o, &q, stdout, &err) < 0 ? fail(&err) : 0;
    }
    free(where);
    free(columns);
    return rc;
}

static const char export_help[] =
    "usage: hetsim export --table NAME [--db FILE] [--format csv|tsv] [--where EXPR]\n"
    "                     [--experiment NAME] [--sweep NAME] [--out FILE] [--wide]\n"
    "Write one table of the metrics database as CSV, for pandas, R or a spreadsheet: a header\n"
    "row, reals at full precision (%.17g), NULL as an empty field, RFC 4180 quoting.  Rows\n"
    "are streamed, so tables of millions of jobs take no memory.\n\n"
    "  -t, --table NAME       runs, jobs, job_gpu_seconds, requests, samples, metrics,\n"
    "                         run_params or timeline\n"
    "  -d, --db FILE          the database (default " DEFAULT_DB ")\n"
    "  -f, --format FMT       csv (the default) or tsv (tab-separated, the same quoting);\n"
    "      --csv, --tsv       the same\n"
    "  -w, --where EXPR       only the rows of the runs for which EXPR holds, as in hetsim\n"
    "                         report --where (the filter applies to runs; other tables follow)\n"
    "  -e, --experiment NAME  only the rows of this experiment's runs\n"
    "  -s, --sweep NAME       only the rows of this sweep's runs\n"
    "  -o, --out FILE         write FILE instead of standard output\n"
    "  -W, --wide             with --table metrics: one row per run (run_id, experiment,\n"
    "                         policy, seed, cluster, group_hash) and one column per metric,\n"
    "                         empty where a run lacks it\n"
    "  -h, --help             this help\n"
    "run_params values are written as programs want them: fifo, not \"fifo\".\n"
    "e.g.  hetsim export --table jobs --csv --where \"policy = 'fft'\" > jobs.csv\n"
    "      hetsim export --table metrics --wide --sweep load > metrics.csv\n"
    "      pandas: pd.read_csv(\"jobs.csv\")    R: read.csv(\"jobs.csv\")\n";

static int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },    { "table", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' }, { "csv", no_argument, NULL, 'C' },
        { "tsv", no_argument, NULL, 'T' },          { "where", required_argument, NULL, 'w' },
        { "experiment", required_argument, NULL, 'e' },
        { "sweep", required_argument, NULL, 's' },  { "out", required_argument, NULL, 'o' },
        { "wide", no_argument, NULL, 'W' },         { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct export_opts o = { .format = EXPORT_CSV };
    const char *dbp = DEFAULT_DB;
    char *where = NULL;
    int c, rc = -1;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, "d:t:f:w:e:s:o:Wh", opts, NULL)) != -1) {
        switch (c) {
        case 'd': dbp = optarg; break;
        case 't': o.table = optarg; break;
        case 'W': o.wide = 1; break;
        case 'C': o.format = EXPORT_CSV; break;
        case 'T': o.format = EXPORT_TSV; break;
        case 'e': o.experiment = optarg; break;
        case 's': o.sweep = optarg; break;
        case 'o': o.out_path = strcmp(optarg, "-") == 0 ? NULL : optarg; break;
        case 'w': rc = where_opt(&where, optarg); break;
        case 'f':
            if (strcmp(optarg, "csv") == 0)
                o.format = EXPORT_CSV;
            else if (strcmp(optarg, "tsv") == 0)
                o.format = EXPORT_TSV;
            else
                rc = usage_error("--format must be csv or tsv, not '%s'", optarg);
            break;
        case 'h': fputs(export_help, stdout); rc = 0; break;
        default: rc = usage_error("unknown or incomplete option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0 && optind != argc)
        rc = usage_error("unexpected argument '%s'", argv[optind]);
    if (rc < 0 && o.table == NULL)
        rc = usage_error("%s", "missing --table NAME (runs, jobs, job_gpu_seconds, requests, "
                               "samples, metrics, run_params or timeline)");
    if (rc < 0 && o.wide && strcmp(o.table, "metrics") != 0)
        rc = usage_error("--wide is for --table metrics (one column per metric), not --table "
                         "%s", o.table);
    if (rc < 0) {
        struct errbuf err;
        err_clear(&err);
        o.where = where;
        rc = export_table(dbp, &o, stdout, NULL, &err) < 0 ? fail(&err) : 0;
    }
    free(where);
    return rc;
}

static const char plot_help[] =
    "usage: hetsim plot [--db FILE] [--out DIR] [--format png|svg|pdf] [--baseline POLICY]\n"
    "                   [--metric NAME[,NAME...]]... [--experiment NAME]... [--sweep NAME]...\n"
    "                   [--log x|y]...\n"
    "Draw figures with gnuplot: images in DIR (default results/out), beside each its caption\n"
    "(FIGURE.txt: what it shows, its runs, the settings that differ, its data files), and the\n"
    "numbers behind them in DIR/data.\n"
    "Per experiment and setting (runs whose configs differ only in policy and seed; the\n"
    "experiment as run without overrides keeps the plain file names, other settings add 8\n"
    "hex digits, which their titles show): CDFs of the domain's per-job or per-request\n"
    "figures (JCT, finish-time fairness; TTFT, TPOT, end-to-end latency), GPU utilization\n"
    "over time by GPU type and queue length (one seed, the latest run of each policy), and\n"
    "bars of each policy's metrics as a ratio to the baseline's run with the same seed\n"
    "(--baseline; default fifo when the setting ran it, else its first policy), averaged over\n"
    "distinct seeds with 95% CIs, on a log axis from 1 when the ratios span 20 times.\n"
    "Per sweep: each --metric (default jct_mean, ftf_mean, makespan) against each swept axis\n"
    "other than seed, one line per policy and combination of the other axes, mean over seeds\n"
    "with 95% CIs, clipped at the metric's natural bounds (>= 0; <= 1 for fractions).\n"
    "Metrics read by their display names and units; times in ms below a second, in hours or\n"
    "days where seconds would run to tens of thousands; an axis whose smaller values mean\n"
    "more load (workload.arrival_scale) runs from its largest value, so that load grows to\n"
    "the right; an axis is logarithmic where its values span decades.  A file name has one\n"
    "dot: the dots of a name become '-' (load_jct_mean_vs_workload-arrival_scale.png).\n"
    "\n"
    "  -d, --db FILE          the database (default " DEFAULT_DB ")\n"
    "  -o, --out DIR          where images go (default results/out), their data in DIR/data\n"
    "  -f, --format FMT       png (the default), svg or pdf (vector, gnuplot's pdfcairo)\n"
    "  -b, --baseline POLICY  the policy the bars are ratios to\n"
    "  -m, --metric NAMES     the metrics of the sweeps' figures and of the bars instead of\n"
    "                         the defaults, comma-separated or repeated\n"
    "  -e, --experiment NAME  draw this experiment's figures (may be repeated)\n"
    "  -s, --sweep NAME       draw this sweep's figures (may be repeated)\n"
    "  -l, --log AXIS         x or y: that axis of the sweeps' figures logarithmic even\n"
    "                         where its values do not span decades (positive values only;\n"
    "                         may be repeated)\n"
    "  -h, --help             this help\n"
    "Without --experiment or --sweep, everything is drawn.\n";

/* The config of `name`'s runs made without --set: the shipped experiment of that name, as
 * `hetsim run NAME` writes it (plot gives its setting the plain file names); NULL when no
 * experiment of that name loads. */
static char *plain_config(const char *name)
{
    struct experiment *e;
    struct errbuf err;
    err_clear(&err);
    char *config = NULL;
    if (experiment_load(&e, name, NULL, 0, &err) == 0 && strcmp(e->name, name) == 0 &&
        e->npolicies > 0)
        config = experiment_config_json(e, 0);
    experiment_free(e);
    return config;
}

static int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },
        { "out", required_argument, NULL, 'o' },
        { "format", required_argument, NULL, 'f' },
        { "baseline", required_argument, NULL, 'b' },
        { "metric", required_argument, NULL, 'm' },
        { "experiment", required_argument, NULL, 'e' },
        { "sweep", required_argument, NULL, 's' },
        { "log", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct plot_opts o = { .db_path = DEFAULT_DB, .out_dir = "results/out", .format = "png",
                           .plain_config = plain_config, .display_of = display_of };
    /* each list holds at most argc values */
    const char **lists = calloc(3 * (size_t)argc + 3, sizeof *lists);
    if (lists == NULL)
        return 1;
    const char **mets = lists, **exps = lists + argc + 1, **sweeps = lists + 2 * argc + 2;
    o.metrics = mets;
    o.experiments = exps;
    o.sweeps = sweeps;
    int c, rc = -1;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, "d:o:f:b:m:e:s:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (strcmp(optarg, "x") == 0)
                o.log |= PLOT_LOG_X;
            else if (strcmp(optarg, "y") == 0)
                o.log |= PLOT_LOG_Y;
            else
                rc = usage_error("--log must be x or y, not '%s'", optarg);
            break;
        case 'd': o.db_path = optarg; break;
        case 'o': o.out_dir = optarg; break;
        case 'f': o.format = optarg; break;
        case 'b': o.baseline = optarg; break;
        case 'm': mets[o.nmetrics++] = optarg; break;
        case 'e': exps[o.nexperiments++] = optarg; break;
        case 's': sweeps[o.nsweeps++] = optarg; break;
        case 'h': fputs(plot_help, stdout); rc = 0; break;
        default: rc = usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (rc < 0 && optind != argc)
        rc = usage_error("unexpected argument '%s'", argv[optind]);
    if (rc < 0 && access(o.db_path, R_OK) != 0) {
        fprintf(stderr, "hetsim: %s: no such database (run an experiment first: hetsim run "
                "default)\n", o.db_path);
        rc = 2;
    }
    if (rc < 0) {
        struct errbuf err;
        err_clear(&err);
        int n;
        if (plot_all(&o, &n, &err) < 0) {
            rc = fail(&err);
        } else {
            printf("wrote %d figure%s under %s/\n", n, n == 1 ? "" : "s", o.out_dir);
            rc = 0;
        }
    }
    free(lists);
    return rc;
}

static const char trace_help[] =
    "usage: hetsim trace [--db FILE] [--run N] [--out FILE]\n"
    "Write one run's timeline (the timeline table, kept when the experiment sets\n"
    "\"sim\": {\"timeline\": true}, which hetsim run sets as sim.timeline=true) as a\n"
    "Chrome trace-event JSON file, which Perfetto UI (ui.perfetto.dev: Open trace file) and\n"
    "chrome://tracing open, for a run of any domain: a track per resource (a GPU, a\n"
    "serving instance, a service's container) grouped by node and type, a slice per\n"
    "interval named by the entity (job, pod, request, service) and the decision that began\n"
    "it, counter tracks of entities waiting, of the shares held and of the sampled\n"
    "utilization per type, and instant events for arrivals and completions.  One second of\n"
    "trace time is one simulated second.\n\n"
    "  -d, --db FILE    the database (default " DEFAULT_DB ")\n"
    "  -r, --run N      the run (runs.id; default: the latest run with timeline rows)\n"
    "  -o, --out FILE   write FILE (default results/out/runN.trace.json; - for standard\n"
    "                   output)\n"
    "  -h, --help       this help\n"
    "e.g.  hetsim trace --run 1 --out fifo.json   (after a run with timeline rows)\n";

static int cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' },  { "run", required_argument, NULL, 'r' },
        { "out", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct trace_opts o = { .db_path = DEFAULT_DB, .display_of = display_of };
    int c, rc = -1, to_stdout = 0;
    opterr = 0;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, "d:r:o:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'd': o.db_path = optarg; break;
        case 'o':
            to_stdout = strcmp(optarg, "-") == 0;
            o.out_path = to_stdout ? NULL : optarg;
            break;
        case 'r':
            errno = 0;
            o.run = strtoll(optarg, &end, 10);
            if (end == optarg || *end != '\0' || errno == ERANGE || o.run < 1)
                rc = usage_error("--run needs a run id (an integer >= 1), not '%s'", optarg);
            break;
        case 'h': fputs(trace_help, stdout); rc = 0; break;
        default: rc = usage_error("unknown or incomplete option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0 && optind != argc)
        rc = usage_error("unexpected argument '%s'", argv[optind]);
    if (rc < 0) {
        struct errbuf err;
        err_clear(&err);
        struct trace_stats st;
        if (trace_export(&o, to_stdout ? stdout : NULL, &st, &err) < 0) {
            rc = fail(&err);
        } else {
            if (!to_stdout)
                fprintf(stderr, "wrote %s: run %lld, %lld slices on %lld tracks, %lld counter "
                        "points, %lld instants (open it in ui.perfetto.dev)\n", st.path,
                        (long long)st.run, (long long)st.slices, (long long)st.tracks,
                        (long long)st.counters, (long long)st.instants);
            rc = 0;
        }
    }
    return rc;
}

/* ---- hetsim list ---- */

enum { LIST_COLS = 100 };       /* a listing's lines fit in this many columns */

/* Columns of n bytes of UTF-8 text: one per code point (hetsim ships no wide characters). */
static size_t text_cols(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* The first sentence of `text` (up to the first '.' before a space or the end), whitespace
 * runs made one space, cut after a word to at most `cols` columns with "..." marking the cut.
 * cols must be at least 4. */
static void first_sentence(char *out, size_t cap, const char *text, size_t cols)
{
    size_t n = 0;
    for (const char *p = text; *p != '\0' && n + 1 < cap; p++) {
        if (isspace((unsigned char)*p)) {
            if (n > 0 && out[n - 1] != ' ')
                out[n++] = ' ';
            continue;
        }
        out[n++] = *p;
        if (*p == '.' && (p[1] == '\0' || isspace((unsigned char)p[1])))
            break;
    }
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
    if (text_cols(out, n) <= cols)
        return;
    /* the longest prefix with room for "...": up to a space if there is one, else up to a
     * character */
    size_t cut = 0, at_char = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)out[i] & 0xC0) == 0x80)
            continue;
        if (c + 3 > cols)
            break;
        at_char = i;
        if (out[i] == ' ')
            cut = i;
        c++;
    }
    if (cut == 0)
        cut = at_char;
    while (cut > 0 && strchr(" ,;:(", out[cut - 1]) != NULL)
        cut--;
    memcpy(out + cut, "...", 4);
}

struct item {
    char *name, *text;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct item *)a)->name, ((const struct item *)b)->name);
}

static void items_free(struct item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(it[i].name);
        free(it[i].text);
    }
    free(it);
}

/* The shipped files of workloads/<kind>, sorted by name into *out (*n of them): for "traces"
 * every file and folder, otherwise the .json files without their extension.  dir gets the
 * folder.  Returns 0, or the exit status after a message. */
static int shipped(const char *kind, char *dir, size_t cap, struct item **out, size_t *n)
{
    snprintf(dir, cap, "%s/workloads/%s", path_data_root(), kind);
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "hetsim: %s: cannot read the directory\n", dir);
        return 1;
    }
    int json_only = strcmp(kind, "traces") != 0;
    size_t room = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.')
            continue;
        if (json_only && (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0))
            continue;
        if (*n == room) {
            struct item *g = realloc(*out, (room = room ? 2 * room : 16) * sizeof *g);
            if (g == NULL)
                break;
            *out = g;
        }
        struct item *it = &(*out)[*n];
        it->name = strndup(de->d_name, json_only ? len - 5 : len);
        it->text = NULL;
        if (it->name == NULL)
            break;
        (*n)++;
    }
    int complete = de == NULL;
    closedir(d);
    if (!complete) {
        items_free(*out, *n);
        fputs("hetsim: out of memory\n", stderr);
        return 1;
    }
    if (*n > 0)
        qsort(*out, *n, sizeof **out, by_name);
    return 0;
}

static int open_catalog(catalog **cat, struct errbuf *err)
{
    char gp[PATH_MAX_LEN], lp[PATH_MAX_LEN];
    path_resolve(gp, sizeof gp, NULL, experiment_default_gpus);
    path_resolve(lp, sizeof lp, NULL, experiment_default_links);
    return catalog_load(cat, gp, lp, err);
}

/* A JSON file's top-level string `key` (an experiment's or a sweep's "description", a
 * cluster's "note"; NULL if it has none) into *out (caller frees). */
static int file_text(const char *path, const char *key, char **out, struct errbuf *err)
{
    jsonf *doc;
    struct jobj root;
    const char *desc = NULL;
    *out = NULL;
    if (jsonf_load(&doc, path, err) < 0)
        return -1;
    int rc = jobj_root(&root, doc, err) < 0 ||
             jobj_str(&root, key, JOPT, &desc, err) < 0 ? -1 : 0;
    if (rc == 0 && desc != NULL && (*out = strdup(desc)) == NULL)
        rc = err_run(err, "out of memory");
    jsonf_destroy(doc);
    return rc;
}

/* "48 GPUs: 16 A100-40GB, 16 V100-16GB, 16 T4": GPUs by type in the order of the groups; for
 * a placeholder, which no run simulates, its note instead. */
static int cluster_summary(const catalog *cat, const char *path, char **out, struct errbuf *err)
{
    cluster *cl;
    if (cluster_load(&cl, cat, path, err) < 0)
        return -1;
    if (cluster_placeholder(cl)) {
        cluster_destroy(cl);
        char *note = NULL;
        if (file_text(path, "note", &note, err) < 0)
            return -1;
        size_t n = strlen("placeholder, not simulated: ") + (note ? strlen(note) : 0) + 1;
        if ((*out = malloc(n)) == NULL) {
            free(note);
            return err_run(err, "out of memory");
        }
        snprintf(*out, n, "placeholder, not simulated%s%s", note ? ": " : "", note ? note : "");
        free(note);
        return 0;
    }
    int types[CLUSTER_MAX_TYPES], counts[CLUSTER_MAX_TYPES], nt = 0;
    for (int i = 0; i < cluster_nnodes(cl); i++) {
        const struct cluster_node *nd = cluster_node(cl, i);
        int t = 0;
        while (t < nt && types[t] != nd->gpu)
            t++;
        if (t == nt) {
            types[nt] = nd->gpu;
            counts[nt++] = 0;
        }
        counts[t] += nd->ngpus;
    }
    char text[1024];
    size_t m = 0;
    if (nt > 0 || cluster_ncpu_groups(cl) == 0)
        m = (size_t)snprintf(text, sizeof text, "%d GPUs:", cluster_ngpus(cl));
    for (int t = 0; t < nt && m < sizeof text; t++)
        m += (size_t)snprintf(text + m, sizeof text - m, "%s %d %s", t ? "," : "", counts[t],
                              catalog_gpu(cat, types[t])->name);
    /* CPU node groups (the microservice world's): "10 CPU nodes of 52 cores, 128 GB" */
    for (int i = 0; i < cluster_ncpu_groups(cl) && m < sizeof text; i++) {
        const struct cluster_cpu_group *g = cluster_cpu_group(cl, i);
        m += (size_t)snprintf(text + m, sizeof text - m, "%s%d CPU nodes of %g cores, %g GB",
                              m ? "; " : "", g->count, g->cpus, g->memory_gb);
    }
    cluster_destroy(cl);
    if ((*out = strdup(text)) == NULL)
        return err_run(err, "out of memory");
    return 0;
}

/* Shipped experiments, sweeps, clusters or traces: one line each, the name and (but for
 * traces) what it is, cut to fit.  Everything is read before anything is printed, so a bad
 * file prints its error and nothing else. */
static int list_shipped(const char *kind)
{
    char dir[PATH_MAX_LEN];
    struct item *it;
    size_t n;
    int rc = shipped(kind, dir, sizeof dir, &it, &n);
    if (rc != 0)
        return rc;
    size_t width = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(it[i].name) > width)
            width = strlen(it[i].name);
    width += 2;
    struct errbuf err;
    err_clear(&err);
    catalog *cat = NULL;
    int clusters = strcmp(kind, "clusters") == 0, traces = strcmp(kind, "traces") == 0;
    if (clusters && open_catalog(&cat, &err) < 0)
        rc = -1;
    for (size_t i = 0; rc == 0 && !traces && i < n; i++) {
        char path[PATH_MAX_LEN + 300], *whole = NULL;
        snprintf(path, sizeof path, "%s/%s.json", dir, it[i].name);
        rc = clusters ? cluster_summary(cat, path, &whole, &err)
                      : file_text(path, "description", &whole, &err);
        if (rc == 0 && whole != NULL) {
            char line[LIST_COLS * 4 + 1];
            size_t cols = LIST_COLS > width + 20 ? LIST_COLS - width : 20;
            first_sentence(line, sizeof line, whole, cols);
            if ((it[i].text = strdup(line)) == NULL)
                rc = err_run(&err, "out of memory");
        }
        free(whole);
    }
    catalog_destroy(cat);
    if (rc == 0)
        for (size_t i = 0; i < n; i++) {
            if (it[i].text != NULL && it[i].text[0] != '\0')
                printf("%-*s%s\n", (int)width, it[i].name, it[i].text);
            else
                printf("%s\n", it[i].name);
        }
    items_free(it, n);
    return rc == 0 ? 0 : fail(&err);
}

static int list_policies(const char *what)
{
    (void)what;
    for (int i = 0; policy_registry[i] != NULL; i++)
        printf("%-16s %-10s %s\n", policy_registry[i]->name, policy_registry[i]->domain,
               policy_registry[i]->summary);
    return 0;
}

static int list_formats(const char *what)
{
    (void)what;
    int width = 10;     /* the name column: as wide as the longest name */
    for (int i = 0; workload_registry[i] != NULL; i++)
        if ((int)strlen(workload_registry[i]->name) > width)
            width = (int)strlen(workload_registry[i]->name);
    for (int i = 0; workload_registry[i] != NULL; i++)
        printf("%-*s %-10s %s\n", width, workload_registry[i]->name,
               workload_registry[i]->domain, workload_registry[i]->summary);
    return 0;
}

/* Each domain: its world, the policies for it and the workload formats of its entities (a
 * domain of tenants: the tenants'). */
static int list_domains(const char *what)
{
    (void)what;
    for (int i = 0; world_registry[i] != NULL; i++) {
        const struct world_ops *w = world_registry[i];
        printf("%s: %s\n  policies:", w->domain, w->summary);
        for (int p = 0; policy_registry[p] != NULL; p++)
            if (strcmp(policy_registry[p]->domain, w->domain) == 0)
                printf(" %s", policy_registry[p]->name);
        if (w->tenants != NULL) {       /* its workloads are its tenants' */
            printf("\n  tenants:");
            for (int t = 0; w->tenants[t] != NULL; t++)
                printf(" %s", w->tenants[t]);
            printf("\n");
            continue;
        }
        printf("\n  formats:");
        for (int f = 0; workload_registry[f] != NULL; f++)
            if (strcmp(workload_registry[f]->domain, w->domain) == 0)
                printf(" %s", workload_registry[f]->name);
        printf("\n");
    }
    return 0;
}

static int list_gpus(const catalog *cat)
{
    printf("%-10s %7s %9s %9s %9s %9s  %-14s %s\n", "gpu", "mem_GB", "fp32_TF", "fp16_TF",
           "mem_GB/s", "USD/h", "links", "aliases");
    for (int i = 0; i < catalog_ngpus(cat); i++) {
        const struct gpu_spec *g = catalog_gpu(cat, i);
        char links[2 * CATALOG_NAME_MAX + 2], aliases[CATALOG_MAX_ALIASES * (CATALOG_NAME_MAX + 2)];
        snprintf(links, sizeof links, "%s%s%s", g->nvlink >= 0 ? catalog_link(cat, g->nvlink)->name : "",
                 g->nvlink >= 0 ? " " : "", catalog_link(cat, g->pcie)->name);
        size_t m = 0;
        aliases[0] = '\0';
        for (int a = 0; a < g->naliases; a++)
            m += (size_t)snprintf(aliases + m, sizeof aliases - m, "%s%s", a ? ", " : "",
                                  g->aliases[a]);
        printf("%-10s %7.0f %9.2f %9.1f %9.0f %9.3f  %-14s %s\n", g->name, g->mem_gb,
               g->fp32_tflops, g->fp16_tflops, g->mem_bw_gbs, g->price_hr, links,
               g->naliases > 0 ? aliases : "-");
    }
    return 0;
}

static int list_links(const catalog *cat)
{
    printf("%-14s %-6s %9s %8s\n", "link", "scope", "GB/s", "lat_us");
    for (int i = 0; i < catalog_nlinks(cat); i++) {
        const struct link_spec *l = catalog_link(cat, i);
        printf("%-14s %-6s %9.3f %8.1f\n", l->name, l->scope == LINK_INTRA ? "intra" : "inter",
               l->bw_gbs, l->lat_us);
    }
    return 0;
}

static int list_models(const catalog *cat, struct errbuf *err)
{
    char jp[PATH_MAX_LEN], pp[PATH_MAX_LEN];
    path_resolve(jp, sizeof jp, NULL, experiment_default_jobtypes);
    tput *t = NULL;
    int rc = tput_create(&t, cat, err) < 0 || tput_load_types(t, jp, err) < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && experiment_default_profiles[i] != NULL; i++) {
        path_resolve(pp, sizeof pp, NULL, experiment_default_profiles[i]);
        rc = tput_load_profile(t, pp, err) < 0 ? -1 : 0;
    }
    if (rc == 0) {
        printf("%-36s %6s %7s %9s  %s\n", "job type", "batch", "scaling", "params_M",
               "measured or fitted on");
        for (int j = 0; j < tput_ntypes(t); j++) {
            const struct jobtype *jt = tput_type(t, j);
            char on[256] = "";
            for (int g = 0; g < catalog_ngpus(cat); g++)
                if (tput_profiled(t, j, g, 1, 0) >= 0) {
                    size_t n = strlen(on);
                    snprintf(on + n, sizeof on - n, "%s%s", n ? " " : "", catalog_gpu(cat, g)->name);
                }
            printf("%-36s %6d %7s %9.1f  %s\n", jt->name, jt->batch,
                   jt->scaling == JT_WEAK ? "weak" : "strong", jt->params_m,
                   on[0] ? on : "(analytical model only)");
        }
    }
    tput_destroy(t);
    return rc;
}

/* The LLM architectures of the serving world (models/data/llms.json). */
static int list_llms(const catalog *cat, struct errbuf *err)
{
    char ap[PATH_MAX_LEN], fp[PATH_MAX_LEN];
    path_resolve(ap, sizeof ap, NULL, llm_default_models);
    path_resolve(fp, sizeof fp, NULL, llm_default_fit);
    llm_catalog *lc;
    if (llm_load(&lc, cat, ap, fp, err) < 0)
        return -1;
    printf("%-14s %6s %6s %5s %8s %12s %7s %8s %8s %10s\n", "llm", "layers", "hidden", "heads",
           "kv_heads", "intermediate", "vocab", "context", "params_B", "weights_GB");
    for (int i = 0; i < llm_narch(lc); i++) {
        const struct llm_arch *a = llm_arch_at(lc, i);
        printf("%-14s %6d %6d %5d %8d %12d %7d %8d %8.3f %10.1f\n", a->name, a->layers,
               a->hidden, a->heads, a->kv_heads, a->intermediate, a->vocab, a->max_context,
               a->params_b, llm_weight_bytes(a, a->layers, 1, 1, 1) / 1e9);
    }
    llm_destroy(lc);
    return 0;
}

/* The GPU catalog, its links, the job types with their throughput sources, or the LLMs. */
static int list_catalog(const char *what)
{
    struct errbuf err;
    err_clear(&err);
    catalog *cat;
    if (open_catalog(&cat, &err) < 0)
        return fail(&err);
    int rc = strcmp(what, "gpus") == 0    ? list_gpus(cat)
             : strcmp(what, "links") == 0 ? list_links(cat)
             : strcmp(what, "llms") == 0  ? list_llms(cat, &err)
                                          : list_models(cat, &err);
    catalog_destroy(cat);
    return rc == 0 ? 0 : fail(&err);
}

/* What `hetsim list` knows, in the order its help names them. */
static const struct listing {
    const char *what;
    int       (*fn)(const char *what);
} listings[] = {
    { "domains", list_domains },
    { "policies", list_policies },   { "gpus", list_catalog },      { "links", list_catalog },
    { "models", list_catalog },      { "llms", list_catalog },
    { "formats", list_formats },     { "experiments", list_shipped },
    { "sweeps", list_shipped },      { "clusters", list_shipped },  { "traces", list_shipped },
    { NULL, NULL },
};

static const char list_help[] =
    "usage: hetsim list domains|policies|gpus|links|models|llms|formats|experiments|sweeps|\n"
    "                   clusters|traces\n"
    "List what hetsim knows, one line each:\n"
    "  domains      each domain (world) with its policies and workload formats\n"
    "  policies     name, domain and summary of every scheduling policy\n"
    "  gpus         the GPU catalog: memory, FLOP/s, bandwidth, price, links and aliases\n"
    "  links        the links of the catalog: scope, bandwidth, latency\n"
    "  models       job types: batch, scaling, parameters, GPUs their throughput is measured on\n"
    "  llms         LLM architectures of the serving world: shape, parameters, fp16 weights\n"
    "  formats      workload formats: name, domain and summary\n"
    "  experiments  shipped experiments, with the first sentence of their description\n"
    "  sweeps       shipped sweeps, with the first sentence of their description\n"
    "  clusters     shipped clusters, with their GPUs by type\n"
    "  traces       shipped traces (files and folders of workloads/traces)\n";

static int cmd_list(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(list_help, stdout);
        return 0;
    }
    char kinds[256] = "";
    for (const struct listing *l = listings; l->what != NULL; l++) {
        if (argc == 2 && strcmp(argv[1], l->what) == 0)
            return l->fn(l->what);
        size_t n = strlen(kinds);
        snprintf(kinds + n, sizeof kinds - n, " %s", l->what);
    }
    if (argc != 2)
        return usage_error("expected one of:%s", kinds);
    const char *names[sizeof listings / sizeof *listings];
    for (size_t i = 0; i < sizeof listings / sizeof *listings; i++)
        names[i] = listings[i].what;
    const char *near = jsonf_suggest(argv[1], names);
    char what[300];
    snprintf(what, sizeof what, "cannot list '%s'%s%s%s; one of:%s", argv[1],
             near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "", kinds);
    return usage_error("%s", what);
}

static const char convert_help[] =
    "usage: hetsim convert gavel-throughputs IN.json OUT.csv\n"
    "Convert Gavel's simulation_throughputs.json into hetsim's profile CSV\n"
    "(job_type,gpu,workers,placement,iters_per_s).\n";

static int cmd_convert(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(convert_help, stdout);
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "gavel-throughputs") != 0)
        return usage_error("%s", "expected: gavel-throughputs IN.json OUT.csv");
    struct errbuf err;
    err_clear(&err);
    char gp[PATH_MAX_LEN], lp[PATH_MAX_LEN];
    path_resolve(gp, sizeof gp, NULL, experiment_default_gpus);
    path_resolve(lp, sizeof lp, NULL, experiment_default_links);
    catalog *cat = NULL;
    tput *t = NULL;
    int rc = 0;
    if (catalog_load(&cat, gp, lp, &err) < 0 || tput_create(&t, cat, &err) < 0 ||
        tput_load_gavel(t, argv[2], &err) < 0 || tput_write_profile(t, argv[3], &err) < 0)
        rc = fail(&err);
    tput_destroy(t);
    catalog_destroy(cat);
    return rc;
}

static const char version_help[] =
    "usage: hetsim version\n"
    "Print hetsim's version and its data root, where models/data/ and workloads/ are read\n"
    "(HETSIM_DATA when set, else the directory it was built or installed for).\n";

static int cmd_version(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(version_help, stdout);
        return 0;
    }
    printf("hetsim %s (data root %s)\n", HETSIM_VERSION, path_data_root());
    return 0;
}

static int cmd_help(int argc, char **argv);

static const struct cmd commands[] = {
    { "run", cmd_run, "EXPERIMENT [--policy NAME] [--seed N] [--db FILE] [--set KEY=VAL ...]",
      "run an experiment's policies into the metrics database" },
    { "sweep", cmd_sweep, "SWEEP.json [-j N] [--db FILE] [--shard I/N] [--list]",
      "run a grid of experiments on every core, resumably" },
    { "merge", cmd_merge, "OUT.db IN.db...", "join metrics databases (shards, MPI ranks)" },
    { "report", cmd_report, "[--db FILE] [--format table|csv|markdown] [--baseline POLICY] "
      "[--group] [--where EXPR] [--columns LIST] | --html OUT.html [--sweep NAME]",
      "compare runs from the database, or write an HTML page of them" },
    { "export", cmd_export, "--table NAME [--db FILE] [--format csv|tsv] [--where EXPR] "
      "[--out FILE] [--wide]", "write a table of the database as CSV (pandas, R)" },
    { "plot", cmd_plot, "[--db FILE] [--out DIR] [--format png|svg|pdf] [--baseline POLICY] "
      "[--metric NAME] [--experiment NAME] [--sweep NAME] [--log x|y]",
      "draw figures with gnuplot" },
    { "trace", cmd_trace, "[--db FILE] [--run N] [--out FILE]",
      "write a run's timeline as a Perfetto / Chrome trace" },
    { "list", cmd_list, "policies|gpus|links|models|llms|formats|experiments|sweeps|clusters|"
      "traces",
      "list what hetsim knows" },
    { "validate", cmd_validate, "EXPERIMENT [--policy NAME] [--seed N] [--set KEY=VAL ...]",
      "check an experiment without running it" },
    { "workload", cmd_workload, "EXPERIMENT [--seed N] [--set KEY=VAL ...] [--out FILE]",
      "write an experiment's jobs as a CSV trace" },
    { "model", cmd_model, "llm --model M --gpu G --tp N [--pp N] --batch B --prompt P "
      "[--context C] | fit ... | fit heet FILE", "models: LLM what-ifs, their fit, Heet's fit" },
    { "convert", cmd_convert, "gavel-throughputs IN.json OUT.csv", "convert throughput tables" },
    { "version", cmd_version, "", "print the version" },
    { "help", cmd_help, "", "this list" },
    { NULL, NULL, NULL, NULL },
};

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("hetsim %s: discrete-event simulator for scheduling on heterogeneous GPU clusters\n\n"
           "usage: hetsim COMMAND [options]\n"
           "       hetsim COMMAND --help     the command's usage and options\n"
           "       hetsim -h, --help         this list (as hetsim help)\n"
           "       hetsim --version          the version (as hetsim version)\n\n",
           HETSIM_VERSION);
    for (const struct cmd *c = commands; c->name != NULL; c++)
        printf("  %-9s %s\n", c->name, c->summary);
    printf("\nExit codes: 0 ok, 1 a run failed, 2 bad usage or input, 130 a sweep interrupted.\n");
    return 0;
}

/* glibc gives the top of the heap back to the kernel whenever more than 128 KiB of it is
 * free, and takes it again, page by zeroed page, at the next allocation that needs it.  GLPK
 * allocates and frees its simplex workspace on every glp_simplex call, and LP policies make
 * thousands of calls: gavel_ftf on pai_scale at 100,000 jobs spent 5.0 of its 17.2 CPU s in
 * the kernel (1.96 M minor page faults, 300 per decision, for a peak of 11.5 MB).  Keeping
 * up to 64 MiB of free heap (never more than the run's peak) takes that to 0.1 s; no result
 * depends on it. */
static void keep_heap(void)
{
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_heap();
    if (argc < 2) {
        cmd_help(0, NULL);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help(0, NULL);
    if (strcmp(name, "--version") == 0)
        return cmd_version(0, NULL);
    for (const struct cmd *c = commands; c->name != NULL; c++)
        if (strcmp(c->name, name) == 0) {
            cur = c;
            return c->fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "hetsim: unknown command '%s'\nTry 'hetsim help'.\n", name);
    return 2;
}
