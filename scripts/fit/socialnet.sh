#!/bin/sh
# socialnet: build the socialnet application (workloads/micro/socialnet.json): DeathStarBench's
# social-network call graph (shipped, Apache-2.0: workloads/traces/deathstarbench/) with
# latency fits of our own, fitted from Erms' DeathStarBench profiles (github.com/Cloud-and-
# Distributed-Systems/Erms, ASPLOS 2023), which carry no licence: read from a path the user
# gives, never shipped.
#
#   scripts/fit/socialnet.sh [ERMS_DIR] [OUT_FILE]
#     ERMS_DIR  Erms' data (default ../shared/traces/erms):
#               data_social-network__fittingResult__inflection.csv
#     OUT_FILE  default workloads/micro/socialnet.json
#
# Method:
#   graph      the 7 request types of the call graph; calls to caches and databases
#              (callee_kind cache, storage) are part of their caller's own latency (Erms
#              measures a service's latency with its storage calls, and scales services, not
#              stores); calls only made on a cache miss or only by the by-name API are left
#              out; a caller's children of one stage number run in parallel, stages in order.
#   latency    for each service, Erms' piecewise-linear P95 fits (latency against requests/s
#              per container, with an inflection point) that succeeded at the two lowest
#              interference levels (cpuInter <= 0.75 cores, memInter <= 1000 MiB), evaluated
#              at loads 0, 2, ..., 100 per container; the median over fits at each load (robust
#              to Erms' two families of fits for some services), floored at 0.2 ms; then our
#              own two-segment least-squares fit of that median curve (the break chosen to
#              minimize the error; slopes floored at 0), in ms; the shift is a fifth of the
#              latency at no load (Erms fits only the 95th percentile), the fit's range 100.
#              nginx-thrift takes nginx-web-server's fits, home-timeline-service also
#              write-home-timeline-service's; services without a successful fit (user,
#              media, unique-id) the median curve of every fitted service.
#   containers 0.2 cores and 1 GB each, 2 to start with.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
erms=${1:-$root/../shared/traces/erms}
out=${2:-$root/workloads/micro/socialnet.json}
graph=$root/workloads/traces/deathstarbench/socialnetwork_call_graph_derived.csv
fits=$erms/data_social-network__fittingResult__inflection.csv
[ -r "$fits" ] || { echo "socialnet.sh: $fits: not found (give Erms' data directory)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"

awk -F, -v graphfile="$graph" '
function isort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
function median(a, n) { isort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function sig(x) { return sprintf("%.4g", x) }
# least squares of y[i0..i1] on w
function lsq(i0, i1,   i, n, sx, sy, sxx, sxy, d) {
    n = 0; sx = 0; sy = 0; sxx = 0; sxy = 0
    for (i = i0; i <= i1; i++) { n++; sx += W[i]; sy += Y[i]; sxx += W[i] * W[i]; sxy += W[i] * Y[i] }
    d = n * sxx - sx * sx
    LA = d != 0 ? (n * sxy - sx * sy) / d : 0
    LB = (sy - LA * sx) / n
    LE = 0
    for (i = i0; i <= i1; i++) LE += (Y[i] - LA * W[i] - LB) ^ 2
}
FNR == 1 { next }
$1 == "True" && $9 <= 0.75 && $10 <= 1000 {
    split($8, t, "_"); ms = t[2]
    if (ms == "nginx-web-server") ms = "nginx-thrift"
    if (ms == "write-home-timeline-service") ms = "home-timeline-service"
    nf[ms]++; k = nf[ms]
    infl[ms, k] = $2; a1[ms, k] = $4; b1[ms, k] = $5; a2[ms, k] = $6; b2[ms, k] = $7
}
END {
    NP = 51
    for (i = 0; i < NP; i++) W[i] = 2 * i
    # the median curve of each fitted service (ms)
    for (ms in nf) {
        for (i = 0; i < NP; i++) {
            for (k = 1; k <= nf[ms]; k++) {
                w = W[i]
                v = w <= infl[ms, k] ? a1[ms, k] * w + b1[ms, k] : a2[ms, k] * w + b2[ms, k]
                tmp[k] = v / 1000
            }
            med = median(tmp, nf[ms]); if (med < 0.2) med = 0.2
            curve[ms, i] = med
        }
        fitted[++nfit] = ms
    }
    for (i = 0; i < NP; i++) {
        for (f = 1; f <= nfit; f++) tmp[f] = curve[fitted[f], i]
        curve["*", i] = median(tmp, nfit)
    }
    # the call graph
    while ((getline line < graphfile) > 0) {
        if (line ~ /^api,/) continue
        split(line, fld, ",")
        api = fld[1]; stage = fld[2]; caller = fld[3]; callee = fld[4]; kind = fld[5]; mode = fld[8]
        if (kind == "cache" || kind == "storage" || mode == "conditional" || mode == "only_for_WithUsername") continue
        if (!(api in seen)) { seen[api] = 1; apis[++napi] = api }
        n = ++ncall[api]
        cid[api, n] = callee; cpar[api, n] = caller == "client" ? "" : caller; cst[api, n] = stage
        if (!(callee in svc)) { svc[callee] = 1; order[++nsvc] = callee }
    }
    print "{"
    print "  \"name\": \"socialnet\","
    print "  \"source\": \"DeathStarBench social network call graph (Apache-2.0) with latency fits made by scripts/fit/socialnet.sh from Erms (ASPLOS 2023) profiles; see that script for the method\","
    print "  \"container\": { \"cpus\": 0.2, \"memory_gb\": 1 },"
    print "  \"services\": ["
    for (s = 1; s <= nsvc; s++) {
        ms = order[s]; key = (ms in nf) ? ms : "*"
        for (i = 0; i < NP; i++) Y[i] = curve[key, i]
        best = -1
        for (br = 2; br <= NP - 3; br++) {
            lsq(0, br); ea = LE; sa = LA; ia = LB
            lsq(br + 1, NP - 1); e2 = ea + LE
            if (best < 0 || e2 < best) { best = e2; BA = sa; BB = ia; CA = LA; CB = LB; BR = W[br] }
        }
        if (BA < 0) BA = 0
        if (BB < 0.2) BB = 0.2
        if (CA < BA) CA = BA
        # the after segment must not dip below the before one at the break
        if (CA * BR + CB < BA * BR + BB) CB = BA * BR + BB - CA * BR
        shift = BB / 5
        printf "    { \"name\": \"%s\", \"containers\": 2, \"latency\": { \"model\": \"erms\", \"shift_ms\": %s, \"max_load\": 100, \"inflection\": %s, \"before\": { \"slope\": %s, \"intercept\": %s }, \"after\": { \"slope\": %s, \"intercept\": %s } } }%s\n", \
            ms, sig(shift), BR, sig(BA), sig(BB), sig(CA), sig(CB), s < nsvc ? "," : ""
    }
    print "  ],"
    print "  \"graphs\": ["
    for (g = 1; g <= napi; g++) {
        api = apis[g]
        printf "    { \"name\": \"%s\", \"calls\": [\n", api
        for (n = 1; n <= ncall[api]; n++) {
            if (cpar[api, n] == "")
                printf "      { \"id\": \"%s\", \"service\": \"%s\" }", cid[api, n], cid[api, n]
            else
                printf "      { \"id\": \"%s\", \"service\": \"%s\", \"parent\": \"%s\", \"stage\": %d }", cid[api, n], cid[api, n], cpar[api, n], cst[api, n]
            printf "%s\n", n < ncall[api] ? "," : ""
        }
        printf "    ] }%s\n", g < napi ? "," : ""
    }
    print "  ]"
    print "}"
}' "$fits" > "$out"
echo "wrote $out"
