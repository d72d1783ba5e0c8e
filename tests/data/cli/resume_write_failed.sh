#!/bin/sh
# resume_write_failed.sh AGGLO DIR: a run whose trajectory.xyz write fails mid-run (a file size
# limit, as a full disk) exits non-zero; --resume then ends with the uninterrupted run's files. The
# failed step's outputs were not all written, so no restart point may claim that step: without an
# earlier restart point --resume starts over, with one (output.checkpoint_interval) it continues
# from it.
exe=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
base="-s run.model=contact -s run.dim=2 -s run.seed=1 -s run.dt=0.02 -s run.t_end=2
  -s particles.n=100 -s particles.radius=0.01 -s box.size=1 -s output.snapshots=
  -s output.trajectory_interval=0.1 -s output.stats_interval=0.02 --threads 1 --quiet"
for points in 0 0.1; do
  args="$base -s output.checkpoint_interval=$points"
  "$exe" run $args -o "$dir/whole_$points" || { echo "FAIL: the uninterrupted run failed"; exit 1; }
  # 60 blocks (30 KiB in dash's 512-byte blocks, 60 KiB in bash's): frames of about 10 KB, 21 in all
  sh -c 'trap "" XFSZ; ulimit -f 60; exec "$@"' sh "$exe" run $args -o "$dir/cut_$points" \
    2> "$dir/cut_$points.err" && { echo "FAIL: the run under the size limit exited 0"; exit 1; }
  grep -q "trajectory.xyz: write failed" "$dir/cut_$points.err" ||
    { echo "FAIL: not the trajectory.xyz write that failed:"; cat "$dir/cut_$points.err"; exit 1; }
  "$exe" run --resume "$dir/cut_$points" --threads 1 --quiet || { echo "FAIL: --resume failed"; exit 1; }
  for f in stats.csv sizes.csv trajectory.xyz state.xyz contacts.txt; do
    cmp "$dir/whole_$points/$f" "$dir/cut_$points/$f" ||
      { echo "FAIL: checkpoint_interval=$points: $f differs from the uninterrupted run's"; exit 1; }
  done
  echo "checkpoint_interval=$points: the trajectory.xyz write failed; --resume ends as the uninterrupted run"
done
