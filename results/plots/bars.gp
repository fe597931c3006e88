# Summary bars: metrics of each policy as a ratio to a baseline policy.
# Variables: term, sz and fs (the terminal, its size and font scales: see plot.c), outfile,
# plottitle, subtitle, ylabel, base (baseline name), datafile (one row per metric: name, then
# per policy: mean, low, high, seeds; NaN when missing); logy (1: a log axis, bars from 1; 0:
# linear, bars from 0), lowest and top (the smallest positive bar end and the largest, at
# least 1: the axis reaches them with room for the labels), ticklines (lines of the tallest
# tick label);
# arrays T (policy titles), C (line types, as in the other figures), L (metric labels, one per
# row, wrapped), D (per row: which way is better, e.g. "↓ better").
n = |T|
m = |L|
gap = 1
W = n * m > 16 ? 1200 : 960
H = 600
set terminal @term size W*sz, H*sz font sprintf(",%g", 11*fs) background rgb "white"
set output outfile
# Fixed margins, so that a pixel is a known share of the axis and the value labels can be
# kept off the line at 1: px(pt) is the height of a font of pt points in pixels (cairo and
# svg draw a point a pixel; a line of text takes a little more).
px(pt) = pt * 1.2
lm = 90.0 / W
rm = 1 - 20.0 / W
bm = (55 + ticklines * 1.2 * px(11)) / H
tm = 1 - (25 + 2 * 1.2 * px(11)) / H
set lmargin at screen lm
set rmargin at screen rm
set bmargin at screen bm
set tmargin at screen tm
set title plottitle."\n".subtitle noenhanced
set ylabel ylabel noenhanced
set key at screen 0.5, screen 0.015 center bottom horizontal noenhanced
set grid ytics
set style fill solid 0.85 border rgb "black"
set xtics () noenhanced nomirror scale 0
do for [k=1:m] { set xtics add (L[k]."\n".D[k] k-1) }
set xrange [-0.6:m-0.4]
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 lc rgb "black" front
# Bar i of a cluster is centred at row + (i - (n+1)/2) / (n + gap) and drawn from the base (0,
# or 1 on a log axis) to its mean; its error bar is a vector from low to high with flat heads.
# gnuplot drops a point when its expression reads a NaN column, so the interval columns are
# read only when the seeds column says there are two or more.
bw = 0.95 / (n + gap)
xbar(i) = $0 + (i - (n+1)/2.0)/(n + gap)
ci(i) = column(4*i+1) > 1
bottom = logy ? 1 : 0
clip(y) = logy && y < ymin ? ymin : y
# The value labels: 3 significant digits; upright above (below, for a bar under 1 on a log
# axis) the bar and its error bar, or turned a quarter when the bars are narrower than a
# label.  A label that would touch the dashed line at 1 moves just above it.
lab(v) = v < 0.1 ? sprintf("%.2g", v) : v < 10 ? sprintf("%.2f", v) : \
         v < 100 ? sprintf("%.1f", v) : sprintf("%.0f", v)
slot = (rm - lm) * W / (m * (n + gap))
turn = slot < 5 * 0.6 * px(9) + 2
labh = turn ? 6 * 0.6 * px(9) : px(9)
# the axis: the bars' ends and room for a label beyond them (room pixels of the plot's P)
P = (tm - bm) * H
room = labh + 10
if (logy) {
    d = log10(top) - log10(lowest)
    pad = d * room / (P - 2 * room)
    ymin = 10**(log10(lowest) - pad)
    ymax = 10**(log10(top) + pad)
    set logscale y
} else {
    ymin = 0
    ymax = top * P / (P - room)
}
set yrange [ymin:ymax]
u(y) = logy ? log10(y) : y
iu(y) = logy ? 10**y : y
dpp = (u(ymax) - u(ymin)) / P
hi(i) = ci(i) ? column(4*i) : column(4*i-2)
lo(i) = ci(i) ? clip(column(4*i-1)) : column(4*i-2)
down(i) = logy && column(4*i-2) < 1
ctr(i) = down(i) ? u(lo(i)) - (4 + labh/2) * dpp : u(hi(i)) + (4 + labh/2) * dpp
away(c) = abs(c - u(1)) < (labh/2 + 4) * dpp ? u(1) + (labh/2 + 4) * dpp : c
laby(i) = iu(away(ctr(i)))
if (turn) {
    labstyle = "rotate by 90"
} else {
    labstyle = "norotate"
}
plot for [i=1:n] datafile using (xbar(i)):(column(4*i-2)):(xbar(i)-bw/2):(xbar(i)+bw/2): \
         (bottom):(clip(column(4*i-2))) with boxxyerror lc C[i] title T[i], \
     for [i=1:n] datafile using (xbar(i)):(ci(i) ? clip(column(4*i-1)) : NaN):(0): \
         (ci(i) ? column(4*i) - clip(column(4*i-1)) : NaN) \
         with vectors heads size screen 0.006,90 lw 1.5 lc rgb "black" notitle, \
     for [i=1:n] datafile using (xbar(i)):(laby(i)):(lab(column(4*i-2))) \
         with labels @labstyle font sprintf(",%g", 9*fs) notitle, \
     NaN with lines lw 2 dt 2 lc rgb "black" title base." = 1"
