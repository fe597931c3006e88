/*
 * html: one self-contained static page for a sweep, an experiment or a whole database — what
 * an artifact evaluator attaches to a review.  It holds the run table (hetsim report), the
 * ratio table against a baseline (paired by seed, grouped over seeds when there are several),
 * every figure hetsim plot draws for the runs, inline as SVG (gnuplot's svg terminal), the
 * settings that differ between the runs with their values, each run's config hash, group
 * hash and the hetsim version that wrote it, and the version that wrote the page.  No
 * network, no script: one file opens anywhere, offline.
 *
 * The figures are drawn into a private temporary folder, read into the page, and the folder
 * removed.  Ownership: nothing is kept after html_report returns; the page is written to a
 * temporary file beside out_path and renamed over it, so a failed report leaves no page.
 */
#ifndef HETSIM_HTML_H
#define HETSIM_HTML_H

#include "../sim/base/display.h"
#include "../sim/base/err.h"

struct html_opts {
    const char *db_path, *out_path;
    const char *experiment;     /* only this experiment's runs (NULL: any) */
    const char *sweep;          /* only this sweep's runs (NULL: any) */
    const char *baseline;       /* the ratios' policy; NULL: fifo when the runs have it, else
                                   the policy of the first run */
    display_fn  display_of;     /* each domain's columns and figures (the CLI: its worlds') */
    char     *(*plain_config)(const char *experiment);     /* as plot_opts' */
};

struct html_stats {
    int runs, figures;
};

/* Write the page.  No run selected, a bad name or a missing database are input errors
 * (code 2); gnuplot's failures and an unwritable file are run errors (1). */
int html_report(const struct html_opts *o, struct html_stats *st /* out */, struct errbuf *err);

#endif
