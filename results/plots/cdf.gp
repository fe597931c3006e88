# CDF of one per-entity quantity (a job's JCT, a request's TTFT ...), one line per policy, log
# x axis.
# Variables (set by `hetsim plot` with -e): term, sz and fs (the terminal, its size and font
# scales: see plot.c), outfile, plottitle, xlabel, ylabel; arrays F (data files: value,
# fraction), T (key titles), C (line types, one per policy, the same in every figure of an
# experiment); timex (1: x is a duration in seconds, ticked from microseconds to years);
# mark (> 0: a dashed vertical line there, e.g. rho = 1).
set terminal @term size 900*sz, 600*sz font sprintf(",%g", 11*fs) background rgb "white"
set output outfile
set title plottitle noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
set yrange [0:1.02]
set ytics 0.1
# the key below the plot, off the curves and clear of the axis label
set key below noenhanced height 1
set grid
set logscale x
if (timex) {
    # a tick per decade below a second (most latencies are there), then the clock's units
    set xtics ("1 µs" 1e-6, "10 µs" 1e-5, "100 µs" 1e-4, "1 ms" 1e-3, "10 ms" 1e-2, \
               "100 ms" 0.1, "1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, \
               "6 h" 21600, "1 d" 86400, "1 wk" 604800, "1 mo" 2592000, "1 yr" 31536000)
} else {
    set format x "%g"
}
if (mark > 0) {
    set arrow from mark, graph 0 to mark, graph 1 nohead dt 2 lw 1.5 lc rgb "gray40"
}
plot for [i=1:|F|] F[i] using 1:2 with steps lw 2 lc C[i] title T[i]
