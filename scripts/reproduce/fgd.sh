#!/bin/sh
# FGD (ATC 2023), the headline experiment of its artifact: Alibaba's openb_pod_list_default
# (8,152 pods, 3,078 of them asking for a fraction of a GPU) on the 1,213 GPU nodes of the
# openb node list (6,212 GPUs), shuffled by the seed and inflated with pods drawn again from
# the list until 1.0x and 1.3x the cluster's GPUs have been asked for; FGD against best fit,
# GPU packing, GPU clustering, Tetris' dot product and random fit, five seeds each
# (workloads/sweeps/fgd_openb.json: 6 policies x 2 loads x 5 seeds = 60 runs of 1-3 s).
# Writes results/out/fgd/: the database, fgd_openb_{milli_alloc_frac,frag_frac,
# gpus_unallocated}_vs_sim-load.png, the curves against arrived load of every run at 1.3x
# (fgd_alloc_vs_arrived.png, fgd_frag_vs_arrived.png), report.md, report.csv and
# report_<baseline>.csv; prints FGD's own figures beside the measured ones at both loads,
# checked against scripts/reproduce/bands/fgd.csv.  See scripts/reproduce/common.sh for JOBS,
# OUT, QUICK and BANDS; OPENB=DIR reads the openb lists from DIR instead of
# ../shared/traces/alibaba_gpu2023 (they carry no licence and are never copied here).
# QUICK=1 places on every tenth node of the node list (122 nodes; the list is cut into OUT at
# run time, from the user's copy), so that the same 60 runs take seconds.
. "$(dirname "$0")/common.sh"

openb=${OPENB:-../shared/traces/alibaba_gpu2023}
nodes=$openb/openb_node_list_gpu_node.csv
pods=$openb/openb_pod_list_default.csv
for f in "$nodes" "$pods"; do
    [ -f "$f" ] || { echo "fgd.sh: $f not found (OPENB=DIR names the openb lists)" >&2; exit 2; }
done
if [ "$mode" = quick ]; then
    qdir=${OUT:-results/out/fgd}
    mkdir -p "$qdir"
    awk 'NR == 1 || NR % 10 == 2' "$nodes" > "$qdir/quick_nodes.csv"
    nodes=$qdir/quick_nodes.csv
    quick_sets=
fi
repro_sets="--set nodes=$nodes --set workload.trace=$pods"

repro_run fgd fgd_openb sim.load milli_alloc_frac,frag_frac,gpus_unallocated
repro_reports milli_alloc_frac,gpu_alloc_frac,frag_frac,gpus_unallocated,pods_unallocated,cpu_alloc_frac,mem_alloc_frac \
    bestfit gpupacking clustering dotprod random

# the curves against arrived load: every run at 1.3x, one line per seed, a colour per policy
curves() {
    metric=$1 ylabel=$2 png=$3
    what="openb default, 1.3x, 5 seeds each"
    [ "$mode" = quick ] && what="QUICK: every tenth node, 1.3x, 5 seeds each"
    dir=$out/curves
    mkdir -p "$dir"
    plots=
    set -- "#d62728" "#1f77b4" "#2ca02c" "#ff7f0e" "#9467bd" "#7f7f7f"
    for pol in fgd bestfit gpupacking clustering dotprod random; do
        colour=$1
        shift
        title="title '$pol'"
        for id in $(sqlite3 "$db" "select r.id from runs r join run_params p on p.run_id = r.id
                                   where p.sweep = '$sweep' and p.key = 'sim.load' and
                                   p.num = 1.3 and r.policy = '$pol' order by r.seed"); do
            sqlite3 -separator ' ' "$db" "select a.value, m.value from samples a join samples m
                on m.run_id = a.run_id and m.t_s = a.t_s and m.name = '$metric'
                where a.run_id = $id and a.name = 'arrived_gpu_frac' order by a.t_s" \
                > "$dir/$metric.$id"
            plots="$plots${plots:+, }'$dir/$metric.$id' using (\$1*100):(\$2*100) with lines lw 1 lc rgb '$colour' $title"
            title=notitle
        done
    done
    gnuplot <<EOF
set terminal pngcairo size 900,560 font ",11" background rgb "white"
set output '$out/$png'
set title "FGD's experiment: $ylabel against arrived load ($what)" noenhanced
set xlabel "arrived GPU request (% of the cluster's GPUs)"
set ylabel "$ylabel (%)" noenhanced
set key left top box opaque noenhanced
set grid
plot $plots
EOF
}
curves milli_alloc_frac "milli-GPU allocated" fgd_alloc_vs_arrived.png
curves frag_frac "fragmented share of the idle GPU" fgd_frag_vs_arrived.png
echo "curves against arrived load: $out/fgd_alloc_vs_arrived.png, $out/fgd_frag_vs_arrived.png"

claims_header "FGD (ATC 2023): FGD's own simulator (its artifact, mean of 10 seeds) beside this reproduction,
at 1.0x and 1.3x the cluster's GPUs; the paper: up to 49% fewer unallocated GPUs than baselines"
claim_value "fgd GPUs allocated (FGD, seed 42 at 1.3x: 0.996)" fgd gpu_alloc_frac
claim_value "fgd milli-GPU allocated (FGD: 0.952, 0.954)" fgd milli_alloc_frac
claim_value "fgd fragmented share of idle (0.991, 0.991)" fgd frag_frac
claim "milli-GPU vs best fit (FGD: 1.026, 1.025)" fgd bestfit milli_alloc_frac
claim "  ... vs GPU packing (1.038, 1.037)" fgd gpupacking milli_alloc_frac
claim "  ... vs GPU clustering (1.039, 1.038)" fgd clustering milli_alloc_frac
claim "  ... vs dot product (1.051, 1.050)" fgd dotprod milli_alloc_frac
claim "  ... vs random fit (1.103, 1.091)" fgd random milli_alloc_frac
claim "unallocated GPUs vs best fit (0.668, 0.666)" fgd bestfit gpus_unallocated
claim "  ... vs GPU packing (0.580, 0.576)" fgd gpupacking gpus_unallocated
claim "  ... vs GPU clustering (0.571, 0.567)" fgd clustering gpus_unallocated
claim "  ... vs dot product (0.509, 0.504)" fgd dotprod gpus_unallocated
claim "  ... vs random fit (0.348, 0.368)" fgd random gpus_unallocated
claims_ledger
claims_end
