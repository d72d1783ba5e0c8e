#!/bin/sh
# resume_outputs_reach.sh AGGLO DIR: --resume checks that the outputs it continues reach the
# restart point (issue 41): with trajectory.xyz removed it wrote 22 of 31 frames, with stats.csv cut
# it went on with rows missing, exit 0 both times. Now refused naming the file and what is missing,
# nothing changed; untouched, the resumed run equals the uninterrupted one.
exe=$1
dir=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
set -- -s particles.n=30 -s output.snapshots= -s output.trajectory_interval=0.02 --quiet
"$exe" run "$@" -s run.t_end=0.4 -o "$dir/whole" || fail "the uninterrupted run"
"$exe" run "$@" -s run.t_end=0.2 -o "$dir/a" || fail "the run to t = 0.2"
cp -r "$dir/a" "$dir/b" && cp -r "$dir/a" "$dir/c"
rm "$dir/a/trajectory.xyz"
"$exe" run --resume "$dir/a" -s run.t_end=0.4 --quiet 2>&1
echo "no trajectory: exit status $?"
head -n 4 "$dir/b/stats.csv" > "$dir/b/s" && mv "$dir/b/s" "$dir/b/stats.csv"
"$exe" run --resume "$dir/b" -s run.t_end=0.4 --quiet 2>&1
echo "stats cut: exit status $?"
[ "$(wc -l < "$dir/b/stats.csv")" -eq 4 ] || fail "the refused resume changed stats.csv"
[ ! -e "$dir/a/trajectory.xyz" ] || fail "the refused resume wrote a trajectory"
"$exe" run "$@" -s run.t_end=0.2 -s output.format=h5md -o "$dir/h" || fail "the H5MD run to t = 0.2"
rm "$dir/h/trajectory.h5md"
"$exe" run --resume "$dir/h" -s run.t_end=0.4 --quiet 2>&1
echo "no H5MD trajectory: exit status $?"
[ ! -e "$dir/h/trajectory.h5md" ] || fail "the refused resume wrote an H5MD trajectory"
"$exe" run --resume "$dir/c" -s run.t_end=0.4 --quiet || fail "the untouched resume"
for f in stats.csv trajectory.xyz state.xyz; do
  cmp "$dir/whole/$f" "$dir/c/$f" || fail "$f differs from the uninterrupted run's"
done
echo "RESUME_REACH_OK"
