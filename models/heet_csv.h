/*
 * heet_csv: a reader of Heet's published profiles (github.com/mozizhao/elastic, no licence
 * stated: hetsim reads the table from where the user keeps it,
 * ../shared/traces/heet/elastic_profiles.csv on the development machine).
 *
 * Input: Heet's CSV, gpu_type,model,batch_size,workers,epoch_time_s,batch_time_s, one row
 * per (GPU type, model in vgg19 / resnet152 / densenet121, global batch, 1-4 workers on one
 * host); the job type of a row is "<Model> CIFAR-10 (batch size B)" of jobtypes.json.  Two
 * users: the throughput model reads the table as measured rates (models/tput.c) and
 * models/heet_fit.c fits a step-time model to it.
 *
 * Ownership: heet_csv_read allocates the points (caller frees).
 */
#ifndef HETSIM_HEET_CSV_H
#define HETSIM_HEET_CSV_H

#include <stddef.h>

#include "catalog.h"
#include "../sim/base/err.h"

enum { HEET_CSV_NMODELS = 3 };

/* The model column's names and the job-type names they stand for. */
extern const char *const heet_csv_models[HEET_CSV_NMODELS];  /* vgg19, resnet152, densenet121 */
void heet_csv_jobtype(int model, int batch, char *buf, size_t cap);

struct heet_point {
    int    gpu, model, batch, workers;
    long   line;                /* in the CSV */
    double batch_s;             /* measured seconds per global step */
};

/* Read Heet's CSV: every row checked (file, line, field) before *out is set.  O(rows^2):
 * each row is compared with the earlier ones for a repeated (GPU, model, batch, workers). */
int heet_csv_read(const catalog *cat, const char *path, struct heet_point **out, int *n,
                  struct errbuf *err);

#endif
