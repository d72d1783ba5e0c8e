#!/usr/bin/env bash
# CPU time to one cluster against N for both ballistic methods (the paper's setup, V_f = 0.2
# unless given), with least-squares exponents over the N range. Writes OUT/scaling.csv and prints
# the fits. The CPU time is the simulation's alone (setup and analysis excluded), measured by
# `agglo compare --only`. usage: bench/ballistic/scaling.sh [AGGLO] [OUT] [V_f] [NMAX_TS] [NMAX_ED]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo}
out=${2:-scaling-out}
vf=${3:-0.2}
nmax_ts=${4:-1000000}
nmax_ed=${5:-1000000}
mkdir -p "$out"
csv="$out/scaling.csv"
echo "method,n,seeds,cpu_mean,cpu_sd,steps,iterations,t_final" > "$csv"
for n in 100 316 1000 3162 10000 31623 100000 316228 1000000; do
  for m in ts ed; do
    max=$nmax_ts; [ $m = ed ] && max=$nmax_ed
    [ "$n" -le "$max" ] || continue
    s=5; [ "$n" -ge 100000 ] && s=2; [ "$n" -ge 1000000 ] && s=1
    rm -rf "$out/${m}_$n"
    "$agglo" compare "$here/../../examples/ballistic_paper_400.ini" -s particles.n=$n \
      -s particles.fraction=$vf --only $m --seeds $s -o "$out/${m}_$n" > "$out/${m}_$n.txt" 2> /dev/null
    col=2; [ $m = ed ] && col=3
    # "CPU time (s)   mean (sd)   -" -> mean and sd of the method's column
    row() { grep "^$1" "$out/${m}_$n.txt" | sed 's/  \+/|/g' | cut -d'|' -f$col; }
    cpu=$(row "CPU time"); steps=$(row "steps"); it=$(row "iterations"); tf=$(row "time to one")
    echo "$m,$n,$s,$(echo $cpu | sed 's/ (/,/;s/)//'),${steps%% *},${it%% *},${tf%% *}" >> "$csv"
    echo "$m N = $n: CPU $cpu s"
  done
done
# fits of log(cpu) = a + b log(n) over n >= 1000
for m in ts ed; do
  awk -F, -v m=$m '$1==m && $2>=1000 {x=log($2); y=log($4); n++; sx+=x; sy+=y; sxx+=x*x; sxy+=x*y}
    END {if (n>1) printf "%s: CPU ~ N^%.3f (fit over %d sizes, N >= 1000)\n", m, (n*sxy-sx*sy)/(n*sxx-sx*sx), n}' "$csv"
done
