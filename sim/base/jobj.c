/*
 * jobj: readers of typed fields on top of jsonf's positions.  Each reads one member, checks
 * its type and range, and reports the member's own line on failure.
 */
#include "jobj.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void child_path(char *dst, size_t cap, const char *parent, const char *key)
{
    size_t n = 0;
    for (const char *s = parent; *s && n + 1 < cap; s++)
        dst[n++] = *s;
    if (parent[0] != '\0' && n + 1 < cap)
        dst[n++] = '.';
    for (const char *s = key; *s && n + 1 < cap; s++)
        dst[n++] = *s;
    dst[n] = '\0';
}

const char *jobj_field(const struct jobj *o, const char *rel, char *buf, size_t cap)
{
    if (rel[0] == '[')                  /* an index of o itself: no dot */
        snprintf(buf, cap, "%s%s", o->path, rel);
    else
        child_path(buf, cap, o->path, rel);
    return buf;
}

int jobj_root(struct jobj *o, const jsonf *doc, struct errbuf *err)
{
    o->doc = doc;
    o->node = jsonf_root(doc);
    o->path[0] = '\0';
    if (!cJSON_IsObject(jsonf_root(doc)))
        return jsonf_error(doc, jsonf_root(doc), NULL, err, "the document must be a JSON object");
    return 0;
}

static const cJSON *member(const struct jobj *o, const char *key)
{
    return o->node == NULL ? NULL : cJSON_GetObjectItemCaseSensitive(o->node, key);
}

static int missing(const struct jobj *o, const char *key, int flags, struct errbuf *err)
{
    if (!(flags & JREQ))
        return 0;
    char p[256];
    child_path(p, sizeof p, o->path, key);
    return jsonf_error(o->doc, o->node, p, err, "required field is missing");
}

int jobj_obj(struct jobj *out, const struct jobj *parent, const char *key, int flags,
             struct errbuf *err)
{
    out->doc = parent->doc;
    out->node = NULL;
    child_path(out->path, sizeof out->path, parent->path, key);
    const cJSON *m = member(parent, key);
    if (m == NULL)
        return missing(parent, key, flags, err);
    if (!cJSON_IsObject(m))
        return jsonf_error(parent->doc, m, out->path, err, "must be an object");
    out->node = m;
    return 0;
}

int jobj_elem(struct jobj *out, const struct jobj *parent, const char *key, const cJSON *elem,
              int index, struct errbuf *err)
{
    out->doc = parent->doc;
    out->node = elem;
    char p[sizeof out->path];
    child_path(p, sizeof p, parent->path, key);
    size_t n = strlen(p);
    if (n > sizeof out->path - 16)
        n = sizeof out->path - 16;
    snprintf(out->path, sizeof out->path, "%.*s[%d]", (int)n, p, index);
    if (!cJSON_IsObject(elem))
        return jsonf_error(parent->doc, elem, out->path, err, "must be an object");
    return 0;
}

/* A number node in [lo, hi], reported as `path`. */
static int check_num(const jsonf *doc, const cJSON *m, const char *path, double lo, double hi,
                     double *out, struct errbuf *err)
{
    if (!cJSON_IsNumber(m))
        return jsonf_error(doc, m, path, err, "must be a number");
    double v = m->valuedouble;
    if (!isfinite(v))
        return jsonf_error(doc, m, path, err, "must be a finite number");
    if (v < lo || v > hi)
        return jsonf_error(doc, m, path, err, "%g is out of range [%g, %g]", v, lo, hi);
    *out = v;
    return 0;
}

/* An integer node in [lo, hi], reported as `path`. */
static int check_int(const jsonf *doc, const cJSON *m, const char *path, int64_t lo,
                     int64_t hi, int64_t *out, struct errbuf *err)
{
    if (!cJSON_IsNumber(m))
        return jsonf_error(doc, m, path, err, "must be an integer");
    double v = m->valuedouble;
    if (isfinite(v) && v == floor(v) && fabs(v) > 9.0e15)
        return jsonf_error(doc, m, path, err, "%g is out of range [%lld, %lld]", v,
                           (long long)lo, (long long)hi);
    if (!isfinite(v) || v != floor(v))
        return jsonf_error(doc, m, path, err, "must be an integer");
    if (v < (double)lo || v > (double)hi)
        return jsonf_error(doc, m, path, err, "%.0f is out of range [%lld, %lld]", v,
                           (long long)lo, (long long)hi);
    *out = (int64_t)v;
    return 0;
}

int jobj_num(const struct jobj *o, const char *key, int flags, double lo, double hi,
             double *out, struct errbuf *err)
{
    const cJSON *m = member(o, key);
    if (m == NULL)
        return missing(o, key, flags, err);
    char p[256];
    child_path(p, sizeof p, o->path, key);
    return check_num(o->doc, m, p, lo, hi, out, err);
}

int jobj_int(const struct jobj *o, const char *key, int flags, int64_t lo, int64_t hi,
             int64_t *out, struct errbuf *err)
{
    const cJSON *m = member(o, key);
    if (m == NULL)
        return missing(o, key, flags, err);
    char p[256];
    child_path(p, sizeof p, o->path, key);
    return check_int(o->doc, m, p, lo, hi, out, err);
}

/* Array member `key` of two elements: its node, or NULL when absent (*given = 0). */
static const cJSON *pair(const struct jobj *o, const char *key, int integer, char *p,
                         size_t cap, int *given, struct errbuf *err, int *rc)
{
    *given = 0;
    *rc = 0;
    const cJSON *m = member(o, key);
    if (m == NULL)
        return NULL;
    child_path(p, cap, o->path, key);
    if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != 2) {
        *rc = jsonf_error(o->doc, m, p, err, "must be a pair [%s, %s] of %s",
                          integer ? "first" : "start", integer ? "last" : "end",
                          integer ? "integers" : "numbers");
        return NULL;
    }
    *given = 2;
    return m;
}

int jobj_num_pair(const struct jobj *o, const char *key, double lo, double hi, double out[2],
                  int *given, struct errbuf *err)
{
    char p[256], pe[272];
    int rc, i = 0;
    const cJSON *m = pair(o, key, 0, p, sizeof p, given, err, &rc);
    for (const cJSON *e = m ? m->child : NULL; e != NULL && rc == 0; e = e->next, i++) {
        snprintf(pe, sizeof pe, "%s[%d]", p, i);
        rc = check_num(o->doc, e, pe, lo, hi, &out[i], err);
    }
    return rc;
}

int jobj_int_pair(const struct jobj *o, const char *key, int64_t lo, int64_t hi,
                  int64_t out[2], int *given, struct errbuf *err)
{
    char p[256], pe[272];
    int rc, i = 0;
    const cJSON *m = pair(o, key, 1, p, sizeof p, given, err, &rc);
    for (const cJSON *e = m ? m->child : NULL; e != NULL && rc == 0; e = e->next, i++) {
        snprintf(pe, sizeof pe, "%s[%d]", p, i);
        rc = check_int(o->doc, e, pe, lo, hi, &out[i], err);
    }
    return rc;
}

int jobj_str(const struct jobj *o, const char *key, int flags, const char **out,
             struct errbuf *err)
{
    const cJSON *m = member(o, key);
    if (m == NULL)
        return missing(o, key, flags, err);
    char p[256];
    child_path(p, sizeof p, o->path, key);
    if (!cJSON_IsString(m))
        return jsonf_error(o->doc, m, p, err, "must be a string");
    if (m->valuestring[0] == '\0')
        return jsonf_error(o->doc, m, p, err, "must not be empty");
    *out = m->valuestring;
    return 0;
}

int jobj_bool(const struct jobj *o, const char *key, int flags, int *out, struct errbuf *err)
{
    const cJSON *m = member(o, key);
    if (m == NULL)
        return missing(o, key, flags, err);
    char p[256];
    child_path(p, sizeof p, o->path, key);
    if (!cJSON_IsBool(m))
        return jsonf_error(o->doc, m, p, err, "must be true or false");
    *out = cJSON_IsTrue(m);
    return 0;
}

int jobj_arr(const struct jobj *o, const char *key, int flags, const cJSON **out,
             struct errbuf *err)
{
    *out = NULL;
    const cJSON *m = member(o, key);
    if (m == NULL)
        return missing(o, key, flags, err);
    char p[256];
    child_path(p, sizeof p, o->path, key);
    if (!cJSON_IsArray(m))
        return jsonf_error(o->doc, m, p, err, "must be an array");
    *out = m;
    return 0;
}

int jobj_enum(const struct jobj *o, const char *key, int flags, const char *const *choices,
              int *out, struct errbuf *err)
{
    const char *s = NULL;
    if (jobj_str(o, key, flags, &s, err) < 0)
        return -1;
    if (s == NULL)
        return 0;
    for (int i = 0; choices[i] != NULL; i++)
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return 0;
        }
    char p[256], list[256] = "";
    child_path(p, sizeof p, o->path, key);
    for (int i = 0; choices[i] != NULL; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", choices[i]);
    }
    const char *hint = jsonf_suggest(s, choices);
    char dym[96] = "";
    if (hint != NULL)
        snprintf(dym, sizeof dym, " (did you mean '%s'?)", hint);
    return jsonf_error(o->doc, member(o, key), p, err, "'%s' is not one of: %s%s", s, list, dym);
}

int jobj_known(const struct jobj *o, const char *const *known, struct errbuf *err)
{
    if (o->node == NULL)
        return 0;
    for (const cJSON *m = o->node->child; m != NULL; m = m->next) {
        char p[256];
        child_path(p, sizeof p, o->path, m->string);
        int ok = 0;
        for (int i = 0; known[i] != NULL && !ok; i++)
            ok = strcmp(m->string, known[i]) == 0;
        if (!ok) {
            /* the fields this object takes, so that the user need not read the source */
            char list[320] = "";
            size_t n = 0;
            for (int i = 0; known[i] != NULL; i++) {
                size_t w = strlen(known[i]);
                if (n + w + 8 >= sizeof list) {
                    snprintf(list + n, sizeof list - n, ", ...");
                    break;
                }
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", known[i]);
            }
            const char *hint = jsonf_suggest(m->string, known);
            if (hint != NULL)
                return jsonf_error(o->doc, m, p, err,
                                   "unknown field (did you mean '%s'? the fields here: %s)", hint,
                                   list);
            return jsonf_error(o->doc, m, p, err, "unknown field (the fields here: %s)", list);
        }
        for (const cJSON *k = o->node->child; k != m; k = k->next)
            if (strcmp(k->string, m->string) == 0)
                return jsonf_error(o->doc, m, p, err, "field given twice");
    }
    return 0;
}
