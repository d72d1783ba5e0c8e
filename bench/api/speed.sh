#!/usr/bin/env bash
# speed.sh REF NEW [REPS]: wall time of three runs with two agglo binaries, alternated, best of
# REPS (default 3): the default scenario, the Groot-Warren DPD fluid and ballistic time stepping
# at N = 10^5. Prints the ratio NEW/REF for each (the API costs nothing if it stays within 1.02).
set -eu
ref=$1 new=$2 reps=${3:-3}
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
cases=("default|run"
       "dpd_groot_warren|run examples/dpd_groot_warren.ini -s run.t_end=20"
       "ballistic_1e5|run examples/ballistic_large_ts.ini")
printf "%-18s %10s %10s %8s\n" case "ref (s)" "new (s)" new/ref
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  times=""
  for r in $(seq "$reps"); do
    for exe in "$ref" "$new"; do
      rm -rf "$out/o"
      t0=$(date +%s.%N)
      $exe $args --quiet -o "$out/o" > /dev/null 2>&1
      times="$times $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
    done
  done
  echo "$times" | awk -v name="$name" '{ r = 1e9; n = 1e9
    for (i = 1; i <= NF; i += 2) { if ($i < r) r = $i; if ($(i + 1) < n) n = $(i + 1) }
    printf "%-18s %10.2f %10.2f %8.3f\n", name, r, n, n / r }'
done
rm -rf "$out"
