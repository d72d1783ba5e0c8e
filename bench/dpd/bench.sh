#!/bin/sh
# DPD throughput against LAMMPS `pair_style dpd` on the Groot-Warren fluid (rho = 3, a = 25,
# gamma = 4.5, kT = 1, rc = 1, dt = 0.04), same box, same number of steps, in the same run,
# interleaved, best of REPS.
#   bench/dpd/bench.sh [L...]     (default L = 20 -> N = 24 000, and 30 -> N = 81 000)
# Environment: LMP (default /work/lammps/build/lmp, see build_lammps.sh), DPD_BENCH (default
# build-dpd/bench/dpd_bench), STEPS (500), REPS (3).
# Two measures, because the machines are shared: "wall" = particle-steps per second of elapsed
# time of the time loop (LAMMPS's "Loop time", agglo's timed loop), best of REPS; "cpu" =
# particle-steps per CPU-second of the whole process (user + sys, setup included for both), best
# of REPS -- robust to other jobs for one thread, the per-core figure.
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
echo "| N | threads | LAMMPS wall | agglo wall | ratio | LAMMPS per CPU-s | agglo per CPU-s | ratio per core |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for L in $SIZES; do
  N=$((3 * L * L * L))
  for t in 1 2; do
    : > lw; : > lc; : > aw; : > ac
    for r in $(seq "$REPS"); do
      sf=""; [ "$t" -gt 1 ] && sf="-sf omp -pk omp $t"
      OMP_NUM_THREADS=$t /usr/bin/time -f "%U %S" -o time.txt "$LMP" $sf -in "$here/in.dpd_gw" \
        -var L "$L" -var STEPS "$STEPS" -log none > out.txt
      awk -v n="$N" -v s="$STEPS" '/^Loop time/ { printf "%.4f\n", n * s / $4 / 1e6 }' out.txt >> lw
      awk -v n="$N" -v s="$STEPS" '{ printf "%.4f\n", n * s / ($1 + $2) / 1e6 }' time.txt >> lc
      OMP_NUM_THREADS=$t /usr/bin/time -f "%U %S" -o time.txt "$BENCH" perf "$L" "$STEPS" "$t" > out.txt
      sed 's/.*wall=\([0-9.]*\) s.*/\1/' out.txt | awk -v n="$N" -v s="$STEPS" '{ printf "%.4f\n", n * s / $1 / 1e6 }' >> aw
      awk -v n="$N" -v s="$STEPS" '{ printf "%.4f\n", n * s / ($1 + $2) / 1e6 }' time.txt >> ac
    done
    a=$(best < lw); b=$(best < aw); c=$(best < lc); d=$(best < ac)
    awk -v N="$N" -v t="$t" -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
      printf "| %d | %d | %.2f M/s | %.2f M/s | %.2f | %.2f M | %.2f M | %.2f |\n", N, t, a, b, b / a, c, d, d / c }'
    echo "  N=$N threads=$t runs: LAMMPS wall $(tr '\n' ' ' < lw)cpu $(tr '\n' ' ' < lc); agglo wall $(tr '\n' ' ' < aw)cpu $(tr '\n' ' ' < ac)" >&2
  done
done
rm -rf "$tmp"
