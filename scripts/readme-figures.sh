#!/bin/sh
# readme-figures: the figures the README and doc/*.md quote, made by running hetsim, never
# typed.  Each block of README.md or of a page of doc/ between
#     <!-- figures: NAME -->
# and
#     <!-- /figures -->
# is replaced by the output of the generator NAME below (in a fenced block).  `make
# readme-figures` runs every generator; FIGURES="run-table calibration" only those; --list
# prints the generators; --check NAME prints what NAME makes without touching the README
# (tests compare it with the README's block).
#
#   run-table      the table `make run` prints (the default experiment, both policies)
#   report-group   five seeds of mixed_synthetic, grouped, paired ratios to fifo
#   calibration    Gavel mode on gavel_philly beside Gavel's own simulator
#   pollux-calibration  Pollux mode on pollux_wl1 beside Pollux's own simulator (mean JCT and
#                  the jobs whose JCT is Pollux's, from ../shared/reference/pollux/)
#   pollux-policy  the pollux policy on pollux_wl1 beside Pollux's simulator's Tiresias and
#                  Optimus (mean JCT, median, preemptions, migrations; a few seconds)
#   fft-claims     scripts/reproduce/fft.sh's claims table (80 runs, about 5 minutes, into
#                  results/out/fft, resumed if already there)
#   fft-why        from fft.sh's runs: what sets the mean JCT (the longest jobs), queueing,
#                  medians, fairness, per policy and load (mean over the seeds)
#   oef-claims     scripts/reproduce/oef.sh's claims table (60 runs: seconds)
#   oef-why        from oef.sh's runs: utilization and throughput per policy and load
#   fgd-claims     scripts/reproduce/fgd.sh's claims table (60 runs, a few minutes, into
#                  results/out/fgd, resumed if already there)
#   fgd-why        from fgd.sh's runs: where each policy's idle GPU is left, per load
#   fgd-speed      tests/bench_fgd.c alone (fgd_openb's six policies, time and memory)
#   derm-claims    scripts/reproduce/derm.sh's claims tables and ledgers under both truths and
#                  why Derm's intervals break the SLA (360 runs into results/out/derm, resumed
#                  if already there)
#   derm-why       from derm.sh's runs: containers, violations, misses and P95 per policy
#                  and load (mean over the seeds), under each truth
#   derm-predictors  scripts/fit/derm_trainticket.sh's predictor errors on Derm's sequences
#                  (DERM=DIR, default ../shared/traces/derm)
#   micro-speed    the microservice world's benchmark (build/rel/bench_micro.bin)
#   heet-claims    scripts/reproduce/heet.sh's claims tables, Heet's and Sia's (160 runs, a few
#                  minutes, into results/out/heet, resumed if already there)
#   iadeep-claims  scripts/reproduce/iadeep.sh's ratios (280 runs, under a minute, into
#                  results/out/iadeep, resumed if already there)
#   iadeep-why     from iadeep.sh's runs per policy and load, and IADeep's ablations
#                  (learned or oracle, pairs profiled, no batch tuning, two jobs per GPU, no
#                  gate, no batch pressure on co-runners) at 2x, 4x
#   gavel-colocation-claims  scripts/reproduce/gavel_colocation.sh's table (160 runs, a few
#                  minutes, into results/out/gavel_colocation, resumed if already there)
#   mux-speed      tests/bench_mux.c (re-rating cost on shared GPUs)
#   speed          `make bench` (minutes; figures of the machine it runs on)
#   timeline-cost  the timeline's cost: the bench's 100,000-job run, the serving hour and a million
#                  requests, fgd_openb, each with and without sim.timeline (a few minutes)
#   llm-fit        scripts/fit-llm.sh's residuals of the LLM latency model (seconds; the fit
#                  is written to a scratch file, the shipped one is left as it is)
#   hetis-claims   scripts/reproduce/hetis.sh's claims tables (375 runs, a few minutes, into
#                  results/out/hetis*, resumed if already there)
#   hetis-why      from hetis.sh's runs: throughput, latency, KV use and moves, preemptions per
#                  policy and rate (mean over the seeds), Llama-2-70B, 13B and OPT-30B
#   serve-speed    tests/bench_serve alone (a minute)
#   sia-workload   sia_workload on Sia's three traces under Sia, Heet, AFS and SRSF: mean
#                  JCT and Sia's paired ratios with bootstrap intervals (12 runs, seconds)
#   colocate-claims  scripts/reproduce/colocate.sh's claims table (45 runs, about 4 minutes on
#                  2 cores, into results/out/colocate, resumed if already there)
#   claims-summary from the claims blocks of doc/reproduce.md (run the *-claims generators
#                  first): per ledger, the rows that hold and its first statement
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hetsim=${HETSIM:-./hetsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

generators="run-table report-group calibration pollux-calibration pollux-policy fft-claims fft-why oef-claims
oef-why fgd-claims fgd-why fgd-speed llm-fit hetis-claims hetis-why serve-speed derm-claims
derm-why derm-predictors micro-speed heet-claims iadeep-claims iadeep-why gavel-colocation-claims
mux-speed speed timeline-cost sia-workload colocate-claims claims-summary"

gen_run_table() {
    "$hetsim" run default --db "$tmp/run.db" 2>/dev/null
}

gen_report_group() {
    for s in 1 2 3 4 5; do
        "$hetsim" run mixed_synthetic --seed "$s" --set workload.jobs=150 --db "$tmp/group.db" \
            -q 2>/dev/null
    done
    "$hetsim" report --db "$tmp/group.db" --experiment mixed_synthetic --group --baseline fifo \
        --columns jct_mean,ftf_mean | cut -c1-132 | sed "s/ *$//"
}

# Gavel's own simulator on the same trace and cluster (reference numbers of its OSDI'20
# artifact, stanford-futuredata/gavel @c4fa400, run unmodified)
gen_calibration() {
    printf '%-16s %16s %16s %10s\n' policy "hetsim JCT (s)" "Gavel JCT (s)" difference
    for pj in fifo_perf:4827253.271 gavel_las:555618.813 gavel_las_perf:444524.685; do
        p=${pj%%:*} ref=${pj#*:}
        "$hetsim" run gavel_philly --policy "$p" --db "$tmp/gavel.db" -q 2>/dev/null
        v=$("$hetsim" report --db "$tmp/gavel.db" --where "policy = '$p'" --columns jct_mean \
                --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                                        { v = $h["jct_mean"] } END { print v }')
        awk -v p="$p" -v v="$v" -v r="$ref" 'BEGIN {
            d = (v - r) / r * 100; printf "%-16s %16.0f %16.0f %9.2f%%\n", p, v, r, d }'
    done
}

# Pollux's own simulator on workload-1, 16 x 4 T4 (its OSDI'21 artifact, petuum/adaptdl
# osdi21-artifact @c793c70, run unmodified): mean JCT and per-job JCTs by job name
gen_pollux_calibration() {
    ref=${POLLUX_REF:-$root/../shared/reference/pollux}
    printf '%-16s %15s %15s %10s %15s\n' policy "hetsim JCT (s)" "Pollux JCT (s)" difference \
        "jobs as Pollux"
    for pj in pollux_tiresias:tiresias:2473.65 optimus:optimus:4087.0625; do
        p=${pj%%:*} rest=${pj#*:} name=${rest%%:*} r=${rest#*:}
        "$hetsim" run pollux_wl1 --policy "$p" --db "$tmp/pollux.db" -q 2>/dev/null
        "$hetsim" export --db "$tmp/pollux.db" --table jobs --where "policy = '$p'" \
            > "$tmp/jobs.csv"
        awk -F, -v p="$p" -v r="$r" -v wl=workloads/traces/pollux/workload-1.csv \
            -v refcsv="$ref/wl1_${name}_perjob.csv" '
            BEGIN {
                n = 0; while ((getline l < wl) > 0) { if (n++) { split(l, f, ","); id[n - 2] = f[1] } }
                while ((getline l < refcsv) > 0) { sub(/\r$/, "", l); split(l, f, ","); want[f[1]] = f[3] }
            }
            NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
            { jct = $h["jct_s"]; s += jct; k++; if (want[id[$h["job_id"]]] == jct + 0) m++ }
            END { v = s / k; printf "%-16s %15.4f %15.4f %9.3f%% %11d/%d\n", p, v, r,
                                    (v - r) / r * 100, m, k }' "$tmp/jobs.csv"
    done
}

gen_pollux_policy() {
    "$hetsim" run pollux_wl1 --db "$tmp/ppol.db" -q 2>/dev/null
    printf '%-16s %12s %12s %11s %10s %12s   %s\n' policy "jct_mean (s)" "jct_p50 (s)" \
        preemptions migrations "makespan (s)" "Pollux's simulator: mean JCT (s)"
    for pr in pollux_tiresias:2473.65 optimus:4087.0625 pollux:-; do
        p=${pr%%:*} r=${pr#*:}
        "$hetsim" export --db "$tmp/ppol.db" --table metrics --where "policy = '$p'" \
            > "$tmp/m.csv"
        awk -F, -v p="$p" -v r="$r" '
            NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
            { v[$h["name"]] = $h["value"] }
            END { printf "%-16s %12.2f %12.1f %11d %10d %12.0f   %s\n", p, v["jct_mean"],
                         v["jct_p50"], v["preemptions"], v["migrations"], v["makespan"],
                         r == "-" ? "(not run here)" : r }' \
            "$tmp/m.csv"
    done
    for p in pollux pollux_tiresias optimus; do
        "$hetsim" export --db "$tmp/ppol.db" --table metrics --where "policy = '$p'" |
            awk -F, -v p="$p" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
                $h["name"] == "jct_mean" { print p "," $h["value"] }'
    done > "$tmp/m.csv"
    awk -F, '
        { v[$1] = $2 }
        END {
            printf "mean JCT, pollux / baseline: %.3f of Tiresias, %.3f of Optimus (%.0f%% and %.0f%% lower);\n",
                   v["pollux"] / v["pollux_tiresias"], v["pollux"] / v["optimus"],
                   100 * (1 - v["pollux"] / v["pollux_tiresias"]), 100 * (1 - v["pollux"] / v["optimus"])
            printf "the Pollux paper (OSDI 2021): 37-50%% lower than its baselines (0.50-0.63 of them)\n"
        }' "$tmp/m.csv"
}

# From the claims blocks of doc/reproduce.md (made by the *-claims generators, so run them
# first): per ledger, how many rows hold, and its first statement (continued while a row ends
# with "...").
gen_claims_summary() {
    awk '
        /^The claims as / {
            f = $0; sub(/.*claims\//, "", f); sub(/\.csv.*/, "", f)
            name = f; nrow = 0; want = 1; next
        }
        name != "" && /^  (holds|FLIPPED|MISSING|-) / {
            v = $1; t = $0; sub(/^  [^ ]+ +/, "", t)
            if (want) {
                if (nrow) { sub(/ \.\.\.$/, "", text); sub(/^\.\.\. /, "", t) }
                text = nrow ? text " " t : t; nrow++
                want = t ~ /\.\.\.$/ && nrow < 3
            }
            next
        }
        name != "" && /^claims: / {
            n = $0; sub(/^claims: /, "", n); sub(/ of scripts.*/, "", n)
            sub(/ rows$/, "", n)
            if ($0 ~ /hold$/ && $0 ~ /all/) { sub(/^all /, "", n); n = n " of " n " hold" }
            else { split($0, w, " "); n = w[2] " of " w[4] " no longer hold" }
            printf "%-17s %s\n", name, n
            line = ""; words = split(text, ww, " ")
            for (i = 1; i <= words; i++) {
                if (length(line) + length(ww[i]) + 1 > 84) { printf "  %s\n", line; line = "" }
                line = line == "" ? ww[i] : line " " ww[i]
            }
            if (line != "") printf "  %s\n", line
            name = ""
        }' doc/reproduce.md
}

# Sia's own workloads (sia_workload on its three traces) under Sia, Heet, AFS and fixed-size
# SRSF: mean JCT over the jobs each finished, and Sia's ratio to each baseline over the jobs
# both finished, with a 95% bootstrap interval over those jobs (2,000 resamples, paired by job;
# a Park-Miller generator seeded with 1, so the figures do not depend on the awk).
gen_sia_workload() {
    wdir=../shared/traces/pollux_sia/sia_sosp23/workloads
    db=$tmp/siaw.db
    for t in philly saturn newtrace; do
        for p in sia heet afs srsf; do
            "$hetsim" run sia_workload --policy "$p" --set "workload.trace=$wdir/${t}_workload-1.csv" \
                --db "$db" -q 2>/dev/null
        done
    done
    printf '%-9s %5s %8s %8s %8s %8s   %-21s %-21s %-21s\n' trace jobs sia heet afs srsf \
        "sia / afs" "sia / heet" "sia / srsf"
    for t in philly saturn newtrace; do
        sqlite3 -separator ' ' "$db" "SELECT r.policy, j.job_id, coalesce(j.jct_s, -1) FROM jobs j
            JOIN runs r ON r.id = j.run_id
            WHERE json_extract(r.config_json, '$.workload.trace') LIKE '%/${t}_workload-1.csv'
            ORDER BY r.policy, j.job_id" |
        awk -v trace="$t" '
            function rnd() { seed = (16807 * seed) % 2147483647; return seed / 2147483647 }
            { jct[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; ids[++n] = $2 } }
            END {
                split("sia heet afs srsf", pol, " ")
                for (k = 1; k <= 4; k++) {
                    s = 0; c = 0; u = 0
                    for (i = 1; i <= n; i++)
                        if (jct[pol[k], ids[i]] >= 0) { s += jct[pol[k], ids[i]]; c++ } else u++
                    mean[k] = s / c; unf[k] = u
                }
                printf "%-9s %5d", trace, n
                for (k = 1; k <= 4; k++) printf " %8.1f", mean[k]
                printf "  "
                for (k = 3; k >= 2; k--) ratio(k)
                ratio(4)
                printf "\n"
                for (k = 1; k <= 4; k++)
                    if (unf[k] > 0)
                        printf "          (%s left %d jobs unfinished: stalled, doc/reproduce.md)\n", pol[k], unf[k]
            }
            function ratio(k,    m, i, a, b, r, sa, sb, x, j, lo, hi, v) {
                m = 0
                for (i = 1; i <= n; i++)
                    if (jct[pol[1], ids[i]] >= 0 && jct[pol[k], ids[i]] >= 0) {
                        m++; a[m] = jct[pol[1], ids[i]]; b[m] = jct[pol[k], ids[i]]
                    }
                sa = 0; sb = 0
                for (i = 1; i <= m; i++) { sa += a[i]; sb += b[i] }
                seed = 1
                for (r = 1; r <= 2000; r++) {
                    x = 0; v = 0
                    for (i = 1; i <= m; i++) { j = int(rnd() * m) + 1; x += a[j]; v += b[j] }
                    rs[r] = x / v
                }
                # sort the 2,000 ratios (insertion sort is enough here)
                for (i = 2; i <= 2000; i++) {
                    x = rs[i]
                    for (j = i - 1; j >= 1 && rs[j] > x; j--) rs[j + 1] = rs[j]
                    rs[j + 1] = x
                }
                printf " %5.3f [%5.3f, %5.3f]", sa / sb, rs[50], rs[1951]
            }'
    done
}

gen_claims() {
    sh "scripts/reproduce/$1.sh" 2>/dev/null |
        sed -n '/beside this reproduction/,$p'
}

# PAPER SWEEP AXIS COLUMNS [dash]: the mean over the seeds of each column, per policy and
# load (with a fifth argument, "-" where a policy has no such figure, else 0)
why_report() {
    "$hetsim" report --db "results/out/$1/$1.db" --sweep "$2" --group --columns "$4" \
        --format csv |
        awk -F, -v axis="$3" -v cols="$4" -v dash="${5:-}" '
            BEGIN { n = split(cols, c, ","); fa = "%-" length(axis) "s" }
            NR == 1 {
                for (i = 1; i <= NF; i++) h[$i] = i
                printf "%-15s " fa, "policy", axis
                for (k = 1; k <= n; k++) printf " %*s", length(c[k]), c[k]
                printf "\n"
                next
            }
            {
                printf "%-15s " fa, $h["policy"], $h[axis]
                for (k = 1; k <= n; k++) {
                    v = $h[c[k]]; a = v < 0 ? -v : v
                    if (dash != "" && v == "")
                        printf " %*s", length(c[k]), "-"
                    else
                        printf " " (a >= 100 ? "%*.0f" : "%*.3f"), length(c[k]), v
                }
                printf "\n"
            }'
}

gen_fft_why() {
    why_report fft fft_load workload.arrival_scale jct_mean,jct_p50,queue_delay_mean,ftf_mean,ftf_max
    echo
    sqlite3 -header -column results/out/fft/fft.db "
        WITH r AS (SELECT id, policy,
                          json_extract(config_json, '\$.workload.arrival_scale') AS load,
                          (SELECT sum(jct_s) FROM (SELECT jct_s FROM jobs WHERE run_id = runs.id
                                                   ORDER BY jct_s DESC LIMIT 6)) * 1.0 /
                          (SELECT sum(jct_s) FROM jobs WHERE run_id = runs.id) AS top6,
                          (SELECT count(*) FROM jobs WHERE run_id = runs.id
                                                       AND jct_s > 7 * 86400) AS week,
                          (SELECT value FROM metrics WHERE run_id = runs.id
                                                       AND name = 'makespan') / 86400 AS days
                   FROM runs)
        SELECT policy, load AS arrival_scale, printf('%.2f', avg(top6)) AS jct_share_6_longest,
               printf('%.1f', avg(week)) AS jobs_over_a_week,
               printf('%.1f', avg(days)) AS makespan_days
        FROM r GROUP BY policy, load ORDER BY policy, load DESC"
    echo
    echo "At the trace's pace (arrival_scale 1), mean over the seeds:"
    echo "GPU-hours by type of the jobs that run for more than a week"
    sqlite3 -header -column results/out/fft/fft.db "
        SELECT r.policy, g.gpu_type,
               printf('%.0f', sum(g.gpu_s) / 3600 / count(DISTINCT r.id)) AS gpu_hours
        FROM runs r JOIN jobs j ON j.run_id = r.id
             JOIN job_gpu_seconds g ON g.run_id = j.run_id AND g.job_id = j.job_id
        WHERE json_extract(r.config_json, '\$.workload.arrival_scale') = 1
          AND j.jct_s > 7 * 86400
        GROUP BY r.policy, g.gpu_type ORDER BY r.policy, g.gpu_type"
    echo
    echo "the jobs with finish-time fairness rho > 2: how many, how long alone, how long queued"
    sqlite3 -header -column results/out/fft/fft.db "
        SELECT r.policy, printf('%.1f', count(*) * 1.0 / count(DISTINCT r.id)) AS jobs,
               printf('%.0f', avg(j.t_iso_s)) AS isolated_s,
               printf('%.0f', avg(j.queue_delay_s)) AS queued_s
        FROM runs r JOIN jobs j ON j.run_id = r.id
        WHERE json_extract(r.config_json, '\$.workload.arrival_scale') = 1 AND j.ftf_rho > 2
        GROUP BY r.policy ORDER BY r.policy"
}

gen_oef_why() {
    why_report oef oef_load workload.rate_per_hour util_total_window,throughput_norm_window,jct_mean,ftf_mean
}

gen_derm_why() {
    echo "queueing truth (derm_load):"
    why_report derm derm_load workload.rate_per_s containers_mean,sla_violation_prob,sla_miss_frac,e2e_p95
    echo "fit's truth (derm_load_fit):"
    why_report derm derm_load_fit workload.rate_per_s containers_mean,sla_violation_prob,sla_miss_frac,e2e_p95
}

gen_derm_predictors() {
    sh scripts/fit/derm_trainticket.sh "${DERM:-../shared/traces/derm}" "$tmp/fit" | tail -2
}

gen_micro_speed() {
    make --no-print-directory -s build/rel/bench_micro.bin >/dev/null 2>&1
    HETSIM_DATA=$root build/rel/bench_micro.bin
}

# where the idle GPU is left at the end: whole GPUs never allocated and slivers of shared ones
# (GPUs), and FGD's split of the idle milli by what the typical pods lack (its categories,
# weighted by the pod types' shares), mean over the seeds
gen_fgd_why() {
    why_report fgd fgd_openb sim.load gpus_unallocated,gpus_fragmented,gpu_alloc_frac,cpu_alloc_frac
    echo
    sqlite3 -header -column results/out/fgd/fgd.db "
        WITH m AS (SELECT r.id, r.policy, p.num AS load,
                          max(CASE WHEN m.name = 'gpus_total' THEN m.value END) AS gpus,
                          max(CASE WHEN m.name = 'gpus_unallocated' THEN m.value END) AS idle,
                          max(CASE WHEN m.name = 'gpu_alloc_frac' THEN m.value END) AS used,
                          max(CASE WHEN m.name = 'idle_q1_lack_both_frac' THEN m.value END) AS q1,
                          max(CASE WHEN m.name = 'idle_q2_lack_gpu_frac' THEN m.value END) AS q2,
                          max(CASE WHEN m.name = 'idle_q4_lack_cpu_frac' THEN m.value END) AS q4,
                          max(CASE WHEN m.name IN ('idle_xl_satisfied_frac', 'idle_xr_lack_cpu_frac')
                                   THEN m.value END) AS cpuonly
                   FROM runs r JOIN run_params p ON p.run_id = r.id AND p.key = 'sim.load'
                        JOIN metrics m ON m.run_id = r.id GROUP BY r.id)
        SELECT policy, load, printf('%.0f', avg(gpus * (1 - used))) AS whole_gpus_idle,
               printf('%.0f', avg(idle - gpus * (1 - used))) AS slivers_idle_gpus,
               printf('%.2f', avg(q1 + q2)) AS idle_lacking_gpu,
               printf('%.2f', avg(q4)) AS idle_lacking_cpu_only
        FROM m GROUP BY policy, load ORDER BY load, avg(idle)"
    echo
    echo "the tie order: fgd and best fit at 1.3x with a fresh random draw among equal scores"
    echo "for each pod (\"ties\": \"random\", as upstream Kubernetes) instead of FGD's fixed"
    echo "random node order, five seeds"
    for seed in 42 43 44 45 46; do
        "$hetsim" run fgd_openb --seed "$seed" --db "$tmp/ties.db" -q --set \
            'policies=[{"name": "fgd", "label": "fgd_random_ties", "ties": "random"},
                       {"name": "bestfit", "label": "bestfit_random_ties", "ties": "random"}]' \
            2>/dev/null
    done
    "$hetsim" report --db "$tmp/ties.db" --group --columns milli_alloc_frac,gpu_alloc_frac \
        | cut -c1-132 | sed "s/ *$//" | grep -v '^mean'
}

gen_hetis_why() {
    cols=tokens_per_s,e2e_mean,ttft_p95,tpot_p50,kv_used_frac,kv_moved_gb,preemptions,util_A100-80GB,util_RTX3090,util_P100
    echo "Llama-2-70B"
    why_report hetis hetis_load workload.rate_per_s "$cols"
    echo
    echo "Llama-2-13B"
    why_report hetis_13b hetis_load_13b workload.rate_per_s "$cols"
    echo
    echo "OPT-30B"
    why_report hetis_opt30b hetis_load_opt30b workload.rate_per_s "$cols"
}

gen_iadeep_why() {
    why_report iadeep iadeep_load workload.rate_per_hour \
        jct_mean,queue_delay_mean,makespan,util_total,pred_error_mean,pred_unseen_error_mean dash
    echo
    echo "IADeep's parts, 5 seeds at 2x and 4x (ratios to mps_even; pred_error_mean and, for the"
    echo "combinations it had not measured when it predicted them, pred_unseen_error_mean, means"
    echo "over the seeds): iadeep learns (known_pairs 0.5), iadeep_oracle reads the world's rates,"
    echo "iadeep_k0 / _k25 / _k1 profiled no pair / a quarter / every pair; iadeep_notune keeps every"
    echo "batch (candidates 1), iadeep_2 packs two jobs a GPU, iadeep_loose packs whatever the"
    echo "degradation (slack 8); first with the experiment's model (pressure_exp 0.655), then with"
    echo "multiplex.pressure_exp 0 (a co-runner's batch does not change the slowdown it causes),"
    echo "which the learned variants believe too, but iadeep_wrong, which still believes 0.655"
    for theta in 0.655 0; do
        b="\"pressure_exp\": $theta"
        for r in 540 1080; do
            for s in 1 2 3 4 5; do
                "$hetsim" run iadeep_3090 --seed "$s" --set workload.rate_per_hour=$r \
                    --set multiplex.pressure_exp=$theta --db "$tmp/abl_$theta.db" -q --set \
                    "policies=[{\"name\": \"iadeep\", $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_oracle\",
                                \"predictor\": \"oracle\"},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_k0\", \"known_pairs\": 0, $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_k25\", \"known_pairs\": 0.25, $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_k1\", \"known_pairs\": 1, $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_notune\", \"candidates\": 1, $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_2\", \"max_jobs\": 2, $b},
                               {\"name\": \"iadeep\", \"label\": \"iadeep_loose\", \"slack\": 8, $b},
                               $( [ "$theta" = 0 ] && echo '{"name": "iadeep", "label": "iadeep_wrong"},' )
                               \"mps_even\"]" 2>/dev/null
            done
        done
        echo
        echo "pressure_exp $theta:"
        "$hetsim" report --db "$tmp/abl_$theta.db" --group --baseline mps_even \
            --columns jct_mean,makespan,pred_error_mean,pred_unseen_error_mean --format csv |
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i
                               printf "%-15s %6s %18s %18s %10s %10s\n", "policy", "load",
                                      "jct_mean/mps", "makespan/mps", "pred_err", "unseen_err"
                               next }
                     { o = $h["overrides"]; sub(/.*rate_per_hour=/, "", o); sub(/[ ;].*/, "", o)
                       e = $h["pred_error_mean"] == "" ? "-" : sprintf("%.3f", $h["pred_error_mean"])
                       u = $h["pred_unseen_error_mean"] == "" ? "-" : \
                           sprintf("%.3f", $h["pred_unseen_error_mean"])
                       printf "%-15s %6s %11.3f±%.3f %11.3f±%.3f %10s %10s\n", $h["policy"],
                              o, $h["jct_mean/mps_even"],
                              $h["jct_mean/mps_even_ci95"], $h["makespan/mps_even"],
                              $h["makespan/mps_even_ci95"], e, u }'
    done
}

gen() {
    case $1 in
    run-table) gen_run_table ;;
    report-group) gen_report_group ;;
    calibration) gen_calibration ;;
    pollux-calibration) gen_pollux_calibration ;;
    pollux-policy) gen_pollux_policy ;;
    fft-claims) gen_claims fft ;;
    fft-why) gen_fft_why ;;
    oef-claims) gen_claims oef ;;
    oef-why) gen_oef_why ;;
    fgd-claims) gen_claims fgd ;;
    fgd-why) gen_fgd_why ;;
    fgd-speed) make --no-print-directory -s build/rel/bench_fgd.bin >/dev/null 2>&1
        HETSIM_DATA=$root build/rel/bench_fgd.bin ;;
    derm-claims) gen_claims derm ;;
    derm-why) gen_derm_why ;;
    derm-predictors) gen_derm_predictors ;;
    micro-speed) gen_micro_speed ;;
    heet-claims) sh scripts/reproduce/heet.sh 2>/dev/null | sed -n '/^Heet (ASPLOS 2024)/,$p' |
        grep -v -e '^wrote [0-9]* figures' -e '^figures and reports:' -e '^sweep ' \
            -e '^[0-9]* runs to do' ;;
    iadeep-claims) sh scripts/reproduce/iadeep.sh 2>/dev/null | sed -n '/^IADeep (SC 2023)/,$p' ;;
    iadeep-why) gen_iadeep_why ;;
    gavel-colocation-claims) sh scripts/reproduce/gavel_colocation.sh 2>/dev/null |
        sed -n '/^Gavel (OSDI 2020)/,$p' ;;
    mux-speed) make --no-print-directory -s build/rel/bench_mux.bin >/dev/null 2>&1
        HETSIM_DATA=$root build/rel/bench_mux.bin ;;
    speed) make --no-print-directory -s bench 2>/dev/null | grep -v -e '^make' -e '^  CC' -e '^cc ' -e '^ar ' ;;
    timeline-cost)
        make --no-print-directory -s build/rel/bench.bin build/rel/bench_serve.bin \
            build/rel/bench_fgd.bin >/dev/null 2>&1
        BENCH_ONLY=timeline HETSIM_DATA="$root" build/rel/bench.bin &&
        BENCH_ONLY=timeline HETSIM_DATA="$root" build/rel/bench_serve.bin &&
        BENCH_ONLY=timeline HETSIM_DATA="$root" build/rel/bench_fgd.bin ;;
    llm-fit) OUT="$tmp/llm_fit.json" HETSIM="$hetsim" sh scripts/fit-llm.sh ;;
    hetis-claims) gen_claims hetis ;;
    colocate-claims) gen_claims colocate ;;
    claims-summary) gen_claims_summary ;;
    sia-workload) gen_sia_workload ;;
    hetis-why) gen_hetis_why ;;
    serve-speed) make --no-print-directory -s build/rel/bench_serve.bin >/dev/null 2>&1 &&
                 HETSIM_DATA="$root" build/rel/bench_serve.bin ;;
    *) echo "readme-figures: no generator '$1' (one of: $generators)" >&2; return 2 ;;
    esac
}

case "${1:-}" in
--list)
    for g in $generators; do echo "$g"; done
    exit 0 ;;
--check)
    gen "$2"
    exit 0 ;;
"") ;;
*)
    echo "usage: scripts/readme-figures.sh [--list | --check NAME]   (FIGURES=\"NAME ...\")" >&2
    exit 2 ;;
esac

[ -x "$hetsim" ] || make --no-print-directory -s hetsim
for g in ${FIGURES:-$generators}; do
    # the page that holds the block: the README or one of doc/*.md
    page=
    for f in README.md doc/*.md; do
        if grep -q "<!-- figures: $g -->" "$f"; then page=$f; break; fi
    done
    [ -n "$page" ] || continue
    echo "readme-figures: $g ($page)" >&2
    gen "$g" > "$tmp/$g.out"
    awk -v name="$g" -v file="$tmp/$g.out" '
        $0 == "<!-- figures: " name " -->" {
            print; print "```"
            while ((getline l < file) > 0) print l
            print "```"; skip = 1; next
        }
        skip && $0 == "<!-- /figures -->" { skip = 0 }
        !skip' "$page" > "$tmp/page.md"
    cp "$tmp/page.md" "$page"
done
