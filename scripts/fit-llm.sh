#!/bin/sh
# fit-llm: calibrate the LLM latency model (models/llm.h) on the reference measurements and
# write its factors to models/data/llm_fit.json (or OUT=FILE), printing every row's residual.
# The data are read where they are, never copied into the project: Vidur's per-layer kernel
# times of Llama-2-7B on A100-80GB and H100 and its all-reduce times on 4 A100 PCIe (pairs on
# NVLink, PCIe 4 between the pairs), MIT; lmdeploy's and TensorRT-LLM's published A100
# latencies (calibration only).  SHARED=DIR names the reference folder (default ../shared).
#
#   scripts/fit-llm.sh            fit, print the residuals, write models/data/llm_fit.json
#   OUT=/tmp/f.json scripts/fit-llm.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shared=${SHARED:-$root/../shared}
vidur=$shared/traces/llm_perf/vidur
hetsim=${HETSIM:-./hetsim}
[ -x "$hetsim" ] || make --no-print-directory -s hetsim
exec "$hetsim" model fit \
    --profile "A100-80GB=$vidur/a100_Llama-2-7b-hf_mlp.csv" \
    --profile "H100=$vidur/h100_Llama-2-7b-hf_mlp.csv" \
    --profile "A10=$vidur/a10_Llama-2-7b-hf_mlp.csv" \
    --profile "A10=$vidur/a10_Meta-Llama-3-8B_mlp.csv" \
    --profile "A10=$vidur/a10_CodeLlama-34b-Instruct-hf_mlp.csv" \
    --profile "A10=$vidur/a10_Llama-2-70b-hf_mlp.csv" \
    --profile "T4=$vidur/t4_Llama-2-7b-hf_mlp.csv" \
    --profile "T4=$vidur/t4_opt-6.7b_mlp.csv" \
    --profile "T4=$vidur/t4_opt-30b_mlp.csv" \
    --allreduce "$vidur/a100_pairwise_nvlink_all_reduce.csv" \
    --ar-link 2=nvlink3 --ar-link 4=pcie4 \
    --measured "$shared/reference/llm/measured_points.csv" --fit-source lmdeploy \
    --out "${OUT:-models/data/llm_fit.json}"
