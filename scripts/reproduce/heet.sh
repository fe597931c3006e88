#!/bin/sh
# Heet (ASPLOS 2024) and Sia (SOSP 2023), the elastic schedulers' headline comparisons.
# 1. heet_load: average JCT of Heet (completed scaling-efficiency tensor, slot matching, GPU
#    trading) against Sia, AFS and fixed-size SRSF on 120 GPUs of T4 / A10 / V100 with 600
#    Philly-derived elastic jobs (1 to 4 GPUs each, 30 s per restart), four arrival densities,
#    five seeds (workloads/sweeps/heet_load.json: 80 runs; a Sia run takes about 6 CPU s, the
#    others under 1 s).
# 2. sia_load: Sia against Heet, AFS and SRSF at Sia's cluster scale, 64 GPUs of three types
#    and 160 jobs (workloads/sweeps/sia_load.json: 80 runs of about a second).
# Writes results/out/heet/ and results/out/sia/ (OUT=DIR: both there): the databases
# heet.db and sia.db, {heet,sia}_load_{jct_mean,...}_vs_workload-arrival_scale.png, report.md,
# report.csv and report_<baseline>.csv; prints each claim at every load, checked against
# scripts/reproduce/bands/heet.csv and bands/sia.csv.  See scripts/reproduce/common.sh for
# JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

repro_run heet heet_load workload.arrival_scale jct_mean,jct_p50,makespan
repro_reports jct_mean,jct_p50,jct_p99,jct_mean_steady,queue_delay_mean,makespan,ftf_mean,util_total \
    afs srsf sia

claims_header "Heet (ASPLOS 2024): the paper's claims (ratios Heet / baseline) beside this reproduction"
claim "JCT vs AFS (paper: up to 1/2.46=0.41)" heet afs jct_mean
claim "  ... vs SRSF" heet srsf jct_mean
claim "  ... vs Sia" heet sia jct_mean
claim "steady-state JCT vs AFS" heet afs jct_mean_steady
claim "  ... vs SRSF" heet srsf jct_mean_steady
claim "median JCT vs AFS" heet afs jct_p50
claim "makespan vs AFS" heet afs makespan
claim "Sia's JCT vs AFS on this cluster" sia afs jct_mean
claim "  ... vs SRSF" sia srsf jct_mean
claims_ledger

repro_run sia sia_load workload.arrival_scale jct_mean,jct_p50
repro_reports jct_mean,jct_p50,jct_p99,queue_delay_mean,makespan,ftf_mean,util_total \
    afs srsf heet

claims_header "Sia (SOSP 2023): the paper's claims (ratios Sia / baseline) beside this reproduction"
claim "JCT vs AFS (paper: 0.07-0.70 vs its baselines)" sia afs jct_mean
claim "  ... vs SRSF" sia srsf jct_mean
claim "  ... vs Heet" sia heet jct_mean
claim "median JCT vs AFS" sia afs jct_p50
claims_ledger
claims_end
