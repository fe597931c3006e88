/*
 * fuzz_sweep: a sweep file through sweep_load (sim/batch/sweep.h), which reads its axes,
 * loads every point's experiment and opens what a run of each would open, then makes one task
 * a policy of a point — what `hetsim sweep` does before it runs anything.
 *
 * Input: SWEEP JSON \0 BASE EXPERIMENT JSON.  Both are written to the scratch directory, as
 * sweep.json and base.json, so a sweep naming "base.json" reads the second part (seeds do; a
 * shipped experiment's name reads that one).  A sweep of more than MAX_POINTS points (counted
 * from the JSON first: the grid axes' lengths times the zip's) is not loaded: every point is
 * an experiment loaded and opened, and a short grid of long axes is millions of them.
 *
 * A rejected sweep must leave a message.  A loaded one must have the points the JSON counts,
 * each point's experiment, one task per policy of each point in order, each task's hash the
 * FNV-1a of its config (db_hash_hex) as 16 hex digits, a label, and the point's swept
 * parameters (one per axis, keys and values not empty).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../sim/batch/sweep.h"
#include "fuzzutil.h"

enum { MAX_POINTS = 16 };

/* The points the sweep's JSON asks for (grid lengths times the zip's first length), or -1
 * when the file is refused before its points are loaded (not JSON, an axis not a list): then
 * it is loaded whatever its size.  Parsed as jsonf_parse does (byte-order marks skipped, what
 * follows the value left to its check), so that nothing it reads escapes the count. */
static long long count_points(const char *text)
{
    while (strncmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3;
    cJSON *doc = cJSON_ParseWithOpts(text, NULL, 0);
    long long n = 1;
    const char *const parts[] = { "grid", "zip" };
    for (int k = 0; k < 2 && doc != NULL && n >= 0; k++) {
        const cJSON *axes = cJSON_GetObjectItemCaseSensitive(doc, parts[k]), *a;
        if (!cJSON_IsObject(axes))
            continue;
        cJSON_ArrayForEach(a, axes)
        {
            if (!cJSON_IsArray(a)) {
                n = -1;
                break;
            }
            n *= cJSON_GetArraySize(a);
            if (k == 1 || n > MAX_POINTS)
                break;              /* the zip's axes run together: its first gives its length */
        }
    }
    cJSON_Delete(doc);
    return doc == NULL ? -1 : n;
}

static int is_hex16(const char *h)
{
    for (int i = 0; i < 16; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return 0;
    return h[16] == '\0';
}

static void check(sweep *s, long long want)
{
    int np = sweep_npoints(s);
    if (want >= 0 && np != want)
        fz_fail("%d points, the JSON counts %lld", np, want);
    if (np < 1 || sweep_name(s)[0] == '\0' || sweep_nseeds(s) < 1)
        fz_fail("%d points, name '%s', %d seeds", np, sweep_name(s), sweep_nseeds(s));
    size_t t = 0;
    for (int p = 0; p < np; p++) {
        const struct experiment *e = sweep_experiment(s, p);
        if (e == NULL || e->npolicies < 1)
            fz_fail("point %d: no experiment or no policy", p);
        const struct db_param *par;
        int n = sweep_params(s, p, &par);
        if (n < 1)
            fz_fail("point %d: %d swept parameters", p, n);
        for (int i = 0; i < n; i++)
            if (par[i].key == NULL || par[i].key[0] == '\0' || par[i].value_json == NULL ||
                par[i].value_json[0] == '\0')
                fz_fail("point %d: parameter %d empty", p, i);
        for (int i = 0; i < e->npolicies; i++, t++) {
            if (t >= sweep_ntasks(s))
                fz_fail("%zu tasks, point %d policy %d has none", sweep_ntasks(s), p, i);
            struct sweep_task *k = sweep_task(s, t);
            char hash[17], label[512];
            if (k->point != p || k->policy != i || k->config == NULL || k->done)
                fz_fail("task %zu: point %d policy %d done %d", t, k->point, k->policy, k->done);
            db_hash_hex(k->config, hash);
            if (!is_hex16(k->hash) || strcmp(hash, k->hash) != 0)
                fz_fail("task %zu: hash '%s', its config hashes to %s", t, k->hash, hash);
            sweep_task_label(s, k, label, sizeof label);
            if (label[0] == '\0')
                fz_fail("task %zu: an empty label", t);
        }
    }
    if (t != sweep_ntasks(s))
        fz_fail("%zu tasks for %zu policies of the points", sweep_ntasks(s), t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t slen, blen;
    const uint8_t *sw = fz_cut(&data, &size, 0, &slen);
    const uint8_t *base = fz_cut(&data, &size, 0, &blen);
    char *text = fz_cstr(sw, slen);
    long long want = count_points(text);
    free(text);
    if (want > MAX_POINTS)
        return 0;
    char spath[4096], bpath[4096];
    fz_write(bpath, sizeof bpath, "base.json", base, blen);
    fz_write(spath, sizeof spath, "sweep.json", sw, slen);
    struct errbuf err;
    err_clear(&err);
    sweep *s = NULL;
    int rc = sweep_load(&s, spath, NULL, 0, &err);
    fz_check_err(rc, &err, "sweep_load");
    if (rc == 0)
        check(s, want);
    else if (s != NULL)
        fz_fail("sweep_load failed but returned a sweep");
    sweep_free(s);
    return 0;
}
