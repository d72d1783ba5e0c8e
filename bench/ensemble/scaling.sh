#!/bin/sh
# Ensemble scaling on this machine: a 20-member ensemble (Maury's Brownian aggregation, N = 1000
# and 2000 mixed: members of ~1.5 and ~3 s, one thread each) on 1 and 2 MPI ranks (and, with
# JOBS=1, --jobs 1 and 2 forked processes), each REPEAT times (default 3), interleaved; prints the
# best wall time of each and the speed-ups, the load average beside each run (the machine is
# shared: the best of the repeats is the least disturbed), and checks that the members' files are
# identical whatever the schedule; mpirun --bind-to none: on a machine shared with other work a
# rank pinned to a busy core would wait (docs/performance.md, "Ensembles").
# usage: [REPEAT=3] [JOBS=1] bench/ensemble/scaling.sh [build/agglo] [work dir]   (needs mpirun)
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
  rm -rf "$name"
  t0=$(now); "$@" -o "$name" > /dev/null; t1=$(now)
  echo "$name $(echo "$t1 - $t0" | bc) load $(cut -d' ' -f1 /proc/loadavg)" | tee -a times.txt
}
for r in $(seq "${REPEAT:-3}"); do
  run mpi1 mpirun --bind-to none -np 1 "$agglo" ensemble $args
  run mpi2 mpirun --bind-to none -np 2 "$agglo" ensemble $args
  if [ "${JOBS:-0}" = 1 ]; then
    run jobs1 "$agglo" ensemble $args
    run jobs2 "$agglo" ensemble $args --jobs 2
  fi
done
for d in mpi2 jobs1 jobs2; do
  [ -d $d ] && diff -r -x done -x members.csv mpi1 $d > /dev/null && echo "mpi1 = $d: identical member files and ensemble.csv"
done
awk '{ if (!($1 in t) || $2 < t[$1]) t[$1] = $2 } END {
  printf "MPI (best of the repeats): 1 rank %.1f s, 2 ranks %.1f s, speed-up %.2f\n", t["mpi1"], t["mpi2"], t["mpi1"] / t["mpi2"];
  if (t["jobs1"]) printf "fork: --jobs 1 %.1f s, --jobs 2 %.1f s, speed-up %.2f\n", t["jobs1"], t["jobs2"], t["jobs1"] / t["jobs2"] }' times.txt
# the hand-out's own efficiency, whatever else loads the machine: the members' wall seconds
# summed, over ranks x the ensemble's wall time (1 = no rank ever idle)
last2=$(awk '$1 == "mpi2" { t = $2 } END { print t }' times.txt)
awk -F, -v T="$last2" 'NR > 1 { w += $NF; c += $(NF-1); n++ } END {
  printf "members: %d, mean wall %.2f s, mean CPU %.2f s; last 2-rank run: members busy %.1f%% of 2 x %.1f s\n", n, w / n, c / n, 100 * w / (2 * T), T }' mpi2/members.csv
