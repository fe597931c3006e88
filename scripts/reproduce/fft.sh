#!/bin/sh
# FFT (ICS 2025), the headline comparison: average JCT and finish-time fairness of FFT against
# Gavel (max-min fairness and finish-time fairness, both heterogeneity-aware) and Tiresias on
# a 128-GPU T4 / V100 / A10 cluster with 600 Philly-derived jobs, at four arrival densities
# and five seeds (workloads/sweeps/fft_load.json: 4 policies x 4 loads x 5 seeds = 80 runs;
# an FFT run takes 25-50 s).  Writes results/out/fft/: the database,
# fft_load_{jct_mean,jct_mean_steady,ftf_mean,ftf_max}_vs_workload-arrival_scale.png,
# report.md, report.csv and one report_<baseline>.csv per baseline; prints each claim at every
# load, checked against scripts/reproduce/bands/fft.csv.  See scripts/reproduce/common.sh for
# JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

repro_run fft fft_load workload.arrival_scale jct_mean,jct_mean_steady,ftf_mean,ftf_max
repro_reports jct_mean,jct_p50,jct_mean_steady,ftf_mean,ftf_max,queue_delay_mean,makespan,throughput_norm_window \
    gavel_las_perf gavel_ftf tiresias

claims_header "FFT (ICS 2025): the paper's claims (ratios FFT / baseline) beside this reproduction"
claim "JCT vs Gavel max-min (paper: up to 1/5.2=0.19)" fft gavel_las_perf jct_mean
claim "  ... vs Gavel FTF" fft gavel_ftf jct_mean
claim "  ... vs Tiresias" fft tiresias jct_mean
claim "steady-state JCT vs Gavel max-min" fft gavel_las_perf jct_mean_steady
claim "median JCT vs Gavel max-min" fft gavel_las_perf jct_p50
claim "mean FTF vs Gavel max-min (paper: 1/2.19=0.46)" fft gavel_las_perf ftf_mean
claim "  ... vs Gavel FTF" fft gavel_ftf ftf_mean
claim "max FTF vs Gavel max-min (paper: 1/1.99=0.50)" fft gavel_las_perf ftf_max
claim "  ... vs Gavel FTF" fft gavel_ftf ftf_max
claims_ledger
claims_end
