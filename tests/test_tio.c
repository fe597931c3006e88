/*
 * test_tio: the line reader (BOM on line 1 only, CR stripping, unbounded lines, a last line
 * without newline, line numbers, NUL bytes), quote-aware splitting, strict number parsing and
 * the comment/blank test.  Files are written byte for byte to the test's scratch directory.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "helpers.h"

/* Write `len` bytes (NULs allowed) to <tmpdir>/<name>; caller frees the path. */
static char *write_bytes(const char *name, const char *bytes, size_t len)
{
    char *path = malloc(512);
    snprintf(path, 512, "%s/%s", th_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    return path;
}

/* Read the whole file and compare line by line with `want` (NULL-terminated). */
static void expect_lines(const char *path, const char *const *want)
{
    struct errbuf err;
    err_clear(&err);
    tio *r;
    cr_assert_eq(tio_open(&r, path, &err), 0, "%s", err.msg);
    cr_assert_str_eq(tio_path(r), path);
    cr_assert_eq(tio_lineno(r), 0);
    char *line;
    size_t len;
    long n = 0;
    for (; want[n] != NULL; n++) {
        cr_assert_eq(tio_next(r, &line, &len, &err), 1, "line %ld missing (%s)", n + 1, err.msg);
        cr_assert_str_eq(line, want[n], "line %ld", n + 1);
        cr_assert_eq(len, strlen(want[n]), "line %ld length", n + 1);
        cr_assert_eq(tio_lineno(r), n + 1);
    }
    cr_assert_eq(tio_next(r, &line, &len, &err), 0, "no line after the last (%s)", err.msg);
    cr_assert_eq(tio_next(r, &line, &len, &err), 0, "end of file stays the end");
    cr_assert_eq(tio_lineno(r), n);
    cr_assert_eq(err.code, ERR_NONE, "%s", err.msg);
    tio_close(r);
}

Test(tio, bom_only_on_first_line_and_cr_stripped)
{
    const char text[] = "\xEF\xBB\xBF" "first\r\nsecond\n\xEF\xBB\xBF" "third\r\nlast";
    char *p = write_bytes("tio_bom.txt", text, sizeof text - 1);
    static const char *const want[] = { "first", "second", "\xEF\xBB\xBF" "third", "last", NULL };
    expect_lines(p, want);
    free(p);
}

Test(tio, cr_inside_a_line_is_kept)
{
    const char text[] = "a\rb\r\n\r\n\n";
    char *p = write_bytes("tio_cr.txt", text, sizeof text - 1);
    static const char *const want[] = { "a\rb", "", "", NULL };
    expect_lines(p, want);
    free(p);
}

Test(tio, last_line_without_newline_and_blank_lines)
{
    static const struct {
        const char *text;
        const char *want[5];
    } cases[] = {
        { "a\nb", { "a", "b", NULL } },
        { "a\nb\n", { "a", "b", NULL } },
        { "\n\nx\n", { "", "", "x", NULL } },
        { "", { NULL } },
        { "only", { "only", NULL } },
        { "\xEF\xBB\xBF", { "", NULL } },
        { "\xEF\xBB\xBF\r\n", { "", NULL } },
        { "\xEF\xBB", { "\xEF\xBB", NULL } },      /* not a whole BOM: kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "tio_last_%zu.txt", i);
        char *p = write_bytes(name, cases[i].text, strlen(cases[i].text));
        expect_lines(p, cases[i].want);
        free(p);
    }
}

Test(tio, very_long_line)
{
    size_t big = (size_t)1 << 20;
    char *text = malloc(big + 64);
    memset(text, 'x', big);
    text[big / 2] = 'M';
    memcpy(text + big, "\r\nshort\n", 8);
    char *p = write_bytes("tio_long.txt", text, big + 8);
    struct errbuf err;
    err_clear(&err);
    tio *r;
    cr_assert_eq(tio_open(&r, p, &err), 0, "%s", err.msg);
    char *line;
    size_t len;
    cr_assert_eq(tio_next(r, &line, &len, &err), 1);
    cr_assert_eq(len, big, "a 1 MiB line is read whole: %zu", len);
    cr_assert_eq(strlen(line), big);
    cr_assert_eq(line[0], 'x');
    cr_assert_eq(line[big / 2], 'M');
    cr_assert_eq(line[big - 1], 'x');
    cr_assert_eq(tio_next(r, &line, &len, &err), 1);
    cr_assert_str_eq(line, "short");
    cr_assert_eq(tio_lineno(r), 2);
    cr_assert_eq(tio_next(r, &line, &len, &err), 0);
    tio_close(r);
    free(text);
    free(p);
}

Test(tio, nul_byte_is_an_error_naming_the_line)
{
    const char text[] = "ok\nalso ok\nab\0cd\nnext\n";
    char *p = write_bytes("tio_nul.txt", text, sizeof text - 1);
    struct errbuf err;
    err_clear(&err);
    tio *r;
    cr_assert_eq(tio_open(&r, p, &err), 0, "%s", err.msg);
    char *line;
    size_t len;
    cr_assert_eq(tio_next(r, &line, &len, &err), 1);
    cr_assert_eq(tio_next(r, &line, &len, &err), 1);
    cr_assert_eq(tio_next(r, &line, &len, &err), -1, "a NUL byte is refused");
    char want[600];
    snprintf(want, sizeof want, "%s:3: NUL byte in a text line", p);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(err.code, ERR_INPUT);
    tio_close(r);
    free(p);
}

Test(tio, open_missing_file)
{
    struct errbuf err;
    err_clear(&err);
    tio *r = (tio *)1;
    cr_assert_eq(tio_open(&r, "/nonexistent/dir/trace.csv", &err), -1);
    cr_assert_null(r);
    cr_assert(strncmp(err.msg, "/nonexistent/dir/trace.csv: cannot open: ", 41) == 0, "%s",
              err.msg);
    cr_assert_eq(err.code, ERR_INPUT);
}

Test(tio, slurp)
{
    const char text[] = "\xEF\xBB\xBFwhole\r\nfile\0with a NUL";
    char *p = write_bytes("tio_slurp.bin", text, sizeof text - 1);
    struct errbuf err;
    err_clear(&err);
    char *buf;
    size_t len;
    cr_assert_eq(tio_slurp(p, &buf, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, sizeof text - 1, "every byte, untouched");
    cr_assert_eq(memcmp(buf, text, len), 0);
    cr_assert_eq(buf[len], '\0', "NUL-terminated");
    free(buf);

    /* larger than the first buffer (64 KiB) */
    size_t big = 200000;
    char *t2 = malloc(big);
    for (size_t i = 0; i < big; i++)
        t2[i] = (char)('a' + i % 26);
    char *p2 = write_bytes("tio_slurp_big.bin", t2, big);
    cr_assert_eq(tio_slurp(p2, &buf, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, big);
    cr_assert_eq(memcmp(buf, t2, big), 0);
    free(buf);
    free(t2);
    free(p2);

    cr_assert_eq(tio_slurp("/nonexistent/x", &buf, &len, &err), -1);
    cr_assert_null(buf);
    free(p);
}

/* ---- splitting ---- */

Test(tio, split)
{
    static const struct {
        const char *line;
        char        sep;
        int         max, n;
        const char *want[6];
    } cases[] = {
        { "a,b,c", ',', 8, 3, { "a", "b", "c" } },
        { "", ',', 8, 1, { "" } },
        { ",,", ',', 8, 3, { "", "", "" } },
        { "a,", ',', 8, 2, { "a", "" } },
        { ",a", ',', 8, 2, { "", "a" } },
        { "a, b ,c", ',', 8, 3, { "a", " b ", "c" } },              /* blanks are kept */
        { "a,\"b,c\",d", ',', 8, 3, { "a", "b,c", "d" } },
        { "\"say \"\"hi\"\"\",x", ',', 8, 2, { "say \"hi\"", "x" } },
        { "\"\"", ',', 8, 1, { "" } },
        { "\"\",\"\"", ',', 8, 2, { "", "" } },
        { "\"\"\"\"", ',', 8, 1, { "\"" } },
        { "\"a\"b,c", ',', 8, 2, { "ab", "c" } },                   /* text after the quote */
        { "x\"y\",z", ',', 8, 2, { "x\"y\"", "z" } },               /* quotes inside a field */
        { "ResNet-50 (batch size 64)\tcmd\t1", '\t', 8, 3,
          { "ResNet-50 (batch size 64)", "cmd", "1" } },
        { "a,b\tc", '\t', 8, 2, { "a,b", "c" } },
        { "\"a\tb\"\tc", '\t', 8, 2, { "a\tb", "c" } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", cases[i].line);
        char *f[8] = { 0 };
        int n = tio_split(buf, cases[i].sep, f, cases[i].max);
        cr_assert_eq(n, cases[i].n, "[%s]: %d fields, want %d", cases[i].line, n, cases[i].n);
        for (int k = 0; k < n; k++)
            cr_assert_str_eq(f[k], cases[i].want[k], "[%s] field %d", cases[i].line, k);
    }
}

Test(tio, split_unterminated_quote)
{
    static const char *const bad[] = { "\"abc", "a,\"b", "a,\"b\"\"", "\"", "x,\"y,z\n", NULL };
    for (int i = 0; bad[i] != NULL; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", bad[i]);
        char *f[8];
        cr_assert_eq(tio_split(buf, ',', f, 8), -1, "[%s] must be refused", bad[i]);
    }
}

Test(tio, split_more_fields_than_max)
{
    char buf[] = "a,b,c,d,e";
    char *sentinel = (char *)"untouched";
    char *f[4] = { NULL, NULL, sentinel, sentinel };
    int n = tio_split(buf, ',', f, 2);
    cr_assert_eq(n, 5, "all fields are counted");
    cr_assert_str_eq(f[0], "a");
    cr_assert_str_eq(f[1], "b");
    cr_assert_eq(f[2], sentinel, "nothing stored beyond max");
    cr_assert_eq(f[3], sentinel);
    char one[] = "x,y";
    cr_assert_eq(tio_split(one, ',', f, 0), 2, "max 0 only counts");
    cr_assert_str_eq(f[0], "a", "max 0 stores nothing");
}

/* ---- numbers ---- */

Test(tio, double_strict)
{
    static const struct {
        const char *s;
        int         rc;
        double      v;
    } cases[] = {
        { "1.5", 0, 1.5 },
        { "  1.5\t", 0, 1.5 },
        { "-2.5e3", 0, -2500 },
        { "0", 0, 0 },
        { "1e308", 0, 1e308 },
        { "266564.000000", 0, 266564 },
        { "", -1, 0 },
        { "   ", -1, 0 },
        { "nan", -1, 0 },
        { "NaN", -1, 0 },
        { "-nan", -1, 0 },
        { "inf", -1, 0 },
        { "-Infinity", -1, 0 },
        { "1e999", -1, 0 },
        { "-1e999", -1, 0 },
        { "abc", -1, 0 },
        { "1.5x", -1, 0 },
        { "1 2", -1, 0 },
        { "1,5", -1, 0 },
        { "--1", -1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = 42;
        int rc = tio_double(cases[i].s, &v);
        cr_assert_eq(rc, cases[i].rc, "tio_double(\"%s\") = %d", cases[i].s, rc);
        if (rc == 0)
            cr_assert_eq(v, cases[i].v, "tio_double(\"%s\") -> %g", cases[i].s, v);
        else
            cr_assert_eq(v, 42, "tio_double(\"%s\") wrote on failure", cases[i].s);
    }
}

Test(tio, int64_strict)
{
    static const struct {
        const char *s;
        int         rc;
        long long   v;
    } cases[] = {
        { "3", 0, 3 },
        { " 42 ", 0, 42 },
        { "-7", 0, -7 },
        { "+8", 0, 8 },
        { "3.0", 0, 3 },
        { "3.000000", 0, 3 },
        { "-3.0", 0, -3 },
        { "1.000000 ", 0, 1 },
        { "9223372036854775807", 0, LLONG_MAX },
        { "-9223372036854775808", 0, LLONG_MIN },
        { "9223372036854775808", -1, 0 },
        { "-9223372036854775809", -1, 0 },
        { "99999999999999999999", -1, 0 },
        { "3.5", -1, 0 },
        { "3.01", -1, 0 },
        { "3.0000001", -1, 0 },
        { "1e3", -1, 0 },
        { "", -1, 0 },
        { "  ", -1, 0 },
        { "abc", -1, 0 },
        { "12abc", -1, 0 },
        { "0x10", -1, 0 },
        { "nan", -1, 0 },
        { "inf", -1, 0 },
        { ".5", -1, 0 },
        { "1 2", -1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long v = 42;
        int rc = tio_int64(cases[i].s, &v);
        cr_assert_eq(rc, cases[i].rc, "tio_int64(\"%s\") = %d", cases[i].s, rc);
        if (rc == 0)
            cr_assert_eq(v, cases[i].v, "tio_int64(\"%s\") -> %lld", cases[i].s, v);
        else
            cr_assert_eq(v, 42, "tio_int64(\"%s\") wrote on failure", cases[i].s);
    }
}

Test(tio, skippable)
{
    static const struct {
        const char *s;
        int         want;
    } cases[] = {
        { "", 1 },     { "   ", 1 },  { "\t \r", 1 }, { "#", 1 },     { "# comment", 1 },
        { "   # indented", 1 },       { "a", 0 },     { " a", 0 },    { "a # not", 0 },
        { "0,1,2", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(tio_skippable(cases[i].s), cases[i].want, "tio_skippable(\"%s\")",
                     cases[i].s);
}
