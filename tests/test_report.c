/*
 * test_report: `hetsim report` and `hetsim export` end to end, on databases written through
 * the db API with known metric values — grouped means, 95% CI half-widths and n computed by
 * hand, a repeated seed counted once, paired baseline ratios matched on settings, --where /
 * --experiment / --sweep filtering, CSV quoting and Markdown, export round trips at full
 * precision, and bad input (a bad --where, an unknown table) exiting 2.  The overrides column
 * (report_config_diff on hand-made configs, and on real runs made with --set), units in the
 * headers (report_metric_unit), --columns, export --wide and run_params values unquoted.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/db.h"
#include "../results/report.h"
#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

/* ---- writing runs with known figures ---- */

struct spec {
    const char *experiment, *policy;
    int64_t     seed;
    int         x;                  /* a setting in the config: another x is another group */
    double      jct, makespan;      /* metrics jct_mean and makespan; jobs_done is 10 */
    const char *sweep;              /* with one swept field, workload.arrival_scale = scale */
    double      scale;
    int         njobs;              /* jobs rows, with arrivals at thirds of a second */
    double      gpu_hours;          /* written as a metric when not 0; makespan when not < 0 */
};

static int64_t add_run(db *d, const struct spec *s)
{
    struct errbuf err;
    err_clear(&err);
    char config[512], name[128], scale[32], seed[32], policy[80];
    size_t n = 0;
    for (const char *p = s->experiment; *p && n + 2 < sizeof name; p++) {
        if (*p == '"')
            name[n++] = '\\';
        name[n++] = *p;
    }
    name[n] = '\0';
    /* the swept field is in the config under another name ("point"), so that param() must
     * read it from run_params */
    snprintf(config, sizeof config,
             "{\"name\":\"%s\",\"x\":%d,\"sim\":{\"k\":%d},\"point\":%.17g,"
             "\"policies\":[\"%s\"],\"seed\":%lld}",
             name, s->x, 10 * s->x, s->scale, s->policy, (long long)s->seed);
    snprintf(scale, sizeof scale, "%.17g", s->scale);
    snprintf(seed, sizeof seed, "%lld", (long long)s->seed);
    snprintf(policy, sizeof policy, "\"%s\"", s->policy);
    const struct db_param p[] = { { "policy", policy }, { "seed", seed },
                                  { "workload.arrival_scale", scale } };
    struct db_run r = { .experiment = s->experiment, .domain = "training", .policy = s->policy,
                        .cluster = "c", .config_json = config, .version = "test",
                        .seed = s->seed, .sweep = s->sweep, .params = p,
                        .nparams = s->sweep ? 3 : 0 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(db_metric(d, "jobs_done", 10, &err), 0);
    cr_assert_eq(db_metric(d, "jct_mean", s->jct, &err), 0);
    if (s->makespan >= 0)
        cr_assert_eq(db_metric(d, "makespan", s->makespan, &err), 0);
    if (s->gpu_hours != 0)
        cr_assert_eq(db_metric(d, "gpu_hours", s->gpu_hours, &err), 0);
    for (int j = 0; j < s->njobs; j++) {
        struct th_job job = { .job_id = j, .job_type = "toy", .workers = 1, .work = 1,
                              .arrival_s = j + 1.0 / 3, .first_start_s = j + 0.5,
                              .finish_s = j == 0 ? -1 : j + 2.0 / 3 * s->seed, .n_avg = 1,
                              .t_iso_s = -1, .ftf_rho = -1, .attained = 0.1 * j };
        cr_assert_eq(th_db_job(d, &job, &err), 0);
    }
    struct db_run_end e = { 100, 0.01, "drained", 10, 1, s->njobs };
    int64_t id = 0;
    cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
    return id;
}

static char *make_db(const char *name, const struct spec *specs, int n)
{
    char *path = malloc(512);
    snprintf(path, 512, "%s/%s", th_tmpdir(), name);
    remove(path);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    for (int i = 0; i < n; i++)
        add_run(d, &specs[i]);
    db_close(d);
    return path;
}

/* ---- reading CSV (RFC 4180) back ---- */

struct csv {
    char ***row;                    /* row[i][k], NULL-terminated per row */
    int     nrows;
};

static struct csv csv_parse(const char *s, char sep)
{
    struct csv c = { calloc(4096, sizeof(char **)), 0 };
    while (*s) {
        char **f = calloc(256, sizeof *f);
        int nf = 0;
        for (;;) {
            size_t cap = strlen(s) + 1, n = 0;
            char *v = malloc(cap);
            if (*s == '"') {
                for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                    if (*s == '"')
                        s++;            /* a doubled quote */
                    v[n++] = *s;
                }
                if (*s == '"')
                    s++;
            } else {
                while (*s && *s != sep && *s != '\n')
                    v[n++] = *s++;
            }
            v[n] = '\0';
            cr_assert_lt(nf, 255);
            f[nf++] = v;
            if (*s == sep) {
                s++;
                continue;
            }
            break;
        }
        cr_assert(*s == '\n' || *s == '\0', "junk after a field: %.20s", s);
        if (*s)
            s++;
        cr_assert_lt(c.nrows, 4095);
        c.row[c.nrows++] = f;
    }
    return c;
}

static int csv_ncols(const struct csv *c, int r)
{
    int n = 0;
    while (c->row[r][n] != NULL)
        n++;
    return n;
}

static int csv_col(const struct csv *c, const char *name)
{
    for (int k = 0; c->row[0][k] != NULL; k++)
        if (strcmp(c->row[0][k], name) == 0)
            return k;
    cr_assert_fail("no column %s", name);
    return -1;
}

/* the row whose columns a and b hold va and vb */
static int csv_find(const struct csv *c, const char *a, const char *va, const char *b,
                    const char *vb)
{
    int ka = csv_col(c, a), kb = csv_col(c, b), found = -1;
    for (int r = 1; r < c->nrows; r++)
        if (strcmp(c->row[r][ka], va) == 0 && strcmp(c->row[r][kb], vb) == 0) {
            cr_assert_eq(found, -1, "two rows with %s=%s, %s=%s", a, va, b, vb);
            found = r;
        }
    cr_assert_neq(found, -1, "no row with %s=%s, %s=%s", a, va, b, vb);
    return found;
}

static double csv_num(const struct csv *c, int r, const char *col)
{
    const char *s = c->row[r][csv_col(c, col)];
    if (*s == '\0')
        return NAN;
    char *end;
    double v = strtod(s, &end);
    cr_assert_eq(*end, '\0', "%s: '%s' is not a number", col, s);
    return v;
}

static void csv_free(struct csv *c)
{
    for (int r = 0; r < c->nrows; r++) {
        for (int k = 0; c->row[r][k] != NULL; k++)
            free(c->row[r][k]);
        free(c->row[r]);
    }
    free(c->row);
}

/* ---- hand computations ---- */

static double mean_of(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s / n;
}

/* 95% CI half-width for 3 values: Student t with 2 degrees of freedom has the closed-form
 * quantile (2p - 1) / sqrt(2 p (1 - p)) */
static double half3(const double *x)
{
    double m = mean_of(x, 3), ss = 0;
    for (int i = 0; i < 3; i++)
        ss += (x[i] - m) * (x[i] - m);
    double p = 0.975, t2 = (2 * p - 1) / sqrt(2 * p * (1 - p));
    return t2 * sqrt(ss / 2) / sqrt(3.0);
}

static void near(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), "%s: %.17g, want %.17g", what,
              got, want);
}

/* fifo and fft on seeds 1-3 with x = 1 (fft's seed 2 and fifo's seed 3 run twice: the later
 * run counts, in the means and as a baseline), and a second setting x = 2 with one seed each */
static const double fifo_jct[] = { 100, 110, 130 }, fft_jct[] = { 80, 99, 91 };
static const struct spec grouped[] = {
    { "exp", "fifo", 1, 1, 100, 1000, NULL, 0, 0, 0 },
    { "exp", "fifo", 2, 1, 110, 1200, NULL, 0, 0, 0 },
    { "exp", "fft", 1, 1, 80, 900, NULL, 0, 0, 0 },
    { "exp", "fft", 2, 1, 500, 5000, NULL, 0, 0, 0 },     /* superseded below */
    { "exp", "fifo", 3, 1, 400, 4000, NULL, 0, 0, 0 },    /* superseded by the next one */
    { "exp", "fifo", 3, 1, 130, 1100, NULL, 0, 0, 0 },
    { "exp", "fft", 2, 1, 99, 1300, NULL, 0, 0, 0 },
    { "exp", "fft", 3, 1, 91, 1000, NULL, 0, 0, 0 },
    { "exp", "fifo", 1, 2, 125, 1000, NULL, 0, 0, 0 },
    { "exp", "fft", 1, 2, 50, 1000, NULL, 0, 0, 0 },
};

Test(report, grouped_mean_ci_n_and_paired_ratios)
{
    char *dbp = make_db("grouped.db", grouped, 10);
    struct th_out o = RUN("report", "--db", dbp, "--group", "--baseline", "fifo", "--format",
                          "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 4, "%s", o.out);      /* (fifo, fft) x (x = 1, x = 2) */
    cr_assert_str_eq(c.row[0][0], "group");
    for (int r = 1; r < c.nrows; r++)
        cr_assert_eq(csv_ncols(&c, r), csv_ncols(&c, 0));

    /* groups print in the order they began: fifo x=1, fft x=1, fifo x=2, fft x=2 */
    cr_assert_str_eq(c.row[1][csv_col(&c, "policy")], "fifo");
    cr_assert_str_eq(c.row[2][csv_col(&c, "policy")], "fft");
    int fifo = 1, fft = 2;
    near(csv_num(&c, fifo, "n"), 3, "fifo n");
    near(csv_num(&c, fft, "n"), 3, "fft n (seed 2 counted once)");
    near(csv_num(&c, fifo, "jct_mean"), mean_of(fifo_jct, 3), "fifo mean");
    near(csv_num(&c, fifo, "jct_mean_ci95"), half3(fifo_jct), "fifo half-width");
    near(csv_num(&c, fft, "jct_mean"), mean_of(fft_jct, 3), "fft mean (latest seed-2 run)");
    near(csv_num(&c, fft, "jct_mean_ci95"), half3(fft_jct), "fft half-width");
    near(csv_num(&c, fft, "jobs_done"), 10, "jobs_done");
    near(csv_num(&c, fft, "jobs_done_ci95"), 0, "jobs_done spread");
    cr_assert(isnan(csv_num(&c, fft, "ftf_mean")), "a metric no run has is empty");

    /* paired: per seed fft / fifo, then mean and half-width of the three ratios */
    double ratio[3], mk[3];
    const double fifo_mk[] = { 1000, 1200, 1100 }, fft_mk[] = { 900, 1300, 1000 };
    for (int i = 0; i < 3; i++) {
        ratio[i] = fft_jct[i] / fifo_jct[i];
        mk[i] = fft_mk[i] / fifo_mk[i];
    }
    near(csv_num(&c, fft, "jct_mean/fifo"), mean_of(ratio, 3), "paired ratio");
    near(csv_num(&c, fft, "jct_mean/fifo_ci95"), half3(ratio), "paired ratio half-width");
    near(csv_num(&c, fft, "makespan/fifo"), mean_of(mk, 3), "paired makespan ratio");
    cr_assert_neq(fabs(csv_num(&c, fft, "jct_mean/fifo") -
                       mean_of(fft_jct, 3) / mean_of(fifo_jct, 3)), 0,
                  "a ratio of means is not a mean of paired ratios");
    near(csv_num(&c, fft, "n_paired"), 3, "n_paired");
    near(csv_num(&c, fifo, "jct_mean/fifo"), 1, "the baseline against itself");
    near(csv_num(&c, fifo, "jct_mean/fifo_ci95"), 0, "the baseline against itself");

    /* x = 2 pairs with fifo x = 2 only: one seed, no interval */
    int fft2 = 4;
    cr_assert_str_eq(c.row[fft2][csv_col(&c, "policy")], "fft");
    near(csv_num(&c, fft2, "n"), 1, "x=2 n");
    near(csv_num(&c, fft2, "jct_mean/fifo"), 50.0 / 125, "x=2 ratio");
    cr_assert(isnan(csv_num(&c, fft2, "jct_mean_ci95")), "one seed has no interval");
    near(csv_num(&c, fft2, "n_paired"), 1, "x=2 n_paired");
    cr_assert_str_neq(c.row[fft2][0], c.row[fft][0], "another group hash");
    csv_free(&c);
    th_out_free(&o);

    /* the table shows "mean ± half" with the hand-computed figures */
    o = RUN("report", "--db", dbp, "--group", "--baseline", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    char want[128];
    snprintf(want, sizeof want, "%.1f \u00b1 %.1f", mean_of(fifo_jct, 3), half3(fifo_jct));
    cr_assert(strstr(o.out, want) != NULL, "no '%s' in\n%s", want, o.out);
    snprintf(want, sizeof want, "%.3f \u00b1 %.3f", mean_of(ratio, 3), half3(ratio));
    cr_assert(strstr(o.out, want) != NULL, "no '%s' in\n%s", want, o.out);
    cr_assert(strstr(o.out, "95% confidence interval") != NULL, "%s", o.out);
    th_out_free(&o);

    /* without --group: one row per run, and a hint that seeds could be grouped */
    o = RUN("report", "--db", dbp, "--baseline", "fifo", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 10);
    /* fft x=2 (run 10) pairs with fifo x=2 (run 9), not with fifo x=1 seed 1 (run 1) */
    int r = csv_find(&c, "run", "10", "policy", "fft");
    near(csv_num(&c, r, "jct_mean/fifo"), 50.0 / 125, "per-run ratio matched on settings");
    r = csv_find(&c, "run", "3", "policy", "fft");
    near(csv_num(&c, r, "jct_mean/fifo"), 80.0 / 100, "per-run ratio, same seed");
    r = csv_find(&c, "run", "8", "policy", "fft");
    near(csv_num(&c, r, "jct_mean/fifo"), 91.0 / 130, "per-run ratio to the latest baseline");
    csv_free(&c);
    th_out_free(&o);
    o = RUN("report", "--db", dbp);
    cr_assert(strstr(o.out, "only in the seed: --group") != NULL, "%s", o.out);
    th_out_free(&o);
    free(dbp);
}

static const struct spec filtered[] = {
    { "exp", "fifo", 1, 1, 100, 1, NULL, 0, 0, 0 },       /* 1 */
    { "exp", "fft", 1, 1, 90, 1, NULL, 0, 0, 0 },         /* 2 */
    { "exp", "srtf", 1, 2, 95, 1, NULL, 0, 0, 0 },        /* 3 */
    { "exp", "fifo", 3, 1, 100, 1, NULL, 0, 0, 0 },       /* 4 */
    { "exp", "fft", 2, 1, 80, 1, NULL, 0, 0, 0 },         /* 5 */
    { "other", "fifo", 1, 1, 70, 1, NULL, 0, 0, 0 },      /* 6 */
    { "exp", "fifo", 1, 1, 60, 1, "sw", 0.5, 0, 0 },      /* 7 */
    { "exp", "fifo", 1, 1, 61, 1, "sw", 1.5, 0, 0 },      /* 8 */
    { "exp", "fft", 2, 1, 62, 1, "sw", 2.0, 0, 0 },       /* 9 */
};

/* the ids in the report's "run" column, comma-separated */
static void ids_of(const char *const *args, char *out, size_t cap)
{
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    size_t n = 0;
    out[0] = '\0';
    for (int r = 1; r < c.nrows; r++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", r > 1 ? "," : "", c.row[r][0]);
    csv_free(&c);
    th_out_free(&o);
}

#define IDS(want, ...)                                                                     \
    do {                                                                                   \
        char got_[256];                                                                    \
        ids_of((const char *const[]){ "report", "--db", dbp, "--format", "csv", __VA_ARGS__, \
                                      NULL }, got_, sizeof got_);                          \
        cr_assert_str_eq(got_, want, "%s", #__VA_ARGS__);                                  \
    } while (0)

Test(report, where_experiment_and_sweep_select_runs)
{
    char *dbp = make_db("filter.db", filtered, 9);
    IDS("1,2,5,6,7,8,9", "--where", "policy IN ('fifo','fft') AND seed < 3");
    IDS("6", "--where", "experiment = 'other'");
    IDS("1,2,3,4,5,7,8,9", "--experiment", "exp");
    /* param(): a sweep's own record, and any config field by its dotted path */
    IDS("8,9", "--where", "param('workload.arrival_scale') >= 1");
    IDS("3", "--where", "param('sim.k') = 20");
    IDS("1,2,4,5,6,7,8,9", "--where", "param('x') = 1");
    IDS("2,5,9", "--where", "param('policy') = 'fft'");
    IDS("7,8,9", "--where", "metric('jct_mean') < 65");
    IDS("", "--where", "param('no.such.field') = 1");
    /* every --where must hold */
    IDS("5,9", "--where", "policy = 'fft'", "--where", "seed = 2");
    IDS("7,8,9", "--sweep", "sw");
    IDS("7", "--sweep", "sw", "--where", "param('workload.arrival_scale') < 1");

    /* --sweep shows the swept fields (the seed too, per run) as columns */
    struct th_out o = RUN("report", "--db", dbp, "--sweep", "sw", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    cr_assert_str_eq(c.row[0][3], "seed", "%s", o.out);
    cr_assert_str_eq(c.row[0][4], "workload.arrival_scale", "%s", o.out);
    near(csv_num(&c, csv_find(&c, "run", "8", "policy", "fifo"), "workload.arrival_scale"),
         1.5, "axis value");
    csv_free(&c);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--sweep", "sw", "--group", "--format", "csv");
    c = csv_parse(o.out, ',');
    cr_assert_str_eq(c.row[0][3], "workload.arrival_scale", "grouped: no seed axis: %s", o.out);
    cr_assert_eq(c.nrows, 1 + 3);
    csv_free(&c);
    th_out_free(&o);

    /* bad expressions exit 2, quoting the expression and SQLite's message */
    o = RUN("report", "--db", dbp, "--where", "policy IN (fifo");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "\"policy IN (fifo\"") && strstr(o.err, "syntax error"), "%s", o.err);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--where", "policy = fifo");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "no such column: fifo") && strstr(o.err, "single quotes"), "%s",
              o.err);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--where", "1) , (2");
    cr_assert_eq(o.status, 2, "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--sweep", "nope");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "no sweep named 'nope'") && strstr(o.err, "sw"), "%s", o.err);
    th_out_free(&o);
    free(dbp);
}

Test(report, csv_quoting_and_markdown)
{
    static const struct spec odd[] = {
        { "we,ird \"exp\"", "fifo", 1, 1, 100, 1, NULL, 0, 0, 0 },
        { "pipe|exp", "fifo", 1, 1, 100, 1, NULL, 0, 0, 0 },
    };
    char *dbp = make_db("odd.db", odd, 2);
    struct th_out o = RUN("report", "--db", dbp, "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "\n1,\"we,ird \"\"exp\"\"\",fifo,") != NULL, "%s", o.out);
    struct csv c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 3);
    cr_assert_str_eq(c.row[1][1], "we,ird \"exp\"");
    cr_assert_eq(csv_ncols(&c, 1), csv_ncols(&c, 0));
    csv_free(&c);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--format", "markdown", "--group");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "| group | experiment | policy | n (seeds) | jobs_done (jobs) |"),
              "%s", o.out);
    cr_assert(strstr(o.out, "| pipe\\|exp |") != NULL, "%s", o.out);
    th_out_free(&o);
    free(dbp);
}

static const struct spec with_jobs[] = {
    { "exp", "fifo", 1, 1, 100, 1, NULL, 0, 40, 0 },
    { "exp", "fft", 1, 1, 90, 1, NULL, 0, 40, 0 },
    { "exp", "fft", 2, 1, 80, 1, NULL, 0, 40, 0 },
};

Test(report, export_round_trips)
{
    char *dbp = make_db("export.db", with_jobs, 3);
    struct th_out o = RUN("export", "--db", dbp, "--table", "jobs", "--csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 120);
    cr_assert_eq(csv_ncols(&c, 0), 20, "every column of jobs");
    cr_assert_str_eq(c.row[0][0], "run_id");
    /* full precision: the text reads back to the very double stored */
    int r = csv_find(&c, "run_id", "3", "job_id", "7");
    double stored = th_db_value(dbp, "SELECT finish_s FROM jobs WHERE run_id = 3 AND job_id = 7");
    cr_assert_eq(csv_num(&c, r, "finish_s"), stored, "%.17g", stored);
    cr_assert_eq(csv_num(&c, r, "arrival_s"), 7 + 1.0 / 3);
    /* NULL is an empty field */
    r = csv_find(&c, "run_id", "2", "job_id", "0");
    cr_assert_str_eq(c.row[r][csv_col(&c, "finish_s")], "");
    cr_assert(strstr(o.out, "\"\"") == NULL, "NULL is not an empty string");
    csv_free(&c);
    th_out_free(&o);

    /* the filter applies to runs; their jobs follow */
    o = RUN("export", "--db", dbp, "--table", "jobs", "--where", "policy = 'fft'", "--where",
            "seed = 2");
    cr_assert_eq(o.status, 0, "%s", o.err);
    c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 40);
    for (int i = 1; i < c.nrows; i++)
        cr_assert_str_eq(c.row[i][0], "3");
    csv_free(&c);
    th_out_free(&o);

    /* runs: config_json holds quotes and commas */
    o = RUN("export", "--db", dbp, "--table", "runs");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, ",\"{\"\"name\"\":\"\"exp\"\",") != NULL, "RFC 4180: %s", o.out);
    c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 3);
    for (int i = 1; i < c.nrows; i++)
        cr_assert_eq(csv_ncols(&c, i), csv_ncols(&c, 0));
    csv_free(&c);
    th_out_free(&o);
    char out[512];
    snprintf(out, sizeof out, "%s/runs.tsv", th_tmpdir());
    o = RUN("export", "--db", dbp, "--table", "runs", "--format", "tsv", "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_str_eq(o.out, "");
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    static char text[16384];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    c = csv_parse(text, '\t');
    cr_assert_eq(c.nrows, 1 + 3);
    r = csv_find(&c, "id", "2", "policy", "fft");
    cr_assert(strstr(c.row[r][csv_col(&c, "config_json")], "\"policies\":[\"fft\"]") != NULL,
              "%s", c.row[r][csv_col(&c, "config_json")]);
    csv_free(&c);
    th_out_free(&o);

    o = RUN("export", "--db", dbp, "--table", "metrics", "--experiment", "exp");
    c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 3 * 3);
    csv_free(&c);
    th_out_free(&o);

    o = RUN("export", "--db", dbp, "--table", "bogus");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "unknown table 'bogus'") &&
              strstr(o.err, "runs, jobs, job_gpu_seconds, requests, pods, samples, metrics, "
                            "run_params"),
              "%s", o.err);
    th_out_free(&o);
    o = RUN("export", "--db", dbp, "--table", "jobs", "--where", "nonsense(");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "\"nonsense(\"") != NULL, "%s", o.err);
    th_out_free(&o);
    free(dbp);
}

/* ---- what differs between configs, units, --columns, export --wide ---- */

/* report_config_diff of n configs, each result checked against want[i] */
static void diff_is(const char *const *configs, size_t n, const char *const *exclude,
                    size_t nexclude, const char *const *want)
{
    char *out[8];
    cr_assert_eq(report_config_diff(configs, n, exclude, nexclude, out), 0);
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(out[i], want[i], "config %zu: %s", i, configs[i] ? configs[i] : "NULL");
        free(out[i]);
    }
}

Test(report, config_diff_names_paths_and_values)
{
    /* policies and seed aside; a member one config lacks is "(unset)"; document order */
    const char *a = "{\"name\":\"e\",\"cluster\":\"mixed_small\",\"workload\":{\"trace\":\"t\"},"
                    "\"sim\":{\"k\":1},\"policies\":[\"fifo\"],\"seed\":1}";
    const char *b = "{\"name\":\"e\",\"cluster\":\"fft_t4_v100_a10\",\"workload\":{\"trace\":"
                    "\"t\",\"max_jobs\":100},\"sim\":{\"k\":1},\"policies\":[\"srtf\"],"
                    "\"seed\":7}";
    diff_is((const char *[]){ a, b }, 2, NULL, 0,
            (const char *[]){ "cluster=mixed_small workload.max_jobs=(unset)",
                              "cluster=fft_t4_v100_a10 workload.max_jobs=100" });
    /* an excluded path is not compared */
    diff_is((const char *[]){ a, b }, 2, (const char *[]){ "workload.max_jobs" }, 1,
            (const char *[]){ "cluster=mixed_small", "cluster=fft_t4_v100_a10" });
    /* nothing differs but the policy and the seed */
    const char *a2 = "{\"name\":\"e\",\"cluster\":\"mixed_small\",\"workload\":{\"trace\":\"t\"},"
                     "\"sim\":{\"k\":1},\"policies\":[{\"name\":\"fft\"}],\"seed\":3}";
    diff_is((const char *[]){ a, a2 }, 2, NULL, 0, (const char *[]){ "", "" });
    /* arrays of one length element by element, of two lengths whole; nested members */
    diff_is((const char *[]){ "{\"p\":[{\"b\":true},{\"b\":false}],\"l\":[1,2]}",
                              "{\"p\":[{\"b\":true},{\"b\":true}],\"l\":[1]}" }, 2, NULL, 0,
            (const char *[]){ "p.1.b=false l=[1,2]", "p.1.b=true l=[1]" });
    /* strings as --set reads them back: bare unless they would read as JSON or hold a space */
    diff_is((const char *[]){ "{\"s\":\"100\"}", "{\"s\":\"a b\"}", "{\"s\":\"plain\"}",
                              "{\"s\":{\"x\":0.5}}", "{\"s\":null}" }, 5, NULL, 0,
            (const char *[]){ "s=\"100\"", "s=\"a b\"", "s=plain", "s={\"x\":0.5}", "s=null" });
    /* NULL and text that is no JSON object count as {}; three configs, two alike */
    diff_is((const char *[]){ NULL, "not json", "{\"a\":1}" }, 3, NULL, 0,
            (const char *[]){ "a=(unset)", "a=(unset)", "a=1" });
    diff_is((const char *[]){ "{\"a\":1,\"b\":2}", "{\"a\":1,\"b\":3}", "{\"a\":1,\"b\":2}" }, 3,
            NULL, 0, (const char *[]){ "b=2", "b=3", "b=2" });
    diff_is(NULL, 0, NULL, 0, NULL);

    /* the settings key: equal without policies and seed, distinct otherwise */
    char ka[17], ka2[17], kb[17], kbx[17], kax[17];
    cr_assert_eq(report_config_key(a, NULL, 0, ka), 0);
    cr_assert_eq(report_config_key(a2, NULL, 0, ka2), 0);
    cr_assert_eq(report_config_key(b, NULL, 0, kb), 0);
    cr_assert_str_eq(ka, ka2);
    cr_assert_str_neq(ka, kb);
    const char *const both[] = { "workload.max_jobs", "cluster" };
    cr_assert_eq(report_config_key(a, both, 2, kax), 0);
    cr_assert_eq(report_config_key(b, both, 2, kbx), 0);
    cr_assert_str_eq(kax, kbx, "the excluded paths were all that differed");
    cr_assert_eq(strlen(ka), 16);
}

Test(report, metric_units_from_names)
{
    static const char *const want[][2] = {
        { "jct_mean", "s" },           { "jct_p50", "s" },         { "jct_p99_window", "s" },
        { "makespan", "s" },           { "queue_delay_mean", "s" }, { "ttft_p99", "s" },
        { "tpot_p50", "s" },           { "e2e_p95", "s" },         { "solver_time_max", "s" },
        { "gpu_hours", "GPU-h" },      { "util_total", "fraction" }, { "util_A100", "fraction" },
        { "ftf_unfair_frac", "fraction" }, { "jain_index", "fraction" },
        { "slo_attainment", "fraction" }, { "ftf_mean", "ratio" },  { "ftf_max", "ratio" },
        { "jobs_done", "jobs" },       { "jobs_unfinished", "jobs" }, { "throughput_norm", "jobs" },
        { "cost_usd", "USD" },         { "preemptions", "count" }, { "idle_s", "s" },
        { "jobs_per_h", "per h" },     { "mystery", "" },          { "tokens_per_s", "tokens/s" },
        { "requests_done", "requests" }, { "pods_unallocated", "pods" },
        { "containers_mean", "containers" }, { "cpu_seconds", "CPU-s" },
        { "gpus_unallocated", "GPUs" }, { "jct_p90", "s" },        { "jct_p90_steady", "s" },
        { "requests_steady", "requests" }, { "ttft_p99_steady", "s" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_str_eq(report_metric_unit(want[i][0]), want[i][1], "%s", want[i][0]);
    cr_assert(report_metric_higher_better("util_total"));
    cr_assert(report_metric_higher_better("throughput_norm"));
    cr_assert(report_metric_higher_better("throughput_norm_window"));
    cr_assert(report_metric_higher_better("jobs_done"));
    cr_assert(report_metric_higher_better("jain_index"));
    cr_assert(report_metric_higher_better("milli_alloc_frac"));     /* placement */
    cr_assert(report_metric_higher_better("tokens_per_s"));         /* serving */
    cr_assert(report_metric_higher_better("requests_done"));
    cr_assert(!report_metric_higher_better("frag_frac"));
    cr_assert(!report_metric_higher_better("jct_mean"));
    cr_assert(!report_metric_higher_better("jobs_unfinished"));
    cr_assert(!report_metric_higher_better("ftf_max"));
    cr_assert(!report_metric_higher_better("containers_mean"));
}

/* Display names: one table, a label per metric; a family takes the rest of the name, a
 * qualifier adds to its metric's label, and a name the table lacks stays whole. */
Test(report, metric_labels_from_one_table)
{
    static const char *const want[][2] = {
        { "jct_mean", "mean JCT" },
        { "jct_p99", "P99 JCT" },
        { "containers_mean", "mean containers" },
        { "ttft_p50", "median TTFT" },
        { "tokens_per_s", "output throughput" },
        { "milli_alloc_frac", "GPU capacity allocated" },
        { "util_A100-40GB", "A100-40GB utilization" },
        { "util_total", "GPU utilization, all types" },
        { "util_T4_window", "T4 utilization, window" },
        { "jct_mean_steady", "mean JCT, steady state" },
        { "throughput_norm_window", "normalized throughput" },
        /* the table lacks these: the key, whole, never cut at an underscore */
        { "mystery_metric_name", "mystery_metric_name" },
        { "jct_p90_steady", "jct_p90_steady" },
        { "sla_violation_prob_x", "sla_violation_prob_x" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct report_metric m;
        report_metric_info(want[i][0], &m);
        cr_assert_str_eq(m.label, want[i][1], "%s", want[i][0]);
        cr_assert_eq(m.known, strcmp(want[i][0], want[i][1]) != 0, "%s", want[i][0]);
    }
    char t[128];
    report_metric_title("cpu_seconds", t, sizeof t);
    cr_assert_str_eq(t, "CPU time allocated (CPU-s)");
    report_metric_title("jct_p50", t, sizeof t);
    cr_assert_str_eq(t, "median JCT (s)");
    report_metric_title("mystery", t, sizeof t);
    cr_assert_str_eq(t, "mystery", "no unit, no parentheses");
    /* every metric the shipped worlds write has a label of its own (tests/golden/runs.txt
     * holds a run of every non-placement policy; placement's are listed here) */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/golden/runs.txt", getenv("HETSIM_DATA"));
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[512], exp[128], pol[128], name[256];
    int checked = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "%127s %127s %255s", exp, pol, name) == 3 && strcmp(name, "run") != 0 &&
            strcmp(name, "rows") != 0) {
            struct report_metric m;
            report_metric_info(name, &m);
            cr_assert(m.known && *m.unit != '\0', "%s (%s, %s) has no label or unit", name,
                      exp, pol);
            checked++;
        }
    fclose(f);
    cr_assert_gt(checked, 500);
    static const char *const placement[] = {
        "pods_listed", "pods_drawn", "pods_dropped", "pods_total", "pods_placed",
        "pods_unallocated", "pod_types", "gpus_total", "arrived_gpu_frac", "gpu_alloc_frac",
        "milli_alloc_frac", "cpu_alloc_frac", "mem_alloc_frac", "frag_frac", "frag_cluster_frac",
        "gpus_unallocated", "gpus_fragmented", "idle_q1_lack_both_frac", "idle_q2_lack_gpu_frac",
        "idle_q3_satisfied_frac", "idle_q4_lack_cpu_frac", "idle_xl_satisfied_frac",
        "idle_xr_lack_cpu_frac", "idle_no_access_frac" };
    for (size_t i = 0; i < sizeof placement / sizeof placement[0]; i++) {
        struct report_metric m;
        report_metric_info(placement[i], &m);
        cr_assert(m.known && *m.unit != '\0', "%s", placement[i]);
    }
}

/* two settings of the default experiment made with --set: each row names its own */
Test(report, overrides_name_the_set_and_headers_carry_units)
{
    char dbp[512];
    snprintf(dbp, sizeof dbp, "%s/overrides.db", th_tmpdir());
    remove(dbp);
    struct th_out o = RUN("run", "default", "--db", dbp, "--quiet", "--set",
                          "workload.max_jobs=40");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", "default", "--db", dbp, "--quiet", "--set", "workload.max_jobs=30");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);

    o = RUN("report", "--db", dbp, "--baseline", "fifo", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 4, "%s", o.out);
    /* CSV headers stay bare names, the ratios as scripts read them */
    csv_col(&c, "jct_mean/fifo");
    csv_col(&c, "jct_p99");
    int ov = csv_col(&c, "overrides");
    cr_assert_eq(ov, csv_ncols(&c, 0) - 1, "overrides is the last column");
    for (int r = 1; r < c.nrows; r++)
        cr_assert_str_eq(c.row[r][ov], r <= 2 ? "workload.max_jobs=40" : "workload.max_jobs=30",
                         "run %s", c.row[r][0]);
    near(csv_num(&c, 1, "jct_p99"),
         th_db_value(dbp, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'jct_p99'"),
         "jct_p99 of run 1");
    near(csv_num(&c, 1, "jobs_done"), 40, "jobs_done of run 1");
    csv_free(&c);
    th_out_free(&o);

    /* grouped: the same, one row per group */
    o = RUN("report", "--db", dbp, "--group", "--format", "csv");
    c = csv_parse(o.out, ',');
    cr_assert_eq(c.nrows, 1 + 4, "%s", o.out);
    cr_assert_str_eq(c.row[3][csv_col(&c, "overrides")], "workload.max_jobs=30");
    csv_free(&c);
    th_out_free(&o);

    /* for people: a header of two lines, the names then their units; the ratios in a grid
     * of their own below, titled; what the overrides are */
    o = RUN("report", "--db", dbp, "--baseline", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    char *l1 = o.out, *l2 = strchr(l1, '\n') + 1, *rest = strchr(l2, '\n') + 1;
    l2[-1] = rest[-1] = '\0';
    const char *const names[] = { "run", "experiment", "policy", "jobs_done", "jct_mean",
                                  "jct_p99", "makespan", "ftf_mean", "overrides" };
    const char *const units[] = { "(jobs)", "(s)", "(s)", "(s)", "(ratio)" };
    char *tok, *save;
    size_t k = 0;
    for (tok = strtok_r(l1, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save), k++)
        cr_assert(k < 9 && strcmp(tok, names[k]) == 0, "header word %zu: %s", k, tok);
    cr_assert_eq(k, 9);
    for (k = 0, tok = strtok_r(l2, " ", &save); tok; tok = strtok_r(NULL, " ", &save), k++)
        cr_assert(k < 5 && strcmp(tok, units[k]) == 0, "unit %zu: %s", k, tok);
    cr_assert_eq(k, 5);
    cr_assert(strstr(rest, "workload.max_jobs=40\n") != NULL, "%s", rest);
    char *title = strstr(rest, "\nratios to fifo (x): this run / the latest fifo run of the same "
                               "experiment, seed and settings\n(below 1 is better)\nrun  "
                               "experiment  policy  jct_mean  jct_p99  makespan  ftf_mean\n");
    cr_assert_not_null(title, "%s", rest);
    cr_assert(strstr(title, "overrides: the settings") != NULL, "%s", rest);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--group", "--format", "markdown", "--columns",
            "gpu_hours,util_total");
    cr_assert(strstr(o.out, "| group | experiment | policy | n (seeds) | gpu_hours (GPU-h) | "
                            "util_total (fraction) | overrides |") != NULL, "%s", o.out);
    th_out_free(&o);
    /* with nothing to override, no overrides column for people (CSV keeps it) */
    o = RUN("report", "--db", dbp, "--where", "param('workload.max_jobs') = 40", "--format",
            "markdown");
    cr_assert(strstr(o.out, "| ftf_mean (ratio) |\n") != NULL, "%s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--where", "param('workload.max_jobs') = 40", "--format",
            "csv");
    cr_assert(strstr(o.out, ",ftf_mean,overrides\n") != NULL, "%s", o.out);
    th_out_free(&o);
}

Test(report, columns_choose_and_reject)
{
    static const struct spec runs[] = {
        { "exp", "fifo", 1, 1, 100, 1000, NULL, 0, 0, 12.5 },
        { "exp", "fft", 1, 1, 80, -1, NULL, 0, 0, 0 },       /* no makespan, no gpu_hours */
    };
    char *dbp = make_db("columns.db", runs, 2);
    struct th_out o = RUN("report", "--db", dbp, "--format", "csv", "--columns",
                          "gpu_hours, makespan", "--columns", "jct_mean,gpu_hours",
                          "--baseline", "fifo");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    const char *const want[] = { "run", "experiment", "policy", "gpu_hours", "makespan",
                                 "jct_mean", "gpu_hours/fifo", "makespan/fifo",
                                 "jct_mean/fifo", "overrides", NULL };
    for (int k = 0; want[k] != NULL; k++)
        cr_assert_str_eq(c.row[0][k], want[k], "column %d", k);
    cr_assert_eq(csv_ncols(&c, 0), 10, "a repeated name is shown once");
    near(csv_num(&c, 1, "gpu_hours"), 12.5, "gpu_hours");
    near(csv_num(&c, 2, "jct_mean/fifo"), 0.8, "ratio of a chosen column");
    cr_assert(isnan(csv_num(&c, 2, "gpu_hours")), "a run without the metric: empty");
    cr_assert(isnan(csv_num(&c, 2, "makespan")), "a run without the metric: empty");
    csv_free(&c);
    th_out_free(&o);

    /* the default columns include jct_p99, empty here: no run has it */
    o = RUN("report", "--db", dbp, "--format", "csv");
    c = csv_parse(o.out, ',');
    cr_assert_str_eq(c.row[0][csv_col(&c, "jct_mean") + 1], "jct_p99");
    cr_assert(isnan(csv_num(&c, 1, "jct_p99")));
    csv_free(&c);
    th_out_free(&o);
    o = RUN("report", "--db", dbp);
    cr_assert(strstr(o.out, "  -  ") != NULL, "a missing value is '-' in a table: %s", o.out);
    th_out_free(&o);

    /* unknown names exit 2 naming the option, with the closest name or the list */
    o = RUN("report", "--db", dbp, "--columns", "jct_maen");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--columns: no run in ") && strstr(o.err, "'jct_maen'") &&
              strstr(o.err, "did you mean 'jct_mean'?"), "%s", o.err);
    cr_assert_str_eq(o.out, "", "nothing half-written");
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--columns", "jct_mean,zzzzzzzzzzzz");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "metrics: gpu_hours, jct_mean, jobs_done, makespan") != NULL, "%s",
              o.err);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--columns", "jct_mean,,makespan");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--columns: empty metric name in 'jct_mean,,makespan'") != NULL,
              "%s", o.err);
    th_out_free(&o);
    free(dbp);
}

Test(report, export_wide_one_column_per_metric)
{
    static const struct spec runs[] = {
        { "exp", "fifo", 1, 1, 100, 1000, NULL, 0, 0, 12.5 },
        { "exp", "fft", 2, 1, 80.25, -1, NULL, 0, 0, 0 },    /* no makespan, no gpu_hours */
        { "other", "fft", 1, 2, 1.0 / 3, 7, NULL, 0, 0, 0 },
    };
    char *dbp = make_db("wide.db", runs, 3);
    struct th_out o = RUN("export", "--db", dbp, "--table", "metrics", "--wide");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    const char *const head[] = { "run_id", "experiment", "policy", "seed", "cluster",
                                 "group_hash", "gpu_hours", "jct_mean", "jobs_done",
                                 "makespan", NULL };
    for (int k = 0; head[k] != NULL; k++)
        cr_assert_str_eq(c.row[0][k], head[k], "column %d: %s", k, o.out);
    cr_assert_eq(csv_ncols(&c, 0), 10);
    cr_assert_eq(c.nrows, 1 + 3, "one row per run");
    cr_assert_str_eq(c.row[2][0], "2");
    cr_assert_str_eq(c.row[2][2], "fft");
    cr_assert_str_eq(c.row[2][3], "2");
    near(csv_num(&c, 1, "gpu_hours"), 12.5, "gpu_hours");
    cr_assert_eq(csv_num(&c, 2, "jct_mean"), 80.25);
    cr_assert_eq(csv_num(&c, 3, "jct_mean"), 1.0 / 3, "full precision");
    cr_assert_str_eq(c.row[2][csv_col(&c, "makespan")], "", "no metric: an empty field");
    cr_assert_str_eq(c.row[2][csv_col(&c, "gpu_hours")], "");
    near(csv_num(&c, 3, "makespan"), 7, "makespan");
    for (int r = 1; r < c.nrows; r++)
        cr_assert_eq(csv_ncols(&c, r), 10);
    const char *gh = c.row[1][csv_col(&c, "group_hash")];
    cr_assert(strlen(gh) == 16 && strspn(gh, "0123456789abcdef") == 16, "%s", gh);
    csv_free(&c);
    th_out_free(&o);

    /* a filter: those runs, the union of their metrics only; TSV */
    o = RUN("export", "--db", dbp, "--table", "metrics", "--wide", "--tsv", "--where",
            "policy = 'fft'");
    cr_assert_eq(o.status, 0, "%s", o.err);
    c = csv_parse(o.out, '\t');
    cr_assert_eq(c.nrows, 1 + 2);
    cr_assert_eq(csv_ncols(&c, 0), 9, "no run of the two has gpu_hours: %s", o.out);
    cr_assert_str_eq(c.row[0][6], "jct_mean");
    cr_assert_str_eq(c.row[2][0], "3");
    near(csv_num(&c, 2, "makespan"), 7, "makespan");
    csv_free(&c);
    th_out_free(&o);
    o = RUN("export", "--db", dbp, "--table", "metrics", "--wide", "--experiment", "none");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert_str_eq(o.out, "run_id,experiment,policy,seed,cluster,group_hash\n");
    th_out_free(&o);

    /* --wide belongs to the metrics table */
    o = RUN("export", "--db", dbp, "--table", "jobs", "--wide");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--wide") && strstr(o.err, "--table metrics"), "%s", o.err);
    cr_assert_str_eq(o.out, "");
    th_out_free(&o);
    free(dbp);
}

Test(report, export_run_params_values_unquoted)
{
    static const struct spec runs[] = {
        { "exp", "fifo", 1, 1, 60, 1, "sw", 0.5, 0, 0 },
        { "exp", "fft", 2, 1, 62, 1, "sw", 2.0, 0, 0 },
    };
    char *dbp = make_db("params.db", runs, 2);
    for (int tsv = 0; tsv <= 1; tsv++) {
        struct th_out o = RUN("export", "--db", dbp, "--table", "run_params", "--format",
                              tsv ? "tsv" : "csv");
        cr_assert_eq(o.status, 0, "%s", o.err);
        struct csv c = csv_parse(o.out, tsv ? '\t' : ',');
        cr_assert_eq(c.nrows, 1 + 6);
        cr_assert_str_eq(c.row[0][3], "value");
        int r = csv_find(&c, "run_id", "1", "key", "policy");
        cr_assert_str_eq(c.row[r][3], "fifo", "a JSON string without its quotes");
        cr_assert(strstr(o.out, "\"fifo\"") == NULL, "%s", o.out);
        r = csv_find(&c, "run_id", "2", "key", "seed");
        cr_assert_str_eq(c.row[r][3], "2");
        r = csv_find(&c, "run_id", "1", "key", "workload.arrival_scale");
        cr_assert_str_eq(c.row[r][3], "0.5", "numbers as they are");
        cr_assert_str_eq(c.row[r][4], "0.5");
        csv_free(&c);
        th_out_free(&o);
    }
    /* the database keeps the JSON text */
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM run_params WHERE value = "
                                        "'\"fifo\"'"), 1, 0);
    free(dbp);
}

/* The default columns are those of the selected runs' domains: a report of the training runs of
 * a file that also holds placement runs shows no placement column, and the placement runs'
 * report none of training's; the whole file shows both. */
Test(report, default_columns_follow_the_selected_runs, .timeout = 120)
{
    char dbp[512];
    snprintf(dbp, sizeof dbp, "%s/mixed_domains.db", th_tmpdir());
    remove(dbp);
    struct th_out o = RUN("run", "default", "--policy", "fifo", "--set", "workload.max_jobs=20",
                          "--db", dbp, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("run", "fgd_openb", "--policy", "bestfit", "--set", "sim.load=0.05", "--db", dbp,
            "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--experiment", "default", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "jct_mean") != NULL && strstr(o.out, "frag_frac") == NULL, "%s",
              o.out);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--where", "domain = 'placement'", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "frag_frac") != NULL && strstr(o.out, "jct_mean") == NULL, "%s",
              o.out);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--format", "csv");
    cr_assert(strstr(o.out, "frag_frac") != NULL && strstr(o.out, "jct_mean") != NULL, "%s",
              o.out);
    th_out_free(&o);
}

/* The widest line of text (UTF-8: continuation bytes take no column). */
static int widest(const char *text)
{
    int w = 0, max = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            w = 0;
            continue;
        }
        w += ((unsigned char)*p & 0xC0) != 0x80;
        max = w > max ? w : max;
    }
    return max;
}

/* The tables people read fit a terminal of 100 columns: `make run`'s (the default experiment,
 * both policies, ratios to fifo) and, for a shipped experiment of every other domain, the
 * table `hetsim run` prints (ratios to its first policy) and `hetsim report`'s. */
Test(report, tables_fit_100_columns, .timeout = 120)
{
    static const struct {
        const char *experiment, *set;
    } shipped[] = {
        { "default", NULL },
        { "hetis_testbed", NULL },                      /* serving, five policies */
        { "socialnet", "workload.duration_s=600" },     /* microservices */
        { "derm_trainticket", "workload.duration_s=600" },   /* its longest name */
        { "fgd_openb", "sim.load=0.2" },                /* placement, six policies */
    };
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char dbp[512];
        snprintf(dbp, sizeof dbp, "%s/width_%zu.db", th_tmpdir(), i);
        remove(dbp);
        struct th_out o = shipped[i].set
                              ? RUN("run", shipped[i].experiment, "--db", dbp, "--set",
                                    shipped[i].set)
                              : RUN("run", shipped[i].experiment, "--db", dbp);
        cr_assert_eq(o.status, 0, "%s: %s", shipped[i].experiment, o.err);
        cr_assert(strstr(o.out, "\nratios to ") != NULL, "%s", o.out);
        cr_assert_leq(widest(o.out), 100, "hetsim run %s:\n%s", shipped[i].experiment, o.out);
        th_out_free(&o);
        o = RUN("report", "--db", dbp);
        cr_assert_eq(o.status, 0, "%s", o.err);
        cr_assert_leq(widest(o.out), 100, "hetsim report of %s:\n%s", shipped[i].experiment,
                      o.out);
        th_out_free(&o);
    }
}

/* --all: the domain's default columns first, then every other metric the selected runs have,
 * by name; not with --columns */
Test(report, all_shows_every_metric)
{
    static const struct spec runs[] = {
        { "exp", "fifo", 1, 1, 100, 1000, NULL, 0, 0, 12.5 },
        { "exp", "fft", 1, 1, 80, -1, NULL, 0, 0, 0 },       /* no makespan, no gpu_hours */
        { "other", "fft", 1, 2, 70, 5, NULL, 0, 0, 0 },
    };
    char *dbp = make_db("all.db", runs, 3);
    struct th_out o = RUN("report", "--db", dbp, "--all", "--format", "csv");
    cr_assert_eq(o.status, 0, "%s", o.err);
    struct csv c = csv_parse(o.out, ',');
    const char *const want[] = { "run", "experiment", "policy", "jobs_done", "jct_mean",
                                 "jct_p99", "makespan", "ftf_mean", "gpu_hours", "overrides",
                                 NULL };
    for (int k = 0; want[k] != NULL; k++)
        cr_assert_str_eq(c.row[0][k], want[k], "column %d: %s", k, o.out);
    cr_assert_eq(csv_ncols(&c, 0), 10);
    near(csv_num(&c, 1, "gpu_hours"), 12.5, "gpu_hours");
    csv_free(&c);
    th_out_free(&o);
    /* the selected runs' metrics only: fft's have no gpu_hours */
    o = RUN("report", "--db", dbp, "--all", "--format", "csv", "--where", "policy = 'fft'");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "gpu_hours") == NULL, "%s", o.out);
    cr_assert(strstr(o.out, ",makespan,") != NULL, "a default column stays: %s", o.out);
    th_out_free(&o);
    o = RUN("report", "--db", dbp, "--all", "--columns", "jct_mean");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--all or --columns, not both") != NULL, "%s", o.err);
    cr_assert_str_eq(o.out, "");
    th_out_free(&o);
    free(dbp);
}
