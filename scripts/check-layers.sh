#!/bin/sh
# check-layers: every #include "..." of the library against the layer rule (README,
# "Architecture").  A folder is a layer; a file may include its own layer and the layers its
# rule lists, nothing else.  Prints each broken include as FILE:LINE: includes TARGET (layer
# A may not include layer B) and exits 1; prints one summary line and exits 0 when all hold.
#
#   sim/base        leaf utilities: nothing of hetsim
#   models          performance models: sim/base
#   results         the metrics database: sim/base
#   sim/core        engine, event queue, machines: sim/base, models
#   sim/<world>     a world (train, serve, micro, place): sim/core, sim/base, models; never another
#                   world, sched, results or the driver
#   workloads       trace readers and generators: the worlds' job types, sim/core, sim/base,
#                   models
#   sched           policy head, registry, solvers: the worlds' views, sim/core, sim/base,
#                   models
#   sched/<domain>  policies: their world's view, sched, sim/core, sim/base, models
#   sim/run         the driver: everything below the batch and CLI layers
#   sim/batch       sweeps, pool, MPI: sim/run and below
#   sim/cli         main and the commands: anything
#
# "A world's view" is what a policy may know of it: its *_view.h headers and grant.h.
set -eu
cd "$(dirname "$0")/.."

worlds="train serve micro place"
domains="training:train elastic:train multiplex:train serving:serve micro:micro placement:place"

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
        to=$(layer_of "$target")
        if ! allowed "$from" "$target" "$to"; then
            echo "$f:$line: includes $target (layer $from may not include layer $to)"
            bad=$((bad + 1))
        fi
    done
done
if [ "$bad" -gt 0 ]; then
    echo "check-layers: $bad of $n includes break the layer rule (scripts/check-layers.sh)"
    exit 1
fi
echo "check-layers: $n includes in $(echo "$files" | wc -l) files follow the layer rule"
