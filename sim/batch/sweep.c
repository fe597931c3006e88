/*
 * sweep: reads the sweep file, expands its grid into points and tasks, and checks the
 * database for tasks already run.  Each point's experiment is loaded with experiment_load_from, the
 * axis values passed as overrides whose origin is the sweep file's line, so an error names
 * the line of the offending value.  O(points x experiment size) to load; one indexed lookup
 * per task to resume.
 */
#define _POSIX_C_SOURCE 200809L
#include "sweep.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../run/run.h"

enum { MAX_AXES = 32, MAX_POINTS = 10000000 };

struct axis {
    const char  *key;           /* as written: "policy", "seed" or a field path */
    const cJSON *values;        /* the JSON array */
    int          n;
};

struct point {
    struct experiment *e;
    struct db_param   *params;  /* one per axis; strings owned by `texts` */
    char             **texts;   /* the value texts */
};

struct sweep {
    jsonf        *doc;
    char          path[PATH_MAX_LEN], base[PATH_MAX_LEN];
    const char   *name;
    struct axis   axes[MAX_AXES];      /* grid axes, then the zipped ones */
    int           naxes, ngrid;
    int           zip_len;             /* 0 without a zip */
    const cJSON  *fixed;               /* the "set" object, or NULL */
    struct point *points;
    int           npoints;
    struct sweep_task *tasks;
    size_t        ntasks;
};

const char *sweep_name(const sweep *s) { return s->name; }
int sweep_npoints(const sweep *s) { return s->npoints; }
size_t sweep_ntasks(const sweep *s) { return s->ntasks; }
struct sweep_task *sweep_task(sweep *s, size_t i) { return &s->tasks[i]; }

int sweep_nseeds(const sweep *s)
{
    for (int a = 0; a < s->naxes; a++)
        if (strcmp(s->axes[a].key, "seed") == 0)
            return s->axes[a].n;
    return 1;
}

const struct experiment *sweep_experiment(const sweep *s, int point)
{
    return s->points[point].e;
}

int sweep_params(const sweep *s, int point, const struct db_param **out)
{
    *out = s->points[point].params;
    return s->naxes;
}

/* The axes of the "grid" or "zip" object: every member a non-empty array, no key twice. */
static int read_axes(sweep *s, const struct jobj *root, const char *group, int zipped,
                     struct errbuf *err)
{
    struct jobj g;
    if (jobj_obj(&g, root, group, JOPT, err) < 0)
        return -1;
    if (g.node == NULL)
        return 0;
    for (const cJSON *a = g.node->child; a != NULL; a = a->next) {
        char field[256];
        snprintf(field, sizeof field, "%s.%s", group, a->string);
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
            return jsonf_error(s->doc, a, field, err, "an axis is a non-empty list of values");
        if (s->naxes == MAX_AXES)
            return jsonf_error(s->doc, a, field, err, "at most %d axes", MAX_AXES);
        for (int i = 0; i < s->naxes; i++)
            if (strcmp(s->axes[i].key, a->string) == 0)
                return jsonf_error(s->doc, a, field, err, "'%s' is swept twice", a->string);
        if (s->fixed != NULL && cJSON_GetObjectItemCaseSensitive(s->fixed, a->string) != NULL)
            return jsonf_error(s->doc, a, field, err, "'%s' is both swept and fixed in \"set\"",
                               a->string);
        int n = cJSON_GetArraySize(a);
        if (zipped) {
            if (s->zip_len != 0 && n != s->zip_len)
                return jsonf_error(s->doc, a, field, err, "%d values, but the other zipped "
                                   "lists have %d (zipped lists vary together)", n, s->zip_len);
            s->zip_len = n;
        } else {
            s->ngrid++;
        }
        s->axes[s->naxes++] = (struct axis){ a->string, a, n };
    }
    return 0;
}

/* "key=value" for one override; "policy" is the policies list of one. */
static char *override_text(const char *key, const cJSON *value)
{
    char *v = cJSON_PrintUnformatted(value);
    if (v == NULL)
        return NULL;
    int policy = strcmp(key, "policy") == 0;
    size_t n = strlen(key) + strlen(v) + 16;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, policy ? "policies=[%s]" : "%s=%s", policy ? v : key, v);
    free(v);
    return out;
}

static char *origin_of(const sweep *s, const cJSON *node)
{
    const char *file;
    long line;
    jsonf_where(s->doc, node, &file, &line);
    char buf[PATH_MAX_LEN + 32];
    if (line > 0)
        snprintf(buf, sizeof buf, "%s:%ld", file, line);
    else
        snprintf(buf, sizeof buf, "%s", file);
    return strdup(buf);
}

/* Load point p: the sweep's fixed overrides, its axis values, then the command line's. */
static int load_point(sweep *s, int p, char *const *cli_sets, int ncli, struct errbuf *err)
{
    struct point *pt = &s->points[p];
    int nfixed = s->fixed ? cJSON_GetArraySize(s->fixed) : 0;
    int n = nfixed + s->naxes + ncli, k = 0, rc = -1;
    char **sets = calloc((size_t)n + 1, sizeof *sets);
    char **origins = calloc((size_t)n + 1, sizeof *origins);
    pt->params = calloc((size_t)s->naxes + 1, sizeof *pt->params);
    pt->texts = calloc((size_t)s->naxes + 1, sizeof *pt->texts);
    if (sets == NULL || origins == NULL || pt->params == NULL || pt->texts == NULL) {
        err_run(err, "out of memory");
        goto out;
    }
    for (const cJSON *f = s->fixed ? s->fixed->child : NULL; f != NULL; f = f->next, k++)
        if ((sets[k] = override_text(f->string, f)) == NULL ||
            (origins[k] = origin_of(s, f)) == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
    /* point index -> one value per axis: the last grid axis varies fastest, then the zip */
    int rest = p, zi = s->zip_len ? rest % s->zip_len : 0;
    if (s->zip_len)
        rest /= s->zip_len;
    int idx[MAX_AXES];
    for (int a = s->ngrid - 1; a >= 0; a--) {
        idx[a] = rest % s->axes[a].n;
        rest /= s->axes[a].n;
    }
    for (int a = s->ngrid; a < s->naxes; a++)
        idx[a] = zi;
    for (int a = 0; a < s->naxes; a++, k++) {
        const cJSON *v = cJSON_GetArrayItem(s->axes[a].values, idx[a]);
        pt->texts[a] = cJSON_PrintUnformatted(v);
        if (pt->texts[a] == NULL || (sets[k] = override_text(s->axes[a].key, v)) == NULL ||
            (origins[k] = origin_of(s, v)) == NULL) {
            err_run(err, "out of memory");
            goto out;
        }
        pt->params[a] = (struct db_param){ s->axes[a].key, pt->texts[a] };
    }
    for (int i = 0; i < ncli; i++, k++)
        sets[k] = strdup(cli_sets[i]);      /* origins[k] NULL: "--set KEY" */
    rc = experiment_load_from(&pt->e, s->base, sets, (const char *const *)origins, n, err);
out:
    for (int i = 0; i < n; i++) {
        free(sets[i]);
        free(origins[i]);
    }
    free(sets);
    free(origins);
    return rc;
}

static int make_tasks(sweep *s, struct errbuf *err)
{
    size_t cap = 0;
    for (int p = 0; p < s->npoints; p++)
        cap += (size_t)s->points[p].e->npolicies;
    s->tasks = calloc(cap ? cap : 1, sizeof *s->tasks);
    if (s->tasks == NULL)
        return err_run(err, "out of memory");
    for (int p = 0; p < s->npoints; p++)
        for (int i = 0; i < s->points[p].e->npolicies; i++) {
            struct sweep_task *t = &s->tasks[s->ntasks++];
            t->point = p;
            t->policy = i;
            if ((t->config = experiment_config_json(s->points[p].e, i)) == NULL)
                return err_run(err, "out of memory");
            db_hash_hex(t->config, t->hash);
        }
    return 0;
}

/* Open what a run opens (models and cluster, the workload, every policy) for one point. */
static int check_point(const sweep *s, int p, struct errbuf *err)
{
    struct run_env env = { 0 };
    const struct experiment *e = s->points[p].e;
    int rc = run_env_open(&env, e, err) < 0 || run_check(e, &env, err) < 0 ? -1 : 0;
    run_env_close(&env);
    return rc;
}

/* Check every axis value before anything runs: for each axis, the points that give it each
 * of its values while the other axes keep their first one (sum of the axis lengths, not
 * their product).  A point is laid out as in load_point: the zip index varies fastest, then
 * the grid axes from the last. */
static int check_axes(const sweep *s, struct errbuf *err)
{
    if (check_point(s, 0, err) < 0)
        return -1;
    long stride = s->zip_len ? s->zip_len : 1;
    for (int a = s->ngrid - 1; a >= 0; a--) {
        /* a seed opens nothing new (loading the point checked its range) */
        for (int v = 1; v < s->axes[a].n && strcmp(s->axes[a].key, "seed") != 0; v++)
            if (check_point(s, (int)(v * stride), err) < 0)
                return -1;
        stride *= s->axes[a].n;
    }
    for (int v = 1; v < s->zip_len; v++)
        if (check_point(s, v, err) < 0)
            return -1;
    return 0;
}

int sweep_load(sweep **out, const char *path, char *const *sets, int nsets, struct errbuf *err)
{
    static const char *const keys[] = { "name", "description", "experiment", "set", "grid",
                                        "zip", "note", NULL };
    *out = NULL;
    sweep *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_run(err, "out of memory");
    /* a file, or the name of a shipped sweep (workloads/sweeps/NAME.json) */
    if (path_named(s->path, sizeof s->path, "sweeps", path) < 0) {
        err_input(err, path, 0, NULL, "no such sweep file or shipped sweep (see `hetsim list "
                  "sweeps`)");
        sweep_free(s);
        return -1;
    }
    struct jobj root, fixed;
    const char *base = NULL;
    if (jsonf_load(&s->doc, s->path, err) < 0 || jobj_root(&root, s->doc, err) < 0 ||
        jobj_known(&root, keys, err) < 0 || jobj_str(&root, "name", JREQ, &s->name, err) < 0 ||
        jobj_str(&root, "experiment", JREQ, &base, err) < 0 ||
        jobj_obj(&fixed, &root, "set", JOPT, err) < 0)
        goto fail;
    if (s->name[0] == '\0') {
        jsonf_error(s->doc, cJSON_GetObjectItemCaseSensitive(jsonf_root(s->doc), "name"),
                    "name", err, "must not be empty");
        goto fail;
    }
    s->fixed = fixed.node;
    if (read_axes(s, &root, "grid", 0, err) < 0 || read_axes(s, &root, "zip", 1, err) < 0)
        goto fail;
    if (s->naxes == 0) {
        jsonf_error(s->doc, jsonf_root(s->doc), "grid", err, "a sweep needs at least one axis "
                    "in \"grid\" or \"zip\"");
        goto fail;
    }
    /* the base experiment: a file next to the sweep (or as path_resolve finds it), else the
     * name of a shipped experiment */
    char dir[PATH_MAX_LEN];
    path_dirname(dir, sizeof dir, s->path);
    if (path_resolve(s->base, sizeof s->base, dir, base) < 0)
        snprintf(s->base, sizeof s->base, "%s", base);
    long long np = s->zip_len ? s->zip_len : 1;
    for (int a = 0; a < s->ngrid && np <= MAX_POINTS; a++)
        np *= s->axes[a].n;
    if (np > MAX_POINTS) {
        jsonf_error(s->doc, jsonf_root(s->doc), "grid", err, "more than %d points", MAX_POINTS);
        goto fail;
    }
    s->points = calloc((size_t)np, sizeof *s->points);
    if (s->points == NULL) {
        err_run(err, "out of memory");
        goto fail;
    }
    for (s->npoints = 0; s->npoints < np; s->npoints++)
        if (load_point(s, s->npoints, sets, nsets, err) < 0) {
            s->npoints++;       /* free what the failed point allocated */
            goto fail;
        }
    if (check_axes(s, err) < 0 || make_tasks(s, err) < 0)
        goto fail;
    *out = s;
    return 0;
fail:
    sweep_free(s);
    return -1;
}

void sweep_free(sweep *s)
{
    if (s == NULL)
        return;
    for (int p = 0; p < s->npoints; p++) {
        experiment_free(s->points[p].e);
        for (int a = 0; a < s->naxes && s->points[p].texts; a++)
            free(s->points[p].texts[a]);
        free(s->points[p].texts);
        free(s->points[p].params);
    }
    for (size_t i = 0; i < s->ntasks; i++)
        free(s->tasks[i].config);
    free(s->tasks);
    free(s->points);
    jsonf_destroy(s->doc);
    free(s);
}

void sweep_task_label(const sweep *s, const struct sweep_task *t, char *out, size_t cap)
{
    const struct point *pt = &s->points[t->point];
    size_t n = 0;
    int policy_swept = 0;
    out[0] = '\0';
    for (int a = 0; a < s->naxes && n < cap; a++) {
        const char *v = pt->texts[a];
        size_t len = strlen(v);
        int quoted = len >= 2 && v[0] == '"' && v[len - 1] == '"';
        if (strcmp(s->axes[a].key, "policy") == 0) {
            policy_swept = 1;
            /* an object with parameters: show its label, as runs.policy does */
            v = pt->e->policies[t->policy].label;
            len = strlen(v);
            quoted = 0;
        }
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%.*s", n ? " " : "", s->axes[a].key,
                              (int)(quoted ? len - 2 : len), quoted ? v + 1 : v);
    }
    if (!policy_swept && n < cap)
        snprintf(out + n, cap - n, "%spolicy=%s", n ? " " : "",
                 pt->e->policies[t->policy].label);
}

int sweep_mark_done(sweep *s, const char *db_path, size_t *ndone, struct errbuf *err)
{
    *ndone = 0;
    if (access(db_path, F_OK) != 0)
        return 0;
    sqlite3 *h = NULL;
    sqlite3_stmt *q = NULL;
    int rc = 0;
    if (db_open_reader(&h, db_path) != SQLITE_OK) {
        rc = err_run(err, "%s: cannot open database: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    sqlite3_busy_timeout(h, 60000);
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM runs WHERE config_hash = ?1 AND config_json = ?2",
                           -1, &q, NULL) != SQLITE_OK) {
        /* an empty file (no tables yet) holds no runs; anything else is an error */
        if (strstr(sqlite3_errmsg(h), "no such table") == NULL)
            rc = err_run(err, "%s: %s", db_path, sqlite3_errmsg(h));
        goto out;
    }
    for (size_t i = 0; i < s->ntasks; i++) {
        struct sweep_task *t = &s->tasks[i];
        sqlite3_bind_text(q, 1, t->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, t->config, -1, SQLITE_STATIC);
        int st = sqlite3_step(q);
        sqlite3_reset(q);
        if (st != SQLITE_ROW && st != SQLITE_DONE) {
            rc = err_run(err, "%s: %s", db_path, sqlite3_errmsg(h));
            goto out;
        }
        if (st == SQLITE_ROW && !t->done) {
            t->done = 1;
            (*ndone)++;
        }
    }
out:
    sqlite3_finalize(q);
    sqlite3_close(h);
    return rc;
}
