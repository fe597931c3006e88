#!/bin/sh
# IADeep (SC 2023): mean JCT and makespan of IADeep (interference-aware placement + per-GPU
# batch tuning) against kernel-level time slicing (kernel_slice), MPS with even shares,
# AntMan, Gandiva's packing and exclusive GPUs on 20 RTX 3090 with 300 one-GPU jobs of its 8
# models, at 1x-4x its Philly-derived arrival rate and five seeds (workloads/sweeps/
# iadeep_load.json: 6 policies x 4 loads x 5 seeds = 120 runs of about a second); then the
# same with Lucid's measured 3090 pairs instead of IADeep's table (iadeep_lucid_load: IADeep's
# five models that Lucid profiled, Lucid's file read from ../shared/traces/gpu_colocation/,
# non-commercial, never shipped).  The interference table is IADeep's own measurements, read from
# ../shared/traces/iadeep/ (calibration only: never shipped).  The paper reports a significant
# gain in JCT and makespan over MPS, AntMan and kernel-level sharing without one headline
# number, so the lines below are the measured ratios, each checked against the band recorded
# from this model (scripts/reproduce/bands/iadeep.csv), not against a figure of the paper.
# Writes results/out/iadeep/.  See scripts/reproduce/common.sh for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

repro_run iadeep iadeep_load workload.rate_per_hour jct_mean,makespan,util_total
repro_reports jct_mean,jct_p50,jct_p99,makespan,queue_delay_mean,util_total,throughput_norm_window \
    mps_even kernel_slice antman gandiva exclusive

claims_header "IADeep (SC 2023): significant JCT and makespan gains over MPS, AntMan and kernel-level sharing (no number given); measured ratios IADeep / baseline"
claim "mean JCT vs kernel-level time slicing" iadeep kernel_slice jct_mean
claim "mean JCT vs MPS (even shares)" iadeep mps_even jct_mean
claim "  ... vs AntMan" iadeep antman jct_mean
claim "  ... vs Gandiva packing" iadeep gandiva jct_mean
claim "  ... vs exclusive GPUs" iadeep exclusive jct_mean
claim "makespan vs kernel-level time slicing" iadeep kernel_slice makespan
claim "makespan vs MPS (even shares)" iadeep mps_even makespan
claim "  ... vs AntMan" iadeep antman makespan
claim "  ... vs Gandiva packing" iadeep gandiva makespan
claim "  ... vs exclusive GPUs" iadeep exclusive makespan
claim "p99 JCT vs MPS (even shares)" iadeep mps_even jct_p99
claim_value "GPU busy share (fraction), IADeep" iadeep util_total
claim_value "  ... MPS" mps_even util_total
claim_value "  ... kernel-level time slicing" kernel_slice util_total
claim_value "  ... exclusive GPUs" exclusive util_total

# ---- the same comparison on Lucid's pairs (its own bands: scripts/reproduce/bands/iadeep.csv
# has them under the policy names, with the sweep's load; the figures are another table's)
lucid_db=$db lucid_out=$out
out=$lucid_out/lucid
bands=${BANDS_FILE:-scripts/reproduce/bands/iadeep_lucid.csv}
db=$out/iadeep_lucid.db
sweep=iadeep_lucid_load
mkdir -p "$out"
if [ "${BANDS:-}" = write ]; then
    [ -f "$bands" ] || echo "mode,policy,baseline,metric,load,lo,hi" > "$bands"
    grep -v "^$mode," "$bands" > "$bands.tmp" || true
    mv "$bands.tmp" "$bands"
fi
# shellcheck disable=SC2086
"$hetsim" sweep "$sweep" --db "$db" ${JOBS:+-j "$JOBS"} $quick ${repro_sets:-} >&2
repro_reports jct_mean,jct_p50,jct_p99,makespan,queue_delay_mean,util_total \
    mps_even kernel_slice antman gandiva exclusive >&2
claims_header "IADeep with Lucid's RTX 3090 pairs instead of its own table (iadeep_3090_lucid); measured ratios IADeep / baseline"
claim "mean JCT vs kernel-level time slicing" iadeep kernel_slice jct_mean
claim "mean JCT vs MPS (even shares)" iadeep mps_even jct_mean
claim "  ... vs AntMan" iadeep antman jct_mean
claim "  ... vs Gandiva packing" iadeep gandiva jct_mean
claim "  ... vs exclusive GPUs" iadeep exclusive jct_mean
claim "makespan vs kernel-level time slicing" iadeep kernel_slice makespan
claim "makespan vs MPS (even shares)" iadeep mps_even makespan
db=$lucid_db out=$lucid_out
claims_end
