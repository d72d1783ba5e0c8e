#!/bin/sh
# Fraction of the lotto's particles in the upper half of the rotating box (carried up by the
# walls) against time, for the three runs of examples/gluey_lotto.ini; writes docs/img/gluey_lotto.png.
# usage: bench/gluey/lotto_plot.sh DIR_INELASTIC DIR_ROUGH DIR_SMOOTH
set -e
for d in "$1" "$2" "$3"; do
  awk '/^160$/{getline; split($0,a,"Time="); split(a[2],b," "); t=b[1]; up=0;
       for(k=0;k<160;k++){getline; if ($3>0.375) up++} printf "%s %.4f\n", t, up/160}' \
      "$d/trajectory.xyz" > "$d/upper.dat"
done
gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output 'docs/img/gluey_lotto.png'
set xlabel 'time'
set ylabel 'fraction of particles in the upper half of the box'
set key top right
plot '$1/upper.dat' w l lw 2 t 'inelastic (gamma_min = 0)', \
     '$2/upper.dat' w l lw 2 t 'rough (gamma_min = -1)', \
     '$3/upper.dat' w l lw 2 t 'smooth (gamma_min = -inf)'
GP
