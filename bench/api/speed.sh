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
  best_ref=1e9 best_new=1e9
  for r in $(seq "$reps"); do
    for which in ref new; do
      exe=$ref; [ $which = new ] && exe=$new
      rm -rf "$out/o"
      t0=$(date +%s.%N)
      $exe $args --quiet -o "$out/o" > /dev/null 2>&1
      t=$(echo "$(date +%s.%N) - $t0" | bc)
      if [ $which = ref ]; then best_ref=$(echo "if ($t < $best_ref) $t else $best_ref" | bc)
      else best_new=$(echo "if ($t < $best_new) $t else $best_new" | bc); fi
    done
  done
  printf "%-18s %10.2f %10.2f %8.3f\n" "$name" "$best_ref" "$best_new" "$(echo "$best_new / $best_ref" | bc -l)"
done
rm -rf "$out"
