/*
 * plot: reads the metrics database with SELECTs, writes plain-text data files and runs gnuplot
 * once per figure (posix_spawnp, no shell; inputs passed as -e variable assignments, gnuplot's
 * output kept in OUT/data/<image>.log and quoted when it fails).
 *
 * Which runs each figure draws:
 * - Experiment figures use the runs of the experiment that no sweep axis changed.  A run with
 *   a run_params row whose key is neither "policy" nor "seed" ran a modified experiment and is
 *   drawn only in its sweep's figures; a policy x seed sweep is just runs of the experiment.
 *   Runs still marked 'running' are never drawn.
 * - Settings: a figure compares only runs that differ in their policy (and, in the bars, in
 *   their seed).  An experiment's runs are split by their config without seed and policies
 *   (report_config_key), and each setting gets its own figure set.  The plain setting (the
 *   one plain_config names, else the setting of the first run) keeps the file names
 *   <experiment>_<figure>; the others are <experiment>_<8 hex digits of the key>_<figure>,
 *   titled "<experiment> [<8 hex digits>]: ...".  With several settings every caption says
 *   what differs (report_config_diff, the plain setting first), e.g.
 *   "workload.max_jobs=100"; titles never do (a paper prints them).
 * - The CDFs, utilization and queue figures of a setting show one seed: the one most of its
 *   policies ran (of those, the one run last), and the latest run (highest id) of each policy
 *   with that seed; a policy that never ran it is left out.  A CDF's denominator is every job
 *   of the run, so a policy that left jobs unfinished (NULL jct / rho) has a curve that stops
 *   below 1, and its key says how many finished.  The queue figure's time axis ends soon
 *   after the queue last held a job.
 * - Summary bars: for each policy P other than the baseline B and each seed both ran in the
 *   setting, the ratio metric(P) / metric(B) of their latest runs with that seed: report.c's
 *   pairing, one pair per seed, so the seeds a bar counts are distinct seeds.  A bar is the
 *   mean of these ratios over the pairs, its error bar the 95% Student-t interval (none with
 *   one pair); a baseline value of 0 gives no ratio.  B is --baseline, else "fifo" when the
 *   setting ran it, else the policy of its first run (for `hetsim run EXPERIMENT`, its first
 *   policy in config order: runs are written in that order).  The axis is linear from 0, or
 *   logarithmic with bars from 1 when the ratios span 20 times or more; bars.gp keeps each
 *   value label off the dashed line at 1 (fixed margins make a pixel a known share of the
 *   axis).
 * - Sweeps: for each swept axis other than policy and seed with at least two values, each
 *   metric against that axis.  A line is a policy (runs.policy) and a combination of the
 *   other swept axes that take several values, and, when runs of the sweep differ in fields
 *   no axis names (a point run again with another --set), of those fields too, labelled
 *   with what differs; a point is the mean over seeds of the metric (the latest run of each
 *   seed), with a 95% Student-t interval (t quantile from GSL; none with one seed).  Numeric axes (every value a JSON number) are drawn to scale (log scale
 *   when all are positive and max / min >= 20); the others are categories, in order of first
 *   appearance (the sweep's order).
 *
 * Utilization is one figure per experiment with one panel per GPU type (all types first),
 * each comparing the policies: the question a reader brings is "which policy leaves which GPU
 * type idle, and when", so the policies of one type must share axes, and panels stacked on
 * one time axis show where a policy moved work from one type to another.  One figure per run
 * with a line per type would make the reader compare across files.
 *
 * Names: file names keep [A-Za-z0-9_-], write '.' as '-' (one dot per file name, before
 * its extension, as LaTeX wants), replace any other byte with '_' and then add 8 hex digits
 * of the name's hash when a byte became '_', the name was cut or it has a '-' of its own, so
 * that two names never share a file.  Every figure gets a caption file beside it: the words
 * a paper's caption needs (what, which runs and seed, which settings, which data), which the
 * HTML report shows under the figure.  Strings reach gnuplot double-quoted with every byte outside a safe set written as
 * an octal escape: gnuplot runs `...` as a shell command even inside quoted strings, so no
 * name from the database reaches it verbatim.  Titles are drawn noenhanced.
 *
 * A database without runs is an input error (exit 2): there is nothing to draw, and the
 * likely cause is a wrong --db.  So are --experiment, --sweep, --baseline and --metric values
 * that match nothing in it.  A version 1 database (no run_params) has no sweeps.
 *
 * Cost: per experiment with R runs in S settings, a cJSON parse per run, O(S R log R) to
 * choose each setting's seed, one query per drawn run and figure, and O(R^2) pairing per
 * (policy, metric) of the bars; per sweep, one metric query per run and figure and a sort,
 * O(R log R).
 */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/base/path.h"
#include "../sim/base/stats.h"
#include "db.h"
#include "report.h"

extern char **environ;

/* A label wrapped at blanks into lines of at most `width` characters (a longer word stays
 * whole on its own line: a name is never cut); returns the number of lines. */
static int wrap_label(const char *text, size_t width, char *out, size_t cap)
{
    size_t n = 0, line = 0;
    int lines = 1;
    out[0] = '\0';
    for (const char *p = text; *p && n + 2 < cap;) {
        size_t word = strcspn(p, " ");
        if (line > 0 && line + 1 + word > width) {
            out[n++] = '\n';
            line = 0;
            lines++;
        } else if (line > 0) {
            out[n++] = ' ';
            line++;
        }
        int w = snprintf(out + n, cap - n, "%.*s", (int)word, p);
        if (w < 0 || (size_t)w >= cap - n)
            break;          /* cut at the buffer's end: out holds what fits */
        n += (size_t)w;
        line += word;
        p += word;
        p += strspn(p, " ");
    }
    return lines;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static int count_names(const char *const *v)
{
    int n = 0;
    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

/* longest file-name part taken from a name, before the hash suffix */
enum { NAME_KEEP = 60, FNAME = NAME_KEEP + 10 };

/* ---- growable strings and gnuplot quoting ---- */

struct sb {
    char  *s;
    size_t n, cap;
    int    oom;
};

static void sb_reserve(struct sb *b, size_t more)
{
    if (b->oom || b->n + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *p = realloc(b->s, cap);
    if (p == NULL) {
        b->oom = 1;
        return;
    }
    b->s = p;
    b->cap = cap;
}

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        b->oom = 1;
        return;
    }
    sb_reserve(b, (size_t)len);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)len;
}

static void sb_free(struct sb *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* s as a gnuplot double-quoted string: bytes outside a safe set become octal escapes (this
 * keeps `, @, ", \, control and non-ASCII bytes intact without gnuplot interpreting them: a
 * path is passed exactly, a newline in a title breaks the line). */
static void sb_quote(struct sb *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr(" _-.,:;/+=()[]<>!?%&*#~|^'{}", (int)c) != NULL)
            sb_printf(b, "%c", (char)c);
        else
            sb_printf(b, "\\%03o", c);
    }
    sb_printf(b, "\"");
}

/* gnuplot -e assignments */
static void gp_str(struct sb *v, const char *name, const char *val)
{
    sb_printf(v, "%s=", name);
    sb_quote(v, val);
    sb_printf(v, "; ");
}

static void gp_num(struct sb *v, const char *name, double x)
{
    if (isfinite(x))
        sb_printf(v, "%s=%.17g; ", name, x);
    else
        sb_printf(v, "%s=NaN; ", name);
}

/* a gnuplot array, filled item by item, then emitted with gp_arr */
struct gparr {
    struct sb items;
    int       n;
};

static void arr_str(struct gparr *a, const char *s)
{
    if (a->n++ > 0)
        sb_printf(&a->items, ",");
    sb_quote(&a->items, s);
}

static void arr_int(struct gparr *a, long x)
{
    if (a->n++ > 0)
        sb_printf(&a->items, ",");
    sb_printf(&a->items, "%ld", x);
}

/* gnuplot arrays cannot be empty: an empty list becomes one empty string */
static void gp_arr(struct sb *v, const char *name, struct gparr *a)
{
    if (a->n == 0) {
        sb_printf(v, "array %s[1] = [\"\"]; ", name);
    } else {
        if (a->items.oom)
            v->oom = 1;
        sb_printf(v, "array %s[%d] = [%s]; ", name, a->n, a->items.s ? a->items.s : "");
    }
    sb_free(&a->items);
    a->n = 0;
}

/* ---- file names ---- */

/* A name as part of a file name: A-Za-z0-9, '_' and '-' kept, '.' written '-' (a file
 * name has one dot, before its extension, as LaTeX wants), any other byte '_'.  8 hex digits
 * of the name's hash follow when a byte became '_', when the name was cut, or when it has a
 * '-' of its own (so that "a.b" and "a-b" do not share a file). */
static void file_part(char out[FNAME], const char *s)
{
    size_t k = 0;
    int changed = *s == '\0';
    const char *p = s;
    for (; *p && k < NAME_KEEP; p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        out[k++] = ok ? ch : ch == '.' ? '-' : '_';
        changed |= (!ok && ch != '.') || ch == '-';
    }
    changed |= *p != '\0';
    out[k] = '\0';
    if (changed) {
        char hex[17];
        db_hash_hex(s, hex);
        snprintf(out + k, FNAME - k, "-%.8s", hex);
    }
}

/* ---- the run context ---- */

struct ctx {
    sqlite3                *h;
    const struct plot_opts *o;
    const char             *term;        /* gnuplot terminal, with options: pngcairo, svg or
                                            pdfcairo */
    double                  sz, fs;      /* the templates' sizes (pixels) times sz, their
                                            fonts (points) times fs: see plot_all */
    char                  **metrics;     /* --metric names, split; NULL when none */
    int                     nmetrics;
    int                     has_params;  /* schema version 2: run_params exists */
    int                     nfig;
    sqlite3_stmt           *metric_q;    /* value of (run, name) */
    struct errbuf          *err;
};

static int prepare(struct ctx *c, const char *sql, sqlite3_stmt **q)
{
    if (sqlite3_prepare_v2(c->h, sql, -1, q, NULL) != SQLITE_OK)
        return err_run(c->err, "%s: plot query failed: %s", c->o->db_path, sqlite3_errmsg(c->h));
    return 0;
}

/* The display of the domain of an experiment's (or a sweep's) first run, or NULL when no
 * display describes it (a database from a later hetsim: nothing to draw). */
static const struct display *display_of(struct ctx *c, const char *kind, const char *name)
{
    const struct display *d = NULL;
    sqlite3_stmt *q;
    const char *sql = strcmp(kind, "sweep") == 0
                          ? "SELECT domain FROM runs WHERE id IN (SELECT run_id FROM run_params "
                            "WHERE sweep = ?1) ORDER BY id LIMIT 1"
                          : "SELECT domain FROM runs WHERE experiment = ?1 ORDER BY id LIMIT 1";
    if (c->o->display_of != NULL && sqlite3_prepare_v2(c->h, sql, -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW)
            d = c->o->display_of((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    return d;
}

/* metric `name` of run `id`, NAN when absent */
static double metric_of(struct ctx *c, int64_t id, const char *name)
{
    sqlite3_stmt *q = c->metric_q;
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
    double v = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL
                   ? sqlite3_column_double(q, 0)
                   : NAN;
    sqlite3_reset(q);
    return v;
}

static void data_path(struct ctx *c, char *out, size_t cap, const char *a, const char *b,
                      const char *tag)
{
    if (b != NULL)
        snprintf(out, cap, "%s/data/%s_%s_%s.dat", c->o->out_dir, a, b, tag);
    else
        snprintf(out, cap, "%s/data/%s_%s.dat", c->o->out_dir, a, tag);
}

static FILE *data_open(struct ctx *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        err_run(c->err, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int data_close(struct ctx *c, FILE *f, const char *path)
{
    if (ferror(f) | fclose(f))      /* not ||: the file is closed either way */
        return err_run(c->err, "%s: write failed", path);
    return 0;
}

/* Write `v` as a gnuplot number (NaN for missing). */
static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.10g", v);
    else
        fprintf(f, " NaN");
}

/* The last meaningful line of gnuplot's output, for the error message. */
static void last_line(const char *log, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (n > 0 && strspn(line, " ^") != n)
            snprintf(out, cap, "%s", line);
    }
    fclose(f);
}

/* Run gnuplot on results/plots/<tmpl> with the variables in `vars`; it must write `image`.
 * Then its caption (the text of cap) goes to the image's name with .txt for its extension. */
static int draw(struct ctx *c, const char *tmpl, struct sb *vars, const char *image,
                const struct sb *cap)
{
    if (vars->oom || cap->oom)
        return err_run(c->err, "out of memory");
    char path[PATH_MAX_LEN];
    struct stat st;
    snprintf(path, sizeof path, "%s/results/plots/%s", path_data_root(), tmpl);
    if (stat(path, &st) != 0)
        return err_run(c->err, "gnuplot template %s: %s (the data root is %s: $HETSIM_DATA "
                       "or where hetsim was installed)", path, strerror(errno),
                       path_data_root());
    const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 : image;
    char log[PATH_MAX_LEN], varfile[PATH_MAX_LEN];
    snprintf(log, sizeof log, "%s/data/%s.log", c->o->out_dir, base);
    snprintf(varfile, sizeof varfile, "%s/data/%s.vars.gp", c->o->out_dir, base);
    unlink(image);                  /* a stale image must not pass for a new one */
    /* the kernel caps one argument at 128 KiB: long assignments go through a file */
    struct sb load = { 0 };
    const char *e = vars->s;
    if (vars->n > 100000) {
        FILE *f = data_open(c, varfile);
        if (f == NULL)
            return -1;
        fputs(vars->s, f);
        if (data_close(c, f, varfile) < 0)
            return -1;
        sb_printf(&load, "load ");
        sb_quote(&load, varfile);
        if (load.oom)
            return err_run(c->err, "out of memory");
        e = load.s;
    }
    char *argv[] = { "gnuplot", "-e", (char *)e, path, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    sb_free(&load);
    if (rc != 0)
        return err_run(c->err, "cannot run gnuplot: %s (install it: scripts/install-deps.sh)",
                       strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return err_run(c->err, "waiting for gnuplot: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[512];
        last_line(log, why, sizeof why);
        char how[64];
        if (WIFEXITED(status))
            snprintf(how, sizeof how, "exit %d", WEXITSTATUS(status));
        else
            snprintf(how, sizeof how, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return err_run(c->err, "gnuplot failed (%s) drawing %s from %s: %s (its output: %s)",
                       how, image, path, why[0] ? why : "no message", log);
    }
    if (stat(image, &st) != 0 || st.st_size == 0)
        return err_run(c->err, "gnuplot exited 0 but wrote no %s (template %s, output in %s)",
                       image, path, log);
    unlink(log);
    unlink(varfile);
    char txt[PATH_MAX_LEN];
    snprintf(txt, sizeof txt, "%.*s.txt", (int)(strrchr(image, '.') - image), image);
    FILE *f = data_open(c, txt);
    if (f == NULL)
        return -1;
    fputs(cap->s ? cap->s : "", f);
    if (data_close(c, f, txt) < 0)
        return -1;
    c->nfig++;
    return 0;
}

/* the common assignments of every figure */
static void vars_begin(struct ctx *c, struct sb *v, const char *image, const char *title)
{
    gp_str(v, "term", c->term);
    gp_num(v, "sz", c->sz);
    gp_num(v, "fs", c->fs);
    gp_str(v, "outfile", image);
    gp_str(v, "plottitle", title);
}

static void image_path(struct ctx *c, char *out, size_t cap, const char *name, const char *fig)
{
    snprintf(out, cap, "%s/%s_%s.%s", c->o->out_dir, name, fig, c->o->format);
}

/* ---- units of the axes ---- */

/* A time axis ending at tmax seconds: in days beyond three, else hours. */
static void gp_time_axis(struct sb *v, double tmax)
{
    int days = tmax > 3 * 86400;
    gp_num(v, "tdiv", days ? 86400 : 3600);
    gp_str(v, "tunit", days ? "days" : "hours");
    gp_num(v, "tmax", tmax > 0 ? tmax / (days ? 86400 : 3600) : 1);
}

/* A metric's axis label: its display name and unit, a time (unit s) whose values reach
 * `vmax` read in days or hours where seconds would run to the tens of thousands and in ms
 * where every value is below a second.  Returns the divisor of the values. */
static double metric_axis(const char *metric, double vmax, char *out, size_t cap)
{
    struct report_metric m;
    report_metric_info(metric, &m);
    const char *unit = m.unit;
    double div = 1;
    if (strcmp(unit, "s") == 0 && vmax >= 2 * 86400)
        unit = "days", div = 86400;
    else if (strcmp(unit, "s") == 0 && vmax >= 2 * 3600)
        unit = "h", div = 3600;
    else if (strcmp(unit, "s") == 0 && vmax > 0 && vmax < 1)
        unit = "ms", div = 1e-3;
    if (*unit != '\0')
        snprintf(out, cap, "%s (%s)", m.label, unit);
    else
        snprintf(out, cap, "%s", m.label);
    return div;
}

/* The natural bounds of a metric, for its confidence intervals: none below 0 (times, counts,
 * ratios, rho), none above 1 for a fraction.  Returns 0 for a name no unit rule knows. */
static int metric_bounds(const char *metric, double *lo, double *hi)
{
    const char *u = report_metric_unit(metric);
    *lo = 0;
    *hi = strcmp(u, "fraction") == 0 ? 1 : INFINITY;
    return *u != '\0';
}

/* A swept axis's label, with its unit (`noun`: what the domain's rows count, "jobs"), and
 * whether load grows as its value falls.  An axis the table lacks shows its key whole, with
 * a unit its name implies. */
static void axis_label(const char *key, const char *noun, char *out, size_t cap,
                       int *load_falls)
{
    static const struct { const char *key, *label; int falls; } known[] = {
        { "workload.rate_per_hour", "arrival rate (%s/h)", 0 },
        { "workload.rate_per_s", "arrival rate (%s/s)", 0 },
        { "workload.arrival_scale", "arrival-time scale (1: the trace's pace; smaller: "
                                    "denser arrivals, more load)", 1 },
        { "workload.jobs", "%s", 0 },
        { "workload.max_jobs", "%s (at most)", 0 },
        { "sim.load", "GPU load (GPU asked for / the cluster's GPUs)", 0 },
        { "sim.restore_delay_s", "restore delay (s)", 0 },
        { "sim.restore_fixed_s", "restore delay, fixed part (s)", 0 },
        { "sim.storage_gbs", "checkpoint read bandwidth (GB/s)", 0 },
    };
    *load_falls = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(key, known[i].key) == 0) {
            snprintf(out, cap, known[i].label, noun);
            *load_falls = known[i].falls;
            return;
        }
    size_t n = strlen(key);
    if (n > 6 && strcmp(key + n - 6, "_per_s") == 0)
        snprintf(out, cap, "%s (per s)", key);
    else if (n > 9 && strcmp(key + n - 9, "_per_hour") == 0)
        snprintf(out, cap, "%s (per hour)", key);
    else if (n > 2 && strcmp(key + n - 2, "_s") == 0)
        snprintf(out, cap, "%s (s)", key);
    else
        snprintf(out, cap, "%s", key);
}

/* ---- experiments ---- */

/* the runs of an experiment as written: no sweep axis other than policy and seed changed it */
static const char unchanged_sql[] = "AND NOT EXISTS (SELECT 1 FROM run_params p WHERE "
                                    "p.run_id = runs.id AND p.key NOT IN ('policy', 'seed'))";

struct erun {
    int64_t id, seed;
    int     pol;                /* index into exp.pol */
    int     set;                /* index into exp.set */
};

/* A setting: the runs whose configs are equal but for the seed and the policy. */
struct eset {
    char    key[17];            /* report_config_key of its config */
    char   *config;             /* the config_json of its latest run */
    char   *note;               /* what differs from the other settings ("" when alone) */
    char    stem[FNAME + 10];   /* its file names: the experiment's, "_<key>" but when plain */
};

struct exp {
    const char  *name;
    const struct display *show; /* its domain's figures */
    char         fname[FNAME];
    char       **pol;           /* policies, in order of their first run */
    int          npol;
    struct erun *runs;          /* in id order */
    int          nruns;
    struct eset *set;           /* in order of their first run */
    int          nset;
};

/* What one figure set draws: a setting, the seed of its CDFs and time series, and the run of
 * each policy there. */
struct view {
    const struct exp  *e;
    const struct eset *s;
    int                set;
    int64_t            seed;
    int64_t           *latest;  /* per policy: its latest run of the setting and seed, or -1 */
};

static void expfig_free(struct exp *e)
{
    for (int i = 0; i < e->npol; i++)
        free(e->pol[i]);
    free(e->pol);
    free(e->runs);
    for (int i = 0; i < e->nset; i++) {
        free(e->set[i].config);
        free(e->set[i].note);
    }
    free(e->set);
}

/* the index of the setting with this key, appending it when new; -1 when out of memory */
static int set_of(struct exp *e, const char *key, const char *config)
{
    int k = 0;
    while (k < e->nset && strcmp(e->set[k].key, key) != 0)
        k++;
    if (k == e->nset) {
        struct eset *ns = realloc(e->set, (size_t)(e->nset + 1) * sizeof *ns);
        if (ns == NULL)
            return -1;
        e->set = ns;
        memset(&ns[k], 0, sizeof ns[k]);
        snprintf(ns[k].key, sizeof ns[k].key, "%s", key);
        e->nset++;
    }
    char *copy = strdup(config);
    if (copy == NULL)
        return -1;
    free(e->set[k].config);         /* id order: the latest run's config stays */
    e->set[k].config = copy;
    return k;
}

static int expfig_load(struct ctx *c, struct exp *e)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT id, policy, seed, config_json FROM runs WHERE experiment = ?1 AND "
             "stop_reason != 'running' %s ORDER BY id", c->has_params ? unchanged_sql : "");
    sqlite3_stmt *q;
    if (prepare(c, sql, &q) < 0)
        return -1;
    sqlite3_bind_text(q, 1, e->name, -1, SQLITE_STATIC);
    int cap = 0, pcap = 0, rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        const char *pol = (const char *)sqlite3_column_text(q, 1);
        int p = 0;
        while (p < e->npol && strcmp(e->pol[p], pol) != 0)
            p++;
        if (p == e->npol) {
            if (e->npol == pcap) {
                pcap = pcap ? 2 * pcap : 8;
                char **np = realloc(e->pol, (size_t)pcap * sizeof *np);
                if (np == NULL) {
                    rc = err_run(c->err, "out of memory");
                    break;
                }
                e->pol = np;
            }
            if ((e->pol[p] = strdup(pol)) == NULL) {
                rc = err_run(c->err, "out of memory");
                break;
            }
            e->npol++;
        }
        if (e->nruns == cap) {
            cap = cap ? 2 * cap : 16;
            struct erun *nr = realloc(e->runs, (size_t)cap * sizeof *nr);
            if (nr == NULL) {
                rc = err_run(c->err, "out of memory");
                break;
            }
            e->runs = nr;
        }
        struct erun *r = &e->runs[e->nruns++];
        r->id = sqlite3_column_int64(q, 0);
        r->seed = sqlite3_column_int64(q, 2);
        r->pol = p;
        const char *cfg = (const char *)sqlite3_column_text(q, 3);
        char key[17];
        if (report_config_key(cfg, NULL, 0, key) < 0 ||
            (r->set = set_of(e, key, cfg ? cfg : "")) < 0)
            rc = err_run(c->err, "out of memory");
    }
    sqlite3_finalize(q);
    return rc;
}

static int by_seed_id(const void *pa, const void *pb)
{
    const struct erun *a = *(const struct erun *const *)pa, *b = *(const struct erun *const *)pb;
    if (a->seed != b->seed)
        return a->seed < b->seed ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* The view of setting k: the seed most of its policies ran (of those, the one run last), and
 * each policy's latest run of it.  scratch holds e->nruns pointers; v->latest e->npol ids. */
static void view_of(const struct exp *e, int k, const struct erun **scratch, struct view *v)
{
    *v = (struct view){ .e = e, .s = &e->set[k], .set = k, .seed = -1, .latest = v->latest };
    int n = 0;
    for (int i = 0; i < e->nruns; i++)
        if (e->runs[i].set == k)
            scratch[n++] = &e->runs[i];
    qsort(scratch, (size_t)n, sizeof *scratch, by_seed_id);
    int best = 0;
    int64_t best_last = -1;
    for (int i = 0, j; i < n; i = j) {
        for (int p = 0; p < e->npol; p++)
            v->latest[p] = -1;
        int npol = 0;
        for (j = i; j < n && scratch[j]->seed == scratch[i]->seed; j++) {
            npol += v->latest[scratch[j]->pol] < 0;
            v->latest[scratch[j]->pol] = scratch[j]->id;
        }
        int64_t last = scratch[j - 1]->id;
        if (npol > best || (npol == best && last > best_last)) {
            best = npol;
            best_last = last;
            v->seed = scratch[i]->seed;
        }
    }
    for (int p = 0; p < e->npol; p++)
        v->latest[p] = -1;
    for (int i = 0; i < n; i++)             /* (seed, id) order: the last one wins */
        if (scratch[i]->seed == v->seed)
            v->latest[scratch[i]->pol] = scratch[i]->id;
}

/* A figure's title: the experiment, with the 8 hex digits of its setting when that is not
 * the plain one (its file names carry them; its caption says what differs), and what it
 * shows. */
static void fig_title(char *out, size_t cap, const struct view *v, const char *what)
{
    if (strcmp(v->s->stem, v->e->fname) != 0)
        snprintf(out, cap, "%s [%.8s]: %s", v->e->name, v->s->key, what);
    else
        snprintf(out, cap, "%s: %s", v->e->name, what);
}

/* A path under the output folder as the caption names it: relative to that folder. */
static const char *rel(const struct ctx *c, const char *path)
{
    size_t n = strlen(c->o->out_dir);
    return strncmp(path, c->o->out_dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* The first lines of an experiment figure's caption: its title as a sentence, then the
 * settings that differ from the experiment's other settings, when it ran several. */
static void cap_begin(struct sb *cap, const struct view *v, const char *title)
{
    sb_printf(cap, "%s.\n", title);
    if (*v->s->note != '\0')
        sb_printf(cap, "Settings (where these runs' experiment differs from its other runs', "
                  "as --set takes them): %s\n", v->s->note);
}

/* "fifo run 3, srtf run 4" and the seed: the runs a figure of the view draws */
static void cap_runs(struct sb *cap, const struct view *v)
{
    sb_printf(cap, "Runs (seed %lld, the latest run of each policy with it):", (long long)v->seed);
    for (int p = 0, k = 0; p < v->e->npol; p++)
        if (v->latest[p] >= 0)
            sb_printf(cap, "%s %s run %lld", k++ ? "," : "", v->e->pol[p],
                      (long long)v->latest[p]);
    sb_printf(cap, ".\n");
}

/* Write the CDF of the values `sql` selects for run `id` (sorted, NULLs excluded) over all of
 * its jobs.  *nval receives the number of values, *njobs the number of jobs. */
static int write_cdf(struct ctx *c, const char *sql, const char *table, int64_t id,
                     const char *file, int *nval, int *njobs)
{
    sqlite3_stmt *q;
    char count[128];
    snprintf(count, sizeof count, "SELECT count(*) FROM \"%s\" WHERE run_id = ?", table);
    if (prepare(c, count, &q) < 0)
        return -1;
    sqlite3_bind_int64(q, 1, id);
    *njobs = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : 0;
    sqlite3_finalize(q);
    *nval = 0;
    if (prepare(c, sql, &q) < 0)
        return -1;
    sqlite3_bind_int64(q, 1, id);
    FILE *f = data_open(c, file);
    if (f == NULL) {
        sqlite3_finalize(q);
        return -1;
    }
    fprintf(f, "# value, fraction of the run's %d rows of %s at or below it\n", *njobs, table);
    while (sqlite3_step(q) == SQLITE_ROW) {
        (*nval)++;
        fprintf(f, "%.10g %.10g\n", sqlite3_column_double(q, 0), (double)*nval / *njobs);
    }
    sqlite3_finalize(q);
    return data_close(c, f, file);
}

/* Write the time series `name` of run `id`; *n receives its rows; *tmax and *tbusy are raised
 * to its last time and its last time with a value other than 0. */
static int write_series(struct ctx *c, int64_t id, const char *name, const char *file, int *n,
                        double *tmax, double *tbusy)
{
    sqlite3_stmt *q;
    if (prepare(c, "SELECT t_s, value FROM samples WHERE run_id = ? AND name = ? ORDER BY t_s",
                &q) < 0)
        return -1;
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
    FILE *f = data_open(c, file);
    if (f == NULL) {
        sqlite3_finalize(q);
        return -1;
    }
    fprintf(f, "# simulated time (s), %s\n", name);
    *n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        double t = sqlite3_column_double(q, 0), v = sqlite3_column_double(q, 1);
        fprintf(f, "%.10g %.10g\n", t, v);
        if (t > *tmax)
            *tmax = t;
        if (v != 0 && t > *tbusy)
            *tbusy = t;
        (*n)++;
    }
    sqlite3_finalize(q);
    return data_close(c, f, file);
}

static int expfig_cdf(struct ctx *c, const struct view *w, const struct display_cdf *fig)
{
    const struct exp *e = w->e;
    const char *noun = e->show->entity;
    struct gparr files = { 0 }, titles = { 0 }, colors = { 0 };
    struct sb data = { 0 };
    int rc = 0, short_of = 0;
    /* names from a display, compiled in: safe to paste */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT \"%s\" FROM \"%s\" WHERE run_id = ? AND \"%s\" IS NOT "
             "NULL ORDER BY \"%s\"", fig->column, fig->table, fig->column, fig->column);
    for (int p = 0; p < e->npol && rc == 0; p++) {
        if (w->latest[p] < 0)
            continue;
        char fp[FNAME], file[PATH_MAX_LEN];
        file_part(fp, e->pol[p]);
        data_path(c, file, sizeof file, w->s->stem, fp, fig->tag);
        int nval, njobs;
        if ((rc = write_cdf(c, sql, fig->table, w->latest[p], file, &nval, &njobs)) < 0)
            continue;
        if (nval == 0) {
            unlink(file);
            continue;
        }
        char title[256];
        if (nval < njobs)
            snprintf(title, sizeof title, "%s (%d of %d %s)", e->pol[p], nval, njobs, noun);
        else
            snprintf(title, sizeof title, "%s", e->pol[p]);
        short_of |= nval < njobs;
        arr_str(&files, file);
        arr_str(&titles, title);
        arr_int(&colors, p + 1);
        sb_printf(&data, "%s %s", data.n ? "," : "", rel(c, file));
    }
    if (rc == 0 && files.n > 0) {
        char image[PATH_MAX_LEN], title[1024], what[256], ylabel[256];
        image_path(c, image, sizeof image, w->s->stem, fig->tag);
        snprintf(what, sizeof what, "%s, seed %lld", fig->what, (long long)w->seed);
        fig_title(title, sizeof title, w, what);
        snprintf(ylabel, sizeof ylabel, "fraction of %s", noun);
        struct sb cap = { 0 };
        cap_begin(&cap, w, title);
        cap_runs(&cap, w);
        sb_printf(&cap, "x: %s.  y: the fraction of all the run's %s at or below x, so that "
                  "the curve of a run that left some unfinished stops below 1%s.\n", fig->xlabel,
                  noun, short_of ? " (its key says how many finished)" : "");
        sb_printf(&cap, "Data:%s.\n", data.s ? data.s : "");
        struct sb v = { 0 };
        vars_begin(c, &v, image, title);
        gp_str(&v, "xlabel", fig->xlabel);
        gp_str(&v, "ylabel", ylabel);
        gp_num(&v, "timex", fig->timex);
        gp_num(&v, "mark", fig->mark);
        gp_arr(&v, "F", &files);
        gp_arr(&v, "T", &titles);
        gp_arr(&v, "C", &colors);
        rc = draw(c, "cdf.gp", &v, image, &cap);
        sb_free(&v);
        sb_free(&cap);
    }
    sb_free(&files.items);
    sb_free(&titles.items);
    sb_free(&colors.items);
    sb_free(&data);
    return rc;
}

/* The util_* series of the view's runs: util_total first, then the GPU types by name. */
static int util_names(struct ctx *c, const struct view *w, char ***names, int *n)
{
    const struct exp *e = w->e;
    *names = NULL;
    *n = 0;
    sqlite3_stmt *q;
    if (prepare(c, "SELECT DISTINCT name FROM samples WHERE run_id = ? AND name LIKE "
                   "'util\\_%' ESCAPE '\\' ORDER BY name != 'util_total', name", &q) < 0)
        return -1;
    int rc = 0;
    for (int p = 0; p < e->npol && rc == 0; p++) {
        if (w->latest[p] < 0)
            continue;
        sqlite3_bind_int64(q, 1, w->latest[p]);
        while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
            const char *s = (const char *)sqlite3_column_text(q, 0);
            int k = 0;
            while (k < *n && strcmp((*names)[k], s) != 0)
                k++;
            if (k < *n)
                continue;
            char **nn = realloc(*names, (size_t)(*n + 1) * sizeof *nn);
            if (nn == NULL || (nn[*n] = strdup(s)) == NULL) {
                if (nn != NULL)
                    *names = nn;
                rc = err_run(c->err, "out of memory");
                break;
            }
            *names = nn;
            (*n)++;
        }
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    /* keep util_total first, the types in name order, across runs with different types */
    for (int i = 1; i < *n; i++)
        for (int j = i; j > 0; j--) {
            char *a = (*names)[j - 1], *b = (*names)[j];
            int a_total = strcmp(a, "util_total") == 0, b_total = strcmp(b, "util_total") == 0;
            if (a_total || (!b_total && strcmp(a, b) <= 0))
                break;
            (*names)[j - 1] = b;
            (*names)[j] = a;
        }
    return rc;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Utilization over time, one panel per series in names[], one line per policy. */
static int expfig_util(struct ctx *c, const struct view *w)
{
    const struct exp *e = w->e;
    char **names;
    int nn;
    if (util_names(c, w, &names, &nn) < 0)
        return -1;
    struct gparr files = { 0 }, titles = { 0 }, colors = { 0 }, panels = { 0 }, first = { 0 },
                 last = { 0 };
    struct sb data = { 0 };
    double tmax = 0, tbusy = 0;
    int rc = 0;
    for (int k = 0; k < nn && rc == 0; k++) {
        int start = files.n + 1;
        char tag[FNAME + 8];
        file_part(tag, names[k]);
        for (int p = 0; p < e->npol && rc == 0; p++) {
            if (w->latest[p] < 0)
                continue;
            char fp[FNAME], file[PATH_MAX_LEN];
            file_part(fp, e->pol[p]);
            data_path(c, file, sizeof file, w->s->stem, fp, tag);
            int rows;
            if ((rc = write_series(c, w->latest[p], names[k], file, &rows, &tmax, &tbusy)) < 0)
                continue;
            if (rows == 0) {
                unlink(file);
                continue;
            }
            arr_str(&files, file);
            arr_str(&titles, e->pol[p]);
            arr_int(&colors, p + 1);
            sb_printf(&data, "%s %s", data.n ? "," : "", rel(c, file));
        }
        if (files.n + 1 == start)
            continue;
        char ptitle[256];
        if (strcmp(names[k], "util_total") == 0)
            snprintf(ptitle, sizeof ptitle, "all GPU types");
        else
            snprintf(ptitle, sizeof ptitle, "%s", names[k] + 5);
        arr_str(&panels, ptitle);
        arr_int(&first, start);
        arr_int(&last, files.n);
    }
    if (rc == 0 && panels.n > 0) {
        char image[PATH_MAX_LEN], title[1024], what[256];
        image_path(c, image, sizeof image, w->s->stem, "util");
        snprintf(what, sizeof what, "GPU utilization by GPU type, seed %lld", (long long)w->seed);
        /* the time axis ends a little after the last GPU was busy, in hours or days */
        double end = tbusy > 0 && 1.05 * tbusy < tmax ? 1.05 * tbusy : tmax;
        fig_title(title, sizeof title, w, what);
        struct sb cap = { 0 };
        cap_begin(&cap, w, title);
        cap_runs(&cap, w);
        sb_printf(&cap, "A panel per GPU type (the first: all types), a line per policy: the "
                  "fraction of the type's GPUs granted, mean over each sample period%s.\n",
                  end < tmax ? "; the time axis ends soon after the last busy GPU" : "");
        sb_printf(&cap, "Data:%s.\n", data.s ? data.s : "");
        struct sb v = { 0 };
        vars_begin(c, &v, image, title);
        gp_time_axis(&v, end);
        gp_arr(&v, "P", &panels);
        gp_arr(&v, "S", &first);
        gp_arr(&v, "E", &last);
        gp_arr(&v, "F", &files);
        gp_arr(&v, "T", &titles);
        gp_arr(&v, "C", &colors);
        rc = draw(c, "util.gp", &v, image, &cap);
        sb_free(&v);
        sb_free(&cap);
    }
    sb_free(&data);
    sb_free(&files.items);
    sb_free(&titles.items);
    sb_free(&colors.items);
    sb_free(&panels.items);
    sb_free(&first.items);
    sb_free(&last.items);
    free_names(names, nn);
    return rc;
}

/* Queue length over time, one line per policy.  The time axis ends a little after the queue
 * last held a job: a long tail of empty queue would squeeze the part worth reading. */
static int expfig_queue(struct ctx *c, const struct view *w)
{
    const struct exp *e = w->e;
    struct gparr files = { 0 }, titles = { 0 }, colors = { 0 };
    struct sb data = { 0 };
    double tmax = 0, tbusy = 0;
    int rc = 0;
    for (int p = 0; p < e->npol && rc == 0; p++) {
        if (w->latest[p] < 0)
            continue;
        char fp[FNAME], file[PATH_MAX_LEN];
        file_part(fp, e->pol[p]);
        data_path(c, file, sizeof file, w->s->stem, fp, "queue");
        int rows;
        if ((rc = write_series(c, w->latest[p], w->e->show->queue_series, file, &rows, &tmax,
                               &tbusy)) < 0)
            continue;
        if (rows == 0) {
            unlink(file);
            continue;
        }
        arr_str(&files, file);
        arr_str(&titles, e->pol[p]);
        arr_int(&colors, p + 1);
        sb_printf(&data, "%s %s", data.n ? "," : "", rel(c, file));
    }
    if (rc == 0 && files.n > 0) {
        char image[PATH_MAX_LEN], title[1024], what[256];
        image_path(c, image, sizeof image, w->s->stem, "queue");
        double end = tbusy > 0 && 1.1 * tbusy < tmax ? 1.1 * tbusy : tmax;
        snprintf(what, sizeof what, "%s over time, seed %lld", e->show->queue_label,
                 (long long)w->seed);
        fig_title(title, sizeof title, w, what);
        struct sb cap = { 0 };
        cap_begin(&cap, w, title);
        cap_runs(&cap, w);
        sb_printf(&cap, "A line per policy: %s (the %s sample)%s.\n", e->show->queue_label,
                  e->show->queue_series, end < tmax ? "; the time axis ends soon after the "
                                                     "last wait" : "");
        sb_printf(&cap, "Data:%s.\n", data.s ? data.s : "");
        struct sb v = { 0 };
        vars_begin(c, &v, image, title);
        gp_str(&v, "ylabel", e->show->queue_label);
        gp_time_axis(&v, end);
        gp_arr(&v, "F", &files);
        gp_arr(&v, "T", &titles);
        gp_arr(&v, "C", &colors);
        rc = draw(c, "series.gp", &v, image, &cap);
        sb_free(&v);
        sb_free(&cap);
    }
    sb_free(&data);
    sb_free(&files.items);
    sb_free(&titles.items);
    sb_free(&colors.items);
    return rc;
}

/* The latest run of policy p with the seed and setting of run r, or -1. */
static int64_t run_paired(const struct exp *e, int p, const struct erun *r)
{
    int64_t id = -1;
    for (int i = 0; i < e->nruns; i++)
        if (e->runs[i].pol == p && e->runs[i].seed == r->seed && e->runs[i].set == r->set)
            id = e->runs[i].id;
    return id;
}

/* 1 if policy p ran in setting k */
static int run_paired_any(const struct exp *e, int k, int p)
{
    for (int i = 0; i < e->nruns; i++)
        if (e->runs[i].set == k && e->runs[i].pol == p)
            return 1;
    return 0;
}

/* The baseline of a setting: --baseline, else fifo, else the policy of its first run; -1
 * when the setting did not run the one asked for. */
static int expfig_baseline(struct ctx *c, const struct view *w)
{
    const struct exp *e = w->e;
    const char *want = c->o->baseline;
    int first = -1;
    for (int i = 0; i < e->nruns; i++) {
        const struct erun *r = &e->runs[i];
        if (r->set != w->set)
            continue;
        if (strcmp(e->pol[r->pol], want ? want : "fifo") == 0)
            return r->pol;
        if (first < 0)
            first = r->pol;
    }
    return want ? -1 : first;
}

struct bar {
    double mean, lo, hi;
    int    n;                   /* seeds */
};

/* The ratio of policy p's metric to the baseline b's, over the seeds both ran in setting k:
 * one pair per seed, so n counts distinct seeds. */
static struct bar bar_of(struct ctx *c, const struct exp *e, int k, int p, int b,
                         const char *metric, double *ratio /* scratch, e->nruns */)
{
    int n = 0;
    for (int i = 0; i < e->nruns; i++) {
        const struct erun *r = &e->runs[i];
        /* each pair once: at the baseline's latest run with that seed in the setting */
        if (r->set != k || r->pol != b || run_paired(e, b, r) != r->id)
            continue;
        int64_t pid = run_paired(e, p, r);
        if (pid < 0)
            continue;
        double bv = metric_of(c, r->id, metric), pv = metric_of(c, pid, metric);
        if (isfinite(bv) && isfinite(pv) && bv != 0)
            ratio[n++] = pv / bv;
    }
    struct bar out = { NAN, NAN, NAN, n };
    if (n > 0) {
        double sd, half;
        stats_mean_ci(ratio, (size_t)(n), &out.mean, &sd, &half);
        out.lo = out.mean - half;       /* NaN with one seed */
        out.hi = out.mean + half;
        /* a ratio of two metrics that are never negative is not either */
        double blo, bhi;
        if (metric_bounds(metric, &blo, &bhi) && out.lo < 0)
            out.lo = 0;
    }
    return out;
}

/* Summary bars: each metric of each policy as a ratio to the baseline's, same seed.  Policies
 * and metrics without any ratio are left out of the figure (and an all-missing column would
 * crash gnuplot 5.4's labels). */
static int expfig_bars(struct ctx *c, const struct view *w)
{
    const struct exp *e = w->e;
    int b = expfig_baseline(c, w);
    if (b < 0 || e->npol < 2)
        return 0;
    const char *const *mets = c->metrics ? (const char *const *)c->metrics
                                         : e->show->bar_metrics;
    int nm = c->metrics ? c->nmetrics : count_names(e->show->bar_metrics);
    struct bar *bars = malloc((size_t)nm * (size_t)e->npol * sizeof *bars);
    double *ratio = malloc((size_t)(e->nruns + 1) * sizeof *ratio);
    int *pol_used = calloc((size_t)e->npol, sizeof *pol_used);
    int *met_used = calloc((size_t)nm, sizeof *met_used);
    int rc = 0, npol = 0, nseeds_max = 0, nseeds_min = -1;
    if (bars == NULL || ratio == NULL || pol_used == NULL || met_used == NULL)
        rc = err_run(c->err, "out of memory");
    for (int m = 0; rc == 0 && m < nm; m++)
        for (int p = 0; p < e->npol; p++) {
            if (p == b)
                continue;
            struct bar *x = &bars[m * e->npol + p];
            *x = bar_of(c, e, w->set, p, b, mets[m], ratio);
            if (x->n == 0)
                continue;
            npol += !pol_used[p];
            pol_used[p] = met_used[m] = 1;
            nseeds_max = x->n > nseeds_max ? x->n : nseeds_max;
            nseeds_min = nseeds_min < 0 || x->n < nseeds_min ? x->n : nseeds_min;
        }
    char file[PATH_MAX_LEN];
    data_path(c, file, sizeof file, w->s->stem, NULL, "summary");
    FILE *f = rc == 0 && npol > 0 ? data_open(c, file) : NULL;
    if (rc == 0 && npol > 0 && f == NULL)
        rc = -1;
    if (f != NULL) {
        fprintf(f, "# %s: each metric of each policy / the baseline %s's, same seed; mean over "
                   "seeds, 95%% CI (Student t; NaN with one seed)\n", e->name, e->pol[b]);
        if (*w->s->note != '\0')
            fprintf(f, "# settings: %s\n", w->s->note);
        for (int p = 0; p < e->npol; p++)
            if (p != b && !pol_used[p] && run_paired_any(e, w->set, p))
                fprintf(f, "# %s: left out, no seed in common with %s\n", e->pol[p], e->pol[b]);
        fprintf(f, "# metric");
        for (int p = 0; p < e->npol; p++)
            if (pol_used[p])
                fprintf(f, " | %s: mean lo hi seeds", e->pol[p]);
        fprintf(f, "\n");
        for (int m = 0; m < nm; m++) {
            if (!met_used[m])
                continue;
            fprintf(f, "%s", mets[m]);
            for (int p = 0; p < e->npol; p++)
                if (pol_used[p]) {
                    const struct bar *x = &bars[m * e->npol + p];
                    put_num(f, x->mean);
                    put_num(f, x->lo);
                    put_num(f, x->hi);
                    fprintf(f, " %d", x->n);
                }
            fprintf(f, "\n");
        }
        rc = data_close(c, f, file);
    }
    if (rc == 0 && npol > 0) {
        struct gparr titles = { 0 }, colors = { 0 }, ticks = { 0 }, dirs = { 0 };
        struct sb cap = { 0 };
        char image[PATH_MAX_LEN], title[1024], what[256], sub[256], seeds[64], ylabel[256];
        image_path(c, image, sizeof image, w->s->stem, "summary");
        snprintf(what, sizeof what, "metrics relative to %s", e->pol[b]);
        fig_title(title, sizeof title, w, what);
        cap_begin(&cap, w, title);
        for (int p = 0; p < e->npol; p++)
            if (pol_used[p]) {
                arr_str(&titles, e->pol[p]);
                arr_int(&colors, p + 1);
            }
        /* the axis: linear from 0, or logarithmic from 1 when the ratios span 20x or more */
        double top = 1, lowest = INFINITY, least = INFINITY;
        int ticklines = 1;
        for (int m = 0; m < nm; m++) {
            if (!met_used[m])
                continue;
            struct report_metric info;
            report_metric_info(mets[m], &info);
            char tick[256];
            ticklines = imax(ticklines, wrap_label(info.label, 14, tick, sizeof tick));
            arr_str(&ticks, tick);
            arr_str(&dirs, info.higher_better ? "\xe2\x86\x91 better" /* up */
                                              : "\xe2\x86\x93 better");
            sb_printf(&cap, "%s%s (%s%s)", ticks.n > 1 ? "; " : "Metrics: ", info.label,
                      mets[m], info.higher_better ? ", higher is better" : "");
            for (int p = 0; p < e->npol; p++) {
                const struct bar *x = &bars[m * e->npol + p];
                if (p == b || x->n == 0)
                    continue;
                top = fmax(top, isfinite(x->hi) ? fmax(x->hi, x->mean) : x->mean);
                if (x->mean > 0)
                    least = fmin(least, x->mean);
                lowest = fmin(lowest, x->mean > 0 && x->lo > 0 ? fmin(x->lo, x->mean)
                                      : x->mean > 0         ? x->mean
                                                            : INFINITY);
            }
        }
        sb_printf(&cap, ".\n");
        int logy = isfinite(least) && top / least >= 20;
        if (nseeds_min == nseeds_max)
            snprintf(seeds, sizeof seeds, "%d", nseeds_max);
        else
            snprintf(seeds, sizeof seeds, "%d-%d", nseeds_min, nseeds_max);
        if (nseeds_max > 1)
            snprintf(sub, sizeof sub, "mean over %s seeds; error bars: 95%% CI (Student t)", seeds);
        else
            snprintf(sub, sizeof sub, "one seed: no error bars");
        sb_printf(&cap, "Bars: each policy's metric over %s's in the run with the same seed and "
                  "settings (%s)%s; the dashed line is %s = 1%s.\n", e->pol[b],
                  nseeds_max > 1 ? "mean over the seeds both ran" : "one seed",
                  nseeds_max > 1 ? ", with its 95% confidence interval (Student t, n-1 degrees "
                                   "of freedom) as the error bar" : "",
                  e->pol[b], logy ? "; the axis is logarithmic (the ratios span 20 times or "
                                    "more) and bars start at 1" : "");
        for (int p = 0; p < e->npol; p++)
            if (p != b && !pol_used[p] && run_paired_any(e, w->set, p))
                sb_printf(&cap, "%s is left out: no seed in common with %s.\n", e->pol[p],
                          e->pol[b]);
        sb_printf(&cap, "Data: %s.\n", rel(c, file));
        snprintf(ylabel, sizeof ylabel, "metric / %s's", e->pol[b]);
        struct sb v = { 0 };
        vars_begin(c, &v, image, title);
        gp_str(&v, "subtitle", sub);
        gp_str(&v, "ylabel", ylabel);
        gp_str(&v, "base", e->pol[b]);
        gp_str(&v, "datafile", file);
        gp_num(&v, "logy", logy);
        gp_num(&v, "lowest", logy ? lowest : 0);
        gp_num(&v, "top", top);
        gp_num(&v, "ticklines", ticklines + 1);
        gp_arr(&v, "T", &titles);
        gp_arr(&v, "C", &colors);
        gp_arr(&v, "L", &ticks);
        gp_arr(&v, "D", &dirs);
        rc = draw(c, "bars.gp", &v, image, &cap);
        sb_free(&v);
        sb_free(&cap);
    }
    free(bars);
    free(ratio);
    free(pol_used);
    free(met_used);
    return rc;
}

/* The plain setting (the experiment as run without --set) keeps the experiment's own file
 * names: the one plain_config names, else the setting of the first run.  The others add their
 * key's first 8 digits.  With several settings each one's note says what differs. */
static int name_settings(struct ctx *c, struct exp *e)
{
    int plain = 0;
    char *ref = c->o->plain_config ? c->o->plain_config(e->name) : NULL;
    char key[17];
    if (ref != NULL && report_config_key(ref, NULL, 0, key) == 0)
        for (int k = 0; k < e->nset; k++)
            if (strcmp(e->set[k].key, key) == 0)
                plain = k;
    free(ref);
    const char **configs = malloc(((size_t)e->nset + 1) * sizeof *configs);
    char **notes = calloc((size_t)e->nset + 1, sizeof *notes);
    int *order = malloc(((size_t)e->nset + 1) * sizeof *order);
    int rc = configs == NULL || notes == NULL || order == NULL ? -1 : 0;
    /* the plain setting first: the diff lists paths in the order they first appear */
    for (int k = 0, i = 1; rc == 0 && k < e->nset; k++)
        order[k == plain ? 0 : i++] = k;
    for (int j = 0; rc == 0 && j < e->nset; j++)
        configs[j] = e->set[order[j]].config;
    const char *const skip[] = { "name" };
    if (rc == 0 && report_config_diff(configs, (size_t)e->nset, skip, 1, notes) < 0)
        rc = -1;
    for (int j = 0; rc == 0 && j < e->nset; j++) {
        struct eset *s = &e->set[order[j]];
        s->note = notes[j];
        if (order[j] == plain)
            snprintf(s->stem, sizeof s->stem, "%s", e->fname);
        else
            snprintf(s->stem, sizeof s->stem, "%s_%.8s", e->fname, s->key);
    }
    free(order);
    free(configs);
    free(notes);
    return rc < 0 ? err_run(c->err, "out of memory") : 0;
}

static int plot_experiment(struct ctx *c, const char *name)
{
    struct exp e = { .name = name, .show = display_of(c, "experiment", name) };
    if (e.show == NULL)
        return err_input(c->err, NULL, 0, "--experiment", "experiment '%s' is of a domain "
                         "this hetsim does not know: nothing to draw", name);
    file_part(e.fname, name);
    int rc = expfig_load(c, &e);
    if (rc == 0 && e.npol > 0)
        rc = name_settings(c, &e);
    struct view w = { .latest = malloc(((size_t)e.npol + 1) * sizeof *w.latest) };
    const struct erun **scratch = malloc(((size_t)e.nruns + 1) * sizeof *scratch);
    if (rc == 0 && (w.latest == NULL || scratch == NULL))
        rc = err_run(c->err, "out of memory");
    for (int k = 0; rc == 0 && k < e.nset; k++) {
        view_of(&e, k, scratch, &w);
        for (int i = 0; rc == 0 && i < e.show->ncdfs; i++)
            rc = expfig_cdf(c, &w, &e.show->cdfs[i]);
        if (rc == 0 && e.show->util_panels)
            rc = expfig_util(c, &w);
        if (rc == 0 && e.show->queue_series != NULL)
            rc = expfig_queue(c, &w);
        if (rc == 0)
            rc = expfig_bars(c, &w);
    }
    free(w.latest);
    free(scratch);
    expfig_free(&e);
    if (rc < 0)
        err_prefix(c->err, "plotting experiment '%s': ", name);
    return rc;
}

/* ---- sweeps ---- */

struct axis {
    char *key;
    int   numeric;              /* every value is a JSON number */
    int   nvals;                /* distinct values */
};

struct srun {
    int64_t id, seed;
    int     pol;
    int     res;                /* index into sweep_runs.res */
};

struct sweep_runs {
    const char  *name;
    char         fname[FNAME];
    struct axis *ax;            /* swept axes other than policy and seed */
    int          nax;
    char       **pol;
    int          npol;
    struct srun *runs;          /* in id order */
    int          nruns;
    char       **text;          /* [run * nax + axis]: the value as text, NULL when absent */
    double      *num;           /* [run * nax + axis]: the value when numeric */
    char       **res;           /* keys of the configs without the axes, policy and seed */
    char       **res_config;    /* the config of the first run of each */
    char       **res_note;      /* with several: what differs between them, else NULL */
    int          nres;
};

static void sweep_runs_free(struct sweep_runs *s)
{
    for (int i = 0; i < s->nax; i++)
        free(s->ax[i].key);
    free(s->ax);
    for (int i = 0; i < s->npol; i++)
        free(s->pol[i]);
    free(s->pol);
    if (s->text != NULL)
        for (size_t i = 0; i < (size_t)s->nruns * (size_t)s->nax; i++)
            free(s->text[i]);
    free(s->text);
    free(s->num);
    free_names(s->res, s->nres);
    free_names(s->res_config, s->nres);
    if (s->res_note != NULL)
        free_names(s->res_note, s->nres);
    free(s->runs);
}

/* index of `s` in names[0..*n-1], appending a copy when absent; -1 when out of memory */
static int intern(char ***names, int *n, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*names)[i], s) == 0)
            return i;
    char **nn = realloc(*names, (size_t)(*n + 1) * sizeof *nn);
    if (nn == NULL)
        return -1;
    *names = nn;
    if ((nn[*n] = strdup(s)) == NULL)
        return -1;
    return (*n)++;
}

static int sweep_runs_load(struct ctx *c, struct sweep_runs *s)
{
    sqlite3_stmt *q;
    if (prepare(c, "SELECT key, count(*) = count(num), count(DISTINCT value) FROM run_params "
                   "WHERE sweep = ?1 AND key NOT IN ('policy', 'seed') GROUP BY key "
                   "ORDER BY min(rowid)", &q) < 0)
        return -1;
    sqlite3_bind_text(q, 1, s->name, -1, SQLITE_STATIC);
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        struct axis *na = realloc(s->ax, (size_t)(s->nax + 1) * sizeof *na);
        if (na == NULL) {
            rc = err_run(c->err, "out of memory");
            break;
        }
        s->ax = na;
        struct axis *a = &s->ax[s->nax];
        if ((a->key = strdup((const char *)sqlite3_column_text(q, 0))) == NULL) {
            rc = err_run(c->err, "out of memory");
            break;
        }
        a->numeric = sqlite3_column_int(q, 1);
        a->nvals = sqlite3_column_int(q, 2);
        s->nax++;
    }
    sqlite3_finalize(q);
    if (rc < 0 || prepare(c, "SELECT id, policy, seed, config_json FROM runs WHERE "
                             "stop_reason != 'running' AND id IN (SELECT run_id FROM run_params "
                             "WHERE sweep = ?1) ORDER BY id", &q) < 0)
        return -1;
    sqlite3_bind_text(q, 1, s->name, -1, SQLITE_STATIC);
    /* what the axes do not say: runs of one point made with other --set values differ here */
    const char **axes = malloc(((size_t)s->nax + 2) * sizeof *axes);
    if (axes == NULL)
        rc = err_run(c->err, "out of memory");
    for (int a = 0; rc == 0 && a < s->nax; a++)
        axes[a] = s->ax[a].key;
    if (rc == 0)
        axes[s->nax] = "name";
    int cap = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        if (s->nruns == cap) {
            cap = cap ? 2 * cap : 64;
            struct srun *nr = realloc(s->runs, (size_t)cap * sizeof *nr);
            if (nr == NULL) {
                rc = err_run(c->err, "out of memory");
                break;
            }
            s->runs = nr;
        }
        struct srun *r = &s->runs[s->nruns];
        r->id = sqlite3_column_int64(q, 0);
        r->seed = sqlite3_column_int64(q, 2);
        r->pol = intern(&s->pol, &s->npol, (const char *)sqlite3_column_text(q, 1));
        const char *cfg = (const char *)sqlite3_column_text(q, 3);
        char key[17];
        int before = s->nres;
        r->res = report_config_key(cfg, axes, (size_t)s->nax, key) < 0
                     ? -1
                     : intern(&s->res, &s->nres, key);
        if (r->res >= 0 && s->nres > before) {
            char **nc = realloc(s->res_config, (size_t)s->nres * sizeof *nc);
            if (nc != NULL)
                s->res_config = nc;
            if (nc == NULL || (nc[r->res] = strdup(cfg ? cfg : "")) == NULL) {
                free(s->res[--s->nres]);    /* keep the two lists in step */
                r->res = -1;
            }
        }
        if (r->pol < 0 || r->res < 0)
            rc = err_run(c->err, "out of memory");
        else
            s->nruns++;
    }
    sqlite3_finalize(q);
    if (rc == 0 && s->nres > 1) {
        if ((s->res_note = calloc((size_t)s->nres, sizeof *s->res_note)) == NULL ||
            report_config_diff((const char *const *)s->res_config, (size_t)s->nres, axes,
                               (size_t)s->nax + 1, s->res_note) < 0)
            rc = err_run(c->err, "out of memory");
    }
    free(axes);
    if (rc < 0)
        return -1;
    size_t cells = (size_t)s->nruns * (size_t)s->nax;
    s->text = calloc(cells + 1, sizeof *s->text);
    s->num = calloc(cells + 1, sizeof *s->num);
    if (s->text == NULL || s->num == NULL)
        return err_run(c->err, "out of memory");
    /* JSON strings are shown without their quotes */
    if (prepare(c, "SELECT key, CASE WHEN json_valid(value) AND json_type(value) = 'text' "
                   "THEN json_extract(value, '$') ELSE value END, num FROM run_params "
                   "WHERE run_id = ?1 AND sweep = ?2", &q) < 0)
        return -1;
    for (int i = 0; rc == 0 && i < s->nruns; i++) {
        sqlite3_bind_int64(q, 1, s->runs[i].id);
        sqlite3_bind_text(q, 2, s->name, -1, SQLITE_STATIC);
        while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
            const char *key = (const char *)sqlite3_column_text(q, 0);
            int a = 0;
            while (a < s->nax && strcmp(s->ax[a].key, key) != 0)
                a++;
            if (a == s->nax)
                continue;       /* policy or seed */
            size_t k = (size_t)i * (size_t)s->nax + (size_t)a;
            const char *t = (const char *)sqlite3_column_text(q, 1);
            if ((s->text[k] = strdup(t ? t : "null")) == NULL)
                rc = err_run(c->err, "out of memory");
            s->num[k] = sqlite3_column_type(q, 2) == SQLITE_NULL ? NAN
                                                                 : sqlite3_column_double(q, 2);
        }
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    return rc;
}

struct pt {
    int     pol, comb, line;        /* lines are ordered by policy, then combination */
    double  x;
    int64_t seed, id;
    double  v;
};

static int pt_order(const void *pa, const void *pb)
{
    const struct pt *a = pa, *b = pb;
    if (a->pol != b->pol)
        return a->pol < b->pol ? -1 : 1;
    if (a->comb != b->comb)
        return a->comb < b->comb ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->seed != b->seed)
        return a->seed < b->seed ? -1 : 1;
    return a->id > b->id ? -1 : a->id < b->id;      /* latest first */
}

struct lines {
    char **key, **label, **combo, **cat;
    int    n, ncombo, ncat;
    int   *pol, *comb;              /* per line: policy and combination of the other axes */
};

static void lines_free(struct lines *l)
{
    free_names(l->key, l->n);
    free_names(l->label, l->n);
    free_names(l->combo, l->ncombo);
    free_names(l->cat, l->ncat);
    free(l->pol);
    free(l->comb);
}

/* The line of run i in the figure of axis x: its policy and the values of the other axes
 * that take several values.  Returns the line index, -1 when out of memory. */
static int line_of(const struct sweep_runs *s, int i, int x, struct lines *l)
{
    struct sb combo = { 0 }, label = { 0 };
    sb_printf(&label, "%s", s->pol[s->runs[i].pol]);
    for (int a = 0; a < s->nax; a++) {
        if (a == x || s->ax[a].nvals < 2)
            continue;
        const char *t = s->text[(size_t)i * (size_t)s->nax + (size_t)a];
        sb_printf(&combo, "%s\x1f", t ? t : "\x1e");
        sb_printf(&label, ", %s=%s", s->ax[a].key, t ? t : "(unset)");
    }
    if (s->nres > 1) {          /* settings the axes do not name: a line of their own */
        sb_printf(&combo, "%d\x1f", s->runs[i].res);
        sb_printf(&label, ", %s", s->res_note[s->runs[i].res]);
    }
    int k = -1;
    if (!combo.oom && !label.oom) {
        const char *ck = combo.s ? combo.s : "";
        int cb = intern(&l->combo, &l->ncombo, ck);
        char pk[32];
        snprintf(pk, sizeof pk, "%d\x1f", s->runs[i].pol);
        struct sb key = { 0 };
        sb_printf(&key, "%s%s", pk, ck);
        int before = l->n;
        if (cb >= 0 && !key.oom)
            k = intern(&l->key, &l->n, key.s);
        sb_free(&key);
        if (k >= 0 && l->n > before) {
            int *np = realloc(l->pol, (size_t)l->n * sizeof *np);
            int *nc = np ? realloc(l->comb, (size_t)l->n * sizeof *nc) : NULL;
            char **nl = nc ? realloc(l->label, (size_t)l->n * sizeof *nl) : NULL;
            if (np)
                l->pol = np;
            if (nc)
                l->comb = nc;
            if (nl)
                l->label = nl;
            if (nl == NULL || (nl[k] = strdup(label.s)) == NULL) {
                l->n--;         /* keep lines_free consistent */
                free(l->key[l->n]);
                k = -1;
            } else {
                l->pol[k] = s->runs[i].pol;
                l->comb[k] = cb;
            }
        }
    }
    sb_free(&combo);
    sb_free(&label);
    return k;
}

/* metric m against axis x, one line per policy x combination of the other axes */
static int sweep_figure(struct ctx *c, const struct sweep_runs *s, int x, const char *m,
                        const char *noun)
{
    const struct axis *ax = &s->ax[x];
    struct pt *pts = malloc((size_t)(s->nruns + 1) * sizeof *pts);
    struct lines l = { 0 };
    int np = 0, rc = 0;
    if (pts == NULL)
        return err_run(c->err, "out of memory");
    for (int i = 0; i < s->nruns && rc == 0; i++) {
        size_t k = (size_t)i * (size_t)s->nax + (size_t)x;
        if (s->text[k] == NULL)
            continue;
        double v = metric_of(c, s->runs[i].id, m);
        if (!isfinite(v))
            continue;
        struct pt *p = &pts[np];
        p->line = line_of(s, i, x, &l);
        int cat = ax->numeric ? 0 : intern(&l.cat, &l.ncat, s->text[k]);
        p->x = ax->numeric ? s->num[k] : cat;
        if (p->line < 0 || cat < 0) {
            rc = err_run(c->err, "out of memory");
            break;
        }
        p->pol = l.pol[p->line];
        p->comb = l.comb[p->line];
        p->seed = s->runs[i].seed;
        p->id = s->runs[i].id;
        p->v = v;
        np++;
    }
    if (rc < 0 || np == 0) {
        free(pts);
        lines_free(&l);
        return rc;
    }
    qsort(pts, (size_t)np, sizeof *pts, pt_order);

    char mpart[FNAME], apart[FNAME], tag[2 * FNAME + 8], file[PATH_MAX_LEN];
    file_part(mpart, m);
    file_part(apart, ax->key);
    snprintf(tag, sizeof tag, "%s_vs_%s", mpart, apart);
    data_path(c, file, sizeof file, s->fname, NULL, tag);
    FILE *f = data_open(c, file);
    if (f == NULL) {
        free(pts);
        lines_free(&l);
        return -1;
    }
    fprintf(f, "# sweep %s: %s against %s; one block per line (gnuplot index)\n", s->name, m,
            ax->key);
    if (!ax->numeric)
        for (int k = 0; k < l.ncat; k++)
            fprintf(f, "# x = %d: %s\n", k, l.cat[k]);
    double blo, bhi;
    int bounded = metric_bounds(m, &blo, &bhi);
    fprintf(f, "# x, mean over seeds, 95%% CI half-width (NaN: one seed), seeds, sample sd, "
               "the interval's ends clipped at the metric's natural bounds (%s)\n",
            !bounded ? "none known" : isinf(bhi) ? ">= 0" : "0 to 1");
    struct gparr titles = { 0 }, colors = { 0 }, dashes = { 0 }, cats = { 0 }, xs = { 0 };
    double *vals = malloc((size_t)np * sizeof *vals);
    double *xdist = malloc((size_t)np * sizeof *xdist);     /* the distinct x values */
    int nxd = 0;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    int nmin = -1, nmax = 0, blocks = 0;
    if (vals == NULL || xdist == NULL)
        rc = err_run(c->err, "out of memory");
    for (int i = 0; rc == 0 && i < np;) {
        int line = pts[i].line;
        fprintf(f, "%s# %s\n", blocks ? "\n\n" : "", l.label[line]);
        arr_str(&titles, l.label[line]);
        arr_int(&colors, l.pol[line] + 1);
        arr_int(&dashes, l.comb[line] + 1);
        blocks++;
        while (i < np && pts[i].line == line) {
            double xv = pts[i].x;
            int n = 0;
            for (; i < np && pts[i].line == line && pts[i].x == xv; i++)
                if (n == 0 || pts[i].seed != pts[i - 1].seed)
                    vals[n++] = pts[i].v;       /* the latest run of each seed */
            double mean, sd, half;
            stats_mean_ci(vals, (size_t)(n), &mean, &sd, &half);
            fprintf(f, "%.10g", xv);
            put_num(f, mean);
            put_num(f, half);
            fprintf(f, " %d", n);
            put_num(f, sd);
            double lo = mean - half, hi = mean + half;
            if (bounded) {
                lo = lo < blo ? blo : lo;
                hi = hi > bhi ? bhi : hi;
            }
            put_num(f, lo);
            put_num(f, hi);
            fprintf(f, "\n");
            if (isfinite(mean)) {
                ymin = mean < ymin ? mean : ymin;
                ymax = mean > ymax ? mean : ymax;
            }
            xmin = xv < xmin ? xv : xmin;
            xmax = xv > xmax ? xv : xmax;
            int seen = 0;
            for (int k = 0; k < nxd && !seen; k++)
                seen = xdist[k] == xv;
            if (!seen)
                xdist[nxd++] = xv;
            nmin = nmin < 0 || n < nmin ? n : nmin;
            nmax = n > nmax ? n : nmax;
        }
    }
    free(vals);
    free(pts);
    for (int k = 0; k < nxd && ax->numeric; k++) {
        if (xs.n++ > 0)
            sb_printf(&xs.items, ",");
        sb_printf(&xs.items, "%.10g", xdist[k]);
    }
    free(xdist);
    if (data_close(c, f, file) < 0 && rc == 0)
        rc = -1;
    if (rc == 0) {
        for (int k = 0; k < l.ncat; k++)
            arr_str(&cats, l.cat[k]);
        char image[PATH_MAX_LEN], title[512], sub[256], ylabel[256], seeds[64], xlabel[256];
        image_path(c, image, sizeof image, s->fname, tag);
        double yscale = metric_axis(m, ymax, ylabel, sizeof ylabel);
        struct report_metric info;
        report_metric_info(m, &info);
        int falls;
        axis_label(ax->key, noun, xlabel, sizeof xlabel, &falls);
        snprintf(title, sizeof title, "sweep %s: %s", s->name, info.label);
        if (nmin == nmax)
            snprintf(seeds, sizeof seeds, "%d seed%s", nmax, nmax == 1 ? "" : "s");
        else
            snprintf(seeds, sizeof seeds, "%d-%d seeds", nmin, nmax);
        if (nmax > 1)
            snprintf(sub, sizeof sub, "point: mean over %s; error bar: 95%% CI (Student t)%s",
                     seeds, nmin == 1 ? ", none with one seed" : "");
        else
            snprintf(sub, sizeof sub, "one seed per point: no error bars");
        struct sb cap = { 0 };
        sb_printf(&cap, "%s.\n", title);
        sb_printf(&cap, "y: %s, the metric %s%s.  x: the swept field %s (%s)%s.\n", ylabel, m,
                  info.higher_better ? " (higher is better)" : "", ax->key, xlabel,
                  ax->numeric && falls ? ", from its largest value, so that load grows to the "
                                         "right" : "");
        sb_printf(&cap, "A point is the mean over %s (the latest run of each seed)%s.  Lines:",
                  seeds, nmax > 1 ? ", its error bar the 95% confidence interval (Student t, "
                                    "n-1 degrees of freedom) stopped at the metric's natural "
                                    "bounds" : "");
        for (int k = 0; k < l.n; k++)
            sb_printf(&cap, "%s %s", k ? ";" : "", l.label[k]);
        sb_printf(&cap, ".\n");
        if (s->nres > 1)
            sb_printf(&cap, "Some runs of the sweep differ in settings no axis names: each "
                      "setting has lines of its own, labelled with what differs.\n");
        sb_printf(&cap, "Data: %s.\n", rel(c, file));
        struct sb v = { 0 };
        vars_begin(c, &v, image, title);
        gp_str(&v, "subtitle", sub);
        gp_str(&v, "xlabel", xlabel);
        gp_str(&v, "ylabel", ylabel);
        gp_str(&v, "datafile", file);
        gp_num(&v, "cat", !ax->numeric);
        /* log scales where values span decades (or where --log says) */
        gp_num(&v, "logx", ax->numeric && xmin > 0 &&
                               (xmax / xmin >= 20 || (c->o->log & PLOT_LOG_X)));
        gp_num(&v, "logy", ymin > 0 && (ymax / ymin >= 100 || (c->o->log & PLOT_LOG_Y)));
        gp_num(&v, "ymeanmin", ymin);
        gp_num(&v, "yscale", yscale);
        /* load grows to the right: an axis whose smaller values are more load is reversed */
        gp_num(&v, "revx", ax->numeric && falls);
        gp_num(&v, "xmin", xmin);
        gp_num(&v, "xmax", xmax);
        gp_arr(&v, "T", &titles);
        gp_arr(&v, "C", &colors);
        gp_arr(&v, "D", &dashes);
        gp_arr(&v, "XL", &cats);
        if (xs.n == 0)
            sb_printf(&v, "array XV[1] = [NaN]; ");
        else
            gp_arr(&v, "XV", &xs);
        rc = draw(c, "sweep.gp", &v, image, &cap);
        sb_free(&v);
        sb_free(&cap);
    }
    sb_free(&titles.items);
    sb_free(&colors.items);
    sb_free(&dashes.items);
    sb_free(&cats.items);
    sb_free(&xs.items);
    lines_free(&l);
    return rc;
}

static int plot_sweep(struct ctx *c, const char *name)
{
    struct sweep_runs s = { .name = name };
    file_part(s.fname, name);
    int rc = sweep_runs_load(c, &s);
    const struct display *show = display_of(c, "sweep", name);
    if (show == NULL) {
        sweep_runs_free(&s);
        return err_input(c->err, NULL, 0, "--sweep", "sweep '%s' is of a domain this hetsim "
                         "does not know: nothing to draw", name);
    }
    const char *const *dflt = show->sweep_metrics;
    const char *const *mets = c->metrics ? (const char *const *)c->metrics : dflt;
    int nm = c->metrics ? c->nmetrics : count_names(dflt);
    for (int a = 0; rc == 0 && a < s.nax; a++)
        for (int m = 0; rc == 0 && m < nm && s.ax[a].nvals >= 2; m++)
            rc = sweep_figure(c, &s, a, mets[m], show->entity);
    sweep_runs_free(&s);
    if (rc < 0)
        err_prefix(c->err, "plotting sweep '%s': ", name);
    return rc;
}

/* ---- options and the whole database ---- */

/* 1 if `sql` with ?1 = arg returns a row */
static int exists(struct ctx *c, const char *sql, const char *arg)
{
    sqlite3_stmt *q;
    if (prepare(c, sql, &q) < 0)
        return -1;
    if (arg != NULL)
        sqlite3_bind_text(q, 1, arg, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    return rc;
}

/* Split the --metric values (names or comma lists) into c->metrics and check each. */
static int split_metrics(struct ctx *c)
{
    const struct plot_opts *o = c->o;
    for (int i = 0; i < o->nmetrics; i++) {
        const char *p = o->metrics[i];
        for (;;) {
            size_t len = strcspn(p, ",");
            while (len > 0 && *p == ' ')
                p++, len--;
            while (len > 0 && p[len - 1] == ' ')
                len--;
            if (len == 0)
                return err_input(c->err, NULL, 0, "--metric", "empty metric name in '%s'",
                                 o->metrics[i]);
            char **nm = realloc(c->metrics, (size_t)(c->nmetrics + 1) * sizeof *nm);
            if (nm == NULL)
                return err_run(c->err, "out of memory");
            c->metrics = nm;
            if ((nm[c->nmetrics] = strndup(p, len)) == NULL)
                return err_run(c->err, "out of memory");
            const char *name = nm[c->nmetrics++];
            int e = exists(c, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", name);
            if (e < 0)
                return -1;
            if (e == 0)
                return err_input(c->err, NULL, 0, "--metric", "no run in %s has a metric '%s'",
                                 o->db_path, name);
            p += strcspn(p, ",");
            if (*p == '\0')
                break;
            p++;
        }
    }
    return 0;
}

static int check_options(struct ctx *c)
{
    const struct plot_opts *o = c->o;
    int e = exists(c, "SELECT 1 FROM runs WHERE stop_reason != 'running' LIMIT 1", NULL);
    if (e < 0)
        return -1;
    if (e == 0)
        return err_input(c->err, o->db_path, 0, NULL,
                         "no runs to plot (write some first: hetsim run default --db %s)",
                         o->db_path);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT 1 FROM runs WHERE experiment = ?1 %s LIMIT 1",
             c->has_params ? unchanged_sql : "");
    for (int i = 0; i < o->nexperiments; i++) {
        if ((e = exists(c, "SELECT 1 FROM runs WHERE experiment = ?1 LIMIT 1",
                        o->experiments[i])) <= 0)
            return e < 0 ? -1
                         : err_input(c->err, NULL, 0, "--experiment",
                                     "no runs of experiment '%s' in %s", o->experiments[i],
                                     o->db_path);
        if ((e = exists(c, sql, o->experiments[i])) <= 0)
            return e < 0 ? -1
                         : err_input(c->err, NULL, 0, "--experiment",
                                     "every run of '%s' in %s was changed by a sweep axis: "
                                     "plot its sweep (--sweep)", o->experiments[i],
                                     o->db_path);
    }
    for (int i = 0; i < o->nsweeps; i++)
        if (!c->has_params ||
            (e = exists(c, "SELECT 1 FROM run_params WHERE sweep = ?1 LIMIT 1", o->sweeps[i])) <=
                0)
            return e < 0 ? -1
                         : err_input(c->err, NULL, 0, "--sweep", "no sweep '%s' in %s",
                                     o->sweeps[i], o->db_path);
    if (o->baseline != NULL &&
        (e = exists(c, "SELECT 1 FROM runs WHERE policy = ?1 LIMIT 1", o->baseline)) <= 0)
        return e < 0 ? -1
                     : err_input(c->err, NULL, 0, "--baseline", "no runs of policy '%s' in %s",
                                 o->baseline, o->db_path);
    return split_metrics(c);
}

/* Call fn for each name the query returns (experiments or sweeps). */
static int for_each(struct ctx *c, const char *sql, int (*fn)(struct ctx *, const char *))
{
    sqlite3_stmt *q;
    if (prepare(c, sql, &q) < 0)
        return -1;
    char **names = NULL;
    int n = 0, rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW)
        if (intern(&names, &n, (const char *)sqlite3_column_text(q, 0)) < 0)
            rc = err_run(c->err, "out of memory");
    sqlite3_finalize(q);
    for (int i = 0; rc == 0 && i < n; i++)
        rc = fn(c, names[i]);
    free_names(names, n);
    return rc;
}

static int plot_db(struct ctx *c)
{
    const struct plot_opts *o = c->o;
    int e = exists(c, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'",
                   NULL);
    if (e <= 0)
        return e < 0 ? -1 : err_input(c->err, o->db_path, 0, NULL, "not a hetsim database");
    if ((e = exists(c, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                       "name = 'run_params'", NULL)) < 0)
        return -1;
    c->has_params = e;
    if (check_options(c) < 0)
        return -1;
    char probe[PATH_MAX_LEN];
    snprintf(probe, sizeof probe, "%s/data/x", o->out_dir);
    if (path_make_parent(probe) < 0)
        return err_run(c->err, "%s: cannot create the output directory: %s", o->out_dir,
                       strerror(errno));
    if (prepare(c, "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2", &c->metric_q) <
        0)
        return -1;
    int all = o->nexperiments == 0 && o->nsweeps == 0, rc = 0;
    if (all)
        rc = for_each(c, "SELECT DISTINCT experiment FROM runs ORDER BY experiment",
                      plot_experiment);
    for (int i = 0; rc == 0 && i < o->nexperiments; i++)
        rc = plot_experiment(c, o->experiments[i]);
    if (rc == 0 && all && c->has_params)
        rc = for_each(c, "SELECT DISTINCT sweep FROM run_params ORDER BY sweep", plot_sweep);
    for (int i = 0; rc == 0 && i < o->nsweeps; i++)
        rc = plot_sweep(c, o->sweeps[i]);
    return rc;
}

/* The formats: gnuplot's terminal with its options, and the scales that make every one the
 * same figure.  The templates size a figure in pixels and its fonts in points, which pngcairo
 * and svg draw a pixel each; a PDF is sized at 96 pixels to the inch, its fonts and lines
 * scaled to match (pdfcairo's own scales are 0.5 and half a point). */
static const struct { const char *format, *term; double sz, fs; } formats[] = {
    { "png", "pngcairo", 1, 1 },
    { "svg", "svg", 1, 1 },
    { "pdf", "pdfcairo fontscale 0.75 linewidth 1.6", 1.0 / 96, 1 },
};

int plot_all(const struct plot_opts *o, int *nfig, struct errbuf *err)
{
    *nfig = 0;
    size_t f = 0;
    while (f < sizeof formats / sizeof formats[0] && strcmp(o->format, formats[f].format) != 0)
        f++;
    if (f == sizeof formats / sizeof formats[0])
        return err_input(err, NULL, 0, "--format", "'%s' must be png, svg or pdf", o->format);
    struct ctx c = { .o = o, .term = formats[f].term, .sz = formats[f].sz, .fs = formats[f].fs,
                     .err = err };
    if (db_open_reader(&c.h, o->db_path) != SQLITE_OK) {
        err_input(err, o->db_path, 0, NULL, "cannot open database: %s", sqlite3_errmsg(c.h));
        sqlite3_close(c.h);
        return -1;
    }
    sqlite3_busy_timeout(c.h, 10000);
    int rc = plot_db(&c);
    *nfig = c.nfig;
    sqlite3_finalize(c.metric_q);
    for (int i = 0; i < c.nmetrics; i++)
        free(c.metrics[i]);
    free(c.metrics);
    sqlite3_close(c.h);
    return rc;
}
