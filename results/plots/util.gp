# Utilization over time, one panel per GPU type (the first: all types), one line per policy.
# Variables: term, outfile, plottitle, tmax_h (last sample, hours); arrays P (panel titles),
# S and E (panel p draws entries S[p]..E[p] of F, T, C), F (data files: time in seconds,
# busy fraction over the sample period ending then), T (key titles), C (line types, one per
# policy, so a policy has the same colour in every panel).
npan = |P|
set terminal term size 900, 120 + 210*npan font ",11" background rgb "white"
set output outfile
set multiplot layout npan, 1 title plottitle noenhanced
set grid
set xrange [0:tmax_h > 0 ? tmax_h : 1]
set yrange [0:1.05]
set ytics 0.25
set lmargin 10
set rmargin 3
set ylabel "busy fraction"
do for [p=1:npan] {
    set title P[p] noenhanced offset 0,-0.6
    if (p == 1) {
        set key top right horizontal noenhanced box opaque
    } else {
        unset key
    }
    if (p == npan) {
        set xlabel "simulated time (hours)"
        set format x "%g"
    } else {
        unset xlabel
        set format x ""
    }
    # a value is the mean over the period ending at its time: it holds back to the previous
    plot for [k=S[p]:E[p]] F[k] using ($1/3600):2 with fsteps lw 1.5 lc C[k] title T[k]
}
unset multiplot
