/*
 * display: what a domain's results look like — the metrics `hetsim report` shows by default,
 * the CDFs, time series and summary bars `hetsim plot` draws for an experiment, and the
 * metrics of a sweep's figures.  Plain data: each world declares its own (world_ops.display,
 * sim/core/world.h) and results/report and results/plot read it, neither of which may include
 * a world.  Every name refers to the per-run tables of results/schema.sql and the metrics a
 * world writes.
 */
#ifndef HETSIM_DISPLAY_H
#define HETSIM_DISPLAY_H

/* A CDF of one column of a per-run table, one curve per policy. */
struct display_cdf {
    const char *tag;            /* the image's name after the experiment's: "jct_cdf" */
    const char *table, *column; /* "jobs", "jct_s": rows of the run where it is not NULL */
    const char *xlabel, *what;  /* the x axis, and the figure's subject in its title */
    int         timex;          /* x is a duration: log axis ticked at 1 min, 1 h, 1 d ... */
    double      mark;           /* a vertical line here (0: none) */
};

struct display {
    const char *entity;                 /* what its rows are, plural: "jobs" */
    const char *const *report_columns;  /* hetsim report's default metrics, NULL-terminated */
    const char *const *bar_metrics;     /* hetsim plot's summary bars */
    const char *const *sweep_metrics;   /* a sweep's figures, when --metric names none */
    const struct display_cdf *cdfs;     /* its CDFs, ncdfs of them */
    int         ncdfs;
    int         util_panels;            /* draw the util_* series, one panel per GPU type */
    const char *queue_series;           /* a series drawn as "waiting over time", or NULL */
    const char *queue_label;            /* its y axis */
    const char *entity_one;             /* one of its rows, in names ("job 17"): "job"
                                           (NULL: "entity") */
    const char *resource_one;           /* what its timeline's resources are: "GPU" */
    const char *timeline_held;          /* hetsim trace's counter of the shares held per
                                           type (NULL: "busy <resource>s") */
};

/* The display of a domain, for results/: supplied by whoever knows the worlds (the CLI). */
typedef const struct display *(*display_fn)(const char *domain);

#endif
