# A time series, one line per policy.
# Variables: files, titles, outfile, term, plottitle, ylabel.
set terminal term size 900,560 font ",11"
set output outfile
set title plottitle noenhanced
set xlabel "simulated time (hours)"
set ylabel ylabel
set key top right noenhanced
set grid
plot for [i=1:words(files)] word(files, i) using ($1/3600):2 with lines lw 2 title word(titles, i)
