#!/bin/sh
# from_half.sh AGGLO EXAMPLE DIR LABEL STOP_KEY T_HALF END_CLUSTERS [-s KEY=V ...]: a run of a
# model with rigid clusters (ballistic, dlca) stopped halfway (STOP_KEY = t_end at T_HALF) and
# continued with particles.from = its state.xyz keeps its clusters and its time: the continued run
# starts at the half's time with the half's clusters, its cluster count never increases (no
# cluster falls apart) and it ends, as the uninterrupted run, with END_CLUSTERS clusters. Then the
# same state without its cluster column is refused, naming the file and the column.
exe=$1 ini=$2 dir=$3 label=$4 stop=$5 t_half=$6 end=$7
shift 7
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $label: $*"; exit 1; }
"$exe" run "$ini" "$@" -o "$dir/full" --quiet || fail "full run"
"$exe" run "$ini" "$@" -s "$stop"=t_end -s run.t_end="$t_half" -o "$dir/half" --quiet || fail "half run"
"$exe" run "$ini" "$@" -s particles.from="$dir/half/state.xyz" -o "$dir/cont" --quiet ||
  fail "continued run"
half=$(tail -n 1 "$dir/half/stats.csv" | cut -d, -f1,3)
first=$(sed -n 2p "$dir/cont/stats.csv" | cut -d, -f1,3)
[ "$half" = "$first" ] || fail "the half ends at (t, clusters) = $half, the continued run starts at $first"
[ "${half#*,}" -gt "$end" ] || fail "the half run already has $end clusters ($half)"
awk -F, -v m="$label" 'NR > 2 && $3 > prev { print "FAIL: " m ": clusters rise from " prev " to " $3 " at t = " $1; bad = 1 }
                       NR > 1 { prev = $3 } END { exit bad }' "$dir/cont/stats.csv" || exit 1
full_end=$(tail -n 1 "$dir/full/stats.csv" | cut -d, -f3)
cont_end=$(tail -n 1 "$dir/cont/stats.csv" | cut -d, -f3)
[ "$full_end" = "$end" ] && [ "$cont_end" = "$end" ] || fail "ends with $cont_end clusters (uninterrupted: $full_end)"
echo "$label: half ends at (t, clusters) = ($half), continued to $end clusters, never splitting"
awk 'NR == 2 { sub(/:cluster:I:1/, "") } NR > 2 { $NF = "" } { print }' "$dir/half/state.xyz" \
  > "$dir/no_cluster.xyz"
"$exe" run "$ini" "$@" -s particles.from="$dir/no_cluster.xyz" -o "$dir/refused" --quiet 2> "$dir/err.txt"
st=$?
[ $st = 2 ] || fail "a file without clusters: exit status $st (expected 2)"
grep -q "no_cluster.xyz: frame 1: no cluster column" "$dir/err.txt" || fail "message: $(cat "$dir/err.txt")"
echo "$label from half ok"
