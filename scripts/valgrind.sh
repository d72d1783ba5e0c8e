#!/usr/bin/env bash
# A short run of each model (and an analysis) under valgrind memcheck: no errors, nothing lost.
# Built without -march=native (valgrind does not know every AVX-512 instruction).
# Usage: scripts/valgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-valgrind -j2 --target agglo_cli >/dev/null
A=$PWD/build-valgrind/agglo
E=$PWD/examples
work=$(mktemp -d)
cd "$work"
status=0
while read -r args; do
  echo "== agglo $args"
  OMP_NUM_THREADS=1 valgrind -q --error-exitcode=9 --suppressions="$root/.ci/valgrind.supp" --leak-check=full --errors-for-leak-kinds=definite \
    "$A" $args || { echo "valgrind reported errors"; status=1; }
done <<EOF2
run -o c --quiet --threads 1 -s particles.n=200 -s run.t_end=0.1
run $E/gluey_billiard.ini -o g --quiet --threads 1 -s run.t_end=1
run $E/ballistic_paper_400.ini -o b --quiet --threads 1 -s particles.n=100
run $E/ballistic_event_driven_400.ini -o e --quiet --threads 1 -s particles.n=100
run $E/dpd_vdw.ini -o d --quiet --threads 1 -s run.t_end=0.05
analyze c/trajectory.xyz -o an
EOF2
rm -rf "$work"
exit $status
