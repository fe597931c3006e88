# Shared by scripts/reproduce/*.sh (sourced, not run): build hetsim, run a paper's sweep into
# its own database, draw its figures, write its reports under results/out/<paper>/, and print
# each of the paper's claims at every load point: the ratio policy / baseline, paired by
# seed, as mean ± 95% CI (Student t) over the seeds, each checked against a stored band.
#
# Environment: JOBS=N runs N simulations at once (default: every core); OUT=DIR writes there
# instead of results/out/<paper>; HETSIM=PATH uses that binary instead of building ./hetsim;
# QUICK=1 cuts every run to its first 60 jobs and the steady-state window to jobs 10-49 (a
# smoke test of the script in seconds: its numbers are not the experiment's, and are checked
# against the quick bands; a paper script may set quick_sets to cut its runs otherwise, and
# repro_sets to override fields of every run in both modes); BANDS=write
# records the bands from this run instead of checking them (after a change meant to move
# results, like `make golden`).
#
# Bands: scripts/reproduce/bands/<paper>.csv (BANDS_FILE=PATH: another), one line per figure:
#   mode,policy,baseline,metric,load,lo,hi        (mode: full or quick)
# recorded as mean -+ max(2 CI, 5% of |mean|, 0.005).  A figure outside its band, or without
# one, fails the script (exit 1) after everything is printed.

set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

mode=full
[ "${QUICK:-0}" = 1 ] && mode=quick
bad=0

# repro_run PAPER SWEEP AXIS FIGURE_METRICS: sweep and figures; sets $db, $out, $sweep, $axis
repro_run() {
    paper=$1 sweep=$2 axis=$3 figmetrics=$4
    out=${OUT:-results/out/$paper}
    db=$out/$paper.db
    bands=${BANDS_FILE:-scripts/reproduce/bands/$paper.csv}
    quick=
    [ "$mode" = quick ] && quick=${quick_sets-"--set workload.max_jobs=60 --set sim.measure_jobs=[10,49]"}
    hetsim=${HETSIM:-}
    if [ -z "$hetsim" ]; then
        make --no-print-directory -s deps
        make --no-print-directory -s hetsim
        hetsim=./hetsim
    fi
    mkdir -p "$out"
    # shellcheck disable=SC2086
    "$hetsim" sweep "$sweep" --db "$db" ${JOBS:+-j "$JOBS"} $quick ${repro_sets:-}
    "$hetsim" plot --db "$db" --out "$out" --sweep "$sweep" --metric "$figmetrics"
    if [ "${BANDS:-}" = write ]; then
        mkdir -p "$(dirname "$bands")"
        [ -f "$bands" ] || echo "mode,policy,baseline,metric,load,lo,hi" > "$bands"
        grep -v "^$mode," "$bands" > "$bands.tmp" || true
        mv "$bands.tmp" "$bands"
    fi
}

# repro_reports COLUMNS BASELINE...: report.md / report.csv against the first baseline, and
# $out/report_<B>.csv for each baseline (what the claims read)
repro_reports() {
    cols=$1
    shift
    first=$1
    "$hetsim" report --db "$db" --sweep "$sweep" --group --baseline "$first" \
        --columns "$cols" --format markdown > "$out/report.md"
    "$hetsim" report --db "$db" --sweep "$sweep" --group --baseline "$first" \
        --columns "$cols" --format csv > "$out/report.csv"
    for b in "$@"; do
        "$hetsim" report --db "$db" --sweep "$sweep" --group --baseline "$b" \
            --columns "$cols" --format csv > "$out/report_$b.csv"
    done
    echo "figures and reports: $out/ (report.md, report.csv, report_<baseline>.csv, ${sweep}_*.png)"
}

# claims_header TITLE: the table's header, the loads in the sweep's order
claims_header() {
    echo
    echo "$1"
    echo "ratio = policy / baseline for the same seed, mean ± 95% CI over the seeds; below 1 is"
    echo "better, except for throughput (above 1 is better).  Every load of the sweep is shown."
    awk -F, -v axis="$axis" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        !seen[$h[axis]]++ { loads = loads sprintf("%16s", $h[axis]) }
        END { printf "  %-48s%s\n", axis, loads }' "$out/report_${first}.csv"
}

# claim TEXT POLICY BASELINE METRIC: one line, the ratio at every load, band-checked
claim() {
    claim_column "$1" "$2" "$3" "$4" "$4/$3" "$out/report_$3.csv"
}

# claim_value TEXT POLICY METRIC: one line, the policy's own figure (not a ratio) at every
# load, mean ± CI over the seeds, band-checked (its bands have the baseline "value")
claim_value() {
    claim_column "$1" "$2" value "$3" "$3" "$out/report_${first}.csv"
}

# claim_column TEXT POLICY BASELINE METRIC COLUMN REPORT: the line of claim and claim_value
claim_column() {
    text=$1 pol=$2 base=$3 metric=$4 column=$5 report=$6
    line=$(awk -F, -v pol="$pol" -v col="$column" -v axis="$axis" -v mode="$mode" \
               -v bands="$bands" -v write="${BANDS:-}" -v base="$base" -v metric="$metric" '
        BEGIN {
            while ((getline l < bands) > 0) {
                split(l, b, ",")
                if (b[1] == mode && b[2] == pol && b[3] == base && b[4] == metric) {
                    lo[b[5]] = b[6]; hi[b[5]] = b[7]; has[b[5]] = 1
                }
            }
        }
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["policy"] == pol {
            if (!(col in h)) { printf "(no column %s)", col; bad = 1; exit }
            v = $h[col]; c = $h[col "_ci95"]; at = $h[axis]
            if (v == "") { printf "%16s", "-"; bad = 1; next }
            cell = c == "" ? sprintf("%.3f", v) : sprintf("%.3f±%.3f", v, c)
            if (write == "write") {
                w = 2 * (c == "" ? 0 : c); a = v < 0 ? -v : v
                if (w < 0.05 * a) w = 0.05 * a
                if (w < 0.005) w = 0.005
                printf "%s,%s,%s,%s,%s,%.6g,%.6g\n", mode, pol, base, metric, at, v - w, v + w \
                    >> bands
            } else if (!has[at]) {
                cell = cell "?"; bad = 1; missing = missing " " at
            } else if (v + 0 < lo[at] + 0 || v + 0 > hi[at] + 0) {
                cell = cell "!"; bad = 1
                out = out sprintf(" %s: %.3f not in [%s, %s];", at, v, lo[at], hi[at])
            }
            printf "%" (16 + (index(cell, "±") > 0)) "s", cell
        }
        END {
            if (missing != "") printf "   no band for%s", missing
            if (out != "") printf "   OUT OF BAND:%s", out
            exit bad
        }' "$report") || bad=1
    printf '  %-48s%s\n' "$text" "$line"
}

# claims_end: the verdict of the band checks
claims_end() {
    if [ "${BANDS:-}" = write ]; then
        echo "bands recorded in $bands ($mode)"
    elif [ "$bad" -ne 0 ]; then
        echo "some figures are outside their bands (marked !) or have none (marked ?): see $bands"
        exit 1
    else
        echo "every figure is inside its band ($bands, $mode)"
    fi
}
