#!/bin/sh
# Virial pressure of the Groot-Warren fluid (N = 3 000, L = 10): LAMMPS's `compute pressure`
# (in.dpd_gw_pressure, velocity Verlet) against agglo's stats.csv `pressure` column with
# lambda = 0.5 (the same integrator) and 0.65, each the mean over STEPS steps after 500, for
# SEEDS seeds.  bench/dpd/pressure.sh [AGGLO] [LMP]   (defaults: build/agglo, /work/lammps/build/lmp)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
AGGLO=$(cd "$(dirname "${1:-$here/../../build/agglo}")" && pwd)/$(basename "${1:-agglo}")
LMP=${2:-/work/lammps/build/lmp}
STEPS=${STEPS:-4000}
SEEDS=${SEEDS:-1 2 3}
tmp=$(mktemp -d)
cd "$tmp"
for seed in $SEEDS; do
  "$LMP" -in "$here/in.dpd_gw_pressure" -var STEPS "$STEPS" -var SEED $((12344 + seed)) -log none \
    -screen none
  lp=$(tail -1 press_lammps.txt | awk '{ print $2, $3 }')
  row="| $seed | $lp |"
  for lam in 0.5 0.65; do
    t_end=$(awk -v s="$STEPS" 'BEGIN { print (s + 500) * 0.04 }')
    "$AGGLO" run "$here/../../examples/dpd_groot_warren.ini" -o "a$lam" --quiet --threads 1 \
      -s particles.n=3000 -s box.size=10 -s run.t_end="$t_end" -s output.stats_interval=0.04 \
      -s output.trajectory_interval=0 -s output.snapshots= -s dpd.lambda=$lam --seed "$seed"
    cp=$(head -1 "a$lam/stats.csv" | tr ',' '\n' | grep -n '^pressure$' | cut -d: -f1)
    ct=$(head -1 "a$lam/stats.csv" | tr ',' '\n' | grep -n '^temperature$' | cut -d: -f1)
    ap=$(awk -F, -v c="$cp" -v t="$ct" 'NR > 1 && $2 > 500 { p += $c; k += $t; n++ } END { printf "%.4f %.4f", p / n, k / n }' "a$lam/stats.csv")
    row="$row $ap |"
  done
  echo "$row"
done
rm -rf "$tmp"
