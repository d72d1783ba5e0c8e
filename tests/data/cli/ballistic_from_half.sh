#!/bin/sh
# ballistic_from_half.sh AGGLO EXAMPLE DIR: a ballistic run stopped halfway (ballistic.stop =
# t_end) and continued with particles.from = its state.xyz keeps its clusters and its time: the
# continued run starts at the half's time with the half's clusters, its cluster count never
# increases (no cluster falls apart), and it ends, as the uninterrupted run, with one cluster.
# Both methods; then a file without a cluster column is refused, naming the file and the column.
exe=$1 ini=$2 dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
common="-s particles.n=100 -s output.snapshots= -s output.trajectory_interval=0"
for m in time_stepping event_driven; do
  "$exe" run "$ini" $common -s ballistic.method=$m -o "$dir/full_$m" --quiet || fail "$m: full run"
  "$exe" run "$ini" $common -s ballistic.method=$m -s ballistic.stop=t_end -s run.t_end=150 \
    -o "$dir/half_$m" --quiet || fail "$m: half run"
  "$exe" run "$ini" $common -s ballistic.method=$m -s particles.from="$dir/half_$m/state.xyz" \
    -o "$dir/cont_$m" --quiet || fail "$m: continued run"
  half=$(tail -n 1 "$dir/half_$m/stats.csv" | cut -d, -f1,3)
  first=$(sed -n 2p "$dir/cont_$m/stats.csv" | cut -d, -f1,3)
  [ "$half" = "$first" ] || fail "$m: the half ends at (t, clusters) = $half, the continued run starts at $first"
  [ "${half#*,}" -gt 1 ] || fail "$m: the half run already has one cluster ($half)"
  awk -F, -v m=$m 'NR > 2 && $3 > prev { print "FAIL: " m ": clusters rise from " prev " to " $3 " at t = " $1; bad = 1 }
                   NR > 1 { prev = $3 } END { exit bad }' "$dir/cont_$m/stats.csv" || exit 1
  full_end=$(tail -n 1 "$dir/full_$m/stats.csv" | cut -d, -f3)
  cont_end=$(tail -n 1 "$dir/cont_$m/stats.csv" | cut -d, -f3)
  [ "$full_end" = 1 ] && [ "$cont_end" = 1 ] || fail "$m: ends with $cont_end clusters (uninterrupted: $full_end)"
  echo "$m: half ends at (t, clusters) = ($half), continued to one cluster, never splitting"
done
# the same state without its cluster column
awk 'NR == 2 { sub(/:cluster:I:1/, "") } NR > 2 { $NF = "" } { print }' "$dir/half_time_stepping/state.xyz" \
  > "$dir/no_cluster.xyz"
"$exe" run "$ini" $common -s particles.from="$dir/no_cluster.xyz" -o "$dir/refused" --quiet 2> "$dir/err.txt"
st=$?
[ $st = 2 ] || fail "a file without clusters: exit status $st (expected 2)"
grep -q "no_cluster.xyz: frame 1: no cluster column" "$dir/err.txt" || fail "message: $(cat "$dir/err.txt")"
echo "ballistic from half ok"
