#!/bin/sh
# Gavel (OSDI 2020) with space sharing: its paper extends its heterogeneity-aware policies to
# space sharing (max_min_fairness_packed, "Gavel w/ SS" in its Figure 8, the continuous-single
# trace on 36 V100 + 36 P100 + 36 K80) and reports that sharing lowers the average JCT further
# at high load; the files at hand (../shared, its EXPERIMENTS.md) give no ratio to check
# against.  NOT REPRODUCED, because hetsim has no space-sharing form of Gavel's LP (packed
# allocation over job pairs): its space-sharing policies (iadeep, mps_even, gandiva, antman,
# kernel_slice) place one-GPU jobs in arrival order and are blind to GPU types, while its
# Gavel policy (gavel_las_perf) is heterogeneity-aware and grants whole GPUs.  What this
# script measures instead, on Gavel's cluster with Gavel's measured pairs (shipped, MIT), at
# 6-48 jobs an hour and five seeds (workloads/sweeps/gavel_coloc_load.json: 8 policies x 4
# loads x 5 seeds = 160 runs of under a second): (1) what space sharing is worth without
# heterogeneity-awareness, each sharing policy against exclusive GPUs in the same arrival
# order, IADeep both learning its predictions (the default) and reading the world's rates
# (iadeep_oracle, an upper bound; their prediction errors are in the database, not checked
# here: at 6 jobs an hour no GPU is shared, so nothing is predicted); (2)
# heterogeneity-aware LAS without sharing against the best of them.  Each line is
# checked against the band recorded from this model (scripts/reproduce/bands/
# gavel_colocation.csv), not a figure of the paper.  Writes results/out/gavel_colocation/.
# See scripts/reproduce/common.sh for JOBS, OUT, QUICK and BANDS.
. "$(dirname "$0")/common.sh"

repro_run gavel_colocation gavel_coloc_load workload.rate_per_hour jct_mean,makespan,queue_delay_mean
repro_reports jct_mean,jct_p50,jct_p99,makespan,queue_delay_mean,util_total \
    exclusive gavel_las_perf iadeep_oracle

claims_header "Gavel (OSDI 2020): space sharing lowers average JCT at high load (Fig. 8, no ratio at hand); NOT REPRODUCED (no space-sharing Gavel LP here): sharing vs exclusive GPUs, and Gavel's LAS"
claim "mean JCT, IADeep vs exclusive GPUs" iadeep exclusive jct_mean
claim "  ... IADeep (oracle)" iadeep_oracle exclusive jct_mean
claim "  ... MPS (even shares)" mps_even exclusive jct_mean
claim "  ... Gandiva packing" gandiva exclusive jct_mean
claim "  ... AntMan" antman exclusive jct_mean
claim "  ... kernel-level time slicing" kernel_slice exclusive jct_mean
claim "  ... Gavel LAS (aware, no sharing)" gavel_las_perf exclusive jct_mean
claim "mean JCT, IADeep vs Gavel LAS" iadeep gavel_las_perf jct_mean
claim "mean JCT, IADeep learned vs oracle" iadeep iadeep_oracle jct_mean
claim "makespan, IADeep vs exclusive GPUs" iadeep exclusive makespan
claim "  ... Gavel LAS vs exclusive GPUs" gavel_las_perf exclusive makespan
claim_value "GPU busy share (fraction), exclusive GPUs" exclusive util_total
claim_value "  ... MPS (even shares)" mps_even util_total
claims_ledger
claims_end
