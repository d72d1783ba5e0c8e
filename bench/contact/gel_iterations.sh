#!/usr/bin/env bash
# MPRGP products per step on the gels of bench/parallel/contact_scaling.sh (same settings), by
# size, for both expansion steps (solver.expansion, docs/performance.md "A gel: iterations"):
# the mean of stats.csv's solver_iterations over the steps after the transient (2D: 6-20, 3D:
# 4-10), the most in one step, and the contacts at the last step. One thread; the counts do not
# depend on the load (the times printed do).
# usage: bench/contact/gel_iterations.sh ["5000 10000 20000 50000"] ["2000 4000 8000 16000"] [agglo]
# (defaults: about 4 minutes of CPU on one core)
set -euo pipefail
N2=${1:-5000 10000 20000 50000} N3=${2:-2000 4000 8000 16000} agglo=${3:-build/agglo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/gels.sh" # common, gel, gel3d: steps, then settings
for scen in gel gel3d; do
  declare -n spec=$scen
  sizes=$N2; [ "$scen" = gel3d ] && sizes=$N3
  for N in $sizes; do
    for exp in gradient projected_cg; do
      t=$(/usr/bin/python3 -c "print(${spec[1]} * 0.02)")
      OMP_NUM_THREADS=1 /usr/bin/time -f "%U" -o "$work/cpu" "$agglo" run -q --overwrite -o "$work/o" \
        "${common[@]}" -s particles.n="$N" "${spec[@]:2}" -s solver.expansion=$exp -s run.t_end="$t" \
        2> "$work/err" || { cat "$work/err" >&2; exit 1; }
      /usr/bin/python3 - "$work/o/stats.csv" "${spec[0]}" "$scen" "$N" "$exp" "$(cat "$work/cpu")" <<'PY'
import csv, sys
f, s1, scen, n, exp, cpu = sys.argv[1:]
rows = list(csv.DictReader(open(f)))
it = [float(r['solver_iterations']) for r in rows if int(r['step']) > int(s1)]
print('%s N=%s expansion=%s: %.0f products per step (steps %d-%s), most %d, %s contacts at the end, %.1f s CPU'
      % (scen, n, exp, sum(it) / len(it), int(s1) + 1, rows[-1]['step'], max(it), rows[-1]['n_contacts'], float(cpu)))
PY
    done
  done
done
