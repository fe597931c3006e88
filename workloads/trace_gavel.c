/*
 * trace_gavel: Gavel's job traces, tab-separated, one job per line, no header.
 *   7 fields (old):     job_type, command, num_steps_arg, needs_data_dir, total_steps,
 *                       arrival_time, scale_factor
 *   10 fields (current): job_type, command, working_directory, num_steps_arg, needs_data_dir,
 *                       total_steps, scale_factor, priority_weight, SLO, arrival_time
 * The format is recognised per line by its field count; mixing both in one file is an error.
 * Job ids are the line's position among the jobs (0, 1, ...), as Gavel numbers them.
 * total_steps is the work; scale_factor the workers; priority_weight the weight.  The SLO and
 * command fields are not used by any policy here.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "../sim/base/tio.h"
#include "reader.h"

struct gst {
    tio    *r;
    int     nfields;            /* 7 or 10, fixed by the first job line */
    int64_t row;
};

static void gst_close(void *p)
{
    struct gst *s = p;
    tio_close(s->r);
    free(s);
}

static int gst_next(void *p, struct reader_common *c, struct job_spec *out, struct errbuf *err)
{
    struct gst *s = p;
    char *line, *f[12];
    size_t len;
    int rc;
    while ((rc = tio_next(s->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0) {
        if (rc == 0 && s->row == 0)
            return err_input(err, c->path, 0, NULL, "empty trace: no jobs");
        return rc;
    }
    long ln = tio_lineno(s->r);
    int n = tio_split(line, '\t', f, 12);
    if (n != 7 && n != 10)
        return err_input(err, c->path, ln, NULL, "a Gavel trace line has 7 or 10 tab-separated "
                         "fields, this one has %d", n < 0 ? 0 : n);
    if (s->nfields == 0)
        s->nfields = n;
    else if (n != s->nfields)
        return err_input(err, c->path, ln, NULL, "%d fields here but %d on earlier lines: "
                         "the old (7) and current (10) formats are mixed", n, s->nfields);
    int i_steps = n == 7 ? 4 : 5, i_arr = n == 7 ? 5 : 9, i_sf = 6;
    long long steps, sf;
    double arrival, weight = 1;
    int jt = reader_jobtype(c->model, f[0], c->path, ln, "job_type", err);
    if (jt < 0)
        return -1;
    if (tio_int64(f[i_steps], &steps) < 0 || steps < 1)
        return err_input(err, c->path, ln, "total_steps", "'%s' is not a step count >= 1",
                         f[i_steps]);
    if (tio_int64(f[i_sf], &sf) < 0 || sf < 1 || sf > 1000000)
        return err_input(err, c->path, ln, "scale_factor", "'%s' is not a GPU count >= 1",
                         f[i_sf]);
    if (tio_double(f[i_arr], &arrival) < 0 || arrival < 0 || arrival > 9e12)
        return err_input(err, c->path, ln, "arrival_time", "'%s' is not a time >= 0", f[i_arr]);
    if (n == 10 && (tio_double(f[7], &weight) < 0 || !(weight > 0)))
        return err_input(err, c->path, ln, "priority_weight", "'%s' is not a weight > 0", f[7]);
    *out = (struct job_spec){ .id = s->row, .arrival = sim_from_sec(arrival), .jtype = jt,
                              .workers = (int32_t)sf, .work = (double)steps, .weight = weight,
                              .origin = c->path, .line = ln };
    s->row++;
    return 1;
}

static int gst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    (void)cfg;
    struct gst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (tio_open(&s->r, c->path, err) < 0) {
        gst_close(s);
        return -1;
    }
    *r = (struct reader){ s, gst_next, gst_close };
    return 0;
}

const struct workload_format trace_gavel_format = {
    .name = "gavel",
    .domain = "training",
    .summary = "Gavel's tab-separated job traces, 7-field (old) and 10-field (current)",
    .flags = FORMAT_TRACE,
    .open = gst_open,
};
