#!/usr/bin/env bash
# Strong scaling of `mpirun -np K agglo run` (docs/performance.md, "DPD over MPI"): the
# Groot-Warren fluid (rho = 3, a = 25, gamma = 4.5, kT = 1, rc = 1, dt = 0.04) of N particles
# on K = 1 and 2 ranks of one thread each. The time per step is the difference of a short and a
# long run's timed loops (parallel.csv: wall_s) over their difference in steps, so the set-up,
# the hand-out and the final gather and write drop out. Best of R repeats, K alternating.
# The peer in the same run: LAMMPS (bench/dpd/build_lammps.sh: a build without MPI, so its
# parallel runs are OpenMP threads, -sf omp, its best setting here) on the same fluid, 1 and 2
# threads, long - short steps, its Loop time per step, best of R.
# usage: bench/parallel/scaling.sh [N] [short] [long] [repeats] [agglo]   (LMP=path/to/lmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${1:-1000000} S1=${2:-10} S2=${3:-40} R=${4:-2} agglo=${5:-build/agglo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
L=$(/usr/bin/python3 -c "print(($N / 3) ** (1 / 3))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # K STEPS -> wall seconds of the timed loop, and the csv row
  local t=$(/usr/bin/python3 -c "print($2 * 0.04)")
  mpirun --oversubscribe -np "$1" "$agglo" run -q --overwrite -o "$work/k$1" \
    -s run.model=dpd -s run.dim=3 -s particles.n="$N" -s particles.radius=0.1 \
    -s particles.radius_spread=0 -s box.size="$L" -s box.boundary=periodic -s dpd.a=25 \
    -s dpd.gamma=4.5 -s dpd.kT=1 -s dpd.rc=1 -s run.dt=0.04 -s run.t_end="$t" \
    -s output.snapshots= -s output.trajectory_interval=0 -s output.stats_interval=1000 \
    -s output.analysis_interval=0 2> "$work/err" || { cat "$work/err"; exit 1; }
  tail -1 "$work/k$1/parallel.csv"
}
declare -A best row
for rep in $(seq "$R"); do
  for K in 1 2; do
    a=$(run "$K" "$S1"); b=$(run "$K" "$S2")
    per=$(/usr/bin/python3 -c "print((float('${b}'.split(',')[5]) - float('${a}'.split(',')[5])) / ($S2 - $S1))")
    echo "repeat $rep, $K rank(s): $per s per step" >&2
    if [ -z "${best[$K]:-}" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($per < ${best[$K]}))"; then
      best[$K]=$per row[$K]=$b
    fi
  done
done
LMP=${LMP:-/work/lammps/build/lmp}
declare -A lbest
if [ -x "$LMP" ]; then
  for rep in $(seq "$R"); do
    for T in 1 2; do
      sf=""; [ "$T" -gt 1 ] && sf="-sf omp -pk omp $T"
      (cd "$work" && OMP_NUM_THREADS=$T "$LMP" $sf -in "$here/../dpd/in.dpd_gw" -var L "$L" \
        -var STEPS $((S2 - S1)) -log none > lmp.txt)
      per=$(awk -v s=$((S2 - S1)) '/^Loop time/ { print $4 / s }' "$work/lmp.txt")
      echo "repeat $rep, LAMMPS $T thread(s): $per s per step" >&2
      if [ -z "${lbest[$T]:-}" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($per < ${lbest[$T]}))"; then
        lbest[$T]=$per
      fi
    done
  done
fi
echo "N = $N, box $L, steps $S1 and $S2, best of $R"
echo "| ranks | grid | s per step | M particle-steps/s | speed-up | ghosts per rank per step | bytes sent per rank per step | exchange share |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for K in 1 2; do
  /usr/bin/python3 - "$K" "${best[$K]}" "${best[1]}" "${row[$K]}" "$N" <<'PY'
import sys
K, per, per1, row, N = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(","), int(sys.argv[5])
print(f"| {K} | {row[1]}x{row[2]}x{row[3]} | {per:.4f} | {N / per / 1e6:.2f} | {per1 / per:.2f} | "
      f"{float(row[8]):.0f} | {float(row[10]) / 1e6:.2f} MB | {float(row[12]):.3f} |")
PY
done
if [ -n "${lbest[1]:-}" ]; then
  echo
  echo "| LAMMPS threads | s per step | M particle-steps/s | speed-up | agglo ranks / LAMMPS threads, same count |"
  echo "| --- | --- | --- | --- | --- |"
  for T in 1 2; do
    /usr/bin/python3 -c "
per, per1, a = ${lbest[$T]}, ${lbest[1]}, ${best[$T]}
print(f'| $T | {per:.4f} | {$N / per / 1e6:.2f} | {per1 / per:.2f} | {per / a:.2f} |')"
  done
fi
