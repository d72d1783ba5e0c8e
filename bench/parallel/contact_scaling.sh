#!/usr/bin/env bash
# Strong scaling of `mpirun -np K agglo run` for model = contact (docs/performance.md, "Contact
# dynamics over MPI"): Maury's Brownian aggregation in 2D (periodic, area fraction 0.3, tau = 0.2,
# sigma = 0.5, kappa = epsilon = 3e-3, dt = 0.02) of N particles, and the same at area fraction
# 0.45 with gravity onto a floor (a gel: one cluster across every brick). K = 1 and 2 ranks of
# one thread, and the serial run (no MPI) on 1 and 2 OpenMP threads. Time per step: a long minus
# a short run, over their difference in steps (set-up, hand-out, final gather and write drop
# out); best of R. MPI runs solve the components that cross ranks gathered on rank 0, spread
# over the ranks, and as chosen (parallel.crossing = auto); the joined columns (parallel.csv) give the share of
# constraints in those components and the share of the time their solve takes.
# usage: [SCENARIOS="dilute gel"] bench/parallel/contact_scaling.sh [N] [short] [long] [repeats] [agglo]
set -euo pipefail
N=${1:-200000} S1=${2:-5} S2=${3:-20} R=${4:-2} agglo=${5:-build/agglo}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(-s run.model=contact -s run.dim=2 -s run.seed=3 -s run.dt=0.02 -s particles.n="$N"
        -s particles.radius=0.01 -s particles.radius_spread=0.15 -s particles.mass_rule=volume
        -s box.size= -s drag.tau=0.2 -s attraction.kappa=3e-3 -s attraction.epsilon=3e-3
        -s attraction.scaling=sqrt_h -s brownian.sigma=0.5 -s solver.tol=1e-3
        -s output.snapshots= -s output.trajectory_interval=0 -s output.stats_interval=1000)
dilute=(-s particles.fraction=0.3 -s box.boundary=periodic)
gel=(-s particles.fraction=0.45 -s box.boundary="periodic wall" -s gravity.g="0 -2")
secs() { # how (mpi K | serial T) STEPS scenario... -> seconds (parallel: the timed loop)
  local how=$1 k=$2 steps=$3; shift 3
  local t=$(/usr/bin/python3 -c "print($steps * 0.02)")
  if [ "$how" = mpi ]; then
    OMP_NUM_THREADS=1 mpirun --oversubscribe -np "$k" "$agglo" run -q --overwrite -o "$work/o" \
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
for scen in ${SCENARIOS:-dilute gel}; do
  declare -n args=$scen
  for how in serial mpi:gather mpi:spread mpi:auto; do
    for k in 1 2; do
      [ "${how#mpi:}" != gather ] && [ $how != serial ] && [ $k = 1 ] && continue # (nothing crosses)
      cross=(); [ "$how" != serial ] && cross=(-s parallel.crossing="${how#mpi:}")
      best=""
      for rep in $(seq "$R"); do
        a=$(secs ${how%:*} $k "$S1" "${args[@]}" "${cross[@]}"); b=$(secs ${how%:*} $k "$S2" "${args[@]}" "${cross[@]}")
        per=$(/usr/bin/python3 -c "print(($b - $a) / ($S2 - $S1))")
        if [ -z "$best" ] || /usr/bin/python3 -c "import sys; sys.exit(not ($per < $best))"; then best=$per; fi
      done
      extra=""
      [ $how != serial ] && extra=$(cut -d, -f9,15,17 "$work/row_${k}_$S2" | awk -F, '{printf "ghosts %s, joined constraints %s, joined time %s", $1, $2, $3}')
      printf '%s N=%s %s %s: %.4f s per step %s\n' "$scen" "$N" "$how" "$k" "$best" "$extra"
    done
  done
done
