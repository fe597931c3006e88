#!/bin/sh
# check-layers: every #include "..." of the library against the layer rule
# (doc/architecture.md), and no circles between files.  A folder is a layer; a file may include its
# own layer and the layers its rule lists, nothing else.  Inside a layer, dependencies point
# one way too: no two files include each other, and no two of the library's files call each
# other (nor does a longer chain of includes or calls close a loop), so that every pair of
# modules has a lower and an upper one.  Prints each broken include as FILE:LINE: includes
# TARGET (layer A may not include layer B), each circle as "circle: A <-> B (calls)", and
# exits 1; prints one summary line and exits 0 when all hold.
#
#   scripts/check-layers.sh [BUILD]     BUILD: where the library's objects are (build/rel by
#                                       default; `make check-layers` builds them first)
#
# Calls are read from the objects: file A calls file B when A.o refers to a symbol (function
# or variable) that B.o defines (nm), which a declaration written into A.c instead of B's
# header cannot hide.  HETSIM_LAYERS_ROOT checks another tree of the same folders (the tests
# plant circles in one).
#
#   sim/base        leaf utilities: nothing of hetsim
#   models          performance models: sim/base
#   results         the metrics database: sim/base
#   sim/core        engine, event queue, machines: sim/base, models
#   sim/<world>     a world (train, serve, micro, place, colocate): sim/core, sim/base, models;
#                   never another world, sched, results or the driver
#   workloads       trace readers and generators: the worlds' job types, sim/core, sim/base,
#                   models
#   sched           policy head, registry, solvers: the worlds' views, sim/core, sim/base,
#                   models, and sched/python/pybridge.h (the dispatch layer opens py: policies)
#   sched/<domain>  policies: their world's view, sched, sim/core, sim/base, models
#   sched/python    the bridge to policies written in Python: every world's view, sched and
#                   the domains' solvers (sched/*), sim/core, sim/base, models
#   sim/run         the driver: everything below the batch and CLI layers
#   sim/batch       sweeps, pool, MPI: sim/run and below
#   sim/cli         main and the commands: anything
#
# "A world's view" is what a policy may know of it: its *_view.h headers and grant.h.
set -eu
cd "${HETSIM_LAYERS_ROOT:-$(dirname "$0")/..}"
build=${1:-build/rel}
export LC_ALL=C

worlds="train serve micro place colocate"
domains="training:train elastic:train multiplex:train serving:serve micro:micro placement:place colocate:colocate"

layer_of() {                    # the layer a path belongs to
    case $1 in
    sim/base/*) echo sim/base ;;
    sim/core/*) echo sim/core ;;
    sim/run/*) echo sim/run ;;
    sim/batch/*) echo sim/batch ;;
    sim/cli/*) echo sim/cli ;;
    sim/*/*) echo "sim/$(echo "$1" | cut -d/ -f2)" ;;
    sched/*/*) echo "sched/$(echo "$1" | cut -d/ -f2)" ;;
    sched/*) echo sched ;;
    models/*) echo models ;;
    results/*) echo results ;;
    workloads/*) echo workloads ;;
    *) echo other ;;
    esac
}

is_view() {                     # a header a policy may read of its world
    case $1 in
    sim/*/*_view.h | sim/*/grant.h) return 0 ;;
    *) return 1 ;;
    esac
}

world_of_domain() {
    for d in $domains; do
        [ "${d%%:*}" = "$1" ] && { echo "${d#*:}"; return; }
    done
    echo none
}

allowed() {                     # allowed FROM_LAYER TARGET_PATH TARGET_LAYER
    from=$1 target=$2 to=$3
    [ "$from" = "$to" ] && return 0
    case $from in
    sim/base) return 1 ;;
    models | results) [ "$to" = sim/base ] ;;
    sim/core) [ "$to" = sim/base ] || [ "$to" = models ] ;;
    sim/run) case $to in sim/batch | sim/cli) return 1 ;; *) return 0 ;; esac ;;
    sim/batch) [ "$to" != sim/cli ] ;;
    sim/cli) return 0 ;;
    workloads)
        case $to in sim/base | sim/core | models) return 0 ;; esac
        for w in $worlds; do [ "$to" = "sim/$w" ] && return 0; done
        return 1 ;;
    sched)
        case $to in sim/base | sim/core | models) return 0 ;; esac
        # the dispatch layer opens policies written in Python through the bridge's header
        [ "$target" = sched/python/pybridge.h ] && return 0
        is_view "$target" ;;
    sched/python)               # the Python bridge: every world's view, as sched itself, and
                                # the domains' shared solvers it offers (sched/micro/msopt.h)
        case $to in sched | sched/* | sim/base | sim/core | models) return 0 ;; esac
        is_view "$target" ;;
    sched/*)
        case $to in sched | sim/base | sim/core | models) return 0 ;; esac
        w=$(world_of_domain "${from#sched/}")
        [ "$to" = "sim/$w" ] && is_view "$target" ;;
    sim/*)                      # a world
        case $to in sim/base | sim/core | models) return 0 ;; *) return 1 ;; esac ;;
    *) return 1 ;;
    esac
}

files=$(find sim models results sched workloads -name '*.[ch]' | sort)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/includes"
bad=0 n=0
for f in $files; do
    from=$(layer_of "$f")
    dir=$(dirname "$f")
    # FILE:LINE:TARGET for each quoted include
    for hit in $(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
                 sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1:\2/'); do
        line=${hit%%:*} inc=${hit#*:}
        target=$(realpath -m --relative-to=. "$dir/$inc")
        n=$((n + 1))
        if [ ! -f "$target" ]; then
            echo "$f:$line: includes $inc, which does not exist"
            bad=$((bad + 1))
            continue
        fi
        echo "$f $target" >> "$tmp/includes"
        to=$(layer_of "$target")
        if ! allowed "$from" "$target" "$to"; then
            echo "$f:$line: includes $target (layer $from may not include layer $to)"
            bad=$((bad + 1))
        fi
    done
done

# ---- calls: A B when A's object refers to a symbol B's object defines
srcs=$(echo "$files" | grep '\.c$' | grep -v '^sim/cli/main\.c$')
: > "$tmp/defs"
: > "$tmp/uses"
missing=0
for f in $srcs; do
    o="$build/${f%.c}.o"
    if [ ! -f "$o" ]; then
        missing=$((missing + 1))
        continue
    fi
    nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3, f }' >> "$tmp/defs"
    nm -u "$o" | awk -v f="$f" '{ print $NF, f }' >> "$tmp/uses"
done
if [ "$missing" -gt 0 ]; then
    echo "check-layers: $missing of the library's files have no object under $build/:" \
         "run make check-layers, which builds them"
    exit 1
fi
sort -k1,1 -o "$tmp/defs" "$tmp/defs"
sort -k1,1 -o "$tmp/uses" "$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/calls"

# ---- circles: a pair of files with edges both ways, then any longer loop (tsort)
circles() {                     # circles KIND EDGES: prints them, returns how many
    awk -v kind="$1" '
        { e[$1 " " $2] = 1; from[NR] = $1; to[NR] = $2 }
        END { c = 0
              for (i = 1; i <= NR; i++)
                  if (from[i] < to[i] && e[to[i] " " from[i]]) {
                      printf "circle: %s <-> %s (%s each other)\n", from[i], to[i], kind; c++ }
              exit c > 0 }' "$2"
}
loops=0
for kind in includes calls; do
    if ! circles "$kind" "$tmp/$kind"; then
        loops=$((loops + 1))
    elif ! tsort "$tmp/$kind" > /dev/null 2> "$tmp/tsort"; then
        echo "circle: a loop of $kind through these files (tsort):"
        grep -v 'input contains a loop' "$tmp/tsort" | sed 's/^tsort: /    /'
        loops=$((loops + 1))
    fi
done

if [ "$bad" -gt 0 ]; then
    echo "check-layers: $bad of $n includes break the layer rule (scripts/check-layers.sh)"
fi
if [ "$loops" -gt 0 ]; then
    echo "check-layers: files that include or call each other: split what they share into" \
         "the lower one (scripts/check-layers.sh)"
fi
[ "$bad" -eq 0 ] && [ "$loops" -eq 0 ] || exit 1
echo "check-layers: $n includes in $(echo "$files" | wc -l) files follow the layer rule;" \
     "$(wc -l < "$tmp/calls") calls between $(echo "$srcs" | wc -l) files, no circles"
