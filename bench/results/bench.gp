# SPDX-License-Identifier: MIT OR GPL-2.0-only
# written by dmapool-bench; redraw with: gnuplot bench.gp
set terminal svg size 1280,1140 dynamic enhanced font 'sans,11' background '#ffffff'
set output 'bench.svg'
set multiplot layout 3,2
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left font ',9' samplen 1.5
set termoption noenhanced
set xtics font ',8' rotate by -20
set yrange [0.1:1000]
set title "dmapool_test" font ',11'
set logscale y
set ylabel 'time / linux-embedded (lower is better)'
plot 'bench-dmapool_test.dat' using 2:xtic(1) title columnheader(2) lc rgb '#9467bd', '' using 3 title columnheader(3) lc rgb '#2ca02c', '' using 4 title columnheader(4) lc rgb '#1f77b4', '' using 5 title columnheader(5) lc rgb '#17becf', '' using 6 title columnheader(6) lc rgb '#ff7f0e', 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'
unset logscale y
set yrange [0.1:1000]
set title "random-free" font ',11'
set logscale y
set ylabel 'time / linux-embedded (lower is better)'
plot 'bench-random-free.dat' using 2:xtic(1) title columnheader(2) lc rgb '#9467bd', '' using 3 title columnheader(3) lc rgb '#2ca02c', '' using 4 title columnheader(4) lc rgb '#1f77b4', '' using 5 title columnheader(5) lc rgb '#17becf', '' using 6 title columnheader(6) lc rgb '#ff7f0e', 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'
unset logscale y
set yrange [0.1:1000]
set title "churn" font ',11'
set logscale y
set ylabel 'time / linux-embedded (lower is better)'
plot 'bench-churn.dat' using 2:xtic(1) title columnheader(2) lc rgb '#2ca02c', '' using 3 title columnheader(3) lc rgb '#1f77b4', '' using 4 title columnheader(4) lc rgb '#17becf', '' using 5 title columnheader(5) lc rgb '#ff7f0e', 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'
unset logscale y
set yrange [0.1:100]
set title "threads" font ',11'
set logscale y
set ylabel 'time / linux-embedded (lower is better)'
plot 'bench-threads.dat' using 2:xtic(1) title columnheader(2) lc rgb '#9467bd', '' using 3 title columnheader(3) lc rgb '#2ca02c', '' using 4 title columnheader(4) lc rgb '#1f77b4', '' using 5 title columnheader(5) lc rgb '#17becf', '' using 6 title columnheader(6) lc rgb '#ff7f0e', 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'
unset logscale y
set yrange [0.1:100000]
set title "memory" font ',11'
set logscale y
set ylabel 'host metadata, % of DMA memory'
plot 'bench-memory.dat' using 2:xtic(1) title columnheader(2) lc rgb '#7f7f7f', '' using 3 title columnheader(3) lc rgb '#9467bd', '' using 4 title columnheader(4) lc rgb '#2ca02c', '' using 5 title columnheader(5) lc rgb '#1f77b4', '' using 6 title columnheader(6) lc rgb '#17becf', '' using 7 title columnheader(7) lc rgb '#ff7f0e'
unset logscale y
set yrange [0.1:10000]
set title "icount" font ',11'
set logscale y
set ylabel 'instructions / linux-embedded (lower is better)'
plot 'bench-icount.dat' using 2:xtic(1) title columnheader(2) lc rgb '#9467bd', '' using 3 title columnheader(3) lc rgb '#2ca02c', '' using 4 title columnheader(4) lc rgb '#1f77b4', '' using 5 title columnheader(5) lc rgb '#17becf', '' using 6 title columnheader(6) lc rgb '#ff7f0e', 1 with lines lw 2 lc rgb '#000000' title 'linux-embedded'
unset logscale y
unset multiplot
