#!/bin/sh
# A change to the DPD force loop, before against after, on three fluids of dpd_bench (rho = 3,
# rc = 1, dt = 0.04, one thread): the Groot-Warren fluid (plain DPD), van der Waals spheres
# (R = 0.1) and capillary bridges with memory (R = 0.1), docs/performance.md#dpd.
#   bench/dpd/before_after.sh BEFORE AFTER [L] [STEPS] [REPS]   (defaults 20 500 5)
# BEFORE, AFTER: two dpd_bench binaries. Prints, per fluid, the best of REPS interleaved runs
# (wall and process CPU seconds of the timed loop). CALLGRIND=1: instead, the instructions of
# the whole run of L = 10, 50 steps under valgrind --tool=callgrind (robust to other jobs on the
# machine; valgrind 3.19 needs builds without AVX-512: -DCMAKE_C_FLAGS=-mno-avx512f).
set -eu
L=${3:-20} STEPS=${4:-500} REPS=${5:-5}
opts() {
  case $1 in
    gw) echo "" ;;
    vdw) echo "dpd.conservative=vdw dpd.hamaker=0.05 dpd.min_gap=0.01 dpd.core_k=25" ;;
    cap) echo "dpd.conservative=capillary dpd.surface_tension=5 dpd.contact_angle=0" \
           "dpd.fill_angle=10 dpd.capillary_volume=thesis dpd.capillary_bridge=memory" \
           "dpd.min_gap=0.004 dpd.core_k=100" ;;
  esac
}
bin() { if [ "$1" = before ]; then echo "$BEFORE"; else echo "$AFTER"; fi; }
BEFORE=$1 AFTER=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for fluid in gw vdw cap; do
  if [ "${CALLGRIND:-0}" = 1 ]; then
    for b in before after; do
      # shellcheck disable=SC2046
      OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$(bin $b)" perf 10 50 1 \
        $(opts $fluid) > /dev/null 2>&1
      echo "$fluid $b: $(callgrind_annotate "$tmp/cg" | awk '/PROGRAM TOTALS/ { print $1 }') instructions"
    done
    continue
  fi
  : > "$tmp/before"; : > "$tmp/after"
  for _ in $(seq "$REPS"); do
    for b in before after; do
      # shellcheck disable=SC2046
      OMP_WAIT_POLICY=passive "$(bin $b)" perf "$L" "$STEPS" 1 $(opts $fluid) |
        sed 's/.*wall=\([0-9.]*\) s cpu=\([0-9.]*\) s.*/\1 \2/' >> "$tmp/$b"
    done
  done
  for b in before after; do
    echo "$fluid $b: best wall $(cut -d' ' -f1 "$tmp/$b" | sort -g | head -1) s," \
      "best CPU $(cut -d' ' -f2 "$tmp/$b" | sort -g | head -1) s; runs (wall CPU): $(tr '\n' ';' < "$tmp/$b")"
  done
done
