# A time series (queue length), one line per policy.
# Variables: term, outfile, plottitle, ylabel, tmax_h (last sample, hours); arrays F (data
# files: time in seconds, value), T (key titles), C (line types, one per policy).
set terminal term size 900,560 font ",11" background rgb "white"
set output outfile
set title plottitle noenhanced
set xlabel "simulated time (hours)"
set ylabel ylabel noenhanced
set xrange [0:tmax_h > 0 ? tmax_h : 1]
set yrange [0:*]
set key top right noenhanced box opaque
set grid
# a value holds from its sample time until the next one
plot for [i=1:|F|] F[i] using ($1/3600):2 with steps lw 2 lc C[i] title T[i]
