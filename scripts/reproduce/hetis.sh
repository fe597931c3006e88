#!/bin/sh
# Hetis (SC 2025), the headline comparison: throughput, mean latency and P95 time to first
# token of Hetis against high-end only, a uniform pipeline, HexGen and Splitwise on the
# paper's testbed (workloads/clusters/hetis_testbed.json: 4 A100-80GB, 4 RTX 3090, 4 P100,
# PCIe inside each machine, 100 Gbps between them), at five request rates and five seeds,
# for Llama-2-70B (workloads/sweeps/hetis_load.json), then Llama-2-13B and OPT-30B
# (hetis_load_13b, hetis_load_opt30b), and Llama-2-70B on the lengths of the Azure
# conversation service, outputs eight times longer (hetis_load_conv); those three are
# skipped with QUICK=1.  Requests: the llm_synthetic
# generator's defaults, fitted to the Azure LLM code trace (lognormal prompt and output
# lengths; gamma arrivals as bursty as the trace's), prompts beyond the model's context cut.
# Throughput is output tokens a second while requests keep arriving (tokens_per_s, from the
# first arrival to the last): at the low rates every policy keeps up and the ratio is 1;
# the differences show once a deployment saturates.  Writes results/out/hetis*/: the
# databases, figures, report.md, report.csv, report_<baseline>.csv; prints each claim at
# every rate, checked against scripts/reproduce/bands/hetis*.csv.  See
# scripts/reproduce/common.sh for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

cols=tokens_per_s,requests_per_s,e2e_mean,ttft_p95,tpot_p50,slo_attainment,kv_used_frac,preemptions

claims() {
    claim "throughput vs Splitwise (paper: up to 2.25)" hetis splitwise tokens_per_s
    claim "  ... vs HexGen (paper: up to 1.33)" hetis hexgen tokens_per_s
    claim "  ... vs high-end only" hetis highend_only tokens_per_s
    claim "mean latency vs Splitwise (paper: down to 1/1.49=0.67)" hetis splitwise e2e_mean
    claim "  ... vs HexGen" hetis hexgen e2e_mean
    claim "  ... vs high-end only" hetis highend_only e2e_mean
    claim "P95 TTFT vs Splitwise (paper: down to 1/1.47=0.68)" hetis splitwise ttft_p95
    claim "  ... vs HexGen" hetis hexgen ttft_p95
    claim "  ... vs high-end only" hetis highend_only ttft_p95
}

# with OUT=DIR the headline goes to DIR and the other models to DIR/hetis_13b, ...
base_out=${OUT:-}
section() {
    paper=$1 sweep=$2 title=$3
    if [ -n "$base_out" ] && [ "$paper" != hetis ]; then
        OUT=$base_out/$paper
    fi
    repro_run "$paper" "$sweep" workload.rate_per_s tokens_per_s,e2e_mean,ttft_p95
    repro_reports "$cols" splitwise hexgen highend_only uniform_pp
    claims_header "$title"
    claims
    claims_ledger
}

# the smoke test's 60 requests arrive as a Poisson stream: gamma bursts would pack them into
# a window too short to measure throughput in
headline=hetis_load
[ "$mode" = quick ] && headline=hetis_load_quick
section hetis "$headline" "Hetis (SC 2025), Llama-2-70B: the paper's claims (ratios Hetis / baseline) beside this reproduction"
if [ "$mode" != quick ]; then
    section hetis_13b hetis_load_13b "Llama-2-13B: the same claims"
    section hetis_opt30b hetis_load_opt30b "OPT-30B: the same claims"
    section hetis_conv hetis_load_conv "Llama-2-70B, conversation lengths (outputs of median 129 tokens): the same claims"
fi
claims_end
