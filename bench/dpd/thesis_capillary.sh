#!/bin/sh
# Why the capillary case agglomerates fewer particles than the thesis's Table 5 (docs/validation.md):
# examples/dpd_capillary.ini (bridges with memory, thesis volume, transverse thermostat) against
# the thesis's literal long-range bridge (capillary_bridge = always), its central thermostat, the
# constant-volume bridge, and longer times. 5 seeds each; per case the ellipsoids, particles in
# them and largest agglomerate of each seed's last frame (agglo agglomerates --row) and the mean
# kT over the last half. Thesis (Tables 5-6): 24-33 ellipsoids holding 162-364 particles.
#   bench/dpd/thesis_capillary.sh [AGGLO] [OUTDIR] [SEEDS]
set -eu
AGGLO=${1:-$(dirname "$0")/../../build/agglo}
OUT=${2:-/tmp/dpd_thesis_capillary}
SEEDS=${3:-1 2 3 4 5}
EX=$(dirname "$0")/../../examples
mkdir -p "$OUT"
echo "| case | overrides | ellipsoids per seed | particles in them | largest | mean kT, last half |"
echo "| --- | --- | --- | --- | --- | --- |"
run_case() { # name overrides...
  name=$1; shift
  ell=""; par=""; big=""; T=""
  for seed in $SEEDS; do
    d="$OUT/$name-$seed"
    "$AGGLO" run "$EX/dpd_capillary.ini" --seed "$seed" -o "$d" --overwrite --quiet --threads 1 "$@" 2>/dev/null
    row=$("$AGGLO" agglomerates "$d/trajectory.xyz" --row)
    ell="$ell $(echo "$row" | awk '{ print $5 }')"
    par="$par $(echo "$row" | awk '{ print $6 }')"
    big="$big $(echo "$row" | awk '{ print $9 }')"
    c=$(head -1 "$d/stats.csv" | tr ',' '\n' | grep -n '^temperature_mean_last_half$' | cut -d: -f1)
    T="$T $(tail -1 "$d/stats.csv" | cut -d, -f"$c")"
  done
  Tm=$(echo "$T" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.4f", s / NF }')
  echo "| $name | $* | $ell | $par | $big | $Tm |"
}
run_case example
run_case central -s dpd.thermostat=dpd
run_case constant_volume -s dpd.capillary_volume=constant
run_case always -s dpd.capillary_bridge=always
run_case always_central -s dpd.capillary_bridge=always -s dpd.thermostat=dpd
run_case t20 -s run.t_end=20
run_case always_no_dashpot -s dpd.capillary_bridge=always -s dpd.core_damping=0
