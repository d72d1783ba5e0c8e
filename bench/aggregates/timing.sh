#!/usr/bin/env bash
# CPU and wall time of one aggregate of N monomers (default 10^4) by agglo aggregate, per method,
# D_f and dimension, k_f 1.3, seeds 1-3 (docs/performance.md, "Tunable aggregates"):
#   bench/aggregates/timing.sh [OUT_DIR] [N]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${AGGLO:-$here/../../build/agglo}
out=${1:-/tmp/agg_timing} n=${2:-10000}
mkdir -p "$out"
echo "method,dim,df,seed,n,cpu_seconds,wall_seconds,placements,restarts"
for spec in "cc 3 1.5" "cc 3 1.8" "cc 3 2.2" "cc 3 2.5" "pc 3 1.8" "pc 3 2.2" "pc 3 2.5" "cc 2 1.4" "cc 2 1.6" "pc 2 1.8"; do
  set -- $spec
  for s in 1 2 3; do
    /usr/bin/time -f "%U" -o "$out/cpu.txt" nice "$agglo" aggregate -n "$n" --method "$1" --dim "$2" \
      --df "$3" --kf 1.3 --seed "$s" --overwrite -o "$out/$1_$2_$3_$s" > /dev/null
    tail -n 1 "$out/$1_$2_$3_$s/aggregates.csv" | awk -F, -v m="$1" -v d="$2" -v f="$3" -v s="$s" \
      -v cpu="$(tail -n 1 "$out/cpu.txt")" '{print m "," d "," f "," s "," $3 "," cpu "," $14 "," $12 "," $13}'
  done
done
