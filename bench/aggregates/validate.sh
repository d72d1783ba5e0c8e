#!/usr/bin/env bash
# Tunable aggregates against agglo analyze (docs/validation.md, "Tunable aggregates"):
#   bench/aggregates/validate.sh [OUT_DIR] [SEEDS]        (default /tmp/agg_validate, 10 seeds)
# For D_f 1.5, 1.8, 2.2 at k_f 1.3 and each seed:
#  - fit: agglo aggregate -n 125,250,500,1000 --count 8 --together (two aggregates of each size,
#    N = 1000 the largest, one frame), then agglo analyze's mass-radius fit over its 8 clusters
#    (log R_g against log s over sizes 125 .. 1000): D_f and k_f against the prescribed;
#  - single: one aggregate of N = 1000 and agglo analyze --box-counting bounding --plots: the
#    box-counting dimension of that one cluster (3 r .. L_c/2) and the slope of its cumulative
#    pair distribution P(r) ~ r^D (pair_distribution.dat, 6 r .. 20 r), reported, not held to a
#    tolerance: measures of the structure, not of R_g.
# Equal radii (radius 1) and lognormal (sigma_g 1.25): fit_df, fit_kf are agglo analyze's default
# fit (unweighted R_g, one arithmetic mean radius); fracval_df, fracval_kf its
# --mass-radius-fracval fit, with the generator's definitions (R_g weighted by r^3, each
# cluster's geometric mean radius); with equal radii the two are the same.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agglo=${AGGLO:-$here/../../build/agglo}
out=${1:-/tmp/agg_validate} seeds=${2:-10}
mkdir -p "$out"
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(str(d[k]) for k in sys.argv[2:]))" "$@"; }
{
echo "radii,df,kf,seed,fit_df,fit_kf,box_df_single,pr_slope_single,fracval_df,fracval_kf"
for radii in equal lognormal; do
  extra=""
  [ $radii = lognormal ] && extra="--radius-distribution lognormal --radius-sigma 1.25"
  for df in 1.5 1.8 2.2; do
    for s in $(seq 1 "$seeds"); do
      d="$out/$radii/df$df/seed$s"
      nice "$agglo" aggregate -n 125,250,500,1000 --count 8 --together --df $df --kf 1.3 --seed $s $extra \
        --overwrite -o "$d/fit" > /dev/null
      nice "$agglo" analyze "$d/fit/aggregates.xyz" --mass-radius-fracval --json --overwrite -o "$d/fit/an" > "$d/fit.json"
      nice "$agglo" aggregate -n 1000 --df $df --kf 1.3 --seed $s $extra --overwrite -o "$d/one" > /dev/null
      nice "$agglo" analyze "$d/one/aggregate_0001.xyz" --box-counting bounding --json --overwrite \
        -o "$d/one/an" > "$d/one.json"
      nice "$agglo" analyze "$d/one/aggregate_0001.xyz" --plots --overwrite -o "$d/one/curves" > /dev/null
      read -r fdf fkf vdf vkf <<< "$(json "$d/fit.json" fractal_dimension_mass mass_radius_prefactor fractal_dimension_fracval prefactor_fracval)"
      read -r bdf <<< "$(json "$d/one.json" fractal_dimension_box)"
      pdf=$(/usr/bin/python3 -c "import numpy as np,sys; d=np.loadtxt(sys.argv[1]); m=(d[:,0]>=6)&(d[:,0]<=20); print('%.4f' % np.polyfit(np.log(d[m,0]),np.log(d[m,1]),1)[0])" "$d/one/curves/pair_distribution.dat")
      echo "$radii,$df,1.3,$s,$fdf,$fkf,$bdf,$pdf,$vdf,$vkf"
    done
  done
done
} | tee "$out/validate.csv"
/usr/bin/python3 - "$out/validate.csv" <<'PY'
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
print("\n| radii | D_f | k_f | seeds | fit D_f (min .. max) | fit k_f (min .. max) | worst |D_f| | worst k_f | box-counting D_f of one N = 1000 (mean ± sd) | P(r) slope, 6-20 r, of one N = 1000 (mean ± sd) | --mass-radius-fracval D_f, k_f (min .. max) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for radii in ("equal", "lognormal"):
    for df in ("1.5", "1.8", "2.2"):
        g = [r for r in rows if r["radii"] == radii and r["df"] == df]
        if not g: continue
        fd = [float(r["fit_df"]) for r in g]; fk = [float(r["fit_kf"]) for r in g]
        bd = [float(r["box_df_single"]) for r in g]
        pd = [float(r["pr_slope_single"]) for r in g]
        wd = max(abs(v - float(df)) for v in fd); wk = max(abs(v / 1.3 - 1) for v in fk)
        vd = [float(r["fracval_df"]) for r in g]; vk = [float(r["fracval_kf"]) for r in g]
        print(f"| {radii} | {df} | 1.3 | {len(g)} | {min(fd):.4f} .. {max(fd):.4f} | {min(fk):.4f} .. {max(fk):.4f} "
              f"| {wd:.4f} | {100*wk:.2f} % | {st.mean(bd):.3f} ± {st.stdev(bd):.3f} | {st.mean(pd):.3f} ± {st.stdev(pd):.3f} "
              f"| {min(vd):.4f} .. {max(vd):.4f}, {min(vk):.4f} .. {max(vk):.4f} |")
PY
