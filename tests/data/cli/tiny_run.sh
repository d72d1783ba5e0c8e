#!/bin/sh
# tiny_run.sh AGGLO DIR: a short run from the built-in default writes every output.
exe=$1
dir=$2
rm -rf "$dir"
"$exe" run -s particles.n=50 -s run.t_end=0.1 -o "$dir" --quiet || { echo "run failed: $?"; exit 1; }
for f in trajectory.xyz stats.csv state.xyz contacts.txt scenario.ini snapshot_000000000.png; do
  [ -s "$dir/$f" ] || { echo "missing or empty: $f"; exit 1; }
done
# a PNG signature
sig=$(od -An -c -N4 "$dir/snapshot_000000000.png" | tr -d ' ')
[ "$sig" = '211PNG' ] || { echo "snapshot_000000000.png is not a PNG ($sig)"; exit 1; }
# state.xyz: count, header, one line per particle
[ "$(head -n 1 "$dir/state.xyz")" = 50 ] || { echo "state.xyz count"; exit 1; }
[ "$(wc -l < "$dir/state.xyz")" -eq 52 ] || { echo "state.xyz has $(wc -l < "$dir/state.xyz") lines"; exit 1; }
# trajectory: frames at t = 0 and t = 0.1 (trajectory_interval 0.1), 52 lines each
[ "$(wc -l < "$dir/trajectory.xyz")" -eq 104 ] || { echo "trajectory.xyz has $(wc -l < "$dir/trajectory.xyz") lines"; exit 1; }
# stats: header + one row per step (stats_interval 0.02 = dt), steps 0..5
[ "$(wc -l < "$dir/stats.csv")" -eq 7 ] || { echo "stats.csv has $(wc -l < "$dir/stats.csv") lines"; exit 1; }
# the resolved scenario runs again to the same state
"$exe" run "$dir/scenario.ini" -o "$dir/again" --quiet || { echo "rerun of scenario.ini failed"; exit 1; }
cmp "$dir/state.xyz" "$dir/again/state.xyz" || { echo "scenario.ini does not reproduce the run"; exit 1; }
# snapshot names (zero-padded steps) sort in time order: steps 1, 3 and 10
"$exe" run -s particles.n=50 -s run.t_end=0.2 -s output.snapshots=0.02,0.06,0.2 -o "$dir/names" --quiet || { echo "names run failed"; exit 1; }
names=$(cd "$dir/names" && ls snapshot_*.png | tr '\n' ' ')
[ "$names" = "snapshot_000000001.png snapshot_000000003.png snapshot_000000010.png " ] || { echo "snapshot names: $names"; exit 1; }
echo "tiny run ok"
