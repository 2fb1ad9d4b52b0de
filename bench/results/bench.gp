# SPDX-License-Identifier: MIT OR GPL-2.0-only
# written by dmapool-bench; redraw with: gnuplot bench.gp
set terminal svg size 1640,2060 dynamic font 'sans,11' background '#ffffff'
set output 'bench.svg'
load 'bench-panels.gp'
unset output
# pngcairo where gnuplot has it, else libgd's png
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
	set terminal pngcairo size 1640,2060 font 'sans,10' background '#ffffff'
} else {
	set terminal png size 1640,2060 background '#ffffff'
}
set output 'bench.png'
load 'bench-panels.gp'
unset output
