#!/bin/sh
# DPD throughput against LAMMPS `pair_style dpd` on the Groot-Warren fluid (rho = 3, a = 25,
# gamma = 4.5, kT = 1, rc = 1, dt = 0.04), same box, same number of steps, in the same run,
# interleaved, best of REPS (shared machines: the best run is the least disturbed one).
#   bench/dpd/bench.sh [L...]     (default L = 20 -> N = 24 000, and 30 -> N = 81 000)
# Environment: LMP (default /work/lammps/build/lmp, see build_lammps.sh), DPD_BENCH (default
# build-dpd/bench/dpd_bench), STEPS (500), REPS (3). Both codes exclude their setup: LAMMPS's
# "Loop time", agglo's timed loop. Threads: OMP_NUM_THREADS / -sf omp -pk omp for LAMMPS.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LMP=${LMP:-/work/lammps/build/lmp}
BENCH=${DPD_BENCH:-$here/../../build-dpd/bench/dpd_bench}
STEPS=${STEPS:-500}
REPS=${REPS:-3}
SIZES=${*:-20 30}
tmp=$(mktemp -d)
cd "$tmp"
best() { sort -g | tail -1; }
echo "| N | threads | LAMMPS (Mparticle-steps/s) | agglo (Mparticle-steps/s) | agglo / LAMMPS | agglo per core / LAMMPS 1 thread |"
echo "| --- | --- | --- | --- | --- | --- |"
for L in $SIZES; do
  N=$((3 * L * L * L))
  lmp1=
  for t in 1 2; do
    : > lmp.txt; : > agg.txt
    for r in $(seq "$REPS"); do
      if [ "$t" = 1 ]; then
        OMP_NUM_THREADS=1 "$LMP" -in "$here/in.dpd_gw" -var L "$L" -var STEPS "$STEPS" -log none > out.txt
      else
        OMP_NUM_THREADS=$t "$LMP" -sf omp -pk omp "$t" -in "$here/in.dpd_gw" -var L "$L" -var STEPS "$STEPS" -log none > out.txt
      fi
      awk -v n="$N" -v s="$STEPS" '/^Loop time/ { printf "%.4f\n", n * s / $4 / 1e6 }' out.txt >> lmp.txt
      OMP_NUM_THREADS=$t "$BENCH" perf "$L" "$STEPS" "$t" > out.txt
      awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^wall=/) { w = substr($i, 6) } ; for (i = 1; i <= NF; i++) if ($i ~ /^N=/) n = substr($i, 3) ; for (i = 1; i <= NF; i++) if ($i ~ /^steps=/) s = substr($i, 7) } END { printf "%.4f\n", n * s / w / 1e6 }' out.txt >> agg.txt
    done
    l=$(best < lmp.txt); a=$(best < agg.txt)
    [ "$t" = 1 ] && lmp1=$l
    awk -v N="$N" -v t="$t" -v l="$l" -v a="$a" -v l1="$lmp1" \
      'BEGIN { printf "| %d | %d | %.2f | %.2f | %.2f | %.2f |\n", N, t, l, a, a / l, a / t / l1 }'
    echo "  (runs: LAMMPS $(tr '\n' ' ' < lmp.txt); agglo $(tr '\n' ' ' < agg.txt))" >&2
  done
done
rm -rf "$tmp"
