#!/usr/bin/env bash
# Strong scaling of model = contact on one node (docs/performance.md, "Contact dynamics over MPI"
# and "A gel: threads inside one component"): Maury's Brownian aggregation (tau = 0.2, sigma = 0.5,
# kappa = epsilon = 3e-3, dt = 0.02, solver.tol = 1e-3 r) of N particles:
#   gel    2D, area fraction 0.45, gravity onto a floor: one component holds every contact;
#   gel3d  3D, volume fraction 0.3 (random placement reaches 0.32), the same;
#   dilute 2D periodic, area fraction 0.3 (many small components).
# Rows: the serial run (no MPI) on 1 and 2 OpenMP threads and `mpirun -np K` (one thread per rank,
# parallel.crossing = auto), each before (solver.expansion = gradient: MPRGP's expansion step
# before issue 29 item 3) and after (the default, projected_cg: the conjugate gradient step
# projected on the bound). A component of solver.team_rows contacts or more is solved by all
# threads together (the default, either way); two ranks spread a gel's component over the ranks.
# The serial runs keep OpenMP's default wait policy (threads spin a while at a barrier, as users
# get them; the team meets at 3-4 barriers per MPRGP iteration); ranks wait passively.
# Time per step: a long minus a short run over their difference in steps (set-up, hand-out, final
# gather and write drop out); best of R. MPRGP iterations: the mean of stats.csv's
# solver_iterations over the long run's steps after the short run's.
# usage: [SCENARIOS="gel gel3d"] bench/parallel/contact_scaling.sh [N2d] [N3d] [R] [agglo]
# (defaults 20000 8000 2 build/agglo: about 5 minutes on 2 quiet cores; R = 1 took 11 minutes at load 12-24)
set -euo pipefail
N2=${1:-20000} N3=${2:-8000} R=${3:-2} agglo=${4:-build/agglo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../contact/gels.sh" # common, gel, gel3d, dilute: steps, then settings
secs() { # how (mpi K | serial T) STEPS settings... -> seconds (mpi: the timed loop)
  local how=$1 k=$2 steps=$3; shift 3
  local t=$(/usr/bin/python3 -c "print($steps * 0.02)")
  if [ "$how" = mpi ]; then
    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np "$k" "$agglo" run -q --overwrite -o "$work/o" \
      "${common[@]}" "$@" -s run.t_end="$t" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    tail -1 "$work/o/parallel.csv" > "$work/row_${k}_$steps"
    cut -d, -f6 "$work/row_${k}_$steps"
  else
    local s0=$(date +%s.%N)
    OMP_NUM_THREADS=$k "$agglo" run -q --overwrite -o "$work/o" "${common[@]}" "$@" \
      -s run.t_end="$t" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    /usr/bin/python3 -c "import time; print(time.time() - $s0)"
  fi
}
iters() { # mean solver_iterations of the steps after $1 in the last run's stats.csv
  /usr/bin/python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open('$work/o/stats.csv')) if int(r['step']) > $1]
print('%.0f' % (sum(float(r['solver_iterations']) for r in rows) / max(1, len(rows))))"
}
for scen in ${SCENARIOS:-gel gel3d}; do
  declare -n spec=$scen
  N=$N2; [ "$scen" = gel3d ] && N=$N3
  S1=${spec[0]} S2=${spec[1]}
  args=(-s particles.n="$N" "${spec[@]:2}")
  for row in "serial 1 before" "serial 1 after" "serial 2 before" "serial 2 after" \
             "mpi 1 before" "mpi 1 after" "mpi 2 before" "mpi 2 after"; do
    read -r how k when <<< "$row"
    set=(); [ "$when" = before ] && set=(-s solver.expansion=gradient)
    best=""
    for rep in $(seq "$R"); do
      a=$(secs "$how" "$k" "$S1" "${args[@]}" "${set[@]}")
      b=$(secs "$how" "$k" "$S2" "${args[@]}" "${set[@]}")
      per=$(/usr/bin/python3 -c "print(($b - $a) / ($S2 - $S1))")
      if [ -z "$best" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($per < $best))"; then best=$per; fi
    done
    extra=""
    [ "$how" = mpi ] && [ "$k" -gt 1 ] && extra=$(cut -d, -f9,15,17 "$work/row_${k}_$S2" | awk -F, '{printf ", ghosts %s, joined constraints %s, joined time %s", $1, $2, $3}')
    printf '%s N=%s %s %s %s: %.4f s per step, %s MPRGP iterations per step (steps %s-%s)%s\n' \
      "$scen" "$N" "$how" "$k" "$when" "$best" "$(iters "$S1")" "$((S1 + 1))" "$S2" "$extra"
  done
done
