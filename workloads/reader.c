/*
 * reader: the helpers every workload reader shares (job-type lookup and mixes, durations
 * turned into work, a set of ids for duplicate checks, names numbered by first appearance).
 * Both hash tables use linear probing at load <= 1/2, so an insert or lookup is O(1)
 * expected; they double when half full.
 */
#define _POSIX_C_SOURCE 200809L
#include "reader.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../sim/base/jsonf.h"

int reader_blank(const char *field)
{
    while (isspace((unsigned char)*field))
        field++;
    return *field == '\0';
}

int reader_header(tio *r, const char *path, const char *const *names, int req_lo, int req_hi,
                  int max_cols, const char *expect, const char *columns, int *pos, int *ncols,
                  struct errbuf *err)
{
    char *line, *f[READER_MAX_COLS];
    size_t len;
    int rc;
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc < 0)
        return -1;
    if (rc == 0)
        return err_input(err, path, 0, NULL, "empty file: expected a header line (%s)", expect);
    long ln = tio_lineno(r);
    int n = tio_split(line, ',', f, max_cols);
    if (n < 0 || n > max_cols)
        return err_input(err, path, ln, NULL, "header: unterminated quote or too many columns");
    int nnames = 0;
    while (names[nnames] != NULL)
        pos[nnames++] = -1;
    for (int i = 0; i < n; i++) {
        if (reader_blank(f[i]))
            return err_input(err, path, ln, "header", "column %d has no name%s", i + 1,
                             i == n - 1 && n > 1 ? " (a trailing comma?)" : "");
        int k = 0;
        while (names[k] != NULL && strcmp(names[k], f[i]) != 0)
            k++;
        if (names[k] == NULL) {
            const char *hint = jsonf_suggest(f[i], names);
            return err_input(err, path, ln, f[i], "unknown column%s%s%s (the columns are %s)",
                             hint ? " (did you mean '" : "", hint ? hint : "",
                             hint ? "'?)" : "", columns);
        }
        if (pos[k] >= 0)
            return err_input(err, path, ln, f[i], "column given twice (columns %d and %d)",
                             pos[k] + 1, i + 1);
        pos[k] = i;
    }
    *ncols = n;
    for (int k = req_lo; k <= req_hi; k++)
        if (pos[k] < 0)
            return err_input(err, path, ln, names[k], "required column is missing");
    return 0;
}

int reader_row(tio *r, const char *path, int ncols, int64_t rows, const char *what, char **f,
               int max_cols, long *line_no, struct errbuf *err)
{
    char *line;
    size_t len;
    int rc;
    while ((rc = tio_next(r, &line, &len, err)) > 0 && tio_skippable(line))
        ;
    if (rc == 0 && rows == 0)
        return err_input(err, path, 0, NULL, "empty trace: no %s after the header", what);
    if (rc <= 0)
        return rc;
    long ln = tio_lineno(r);
    int n = tio_split(line, ',', f, max_cols);
    if (n < 0)
        return err_input(err, path, ln, NULL, "unterminated quote");
    if (n != ncols)
        return err_input(err, path, ln, NULL, "expected %d fields, found %d", ncols, n);
    *line_no = ln;
    return 1;
}

double reader_work_from_duration(const tput *m, int jtype, int gpu, int workers, double duration_s)
{
    const struct gpu_spec *g = catalog_gpu(tput_catalog(m), gpu);
    struct placement p = { .gpu = gpu, .workers = workers, .nodes = 1, .link = -1 };
    if (workers > 1)
        p.link = g->nvlink >= 0 ? g->nvlink : g->pcie;
    return duration_s * tput_rate(m, jtype, &p);
}

int reader_jobtype(const tput *m, const char *name, const char *file, long line, const char *field,
               struct errbuf *err)
{
    int id = tput_find(m, name);
    if (id >= 0)
        return id;
    int n = tput_ntypes(m);
    const char **names = malloc((size_t)(n + 1) * sizeof *names);
    const char *hint = NULL;
    if (names != NULL) {
        for (int i = 0; i < n; i++)
            names[i] = tput_type(m, i)->name;
        names[n] = NULL;
        hint = jsonf_suggest(name, names);
    }
    err_input(err, file, line, field, "unknown job type '%s'%s%s%s (see `hetsim list models`)",
              name, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    free(names);
    return -1;
}

void *reader_mix_table(const struct reader_common *c)
{
    return gsl_ran_discrete_preproc((size_t)c->nmix, c->mix_weights);
}

void reader_mix_table_free(void *table)
{
    if (table != NULL)
        gsl_ran_discrete_free(table);
}

int reader_mix_draw(const struct reader_common *c, gsl_rng *r, void *table)
{
    return c->mix_types[gsl_ran_discrete(r, table)];
}

int reader_idset_add(struct reader_idset *s, int64_t id)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        int64_t *k = calloc(nc, sizeof *k);
        uint8_t *u = calloc(nc, 1);
        if (k == NULL || u == NULL) {
            free(k);
            free(u);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                size_t j = ((uint64_t)s->keys[i] * 0x9e3779b97f4a7c15ULL >> 17) & (nc - 1);
                while (u[j])
                    j = (j + 1) & (nc - 1);
                k[j] = s->keys[i];
                u[j] = 1;
            }
        free(s->keys);
        free(s->used);
        s->keys = k;
        s->used = u;
        s->cap = nc;
    }
    size_t j = ((uint64_t)id * 0x9e3779b97f4a7c15ULL >> 17) & (s->cap - 1);
    while (s->used[j]) {
        if (s->keys[j] == id)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->keys[j] = id;
    s->used[j] = 1;
    s->n++;
    return 1;
}

void reader_idset_free(struct reader_idset *s)
{
    free(s->keys);
    free(s->used);
    memset(s, 0, sizeof *s);
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;     /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static int names_grow(struct reader_names *s)
{
    size_t nc = s->cap ? 2 * s->cap : 64;
    int32_t *slots = calloc(nc, sizeof *slots);
    char **names = realloc(s->names, nc / 2 * sizeof *names);
    if (slots == NULL || names == NULL) {
        free(slots);
        if (names != NULL)
            s->names = names;
        return -1;
    }
    s->names = names;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = name_hash(names[i]) & (nc - 1);
        while (slots[j] != 0)
            j = (j + 1) & (nc - 1);
        slots[j] = (int32_t)i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->cap = nc;
    return 0;
}

int32_t reader_names_id(struct reader_names *s, const char *name)
{
    if (s->cap > 0) {
        for (size_t j = name_hash(name) & (s->cap - 1); s->slots[j] != 0;
             j = (j + 1) & (s->cap - 1))
            if (strcmp(s->names[s->slots[j] - 1], name) == 0)
                return s->slots[j] - 1;
    }
    if (s->n >= INT32_MAX - 1 || (2 * (s->n + 1) > s->cap && names_grow(s) < 0))
        return -1;
    char *copy = strdup(name);
    if (copy == NULL)
        return -1;
    size_t j = name_hash(name) & (s->cap - 1);
    while (s->slots[j] != 0)
        j = (j + 1) & (s->cap - 1);
    s->names[s->n] = copy;
    s->slots[j] = (int32_t)s->n + 1;
    return (int32_t)s->n++;
}

void reader_names_free(struct reader_names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

int reader_read_mix(const struct jobj *cfg, const char *key, const tput *model, int **types,
                double **weights, int *n_out, struct errbuf *err)
{
    struct jobj mix;
    *n_out = 0;
    if (jobj_obj(&mix, cfg, key, JOPT, err) < 0)
        return -1;
    if (mix.node == NULL)
        return 0;
    int n = cJSON_GetArraySize(mix.node);
    if (n == 0)
        return jsonf_error(cfg->doc, mix.node, mix.path, err, "needs at least one job type");
    *types = calloc((size_t)n, sizeof **types);
    *weights = calloc((size_t)n, sizeof **weights);
    if (*types == NULL || *weights == NULL)
        return err_run(err, "out of memory");
    int i = 0;
    for (const cJSON *e = mix.node->child; e != NULL; e = e->next, i++) {
        char p[320];
        snprintf(p, sizeof p, "%s.%s", mix.path, e->string);
        const char *file;
        long line;
        jsonf_where(cfg->doc, e, &file, &line);
        if (((*types)[i] = reader_jobtype(model, e->string, file, line, p, err)) < 0)
            return -1;
        for (int k = 0; k < i; k++)
            if ((*types)[k] == (*types)[i])
                return jsonf_error(cfg->doc, e, p, err, "job type '%s' is in the mix twice",
                                   tput_type(model, (*types)[i])->name);
        if (jobj_num(&mix, e->string, JREQ, 0, 1e12, &(*weights)[i], err) < 0)
            return -1;
    }
    double sum = 0;
    for (i = 0; i < n; i++)
        sum += (*weights)[i];
    if (!(sum > 0))
        return jsonf_error(cfg->doc, mix.node, mix.path, err, "weights must not all be zero");
    *n_out = n;
    return 0;
}

