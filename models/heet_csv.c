/*
 * heet_csv: Heet's CSV, checked row by row (heet_csv.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "heet_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/tio.h"

const char *const heet_csv_models[HEET_CSV_NMODELS] = { "vgg19", "resnet152", "densenet121" };
static const char *const model_names[HEET_CSV_NMODELS] = { "VGG-19", "ResNet-152", "DenseNet-121" };

void heet_csv_jobtype(int model, int batch, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s CIFAR-10 (batch size %d)", model_names[model], batch);
}

int heet_csv_read(const catalog *cat, const char *path, struct heet_point **out, int *n,
                  struct errbuf *err)
{
    static const char *const header[] = { "gpu_type", "model", "batch_size", "workers",
                                          "epoch_time_s", "batch_time_s" };
    enum { NF = 6 };
    *out = NULL;
    *n = 0;
    tio *r;
    if (tio_open(&r, path, err) < 0)
        return -1;
    struct heet_point *pt = NULL;
    int np = 0, cap = 0, rc = -1, got, seen_header = 0;
    char *line, *f[NF + 1];
    size_t len;
    while ((got = tio_next(r, &line, &len, err)) > 0) {
        long ln = tio_lineno(r);
        if (tio_skippable(line))
            continue;
        int nf = tio_split(line, ',', f, NF + 1);
        if (!seen_header) {
            if (nf != NF) {
                err_input(err, path, ln, NULL, "header must be: gpu_type,model,batch_size,"
                          "workers,epoch_time_s,batch_time_s");
                goto out;
            }
            for (int k = 0; k < NF; k++)
                if (strcmp(f[k], header[k]) != 0) {
                    err_input(err, path, ln, f[k], "header column %d must be '%s'", k + 1,
                              header[k]);
                    goto out;
                }
            seen_header = 1;
            continue;
        }
        if (nf != NF) {
            err_input(err, path, ln, NULL, "expected %d fields, found %d", NF, nf < 0 ? 0 : nf);
            goto out;
        }
        struct heet_point p = { .line = ln, .model = -1 };
        long long batch, workers;
        double epoch;
        if ((p.gpu = catalog_gpu_find(cat, f[0])) < 0) {
            err_input(err, path, ln, "gpu_type", "unknown GPU type '%s'", f[0]);
            goto out;
        }
        for (int m = 0; m < HEET_CSV_NMODELS; m++)
            if (strcmp(f[1], heet_csv_models[m]) == 0)
                p.model = m;
        if (p.model < 0) {
            err_input(err, path, ln, "model", "'%s' must be vgg19, resnet152 or densenet121",
                      f[1]);
            goto out;
        }
        if (tio_int64(f[2], &batch) < 0 || batch < 1 || batch > 1 << 20) {
            err_input(err, path, ln, "batch_size", "'%s' is not a batch size in [1, 1048576]",
                      f[2]);
            goto out;
        }
        if (tio_int64(f[3], &workers) < 0 || workers < 1 || workers > 4096) {
            err_input(err, path, ln, "workers", "'%s' is not a worker count in [1, 4096]", f[3]);
            goto out;
        }
        /* the epoch time is not used (K80 rows leave it empty), but must be a time if given */
        if (f[4][strspn(f[4], " ")] != '\0' && (tio_double(f[4], &epoch) < 0 || epoch < 0)) {
            err_input(err, path, ln, "epoch_time_s", "'%s' is not empty or a time >= 0", f[4]);
            goto out;
        }
        if (tio_double(f[5], &p.batch_s) < 0 || !(p.batch_s > 0) || p.batch_s > 1e6) {
            err_input(err, path, ln, "batch_time_s", "'%s' is not a time in (0, 1e6] s", f[5]);
            goto out;
        }
        p.batch = (int)batch;
        p.workers = (int)workers;
        for (int k = 0; k < np; k++)
            if (pt[k].gpu == p.gpu && pt[k].model == p.model && pt[k].batch == p.batch &&
                pt[k].workers == p.workers) {
                err_input(err, path, ln, NULL, "%s %s batch %d on %d workers is given twice "
                          "(first on line %ld)", f[0], f[1], p.batch, p.workers, pt[k].line);
                goto out;
            }
        if (np == cap) {
            int nc = cap ? 2 * cap : 128;
            struct heet_point *g = realloc(pt, (size_t)nc * sizeof *g);
            if (g == NULL) {
                err_run(err, "out of memory");
                goto out;
            }
            pt = g;
            cap = nc;
        }
        pt[np++] = p;
    }
    if (got < 0)
        goto out;
    if (!seen_header) {
        err_input(err, path, 0, NULL, "empty file: expected a header line");
        goto out;
    }
    *out = pt;
    *n = np;
    pt = NULL;
    rc = 0;
out:
    free(pt);
    tio_close(r);
    return rc;
}
