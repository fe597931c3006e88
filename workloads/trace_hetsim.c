/*
 * trace_hetsim: hetsim's own job trace, a CSV with a header naming its columns (any order):
 *   arrival_s   required  submission time, seconds from the start of the trace, >= 0
 *   job_type    required  a job type of models/data/jobtypes.json or a loaded profile
 *   workers     required  GPUs the job asks for, an integer >= 1
 *   iterations  one of    total work, in the job type's iterations, > 0
 *   duration_s  these two run time on `workers` GPUs of the workload's reference type, > 0
 *   id          optional  job id, an integer >= 0, unique (default: row number from 0)
 *   user        optional  tenant: a number >= 0, or a name; names are numbered 0, 1, ... in
 *                         order of first appearance; one trace uses numbers or names, not both
 *   weight      optional  priority weight > 0 (default 1)
 *   min_workers optional  elastic jobs: the fewest GPUs it runs on, 1 <= min_workers <= workers
 *   max_workers optional  elastic jobs: the most GPUs it runs on, >= workers
 *   batch       optional  the job's own global batch, an integer >= 1, for job types that
 *                         scale strongly (a global batch; refused for the others); the world
 *                         then runs it with local batch, gradient accumulation and atomic
 *                         batch as Pollux does (sim/train/speed.h: train_speed_batch); empty
 *                         or absent: the job type's batch, as before
 * Without those columns a job is rigid (both are `workers`), unless the workload object sets
 * "min_workers" / "max_workers": then every job's range is [min(that, workers), max(that,
 * workers)], so that a trace of rigid requests (Philly's GPU counts) becomes elastic jobs
 * whose requested size stays in their range.  Columns win over the workload's settings.
 * The header must name each column once; an empty name (a trailing comma) or an unknown one
 * is an error, so that a misspelt column is never read as absent.
 * Rows must be in non-decreasing arrival order (the file is streamed, never held in memory).
 *
 * With a "job_types" mix in the workload, each job's type is drawn anew from the mix (the
 * experiment seed's "job_types" stream, one draw per job in file order) and its work is the
 * same duration on the reference GPU in the new type's iterations: a trace-driven experiment
 * whose seed changes something, as the Philly reader's type draw does.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/rng.h"
#include "../sim/base/tio.h"
#include "../sim/train/train.h"
#include "reader.h"

enum col { C_ID, C_ARRIVAL, C_TYPE, C_WORKERS, C_ITERS, C_DURATION, C_USER, C_WEIGHT, C_MIN,
           C_MAX, C_BATCH, C_N };
static const char *const colnames[] = { "id", "arrival_s", "job_type", "workers", "iterations",
                                        "duration_s", "user", "weight", "min_workers",
                                        "max_workers", "batch", NULL };

enum { MAX_COLS = 32, USER_NAME_MAX = 255 };

enum user_kind { USERS_UNSEEN, USERS_NUMBERED, USERS_NAMED };

struct hst {
    tio        *r;
    int         pos[C_N];       /* column index of each known column, -1 if absent */
    int         ncols;
    int64_t     row;
    struct reader_idset ids;
    gsl_rng    *rng;            /* with a job-type mix: its draws */
    void       *mix;
    int         users;          /* enum user_kind, fixed by the first row */
    long        users_line;     /* that row's line */
    struct reader_names names;  /* tenant names -> user numbers */
    int64_t     min_all, max_all;   /* the workload's elastic range, 0: none */
};

static void hst_close(void *p)
{
    struct hst *s = p;
    tio_close(s->r);
    reader_idset_free(&s->ids);
    reader_mix_table_free(s->mix);
    if (s->rng != NULL)
        gsl_rng_free(s->rng);
    reader_names_free(&s->names);
    free(s);
}

/* The user column: a number >= 0 or a tenant name, the same kind on every row. */
static int read_user(struct hst *s, const char *path, long ln, const char *f, int32_t *out,
                     struct errbuf *err)
{
    double num;
    long long v;
    int is_number = tio_double(f, &num) == 0;
    if (reader_blank(f))
        return err_input(err, path, ln, "user", "empty: give a user number >= 0 or a tenant "
                         "name");
    if (s->users == USERS_UNSEEN) {
        s->users = is_number ? USERS_NUMBERED : USERS_NAMED;
        s->users_line = ln;
    }
    if (is_number && s->users == USERS_NAMED)
        return err_input(err, path, ln, "user", "'%s' is a number, but line %ld names a tenant: "
                         "a trace gives every user as a number or every user as a name", f,
                         s->users_line);
    if (!is_number && s->users == USERS_NUMBERED)
        return err_input(err, path, ln, "user", "'%s' is not a user number >= 0 (line %ld gives "
                         "numbers, so names cannot follow)", f, s->users_line);
    if (is_number) {
        if (tio_int64(f, &v) < 0 || v < 0 || v > 1000000000)
            return err_input(err, path, ln, "user", "'%s' is not a user number >= 0", f);
        *out = (int32_t)v;
        return 0;
    }
    size_t len = strlen(f);
    if (f[0] == ' ' || f[0] == '\t' || f[len - 1] == ' ' || f[len - 1] == '\t')
        return err_input(err, path, ln, "user", "tenant name '%s' begins or ends with a blank",
                         f);
    if (len > USER_NAME_MAX)
        return err_input(err, path, ln, "user", "tenant name longer than %d characters",
                         USER_NAME_MAX);
    if ((*out = reader_names_id(&s->names, f)) < 0)
        return err_run(err, "out of memory");
    return 0;
}

static int read_header(struct hst *s, const char *path, struct errbuf *err)
{
    if (reader_header(s->r, path, colnames, C_ARRIVAL, C_WORKERS, MAX_COLS,
                      "arrival_s,job_type,workers,iterations|duration_s,...",
                      "arrival_s, job_type, workers, iterations or duration_s, id, user, weight, "
                      "min_workers, max_workers, batch", s->pos, &s->ncols, err) < 0)
        return -1;
    if ((s->pos[C_ITERS] < 0) == (s->pos[C_DURATION] < 0))
        return err_input(err, path, tio_lineno(s->r), "iterations", "give exactly one of the "
                         "columns iterations and duration_s");
    return 0;
}

static int hst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct job_spec *out = spec;
    struct hst *s = p;
    char *f[MAX_COLS];
    long ln;
    int rc = reader_row(s->r, c->path, s->ncols, s->row, "jobs", f, MAX_COLS, &ln, err);
    if (rc <= 0)
        return rc;
    long long id = s->row, workers;
    int32_t user = 0;
    double arrival, weight = 1, v;
    if (s->pos[C_ID] >= 0 && (tio_int64(f[s->pos[C_ID]], &id) < 0 || id < 0))
        return err_input(err, c->path, ln, "id", "'%s' is not an integer >= 0",
                         f[s->pos[C_ID]]);
    if (tio_double(f[s->pos[C_ARRIVAL]], &arrival) < 0 || arrival < 0 || arrival > 9e12)
        return err_input(err, c->path, ln, "arrival_s", "'%s' is not a time >= 0",
                         f[s->pos[C_ARRIVAL]]);
    if (tio_int64(f[s->pos[C_WORKERS]], &workers) < 0 || workers < 1 || workers > 1000000)
        return err_input(err, c->path, ln, "workers", "'%s' is not a GPU count >= 1",
                         f[s->pos[C_WORKERS]]);
    if (s->pos[C_USER] >= 0 && read_user(s, c->path, ln, f[s->pos[C_USER]], &user, err) < 0)
        return -1;
    if (s->pos[C_WEIGHT] >= 0 &&
        (tio_double(f[s->pos[C_WEIGHT]], &weight) < 0 || !(weight > 0) || weight > 1e9))
        return err_input(err, c->path, ln, "weight", "'%s' is not a weight > 0",
                         f[s->pos[C_WEIGHT]]);
    long long lo = 0, hi = 0;
    if (s->min_all > 0)
        lo = s->min_all < workers ? s->min_all : workers;
    if (s->max_all > 0)
        hi = s->max_all > workers ? s->max_all : workers;
    if (s->pos[C_MIN] >= 0 &&
        (tio_int64(f[s->pos[C_MIN]], &lo) < 0 || lo < 1 || lo > workers))
        return err_input(err, c->path, ln, "min_workers", "'%s' is not a GPU count from 1 to "
                         "the job's %lld workers", f[s->pos[C_MIN]], workers);
    if (s->pos[C_MAX] >= 0 &&
        (tio_int64(f[s->pos[C_MAX]], &hi) < 0 || hi < workers || hi > 1000000))
        return err_input(err, c->path, ln, "max_workers", "'%s' is not a GPU count of at least "
                         "the job's %lld workers", f[s->pos[C_MAX]], workers);
    int jt = reader_jobtype(c->model, f[s->pos[C_TYPE]], c->path, ln, "job_type", err);
    if (jt < 0)
        return -1;
    int wc = s->pos[C_ITERS] >= 0 ? C_ITERS : C_DURATION;
    if (tio_double(f[s->pos[wc]], &v) < 0 || !(v > 0) || v > 1e15)
        return err_input(err, c->path, ln, colnames[wc], "'%s' is not a number > 0",
                         f[s->pos[wc]]);
    double work = v;
    if (wc == C_DURATION) {
        work = reader_work_from_duration(c->model, jt, c->ref_gpu, (int)workers, v);
        if (!(work > 0))
            return err_input(err, c->path, ln, "duration_s",
                             "job type '%s' cannot run on %lld x %s (the reference GPU), so its "
                             "duration cannot be turned into work", tput_type(c->model, jt)->name,
                             workers, catalog_gpu(tput_catalog(c->model), c->ref_gpu)->name);
    }
    if (s->mix != NULL) {
        /* the same duration on the reference GPU, in the drawn type's iterations */
        int nt = reader_mix_draw(c, s->rng, s->mix);
        double from = reader_work_from_duration(c->model, jt, c->ref_gpu, (int)workers, 1);
        double to = reader_work_from_duration(c->model, nt, c->ref_gpu, (int)workers, 1);
        if (!(from > 0) || !(to > 0))
            return err_input(err, c->path, ln, "job_type",
                             "job type '%s' (drawn from workload.job_types for '%s') cannot run "
                             "on %lld x %s (the reference GPU), so the job's duration cannot "
                             "be carried over", tput_type(c->model, nt)->name,
                             tput_type(c->model, jt)->name, workers,
                             catalog_gpu(tput_catalog(c->model), c->ref_gpu)->name);
        work = work / from * to;
        jt = nt;
    }
    long long batch = 0;
    if (s->pos[C_BATCH] >= 0 && f[s->pos[C_BATCH]][0] != '\0') {
        if (tio_int64(f[s->pos[C_BATCH]], &batch) < 0 || batch < 1 || batch > (1 << 24))
            return err_input(err, c->path, ln, "batch", "'%s' is not a batch size from 1 to "
                             "%d", f[s->pos[C_BATCH]], 1 << 24);
        if (tput_type(c->model, jt)->scaling != JT_STRONG)
            return err_input(err, c->path, ln, "batch", "job type '%s' has a per-worker batch "
                             "(weak scaling): a job's own global batch is for job types that "
                             "scale strongly", tput_type(c->model, jt)->name);
    }
    int added = reader_idset_add(&s->ids, id);
    if (added < 0)
        return err_run(err, "out of memory");
    if (added == 0)
        return err_input(err, c->path, ln, "id", "job id %lld appears twice", id);
    *out = (struct job_spec){ .id = id, .arrival = sim_from_sec(arrival), .jtype = jt,
                              .workers = (int32_t)workers, .min_workers = (int32_t)lo,
                              .max_workers = (int32_t)hi, .work = work, .user = user,
                              .weight = weight, .origin = c->path, .line = ln,
                              .batch = (int32_t)batch };
    s->row++;
    return 1;
}

static int hst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    struct hst *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (jobj_int(cfg, "min_workers", JOPT, 1, 1000000, &s->min_all, err) < 0 ||
        jobj_int(cfg, "max_workers", JOPT, 1, 1000000, &s->max_all, err) < 0) {
        free(s);
        return -1;
    }
    if (s->min_all > 0 && s->max_all > 0 && s->min_all > s->max_all) {
        jsonf_error(cfg->doc, cJSON_GetObjectItemCaseSensitive(cfg->node, "min_workers"),
                    JOBJ_FIELD(cfg, "min_workers"), err, "%lld is more than max_workers %lld",
                    (long long)s->min_all, (long long)s->max_all);
        free(s);
        return -1;
    }
    if (tio_open(&s->r, c->path, err) < 0 || read_header(s, c->path, err) < 0) {
        hst_close(s);
        return -1;
    }
    if (c->nmix > 0 && ((s->rng = rng_stream(c->seed, "job_types")) == NULL ||
                        (s->mix = reader_mix_table(c)) == NULL)) {
        hst_close(s);
        return err_run(err, "out of memory");
    }
    *r = (struct reader){ s, hst_next, hst_close };
    return 0;
}

static const char *const hst_keys[] = { "min_workers", "max_workers", NULL };

/* The seed matters only when job types are drawn anew. */
static int hst_seeded(const struct jobj *cfg)
{
    return cJSON_GetObjectItemCaseSensitive(cfg->node, "job_types") != NULL;
}

const struct workload_format trace_hetsim_format = {
    .name = "hetsim",
    .domain = "training",
    .arrival_at = offsetof(struct job_spec, arrival),
    .summary = "hetsim's CSV job trace (arrival_s, job_type, workers, iterations or duration_s)",
    .flags = FORMAT_TRACE | FORMAT_DURATIONS | FORMAT_MIX,
    .seeded_by = hst_seeded,
    .keys = hst_keys,
    .open = hst_open,
};
