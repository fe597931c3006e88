#!/bin/sh
# derm_trainticket: fit the derm_trainticket experiment's parameters from Derm's published
# TrainTicket data (github.com/liaochan/Derm, ISCA 2024), which carries no licence and is
# therefore read here, from a path the user gives, and never shipped.  What is shipped is
# what this script writes: parameters of our own, fitted by the method below.
#
#   scripts/fit/derm_trainticket.sh [DERM_DIR] [OUT_DIR]
#     DERM_DIR  Derm's data (default ../shared/traces/derm): all_pars.csv,
#               workload_ceil_init_0ae0802.csv, graph_predict_all_target.csv
#     OUT_DIR   where to write (default workloads/): micro/trainticket.json (the
#               application) and experiments/derm_trainticket.json (the experiment)
#
# Method (every number in the two files comes from one of these steps):
#   services   the 12 TrainTicket services of all_pars.csv.  Derm fits each call's exponential
#              rate against load per container twice (a1, b1 by least squares, a2, b2 by
#              maximum likelihood); ours is the least-squares line through both estimators'
#              rates over the loads they share, which for two lines sampled at the same loads
#              is their mean: a = (a1 + a2) / 2, b = (b1 + b2) / 2 (per ms, load in calls/s
#              per container, Derm's w read in those units).  The shift is Derm's s (the mean
#              minimum latency), the fit's range ends where the rate falls to 0.8 per ms
#              (Derm's cutoffLambda), and a service starts with Derm's pod_num containers of
#              0.2 cores and 1 GB (Derm's testbed).  Four significant digits.
#   graphs     calls per request n of chain 1 (simple) and 2 (complex), each in its own train
#              class and in the other (ts-travel2 / ts-order-other for ordinary trains,
#              ts-travel / ts-order for high-speed ones): simple_highspeed, simple_normal,
#              complex_highspeed, complex_normal, each a chain of sequential calls.
#   load       the 41-step daily workload of workload_ceil_init: its mean and first three
#              harmonics (the least-squares Fourier fit of one period), read at 24 hourly
#              knots over 86,400 s; the peak is rate_per_s, the knots its multipliers.
#   mix        Derm's 4-type graph-mix sequences (the first horizon of the LSTM's targets,
#              one step taken as one minute): the mean mix; the mean length of the runs of
#              an unchanged mix as the regime hold; the Dirichlet concentration by moments,
#              c = sum_g m_g (1 - m_g) / sum_g Var(p_g) - 1.
# It also prints the error of the graph-mix predictors (models/mixpred.h) on the sequences.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
derm=${1:-$root/../shared/traces/derm}
out=${2:-$root/workloads}
for f in all_pars.csv workload_ceil_init_0ae0802.csv graph_predict_all_target.csv; do
    [ -r "$derm/$f" ] || { echo "derm_trainticket.sh: $derm/$f: not found (give Derm's data directory)" >&2; exit 2; }
done
mkdir -p "$out/micro" "$out/experiments"
app=$out/micro/trainticket.json
exp=$out/experiments/derm_trainticket.json

# ---- the application
awk -F, '
function sig(x) { return sprintf("%.4g", x) }
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    ms = $h["ms"]; ch = $h["chain"]
    n[ch, ms] = $h["n"]
    a[ms] = ($h["a1"] + $h["a2"]) / 2; b[ms] = ($h["b1"] + $h["b2"]) / 2
    s[ms] = $h["s"]; pods[ms] = $h["pod_num"]
}
END {
    split("ts-basic-service ts-seat-service ts-ticketinfo-service ts-travel2-service ts-travel-service ts-config-service ts-order-service ts-order-other-service ts-price-service ts-route-service ts-station-service ts-train-service", name, " ")
    print "{"
    print "  \"name\": \"trainticket\","
    print "  \"source\": \"fitted by scripts/fit/derm_trainticket.sh from Derm (ISCA 2024) TrainTicket profiles; see that script for the method\","
    print "  \"container\": { \"cpus\": 0.2, \"memory_gb\": 1 },"
    print "  \"services\": ["
    for (k = 0; k < 12; k++) {
        cut = (0.8 - b[k]) / a[k]
        printf "    { \"name\": \"%s\", \"containers\": %d, \"latency\": { \"model\": \"derm\", \"a\": %s, \"b\": %s, \"shift_ms\": %s, \"max_load\": %s } }%s\n", \
            name[k + 1], pods[k], sig(a[k]), sig(b[k]), sig(s[k]), sig(cut), k < 11 ? "," : ""
    }
    print "  ],"
    print "  \"graphs\": ["
    # the four types: 1 = simple in its class (travel2 3, order-other 7), 2 = complex (travel 4, order 6)
    split("simple_highspeed simple_normal complex_highspeed complex_normal", gname, " ")
    for (g = 1; g <= 4; g++) {
        ch = g <= 2 ? 1 : 2
        for (k = 0; k < 12; k++) c[k] = n[ch, k] + 0
        if (g == 1) { c[4] += c[3]; c[3] = 0; c[6] += c[7]; c[7] = 0 }
        if (g == 4) { c[3] += c[4]; c[4] = 0; c[7] += c[6]; c[6] = 0 }
        printf "    { \"name\": \"%s\", \"calls\": [\n", gname[g]
        first = -1; st = 0; line = ""
        for (k = 0; k < 12; k++) {
            if (c[k] == 0) continue
            if (first < 0) {
                first = k
                line = sprintf("      { \"id\": \"%s\", \"service\": \"%s\", \"count\": %d }", name[k + 1], name[k + 1], c[k])
            } else {
                line = line sprintf(",\n      { \"id\": \"%s\", \"service\": \"%s\", \"count\": %d, \"parent\": \"%s\", \"stage\": %d }", name[k + 1], name[k + 1], c[k], name[first + 1], st++)
            }
        }
        printf "%s\n    ] }%s\n", line, g < 4 ? "," : ""
    }
    print "  ]"
    print "}"
}' "$derm/all_pars.csv" > "$app"

# ---- the load shape: mean + 3 harmonics of the 41 steps, 24 hourly knots
shape=$(awk -F, 'NR > 1 && $1 != "" { y[n++] = $1 }
END {
    pi = atan2(0, -1); c0 = 0
    for (i = 0; i < n; i++) c0 += y[i] / n
    for (h = 1; h <= 3; h++) {
        A[h] = 0; B[h] = 0
        for (i = 0; i < n; i++) { A[h] += 2 / n * y[i] * cos(2 * pi * h * i / n); B[h] += 2 / n * y[i] * sin(2 * pi * h * i / n) }
    }
    mx = 0
    for (k = 0; k < 24; k++) {
        t = k * n / 24; v = c0
        for (h = 1; h <= 3; h++) v += A[h] * cos(2 * pi * h * t / n) + B[h] * sin(2 * pi * h * t / n)
        f[k] = v; if (v > mx) mx = v
    }
    printf "%.4g|", mx
    for (k = 0; k < 24; k++) { v = f[k] / mx; if (v < 0.02) v = 0.02; printf "%s%.3f", k ? ", " : "", v }
}' "$derm/workload_ceil_init_0ae0802.csv")
peak=${shape%%|*}
knots=${shape#*|}

# ---- the mix: mean, regime hold, Dirichlet concentration; and the predictors' errors
mix=$(awk -F, 'NR == 1 { next }
{
    for (g = 0; g < 4; g++) p[g] = $(g + 2)
    key = sprintf("%.9f %.9f %.9f %.9f", p[0], p[1], p[2], p[3])
    if (key != prev) runs++
    prev = key
    for (g = 0; g < 4; g++) { s1[g] += p[g]; s2[g] += p[g] * p[g]; seq[n, g] = p[g] }
    n++
}
END {
    num = 0; den = 0
    for (g = 0; g < 4; g++) { m[g] = s1[g] / n; v = s2[g] / n - m[g] * m[g]; num += m[g] * (1 - m[g]); den += v }
    conc = num / den - 1
    hold = n / runs
    # predictors: last, ewma(0.5), window(10): mean L1 error of the next mix
    for (g = 0; g < 4; g++) ew[g] = seq[0, g]
    for (t = 1; t < n; t++) {
        for (g = 0; g < 4; g++) {
            el += abs(seq[t - 1, g] - seq[t, g])
            ee += abs(ew[g] - seq[t, g])
            from = t - 10 < 0 ? 0 : t - 10; w = 0
            for (q = from; q < t; q++) w += seq[q, g]
            ewin += abs(w / (t - from) - seq[t, g])
            emean += abs(m[g] - seq[t, g])
        }
        for (g = 0; g < 4; g++) ew[g] = 0.5 * seq[t, g] + 0.5 * ew[g]
    }
    printf "%.4g|%.4g|%.4g|%.4g|%.4g|%.4g|%d|", m[0], m[1], m[2], m[3], conc, hold * 60, n
    printf "%.4f|%.4f|%.4f|%.4f", el / (n - 1), ee / (n - 1), ewin / (n - 1), emean / (n - 1)
}
function abs(x) { return x < 0 ? -x : x }' "$derm/graph_predict_all_target.csv")
IFS='|' read -r m0 m1 m2 m3 conc every nseq e_last e_ewma e_win e_mean <<EOF2
$mix
EOF2

cat > "$exp" <<EOF2
{
  "name": "derm_trainticket",
  "description": "Derm's setting (ISCA 2024): TrainTicket's 12 services, 4 graph types whose mix switches regimes, P95 SLA 550 ms, a daily load shape; parameters fitted by scripts/fit/derm_trainticket.sh",
  "domain": "micro",
  "seed": 1,
  "cluster": "cpu_10x52",
  "app": "../micro/trainticket.json",
  "sla_ms": 550,
  "workload": {
    "format": "micro_poisson",
    "duration_s": 86400,
    "rate_per_s": $peak,
    "rate_shape": [$knots],
    "shape_period_s": 86400,
    "mix": { "simple_highspeed": $m0, "simple_normal": $m1, "complex_highspeed": $m2, "complex_normal": $m3 },
    "mix_change": { "every_s": $every, "concentration": $conc, "step_s": 60 }
  },
  "policies": ["static_worst", "erms", "firm", "derm"],
  "sim": { "interval_s": 60, "startup_s": 5, "sample_s": 600, "request_sample": 0.01 }
}
EOF2
echo "wrote $app and $exp"
echo "graph-mix predictors on Derm's sequences ($nseq steps), mean L1 error of the next mix:"
echo "  last $e_last   ewma(0.5) $e_ewma   window(10) $e_win   long-run mean $e_mean"
