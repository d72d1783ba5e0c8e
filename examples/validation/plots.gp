# gnuplot script of docs/validation.md; run in the directory holding the .dat files
set terminal pngcairo size 760,520 font ",11"
set logscale xy
set grid
set key top right

set output 'maury_brownian_nclusters.png'
set title "Brownian aggregation (Maury 2004, §4.2): number of clusters, mean ± sd of 5 seeds"
set xlabel 't'; set ylabel 'n_{clusters}'
set xrange [0.01:10]; set yrange [3:6000]
plot 'b500.dat'  u 1:2:3 w yerrorlines lc rgb '#1f77b4' pt 0 t 'N = 500 (φ ≈ 0.04), h = 0.02', \
     'b2000.dat' u 1:2:3 w yerrorlines lc rgb '#2ca02c' pt 0 t 'N = 2000 (φ ≈ 0.16), h = 0.02', \
     'b5000.dat' u 1:2:3 w yerrorlines lc rgb '#d62728' pt 0 t 'N = 5000 (φ ≈ 0.40), h = 0.01', \
     'b2000dt01.dat' u 1:2 w l dt 2 lw 2 lc rgb '#2ca02c' t 'N = 2000, h = 0.01', \
     'b5000dt02.dat' u 1:2 w l dt 2 lw 2 lc rgb '#d62728' t 'N = 5000, h = 0.02'

set output 'maury_brownian_smoluchowski.png'
set title "Smoluchowski check: N/n − 1 against t (constant kernel: = t/t_c); fits over the marked ranges"
set ylabel 'N / n_{clusters} − 1'
set yrange [0.01:2000]
set key bottom right
f500(x)  = (x/1.600)**0.945
f2000(x) = (x/0.2285)**1.034
f5000(x) = (x/0.03633)**1.512
plot 'b500.dat'  u 1:(500/$2-1)  w l lw 2 lc rgb '#1f77b4' t 'N = 500', \
     'b2000.dat' u 1:(2000/$2-1) w l lw 2 lc rgb '#2ca02c' t 'N = 2000', \
     'b5000.dat' u 1:(5000/$2-1) w l lw 2 lc rgb '#d62728' t 'N = 5000 (h = 0.01)', \
     [0.1:9] f500(x) dt 2 lc rgb 'black' t 'fits: (t/1.60)^{0.945}, (t/0.229)^{1.03}, (t/0.036)^{1.51}', \
     [0.1:3] f2000(x) dt 2 lc rgb 'black' notitle, \
     [0.05:0.5] f5000(x) dt 2 lc rgb 'black' notitle, \
     [0.01:10] x dt 3 lc rgb 'gray' t 'slope 1'

set output 'maury_max_cluster.png'
set title "Largest cluster, fraction of all particles (mean of 5 seeds)"
set ylabel 's_{max} / N'
set yrange [0.0005:1.2]
set key bottom right
plot 'b500.dat'  u 1:($4/500)  w l lw 2 lc rgb '#1f77b4' t '2D N = 500', \
     'b2000.dat' u 1:($4/2000) w l lw 2 lc rgb '#2ca02c' t '2D N = 2000', \
     'b5000.dat' u 1:($4/5000) w l lw 2 lc rgb '#d62728' t '2D N = 5000', \
     'b3d.dat'   u 1:($4/2000) w l lw 2 lc rgb '#9467bd' t '3D N = 2000 (φ = 0.1)', \
     'shear.dat' u 1:($4/1000) w l lw 2 lc rgb '#8c564b' t 'shear, walls', \
     'shearpx.dat' u 1:($4/1000) w l lw 2 dt 2 lc rgb '#8c564b' t 'shear, periodic x'

set output 'maury_shear_nclusters.png'
set title "Oscillating shear (Maury 2004, §4.1), N = 1000: number of clusters"
set ylabel 'n_{clusters}'
set xrange [0.02:10]; set yrange [20:1100]
set key top right
plot 'shear.dat'   u 1:2:3 w yerrorlines pt 0 lc rgb '#8c564b' t 'unit square, walls on both axes (5 seeds)', \
     'shearpx.dat' u 1:2:3 w yerrorlines pt 0 lc rgb '#17becf' t 'periodic in x, walls in y (5 seeds)', \
     'cloud.dat'   u 1:2 w l lw 2 lc rgb 'black' t 'free cloud: box 3 × 1, cloud in the middle (1 seed)', \
     'noflow.dat'  u 1:2 w l lw 2 dt 2 lc rgb 'gray40' t 'control: no flow, attraction only (3 seeds)'

set output 'maury_fractal_rg.png'
set title "Radius of gyration against cluster size (non-spanning clusters, 5 seeds pooled)"
set xlabel 's (particles)'; set ylabel 'R_g / r'
set xrange [1.5:1000]; set yrange [0.5:60]
set key top left
plot 'rg_b5000_0.2.dat' u 1:2 pt 7 ps 0.4 lc rgb '#d62728' t '2D N = 5000, t = 0.2', \
     'rg_b2000_3.dat'   u 1:2 pt 7 ps 0.4 lc rgb '#2ca02c' t '2D N = 2000, t = 3', \
     'rg_b500_9.dat'    u 1:2 pt 7 ps 0.4 lc rgb '#1f77b4' t '2D N = 500, t = 9', \
     'rg_b3d_0.5.dat'   u 1:2 pt 7 ps 0.4 lc rgb '#9467bd' t '3D N = 2000, t = 0.5', \
     [1.5:1000] 0.63*x**(1/1.44) dt 2 lw 2 lc rgb 'black' t 'D_f = 1.44 (2D DLCA)', \
     [1.5:1000] 0.63*x**(1/2.0) dt 3 lw 2 lc rgb 'black' t 'D_f = 2 (compact 2D)', \
     [1.5:1000] 0.75*x**(1/1.78) dt 4 lw 2 lc rgb '#9467bd' t 'D_f = 1.78 (3D DLCA)'
