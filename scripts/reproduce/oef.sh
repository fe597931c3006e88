#!/bin/sh
# OEF (Middleware 2024), the headline comparison: total normalized throughput, JCT and
# finish-time fairness of OEF in its cooperative and non-cooperative settings against Gavel's
# max-min fairness (heterogeneity-aware, and agnostic), four tenants whose models gain very
# differently from faster GPUs on a 48-GPU K80 / P100 / V100 cluster, at three arrival rates
# and five seeds (workloads/sweeps/oef_load.json: 60 runs of about a second).  Writes
# results/out/oef/: the database, oef_load_{throughput_norm,jct_mean,ftf_mean}_vs_workload.
# rate_per_hour.png, report.md and report.csv; prints the paper's claims beside what this
# reproduction measures.  See scripts/reproduce/common.sh for JOBS, OUT, QUICK.
. "$(dirname "$0")/common.sh"

repro_run oef oef_load throughput_norm,jct_mean,ftf_mean gavel_las_perf

axis=workload.rate_per_hour
echo
echo "OEF (Middleware 2024): claims beside this reproduction (ratios: OEF / Gavel, paired over"
echo "5 seeds; best arrival rate)"
claim "up to 32% higher total throughput (1.32x) than" \
      "$(extreme oef_coop throughput_norm/gavel_las_perf max $axis)"
claim "  heterogeneity-aware Gavel (non-cooperative OEF)" \
      "$(extreme oef_noncoop throughput_norm/gavel_las_perf max $axis)"
claim "17-19% lower JCT (0.81-0.83x) than Gavel" \
      "$(extreme oef_coop jct_mean/gavel_las_perf min $axis)"
claim "  (non-cooperative OEF)" "$(extreme oef_noncoop jct_mean/gavel_las_perf min $axis)"
