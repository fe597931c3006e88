/*
 * trace_azure: the Azure LLM inference trace (Patel et al., "Splitwise", ISCA 2024; CC-BY
 * 4.0; Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}.csv and the week-long
 * files of the same schema), streamed request by request:
 *   TIMESTAMP        arrival, "YYYY-MM-DD HH:MM:SS[.fffffff]" (no time zone), not decreasing;
 *                    arrivals count from the first row's timestamp
 *   ContextTokens    prompt tokens, an integer >= 1
 *   GeneratedTokens  output tokens, an integer >= 1
 * The header must be exactly these three columns.  Request ids are row numbers from 0; the
 * class is "class" (default: "code" or "conv" when the file's name says so, else "azure").
 * A zero-token request is an error at its line, not a request to skip.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "../sim/serve/request.h"
#include "reader.h"

struct ast {
    tio    *r;
    int64_t row;
    double  t0;             /* seconds of the first timestamp since 1970 */
    double  last;
    char    cls[64];
};

static void ast_close(void *p)
{
    struct ast *s = p;
    tio_close(s->r);
    free(s);
}

/* Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

/* "YYYY-MM-DD HH:MM:SS[.f...]" into seconds since 1970; -1 if malformed. */
static int parse_time(const char *f, double *out)
{
    int y, mo, d, h, mi, sec, n = 0;
    while (*f == ' ')
        f++;
    if (sscanf(f, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || n != 19)
        return -1;
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (y < 1900 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
        mi > 59 || sec > 60)
        return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return -1;
    double frac = 0, scale = 0.1;
    const char *p = f + 19;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    while (*p == ' ')
        p++;
    if (*p != '\0')
        return -1;
    *out = (double)days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400.0 + h * 3600.0 +
           mi * 60.0 + sec + frac;
    return 0;
}

static int tokens(const char *f, const char *path, long ln, const char *col, int32_t *out,
                  struct errbuf *err)
{
    long long v;
    if (tio_int64(f, &v) < 0 || v < 0 || v > 100000000)
        return err_input(err, path, ln, col, "'%s' is not a token count", f);
    if (v == 0)
        return err_input(err, path, ln, col, "0 tokens: a request needs at least one %s "
                         "token", strcmp(col, "ContextTokens") == 0 ? "prompt" : "output");
    *out = (int32_t)v;
    return 0;
}

static int ast_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct request_spec *out = spec;
    struct ast *s = p;
    char *line, *f[4];
    size_t len;
    int rc;
    while ((rc = tio_next(s->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc == 0 && s->row == 0)
        return err_input(err, c->path, 0, NULL, "empty trace: no requests after the header");
    if (rc <= 0)
        return rc;
    long ln = tio_lineno(s->r);
    int n = tio_split(line, ',', f, 4);
    if (n != 3)
        return err_input(err, c->path, ln, NULL, "expected 3 fields, found %d", n);
    double t;
    if (parse_time(f[0], &t) < 0)
        return err_input(err, c->path, ln, "TIMESTAMP", "'%s' is not a time "
                         "YYYY-MM-DD HH:MM:SS[.fffffff]", f[0]);
    if (s->row == 0)
        s->t0 = s->last = t;
    if (t < s->last)
        return err_input(err, c->path, ln, "TIMESTAMP", "'%s' is earlier than the row before: "
                         "arrivals must not decrease", f[0]);
    s->last = t;
    int32_t prompt, output;
    if (tokens(f[1], c->path, ln, "ContextTokens", &prompt, err) < 0 ||
        tokens(f[2], c->path, ln, "GeneratedTokens", &output, err) < 0)
        return -1;
    *out = (struct request_spec){ .id = s->row, .arrival = sim_from_sec(t - s->t0),
                                  .prompt = prompt, .output = output, .cls = s->cls,
                                  .origin = c->path, .line = ln,
                                  .prompt_field = "ContextTokens" };
    s->row++;
    return 1;
}

static int ast_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    struct ast *s = calloc(1, sizeof *s);
    const char *cls = NULL;
    if (s == NULL)
        return err_run(err, "out of memory");
    if (jobj_str(cfg, "class", JOPT, &cls, err) < 0) {
        free(s);
        return -1;
    }
    const char *base = strrchr(c->path, '/');
    base = base != NULL ? base + 1 : c->path;
    snprintf(s->cls, sizeof s->cls, "%s", cls != NULL ? cls
                                          : strstr(base, "_code") != NULL ? "code"
                                          : strstr(base, "_conv") != NULL ? "conv"
                                                                          : "azure");
    if (tio_open(&s->r, c->path, err) < 0) {
        free(s);
        return -1;
    }
    char *line, *f[8];
    size_t len;
    int rc;
    while ((rc = tio_next(s->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0) {
        if (rc == 0)
            err_input(err, c->path, 0, NULL, "empty file: expected the header "
                      "TIMESTAMP,ContextTokens,GeneratedTokens");
        ast_close(s);
        return -1;
    }
    int n = tio_split(line, ',', f, 8);
    static const char *const want[] = { "TIMESTAMP", "ContextTokens", "GeneratedTokens" };
    for (int i = 0; i < 3; i++)
        if (n != 3 || strcmp(f[i], want[i]) != 0) {
            err_input(err, c->path, tio_lineno(s->r), "header", "expected "
                      "TIMESTAMP,ContextTokens,GeneratedTokens (the Azure LLM inference "
                      "trace's columns)");
            ast_close(s);
            return -1;
        }
    *r = (struct reader){ s, ast_next, ast_close };
    return 0;
}

static const char *const keys[] = { "class", NULL };

const struct workload_format trace_azure_format = {
    .name = "azure_llm",
    .domain = "serving",
    .arrival_at = offsetof(struct request_spec, arrival),
    .summary = "the Azure LLM inference trace (TIMESTAMP, ContextTokens, GeneratedTokens)",
    .flags = FORMAT_TRACE,
    .keys = keys,
    .open = ast_open,
};
