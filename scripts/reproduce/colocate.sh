#!/bin/sh
# Lyra (EuroSys 2023), capacity loaning between inference and training, as issue 25 states its
# claims: against separate inference and training clusters, 1.53x lower mean queueing time and
# 1.48x lower mean JCT of training jobs, cluster usage up by as much as 25%, what reclaiming
# costs in preemptions and SLO misses.  colocate_day (workloads/experiments/colocate_day.json):
# Llama-2-70B served by HexGen on two 8 x A100-80GB and one 8 x H100 servers with a 2 s TTFT
# objective, on a day's sine of requests; FIFO training over Philly-fitted jobs on 4 x 4 V100
# and 4 x 4 T4; the broker every 5 minutes.  The static partition, Lyra's loaning and loaning
# by GPU type at three serving loads (2, 4 and 8 requests a second on average) and five
# seeds (workloads/sweeps/colocate_day.json: 45 runs of 2-11 CPU s).  Writes
# results/out/colocate/ (OUT=DIR: there): colocate.db, the figures, report.md, report.csv and
# report_<baseline>.csv; prints each claim at every load, checked against
# scripts/reproduce/bands/colocate.csv, then the ledger scripts/reproduce/claims/colocate.csv.
# QUICK=1 cuts the day to two hours (1,000 requests, 40 jobs).  See scripts/reproduce/common.sh
# for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

quick_sets="--set sim.until_s=7200 --set tenants.serving.workload.requests=1000 --set tenants.training.workload.jobs=40"
cols=training_jct_mean,training_queue_delay_mean,training_jobs_done,serving_ttft_p99,serving_slo_attainment,util_total,serving_util_total,training_gpu_hours,gpu_hours_loaned,loans,reclaims,reclaim_preemptions

repro_run colocate colocate_day tenants.serving.workload.rate_per_s training_jct_mean,training_queue_delay_mean,serving_ttft_p99
repro_reports "$cols" static loan

claims_header "Lyra (EuroSys 2023): the paper's claims (ratios policy / static) beside this reproduction"
claim "training queueing time vs static (paper: 1/1.53=0.65)" loan static training_queue_delay_mean
claim "training JCT vs static (paper: 1/1.48=0.68)" loan static training_jct_mean
claim "training jobs done in the day vs static" loan static training_jobs_done
claim "serving P99 TTFT vs static (the cost)" loan static serving_ttft_p99
claim "serving SLO attainment vs static" loan static serving_slo_attainment
claim "training GPU-hours vs static (paper: usage 1.25)" loan static training_gpu_hours
claim "serving's busy GPU-seconds vs static" loan static serving_util_total
claim_value "cluster util_total (busy GPU-s): static" static util_total
claim_value "  ... loan" loan util_total
claim_value "GPU-hours lent to training (of serving's 576)" loan gpu_hours_loaned
claim_value "reclaims" loan reclaims
claim_value "training jobs preempted by reclaims" loan reclaim_preemptions
claim "hetero_loan: training queueing time vs loan" hetero_loan loan training_queue_delay_mean
claim "  ... training JCT vs loan" hetero_loan loan training_jct_mean
claim "  ... serving P99 TTFT vs loan" hetero_loan loan serving_ttft_p99
claims_ledger
claims_end
