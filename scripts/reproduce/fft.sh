#!/bin/sh
# FFT (ICS 2025), the headline comparison: average JCT and finish-time fairness of FFT against
# Gavel (max-min fairness and finish-time fairness, both heterogeneity-aware) and Tiresias on
# a 128-GPU T4 / V100 / A10 cluster with 600 Philly-derived jobs, as arrivals get denser
# (workloads/sweeps/fft_load.json: 4 policies x 4 loads = 16 runs; the FFT runs take about a
# minute each).  Writes results/out/fft/: the database, fft_load_{jct_mean,ftf_mean,ftf_max}_
# vs_workload.arrival_scale.png, report.md and report.csv; prints the paper's claims beside
# what this reproduction measures.  See scripts/reproduce/common.sh for JOBS, OUT, QUICK.
. "$(dirname "$0")/common.sh"

repro_run fft fft_load jct_mean,ftf_mean,ftf_max fft

axis=workload.arrival_scale
echo
echo "FFT (ICS 2025): claims beside this reproduction (ratios: baseline / FFT, paired; best load)"
claim "up to 5.2x lower average JCT than Gavel (max-min)" \
      "$(extreme gavel_las_perf jct_mean/fft max $axis)"
claim "  ... than Gavel (finish-time fairness)" "$(extreme gavel_ftf jct_mean/fft max $axis)"
claim "  ... than Tiresias" "$(extreme tiresias jct_mean/fft max $axis)"
claim "2.19x better mean finish-time fairness than Gavel" \
      "$(extreme gavel_las_perf ftf_mean/fft max $axis)"
claim "1.99x better max finish-time fairness than Gavel" \
      "$(extreme gavel_las_perf ftf_max/fft max $axis)"
claim "  (vs Gavel's finish-time fairness policy, mean FTF)" \
      "$(extreme gavel_ftf ftf_mean/fft max $axis)"
