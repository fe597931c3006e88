#!/bin/sh
# doc-test: run every ```sh block of README.md and doc/*.md, as a reader would type it, in a
# scratch copy of the project (its files linked, results/ its own), and fail naming the page
# and line of each block that exits non-zero.  A block may be preceded by a comment line:
#     <!-- doc-test: skip REASON -->      not run (say why: it is make test itself, it takes
#                                          minutes, it needs MPI or Slurm, it is interrupted)
#     <!-- doc-test: env NAME=VALUE ... --> run with these variables (QUICK=1 for a paper's
#                                          script: seconds instead of minutes)
# Blocks of one page run in order in one scratch directory, so a later block may read what an
# earlier one wrote.  Environment: HETSIM=PATH, the binary (default ./hetsim); DOC_PAGES,
# the pages (default README.md doc/*.md); DOC_TMP, where the scratch copies go.
#
#   scripts/doc-test.sh            run every block, print one line per block
#   scripts/doc-test.sh --list     print the blocks (page:line, skip/env, first command)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hetsim=${HETSIM:-$root/hetsim}
case $hetsim in /*) ;; *) hetsim=$root/$hetsim ;; esac
pages=${DOC_PAGES:-"README.md $(ls doc/*.md)"}
tmp=$(mktemp -d "${DOC_TMP:-${TMPDIR:-/tmp}}/hetsim-doc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
list=0
[ "${1:-}" = --list ] && list=1

# page -> blocks: "LINE<TAB>MODE<TAB>ARG" headers, then the block's lines, then an end mark
extract() {
    awk '
        /^<!-- doc-test: / { ann = $0; sub(/^<!-- doc-test: /, "", ann); sub(/ -->$/, "", ann)
                             next }
        !inb && /^```sh$/ { inb = 1; n++
                            mode = ann == "" ? "run" : ann; sub(/ .*/, "", mode)
                            arg = ann; sub(/^[a-z]+ ?/, "", arg)
                            printf "@@block %d\t%s\t%s\n", NR, mode, arg; ann = ""; next }
        inb && /^```$/ { inb = 0; print "@@end"; next }
        inb { print; next }
        NF { ann = "" }' "$1"
}

failed=0 ran=0 skipped=0
for page in $pages; do
    work=$tmp/$(echo "$page" | tr / _)/main
    mkdir -p "$work"
    # the project, linked: every top-level entry but results/ and the binary
    for e in "$root"/* "$root"/.ci; do
        b=$(basename "$e")
        case $b in results|hetsim|build) continue ;; esac
        ln -s "$e" "$work/$b"
    done
    mkdir -p "$work/results"
    for e in "$root"/results/*; do
        [ "$(basename "$e")" = out ] || ln -s "$e" "$work/results/"
    done
    ln -s "$hetsim" "$work/hetsim"
    [ -e "$root/../shared" ] && ln -s "$(cd "$root/../shared" && pwd)" "$tmp/$(echo "$page" | tr / _)/shared"
    extract "$page" > "$tmp/blocks"
    awk -v dir="$tmp" '
        /^@@block / { n++; f = dir "/b" n ".sh"; sub(/^@@block /, ""); print > (dir "/b" n ".h")
                      close(dir "/b" n ".h"); next }
        /^@@end$/ { close(f); next }
        { print > f }' "$tmp/blocks"
    k=1
    while [ -f "$tmp/b$k.h" ]; do
        IFS='	' read -r line mode arg < "$tmp/b$k.h"
        first=$(grep -v '^[[:space:]]*\(#\|$\)' "$tmp/b$k.sh" | head -1 | cut -c1-70)
        if [ $list = 1 ]; then
            printf '%s:%s  %s %s  %s\n' "$page" "$line" "$mode" "$arg" "$first"
        elif [ "$mode" = skip ]; then
            skipped=$((skipped + 1))
            printf 'skip  %s:%s  %s (%s)\n' "$page" "$line" "$first" "$arg"
        else
            t0=$(date +%s)
            if (cd "$work" && env HETSIM=./hetsim $([ "$mode" = env ] && echo "$arg") \
                    sh -e "$tmp/b$k.sh") > "$tmp/out" 2>&1; then
                printf 'ok    %s:%s  %s (%ss)\n' "$page" "$line" "$first" $(($(date +%s) - t0))
            else
                failed=$((failed + 1))
                printf 'FAIL  %s:%s  %s\n' "$page" "$line" "$first"
                tail -n 15 "$tmp/out" | sed 's/^/      /'
            fi
            ran=$((ran + 1))
        fi
        rm -f "$tmp/b$k.h" "$tmp/b$k.sh"
        k=$((k + 1))
    done
done
[ $list = 1 ] && exit 0
echo "doc-test: $ran blocks run, $skipped skipped, $failed failed"
[ $failed -eq 0 ]
