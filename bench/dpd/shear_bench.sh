#!/bin/sh
# Cost of Lees-Edwards shear (issue 45): the Groot-Warren fluid (rho = 3, a = 25, gamma = 4.5,
# kT = 1, rc = 1, dt = 0.04) of bench/dpd/bench.sh, N = 3 L^3 (L = 20: 24 000), STEPS steps, one
# thread, at rest and sheared at RATE (flow along x, gradient along y), for agglo
# (`dpd_bench perf L STEPS 1 dpd.shear_rate=RATE`) and for LAMMPS at its best one-thread settings
# (`neighbor 0.5 bin`, `-sf omp`; `fix deform xy erate RATE remap v` on a triclinic box,
# bench/dpd/in.dpd_gw with SHEAR=RATE), the four runs interleaved, best of REPS.
# The figure is CPU seconds per step of the time loop, set-up left out (agglo: its timed loop's
# process CPU time; LAMMPS: "Loop time" times its "% CPU use"), robust to other jobs on a shared
# machine; wall seconds beside it.
#   bench/dpd/shear_bench.sh     -> a markdown table: sheared / at rest for each code, agglo / LAMMPS
# Environment: LMP (default /work/lammps/build/lmp), DPD_BENCH (default build/bench/dpd_bench),
# L (20), STEPS (500), RATE (0.1), REPS (2), PROFILE (1: also `perf record` agglo's sheared run and
# print the top of `perf report`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LMP=${LMP:-/work/lammps/build/lmp}
BENCH=${DPD_BENCH:-$here/../../build/bench/dpd_bench}
L=${L:-20}
STEPS=${STEPS:-500}
RATE=${RATE:-0.1}
REPS=${REPS:-2}
PROFILE=${PROFILE:-1}
N=$((3 * L * L * L))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
lammps() { # shear rate -> "cpu wall" seconds of the loop
  OMP_NUM_THREADS=1 "$LMP" -sf omp -pk omp 1 -in "$here/in.dpd_gw" -var L "$L" -var STEPS "$STEPS" \
    -var SKIN 0.5 -var SHEAR "$1" -log none > out.txt
  awk '/^Loop time/ { t = $4 } /CPU use/ { c = t * $1 / 100 } END { printf "%.4f %.4f\n", c, t }' out.txt
}
agglo() { # shear rate -> "cpu wall"
  if [ "$1" = 0 ]; then OMP_NUM_THREADS=1 "$BENCH" perf "$L" "$STEPS" 1 > out.txt
  else OMP_NUM_THREADS=1 "$BENCH" perf "$L" "$STEPS" 1 "dpd.shear_rate=$1" > out.txt; fi
  sed 's/.*wall=\([0-9.]*\) s cpu=\([0-9.]*\) s.*/\2 \1/' out.txt
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs; N = $N, $STEPS steps, rate $RATE"
: > runs.txt
for r in $(seq "$REPS"); do
  for code in lammps agglo; do
    for rate in 0 "$RATE"; do
      echo "$code $rate $($code "$rate")" >> runs.txt
    done
  done
done
cat runs.txt >&2
awk -v S="$STEPS" '
  { k = $1 " " $2; if (!(k in c) || $3 < c[k]) c[k] = $3; if (!(k in w) || $4 < w[k]) w[k] = $4; if ($2 != 0) rate = $2 }
  END {
    printf "| code | at rest: CPU ms/step (wall) | sheared %s: CPU ms/step (wall) | sheared / at rest |\n", rate
    printf "| --- | --- | --- | --- |\n"
    split("lammps agglo", codes, " ")
    for (i = 1; i <= 2; i++) {
      a = codes[i] " 0"; b = codes[i] " " rate
      printf "| %s | %.2f (%.2f) | %.2f (%.2f) | **%.3f** |\n", codes[i], 1000 * c[a] / S, 1000 * w[a] / S,
        1000 * c[b] / S, 1000 * w[b] / S, c[b] / c[a]
    }
    printf "\nagglo / LAMMPS speed (CPU): at rest %.2f, sheared %.2f\n", c["lammps 0"] / c["agglo 0"],
      c["lammps " rate] / c["agglo " rate]
  }' runs.txt
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs"
if [ "$PROFILE" = 1 ]; then
  OMP_NUM_THREADS=1 perf record -q -e cpu-clock -o perf.data "$BENCH" perf "$L" "$STEPS" 1 \
    "dpd.shear_rate=$RATE" > /dev/null 2>&1
  echo "agglo sheared, perf report --no-children (top symbols):"
  perf report -i perf.data --no-children --stdio 2>/dev/null | grep -v '^#' | grep '%' | head -15
fi
