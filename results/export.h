/*
 * export: one table of the metrics database as CSV or TSV, for pandas, R and spreadsheets.
 *
 * A header row of column names, then one line per row: reals at full precision (%.17g, so
 * they read back to the same double), NULL as an empty field, an empty string as "", fields
 * holding the separator, a quote or a line break quoted as RFC 4180 says (TSV uses the same
 * rules with a tab).  Rows are streamed from SQLite, never held in memory.  With a run filter
 * (experiment, sweep, where: see report_select) only the rows of the selected runs are
 * written, run by run in id order.  run_params' value (JSON text in the database) is written
 * as a program wants it: a JSON string without its quotes (fifo), anything else as it is.
 *
 * Wide (metrics only): one row per run instead of one per (run, metric): run_id, the runs
 * columns that say what the run was (export_wide_columns), then one column per metric name,
 * sorted, the union over the runs written; a run without that metric has an empty field.
 *
 * Ownership: the database is opened read-only and closed before export_table returns.  With
 * out_path the file is created (and removed again if the export fails); else rows go to `out`.
 */
#ifndef HETSIM_EXPORT_H
#define HETSIM_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/base/err.h"

enum export_format { EXPORT_CSV, EXPORT_TSV };

/* The runs columns of a wide row after run_id, NULL-terminated (those a file has). */
extern const char *const export_wide_columns[];

struct export_opts {
    const char *table;          /* runs, or one of db_tables (results/db.h) */
    int         format;         /* enum export_format */
    const char *experiment;     /* run filter: NULL for any */
    const char *sweep;
    const char *where;
    const char *out_path;       /* write here instead of to `out`, or NULL */
    int         wide;           /* metrics: one row per run, one column per metric */
};

/* Write the table; *rows (may be NULL) receives the number of data rows written.  An unknown
 * table, wide with a table other than metrics or a bad filter is an input error (code 2);
 * nothing is written then. */
int export_table(const char *db_path, const struct export_opts *o, FILE *out,
                 int64_t *rows /* out */, struct errbuf *err);

#endif
