/*
 * test_docs: the documentation matches the tool.  For every command `hetsim help` lists (the
 * command table of sim/cli/main.c, sweep and merge included), every option its --help names,
 * long (--name) or short (-x), anywhere in the text, must appear in doc/hetsim.1 under that
 * command (from `.SS hetsim CMD` to the next .SS or .SH) and in the rows of that command's
 * table of doc/commands.md (from "## `hetsim CMD" to the next heading).
 * A command without options still needs both sections.  Every figure block of the pages is
 * made by scripts/readme-figures.sh, and the cheapest is checked against a fresh run.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

enum { MAX_CMDS = 32, MAX_OPTS = 64, OPT_LEN = 48 };

static char *read_text(const char *rel)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", HETSIM_DATADIR, rel);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The commands of `hetsim help`: its lines "  NAME  summary". */
static int commands(char names[][OPT_LEN])
{
    struct th_out o = th_hetsim((const char *const[]){ "help", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    int n = 0;
    for (const char *p = o.out; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        size_t k = 0;
        if (p[0] == ' ' && p[1] == ' ' && islower((unsigned char)p[2]))
            while (islower((unsigned char)p[2 + k]))
                k++;
        if (k > 0 && p[2 + k] == ' ') {
            cr_assert_lt(n, MAX_CMDS);
            snprintf(names[n++], OPT_LEN, "%.*s", (int)k, p + 2);
        }
    }
    th_out_free(&o);
    return n;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Is `opt` ("--db", "-d") in `text` as a whole token? */
static int has_token(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = strstr(text, opt); p != NULL; p = strstr(p + 1, opt))
        if ((p == text || !word_char(p[-1])) && !word_char(p[n]))
            return 1;
    return 0;
}

static void add_opt(char opts[][OPT_LEN], int *n, const char *s, size_t len)
{
    char o[OPT_LEN];
    snprintf(o, sizeof o, "%.*s", (int)len, s);
    for (int i = 0; i < *n; i++)
        if (strcmp(opts[i], o) == 0)
            return;
    cr_assert_lt(*n, MAX_OPTS);
    strcpy(opts[(*n)++], o);
}

/* Every --long and -x option named in a help text, once each, in order of appearance.  A
 * short option is a dash and one letter standing alone after a space or an opening bracket
 * ("-j N", "[-q]"), so that "n-1", "7-field" or "mpirun -np" are not taken for options. */
static int options(const char *help, char opts[][OPT_LEN])
{
    int n = 0;
    for (const char *p = help; *p != '\0'; p++) {
        if (p[0] != '-' || (p > help && word_char(p[-1])))
            continue;
        if (p[1] == '-' && isalpha((unsigned char)p[2])) {
            size_t k = 2;
            while (isalnum((unsigned char)p[k]) || p[k] == '-')
                k++;
            add_opt(opts, &n, p, k);
            p += k - 1;
        } else if (isalpha((unsigned char)p[1]) && !word_char(p[2]) &&
                   (p == help || strchr(" \t\n[(|,", p[-1]) != NULL)) {
            add_opt(opts, &n, p, 2);
        }
    }
    return n;
}

/* Text from the line starting with `head` (followed by a space, a backtick or the end of
 * the line) to the next line starting with one of `ends`; NULL if there is no such line.
 * Caller frees. */
static char *section(const char *text, const char *head, const char *const *ends)
{
    size_t hl = strlen(head);
    const char *start = NULL;
    for (const char *p = text; p != NULL && start == NULL; p = strchr(p, '\n')) {
        p += p != text;         /* past the newline */
        if (strncmp(p, head, hl) == 0 && strchr(" `\n", p[hl]) != NULL)
            start = p;
    }
    if (start == NULL)
        return NULL;
    const char *end = strchr(start, '\n');
    for (; end != NULL; end = strchr(end + 1, '\n')) {
        int stop = 0;
        for (int i = 0; ends[i] != NULL; i++)
            stop |= strncmp(end + 1, ends[i], strlen(ends[i])) == 0;
        if (stop)
            break;
    }
    size_t n = end != NULL ? (size_t)(end - start) : strlen(start);
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    memcpy(s, start, n);
    s[n] = '\0';
    return s;
}

/* The man page's section for cmd, with roff's escapes for '-' and fonts taken out. */
static char *man_section(const char *man, const char *cmd)
{
    char head[64];
    snprintf(head, sizeof head, ".SS hetsim %.47s", cmd);
    char *s = section(man, head, (const char *const[]){ ".SS", ".SH", NULL });
    if (s == NULL)
        return NULL;
    size_t w = 0;
    for (size_t r = 0; s[r] != '\0'; r++) {
        if (s[r] == '\\' && s[r + 1] == '-') {
            s[w++] = '-';
            r++;
        } else if (s[r] == '\\' && s[r + 1] == 'f' && s[r + 2] != '\0') {
            r += 2;             /* \fB \fI \fR \fP */
        } else if (s[r] == '\\' && s[r + 1] == '&') {
            r++;
        } else {
            s[w++] = s[r];
        }
    }
    s[w] = '\0';
    return s;
}

/* The table rows of doc/commands.md's entry for cmd. */
static char *readme_rows(const char *ref, const char *cmd)
{
    char head[64];
    snprintf(head, sizeof head, "## `hetsim %.47s", cmd);
    char *s = section(ref, head, (const char *const[]){ "#", NULL });
    if (s == NULL)
        return NULL;
    size_t w = 0;
    for (const char *p = s; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (*p == '|') {
            memmove(s + w, p, len);
            w += len;
        }
        p += len;
    }
    s[w] = '\0';
    return s;
}

Test(docs, the_help_is_read_as_the_test_expects)
{
    char cmds[MAX_CMDS][OPT_LEN];
    int n = commands(cmds);
    static const char *const want[] = { "run", "sweep", "merge", "report", "export", "plot",
                                        "list", "validate", "workload", "convert", "version",
                                        "help", NULL };
    for (int i = 0; want[i] != NULL; i++) {
        int found = 0;
        for (int k = 0; k < n; k++)
            found |= strcmp(cmds[k], want[i]) == 0;
        cr_assert(found, "'%s' is not among the %d commands of hetsim help", want[i], n);
    }
    struct th_out o = th_hetsim((const char *const[]){ "run", "--help", NULL });
    char opts[MAX_OPTS][OPT_LEN], all[MAX_OPTS * OPT_LEN] = "";
    int m = options(o.out, opts);
    for (int i = 0; i < m; i++)
        strcat(strcat(all, i ? " " : ""), opts[i]);
    cr_assert_str_eq(all, "-p --policy -s --seed -d --db -S --set -q --quiet -h --help");
    th_out_free(&o);
    /* tokens, not substrings */
    cr_assert(has_token("a `--db FILE` b", "--db"));
    cr_assert(!has_token("--dbx", "--db"));
    cr_assert(!has_token("--policy", "-p"));
    cr_assert(has_token("| `-p`, `--policy NAME` |", "-p"));
    m = options("n-1 degrees, 7-field, mpirun -np K, [-j N], (-q), half-width", opts);
    cr_assert_eq(m, 2);
    cr_assert_str_eq(opts[0], "-j");
    cr_assert_str_eq(opts[1], "-q");
}

Test(docs, every_option_of_every_help_is_in_the_man_page_and_the_reference)
{
    char *man = read_text("doc/hetsim.1"), *readme = read_text("doc/commands.md");
    char cmds[MAX_CMDS][OPT_LEN], missing[8192] = "";
    int n = commands(cmds);
    cr_assert_geq(n, 12);
    for (int c = 0; c < n; c++) {
        struct th_out o = th_hetsim((const char *const[]){ cmds[c], "--help", NULL });
        cr_assert_eq(o.status, 0, "hetsim %s --help: exit %d: %s", cmds[c], o.status, o.err);
        cr_assert_str_empty(o.err, "hetsim %s --help", cmds[c]);
        char opts[MAX_OPTS][OPT_LEN];
        int m = options(o.out, opts);
        char *ms = man_section(man, cmds[c]), *rs = readme_rows(readme, cmds[c]);
        size_t k = strlen(missing);
        if (ms == NULL)
            k += (size_t)snprintf(missing + k, sizeof missing - k,
                                  "\n  doc/hetsim.1: no '.SS hetsim %s'", cmds[c]);
        if (rs == NULL)
            k += (size_t)snprintf(missing + k, sizeof missing - k,
                                  "\n  doc/commands.md: no '## `hetsim %s'",
                                  cmds[c]);
        for (int i = 0; i < m && k < sizeof missing; i++) {
            if (ms != NULL && !has_token(ms, opts[i]))
                k += (size_t)snprintf(missing + k, sizeof missing - k,
                                      "\n  doc/hetsim.1, hetsim %s: %s", cmds[c], opts[i]);
            if (rs != NULL && k < sizeof missing && !has_token(rs, opts[i]))
                k += (size_t)snprintf(missing + k, sizeof missing - k,
                                      "\n  doc/commands.md, hetsim %s: %s",
                                      cmds[c], opts[i]);
        }
        free(ms);
        free(rs);
        th_out_free(&o);
    }
    cr_assert_str_empty(missing, "undocumented:%s", missing);
    free(man);
    free(readme);
}

/* The output of a shell command, NUL-terminated (caller frees). */
static char *shell(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "%s", cmd);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (n + 1 == cap)
            cr_assert_not_null(buf = realloc(buf, cap *= 2));
    }
    buf[n] = '\0';
    cr_assert_eq(pclose(p), 0, "%s failed", cmd);
    return buf;
}

Test(docs, every_figure_of_the_pages_comes_from_a_generator)
{
    /* each <!-- figures: NAME --> block of the README and of doc/ pages names a generator of
     * scripts/readme-figures.sh, once in all the pages, and is filled (a fenced block of its
     * output, closed by <!-- /figures -->) */
    char cmd[900];
    snprintf(cmd, sizeof cmd, "sh %s/scripts/readme-figures.sh --list", HETSIM_DATADIR);
    char *gens = shell(cmd);
    snprintf(cmd, sizeof cmd, "cd %s && cat README.md doc/*.md", HETSIM_DATADIR);
    char *readme = shell(cmd);
    int blocks = 0;
    for (const char *p = readme; (p = strstr(p, "<!-- figures: ")) != NULL; p++) {
        char name[64];
        cr_assert_eq(sscanf(p, "<!-- figures: %63[a-z-] -->", name), 1);
        char line[80];
        snprintf(line, sizeof line, "%s\n", name);
        cr_assert(strstr(gens, line) != NULL, "block '%s' has no generator", name);
        char again[96];
        snprintf(again, sizeof again, "<!-- figures: %s -->", name);
        cr_assert_null(strstr(p + 1, again), "block '%s' appears twice", name);
        const char *end = strstr(p, "<!-- /figures -->");
        cr_assert_not_null(end, "block '%s' is not closed", name);
        cr_assert(strstr(p, "\n```\n") != NULL && strstr(p, "\n```\n") < end &&
                      end - p > (long)strlen(name) + 40,
                  "block '%s' is empty: run make readme-figures", name);
        blocks++;
    }
    cr_assert_geq(blocks, 20, "%d blocks", blocks);
    free(gens);
    free(readme);
}

Test(docs, the_readme_run_table_is_what_make_run_prints)
{
    /* the cheapest generator, run again, gives the README's block byte for byte: the figures
     * quoted are those of this build */
    char cmd[900];
    snprintf(cmd, sizeof cmd, "cd %s && HETSIM=%s sh scripts/readme-figures.sh --check run-table",
             HETSIM_DATADIR, HETSIM_BIN);
    char *fresh = shell(cmd);
    char *readme = read_text("README.md");
    const char *b = strstr(readme, "<!-- figures: run-table -->\n```\n");
    cr_assert_not_null(b);
    b += strlen("<!-- figures: run-table -->\n```\n");
    const char *e = strstr(b, "```\n<!-- /figures -->");
    cr_assert_not_null(e);
    cr_assert_eq((size_t)(e - b), strlen(fresh), "README's run-table:\n%.*s\nfresh:\n%s",
                 (int)(e - b), b, fresh);
    cr_assert(strncmp(b, fresh, strlen(fresh)) == 0, "README's run-table:\n%.*s\nfresh:\n%s",
              (int)(e - b), b, fresh);
    free(fresh);
    free(readme);
}

/* Every ```sh block of the README and of doc/ runs as printed (scripts/doc-test.sh: in a
 * scratch copy of the project, a page's blocks in order; a block marked skip says why), so
 * the pages cannot drift from the tool; and the runner itself fails a block that fails. */
Test(docs, every_command_block_of_the_pages_runs, .timeout = 900)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd %s && HETSIM=%s sh scripts/doc-test.sh 2>&1", HETSIM_DATADIR,
             HETSIM_BIN);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    static char out[1 << 17];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "doc-test: ") != NULL && strstr(out, " 0 failed") != NULL, "%s", out);
    /* at least the README's tour and a block of most pages ran */
    int ran = 0;
    for (const char *q = out; (q = strstr(q, "\nok ")) != NULL; q++)
        ran++;
    cr_assert_geq(ran, 12, "%s", out);

    /* a page with a failing block fails, naming its line; a skipped one is not run */
    char page[600];
    snprintf(page, sizeof page, "%s/doc_bad.md", th_tmpdir());
    FILE *f = fopen(page, "w");
    cr_assert_not_null(f);
    fputs("# bad\n\n```sh\n./hetsim list policies > /dev/null\n```\n\n"
          "<!-- doc-test: skip not this one -->\n```sh\nexit 7\n```\n\n"
          "```sh\n./hetsim run no_such_experiment\n```\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && HETSIM=%s DOC_PAGES=%s sh scripts/doc-test.sh 2>&1",
             HETSIM_DATADIR, HETSIM_BIN, page);
    p = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    st = pclose(p);
    cr_assert_neq(st, 0, "%s", out);
    cr_assert(strstr(out, "FAIL  ") != NULL && strstr(out, "doc_bad.md:12") != NULL, "%s", out);
    cr_assert(strstr(out, "skip  ") != NULL && strstr(out, "(not this one)") != NULL, "%s", out);
    cr_assert(strstr(out, "1 failed") != NULL && strstr(out, "2 blocks run, 1 skipped") != NULL,
              "%s", out);
}
