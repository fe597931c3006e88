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
# Claims: scripts/reproduce/claims/<paper>.csv (LEDGER_FILE=PATH: another), the ledger of
# what hetsim's pages (README.md, doc/reproduce.md) say of the paper's claims, one row per
# statement:
#   id,policy,baseline,metric,load,relation,wording
# baseline "value" reads the policy's own figure instead of a ratio; load is a value of the
# sweep's axis, several joined by ';', or '*' for every load; relation is one of
#   below T     the 95% CI lies entirely below T (e.g. "below 1": better than the baseline)
#   above T     the 95% CI lies entirely above T
#   level T     the 95% CI contains T (no difference shown)
#   within A B  the mean lies in [A, B] (e.g. within 10% of a paper's figure)
# and wording is the pages' sentence (the rest of the line, commas allowed), where {range}
# becomes the span of the means over the row's loads.  claims_ledger checks every row of the
# full run and fails (exit 1) naming each row whose conclusion flipped; a quick run prints the
# rows unchecked (LEDGER_MODE=quick checks them anyway, for tests).
#
# Bands: scripts/reproduce/bands/<paper>.csv (BANDS_FILE=PATH: another), one line per figure:
#   mode,policy,baseline,metric,load,lo,hi        (mode: full or quick, or full_X / quick_X
#                                                  for a script's several sweeps, as derm.sh)
# a regression alarm, recorded as mean -+ max(2 CI, 5% of |mean|, 0.005), never below 0 (every
# figure here is a non-negative metric or a ratio of two) and never wider than a claim of the
# ledger on the same figure (a band cannot straddle the T of a below/above row).  A figure
# outside its band, without one, or whose band is wider than its claim, fails the script
# (exit 1) after everything is printed.

set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

mode=full
[ "${QUICK:-0}" = 1 ] && mode=quick
bad=0 ledger_bad=0

# repro_run PAPER SWEEP AXIS FIGURE_METRICS: sweep and figures; sets $db, $out, $sweep, $axis
repro_run() {
    paper=$1 sweep=$2 axis=$3 figmetrics=$4
    out=${OUT:-results/out/$paper}
    db=$out/$paper.db
    bands=${BANDS_FILE:-scripts/reproduce/bands/$paper.csv}
    ledger=${LEDGER_FILE:-scripts/reproduce/claims/$paper.csv}
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
        bands_clear "$mode"
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
    claims_loads
}

# claims_section TITLE: a further section of the same table (another sweep's claims): its
# title and loads, the header having said how to read the figures once
claims_section() {
    echo
    echo "$1"
    claims_loads
}

# claims_loads: the axis and its loads in the sweep's order, the claims' column heads
claims_loads() {
    awk -F, -v axis="$axis" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        !seen[$h[axis]]++ { loads = loads sprintf("%16s", $h[axis]) }
        END { printf "  %-48s%s\n", axis, loads }' "$out/report_${first}.csv"
}

# bands_clear MODE: drop MODE's bands from the band file (BANDS=write records them anew)
bands_clear() {
    grep -v "^$1," "$bands" > "$bands.tmp" || true
    mv "$bands.tmp" "$bands"
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
               -v bands="$bands" -v write="${BANDS:-}" -v base="$base" -v metric="$metric" \
               -v ledger="$ledger" -v lmode="${LEDGER_MODE:-full}" '
        # the claim on this figure at load `at` bounds its band: cap_lo <= band <= cap_hi
        function caps(at) {
            clo = "-inf"; chi = "inf"
            split(mode, mm, "_")        # full_fit (a sweep of several) checks as full
            if (mm[1] != lmode) return
            for (k = 1; k <= nl; k++)
                if (lload[k] == "*" || index(";" lload[k] ";", ";" at ";") > 0) {
                    if (lkind[k] == "below" && (chi == "inf" || lt[k] < chi + 0)) chi = lt[k]
                    if (lkind[k] == "above" && (clo == "-inf" || lt[k] > clo + 0)) clo = lt[k]
                    if (lkind[k] == "within") {
                        if (clo == "-inf" || lt[k] > clo + 0) clo = lt[k]
                        if (chi == "inf" || lt2[k] < chi + 0) chi = lt2[k]
                    }
                }
        }
        BEGIN {
            while ((getline l < bands) > 0) {
                split(l, b, ",")
                if (b[1] == mode && b[2] == pol && b[3] == base && b[4] == metric) {
                    lo[b[5]] = b[6]; hi[b[5]] = b[7]; has[b[5]] = 1
                }
            }
            while ((getline l < ledger) > 0) {
                if (l ~ /^#/) continue
                split(l, b, ",")
                if (b[2] == pol && b[3] == base && b[4] == metric) {
                    nl++; lload[nl] = b[5]; split(b[6], r, " "); lkind[nl] = r[1]; lt[nl] = r[2]; lt2[nl] = r[3]
                }
            }
        }
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["policy"] == pol {
            if (!(col in h)) { printf "(no column %s)", col; bad = 1; exit }
            v = $h[col]; c = $h[col "_ci95"]; at = $h[axis]
            if (v == "") { printf "%16s", "-"; bad = 1; next }
            cell = c == "" ? sprintf("%.3f", v) : sprintf("%.3f±%.3f", v, c)
            caps(at)
            if (write == "write") {
                w = 2 * (c == "" ? 0 : c); a = v < 0 ? -v : v
                if (w < 0.05 * a) w = 0.05 * a
                if (w < 0.005) w = 0.005
                blo = v - w; bhi = v + w
                if (blo < 0) blo = 0
                if (clo != "-inf" && blo < clo + 0) blo = clo
                if (chi != "inf" && bhi > chi + 0) bhi = chi
                printf "%s,%s,%s,%s,%s,%.6g,%.6g\n", mode, pol, base, metric, at, blo, bhi \
                    >> bands
            } else if (!has[at]) {
                cell = cell "?"; bad = 1; missing = missing " " at
            } else if (v + 0 < lo[at] + 0 || v + 0 > hi[at] + 0) {
                cell = cell "!"; bad = 1
                out = out sprintf(" %s: %.3f not in [%s, %s];", at, v, lo[at], hi[at])
            } else if (lo[at] + 0 < 0) {
                cell = cell "!"; bad = 1
                out = out sprintf(" %s: band [%s, %s] goes below 0;", at, lo[at], hi[at])
            } else if ((clo != "-inf" && lo[at] + 0 < clo + 0) || \
                       (chi != "inf" && hi[at] + 0 > chi + 0)) {
                cell = cell "!"; bad = 1
                out = out sprintf(" %s: band [%s, %s] is wider than [%s, %s], its claim;", \
                                  at, lo[at], hi[at], clo == "-inf" ? 0 : clo, chi)
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
    else
        echo "every figure is inside its band ($bands, $mode)"
    fi
    if [ "$ledger_bad" -ne 0 ]; then
        echo "some claims of the ledger flipped or cannot be read: see the rows marked above"
    fi
    [ "$bad" -eq 0 ] && [ "$ledger_bad" -eq 0 ] || exit 1
}

# claims_ledger: every row of the paper's ledger ($ledger) against this run's reports, one line
# each: its verdict, its id, its wording, and the mean (95% CI) at each of its loads.  A row
# whose figure is missing, or (full run) whose relation no longer holds, fails the script.
claims_ledger() {
    if [ ! -f "$ledger" ]; then
        echo "no claims ledger for $paper ($ledger)"; ledger_bad=1; return
    fi
    check=0
    [ "$mode" = "${LEDGER_MODE:-full}" ] && check=1
    echo
    if [ $check = 1 ]; then
        echo "The claims as these pages state them, each checked on this run ($ledger):"
    else
        echo "The claims of $ledger (a $mode run: shown, not checked; the full run checks them):"
    fi
    n=0 nbad=0
    while IFS=, read -r id pol base metric load rel wording; do
        case $id in ''|'#'*|id) continue ;; esac
        n=$((n + 1))
        if [ "$base" = value ]; then rep=$out/report_${first}.csv col=$metric
        else rep=$out/report_${base}.csv col=$metric/$base; fi
        if [ ! -f "$rep" ]; then
            printf '  %-8s %s: no report %s (add the baseline to repro_reports)\n' MISSING "$id" "$rep"
            nbad=$((nbad + 1)); continue
        fi
        res=$(awk -F, -v pol="$pol" -v col="$col" -v axis="$axis" -v load="$load" \
                  -v rel="$rel" -v wording="$wording" -v check=$check '
            NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i
                      if (!(col in h) || !(axis in h)) { miss = "no column " col; exit }
                      split(rel, r, " "); kind = r[1]; t1 = r[2] + 0; t2 = r[3] + 0
                      if (kind != "below" && kind != "above" && kind != "level" && \
                          kind != "within" || r[2] == "" || (kind == "within" && r[3] == "")) {
                          miss = "unknown relation \"" rel "\""; exit }
                      next }
            $h["policy"] != pol { next }
            load != "*" && index(";" load ";", ";" $h[axis] ";") == 0 { next }
            {
                v = $h[col]; c = $h[col "_ci95"]
                if (v == "") { miss = "no figure at " $h[axis]; exit }
                c = c == "" ? 0 : c; lo = v - c; hi = v + c
                ok = kind == "below" ? hi < t1 : kind == "above" ? lo > t1 : \
                     kind == "level" ? lo <= t1 && t1 <= hi : v >= t1 && v <= t2
                if (!ok) fails = fails " " $h[axis]
                figs = figs sprintf("%s%s: %.3f (%.3f-%.3f)", nf++ ? ", " : "", $h[axis], v, lo, hi)
                if (nf == 1 || v < mn) mn = v
                if (nf == 1 || v > mx) mx = v
            }
            END {
                if (miss == "" && nf == 0) miss = "no figure of " pol " at " load
                if (miss != "") { printf "MISSING|%s", miss; exit }
                span = sprintf("%.2f", mn) == sprintf("%.2f", mx) ? sprintf("%.2f", mn) : \
                       sprintf("%.2f-%.2f", mn, mx)
                gsub(/\{range\}/, span, wording)
                verdict = !check ? "-" : fails == "" ? "holds" : "FLIPPED"
                printf "%s|%s|%s|%s", verdict, wording, figs, fails
            }' "$rep")
        verdict=${res%%|*}
        rest=${res#*|}
        if [ "$verdict" = MISSING ]; then
            printf '  %-8s %s: %s\n' MISSING "$id" "$rest"
            nbad=$((nbad + 1)); continue
        fi
        text=${rest%%|*}; rest=${rest#*|}
        figs=${rest%%|*}; fails=${rest#*|}
        what="$metric / $base"
        [ "$base" = value ] && what=$metric
        printf '  %-8s %s\n' "$verdict" "$text"
        printf '           %s: %s %s %s at %s\n' "$id" "$pol" "$what" "$rel" "$figs"
        if [ "$verdict" = FLIPPED ]; then
            printf '           FLIPPED at%s: no longer %s\n' "$fails" "$rel"
            nbad=$((nbad + 1))
        fi
    done < "$ledger"
    if [ "$nbad" -ne 0 ]; then
        echo "claims: $nbad of $n rows of $ledger no longer hold or cannot be read (above)"
        ledger_bad=1
    elif [ $check = 1 ]; then
        echo "claims: all $n rows of $ledger hold"
    fi
}
