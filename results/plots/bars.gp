# Summary bars: metrics of each policy as a ratio to a baseline policy.
# Variables: term, outfile, plottitle, subtitle, ylabel, base (baseline name), datafile (one
# row per metric: name, then per policy: mean, low, high, seeds; NaN when missing); arrays
# T (policy titles), C (line types, as in the other figures), L (metric names, one per row),
# D (per row: which way is better, e.g. "lower is better").
n = |T|
gap = 1    # keep in step with "gap 1" below
set terminal term size (n > 4 ? 1200 : 960),600 font ",11" background rgb "white"
set output outfile
set title plottitle."\n".subtitle noenhanced
set ylabel ylabel noenhanced
set bmargin 6.5
set key at screen 0.5, screen 0.015 center bottom horizontal noenhanced
set grid ytics
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "black"
set boxwidth 0.95
set yrange [0:*]
set xtics noenhanced nomirror

set xrange [-0.6:|L|-0.4]
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 lc rgb "black" front
# gnuplot drops a point when its expression reads a NaN column, so the interval columns are
# read only when the seeds column says there are two or more.
# Bar i of a cluster is centred at row + (i - (n+1)/2) / (n + gap); its error bar is a vector
# from low to high with flat heads (yerrorbars would punch a hole at the mean).
xbar(i) = $0 + (i - (n+1)/2.0)/(n + gap)
ci(i) = column(4*i+1) > 1
top(i) = ci(i) ? column(4*i) : column(4*i-2)
plot for [i=1:n] datafile using (column(4*i-2)):xtic(L[int($0)+1]."\n".D[int($0)+1]) \
         lc C[i] title T[i], \
     for [i=1:n] datafile using (xbar(i)):(ci(i) ? column(4*i-1) : NaN):(0): \
         (ci(i) ? column(4*i) - column(4*i-1) : NaN) \
         with vectors heads size screen 0.006,90 lw 1.5 lc rgb "black" notitle, \
     for [i=1:n] datafile using (xbar(i)):(top(i)):(sprintf("%.2f", column(4*i-2))) \
         with labels offset 0,0.7 font ",9" notitle, \
     NaN with lines lw 2 dt 2 lc rgb "black" title base." = 1"
