#!/bin/sh
# The projection on glued networks: MPRGP against the active set (sparse LDL^T), the same
# scenario and the same glued rows (keep), on the lotto (smooth, 160 particles) and on the
# sedimentation (3000 particles, to t = T_SED). Prints wall time, mean and max solver iterations
# per step (MPRGP: products by A; active set: factorisations, plus MPRGP products of a fallback).
# usage: bench/gluey/solvers.sh [AGGLO] [OUT] [T_LOTTO] [T_SED]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo}
out=${2:-gluey-solvers}
tl=${3:-2}
ts=${4:-0.7}
mkdir -p "$out"
# mean and max of solver_iterations (column 7) over the rows of stats.csv
iters() { awk -F, 'NR>1 {s+=$7; n++; if ($7>m) m=$7} END {printf "%.1f %d", s/n, m}' "$1/stats.csv"; }
printf "%-14s %-10s %8s %10s %8s\n" case solver wall_s mean_it max_it
for m in mprgp active_set; do
  for c in lotto sed; do
    if [ $c = lotto ]; then ini=gluey_lotto.ini; t=$tl; extra="-s output.stats_interval=0.001"
    else ini=gluey_sedimentation.ini; t=$ts; extra="-s output.stats_interval=0.001"; fi
    d="$out/${c}_$m"
    s0=$(date +%s.%N)
    "$agglo" run "$here/../../examples/$ini" -s run.t_end=$t -s solver.method=$m \
      -s output.snapshots= -s output.trajectory_interval=0 $extra -o "$d" --quiet --threads 1
    s1=$(date +%s.%N)
    printf "%-14s %-10s %8.1f %10s %8s\n" $c $m "$(echo "$s1 - $s0" | bc)" $(iters "$d")
  done
done
