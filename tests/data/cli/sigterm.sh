#!/bin/sh
# sigterm.sh AGGLO DIR: SIGTERM during a run stops it with a non-zero status and a complete state.
exe=$1
dir=$2
n=3000
rm -rf "$dir"
"$exe" run -s particles.n=$n -s run.t_end=1000 -s output.stats_interval=0 -s output.snapshots= \
  -o "$dir" --quiet > "$dir.log" 2>&1 &
pid=$!
# wait until the run is stepping (the handler is installed before step 1): 3 lines in stats.csv
i=0
while [ "$(cat "$dir/stats.csv" 2>/dev/null | wc -l)" -lt 3 ]; do
  i=$((i + 1))
  [ $i -gt 600 ] && { echo "run did not start"; kill -KILL $pid; exit 1; }
  sleep 0.1
done
sleep 1
kill -TERM $pid
wait $pid
rc=$?
cat "$dir.log"
echo "exit status $rc"
[ $rc -ne 0 ] || { echo "exit status 0 after SIGTERM"; exit 1; }
grep -q 'stopped by signal 15' "$dir.log" || { echo "no 'stopped by signal' message"; exit 1; }
[ -s "$dir/state.xyz" ] || { echo "no state.xyz"; exit 1; }
[ ! -e "$dir/state.xyz.tmp" ] || { echo "state.xyz.tmp left behind"; exit 1; }
lines=$(wc -l < "$dir/state.xyz")
[ "$lines" -eq $((n + 2)) ] || { echo "state.xyz has $lines lines, expected $((n + 2))"; exit 1; }
# every particle line complete: 11 fields
bad=$(tail -n +3 "$dir/state.xyz" | awk 'NF != 11' | wc -l)
[ "$bad" -eq 0 ] || { echo "$bad incomplete lines in state.xyz"; exit 1; }
# the last step is written once to stats.csv and trajectory.xyz (not again by the stop)
dup=$(tail -n +2 "$dir/stats.csv" | cut -d, -f2 | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "stats.csv has step $dup twice"; exit 1; }
dup=$(grep -o 'Step=[0-9]*' "$dir/trajectory.xyz" | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "trajectory.xyz has $dup twice"; exit 1; }
step=$(sed -n 's/.*Step=\([0-9]*\).*/\1/p' "$dir/state.xyz")
[ "$step" -gt 0 ] || { echo "state.xyz at step $step"; exit 1; }
[ "$(tail -n 1 "$dir/stats.csv" | cut -d, -f2)" = "$step" ] || { echo "stats.csv does not end at step $step"; exit 1; }
# the saved state is a restart point: continue in place for two more steps; the outputs go on
# without a repeated or missing step
t=$(awk -v s="$step" 'BEGIN { printf "%.10g", (s + 2) * 0.02 }')
"$exe" run --restart "$dir" -s run.t_end=$t -o "$dir" --quiet || { echo "restart failed"; exit 1; }
grep -q "Step=$((step + 2)) " "$dir/state.xyz" || { echo "restart did not reach step $((step + 2))"; exit 1; }
tail -n +2 "$dir/stats.csv" | cut -d, -f2 | awk '$1 != NR - 1 { print "stats.csv: row " NR " is step " $1; bad = 1 } END { exit bad }' || exit 1
echo "stopped at step $step; state complete; restarted to step $((step + 2))"
