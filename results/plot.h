/*
 * plot: figures from the metrics database, drawn by gnuplot run as a program.
 *
 * For each experiment in the database, the latest run of each policy gives: the CDF of job
 * completion times, the CDF of finish-time fairness, and GPU utilization over time.  Data
 * files go to OUT/data/, images to OUT/<experiment>_<figure>.<png|svg>.  The gnuplot scripts
 * are templates under results/plots/ (found through the data root) that read their inputs
 * from variables, so they can be edited without touching C.
 *
 * Ownership: nothing is kept; files are written under out_dir.
 */
#ifndef HETSIM_PLOT_H
#define HETSIM_PLOT_H

#include "../sim/errbuf.h"

/* Draw every figure; *nfig receives how many images were written. */
int plot_all(const char *db_path, const char *out_dir, const char *format, int *nfig,
             struct errbuf *err);

#endif
