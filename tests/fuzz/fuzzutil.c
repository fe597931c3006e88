/*
 * fuzzutil: scratch files, input cutting and the shipped models for the fuzz harnesses.
 * Everything a harness writes stays inside one mkdtemp directory under /tmp, removed at exit
 * (a crashing run leaves it behind; it holds only the last input).
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzzutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/run/experiment.h"
#include "../../sim/base/path.h"

static char scratch[64];

static void scratch_remove(void)
{
    DIR *d = opendir(scratch);
    if (d == NULL)
        return;
    struct dirent *e;
    char p[PATH_MAX_LEN];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", scratch, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(scratch);
}

const char *fz_dir(void)
{
    if (scratch[0] == '\0') {
        snprintf(scratch, sizeof scratch, "/tmp/hetsim-fuzz-XXXXXX");
        if (mkdtemp(scratch) == NULL)
            fz_fail("cannot create a scratch directory under /tmp");
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
