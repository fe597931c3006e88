/*
 * report: policy-by-policy comparison tables from the metrics database.
 *
 * One row per run (its metrics and, with a baseline policy, each metric's ratio to the
 * baseline's run of the same experiment, seed and settings), or with `group` one row per group
 * of runs that differ only in their seed: per metric the mean over the seeds and the half-width
 * of its 95% confidence interval (Student t), and ratios to the baseline paired by seed.  The
 * metrics are the defaults of the runs' domains (display_of: a handful, so that a table fits
 * 100 columns), every metric of the runs after them (--all) or the caller's; the last column,
 * `overrides`, names the settings in which a row's config differs from the other rows'
 * (report_config_diff), and is left out for people when no row has one.  Formats: an aligned
 * table (a header of names, then units; the ratios as a second table below the values; notes
 * wrapped to 100 columns), Markdown and HTML (headers with units, from report_metric_info),
 * CSV (bare metric names, RFC 4180 quoting, full precision, every column).
 *
 * Runs are chosen by report_select: an experiment, a sweep, and an SQL boolean expression over
 * the columns of `runs` plus param(KEY) (a swept field or any field of the run's config) and
 * metric(NAME) (a summary figure).
 *
 * Metric names and run configs are read by two helpers that plot and html use too: the
 * display name, unit and better direction of a metric, from one table of names and rules,
 * and what differs between configs.
 *
 * Ownership: the database is opened read-only and closed before report_print returns; nothing
 * is kept.  report_select's id array, report_config_diff's strings are the caller's to free().
 */
#ifndef HETSIM_REPORT_H
#define HETSIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../sim/base/display.h"
#include "../sim/base/err.h"

struct sqlite3;

/* REPORT_HTML: a <table> (headers with units, as the table's) and its notes as paragraphs,
 * for a page to embed (results/html.c). */
enum report_format { REPORT_TABLE, REPORT_CSV, REPORT_MARKDOWN, REPORT_HTML };

struct report_opts {
    int            format;          /* enum report_format */
    const char    *baseline;        /* policy name or NULL */
    const char    *experiment;      /* only runs of this experiment, or NULL */
    const int64_t *run_ids;         /* only these runs (n_run_ids > 0), or all */
    int            n_run_ids;
    display_fn     display_of;      /* each domain's default columns (the CLI: its world's) */
};

/* Which runs and how they collapse, beyond report_opts (kept apart so that callers that list
 * report_opts' fields in order still compile without warnings). */
struct report_query {
    const char    *sweep;           /* only runs of this sweep, its axes as columns; or NULL */
    const char    *where;           /* SQL filter (see report_select), or NULL */
    int            group;           /* one row per group of seeds: n, mean and CI */
    const char *const *columns;     /* metric names or comma lists of them (--columns), */
    int            ncolumns;        /* each in the database; 0: the domains' defaults */
    int            all;             /* with no columns: the defaults, then every other metric
                                       the selected runs have, by name (--all) */
};

int report_print(const char *db_path, const struct report_opts *o, FILE *out,
                 struct errbuf *err);
/* The same with a query (NULL: every run, ungrouped). */
int report_print_query(const char *db_path, const struct report_opts *o,
                       const struct report_query *q, FILE *out, struct errbuf *err);

/* Open a database read-only for reading reports (a message names the path on failure). */
int report_open(struct sqlite3 **h, const char *db_path, struct errbuf *err);

/* The ids, ascending, of the finished runs of `experiment` and `sweep` (NULL: any) for which
 * `where` (NULL: always) is true.  `where` is an SQL expression evaluated on the run's row of
 * `runs`, so it may name its columns (id, experiment, policy, seed, cluster, ...) and call
 * param('KEY') and metric('NAME').  `cluster` is either of the run's two names: the run is
 * kept when the expression holds with the cluster as the experiment named it (runs.cluster)
 * or with the cluster's own name (runs.cluster_name).  A bad expression is an input error
 * quoting it and SQLite's message.  *ids is NULL when *n is 0. */
int report_select(struct sqlite3 *h, const char *experiment, const char *sweep,
                  const char *where, int64_t **ids /* out */, size_t *n /* out */,
                  struct errbuf *err);

/* Add `expr` to a filter being built from several --where options: *where (NULL or from an
 * earlier call; the caller frees it) becomes "(old) AND (expr)", or a copy of expr.  Returns
 * -1 when out of memory, *where then unchanged. */
int report_where_add(char **where, const char *expr);

/* Write s with <, >, & and " as HTML entities. */
void report_html_text(FILE *out, const char *s);

/* What a summary metric is, from one table in report.c (exact names, families such as
 * util_<type>, and suffix rules that give a unit only): the name figures, pages and headers
 * show, its unit, and which way is better.  A trailing _window or _steady keeps the unit and
 * sense of the metric it follows and qualifies its label ("mean JCT, steady state").  A
 * name the table lacks keeps its key whole as its label (known 0), with the unit of a suffix
 * rule (*_s: s, *_frac: fraction, ...) or "". */
struct report_metric {
    char        label[96];      /* "mean JCT", "A100 utilization", or the key */
    const char *unit;           /* "s", "fraction", "ratio", "jobs", "tokens/s", ...; or "" */
    int         higher_better;  /* 1 when a larger value is better (throughput, utilization) */
    int         known;          /* the table names it */
};
void report_metric_info(const char *name, struct report_metric *out /* out */);
/* Its unit alone ("" when no rule knows it), and its sense alone. */
const char *report_metric_unit(const char *name);
int report_metric_higher_better(const char *name);
/* "mean JCT (s)": the label, with the unit in parentheses when there is one. */
void report_metric_title(const char *name, char *out, size_t cap);

/* What differs between n run configs (runs.config_json texts; NULL or text that is not a JSON
 * object counts as {}), leaving out "policies", "seed" and the nexclude dotted paths: the
 * paths at which the configs do not all hold the same value, and for each config its value
 * there, in --set syntax ("cluster=fft_t4_v100_a10 workload.max_jobs=100"; a string that
 * would not read back as itself is JSON-quoted; "(unset)" where a config has none), in the
 * order the paths first appear.  Objects are compared member by member, arrays of one length
 * element by element ("policies.0.x"), other arrays whole.  out[i] ("" when nothing differs)
 * is the caller's to free().  Returns 0, or -1 when out of memory (every out[i] NULL). */
int report_config_diff(const char *const *configs, size_t n, const char *const *exclude,
                       size_t nexclude, char **out /* out: n strings */);

/* The FNV-1a 64 hash (16 hex digits) of a config without "policies", "seed" and the
 * excluded paths, printed compactly: configs that differ only there share it.  Returns 0, or
 * -1 when out of memory. */
int report_config_key(const char *config, const char *const *exclude, size_t nexclude,
                      char out[17]);

#endif
