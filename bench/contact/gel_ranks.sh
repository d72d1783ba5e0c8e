#!/usr/bin/env bash
# 1 against 2 MPI ranks on the 3D gel of bench/contact/gels.sh over many steps (gel_ab.sh's
# 7 steps are too few for mpirun: its wall times scatter 1.0-2.3x): seconds per step = (wall of
# a run of S steps - wall of a run of 3) / (S - 3), each the whole mpirun, R repeats, the load
# average after each row. The gel settles onto its floor as it runs, so that later steps weigh
# the balance of the bricks' cuts (docs/performance.md).
# usage: bench/contact/gel_ranks.sh [AGGLO] [N] [S] [R]   (defaults build/agglo 8000 30 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/agglo} N=${2:-8000} S=${3:-30} R=${4:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$here/gels.sh"
args=("${common[@]}" -s particles.n="$N" "${gel3d[@]:2}")
wall() { # ranks steps -> seconds
  local t0 t1
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np "$1" "$bin" run -q \
    --overwrite -o "$work/o" "${args[@]}" -s run.t_end="$(/usr/bin/python3 -c "print($2 * 0.02)")" \
    2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  /usr/bin/python3 -c "print($t1 - $t0)"
}
for rep in $(seq "$R"); do
  for np in 1 2; do
    a=$(wall "$np" 3) b=$(wall "$np" "$S")
    echo "gel3d N=$N ranks=$np rep $rep: $(/usr/bin/python3 -c "print(f'{($b - $a) / ($S - 3):.4f}')") s/step (steps 4-$S), load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
