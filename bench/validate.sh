#!/usr/bin/env bash
# Numbers that reproduce: reruns the validation rows of docs/validation.md (the cluster counts of
# the Fig. 1 table and of the Brownian table for N = 500 and 2000) and docs/ballistic.md (N = 400)
# that take under a minute each, with the commands those pages name, and compares each mean with
# the table's value within the table's stated error bar (± one standard deviation over the seeds).
# One line per number: the row, the table's value ± bar, the rerun's mean, ok or DIFFERS.
# Exit status 1 when a number differs. DLCA (not with --quick): the growth rows of
# validation.md's "N_c(t), the growth exponent, D_f and k_f in three regimes" and the collision
# rate rows against Fuchs's kernel that take under a minute.
#   usage: bench/validate.sh [AGGLO] [OUT] [--quick]     (--quick: the quickest rows; CTest
#          validate_quick runs them; the whole list takes about 25 s of CPU)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
agglo=${1:-$here/../build/agglo}
out=${2:-validate-out}
quick=0; [ "${3:-}" = --quick ] && quick=1
ex=$here/../examples
mkdir -p "$out"
bad=0

# check ROW TABLE BAR MEASURED: |MEASURED - TABLE| <= BAR
check() {
  local verdict
  verdict=$(awk -v t="$2" -v b="$3" -v m="$4" 'BEGIN { d = m - t; if (d < 0) d = -d;
    print (m == m + 0 && d <= b) ? "ok" : "DIFFERS" }')
  printf '%-58s table %-8s ± %-6s rerun %-10s %s\n' "$1" "$2" "$3" "$4" "$verdict"
  [ "$verdict" = ok ] || bad=1
}

# mean of column NAME over the rows of a CSV whose column method is M
mean_col() {
  awk -F, -v c="$2" -v m="$3" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == c) k = i; if ($i == "method") j = i }; next }
    $j == m { s += $k; n++ } END { if (n) printf "%.4g\n", s / n; else print "none" }' "$1"
}

# docs/ballistic.md, "Validation": V_f = 0.2 (and 0.1, 0.3), N = 400, 20 seeds, both methods
for vf in 0.2 0.1 0.3; do
  [ $quick = 1 ] && [ $vf != 0.2 ] && continue
  tag=ballistic_n400_vf$vf
  rm -rf "$out/$tag"
  "$agglo" compare "$ex/ballistic_paper_400.ini" -s particles.n=400 -s particles.fraction=$vf \
    --seeds 20 --csv "$out/$tag.csv" -o "$out/$tag" --quiet > "$out/$tag.txt" 2>&1 ||
    { echo "$tag: agglo compare failed (see $out/$tag.txt)"; bad=1; continue; }
  case $vf in
    0.1) want="0.533 0.005 0.510 0.002 1.438 0.018 1.453 0.029" ;;
    0.2) want="0.535 0.006 0.511 0.003 1.693 0.022 1.710 0.017" ;;
    0.3) want="0.541 0.006 0.514 0.003 1.820 0.012 1.840 0.014" ;;
  esac
  set -- $want
  check "ballistic.md V_f=$vf N=400: N_c time stepping" "$1" "$2" "$(mean_col "$out/$tag.csv" nc time_stepping)"
  check "ballistic.md V_f=$vf N=400: N_c event driven" "$3" "$4" "$(mean_col "$out/$tag.csv" nc event_driven)"
  check "ballistic.md V_f=$vf N=400: D_f time stepping" "$5" "$6" "$(mean_col "$out/$tag.csv" df time_stepping)"
  check "ballistic.md V_f=$vf N=400: D_f event driven" "$7" "$8" "$(mean_col "$out/$tag.csv" df event_driven)"
done

# column NAME of an ensemble.csv at output time T
col_at() {
  awk -F, -v c="$2" -v t="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
    ($1 - t < 1e-9 && t - $1 < 1e-9) { v = $k } END { print (v == "" ? "none" : v) }' "$1"
}

# ensemble TAG SCENARIO: seeds 1-5 as run_maury.sh runs them; 1 when it failed
ensemble() {
  rm -rf "$out/$1"
  "$agglo" ensemble "$ex/$2" --seeds 1-5 -s output.snapshots= --threads 1 -o "$out/$1" --quiet \
    > "$out/$1.txt" 2>&1 || { echo "$1: agglo ensemble failed (see $out/$1.txt)"; bad=1; return 1; }
}

# docs/validation.md, Brownian table (Figs. 2-3): clusters at each time, seeds 1-5; --quick: the
# last time of N = 500
for n in 500 2000; do
  [ $quick = 1 ] && [ $n != 500 ] && continue
  ensemble maury_brownian_$n maury_brownian_$n.ini || continue
  case $n in
    500) rows="0 497 1 1 309 7 2 229 8 3 181 9 5 128 6 7 99 7 8 89 6 9 82 7" ;;
    2000) rows="0 1924 7 0.4 724 9 0.6 535 6 0.8 422 13 1 353 15 1.2 303 14 1.8 213 9 3 133 6" ;;
  esac
  [ $quick = 1 ] && rows="9 82 7"
  set -- $rows
  while [ $# -ge 3 ]; do
    check "validation.md Brownian N=$n: clusters at t = $1" "$2" "$3" \
      "$(col_at "$out/maury_brownian_$n/ensemble.csv" n_clusters_mean "$1")"
    shift 3
  done
done

# docs/validation.md, Fig. 1 table: clusters at each time, walls and periodic x, seeds 1-5
if [ $quick = 0 ]; then
  for c in maury_shear maury_shear_periodic_x; do
    ensemble $c $c.ini || continue
    case $c in
      maury_shear) rows="0 896 11 0.4 368 10 0.5 318 10 0.76 206 6 1 137 4 1.26 106 5 1.5 95 5 10 41 7" ;;
      *) rows="0 897 19 0.4 406 4 0.5 379 4 0.76 316 7 1 268 7 1.26 235 6 1.5 217 8 10 109 7" ;;
    esac
    set -- $rows
    while [ $# -ge 3 ]; do
      check "validation.md shear, $([ $c = maury_shear ] && echo walls || echo periodic x): clusters at t = $1" "$2" "$3" \
        "$(col_at "$out/$c/ensemble.csv" n_clusters_mean "$1")"
      shift 3
    done
  done
fi

# docs/validation.md, DLCA in three Knudsen regimes (issue 42): the growth exponent z over
# 5 <= S <= 50 and D_f per seed, seeds 1-5, N = 5000 (about 30 s of CPU each; the continuum row,
# about 2 minutes, is not here)
for row in "transition_300K 0.924 0.017 1.739 0.060" "soot_1700K 1.259 0.026 1.755 0.114"; do
  [ $quick = 1 ] && continue
  set -- $row
  tag=dlca_$1
  rm -rf "$out/$tag"
  AGGLO=$agglo "$here/dlca/fractal.sh" "$here/dlca/$1.ini" "$out/$tag" 1-5 > "$out/$tag.txt" 2>&1 ||
    { echo "$tag: bench/dlca/fractal.sh failed (see $out/$tag.txt)"; bad=1; continue; }
  z=$(/usr/bin/python3 "$here/dlca/growth.py" "$out/$tag"/seed=*/stats.csv | awk '$1 == "z" { print $3 }')
  df=$(awk '$1 == "per" { print $6 }' "$out/$tag.txt")
  check "validation.md DLCA $1: growth exponent z (5 <= S <= 50)" "$2" "$3" "$z"
  check "validation.md DLCA $1: D_f per seed" "$4" "$5" "$df"
done

# docs/validation.md, DLCA "The monomers' collision rate against Fuchs's kernel" (issue 42): the
# mean of seeds 1-3 at Kn 4.38 and 32.5 (a few seconds of CPU a run; Kn 0.044, one seed of
# about a minute, is not here)
for row in "4.38 0.964 0.030 -s dlca.viscosity=1.81e-5" \
           "32.5 1.003 0.019 -s dlca.temperature=1700 -s dlca.viscosity=5.65e-5"; do
  [ $quick = 1 ] && continue
  set -- $row
  kn=$1 want=$2 sd=$3
  shift 3
  tag=dlca_fuchs_kn$kn
  ratios=""
  for seed in 1 2 3; do
    r=$(/usr/bin/python3 "$here/dlca/fuchs_rate.py" "$agglo" "$out/$tag.$seed" $seed "$@" 2> "$out/$tag.$seed.err" |
        awk '{ for (i = 1; i < NF; i++) if ($i == "ratio") print $(i + 1) }')
    [ -n "$r" ] || { echo "$tag: bench/dlca/fuchs_rate.py failed (see $out/$tag.$seed.err)"; bad=1; continue 2; }
    ratios="$ratios $r"
  done
  check "validation.md DLCA collision rate / Fuchs, Kn $kn, seeds 1-3" "$want" "$sd" \
    "$(echo $ratios | awk '{ for (i = 1; i <= NF; i++) s += $i; printf "%.4f\n", s / NF }')"
done

[ $bad = 0 ] && echo "validate: every rerun number within its table's error bar" ||
  echo "validate: some numbers differ from their tables"
exit $bad
