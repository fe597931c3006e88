/*
 * fuzz_jsonf: sim/base/jsonf.h on arbitrary bytes.
 *
 * Input: JSON TEXT \0 PATH \0 VALUE.  The text (up to the first NUL, so never holding one) is
 * given to jsonf_parse in a buffer of exactly its length, not NUL-terminated, as the
 * (text, len) signature allows.  On a document: every node's position (jsonf_where) must be a
 * line of the text; every object is read with each reader (jobj_known, jobj_obj, jobj_elem,
 * jobj_num / int / str / bool / arr / enum) on each of its keys; then PATH = VALUE is applied
 * with jsonf_set and the whole walk is done again.  Every failure must leave a message.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/jobj.h"
#include "fuzzutil.h"

static const char *const known[] = { "name", "count", "gpu", "groups", "workload", "format",
                                     "policies", "sim", "seed", "note", NULL };
static const char *const choices[] = { "hetsim", "gavel", "philly", "synthetic", NULL };

/* Position of every node below n; fresh == 1: all must come from the text's lines. */
static void check_where(const jsonf *d, const cJSON *n, long nlines, int fresh)
{
    const char *file = NULL;
    long line = -1;
    jsonf_where(d, n, &file, &line);
    if (file == NULL || line < 0 || line > nlines)
        fz_fail("jsonf_where: line %ld of a %ld-line text", line, nlines);
    if (fresh && line == 0)
        fz_fail("jsonf_where: a node of the text has no line");
    for (const cJSON *k = n->child; k != NULL; k = k->next)
        check_where(d, k, nlines, fresh);
}

static void read_object(const struct jobj *o, int depth);

static void read_member(const struct jobj *o, const cJSON *m, int depth)
{
    struct errbuf err;
    const char *key = m->string;
    double num = 0;
    int64_t i64 = 0;
    const char *s = NULL;
    int b = 0, idx = -1, rc;
    const cJSON *arr = NULL;
    struct jobj child;

    err_clear(&err);
    fz_check_err(jobj_num(o, key, JREQ, -1e6, 1e6, &num, &err), &err, "jobj_num");
    err_clear(&err);
    fz_check_err(jobj_int(o, key, JOPT, INT64_MIN, INT64_MAX, &i64, &err), &err, "jobj_int");
    err_clear(&err);
    fz_check_err(jobj_int(o, key, JREQ, 1, 1000, &i64, &err), &err, "jobj_int");
    err_clear(&err);
    fz_check_err(jobj_str(o, key, JREQ, &s, &err), &err, "jobj_str");
    err_clear(&err);
    fz_check_err(jobj_bool(o, key, JREQ, &b, &err), &err, "jobj_bool");
    err_clear(&err);
    fz_check_err(jobj_enum(o, key, JREQ, choices, &idx, &err), &err, "jobj_enum");
    if (idx >= 4)
        fz_fail("jobj_enum: index %d", idx);
    err_clear(&err);
    rc = jobj_arr(o, key, JREQ, &arr, &err);
    fz_check_err(rc, &err, "jobj_arr");
    if (rc == 0 && depth < 64) {
        int i = 0;
        for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
            err_clear(&err);
            rc = jobj_elem(&child, o, key, e, i, &err);
            fz_check_err(rc, &err, "jobj_elem");
            if (rc == 0)
                read_object(&child, depth + 1);
        }
    }
    err_clear(&err);
    rc = jobj_obj(&child, o, key, JOPT, &err);
    fz_check_err(rc, &err, "jobj_obj");
    if (rc == 0 && child.node != NULL && depth < 64)
        read_object(&child, depth + 1);
    if (memchr(child.path, '\0', sizeof child.path) == NULL)
        fz_fail("jobj path not terminated");
}

static void read_object(const struct jobj *o, int depth)
{
    struct errbuf err;
    err_clear(&err);
    fz_check_err(jobj_known(o, known, &err), &err, "jobj_known");
    for (const cJSON *m = o->node->child; m != NULL; m = m->next) {
        read_member(o, m, depth);
        (void)jsonf_suggest(m->string, known);
    }
    /* a missing key, required and optional (jsonf_set may have added this one) */
    static const char absent[] = "\x01missing";
    if (cJSON_GetObjectItemCaseSensitive(o->node, absent) != NULL)
        return;
    double num = 7;
    err_clear(&err);
    fz_check_err(jobj_num(o, absent, JREQ, 0, 1, &num, &err), &err, "jobj_num missing");
    err_clear(&err);
    if (jobj_num(o, absent, JOPT, 0, 1, &num, &err) != 0 || num != 7)
        fz_fail("an optional missing key changed the default or failed");
}

static void walk(jsonf *d, long nlines, int fresh)
{
    check_where(d, jsonf_root(d), nlines, fresh);
    struct errbuf err;
    struct jobj root;
    err_clear(&err);
    int rc = jobj_root(&root, d, &err);
    fz_check_err(rc, &err, "jobj_root");
    if (rc == 0)
        read_object(&root, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t tlen, plen, vlen;
    const uint8_t *t = fz_cut(&data, &size, 0, &tlen);
    int have_set = size > 0;
    const uint8_t *p = fz_cut(&data, &size, 0, &plen);
    const uint8_t *v = fz_cut(&data, &size, 0, &vlen);

    /* exactly tlen bytes, so that a read past the end is caught */
    char *text = malloc(tlen ? tlen : 1);
    if (text == NULL)
        return 0;
    memcpy(text, t, tlen);
    long nlines = 1;
    for (size_t i = 0; i < tlen; i++)
        nlines += text[i] == '\n';

    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    int rc = jsonf_parse(&d, "fuzz.json", text, tlen, &err);
    fz_check_err(rc, &err, "jsonf_parse");
    if (rc == 0) {
        if (strcmp(jsonf_name(d), "fuzz.json") != 0)
            fz_fail("jsonf_name");
        walk(d, nlines, 1);
        if (have_set) {
            char *path = fz_cstr(p, plen), *value = fz_cstr(v, vlen);
            err_clear(&err);
            rc = jsonf_set(d, path, value, &err);
            fz_check_err(rc, &err, "jsonf_set");
            walk(d, nlines, 0);
            free(path);
            free(value);
        }
        jsonf_destroy(d);
    } else if (d != NULL) {
        fz_fail("jsonf_parse failed but returned a document");
    }
    free(text);
    return 0;
}
