#!/bin/sh
# OEF (Middleware 2024), the headline comparison: total normalized throughput, JCT and
# finish-time fairness of OEF in its cooperative and non-cooperative settings against Gavel's
# max-min fairness (heterogeneity-aware, and agnostic), four tenants whose models gain very
# differently from faster GPUs on a 48-GPU K80 / P100 / V100 cluster, at three arrival rates
# and five seeds (workloads/sweeps/oef_load.json: 60 runs of about a second).  Throughput is
# measured while jobs keep arriving (throughput_norm_window: the mean, from the first arrival
# to the last, of the jobs' summed speed over their fastest type's).  Writes results/out/oef/:
# the database, oef_load_{throughput_norm_window,jct_mean,ftf_mean}_vs_workload-
# rate_per_hour.png, report.md, report.csv and report_<baseline>.csv; prints each claim at
# every load, checked against scripts/reproduce/bands/oef.csv.  See
# scripts/reproduce/common.sh for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

repro_run oef oef_load workload.rate_per_hour throughput_norm_window,jct_mean,ftf_mean
repro_reports throughput_norm_window,jct_mean,jct_p50,jct_mean_steady,ftf_mean,ftf_max,util_total_window,makespan \
    gavel_las_perf gavel_las oef_coop

claims_header "OEF (Middleware 2024): the paper's claims (ratios OEF / Gavel) beside this reproduction"
claim "throughput vs Gavel max-min (paper: up to 1.32)" oef_coop gavel_las_perf throughput_norm_window
claim "  ... non-cooperative OEF (not the paper's rule)" oef_noncoop gavel_las_perf throughput_norm_window
claim "  ... vs heterogeneity-agnostic Gavel" oef_coop gavel_las throughput_norm_window
claim "JCT vs Gavel max-min (paper: 0.81-0.83)" oef_coop gavel_las_perf jct_mean
claim "  ... non-cooperative OEF" oef_noncoop gavel_las_perf jct_mean
claim "steady-state JCT vs Gavel max-min" oef_coop gavel_las_perf jct_mean_steady
claim "mean FTF vs Gavel max-min" oef_coop gavel_las_perf ftf_mean
claims_ledger
claims_end
