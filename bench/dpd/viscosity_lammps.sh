#!/bin/sh
# Viscosity of the Groot-Warren DPD fluid (rho = 3, a = 25, gamma = 4.5, kT = 1, rc = 1, dt = 0.04,
# mass 1) by LAMMPS, the peer of agglo's bench/dpd/viscosity.sh (issue 45), two ways:
#  - NEMD: `fix deform xy erate RATE remap v` on a triclinic box, the DPD pair thermostat alone,
#    eta = -<P_xy>/RATE with the kinetic stress of the peculiar velocities (compute temp/deform),
#    at RATES, extrapolated to zero rate (bench/dpd/in.dpd_gw_shear);
#  - Green-Kubo on <P_ab(0) P_ab(t)> (xy, xz, yz) sampled every step (bench/dpd/in.dpd_gw_gk).
# Errors are standard errors of block means (blocks of 50 time units, NEMD; 200, Green-Kubo).
#   bench/dpd/viscosity_lammps.sh            -> markdown tables on stdout, raw files in OUT
# Environment: LMP (default /work/lammps/build/lmp, see build_lammps.sh), L (10 -> N = 3000),
# RATES ("0.05 0.1 0.2 0.4"; empty: none), NEMD_STEPS (25000), GK_STEPS (50000), OUT (default a temporary
# folder, removed), SEED (12345). LAMMPS's best one-thread settings: `neighbor 0.5 bin`, -sf omp.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LMP=${LMP:-/work/lammps/build/lmp}
L=${L:-10}
RATES=${RATES-0.05 0.1 0.2 0.4}
NEMD_STEPS=${NEMD_STEPS:-25000}
GK_STEPS=${GK_STEPS:-50000}
SEED=${SEED:-12345}
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; else OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
cd "$OUT"
run() { # name, then lmp arguments; prints wall and CPU seconds of the whole run
  name=$1; shift
  /usr/bin/time -f "$name: wall %e s, CPU %U+%S s" env OMP_NUM_THREADS=1 "$LMP" -sf omp -pk omp 1 \
    -log "log_$name.lammps" -screen none "$@"
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg); L = $L (N = $((3 * L * L * L)))"
for r in $RATES; do
  run "shear_$r" -in "$here/in.dpd_gw_shear" -var L "$L" -var RATE "$r" -var STEPS "$NEMD_STEPS" -var SEED "$SEED"
done
if [ "$GK_STEPS" -gt 0 ]; then
  run gk -in "$here/in.dpd_gw_gk" -var L "$L" -var STEPS "$GK_STEPS" -var SEED "$SEED"
fi
/usr/bin/python3 "$here/viscosity_lammps.py" "$OUT" "$L" 0.04
