/*
 * trace_gavel: Gavel's job traces, tab-separated, one job per line, no header.
 *   7 fields (old):     job_type, command, num_steps_arg, needs_data_dir, total_steps,
 *                       arrival_time, scale_factor
 *   10 fields (current): job_type, command, working_directory, num_steps_arg, needs_data_dir,
 *                       total_steps, scale_factor, priority_weight, SLO, arrival_time
 * The format is recognised per line by its field count; mixing both in one file is an error.
 * Job ids are the line's position among the jobs (0, 1, ...), as Gavel numbers them.
 * total_steps is the work; scale_factor the workers; priority_weight the weight.
 *
 * Every field is checked, also those no policy here reads (what Gavel's scheduler/utils.py
 * parse_trace and Job.__str__ at c4fa400 read and write):
 *   job_type           a known job type
 *   command            not blank (Gavel runs it)
 *   working_directory  not blank
 *   num_steps_arg      a command-line flag: '-' or '--', a letter, then letters, digits, '_'
 *                      or '-' ("-n", "-step", "--num_steps", "--max-steps")
 *   needs_data_dir     0 or 1 (Gavel writes %d of a bool), or True / False (Python's str)
 *   total_steps        an integer >= 1 (a decimal with zero fraction, "100.000000", too)
 *   scale_factor       an integer >= 1
 *   priority_weight    a number > 0
 *   SLO                a number: < 0 means none (Gavel writes -1), else a factor > 0 of the
 *                      job's duration (Gavel's deadline is SLO x duration after arrival); 0
 *                      would be a deadline at arrival and is an error
 *   arrival_time       seconds >= 0
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"
#include "../sim/train/train.h"
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

/* "-n", "--num_steps", "-step", "--max-steps": a dash or two, a letter, then [A-Za-z0-9_-] */
static int is_flag(const char *f)
{
    if (f[0] != '-')
        return 0;
    f += f[1] == '-' ? 2 : 1;
    if (!isalpha((unsigned char)*f))
        return 0;
    for (f++; *f; f++)
        if (!isalnum((unsigned char)*f) && *f != '_' && *f != '-')
            return 0;
    return 1;
}

static int gst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct job_spec *out = spec;
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
    /* field positions in the two layouts (-1: absent) */
    int i_wd = n == 7 ? -1 : 2, i_arg = n == 7 ? 2 : 3, i_data = n == 7 ? 3 : 4,
        i_steps = n == 7 ? 4 : 5, i_sf = 6, i_arr = n == 7 ? 5 : 9;
    long long steps, sf;
    double arrival, weight = 1, slo;
    int jt = reader_jobtype(c->model, f[0], c->path, ln, "job_type", err);
    if (jt < 0)
        return -1;
    if (reader_blank(f[1]))
        return err_input(err, c->path, ln, "command", "empty: Gavel runs this command");
    if (i_wd >= 0 && reader_blank(f[i_wd]))
        return err_input(err, c->path, ln, "working_directory", "empty: the directory the "
                         "command runs in");
    if (!is_flag(f[i_arg]))
        return err_input(err, c->path, ln, "num_steps_arg", "'%s' is not a command-line flag "
                         "such as -n or --num_steps", f[i_arg]);
    if (strcmp(f[i_data], "0") != 0 && strcmp(f[i_data], "1") != 0 &&
        strcmp(f[i_data], "True") != 0 && strcmp(f[i_data], "False") != 0)
        return err_input(err, c->path, ln, "needs_data_dir", "'%s' is not 0, 1, True or False",
                         f[i_data]);
    if (tio_int64(f[i_steps], &steps) < 0 || steps < 1)
        return err_input(err, c->path, ln, "total_steps", "'%s' is not a step count >= 1",
                         f[i_steps]);
    if (tio_int64(f[i_sf], &sf) < 0 || sf < 1 || sf > 1000000)
        return err_input(err, c->path, ln, "scale_factor", "'%s' is not a GPU count >= 1",
                         f[i_sf]);
    if (n == 10 && (tio_double(f[7], &weight) < 0 || !(weight > 0) || weight > 1e9))
        return err_input(err, c->path, ln, "priority_weight", "'%s' is not a weight > 0", f[7]);
    if (n == 10 && (tio_double(f[8], &slo) < 0 || slo == 0))
        return err_input(err, c->path, ln, "SLO", "'%s' is not an SLO: a factor > 0 of the "
                         "job's duration, or < 0 (-1) for none", f[8]);
    if (tio_double(f[i_arr], &arrival) < 0 || arrival < 0 || arrival > 9e12)
        return err_input(err, c->path, ln, "arrival_time", "'%s' is not a time >= 0", f[i_arr]);
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
    .arrival_at = offsetof(struct job_spec, arrival),
    .summary = "Gavel's tab-separated job traces, 7-field (old) and 10-field (current)",
    .flags = FORMAT_TRACE,
    .open = gst_open,
};
