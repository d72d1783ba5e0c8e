#!/bin/sh
# Shear viscosity of the Groot-Warren fluid (rho = 3, a = 25, gamma = 4.5, sigma = 3, kT = 1,
# rc = 1, dt = 0.04, lambda = 0.65: examples/dpd_groot_warren.ini) in a box of L = 10
# (N = 3 000), two ways (docs/validation.md, "DPD viscosity"):
#   gk    Green-Kubo: SEEDS unsheared runs of T_GK time units with the pressure tensor in
#         stats.csv at every step; eta = V/kT int <P_ab(0) P_ab(t)> dt up to T_CUT, averaged
#         over xy, xz, yz and the runs (bench/dpd/viscosity.py gk);
#   nemd  Lees-Edwards shear at each rate of RATES for T_NEMD time units (a row every step:
#         the random force's stress is white noise, averaged only over the rows), the `viscosity`
#         column averaged after T_SKIP, extrapolated to rate 0 (viscosity.py nemd).
# bench/dpd/viscosity.sh [gk|nemd|both] [AGGLO]  (default both, build/agglo); nice -n 5, one
# thread per run, JOBS runs at a time. Outputs stay in OUT (default a temporary directory).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
what=${1:-both}
AGGLO=$(cd "$(dirname "${2:-$here/../../build/agglo}")" && pwd)/$(basename "${2:-agglo}")
L=${L:-10}
SEEDS=${SEEDS:-1 2}
T_GK=${T_GK:-400}
T_CUT=${T_CUT:-4}
RATES=${RATES:-0.1 0.2 0.3 0.4}
T_NEMD=${T_NEMD:-300}
T_SKIP=${T_SKIP:-20}
JOBS=${JOBS:-2}
OUT=${OUT:-$(mktemp -d)}
N=$(awk -v L="$L" 'BEGIN { printf "%d", 3 * L * L * L }')
mkdir -p "$OUT"
run() { # dir, t_end, extra -s settings...
  d=$1 t=$2
  shift 2
  nice -n 5 "$AGGLO" run "$here/../../examples/dpd_groot_warren.ini" -o "$OUT/$d" --quiet --threads 1 \
    -s particles.n="$N" -s box.size="$L" -s run.t_end="$t" -s output.trajectory_interval=0 \
    -s output.snapshots= -s dpd.stress_tensor=on "$@"
}
started=0
throttle() { # at most JOBS runs at a time: wait for each batch
  started=$((started + 1))
  if [ $((started % JOBS)) -eq 0 ]; then wait; fi
}
echo "agglo $("$AGGLO" --version 2>/dev/null | head -1), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo ?), outputs in $OUT"
if [ "$what" = gk ] || [ "$what" = both ]; then
  for seed in $SEEDS; do
    run "gk$seed" "$T_GK" -s output.stats_interval=0 --seed "$seed" &
    throttle
  done
  wait
  dirs=""
  for seed in $SEEDS; do dirs="$dirs $OUT/gk$seed"; done
  /usr/bin/python3 "$here/viscosity.py" gk "$L" 1 "$T_CUT" $dirs
fi
if [ "$what" = nemd ] || [ "$what" = both ]; then
  pairs=""
  for rate in $RATES; do
    run "shear$rate" "$T_NEMD" -s output.stats_interval=0 -s dpd.shear_rate="$rate" --seed 1 &
    pairs="$pairs $rate:$OUT/shear$rate"
    throttle
  done
  wait
  /usr/bin/python3 "$here/viscosity.py" nemd "$T_SKIP" $pairs
fi
