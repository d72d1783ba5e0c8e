# `agglo aggregate` from the command line (docs/aggregates.md): the files it writes are read by
# agglo analyze and by particles.from; refusals name the bound; --help is the man page's text.
set(AGGLO $<TARGET_FILE:agglo_cli>)

add_test(NAME aggregate_help COMMAND ${AGGLO} aggregate --help)
set_tests_properties(aggregate_help PROPERTIES
  PASS_REGULAR_EXPRESSION "usage: agglo aggregate.*--df D_f.*--kf k_f.*--method cc\\|pc.*--together")

# particle-cluster at D_f 1.5, k_f 1.3: the third monomer cannot be placed; the message gives the
# k_f allowed (status 2: nothing written)
add_test(NAME aggregate_refused
  COMMAND sh -c "${AGGLO} aggregate --method pc --df 1.5 --kf 1.3 -o agg_refused; echo status $?; test ! -e agg_refused && echo nothing-written")
set_tests_properties(aggregate_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "k_f = 1.3 cannot be built by particle-cluster at D_f = 1.5.*allowed at this D_f: k_f from 1.438 to 2.418; or the cluster-cluster method.*status 2\nnothing-written")

# an ensemble of sizes 30 .. 240 in one frame: agglo analyze finds one cluster each and its
# mass-radius fit (the centres' R_g, unweighted: equal radii) gives back D_f 1.8 and k_f 1.3
add_test(NAME aggregate_analyze_fit
  COMMAND sh -c "${AGGLO} aggregate -n 30,60,120,240 --count 12 --together --df 1.8 --kf 1.3 --overwrite -o agg_fit > /dev/null && ${AGGLO} analyze agg_fit/aggregates.xyz --json --overwrite -o agg_fit/an")
set_tests_properties(aggregate_analyze_fit PROPERTIES
  PASS_REGULAR_EXPRESSION "\"n_clusters\": 12,.*\"fractal_dimension_mass\": 1\\.(8|80[0-9]*|799[0-9]*),.*\"mass_radius_prefactor\": 1\\.(3|30[0-9]*|299[0-9]*),")

# lognormal monomers (sigma_g 1.25): the generator's law has R_g weighted by r^3 and each
# cluster's geometric mean radius (FracVAL's); --mass-radius-fracval fits with those and gives back
# D_f 1.8 and k_f 1.3 (the default fit, unweighted R_g and one arithmetic mean radius, does not:
# k_f 1.4-1.7, docs/validation.md)
add_test(NAME aggregate_analyze_lognormal
  COMMAND sh -c "${AGGLO} aggregate -n 30,60,120,240 --count 12 --together --df 1.8 --kf 1.3 --radius-distribution lognormal --radius-sigma 1.25 --seed 3 --overwrite -o agg_lognormal > /dev/null && ${AGGLO} analyze agg_lognormal/aggregates.xyz --mass-radius-fracval --json --overwrite -o agg_lognormal/an")
set_tests_properties(aggregate_analyze_lognormal PROPERTIES
  PASS_REGULAR_EXPRESSION "\"n_clusters\": 12,.*\"fractal_dimension_fracval\": 1\\.(8|80[0-9]*|799[0-9]*),\n  \"prefactor_fracval\": 1\\.(3|30[0-9]*|299[0-9]*),")

# the same seed gives the same bytes; aggregate 2 of an ensemble is aggregate 2 however many are built
add_test(NAME aggregate_reproducible
  COMMAND sh -c "${AGGLO} aggregate -n 200 --count 3 --seed 5 --overwrite -o agg_rep_a > /dev/null && ${AGGLO} aggregate -n 200 --count 2 --seed 5 --overwrite -o agg_rep_b > /dev/null && cmp agg_rep_a/aggregate_0002.xyz agg_rep_b/aggregate_0002.xyz && echo same")
set_tests_properties(aggregate_reproducible PROPERTIES PASS_REGULAR_EXPRESSION "^same\n$")

# a start for the contact model (3D, box of the file) and for H5MD: one command each
add_test(NAME aggregate_starts_a_run
  COMMAND sh -c "${AGGLO} aggregate -n 100 --box 60 --format h5md --overwrite -o agg_run > /dev/null && ${AGGLO} run -o agg_run/contact --overwrite --quiet -s run.dim=3 -s particles.from=agg_run/aggregate_0001.h5md -s box.size=60 -s particles.radius=1 -s run.t_end=0.2 -s output.snapshots= && ${AGGLO} analyze agg_run/contact/trajectory.xyz --frame 1 --overwrite -o agg_run/an")
set_tests_properties(aggregate_starts_a_run PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "100 particles \\(3D\\).*clusters +1 \\(mean size 100")

# an existing output is refused without --overwrite
add_test(NAME aggregate_existing_refused
  COMMAND sh -c "${AGGLO} aggregate -n 10 --overwrite -o agg_twice > /dev/null && ${AGGLO} aggregate -n 10 -o agg_twice; echo status $?")
set_tests_properties(aggregate_existing_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "agg_twice holds aggregates of an earlier call \\(agg_twice/aggregates.csv\\).*--overwrite.*status 1")

# SIGTERM stops a long build within a second (D_f 2.5, 10^4 monomers: 6 s), exit status 143,
# naming the joining it stopped in; the aggregate finished before (200 monomers) stays written in
# the one file of --together, with its row of aggregates.csv
add_test(NAME aggregate_sigterm
  COMMAND sh -c "t0=$(date +%s%N); ${AGGLO} aggregate -n 200,10000 --count 3 --together --df 2.5 --kf 1.3 --overwrite -o agg_term > /dev/null & p=$!; sleep 1; kill -TERM $p; wait $p; s=$?; t1=$(date +%s%N); echo status $s; test $((t1 - t0)) -lt 2000000000 && echo within-2-s; head -1 agg_term/aggregates.xyz; wc -l < agg_term/aggregates.csv")
set_tests_properties(aggregate_sigterm PROPERTIES TIMEOUT 20
  PASS_REGULAR_EXPRESSION "cluster-cluster, level [0-9]+: .*stopped \\(the stop flag was set\\)\n.*the 1 aggregate finished before is written: agg_term/aggregates.xyz\nstatus 143\nwithin-2-s\n200\n2\n$")

# one process per directory, as agglo run: a second call on a directory being written is refused
add_test(NAME aggregate_dir_locked
  COMMAND sh -c "${AGGLO} aggregate -n 10000 --df 2.5 --kf 1.3 --overwrite -o agg_locked > /dev/null 2>&1 & p=$!; sleep 0.5; ${AGGLO} aggregate -n 10 --overwrite -o agg_locked; echo status $?; kill -TERM $p; wait $p")
set_tests_properties(aggregate_dir_locked PROPERTIES TIMEOUT 20
  PASS_REGULAR_EXPRESSION "agg_locked is in use by another run \\(pid [0-9]+ holds agg_locked/agglo.lock\\).*status 1")

# an N whose build would take more than 80 % of the memory is refused up front, naming N (300
# bytes a monomer: 10^8 needs 30 GB; on a machine of more than 37.5 GB nothing is run)
add_test(NAME aggregate_memory_refused
  COMMAND sh -c "if [ $(awk '/MemTotal/ {print $2}' /proc/meminfo) -gt 36000000 ]; then echo 'n = 100000000 monomers need about 30 GB of memory (skipped: a large machine)'; echo status 2; else ${AGGLO} aggregate -n 100000000 -o agg_memory; echo status $?; fi")
set_tests_properties(aggregate_memory_refused PROPERTIES
  PASS_REGULAR_EXPRESSION "n = 100000000 monomers need about 30 GB of memory.*status 2")

# the edge of contact at low D_f: 10 aggregates of 1000 at D_f 1.4, k_f 1.3, without a restart,
# read back by agglo analyze (the clusters joined tip to tip)
add_test(NAME aggregate_edge_of_contact_df14
  COMMAND sh -c "${AGGLO} aggregate -n 1000 --df 1.4 --kf 1.3 --count 10 --max-restarts 0 --overwrite -o agg_df14 | tail -1 && awk -F, 'NR > 1 && $13 == 0 {n++} END {print n, \"without restart\"}' agg_df14/aggregates.csv")
set_tests_properties(aggregate_edge_of_contact_df14 PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "^10 aggregates in [0-9.]+ s: agg_df14.*\n10 without restart\n$")

# an ensemble as the frames of one file: particles.frame picks aggregate 2 (of 150 monomers)
add_test(NAME aggregate_frames_start
  COMMAND sh -c "${AGGLO} aggregate -n 100,150,200 --count 3 --frames --overwrite -o agg_frames > /dev/null && ${AGGLO} run -o agg_frames/run --overwrite --quiet -s run.dim=3 -s particles.from=agg_frames/aggregates.xyz -s particles.frame=2 -s box.size=$(sed -n '2s/^Lattice=\"\\([^ ]*\\) .*/\\1/p' agg_frames/aggregates.xyz) -s particles.radius=1 -s run.t_end=0.1 -s output.snapshots= && ${AGGLO} analyze agg_frames/run/trajectory.xyz --frame 1 --overwrite -o agg_frames/an")
set_tests_properties(aggregate_frames_start PROPERTIES TIMEOUT 60
  PASS_REGULAR_EXPRESSION "150 particles \\(3D\\).*clusters +1 \\(mean size 150")
