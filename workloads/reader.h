/*
 * reader: what a workload format is and what its readers share.
 *
 * A format is one `const struct workload_format` in one file (trace_hetsim.c, trace_gavel.c,
 * trace_philly.c, synth.c), listed once in workloads/registry.c and found by the workload's
 * "format" field, as policies are found by name.  workload.c reads the fields every format
 * shares (reader_common), checks that the workload object holds only those and the format's
 * own `keys`, opens the format's reader and wraps it as an entity_source (sim/core/entity.h):
 * any domain's stream, skipped, cut and scaled alike through its spec's arrival
 * (`arrival_at`).  A reader includes this header and its world's spec type; it never calls
 * workload.c, and workload.c knows no reader by name.
 *
 * Ownership: a reader's open allocates its state into struct reader; workload.c calls its
 * close once.  Arrays returned by reader_read_mix belong to the caller; reader_idset and
 * reader_names own their memory until their _free.
 */
#ifndef HETSIM_READER_H
#define HETSIM_READER_H

#include <gsl/gsl_rng.h>
#include <stddef.h>

#include "../sim/base/tio.h"
#include "workload.h"

/* Settings every format shares, read by workload.c before the reader opens. */
struct reader_common {
    const tput *model;
    uint64_t    seed;
    char        path[4096];     /* resolved trace path, "" for generators */
    const char *base_dir;       /* the experiment file's directory, for a format's own
                                   files (NULL: the current directory, then the data root) */
    int         ref_gpu;        /* GPU type durations are measured on */
    double      arrival_scale;  /* arrivals are multiplied by this */
    int64_t     max_jobs;       /* 0: all */
    int64_t     skip_jobs;      /* jobs dropped from the start; arrivals then restart at 0 */
    int64_t     emitted;
    simtime     rebase;         /* subtracted from arrivals after skipping */
    /* the job-type mix "job_types" (formats with FORMAT_MIX) */
    int         nmix;
    int        *mix_types;
    double     *mix_weights;
};

/* An open reader: next returns 1 with *out filled (a spec of its format's domain: struct
 * job_spec for training), 0 at the end, -1 on error. */
struct reader {
    void *st;
    int  (*next)(void *st, struct reader_common *c, void *out, struct errbuf *err);
    void (*close)(void *st);
};

enum format_flags {
    FORMAT_TRACE     = 1u << 0,     /* reads a file: "trace" is required */
    FORMAT_DURATIONS = 1u << 1,     /* turns durations into work on "reference_gpu" */
    FORMAT_MIX       = 1u << 2,     /* draws job types from the "job_types" mix */
    FORMAT_SEEDED    = 1u << 3      /* the experiment's seed changes the jobs */
};

struct workload_format {
    const char *name;               /* the workload's "format" */
    const char *domain;             /* the world its entities are for: "training" */
    size_t      arrival_at;         /* offsetof the simtime arrival in its domain's spec
                                       (training: offsetof(struct job_spec, arrival)) */
    const char *summary;            /* one line for `hetsim list formats` */
    unsigned    flags;              /* enum format_flags */
    const char *const *keys;        /* its own fields of the workload object, NULL-terminated
                                       (NULL: none); the shared ones are workload.c's */
    /* Does this workload object use the seed?  NULL: exactly when flags has FORMAT_SEEDED. */
    int  (*seeded_by)(const struct jobj *cfg);
    int  (*open)(struct reader *r, struct reader_common *c, const struct jobj *cfg,
                 struct errbuf *err);
};

/* 1 if a trace field is empty or only blanks. */
int reader_blank(const char *field);

/* The header of a CSV trace whose columns are found by name (hetsim's job and request
 * traces, micro_trace): skips blank and comment lines, then sets pos[k] to the column of
 * names[k] (NULL-terminated), -1 where absent, and *ncols to the header's width.  Columns
 * names[req_lo..req_hi] are required.  Errors name file:line:field: an empty file (a header
 * like `expect` was expected), more than max_cols columns (at most READER_MAX_COLS), a
 * column without a name, an unknown one (with a did-you-mean and the list `columns`), one
 * given twice, a required one missing. */
enum { READER_MAX_COLS = 64 };

/* The next data row of such a trace: skips blank and comment lines and splits the row into
 * f (max_cols fields), which must have ncols fields.  1 with *line_no set, 0 at the end, -1
 * with err set; an end before any row (rows == 0) is the error "empty trace: no <what> after
 * the header". */
int reader_row(tio *r, const char *path, int ncols, int64_t rows, const char *what, char **f,
               int max_cols, long *line_no, struct errbuf *err);

int reader_header(tio *r, const char *path, const char *const *names, int req_lo, int req_hi,
                  int max_cols, const char *expect, const char *columns, int *pos, int *ncols,
                  struct errbuf *err);

/* Job type by name with a did-you-mean in the error; -1 with err set if unknown. */
int reader_jobtype(const tput *m, const char *name, const char *file, long line,
                   const char *field, struct errbuf *err);

/* Read a job-type mix {"name": weight, ...} at cfg.key into new arrays (caller frees);
 * *n = 0 when the key is absent. */
int reader_read_mix(const struct jobj *cfg, const char *key, const tput *model, int **types,
                    double **weights, int *n, struct errbuf *err);

/* Draw a job type from the mix (GSL discrete distribution prepared once by the caller). */
int   reader_mix_draw(const struct reader_common *c, gsl_rng *r, void *table);
void *reader_mix_table(const struct reader_common *c);
void  reader_mix_table_free(void *table);

/* Work (iterations) that takes `duration_s` for `workers` GPUs of type `gpu` on one node with
 * the GPU's own link — the convention for traces that give durations.  0 if it cannot run. */
double reader_work_from_duration(const tput *m, int jtype, int gpu, int workers,
                                 double duration_s);

/* A set of int64 ids, to reject duplicates in streamed traces. */
struct reader_idset {
    int64_t *keys;
    uint8_t *used;
    size_t   cap, n;
};
int  reader_idset_add(struct reader_idset *s, int64_t id);  /* 1 added, 0 there, -1 no memory */
void reader_idset_free(struct reader_idset *s);

/* Names numbered 0, 1, ... in order of first appearance (tenants named in a trace).  The
 * strings are copied; zero-initialise, free with reader_names_free. */
struct reader_names {
    char   **names;         /* by number */
    int32_t *slots;         /* open addressing: number + 1, 0 for an empty slot */
    size_t   n, cap;        /* names held; slots (a power of two, or 0) */
};
/* The number of `name`, added if new; -1 when out of memory. */
int32_t reader_names_id(struct reader_names *s, const char *name);
void    reader_names_free(struct reader_names *s);

#endif
