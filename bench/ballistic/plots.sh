#!/usr/bin/env bash
# Figures of docs/ballistic.md from the outputs of validate.sh, dt_factor.sh and scaling.sh.
# usage: bench/ballistic/plots.sh VALIDATION_DIR SCALING_DIR DT_FACTOR_DIR IMG_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
val=$1; scal=$2; dtf=$3; img=$4
mkdir -p "$img"
python3 "$here/tables.py" dat "$val" "$val"
# N_c, D_f, A_r against N for the three area fractions
gnuplot <<GP
set terminal pngcairo size 1200,380 font ",10"
set output "$img/ballistic_indicators.png"
set multiplot layout 1,3
set logscale x; set xrange [60:16000]; set key top left font ",8"; set xlabel "N"
set title "relative contacts per sphere N_c"; set yrange [0.49:0.57]
plot for [b=0:2] "$val/indicators.dat" index b u (\$2*1.04):3:4 w yerrorlines lw 1.5 pt 7 ps 0.6 lc b+1 t sprintf("TS, V_f = 0.%d", b+1), \
     for [b=0:2] "$val/indicators.dat" index b u (\$2/1.04):5:6 w yerrorlines dt 2 lw 1.5 pt 6 ps 0.6 lc b+1 t sprintf("ED, V_f = 0.%d", b+1)
set title "box-counting dimension D_f"; set yrange [1.4:2.0]
plot for [b=0:2] "$val/indicators.dat" index b u (\$2*1.04):7:8 w yerrorlines lw 1.5 pt 7 ps 0.6 lc b+1 t sprintf("TS, V_f = 0.%d", b+1), \
     for [b=0:2] "$val/indicators.dat" index b u (\$2/1.04):9:10 w yerrorlines dt 2 lw 1.5 pt 6 ps 0.6 lc b+1 t sprintf("ED, V_f = 0.%d", b+1)
set title "aspect ratio A_r"; set yrange [0.8:5]
plot for [b=0:2] "$val/indicators.dat" index b u (\$2*1.04):11:12 w yerrorlines lw 1.5 pt 7 ps 0.6 lc b+1 t sprintf("TS, V_f = 0.%d", b+1), \
     for [b=0:2] "$val/indicators.dat" index b u (\$2/1.04):13:14 w yerrorlines dt 2 lw 1.5 pt 6 ps 0.6 lc b+1 t sprintf("ED, V_f = 0.%d", b+1)
unset multiplot
GP
# P(r)
gnuplot <<GP
set terminal pngcairo size 800,420 font ",10"
set output "$img/ballistic_pr.png"
set multiplot layout 1,2
set logscale xy; set xrange [2:25]; set xlabel "r / mean radius"; set ylabel "P(r)"; set key top left font ",8"
set title "N = 2500"
plot for [b=0:2] "$val/pr_2500.dat" index b u 1:2 w lp lw 1.5 pt 7 ps 0.6 lc b+1 t sprintf("TS, V_f = 0.%d", b+1), \
     for [b=0:2] "$val/pr_2500.dat" index b u 1:4 w lp dt 2 lw 1.5 pt 6 ps 0.6 lc b+1 t sprintf("ED, V_f = 0.%d", b+1)
set title "N = 10000"
plot for [b=0:2] "$val/pr_10000.dat" index b u 1:2 w lp lw 1.5 pt 7 ps 0.6 lc b+1 t sprintf("TS, V_f = 0.%d", b+1), \
     for [b=0:2] "$val/pr_10000.dat" index b u 1:4 w lp dt 2 lw 1.5 pt 6 ps 0.6 lc b+1 t sprintf("ED, V_f = 0.%d", b+1)
unset multiplot
GP
# CPU time against N
grep '^ts' "$scal/scaling.csv" | tr ',' ' ' > "$scal/ts.dat"
grep '^ed' "$scal/scaling.csv" | tr ',' ' ' > "$scal/ed.dat"
gnuplot <<GP
set terminal pngcairo size 640,460 font ",10"
set output "$img/ballistic_scaling.png"
set logscale xy; set format y "10^{%L}"; set format x "10^{%L}"; set xlabel "N"; set ylabel "CPU time to one cluster (s)"; set key top left
set title "ballistic aggregation, V_f = 0.2, 2D, walls"
set fit quiet; set fit logfile "/dev/null"
lf(x) = la + b*x; la = -15; b = 1.2
fit [log(1000):*] lf(x) "$scal/ts.dat" u (log(\$2)):(log(\$4)) via la, b
lg(x) = lc + d*x; lc = -15; d = 1.2
fit [log(1000):*] lg(x) "$scal/ed.dat" u (log(\$2)):(log(\$4)) via lc, d
f(x) = exp(la)*x**b; g(x) = exp(lc)*x**d
plot "$scal/ts.dat" u 2:4:5 w yerrorbars pt 7 lc 1 t "time stepping (dt factor 1)", \
     [1000:*] f(x) lc 1 t sprintf("N^{%.2f}", b), \
     "$scal/ed.dat" u 2:4:5 w yerrorbars pt 6 lc 2 t "event driven", \
     [1000:*] g(x) lc 2 dt 2 t sprintf("N^{%.2f}", d), \
     [100:1e6] 2e-9*x**2 lc 0 dt 3 t "N^2 (reference)"
GP
# N_c against the time-step factor
if ls "$dtf"/n*_f*.csv > /dev/null 2>&1; then
  for n in 400 2500; do
    : > "$dtf/nc_$n.dat"
    for f in 1 0.5 0.25 0.1; do
      p="$dtf/n${n}_vf0.2_f$f.csv"; [ -f "$p" ] || continue
      awk -F, -v f=$f 'NR>1 && $1=="time_stepping" {t+=$8; nt++} NR>1 && $1=="event_driven" {e+=$8; ne++}
        END {printf "%s %.6g %.6g\n", f, t/nt, e/ne}' "$p" >> "$dtf/nc_$n.dat"
    done
  done
  gnuplot <<GP
set terminal pngcairo size 560,400 font ",10"
set output "$img/ballistic_dt_factor.png"
set logscale x; set xlabel "time-step factor (ballistic.dt factor)"; set ylabel "N_c"; set key top left; set xrange [0.08:1.2]
set title "time stepping against the exact dynamics, V_f = 0.2"
plot "$dtf/nc_400.dat" u 1:2 w lp pt 7 lc 1 t "TS, N = 400", "$dtf/nc_400.dat" u 1:3 w l dt 2 lc 1 t "ED, N = 400", \
     "$dtf/nc_2500.dat" u 1:2 w lp pt 7 lc 2 t "TS, N = 2500", "$dtf/nc_2500.dat" u 1:3 w l dt 2 lc 2 t "ED, N = 2500"
GP
fi
echo "figures in $img"
