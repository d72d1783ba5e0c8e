#!/usr/bin/env bash
# Time stepping against the exact dynamics as the time-step factor of rule (3.3) decreases.
# usage: bench/ballistic/dt_factor.sh [AGGLO] [OUT] [N] [V_f] [SEEDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo}
out=${2:-dt-factor-out}
n=${3:-400}; vf=${4:-0.2}; seeds=${5:-20}
mkdir -p "$out"
for f in 1 0.5 0.25 0.1; do
  rm -rf "$out/n${n}_vf${vf}_f$f"
  "$agglo" compare "$here/../../examples/ballistic_paper_400.ini" -s particles.n=$n \
    -s particles.fraction=$vf -s ballistic.dt_factor=$f --seeds "$seeds" -o "$out/n${n}_vf${vf}_f$f" \
    --csv "$out/n${n}_vf${vf}_f$f.csv" > "$out/n${n}_vf${vf}_f$f.txt" 2> /dev/null
  echo "== dt_factor = $f"; grep -E "N_c|D_f|P\(4r\)|CPU|overlap" "$out/n${n}_vf${vf}_f$f.txt"
done
