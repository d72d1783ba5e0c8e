#!/usr/bin/env bash
# Issue 42's speed requirement (docs/performance.md): the DLCA engine before and after, on the
# same two cases, the binaries alternating (old then new, then new then old, ...), best of REPEATS:
#   bench/dlca/speed_vs_before.sh OLD_AGGLO NEW_AGGLO OUT [N_CONTINUUM] [REPEATS] [N_FREE]
# continuum: examples/dlca_3d.ini (reduced units, lambda_1 = 0.25 a) with N_CONTINUUM monomers
#   (default 100000) to 10 clusters, the command of performance.md's 10^5 runs;
# free molecular: bench/dlca/soot_1700K.ini with N_FREE monomers (default 20000; 15 nm at 1700 K,
#   Kn 32.5) to 200 clusters, the viscosity given (5.65e-5 Pa s: before issue 42 the default air
#   did not follow the temperature).
# User CPU and peak memory of /usr/bin/time, one thread, under nice -n 5; the final time and
# cluster count from stats.csv (the two binaries fly different flights: their trajectories, and
# the time at which they reach the stop, differ).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
old=$1 new=$2 out=$3 n_cont=${4:-100000} reps=${5:-3} n_free=${6:-20000}
mkdir -p "$out"
ex=$here/../../examples

run_case() { # CASE BINARY_TAG BINARY REP
  local dir=$out/$1.$2.$4
  case $1 in
    continuum) set -- "$@" "$ex/dlca_3d.ini" -s particles.n="$n_cont" -s output.trajectory_interval=0 \
      -s output.stats_interval=60 -s output.analysis_interval=20000 ;;
    free) set -- "$@" "$here/soot_1700K.ini" -s particles.n="$n_free" -s dlca.clusters=200 \
      -s dlca.viscosity=5.65e-5 -s output.stats_interval=1e-6 ;;
  esac
  local case=$1 tag=$2 bin=$3 rep=$4
  shift 4
  /usr/bin/time -f "%U %M" -o "$dir.time" nice -n 5 "$bin" run "$@" -o "$dir" --overwrite --quiet \
    > "$dir.log" 2>&1
  local cpu mem last
  read -r cpu mem < "$dir.time"
  last=$(tail -n 1 "$dir/stats.csv" | cut -d, -f1,3)
  printf '%-9s %-3s run %s: %8.2f s CPU, %6.1f MB, t,n_c = %s\n' "$case" "$tag" "$rep" "$cpu" \
    "$(awk -v m="$mem" 'BEGIN { print m / 1024 }')" "$last" | tee -a "$out/runs.txt"
  echo "$case $tag $cpu" >> "$out/cpu.txt"
}

: > "$out/runs.txt"; : > "$out/cpu.txt"
echo "old: $old ($(cd "$(dirname "$old")/.." && git rev-parse --short HEAD 2>/dev/null || echo ?))" | tee -a "$out/runs.txt"
echo "new: $new ($(cd "$(dirname "$new")/.." && git rev-parse --short HEAD 2>/dev/null || echo ?))" | tee -a "$out/runs.txt"
for rep in $(seq 1 "$reps"); do
  for c in free continuum; do
    if [ $((rep % 2)) = 1 ]; then run_case $c old "$old" "$rep"; run_case $c new "$new" "$rep"
    else run_case $c new "$new" "$rep"; run_case $c old "$old" "$rep"; fi
  done
done
awk '{ k = $1 " " $2; if (!(k in b) || $3 < b[k]) b[k] = $3 }
  END { for (c in b) split(c, p, " ");
        n = split("free continuum", cs, " ");
        for (i = 1; i <= n; i++) { o = b[cs[i] " old"]; w = b[cs[i] " new"];
          if (o > 0) printf "%-9s best of runs: old %.2f s, new %.2f s, new/old %.3f\n", cs[i], o, w, w / o } }' \
  "$out/cpu.txt" | tee -a "$out/runs.txt"
