# SPDX-License-Identifier: MIT OR GPL-2.0-only
# written by dmapool-bench: the panels, loaded by bench.gp
set multiplot layout 4,2 title "dmapool-bench bdf3155-dirty on Intel(R) Xeon(R) Processor, 2 CPUs, load 1.11 2.48 4.21, 2026-12-02 03:07 UTC\nbars: medians of paired ratios, whiskers: min-max over the pairs; below the dashed line is faster" font ',11'
set style fill solid 0.8 border -1
set grid ytics
set key outside right top vertical font ',8' samplen 1
set termoption noenhanced
set xtics font ',8' rotate by -15
set title "dmapool_test (in order): time vs linux-6.12"
set ylabel "time / linux-6.12"
unset logscale y
set yrange [0:3]
set xrange [-0.6:5.6]
set xtics ("16/16/0" 0, "64/64/0" 1, "256/256/0" 2, "1024/1024/0" 3, "4096/4096/0" 4, "68/32/4096" 5)
plot 'bench-dmapool_test.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12 (A/A)', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-dmapool_test.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-dmapool_test.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-dmapool_test.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-dmapool_test.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-dmapool_test.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "random-free: time vs linux-6.12"
set ylabel "time / linux-6.12"
unset logscale y
set yrange [0:3]
set xrange [-0.6:5.6]
set xtics ("16/16/0" 0, "64/64/0" 1, "256/256/0" 2, "1024/1024/0" 3, "4096/4096/0" 4, "68/32/4096" 5)
plot 'bench-random-free.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12 (A/A)', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-random-free.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-random-free.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-random-free.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-random-free.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-random-free.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "churn: time vs linux-6.12"
set ylabel "time / linux-6.12"
unset logscale y
set yrange [0:3]
set xrange [-0.6:0.6]
set xtics ("1Mx64B/b32" 0)
plot 'bench-churn.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12 (A/A)', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-churn.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-churn.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-churn.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-churn.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-churn.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "hardening options vs the default pool, in order"
set ylabel "time / default pool"
unset logscale y
set yrange [0:3]
set xrange [-0.6:5.6]
set xtics ("16/16/0" 0, "64/64/0" 1, "256/256/0" 2, "1024/1024/0" 3, "4096/4096/0" 4, "68/32/4096" 5)
plot 'bench-options-dmapool_test.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#bcbd22' title 'dmapool+quarantine', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-dmapool_test.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#393b79' title 'dmapool+redzone16', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-options-dmapool_test.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#637939' title 'dmapool+random', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-dmapool_test.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#843c39' title 'dmapool+poison', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-options-dmapool_test.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#7b4173' title 'dmapool+poison-sampled', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-dmapool_test.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#3182bd' title 'dmapool+scrub', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "hardening options vs the default pool, random order"
set ylabel "time / default pool"
unset logscale y
set yrange [0:3]
set xrange [-0.6:5.6]
set xtics ("16/16/0" 0, "64/64/0" 1, "256/256/0" 2, "1024/1024/0" 3, "4096/4096/0" 4, "68/32/4096" 5)
plot 'bench-options-random-free.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#bcbd22' title 'dmapool+quarantine', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-random-free.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#393b79' title 'dmapool+redzone16', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-options-random-free.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#637939' title 'dmapool+random', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-random-free.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#843c39' title 'dmapool+poison', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-options-random-free.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#7b4173' title 'dmapool+poison-sampled', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-options-random-free.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#3182bd' title 'dmapool+scrub', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "threads: wall time per pair vs linux-6.12"
set ylabel "time / linux-6.12"
unset logscale y
set yrange [0:3]
set xrange [-0.6:5.6]
set xtics ("1 thread" 0, "2 threads" 1, "4 threads" 2, "prod/cons" 3, "1 thr bulk32" 4, "2 thr bulk32" 5)
plot 'bench-threads.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12 (A/A)', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-threads.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-threads.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "threads: scaling (compute loop = the machine)"
set ylabel "throughput / 1 thread"
unset logscale y
set yrange [0:2.5]
set xrange [-0.6:3.6]
set xtics ("2 threads" 0, "4 threads" 1, "prod/cons" 2, "2 thr bulk32" 3)
plot 'bench-threads-scaling.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads-scaling.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-threads-scaling.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads-scaling.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-threads-scaling.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-threads-scaling.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-threads-scaling.dat' index 6 using 1:2:3:4:5 with boxerrorbars lc rgb '#555555' title 'compute-loop', '' index 6 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 1 with lines lw 1.5 dt 2 lc rgb '#000000' notitle
set title "memory: host metadata"
set ylabel "host metadata, % of DMA memory"
set logscale y
set yrange [0.01:100000]
set xrange [-0.6:6.6]
set xtics ("16/16/0" 0, "64/64/0" 1, "256/256/0" 2, "1024/1024/0" 3, "4096/4096/0" 4, "68/32/4096" 5, "churn 1Mx64B" 6)
plot 'bench-memory.dat' index 0 using 1:2:3:4:5 with boxerrorbars lc rgb '#000000' title 'linux-6.12', '' index 0 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-memory.dat' index 1 using 1:2:3:4:5 with boxerrorbars lc rgb '#7f7f7f' title 'linux-embedded', '' index 1 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-memory.dat' index 2 using 1:2:3:4:5 with boxerrorbars lc rgb '#2ca02c' title 'xarray-fix', '' index 2 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-memory.dat' index 3 using 1:2:3:4:5 with boxerrorbars lc rgb '#1f77b4' title 'dmapool', '' index 3 using 1:2:6 with labels offset 0,1.2 font ',7' notitle, 'bench-memory.dat' index 4 using 1:2:3:4:5 with boxerrorbars lc rgb '#17becf' title 'dmapool-handle', '' index 4 using 1:2:6 with labels offset 0,0.5 font ',7' notitle, 'bench-memory.dat' index 5 using 1:2:3:4:5 with boxerrorbars lc rgb '#d62728' title 'dmapool-shared', '' index 5 using 1:2:6 with labels offset 0,1.2 font ',7' notitle
unset multiplot
