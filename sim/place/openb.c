/*
 * openb: header by column name, rows of the header's length, strict integers (see the
 * header).  O(length) per line.
 */
#include "openb.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../base/jsonf.h"

static void list_columns(const struct openb_cols *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; c->names[i] != NULL && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", i ? ", " : "", c->names[i],
                              (c->required >> i) & 1 ? "" : " (optional)");
}

int openb_header(tio *r, const char *path, const struct openb_cols *c, int *pos, int *ncols,
                 struct errbuf *err)
{
    char *line, *f[OPENB_MAX_FIELDS];
    size_t len;
    int rc;
    char cols[512];
    list_columns(c, cols, sizeof cols);
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc < 0)
        return -1;
    if (rc == 0)
        return err_input(err, path, 0, NULL, "empty file: expected the header of an openb %s "
                         "(its columns: %s)", c->what, cols);
    long ln = tio_lineno(r);
    int n = tio_split(line, ',', f, OPENB_MAX_FIELDS);
    if (n < 0 || n > OPENB_MAX_FIELDS)
        return err_input(err, path, ln, "header", "unterminated quote or more than %d columns",
                         OPENB_MAX_FIELDS);
    int k = 0;
    while (c->names[k] != NULL)
        pos[k++] = -1;
    for (int i = 0; i < n; i++) {
        const char *name = f[i];
        while (isspace((unsigned char)*name))
            name++;
        if (*name == '\0')
            return err_input(err, path, ln, "header", "column %d has no name%s", i + 1,
                             i == n - 1 && n > 1 ? " (a trailing comma?)" : "");
        int j = 0;
        while (c->names[j] != NULL && strcmp(c->names[j], f[i]) != 0)
            j++;
        if (c->names[j] == NULL) {
            const char *hint = jsonf_suggest(f[i], c->names);
            return err_input(err, path, ln, f[i], "not a column of an openb %s%s%s%s (its "
                             "columns: %s)", c->what, hint ? " (did you mean '" : "",
                             hint ? hint : "", hint ? "'?)" : "", cols);
        }
        if (pos[j] >= 0)
            return err_input(err, path, ln, f[i], "column given twice (columns %d and %d)",
                             pos[j] + 1, i + 1);
        pos[j] = i;
    }
    for (int j = 0; c->names[j] != NULL; j++)
        if ((c->required >> j) & 1 && pos[j] < 0)
            return err_input(err, path, ln, c->names[j], "required column is missing (an openb "
                             "%s has: %s)", c->what, cols);
    *ncols = n;
    return 0;
}

int openb_row(tio *r, const char *path, int ncols, char **f, long *line, struct errbuf *err)
{
    char *s;
    size_t len;
    int rc;
    while ((rc = tio_next(r, &s, &len, err)) > 0 && tio_skippable(s))
        ;
    if (rc <= 0)
        return rc;
    *line = tio_lineno(r);
    int n = tio_split(s, ',', f, OPENB_MAX_FIELDS);
    if (n < 0)
        return err_input(err, path, *line, NULL, "unterminated quote");
    if (n != ncols)
        return err_input(err, path, *line, NULL, "expected %d fields (as the header), found %d",
                         ncols, n);
    return 1;
}

int openb_int(const char *path, long line, const char *field, const char *s, int64_t lo,
              int64_t hi, const char *what, int64_t *out, struct errbuf *err)
{
    long long v;
    if (tio_int64(s, &v) < 0 || v < lo || v > hi)
        return err_input(err, path, line, field, "'%s' is not %s", s, what);
    *out = v;
    return 0;
}

int openb_name(const char *path, long line, const char *field, const char *s, size_t max,
               struct errbuf *err)
{
    size_t n = strlen(s);
    if (tio_skippable(s) && strchr(s, '#') == NULL)
        return err_input(err, path, line, field, "empty");
    if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]))
        return err_input(err, path, line, field, "'%s' begins or ends with a blank", s);
    if (n > max)
        return err_input(err, path, line, field, "longer than %zu characters", max);
    return 0;
}
