# Utilization over time, one panel per GPU type (the first: all types), one line per policy.
# Variables: term, sz and fs (the terminal, its size and font scales: see plot.c), outfile,
# plottitle, tdiv and tunit (the time axis: 3600 and "hours", or 86400 and "days"), tmax (its
# end in that unit: soon after the last busy GPU); arrays P (panel titles), S and E (panel p
# draws entries S[p]..E[p] of F, T, C), F (data files: time in seconds, busy fraction over the
# sample period ending then), T (key titles), C (line types, one per policy, so a policy has
# the same colour in every panel).
npan = |P|
H = 150 + 210*npan
set terminal @term size 900*sz, H*sz font sprintf(",%g", 11*fs) background rgb "white"
set output outfile
# the panels leave room at the top for the title and the key, off the data
top = 1 - 110.0/H
set multiplot layout npan, 1 title plottitle noenhanced margins 0.1, 0.97, 60.0/H, top \
    spacing 0, 40.0/H
set grid
set xrange [0:tmax > 0 ? tmax : 1]
set yrange [0:1.05]
set ytics 0.25
set ylabel "busy fraction"
do for [p=1:npan] {
    set title P[p] noenhanced offset 0,-0.6
    if (p == 1) {
        set key at screen 0.5, screen top + 30.0/H center bottom horizontal noenhanced
    } else {
        unset key
    }
    if (p == npan) {
        set xlabel "simulated time (".tunit.")"
        set format x "%g"
    } else {
        unset xlabel
        set format x ""
    }
    # a value is the mean over the period ending at its time: it holds back to the previous
    plot for [k=S[p]:E[p]] F[k] using ($1/tdiv):2 with fsteps lw 1.5 lc C[k] title T[k]
}
unset multiplot
