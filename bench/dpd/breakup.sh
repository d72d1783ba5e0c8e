#!/usr/bin/env bash
# breakup.sh [AGGLO] [OUT] [SEEDS] [CASES]: the shear break-up of agglomerates against the shear
# rate (docs/dpd.md, "Shear break-up"; issue 45): for each case, one `agglo ensemble` of
# examples/dpd_breakup_CASE.ini over SEEDS (default 1-4) and --vary dpd.shear_rate (the rates
# below), then bench/dpd/breakup.py: the largest agglomerate against time, the fragment-size
# distribution, the bridges broken and the time to break-up, the mean fragment size against the
# rate with error bars over seeds and its fitted power law, and plots into OUT/CASE/.
# CASES: vdw, capillary or both (default). Two jobs at a time, one thread each, niced; with the
# default seeds about 3 CPU-minutes. RATES (environment) replaces the rates of every case (e.g.
# RATES=0,8,32,128) and EXTRA adds overrides (e.g. EXTRA="-s run.t_end=5").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo}
out=${2:-breakup}
seeds=${3:-1-4}
cases=${4:-vdw capillary}
# rates [choice]: 0 (the agglomerate stays whole), then a factor ~2 apart over the range where
# the 100-particle aggregate goes from a few fragments to dimers and monomers within t_end
declare -A rates=(
  [vdw]="0,0.1,0.2,0.4,0.8,1.6,3.2"
  [capillary]="0,4,8,16,32,64,128"
)
for c in $cases; do
  ini=$here/../../examples/dpd_breakup_$c.ini
  [ -f "$ini" ] || { echo "breakup.sh: no $ini (CASES: vdw, capillary)" >&2; exit 2; }
  r=${RATES:-${rates[$c]}}
  echo "== $c: agglo ensemble $(basename "$ini") --seeds $seeds --vary dpd.shear_rate=$r ${EXTRA:-}"
  # shellcheck disable=SC2086
  nice -n 5 "$agglo" ensemble "$ini" --seeds "$seeds" --vary "dpd.shear_rate=$r" ${EXTRA:-} \
    --jobs 2 --threads 1 --outputs stats,trajectory --quiet --overwrite -o "$out/$c"
  /usr/bin/python3 "$here/breakup.py" "$out/$c" "$out/$c"
done
