#!/usr/bin/env bash
# D_f and k_f of a dlca scenario's final aggregates over seeds (docs/validation.md):
#   bench/dlca/fractal.sh SCENARIO.ini OUT_DIR [SEEDS] [-s key=value ...]
# runs `agglo ensemble` (one member at a time), `agglo analyze` on each member's last frame,
# then fit_fractal.py over every member's clusters of at least 10 particles.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${AGGLO:-$here/../../build/agglo}
scenario=$1 out=$2 seeds=${3:-1-10}
shift $(( $# < 3 ? $# : 3 ))
nice "$agglo" ensemble "$scenario" --seeds "$seeds" --jobs 1 --threads 1 --outputs trajectory,stats \
  -o "$out" --overwrite --quiet "$@"
for d in "$out"/seed=*; do
  "$agglo" analyze "$d/trajectory.xyz" --overwrite -o "$d/analysis" > "$d/analysis.txt"
done
/usr/bin/python3 "$here/fit_fractal.py" "$out"/seed=*/analysis/clusters.csv
