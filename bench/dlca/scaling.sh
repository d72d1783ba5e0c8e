#!/usr/bin/env bash
# CPU time of examples/dlca_3d.ini (3D, volume fraction 1e-3, persistence 0.25 radius) against N,
# one thread, to STOP clusters: a count (default 10) or meanS, a mean cluster size S
# (dlca.clusters = N / S) (docs/performance.md):
#   bench/dlca/scaling.sh [AGGLO] [OUT] [STOP] [N ...]      (default N: 1000 3000 10000)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo} out=${2:-/tmp/dlca_scaling} stop=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
sizes=${*:-1000 3000 10000}
mkdir -p "$out"
echo "N,clusters,t_end,flights,cpu_s,max_rss_kb"
for n in $sizes; do
  case $stop in mean*) k=$((n / ${stop#mean})) ;; *) k=$stop ;; esac
  /usr/bin/time -f "%U %M" -o "$out/time_$n" env OMP_NUM_THREADS=1 nice "$agglo" run \
    "$here/../../examples/dlca_3d.ini" -s particles.n="$n" -s dlca.clusters="$k" \
    -s output.trajectory_interval=0 -s output.stats_interval=1 -o "$out/n$n" --quiet --overwrite
  t=$(tail -n 1 "$out/n$n/stats.csv" | cut -d, -f1)
  # events processed (flight ends, contacts, wall hits), summed over the steps
  ev=$(awk -F, 'NR > 1 {s += $7} END {print s}' "$out/n$n/stats.csv")
  read -r cpu rss < "$out/time_$n"
  echo "$n,$k,$t,$ev,$cpu,$rss"
done
