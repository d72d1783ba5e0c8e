#!/bin/bash
# Reproduces docs/validation.md (Maury 2004 runs): seed-1 runs with snapshots, 5-seed
# ensembles, time-step and no-flow controls, the free-cloud shear run, analysis and plots.
# usage: [JOBS=2] examples/validation/run_maury.sh [AGGLO_BINARY] [OUT_DIR]   (~6 min of CPU on one core)
#        ANALYSIS_ONLY=1 examples/validation/run_maury.sh BIN OUT   (analysis of existing runs)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
AGGLO=${1:-$ROOT/build/agglo}
OUT=${2:-$ROOT/out/validation}
V=$ROOT/examples/validation
EX=$ROOT/examples
mkdir -p "$OUT/ens" "$OUT/ana"
A="$AGGLO run --threads 1 --quiet --overwrite"   # OUT is the script's: a rerun replaces it
if [ -z "$ANALYSIS_ONLY" ]; then   # ANALYSIS_ONLY=1: reuse the runs in OUT
# seed 1 with the paper's snapshots (smaller PNGs for the docs)
for c in maury_shear maury_shear_periodic_x maury_brownian_500 maury_brownian_2000 maury_brownian_5000 brownian_3d; do
  $A "$EX/$c.ini" -o "$OUT/$c" -s output.png_width=500
done
# free cloud: the unit-square cloud of maury_shear.ini placed in the middle of a 3 x 1 box
# (walls far from the cloud in x), started from that cloud shifted by 1 in x (particles.from;
# a hand-made restart point, as before, is refused since restart points are sealed)
$A "$EX/maury_shear.ini" -o "$OUT/cloud0" -s run.t_end=0 -s output.png_width=500
awk 'NR==2{sub(/Lattice="1 /,"Lattice=\"3 ")} NR>2{$2=sprintf("%.17g",$2+1)} {print}' \
  "$OUT/cloud0/state.xyz" > "$OUT/cloud_start.xyz"
$A "$EX/maury_shear.ini" -o "$OUT/cloud" -s box.size=3,1 -s particles.from="$OUT/cloud_start.xyz" \
  -s run.t_end=10 -s output.png_width=500
# ensembles (no PNGs): agglo ensemble, seeds 1-5 (docs/ensembles.md); JOBS members at a time
E="$AGGLO ensemble --threads 1 --quiet --jobs ${JOBS:-1} -s output.snapshots= --seeds 1-5"
rm -rf "$OUT/ens"; mkdir -p "$OUT/ens"
$E "$EX/maury_brownian_500.ini"  -o "$OUT/ens/b500"
$E "$EX/maury_brownian_2000.ini" -o "$OUT/ens/b2000"
$E "$EX/maury_brownian_5000.ini" -o "$OUT/ens/b5000"
$E "$EX/maury_brownian_5000.ini" -o "$OUT/ens/b5000dt02" -s run.dt=0.02 -s output.stats_interval=0.02
$E "$EX/maury_brownian_2000.ini" -o "$OUT/ens/b2000dt01" -s run.dt=0.01 -s output.stats_interval=0.01
$E "$EX/maury_shear.ini" -o "$OUT/ens/shear"
$E "$EX/maury_shear_periodic_x.ini" -o "$OUT/ens/shearpx"
$E "$EX/brownian_3d.ini" -o "$OUT/ens/b3d"
# control: the shear run without flow (attraction only), seeds 1-3
$AGGLO ensemble --threads 1 --quiet --jobs ${JOBS:-1} --seeds 1-3 "$EX/maury_shear.ini" -o "$OUT/ens/noflow" \
  -s flow.type=none -s output.snapshots=10 -s output.png_width=400
fi
# analysis
cd "$OUT/ana"
for c in b500 b2000 b5000 b5000dt02 b2000dt01 shear shearpx b3d noflow; do
  python3 $V/mean.py $c.dat ../ens/${c}/seed=*/stats.csv
  python3 $V/stats.py "../ens/${c}/seed=*/stats.csv"
done
python3 $V/mean.py cloud.dat ../cloud/stats.csv
for a in "b500 500 0.1 9" "b2000 2000 0.1 3" "b2000dt01 2000 0.1 3" "b5000 5000 0.05 0.5" "b5000dt02 5000 0.1 0.5" \
         "b3d 2000 0.1 1" "shear 1000 1 10" "shearpx 1000 1 10" "cloud 1000 1 10" "noflow 1000 1 10"; do
  set -- $a; python3 $V/fit.py $1.dat $2 $3 $4
done
for c in "b500 9" "b2000 1" "b2000 3" "b2000dt01 3" "b5000 0.1" "b5000 0.2" "b5000dt02 0.2" "b3d 0.3" "b3d 0.5" "shearpx 1" "shearpx 10"; do
  set -- $c
  for s in 1 2 3 4 5; do python3 $V/frames.py ../ens/$1/seed=$s/trajectory.xyz 0.1 $2; done > C_$1_$2.txt
  echo -n "$1 t=$2: "; python3 $V/fractal.py 5 < C_$1_$2.txt
  awk '$1=="C" && $5==0 && $3>=2 {print $3, $4/0.01}' C_$1_$2.txt > rg_$1_$2.dat
done
# anisotropy of the clusters (s >= 5): sum of <dx^2> over sum of <dy^2>
for c in "shearpx 10" "shearpx 1" "noflow 10" "shear 10"; do
  set -- $c
  for s in 1 2 3; do python3 $V/frames.py ../ens/$1/seed=$s/trajectory.xyz 0.1 $2; done |
    awk -v c="$1 t=$2" '$1=="C" && $3>=5 && $5==0 {n++; sx+=$6; sy+=$7} END{printf "%s: %d clusters, x/y extent^2 = %.2f\n", c, n, sx/sy}'
done
# births and merges of clusters between trajectory frames (0.1 apart), contact distance 0.1 r and epsilon
for c in b500 b2000 b5000 shear shearpx; do for g in 0.1 0.3; do
  for s in 1 2 3 4 5; do python3 $V/frames.py ../ens/${c}/seed=$s/trajectory.xyz $g | grep ^T; echo END; done |
    awk -v c=$c -v g=$g '/END/{p=-1; next} {if(p>0){d=$3-p; if(d>0)u+=d; else dn-=d} p=$3} END{printf "%s gap<%sr, frames: births %d merges %d\n", c,g,u,dn}'
done; done
gnuplot $V/plots.gp
# figure panels for docs/img (ImageMagick): snapshots at the paper's times, 64-colour PNGs
if command -v montage >/dev/null; then
  panel() { # OUT.png RUN_DIR TILE GEOMETRY
    local args=() f s dt
    dt=$(awk -F' *= *' '$1 == "dt" { print $2; exit }' "$OUT/$2/scenario.ini")
    for f in "$OUT/$2"/snapshot_*.png; do  # snapshot_STEP.png: the glob is in time order
      s=${f##*_}; s=${s%.png}; args+=(-label "t = $(awk -v s="$s" -v dt="$dt" 'BEGIN { print (s + 0) * dt }')" "$f")
    done
    montage "${args[@]}" -tile $3 -geometry $4 -pointsize 14 -background white png:- | convert - -colors 64 PNG8:"$OUT/ana/$1"
  }
  panel maury_shear_walls.png maury_shear 4x 260x260+3+3
  panel maury_shear_periodic_x.png maury_shear_periodic_x 4x 260x260+3+3
  panel maury_shear_cloud.png cloud 2x 560x190+3+3
  panel maury_brownian_500.png maury_brownian_500 5x 230x230+3+3
  panel maury_brownian_2000.png maury_brownian_2000 4x 260x260+3+3
  panel maury_brownian_5000.png maury_brownian_5000 4x 260x260+3+3
  panel brownian_3d.png brownian_3d 4x 260x260+3+3
  at10() { # the snapshot of run directory $1 at t = 10
    local dt; dt=$(awk -F' *= *' '$1 == "dt" { print $2; exit }' "$1/scenario.ini")
    printf '%s/snapshot_%09d.png' "$1" "$(awk -v dt="$dt" 'BEGIN { printf "%d", 10 / dt + 0.5 }')"
  }
  montage -label 'unit square, walls' "$(at10 "$OUT/maury_shear")" \
          -label 'periodic x, walls y' "$(at10 "$OUT/maury_shear_periodic_x")" \
          -label 'no flow (control)' "$(at10 "$OUT/ens/noflow/seed=1")" \
          -tile 3x -geometry 340x340+3+3 -pointsize 14 png:- | convert - -colors 64 PNG8:"$OUT/ana/maury_shear_t10_compare.png"
fi
echo "plots and panels in $OUT/ana (copy the .png files to docs/img)"
