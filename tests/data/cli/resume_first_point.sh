#!/bin/sh
# resume_first_point.sh AGGLO DIR: a run killed while it wrote its first restart point. Before
# the pair's renames (state.xyz.new and contacts.txt.new, no state.xyz) there is no restart point
# yet: --resume starts over. Between them (state.xyz.new, contacts.txt) --resume completes the
# point and continues from it. Both end with the uninterrupted run's files.
exe=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
args="-s particles.n=50 -s run.t_end=0.1 -s output.snapshots="
"$exe" run $args -o "$dir/whole" --quiet || { echo "the uninterrupted run failed"; exit 1; }
for cut in before between; do
  "$exe" run $args -o "$dir/$cut" --quiet || { echo "$cut: the run failed"; exit 1; }
  mv "$dir/$cut/state.xyz" "$dir/$cut/state.xyz.new"
  [ $cut = before ] && mv "$dir/$cut/contacts.txt" "$dir/$cut/contacts.txt.new"
  "$exe" run --resume "$dir/$cut" --quiet || { echo "$cut the renames: --resume failed"; exit 1; }
  for f in state.xyz contacts.txt stats.csv sizes.csv trajectory.xyz; do
    cmp -s "$dir/whole/$f" "$dir/$cut/$f" || { echo "$cut the renames: $f differs"; exit 1; }
  done
  echo "killed $cut the renames of the first restart point: --resume ends as the uninterrupted run"
done
