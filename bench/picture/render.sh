#!/bin/sh
# render.sh [BUILD_DIR]: time one shaded 3D frame on one core (docs/performance.md, Pictures):
# 10^5 spheres at 800 and 1600 px, 10^6 at 800 px; best of 3.
b=${1:-build}
for case in "100000 800" "100000 1600" "1000000 800"; do
  set -- $case
  taskset -c 0 "$b/bench/picture_bench" "$1" "$2" 3 "/tmp/picture_bench_$1_$2.png"
done
