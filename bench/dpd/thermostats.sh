#!/bin/sh
# The thesis's two forces (Mokkapati 2006, Tables 3-6; examples/dpd_vdw.ini, dpd_capillary.ini)
# under each thermostat: mean kT over the last half of the run (target 1/3), CPU time per step,
# and the agglomerates of the final frame with both ellipsoid definitions; then, for seed 1, the
# temperature and the number of agglomerates against time.
#   bench/dpd/thermostats.sh [AGGLO] [OUTDIR] [SEEDS]  (defaults: build/agglo, /tmp/dpd_thermo, 1..5)
set -eu
AGGLO=${1:-$(dirname "$0")/../../build/agglo}
OUT=${2:-/tmp/dpd_thermo}
SEEDS=${3:-1 2 3 4 5}
EX=$(dirname "$0")/../../examples
mkdir -p "$OUT"
col() { # column NAME of the header of FILE -> index
  head -1 "$2" | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1
}
variants="dpd transverse langevin langevin50"
opts() {
  case $1 in
    dpd) echo "-s dpd.thermostat=dpd" ;;
    transverse) echo "-s dpd.thermostat=transverse" ;;
    langevin) echo "-s dpd.thermostat=langevin" ;;
    langevin50) echo "-s dpd.thermostat=langevin -s dpd.langevin_gamma=50" ;;
  esac
}
echo "| force | thermostat | seed | mean kT, last half | CPU ms/step | thesis def.: prolate/oblate/sphere/scalene, ellipsoids, particles, volume % | moments def.: prolate/oblate/sphere/scalene, ellipsoids, particles, volume % of members |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for force in vdw capillary capillary_always; do
  case $force in
    vdw) ini=dpd_vdw.ini; extra="" ;;
    capillary) ini=dpd_capillary.ini; extra="" ;;
    capillary_always) ini=dpd_capillary.ini; extra="-s dpd.capillary_bridge=always" ;;
  esac
  for v in $variants; do
    for seed in $SEEDS; do
      d="$OUT/$force-$v-$seed"
      /usr/bin/time -f "%U" -o "$d.time" "$AGGLO" run "$EX/$ini" --seed "$seed" -o "$d" --quiet \
        --threads 1 $extra $(opts $v) 2>/dev/null
      c=$(col temperature_mean_last_half "$d/stats.csv")
      T=$(tail -1 "$d/stats.csv" | cut -d, -f"$c")
      ms=$(awk '{ printf "%.3f", $1 * 1000 / 10000 }' "$d.time")
      rt=$("$AGGLO" agglomerates "$d/trajectory.xyz" --row --definition thesis | awk '{ printf "%s/%s/%s/%s, %s, %s, %s", $1, $2, $3, $4, $5, $6, $7 }')
      rm=$("$AGGLO" agglomerates "$d/trajectory.xyz" --row --definition moments | awk '{ printf "%s/%s/%s/%s, %s, %s, %s", $1, $2, $3, $4, $5, $6, $8 }')
      echo "| $force | $v | $seed | $T | $ms | $rt | $rm |"
    done
  done
done
echo
echo "Seed 1 against time: kT (stats.csv) and ellipsoids / particles in them (moments def.)"
echo
for force in vdw capillary capillary_always; do
  for v in $variants; do
    d="$OUT/$force-$v-1"
    c=$(col temperature "$d/stats.csv")
    line="| $force | $v |"
    for k in 2 3 5 7 9 11; do # frames at t = 0.5, 1, 2, 3, 4, 5
      t=$(awk -v k=$k 'BEGIN { print (k - 1) * 0.5 }')
      T=$(awk -F, -v t="$t" -v c="$c" 'NR > 1 && $1 + 0 == t + 0 { printf "%.3f", $c }' "$d/stats.csv")
      a=$("$AGGLO" agglomerates "$d/trajectory.xyz" --row --frame $k | awk '{ print $5 "/" $6 }')
      line="$line $T, $a |"
    done
    echo "$line"
  done
done
