/*
 * plot: figures from the metrics database, drawn by gnuplot run as a program.
 *
 * Per experiment (runs a sweep did not change: see plot.c) and per setting (runs whose
 * configs differ only in seed and policy): JCT and finish-time fairness CDFs, GPU
 * utilization over time by GPU type, queue length over time, and summary bars of each
 * policy's metrics relative to a baseline policy.  Per sweep (run_params): a metric
 * against each swept axis other than seed, one line per policy (and combination of the other
 * axes), mean over seeds with 95% confidence intervals.
 *
 * Data files go to OUT/data/, images to OUT/<experiment or sweep>_<figure>.<png|svg|pdf> (an
 * experiment's settings other than the plain one: <experiment>_<8 hex digits>_<figure>), and
 * beside each its caption, <figure>.txt (what it shows, its runs, the settings that differ,
 * its data files).  A file name has one dot.  Metrics are shown by their display names and
 * units (report_metric_info), the domain's rows by its noun (display.entity).  The gnuplot
 * scripts are templates under results/plots/ (found through the data root) that read their
 * inputs from variables set with -e, so they can be edited without touching C.
 *
 * Ownership: the caller owns everything in plot_opts; nothing is kept after plot_all returns.
 */
#ifndef HETSIM_PLOT_H
#define HETSIM_PLOT_H

#include "../sim/base/display.h"
#include "../sim/base/err.h"

struct plot_opts {
    const char *db_path, *out_dir;
    const char *format;                 /* "png", "svg" or "pdf" */
    const char *baseline;               /* NULL: fifo if the experiment ran it, else its first */
    const char *const *metrics;         /* --metric values, each a name or a comma list */
    int         nmetrics;               /* 0: jct_mean for sweeps, the key set for the bars */
    const char *const *experiments;     /* restrict to these experiments ... */
    int         nexperiments;
    const char *const *sweeps;          /* ... and/or these sweeps (none of both: everything) */
    int         nsweeps;
    /* The config_json an experiment's runs have without --set (NULL: unknown), malloc'd and
     * freed by plot: its setting keeps the experiment's plain file names.  NULL function, or
     * no run with that config: the setting of the experiment's first run keeps them. */
    char     *(*plain_config)(const char *experiment);
    /* Each domain's figures (its CDFs, series, bars and sweep metrics): the CLI gives its
     * worlds'; an experiment of a domain it does not describe cannot be drawn. */
    display_fn  display_of;
    int         log;                    /* PLOT_LOG_X | PLOT_LOG_Y: log axes on the sweeps'
                                           figures even where values do not span decades
                                           (where they do, the axis is log anyway) */
};

enum { PLOT_LOG_X = 1, PLOT_LOG_Y = 2 };

/* Draw every selected figure; *nfig receives how many images were written.  Bad options, a
 * database without runs and names that match nothing are input errors (err->code 2); a
 * failing gnuplot or an unwritable directory are run errors (1). */
int plot_all(const struct plot_opts *o, int *nfig /* out */, struct errbuf *err);

#endif
