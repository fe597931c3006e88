/*
 * micro_trace: a trace of microservice requests, a CSV with a header naming its columns (any
 * order) — what `hetsim workload` prints for a micro experiment:
 *   arrival_s   required  arrival, seconds from the start of the trace, >= 0, not decreasing
 *   graph       required  the request's graph type (checked against the application by the
 *                         world)
 *   id          optional  request id, an integer >= 0, unique (default: row number from 0)
 * Unknown or unnamed columns are errors, so that a misspelt column is never read as absent.
 * Streamed: the file is never held in memory (a set of ids is).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "../sim/micro/micro.h"
#include "reader.h"

enum col { C_ID, C_ARRIVAL, C_GRAPH, C_N };
static const char *const colnames[] = { "id", "arrival_s", "graph", NULL };
enum { MAX_COLS = 16, GRAPH_MAX = 95 };

struct mtr {
    tio    *r;
    int     pos[C_N], ncols;
    int64_t row;
    double  last;
    struct reader_idset ids;
    char    graph[GRAPH_MAX + 1];
};

static void mtr_close(void *p)
{
    struct mtr *s = p;
    tio_close(s->r);
    reader_idset_free(&s->ids);
    free(s);
}

static int read_header(struct mtr *s, const char *path, struct errbuf *err)
{
    return reader_header(s->r, path, colnames, C_ARRIVAL, C_GRAPH, MAX_COLS,
                         "arrival_s,graph[,id]", "arrival_s, graph and id", s->pos, &s->ncols,
                         err);
}

static int mtr_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct micro_request *out = spec;
    struct mtr *s = p;
    char *f[MAX_COLS];
    long ln;
    int rc = reader_row(s->r, c->path, s->ncols, s->row, "requests", f, MAX_COLS, &ln, err);
    if (rc <= 0)
        return rc;
    long long id = s->row;
    double arrival;
    if (s->pos[C_ID] >= 0 && (tio_int64(f[s->pos[C_ID]], &id) < 0 || id < 0))
        return err_input(err, c->path, ln, "id", "'%s' is not an integer >= 0",
                         f[s->pos[C_ID]]);
    if (tio_double(f[s->pos[C_ARRIVAL]], &arrival) < 0 || arrival < 0 || arrival > 9e12)
        return err_input(err, c->path, ln, "arrival_s", "'%s' is not a time >= 0",
                         f[s->pos[C_ARRIVAL]]);
    if (arrival < s->last)
        return err_input(err, c->path, ln, "arrival_s", "%s is before the previous request's "
                         "%.6f: arrivals must not decrease", f[s->pos[C_ARRIVAL]], s->last);
    const char *g = f[s->pos[C_GRAPH]];
    if (reader_blank(g) || strlen(g) > GRAPH_MAX)
        return err_input(err, c->path, ln, "graph", "a graph type name of 1 to %d characters",
                         GRAPH_MAX);
    int added = reader_idset_add(&s->ids, id);
    if (added < 0)
        return err_run(err, "out of memory");
    if (added == 0)
        return err_input(err, c->path, ln, "id", "request id %lld appears twice", id);
    snprintf(s->graph, sizeof s->graph, "%s", g);
    s->last = arrival;
    *out = (struct micro_request){ .arrival = sim_from_sec(arrival), .id = id,
                                   .graph = s->graph, .count = 1, .origin = c->path,
                                   .line = ln };
    s->row++;
    return 1;
}

static int mtr_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    (void)cfg;
    struct mtr *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (tio_open(&s->r, c->path, err) < 0 || read_header(s, c->path, err) < 0) {
        mtr_close(s);
        return -1;
    }
    *r = (struct reader){ s, mtr_next, mtr_close };
    return 0;
}

const struct workload_format micro_trace_format = {
    .name = "micro_trace",
    .domain = "micro",
    .arrival_at = offsetof(struct micro_request, arrival),
    .summary = "microservice requests as a CSV (arrival_s, graph, id)",
    .flags = FORMAT_TRACE,
    .open = mtr_open,
};
