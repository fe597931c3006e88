/*
 * report: policy-by-policy comparison tables from the metrics database.
 *
 * One row per run: its key metrics, and with a baseline policy, each metric's ratio to the
 * baseline's run of the same experiment and seed (this run / baseline: below 1 is better for
 * times and finish-time fairness).  Formats: an aligned table, CSV, or Markdown.
 *
 * Ownership: everything is read from the database and printed; nothing is kept.
 */
#ifndef HETSIM_REPORT_H
#define HETSIM_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/errbuf.h"

enum report_format { REPORT_TABLE, REPORT_CSV, REPORT_MARKDOWN };

struct report_opts {
    int            format;          /* enum report_format */
    const char    *baseline;        /* policy name or NULL */
    const char    *experiment;      /* only runs of this experiment, or NULL */
    const int64_t *run_ids;         /* only these runs (n_run_ids > 0), or all */
    int            n_run_ids;
};

int report_print(const char *db_path, const struct report_opts *o, FILE *out,
                 struct errbuf *err);

#endif
