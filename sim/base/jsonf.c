/*
 * jsonf: cJSON documents with value positions and validating readers.
 *
 * Positions: after cJSON has accepted the text, walk() re-scans the same text in step with the
 * tree (cJSON keeps members in text order) and stores node -> line in an open-addressing map
 * keyed by node address.  The text is known valid, so the scanner only needs to skip.
 * Overridden nodes (jsonf_set) are kept in a small list and reported by path instead.
 * Complexity: O(text) at load, O(1) per position lookup.
 */
#define _POSIX_C_SOURCE 200809L
#include "jsonf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tio.h"

struct linemap_ent {
    const cJSON *node;
    long         line;
};

struct set_ent {
    const cJSON *node;
    char        *label;         /* "--set a.b" */
};

struct jsonf {
    char               *name;
    cJSON              *root;
    struct linemap_ent *map;
    size_t              mapcap; /* power of two */
    struct set_ent     *sets;
    size_t              nsets;
};

static size_t ptr_hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbU;
    x ^= x >> 11;
    return (size_t)x;
}

static void map_put(jsonf *d, const cJSON *node, long line)
{
    size_t i = ptr_hash(node) & (d->mapcap - 1);
    while (d->map[i].node != NULL && d->map[i].node != node)
        i = (i + 1) & (d->mapcap - 1);
    d->map[i].node = node;
    d->map[i].line = line;
}

static long map_get(const jsonf *d, const cJSON *node)
{
    if (d->map == NULL || node == NULL)
        return 0;
    size_t i = ptr_hash(node) & (d->mapcap - 1);
    while (d->map[i].node != NULL) {
        if (d->map[i].node == node)
            return d->map[i].line;
        i = (i + 1) & (d->mapcap - 1);
    }
    return 0;
}

static size_t count_nodes(const cJSON *n)
{
    size_t c = 1;
    for (const cJSON *k = n->child; k != NULL; k = k->next)
        c += count_nodes(k);
    return c;
}

struct scan {
    const char *s;
    size_t      pos, len;
    long        line;
};

/* What cJSON skips as whitespace: every byte from 0x01 to 0x20, not only the four JSON
 * names (the scanner must skip exactly what the parser skipped, or it loses its place). */
static int is_ws(char c)
{
    return (unsigned char)c <= 0x20 && c != '\0';
}

static void skip_ws(struct scan *sc)
{
    while (sc->pos < sc->len && is_ws(sc->s[sc->pos])) {
        sc->line += sc->s[sc->pos] == '\n';
        sc->pos++;
    }
}

static void skip_string(struct scan *sc)
{
    sc->pos++;                              /* opening quote */
    while (sc->pos < sc->len && sc->s[sc->pos] != '"') {
        if (sc->s[sc->pos] == '\\')
            sc->pos++;
        else if (sc->s[sc->pos] == '\n')    /* cJSON accepts raw newlines in strings */
            sc->line++;
        sc->pos++;
    }
    sc->pos++;                              /* closing quote */
}

/* Walk the value at sc->pos, which cJSON parsed into `node`; `line` is the line to record. */
static void walk(jsonf *d, struct scan *sc, const cJSON *node, long line)
{
    skip_ws(sc);
    map_put(d, node, line ? line : sc->line);
    if (sc->pos >= sc->len)
        return;
    char c = sc->s[sc->pos];
    if (c == '{' || c == '[') {
        sc->pos++;
        for (const cJSON *k = node->child; k != NULL && sc->pos < sc->len; k = k->next) {
            skip_ws(sc);
            if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
                sc->pos++;
                skip_ws(sc);
            }
            long kline = 0;
            if (c == '{') {
                kline = sc->line;
                skip_string(sc);
                skip_ws(sc);
                sc->pos++;                  /* ':' */
            }
            walk(d, sc, k, kline);
        }
        skip_ws(sc);
        sc->pos++;                          /* '}' or ']' */
    } else if (c == '"') {
        skip_string(sc);
    } else {
        while (sc->pos < sc->len && !is_ws(sc->s[sc->pos]) &&
               strchr(",]}", sc->s[sc->pos]) == NULL)
            sc->pos++;
    }
}

int jsonf_parse(jsonf **out, const char *name, const char *text, size_t len,
                struct errbuf *err)
{
    *out = NULL;
    /* byte-order marks: all of them here, so that cJSON (which skips one) and the position
     * scanner start at the same byte */
    while (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
           (unsigned char)text[2] == 0xBF) {
        text += 3;
        len -= 3;
    }
    size_t i = 0;
    while (i < len && is_ws(text[i]))
        i++;
    if (i == len)
        return err_input(err, name, 0, NULL, "empty file: expected a JSON object");
    if (memchr(text, '\0', len) != NULL)
        return err_input(err, name, 0, NULL, "NUL byte in JSON text");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (root == NULL) {
        const char *at = end != NULL ? end : cJSON_GetErrorPtr();
        long line = 1;
        size_t off = at != NULL && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        for (size_t k = 0; k < off; k++)
            line += text[k] == '\n';
        /* show the line around the error: cJSON may point just past the bad token */
        size_t bol = off;
        while (bol > 0 && text[bol - 1] != '\n')
            bol--;
        size_t from = off > bol + 20 ? off - 20 : bol, to = from;
        while (to < len && to < off + 20 && text[to] != '\n' && text[to] != '\r')
            to++;
        return err_input(err, name, line, NULL, "JSON syntax error at column %zu near '%.*s'",
                         off - bol + 1, (int)(to - from), text + from);
    }
    /* trailing garbage after the document */
    for (size_t k = (size_t)(end - text); k < len; k++)
        if (!is_ws(text[k])) {
            long line = 1;
            for (size_t m = 0; m < k; m++)
                line += text[m] == '\n';
            cJSON_Delete(root);
            return err_input(err, name, line, NULL, "unexpected text after the JSON document");
        }
    jsonf *d = calloc(1, sizeof *d);
    if (d == NULL || (d->name = strdup(name)) == NULL) {
        free(d);
        cJSON_Delete(root);
        return err_run(err, "%s: out of memory", name);
    }
    d->root = root;
    size_t n = count_nodes(root);
    d->mapcap = 16;
    while (d->mapcap < 2 * n)
        d->mapcap *= 2;
    d->map = calloc(d->mapcap, sizeof *d->map);
    if (d->map == NULL) {
        jsonf_destroy(d);
        return err_run(err, "%s: out of memory", name);
    }
    struct scan sc = { text, 0, len, 1 };
    walk(d, &sc, root, 0);
    *out = d;
    return 0;
}

int jsonf_load(jsonf **out, const char *path, struct errbuf *err)
{
    char *buf;
    size_t len;
    *out = NULL;
    if (tio_slurp(path, &buf, &len, err) < 0)
        return -1;
    int rc = jsonf_parse(out, path, buf, len, err);
    free(buf);
    return rc;
}

void jsonf_destroy(jsonf *d)
{
    if (d == NULL)
        return;
    cJSON_Delete(d->root);
    for (size_t i = 0; i < d->nsets; i++)
        free(d->sets[i].label);
    free(d->sets);
    free(d->map);
    free(d->name);
    free(d);
}

cJSON *jsonf_root(const jsonf *d) { return d->root; }
const char *jsonf_name(const jsonf *d) { return d->name; }

void jsonf_where(const jsonf *d, const cJSON *node, const char **file, long *line)
{
    for (size_t i = d->nsets; i-- > 0;)
        if (d->sets[i].node == node) {
            *file = d->sets[i].label;
            *line = 0;
            return;
        }
    *file = d->name;
    *line = map_get(d, node);
}

int jsonf_error(const jsonf *d, const cJSON *node, const char *path, struct errbuf *err,
                const char *fmt, ...)
{
    const char *file;
    long line;
    jsonf_where(d, node, &file, &line);
    char msg[ERR_MSG_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_input(err, file, line, path, "%s", msg);
}

/* ---- overrides ---- */

static int is_index(const char *s, long *out)
{
    if (*s == '\0')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno != 0 || v < 0)
        return 0;
    *out = v;
    return 1;
}

/* Remember `v` and every node below it as coming from the override `label`. */
static int set_register(jsonf *d, const cJSON *v, const char *label, struct errbuf *err)
{
    struct set_ent *ns = realloc(d->sets, (d->nsets + 1) * sizeof *ns);
    if (ns == NULL)
        return err_run(err, "out of memory");
    d->sets = ns;
    if ((d->sets[d->nsets].label = strdup(label)) == NULL)
        return err_run(err, "out of memory");
    d->sets[d->nsets++].node = v;
    for (const cJSON *k = v->child; k != NULL; k = k->next)
        if (set_register(d, k, label, err) < 0)
            return -1;
    return 0;
}

int jsonf_set(jsonf *d, const char *path, const char *value, struct errbuf *err)
{
    return jsonf_set_from(d, path, value, NULL, err);
}

int jsonf_set_from(jsonf *d, const char *path, const char *value, const char *origin,
                   struct errbuf *err)
{
    char label[256];
    if (origin != NULL)
        snprintf(label, sizeof label, "%s", origin);
    else
        snprintf(label, sizeof label, "--set %s", path);
    if (*path == '\0' || path[strlen(path) - 1] == '.' || *path == '.' ||
        strstr(path, "..") != NULL)
        return err_input(err, label, 0, NULL, "empty key in override");
    /* the whole value must be JSON ("12abc" is a string, not 12) */
    cJSON *v = cJSON_ParseWithOpts(value, NULL, 1);
    if (v == NULL)
        v = cJSON_CreateString(value);
    if (v == NULL)
        return err_run(err, "out of memory");

    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *cur = d->root;
    char *seg = buf;
    for (;;) {
        char *dot = strchr(seg, '.');
        if (dot != NULL)
            *dot = '\0';
        int last = dot == NULL;
        long idx;
        if (cJSON_IsArray(cur)) {
            if (!is_index(seg, &idx) || idx >= cJSON_GetArraySize(cur)) {
                cJSON_Delete(v);
                return err_input(err, label, 0, NULL,
                                 "'%s' is not an index of an array of %d elements", seg,
                                 cJSON_GetArraySize(cur));
            }
            if (last) {
                cJSON_ReplaceItemInArray(cur, (int)idx, v);
                break;
            }
            cur = cJSON_GetArrayItem(cur, (int)idx);
        } else if (cJSON_IsObject(cur)) {
            cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, seg);
            if (last) {
                /* ReplaceItemInObject also gives v its key (ViaPointer would not) */
                if (next != NULL)
                    cJSON_ReplaceItemInObjectCaseSensitive(cur, seg, v);
                else
                    cJSON_AddItemToObject(cur, seg, v);
                break;
            }
            if (next == NULL) {
                next = cJSON_CreateObject();
                if (next == NULL) {
                    cJSON_Delete(v);
                    return err_run(err, "out of memory");
                }
                cJSON_AddItemToObject(cur, seg, next);
                if (set_register(d, next, label, err) < 0) {
                    cJSON_Delete(v);
                    return -1;
                }
            }
            cur = next;
        } else {
            cJSON_Delete(v);
            return err_input(err, label, 0, NULL, "'%s' is inside a value that is not an object",
                             seg);
        }
        seg = dot + 1;
    }
    return set_register(d, v, label, err);
}

/* ---- readers ---- */

/* dst = parent.key, truncated to cap (paths only label error messages) */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

const char *jsonf_suggest(const char *s, const char *const *choices)
{
    const char *best = NULL;
    size_t bestd = 3;
    for (int i = 0; choices[i] != NULL; i++) {
        size_t d = edit_distance(s, choices[i]);
        if (d < bestd) {
            bestd = d;
            best = choices[i];
        }
    }
    if (best == NULL && strlen(s) >= 3)
        for (int i = 0; choices[i] != NULL; i++)
            if (strncmp(s, choices[i], strlen(s)) == 0)
                return choices[i];
    return best;
}
