#!/usr/bin/env bash
# CPU time of examples/dlca_3d.ini (3D, volume fraction 1e-3, persistence 0.25 radius) against N,
# to a mean cluster size of 20 (dlca.clusters = N / 20), one thread (docs/performance.md):
#   bench/dlca/scaling.sh [AGGLO] [OUT] [N ...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../../build/agglo} out=${2:-/tmp/dlca_scaling}
shift $(( $# < 2 ? $# : 2 ))
sizes=${*:-1000 4000 16000}
mkdir -p "$out"
echo "N,clusters,t_end,cpu_s,max_rss_kb"
for n in $sizes; do
  /usr/bin/time -f "%U %M" -o "$out/time_$n" env OMP_NUM_THREADS=1 nice "$agglo" run \
    "$here/../../examples/dlca_3d.ini" -s particles.n="$n" -s dlca.clusters=$((n / 20)) \
    -s output.trajectory_interval=0 -s output.stats_interval=1000 -o "$out/n$n" --quiet --overwrite
  t=$(tail -n 1 "$out/n$n/stats.csv" | cut -d, -f1)
  read -r cpu rss < "$out/time_$n"
  echo "$n,$((n / 20)),$t,$cpu,$rss"
done
