/*
 * test_html: `hetsim report --html` (results/html.c) on a small sweep — the page is one
 * self-contained file (no script, no URL it would fetch, an inline SVG per figure, the run
 * and ratio tables, the settings that differ, the config hashes and versions), and, in
 * headless Chromium (Debian's chromium, from scripts/install-deps.sh --optional; the test is
 * skipped with a message when /usr/bin/chromium is absent), it loads without a console
 * message, every figure's SVG has a box and drawn content, and a screenshot is written under
 * build/test-out/html/ for a person to look at.  The console check is shown to work on a copy
 * of the page that logs one line on purpose.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define RUN(...) th_hetsim((const char *const[]){ __VA_ARGS__, NULL })

extern char **environ;

static const char chromium[] = "/usr/bin/chromium";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* The page of a small sweep (2 policies x 2 loads x 2 seeds of the default experiment, cut
 * to 40 jobs), made once per process; its path. */
static const char *page(void)
{
    static char path[512];
    if (path[0] != '\0')
        return path;
    char *sweep = th_write("html_sweep.json",
        "{ \"name\": \"html_small\", \"experiment\": \"default\",\n"
        "  \"set\": { \"workload.max_jobs\": 40 },\n"
        "  \"grid\": { \"policy\": [\"fifo\", \"srtf\"],\n"
        "            \"workload.arrival_scale\": [0.5, 1], \"seed\": [1, 2] } }\n");
    char db[512];
    snprintf(db, sizeof db, "%s/html.db", th_tmpdir());
    snprintf(path, sizeof path, "%s/report.html", th_tmpdir());
    struct th_out o = RUN("sweep", sweep, "--db", db, "-j", "1", "-q");
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    free(sweep);
    o = RUN("report", "--db", db, "--html", path, "--sweep", "html_small");
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_assert(strstr(o.out, "8 runs") != NULL, "%s", o.out);
    th_out_free(&o);
    return path;
}

Test(html, the_page_is_self_contained, .timeout = 120)
{
    char *html = slurp(page());
    cr_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    /* no script, nothing fetched: every href an anchor, no src, no external stylesheet */
    cr_assert_null(strstr(html, "<script"));
    cr_assert_null(strstr(html, " src="));
    cr_assert_null(strstr(html, "<link"));
    cr_assert_null(strstr(html, "@import"));
    for (const char *p = html; (p = strstr(p, "href=")) != NULL; p += 5)
        cr_assert(p[6] == '#', "an href that is not an anchor: %.60s", p);
    /* the figures: 3 sweep metrics against the one swept axis, inline, without the XML
     * prologue, their ids made distinct */
    cr_assert_eq(count(html, "<svg"), 3, "%d svg", count(html, "<svg"));
    cr_assert_eq(count(html, "</svg>"), 3);
    cr_assert_null(strstr(html, "<?xml"));
    cr_assert_eq(count(html, "id='f1_gpPt0'"), 1);
    cr_assert_eq(count(html, "id='f3_gpPt0'"), 1);
    cr_assert_eq(count(html, "id='gpPt0'"), 0);
    cr_assert(strstr(html, "html_small_jct_mean_vs_workload-arrival_scale") != NULL);
    /* each figure's caption: what it shows, its data */
    cr_assert(strstr(html, "<figcaption>sweep html_small: mean JCT.<br>") != NULL);
    cr_assert_eq(count(html, "Data: data/html_small_"), 3);
    /* the tables: runs with the swept axis as a column, ratios to fifo paired by seed */
    cr_assert(strstr(html, "<h2 id=\"runs\">") != NULL);
    cr_assert(strstr(html, "<th>workload.arrival_scale</th>") != NULL);
    /* headers: the metric's label and unit, then its name */
    cr_assert(strstr(html, "<th>mean JCT / fifo (x)<br><code>jct_mean/fifo</code></th>") != NULL);
    cr_assert(strstr(html, "<th>mean JCT (s)<br><code>jct_mean</code></th>") != NULL);
    cr_assert(strstr(html, "<th>n_paired (seeds)</th>") != NULL, "grouped over the 2 seeds");
    /* the settings that differ, with how many runs hold each value */
    cr_assert(strstr(html, "<code>workload.arrival_scale</code></td><td class=\"settings\">"
                           "<code>0.5</code> (4), <code>1</code> (4)") != NULL);
    /* provenance: every run's hashes and version */
    cr_assert_eq(count(html, "<td>hetsim "), 8);
    cr_assert(strstr(html, "written by hetsim ") != NULL);
    free(html);
}

Test(html, errors_name_the_option)
{
    char db[512], out[512];
    snprintf(db, sizeof db, "%s/none.db", th_tmpdir());
    snprintf(out, sizeof out, "%s/none.html", th_tmpdir());
    struct th_out o = RUN("report", "--db", db, "--html", out);
    cr_assert_eq(o.status, 2);
    th_out_free(&o);
    page();
    snprintf(db, sizeof db, "%s/html.db", th_tmpdir());
    o = RUN("report", "--db", db, "--html", out, "--sweep", "nosuch");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "nosuch") != NULL, "%s", o.err);
    th_out_free(&o);
    o = RUN("report", "--db", db, "--html", out, "--group");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--html takes") != NULL, "%s", o.err);
    th_out_free(&o);
    cr_assert_neq(access(out, F_OK), 0, "no page is left behind");
}

/* ---- in the browser ---- */

/* Run chromium headless on `url` with `extra` (NULL-terminated) after the flags that keep it
 * off the network; stdout to out_path, stderr to err_path.  Returns its exit status. */
static int browse(const char *url, const char *const *extra, const char *out_path,
                  const char *err_path)
{
    char profile[512];
    snprintf(profile, sizeof profile, "%s/chromium-XXXXXX", th_tmpdir());
    cr_assert_not_null(mkdtemp(profile));
    char udd[600];
    snprintf(udd, sizeof udd, "--user-data-dir=%s", profile);
    const char *argv[32] = { chromium, "--headless", "--no-sandbox", "--disable-gpu",
                             "--disable-quic", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update",
                             "--disable-sync", "--enable-logging=stderr", "--v=0", udd };
    int n = 12;
    for (int i = 0; extra[i] != NULL; i++)
        argv[n++] = extra[i];
    argv[n++] = url;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, chromium, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", chromium, strerror(rc));
    /* at most 90 s */
    int st = 0;
    for (int waited = 0;; waited++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (waited == 900) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            cr_assert_fail("chromium did not finish in 90 s (%s)", err_path);
        }
        nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The console lines chromium logged ("INFO:CONSOLE..."), joined; caller frees. */
static char *console_lines(const char *err_path, int *n)
{
    char *all = slurp(err_path), *out = calloc(1, strlen(all) + 1);
    *n = 0;
    for (char *line = strtok(all, "\n"); line != NULL; line = strtok(NULL, "\n"))
        if (strstr(line, ":CONSOLE") != NULL) {
            strcat(out, line);
            strcat(out, "\n");
            (*n)++;
        }
    free(all);
    return out;
}

/* build/test-out/html/ under the project (kept after the test, for a person to look at) */
static void out_dir(char *out, size_t cap)
{
    snprintf(out, cap, "%s/build/test-out/html", HETSIM_DATADIR);
    char probe[600];
    snprintf(probe, sizeof probe, "%s/x", out);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "%s", out);
    for (char *p = cmd + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(cmd, 0755);
            *p = '/';
        }
    mkdir(cmd, 0755);
}

Test(html, loads_in_chromium_without_console_errors, .timeout = 240)
{
    if (access(chromium, X_OK) != 0)
        cr_skip_test("%s is absent: install it with scripts/install-deps.sh --optional "
                     "(Debian's chromium) to run the browser test", chromium);
    const char *path = page();
    char dir[512], shot[600], url[700], out[600], err[600];
    out_dir(dir, sizeof dir);
    snprintf(shot, sizeof shot, "%s/report.png", dir);
    snprintf(url, sizeof url, "file://%s", path);
    snprintf(out, sizeof out, "%s/chromium.out", th_tmpdir());
    snprintf(err, sizeof err, "%s/chromium.err", th_tmpdir());
    remove(shot);
    /* the page as it is: no console message, and a screenshot */
    char shot_arg[700];
    snprintf(shot_arg, sizeof shot_arg, "--screenshot=%s", shot);
    const char *const first[] = { "--window-size=1400,2600", shot_arg, NULL };
    cr_assert_eq(browse(url, first, out, err), 0, "chromium failed: see %s", err);
    int n;
    char *lines = console_lines(err, &n);
    cr_assert_eq(n, 0, "console messages loading %s:\n%s", path, lines);
    free(lines);
    struct stat st;
    cr_assert_eq(stat(shot, &st), 0, "no screenshot at %s", shot);
    cr_assert_gt(st.st_size, 50000, "a %lld-byte screenshot is a blank page",
                 (long long)st.st_size);
    char *png = slurp(shot);
    cr_assert(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(png);
    /* a copy of the page with a script at its end that measures every figure in the
     * laid-out page and says so on the console (the one message expected) and in the DOM */
    char *html = slurp(path);
    char *end = strstr(html, "</body>");
    cr_assert_not_null(end);
    char copy[600];
    snprintf(copy, sizeof copy, "%s/check.html", th_tmpdir());
    FILE *f = fopen(copy, "w");
    cr_assert_not_null(f);
    fwrite(html, 1, (size_t)(end - html), f);
    fputs("<script>\n"
          "var r = [];\n"
          "document.querySelectorAll('figure svg').forEach(function (s) {\n"
          "  var b = s.getBoundingClientRect(), g = s.getBBox();\n"
          "  r.push([Math.round(b.width), Math.round(b.height), Math.round(g.width),\n"
          "          Math.round(g.height), s.querySelectorAll('path,text').length].join(' '));\n"
          "});\n"
          "var p = document.createElement('pre'); p.id = 'hetsim-check';\n"
          "p.textContent = 'figures=' + r.length + '\\n' + r.join('\\n');\n"
          "document.body.appendChild(p);\n"
          "console.log('hetsim-check ' + r.length);\n"
          "</script>\n</body></html>\n", f);
    fclose(f);
    free(html);
    snprintf(url, sizeof url, "file://%s", copy);
    const char *const second[] = { "--window-size=1400,1000", "--dump-dom", NULL };
    cr_assert_eq(browse(url, second, out, err), 0, "chromium failed: see %s", err);
    lines = console_lines(err, &n);
    cr_assert_eq(n, 1, "the console check sees the copy's one message:\n%s", lines);
    cr_assert(strstr(lines, "hetsim-check 3") != NULL, "%s", lines);
    free(lines);
    char *dom = slurp(out);
    char *res = strstr(dom, "<pre id=\"hetsim-check\">");
    cr_assert_not_null(res, "the check did not run");
    int figs = 0;
    cr_assert_eq(sscanf(res, "<pre id=\"hetsim-check\">figures=%d", &figs), 1);
    cr_assert_eq(figs, 3);
    char *line = strchr(res, '\n');
    for (int i = 0; i < figs; i++) {
        cr_assert_not_null(line);
        int bw, bh, gw, gh, shapes;
        cr_assert_eq(sscanf(line + 1, "%d %d %d %d %d", &bw, &bh, &gw, &gh, &shapes), 5);
        /* laid out at a readable size, with drawn content spanning most of it */
        cr_assert_geq(bw, 600, "figure %d is %d px wide", i + 1, bw);
        cr_assert_geq(bh, 300, "figure %d is %d px high", i + 1, bh);
        cr_assert_geq(gw, 500, "figure %d draws %d units wide", i + 1, gw);
        cr_assert_geq(gh, 300, "figure %d draws %d units high", i + 1, gh);
        cr_assert_geq(shapes, 20, "figure %d has %d paths and texts", i + 1, shapes);
        line = strchr(line + 1, '\n');
    }
    free(dom);
}
