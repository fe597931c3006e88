# A metric against one swept axis: one line per policy (and combination of the other swept
# axes), points at the mean over seeds with 95% confidence intervals.
# Variables: term, sz and fs (the terminal, its size and font scales: see plot.c), outfile,
# plottitle, subtitle, xlabel, ylabel, datafile (one block per line,
# gnuplot index: x, mean, CI half-width or NaN, seeds, sd, CI low, CI high, the interval's ends
# clipped at the metric's natural bounds), cat (1: x is a category index, points are not
# joined), logx and logy (log axes), revx (1: the axis runs from its largest value on the left,
# so that load grows to the right), yscale (the values are divided by it: 3600 for hours,
# 0.001 for ms), xmin and xmax (the x values' range); arrays XV (the distinct x values, for the
# ticks), T (line titles), C (line types: one per policy), D (1, 2, ...: one per combination of
# the other axes, drawn as dash and point type), XL (category names when cat), ymeanmin (the
# smallest mean: on a log axis an interval reaching 0 is drawn down to half of it, the axis'
# foot, since log 0 would drop the whole bar).
n = |T|
set terminal @term size 960*sz, (600 + 20*int((n+1)/2))*sz font sprintf(",%g", 11*fs) \
    background rgb "white"
set output outfile
set title plottitle."\n".subtitle noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
# the key below the plot, off the data
set key below maxrows int((n+1)/2) noenhanced height 1
set grid
# the axes end at the data (plus margins), not at the next round tic
set autoscale yfix
set offsets 0, 0, graph 0.06, graph 0.06
# lines are moved sideways a little (dodged) so that their error bars do not hide each other;
# the data files keep the exact x values
if (cat) {
    set xtics () noenhanced
    do for [k=1:|XL|] { set xtics add (XL[k] k-1) }
    set xrange [-0.5:|XL|-0.5]
    dodge = n > 1 ? 0.4/(n-1) : 0
    xpos(i) = column(1) + dodge*(i - (n+1)/2.0)
} else {
    # ticks at the swept values (when there are few), the range 6% wider on each side
    if (|XV| <= 12 && XV[1] == XV[1]) {
        set xtics () noenhanced
        do for [k=1:|XV|] { set xtics add (sprintf("%g", XV[k]) XV[k]) }
    }
    if (logx) {
        set logscale x
        span = xmax > xmin ? log(xmax/xmin) : 1
        lo = xmin * exp(-0.06*span)
        hi = xmax * exp(0.06*span)
        dodge = n > 1 ? span*0.03/(n-1) : 0
        xpos(i) = column(1) * exp(dodge*(i - (n+1)/2.0))
    } else {
        span = xmax > xmin ? xmax - xmin : 1
        lo = xmin - 0.06*span
        hi = xmax + 0.06*span
        dodge = n > 1 ? span*0.03/(n-1) : 0
        xpos(i) = column(1) + dodge*(i - (n+1)/2.0)
    }
    if (revx) {
        set xrange [hi:lo]
    } else {
        set xrange [lo:hi]
    }
}
if (logy) {
    set logscale y
    set offsets 0, 0, 0, 0
}
array PT[6] = [7, 5, 9, 11, 13, 15]
pt(i) = PT[(D[i]-1)%6 + 1]
style = cat ? "points" : "linespoints"
# an interval's lower end; on a log axis one at or below 0 stops at the axis' foot
lowend(v) = logy && !(v > 0) ? ymeanmin/2 : v
plot for [i=1:n] datafile index (i-1) using (xpos(i)):($2/yscale) with @style \
         lw 2 pt pt(i) ps 1.2 lc C[i] dt D[i] title T[i], \
     for [i=1:n] datafile index (i-1) using (xpos(i)):($2/yscale):(lowend($6)/yscale):($7/yscale) \
         with yerrorbars lw 1.5 pt pt(i) ps 1.2 lc C[i] dt 1 notitle
