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
# Then Lyra's two halves on colocate_elastic (every training job elastic): static and loan
# with training under fifo or lyra, and loan lending every spare server with lyra
# (workloads/sweeps/colocate_elastic.json, 75 runs), its
# reports in results/out/colocate/elastic/, its ledger claims/colocate_elastic.csv.
# QUICK=1 cuts the day to two hours (1,000 requests, 40 jobs).  See scripts/reproduce/common.sh
# for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

quick_sets="--set sim.until_s=7200 --set tenants.serving.workload.requests=1000 --set tenants.training.workload.jobs=40"
cols=training_jct_mean,training_queue_delay_mean,training_jobs_done,serving_ttft_p99,serving_slo_attainment,util_total,serving_util_total,training_gpu_hours,gpu_hours_loaned,loans,reclaims,reclaim_preemptions

# both sweeps first (with BANDS=write each clears the `full`/`quick` bands), then the claims
repro_run colocate colocate_elastic tenants.serving.workload.rate_per_s training_jct_mean
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

# ---- Lyra's two halves: colocate_elastic (every training job elastic), the broker (static,
# loan) crossed with training's policy (fifo, lyra), the combinations labelled policies; its
# reports in $out/elastic, its bands under the mode <mode>_elastic, its ledger
# claims/colocate_elastic.csv (derm.sh's way of several sweeps in one database)
root=$out base_mode=$mode sweep=colocate_elastic
out=$root/elastic mode=${base_mode}_elastic
ledger=scripts/reproduce/claims/colocate_elastic.csv
mkdir -p "$out"
repro_reports training_jct_mean,training_queue_delay_mean,training_jobs_done,serving_ttft_p99,gpu_hours_loaned,loans \
    static loan > /dev/null
if [ "${BANDS:-}" = write ]; then
    bands_clear "$mode"
fi
claims_section "Lyra's two halves (colocate_elastic: every training job elastic on 1 to max(8, workers) GPUs)"
claim "training JCT, loan+lyra vs static (fifo)" loan+lyra static training_jct_mean
claim "  ... loan (fifo) vs static" loan static training_jct_mean
claim "  ... static+lyra vs static" static+lyra static training_jct_mean
claim "  ... loan+lyra vs loan (fifo)" loan+lyra loan training_jct_mean
claim "  ... loan_spare+lyra vs static" loan_spare+lyra static training_jct_mean
claim "  ... loan_spare+lyra vs loan (fifo)" loan_spare+lyra loan training_jct_mean
claim "serving P99 TTFT, loan+lyra vs loan" loan+lyra loan serving_ttft_p99
claim "  ... loan_spare+lyra vs loan" loan_spare+lyra loan serving_ttft_p99
claim_value "GPU-hours lent: loan (fifo)" loan gpu_hours_loaned
claim_value "  ... loan+lyra" loan+lyra gpu_hours_loaned
claim_value "  ... loan_spare+lyra" loan_spare+lyra gpu_hours_loaned
mode=$base_mode
claims_ledger
claims_end
