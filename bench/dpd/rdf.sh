#!/bin/sh
# g(r) of the Groot-Warren fluid (N = 3000, L = 10) from LAMMPS pair_style dpd and from agglo
# (lambda = 0.65 and 0.5), averaged over 200 frames every 10 steps after 500 steps, and the plot
# docs/img/dpd_rdf.png. Environment: LMP, DPD_BENCH as in bench.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LMP=${LMP:-/work/lammps/build/lmp}
BENCH=${DPD_BENCH:-$here/../../build-dpd/bench/dpd_bench}
out=${1:-/tmp/dpd_rdf}
mkdir -p "$out" && cd "$out"
"$LMP" -in "$here/in.dpd_gw" -var L 10 -var RDF 1 -log lammps_rdf.log > /dev/null
"$BENCH" rdf 10 500 200 10 > rdf_agglo.txt
"$BENCH" rdf 10 500 200 10 dpd.lambda=0.5 > rdf_agglo_l05.txt
grep -v "^#" rdf_lammps.txt | tail -60 | awk '{print $2, $3}' > lmp.dat
grep -v "^#" rdf_agglo.txt > a065.dat
grep -v "^#" rdf_agglo_l05.txt > a05.dat
echo "LAMMPS <kT> = $(tail -1 temp_lammps.txt | cut -d' ' -f2); agglo $(head -1 rdf_agglo.txt | sed 's/.*<kT>/<kT>/') (lambda 0.65), $(head -1 rdf_agglo_l05.txt | sed 's/.*<kT>/<kT>/') (lambda 0.5)"
paste a065.dat a05.dat lmp.dat | awk '$1 > 0.3 { d1 = $2 - $6; d2 = $4 - $6; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2;
  if (d1 > m1) m1 = d1; if (d2 > m2) m2 = d2 } END { printf "max |g_agglo - g_LAMMPS| for r > 0.3: %.4f (lambda 0.65), %.4f (lambda 0.5)\n", m1, m2 }'
gnuplot <<EOG
set terminal pngcairo size 800,500 font "sans,11"
set output "$here/../../docs/img/dpd_rdf.png"
set xlabel "r / r_c"; set ylabel "g(r)"; set key bottom right; set xrange [0:3]
set title "Groot-Warren DPD fluid (rho = 3, a = 25, gamma = 4.5, kT = 1, dt = 0.04), N = 3000"
plot "lmp.dat" u 1:2 w l lw 3 lc rgb "#999999" t "LAMMPS pair\\\\_style dpd (velocity Verlet)", \
     "a05.dat" u 1:2 w p pt 6 ps 1 lc rgb "#1f77b4" t "agglo, lambda = 0.5", \
     "a065.dat" u 1:2 w p pt 2 ps 1 lc rgb "#d62728" t "agglo, lambda = 0.65"
EOG
