#!/bin/sh
# writers_honour_lock.sh AGGLO DIR: every command that writes into a directory honours its lock
# (issue 41): while a run writes D, `agglo convert X D/trajectory.xyz --overwrite` (which once became
# the run's trajectory) and `agglo analyze X -o D` are refused naming D and the run's pid, and
# change nothing there.
exe=$1
dir=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
set -- -s particles.n=2000 -s output.snapshots= -s output.stats_interval=0.02 --threads 1 --quiet
"$exe" run -s particles.n=20 -s run.t_end=0.04 -s output.snapshots= -o "$dir/other" --quiet || fail "the other run"
"$exe" run "$@" -s run.t_end=100 -o "$dir/d" &
pid=$!
i=0 # until it writes its trajectory
while [ ! -s "$dir/d/trajectory.xyz" ]; do
  i=$((i + 1))
  [ $i -gt 3000 ] && { kill -KILL $pid; fail "the run did not start"; }
  sleep 0.01
done
cp "$dir/d/trajectory.xyz" "$dir/before.xyz"
"$exe" convert "$dir/other/trajectory.xyz" "$dir/d/trajectory.xyz" --overwrite 2> "$dir/convert.err"
rc_convert=$?
"$exe" analyze "$dir/other/trajectory.xyz" -o "$dir/d" 2> "$dir/analyze.err"
rc_analyze=$?
kill -0 $pid 2>/dev/null || fail "the run ended before the others were tried: make it longer"
kill -TERM $pid
wait $pid
cat "$dir/convert.err" "$dir/analyze.err"
[ $rc_convert -eq 1 ] || fail "convert into a held directory: exit status $rc_convert (expected 1)"
[ $rc_analyze -eq 1 ] || fail "analyze into a held directory: exit status $rc_analyze (expected 1)"
for f in convert analyze; do
  grep -q "$dir/d is in use by another run (pid $pid holds $dir/d/agglo.lock)" "$dir/$f.err" ||
    fail "$f: the message does not name $dir/d and pid $pid"
done
[ ! -e "$dir/d/analysis.csv" ] || fail "analyze wrote into the held directory"
head -c "$(wc -c < "$dir/before.xyz")" "$dir/d/trajectory.xyz" | cmp - "$dir/before.xyz" ||
  fail "the run's trajectory.xyz was replaced"
echo "convert and analyze refused while pid $pid held $dir/d"
