#!/bin/sh
# The thesis's comparison (Mokkapati 2006, Tables 3-6): 375 particles in 25^3, rc = 3, 10 000
# steps, 5 seeds, van der Waals vs capillary, with the agglomerate report of each final frame.
# Each case is one `agglo ensemble --seeds 1-5 --jobs 2` (the command is printed with its table).
#   bench/dpd/thesis.sh [AGGLO] [OUTDIR]   (defaults: build/agglo, /tmp/dpd_thesis)
# Prints markdown tables (columns of the thesis's tables, then ours) for docs/dpd.md.
set -eu
AGGLO=${1:-$(dirname "$0")/../../build/agglo}
OUT=${2:-/tmp/dpd_thesis}
EX=$(dirname "$0")/../../examples
mkdir -p "$OUT"
table() { # name scenario extra-overrides...
  name=$1; ini=$2; shift 2
  echo "### $name"
  echo
  echo "    agglo ensemble examples/$ini --seeds 1-5 --jobs 2 --threads 1 $* -o $name"
  echo
  rm -rf "${OUT:?}/$name"
  "$AGGLO" ensemble "$EX/$ini" --seeds 1-5 --jobs 2 --threads 1 --quiet "$@" -o "$OUT/$name" > /dev/null
  echo "| seed | definition | prolate | oblate | sphere | scalene | # ellipsoids | # particles | volume % (per (4/3) pi d^3) | volume % (of members) | largest | kT end |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for seed in 1 2 3 4 5; do
    d="$OUT/$name/seed=$seed"
    ke=$(tail -1 "$d/stats.csv" | cut -d, -f6)
    kt=$(awk -v e="$ke" 'BEGIN { printf "%.3f", e / (1.5 * 375) }')
    for def in thesis moments; do
      row=$("$AGGLO" agglomerates "$d/trajectory.xyz" --row --definition $def)
      echo "| $seed | $def | $(echo $row | tr ' ' '|' | sed 's/|/ | /g') | $kt |"
    done
  done
  echo
}
table vdw dpd_vdw.ini
table capillary dpd_capillary.ini
table capillary_constant_volume dpd_capillary.ini -s dpd.capillary_volume=constant
table vdw_no_core dpd_vdw.ini -s dpd.core_k=0
