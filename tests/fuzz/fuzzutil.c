/*
 * fuzzutil: scratch files, input cutting and the shipped models for the fuzz harnesses.
 * Everything a harness writes stays inside one mkdtemp directory under /dev/shm (a tmpfs),
 * else /tmp, removed at exit with its subfolders (a crashing run leaves it behind; it holds
 * only the last input).
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzzutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../sim/run/experiment.h"
#include "../../sim/base/path.h"

static char scratch[64];

/* remove a directory and everything under it (the harnesses make subfolders) */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char p[PATH_MAX_LEN];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            remove_tree(p);
    }
    closedir(d);
    rmdir(dir);
}

static void scratch_remove(void)
{
    remove_tree(scratch);
}

const char *fz_dir(void)
{
    if (scratch[0] == '\0') {
        /* in memory where there is a tmpfs: every input is written to a file, and a disk
         * file system's metadata updates cost more than many a harness's parse */
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(scratch, sizeof scratch, "%s/hetsim-fuzz-XXXXXX", base);
        if (mkdtemp(scratch) == NULL)
            fz_fail("cannot create a scratch directory under %s", base);
        atexit(scratch_remove);
    }
    return scratch;
}

void fz_write(char *out, size_t cap, const char *name, const void *data, size_t len)
{
    snprintf(out, cap, "%s/%s", fz_dir(), name);
    FILE *f = fopen(out, "wb");
    if (f == NULL || (len > 0 && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
        fz_fail("cannot write %s", out);
}

const uint8_t *fz_cut(const uint8_t **data, size_t *len, uint8_t sep, size_t *n_out)
{
    const uint8_t *start = *data;
    const uint8_t *hit = *len > 0 ? memchr(start, sep, *len) : NULL;
    if (hit == NULL) {
        *n_out = *len;
        *data = start + *len;
        *len = 0;
    } else {
        *n_out = (size_t)(hit - start);
        *data = hit + 1;
        *len -= *n_out + 1;
    }
    return start;
}

char *fz_cstr(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s == NULL)
        fz_fail("out of memory");
    if (n > 0)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

void fz_shipped(char *out, size_t cap, const char *rel)
{
    if (path_resolve(out, cap, NULL, rel) < 0) {
        /* the data root may not be the current directory: try it explicitly */
        snprintf(out, cap, "%s/%s", path_data_root(), rel);
        if (access(out, R_OK) != 0)
            fz_fail("shipped file %s not found (set HETSIM_DATA to the repository)", rel);
    }
}

const catalog *fz_catalog(void)
{
    static catalog *cat;
    if (cat == NULL) {
        struct errbuf err;
        err_clear(&err);
        char g[PATH_MAX_LEN], l[PATH_MAX_LEN];
        fz_shipped(g, sizeof g, experiment_default_gpus);
        fz_shipped(l, sizeof l, experiment_default_links);
        if (catalog_load(&cat, g, l, &err) < 0)
            fz_fail("shipped catalog: %s", err.msg);
    }
    return cat;
}

const tput *fz_models(void)
{
    static tput *t;
    if (t == NULL) {
        struct errbuf err;
        err_clear(&err);
        char p[PATH_MAX_LEN];
        if (tput_create(&t, fz_catalog(), &err) < 0)
            fz_fail("tput_create: %s", err.msg);
        fz_shipped(p, sizeof p, experiment_default_jobtypes);
        if (tput_load_types(t, p, &err) < 0)
            fz_fail("shipped job types: %s", err.msg);
        for (int i = 0; experiment_default_profiles[i] != NULL; i++) {
            fz_shipped(p, sizeof p, experiment_default_profiles[i]);
            if (tput_load_profile(t, p, &err) < 0)
                fz_fail("shipped profile: %s", err.msg);
        }
    }
    return t;
}

/* ---- a cut of Pollux's applications ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fz_fail("cannot read %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf == NULL)
        fz_fail("out of memory reading %s", path);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* lines of `from` (shipped, under the data root) kept by keep(line, number) into `to`
 * (under the scratch directory); the header always */
static void cut_file(const char *from_rel, const char *to_rel,
                     int (*keep)(const char *line, int n))
{
    char from[PATH_MAX_LEN], to[PATH_MAX_LEN];
    fz_shipped(from, sizeof from, from_rel);
    snprintf(to, sizeof to, "%s/%s", fz_dir(), to_rel);
    FILE *in = fopen(from, "r"), *o = fopen(to, "w");
    if (in == NULL || o == NULL)
        fz_fail("cannot cut %s into %s", from, to);
    char line[4096];
    for (int n = 0; fgets(line, sizeof line, in) != NULL; n++)
        if (n == 0 || keep(line, n))
            fputs(line, o);
    fclose(in);
    if (fclose(o) != 0)
        fz_fail("cannot write %s", to);
}

static int few_placements(const char *line, int n)
{
    (void)n;
    static const char *const keep[] = { "1,", "2,", "11,", NULL };
    for (int i = 0; keep[i] != NULL; i++)
        if (strncmp(line, keep[i], strlen(keep[i])) == 0)
            return 1;
    return 0;
}

static int first_rows(const char *line, int n)
{
    (void)line;
    return n <= 12;
}

static int three_epochs(const char *line, int n)
{
    (void)line;
    return n <= 3;
}

static void mkdirs(const char *rel)
{
    char p[PATH_MAX_LEN];
    int n = snprintf(p, sizeof p, "%s/%s", fz_dir(), rel);
    for (int i = (int)strlen(fz_dir()) + 1; i <= n; i++)
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            mkdir(p, 0755);
            p[i] = c;
        }
}

const char *fz_pollux_apps(const char *const *apps)
{
    static char path[PATH_MAX_LEN];
    if (path[0] != '\0')
        return path;
    static const char dir[] = "models/data/pollux";
    char p[PATH_MAX_LEN];
    size_t len;
    fz_shipped(p, sizeof p, "models/data/pollux/applications.json");
    char *text = slurp(p, &len);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "applications");
    if (!cJSON_IsArray(list))
        fz_fail("shipped applications.json has no applications");
    mkdirs(dir);
    for (cJSON *a = list->child, *next; a != NULL; a = next) {
        next = a->next;
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "name"));
        int wanted = apps == NULL;
        for (int i = 0; apps != NULL && apps[i] != NULL && name != NULL; i++)
            wanted |= strcmp(apps[i], name) == 0;
        if (!wanted || name == NULL) {
            cJSON_Delete(cJSON_DetachItemViaPointer(list, a));
            continue;
        }
        cJSON *me = cJSON_GetObjectItemCaseSensitive(a, "max_epochs");
        if (!cJSON_IsNumber(me) || me->valuedouble > 3)
            cJSON_ReplaceItemInObjectCaseSensitive(a, "max_epochs", cJSON_CreateNumber(3));
        char from[PATH_MAX_LEN], to[PATH_MAX_LEN];
        snprintf(to, sizeof to, "%s/%s", dir, name);
        mkdirs(to);
        snprintf(from, sizeof from, "%s/%s/placements.csv", dir, name);
        snprintf(to, sizeof to, "%s/%s/placements.csv", dir, name);
        cut_file(from, to, few_placements);
        snprintf(from, sizeof from, "%s/%s/scalability.csv", dir, name);
        snprintf(to, sizeof to, "%s/%s/scalability.csv", dir, name);
        cut_file(from, to, first_rows);
        char adir[PATH_MAX_LEN];
        snprintf(from, sizeof from, "%s/%s", dir, name);
        fz_shipped(adir, sizeof adir, from);
        DIR *d = opendir(adir);
        if (d == NULL)
            fz_fail("cannot list %s", adir);
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strncmp(e->d_name, "validation-", 11) != 0)
                continue;
            snprintf(from, sizeof from, "%s/%s/%s", dir, name, e->d_name);
            cut_file(from, from, three_epochs);
        }
        closedir(d);
    }
    char *out = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (out == NULL)
        fz_fail("out of memory");
    fz_write(path, sizeof path, "models/data/pollux/applications.json", out, strlen(out));
    free(out);
    return path;
}

void fz_check_err(int rc, const struct errbuf *err, const char *what)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "%s: %d %s\n", what, rc, rc < 0 ? err->msg : "");
    if (rc < 0 && (err->code == ERR_NONE || err->msg[0] == '\0'))
        fz_fail("%s failed (%d) without an error message", what, rc);
    if (rc >= 0 && err->code != ERR_NONE)
        fz_fail("%s succeeded but left an error: %s", what, err->msg);
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz harness: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}
