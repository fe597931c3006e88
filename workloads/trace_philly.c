/*
 * trace_philly: the Philly-derived job list of the Pollux/Sia artifacts (Jeon et al., ATC
 * 2019, CC-BY 4.0; doc/experiments.md, "Workloads"): timestamp, duration, num_gpus, gpu_time, cluster.
 *
 * Every field of every row is checked, filtered out or not:
 *   timestamp  "YYYY-MM-DD HH:MM:SS", years 1900-9999
 *   duration   seconds in (0, 1e9]
 *   num_gpus   an integer >= 1
 *   gpu_time   duration x num_gpus GPU-seconds, as SOURCE.txt defines it (all 20,000 rows of
 *              the extract match exactly), within max(1 s, 1e-6 relative) for rounding: a
 *              mismatch means shifted or corrupted columns
 *   cluster    the virtual cluster's name, not blank, at most 63 characters
 *
 * Mapping to hetsim jobs (the trace has no model and no GPU type):
 *   arrival   = submission time - the earliest submission kept (rows are not time-sorted, so
 *               the file is read whole and sorted by time, ties by line)
 *   workers   = num_gpus
 *   job type  = drawn from the workload's job_types mix, stream "job_types", in arrival order
 *   work      = duration x throughput of that job type on num_gpus GPUs of the reference type
 *               (one node, its own link): the job would take exactly `duration` there
 *   user      = the virtual cluster (VC), numbered by first appearance in time order
 * Options: "vc" keeps one VC; "max_workers" drops jobs asking for more GPUs (counted on
 * stderr, never silently); "min_duration_s" drops shorter jobs (likewise).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/err.h"
#include "../sim/base/path.h"
#include "../sim/base/rng.h"
#include "../sim/base/tio.h"
#include "../sim/train/train.h"
#include "reader.h"

struct prow {
    int64_t ts;             /* seconds since 1970 */
    int64_t id;             /* data row number in the file, from 0 */
    long    line;
    double  duration;
    int     gpus;
    int     vc;
};

struct pst {
    struct prow *rows;
    size_t       n, next;
    int64_t      t0;
    gsl_rng     *rng;
    void        *mix;
};

static void pst_close(void *p)
{
    struct pst *s = p;
    free(s->rows);
    if (s->rng)
        gsl_rng_free(s->rng);
    reader_mix_table_free(s->mix);
    free(s);
}

/* days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil) */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int parse_ts(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se;
    char tail;
    /* years 1900-9999: any two submissions are then less than 300,000 years apart, so their
     * distance in microseconds fits a simtime */
    if (sscanf(s, "%d-%d-%d %d:%d:%d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6 ||
        y < 1900 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
        mi < 0 || mi > 59 || se < 0 || se > 60)
        return -1;
    *out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int pst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct job_spec *out = spec;
    struct pst *s = p;
    if (s->next == s->n)
        return 0;
    const struct prow *r = &s->rows[s->next++];
    int jt = reader_mix_draw(c, s->rng, s->mix);
    double work = reader_work_from_duration(c->model, jt, c->ref_gpu, r->gpus, r->duration);
    if (!(work > 0))
        return err_input(err, c->path, r->line, "num_gpus",
                         "job type '%s' (drawn from the mix) cannot run on %d x %s, the "
                         "reference GPU", tput_type(c->model, jt)->name, r->gpus,
                         catalog_gpu(tput_catalog(c->model), c->ref_gpu)->name);
    *out = (struct job_spec){ .id = r->id, .arrival = (r->ts - s->t0) * SIM_SEC,
                              .jtype = jt, .workers = r->gpus, .work = work, .user = r->vc,
                              .weight = 1, .origin = c->path, .line = r->line };
    return 1;
}

static int pst_open(struct reader *rd, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    if (c->nmix == 0)
        return jsonf_error(cfg->doc, cfg->node, JOBJ_FIELD(cfg, "job_types"), err,
                           "the philly format needs a job-type mix: {\"name\": weight, ...}");
    const char *vc_want = NULL;
    int64_t max_workers = 0;
    double min_dur = 0;
    if (jobj_str(cfg, "vc", JOPT, &vc_want, err) < 0 ||
        jobj_int(cfg, "max_workers", JOPT, 1, 1000000, &max_workers, err) < 0 ||
        jobj_num(cfg, "min_duration_s", JOPT, 0, 1e12, &min_dur, err) < 0)
        return -1;
    struct pst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    tio *r = NULL;
    char *line, *f[8];
    size_t len, cap = 0;
    int rc, header = 0;
    long dropped_big = 0, dropped_short = 0;
    int64_t rowid = 0;
    char vcs[64][64];
    int nvc = 0;
    if (tio_open(&r, c->path, err) < 0)
        goto fail;
    while ((rc = tio_next(r, &line, &len, err)) > 0) {
        long ln = tio_lineno(r);
        if (tio_skippable(line))
            continue;
        int n = tio_split(line, ',', f, 8);
        if (!header) {
            for (int k = 0; k < n && k < 8; k++)
                if (reader_blank(f[k])) {
                    err_input(err, c->path, ln, "header", "column %d has no name%s; the header "
                              "must be: timestamp,duration,num_gpus,gpu_time,cluster", k + 1,
                              k == n - 1 && n > 1 ? " (a trailing comma?)" : "");
                    goto fail;
                }
            if (n != 5 || strcmp(f[0], "timestamp") || strcmp(f[1], "duration") ||
                strcmp(f[2], "num_gpus") || strcmp(f[3], "gpu_time") ||
                strcmp(f[4], "cluster")) {
                err_input(err, c->path, ln, NULL,
                          "header must be: timestamp,duration,num_gpus,gpu_time,cluster");
                goto fail;
            }
            header = 1;
            continue;
        }
        if (n != 5) {
            err_input(err, c->path, ln, NULL, "expected 5 fields, found %d", n < 0 ? 0 : n);
            goto fail;
        }
        struct prow row = { .line = ln, .id = rowid++ };
        long long g;
        if (parse_ts(f[0], &row.ts) < 0) {
            err_input(err, c->path, ln, "timestamp", "'%s' is not YYYY-MM-DD HH:MM:SS (years "
                      "1900-9999)", f[0]);
            goto fail;
        }
        if (tio_double(f[1], &row.duration) < 0 || !(row.duration > 0) ||
            row.duration > 1e9) {
            err_input(err, c->path, ln, "duration", "'%s' is not a duration in (0, 1e9] s",
                      f[1]);
            goto fail;
        }
        if (tio_int64(f[2], &g) < 0 || g < 1 || g > 1000000) {
            err_input(err, c->path, ln, "num_gpus", "'%s' is not a GPU count >= 1", f[2]);
            goto fail;
        }
        row.gpus = (int)g;
        double gpu_time, want = row.duration * (double)g;
        if (tio_double(f[3], &gpu_time) < 0 || gpu_time < 0) {
            err_input(err, c->path, ln, "gpu_time", "'%s' is not a number of GPU-seconds >= 0",
                      f[3]);
            goto fail;
        }
        if (fabs(gpu_time - want) > fmax(1.0, 1e-6 * want)) {
            err_input(err, c->path, ln, "gpu_time", "%s GPU-seconds, but duration x num_gpus "
                      "= %s x %lld = %.15g", f[3], f[1], g, want);
            goto fail;
        }
        if (reader_blank(f[4])) {
            err_input(err, c->path, ln, "cluster", "empty: the virtual cluster's name");
            goto fail;
        }
        if (strlen(f[4]) >= sizeof vcs[0]) {
            err_input(err, c->path, ln, "cluster", "virtual cluster name longer than %zu "
                      "characters", sizeof vcs[0] - 1);
            goto fail;
        }
        if (vc_want != NULL && strcmp(f[4], vc_want) != 0)
            continue;
        if (max_workers > 0 && g > max_workers) {
            dropped_big++;
            continue;
        }
        if (row.duration < min_dur) {
            dropped_short++;
            continue;
        }
        row.vc = -1;
        for (int k = 0; k < nvc; k++)
            if (strcmp(vcs[k], f[4]) == 0)
                row.vc = k;
        if (row.vc < 0) {
            if (nvc == 64) {
                err_input(err, c->path, ln, "cluster", "more than 64 virtual clusters");
                goto fail;
            }
            snprintf(vcs[nvc], sizeof vcs[nvc], "%s", f[4]);
            row.vc = nvc++;
        }
        if (s->n == cap) {
            cap = cap ? cap * 2 : 4096;
            struct prow *nr = realloc(s->rows, cap * sizeof *nr);
            if (nr == NULL) {
                err_run(err, "out of memory");
                goto fail;
            }
            s->rows = nr;
        }
        s->rows[s->n++] = row;
    }
    if (rc < 0)
        goto fail;
    if (s->n == 0) {
        err_input(err, c->path, 0, NULL, header ? "no jobs left after the vc/size filters"
                                                : "empty file: expected a header line");
        goto fail;
    }
    char note[2 * PATH_MAX_LEN];
    if (dropped_big) {
        snprintf(note, sizeof note, "hetsim: %s: left out %ld jobs of more than %lld GPUs "
                 "(workload option max_workers)\n", c->path, dropped_big, (long long)max_workers);
        err_note_once(note);
    }
    if (dropped_short) {
        snprintf(note, sizeof note, "hetsim: %s: left out %ld jobs shorter than %g s "
                 "(workload option min_duration_s)\n", c->path, dropped_short, min_dur);
        err_note_once(note);
    }
    qsort(s->rows, s->n, sizeof *s->rows, by_time);
    /* renumber VCs by first appearance in time order, so users do not depend on file order */
    int remap[64];
    for (int k = 0; k < 64; k++)
        remap[k] = -1;
    int next_user = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (remap[s->rows[i].vc] < 0)
            remap[s->rows[i].vc] = next_user++;
        s->rows[i].vc = remap[s->rows[i].vc];
    }
    s->t0 = s->rows[0].ts;
    s->rng = rng_stream(c->seed, "job_types");
    s->mix = reader_mix_table(c);
    if (s->rng == NULL || s->mix == NULL) {
        err_run(err, "out of memory");
        goto fail;
    }
    tio_close(r);
    *rd = (struct reader){ s, pst_next, pst_close };
    return 0;
fail:
    tio_close(r);
    pst_close(s);
    return -1;
}

static const char *const philly_keys[] = { "vc", "max_workers", "min_duration_s", NULL };

const struct workload_format trace_philly_format = {
    .name = "philly",
    .domain = "training",
    .arrival_at = offsetof(struct job_spec, arrival),
    .summary = "the Philly job list (timestamp, duration, num_gpus, gpu_time, cluster); job "
               "types drawn from a mix",
    .flags = FORMAT_TRACE | FORMAT_DURATIONS | FORMAT_MIX | FORMAT_SEEDED,
    .keys = philly_keys,
    .open = pst_open,
};
