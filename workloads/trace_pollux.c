/*
 * trace_pollux: the workload CSV of Pollux's and Sia's simulators (petuum/adaptdl
 * osdi21-artifact, benchmark/workloads/workload-N.csv; Sia's sia-simulator/workloads/), one job per
 * row under the header `name,time,application,num_replicas,batch_size` (any order, each
 * column once, no other columns):
 *   name          the job's name, not blank, at most 255 characters, unique in the file
 *   time          submission, seconds >= 0 from the start (fractions allowed, as in Sia's)
 *   application   an elastic application (bert, cifar10, ... : models/data/pollux/); the
 *                 world checks it against its profiles, naming this file and line
 *   num_replicas  GPUs the job asks for, an integer >= 1 (Tiresias runs it on exactly that
 *                 many; elastic policies choose their own count)
 *   batch_size    its global batch size, an integer >= 1
 * Job ids are the row's position (0, 1, ...), as Pollux's names end.  The jobs are elastic
 * (job_spec.app set): they run in the training world's Pollux-compatible mode.  When the
 * experiment gives Sia's profiles (models.elastic_sia, models/siaprof.h), the throughput
 * model has a job type "<application> (batch size B)" for the job's application and batch,
 * and the job becomes a native elastic job of that type instead: its work the type's steps
 * to completion, its range of GPU counts [min(min_workers, r), max(max_workers, r)] (the
 * workload's fields "min_workers", default 1, and "max_workers", default r = num_replicas);
 * a batch the profiles do not validate is an error naming the line.  Streamed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../models/siaprof.h"
#include "../sim/base/tio.h"
#include "../sim/train/train.h"
#include "reader.h"

enum col { C_NAME, C_TIME, C_APP, C_REPLICAS, C_BSZ, C_N };
static const char *const colnames[] = { "name", "time", "application", "num_replicas",
                                        "batch_size", NULL };

enum { NAME_MAX_LEN = 255, MAX_COLS = 16 };

struct pst {
    tio    *r;
    int64_t min_all, max_all;       /* native jobs' range (0: 1 and num_replicas) */
    int     native;                 /* the model has Sia's profiles: jobs become native */
    int     pos[C_N];
    int     ncols;
    int64_t row;
    struct reader_names names;      /* to reject a name given twice */
    char    name[NAME_MAX_LEN + 1], app[NAME_MAX_LEN + 1];
};

static void pst_close(void *p)
{
    struct pst *s = p;
    tio_close(s->r);
    reader_names_free(&s->names);
    free(s);
}

static void trim(char *f)
{
    char *a = f;
    while (*a == ' ' || *a == '\t')
        a++;
    size_t n = strlen(a);
    while (n > 0 && (a[n - 1] == ' ' || a[n - 1] == '\t'))
        n--;
    memmove(f, a, n);
    f[n] = '\0';
}

static int read_header(struct pst *s, const char *path, struct errbuf *err)
{
    char *line, *f[MAX_COLS];
    size_t len;
    int rc;
    while ((rc = tio_next(s->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc < 0)
        return -1;
    if (rc == 0)
        return err_input(err, path, 0, NULL, "empty file: expected the header "
                         "name,time,application,num_replicas,batch_size");
    long ln = tio_lineno(s->r);
    int n = tio_split(line, ',', f, MAX_COLS);
    if (n < 0 || n > MAX_COLS)
        return err_input(err, path, ln, "header", "unterminated quote or too many columns");
    for (int k = 0; k < C_N; k++)
        s->pos[k] = -1;
    for (int i = 0; i < n; i++) {
        trim(f[i]);
        int k = 0;
        while (colnames[k] != NULL && strcmp(colnames[k], f[i]) != 0)
            k++;
        if (f[i][0] == '\0')
            return err_input(err, path, ln, "header", "column %d has no name", i + 1);
        if (colnames[k] == NULL) {
            const char *close = jsonf_suggest(f[i], colnames);
            return err_input(err, path, ln, "header", "unknown column '%s'%s%s%s (a Pollux "
                             "workload has name,time,application,num_replicas,batch_size)",
                             f[i], close ? " (did you mean '" : "", close ? close : "",
                             close ? "'?)" : "");
        }
        if (s->pos[k] >= 0)
            return err_input(err, path, ln, "header", "column '%s' named twice", f[i]);
        s->pos[k] = i;
    }
    for (int k = 0; k < C_N; k++)
        if (s->pos[k] < 0)
            return err_input(err, path, ln, "header", "missing column '%s'", colnames[k]);
    s->ncols = n;
    return 0;
}

static int pst_next(void *p, struct reader_common *c, void *spec, struct errbuf *err)
{
    struct job_spec *out = spec;
    struct pst *s = p;
    char *line, *f[MAX_COLS];
    size_t len;
    int rc;
    while ((rc = tio_next(s->r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc <= 0) {
        if (rc == 0 && s->row == 0)
            return err_input(err, c->path, 0, NULL, "empty trace: no jobs after the header");
        return rc;
    }
    long ln = tio_lineno(s->r);
    int n = tio_split(line, ',', f, MAX_COLS);
    if (n != s->ncols)
        return err_input(err, c->path, ln, NULL, "%d fields, the header has %d",
                         n < 0 ? 0 : n, s->ncols);
    for (int i = 0; i < n; i++)
        trim(f[i]);
    const char *name = f[s->pos[C_NAME]], *app = f[s->pos[C_APP]];
    double t;
    long long r, b;
    if (name[0] == '\0' || strlen(name) > NAME_MAX_LEN)
        return err_input(err, c->path, ln, "name", "a job's name is not blank and at most %d "
                         "characters", NAME_MAX_LEN);
    if (tio_double(f[s->pos[C_TIME]], &t) < 0 || t < 0 || t > 9e12)
        return err_input(err, c->path, ln, "time", "'%s' is not a submission time >= 0 s",
                         f[s->pos[C_TIME]]);
    if (app[0] == '\0' || strlen(app) > NAME_MAX_LEN)
        return err_input(err, c->path, ln, "application", "empty: name the job's application "
                         "(bert, cifar10, deepspeech2, imagenet, ncf, yolov3 ...)");
    if (tio_int64(f[s->pos[C_REPLICAS]], &r) < 0 || r < 1 || r > 1000000)
        return err_input(err, c->path, ln, "num_replicas", "'%s' is not a GPU count >= 1",
                         f[s->pos[C_REPLICAS]]);
    if (tio_int64(f[s->pos[C_BSZ]], &b) < 0 || b < 1 || b > INT32_MAX)
        return err_input(err, c->path, ln, "batch_size", "'%s' is not a batch size >= 1",
                         f[s->pos[C_BSZ]]);
    size_t before = s->names.n;
    if (reader_names_id(&s->names, name) < 0)
        return err_run(err, "out of memory");
    if (s->names.n == before)
        return err_input(err, c->path, ln, "name", "job '%s' is named twice", name);
    if (s->native) {
        char tn[JT_NAME_MAX];
        int jt = siaprof_type_name(tn, sizeof tn, app, b) == 0 ? tput_find(c->model, tn) : -1;
        if (jt < 0 || !(tput_type(c->model, jt)->steps > 0))
            return err_input(err, c->path, ln, "batch_size", "job %s: Sia's profiles "
                             "(models.elastic_sia) have no job type '%s (batch size %lld)': "
                             "the application and batch must be one of its validation files",
                             name, app, b);
        int64_t lo = s->min_all <= 0 ? 1 : s->min_all < r ? s->min_all : r;
        int64_t hi = s->max_all > r ? s->max_all : r;
        *out = (struct job_spec){ .id = s->row, .arrival = sim_from_sec(t), .jtype = jt,
                                  .workers = (int32_t)r, .min_workers = (int32_t)lo,
                                  .max_workers = (int32_t)hi, .batch = (int32_t)b,
                                  .work = tput_type(c->model, jt)->steps, .weight = 1,
                                  .origin = c->path, .line = ln, .field = "num_replicas" };
        s->row++;
        return 1;
    }
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->app, sizeof s->app, "%s", app);
    *out = (struct job_spec){ .id = s->row, .arrival = sim_from_sec(t), .jtype = -1,
                              .workers = (int32_t)r, .min_workers = 1,
                              .max_workers = (int32_t)r, .batch = (int32_t)b, .work = 0,
                              .weight = 1, .origin = c->path, .line = ln,
                              .field = "num_replicas", .app = s->app, .name = s->name };
    s->row++;
    return 1;
}

static int pst_open(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                    struct errbuf *err)
{
    struct pst *s = calloc(1, sizeof *s);
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
    /* Sia's profiles registered job types that carry their steps */
    for (int jt = 0; jt < tput_ntypes(c->model) && !s->native; jt++)
        s->native = tput_type(c->model, jt)->steps > 0;
    if (tio_open(&s->r, c->path, err) < 0 || read_header(s, c->path, err) < 0) {
        pst_close(s);
        return -1;
    }
    *r = (struct reader){ s, pst_next, pst_close };
    return 0;
}

static const char *const pst_keys[] = { "min_workers", "max_workers", NULL };

const struct workload_format trace_pollux_format = {
    .name = "pollux",
    .domain = "training",
    .arrival_at = offsetof(struct job_spec, arrival),
    .summary = "Pollux's and Sia's workload CSV (name,time,application,num_replicas,"
               "batch_size): elastic jobs, for \"mode\": \"pollux\", or native ones with "
               "Sia's profiles (models.elastic_sia)",
    .flags = FORMAT_TRACE,
    .keys = pst_keys,
    .open = pst_open,
};
