/*
 * tio: streaming line reader (getline), quote-aware field splitting, strict number parsing.
 * A line costs O(length); the buffer grows to the longest line seen and is reused.
 */
#define _POSIX_C_SOURCE 200809L
#include "tio.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tio {
    FILE       *f;
    const char *path;
    char       *buf;
    size_t      cap;
    long        lineno;
};

int tio_open(tio **out, const char *path, struct errbuf *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_input(err, path, 0, NULL, "cannot open: %s", strerror(errno));
    tio *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fclose(f);
        return err_run(err, "%s: out of memory", path);
    }
    r->f = f;
    r->path = path;
    *out = r;
    return 0;
}

void tio_close(tio *r)
{
    if (r == NULL)
        return;
    fclose(r->f);
    free(r->buf);
    free(r);
}

int tio_next(tio *r, char **line, size_t *len, struct errbuf *err)
{
    errno = 0;
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) {
        if (ferror(r->f))
            return err_run(err, "%s:%ld: read error: %s", r->path, r->lineno + 1,
                           strerror(errno ? errno : EIO));
        return 0;
    }
    r->lineno++;
    char *s = r->buf;
    if (r->lineno == 1 && n >= 3 && (unsigned char)s[0] == 0xEF &&
        (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) {
        s += 3;
        n -= 3;
    }
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    if (memchr(s, '\0', (size_t)n) != NULL)
        return err_input(err, r->path, r->lineno, NULL, "NUL byte in a text line");
    *line = s;
    *len = (size_t)n;
    return 1;
}

long tio_lineno(const tio *r) { return r->lineno; }
const char *tio_path(const tio *r) { return r->path; }

int tio_split(char *line, char sep, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *start = p, *w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            /* anything between the closing quote and the separator is kept verbatim */
            while (*p != '\0' && *p != sep)
                *w++ = *p++;
        } else {
            while (*p != '\0' && *p != sep)
                p++;
            w = p;
        }
        char end = *p;
        *w = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (end == '\0')
            return n;
        p++;
    }
}

int tio_skippable(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line == '\0' || *line == '#';
}

int tio_double(const char *s, double *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

int tio_int64(const char *s, long long *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    /* accept "3.0" and "3.000000" (Gavel writes integers that way), nothing fractional */
    if (*end == '.') {
        end++;
        while (*end == '0')
            end++;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

int tio_slurp(const char *path, char **buf, size_t *len, struct errbuf *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_input(err, path, 0, NULL, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b != NULL) {
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (n < cap - 1)
            break;
        char *nb = realloc(b, cap * 2);
        if (nb == NULL) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (b == NULL)
        return err_run(err, "%s: out of memory", path);
    if (bad) {
        free(b);
        return err_run(err, "%s: read error", path);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}
