#!/bin/sh
# Is every shipped DPD example isothermal? The mean kT over the last half of the run (stats.csv's
# temperature_mean_last_half, every step) of examples/dpd_vdw.ini and dpd_capillary.ini under
# each thermostat (defaults otherwise), seeds 1..5: one table row per force and thermostat with
# the mean over the seeds, its deviation from the target 1/3 and the seeds' range (docs/dpd.md).
#   bench/dpd/isothermal.sh [AGGLO] [OUTDIR] [SEEDS] [EXTRA -s OPTIONS]
set -eu
AGGLO=${1:-$(dirname "$0")/../../build/agglo}
OUT=${2:-/tmp/dpd_isothermal}
SEEDS=${3:-1 2 3 4 5}
EXTRA=${4:-}
EX=$(dirname "$0")/../../examples
mkdir -p "$OUT"
echo "| example | thermostat | mean kT (target 0.3333) | deviation | seeds' range |"
echo "| --- | --- | --- | --- | --- |"
for ex in vdw capillary; do
  for th in dpd transverse langevin; do
    vals=""
    for seed in $SEEDS; do
      d="$OUT/$ex-$th-$seed"
      "$AGGLO" run "$EX/dpd_$ex.ini" --seed "$seed" -o "$d" --overwrite --quiet --threads 1 \
        -s dpd.thermostat=$th $EXTRA 2>/dev/null
      c=$(head -1 "$d/stats.csv" | tr ',' '\n' | grep -n '^temperature_mean_last_half$' | cut -d: -f1)
      vals="$vals $(tail -1 "$d/stats.csv" | cut -d, -f"$c")"
    done
    echo "$vals" | awk -v ex="$ex" -v th="$th" '{ s = 0; lo = 1e9; hi = -1e9
      for (i = 1; i <= NF; i++) { s += $i; if ($i < lo) lo = $i; if ($i > hi) hi = $i }
      m = s / NF; printf "| %s | %s | %.4f | %+.2f %% | %.4f-%.4f |\n", ex, th, m, (3 * m - 1) * 100, lo, hi }'
  done
done
