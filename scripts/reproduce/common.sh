# Shared by scripts/reproduce/*.sh (sourced, not run): build hetsim, run a paper's sweep into
# its own database, draw its figures and write its report under results/out/<paper>/, and
# read measured figures back from `hetsim report` to print beside the paper's claims.
#
# Environment: JOBS=N runs N simulations at once (default: every core); OUT=DIR writes there
# instead of results/out/<paper>; HETSIM=PATH uses that binary instead of building ./hetsim;
# QUICK=1 cuts every run to its first 60 jobs (a smoke test of the script in seconds: its
# numbers are not the experiment's).

set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

# repro_run PAPER SWEEP METRICS BASELINE: sweep, figures, report; sets $db and $out
repro_run() {
    paper=$1 sweep=$2 metrics=$3 baseline=$4
    out=${OUT:-results/out/$paper}
    db=$out/$paper.db
    quick=
    [ "${QUICK:-0}" = 1 ] && quick="--set workload.max_jobs=60"
    hetsim=${HETSIM:-}
    if [ -z "$hetsim" ]; then
        make --no-print-directory -s deps
        make --no-print-directory -s hetsim
        hetsim=./hetsim
    fi
    mkdir -p "$out"
    # shellcheck disable=SC2086
    "$hetsim" sweep "$sweep" --db "$db" ${JOBS:+-j "$JOBS"} $quick
    "$hetsim" plot --db "$db" --out "$out" --sweep "$sweep" --metric "$metrics"
    "$hetsim" report --db "$db" --sweep "$sweep" --group --baseline "$baseline" \
        --format markdown > "$out/report.md"
    "$hetsim" report --db "$db" --sweep "$sweep" --group --baseline "$baseline" \
        --format csv > "$out/report.csv"
    echo "figures and report: $out/ (report.md, report.csv, ${sweep}_*.png)"
}

# extreme POLICY COLUMN max|min AXIS [invert]: the largest (or smallest) value of COLUMN over
# the rows of POLICY in $out/report.csv, as "V (at AXIS=x, 95% CI ±h)"; with invert, 1/V
# (a ratio read the other way round; the interval is then omitted).
extreme() {
    awk -F, -v pol="$1" -v col="$2" -v mode="$3" -v axis="$4" -v inv="${5:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["policy"] == pol {
            v = $h[col] + 0
            if (inv != "" && v > 0) v = 1 / v
            if (!seen || (mode == "max" ? v > best : v < best)) {
                best = v; ci = $h[col "_ci95"]; at = $h[axis]; seen = 1
            }
        }
        END {
            if (!seen) { printf "(no %s runs)", pol; exit }
            printf "%.2f (at %s=%s", best, axis, at
            if (inv == "" && ci != "") printf ", 95%% CI ±%.2f", ci
            printf ")"
        }' "$out/report.csv"
}

claim() {
    printf '  %-58s %s\n' "$1" "$2"
}
