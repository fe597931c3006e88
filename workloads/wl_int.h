/*
 * wl_int: what the workload readers share.  Each reader fills a struct wl_reader; workload.c
 * picks one by format and wraps it as a job_source.
 */
#ifndef HETSIM_WL_INT_H
#define HETSIM_WL_INT_H

#include <gsl/gsl_rng.h>

#include "workload.h"

struct wl_common {
    const tput *model;
    uint64_t    seed;
    char        path[4096];     /* resolved trace path, "" for synthetic */
    int         ref_gpu;        /* GPU type durations are measured on */
    double      arrival_scale;  /* arrivals are multiplied by this */
    int64_t     max_jobs;       /* 0: all */
    int64_t     skip_jobs;      /* jobs dropped from the start; arrivals then restart at 0 */
    int64_t     emitted;
    simtime     rebase;         /* subtracted from arrivals after skipping */
    /* the job-type mix (philly, synthetic) */
    int         nmix;
    int        *mix_types;
    double     *mix_weights;
};

struct wl_reader {
    void *st;
    int  (*next)(void *st, struct wl_common *c, struct job_spec *out, struct errbuf *err);
    void (*close)(void *st);
};

int wl_hetsim_open(struct wl_reader *r, struct wl_common *c, struct errbuf *err);
int wl_gavel_open(struct wl_reader *r, struct wl_common *c, struct errbuf *err);
int wl_philly_open(struct wl_reader *r, struct wl_common *c, const struct jobj *cfg,
                   struct errbuf *err);
int wl_synth_open(struct wl_reader *r, struct wl_common *c, const struct jobj *cfg,
                  struct errbuf *err);

/* Job type by name with a did-you-mean in the error; -1 with err set if unknown. */
int wl_jobtype(const tput *m, const char *name, const char *file, long line, const char *field,
               struct errbuf *err);

/* Read a job-type mix {"name": weight, ...} at cfg.key into new arrays (caller frees);
 * *n = 0 when the key is absent. */
int wl_read_mix(const struct jobj *cfg, const char *key, const tput *model, int **types,
                double **weights, int *n, struct errbuf *err);

/* Draw a job type from the mix (GSL discrete distribution prepared once by the caller). */
int wl_mix_draw(const struct wl_common *c, gsl_rng *r, void *table);
void *wl_mix_table(const struct wl_common *c);
void  wl_mix_table_free(void *table);

/* A set of int64 ids, to reject duplicates in streamed traces. */
struct idset {
    int64_t *keys;
    uint8_t *used;
    size_t   cap, n;
};
int  idset_add(struct idset *s, int64_t id);   /* 1 added, 0 already there, -1 no memory */
void idset_free(struct idset *s);

#endif
