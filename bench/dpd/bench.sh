#!/bin/sh
# DPD throughput per core against tuned LAMMPS `pair_style dpd` (`neighbor 0.5 bin`, `-sf omp`,
# its best one-thread setting) on the Groot-Warren fluid (rho = 3, a = 25, gamma = 4.5, kT = 1,
# rc = 1, dt = 0.04), same box, same number of steps, one thread, in the same run, interleaved,
# best of REPS.
#   bench/dpd/bench.sh            N = 24 000 (L = 20, STEPS steps) and N = 985 527 (L = 69, BIG_STEPS)
# Environment: LMP (default /work/lammps/build/lmp, see build_lammps.sh; LMP=none: agglo only),
# DPD_BENCH (default build/bench/dpd_bench), STEPS (500), BIG_STEPS (20), REPS (3), SKIN (0.5).
# The figure is particle-steps per CPU-second of the time loop, set-up left out for both: agglo's
# timed loop (process CPU time), LAMMPS's "Loop time" times its "% CPU use" -- robust to other
# jobs on a shared machine. Wall rates of the same loops are printed beside them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LMP=${LMP:-/work/lammps/build/lmp}
BENCH=${DPD_BENCH:-$here/../../build/bench/dpd_bench}
STEPS=${STEPS:-500}
BIG_STEPS=${BIG_STEPS:-20}
REPS=${REPS:-3}
SKIN=${SKIN:-0.5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
best() { sort -g | tail -1; }
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"
echo "| N | steps | LAMMPS M/CPU-s | agglo M/CPU-s | agglo / LAMMPS | LAMMPS M/s wall | agglo M/s wall |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for spec in "20 $STEPS" "69 $BIG_STEPS"; do
  set -- $spec
  L=$1 S=$2 N=$((3 * $1 * $1 * $1))
  : > lc; : > lw; : > ac; : > aw
  for r in $(seq "$REPS"); do
    if [ "$LMP" != none ]; then
      OMP_NUM_THREADS=1 "$LMP" -sf omp -pk omp 1 -in "$here/in.dpd_gw" -var L "$L" -var STEPS "$S" \
        -var SKIN "$SKIN" -log none > out.txt
      awk -v n="$N" -v s="$S" '/^Loop time/ { t = $4 } /CPU use/ { c = t * $1 / 100 }
        END { printf "%.4f\n", n * s / c / 1e6 > "/dev/stderr"; printf "%.4f\n", n * s / t / 1e6 }' \
        out.txt >> lw 2>> lc
    fi
    OMP_NUM_THREADS=1 "$BENCH" perf "$L" "$S" 1 > out.txt
    sed 's/.*wall=\([0-9.]*\) s cpu=\([0-9.]*\) s.*/\1 \2/' out.txt |
      awk -v n="$N" -v s="$S" '{ printf "%.4f\n", n * s / $1 / 1e6; printf "%.4f\n", n * s / $2 / 1e6 > "/dev/stderr" }' >> aw 2>> ac
  done
  a=$(best < lc); b=$(best < ac); c=$(best < lw); d=$(best < aw)
  awk -v N="$N" -v S="$S" -v a="${a:-0}" -v b="$b" -v c="${c:-0}" -v d="$d" 'BEGIN {
    if (a > 0) printf "| %d | %d | %.2f | %.2f | **%.2f** | %.2f | %.2f |\n", N, S, a, b, b / a, c, d
    else printf "| %d | %d | - | %.2f | - | - | %.2f |\n", N, S, b, d }'
  echo "  N=$N: LAMMPS per CPU-s $(tr '\n' ' ' < lc); agglo per CPU-s $(tr '\n' ' ' < ac)" >&2
done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs"
