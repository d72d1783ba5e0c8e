# Hostile pass 2 (docs/reliability.md, "Hostile pass 2"): what a hostile user did, each refused
# with its message and exit status, or stopped as asked. hostile(NAME REGEX SCRIPT): the shell
# SCRIPT, run in its own directory, prints REGEX (its output and "status N" lines).
set(H_EXE $<TARGET_FILE:agglo_cli>)
set(H_DATA ${CMAKE_CURRENT_SOURCE_DIR}/hostile)
function(hostile name regex script)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/hostile_${name})
  file(MAKE_DIRECTORY ${dir})
  add_test(NAME hostile_${name} COMMAND sh -c "${script}" WORKING_DIRECTORY ${dir})
  set_tests_properties(hostile_${name} PROPERTIES PASS_REGULAR_EXPRESSION "${regex}" TIMEOUT 60
    FAIL_REGULAR_EXPRESSION "OUTPUT DIRECTORY LEFT")
endfunction()

# a restart point's '# writer:' lines: each field checked at the load, naming the line; a writer
# the run does not add again is an input error (2), not a failed run (1)
set(H_RESTART "rm -rf w0 wf w1; ${H_EXE} run -s particles.n=50 -s run.t_end=0.04 -o w0 --quiet && cp -r w0 wf && python3 ${H_DATA}/forge_writer.py wf")
set(H_AGAIN "; ${H_EXE} run --restart wf -o w1 -s run.t_end=0.08 --quiet 2>&1; echo status $?; test ! -e w1 || echo OUTPUT DIRECTORY LEFT")
hostile(writer_not_added "user writer 'probe' \\(file probe.txt, 0 bytes\\), not added again.*\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=probe.txt bytes=0 next=0 index=0' ${H_AGAIN}")
hostile(writer_next_nan "wf/contacts.txt: user writer line 1 \\('# writer: probe file=probe.txt bytes=0 next=nan index=0'\\): next \\(allowed: finite, >= 0\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=probe.txt bytes=0 next=nan index=0' ${H_AGAIN}")
hostile(writer_next_inf "user writer line 1 .*next \\(allowed: finite, >= 0\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=probe.txt bytes=0 next=inf index=0' ${H_AGAIN}")
hostile(writer_file_dotdot "user writer line 1 .*file \\(allowed: a plain file name, not one of agglo's own files\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=.. bytes=0 next=0 index=0' ${H_AGAIN}")
hostile(writer_file_agglo_own "user writer line 1 .*file=state.xyz.*not one of agglo's own files\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=state.xyz bytes=0 next=0 index=0' ${H_AGAIN}")
hostile(writer_file_slash "user writer line 1 is not '# writer: NAME file=FILE.*\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=a/b bytes=0 next=0 index=0' ${H_AGAIN}")
hostile(writer_bytes_huge "user writer line 1 .*bytes \\(allowed: 0 to 2\\^53\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=p bytes=99999999999999999 next=0 index=0' ${H_AGAIN}")
hostile(writer_bytes_negative "user writer line 1 .*bytes \\(allowed: 0 to 2\\^53\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=p bytes=-5 next=0 index=0' ${H_AGAIN}")
hostile(writer_twice "user writer line 2 .*one line per writer name and file\\)\nstatus 2\n"
  "${H_RESTART} '# writer: probe file=p bytes=0 next=0 index=0' && python3 ${H_DATA}/forge_writer.py wf '# writer: probe file=q bytes=0 next=0 index=0' ${H_AGAIN}")
if(MPI_C_FOUND AND MPIEXEC_EXECUTABLE AND NOT AGGLO_SANITIZE)
  # under mpirun the same refusal exits 2 (it was 1, "rank 0 failed to write")
  set(H_MPI "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 ${MPIEXEC_EXECUTABLE} --oversubscribe -np 2")
  hostile(mpi_writer_not_added "user writer 'probe' \\(file probe.txt, 0 bytes\\), not added again.*status 2\n"
    "rm -rf d0 df d1; ${H_MPI} ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/dpd_capillary.ini -s run.t_end=0.04 -o d0 --quiet && cp -r d0 df && python3 ${H_DATA}/forge_writer.py df '# writer: probe file=probe.txt bytes=0 next=0 index=0'; ${H_MPI} ${H_EXE} run --restart df -o d1 -s run.t_end=0.08 --quiet 2>&1; echo status $?; test ! -e d1 || echo OUTPUT DIRECTORY LEFT")
  # a brick grid that does not match the ranks: refused (2) and, as every refusal, no directory
  hostile(mpi_grid_no_directory "parallel.grid = 1 1 3 makes 3 bricks for 2 ranks.*status 2\n"
    "rm -rf g; ${H_MPI} ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/dpd_capillary.ini -s parallel.grid='1 1 3' -o g --quiet 2>&1; echo status $?; test ! -e g || echo OUTPUT DIRECTORY LEFT")
endif()

# agglo aggregate -n: a list longer than its buffer was cut, its last size read as another number
string(REPEAT "0" 1019 H_ZEROS)
hostile(aggregate_n_too_long "agglo aggregate: -n: a list of 1024 characters \\(allowed: at most 1023\\)\nstatus 2\n"
  "${H_EXE} aggregate -n 1,${H_ZEROS}123 -o agg 2>&1; echo status $?")

# --overwrite onto a larger earlier call: its files beyond the new one's stayed, two calls mixed
hostile(aggregate_overwrite_stale "^aggregate_0001.xyz aggregate_0002.xyz aggregates.csv mine.txt \n$"
  "rm -rf ag; ${H_EXE} aggregate -n 5 --count 8 -o ag >/dev/null && touch ag/mine.txt && ${H_EXE} aggregate -n 5 --count 2 -o ag --overwrite >/dev/null && ls ag | tr '\\n' ' '; echo")
hostile(ensemble_overwrite_stale "^en/run.dt=0.02/seed=1 en/run.dt=0.02/seed=2 \n$"
  "rm -rf en; ${H_EXE} ensemble -s particles.n=50 -s run.t_end=0.04 --seeds 1-3 --vary run.dt=0.02,0.01 -o en --quiet >/dev/null 2>&1 && ${H_EXE} ensemble -s particles.n=50 -s run.t_end=0.04 --seeds 1-2 --vary run.dt=0.02 -o en --quiet --overwrite >/dev/null 2>&1 && find en -mindepth 2 -type d | sort | tr '\\n' ' '; echo")

# agglo analyze --sq, binned, of unequal radii: the monomers' amplitudes (N x q values, 320 MB
# here) were made for an intensity the binned sum reports as NaN: out of memory in 300 MB; now
# not made (the bins are bounded: AGGLO_SQ_MAX_BINS, bins x q values <= 1e10, analyze_sq_refusals)
if(NOT AGGLO_SANITIZE)
  hostile(sq_binned_memory "written: an_u/analysis.csv, an_u/clusters.csv, an_u/sq.csv\nstatus 0\n"
    "python3 ${H_DATA}/cloud.py 10000 > cloud.xyz && rm -rf an_u && ulimit -v 300000 && ${H_EXE} analyze cloud.xyz --sq --sq-method binned --q-count 4000 --sq-tolerance 1 --contact-distance 3 -o an_u 2>&1 | grep -v '^ '; echo status $?")
endif()

# particles.from = start.xyz in sc/s.ini, with a start.xyz in the working directory and another
# in sc/: the working directory's was taken without a word; now refused naming both (the same
# file through a link: taken)
set(H_AMB "rm -rf r0 r1 r2 sc start.xyz && mkdir sc && ${H_EXE} run -s particles.n=50 -s run.t_end=0.02 -o r0 --quiet && cp r0/state.xyz start.xyz && cp r0/state.xyz sc/start.xyz && printf '[particles]\\nfrom = start.xyz\\n[box]\\nsize = 2\\n[run]\\nt_end = 0.04\\n' > sc/s.ini")
hostile(from_ambiguous "particles.from = start.xyz is two different files: start.xyz from the working directory and sc/start.xyz beside the scenario file; give the one you mean as an absolute path\nstatus 2\nstatus 0\n$"
  "${H_AMB} && ${H_EXE} run sc/s.ini -o r1 --quiet 2>&1; echo status $?; rm sc/start.xyz && ln -s ../start.xyz sc/start.xyz && ${H_EXE} run sc/s.ini -o r2 --quiet 2>&1; echo status $?")

# an extended XYZ frame whose Lattice= tilt (the Lees-Edwards offset, agglo's in [0, L_x)) is
# beyond the side along x: read and analysed, exit 0; now refused naming file, line and value
set(H_TILT "printf '2\\nLattice=\"5 0 0 TILT 5 0 0 0 5\" Properties=species:S:1:pos:R:3:radius:R:1 pbc=\"T T T\"\\nX 1 1 1 0.5\\nX 2 1 1 0.5\\n' > t.xyz")
hostile(xyz_tilt_huge "t.xyz:2: frame 1: Lattice= has the Lees-Edwards offset 1e\\+300 \\(4th number\\) beyond the box's side along x, 5 \\(allowed: -L_x to L_x\\)\nstatus 1\n"
  "rm -rf an; ${H_TILT} && sed -i 's/TILT/1e300/' t.xyz && ${H_EXE} analyze t.xyz -o an 2>&1; echo status $?")
hostile(xyz_tilt_negative "t.xyz:2: frame 1: Lattice= has the Lees-Edwards offset -7.5 .*\nstatus 2\n"
  "rm -rf o; ${H_TILT} && sed -i 's/TILT/-7.5/' t.xyz && ${H_EXE} run -s particles.from=t.xyz -s box.size=5 -s run.dim=3 -o o --quiet 2>&1; echo status $?")
hostile(xyz_tilt_within "written: an/analysis.csv"
  "rm -rf an; ${H_TILT} && sed -i 's/TILT/-4.5/' t.xyz && ${H_EXE} analyze t.xyz -o an 2>&1")

# a sheared DPD run continued with another dpd.shear_rate (-s at --restart): already refused on
# main, naming the key and both values (kept as a guard)
hostile(restart_shear_rate_changed "dpd.shear_rate = 0.5, but the run it continues has 0.2 \\(sh0/scenario.ini\\): the restart point fixes it.*\nstatus 2\n"
  "rm -rf sh0 sh1; ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/dpd_shear.ini -s run.t_end=0.08 -s particles.n=300 -s box.size=5 -o sh0 --quiet 2>/dev/null; ${H_EXE} run --restart sh0 -s dpd.shear_rate=0.5 -s run.t_end=0.16 -o sh1 --quiet 2>&1; echo status $?")

# SIGTERM while a dlca step groups the monomers' flights (the build of its first step, 2e8 flights
# at 20 000 monomers): stopped after the build, 17 s; now the build polls the stop
hostile(sigterm_dlca_grouping "stopped by signal 15 at step 0 .*state saved.*\nstatus 143\nstopped within 3 s\nStep=0\n20002 lines\n"
  "sh ${H_DATA}/sigterm_dlca.sh ${H_EXE} ${PROJECT_SOURCE_DIR}/examples")

# agglo analyze had no signal handler: SIGTERM killed it, leaving NAME.part files and its
# agglo.lock; a Ctrl-C during the Gaussian cut-off fit (--sq, 3D) or the orientations of
# --mobility now ends it within a second, status 143, no file of it left
set(H_DLCA ${CMAKE_CURRENT_SOURCE_DIR}/data/analyze/dlca_1431.xyz)
set(H_STOPPED "agglo analyze: stopped by signal 15 \\(agglo_[a-z_]+: stopped \\(a stop was requested.*no file of it written.*\nstatus 143\nended within 2 s\nempty\n")
hostile(sigterm_analyze_sq_fit "${H_STOPPED}"
  "awk 'NR<=2{print;next}{\$5=1+(NR%7)*0.05; print}' ${H_DLCA} > uneq.xyz && sh ${H_DATA}/sigterm_analyze.sh ${H_EXE} an uneq.xyz --sq --sq-method binned --sq-tolerance 100 --q-count 30000")
hostile(sigterm_analyze_mobility "${H_STOPPED}"
  "sh ${H_DATA}/sigterm_analyze.sh ${H_EXE} an ${H_DLCA} --mobility --orientations 5000000 --rays 2")
if(NOT AGGLO_SANITIZE)
  hostile(sigterm_analyze_exact_sum "${H_STOPPED}"
    "python3 ${H_DATA}/cloud.py 20000 > cloud.xyz && sh ${H_DATA}/sigterm_analyze.sh ${H_EXE} an cloud.xyz --sq --sq-method exact --q-count 20 --contact-distance 3 --sq-max-pairs 300000000")
endif()
# orientations x monomers bounded as orientations x rays are (1e10): 1e7 x 1431 ran for hours
hostile(mobility_orientations_monomers "orientations x monomers = 10000000 x 1431 = 1.431e\\+10 \\(allowed at most 1e10; agglo analyze: --orientations\\)\nstatus 1\n"
  "rm -rf an; ${H_EXE} analyze ${H_DLCA} --mobility --orientations 10000000 --rays 1 -o an 2>&1; echo status $?")

# agglo analyze --msd of frames whose time goes back (5, 1, 3): msd.csv with lag times -1 and -2,
# exit 0; now refused naming the frames and times
set(H_P "Properties=species:S:1:pos:R:3:radius:R:1")
hostile(msd_time_backwards "MSD: frame 2 is at time 1, not after frame 1's 5 \\(the mean-square displacement needs frames in increasing time.*\nstatus 1\n"
  "rm -rf an; printf '2\\n${H_P} Time=5\\nX 0 0 0 1\\nX 2 0 0 1\\n2\\n${H_P} Time=1\\nX 1 0 0 1\\nX 2 0 0 1\\n2\\n${H_P} Time=3\\nX 2 0 0 1\\nX 2 0 0 1\\n' > tb.xyz && ${H_EXE} analyze tb.xyz --msd -o an 2>&1; echo status $?")
# a particle line with more columns than Properties= says (a column left out of Properties shifts
# the others: velocities read as radii): the extra ones were ignored; now refused
hostile(xyz_extra_columns "ec.xyz:3: frame 1: particle line has more than the 5 columns of Properties\nstatus 1\n"
  "rm -rf an; printf '2\\n${H_P}\\nX 0 0 0 1 7\\nX 2 0 0 1\\n' > ec.xyz && ${H_EXE} analyze ec.xyz -o an 2>&1; echo status $?")

# agglo render / movie with a bad picture key: exit 1 (a failure) and the -s argument named twice;
# now 2, as every refusal of input
hostile(render_bad_key_status "^agglo: -s picture.zoom=1e300: picture.zoom = 1e300 is out of range \\(allowed: > 0 and <= 100\\)\nstatus 2\n$"
  "printf '2\\nProperties=species:S:1:pos:R:3:radius:R:1\\nX 0 0 0 1\\nX 2 0 0 1\\n' > p.xyz && ${H_EXE} render p.xyz -o pics -s picture.zoom=1e300 2>&1; echo status $?")

# a dlca restart point (200 monomers, 150 clusters left) with one number of a cluster forged and
# the seal computed again: a flight end of -1e300, -5 or 1e20 draws, an offset, a reference time
# of 1e300, a mass of 1e-300 or extents of 1e300 ran on (exit 0) or never ended its step; each is
# now refused, naming the line, before the run
set(H_DLCA0 "rm -rf e0 ef e1; ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/dlca_3d.ini -s particles.n=200 -s dlca.clusters=150 -o e0 --quiet && cp -r e0 ef")
set(H_DLCA1 "${H_EXE} run --restart ef -o e1 -s dlca.clusters=100 --quiet 2>&1; echo status $?")
function(hostile_dlca name line awk regex) # line: 1-based
  math(EXPR index "${line} - 1")
  hostile(dlca_restart_${name} "${regex}.*\nstatus 2\n"
    "${H_DLCA0} && python3 ${H_DATA}/reseal.py ef ${index} \"$(sed -n ${line}p e0/contacts.txt | awk '{${awk}; print}')\" && ${H_DLCA1}")
endfunction()
hostile_dlca(flight_end_past 356 "$2=-1e300" "ef/contacts.txt: line 356 is not 'cluster end-of-flight draws' .*its flight ending at or after")
hostile_dlca(draws_negative 356 "$3=-5" "ef/contacts.txt: line 356 is not 'cluster end-of-flight draws'")
hostile_dlca(offset 204 "$2=1e300" "cluster 0 \\(among lines 204 to 353\\) does not hold particle 0")
hostile_dlca(time 204 "$8=-1e300" "cluster 0 \\(among lines 204 to 353\\) does not hold particle 0")
hostile_dlca(mass 204 "$9=1e-300" "cluster 0 \\(among lines 204 to 353\\): mass 1e-300, its members' 1")
hostile_dlca(extent 204 "$13=1e300" "cluster 0 \\(among lines 204 to 353\\): extents -1 .. 1e\\+300 along x")
# a gluey restart point whose contact carries a positive adhesion memory (gamma = 1e300; the step
# never leaves one above 0): ran on, exit 0; now refused naming the line
hostile(gluey_restart_gamma_positive "gf/contacts.txt: line 3: contact [0-9-]+ [0-9-]+: memory gamma 1e\\+300 \\(allowed: <= 0\\).*\nstatus 2\n"
  "rm -rf g0 gf g1; ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/gluey_lotto.ini -s run.t_end=0.1 -o g0 --quiet 2>/dev/null; cp -r g0 gf && python3 ${H_DATA}/reseal.py gf 2 \"$(sed -n 3p g0/contacts.txt | awk '{$4=1e300; print}')\" && ${H_EXE} run --restart gf -o g1 -s run.t_end=0.2 --quiet 2>&1; echo status $?")
# a DPD restart point (375 beads of dpd_capillary.ini) whose saved force is forged (1e300, nan)
# and the seal computed again: 1e300 ran on and failed at its first stats row (exit 1,
# kinetic_energy = inf); now refused when read, naming the file, line and component; so is a
# negative last temperature
set(H_DPD0 "rm -rf q0 qf q1; ${H_EXE} run ${PROJECT_SOURCE_DIR}/examples/dpd_capillary.ini -s run.t_end=0.04 -o q0 --quiet && cp -r q0 qf")
set(H_DPD1 "${H_EXE} run --restart qf -o q1 -s run.t_end=0.08 --quiet 2>&1; echo status $?; test ! -e q1 || echo OUTPUT DIRECTORY LEFT")
hostile(dpd_restart_force_huge "qf/contacts.txt: line 3: the force of particle 0 \\(id [0-9]+\\): f_y = 1e\\+300 \\(allowed: at most m L/dt\\^2 = 1e\\+08 .*\nstatus 2\n"
  "${H_DPD0} && python3 ${H_DATA}/reseal.py qf 2 \"$(sed -n 3p q0/contacts.txt | awk '{$2=1e300; print}')\" && ${H_DPD1}")
hostile(dpd_restart_force_nan "qf/contacts.txt: line 5: the force of particle 2: f_z = nan \\(allowed: finite\\).*\nstatus 2\n"
  "${H_DPD0} && python3 ${H_DATA}/reseal.py qf 4 \"$(sed -n 5p q0/contacts.txt | awk '{$3=\"nan\"; print}')\" && ${H_DPD1}")
hostile(dpd_restart_temperature_negative "qf/contacts.txt: after line 377: expected the temperature record \\(the last temperature, >= 0.*\nstatus 2\n"
  "${H_DPD0} && python3 ${H_DATA}/reseal.py qf 378 -0x1p+0 && ${H_DPD1}")
