# `agglo analyze` from the command line: reports, JSON, and errors that name frame and line.
set(AGGLO $<TARGET_FILE:agglo_cli>)
set(DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)

# a trajectory cut inside a frame (a killed run): the complete frames are analysed, with a warning
# naming the cut
add_test(NAME analyze_truncated_reads_complete_frames
  COMMAND sh -c "${AGGLO} analyze ${DATA}/truncated.xyz --all --overwrite -o an_trunc 2>&1 && test $(wc -l < an_trunc/analysis.csv) -eq 2 && echo ONE_FRAME")
set_tests_properties(analyze_truncated_reads_complete_frames PROPERTIES
  PASS_REGULAR_EXPRESSION "warning: .*truncated.xyz:10: frame 2: file ends after 2 of 3 particle lines.*analysed the 1 complete frames.*ONE_FRAME")

add_test(NAME analyze_needs_radius
  COMMAND ${AGGLO} analyze ${DATA}/no_radius.xyz --overwrite -o an_norad)
set_tests_properties(analyze_needs_radius PROPERTIES
  PASS_REGULAR_EXPRESSION "no_radius.xyz:2: frame 1: no radius column; give --radius R")

# three touching unit discs and one apart: 2 clusters, largest 3, N_c = (4 + 2*2)/(6*4)
add_test(NAME analyze_json_plain_xyz
  COMMAND ${AGGLO} analyze ${DATA}/no_radius.xyz --radius 0.5 --contact-distance 0.01 --json --overwrite -o an_json)
set_tests_properties(analyze_json_plain_xyz PROPERTIES
  PASS_REGULAR_EXPRESSION "\"n_clusters\": 2,.*\"max_cluster_size\": 3,.*\"contacts_per_sphere\": 0.3333333333")

add_test(NAME analyze_run_output_with_plots
  COMMAND sh -c "${AGGLO} run -o an_run --overwrite --quiet -s particles.n=300 -s run.t_end=0.4 -s output.snapshots= && ${AGGLO} analyze an_run/trajectory.xyz --plots --overwrite -o an_run/an && test -s an_run/an/rg_size.png && test -s an_run/an/pair_distribution.png && test $(wc -l < an_run/an/analysis.csv) -eq 6")

# g(r) and the mean-square displacement of a short Groot-Warren DPD run (N = 375): the first
# peak of g near r = 0.85 and a positive diffusion coefficient
add_test(NAME analyze_rdf_msd
  COMMAND sh -c "${AGGLO} run ${PROJECT_SOURCE_DIR}/examples/dpd_groot_warren.ini -o an_gw --overwrite --quiet -s particles.n=375 -s box.size=5 -s run.t_end=4 -s output.trajectory_interval=0.2 -s output.snapshots= && ${AGGLO} analyze an_gw/trajectory.xyz --rdf --msd --overwrite -o an_gw/an && test $(wc -l < an_gw/an/rdf.csv) -eq 101 && test $(wc -l < an_gw/an/msd.csv) -eq 21")
set_tests_properties(analyze_rdf_msd PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "g\\(r\\) +highest 1\\.[0-9]+ at r = 0\\.(8|9)[0-9]*.*diffusion coefficient D +0\\.[1-9].*written: an_gw/an/analysis\\.csv, an_gw/an/clusters\\.csv, an_gw/an/rdf\\.csv, an_gw/an/msd\\.csv\n")

# a g(r) range beyond half the box (5 here) is refused, naming the bound: the minimum image
# would miscount the pairs (g near 0.5 beyond L/2), and a huge one gave NaN bins; a tiny one
# finishes at once (its cell grid asked for 1024^3 cells, 8 GB)
add_test(NAME analyze_rdf_max_refused
  COMMAND sh -c "${AGGLO} run ${PROJECT_SOURCE_DIR}/examples/dpd_groot_warren.ini -o an_gw_max --overwrite --quiet -s particles.n=375 -s box.size=5 -s run.t_end=0.2 -s output.trajectory_interval=0.1 -s output.snapshots= && ${AGGLO} analyze an_gw_max/trajectory.xyz --rdf --rdf-max 1e300 --overwrite -o an_gw_max/a; echo status $?; ${AGGLO} analyze an_gw_max/trajectory.xyz --rdf --rdf-max 2.5 --overwrite -o an_gw_max/b && test -s an_gw_max/b/rdf.csv && echo half ok && ${AGGLO} analyze an_gw_max/trajectory.xyz --rdf --rdf-max 1e-12 --overwrite -o an_gw_max/c > /dev/null && echo tiny ok")
set_tests_properties(analyze_rdf_max_refused PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "--rdf-max 1e\\+300: beyond half the smallest box side of frame 1 \\(allowed: up to 2\\.5\\).*status 1.*half ok.*tiny ok")
# directories named like an injection (x'; touch pwned; ') for every command that starts gnuplot
# or ffmpeg: the plots are made inside them, no command runs, no file appears outside
add_test(NAME cli_quoted_dirs_no_shell
  COMMAND sh ${DATA}/cli/quoted_dirs.sh ${AGGLO} quoted_dirs)
set_tests_properties(cli_quoted_dirs_no_shell PROPERTIES TIMEOUT 120
  PASS_REGULAR_EXPRESSION "no shell, nothing outside")

# kinetics: a dilute 2D ballistic run (event driven) against Smoluchowski's ballistic kernel, and
# its growth exponent; agglo analyze fits z over the trajectory's frames
add_test(NAME analyze_kinetics
  COMMAND sh -c "${AGGLO} run ${PROJECT_SOURCE_DIR}/examples/ballistic_paper_400.ini -o an_kin --overwrite --quiet -s particles.n=2000 -s particles.fraction=0.02 -s box.boundary=periodic -s ballistic.method=event_driven -s ballistic.stop=t_end -s run.t_end=3000 -s output.stats_interval=50 -s output.trajectory_interval=250 -s output.snapshots= && ${AGGLO} plot an_kin --kernel ballistic -o an_kin/plots && test -s an_kin/plots/kinetics.png && ${AGGLO} analyze an_kin/trajectory.xyz --overwrite -o an_kin/an && ${AGGLO} plot an_kin --kernel ballistic --kmax 1"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_kinetics PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "growth exponent z +0\\.9[0-9]+ \\+- [0-9.]+.*Smoluchowski, ballistic kernel \\(d_f 2, kmax 512\\): tau = [0-9.e-]+ t; mean size within [0-9]\\.[0-9]%.*growth exponent z +[01]\\.[0-9]+ \\+-.*--kmax 1: expected a number from 2 to 4096")

# a box-counting fit with fewer than two grid levels (3r > L/4) is nan with the reason, not silence
add_test(NAME analyze_box_counting_one_level
  COMMAND ${AGGLO} analyze ${CMAKE_CURRENT_SOURCE_DIR}/data/analyze/one_level.xyz --overwrite -o an_one_level
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_box_counting_one_level PROPERTIES
  PASS_REGULAR_EXPRESSION "fractal dimension, box +nan \\(largest cluster, box grid: 1 level of eps = L/2\\^m in \\[3r, L/2\\], a fit needs 2\\)")

# issue 41: the aspect ratio of a dimer (collinear centres) is undefined, not rounding noise
# (stats.csv held 1e17..1e20 and analyze said 1): nan in stats.csv at t = 2.5 (a dimer and four
# singles), "undefined" in the report of the same frame
add_test(NAME analyze_aspect_ratio_dimer
  COMMAND sh -c "${AGGLO} run -o an_dimer --overwrite --quiet -s particles.n=6 -s box.size=0.4 -s run.t_end=3 -s output.snapshots= && awk -F, 'NR > 1 && $1 == 2.5 {print \"row\", $3, $5, $17}' an_dimer/stats.csv && ${AGGLO} analyze an_dimer/trajectory.xyz --frame 26 --overwrite -o an_dimer/an"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_aspect_ratio_dimer PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "row 5 2 nan\n.*largest cluster +R_g 0\\.0106, aspect ratio undefined \\(collinear\\)")

# issue 41: an analysis into a directory holding another is refused unless --overwrite, which
# removes every file of the earlier one (rdf.csv of another trajectory stayed beside the new
# analysis.csv); a failed analysis leaves the earlier one as it was (all or nothing)
add_test(NAME analyze_earlier_analysis
  COMMAND sh -c "rm -rf an_earlier && ${AGGLO} run -o an_earlier/r --quiet -s particles.n=20 -s run.t_end=0.1 -s output.snapshots= && ${AGGLO} analyze an_earlier/r/trajectory.xyz --rdf -o an_earlier/a > /dev/null && cp an_earlier/a/analysis.csv an_earlier/kept.csv && ! ${AGGLO} analyze ${DATA}/no_radius.xyz --radius 0.5 -o an_earlier/a && cmp an_earlier/a/analysis.csv an_earlier/kept.csv && ! ${AGGLO} analyze an_earlier/r/trajectory.xyz --frame 99 --overwrite -o an_earlier/a && cmp an_earlier/a/analysis.csv an_earlier/kept.csv && test -s an_earlier/a/rdf.csv && ! ls an_earlier/a/*.part 2> /dev/null && ${AGGLO} analyze ${DATA}/no_radius.xyz --radius 0.5 --overwrite -o an_earlier/a > /dev/null && test ! -e an_earlier/a/rdf.csv && ! cmp -s an_earlier/a/analysis.csv an_earlier/kept.csv && echo EARLIER_OK"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_earlier_analysis PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "an_earlier/a holds an earlier analysis \\(analysis\\.csv\\): give another output directory \\(-o\\), or --overwrite to replace it.*--frame 99 but the file has 2 frames.*EARLIER_OK")

# issue 46: the aggregates of a frame (docs/scattering.md). The DLCA aggregate of
# data/analyze/dlca_1431.xyz: S(q) into sq.csv (201 lines) with Guinier's R_g within 1 % of the
# direct one (45.35 against 45.52), the projected area, the mobility diameters, RDG-FA and the
# MSTM and DDSCAT files; JSON carries the same numbers
add_test(NAME analyze_sq_mobility_optics
  COMMAND sh -c "rm -rf an_sq && ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --mobility --orientations 40 --rays 1000 --knudsen 10 --optics --wavelength 100 --index 1.6,0.6 --mstm an_sq.mstm --ddscat an_sq.shape --dipole-spacing 0.5 -o an_sq && test $(wc -l < an_sq/sq.csv) -eq 201 && head -1 an_sq/sq.csv && test $(wc -l < an_sq/mobility.csv) -eq 2 && test $(wc -l < an_sq/optics.csv) -eq 2 && grep -c '^1 1 1$' an_sq.mstm; test $(grep -c ' 1 1 1$' an_sq.shape) -gt 20000 && ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --json --overwrite -o an_sq"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_sq_mobility_optics PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "structure factor S\\(q\\) +1 cluster, 1431 monomers.*binned Debye sum: [0-9]+ bins of [0-9.e-]+, \\|S - exact\\| <= 0.000[0-9]+.*Guinier R_g +45.3[0-9]* over [0-9]+ points.*direct R_g 45.52[0-9]* \\(-0.[0-9]+%\\).*power-law slope.*projected area.*mobility diameter +continuum [0-9.]+, free molecular [0-9.]+, at Kn 10: [0-9.]+.*RDG-FA \\(debye\\) +C_abs.*MSTM input.*DDSCAT shape +an_sq.shape \\([0-9]+ dipoles\\).*q,S,I,S_error.*\"guinier_rg\": 45.3.*\"direct_rg\": 45.52")

# the bounds on what a user's numbers drive, each refusal naming the option and the range
add_test(NAME analyze_sq_refusals
  COMMAND sh -c "${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --q-count 1 -o an_sq_r; ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --sq-max-pairs 1000 -o an_sq_r; ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --sq-method binned --sq-tolerance 1e-12 -o an_sq_r; ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --mobility --orientations 0 -o an_sq_r; ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --optics -o an_sq_r; ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --ddscat x.shape --dipole-spacing 0.001 -o an_sq_r; test ! -e an_sq_r/sq.csv && echo NONE_WRITTEN"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_sq_refusals PROPERTIES
  PASS_REGULAR_EXPRESSION "--q-count 1: expected an integer from 2 to 100000.*1431 monomers make 1.023e\\+06 pairs, above the bound of 1000 \\(max_pairs. agglo analyze: --sq-max-pairs, at most 1e11\\).*allowed tolerance >= .*--sq-tolerance.*--orientations 0: expected an integer from 1 to 10000000.*--optics and --mstm need --wavelength.*max_dipoles = 10000000 \\(agglo analyze: --max-dipoles.*NONE_WRITTEN")

# --sq with --plots draws sq.png (S, I, the fitted power law and Guinier's curve), and an
# --overwrite without --sq removes it with the rest of the earlier analysis
add_test(NAME analyze_sq_plot
  COMMAND sh -c "rm -rf an_sq_plot && ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --sq --plots -o an_sq_plot > /dev/null && test -s an_sq_plot/sq.png && grep -c \"slope -1.8\" an_sq_plot/plots.gp && ${AGGLO} analyze ${DATA}/analyze/dlca_1431.xyz --overwrite -o an_sq_plot > /dev/null && test ! -e an_sq_plot/sq.png && test ! -e an_sq_plot/sq.csv && echo SQ_PLOT_OK"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_sq_plot PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "^1\nSQ_PLOT_OK")

# --clusters all: two dimers (unit distance, one along x, one along y, far apart) in 2D average to
# one dimer's S = 1 + J0(q): 1.93846981 at q = 0.5, 1.22389078 at q = 2; a mobility row each
add_test(NAME analyze_sq_all_clusters
  COMMAND sh -c "rm -rf an_sq_all && printf '4\\nProperties=species:S:1:pos:R:3:radius:R:1\\nA 0 0 0 0.5\\nA 1 0 0 0.5\\nA 50 0 0 0.5\\nA 50 1 0 0.5\\n' > two_dimers.xyz && ${AGGLO} analyze two_dimers.xyz --clusters all --sq --mobility --q-min 0.5 --q-max 2 --q-count 2 -o an_sq_all && cat an_sq_all/sq.csv && test $(wc -l < an_sq_all/mobility.csv) -eq 3 && echo ALL_OK"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(analyze_sq_all_clusters PROPERTIES
  PASS_REGULAR_EXPRESSION "2 clusters, 4 monomers.*J0 kernel \\(2D\\) \\(all clusters, per monomer\\).*Guinier R_g +nan \\(2 points.*0.5,1.93846981,.*\n2,1.22389078,.*ALL_OK")
