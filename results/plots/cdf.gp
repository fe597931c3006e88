# CDF of one per-job quantity, one line per policy.
# Variables (set by `hetsim plot` with -e): files, titles (space-separated, same order),
# outfile, term ("pngcairo" or "svg"), plottitle, xlabel, logx (1 for a log x axis).
set terminal term size 900,560 font ",11"
set output outfile
set title plottitle noenhanced
set xlabel xlabel
set ylabel "fraction of jobs"
set yrange [0:1]
set key bottom right noenhanced
set grid
if (logx) set logscale x
plot for [i=1:words(files)] word(files, i) using 1:2 with steps lw 2 title word(titles, i)
