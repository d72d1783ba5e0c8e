#!/bin/sh
# dlca_from_half.sh AGGLO EXAMPLE DIR: a dlca run stopped halfway (dlca.stop = t_end) and
# continued with particles.from = its state.xyz keeps its clusters and its time: the continued run
# starts at the half's time with the half's clusters, its cluster count never increases (no
# cluster falls apart) and it reaches the uninterrupted run's 10 clusters (by another path: the
# flights drawn after the file differ). Then a file without a cluster column is refused, naming
# the file and the column.
exe=$1 ini=$2 dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
common="-s particles.n=200 -s output.snapshots= -s output.trajectory_interval=0"
"$exe" run "$ini" $common -o "$dir/full" --quiet || fail "full run"
"$exe" run "$ini" $common -s dlca.stop=t_end -s run.t_end=600 -o "$dir/half" --quiet || fail "half run"
"$exe" run "$ini" $common -s particles.from="$dir/half/state.xyz" -o "$dir/cont" --quiet ||
  fail "continued run"
half=$(tail -n 1 "$dir/half/stats.csv" | cut -d, -f1,3)
first=$(sed -n 2p "$dir/cont/stats.csv" | cut -d, -f1,3)
[ "$half" = "$first" ] || fail "the half ends at (t, clusters) = $half, the continued run starts at $first"
[ "${half#*,}" -gt 10 ] || fail "the half run already has 10 clusters ($half)"
awk -F, 'NR > 2 && $3 > prev { print "FAIL: clusters rise from " prev " to " $3 " at t = " $1; bad = 1 }
         NR > 1 { prev = $3 } END { exit bad }' "$dir/cont/stats.csv" || exit 1
full_end=$(tail -n 1 "$dir/full/stats.csv" | cut -d, -f3)
cont_end=$(tail -n 1 "$dir/cont/stats.csv" | cut -d, -f3)
[ "$full_end" = 10 ] && [ "$cont_end" = 10 ] || fail "ends with $cont_end clusters (uninterrupted: $full_end)"
echo "half ends at (t, clusters) = ($half), continued to 10 clusters, never splitting"
# the same state without its cluster column
awk 'NR == 2 { sub(/:cluster:I:1/, "") } NR > 2 { $NF = "" } { print }' "$dir/half/state.xyz" \
  > "$dir/no_cluster.xyz"
"$exe" run "$ini" $common -s particles.from="$dir/no_cluster.xyz" -o "$dir/refused" --quiet 2> "$dir/err.txt"
st=$?
[ $st = 2 ] || fail "a file without clusters: exit status $st (expected 2)"
grep -q "no_cluster.xyz: frame 1: no cluster column" "$dir/err.txt" || fail "message: $(cat "$dir/err.txt")"
echo "dlca from half ok"
