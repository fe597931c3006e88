/*
 * trace_requests: hetsim's own LLM request trace (what `hetsim workload` writes for a
 * serving experiment), a CSV with a header naming its columns, in any order:
 *   arrival_s      required  seconds from the start, >= 0, not decreasing
 *   prompt_tokens  required  an integer >= 1
 *   output_tokens  required  an integer >= 1
 *   id             optional  an integer >= 0, unique (default: row number from 0)
 *   class          optional  a name, not blank, at most 63 characters (default "default")
 * Each column is named once; an unnamed or unknown column is an error (with a suggestion),
 * so that a misspelt column is never read as absent.  Lines starting with '#' are comments.
 * Streamed: the file is never held in memory (ids are kept for the duplicate check).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "../sim/serve/request.h"
#include "reader.h"

enum col { C_ARRIVAL, C_PROMPT, C_OUTPUT, C_ID, C_CLASS, C_N };
static const char *const colnames[] = { "arrival_s", "prompt_tokens", "output_tokens", "id",
                                        "class", NULL };
enum { MAX_COLS = 16, CLASS_MAX = 63 };

struct rst {
    tio    *r;
    int     pos[C_N], ncols;
    int64_t row;
    double  last;           /* the previous row's arrival */
    struct reader_idset ids;
    char    cls[CLASS_MAX + 1];
};

static void rst_close(void *p)
{
    struct rst *s = p;
    tio_close(s->r);
    reader_idset_free(&s->ids);
    free(s);
}

static int header(struct rst *s, const char *path, struct errbuf *err)
{
    return reader_header(s->r, path, colnames, C_ARRIVAL, C_OUTPUT, MAX_COLS,
                         "arrival_s,prompt_tokens,output_tokens,...",
                         "arrival_s, prompt_tokens, output_tokens, id, class", s->pos, &s->ncols,
                         err);
}

static int count(const char *f, const char *path, long ln, const char *col, int32_t *out,
                 struct errbuf *err)
{
    long long v;
    if (tio_int64(f, &v) < 0 || v < 0 || v > 100000000)
        return err_input(err, path, ln, col, "'%s' is not a token count", f);
    if (v == 0)
        return err_input(err, path, ln, col, "0 tokens: a request needs at least one");
    *out = (int32_t)v;
    return 0;
}

static int rst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct request_spec *out = spec;
    struct rst *s = p;
    char *f[MAX_COLS];
    long ln;
    int rc = reader_row(s->r, c->path, s->ncols, s->row, "requests", f, MAX_COLS, &ln, err);
    if (rc <= 0)
        return rc;
    double arrival;
    long long id = s->row;
    int32_t prompt, output;
    if (tio_double(f[s->pos[C_ARRIVAL]], &arrival) < 0 || arrival < 0 || arrival > 9e12)
        return err_input(err, c->path, ln, "arrival_s", "'%s' is not a time >= 0",
                         f[s->pos[C_ARRIVAL]]);
    if (arrival < s->last)
        return err_input(err, c->path, ln, "arrival_s", "%s is earlier than the row before "
                         "(%g): arrivals must not decrease", f[s->pos[C_ARRIVAL]], s->last);
    s->last = arrival;
    if (count(f[s->pos[C_PROMPT]], c->path, ln, "prompt_tokens", &prompt, err) < 0 ||
        count(f[s->pos[C_OUTPUT]], c->path, ln, "output_tokens", &output, err) < 0)
        return -1;
    if (s->pos[C_ID] >= 0 && (tio_int64(f[s->pos[C_ID]], &id) < 0 || id < 0))
        return err_input(err, c->path, ln, "id", "'%s' is not an integer >= 0", f[s->pos[C_ID]]);
    const char *cls = "default";
    if (s->pos[C_CLASS] >= 0) {
        cls = f[s->pos[C_CLASS]];
        if (reader_blank(cls) || strlen(cls) > CLASS_MAX)
            return err_input(err, c->path, ln, "class", "a class is a name of 1 to %d "
                             "characters", CLASS_MAX);
    }
    snprintf(s->cls, sizeof s->cls, "%s", cls);
    int added = reader_idset_add(&s->ids, id);
    if (added < 0)
        return err_run(err, "out of memory");
    if (added == 0)
        return err_input(err, c->path, ln, "id", "request id %lld appears twice", id);
    *out = (struct request_spec){ .id = id, .arrival = sim_from_sec(arrival), .prompt = prompt,
                                  .output = output, .cls = s->cls, .origin = c->path,
                                  .line = ln };
    s->row++;
    return 1;
}

static int rst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    (void)cfg;
    struct rst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (tio_open(&s->r, c->path, err) < 0 || header(s, c->path, err) < 0) {
        rst_close(s);
        return -1;
    }
    *r = (struct reader){ s, rst_next, rst_close };
    return 0;
}

const struct workload_format trace_requests_format = {
    .name = "requests",
    .domain = "serving",
    .arrival_at = offsetof(struct request_spec, arrival),
    .summary = "hetsim's CSV request trace (arrival_s, prompt_tokens, output_tokens, id, class)",
    .flags = FORMAT_TRACE,
    .open = rst_open,
};
