#!/bin/sh
# Ensemble scaling on this machine: a 20-member ensemble (Maury's Brownian aggregation, N = 1000
# and 2000 mixed: members of ~2 and ~4 s, one thread each) on 1 and 2 MPI ranks, and with
# --jobs 1 and 2 (forked processes); prints the wall times and the speed-ups, and checks that the
# members' files are identical whatever the schedule (docs/performance.md, "Ensembles").
# usage: bench/ensemble/scaling.sh [build/agglo] [work dir]     (needs mpirun for the MPI rows)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
agglo=$(realpath "${1:-$here/build/agglo}")
work=${2:-/tmp/agglo_bench_ensemble}
rm -rf "$work"; mkdir -p "$work"; cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
args="$here/examples/maury_brownian_500.ini -s box.size= -s particles.fraction=0.1 --seeds 1-10
      --vary particles.n=1000,2000 --threads 1 --quiet"
now() { date +%s.%N; }
run() { # name, command...
  name=$1; shift
  t0=$(now); "$@" > /dev/null; t1=$(now)
  echo "$name $(echo "$t1 - $t0" | bc)" | tee -a times.txt
}
if command -v mpirun > /dev/null; then
  run mpi1 mpirun -np 1 "$agglo" ensemble $args -o mpi1
  run mpi2 mpirun -np 2 "$agglo" ensemble $args -o mpi2
fi
run jobs1 "$agglo" ensemble $args -o jobs1
run jobs2 "$agglo" ensemble $args -o jobs2 --jobs 2
for d in mpi2 jobs1 jobs2; do
  [ -d $d ] || continue
  [ -d mpi1 ] || break
  diff -r -x done -x members.csv mpi1 $d > /dev/null && echo "mpi1 = $d: identical member files and ensemble.csv"
done
awk '{t[$1] = $2} END {
  if (t["mpi1"]) printf "MPI: 1 rank %.1f s, 2 ranks %.1f s, speed-up %.2f\n", t["mpi1"], t["mpi2"], t["mpi1"] / t["mpi2"];
  printf "fork: --jobs 1 %.1f s, --jobs 2 %.1f s, speed-up %.2f\n", t["jobs1"], t["jobs2"], t["jobs1"] / t["jobs2"] }' times.txt
awk -F, 'NR > 1 { w += $NF; n++ } END { printf "members: %d, mean wall time %.2f s\n", n, w / n }' mpi1/members.csv 2>/dev/null || true
