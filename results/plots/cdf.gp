# CDF of one per-job quantity, one line per policy, log x axis.
# Variables (set by `hetsim plot` with -e): term ("pngcairo" or "svg"), outfile, plottitle,
# xlabel; arrays F (data files: value, fraction), T (key titles), C (line types, one per
# policy, the same in every figure of an experiment); timex (1: x is a duration in seconds,
# ticked in minutes, hours and days); mark (> 0: a dashed vertical line there, e.g. rho = 1).
set terminal term size 900,600 font ",11" background rgb "white"
set output outfile
set title plottitle noenhanced
set xlabel xlabel noenhanced
set ylabel "fraction of jobs (unfinished jobs: the curve stays below 1)"
set yrange [0:1.02]
set ytics 0.1
# the key below the plot, off the curves
set key below noenhanced
set grid
set logscale x
if (timex) {
    set xtics ("1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, "6 h" 21600, \
               "1 d" 86400, "1 wk" 604800, "1 mo" 2592000, "1 yr" 31536000)
} else {
    set format x "%g"
}
if (mark > 0) {
    set arrow from mark, graph 0 to mark, graph 1 nohead dt 2 lw 1.5 lc rgb "gray40"
}
plot for [i=1:|F|] F[i] using 1:2 with steps lw 2 lc C[i] title T[i]
