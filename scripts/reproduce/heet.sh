#!/bin/sh
# Heet (ASPLOS 2024), the headline comparison: average JCT of Heet (completed scaling-
# efficiency tensor, slot matching, GPU trading) against fixed-size SRSF and AFS on 120 GPUs
# of T4 / A10 / V100 with 600 Philly-derived elastic jobs (1 to 4 GPUs each, 30 s per
# restart), at four arrival densities and five seeds (workloads/sweeps/heet_load.json:
# 3 policies x 4 loads x 5 seeds = 60 runs of well under a second each).  Writes
# results/out/heet/: the database, heet_load_{jct_mean,jct_p50,makespan}_vs_workload.
# arrival_scale.png, report.md, report.csv and report_<baseline>.csv; prints each claim at
# every load, checked against scripts/reproduce/bands/heet.csv.  Sia's claim (30-93% lower
# JCT than its baselines on 44-64 GPU, 3-type clusters) is printed with the note that the
# sia policy is not in hetsim yet.  See scripts/reproduce/common.sh for JOBS, OUT, QUICK and
# BANDS.
. "$(dirname "$0")/common.sh"

repro_run heet heet_load workload.arrival_scale jct_mean,jct_p50,makespan
repro_reports jct_mean,jct_p50,jct_p99,jct_mean_steady,queue_delay_mean,makespan,ftf_mean,util_total \
    afs srsf

claims_header "Heet (ASPLOS 2024): the paper's claims (ratios Heet / baseline) beside this reproduction"
claim "JCT vs AFS (paper: up to 1/2.46=0.41)" heet afs jct_mean
claim "  ... vs SRSF" heet srsf jct_mean
claim "steady-state JCT vs AFS" heet afs jct_mean_steady
claim "  ... vs SRSF" heet srsf jct_mean_steady
claim "median JCT vs AFS" heet afs jct_p50
claim "makespan vs AFS" heet afs makespan
echo "  Sia (SOSP 2023): 30-93% lower average JCT than its baselines on 44-64 GPU, 3-type"
echo "  clusters: not reproduced here (the sia policy and sia_3types are not in hetsim yet)"
claims_end
