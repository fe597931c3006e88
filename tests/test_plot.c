/*
 * test_plot: `hetsim plot` end to end — every kind of figure is drawn (gnuplot exits 0, each
 * image is a real PNG or SVG), the data files behind the figures hold the right numbers for
 * hand-made databases (ratios to a baseline, means and Student-t intervals over seeds, the
 * latest run of a seed winning), awkward names reach gnuplot intact and never run a shell
 * command, and bad options, empty databases and failing gnuplot runs are reported.  Runs of
 * other settings (--set) are never drawn together: each setting has its own figures, titled
 * with what differs, the plain experiment keeping the plain file names; seeds are counted
 * once each.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../results/db.h"
#include "../results/report.h"
#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

/* Student t quantiles t(0.975, df), from tables (not from GSL, which the code under test uses) */
#define T975_1 12.706204736174705
#define T975_2 4.302652729749464

static char *tpath(const char *name)
{
    char *p = malloc(1024);
    snprintf(p, 1024, "%s/%s", th_tmpdir(), name);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* a real PNG: the signature, and more than a near-empty canvas */
static void check_png(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    cr_assert(file_exists(path), "no %s", path);
    size_t n;
    char *b = slurp(path, &n);
    cr_assert(n > 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", path);
    cr_assert_gt(n, 12000, "%s: %zu bytes, a near-empty image", path, n);
    free(b);
}

static int count(const char *hay, const char *needle)
{
    int k = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        k++;
    return k;
}

/* an SVG with at least min_paths drawn paths; returns its text (caller frees) */
static char *check_svg(const char *dir, const char *name, int min_paths)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    cr_assert(file_exists(path), "no %s", path);
    char *b = slurp(path, NULL);
    cr_assert(strstr(b, "<svg") != NULL, "%s is not an SVG", path);
    cr_assert_geq(count(b, "<path"), min_paths, "%s: %d paths", path, count(b, "<path"));
    return b;
}

/* The numbers after `key` on the data row whose first field is `key` (after the line "# block"
 * when block is not NULL, within that block).  Returns how many were read into v, -1 when
 * there is no such row. */
static int data_row(const char *file, const char *block, const char *key, double *v, int cap)
{
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f, "no data file %s", file);
    char line[4096], want[512];
    snprintf(want, sizeof want, "# %s\n", block ? block : "");
    int in = block == NULL, n = -1;
    while (n < 0 && fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#') {
            if (block != NULL && strcmp(line, want) == 0)
                in = 1;
            continue;
        }
        if (line[0] == '\n') {
            if (block != NULL)
                in = 0;
            continue;
        }
        size_t kl = strlen(key);
        if (!in || strncmp(line, key, kl) != 0 || line[kl] != ' ')
            continue;
        n = 0;
        char *p = line + kl, *end;
        while (n < cap) {
            double x = strtod(p, &end);
            if (end == p)
                break;
            v[n++] = x;
            p = end;
        }
    }
    fclose(f);
    return n;
}

/* ---- writing runs by hand ---- */

struct metric {
    const char *name;
    double      value;
};

/* A run whose config is {"v": variant, "seed": seed}: runs of one variant differ only in
 * their seed (and policy), and are paired with a baseline run of the same variant. */
static int64_t add_run_v(db *d, const char *exp, const char *policy, int64_t seed,
                         const char *sweep, const struct db_param *params, int nparams,
                         const struct metric *m, int nm, int njobs, int variant)
{
    char config[256];
    snprintf(config, sizeof config, "{\"v\":%d,\"seed\":%lld}", variant, (long long)seed);
    struct errbuf err;
    err_clear(&err);
    struct db_run r = { .experiment = exp, .domain = "training", .policy = policy,
                        .cluster = "c", .config_json = config, .version = "test", .seed = seed,
                        .sweep = sweep, .params = params, .nparams = nparams };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    for (int i = 0; i < nm; i++)
        cr_assert_eq(db_metric(d, m[i].name, m[i].value, &err), 0, "%s", err.msg);
    /* jobs j = 0..njobs-1: JCT 60 (j + 1) s, rho (j + 1) / 4; the last one unfinished */
    for (int j = 0; j < njobs; j++) {
        int done = j < njobs - 1;
        struct th_job job = { .job_id = j, .workers = 1, .job_type = "ResNet-50",
                              .work = 100, .arrival_s = 10.0 * j, .first_start_s = 10.0 * j,
                              .finish_s = done ? 10.0 * j + 60.0 * (j + 1) : -1,
                              .n_avg = 1, .t_iso_s = done ? 240 : -1,
                              .ftf_rho = done ? (j + 1) / 4.0 : -1, .attained = 1 };
        cr_assert_eq(th_db_job(d, &job, &err), 0, "%s", err.msg);
    }
    for (int t = 1; njobs > 0 && t <= 20; t++) {
        cr_assert_eq(db_sample(d, 600.0 * t, "util_total", (t % 4) / 4.0, &err), 0);
        cr_assert_eq(db_sample(d, 600.0 * t, "util_V100", (t % 2) / 2.0, &err), 0);
        cr_assert_eq(db_sample(d, 600.0 * t, "util_T4 (PCIe)", (t % 5) / 5.0, &err), 0);
        cr_assert_eq(db_sample(d, 600.0 * t, "queue_len", t < 5 ? t : 0, &err), 0);
    }
    struct db_run_end e = { 100, 0, "drained", 1, 1, njobs };
    int64_t id;
    cr_assert_eq(db_run_commit(d, &e, &id, &err), 0, "%s", err.msg);
    return id;
}

static int64_t add_run(db *d, const char *exp, const char *policy, int64_t seed,
                       const char *sweep, const struct db_param *params, int nparams,
                       const struct metric *m, int nm, int njobs)
{
    return add_run_v(d, exp, policy, seed, sweep, params, nparams, m, nm, njobs, 0);
}

static db *fresh_db(const char *path)
{
    remove(path);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, path, &err), 0, "%s", err.msg);
    return d;
}

/* ---- tests ---- */

/* `hetsim run` then `hetsim plot`: every experiment figure, from real runs */
Test(plot, experiment_figures_from_real_runs)
{
    char *dbf = tpath("real.dbf"), *out = tpath("real");
    remove(dbf);
    for (int seed = 1; seed <= 2; seed++) {
        char s[8];
        snprintf(s, sizeof s, "%d", seed);
        /* stopped early: some jobs unfinished, their jct and rho NULL */
        struct th_out o = RUN("run", "default", "--db", dbf, "--quiet", "--seed", s, "--set",
                              "workload.max_jobs=40", "--set", "sim.until_s=1500");
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    struct th_out o = RUN("plot", "--db", dbf, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "wrote 5 figures") != NULL, "%s", o.out);
    th_out_free(&o);
    const char *figs[] = { "default_jct_cdf", "default_ftf_cdf", "default_util", "default_queue",
                           "default_summary" };
    for (int i = 0; i < 5; i++)
        check_png(out, figs[i]);

    /* the JCT CDF of fifo's latest run: one row per finished job, up to finished / all */
    double fin = th_db_value(dbf, "SELECT count(jct_s) FROM jobs WHERE run_id = 3");
    double all = th_db_value(dbf, "SELECT count(*) FROM jobs WHERE run_id = 3");
    cr_assert_lt(fin, all, "the run should leave jobs unfinished");
    char file[1200];
    snprintf(file, sizeof file, "%s/data/default_fifo_jct_cdf.dat", out);
    char *text = slurp(file, NULL);
    int rows = 0;
    double last = 0, x;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#' && sscanf(line, "%lf %lf", &x, &last) == 2)
            rows++;
    free(text);
    cr_assert_eq(rows, (int)fin);
    cr_assert_float_eq(last, fin / all, 1e-9);

    /* a utilization panel per GPU type the run sampled */
    int types = (int)th_db_value(dbf, "SELECT count(DISTINCT name) FROM samples WHERE run_id = 3 "
                                     "AND name LIKE 'util_%'");
    cr_assert_geq(types, 3);
    char ddir[1200];
    snprintf(ddir, sizeof ddir, "%s/data", out);
    DIR *dir = opendir(ddir);
    int util_files = 0;
    for (struct dirent *de; (de = readdir(dir)) != NULL;)
        util_files += strncmp(de->d_name, "default_srtf_util_", 18) == 0;
    closedir(dir);
    cr_assert_eq(util_files, types);

    /* the bars: srtf / fifo of the same seed, averaged over the two seeds */
    double r1 = th_db_value(dbf, "SELECT a.value / b.value FROM metrics a, metrics b WHERE "
                                "a.run_id = 2 AND b.run_id = 1 AND a.name = 'jct_mean' AND "
                                "b.name = 'jct_mean'");
    double r2 = th_db_value(dbf, "SELECT a.value / b.value FROM metrics a, metrics b WHERE "
                                "a.run_id = 4 AND b.run_id = 3 AND a.name = 'jct_mean' AND "
                                "b.name = 'jct_mean'");
    double v[8];
    snprintf(file, sizeof file, "%s/data/default_summary.dat", out);
    cr_assert_eq(data_row(file, NULL, "jct_mean", v, 8), 4);
    cr_assert_float_eq(v[0], (r1 + r2) / 2, 1e-8);
    cr_assert_float_eq(v[3], 2, 0);
    free(dbf);
    free(out);
}

/* ratios to the baseline, paired by seed; mean and Student-t interval over seeds */
Test(plot, summary_bars_against_a_baseline)
{
    char *path = tpath("bars.db"), *out = tpath("bars");
    db *d = fresh_db(path);
    const double fifo[] = { 100, 200, 400 }, srtf[] = { 50, 150, 200 };
    /* srtf is written first: the default baseline is still fifo, which the experiment ran */
    for (int s = 0; s < 3; s++) {
        struct metric m[] = { { "jct_mean", srtf[s] }, { "makespan", s == 0 ? 20 : 5 } };
        add_run(d, "bars", "srtf", s + 1, NULL, NULL, 0, m, s < 2 ? 2 : 1, 0);
    }
    for (int s = 0; s < 3; s++) {
        struct metric m[] = { { "jct_mean", fifo[s] }, { "makespan", 10 } };
        add_run(d, "bars", "fifo", s + 1, NULL, NULL, 0, m, 2, 0);
    }
    struct metric one[] = { { "jct_mean", 300 } };
    add_run(d, "bars", "one run", 1, NULL, NULL, 0, one, 1, 0);
    add_run(d, "bars", "lonely", 9, NULL, NULL, 0, one, 1, 0);     /* no seed in common */
    /* a later fifo run of seed 1 with other settings: not srtf's baseline (which has v 0) */
    struct metric other[] = { { "jct_mean", 1e6 }, { "makespan", 1e6 } };
    add_run_v(d, "bars", "fifo", 1, NULL, NULL, 0, other, 2, 0, 1);
    db_close(d);

    struct th_out o = RUN("plot", "--db", path, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    check_png(out, "bars_summary");
    char f[1200];
    /* no jobs and no samples: no CDF, utilization or queue figure */
    snprintf(f, sizeof f, "%s/bars_jct_cdf.png", out);
    cr_assert(!file_exists(f));
    snprintf(f, sizeof f, "%s/bars_util.png", out);
    cr_assert(!file_exists(f));

    snprintf(f, sizeof f, "%s/data/bars_summary.dat", out);
    double v[12];
    cr_assert_eq(data_row(f, NULL, "jct_mean", v, 12), 8);
    /* srtf / fifo: 0.5, 0.75, 0.5 */
    double mean = (0.5 + 0.75 + 0.5) / 3;
    double sd = sqrt((pow(0.5 - mean, 2) * 2 + pow(0.75 - mean, 2)) / 2);
    double half = T975_2 * sd / sqrt(3);
    cr_assert_float_eq(v[0], 0.58333333333, 1e-9);
    cr_assert_float_eq(v[1], mean - half, 1e-8);
    cr_assert_float_eq(v[2], mean + half, 1e-8);
    cr_assert_float_eq(half, 0.3585544, 1e-6);
    cr_assert_float_eq(v[3], 3, 0);
    /* one run: one seed, a ratio without an interval */
    cr_assert_float_eq(v[4], 3, 1e-12);
    cr_assert(isnan(v[5]) && isnan(v[6]));
    cr_assert_float_eq(v[7], 1, 0);
    /* lonely: no seed in common with the baseline, left out */
    char *text = slurp(f, NULL);
    cr_assert(strstr(text, "# lonely: left out") != NULL, "%s", text);
    free(text);
    /* makespan: srtf has it for seeds 1 and 2 only: 2 and 0.5; "one run" has none */
    cr_assert_eq(data_row(f, NULL, "makespan", v, 12), 8);
    cr_assert_float_eq(v[0], 1.25, 1e-12);
    cr_assert_float_eq(v[2] - v[0], T975_1 * sqrt(2 * 0.75 * 0.75) / sqrt(2), 1e-8);
    cr_assert_float_eq(v[3], 2, 0);
    cr_assert(isnan(v[4]));
    cr_assert_float_eq(v[7], 0, 0);

    /* another baseline */
    o = RUN("plot", "--db", path, "--out", out, "--baseline", "srtf", "--metric", "jct_mean");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(data_row(f, NULL, "jct_mean", v, 12), 8);
    cr_assert_float_eq(v[0], (2 + 200.0 / 150 + 2) / 3, 1e-9);         /* fifo / srtf */
    cr_assert_float_eq(v[4], 300.0 / 50, 1e-12);                        /* one run / srtf */
    cr_assert_eq(data_row(f, NULL, "makespan", v, 12), -1, "--metric replaces the key set");
    free(path);
    free(out);
}

/* a sweep: a metric against each swept axis, mean and 95% CI over seeds */
Test(plot, sweep_lines_means_and_intervals)
{
    char *path = tpath("sweep.db"), *out = tpath("sweep");
    db *d = fresh_db(path);
    const char *pols[] = { "fifo", "srtf" }, *clusters[] = { "\"a b\"", "\"c\\\"d\"" };
    const char *scales[] = { "0.5", "1", "2" };
    const double noise[] = { -10, 0, 25 };
    for (int p = 0; p < 2; p++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 3; k++)
                for (int s = 0; s < 3; s++) {
                    char pj[16], sj[8];
                    snprintf(pj, sizeof pj, "\"%s\"", pols[p]);
                    snprintf(sj, sizeof sj, "%d", s + 1);
                    struct db_param prm[] = { { "policy", pj }, { "seed", sj },
                                              { "workload.arrival_scale", scales[k] },
                                              { "cluster", clusters[c] } };
                    double jct = (p + 1) * 100 * atof(scales[k]) * (c + 1) + noise[s];
                    struct metric m[] = { { "jct_mean", jct }, { "makespan", 1000 + s } };
                    add_run(d, "exp", pols[p], s + 1, "load", prm, 4, m, 2, 0);
                }
    /* fifo, "a b", scale 1, seed 2 again, later: the latest run of a seed counts */
    struct db_param again[] = { { "policy", "\"fifo\"" }, { "seed", "2" },
                                { "workload.arrival_scale", "1" }, { "cluster", "\"a b\"" } };
    struct metric m130[] = { { "jct_mean", 130 } };
    add_run(d, "exp", "fifo", 2, "load", again, 4, m130, 1, 0);
    /* a point with one seed */
    struct db_param single[] = { { "policy", "\"fifo\"" }, { "seed", "1" },
                                 { "workload.arrival_scale", "4" }, { "cluster", "\"a b\"" } };
    struct metric m390[] = { { "jct_mean", 390 } };
    add_run(d, "exp", "fifo", 1, "load", single, 4, m390, 1, 0);
    /* a policy x seed sweep of another experiment: plain runs of that experiment */
    for (int s = 1; s <= 2; s++)
        for (int p = 0; p < 2; p++) {
            char sj[8], pj[16];
            snprintf(sj, sizeof sj, "%d", s);
            snprintf(pj, sizeof pj, "\"%s\"", pols[p]);
            struct db_param prm[] = { { "policy", pj }, { "seed", sj } };
            struct metric m[] = { { "jct_mean", 100.0 * (p + 1) * s } };
            add_run(d, "exp2", pols[p], s, "ps", prm, 2, m, 1, 0);
        }
    db_close(d);

    struct th_out o = RUN("plot", "--db", path, "--out", out, "--metric", "jct_mean,makespan");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "wrote 5 figures") != NULL, "%s", o.out);
    th_out_free(&o);
    check_png(out, "load_jct_mean_vs_workload-arrival_scale");
    check_png(out, "load_jct_mean_vs_cluster");
    check_png(out, "load_makespan_vs_workload-arrival_scale");
    check_png(out, "load_makespan_vs_cluster");
    check_png(out, "exp2_summary");
    char f[1200];
    snprintf(f, sizeof f, "%s/exp_summary.png", out);
    cr_assert(!file_exists(f), "runs changed by a sweep axis are not the experiment's");

    snprintf(f, sizeof f, "%s/data/load_jct_mean_vs_workload-arrival_scale.dat", out);
    double v[4];        /* after x: mean, CI half-width, seeds, sd */
    /* fifo, a b, scale 1: seeds give 90, 130 (the later run), 125 */
    cr_assert_eq(data_row(f, "fifo, cluster=a b", "1", v, 4), 4);
    double mean = (90 + 130 + 125) / 3.0;
    double sd = sqrt((pow(90 - mean, 2) + pow(130 - mean, 2) + pow(125 - mean, 2)) / 2);
    cr_assert_float_eq(v[0], 115, 1e-9);
    cr_assert_float_eq(v[1], T975_2 * sd / sqrt(3), 1e-7);
    cr_assert_float_eq(v[1], 54.1405262, 1e-6);
    cr_assert_float_eq(v[2], 3, 0);
    cr_assert_float_eq(v[3], sqrt(475), 1e-8);
    /* srtf, c"d, scale 0.5: 200 - 10, 200, 200 + 25 */
    cr_assert_eq(data_row(f, "srtf, cluster=c\"d", "0.5", v, 4), 4);
    cr_assert_float_eq(v[0], 205, 1e-9);
    cr_assert_float_eq(v[1], T975_2 * sqrt(325) / sqrt(3), 1e-7);
    /* one seed: no interval */
    cr_assert_eq(data_row(f, "fifo, cluster=a b", "4", v, 4), 4);
    cr_assert_float_eq(v[0], 390, 0);
    cr_assert(isnan(v[1]));
    cr_assert_float_eq(v[2], 1, 0);
    /* four lines: 2 policies x 2 clusters */
    char *text = slurp(f, NULL);
    cr_assert_eq(count(text, "\n\n\n"), 3, "%s", text);
    free(text);
    /* the categorical axis: categories in order of first appearance */
    snprintf(f, sizeof f, "%s/data/load_jct_mean_vs_cluster.dat", out);
    cr_assert_eq(data_row(f, "fifo, workload.arrival_scale=1", "0", v, 4), 4);
    cr_assert_float_eq(v[0], 115, 1e-9);
    cr_assert_eq(data_row(f, "srtf, workload.arrival_scale=2", "1", v, 4), 4);
    cr_assert_float_eq(v[0], 800 + 5, 1e-9);
    /* --sweep draws that sweep only */
    char out2[1200];
    snprintf(out2, sizeof out2, "%s2", out);
    o = RUN("plot", "--db", path, "--out", out2, "--sweep", "load", "--metric", "jct_mean");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "wrote 2 figures") != NULL, "%s", o.out);
    th_out_free(&o);
    free(path);
    free(out);
}

/* names with spaces, quotes, backticks: safe file names, exact titles, no shell command run */
Test(plot, awkward_names)
{
    char *path = tpath("names.db"), *out = tpath("names"), *pwned = tpath("pwned");
    remove(pwned);
    char exp[512], pol[] = "fi fo \"x\" 'y' @z";
    snprintf(exp, sizeof exp, "it's \"q\" `touch %s` $HOME \\n", pwned);
    db *d = fresh_db(path);
    struct metric m[] = { { "jct_mean", 10 } };
    add_run(d, exp, pol, 1, NULL, NULL, 0, m, 1, 4);
    add_run(d, exp, "srtf", 1, NULL, NULL, 0, m, 1, 4);
    add_run(d, "a b", "fifo", 1, NULL, NULL, 0, m, 1, 4);
    add_run(d, "a_b", "fifo", 1, NULL, NULL, 0, m, 1, 4);
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert(!file_exists(pwned), "a name ran a shell command");
    /* file names: safe characters only, one set of figures per experiment */
    DIR *dir = opendir(out);
    int cdfs = 0;
    char weird[256] = "";
    for (struct dirent *de; (de = readdir(dir)) != NULL;) {
        cr_assert_eq(strspn(de->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789._-"), strlen(de->d_name), "%s", de->d_name);
        if (strstr(de->d_name, "_jct_cdf.svg") != NULL) {
            cdfs++;
            if (strncmp(de->d_name, "it_s", 4) == 0)
                snprintf(weird, sizeof weird, "%.*s", (int)(strlen(de->d_name) - 4), de->d_name);
        }
    }
    closedir(dir);
    cr_assert_eq(cdfs, 3);
    cr_assert(weird[0] != '\0');
    char *svg = check_svg(out, weird, 20);
    /* the titles arrive as they are (the SVG escapes only XML's own characters) */
    cr_assert(strstr(svg, "fi fo &quot;x&quot; 'y' @z (3 of 4 jobs)") != NULL ||
                  strstr(svg, "fi fo \"x\" 'y' @z (3 of 4 jobs)") != NULL,
              "policy title not found");
    cr_assert(strstr(svg, "`touch ") != NULL && strstr(svg, "$HOME \\n") != NULL,
              "experiment title not found");
    free(svg);
    free(check_svg(out, "a_b_util", 20));
    free(path);
    free(out);
    free(pwned);
}

/* SVG output of every experiment figure */
Test(plot, svg_figures)
{
    char *path = tpath("svg.db"), *out = tpath("svg");
    db *d = fresh_db(path);
    for (int s = 1; s <= 2; s++) {
        struct metric a[] = { { "jct_mean", 100 * s }, { "ftf_max", 2 } };
        struct metric b[] = { { "jct_mean", 80 * s }, { "ftf_max", 1 } };
        add_run(d, "e", "fifo", s, NULL, NULL, 0, a, 2, 6);
        add_run(d, "e", "tiresias", s, NULL, NULL, 0, b, 2, 8);
    }
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    const char *figs[] = { "e_jct_cdf", "e_ftf_cdf", "e_util", "e_queue", "e_summary" };
    for (int i = 0; i < 5; i++)
        free(check_svg(out, figs[i], 20));
    /* the utilization figure has a panel per type and all types: three legends' worth */
    char *svg = check_svg(out, "e_util", 60);
    cr_assert(strstr(svg, "T4 (PCIe)") != NULL && strstr(svg, "all GPU types") != NULL);
    free(svg);
    /* the CDF of the 6-job run: 5 finished, the curve stops at 5/6 */
    char f[1200];
    double v[2];
    snprintf(f, sizeof f, "%s/data/e_fifo_ftf_cdf.dat", out);
    cr_assert_eq(data_row(f, NULL, "1.25", v, 2), 1);
    cr_assert_float_eq(v[0], 5.0 / 6, 1e-9);
    free(path);
    free(out);
}

/* bad option values name the option and exit 2; so does a database without runs */
Test(plot, bad_options_and_empty_database)
{
    char *path = tpath("opts.db"), *empty = tpath("empty.db"), *out = tpath("opts");
    db *d = fresh_db(path);
    struct metric m[] = { { "jct_mean", 1 } };
    add_run(d, "e", "fifo", 1, NULL, NULL, 0, m, 1, 0);
    db_close(d);
    db_close(fresh_db(empty));
    static const struct {
        const char *opt, *val, *msg;
    } bad[] = {
        { "--format", "jpg", "--format: 'jpg' must be png, svg or pdf" },
        { "--baseline", "nope", "--baseline: no runs of policy 'nope'" },
        { "--metric", "jct_mean,nope", "--metric: no run in" },
        { "--metric", "jct_mean,,x", "--metric: empty metric name" },
        { "--experiment", "nope", "--experiment: no runs of experiment 'nope'" },
        { "--sweep", "nope", "--sweep: no sweep 'nope'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct th_out o = RUN("plot", "--db", path, "--out", out, bad[i].opt, bad[i].val);
        cr_assert_eq(o.status, 2, "%s %s: exit %d", bad[i].opt, bad[i].val, o.status);
        cr_assert(strstr(o.err, bad[i].msg) != NULL, "%s", o.err);
        th_out_free(&o);
    }
    struct th_out o = RUN("plot", "--db", empty, "--out", out);
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "no runs to plot") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("plot", "--db", path, "--out", out, "--bogus");
    cr_assert_eq(o.status, 2);
    th_out_free(&o);
    o = RUN("plot", "--help");
    cr_assert_eq(o.status, 0);
    cr_assert(strstr(o.out, "--baseline") && strstr(o.out, "--metric") && strstr(o.out, "--sweep"));
    th_out_free(&o);
    free(path);
    free(empty);
    free(out);
}

/* a version 1 file (no run_params table) is read as it is, without sweeps */
Test(plot, version_1_database)
{
    char *path = tpath("v1.db"), *out = tpath("v1");
    remove(path);
    char fixture[1024];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/schema_v1.sql", getenv("HETSIM_DATA"));
    char *sql = slurp(fixture, NULL);
    char cmd[4096];
    char *sqlfile = th_write("v1.sql", sql);
    free(sql);
    FILE *f = fopen(sqlfile, "a");
    fputs("INSERT INTO runs VALUES (1, 'old', 'training', 'fifo', 1, 'c', '{}', 'h', 'v', 1, "
          "'drained', 1, 1, 0, 0, 'now'), (2, 'old', 'training', 'srtf', 1, 'c', '{}', 'h', "
          "'v', 1, 'drained', 1, 1, 0, 0, 'now');\n"
          "INSERT INTO metrics VALUES (1, 'jct_mean', 10), (2, 'jct_mean', 4);\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' < '%s'", path, sqlfile);
    cr_assert_eq(system(cmd), 0);
    struct th_out o = RUN("plot", "--db", path, "--out", out);
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    check_png(out, "old_summary");
    char dat[1200];
    double v[4];
    snprintf(dat, sizeof dat, "%s/data/old_summary.dat", out);
    cr_assert_eq(data_row(dat, NULL, "jct_mean", v, 4), 4);
    cr_assert_float_eq(v[0], 0.4, 1e-12);
    free(sqlfile);
    free(path);
    free(out);
}

/* a template gnuplot rejects, and no gnuplot at all: exit 1, saying what failed */
Test(plot, gnuplot_failures_are_reported)
{
    char *path = tpath("fail.db"), *out = tpath("fail"), *root = tpath("root");
    db *d = fresh_db(path);
    struct metric m[] = { { "jct_mean", 1 } };
    add_run(d, "e", "fifo", 1, NULL, NULL, 0, m, 1, 3);
    db_close(d);
    char dir[1200], cmd[4096];
    snprintf(dir, sizeof dir, "%s/results/plots", root);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/results/plots/*.gp '%s' && "
             "echo 'plot undefined_function_x(1)' > '%s/cdf.gp'", dir, getenv("HETSIM_DATA"),
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    setenv("HETSIM_DATA", root, 1);
    struct th_out o = RUN("plot", "--db", path, "--out", out);
    cr_assert_eq(o.status, 1);
    cr_assert(strstr(o.err, "gnuplot failed (exit 1) drawing") != NULL, "%s", o.err);
    cr_assert(strstr(o.err, "cdf.gp") != NULL && strstr(o.err, "undefined") != NULL, "%s", o.err);
    th_out_free(&o);
    setenv("PATH", "/nonexistent", 1);
    o = RUN("plot", "--db", path, "--out", out);
    cr_assert_eq(o.status, 1);
    cr_assert(strstr(o.err, "cannot run gnuplot") != NULL, "%s", o.err);
    th_out_free(&o);
    free(path);
    free(out);
    free(root);
}

/* data rows (lines not starting with '#') of a file */
static int data_rows(const char *file)
{
    char *text = slurp(file, NULL);
    int rows = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        rows += line[0] != '#';
    free(text);
    return rows;
}

/* the file-name stem of a setting: the experiment's, then 8 digits of its key */
static void stem_of(char *out, size_t cap, const char *exp, const char *config)
{
    char key[17];
    cr_assert_eq(report_config_key(config, NULL, 0, key), 0);
    snprintf(out, cap, "%s_%.8s", exp, key);
}

/* Three settings of the default experiment: the --set ones run first and last, the plain one
 * in between.  Each gets its own figures; no CDF mixes them. */
Test(plot, settings_get_their_own_figures, .timeout = 120)
{
    char *dbf = tpath("settings.db"), *out = tpath("settings");
    remove(dbf);
    const char *const sets[] = { "workload.max_jobs=40", NULL, "workload.max_jobs=30" };
    for (int i = 0; i < 3; i++) {
        struct th_out o = sets[i] ? RUN("run", "default", "--db", dbf, "--quiet", "--set", sets[i])
                                  : RUN("run", "default", "--db", dbf, "--quiet");
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
    }
    struct th_out o = RUN("plot", "--db", dbf, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "wrote 15 figures") != NULL, "%s", o.out);
    th_out_free(&o);

    /* the plain experiment keeps the plain names (though not the first run), all 300 jobs */
    char f[1200];
    snprintf(f, sizeof f, "%s/data/default_fifo_jct_cdf.dat", out);
    cr_assert_eq(data_rows(f), 300);
    snprintf(f, sizeof f, "%s/data/default_srtf_jct_cdf.dat", out);
    cr_assert_eq(data_rows(f), 300);
    /* titles name no settings (a figure a paper prints); the caption beside it does */
    char *svg = check_svg(out, "default_jct_cdf", 20);
    cr_assert(strstr(svg, "settings") == NULL && strstr(svg, "(unset)") == NULL, "plain title");
    cr_assert(strstr(svg, "<text>default: job completion time CDF, seed 1</text>") != NULL,
              "plain title");
    free(svg);
    snprintf(f, sizeof f, "%s/default_jct_cdf.txt", out);
    char *txt = slurp(f, NULL);
    cr_assert(strstr(txt, "): workload.max_jobs=(unset)\n") != NULL, "%s", txt);
    cr_assert(strstr(txt, "fifo run 3, srtf run 4") != NULL, "%s", txt);
    free(txt);
    /* the others: a stem per setting, a title naming it, and only its own runs */
    const int jobs[] = { 40, 0, 30 };
    for (int i = 0; i < 3; i += 2) {
        char cfg[4096], stem[256], want[64];
        snprintf(cfg, sizeof cfg, "SELECT config_json FROM runs WHERE id = %d", 2 * i + 1);
        const char *const q[] = { cfg, NULL };
        char *text = th_query_dump(dbf, q);
        text[strcspn(text, "\n")] = '\0';
        stem_of(stem, sizeof stem, "default", text);
        free(text);
        for (size_t k = 0; k < 2; k++) {
            const char *fig[] = { "jct_cdf", "summary" };
            char name[300];
            snprintf(name, sizeof name, "%s_%s", stem, fig[k]);
            svg = check_svg(out, name, 20);
            /* the title names the setting by its file names' digits, the caption spells it */
            snprintf(want, sizeof want, "<text>default [%.8s]: ", stem + strlen("default_"));
            cr_assert(strstr(svg, want) != NULL, "%s: no '%s'", name, want);
            cr_assert(strstr(svg, sets[i]) == NULL, "%s: settings in the figure", name);
            free(svg);
            snprintf(f, sizeof f, "%s/%s.txt", out, name);
            txt = slurp(f, NULL);
            snprintf(want, sizeof want, "): %s\n", sets[i]);
            cr_assert(strstr(txt, want) != NULL, "%s: no '%s' in\n%s", name, want, txt);
            free(txt);
        }
        const char *pols[] = { "fifo", "srtf" };
        for (int p = 0; p < 2; p++) {
            snprintf(f, sizeof f, "%s/data/%s_%s_jct_cdf.dat", out, stem, pols[p]);
            cr_assert_eq(data_rows(f), jobs[i], "%s", f);
            snprintf(f, sizeof f, "%s/data/%s_%s_util_total.dat", out, stem, pols[p]);
            cr_assert(file_exists(f), "%s", f);
        }
        /* the bars pair the runs of that setting: one seed */
        double v[4];
        snprintf(f, sizeof f, "%s/data/%s_summary.dat", out, stem);
        cr_assert_eq(data_row(f, NULL, "jct_mean", v, 4), 4);
        double want_ratio = th_db_value(dbf, i == 0
            ? "SELECT a.value / b.value FROM metrics a, metrics b WHERE a.run_id = 2 AND "
              "b.run_id = 1 AND a.name = 'jct_mean' AND b.name = 'jct_mean'"
            : "SELECT a.value / b.value FROM metrics a, metrics b WHERE a.run_id = 6 AND "
              "b.run_id = 5 AND a.name = 'jct_mean' AND b.name = 'jct_mean'");
        cr_assert_float_eq(v[0], want_ratio, 1e-9);
        cr_assert_float_eq(v[3], 1, 0);
    }
    free(dbf);
    free(out);
}

/* fifo and srtf on seed 1 in three settings, srtf's first setting run twice: one seed each,
 * never "3 seeds" */
Test(plot, one_seed_is_never_several)
{
    char *path = tpath("seeds.db"), *out = tpath("seeds");
    db *d = fresh_db(path);
    const double fifo[] = { 100, 200, 400 }, srtf[] = { 50, 300, 100 };
    for (int v = 0; v < 3; v++) {
        struct metric mf[] = { { "jct_mean", fifo[v] } }, ms[] = { { "jct_mean", srtf[v] } };
        add_run_v(d, "e", "fifo", 1, NULL, NULL, 0, mf, 1, 0, v);
        add_run_v(d, "e", "srtf", 1, NULL, NULL, 0, v == 0 ? (struct metric[]){ { "jct_mean",
                  999 } } : ms, 1, 0, v);
    }
    struct metric again[] = { { "jct_mean", 50 } };
    add_run_v(d, "e", "srtf", 1, NULL, NULL, 0, again, 1, 0, 0);   /* the latest seed-1 run */
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    for (int v = 0; v < 3; v++) {
        char cfg[64], stem[128], f[1200];
        snprintf(cfg, sizeof cfg, "{\"v\":%d,\"seed\":1}", v);
        if (v == 0)
            snprintf(stem, sizeof stem, "e");         /* the first run's setting */
        else
            stem_of(stem, sizeof stem, "e", cfg);
        snprintf(f, sizeof f, "%s/data/%s_summary.dat", out, stem);
        double x[4];
        cr_assert_eq(data_row(f, NULL, "jct_mean", x, 4), 4, "%s", f);
        cr_assert_float_eq(x[0], srtf[v] / fifo[v], 1e-12, "setting v=%d", v);
        cr_assert_float_eq(x[3], 1, 0, "one seed, counted once (v=%d)", v);
        char name[200];
        snprintf(name, sizeof name, "%s_summary", stem);
        char *svg = check_svg(out, name, 10);
        cr_assert(strstr(svg, "one seed") != NULL && strstr(svg, "seeds") == NULL,
                  "%s claims seeds", name);
        free(svg);
        char want[32];
        snprintf(want, sizeof want, "): v=%d\n", v);
        snprintf(f, sizeof f, "%s/%s.txt", out, name);
        char *txt = slurp(f, NULL);
        cr_assert(strstr(txt, want) != NULL, "%s: no '%s' in\n%s", name, want, txt);
        cr_assert(strstr(txt, "(one seed)") != NULL, "%s", txt);
        free(txt);
    }
    cr_assert(strstr(o.out, "wrote 3 figures") != NULL, "a summary per setting: %s", o.out);
    th_out_free(&o);
    free(path);
    free(out);
}

/* a sweep point run again with other settings than the axes name: a line of its own */
Test(plot, sweep_lines_split_by_settings_the_axes_do_not_name)
{
    char *path = tpath("sweepset.db"), *out = tpath("sweepset");
    db *d = fresh_db(path);
    const char *scales[] = { "0.5", "1" };
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 2; k++)
            for (int s = 1; s <= 2; s++) {
                char sj[8];
                snprintf(sj, sizeof sj, "%d", s);
                struct db_param prm[] = { { "policy", "\"fifo\"" }, { "seed", sj },
                                          { "workload.arrival_scale", scales[k] } };
                struct metric m[] = { { "jct_mean", 100 * (v + 1) * atof(scales[k]) + s } };
                add_run_v(d, "exp", "fifo", s, "load", prm, 3, m, 1, 0, v);
            }
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--metric", "jct_mean");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char f[1200];
    snprintf(f, sizeof f, "%s/data/load_jct_mean_vs_workload-arrival_scale.dat", out);
    double x[4];
    cr_assert_eq(data_row(f, "fifo, v=0", "1", x, 4), 4);
    cr_assert_float_eq(x[0], 101.5, 1e-9);
    cr_assert_float_eq(x[2], 2, 0);
    cr_assert_eq(data_row(f, "fifo, v=1", "1", x, 4), 4);
    cr_assert_float_eq(x[0], 201.5, 1e-9);
    cr_assert_float_eq(x[2], 2, 0, "two seeds, not four runs");
    free(path);
    free(out);
}

/* the x position of the text label `text` in an SVG of gnuplot's ("translate(X,Y)" of the
 * group holding <text>text</text>); -1 when absent */
static double label_x(const char *svg, const char *text)
{
    char want[256];
    snprintf(want, sizeof want, "<text>%s</text>", text);
    const char *p = strstr(svg, want);
    if (p == NULL)
        return -1;
    const char *t = p;
    while (t > svg && strncmp(t, "translate(", 10) != 0)
        t--;
    return strtod(t + 10, NULL);
}

/* Figures a paper can use: units that read (days, not 200000 s), load growing to the right,
 * intervals that stop at a metric's bound, log axes where values span decades, keys off the
 * data, time axes in hours or days. */
Test(plot, figures_a_paper_can_use, .timeout = 60)
{
    char *path = tpath("paper.db"), *out = tpath("paper");
    db *d = fresh_db(path);
    const char *scales[] = { "0.01", "0.1", "1" };
    /* jct_mean around 2.3 days with a wide spread: the interval would cross 0; rho near 0 */
    const double jct[3][2] = { { 250000, 150000 }, { 200000, 1000 }, { 210000, 190000 } };
    const double rho[3][2] = { { 0.2, 0.01 }, { 0.3, 0.29 }, { 0.9, 0.1 } };
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++) {
            char sj[8];
            snprintf(sj, sizeof sj, "%d", s + 1);
            struct db_param prm[] = { { "policy", "\"fifo\"" }, { "seed", sj },
                                      { "workload.arrival_scale", scales[k] } };
            struct metric m[] = { { "jct_mean", jct[k][s] }, { "ftf_mean", rho[k][s] },
                                  { "util_total", 0.97 + 0.03 * s } };
            add_run(d, "exp", "fifo", s + 1, "paper", prm, 3, m, 3, 0);
        }
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--format", "svg", "--metric",
                          "jct_mean,ftf_mean,util_total");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *svg = check_svg(out, "paper_jct_mean_vs_workload-arrival_scale", 10);
    /* in days, with its unit; the axis says what it is */
    cr_assert(strstr(svg, "<text>mean JCT (days)</text>") != NULL, "no days label");
    cr_assert(strstr(svg, "arrival-time scale (1: the trace's pace; smaller: denser arrivals, "
                          "more load)") != NULL);
    /* load grows to the right: the densest arrivals (0.01) on the right; ticks at the
     * swept values */
    double x001 = label_x(svg, "0.01"), x1 = label_x(svg, "1");
    cr_assert(x001 > 0 && x1 > 0, "ticks at the swept values");
    cr_assert_gt(x001, x1, "0.01 at %g, 1 at %g: load should grow to the right", x001, x1);
    /* evenly spaced decades: a log axis (0.01 to 1 spans two) */
    double x01 = label_x(svg, "0.1");
    cr_assert_float_eq(x001 - x01, x01 - x1, 1.0);
    free(svg);
    /* the intervals stop at the bounds: a mean minus its half-width below 0 is drawn from 0,
     * a fraction's upper end at 1 */
    char f[1200];
    double v[6];
    snprintf(f, sizeof f, "%s/data/paper_jct_mean_vs_workload-arrival_scale.dat", out);
    cr_assert_eq(data_row(f, "fifo", "0.1", v, 6), 6);
    cr_assert_lt(v[0] - v[1], 0, "the test needs an interval crossing 0");
    cr_assert_float_eq(v[4], 0, 0);
    cr_assert_float_eq(v[5], v[0] + v[1], 1e-6);
    snprintf(f, sizeof f, "%s/data/paper_util_total_vs_workload-arrival_scale.dat", out);
    cr_assert_eq(data_row(f, "fifo", "1", v, 6), 6);
    cr_assert_gt(v[0] + v[1], 1);
    cr_assert_float_eq(v[5], 1, 0);
    /* rho's in the clear: a log y axis when the means span two decades or more (here they
     * do not), and --log y asks for one */
    o = RUN("plot", "--db", path, "--out", out, "--format", "svg", "--metric", "ftf_mean",
            "--log", "y");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("plot", "--db", path, "--out", out, "--log", "z");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--log must be x or y") != NULL, "%s", o.err);
    th_out_free(&o);
    free(path);
    free(out);
}

/* Time axes in hours or days, keys off the data, utilization trimmed to the busy span. */
Test(plot, time_axes_read_in_hours_or_days, .timeout = 60)
{
    char *path = tpath("days.db"), *out = tpath("days");
    remove(path);
    struct th_out o = RUN("run", "default", "--db", path, "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    o = RUN("plot", "--db", path, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    /* the run lasts about nine days; its queue empties within hours */
    char *util = check_svg(out, "default_util", 10), *queue = check_svg(out, "default_queue", 5);
    cr_assert(strstr(util, "simulated time (days)</") != NULL);
    cr_assert(strstr(queue, "simulated time (hours)</") != NULL);
    /* the key is above the panels (util) or below the plot (queue), not on the data: its
     * text lies outside the plot's frame */
    double ky = -1;
    const char *p = strstr(queue, "<text>fifo</text>");
    cr_assert_not_null(p);
    while (p > queue && strncmp(p, "translate(", 10) != 0)
        p--;
    char *comma = strchr(p, ',');
    ky = strtod(comma + 1, NULL);
    double xl = -1;
    const char *q = strstr(queue, "simulated time (hours)</");
    while (q > queue && strncmp(q, "translate(", 10) != 0)
        q--;
    xl = strtod(strchr(q, ',') + 1, NULL);
    cr_assert_gt(ky, xl, "the key (y %g) is below the axis label (y %g)", ky, xl);
    free(util);
    free(queue);
    free(path);
    free(out);
}

/* Each --format writes its own kind of file, each beginning with its magic bytes, and a
 * caption beside it */
Test(plot, formats_png_svg_and_pdf)
{
    char *path = tpath("formats.db"), *out = tpath("formats");
    db *d = fresh_db(path);
    struct metric a[] = { { "jct_mean", 100 } }, b[] = { { "jct_mean", 80 } };
    add_run(d, "e", "fifo", 1, NULL, NULL, 0, a, 1, 6);
    add_run(d, "e", "srtf", 1, NULL, NULL, 0, b, 1, 6);
    db_close(d);
    static const struct {
        const char *format, *magic, *magic2;
    } fmt[] = {
        { "png", "\x89PNG\r\n\x1a\n", NULL },
        { "svg", "<?xml", "<svg" },
        { "pdf", "%PDF-", NULL },
    };
    const char *figs[] = { "e_jct_cdf", "e_ftf_cdf", "e_util", "e_queue", "e_summary" };
    for (size_t k = 0; k < sizeof fmt / sizeof fmt[0]; k++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s_%s", out, fmt[k].format);
        struct th_out o = RUN("plot", "--db", path, "--out", dir, "--format", fmt[k].format);
        cr_assert_eq(o.status, 0, "%s: %s", fmt[k].format, o.err);
        cr_assert(strstr(o.out, "wrote 5 figures") != NULL, "%s", o.out);
        th_out_free(&o);
        for (int i = 0; i < 5; i++) {
            char f[1300];
            snprintf(f, sizeof f, "%s/%s.%s", dir, figs[i], fmt[k].format);
            size_t n;
            char *b2 = slurp(f, &n);
            cr_assert(n > 1000, "%s: %zu bytes", f, n);
            cr_assert(memcmp(b2, fmt[k].magic, strlen(fmt[k].magic)) == 0 ||
                          (fmt[k].magic2 && memcmp(b2, fmt[k].magic2,
                                                   strlen(fmt[k].magic2)) == 0),
                      "%s does not start as a %s does", f, fmt[k].format);
            free(b2);
            snprintf(f, sizeof f, "%s/%s.txt", dir, figs[i]);
            char *cap = slurp(f, NULL);
            cr_assert(strncmp(cap, "e: ", 3) == 0 && strstr(cap, "Data: ") != NULL, "%s", cap);
            free(cap);
        }
    }
    free(path);
    free(out);
}

/* File names have one dot, before their extension (LaTeX reads the rest as one): a dot of a
 * name becomes '-', and a name with a '-' of its own gets its hash, so that "a.b" and "a-b"
 * do not share a file */
Test(plot, file_names_have_one_dot)
{
    char *path = tpath("dots.db"), *out = tpath("dots");
    db *d = fresh_db(path);
    struct metric m[] = { { "jct_mean", 10 } };
    const char *exps[] = { "v1.2", "v1-2" };
    for (int e = 0; e < 2; e++) {
        add_run(d, exps[e], "fifo", 1, NULL, NULL, 0, m, 1, 4);
        add_run(d, exps[e], "srt.f", 1, NULL, NULL, 0, m, 1, 4);
    }
    for (int k = 0; k < 2; k++)
        for (int s = 1; s <= 2; s++) {
            char sj[8];
            snprintf(sj, sizeof sj, "%d", s);
            struct db_param prm[] = { { "policy", "\"fifo\"" }, { "seed", sj },
                                      { "sim.restore_delay_s", k ? "30" : "0" } };
            struct metric mm[] = { { "jct_mean", 100.0 + k + s } };
            add_run(d, "exp", "fifo", s, "sw.eep", prm, 3, mm, 1, 0);
        }
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--metric", "jct_mean");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char sub[1200];
    int images = 0;
    for (int dd = 0; dd < 2; dd++) {
        snprintf(sub, sizeof sub, dd ? "%s/data" : "%s", out);
        DIR *dir = opendir(sub);
        cr_assert_not_null(dir, "%s", sub);
        for (struct dirent *de; (de = readdir(dir)) != NULL;) {
            if (de->d_name[0] == '.')
                continue;
            if (strcmp(de->d_name, "data") == 0)
                continue;
            const char *dot = strchr(de->d_name, '.');
            cr_assert(dot != NULL && strchr(dot + 1, '.') == NULL, "%s: not one dot",
                      de->d_name);
            images += strcmp(dot, ".png") == 0;
        }
        closedir(dir);
    }
    /* two experiments' figures, apart; the sweep's axis with its dot as '-' */
    cr_assert(file_exists(strcat(strcpy(sub, out), "/v1-2_jct_cdf.png")), "%s", sub);
    check_png(out, "sw-eep_jct_mean_vs_sim-restore_delay_s");
    int v12 = 0;
    DIR *dir = opendir(out);
    for (struct dirent *de; (de = readdir(dir)) != NULL;)
        v12 += strncmp(de->d_name, "v1-2", 4) == 0 && strstr(de->d_name, "_jct_cdf.png") != NULL;
    closedir(dir);
    cr_assert_eq(v12, 2, "v1.2 and v1-2 each have their own CDF");
    cr_assert_eq(images, 2 * 5 + 1);
    free(path);
    free(out);
}

/* The y of the dashed line across the plot at 1 in gnuplot's SVG of a summary: the dashed
 * path spanning more than half of the figure's width. */
static double ref_line_y(const char *svg)
{
    for (const char *p = svg; (p = strstr(p, "stroke-dasharray=' ")) != NULL; p++) {
        const char *dpath = strstr(p, "d='M");
        double x0, y0, x1, y1;
        if (dpath && sscanf(dpath, "d='M%lf,%lf L%lf,%lf", &x0, &y0, &x1, &y1) == 4 &&
            x1 - x0 > 500 && fabs(y1 - y0) < 0.01)
            return y0;
    }
    return -1;
}

/* How many value labels (font size 9) of a summary's SVG overlap the line at y; *n receives
 * how many there are.  A label's digits span its baseline Y up to 0.75 of its size. */
static int labels_on_line(const char *svg, double y, int *n)
{
    int bad = 0;
    *n = 0;
    for (const char *p = svg; (p = strstr(p, "<g transform=\"translate(")) != NULL; p++) {
        double lx, ly;
        if (sscanf(p, "<g transform=\"translate(%lf,%lf)", &lx, &ly) != 2)
            continue;
        const char *end = strchr(p, '>'), *size = strstr(p, "font-size=\"9.00\""),
                   *rot = strstr(p, "rotate");
        if (end == NULL || size == NULL || size > end || (rot != NULL && rot < end))
            continue;
        (*n)++;
        bad += !(ly <= y - 1.5 || ly - 0.75 * 9 >= y + 1.5);
    }
    return bad;
}

/* Value labels never sit on the dashed line at 1, on a linear axis (ratios near 1) or a
 * logarithmic one (ratios from 0.01 to 50, bars from 1); tick labels are the metrics'
 * display names, whole */
Test(plot, value_labels_keep_off_the_line_and_ticks_name_metrics)
{
    char *path = tpath("labels.db"), *out = tpath("labels");
    db *d = fresh_db(path);
    /* jct_mean: 0.98, 1.0, 1.02 of fifo's; makespan 0.5, 0.97, 1.2; a metric the table lacks */
    const double jct[] = { 100, 98, 100, 102 }, mk[] = { 10, 5, 9.7, 12 };
    const char *pols[] = { "fifo", "a", "b", "c" };
    for (int p = 0; p < 4; p++) {
        struct metric m[] = { { "jct_mean", jct[p] }, { "makespan", mk[p] },
                              { "mystery_metric_name", 1 + 0.01 * p } };
        add_run(d, "near", pols[p], 1, NULL, NULL, 0, m, 3, 0);
    }
    const double wide[] = { 1, 0.01, 0.99, 50 };
    for (int p = 0; p < 4; p++) {
        struct metric m[] = { { "jct_mean", wide[p] }, { "makespan", 1.0 / wide[p] } };
        add_run(d, "wide", pols[p], 1, NULL, NULL, 0, m, 2, 0);
    }
    db_close(d);
    struct th_out o = RUN("plot", "--db", path, "--out", out, "--format", "svg", "--metric",
                          "jct_mean,makespan,mystery_metric_name", "--experiment", "near");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *svg = check_svg(out, "near_summary", 10);
    double y = ref_line_y(svg);
    cr_assert_gt(y, 0, "no line at 1");
    int n, bad = labels_on_line(svg, y, &n);
    cr_assert_eq(n, 9, "value labels: %d", n);
    cr_assert_eq(bad, 0, "%d of %d labels on the line at 1 (y %g)", bad, n, y);
    cr_assert(strstr(svg, ">mean JCT<") != NULL && strstr(svg, "jct_mean<") == NULL,
              "ticks: display names");
    cr_assert(strstr(svg, ">mystery_metric_name<") != NULL, "a key the table lacks, whole");
    free(svg);
    o = RUN("plot", "--db", path, "--out", out, "--format", "svg", "--experiment", "wide",
            "--metric", "jct_mean,makespan");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    svg = check_svg(out, "wide_summary", 10);
    y = ref_line_y(svg);
    cr_assert_gt(y, 0, "no line at 1");
    bad = labels_on_line(svg, y, &n);
    cr_assert_eq(n, 6, "value labels: %d", n);
    cr_assert_eq(bad, 0, "%d of %d labels on the line at 1 (y %g)", bad, n, y);
    /* ratios from 0.01 to 100: a log axis, its ticks in decades */
    cr_assert(strstr(svg, "> 0.01</tspan>") != NULL && strstr(svg, "> 100</tspan>") != NULL,
              "log ticks");
    free(svg);
    char f[1200];
    snprintf(f, sizeof f, "%s/wide_summary.txt", out);
    char *cap = slurp(f, NULL);
    cr_assert(strstr(cap, "logarithmic") != NULL, "%s", cap);
    free(cap);
    free(path);
    free(out);
}

/* A latency CDF ticks below a second (most TTFT and microservice latencies are there) and
 * says what its rows are: requests, not jobs */
Test(plot, latency_cdfs_tick_below_a_second, .timeout = 60)
{
    char *path = tpath("micro.db"), *out = tpath("micro");
    remove(path);
    struct th_out o = RUN("run", "socialnet", "--db", path, "--set", "workload.duration_s=60");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.err, " requests done,") != NULL && strstr(o.err, "jobs") == NULL, "%s",
              o.err);
    th_out_free(&o);
    o = RUN("plot", "--db", path, "--out", out, "--format", "svg");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    char *svg = check_svg(out, "socialnet_e2e_cdf", 10);
    cr_assert(strstr(svg, ">10 ms</tspan>") != NULL && strstr(svg, ">100 ms</tspan>") != NULL,
              "ticks below a second");
    cr_assert(strstr(svg, ">fraction of requests<") != NULL, "the domain's noun");
    cr_assert(strstr(svg, "jobs") == NULL, "jobs on a figure of requests");
    free(svg);
    char f[1200];
    snprintf(f, sizeof f, "%s/socialnet_e2e_cdf.txt", out);
    char *cap = slurp(f, NULL);
    cr_assert(strstr(cap, "of all the run's requests") != NULL, "%s", cap);
    free(cap);
    free(path);
    free(out);
}
