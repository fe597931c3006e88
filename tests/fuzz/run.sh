#!/bin/sh
# run.sh: the libFuzzer harnesses one after the other, as `make fuzz` runs them (from the
# repository's root): each for SECONDS from its committed seeds (tests/fuzz/corpus/NAME/,
# what it adds going to tests/fuzz/corpus-run/NAME/, crashes to tests/fuzz/crashes/NAME/),
# then a table of every harness's executions, per wall second and per CPU second (its
# process's user + system time, which other work on the machine does not lower).
#
#   tests/fuzz/run.sh BUILD SECONDS MIN_RATE "EXTRA ARGS" NAME...
#
# Fails (exit 1) when a harness crashed (its report is printed) or ran fewer than MIN_RATE
# executions per CPU second (0: no floor): a slow harness finds little in CI's 20 s.  The
# table is also written to BUILD/fuzz-summary.txt.
set -u
build=$1 secs=$2 min=$3 extra=$4
shift 4

# CPU seconds (user + system) of the shell's children, from the second line of what `times`
# wrote into FILE (`times` must run in this shell, not in a $(...) subshell, which has no
# children of its own yet)
cpu_of() {
    sed -n 2p "$1" | tr -d 's' | tr 'm' ' ' |
        awk '{ printf "%.3f\n", $1 * 60 + $2 + $3 * 60 + $4 }'
}

summary=$build/fuzz-summary.txt
printf '%-14s %11s %7s %7s %11s %10s\n' harness executions wall_s cpu_s per_wall_s \
    per_cpu_s > "$summary"
failed= slow=
for t in "$@"; do
    mkdir -p "tests/fuzz/corpus-run/$t" "tests/fuzz/crashes/$t"
    dict=
    [ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
    echo "== fuzz_$t: $secs s (log: $build/$t.log)"
    times > "$build/.times0"
    w0=$(date +%s.%N)
    # shellcheck disable=SC2086 # $dict and $extra are lists of options
    if HETSIM_DATA=$PWD "$build/fuzz_$t" -max_total_time="$secs" -timeout=30 \
           -print_final_stats=1 $dict -artifact_prefix="tests/fuzz/crashes/$t/" $extra \
           "tests/fuzz/corpus-run/$t" "tests/fuzz/corpus/$t" > "$build/$t.log" 2>&1; then
        ok=1
    else
        ok=0
        failed="$failed $t"
        grep -E -A12 '^==[0-9]+==ERROR|runtime error|^fuzz harness|Test unit written' \
            "$build/$t.log" | head -40 | sed 's/^/   /'
    fi
    times > "$build/.times1"
    w1=$(date +%s.%N)
    c0=$(cpu_of "$build/.times0")
    c1=$(cpu_of "$build/.times1")
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$t.log")
    line=$(echo "$t ${n:-0} $w0 $w1 $c0 $c1 $min" | awk '{
        wall = $4 - $3; cpu = $6 - $5
        pw = wall > 0 ? $2 / wall : 0; pc = cpu > 0 ? $2 / cpu : 0
        printf "%-14s %11d %7.1f %7.1f %11.0f %10.0f%s", $1, $2, wall, cpu, pw, pc,
               ($7 > 0 && pc < $7) ? "  SLOW" : "" }')
    echo "$line" >> "$summary"
    echo "   $line"
    case $line in
    *SLOW) [ "$ok" = 1 ] && slow="$slow $t" ;;
    esac
done
echo "== executions of each harness ($secs s each; per CPU second: user + system time)"
sed 's/^/   /' "$summary"
status=0
if [ -n "$failed" ]; then
    echo "fuzz: crashes in:$failed (reproducers in tests/fuzz/crashes/)"
    status=1
fi
if [ -n "$slow" ]; then
    echo "fuzz: fewer than $min executions per CPU second:$slow (bound the input or split" \
         "the harness; tests/fuzz/README.md)"
    status=1
fi
exit $status
