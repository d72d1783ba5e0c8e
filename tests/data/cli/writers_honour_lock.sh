#!/bin/sh
# writers_honour_lock.sh AGGLO DIR: every command that writes into a directory honours its lock
# (issue 41): while a run writes D, `agglo convert X D/trajectory.xyz --overwrite` (which once became
# the run's trajectory), `agglo analyze X -o D`, `agglo render X -o D` and `agglo plot RUN -o D` are
# refused naming D and the run's pid, and change nothing there; render leaves no lock behind.
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
"$exe" render "$dir/other/trajectory.xyz" -o "$dir/d" 2> "$dir/render.err"
rc_render=$?
"$exe" plot "$dir/other" -o "$dir/d" 2> "$dir/plot.err" > /dev/null
rc_plot=$?
kill -0 $pid 2>/dev/null || fail "the run ended before the others were tried: make it longer"
kill -TERM $pid
wait $pid
cat "$dir/convert.err" "$dir/analyze.err" "$dir/render.err" "$dir/plot.err"
[ $rc_convert -eq 1 ] || fail "convert into a held directory: exit status $rc_convert (expected 1)"
[ $rc_analyze -eq 1 ] || fail "analyze into a held directory: exit status $rc_analyze (expected 1)"
[ $rc_render -eq 1 ] || fail "render into a held directory: exit status $rc_render (expected 1)"
[ $rc_plot -eq 1 ] || fail "plot into a held directory: exit status $rc_plot (expected 1)"
for f in convert analyze render plot; do
  grep -q "$dir/d is in use by another run (pid $pid holds $dir/d/agglo.lock)" "$dir/$f.err" ||
    fail "$f: the message does not name $dir/d and pid $pid"
done
[ ! -e "$dir/d/analysis.csv" ] || fail "analyze wrote into the held directory"
ls "$dir/d"/*.png 2> /dev/null && fail "render or plot wrote into the held directory"
"$exe" render "$dir/other/trajectory.xyz" -o "$dir/r" > /dev/null || fail "render into a free directory"
[ ! -e "$dir/r/agglo.lock" ] || fail "render left its lock behind"
head -c "$(wc -c < "$dir/before.xyz")" "$dir/d/trajectory.xyz" | cmp - "$dir/before.xyz" ||
  fail "the run's trajectory.xyz was replaced"
echo "convert, analyze, render and plot refused while pid $pid held $dir/d"
