# A time series (queue length), one line per policy.
# Variables: term, sz and fs (the terminal, its size and font scales: see plot.c), outfile,
# plottitle, ylabel, tdiv and tunit (the time axis: 3600 and "hours", or 86400 and "days"),
# tmax (its end in that unit); arrays F (data files: time in seconds, value), T (key
# titles), C (line types, one per policy).
set terminal @term size 900*sz, 560*sz font sprintf(",%g", 11*fs) background rgb "white"
set output outfile
set title plottitle noenhanced
set xlabel "simulated time (".tunit.")"
set ylabel ylabel noenhanced
set xrange [0:tmax > 0 ? tmax : 1]
set yrange [0:*]
# the key below the plot, off the data
set key below noenhanced height 1
set grid
# a value holds from its sample time until the next one
plot for [i=1:|F|] F[i] using ($1/tdiv):2 with steps lw 2 lc C[i] title T[i]
