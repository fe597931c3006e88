/*
 * html: the page of html.h, from report (its tables in REPORT_HTML) and plot (its figures in
 * SVG), plus two tables of its own over the runs' configs:
 *   settings  every field path at which the runs' configs (runs.config_json, policy and seed
 *             aside) do not all hold the same value, with each value and how many runs hold
 *             it ("(unset)" for runs without the field); objects are walked member by member,
 *             anything else compared whole;
 *   runs      each run's id, experiment, policy, seed, config and group hashes, the version
 *             that wrote it, and what differs in its config from the others' (as --set takes
 *             it, report_config_diff).
 * A figure's SVG is inlined without its XML prologue; its ids (and the references to them)
 * get a prefix of the figure's number, as every gnuplot SVG defines the same ids (gpPt0 ...).
 * Its caption is the one plot writes beside it (<figure>.txt: what it shows, its runs, the
 * settings that differ), line by line.
 * Cost: one report per table, one gnuplot per figure, O(R x F) over R runs of F fields.
 */
#define _POSIX_C_SOURCE 200809L
#include "html.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/path.h"
#include "../sim/base/version.h"
#include "db.h"
#include "plot.h"
#include "report.h"

static void esc(FILE *f, const char *s)
{
    report_html_text(f, s ? s : "");
}

static const char style[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
    "margin:2em auto;max-width:1400px;padding:0 1em;color:#1b1b1b;line-height:1.4}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ccc}"
    "nav a{margin-right:1.2em}p.meta{color:#555;margin-top:0}"
    "div.scroll{overflow-x:auto}"
    "table{border-collapse:collapse;font-size:.85em;margin:.6em 0}"
    "th,td{border:1px solid #ddd;padding:.25em .55em;white-space:nowrap}"
    "th{background:#f2f2f2;position:sticky;top:0}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.settings{white-space:normal;color:#444}"
    "tbody tr:nth-child(even){background:#fafafa}"
    "p.note{font-size:.85em;color:#555;margin:.2em 0}"
    "figure{margin:1.5em 0;padding:.5em;border:1px solid #e5e5e5;break-inside:avoid}"
    "figure svg{max-width:100%;height:auto;display:block}"
    "figcaption{font-size:.85em;color:#555;margin-top:.3em}"
    "pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.8em}"
    "code{font-size:.9em}";

/* ---- what is selected ---- */

struct run {
    int64_t id, seed;
    char   *experiment, *policy, *config, *hash, *group, *version;
};

struct sel {
    struct run *r;
    size_t      n;
};

static void sel_free(struct sel *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct run *r = &s->r[i];
        free(r->experiment);
        free(r->policy);
        free(r->config);
        free(r->hash);
        free(r->group);
        free(r->version);
    }
    free(s->r);
}

static char *dup_col(sqlite3_stmt *q, int c)
{
    const char *t = (const char *)sqlite3_column_text(q, c);
    return strdup(t ? t : "");
}

static int load_runs(const struct html_opts *o, struct sel *s, struct errbuf *err)
{
    sqlite3 *h;
    if (report_open(&h, o->db_path, err) < 0)
        return -1;
    int64_t *ids = NULL;
    size_t n = 0;
    int rc = report_select(h, o->experiment, o->sweep, NULL, &ids, &n, err);
    sqlite3_stmt *q = NULL;
    const char *gh = "group_hash";
    if (rc == 0 && sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name = "
                                         "'group_hash'", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) != SQLITE_ROW)
            gh = "''";
        sqlite3_finalize(q);
        q = NULL;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT id, seed, experiment, policy, config_json, config_hash, "
             "%s, version FROM runs WHERE id = ?1", gh);
    if (rc == 0 && (s->r = calloc(n + 1, sizeof *s->r)) == NULL)
        rc = err_run(err, "out of memory");
    if (rc == 0 && sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
        rc = err_run(err, "%s: %s", o->db_path, sqlite3_errmsg(h));
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sqlite3_bind_int64(q, 1, ids[i]);
        if (sqlite3_step(q) == SQLITE_ROW) {
            struct run *r = &s->r[s->n++];
            r->id = sqlite3_column_int64(q, 0);
            r->seed = sqlite3_column_int64(q, 1);
            r->experiment = dup_col(q, 2);
            r->policy = dup_col(q, 3);
            r->config = dup_col(q, 4);
            r->hash = dup_col(q, 5);
            r->group = dup_col(q, 6);
            r->version = dup_col(q, 7);
            if (!r->experiment || !r->policy || !r->config || !r->hash || !r->group ||
                !r->version)
                rc = err_run(err, "out of memory");
        }
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    sqlite3_close(h);
    free(ids);
    if (rc == 0 && s->n == 0)
        rc = o->sweep ? err_input(err, NULL, 0, "--sweep", "no finished runs of sweep '%s' in %s",
                                  o->sweep, o->db_path)
            : o->experiment ? err_input(err, NULL, 0, "--experiment", "no runs of experiment "
                                        "'%s' in %s", o->experiment, o->db_path)
                            : err_input(err, o->db_path, 0, NULL, "no runs to report (write "
                                        "some first: hetsim run default --db %s)", o->db_path);
    return rc;
}

/* The baseline: the option, else fifo when some run has it, else the first run's policy. */
static const char *pick_baseline(const struct html_opts *o, const struct sel *s)
{
    if (o->baseline != NULL)
        return o->baseline;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->r[i].policy, "fifo") == 0)
            return "fifo";
    return s->r[0].policy;
}

/* 1 when two runs of one group (same config but the seed) have different seeds */
static int several_seeds(const struct sel *s)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++)
            if (strcmp(s->r[i].group, s->r[j].group) == 0 && *s->r[i].group &&
                strcmp(s->r[i].policy, s->r[j].policy) == 0 && s->r[i].seed != s->r[j].seed)
                return 1;
    return 0;
}

/* ---- the settings that differ ---- */

struct value {
    char  *json;            /* NULL: (unset) */
    size_t count;
};

struct field {
    char         *path;
    struct value *v;
    size_t        nv;
};

struct fields {
    struct field *f;
    size_t        n;
    int           oom;
};

static struct field *field_of(struct fields *fs, const char *path)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].path, path) == 0)
            return &fs->f[i];
    struct field *g = realloc(fs->f, (fs->n + 1) * sizeof *g);
    if (g == NULL)
        return NULL;
    fs->f = g;
    struct field *f = &fs->f[fs->n];
    *f = (struct field){ .path = strdup(path) };
    if (f->path == NULL)
        return NULL;
    fs->n++;
    return f;
}

static void count_value(struct fields *fs, struct field *f, const char *json)
{
    for (size_t i = 0; i < f->nv; i++)
        if ((json == NULL) == (f->v[i].json == NULL) &&
            (json == NULL || strcmp(json, f->v[i].json) == 0)) {
            f->v[i].count++;
            return;
        }
    struct value *g = realloc(f->v, (f->nv + 1) * sizeof *g);
    if (g == NULL) {
        fs->oom = 1;
        return;
    }
    f->v = g;
    f->v[f->nv] = (struct value){ json ? strdup(json) : NULL, 1 };
    if (json != NULL && f->v[f->nv].json == NULL)
        fs->oom = 1;
    f->nv++;
}

/* every leaf path of o (objects member by member), its value counted for one run */
static void walk(struct fields *fs, const cJSON *o, const char *prefix, int top)
{
    for (const cJSON *m = o->child; m != NULL && !fs->oom; m = m->next) {
        if (top && (strcmp(m->string, "policies") == 0 || strcmp(m->string, "seed") == 0))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", m->string);
        if (cJSON_IsObject(m) && m->child != NULL) {
            walk(fs, m, path, 0);
            continue;
        }
        struct field *f = field_of(fs, path);
        char *json = cJSON_PrintUnformatted(m);
        if (f == NULL || json == NULL)
            fs->oom = 1;
        else
            count_value(fs, f, json);
        cJSON_free(json);
    }
}

static int settings_table(FILE *f, const struct sel *s, struct errbuf *err)
{
    struct fields fs = { 0 };
    for (size_t i = 0; i < s->n && !fs.oom; i++) {
        cJSON *c = cJSON_Parse(s->r[i].config);
        if (c != NULL && cJSON_IsObject(c))
            walk(&fs, c, "", 1);
        cJSON_Delete(c);
    }
    /* the runs without a field */
    for (size_t k = 0; k < fs.n && !fs.oom; k++) {
        size_t have = 0;
        for (size_t i = 0; i < fs.f[k].nv; i++)
            have += fs.f[k].v[i].count;
        if (have < s->n) {
            count_value(&fs, &fs.f[k], NULL);
            fs.f[k].v[fs.f[k].nv - 1].count = s->n - have;
        }
    }
    int differ = 0;
    for (size_t k = 0; k < fs.n && !fs.oom; k++) {
        const struct field *fd = &fs.f[k];
        if (fd->nv < 2)
            continue;
        if (!differ)
            fputs("<div class=\"scroll\"><table class=\"report\"><thead><tr><th>field</th>"
                  "<th>values (runs)</th></tr></thead>\n<tbody>\n", f);
        differ = 1;
        fputs("<tr><td><code>", f);
        esc(f, fd->path);
        fputs("</code></td><td class=\"settings\">", f);
        for (size_t i = 0; i < fd->nv; i++) {
            fputs(i ? ", <code>" : "<code>", f);
            esc(f, fd->v[i].json ? fd->v[i].json : "(unset)");
            fprintf(f, "</code> (%zu)", fd->v[i].count);
        }
        fputs("</td></tr>\n", f);
    }
    if (differ)
        fputs("</tbody></table></div>\n", f);
    else
        fputs("<p>The runs' configs differ only in their policy and seed.</p>\n", f);
    for (size_t k = 0; k < fs.n; k++) {
        for (size_t i = 0; i < fs.f[k].nv; i++)
            free(fs.f[k].v[i].json);
        free(fs.f[k].v);
        free(fs.f[k].path);
    }
    free(fs.f);
    return fs.oom ? err_run(err, "out of memory") : 0;
}

static int runs_table(FILE *f, const struct sel *s, struct errbuf *err)
{
    const char **configs = malloc((s->n + 1) * sizeof *configs);
    char **diff = calloc(s->n + 1, sizeof *diff);
    const char *const skip[] = { "name" };
    int rc = 0;
    if (configs == NULL || diff == NULL)
        rc = err_run(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        configs[i] = s->r[i].config;
    if (rc == 0 && report_config_diff(configs, s->n, skip, 1, diff) < 0)
        rc = err_run(err, "out of memory");
    if (rc == 0) {
        fputs("<div class=\"scroll\"><table class=\"report\"><thead><tr><th>run</th>"
              "<th>experiment</th><th>policy</th><th>seed</th><th>config_hash</th>"
              "<th>group_hash</th><th>written by</th><th>settings that differ</th></tr>"
              "</thead>\n<tbody>\n", f);
        for (size_t i = 0; i < s->n; i++) {
            const struct run *r = &s->r[i];
            fprintf(f, "<tr><td class=\"num\">%lld</td><td>", (long long)r->id);
            esc(f, r->experiment);
            fputs("</td><td>", f);
            esc(f, r->policy);
            fprintf(f, "</td><td class=\"num\">%lld</td><td><code>", (long long)r->seed);
            esc(f, r->hash);
            fputs("</code></td><td><code>", f);
            esc(f, r->group);
            fputs("</code></td><td>hetsim ", f);
            esc(f, r->version);
            fputs("</td><td class=\"settings\">", f);
            esc(f, diff[i]);
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
        /* the config of the first run, whole */
        cJSON *c = cJSON_Parse(s->r[0].config);
        char *pretty = c ? cJSON_Print(c) : NULL;
        fprintf(f, "<details><summary>The experiment as run %lld ran it "
                "(<code>runs.config_json</code>)</summary><pre>", (long long)s->r[0].id);
        esc(f, pretty ? pretty : s->r[0].config);
        fputs("</pre></details>\n", f);
        cJSON_free(pretty);
        cJSON_Delete(c);
    }
    for (size_t i = 0; diff && i < s->n; i++)
        free(diff[i]);
    free(diff);
    free(configs);
    return rc;
}

/* ---- figures ---- */

struct file {
    char           *name;
    struct timespec made;
};

/* in the order gnuplot wrote them (plot's order: CDFs, utilization, queue, bars; sweeps),
 * names breaking ties */
static int by_made(const void *a, const void *b)
{
    const struct file *x = a, *y = b;
    if (x->made.tv_sec != y->made.tv_sec)
        return x->made.tv_sec < y->made.tv_sec ? -1 : 1;
    if (x->made.tv_nsec != y->made.tv_nsec)
        return x->made.tv_nsec < y->made.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The .svg files of dir, in the order they were written; *n of them (caller frees each name
 * and the array). */
static struct file *svg_files(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    struct file *v = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".svg") != 0)
            continue;
        if (*n == cap) {
            struct file *g = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *g);
            if (g == NULL)
                break;
            v = g;
        }
        char path[PATH_MAX_LEN + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || (v[*n].name = strdup(de->d_name)) == NULL)
            continue;
        v[*n].made = st.st_mtim;
        (*n)++;
    }
    closedir(d);
    if (*n > 1)
        qsort(v, *n, sizeof *v, by_made);
    return v;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *s = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *g = realloc(s, cap = cap ? 2 * cap : 65536);
            if (g == NULL) {
                free(s);
                fclose(f);
                return NULL;
            }
            s = g;
        }
        size_t got = fread(s + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    s[n] = '\0';
    return s;
}

/* gnuplot's SVG from its <svg element on, ids and references to them prefixed */
static void inline_svg(FILE *f, const char *svg, int k)
{
    const char *p = strstr(svg, "<svg");
    if (p == NULL)
        return;
    char pre[16];
    snprintf(pre, sizeof pre, "f%d_", k);
    static const char *const marks[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
    while (*p) {
        size_t best = strlen(p);
        int which = -1;
        for (int m = 0; m < 5; m++) {
            const char *q = strstr(p, marks[m]);
            if (q != NULL && (size_t)(q - p) < best) {
                best = (size_t)(q - p);
                which = m;
            }
        }
        /* " id=" only: a "grid=" or "uid=" attribute is not an id */
        fwrite(p, 1, best, f);
        p += best;
        if (which < 0)
            break;
        size_t ml = strlen(marks[which]);
        fwrite(p, 1, ml, f);
        if (which >= 2 || (best > 0 && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')))
            fputs(pre, f);
        p += ml;
    }
    fputc('\n', f);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[PATH_MAX_LEN + 300];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int figures(FILE *f, const struct html_opts *o, int *nfig, struct errbuf *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX_LEN];
    snprintf(dir, sizeof dir, "%s/hetsim-html-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return err_run(err, "%s: cannot make a folder for the figures: %s", dir,
                       strerror(errno));
    const char *exps[] = { o->experiment }, *sweeps[] = { o->sweep };
    /* the bars' baseline: the option, else plot's own choice per setting */
    struct plot_opts po = { .db_path = o->db_path, .out_dir = dir, .format = "svg",
                            .baseline = o->baseline, .experiments = exps,
                            .nexperiments = o->experiment != NULL, .sweeps = sweeps,
                            .nsweeps = o->sweep != NULL, .plain_config = o->plain_config,
                            .display_of = o->display_of };
    int drawn = 0, rc = plot_all(&po, &drawn, err);
    size_t n = 0;
    struct file *files = rc == 0 ? svg_files(dir, &n) : NULL;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char path[2 * PATH_MAX_LEN];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        char *svg = slurp(path);
        if (svg == NULL) {
            rc = err_run(err, "%s: cannot read: %s", path, strerror(errno));
            break;
        }
        char id[FILENAME_MAX];
        snprintf(id, sizeof id, "%.*s", (int)(strlen(files[i].name) - 4), files[i].name);
        fputs("<figure id=\"fig-", f);
        esc(f, id);
        fputs("\">\n", f);
        inline_svg(f, svg, (int)i + 1);
        /* the caption plot wrote beside it: what it shows, its runs and settings */
        char txt[2 * PATH_MAX_LEN + 8];
        snprintf(txt, sizeof txt, "%s/%s.txt", dir, id);
        char *text = slurp(txt);
        fputs("<figcaption>", f);
        for (const char *p = text; p != NULL && *p;) {
            size_t len = strcspn(p, "\n");
            char *line = strndup(p, len);
            esc(f, line);
            fputs("<br>\n", f);
            free(line);
            p += len + (p[len] == '\n');
        }
        fputs("<code>", f);
        esc(f, id);
        fputs("</code>, as <code>hetsim plot --format svg</code> draws it (its numbers: "
              "<code>hetsim plot --out DIR</code> writes them to <code>DIR/data/</code>, its "
              "caption to <code>DIR/", f);
        esc(f, id);
        fputs(".txt</code>)</figcaption></figure>\n", f);
        free(text);
        free(svg);
        (*nfig)++;
    }
    for (size_t i = 0; i < n; i++)
        free(files[i].name);
    free(files);
    remove_tree(dir);
    return rc;
}

/* ---- the page ---- */

static int page(FILE *f, const struct html_opts *o, const struct sel *s, struct html_stats *st,
                struct errbuf *err)
{
    const char *baseline = pick_baseline(o, s);
    int grouped = several_seeds(s);
    char title[512];
    if (o->sweep)
        snprintf(title, sizeof title, "sweep %s", o->sweep);
    else if (o->experiment)
        snprintf(title, sizeof title, "experiment %s", o->experiment);
    else
        snprintf(title, sizeof title, "every run of %s", o->db_path);
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>hetsim report: ", f);
    esc(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>hetsim report: ", style);
    esc(f, title);
    fprintf(f, "</h1>\n<p class=\"meta\">%zu runs from <code>", s->n);
    esc(f, o->db_path);
    fprintf(f, "</code>; written by hetsim %s on %s.  Times in seconds of simulated time "
            "unless a column says otherwise.</p>\n", HETSIM_VERSION, when);
    fputs("<nav><a href=\"#runs\">Runs</a><a href=\"#ratios\">Ratios</a>"
          "<a href=\"#figures\">Figures</a><a href=\"#settings\">Settings</a>"
          "<a href=\"#provenance\">Provenance</a></nav>\n", f);

    fputs("<h2 id=\"runs\">Runs</h2>\n", f);
    struct report_opts ro = { .format = REPORT_HTML, .experiment = o->experiment,
                              .display_of = o->display_of };
    struct report_query rq = { .sweep = o->sweep };
    fflush(f);
    if (report_print_query(o->db_path, &ro, &rq, f, err) < 0)
        return -1;

    fputs("<h2 id=\"ratios\">Ratios to ", f);
    esc(f, baseline);
    fputs("</h2>\n", f);
    fprintf(f, "<p>Each metric of a run over the same metric of the latest %s run with the "
            "same experiment, seed and settings%s.</p>\n", baseline,
            grouped ? "; one row per group of runs that differ only in their seed, the mean "
                      "of the ratios paired by seed &plusmn; the half-width of its 95% "
                      "confidence interval" : "");
    ro.baseline = baseline;
    rq.group = grouped;
    if (report_print_query(o->db_path, &ro, &rq, f, err) < 0)
        return -1;

    fputs("<h2 id=\"figures\">Figures</h2>\n", f);
    if (figures(f, o, &st->figures, err) < 0)
        return -1;
    if (st->figures == 0)
        fputs("<p>No figure: these runs give none (a figure needs two policies, or a swept "
              "axis with two values).</p>\n", f);

    fputs("<h2 id=\"settings\">Settings that differ between the runs</h2>\n"
          "<p>Every field of <code>runs.config_json</code> (the experiment as run, after "
          "<code>--set</code>) whose value is not the same in every run, policy and seed "
          "aside.</p>\n", f);
    if (settings_table(f, s, err) < 0)
        return -1;

    fputs("<h2 id=\"provenance\">Provenance</h2>\n"
          "<p><code>config_hash</code> is the FNV-1a 64 hash of the run's config: the same "
          "config gives the same hash (a sweep skips a run whose hash is in the database), and "
          "<code>hetsim run</code> with that config gives the same rows.  "
          "<code>group_hash</code> is the same without the seed.</p>\n", f);
    if (runs_table(f, s, err) < 0)
        return -1;
    fprintf(f, "<p class=\"note\">Page written by hetsim %s: <code>hetsim report --html",
            HETSIM_VERSION);
    if (o->sweep) {
        fputs(" --sweep ", f);
        esc(f, o->sweep);
    }
    if (o->experiment) {
        fputs(" --experiment ", f);
        esc(f, o->experiment);
    }
    fputs("</code>.</p>\n</body>\n</html>\n", f);
    st->runs = (int)s->n;
    return 0;
}

int html_report(const struct html_opts *o, struct html_stats *st, struct errbuf *err)
{
    memset(st, 0, sizeof *st);
    if (access(o->db_path, R_OK) != 0)
        return err_input(err, NULL, 0, "--db", "%s: no such database (run an experiment first: "
                         "hetsim run default)", o->db_path);
    struct sel s = { 0 };
    if (load_runs(o, &s, err) < 0) {
        sel_free(&s);
        return -1;
    }
    char tmp[PATH_MAX_LEN + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", o->out_path);
    FILE *f = NULL;
    int rc = 0;
    if (path_make_parent(o->out_path) < 0 || (f = fopen(tmp, "w")) == NULL)
        rc = err_run(err, "%s: cannot write: %s", o->out_path, strerror(errno));
    if (rc == 0)
        rc = page(f, o, &s, st, err);
    if (f != NULL && (ferror(f) | fclose(f)) && rc == 0)
        rc = err_run(err, "%s: write failed", tmp);
    if (rc == 0 && rename(tmp, o->out_path) != 0)
        rc = err_run(err, "%s: cannot rename to %s: %s", tmp, o->out_path, strerror(errno));
    if (rc < 0)
        unlink(tmp);
    sel_free(&s);
    return rc;
}
