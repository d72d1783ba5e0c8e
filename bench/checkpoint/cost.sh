#!/usr/bin/env bash
# cost.sh [AGGLO] [N]: the cost of restart points. One run of the default scenario with N
# particles (default 100 000) without restart points, one with a restart point at every stats row
# (output.checkpoint_interval = output.stats_interval = 0.02); best of 3 each. Prints the time of
# one restart point and its share of run time at the default interval (10 minutes of wall clock).
set -eu
exe=${1:-build/agglo} n=${2:-100000}
out=$(mktemp -d)
common=(-s particles.n=$n -s box.size= -s particles.fraction=0.2 -s run.t_end=0.4 -s output.snapshots=
        -s output.trajectory_interval=0 -s output.analysis_interval=0 --quiet)
best() { # args: the run's extra keys; prints the best wall time of 3
  local b=1e9
  for r in 1 2 3; do
    rm -rf "$out/o"
    local t0=$(date +%s.%N)
    "$exe" run "${common[@]}" "$@" -o "$out/o" > /dev/null
    b=$(awk -v a="$t0" -v c="$(date +%s.%N)" -v b="$b" 'BEGIN { t = c - a; print (t < b ? t : b) }')
  done
  echo "$b"
}
none=$(best -s output.checkpoint_minutes=0)
every=$(best -s output.checkpoint_minutes=0 -s output.checkpoint_interval=0.02)
awk -v n="$n" -v a="$none" -v b="$every" 'BEGIN {
  k = 20; per = (b - a) / k
  printf "N = %d: run %.2f s without restart points, %.2f s with %d: %.3f s each; at the default\n", n, a, b, k, per
  printf "interval (10 min of wall clock) they cost %.3f %% of the run time\n", 100 * per / 600 }'
rm -rf "$out"
