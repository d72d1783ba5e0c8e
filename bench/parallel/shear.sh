#!/usr/bin/env bash
# Lees-Edwards shear over MPI bricks (docs/performance.md, "Shear over MPI"): the Groot-Warren fluid
# (rho = 3, a = 25, gamma = 4.5, kT = 1, rc = 1, dt = 0.04) of N particles, sheared at
# dpd.shear_rate = RATE or at rest, on 1 and 2 ranks of one thread each. At rest on 2 ranks the
# chosen grid (slabs along z in a cube) and the sheared one (1 x 2 x 1: under shear x is whole and
# y is cut, docs/parallel.md) both run, so the ratio sheared / at rest is seen on the same grid.
# The time per step is the difference of a short and a long run's timed loops (parallel.csv:
# wall_s) over their difference in steps, and so is the CPU time of the whole job (user + system
# of mpirun and its ranks, /usr/bin/time: on a loaded machine a rank waiting for the other
# inflates the wall time, less the CPU time); best of R repeats, cases alternating. The machine's
# load average is printed: the ratios, not the seconds, are the result on a shared machine.
# IR=1: instead, the instructions executed per step in agglo's own code by all ranks (valgrind
# --tool=callgrind, long minus short run; MPI's polling while a rank waits and libc left out),
# which a loaded machine does not change; one run each (the work is deterministic), without the
# 1 x 1 x 2 grid.
# usage: [IR=1] bench/parallel/shear.sh [N] [short] [long] [repeats] [rate] [agglo]
set -euo pipefail
N=${1:-100000} S1=${2:-5} S2=${3:-25} R=${4:-3} RATE=${5:-0.5} agglo=${6:-build/agglo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
L=$(/usr/bin/python3 -c "print(($N / 3) ** (1 / 3))")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # K STEPS RATE GRID -> the parallel.csv row of the run, then the job's CPU seconds
  local t=$(/usr/bin/python3 -c "print($2 * 0.04)")
  /usr/bin/time -o "$work/cpu" -f "%U %S" mpirun --oversubscribe -np "$1" "$agglo" run -q --overwrite -o "$work/o" \
    -s run.model=dpd -s run.dim=3 -s particles.n="$N" -s particles.radius=0.1 \
    -s particles.radius_spread=0 -s box.size="$L" -s box.boundary=periodic -s dpd.a=25 \
    -s dpd.gamma=4.5 -s dpd.kT=1 -s dpd.rc=1 -s run.dt=0.04 -s run.t_end="$t" \
    -s dpd.shear_rate="$3" -s parallel.grid="$4" \
    -s output.snapshots= -s output.trajectory_interval=0 -s output.stats_interval=1000 \
    -s output.analysis_interval=0 2> "$work/err" || { cat "$work/err"; exit 1; }
  echo "$(tail -1 "$work/o/parallel.csv"),$(awk '{ print $1 + $2 }' "$work/cpu")"
}
cases=("1 0 " "1 $RATE " "2 0 " "2 0 1 2 1" "2 $RATE ")
if [ "${IR:-0}" = 1 ]; then
  ir() { # K STEPS RATE GRID -> instructions of all ranks
    local t=$(/usr/bin/python3 -c "print($2 * 0.04)")
    mpirun --oversubscribe -np "$1" valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
      "$agglo" run -q --overwrite -o "$work/o" \
      -s run.model=dpd -s run.dim=3 -s particles.n="$N" -s particles.radius=0.1 \
      -s particles.radius_spread=0 -s box.size="$L" -s box.boundary=periodic -s dpd.a=25 \
      -s dpd.gamma=4.5 -s dpd.kT=1 -s dpd.rc=1 -s run.dt=0.04 -s run.t_end="$t" \
      -s dpd.shear_rate="$3" -s parallel.grid="$4" \
      -s output.snapshots= -s output.trajectory_interval=0 -s output.stats_interval=1000 \
      -s output.analysis_interval=0 > /dev/null 2>&1
    # agglo's own code only: a rank waiting for the other polls inside MPI, as long as it waits
    local bin=$(readlink -f "$agglo")
    for f in "$work"/cg.*; do callgrind_annotate --threshold=100 "$f"; done |
      awk -v bin="[$bin]" 'index($0, bin) { gsub(",", "", $1); s += $1 } END { printf "%.0f\n", s }'
    rm -f "$work"/cg.*
  }
  echo "N = $N, box $L, steps $S1 and $S2; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "| ranks | dpd.shear_rate | grid | agglo's instructions per step (all ranks) | sheared / at rest |"
  echo "| --- | --- | --- | --- | --- |"
  declare -A per
  for c in "1 0 " "1 $RATE " "2 0 1 2 1" "2 $RATE "; do
    read -r K rate grid <<< "$c"
    a=$(ir "$K" "$S1" "$rate" "$grid"); b=$(ir "$K" "$S2" "$rate" "$grid")
    per[$c]=$(( (b - a) / (S2 - S1) ))
    rest="$K 0 "; [ "$K" = 2 ] && rest="2 0 1 2 1"
    ratio=""; [ "$rate" != 0 ] && ratio=$(/usr/bin/python3 -c "print('%.4f' % (${per[$c]} / ${per[$rest]}))")
    echo "| $K | $rate | $([ "$K" = 1 ] && echo 1x1x1 || echo 1x2x1) | ${per[$c]} | $ratio |"
  done
  exit 0
fi
declare -A best row cbest
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for rep in $(seq "$R"); do
  for c in "${cases[@]}"; do
    read -r K rate grid <<< "$c"
    a=$(run "$K" "$S1" "$rate" "$grid"); b=$(run "$K" "$S2" "$rate" "$grid")
    per=$(/usr/bin/python3 -c "print((float('${b}'.split(',')[5]) - float('${a}'.split(',')[5])) / ($S2 - $S1))")
    cpu=$(/usr/bin/python3 -c "print((float('${b}'.split(',')[-1]) - float('${a}'.split(',')[-1])) / ($S2 - $S1))")
    echo "repeat $rep, $c: $per s per step, $cpu CPU s per step" >&2
    if [ -z "${best[$c]:-}" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($per < ${best[$c]}))"; then
      best[$c]=$per row[$c]=$b
    fi
    if [ -z "${cbest[$c]:-}" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($cpu < ${cbest[$c]}))"; then
      cbest[$c]=$cpu
    fi
  done
done
echo "N = $N, box $L, steps $S1 and $S2, best of $R; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| ranks | dpd.shear_rate | grid | s per step | sheared / at rest | CPU s per step | sheared / at rest (CPU) | ghosts per rank per step | exchange share |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in "${cases[@]}"; do
  read -r K rate grid <<< "$c"
  rest="$K 0 "; [ "$K" = 2 ] && [ "$rate" != 0 ] && rest="2 0 1 2 1"
  /usr/bin/python3 - "$K" "$rate" "${best[$c]}" "${best[$rest]}" "${cbest[$c]}" "${cbest[$rest]}" "${row[$c]}" <<'PY'
import sys
K, rate, per, rest, cpu, crest, row = sys.argv[1:]
f = row.split(",")
ratio = "" if float(rate) == 0 else "%.3f" % (float(per) / float(rest))
cratio = "" if float(rate) == 0 else "%.3f" % (float(cpu) / float(crest))
print(f"| {K} | {rate} | {f[1]}x{f[2]}x{f[3]} | {float(per):.4f} | {ratio} | {float(cpu):.4f} | {cratio} | "
      f"{float(f[8]):.0f} | {float(f[12]):.3f} |")
PY
done
