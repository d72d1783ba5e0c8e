#!/bin/sh
# one_run_per_dir.sh AGGLO DIR: an output directory is held by one run at a time. While
# `agglo run --resume D` steps, a second `--resume D` and a fresh `run -o D --overwrite` are
# refused at once, naming D and the holder's pid, and change nothing: the first run ends with
# the uninterrupted run's files, byte for byte.
exe=$1
dir=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
set -- -s particles.n=2000 -s output.snapshots= -s output.stats_interval=0.02 --threads 1 --quiet
"$exe" run "$@" -s run.t_end=4 -o "$dir/whole" || fail "the uninterrupted run"
"$exe" run "$@" -s run.t_end=1 -o "$dir/d" || fail "the run to t = 1"
"$exe" run --resume "$dir/d" -s run.t_end=4 --threads 1 --quiet &
pid=$!
i=0 # until it steps: stats.csv past the 51 rows of t <= 1
while [ "$(wc -l < "$dir/d/stats.csv")" -le 53 ]; do
  i=$((i + 1))
  [ $i -gt 3000 ] && { kill -KILL $pid; fail "the resumed run did not step"; }
  sleep 0.01
done
kill -0 $pid 2>/dev/null || fail "the first run ended before the others were tried: make it longer"
"$exe" run --resume "$dir/d" -s run.t_end=4 --quiet 2> "$dir/second.err"
rc=$?
"$exe" run "$@" -s run.t_end=4 -o "$dir/d" --overwrite 2> "$dir/fresh.err"
rc_fresh=$?
wait $pid || fail "the first run failed"
cat "$dir/second.err" "$dir/fresh.err"
[ $rc -eq 1 ] || fail "a second --resume on a held directory: exit status $rc (expected 1)"
[ $rc_fresh -eq 1 ] || fail "run -o --overwrite on a held directory: exit status $rc_fresh (expected 1)"
for f in second fresh; do
  grep -q "$dir/d is in use by another run (pid $pid holds $dir/d/agglo.lock)" "$dir/$f.err" ||
    fail "$f: the message does not name $dir/d and pid $pid"
done
for f in stats.csv trajectory.xyz state.xyz contacts.txt; do
  cmp "$dir/whole/$f" "$dir/d/$f" || fail "$f differs from the uninterrupted run's"
done
[ ! -e "$dir/d/agglo.lock" ] || fail "agglo.lock left behind by a run that ended"
echo "refused twice while pid $pid held $dir/d; its files equal the uninterrupted run's"
