#!/bin/sh
# The work each of 2 threads does in the contact model's steps (issue 29): the Brownian case of
# scaling.py (its settings, from --print-settings) at N (default 1e4 and 1e5), run to step 20 and
# to step 80 with
# OMP_WAIT_POLICY=passive (a waiting thread sleeps, so its CPU samples are its work), sampled by
# `perf record -e cpu-clock`; per thread, the samples of the longer run less the shorter's. Their
# sum over the busier thread bounds the speed-up of 2 threads whatever the host does to wall
# times: what the serial code and the imbalance leave. Needs perf; about 2 minutes per repeat.
#   bench/contact/thread_work.sh [AGGLO] [REPEATS] [N ...]
set -eu
AGGLO=${1:-build/agglo}
REPEATS=${2:-3}
[ $# -ge 2 ] && shift 2 || shift $#
SIZES=${*:-10000 100000}
command -v perf >/dev/null || { echo "thread_work.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$AGGLO" ] || { echo "thread_work.sh: $AGGLO is not an executable agglo" >&2; exit 1; }
SCALING="$(dirname "$0")/scaling.py"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# samples per thread of one run of N = $1 to step $2, busiest first
samples() {
  rm -rf "$WORK/out"
  set -- $(python3 "$SCALING" --case brownian --methods mprgp --sizes "$1" --print-settings "$2")
  OMP_WAIT_POLICY=passive perf record -q -e cpu-clock -F 999 -o "$WORK/perf.data" -- \
    "$AGGLO" run --quiet --threads 2 -o "$WORK/out" "$@" >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; exit 1; }
  perf report -i "$WORK/perf.data" --sort pid --stdio -n 2>/dev/null |
    awk '/^ +[0-9.]+%/ {print $2}' | sort -rn | head -2 | tr '\n' ' '
}

echo "| N | repeat | busier thread (samples, steps 20-80) | other thread | bound of 2 threads |"
echo "| --- | --- | --- | --- | --- |"
for n in $SIZES; do
  r=1
  while [ "$r" -le "$REPEATS" ]; do
    a=$(samples "$n" 20)
    b=$(samples "$n" 80)
    echo "$n $r $a $b" | awk '{m = $5 - $3; o = $6 - $4; if (o > m) {t = m; m = o; o = t}
      printf "| %d | %d | %d | %d | %.2fx |\n", $1, $2, m, o, (m + o) / m}'
    r=$((r + 1))
  done
done
