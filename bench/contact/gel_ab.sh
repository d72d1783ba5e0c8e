#!/usr/bin/env bash
# Two builds of agglo side by side on one of the gels of gels.sh (docs/performance.md, "A gel:
# threads inside one component"): per row (1 and 2 OpenMP threads, 1 and 2 MPI ranks), the old
# and the new binary alternated, R times. Time per step = (long run - short run) / their
# difference in steps (set-up, hand-out, final gather and write drop out): wall seconds and, for
# the serial runs, user CPU seconds (less sensitive to other jobs than the wall); the products by
# A per step (stats.csv's solver_iterations, mean over the long run's steps after the short
# run's); the load average when the row ends. Speed-ups are for a quiet machine: with other jobs
# on the cores, a team of threads or a pair of ranks waits for its descheduled member.
# usage: [ROWS="serial1 serial2 mpi1 mpi2"] bench/contact/gel_ab.sh OLD NEW [gel3d|gel] [N] [R]
# (defaults gel3d 8000 2: about 4 minutes on 2 quiet cores)
set -euo pipefail
old=$1 new=$2 scen=${3:-gel3d} N=${4:-8000} R=${5:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/gels.sh"
declare -n spec=$scen
S1=${spec[0]} S2=${spec[1]}
args=("${common[@]}" -s particles.n="$N" "${spec[@]:2}")
run() { # bin row steps -> "wall user" (mpi: the timed loop's wall, no user time)
  local bin=$1 row=$2 t
  t=$(/usr/bin/python3 -c "print($3 * 0.02)")
  case $row in
    serial*)
      OMP_NUM_THREADS=${row#serial} /usr/bin/time -f "%e %U" -o "$work/time" "$bin" run -q --overwrite \
        -o "$work/o" "${args[@]}" -s run.t_end="$t" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
      cat "$work/time";;
    mpi*)
      OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np "${row#mpi}" "$bin" run -q \
        --overwrite -o "$work/o" "${args[@]}" -s run.t_end="$t" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
      echo "$(tail -1 "$work/o/parallel.csv" | cut -d, -f6) nan";;
  esac
}
for row in ${ROWS:-serial1 serial2 mpi1 mpi2}; do
  for rep in $(seq "$R"); do
    for which in old new; do
      bin=$old; [ "$which" = new ] && bin=$new
      read -r wa ua <<< "$(run "$bin" "$row" "$S1")"
      read -r wb ub <<< "$(run "$bin" "$row" "$S2")"
      /usr/bin/python3 - "$work/o/stats.csv" "$S1" "$S2" "$wa" "$wb" "$ua" "$ub" "$scen" "$N" "$row" "$rep" "$which" <<'EOF'
import csv, sys
f, s1, s2, wa, wb, ua, ub, scen, n, row, rep, which = sys.argv[1:]
s1, s2 = int(s1), int(s2)
rows = [r for r in csv.DictReader(open(f)) if int(r['step']) > s1]
products = sum(float(r['solver_iterations']) for r in rows) / max(1, len(rows))
per = lambda a, b: (float(b) - float(a)) / (s2 - s1)
load = open('/proc/loadavg').read().split()[0]
print(f"{scen} N={n} {row} rep {rep} {which}: wall {per(wa, wb):.4f} s/step, user "
      f"{per(ua, ub):.4f} s/step, {products:.0f} products/step (steps {s1 + 1}-{s2}), load {load}")
EOF
    done
  done
done
