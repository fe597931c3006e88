/*
 * test_jsonf: JSON documents with line positions (nested members, array elements, CRLF, BOM),
 * syntax and trailing-text errors, the validating readers (jobj_*), --set overrides and
 * did-you-mean suggestions.  Expected lines and messages are counted by hand from the texts.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../sim/base/jobj.h"
#include "helpers.h"

static jsonf *parse_ok(const char *name, const char *text)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    cr_assert_eq(jsonf_parse(&d, name, text, strlen(text), &err), 0, "parse %s: %s", name,
                 err.msg);
    cr_assert_not_null(d);
    return d;
}

/* parse must fail with exactly `want` */
static void parse_fails(const char *text, size_t len, const char *want)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *d = (jsonf *)1;
    cr_assert_eq(jsonf_parse(&d, "doc.json", text, len, &err), -1, "accepted: %s", text);
    cr_assert_null(d, "no document on failure");
    cr_assert_eq(err.code, ERR_INPUT);
    cr_assert_str_eq(err.msg, want, "for text [%s]", text);
}

static long line_of(const jsonf *d, const cJSON *node)
{
    const char *file = NULL;
    long line = -1;
    cr_assert_not_null(node);
    jsonf_where(d, node, &file, &line);
    cr_assert_str_eq(file, jsonf_name(d));
    return line;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
    cr_assert_not_null(m, "member %s missing", key);
    return m;
}

/* ---- positions ---- */

/* line numbers in the document below, counted by hand */
static const char *const lines_doc[] = {
    "{",                                        /* 1 */
    "  \"name\": \"a \\\"quoted\\\" \\\\\",",   /* 2  escapes must not confuse the scanner */
    "  \"groups\": [",                          /* 3 */
    "    { \"gpu\": \"V100\",",                 /* 4 */
    "      \"count\": 4 },",                    /* 5 */
    "    {",                                    /* 6 */
    "      \"gpu\": \"K80\", \"count\": 2",     /* 7 */
    "    }",                                    /* 8 */
    "  ],",                                     /* 9 */
    "  \"nums\": [1,",                          /* 10 */
    "           2,",                            /* 11 */
    "",                                         /* 12 */
    "           3],",                           /* 13 */
    "  \"nested\": {",                          /* 14 */
    "    \"deep\":",                            /* 15 */
    "      {",                                  /* 16 */
    "        \"v\": [true, null, {\"w\": 1}]",  /* 17 */
    "      }",                                  /* 18 */
    "  }",                                      /* 19 */
    "}",                                        /* 20 */
    NULL,
};

static char *join_lines(const char *prefix, const char *eol)
{
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s, cap, "%s", prefix);
    for (int i = 0; lines_doc[i] != NULL; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s%s", lines_doc[i], eol);
    cr_assert_lt(n, cap);
    return s;
}

static void check_lines(const jsonf *d)
{
    const cJSON *root = jsonf_root(d);
    cr_assert_eq(line_of(d, root), 1);
    cr_assert_eq(line_of(d, get(root, "name")), 2);
    cr_assert_str_eq(get(root, "name")->valuestring, "a \"quoted\" \\");
    const cJSON *groups = get(root, "groups");
    cr_assert_eq(line_of(d, groups), 3, "an array member is at its key's line");
    const cJSON *g0 = cJSON_GetArrayItem(groups, 0), *g1 = cJSON_GetArrayItem(groups, 1);
    cr_assert_eq(line_of(d, g0), 4);
    cr_assert_eq(line_of(d, get(g0, "gpu")), 4);
    cr_assert_eq(line_of(d, get(g0, "count")), 5);
    cr_assert_eq(line_of(d, g1), 6);
    cr_assert_eq(line_of(d, get(g1, "gpu")), 7);
    cr_assert_eq(line_of(d, get(g1, "count")), 7);
    const cJSON *nums = get(root, "nums");
    cr_assert_eq(line_of(d, nums), 10);
    cr_assert_eq(line_of(d, cJSON_GetArrayItem(nums, 0)), 10);
    cr_assert_eq(line_of(d, cJSON_GetArrayItem(nums, 1)), 11);
    cr_assert_eq(line_of(d, cJSON_GetArrayItem(nums, 2)), 13, "a blank line is counted");
    const cJSON *nested = get(root, "nested");
    cr_assert_eq(line_of(d, nested), 14);
    const cJSON *deep = get(nested, "deep");
    cr_assert_eq(line_of(d, deep), 15, "an object member is at its key's line, not its brace's");
    const cJSON *v = get(deep, "v");
    cr_assert_eq(line_of(d, v), 17);
    cr_assert_eq(line_of(d, cJSON_GetArrayItem(v, 1)), 17);
    cr_assert_eq(line_of(d, get(cJSON_GetArrayItem(v, 2), "w")), 17);
}

Test(jsonf, lines_of_nested_members_and_elements)
{
    char *text = join_lines("", "\n");
    jsonf *d = parse_ok("doc.json", text);
    check_lines(d);
    jsonf_destroy(d);
    free(text);
}

Test(jsonf, lines_with_crlf_and_bom)
{
    const char *variants[][2] = { { "", "\r\n" }, { "\xEF\xBB\xBF", "\n" },
                                  { "\xEF\xBB\xBF", "\r\n" } };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char *text = join_lines(variants[i][0], variants[i][1]);
        jsonf *d = parse_ok("doc.json", text);
        check_lines(d);
        jsonf_destroy(d);
        free(text);
    }
}

Test(jsonf, reader_errors_name_file_line_and_path)
{
    char *text = join_lines("", "\r\n");
    jsonf *d = parse_ok("cfg/exp.json", text);
    struct errbuf err;
    struct jobj root, g;
    const cJSON *arr;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_arr(&root, "groups", JREQ, &arr, &err), 0);
    cr_assert_eq(jobj_elem(&g, &root, "groups", cJSON_GetArrayItem(arr, 1), 1, &err), 0);
    int64_t count = 0;
    cr_assert_eq(jobj_int(&g, "count", JREQ, 3, 8, &count, &err), -1);
    cr_assert_str_eq(err.msg, "cfg/exp.json:7: groups[1].count: 2 is out of range [3, 8]");

    struct jobj nested, deep;
    err_clear(&err);
    cr_assert_eq(jobj_obj(&nested, &root, "nested", JREQ, &err), 0);
    cr_assert_eq(jobj_obj(&deep, &nested, "deep", JREQ, &err), 0);
    cr_assert_str_eq(deep.path, "nested.deep");
    double x;
    cr_assert_eq(jobj_num(&deep, "v", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "cfg/exp.json:17: nested.deep.v: must be a number");

    /* a missing required member is reported at its parent object's line */
    err_clear(&err);
    cr_assert_eq(jobj_num(&deep, "rate", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "cfg/exp.json:15: nested.deep.rate: required field is missing");

    err_clear(&err);
    cr_assert_eq(jobj_elem(&g, &root, "nums", cJSON_GetArrayItem(get(jsonf_root(d), "nums"), 2),
                           2, &err), -1);
    cr_assert_str_eq(err.msg, "cfg/exp.json:13: nums[2]: must be an object");
    jsonf_destroy(d);
    free(text);
}

/* ---- syntax ---- */

/* a syntax error: "doc.json:LINE: JSON syntax error ... near '...TOKEN...'" */
static void syntax_fails(const char *text, long line, const char *token)
{
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    cr_assert_eq(jsonf_parse(&d, "doc.json", text, strlen(text), &err), -1, "accepted: %s", text);
    cr_assert_null(d);
    cr_assert_eq(err.code, ERR_INPUT);
    char head[64];
    snprintf(head, sizeof head, "doc.json:%ld: JSON syntax error", line);
    cr_assert(strncmp(err.msg, head, strlen(head)) == 0, "got '%s', want '%s...'", err.msg, head);
    const char *near = strstr(err.msg, " near '");
    cr_assert_not_null(near, "no context quoted: %s", err.msg);
    cr_assert_not_null(strstr(near, token), "'%s' not quoted in: %s", token, err.msg);
    cr_assert_null(strchr(err.msg, '\r'), "a CR in the message: %s", err.msg);
    cr_assert_null(strchr(err.msg, '\n'), "a newline in the message: %s", err.msg);
}

Test(jsonf, syntax_errors_name_the_line)
{
    static const struct {
        const char *text;
        long        line;
        const char *token;      /* must appear in the quoted context */
    } cases[] = {
        { "{\n  \"a\": 1\n  \"b\": 2\n}", 3, "\"b\"" },              /* missing comma */
        { "{\n  \"a\": 1,\n  \"b\": \n}\n", 4, "}" },                  /* missing value */
        { "\xEF\xBB\xBF{\n\n\n  \"x\": tru\n}", 4, "tru" },
        { "{\n  \"a\": 1,\n}\n", 3, "}" },                              /* trailing comma */
        { "{\"a\": 1", 1, "1" },                                         /* unclosed */
        { "\n\n{ 'a': 1 }", 3, "'a'" },
        { "\r\n\r\n{ \"a\": -x }", 3, "-x" },
        { "{\r\n  \"a\": [1, 2,,\r\n 3]\r\n}", 2, "2,," },              /* CRLF */
        { "{\r\n  \"a\": 1,\r\n  \"b\": }\r\n", 3, "\"b\": }" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        syntax_fails(cases[i].text, cases[i].line, cases[i].token);
}

Test(jsonf, syntax_error_context_stays_on_its_line)
{
    const char *t = "{\n \"a\": nope_this_is_a_very_long_identifier_and_then_some_more_text,\n"
                    " \"b\": SECOND\n}";
    syntax_fails(t, 2, "nope");
    struct errbuf err;
    err_clear(&err);
    jsonf *d;
    cr_assert_eq(jsonf_parse(&d, "doc.json", t, strlen(t), &err), -1);
    cr_assert_null(strstr(err.msg, "SECOND"), "context runs into the next line: %s", err.msg);
    cr_assert_lt(strlen(err.msg), 120, "context is short: %s", err.msg);
}

Test(jsonf, raw_newline_in_string_does_not_shift_lines)
{
    /* JSON forbids a raw newline inside a string; cJSON lets it through.  Either the document
     * is refused at that line, or the lines after it must still be right. */
    const char *t = "{\n \"a\": \"x\ny\",\n \"b\": 1\n}";
    struct errbuf err;
    err_clear(&err);
    jsonf *d = NULL;
    if (jsonf_parse(&d, "doc.json", t, strlen(t), &err) < 0) {
        cr_assert(strncmp(err.msg, "doc.json:2: ", 12) == 0, "%s", err.msg);
        return;
    }
    cr_assert_eq(line_of(d, get(jsonf_root(d), "b")), 4, "\"b\" is on line 4");
    jsonf_destroy(d);
}

Test(jsonf, trailing_garbage)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        { "{\"a\": 1}\n\nxyz\n", "doc.json:3: unexpected text after the JSON document" },
        { "{}{}", "doc.json:1: unexpected text after the JSON document" },
        { "{\r\n}\r\n,", "doc.json:3: unexpected text after the JSON document" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        parse_fails(cases[i].text, strlen(cases[i].text), cases[i].want);
    /* trailing blanks are fine */
    jsonf *d = parse_ok("doc.json", "{\"a\": 1}\r\n \t\n\n");
    jsonf_destroy(d);
}

Test(jsonf, empty_and_nul)
{
    parse_fails("", 0, "doc.json: empty file: expected a JSON object");
    parse_fails(" \r\n\t\n", 5, "doc.json: empty file: expected a JSON object");
    parse_fails("\xEF\xBB\xBF\n", 4, "doc.json: empty file: expected a JSON object");
    parse_fails("{\"a\": 1}\0", 9, "doc.json: NUL byte in JSON text");
}

Test(jsonf, load_from_file)
{
    struct errbuf err;
    jsonf *d;
    char *empty = th_write("jsonf_empty.json", "");
    err_clear(&err);
    cr_assert_eq(jsonf_load(&d, empty, &err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: empty file: expected a JSON object", empty);
    cr_assert_str_eq(err.msg, want);

    char *bad = th_write("jsonf_bad.json", "{\n  \"a\": 1,\n}\n");
    err_clear(&err);
    cr_assert_eq(jsonf_load(&d, bad, &err), -1);
    snprintf(want, sizeof want, "%s:3: JSON syntax error", bad);
    cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);

    char *good = th_write("jsonf_good.json", "\xEF\xBB\xBF{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}");
    err_clear(&err);
    cr_assert_eq(jsonf_load(&d, good, &err), 0, "%s", err.msg);
    cr_assert_str_eq(jsonf_name(d), good);
    cr_assert_eq(line_of(d, get(jsonf_root(d), "b")), 3);
    jsonf_destroy(d);

    err_clear(&err);
    cr_assert_eq(jsonf_load(&d, "/nonexistent/x.json", &err), -1);
    cr_assert(strstr(err.msg, "/nonexistent/x.json: cannot open") == err.msg, "%s", err.msg);
    free(empty);
    free(bad);
    free(good);
}

Test(jsonf, root_must_be_object)
{
    jsonf *d = parse_ok("doc.json", "\n[1, 2]");
    struct errbuf err;
    struct jobj root;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:2: the document must be a JSON object");
    jsonf_destroy(d);
}

/* ---- jobj_known ---- */

Test(jsonf, known_rejects_unknown_with_suggestion)
{
    static const char *const known[] = { "count", "gpu", "name", NULL };
    static const struct {
        const char *text, *want;
    } cases[] = {
        { "{\n \"gpu\": \"K80\",\n \"coutn\": 2\n}",
          "doc.json:3: coutn: unknown field (did you mean 'count'? the fields here: count, gpu, "
          "name)" },
        { "{\"Count\": 1}",
          "doc.json:1: Count: unknown field (did you mean 'count'? the fields here: count, gpu, "
          "name)" },
        { "{\n\n \"zzzzzzz\": 1}",
          "doc.json:3: zzzzzzz: unknown field (the fields here: count, gpu, name)" },
        { "{\n \"count\": 1,\n \"name\": \"a\",\n \"count\": 2\n}",
          "doc.json:4: count: field given twice" },
        { "{\"sub\": {\n \"gpuu\": 1}}",
          "doc.json:2: sub.gpuu: unknown field (did you mean 'gpu'? the fields here: count, "
          "gpu, name)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jsonf *d = parse_ok("doc.json", cases[i].text);
        struct errbuf err;
        struct jobj root, o;
        err_clear(&err);
        cr_assert_eq(jobj_root(&root, d, &err), 0);
        if (cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "sub") != NULL)
            cr_assert_eq(jobj_obj(&o, &root, "sub", JREQ, &err), 0);
        else
            o = root;
        cr_assert_eq(jobj_known(&o, known, &err), -1, "case %zu accepted", i);
        cr_assert_str_eq(err.msg, cases[i].want, "case %zu", i);
        jsonf_destroy(d);
    }
}

Test(jsonf, known_accepts_known_and_missing_object)
{
    static const char *const known[] = { "count", "gpu", NULL };
    jsonf *d = parse_ok("doc.json", "{\"gpu\": \"K80\", \"count\": 1}");
    struct errbuf err;
    struct jobj root, none;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_known(&root, known, &err), 0, "%s", err.msg);
    cr_assert_eq(jobj_obj(&none, &root, "absent", JOPT, &err), 0);
    cr_assert_null(none.node);
    cr_assert_eq(jobj_known(&none, known, &err), 0);
    cr_assert_eq(err.code, ERR_NONE);
    jsonf_destroy(d);
}

/* ---- numbers ---- */

enum { K_NUM, K_INT };

Test(jsonf, num_and_int_checks)
{
    static const struct {
        int         kind;
        const char *value;      /* JSON text of member "x" */
        double      lo, hi;
        int         rc;
        double      want;       /* value when rc == 0 */
        const char *msg;        /* error after "doc.json:2: x: " (NULL: not checked) */
    } cases[] = {
        { K_INT, "1.5", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "1e999", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "-1e999", -10, 10, -1, 0, "must be an integer" },
        { K_INT, "\"3\"", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "true", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "null", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "[3]", 0, 10, -1, 0, "must be an integer" },
        { K_INT, "1e16", 0, 1e18, -1, 0, NULL },   /* beyond exact doubles: refused */
        { K_INT, "11", 0, 10, -1, 0, "11 is out of range [0, 10]" },
        { K_INT, "-1", 0, 10, -1, 0, "-1 is out of range [0, 10]" },
        { K_INT, "3.0", 0, 10, 0, 3, NULL },
        { K_INT, "1e3", 0, 5000, 0, 1000, NULL },
        { K_INT, "0", 0, 10, 0, 0, NULL },
        { K_INT, "10", 0, 10, 0, 10, NULL },
        { K_INT, "-7", -10, 10, 0, -7, NULL },
        { K_INT, "4000000000", 0, 1e12, 0, 4e9, NULL },
        { K_NUM, "1e999", 0, 1e300, -1, 0, "must be a finite number" },
        { K_NUM, "-1e999", -1e300, 1e300, -1, 0, "must be a finite number" },
        { K_NUM, "\"1.5\"", 0, 10, -1, 0, "must be a number" },
        { K_NUM, "false", 0, 10, -1, 0, "must be a number" },
        { K_NUM, "{}", 0, 10, -1, 0, "must be a number" },
        { K_NUM, "-0.5", 0, 1, -1, 0, "-0.5 is out of range [0, 1]" },
        { K_NUM, "2.5", 0, 2, -1, 0, "2.5 is out of range [0, 2]" },
        { K_NUM, "1e-07", 1e-6, 1e6, -1, 0, "1e-07 is out of range [1e-06, 1e+06]" },
        { K_NUM, "1.5", 0, 10, 0, 1.5, NULL },
        { K_NUM, "0", 0, 1, 0, 0, NULL },
        { K_NUM, "1", 0, 1, 0, 1, NULL },
        { K_NUM, "-2.25e2", -1000, 0, 0, -225, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\n \"x\": %s\n}", cases[i].value);
        jsonf *d = parse_ok("doc.json", text);
        struct errbuf err;
        struct jobj root;
        err_clear(&err);
        cr_assert_eq(jobj_root(&root, d, &err), 0);
        int rc;
        double got;
        if (cases[i].kind == K_INT) {
            int64_t v = 42;
            rc = jobj_int(&root, "x", JREQ, (int64_t)cases[i].lo, (int64_t)cases[i].hi, &v, &err);
            got = (double)v;
            if (rc < 0)
                cr_assert_eq(v, 42, "case %zu: *out untouched on error", i);
        } else {
            double v = 42;
            rc = jobj_num(&root, "x", JREQ, cases[i].lo, cases[i].hi, &v, &err);
            got = v;
            if (rc < 0)
                cr_assert_eq(v, 42, "case %zu: *out untouched on error", i);
        }
        cr_assert_eq(rc, cases[i].rc, "case %zu (%s): rc %d, %s", i, cases[i].value, rc, err.msg);
        if (rc == 0) {
            cr_assert_eq(got, cases[i].want, "case %zu (%s): got %g", i, cases[i].value, got);
        } else {
            char want[256];
            snprintf(want, sizeof want, "doc.json:2: x: %s", cases[i].msg ? cases[i].msg : "");
            if (cases[i].msg != NULL)
                cr_assert_str_eq(err.msg, want, "case %zu (%s)", i, cases[i].value);
            else
                cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "case %zu: %s", i, err.msg);
            cr_assert_eq(err.code, ERR_INPUT);
        }
        jsonf_destroy(d);
    }
}

Test(jsonf, required_and_optional)
{
    jsonf *d = parse_ok("doc.json", "{\n \"sub\": {\n  \"a\": 1\n }\n}");
    struct errbuf err;
    struct jobj root, sub, none;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_obj(&sub, &root, "sub", JREQ, &err), 0);

    double dv = 7.5;
    int64_t iv = -3;
    const char *sv = "default";
    int bv = 2, ev = 5;
    const cJSON *av = (const cJSON *)&dv;
    static const char *const choices[] = { "x", "y", NULL };
    cr_assert_eq(jobj_num(&sub, "b", JOPT, 0, 1, &dv, &err), 0);
    cr_assert_eq(jobj_int(&sub, "b", JOPT, 0, 1, &iv, &err), 0);
    cr_assert_eq(jobj_str(&sub, "b", JOPT, &sv, &err), 0);
    cr_assert_eq(jobj_bool(&sub, "b", JOPT, &bv, &err), 0);
    cr_assert_eq(jobj_enum(&sub, "b", JOPT, choices, &ev, &err), 0);
    cr_assert_eq(jobj_arr(&sub, "b", JOPT, &av, &err), 0);
    cr_assert_eq(err.code, ERR_NONE, "%s", err.msg);
    cr_assert_eq(dv, 7.5, "optional leaves the default");
    cr_assert_eq(iv, -3);
    cr_assert_str_eq(sv, "default");
    cr_assert_eq(bv, 2);
    cr_assert_eq(ev, 5);
    cr_assert_null(av, "jobj_arr sets NULL for a missing optional array");

    /* an optional child object that is missing reads as all-defaults */
    cr_assert_eq(jobj_obj(&none, &root, "absent", JOPT, &err), 0);
    cr_assert_null(none.node);
    cr_assert_eq(jobj_num(&none, "a", JOPT, 0, 1, &dv, &err), 0);
    cr_assert_eq(dv, 7.5);

    static const struct {
        int         which;
        const char *want;
    } req[] = {
        { 0, "doc.json:2: sub.b: required field is missing" },
        { 1, "doc.json:2: sub.b: required field is missing" },
        { 2, "doc.json:2: sub.b: required field is missing" },
        { 3, "doc.json:2: sub.b: required field is missing" },
        { 4, "doc.json:2: sub.b: required field is missing" },
        { 5, "doc.json:2: sub.b: required field is missing" },
        { 6, "doc.json:1: absent: required field is missing" },
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        err_clear(&err);
        int rc = 0;
        switch (req[i].which) {
        case 0: rc = jobj_num(&sub, "b", JREQ, 0, 1, &dv, &err); break;
        case 1: rc = jobj_int(&sub, "b", JREQ, 0, 1, &iv, &err); break;
        case 2: rc = jobj_str(&sub, "b", JREQ, &sv, &err); break;
        case 3: rc = jobj_bool(&sub, "b", JREQ, &bv, &err); break;
        case 4: rc = jobj_enum(&sub, "b", JREQ, choices, &ev, &err); break;
        case 5: rc = jobj_arr(&sub, "b", JREQ, &av, &err); break;
        default: rc = jobj_obj(&none, &root, "absent", JREQ, &err); break;
        }
        cr_assert_eq(rc, -1, "case %zu", i);
        cr_assert_str_eq(err.msg, req[i].want, "case %zu", i);
    }
    jsonf_destroy(d);
}

Test(jsonf, str_bool_arr_obj_types)
{
    jsonf *d = parse_ok("doc.json", "{\n \"s\": 1,\n \"e\": \"\",\n \"b\": \"yes\",\n"
                                    " \"a\": {},\n \"o\": [],\n \"ok\": \"fine\",\n \"t\": false\n}");
    struct errbuf err;
    struct jobj root, o;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    const char *s = NULL;
    int b = -1;
    const cJSON *a = NULL;
    cr_assert_eq(jobj_str(&root, "s", JREQ, &s, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:2: s: must be a string");
    err_clear(&err);
    cr_assert_eq(jobj_str(&root, "e", JREQ, &s, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:3: e: must not be empty");
    err_clear(&err);
    cr_assert_eq(jobj_bool(&root, "b", JREQ, &b, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:4: b: must be true or false");
    err_clear(&err);
    cr_assert_eq(jobj_arr(&root, "a", JREQ, &a, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:5: a: must be an array");
    err_clear(&err);
    cr_assert_eq(jobj_obj(&o, &root, "o", JREQ, &err), -1);
    cr_assert_str_eq(err.msg, "doc.json:6: o: must be an object");
    err_clear(&err);
    cr_assert_eq(jobj_str(&root, "ok", JREQ, &s, &err), 0);
    cr_assert_str_eq(s, "fine");
    cr_assert_eq(jobj_bool(&root, "t", JREQ, &b, &err), 0);
    cr_assert_eq(b, 0);
    cr_assert_eq(jobj_arr(&root, "o", JREQ, &a, &err), 0);
    cr_assert(cJSON_IsArray(a));
    jsonf_destroy(d);
}

/* ---- enums ---- */

Test(jsonf, enum_lists_choices_and_suggests)
{
    static const char *const choices[] = { "fifo", "srtf", "gavel", NULL };
    static const struct {
        const char *value;
        int         rc, want;
        const char *msg;
    } cases[] = {
        { "\"srtf\"", 0, 1, NULL },
        { "\"fifo\"", 0, 0, NULL },
        { "\"fifoo\"", -1, 0,
          "doc.json:3: policy: 'fifoo' is not one of: fifo, srtf, gavel (did you mean 'fifo'?)" },
        { "\"Gavel\"", -1, 0,
          "doc.json:3: policy: 'Gavel' is not one of: fifo, srtf, gavel (did you mean 'gavel'?)" },
        { "\"round-robin\"", -1, 0,
          "doc.json:3: policy: 'round-robin' is not one of: fifo, srtf, gavel" },
        { "3", -1, 0, "doc.json:3: policy: must be a string" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{\n \"x\": 1,\n \"policy\": %s\n}", cases[i].value);
        jsonf *d = parse_ok("doc.json", text);
        struct errbuf err;
        struct jobj root;
        err_clear(&err);
        cr_assert_eq(jobj_root(&root, d, &err), 0);
        int out = 99;
        int rc = jobj_enum(&root, "policy", JREQ, choices, &out, &err);
        cr_assert_eq(rc, cases[i].rc, "case %zu: %s", i, err.msg);
        if (rc == 0)
            cr_assert_eq(out, cases[i].want, "case %zu", i);
        else {
            cr_assert_str_eq(err.msg, cases[i].msg, "case %zu", i);
            cr_assert_eq(out, 99, "case %zu: *out untouched", i);
        }
        jsonf_destroy(d);
    }
}

/* ---- overrides ---- */

static const char *const set_doc =
    "{\n"
    "  \"name\": \"base\",\n"                           /* 2 */
    "  \"seed\": 1,\n"                                  /* 3 */
    "  \"groups\": [\n"                                 /* 4 */
    "    { \"gpu\": \"V100\", \"count\": 4 },\n"        /* 5 */
    "    { \"gpu\": \"K80\", \"count\": 2 }\n"          /* 6 */
    "  ],\n"
    "  \"sim\": { \"until_s\": 100 },\n"                /* 8 */
    "  \"last\": true\n"                                /* 9 */
    "}\n";

static jsonf *set_ok(const char *path, const char *value)
{
    jsonf *d = parse_ok("exp.json", set_doc);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(jsonf_set(d, path, value, &err), 0, "set %s=%s: %s", path, value, err.msg);
    return d;
}

static void set_fails(const char *path, const char *value, const char *want)
{
    jsonf *d = parse_ok("exp.json", set_doc);
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(jsonf_set(d, path, value, &err), -1, "set %s=%s accepted", path, value);
    cr_assert_eq(err.code, ERR_INPUT);
    cr_assert_str_eq(err.msg, want, "set %s=%s", path, value);
    jsonf_destroy(d);
}

static int64_t read_int(const jsonf *d, const char *const *keys, int nkeys)
{
    struct errbuf err;
    struct jobj o, child;
    err_clear(&err);
    cr_assert_eq(jobj_root(&o, d, &err), 0);
    for (int i = 0; i < nkeys - 1; i++) {
        cr_assert_eq(jobj_obj(&child, &o, keys[i], JREQ, &err), 0, "%s", err.msg);
        o = child;
    }
    int64_t v = -999;
    cr_assert_eq(jobj_int(&o, keys[nkeys - 1], JREQ, INT64_MIN / 2, INT64_MAX / 2, &v, &err), 0,
                 "%s", err.msg);
    return v;
}

Test(jsonf, set_replaces_a_value)
{
    jsonf *d = set_ok("seed", "5");
    static const char *const seed[] = { "seed" };
    cr_assert_eq(read_int(d, seed, 1), 5, "the replaced value is read back");
    /* the replaced member keeps its key, and members after it stay reachable */
    const cJSON *root = jsonf_root(d);
    cr_assert_not_null(cJSON_GetObjectItemCaseSensitive(root, "last"),
                       "members after the replaced one must still be found");
    int n = 0;
    for (const cJSON *m = root->child; m != NULL; m = m->next, n++)
        cr_assert_not_null(m->string, "member %d lost its key", n);
    cr_assert_eq(n, 5, "no member added or removed");
    static const char *const known[] = { "name", "seed", "groups", "sim", "last", NULL };
    struct errbuf err;
    struct jobj o;
    err_clear(&err);
    cr_assert_eq(jobj_root(&o, d, &err), 0);
    cr_assert_eq(jobj_known(&o, known, &err), 0, "%s", err.msg);
    jsonf_destroy(d);

    /* replacing a nested member */
    d = set_ok("sim.until_s", "250");
    static const char *const until[] = { "sim", "until_s" };
    cr_assert_eq(read_int(d, until, 2), 250);
    jsonf_destroy(d);
}

Test(jsonf, set_creates_missing_objects)
{
    jsonf *d = set_ok("policy_opts.gavel.round_s", "360");
    static const char *const keys[] = { "policy_opts", "gavel", "round_s" };
    cr_assert_eq(read_int(d, keys, 3), 360);
    static const char *const seed[] = { "seed" };
    cr_assert_eq(read_int(d, seed, 1), 1, "the rest of the document is untouched");
    struct errbuf err;
    err_clear(&err);
    /* a second override inside the object the first one created */
    cr_assert_eq(jsonf_set(d, "policy_opts.gavel.alpha", "0.5", &err), 0, "%s", err.msg);
    cr_assert_eq(read_int(d, keys, 3), 360);
    /* a new member of an existing object */
    cr_assert_eq(jsonf_set(d, "sim.sample_s", "60", &err), 0, "%s", err.msg);
    static const char *const sample[] = { "sim", "sample_s" };
    static const char *const until[] = { "sim", "until_s" };
    cr_assert_eq(read_int(d, sample, 2), 60);
    cr_assert_eq(read_int(d, until, 2), 100);
    jsonf_destroy(d);
}

Test(jsonf, set_array_indices)
{
    struct errbuf err;
    struct jobj root, g;
    const cJSON *arr;
    int64_t c0 = 0, c1 = 0;

    /* a new member inside an array element */
    jsonf *d = set_ok("groups.0.nodes", "3");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_arr(&root, "groups", JREQ, &arr, &err), 0);
    cr_assert_eq(jobj_elem(&g, &root, "groups", cJSON_GetArrayItem(arr, 0), 0, &err), 0);
    cr_assert_eq(jobj_int(&g, "nodes", JREQ, 0, 10, &c0, &err), 0, "%s", err.msg);
    cr_assert_eq(c0, 3);
    jsonf_destroy(d);

    /* a whole element */
    d = set_ok("groups.0", "{\"gpu\": \"T4\", \"count\": 9}");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_arr(&root, "groups", JREQ, &arr, &err), 0);
    cr_assert_eq(cJSON_GetArraySize(arr), 2);
    cr_assert_eq(jobj_elem(&g, &root, "groups", cJSON_GetArrayItem(arr, 0), 0, &err), 0);
    cr_assert_eq(jobj_int(&g, "count", JREQ, 0, 10, &c0, &err), 0, "%s", err.msg);
    cr_assert_eq(c0, 9);
    jsonf_destroy(d);

    /* an existing member inside an element */
    d = set_ok("groups.1.count", "7");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_arr(&root, "groups", JREQ, &arr, &err), 0);
    cr_assert_eq(jobj_elem(&g, &root, "groups", cJSON_GetArrayItem(arr, 0), 0, &err), 0);
    cr_assert_eq(jobj_int(&g, "count", JREQ, 0, 10, &c0, &err), 0, "%s", err.msg);
    cr_assert_eq(jobj_elem(&g, &root, "groups", cJSON_GetArrayItem(arr, 1), 1, &err), 0);
    cr_assert_eq(jobj_int(&g, "count", JREQ, 0, 10, &c1, &err), 0, "%s", err.msg);
    cr_assert_eq(c0, 4, "element 0 untouched");
    cr_assert_eq(c1, 7);
    jsonf_destroy(d);
}

Test(jsonf, set_value_parsing)
{
    static const struct {
        const char *value;
        int         type;       /* cJSON type */
        const char *str;        /* string value, or printed JSON for other types */
    } cases[] = {
        { "5", cJSON_Number, "5" },
        { "-2.5e1", cJSON_Number, "-25" },
        { "true", cJSON_True, "true" },
        { "null", cJSON_NULL, "null" },
        { "\"5\"", cJSON_String, "5" },
        { "K80", cJSON_String, "K80" },
        { "hello world", cJSON_String, "hello world" },
        { "", cJSON_String, "" },
        { "[1,2]", cJSON_Array, "[1,2]" },
        { "{\"a\":1}", cJSON_Object, "{\"a\":1}" },
        /* text that merely starts like JSON is a string, not a truncated value */
        { "12abc", cJSON_String, "12abc" },
        { "1 2", cJSON_String, "1 2" },
        { "true story", cJSON_String, "true story" },
        { "[1,2]x", cJSON_String, "[1,2]x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jsonf *d = set_ok("fresh", cases[i].value);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "fresh");
        cr_assert_not_null(v, "case %zu", i);
        cr_assert_eq(v->type & 0xFF, cases[i].type, "value [%s]: type %d, want %d",
                     cases[i].value, v->type & 0xFF, cases[i].type);
        if (cases[i].type == cJSON_String) {
            cr_assert_str_eq(v->valuestring, cases[i].str, "value [%s]", cases[i].value);
        } else {
            char *p = cJSON_PrintUnformatted(v);
            cr_assert_str_eq(p, cases[i].str, "value [%s]", cases[i].value);
            cJSON_free(p);
        }
        jsonf_destroy(d);
    }
}

Test(jsonf, set_bad_paths)
{
    set_fails("groups.2.count", "1",
              "--set groups.2.count: '2' is not an index of an array of 2 elements");
    set_fails("groups.x", "1", "--set groups.x: 'x' is not an index of an array of 2 elements");
    set_fails("groups.-1.count", "1",
              "--set groups.-1.count: '-1' is not an index of an array of 2 elements");
    set_fails("groups.1x", "1", "--set groups.1x: '1x' is not an index of an array of 2 elements");
    set_fails("seed.x", "1", "--set seed.x: 'x' is inside a value that is not an object");
    set_fails("groups.0.gpu.x", "1",
              "--set groups.0.gpu.x: 'x' is inside a value that is not an object");
    set_fails("", "1", "--set : empty key in override");
    set_fails(".seed", "1", "--set .seed: empty key in override");
    set_fails("sim.", "1", "--set sim.: empty key in override");
    set_fails("sim..until_s", "1", "--set sim..until_s: empty key in override");
}

Test(jsonf, errors_on_overridden_values_name_the_override)
{
    struct errbuf err;
    struct jobj root, o, deep;
    /* a new scalar member */
    jsonf *d = set_ok("rate", "fast");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    double x;
    cr_assert_eq(jobj_num(&root, "rate", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "--set rate: rate: must be a number");
    /* untouched nodes still name their line */
    err_clear(&err);
    cr_assert_eq(jobj_num(&root, "name", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "exp.json:2: name: must be a number");
    const char *file;
    long line = -1;
    jsonf_where(d, cJSON_GetObjectItemCaseSensitive(jsonf_root(d), "rate"), &file, &line);
    cr_assert_str_eq(file, "--set rate");
    cr_assert_eq(line, 0);
    jsonf_destroy(d);

    /* nodes nested inside an overriding object value */
    d = set_ok("extra", "{\"deep\": {\"v\": \"bad\", \"list\": [1, \"two\"]}}");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_obj(&o, &root, "extra", JREQ, &err), 0);
    cr_assert_eq(jobj_obj(&deep, &o, "deep", JREQ, &err), 0);
    int64_t v;
    cr_assert_eq(jobj_int(&deep, "v", JREQ, 0, 9, &v, &err), -1);
    cr_assert_str_eq(err.msg, "--set extra: extra.deep.v: must be an integer");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(deep.node, "list");
    struct jobj el;
    err_clear(&err);
    cr_assert_eq(jobj_elem(&el, &deep, "list", cJSON_GetArrayItem(list, 1), 1, &err), -1);
    cr_assert_str_eq(err.msg, "--set extra: extra.deep.list[1]: must be an object");
    err_clear(&err);
    cr_assert_eq(jobj_num(&deep, "missing", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "--set extra: extra.deep.missing: required field is missing");
    jsonf_destroy(d);

    /* an override inside an array element */
    d = set_ok("groups.1", "{\"gpu\": \"K80\", \"count\": -4}");
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    const cJSON *arr;
    cr_assert_eq(jobj_arr(&root, "groups", JREQ, &arr, &err), 0);
    cr_assert_eq(jobj_elem(&el, &root, "groups", cJSON_GetArrayItem(arr, 1), 1, &err), 0);
    cr_assert_eq(jobj_int(&el, "count", JREQ, 0, 9, &v, &err), -1);
    cr_assert_str_eq(err.msg, "--set groups.1: groups[1].count: -4 is out of range [0, 9]");
    err_clear(&err);
    cr_assert_eq(jobj_elem(&el, &root, "groups", cJSON_GetArrayItem(arr, 0), 0, &err), 0);
    cr_assert_eq(jobj_int(&el, "count", JREQ, 5, 9, &v, &err), -1);
    cr_assert_str_eq(err.msg, "exp.json:5: groups[0].count: 4 is out of range [5, 9]");
    jsonf_destroy(d);
}

Test(jsonf, objects_created_by_set_name_the_override)
{
    /* the first override frees the old "groups" array and its elements; the objects the
     * second one creates may reuse their memory and must not inherit their lines (5, 6) */
    jsonf *d = set_ok("groups", "1");
    struct errbuf err;
    err_clear(&err);
    cr_assert_eq(jsonf_set(d, "opts.gavel.round_s", "360", &err), 0, "%s", err.msg);
    struct jobj root, opts, gavel;
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    cr_assert_eq(jobj_obj(&opts, &root, "opts", JREQ, &err), 0);
    cr_assert_eq(jobj_obj(&gavel, &opts, "gavel", JREQ, &err), 0);
    double x;
    cr_assert_eq(jobj_num(&gavel, "alpha", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg,
                     "--set opts.gavel.round_s: opts.gavel.alpha: required field is missing");
    err_clear(&err);
    cr_assert_eq(jobj_num(&opts, "beta", JREQ, 0, 1, &x, &err), -1);
    cr_assert_str_eq(err.msg, "--set opts.gavel.round_s: opts.beta: required field is missing");
    jsonf_destroy(d);
}

Test(jsonf, errors_on_replaced_values_name_the_override)
{
    jsonf *d = set_ok("seed", "\"one\"");
    struct errbuf err;
    struct jobj root;
    err_clear(&err);
    cr_assert_eq(jobj_root(&root, d, &err), 0);
    int64_t v;
    cr_assert_eq(jobj_int(&root, "seed", JREQ, 0, 9, &v, &err), -1);
    cr_assert_str_eq(err.msg, "--set seed: seed: must be an integer");
    jsonf_destroy(d);
}

/* ---- suggestions ---- */

Test(jsonf, suggest)
{
    static const char *const choices[] = { "count", "gpu", "duration_s", "arrival_s", NULL };
    static const char *const none[] = { NULL };
    static const struct {
        const char *s, *want;
    } cases[] = {
        { "count", "count" },           /* exact */
        { "coutn", "count" },           /* transposition = 2 edits */
        { "cnt", "count" },             /* 2 deletions */
        { "Count", "count" },           /* case differs: 1 edit */
        { "gpus", "gpu" },
        { "arival_s", "arrival_s" },
        { "dur", "duration_s" },        /* too far, but a prefix of 3+ characters */
        { "arriv", "arrival_s" },
        { "du", "gpu" },                /* 2 edits; duration_s is too far */
        { "xyzzy", NULL },
        { "counter", "count" },         /* 2 insertions */
        { "zount_s", NULL },            /* 2 from nothing, 3 from count */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = jsonf_suggest(cases[i].s, choices);
        if (cases[i].want == NULL)
            cr_assert_null(got, "'%s' -> '%s', want none", cases[i].s, got);
        else
            cr_assert(got != NULL && strcmp(got, cases[i].want) == 0, "'%s' -> '%s', want '%s'",
                      cases[i].s, got ? got : "(none)", cases[i].want);
    }
    cr_assert_null(jsonf_suggest("count", none));
    /* a prefix counts from 3 characters on */
    static const char *const longname[] = { "duration_s", NULL };
    cr_assert_null(jsonf_suggest("du", longname));
    cr_assert_str_eq(jsonf_suggest("dur", longname), "duration_s");
    /* the closest wins, ties go to the earlier choice */
    static const char *const close[] = { "abcd", "abce", "abcx", NULL };
    cr_assert_str_eq(jsonf_suggest("abce", close), "abce");
    cr_assert_str_eq(jsonf_suggest("abcz", close), "abcd");
}
