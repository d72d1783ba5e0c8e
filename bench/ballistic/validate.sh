#!/usr/bin/env bash
# The paper's comparison (Degond et al. 2024, Sec. 4): time stepping against the exact event-driven
# dynamics for N in {100, 400, 2500, 10000} and area fractions V_f in {0.1, 0.2, 0.3}, the paper's
# setup (square lattice, velocities uniform in [-0.5, 0.5]^2, walls, until one cluster).
# Writes one CSV per case (one row per run) and the summary table of `agglo compare` into OUT.
# Each case is an ensemble (agglo compare = agglo ensemble over ballistic.method) in OUT/TAG/.
# usage: [JOBS=2] bench/ballistic/validate.sh [AGGLO] [OUT] [SEEDS_SMALL] [SEEDS_10000]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo}
out=${2:-validation-out}
seeds=${3:-20}
seeds_big=${4:-10}
mkdir -p "$out"
for vf in 0.1 0.2 0.3; do
  for n in 100 400 2500 10000; do
    s=$seeds; [ "$n" -ge 10000 ] && s=$seeds_big
    tag="n${n}_vf${vf}"
    rm -rf "$out/$tag"
    "$agglo" compare "$here/../../examples/ballistic_paper_400.ini" -s particles.n=$n \
      -s particles.fraction=$vf --seeds "$s" --csv "$out/$tag.csv" -o "$out/$tag" --jobs "${JOBS:-1}" \
      > "$out/$tag.txt" 2> /dev/null
    echo "== N = $n, V_f = $vf ($s seeds)"; grep -E "N_c|D_f|A_r|time to|CPU" "$out/$tag.txt"
  done
done
