#!/bin/sh
# output_times.sh AGGLO EXAMPLES DIR: the event-driven models write every stats.csv row and
# trajectory frame at its time exactly (a step ends at the next output), and where the steps end
# changes nothing: the final state and the frames of times two schedules share are the same bytes.
exe=$1 ex=$2 dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
check() {
  name=$1 ini=$2 stats=$3 traj=$4; shift 4
  for s in a b; do
    "$exe" run "$ex/$ini" -s output.snapshots= "$@" -s output.stats_interval=$stats \
      -s output.trajectory_interval=$traj -o "$dir/$name-$s" --quiet || fail "$name: the run"
    stats=$((stats * 3)) traj=$((traj * 2))
  done
  # every row but the last (the run's end) at a multiple of the interval, written as one
  awk -F, -v n="$name" 'NR > 2 && prev != "" { if (prev % iv != 0) { print "FAIL: " n ": a row at t = " prev; exit 1 } }
    NR > 1 { prev = $1 } NR == 2 { iv = 0 } NR == 3 { iv = $1 }' "$dir/$name-a/stats.csv" || exit 1
  sed 1,2d "$dir/$name-a/state.xyz" > "$dir/a.body"; sed 1,2d "$dir/$name-b/state.xyz" > "$dir/b.body"
  cmp -s "$dir/a.body" "$dir/b.body" || fail "$name: the final state depends on the output times"
  # the frames of run b (every second frame of run a) are those of run a at the same times
  lines=$(($(head -n 1 "$dir/$name-a/trajectory.xyz") + 2))
  # (but their step numbers)
  awk -v L=$lines 'int((NR - 1) / L) % 2 == 0' "$dir/$name-a/trajectory.xyz" | sed 's/ Step=[0-9]*//' > "$dir/a.even"
  head -n $(wc -l < "$dir/a.even") "$dir/$name-b/trajectory.xyz" | sed 's/ Step=[0-9]*//' | cmp -s - "$dir/a.even" ||
    fail "$name: a frame differs between two output schedules"
  echo "$name: $(($(wc -l < "$dir/$name-a/stats.csv") - 1)) rows at their times, the same frames and end"
}
check ballistic_ed ballistic_event_driven_400.ini 5 50
check dlca_3d dlca_3d.ini 7 100 -s particles.n=300
echo "output times ok"
